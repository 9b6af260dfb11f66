#!/bin/sh
# udp_gro.sh: UDP GRO buffers cut back into their datagrams (lib/tp/usrsctp/tp_udp_gro.c), exact sizes, and
# on this kernel's loopback with and without UDP_GRO (test/unit/test_udp_gro.c).
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_udp_gro"
done_testing
