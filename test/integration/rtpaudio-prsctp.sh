#!/bin/bash
# rtpaudio-prsctp.sh: PR-SCTP on an emulated path (netns, veth, netem: natively where the
# kernel has SCTP and netem, else in the VM): --lifetime auto follows the RTT; plain SCTP and
# PR-SCTP on one lossy narrow link, measured (kernel SCTP and usrsctp). The checks are in
# rtpaudio-prsctp-vm.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
if "$top_srcdir/test/vm/have-sctp" --netem 2>/dev/null; then
	run_tap bash "$here/rtpaudio-prsctp-vm.sh"
else
	run_tap "$top_srcdir/test/vm/run" --timeout 500 bash "$here/rtpaudio-prsctp-vm.sh"
fi
done_testing
