#!/bin/sh
# tp_kernel_sctp.sh: the echo tests against kernel SCTP (natively, or in the VM when the host lacks it).
. "$(dirname "$0")/../lib.sh"
run_tap kernel_sctp "$top_srcdir/test/unit/tp_kernel_sctp_inner.sh" "$top_builddir"
done_testing
