#!/usr/bin/python3
"""test/lab/fidelity.py: lab v2's fidelity checks, from two snapshots of the router's counters
(test/lab/router.sh stats, before and after a cell) and what the link was set to.

  fidelity.py BEFORE AFTER [BEFORE AFTER ...] [--loss PCT] [--ge-burst N] [--cpu-max FRACTION]
              [--label TEXT] [--family M] [--loss-only]

Several pairs: their differences added up (one row's runs of a cell, each between two
snapshots). --loss-only: the aggregation and loss checks alone (no NIC or CPU check: those are
the cell's).

Per direction (c2s: client to server, s2c: back):
  - aggregation: every wire packet the router received went through netem as one packet
    (received = netem sent + netem dropped). Guest GRO merges TCP segments into superpackets;
    netem then draws its loss once per superpacket, and this check fails.
  - loss: netem's own drops (its drop counter less the queue's, which it includes) against the
    packets received; failed outright when the aggregation check failed. Random loss: within the
    binomial interval of the nominal rate. The Gilbert model (--ge-burst N: a mean burst of N
    packets): within the exact interval of the chain's drop count (ge_log_pmf; a normal
    approximation is too narrow in its upper tail, where bursts pile up). Both at 99 %, or, with
    --family M (the run's M judged loss checks: 2 a cell with loss), at 1 - 1 %/M each
    (Bonferroni), so that a run of many cells fails by chance at most 1 % of the time, not 1 % a
    check. Fewer than 5 drops expected (n p < 5): not judged, said so. No loss set: any drop fails.
  - queue drops (tbf's limit) are reported, not judged.
Router CPU: qemu's CPU time over the wall time between the snapshots, below --cpu-max (0.70
of a core by default).
Prints TAP lines (ok / not ok, "# " notes) and one "fidelity ..." record per direction; exits 1
when a check failed, 2 on bad input.
"""
import math
import sys

DIRECTIONS = ("c2s", "s2c")
FIELDS = ("in_pkts", "netem_sent", "netem_dropped", "queue_dropped")


class BadInput(Exception):
    pass


def parse_stats(text):
    """router.sh stats output -> {"c2s": {...}, "s2c": {...}, "cpu": {...}} (numbers)."""
    out = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == "nic" and words[2].startswith("gro_max_size="):
            out.setdefault("nics", {})[words[1]] = int(words[2].split("=", 1)[1])
            continue
        if not words or words[0] not in DIRECTIONS + ("cpu",):
            continue
        rec = {}
        for w in words[1:]:
            if "=" not in w:
                continue
            k, v = w.split("=", 1)
            try:
                rec[k] = float(v)
            except ValueError:
                raise BadInput("%s: %s is not a number" % (words[0], w))
        out[words[0]] = rec
    for d in DIRECTIONS:
        if d not in out:
            raise BadInput("no %s line in the counters" % d)
        for f in FIELDS:
            if f not in out[d]:
                raise BadInput("%s: no %s" % (d, f))
    if "cpu" not in out or not all(k in out["cpu"] for k in ("ticks", "hz", "time")):
        raise BadInput("no cpu line (ticks=, hz=, time=) in the counters")
    return out


def delta(before, after):
    """after - before per direction and field; a counter that went down is an error (a router
    restarted between the snapshots)."""
    d = {}
    for k in DIRECTIONS + ("cpu",):
        d[k] = {}
        for f, v in after[k].items():
            if f not in before[k]:
                continue
            if f in ("hz",):
                d[k][f] = v
                continue
            if f == "loadavg":
                continue
            x = v - before[k][f]
            if x < 0:
                raise BadInput("%s %s went down (%g -> %g): not the same router?" % (k, f, before[k][f], v))
            d[k][f] = x
    return d


def _log_pmf(n, k, p):
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def binom_interval(n, p, level=0.99):
    """The central interval [lo, hi] of Binomial(n, p) holding at least `level`: lo the largest
    k with P(X < k) <= (1 - level) / 2, hi the smallest with P(X > hi) <= (1 - level) / 2."""
    n = int(n)
    if p <= 0:
        return 0, 0
    if p >= 1:
        return n, n
    a = (1 - level) / 2
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    k0 = max(0, int(mean - 12 * sd - 10))
    k1 = min(n, int(mean + 12 * sd + 10))
    logs = [_log_pmf(n, k, p) for k in range(k0, k1 + 1)]
    m = max(logs)
    w = [math.exp(x - m) for x in logs]
    tot = sum(w)
    cum, lo = 0.0, k0
    for i, x in enumerate(w):
        if cum + x / tot > a:
            lo = k0 + i
            break
        cum += x / tot
    cum, hi = 0.0, k1
    for i in range(len(w) - 1, -1, -1):
        if cum + w[i] / tot > a:
            hi = k0 + i
            break
        cum += w[i] / tot
    return lo, hi


def _log_factorials(n):
    lf = [0.0] * (n + 1)
    for i in range(2, n + 1):
        lf[i] = lf[i - 1] + math.log(i)
    return lf


def ge_log_pmf(n, loss, burst):
    """{k: log P(X = k)} for X the drops of n packets under the Gilbert model the router sets
    (netem's gemodel with 1-h 100 % and 1-k 0: every packet in the bad state lost, none in the
    good; a packet is judged by the state before it, the chain starts good; p = loss r / (1 -
    loss), r = 1 / burst), exact, for every k within 14 standard deviations of the mean (the
    rest weighs below 1e-40). A path with k lost packets in j bursts: j bad runs (C(k-1, j-1)
    ways), j + 1 good runs when it ends good (C(n-k-1, j) ways) or j when it ends bad (C(n-k-1,
    j-1)); its n - 1 transitions weigh p^j r^j (1-r)^(k-j) (1-p)^(n-k-j-1), or p^j r^(j-1)
    (1-r)^(k-j) (1-p)^(n-k-j)."""
    r = 1.0 / burst
    p = loss * r / (1 - loss)
    if p >= 1:
        raise BadInput("a mean burst of %g packets cannot give %g %% loss (p = %g)" % (burst, 100 * loss, p))
    sd = math.sqrt(n * loss * (1 - loss) * (2 - p - r) / (p + r))
    k0, k1 = max(0, int(n * loss - 14 * sd - 20)), min(n, int(n * loss + 14 * sd + 20))
    lf = _log_factorials(n)
    lp, lq, lr, ls = math.log(p), math.log1p(-p), math.log(r), math.log1p(-r) if r < 1 else float("-inf")
    out = {}
    for k in range(k0, k1 + 1):
        if k == 0:
            out[0] = (n - 1) * lq
            continue
        g = n - k
        # the terms in j are log-concave, their peak between the two factors' modes
        a, b = (k - 1) * r + 1, (g - 1) * p
        w = 12 * math.sqrt(max(a, b) + 1) + 10
        terms = []
        for j in range(max(1, int(min(a, b) - w)), min(k, int(max(a, b) + w)) + 1):
            if k - j and ls == float("-inf"):
                continue
            c = lf[k - 1] - lf[j - 1] - lf[k - j] + j * lp + ((k - j) * ls if k - j else 0.0)
            if g - 1 >= j:
                terms.append(c + lf[g - 1] - lf[j] - lf[g - 1 - j] + j * lr + (g - j - 1) * lq)
            if g >= j:
                terms.append(c + lf[g - 1] - lf[j - 1] - lf[g - j] + (j - 1) * lr + (g - j) * lq)
        if terms:
            m = max(terms)
            out[k] = m + math.log(sum(math.exp(t - m) for t in terms))
    return out


def ge_interval(n, loss, burst, level=0.99):
    """The central interval [lo, hi] of the Gilbert model's drop count (ge_log_pmf, exact) holding
    at least `level`, as binom_interval's: lo the largest k with P(X < k) <= (1 - level) / 2, hi
    the smallest with P(X > hi) <= (1 - level) / 2."""
    n = int(n)
    if loss <= 0 or n == 0:
        return 0, 0
    lp = ge_log_pmf(n, loss, burst)
    ks = sorted(lp)
    m = max(lp.values())
    w = [math.exp(lp[k] - m) for k in ks]
    tot = sum(w)
    a = (1 - level) / 2
    cum, lo = 0.0, ks[0]
    for k, x in zip(ks, w):
        if cum + x / tot > a:
            lo = k
            break
        cum += x / tot
    cum, hi = 0.0, ks[-1]
    for k, x in zip(reversed(ks), reversed(w)):
        if cum + x / tot > a:
            hi = k
            break
        cum += x / tot
    return lo, hi


def level_name(level):
    return ("%.4f" % (100 * level)).rstrip("0").rstrip(".") + " %"


def add(deltas):
    """the sum of several delta() results (one row's runs): counters and CPU added up"""
    out = {}
    for d in deltas:
        for k, rec in d.items():
            o = out.setdefault(k, {})
            for f, v in rec.items():
                o[f] = v if f == "hz" else o.get(f, 0) + v
    return out


def check(before, after, loss_pct=0.0, ge_burst=0.0, cpu_max=0.70, label="", family=1, more=(),
          loss_only=False):
    """-> (list of (passed or None, text)), list of record lines). passed None: not judged.
    family: the number of judged loss checks in the run; each is judged at 1 - 1 %/family.
    more: further (before, after) pairs, added to the first. loss_only: no NIC or CPU check."""
    d = add([delta(before, after)] + [delta(b, a) for b, a in more])
    p = loss_pct / 100.0
    level = 1 - 0.01 / family
    lname = level_name(level) + ("" if family == 1 else " (1 - 1 %%/%d: the run's %d loss checks)" % (family, family))
    results, records = [], []
    pre = label + ": " if label else ""
    for dr in DIRECTIONS:
        c = d[dr]
        n = int(c["in_pkts"])
        through = int(c["netem_sent"] + c["netem_dropped"])
        drops = int(c["netem_dropped"] - c["queue_dropped"])
        qdrops = int(c["queue_dropped"])
        # packets still in netem's delay line at the second snapshot: a few, never a share of
        # the traffic (the router sends nothing of its own: no addresses, IPv6 off)
        slack = 2 + n // 5000
        agg_ok = abs(n - through) <= slack
        results.append((agg_ok, "%s%s: each of the %d packets received went through netem as one "
                        "packet (netem saw %d; merged packets, from guest GRO or TAPs with vnet_hdr, fail this)" % (pre, dr, n, through)))
        if ge_burst:
            lo, hi = ge_interval(n, p, ge_burst, level) if p > 0 else (0, 0)
            model = "Gilbert, mean burst %g" % ge_burst
        else:
            lo, hi = binom_interval(n, p, level)
            model = "random"
        eff = 100.0 * drops / n if n else 0.0
        if p > 0 and n * p < 5:
            loss_ok = None
            why = "not judged: %d packets, %.1f drops expected (< 5)" % (n, n * p)
        elif not agg_ok:
            # netem drew fewer (or more) times than there were packets: whatever the count,
            # it is not a per-packet loss process (and tbf, which splits a merged packet before
            # queueing it, counts drops per segment where netem counts one: the difference may
            # even go negative)
            loss_ok = False
            why = "%s interval %d..%d, but netem drew per merged packet, not per packet" % (lname, lo, hi)
        else:
            loss_ok = lo <= drops <= hi
            why = "%s interval %d..%d" % (lname, lo, hi)
        results.append((loss_ok, "%s%s loss: %d of %d packets (%.3f %%), nominal %g %% %s, %s"
                        % (pre, dr, drops, n, eff, loss_pct, model, why)))
        records.append("fidelity %sdir=%s packets=%d netem_packets=%d loss_drops=%d queue_drops=%d "
                       "effective_loss_pct=%.4f nominal_loss_pct=%g lo=%d hi=%d level_pct=%s aggregation=%s loss=%s"
                       % (label + " " if label else "", dr, n, through, drops, qdrops, eff, loss_pct, lo, hi,
                          level_name(level)[:-2],
                          "ok" if agg_ok else "FAIL",
                          "n/a" if loss_ok is None else ("ok" if loss_ok else "FAIL")))
    if loss_only:
        return results, records
    for nic, gro in sorted(after.get("nics", {}).items()):
        results.append((gro == 0, "%sguest GRO off on the router's %s (gro_max_size %d)" % (pre, nic, gro)))
    cpu = d["cpu"]
    wall = cpu["time"]
    share = cpu["ticks"] / cpu["hz"] / wall if wall > 0 else 0.0
    results.append((share < cpu_max, "%srouter CPU %.0f %% of a core over %.1f s (limit %.0f %%)"
                    % (pre, 100 * share, wall, 100 * cpu_max)))
    records.append("fidelity %srouter_cpu_pct=%.1f wall_s=%.2f limit_pct=%.0f cpu=%s"
                   % (label + " " if label else "", 100 * share, wall, 100 * cpu_max,
                      "ok" if share < cpu_max else "FAIL"))
    return results, records


def main(argv):
    args = list(argv[1:])
    opts = {"--loss": 0.0, "--ge-burst": 0.0, "--cpu-max": 0.70, "--family": 1.0}
    label = ""
    files = []
    loss_only = False
    while args:
        a = args.pop(0)
        if a == "--loss-only":
            loss_only = True
        elif a in opts or a == "--label":
            if not args:
                raise BadInput("%s needs a value" % a)
            v = args.pop(0)
            if a == "--label":
                label = v
                continue
            try:
                opts[a] = float(v)
            except ValueError:
                raise BadInput("%s %s: not a number" % (a, v))
            if opts[a] < 0 or (a == "--loss" and opts[a] >= 100) or (a == "--ge-burst" and 0 < opts[a] < 1) or \
                    (a == "--family" and (opts[a] < 1 or opts[a] != int(opts[a]))):
                raise BadInput("%s %s: out of range" % (a, v))
        elif a.startswith("-"):
            raise BadInput("unknown option %s" % a)
        else:
            files.append(a)
    if len(files) < 2 or len(files) % 2:
        raise BadInput("usage: fidelity.py BEFORE AFTER [BEFORE AFTER ...] [--loss PCT] [--ge-burst N] [--cpu-max F] "
                       "[--label T] [--family M] [--loss-only]")
    snaps = []
    for f in files:
        try:
            with open(f) as fh:
                snaps.append(parse_stats(fh.read()))
        except OSError as e:
            raise BadInput("%s: %s" % (f, e.strerror))
        except BadInput as e:
            raise BadInput("%s: %s" % (f, e))
    results, records = check(snaps[0], snaps[1], opts["--loss"], opts["--ge-burst"], opts["--cpu-max"], label,
                             int(opts["--family"]), list(zip(snaps[2::2], snaps[3::2])), loss_only)
    failed = 0
    for passed, text in results:
        if passed is None:
            print("ok - %s # SKIP" % text)
        elif passed:
            print("ok - %s" % text)
        else:
            print("not ok - %s" % text)
            failed += 1
    for r in records:
        print("# " + r)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except BadInput as e:
        print("fidelity.py: %s" % e, file=sys.stderr)
        sys.exit(2)
