#!/bin/sh
# scripts/demo.sh: msgperf's loopback table on this host, then kernel SCTP's (natively or in the VM).
set -eu
cd "$(dirname "$0")/.."
echo "== msgperf on this host's loopback: $(uname -r) =="
./msgperf -q "$@"
if test/vm/have-sctp; then
	exit 0
fi
echo
echo "== kernel SCTP: this kernel has none, so in a VM (Debian's kernel under qemu) =="
echo "   (emulated CPU: compare rows with each other, not with the table above)"
test/vm/run ./msgperf -q -t tcp,tcpm,sctp,sctp1m "$@"
