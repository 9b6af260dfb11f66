#!/bin/sh
# ev.sh: event loop unit tests.
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_ev"
done_testing
