#!/bin/sh
# expcells.sh: experiments 01-05's repeated cells (test/experiments/cells.py: median, bootstrap
# 95 % interval, and the wrong-way rule that flags a cell going against its neighbour beyond the
# intervals), TAP from test/unit/test_cells.py on made-up runs.
. "$(dirname "$0")/../lib.sh"
run_tap /usr/bin/python3 "$top_srcdir/test/unit/test_cells.py"
done_testing
