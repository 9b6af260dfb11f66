#!/bin/sh
# router.sh: lab v2's router (test/lab/router.sh: a TCG VM bridging two host namespaces through
# TAPs, netem per direction) and its fidelity checks (test/lab/fidelity.py), on the host (TAP):
# delay seen, a lossy transfer judged faithful, guest GRO left on caught, bad settings refused,
# nothing left behind after down or after its owner was killed.
. "$(dirname "$0")/../lib.sh"
run_tap bash "$top_srcdir/test/lab/test-router.sh"
done_testing
