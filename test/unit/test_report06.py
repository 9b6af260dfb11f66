#!/usr/bin/python3
"""test_report06.py: experiment 06's statistics (test/experiments/06-multiplexing/stats.py) and
its report's verdicts (summarize.py, then report.py, on made-up runs), TAP. A 5 % difference
between rows whose runs spread +-30 % is a tie, not a win; the same 5 % between tight rows is a
win; fewer than 5 runs are not judged; intervals that touch are a tie."""
import csv
import os
import random
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
exp = os.path.join(here, "..", "experiments", "06-multiplexing")
sys.path.insert(0, exp)
import stats  # noqa: E402

sys.path.insert(0, here)
from taplib import ok, done  # noqa: E402


# --- stats.py ---
ok(stats.median([3, 1, 2, 10]) == 2.5, "median of 1 2 3 10: 2.5")
ok(stats.bootstrap_ci([4.0] * 10) == (4.0, 4.0), "ten equal runs: the interval is that value")
ok(stats.bootstrap_ci([7.0]) == (7.0, 7.0), "one run: a point")
xs = [1.0 + 0.1 * i for i in range(10)]
lo, hi = stats.bootstrap_ci(xs)
ok(1.0 <= lo < stats.median(xs) < hi <= 1.9, "1.0 .. 1.9: median 1.45 inside (%.3f, %.3f), within the runs" % (lo, hi))
ok(stats.bootstrap_ci(xs) == (lo, hi), "the same runs give the same interval (fixed seed: a reanalysis reproduces it)")
try:
    stats.bootstrap_ci([])
    ok(False, "no runs: refused")
except ValueError:
    ok(True, "no runs: refused (ValueError)")

rng = random.Random(38)
noisy_h2 = [2.0 * rng.uniform(0.7, 1.3) for _ in range(10)]
noisy_sctp = [0.95 * x for x in noisy_h2]              # 5 % faster, run for run, +-30 % spread
tight_h2 = [2.1 + 0.001 * i for i in range(10)]
tight_sctp = [2.0 + 0.001 * i for i in range(10)]       # 5 % faster, spread 0.5 %
ok(stats.compare(noisy_sctp, noisy_h2) == "tie",
   "5 %% faster with +-30 %% spreads: tie (%s against %s)" % (stats.bootstrap_ci(noisy_sctp), stats.bootstrap_ci(noisy_h2)))
ok(stats.compare(tight_sctp, tight_h2) == "ahead", "5 % faster with 0.5 % spreads: ahead")
ok(stats.compare(tight_h2, tight_sctp) == "behind", "and the other way round: behind")
ok(stats.compare(tight_sctp[:4], tight_h2) == "not judged", "4 runs against 10: not judged")
ok(stats.compare(tight_sctp[:5], tight_h2[:5]) == "ahead", "5 runs each: judged")
ok(stats.compare_ci(10, 1.0, 2.0, 10, 2.0, 3.0) == "tie", "intervals that touch (2.0 = 2.0): tie")
ok(stats.compare_ci(10, 1.0, 1.999, 10, 2.0, 3.0) == "ahead", "intervals apart by 1 ms: ahead")
ok(stats.compare_ci(10, 2.001, 3.0, 10, 1.0, 2.0) == "behind", "the other way: behind")

# --- summarize.py and report.py on made-up runs ---
tmp = tempfile.mkdtemp()
cols = ["link_mbit", "one_way_delay_ms", "loss_pct", "workload", "row", "rep", "requests", "ok", "protocol",
        "time_s", "lat_p50_ms", "lat_p90_ms", "lat_p95_ms", "lat_p99_ms", "lat_source", "wire_bytes",
        "client_cpu_s", "server_cpu_s"]
cells = {("10", 10): (noisy_sctp, noisy_h2), ("10", 50): (tight_sctp, tight_h2), ("1", 50): (tight_sctp[:3], tight_h2[:3])}
with open(os.path.join(tmp, "samples.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(cols)
    for (rate, delay), (s, h) in cells.items():
        for row, ts in (("sctp100", s), ("h2c", h)):
            for i, t in enumerate(ts):
                w.writerow([rate, delay, "0", "page", row, i + 1, 100, 100, "x", "%.4f" % t, 10, 20, 30, 40,
                            "log", 2000000, 0.5, 0.5])
with open(os.path.join(tmp, "unshaped.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["row", "mbit", "cpu_pct"])
    w.writerow(["sctp100", "50.0", "20"])
    w.writerow(["h2c", "60.0", "20"])
with open(os.path.join(tmp, "page.sizes"), "w") as f:
    for i in range(100):
        f.write("o%d %d\n" % (i, 1000 + i))
res = os.path.join(tmp, "results.csv")
r = subprocess.run([sys.executable, os.path.join(exp, "summarize.py"), os.path.join(tmp, "samples.csv"),
                    os.path.join(tmp, "unshaped.csv"), res], capture_output=True, text=True)
ok(r.returncode == 0, "summarize.py ran (%s)" % r.stderr.strip()[-200:])
rows = list(csv.DictReader(open(res)))
by = {(x["link_mbit"], x["one_way_delay_ms"], x["row"]): x for x in rows}
x = by[("10", "50", "sctp100")]
lo, hi = stats.bootstrap_ci(tight_sctp)
ok(x["reps"] == "10" and x.get("time_ci_lo_s") == "%.3f" % lo and x.get("time_ci_hi_s") == "%.3f" % hi,
   "results.csv: 10 runs, the median's interval %s..%s" % (x.get("time_ci_lo_s"), x.get("time_ci_hi_s")))
r = subprocess.run([sys.executable, os.path.join(exp, "report.py"), res, os.path.join(tmp, "unshaped.csv"),
                    os.path.join(tmp, "page.sizes"), "06-multiplexing", "0", "10", "60", "a test",
                    "10mbit:10:0 10mbit:50:0 1mbit:50:0", "sctp100 h2c", "", "abc123"],
                   capture_output=True, text=True)
ok(r.returncode == 0, "report.py ran (%s)" % r.stderr.strip()[-300:])
out = r.stdout


def line(prefix):
    ls = [x for x in out.splitlines() if x.startswith(prefix)]
    return ls[0] if ls else ""


a = line("- 10 Mbit/s, 10 ms, 0 % loss, page: SCTP")
ok("SCTP ties with HTTP/2 h2c" in a, "report: 5 %% faster, +-30 %% spreads: 'ties with' h2c (%s)" % a[:90])
b = line("- 10 Mbit/s, 50 ms, 0 % loss, page: SCTP")
ok("SCTP wins against HTTP/2 h2c" in b, "report: 5 %% faster, tight runs: 'wins against' h2c (%s)" % b[:90])
c = line("- 1 Mbit/s, 50 ms, 0 % loss, page: SCTP")
ok("SCTP not judged against HTTP/2 h2c" in c, "report: 3 runs each: 'not judged against' (%s)" % c[:90])
ok("do not overlap" in out and "within 10 %" not in out, "report: the rule is stated (intervals, not a 10 % band)")
want = "%.3f (%.3f-%.3f)" % ((stats.median(noisy_sctp),) + stats.bootstrap_ci(noisy_sctp))
t = [x for x in out.splitlines() if x.startswith("| SCTP, 100 streams | " + want)]
ok(len(t) == 1 and "10 runs" in out, "report's table: the median with its interval (%s)" % want)
s = line("In sum")
ok("ties 1" in s and "SCTP wins 1" in s and "not judged 1" in s, "report's sum: one win, one tie, one not judged (%s)" % s[:160])

# quick mode as CI runs it: one run, every row, one lossy cell; the report must still come out,
# with every verdict "not judged" (one run is no interval)
rows = "h2c h2tls h3 sctp1 sctp100 usrsctp100 tcp1 tcppipe".split()
with open(os.path.join(tmp, "samples.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(cols)
    for i, row in enumerate(rows):
        w.writerow(["10", 10, "1", "page", row, 1, 100, 100, "x", "%.3f" % (2 + 0.1 * i), 10, 20, 30, 40,
                    "log", 2000000, 0.5, 0.5])
with open(os.path.join(tmp, "unshaped.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["row", "mbit", "cpu_pct"])
    for row in rows:
        w.writerow([row, "5.0", "60"])
r = subprocess.run([sys.executable, os.path.join(exp, "summarize.py"), os.path.join(tmp, "samples.csv"),
                    os.path.join(tmp, "unshaped.csv"), res], capture_output=True, text=True)
r2 = subprocess.run([sys.executable, os.path.join(exp, "report.py"), res, os.path.join(tmp, "unshaped.csv"),
                     os.path.join(tmp, "page.sizes"), "06-multiplexing", "1", "1", "60", "a test", "10mbit:10:1",
                     " ".join(rows), "", "abc123"], capture_output=True, text=True)
q = r2.stdout
ok(r.returncode == 0 and r2.returncode == 0 and "SCTP (bound by CPU) not judged against HTTP/2 h2c" in q
   and "wins against" not in q and "ties with" not in q,
   "quick mode (one run, every row, 1 %% loss): the report comes out, every verdict 'not judged' (%s)"
   % (r2.stderr.strip()[-200:] or ([x for x in q.splitlines() if x.startswith("- 10 Mbit/s")] + [""])[0][:90]))
shutil.rmtree(tmp)
done()
