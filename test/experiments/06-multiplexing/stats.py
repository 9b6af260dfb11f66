#!/usr/bin/python3
"""stats.py: experiment 06's statistics (a module of summarize.py and report.py).

A row's time in a cell is the median of its runs, with a bootstrap 95 % interval of that median
(percentile bootstrap, 2000 resamples, a fixed seed: the same runs give the same interval, so a
reanalysis reproduces the report). One row is "ahead" of another (takes less time) or "behind"
only where the two intervals do not overlap, and each has at least MIN_RUNS runs; otherwise the
two "tie" (overlapping intervals) or are "not judged" (too few runs: an interval from 1-4 runs
says nothing). A fixed band ("within 10 %") is not used: it calls a 5 % difference between two
rows with +-50 % spreads a tie and one between two tight rows a tie as well, and a narrower band
would call noise a win.
"""
import random
import statistics

MIN_RUNS = 5
RESAMPLES = 2000
LEVEL = 0.95


def median(xs):
    return statistics.median(xs)


def bootstrap_ci(xs, level=LEVEL, resamples=RESAMPLES, seed=6):
    """(lo, hi): the percentile bootstrap interval of the median of xs."""
    xs = [float(x) for x in xs]
    if not xs:
        raise ValueError("no runs")
    if len(xs) == 1:
        return xs[0], xs[0]
    rng = random.Random(seed)
    n = len(xs)
    meds = sorted(statistics.median(rng.choices(xs, k=n)) for _ in range(resamples))
    a = (1 - level) / 2
    lo = meds[int(a * resamples)]
    hi = meds[min(resamples - 1, int((1 - a) * resamples))]
    return lo, hi


def compare(a, b, min_runs=MIN_RUNS):
    """a's runs against b's (times: lower is better) -> "ahead", "behind", "tie" or
    "not judged"."""
    if len(a) < min_runs or len(b) < min_runs:
        return "not judged"
    return compare_ci(len(a), *bootstrap_ci(a), len(b), *bootstrap_ci(b), min_runs=min_runs)


def compare_ci(na, alo, ahi, nb, blo, bhi, min_runs=MIN_RUNS):
    """The same from two rows' run counts and intervals (results.csv's columns)."""
    if na < min_runs or nb < min_runs:
        return "not judged"
    if ahi < blo:
        return "ahead"
    if alo > bhi:
        return "behind"
    return "tie"
