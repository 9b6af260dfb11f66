#!/usr/bin/python3
"""test_cells.py: experiments 01-05's repeated cells (test/experiments/cells.py), TAP: medians
and bootstrap intervals per cell from runs, failed runs left out, and the wrong-way rule: a
planted wrong-way cell (beyond the intervals, 5+ runs each) is flagged, a noisy one whose
interval overlaps its neighbour's is not, one from single runs is "unjudged", bad input refused."""
import os
import random
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
exp = os.path.join(here, "..", "experiments")
sys.path.insert(0, exp)
import cells  # noqa: E402

sys.path.insert(0, here)
from taplib import ok, done  # noqa: E402

tool = os.path.join(exp, "cells.py")

# --- summarize ---
rows = [{"loss": "0", "v": str(x), "err": ""} for x in (10, 12, 11, 13, 9)]
rows += [{"loss": "1", "v": "", "err": ""}, {"loss": "1", "v": "5", "err": "exit 1"}, {"loss": "1", "v": "7", "err": ""}]
s = cells.summarize(rows, ["loss"], "v", "err")
ok(s[0][:3] == (("0",), 5, 11.0), "5 runs 9..13: n 5, median 11 (%r)" % (s[0][:3],))
ok(9.0 <= s[0][3] <= 11.0 <= s[0][4] <= 13.0, "its interval [%g, %g] holds the median, within the runs" % s[0][3:])
ok(s[1][:5] == (("1",), 1, 7.0, 7.0, 7.0), "an empty value and a failed run left out: 1 run, a point (%r)" % (s[1],))
ok(cells.summarize(rows, ["loss"], "v", "err") == s, "the same runs give the same intervals (a reanalysis reproduces them)")

# --- wrong_way: throughput should fall as loss rises ---
rng = random.Random(31)
tight = lambda m: [m * (1 + 0.01 * rng.uniform(-1, 1)) for _ in range(5)]
def cell(axis, xs):
    lo, hi = cells.stats.bootstrap_ci(xs)
    return (axis, len(xs), cells.stats.median(xs), lo, hi)

planted = [cell(0, tight(6400)), cell(0.1, tight(9085)), cell(1, tight(5000))]
f = cells.wrong_way(planted, "down")
ok(len(f) == 1 and f[0][:3] == (0, 0.1, "flagged"), "TCPM 10 Mbit/s: 9085 at 0.1 %% above 6400 at 0 %%, tight runs: flagged (%r)" % (f,))
ok("beyond the intervals" in f[0][3] and " at 0.1 above " in f[0][3], "the flag says which values and why: %s" % f[0][3])

noisy0 = [6400 * x for x in (0.6, 0.8, 1.0, 1.2, 1.4)]
noisy1 = [6700 * x for x in (0.6, 0.8, 1.0, 1.2, 1.4)]
f = cells.wrong_way([cell(0, noisy0), cell(0.1, noisy1)], "down")
ok(f == [], "5 %% higher at 0.1 %% within +-40 %% spreads (intervals overlap): not flagged (%r)" % (f,))

f = cells.wrong_way([cell(0, [6402]), cell(0.1, [9085])], "down")
ok(len(f) == 1 and f[0][2] == "unjudged" and "not judged" in f[0][3], "the same from single runs: unjudged, not flagged (%r)" % (f,))

f = cells.wrong_way([cell(1, tight(900)), cell(0, tight(300)), cell(3, tight(400))], "up")
ok(len(f) == 1 and f[0][:3] == (1, 3, "flagged"), "latency (up): 400 at 3 %% below 900 at 1 %%, given out of order: flagged (%r)" % (f,))
ok(cells.wrong_way([cell(0, tight(5)), cell(1, tight(5))], "down") == [], "equal cells: nothing")

# --- the command line, on files ---
d = tempfile.mkdtemp()
raw = os.path.join(d, "raw.csv")
with open(raw, "w") as fh:
    fh.write("rate,loss_pct,test,protocol,rep,value,error\n")
    for rep in range(5):
        for loss, tp, lat in ((0, 6400, 300), (0.1, 9085, 310), (1, 5000, 900)):
            j = 1 + 0.01 * ((rep * 7) % 5 - 2)
            fh.write("10mbit,%s,throughput,tcpm,%d,%.1f,\n" % (loss, rep, tp * j))
            fh.write("10mbit,%s,latency,tcpm,%d,%.1f,\n" % (loss, rep, lat * j))
def run(*a):
    p = subprocess.run([sys.executable, tool] + list(a), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr
rc, out, err = run("summarize", raw, "--keys", "rate,loss_pct,test,protocol", "--value", "value", "--error", "error")
summ = os.path.join(d, "summary.csv")
open(summ, "w").write(out)
lines = out.splitlines()
ok(rc == 0 and lines[0] == "rate,loss_pct,test,protocol,n,median,lo,hi" and len(lines) == 7,
   "summarize: a header and 6 cells (exit %d, %d lines) %s" % (rc, len(lines), err.strip()))
ok(lines[1].startswith("10mbit,0,throughput,tcpm,5,6400.0,"), "first cell: 5 runs, median 6400 (%s)" % lines[1])
rc, out, err = run("wrongway", summ, "--row", "rate,test,protocol", "--axis", "loss_pct", "--dir-col", "test",
                   "--down", "throughput", "--up", "latency")
ok(rc == 0 and out.count("\n") == 1 and out.startswith("flagged,10mbit,throughput,tcpm,0,0.1,"),
   "wrongway: only the planted throughput cell flagged, latency rising is fine (%r)" % out)
rc, out, err = run("summarize", raw, "--keys", "rate,nosuch", "--value", "value")
ok(rc == 2 and "no column 'nosuch'" in err, "a missing column: exit 2, named (%s)" % err.strip())
open(os.path.join(d, "bad.csv"), "w").write("k,v\na,1\na,x\n")
rc, out, err = run("summarize", os.path.join(d, "bad.csv"), "--keys", "k", "--value", "v")
ok(rc == 2 and "not a number" in err, "a value that is not a number: exit 2, named (%s)" % err.strip())
rc, out, err = run("wrongway", summ, "--row", "rate,protocol", "--axis", "loss_pct", "--dir-col", "test")
ok(rc == 2 and "--dir-col" in err, "--dir-col not among --row: exit 2 (%s)" % err.strip())
# --- netem's counters against the loss it was set to ---
v, t = cells.netem_check(1.0, 99000, 99000 * 554, 1000)
ok(v == "ok" and "1000 of 100000" in t, "1000 drops of 100000 at 1 %%: ok (%s)" % t)
v, t = cells.netem_check(1.0, 99000, 99000 * 554, 1300)
ok(v == "not ok", "1300 drops of 100300 at 1 %%: outside the 99 %% interval (%s)" % t)
v, t = cells.netem_check(1.0, 2000, 2000 * 30000, 20)
ok(v == "not ok" and "superpackets" in t, "30000 bytes a packet: superpackets, offloads on (%s)" % t)
v, t = cells.netem_check(0.1, 3000, 3000 * 554, 0)
ok(v == "unjudged", "3 drops expected: not judged (%s)" % t)
v, t = cells.netem_check(0, 3000, 3000 * 554, 0)
ok(v == "unjudged", "no loss set: not judged (%s)" % t)
rc, out, err = run("netem", "1", "99000", str(99000 * 1514), "1000")
ok(rc == 0 and out.startswith("ok: "), "the command line: 1514 bytes a packet (the limit), 1000 drops: ok (%s)" % out.strip())
rc, out, err = run("netem", "1", "99000", str(99000 * 1515), "1000")
ok(rc == 1 and out.startswith("not ok: superpackets"), "1515 bytes a packet: not ok, exit 1 (%s)" % out.strip())
rc, out, err = run("netem", "1", "x", "1", "1")
ok(rc == 2 and err, "a counter that is not a number: exit 2 (%s)" % err.strip())
# netemcsv judges its lines as a family: 10 judged lines (and one with no loss, not counted),
# each at 99.9 %: a count just past the 99 % interval passes, one past the 99.9 % one fails
import fidelity  # noqa: E402
hi99 = fidelity.binom_interval(10000, 0.01, 0.99)[1]
hi999 = fidelity.binom_interval(10000, 0.01, 0.999)[1]
for name, last in (("fam1.csv", hi99 + 1), ("fam2.csv", hi999 + 1)):
    with open(os.path.join(d, name), "w") as fh:
        fh.write("cell,loss_pct,pkts,bytes,dropped\nzero,0,5000,%d,0\n" % (5000 * 554))
        for i in range(9):
            fh.write("c%d,1,9900,%d,100\n" % (i, 9900 * 554))
        fh.write("last,1,%d,%d,%d\n" % (10000 - last, (10000 - last) * 554, last))
rc, out, err = run("netemcsv", os.path.join(d, "fam1.csv"))
ok(rc == 0 and "last 1: ok: %d of 10000" % (hi99 + 1) in out and "99.9 % (1 - 1 %/10: the run's 10 judged checks)" in out,
   "netemcsv, 10 judged lines: %d drops of 10000 at 1 %% pass at 99.9 %% (%s)" % (hi99 + 1, out.splitlines()[-1]))
rc, out, err = run("netemcsv", os.path.join(d, "fam2.csv"))
ok(rc == 1 and "last 1: not ok: %d of 10000" % (hi999 + 1) in out,
   "netemcsv, 10 judged lines: %d drops fail (%s)" % (hi999 + 1, out.splitlines()[-1]))

import shutil  # noqa: E402
shutil.rmtree(d)
done()
