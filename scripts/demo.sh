#!/bin/sh
# scripts/demo.sh: msgperf's loopback table on this host, then kernel SCTP's (natively or in the VM).
set -eu
cd "$(dirname "$0")/.."
# the Release libusrsctp unless USRSCTP_LIBDIR says otherwise (scripts/usrsctp-lib.sh), said
libdir=$(scripts/usrsctp-lib.sh pick)
if [ -n "$libdir" ]; then
	LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
echo "== $(scripts/usrsctp-lib.sh which ./msgperf) =="
[ "${SCTPAPPS_DEMO_HEADER:-0}" = 1 ] && exit 0 # test aid: that line alone
echo "== msgperf on this host's loopback: $(uname -r) =="
./msgperf -q "$@"
if test/vm/have-sctp && test/vm/have-sctp --netem; then
	echo
	echo "== the applications over kernel SCTP, two hosts (namespaces) on an emulated link =="
	exec scripts/demo-apps-vm.sh
fi
echo
echo "== kernel SCTP: this kernel has none, so in a VM (Debian's kernel under qemu, TCG) =="
echo "   (emulated CPU: compare rows with each other, not with the table above)"
# One vCPU: under TCG a wake-up across two emulated CPUs costs milliseconds, which would
# swamp the latencies.
test/vm/run --smp 1 scripts/demo-vm.sh -t tcp,tcpm,unix,unixm,sctp,sctp1m "$@"
echo
echo "== the applications over kernel SCTP, two hosts (namespaces) on an emulated link (VM) =="
test/vm/run --smp 1 scripts/demo-apps-vm.sh
