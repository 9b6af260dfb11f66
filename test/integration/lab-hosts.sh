#!/bin/sh
# lab-hosts.sh: the experiments (01, 04) and the load generator on "real hosts" over ssh:
# network namespaces each running its own sshd, used through an inventory
# (test/experiments/run --hosts, test/experiments/loadgen), against the plain lab; then the
# faults a user meets there (test/lab/test-hosts-faults.sh). Natively where
# the kernel has SCTP, netem and veth, else inside the VM (15-25 minutes under TCG on this loaded 2-core host).
. "$(dirname "$0")/../lib.sh"
SCTPAPPS_VM_TIMEOUT=${SCTPAPPS_VM_TIMEOUT:-1800}
export SCTPAPPS_VM_TIMEOUT
run_tap kernel_netem bash "$top_srcdir/test/lab/test-hosts.sh"
# the faults (test-hosts-faults.sh: a host without kernel SCTP, sshd killed, SIGTERM, a wrong
# key, a client that exits 127, no server) need root, netns and sshd, not kernel SCTP or netem:
# natively where it can (a minute), else in the VM
# and the walk of test/lab/README.md in a fresh clone (test-hosts-walk.sh, half a minute)
for t in test-hosts-faults.sh test-hosts-walk.sh; do
	if [ "$(id -u)" = 0 ] && [ -x /usr/sbin/sshd ] && unshare -m true 2>/dev/null &&
	    ip netns add "lhf$$" 2>/dev/null && ip netns del "lhf$$"; then
		run_tap bash "$top_srcdir/test/lab/$t"
	else
		run_tap "$top_srcdir/test/vm/run" bash "$top_srcdir/test/lab/$t"
	fi
done
done_testing
