#!/bin/sh
# rtpaudio-fec.sh: the Reed-Solomon erasure code, every erasure pattern up to n - k.
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_rtpfec"
done_testing
