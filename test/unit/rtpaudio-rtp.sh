#!/bin/sh
# rtpaudio-rtp.sh: RTP/RTCP, RFC 2250 packetizing, jitter buffer, fuzzed packets.
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_rtp"
done_testing
