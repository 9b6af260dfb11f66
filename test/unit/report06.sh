#!/bin/sh
# report06.sh: experiment 06's statistics (test/experiments/06-multiplexing/stats.py: median,
# bootstrap 95 % interval, ahead/behind only where intervals do not overlap) and the verdicts its
# report prints from made-up runs through summarize.py and report.py (TAP,
# test/unit/test_report06.py): a 5 % difference within +-30 % spreads is a tie, not a win.
. "$(dirname "$0")/../lib.sh"
run_tap /usr/bin/python3 "$top_srcdir/test/unit/test_report06.py"
done_testing
