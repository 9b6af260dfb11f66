#!/bin/sh
# httpload_sess.sh: httpload's sessions (stream cursor, PPID, replies off their stream) against
# a scripted usrsctp server, on a UDP port of its own.
. "$(dirname "$0")/../lib.sh"
TEST_UDP_PORT=$((23000 + $$ % 2000)) run_tap "$top_builddir/test/unit/test_sess"
done_testing
