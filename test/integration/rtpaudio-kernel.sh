#!/bin/bash
# rtpaudio-kernel.sh: rtpaudio over kernel SCTP (sctp, prsctp), natively or in the VM; the
# checks are rtpaudio.sh's, with a deeper playout buffer for the slow emulated VM.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
run_tap kernel_sctp env RTPAUDIO_DELAY=1500 bash "$here/rtpaudio.sh" --kernel
done_testing
