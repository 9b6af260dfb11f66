#!/bin/sh
# scripts/demo-vm.sh: msgperf inside the VM (run by test/vm/run). Loopback gets a 1500-byte MTU:
# at lo's 64 KiB default, Linux SCTP stalls on delayed SACKs (about 200 ms a round) and the
# table would show that artefact instead of the protocols.
set -eu
ip link set lo mtu 1500
echo "(VM: $(uname -r), lo mtu 1500, one emulated CPU)"
exec ./msgperf -q "$@"
