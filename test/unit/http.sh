#!/bin/sh
# http.sh: HTTP parser unit tests.
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_http"
done_testing
