#!/bin/sh
# tp_usrsctp.sh: the echo tests against both usrsctp types (usrsctp with its threads, usrsctp-nt
# without), SCTP over UDP on the host, each on a UDP port of
# their own so that other usrsctp tests can run at the same time.
. "$(dirname "$0")/../lib.sh"
TEST_UDP_PORT=$((21000 + $$ % 2000)) run_tap "$top_builddir/test/unit/test_tp" usrsctp
TEST_UDP_PORT=$((23000 + $$ % 2000)) run_tap "$top_builddir/test/unit/test_tp" usrsctp-nt
done_testing
