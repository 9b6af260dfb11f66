#!/bin/sh
# fidelity.sh: lab v2's fidelity checks (test/lab/fidelity.py) judge made-up router counters as
# they should (TAP, test/unit/test_fidelity.py): exact binomial 99 % bounds, the Gilbert interval,
# queue drops kept out of the loss, GRO-merged traffic caught, the CPU limit, bad input refused.
. "$(dirname "$0")/../lib.sh"
run_tap /usr/bin/python3 "$top_srcdir/test/unit/test_fidelity.py"
done_testing
