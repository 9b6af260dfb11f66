#!/bin/sh
# tp_usrsctp.sh: the echo tests against usrsctp (SCTP over UDP, on the host).
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_tp" usrsctp
done_testing
