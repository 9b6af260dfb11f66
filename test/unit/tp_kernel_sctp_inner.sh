#!/bin/sh
# tp_kernel_sctp_inner.sh: runs where the kernel has SCTP; TAP out.
top_builddir=${1:-$top_builddir}
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_tp" sctp
run_tap "$top_builddir/test/unit/test_tp" sctp1m
run_tap "$top_builddir/test/unit/test_tp" sctp "[::1]:0"
run_tap "$top_srcdir/test/interop/lksctp-tools.sh"
done_testing
