#!/bin/sh
# tp_addr.sh: address parsing unit tests.
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_tp_addr"
done_testing
