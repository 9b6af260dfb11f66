#!/bin/sh
# rtpaudio-3119.sh: RFC 5219 ADUs, descriptors, fragments, frame rebuilding, fuzzed packets.
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_rtp3119"
done_testing
