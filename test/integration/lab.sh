#!/bin/sh
# lab.sh: the network lab (test/lab/lab.sh) builds its topologies as documented (TAP): delay by
# ping, loss, shaping, two paths and blocking the primary. Natively where the kernel has SCTP,
# netem and veth, else inside the VM.
. "$(dirname "$0")/../lib.sh"
run_tap kernel_netem bash "$top_srcdir/test/lab/test-lab.sh"
done_testing
