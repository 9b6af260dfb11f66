#!/bin/sh
# lab-hosts.sh: the experiments (01, 04) and the load generator on "real hosts" over ssh:
# network namespaces each running its own sshd, used through an inventory
# (test/experiments/run --hosts, test/experiments/loadgen), against the plain lab. Natively where
# the kernel has SCTP, netem and veth, else inside the VM (15-25 minutes under TCG on this loaded 2-core host).
. "$(dirname "$0")/../lib.sh"
SCTPAPPS_VM_TIMEOUT=${SCTPAPPS_VM_TIMEOUT:-1800}
export SCTPAPPS_VM_TIMEOUT
run_tap kernel_netem bash "$top_srcdir/test/lab/test-hosts.sh"
done_testing
