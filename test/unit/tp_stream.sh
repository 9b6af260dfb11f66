#!/bin/sh
# tp_stream.sh: the echo tests against the kernel stream types and their framed variants.
. "$(dirname "$0")/../lib.sh"
for t in tcp tcpm unix unixm; do
	run_tap "$top_builddir/test/unit/test_tp" $t
done
run_tap "$top_builddir/test/unit/test_tp" tcp "[::1]:0"
done_testing
