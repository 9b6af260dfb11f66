#!/usr/bin/python3
"""test_fidelity.py: test/lab/fidelity.py's judgements on made-up counters (TAP): the binomial
99 % interval at its exact boundaries, the Gilbert interval's (exact, against a forward pass), the
family-wise level, queue drops kept out of the
loss, a GRO-merged run caught, the CPU limit, too few packets not judged, bad input refused."""
import math
import shutil
from fractions import Fraction
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
lab = os.path.join(here, "..", "lab")
sys.path.insert(0, lab)
import fidelity  # noqa: E402

sys.path.insert(0, here)
from taplib import ok, done  # noqa: E402


def cdf(n, p, k):  # P(X <= k), exact (rationals)
    q = Fraction(str(p))
    return float(sum(math.comb(n, i) * q ** i * (1 - q) ** (n - i) for i in range(0, k + 1)))


# the interval's bounds are the exact 0.5 % quantiles
for n, p in ((1000, 0.01), (2000, 0.03), (3000, 0.005), (300, 0.1)):
    lo, hi = fidelity.binom_interval(n, p)
    below = cdf(n, p, lo - 1)            # P(X < lo)
    below1 = cdf(n, p, lo)               # P(X < lo + 1)
    above = 1 - cdf(n, p, hi)            # P(X > hi)
    above1 = 1 - cdf(n, p, hi - 1)       # P(X > hi - 1)
    ok(below <= 0.005 < below1 and above <= 0.005 < above1,
       "binomial(%d, %g): 99 %% interval %d..%d at the exact 0.5 %% quantiles (%.4f, %.4f)" % (n, p, lo, hi, below, above))
ok(fidelity.binom_interval(1000, 0.01) == (3, 19), "binomial(1000, 1 %%): 3..19 (%s)" % (fidelity.binom_interval(1000, 0.01),))
ok(fidelity.binom_interval(5000, 0.0) == (0, 0), "no loss set: the interval is 0..0")


def ge_forward(n, loss, burst):  # the Gilbert chain's drop count, by a forward pass over n packets
    r = 1.0 / burst
    p = loss * r / (1 - loss)
    k = min(n, int(4 * n * loss) + 200)  # counts above 4x the mean: nothing (the last slot holds them)
    g, b = [1.0] + [0.0] * k, [0.0] * (k + 1)
    for _ in range(n):  # a packet is judged by the state before it; the bad state loses it
        sh = [0.0] + b[:-1]
        g, b = [x * (1 - p) + y * r for x, y in zip(g, sh)], [x * p + y * (1 - r) for x, y in zip(g, sh)]
    return [x + y for x, y in zip(g, b)] + [0.0] * (n - k)


# the Gilbert interval: its bounds are the exact 0.5 % quantiles of the chain's drop count (a
# normal approximation said 43..157 at 1 %, burst 3, and 31..166 at burst 4 for 10768 packets,
# where P(X > 166) is 1 %, twice what a 99 % interval leaves above it)
for n, loss, burst in ((10000, 0.01, 4), (3000, 0.03, 3), (2000, 0.05, 1.5)):
    pm = ge_forward(n, loss, burst)
    lo, hi = fidelity.ge_interval(n, loss, burst)
    below, below1 = sum(pm[:lo]), sum(pm[:lo + 1])
    above, above1 = sum(pm[hi + 1:]), sum(pm[hi:])
    ok(below <= 0.005 < below1 and above <= 0.005 < above1,
       "Gilbert(%d, %g %%, burst %g): 99 %% interval %d..%d at the exact 0.5 %% quantiles (%.4f, %.4f)"
       % (n, 100 * loss, burst, lo, hi, below, above))
pm = ge_forward(500, 0.1, 2)
lp = fidelity.ge_log_pmf(500, 0.1, 2)
ok(max(abs(math.exp(lp.get(k, -1e300)) - pm[k]) for k in range(501)) < 1e-12,
   "Gilbert pmf: the bursts' closed form equals the forward pass at every count (500 packets, 10 %, burst 2)")
ok(fidelity.ge_interval(10000, 0.01, 3) == (50, 163),
   "Gilbert, 1 %%, mean burst 3, 10000 packets: 50..163 (%s; binomial: %s)"
   % (fidelity.ge_interval(10000, 0.01, 3), fidelity.binom_interval(10000, 0.01)))
try:
    fidelity.ge_interval(1000, 0.6, 1)
    ok(False, "a burst of 1 cannot give 60 % loss: refused")
except fidelity.BadInput as e:
    ok("cannot give" in str(e), "a burst of 1 cannot give 60 %% loss: refused (%s)" % e)


def snap(c2s, s2c=(0, 0, 0, 0), ticks=0, t=0.0, gro=0):
    def line(d, v):
        return ("%s in_pkts=%d in_bytes=0 in_dropped=0 netem_sent=%d netem_dropped=%d queue_sent=0 "
                "queue_dropped=%d out_pkts=0 out_dropped=0" % (d, v[0], v[1], v[2], v[3]))
    return "\n".join([line("c2s", c2s), line("s2c", s2c), "nic cli gro_max_size=%d gso_max_size=65536" % gro,
                      "nic srv gro_max_size=%d gso_max_size=65536" % gro, "uptime 5",
                      "cpu ticks=%d hz=100 time=%.3f loadavg=1.0" % (ticks, t)]) + "\n"


def judge(before, after, **kw):
    res, rec = fidelity.check(fidelity.parse_stats(before), fidelity.parse_stats(after), **kw)
    return res, rec


base = snap((100, 100, 0, 0), (50, 50, 0, 0), 1000, 100.0)
# 10000 packets each way at 1 %: 100 drops pass, 60 fail (interval 75..127)
res, _ = judge(base, snap((10100, 10000, 100, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1)
ok(all(r[0] for r in res), "1 %% set, 100 of 10000 dropped each way, CPU 50 %%: every check passes (%d)" % len(res))
res, _ = judge(base, snap((10100, 10040, 60, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1)
bad = [r[1] for r in res if r[0] is False]
ok(len(bad) == 1 and bad[0].startswith("c2s loss: 60 of 10000"), "60 of 10000 at 1 %%: the c2s loss check alone fails (%s)" % bad)
lo, hi = fidelity.binom_interval(10000, 0.01)
res, _ = judge(base, snap((10100, 10000 - hi + 100, hi, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1)
res2, _ = judge(base, snap((10100, 10000 - hi + 99, hi + 1, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1)
ok(res[1][0] is True and res2[1][0] is False, "%d drops pass, %d fail (the interval's upper end)" % (hi, hi + 1))
# a run of 10 loss checks judges each at 99.9 %: hi + 1 passes there, the 99.9 % end + 1 fails
lo3, hi3 = fidelity.binom_interval(10000, 0.01, 0.999)
res, _ = judge(base, snap((10100, 10000 - hi + 99, hi + 1, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1, family=10)
res2, _ = judge(base, snap((10100, 10000 - hi3 + 99, hi3 + 1, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1, family=10)
ok(hi3 > hi and res[1][0] is True and res2[1][0] is False and "99.9 % (1 - 1 %/10" in res[1][1],
   "family of 10: %d drops pass, %d fail (%s)" % (hi + 1, hi3 + 1, res[1][1]))
# queue (tbf) drops are counted by netem too: not loss
res, rec = judge(base, snap((10100, 9950, 150, 50), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1)
ok(res[1][0] is True and "loss_drops=100 queue_drops=50" in rec[0], "netem's 150 drops less the queue's 50: 100 losses, passes")
# GRO: 10000 wire packets merged into superpackets; netem drew once each (sent counts segments)
res, rec = judge(base, snap((10100, 9780, 20, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1)
bad = [r[1] for r in res if r[0] is False]
ok(len(bad) == 2 and "aggregation=FAIL loss=FAIL" in rec[0],
   "a GRO-merged run (9700 through netem of 10000, 20 drops): aggregation and loss fail")
# merged a little (10 packets short at netem) with a drop count inside the interval: the loss
# check fails all the same, naming why
res, rec = judge(base, snap((10100, 9990, 100, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1)
ok(res[0][0] is False and res[1][0] is False and "per merged packet" in res[1][1],
   "10 packets merged away, 100 drops of 10000 at 1 %%: the loss check fails anyway (%s)" % res[1][1])
res, _ = judge(base, snap((10100, 9996, 100, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1)
ok(res[0][0] is True and res[1][0] is True, "2 + 10000 / 5000 = 4 packets in flight at the snapshot: tolerated")
res, _ = judge(base, snap((10100, 9995, 100, 0), (10050, 9950, 100, 0), 1050, 101.0), loss_pct=1)
ok(res[0][0] is False, "5 packets short: not tolerated")
res, _ = judge(base, snap((10100, 10000, 100, 0), (10050, 9950, 100, 0), 1050, 101.0, gro=65536), loss_pct=1)
ok(sum(1 for r in res if r[0] is False) == 2, "gro_max_size 65536 on both NICs: two offload checks fail")
# CPU: 70 ticks in 1 s fails (limit is strict), 69 passes
res, _ = judge(base, snap((100, 100, 0, 0), (50, 50, 0, 0), 1070, 101.0))
res2, _ = judge(base, snap((100, 100, 0, 0), (50, 50, 0, 0), 1069, 101.0))
ok(res[-1][0] is False and res2[-1][0] is True, "router CPU 70 %% fails, 69 %% passes (%s)" % res[-1][1])
# too few packets: not judged
res, _ = judge(base, snap((400, 300, 0, 0), (50, 50, 0, 0), 1000, 101.0), loss_pct=1)
ok(res[1][0] is None and "not judged" in res[1][1], "300 packets at 1 %% (3 drops expected): not judged (%s)" % res[1][1])
res, _ = judge(base, snap((400, 299, 1, 0), (50, 50, 0, 0), 1000, 101.0))
ok(res[1][0] is False, "no loss set and 1 drop: fails")

# one row's runs of a cell: several (before, after) pairs added up; the snapshots between them
# belong to other rows' runs (here 1000 packets and 90 drops that are not this row's)
s1 = snap((5100, 5050, 50, 0), (5050, 5000, 50, 0), 1010, 100.5)
s2 = snap((6100, 5960, 140, 0), (6050, 5910, 140, 0), 1020, 101.0)
s3 = snap((11100, 10910, 190, 0), (11050, 10860, 190, 0), 1040, 102.0)
res, rec = fidelity.check(fidelity.parse_stats(base), fidelity.parse_stats(s1), loss_pct=1,
                          more=[(fidelity.parse_stats(s2), fidelity.parse_stats(s3))], loss_only=True)
ok(len(res) == 4 and all(r[0] for r in res) and "packets=10000 netem_packets=10000 loss_drops=100" in rec[0]
   and not any("router CPU" in r[1] or "gro_max_size" in r[1] for r in res),
   "two pairs of 5000 packets, 50 drops each: judged as 10000 and 100, the other row's 90 drops left out, "
   "no NIC or CPU check with --loss-only (%s)" % rec[0][:80])
# the command line: exit 1 on a failed check, 2 on bad input
tmp = tempfile.mkdtemp()
def f(name, text):
    p = os.path.join(tmp, name)
    with open(p, "w") as fh:
        fh.write(text)
    return p
prog = os.path.join(lab, "fidelity.py")
b = f("b", base)
a = f("a", snap((10100, 10040, 60, 0), (10050, 9950, 100, 0), 1050, 101.0))
r = subprocess.run([sys.executable, prog, b, a, "--loss", "1"], capture_output=True, text=True)
ok(r.returncode == 1 and "not ok - c2s loss: 60 of 10000" in r.stdout, "fidelity.py: exit 1, the failed check named")
r = subprocess.run([sys.executable, prog, b, f("s1", s1), f("s2", s2), f("s3", s3), "--loss", "1", "--loss-only"],
                   capture_output=True, text=True)
ok(r.returncode == 0 and r.stdout.count("ok - ") == 4 and "# fidelity dir=c2s packets=10000 " in r.stdout,
   "fidelity.py with two pairs and --loss-only: four checks, the pairs added up (exit %d)" % r.returncode)
r = subprocess.run([sys.executable, prog, a, b, "--loss", "1"], capture_output=True, text=True)
ok(r.returncode == 2 and "went down" in r.stderr, "snapshots swapped (counters went down): exit 2 (%s)" % r.stderr.strip())
r = subprocess.run([sys.executable, prog, b, f("c", "c2s in_pkts=1\n"), "--loss", "1"], capture_output=True, text=True)
ok(r.returncode == 2 and "fidelity.py:" in r.stderr, "truncated counters: exit 2 (%s)" % r.stderr.strip())
for args in (["--loss", "100"], ["--loss", "x"], ["--ge-burst", "0.5"], ["--bogus"], ["--family", "0"],
             ["--family", "2.5"], ["--loss", "60", "--ge-burst", "1"], [b]):
    r = subprocess.run([sys.executable, prog, b, a] + args, capture_output=True, text=True)
    ok(r.returncode == 2 and "fidelity.py:" in r.stderr, "%s: exit 2 (%s)" % (" ".join(args), r.stderr.strip()))
shutil.rmtree(tmp)
done()
