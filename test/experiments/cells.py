#!/usr/bin/python3
"""test/experiments/cells.py: repeated cells of experiments 01-05: medians, intervals, and the
cells that go the wrong way.

  cells.py summarize RAW.csv --keys K1,K2,... --value COL [--error COL] [--also COL,...]
      RAW.csv: one line per run (a header; a run whose --error column is not empty, or whose
      value is empty, is left out). Prints CSV: the keys, n, median, lo, hi (the bootstrap 95 %
      interval of the median: experiment 06's stats.py, imported from where it is), one line per
      cell in the order the cells first appear; --also: then the median of each of those columns
      over the same runs (counters, say).
  cells.py wrongway SUMMARY.csv --row K1,K2,... --axis COL --dir-col COL --down V,... --up V,...
      SUMMARY.csv: summarize's output. Along the axis (a number: loss, say) each row's cells
      should go one way: down for rows whose --dir-col is in --down (throughput falls as loss
      rises), up for --up (latency rises). A cell that goes against its lower neighbour on the
      axis is printed as "flag,ROW...,AXIS_PREV,AXIS,why": "flagged" when both have at least
      stats.MIN_RUNS runs and their intervals do not overlap (beyond the noise), "unjudged" when
      either has fewer runs (a single run's wrong way says nothing). Overlapping intervals: not
      printed (noise).
  cells.py netem LOSS_PCT PKTS BYTES DROPPED [MTU]
      One netem's counters over a cell (tc -s: packets and bytes sent, packets dropped) against
      the loss it was set to: no superpackets (bytes per packet sent at most MTU + 14, 1500 by
      default: offloads off), and its drops within the binomial 99 % interval of the nominal
      loss over the packets offered (test/lab/fidelity.py's binom_interval, imported); fewer
      than 5 drops expected: not judged. Prints "ok|not ok|unjudged: TEXT"; exit 1 on not ok.
  cells.py netemcsv FILE.csv [MTU]
      The same for every line of FILE.csv (columns loss_pct, pkts, bytes, dropped, and any
      others, which name the line): "LABEL: VERDICT: TEXT" a line; exit 1 if any is not ok. The
      lines are judged as a family: M lines judged by their interval, each at 1 - 1 %/M
      (Bonferroni), so that a grid of many cells fails by chance at most 1 % of the time.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "06-multiplexing"))
import stats  # noqa: E402  (06's, imported from where it is)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lab"))
import fidelity  # noqa: E402  (lab v2's, imported from where it is)


class BadInput(Exception):
    pass


def summarize(rows, keys, value, error=None, also=()):
    """rows: dicts -> list of (key tuple, n, median, lo, hi[, medians of also]); runs without a
    value left out."""
    cells = {}
    extra = {}
    for r in rows:
        if error and (r.get(error) or "").strip():
            continue
        v = (r.get(value) or "").strip()
        if v in ("", "-"):
            continue
        try:
            x = float(v)
        except ValueError:
            raise BadInput("not a number in %s: %r" % (value, v))
        k = tuple(r.get(c, "") for c in keys)
        cells.setdefault(k, []).append(x)
        for c in also:
            a = (r.get(c) or "").strip()
            if a not in ("", "-"):
                try:
                    extra.setdefault((k, c), []).append(float(a))
                except ValueError:
                    raise BadInput("not a number in %s: %r" % (c, a))
    out = []
    for k, xs in cells.items():
        lo, hi = stats.bootstrap_ci(xs)
        more = tuple(stats.median(extra[(k, c)]) if (k, c) in extra else None for c in also)
        out.append((k, len(xs), stats.median(xs), lo, hi) + more)
    return out


def wrong_way(cells, direction, min_runs=stats.MIN_RUNS):
    """cells: [(axis, n, median, lo, hi)] along the axis (sorted here); direction "down" or "up".
    -> [(axis_prev, axis, "flagged"|"unjudged", why)] for each cell against its lower neighbour."""
    cells = sorted(cells, key=lambda c: c[0])
    out = []
    for prev, cur in zip(cells, cells[1:]):
        a0, n0, m0, lo0, hi0 = prev
        a1, n1, m1, lo1, hi1 = cur
        wrong = m1 > m0 if direction == "down" else m1 < m0
        if not wrong:
            continue
        word = "above" if direction == "down" else "below"
        if n0 < min_runs or n1 < min_runs:
            out.append((a0, a1, "unjudged", "median %s at %g %s %s at %g (%d and %d runs: not judged)"
                        % (fmt(m1), a1, word, fmt(m0), a0, n1, n0)))
            continue
        beyond = lo1 > hi0 if direction == "down" else hi1 < lo0
        if beyond:
            out.append((a0, a1, "flagged", "%s [%s, %s] at %g %s %s [%s, %s] at %g beyond the intervals"
                        % (fmt(m1), fmt(lo1), fmt(hi1), a1, word, fmt(m0), fmt(lo0), fmt(hi0), a0)))
    return out


def netem_judged(loss_pct, pkts, dropped):
    """Whether netem_check judges this count by its interval (loss set, 5 drops expected or more)."""
    n = pkts + dropped
    return pkts > 0 and loss_pct > 0 and n * loss_pct / 100.0 >= 5


def netem_check(loss_pct, pkts, nbytes, dropped, mtu=1500, family=1):
    """-> (verdict "ok"|"not ok"|"unjudged", text). family: the judged checks in the run, each at
    1 - 1 %/family (Bonferroni: the run fails by chance at most 1 % of the time)."""
    if min(loss_pct, pkts, nbytes, dropped) < 0:
        raise BadInput("negative counter or loss")
    if pkts == 0:
        return "unjudged", "netem sent nothing"
    per = nbytes / pkts
    if per > mtu + 14:
        return "not ok", ("superpackets: %.0f bytes per packet sent > %d (offloads on: netem drew its loss "
                          "once per superpacket)" % (per, mtu + 14))
    n = pkts + dropped
    p = loss_pct / 100.0
    if n * p < 5:
        return "unjudged", "%d of %d packets dropped (%.1f expected at %g %%: too few to judge)" % (dropped, n, n * p, loss_pct)
    level = 1 - 0.01 / family
    lo, hi = fidelity.binom_interval(n, p, level)
    text = "%d of %d packets dropped (%.3f %%), binomial %s%s interval at %g %%: %d..%d; %.0f bytes a packet" % (
        dropped, n, 100.0 * dropped / n, fidelity.level_name(level),
        "" if family == 1 else " (1 - 1 %%/%d: the run's %d judged checks)" % (family, family),
        loss_pct, lo, hi, per)
    return ("ok" if lo <= dropped <= hi else "not ok"), text


def fmt(x):
    return ("%.1f" % x) if abs(x) < 100 else ("%.0f" % x)


def _opts(argv, names):
    o = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if not a.startswith("--") or a[2:] not in names or i + 1 >= len(argv):
            raise BadInput("unknown or incomplete option %r" % a)
        o[a[2:]] = argv[i + 1]
        i += 2
    return o


def _read(path):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        if not r.fieldnames:
            raise BadInput("%s: empty (no header)" % path)
        return r.fieldnames, list(r)


def main(argv):
    try:
        if len(argv) >= 2 and argv[1] == "netem":
            if len(argv) not in (6, 7):
                raise BadInput("usage: cells.py netem LOSS_PCT PKTS BYTES DROPPED [MTU]")
            a = [float(x) for x in argv[2:]]
            v, text = netem_check(*a[:4], mtu=a[4] if len(a) > 4 else 1500)
            print("%s: %s" % (v, text))
            return 1 if v == "not ok" else 0
        if len(argv) >= 3 and argv[1] == "netemcsv":
            cols, rows = _read(argv[2])
            for c in ("loss_pct", "pkts", "bytes", "dropped"):
                if c not in cols:
                    raise BadInput("%s: no column %r" % (argv[2], c))
            mtu = float(argv[3]) if len(argv) > 3 else 1500
            bad = 0
            family = sum(1 for r in rows if netem_judged(float(r["loss_pct"]), float(r["pkts"]), float(r["dropped"])))
            for r in rows:
                v, text = netem_check(float(r["loss_pct"]), float(r["pkts"]), float(r["bytes"]),
                                      float(r["dropped"]), mtu=mtu, family=max(1, family))
                bad += v == "not ok"
                label = " ".join(r[c] for c in cols if c not in ("pkts", "bytes", "dropped"))
                print("%s: %s: %s" % (label, v, text))
            return 1 if bad else 0
        if len(argv) < 3 or argv[1] not in ("summarize", "wrongway"):
            raise BadInput("usage: cells.py summarize|wrongway FILE OPTIONS (see its docstring)")
        cols, rows = _read(argv[2])
        w = csv.writer(sys.stdout, lineterminator="\n")
        if argv[1] == "summarize":
            o = _opts(argv[3:], ("keys", "value", "error", "also"))
            keys = o.get("keys", "").split(",")
            also = [c for c in o.get("also", "").split(",") if c]
            for c in keys + [o.get("value", "")] + ([o["error"]] if "error" in o else []) + also:
                if c not in cols:
                    raise BadInput("%s: no column %r" % (argv[2], c))
            w.writerow(keys + ["n", "median", "lo", "hi"] + also)
            for c in summarize(rows, keys, o["value"], o.get("error"), also):
                w.writerow(list(c[0]) + [c[1], repr(c[2]), repr(c[3]), repr(c[4])]
                           + ["" if x is None else ("%d" % x if x == int(x) else "%.6g" % x) for x in c[5:]])
            return 0
        o = _opts(argv[3:], ("row", "axis", "dir-col", "down", "up"))
        row = o.get("row", "").split(",")
        for c in row + [o.get("axis", ""), o.get("dir-col", "")]:
            if c not in cols:
                raise BadInput("%s: no column %r" % (argv[2], c))
        if o["dir-col"] not in row:
            raise BadInput("--dir-col %s must be one of --row's columns" % o["dir-col"])
        down = set(o.get("down", "").split(",")) - {""}
        up = set(o.get("up", "").split(",")) - {""}
        groups = {}
        for r in rows:
            d = r[o["dir-col"]]
            if d not in down and d not in up:
                continue
            k = tuple(r[c] for c in row)
            groups.setdefault(k, []).append(
                (float(r[o["axis"]]), int(r["n"]), float(r["median"]), float(r["lo"]), float(r["hi"])))
        for k, cs in groups.items():
            d = "down" if dict(zip(row, k))[o["dir-col"]] in down else "up"
            for a0, a1, flag, why in wrong_way(cs, d):
                w.writerow([flag] + list(k) + ["%g" % a0, "%g" % a1, why])
        return 0
    except (BadInput, OSError, KeyError, ValueError) as e:
        print("cells.py: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
