#!/bin/sh
# tp_usrsctp.sh: the echo tests against usrsctp (SCTP over UDP, on the host), on a UDP port of
# their own so that other usrsctp tests can run at the same time.
. "$(dirname "$0")/../lib.sh"
TEST_UDP_PORT=$((21000 + $$ % 2000)) run_tap "$top_builddir/test/unit/test_tp" usrsctp
done_testing
