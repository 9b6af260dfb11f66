#!/usr/bin/python3
"""report.py RESULTS UNSHAPED PAGE_SIZES NAME QUICK REPS SECONDS WHERE CELLS ROWS SUBSET [COMMIT [LAB]]:
experiment 06's report.md (a section of docs/results.md) on stdout, from results.csv. SUBSET:
empty for the whole grid, else how the cells measured were picked (EXP06_CELLS, ...). LAB: "v2"
for lab v2 (labv2.sh: native endpoints, a router VM; its SCTP rows over usrsctp, the reference
row usrsctp-nt with 100 streams where kernel SCTP's sctp100 is not there), else the VM lab."""
import csv, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

LABEL = {
    "h2c": "HTTP/2 h2c (nginx)", "h2tls": "HTTP/2 over TLS (nginx)", "h3": "HTTP/3 (ngtcp2)",
    "sctp1": "SCTP, 1 stream", "sctp10": "SCTP, 10 streams", "sctp100": "SCTP, 100 streams",
    "sctpintl": "SCTP, 100 streams, I-DATA + RR",
    "usrsctp100": "usrsctp, 100 streams", "tcp1": "HTTP/1.1, conn. per request",
    "tcp6": "HTTP/1.1, 6 conns.", "tcppipe": "HTTP/1.1 pipelined",
    "h2cbbr": "HTTP/2 h2c, bbr (nginx)", "usrsctpnt100": "usrsctp-nt, 100 streams",
    "usrsctpnt100tuned": "usrsctp-nt, 100 streams, tuned", "usrsctp100tuned": "usrsctp, 100 streams, tuned",
    "usrsctpnt100tls": "usrsctp-nt, 100 streams, TLS 1.3 a stream",
}
# the SCTP row the others are judged against: kernel SCTP with 100 streams, or on lab v2 (no
# kernel SCTP there yet) usrsctp-nt with 100 streams (main() sets it from the rows)
REF = "sctp100"
GRID = ("10 Mbit/s x 10 and 50 ms and 1 Mbit/s x 50 ms, each x 0, 1 and 3 % loss, three "
        "runs a cell, every row; the page in every cell, 1 MiB + 100 x 4 KiB at 10 Mbit/s 10 ms, "
        "the fixed sizes there without loss")
WORK = {"page": "page (100 objects, web mix)", "big": "1 MiB + 100 x 4 KiB",
        "f1024": "1 KiB x 100", "f16384": "16 KiB x 70", "f131072": "128 KiB x 10"}


def key(r):
    """a results.csv line's cell and workload: rate, delay, loss, workload, loss model, queue"""
    return (float(r["link_mbit"]), int(r["one_way_delay_ms"]), float(r["loss_pct"]), r["workload"],
            r.get("loss_model") or "random", r.get("queue") or "")


def loss_words(model):
    """" bursty (Gilbert, mean burst N)" for lab v2's geN loss model, "" for random loss"""
    return " bursty (Gilbert, mean burst %s)" % model[2:] if model.startswith("ge") else ""


def queue_words(queue):
    """", queue 4 BDP" for lab v2's queue variant, "" for its 1 BDP default or no queue named"""
    return ", queue %s BDP" % queue[:-3] if queue.endswith("bdp") and queue != "1bdp" else ""


def verdict(a, b):
    """row a against row b (results.csv rows; times, lower is better): "wins against" (ahead),
    "loses to" (behind), "ties with" or "not judged against" (stats.py: by the bootstrap 95 %
    intervals of the medians, at least stats.MIN_RUNS runs each)"""
    try:
        na, nb = int(a["reps"]), int(b["reps"])
        alo, ahi = float(a["time_ci_lo_s"]), float(a["time_ci_hi_s"])
        blo, bhi = float(b["time_ci_lo_s"]), float(b["time_ci_hi_s"])
    except (KeyError, ValueError, TypeError):
        return "not judged against"  # no intervals (results.csv of an older run)
    return {"ahead": "wins against", "behind": "loses to", "tie": "ties with",
            "not judged": "not judged against"}[stats.compare_ci(na, alo, ahi, nb, blo, bhi)]


def plurality(vs):
    """the verdict more cells gave than any other ("" for none judged, "split" when two or more
    share the most: never a set's order, which Python's hashing changes from run to run)"""
    vs = [v.split()[0] for v in vs if v.split()[0] in ("wins", "ties", "loses")]
    if not vs:
        return ""
    n = {k: vs.count(k) for k in ("wins", "ties", "loses")}
    top = max(n.values())
    best = [k for k in ("wins", "ties", "loses") if n[k] == top]
    return best[0] if len(best) == 1 else "split"


def most(vs):
    """the verdict most cells gave ("" for none); a split counts as a tie (the weaker claim)"""
    v = plurality(vs)
    return "ties" if v == "split" else v


def why(p, keys, get, un):
    """The reasons, in plain words, as far as these runs show them: each sentence picked by
    what the runs measured, not by what the design predicts."""
    def f(k, row, col):
        r = get.get(k + (row,))
        return r[col] if r else None

    def vs(a, b, ks):
        return [verdict(get[k + (a,)], get[k + (b,)]) for k in ks
                if f(k, a, "time_s") and f(k, b, "time_s")]
    clean = [k for k in keys if k[2] == 0]
    lossy = [k for k in keys if k[2] > 0]
    out = []
    v = most(vs("sctp100", "h2c", clean))
    if v:
        out.append("Without loss SCTP with 100 streams %s h2c: both pay one handshake "
                   "(SCTP's INIT/COOKIE exchange, TCP's SYN), then every request is in flight "
                   "at once over one congestion window, so the link rate decides; h2 over TLS "
                   "adds a round trip and encryption." % {"wins": "won against", "ties": "tied with",
                                                          "loses": "lost to"}[v])
    v = most(vs("sctp100", "h2c", lossy))
    if v == "wins":
        out.append("Under loss SCTP won against h2c: a lost TCP segment holds back every HTTP/2 "
                   "stream behind it (head-of-line blocking), where SCTP hands each stream's "
                   "messages over as they complete.")
    elif v:
        k = lossy[0]
        reasons = []
        b = f(k, "sctp100", "bound")
        if b == "cpu":
            reasons.append("the emulated CPU: SCTP's unshaped rate was %s Mbit/s (measured once), under 3 "
                           "times the link, so after a loss SCTP regrows its window into a CPU "
                           "limit that TCP, batching 64 KiB a packet through GSO/GRO, does not "
                           "meet" % un.get("sctp100", {}).get("mbit", "?"))
        reasons.append("head-of-line blocking costs little at this round trip: TCP with SACK "
                       "repairs a loss within about one round trip (%d ms), while each "
                       "request waits a second or more for its share of the link anyway" % (2 * k[1]))
        a0, a1 = f(clean[0], "sctp1", "lat_p99_ms") if clean else None, f(k, "sctp1", "lat_p99_ms")
        t0, t1 = f(clean[0], "tcp1", "lat_p99_ms") if clean else None, f(k, "tcp1", "lat_p99_ms")
        if a0 and a1 and t0 and t1:
            reasons.append("Linux SCTP recovers a loss more slowly than Linux TCP where fast "
                           "retransmit cannot (the last packets of a reply): SCTP with one stream "
                           "saw its p99 go from %s to %s ms with loss, near one retransmission "
                           "timeout of SCTP's 1 s RTO min, where HTTP/1.1's went from %s to %s ms "
                           "(TCP's 200 ms RTO min and its tail-loss probes)" % (a0, a1, t0, t1))
        out.append("Under loss SCTP %s h2c here, against the head-of-line argument; the runs "
                   "point at these reasons: %s." % ({"ties": "only tied with", "loses": "lost to"}[v],
                                                    "; ".join(reasons)))
    c2, c2t = [f(k, "h2c", "client_cpu_s") for k in keys], [f(k, "h2tls", "client_cpu_s") for k in keys]
    c3 = [f(k, "h3", "client_cpu_s") for k in keys]
    if c2[0] and c2t[0] and c3[0]:
        out.append("Encryption: h2 over TLS and HTTP/3 encrypt in software, h2c and SCTP do "
                   "not; h2load spent %s s of CPU over TLS against %s s in clear, and gtlsclient "
                   "%s s for the same page, which under TCG makes HTTP/3 CPU-bound (marked CPU): "
                   "it is ngtcp2's example client on an emulated CPU that loses, not QUIC's loss "
                   "recovery, which these runs cannot judge." % (c2t[0], c2[0], c3[0]))
    v = most(vs("sctpintl", "sctp100", keys))
    if v:
        out.append("I-DATA with the round-robin scheduler %s plain SCTP with 100 streams: "
                   "sctphttpd already cuts replies into 16 KiB messages and serves its streams "
                   "round-robin, so with plain DATA a large reply holds the others back by one "
                   "16 KiB message at most, and I-DATA has little left to interleave%s." % (
                       {"wins": "won against", "ties": "tied with", "loses": "lost to"}[v],
                       "" if any(k[3] == "big" for k in keys) else
                       " (the 1 MiB + 100 small workload, where it would show most, is not in "
                       "these cells)"))
    v = most(vs("usrsctp100", "sctp100", keys))
    if v:
        out.append("usrsctp (userspace SCTP over UDP, like QUIC a stack in the process) %s "
                   "kernel SCTP, its client and server busy %s %% of a CPU unshaped." % (
                       {"wins": "won against", "ties": "tied with", "loses": "lost to"}[v],
                       un.get("usrsctp100", {}).get("cpu_pct", "?")))
    if out:
        p("Why, as far as these runs show it: " + " ".join(out))
        p()


VERB = {"wins": "won against", "ties": "tied with", "loses": "lost to"}


def most_words(v, other):
    """"won against OTHER in most cells" (or tied, lost), or why there is no verdict"""
    m = plurality(v)
    if m == "split":
        return "was split against %s (no verdict in most cells)" % other
    return "%s %s in most cells" % (VERB[m], other) if m else (
        "could not be judged against %s (fewer than %d runs a cell)" % (other, stats.MIN_RUNS))


def counts(vs):
    """"W wins, T ties, L losses" of a list of verdicts (not judged left out, said)"""
    c = {k: sum(1 for v in vs if v.split()[0] == k) for k in ("wins", "ties", "loses", "not")}
    return "%d %s, %d %s, %d %s%s" % (c["wins"], "win" if c["wins"] == 1 else "wins", c["ties"],
                                       "tie" if c["ties"] == 1 else "ties", c["loses"],
                                       "loss" if c["loses"] == 1 else "losses",
                                       ", %d not judged" % c["not"] if c["not"] else "")


def why_v2(p, keys, get):
    """lab v2's reasons, from its own counters (results.csv's medians of the server's loss
    recovery and of the handshakes): every sentence chosen by what the runs measured."""
    def f(k, row, col):
        r = get.get(k + (row,))
        x = r.get(col, "-") if r else "-"
        try:
            return float(x)
        except (TypeError, ValueError):
            return None

    def vs(a, b, ks):
        return [verdict(get[k + (a,)], get[k + (b,)]) for k in ks if k + (a,) in get and k + (b,) in get]

    def total(row, col, ks):
        v = [f(k, row, col) for k in ks]
        v = [x for x in v if x is not None]
        return ("%g" % sum(v)) if v else None
    clean = [k for k in keys if k[2] == 0]
    lossy = [k for k in keys if k[2] > 0]
    out = []
    v = vs(REF, "h2c", clean)
    if v:
        out.append("Without loss %s %s (%s of %d): one handshake each, then "
                   "every request in flight at once over one congestion window." % (
                       LABEL[REF], most_words(v, "h2c"), counts(v), len(v)))
        # timers that fired with nothing lost: a T3-rtx expiry with no DATA sent again is a
        # sender that waited (on the peer's window, or a late SACK), not a repair
        ik = [k for k in clean if (f(k, REF, "srv_timeouts") or 0) > 0 and f(k, REF, "srv_retrans") == 0]
        if ik:
            def ratio(k):
                a, b = f(k, REF, "time_s"), f(k, "h2c", "time_s")
                return a / b if a and b else None
            ri = [ratio(k) for k in ik]
            ro = [ratio(k) for k in clean if k not in ik]
            slow = (all(x is not None for x in ri + ro) and ro and min(ri) > max(ro))
            out.append("In %d of the %d cells without loss the SCTP server (%s) had T3-rtx timeouts "
                       "with no DATA retransmitted (medians a page, by one-way delay: %s): its timer "
                       "expired while it waited, not after a loss; these runs do not say on what "
                       "(the client's receive window is the first suspect)%s." % (
                           len(ik), len(clean), LABEL[REF],
                           ", ".join("%g ms: %g" % (k[1], f(k, REF, "srv_timeouts")) for k in ik),
                           "; those are the cells where its time is furthest from h2c's (%s against %s)" % (
                               ", ".join("%.2fx" % x for x in ri), ", ".join("%.2fx" % x for x in ro))
                           if slow else ""))
    v = vs(REF, "h2c", lossy)
    if v:
        t3, rto, tlp = total(REF, "srv_timeouts", lossy), total("h2c", "srv_timeouts", lossy), total("h2c", "srv_tlp", lossy)
        fr, ffr = total(REF, "srv_fast_retrans", lossy), total("h2c", "srv_fast_retrans", lossy)
        s = ("Under loss %s %s (%s of %d). The server's loss recovery, medians "
             "a page summed over the %d lossy cells: SCTP %s T3-rtx timeouts and %s fast "
             "retransmits; TCP (h2c) %s retransmission timeouts, %s fast retransmits and %s "
             "tail-loss probes." % (LABEL[REF], most_words(v, "h2c"), counts(v),
                                    len(v), len(lossy), t3 or "-", fr or "-", rto or "-", ffr or "-", tlp or "-"))
        tuned = REF + "tuned"
        vt = vs(tuned, REF, lossy)
        if vt:
            s += (" The tuned SCTP row (RTO min 200 ms, initial window 10, delayed SACK 40 ms) "
                  "%s under loss (%s), with %s T3-rtx timeouts against "
                  "%s" % (most_words(vt, "the untuned one"), counts(vt),
                          total(tuned, "srv_timeouts", lossy) or "-", t3 or "-"))
            s += {"wins": ": SCTP's 1 s minimum RTO accounts for part of its time under loss.",
                  "": ".", "split": ": no verdict on what the RTO minimum explains."}.get(
                      plurality(vt), ": the RTO minimum and the initial window do not explain SCTP's time here.")
        vh = vs(tuned, "h2c", lossy)
        if vh:
            s += " Tuned SCTP against h2c under loss: %s of %d." % (counts(vh), len(vh))
        out.append(s)
    v = vs("h3", "h2c", lossy)
    if v:
        out.append("HTTP/3 (ngtcp2, cubic) against h2c under loss: %s of %d, with %s packets "
                   "declared lost and %s PTOs (medians a page, summed)." % (
                       counts(v), len(v), total("h3", "srv_retrans", lossy) or "-",
                       total("h3", "srv_timeouts", lossy) or "-"))
    v = vs(REF + "tls", "h2tls", keys)
    if v:
        def mid(col):
            x = sorted(y for y in (f(k, REF + "tls", col) for k in keys) if y is not None)
            return "%g" % x[len(x) // 2] if x else "-"
        out.append("Encrypted against encrypted, SCTP with TLS a stream against h2 over TLS: "
                   "%s of %d cells; SCTP's %s handshakes a page took %s ms each (the middle "
                   "cell's median), within the page's time, where h2's one handshake comes "
                   "before its first request." % (counts(v), len(v), mid("tls_handshakes"), mid("tls_hs_mean_ms")))
    v = vs("usrsctp100", "usrsctpnt100", keys)
    if v:
        out.append("usrsctp in its own threads against usrsctp-nt (the stack in the program's "
                   "loop): %s of %d." % (counts(v), len(v)))
    if out:
        p("Why, as far as these runs show it: " + " ".join(out))
        p()


def published(p, keys, get):
    """How these findings sit beside published ones: their claims cited, ours counted."""
    def vs(a, b, ks):
        return [verdict(get[k + (a,)], get[k + (b,)]) for k in ks if k + (a,) in get and k + (b,) in get]
    lossy = [k for k in keys if k[2] > 0]
    a, b = vs(REF, "h2c", lossy), vs("h3", "h2c", lossy)
    if not a and not b:
        return
    out = []
    if a:
        out.append("Natarajan, Amer and Stewart (NSDR 2008) found HTTP/1.1 pipelined over SCTP "
                   "streams fetched pages faster than over one TCP connection on emulated "
                   "high-latency lossy paths, and later (with Baker, IPCCC 2009) that several TCP "
                   "connections do not close that gap on low-bandwidth last hops. Here the "
                   "baseline is stronger: HTTP/2 multiplexes every request on one TCP connection of "
                   "a current Linux kernel (SACK, RACK, tail-loss probes, 200 ms RTO min); %s "
                   "against it under loss: %s of %d cells, %s." % (
                       LABEL[REF], counts(a), len(a),
                       {"wins": "in line with their finding",
                        "ties": "mostly ties: their gain is not reproduced against this baseline here",
                        "": "too few runs a cell to say whether their finding holds",
                        "split": "neither confirming nor refuting their finding here"}.get(
                           plurality(a), "so their gain does not carry over to this baseline on this lab")))
    if b:
        out.append("For QUIC, Kakhki et al. (IMC 2017) saw Google's QUIC generally outperform "
                   "TCP but suffer under reordering and with many small objects, and Yu and "
                   "Benson (WWW 2021) found that QUIC's removal of head-of-line blocking changes "
                   "page loads little, its results set mostly by the congestion control and its "
                   "implementation. HTTP/3 against h2c under loss here: %s of %d cells, "
                   "ngtcp2's example programs with cubic." % (counts(b), len(b)))
    p("Beside published results: " + " ".join(out))
    p()


def intro_v2(p, where, quick, subset, secs, reps):
    """lab v2's setting, in place of the VM lab's"""
    p("Lab v2 (issue 38; test/lab/router.sh): the client and the server are network namespaces "
      "on the host, native programs, each on a TAP of a router VM (TCG) that holds the link: "
      "netem delay and loss (random, or Gilbert-Elliott with the same mean where said) and a "
      "rate limit with a queue of one bandwidth-delay product (four where said), per direction, "
      "TAPs without vnet_hdr and guest GRO/GSO/TSO off, so that netem drops packets, not 64 KiB "
      "superpackets; the router's counters checked in every cell, and for every row where the run took "
      "them after each run (below). "
      "Measured %s, %s, %s s of measurements, %s run(s) a cell, rows interleaved (the median with its bootstrap 95 %% "
      "interval; the min and max beside it). Every object is requested at once: HTTP/2 as "
      "h2load's streams on one TCP connection (`-c 1 -m 100`; nginx h2c, TCP's cubic, and the "
      "same with bbr), HTTP/3 by ngtcp2's gtlsclient against gtlsserver (`--cc=cubic` both ends), "
      "SCTP as one association of sctphttpd with 100 streams over usrsctp (UDP encapsulation, "
      "a userspace stack as QUIC is) in its own threads (usrsctp) or in the program's event "
      "loop (usrsctp-nt), RFC 4960's congestion control; *tuned*: RTO min 200 ms, initial "
      "window 10 packets, delayed SACK 40 ms (TCP's figures). Encrypted rows where named: h2 "
      "over TLS 1.3 (nginx, h2load; one handshake before the first request) and SCTP with TLS "
      "1.3 on each stream (RFC 3436 as the draft maps it: sctphttpd `--tls-cert`, httpload "
      "`--ssl` verifying the certificate; streams 2 to 100 resume the first stream's session "
      "ticket, and each request waits for its stream's handshake, inside the page's time). "
      "HTTP/1.1 with a connection per request where the rows name it. Kernel SCTP is not on lab "
      "v2 yet (its rows need a kernel with SCTP: `make experiments-06vm` measures them in the VM "
      "lab, every endpoint there)." % (
          where, "quick mode" if quick == "1" else ("a subset of the grid" if subset else "full grid"),
          secs, reps))


def columns_v2(p):
    """lab v2's columns: one completion time for every row"""
    p("Columns: time to fetch the page (s), one definition for every row: from the first "
      "request's start to the last response's end in the client's own per-request log "
      "(httpload's `--log`, h2load's `--log-file`; gtlsclient has none: its debug lines for each "
      "request's submit and its stream's close, stamped as they come), so no row pays its "
      "process start or its connection set-up before the first request; per-request latency, "
      "ms, median, p95 and p99; bytes on the wire (the client's interface, both ways); CPU "
      "seconds of the client and the server. The last column marks a row whose unshaped rate "
      "at the cell's delay is under 3x the link's: **CPU** where client and server together "
      "were busy half a CPU or more, **RTT** otherwise. A cell is link-bound only when no row "
      "carries a mark.")


def main():
    res, unshaped, sizes, name, quick, reps, secs, where, cells, rows, subset = sys.argv[1:12]
    commit = sys.argv[12] if len(sys.argv) > 12 else "unknown"
    lab = sys.argv[13] if len(sys.argv) > 13 else ""
    global REF
    order0 = rows.split()
    REF = "sctp100" if "sctp100" in order0 or lab != "v2" else next(
        (r for r in ("usrsctpnt100", "usrsctp100") if r in order0), "sctp100")
    rs = list(csv.DictReader(open(res)))
    un = list(csv.DictReader(open(unshaped)))
    page = [int(l.split()[1]) for l in open(sizes)]
    order = rows.split()
    p = print
    p("## 06. Multiplexing: SCTP streams against HTTP/2 and HTTP/3")
    p()
    if subset and lab == "v2":
        p("**Measured: %s, %s runs each; %s.** A cell not measured is not judged: no "
          "summary below speaks for it." % (", ".join(cells.split()), reps, subset))
        p()
    elif subset:
        p("**Measured: the cells %s only, %s run(s) each** (a subset of the grid), on %s, git "
          "%s, by `%s make experiments EXPERIMENTS=06`; the rest of the grid is not measured "
          "yet (the full grid: %s)." % (", ".join(cells.split()), reps,
                                        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                        commit, subset, GRID))
        p()
    if lab == "v2":
        intro_v2(p, where, quick, subset, secs, reps)
    else:
      p("Host b serves, host a fetches, over one emulated link (netem on both ends) %s, %s, %s s "
      "of measurements, %s run(s) a cell (the median; the time's min and max beside it). "
      "Every object of a workload is requested at once: HTTP/2 as h2load's streams on one "
      "TCP connection (`-c 1 -m 100`; nginx, cleartext h2c with prior knowledge and h2 over TLS "
      "1.3), HTTP/3 by ngtcp2's gtlsclient against gtlsserver (QUIC, TLS 1.3; Debian 12's "
      "h2load 1.52 is built without QUIC, so it cannot fetch HTTP/3), SCTP as one association "
      "of sctphttpd with 1, 10 or 100 streams in use (`httpload --streams`; with 100 also "
      "I-DATA chunks, RFC 8260, and the round-robin stream scheduler where the kernel has them: "
      "`--sctp-interleave` on both ends), SCTP over usrsctp (UDP encapsulation, a userspace "
      "stack as QUIC is) with 100, HTTP/1.1 over TCP "
      "as a connection per request one after another (the paper's way), 6 keep-alive "
      "connections (a browser's habit), and pipelined on one connection." % (
          where, "quick mode" if quick == "1" else ("a subset of the grid" if subset else "full grid"),
          secs, reps))
    p()
    p("The page: %d objects, %d bytes in all (%d B to %d B), sizes drawn after the median web "
      "page's composition in HTTP Archive's Web Almanac 2022 (about 2 MB over about 70 "
      "requests; images and JavaScript the bulk): an approximate reconstruction, by type "
      "log-normal around a median (test/experiments/06-multiplexing/objects.py), not HTTP "
      "Archive's data.%s" % (
          len(page), sum(page), min(page), max(page),
          "" if lab == "v2" else " *1 MiB + 100 x 4 KiB*: one large object requested first, beside "
          "100 small ones. *fN*: one N-byte file fetched repeatedly, as in experiment 04."))
    p()
    if lab == "v2":
        columns_v2(p)
    else:
      p("Columns: time to fetch the whole set (s; h2load's and httpload's own clock, gtlsclient's "
      "last event since the connection's start); per-request latency from request to last "
      "byte, ms, median, p95 and p99 over every request of the run, from each client's own "
      "per-request log (h2load's `--log-file`, httpload's `--log`; gtlsclient has no such log: "
      "its debug lines for each request's submit and its stream's close, stamped by the "
      "script as they come, to within a pipe's delay); bytes on "
      "the wire (a's interface, both ways, with handshakes and TLS); CPU seconds of the client "
      "and the server. A request's latency counts from its own sending: rows that send one "
      "request at a time (SCTP with 1 stream, HTTP/1.1 with a connection per request) show "
      "short latencies and long totals. The last column marks a row whose unshaped rate is "
      "under 3x the link's: **CPU** where the client and the server together were busy half a "
      "CPU or more there (the emulated CPU, not the link, sets the figure), **RTT** otherwise (round "
      "trips set it).")
    p()
    keys = sorted({key(r) for r in rs})
    get = {key(r) + (r["row"],): r for r in rs}
    for (l, d, loss, w, model, queue) in keys:
        p("### %g Mbit/s, %d ms one-way, %g %% loss%s each way%s: %s" % (
            l, d, loss, loss_words(model), queue_words(queue), WORK.get(w, w)))
        p()
        p("| row | time s (95 %% CI of the median, %s runs) [min-max] | p50 / p95 / p99 ms | wire KB | CPU client / server s | |"
          % "/".join(sorted({r["reps"] for r in rs if (float(r["link_mbit"]), int(r["one_way_delay_ms"]),
                                                       float(r["loss_pct"]), r["workload"], r.get("loss_model") or "random",
                                                       r.get("queue") or "") == (l, d, loss, w, model, queue)})))
        p("|---|---|---|---|---|---|")
        for row in order:
            r = get.get((l, d, loss, w, model, queue, row))
            if not r:
                continue
            p95 = r["lat_p95_ms"]
            p("| %s | %s (%s-%s) [%s-%s]%s | %s / %s / %s | %.0f | %s / %s | %s |" % (
                LABEL.get(row, row), r["time_s"], r.get("time_ci_lo_s", "-"), r.get("time_ci_hi_s", "-"),
                r["time_min_s"], r["time_max_s"],
                "" if r["ok_all"] == "1" else " (errors)", r["lat_p50_ms"], p95,
                r["lat_p99_ms"], int(r["wire_bytes"]) / 1000, r["client_cpu_s"],
                r["server_cpu_s"], r["bound"].upper()))
        p()
        if loss > 0 and w == keys[0][3] and lab != "v2":
            tag = "%s-%dms-%gpct-%s" % ("%gmbit" % l, d, loss, w)
            p("![latency CDF, %g Mbit/s, %d ms, %g %% loss](results/%s-%s.png)" % (l, d, loss, name, tag))
            p()
    # plain words: SCTP with 100 streams against HTTP/2 (h2c, same: no encryption) and HTTP/3
    p("**Where SCTP streams win, tie and lose** (SCTP with 100 streams against h2c, h2 over TLS "
      "and HTTP/3, time to fetch the set: a win or a loss only where the bootstrap 95 %% "
      "intervals of the two medians do not overlap, each row with %d runs or more; overlapping "
      "intervals are a tie, fewer runs are not judged):" % stats.MIN_RUNS
      if REF == "sctp100" else
      "**Where SCTP streams win, tie and lose** (%s against h2c, h2c with bbr and HTTP/3, time "
      "to fetch the set: a win or a loss only where the bootstrap 95 %% intervals of the two "
      "medians do not overlap, each row with %d runs or more; overlapping intervals are a tie, "
      "fewer runs are not judged):" % (LABEL[REF], stats.MIN_RUNS))
    p()
    tally = {}
    others = ("h2c", "h2tls", "h3") if REF == "sctp100" else ("h2c", "h2cbbr", "h3")
    for k in keys:
        (l, d, loss, w, model, queue) = k
        s = get.get(k + (REF,))
        if not s:
            continue
        for o in others:
            r = get.get(k + (o,))
            if r:
                v = verdict(s, r).split()[0]
                tally.setdefault((o, loss > 0), {}).setdefault(v, 0)
                tally[(o, loss > 0)][v] += 1
        parts = []
        for o in others:
            r = get.get(k + (o,))
            if r:
                parts.append("%s %s (%s s against %s s%s)" % (
                    verdict(s, r), LABEL[o],
                    s["time_s"], r["time_s"],
                    "; %s bound by %s" % (o, r["bound"].upper()) if r["bound"] else ""))
        p("- %g Mbit/s, %d ms, %g %% loss%s%s, %s: SCTP%s %s." % (
            l, d, loss, loss_words(model), queue_words(queue), w, " (bound by %s)" % s["bound"].upper() if s["bound"] else "",
            "; ".join(parts)))
    p()
    # the other pairs a reader asks about: SCTP's own answer to HOL blocking behind a large
    # message (I-DATA and round-robin), userspace SCTP (as QUIC is userspace), HTTP/3 vs h2
    pairs = (("sctpintl", "sctp100"), ("usrsctp100", "sctp100"), ("h3", "h2tls"), ("sctp100", "tcppipe"),
             ("usrsctp100", "usrsctpnt100"), ("usrsctpnt100tuned", "usrsctpnt100"),
             ("usrsctp100tuned", "usrsctp100"), ("h2cbbr", "h2c"), ("h3", "h2c"),
             ("usrsctpnt100tls", "usrsctpnt100"), ("h2tls", "h2c"), ("usrsctpnt100tls", "h2tls"),
             ("usrsctpnt100tls", "h3"))
    lines = []
    for k in keys:
        (l, d, loss, w, model, queue) = k
        parts = []
        for a, b in pairs:
            ra, rb = get.get(k + (a,)), get.get(k + (b,))
            if ra and rb:
                parts.append("%s %s %s (%s s, %s s; p99 %s ms, %s ms)" % (
                    LABEL[a], verdict(ra, rb), LABEL[b],
                    ra["time_s"], rb["time_s"], ra["lat_p99_ms"], rb["lat_p99_ms"]))
        if parts:
            lines.append("- %g Mbit/s, %d ms, %g %% loss%s%s, %s: %s." % (
                l, d, loss, loss_words(model), queue_words(queue), w, "; ".join(parts)))
    if lines:
        p("Other pairs (time to fetch the set, then each one's p99 latency):")
        p()
        for x in lines:
            p(x)
        p()
    if tally:
        p("In sum (cells x workloads, %s against each): " % ("SCTP with 100 streams" if REF == "sctp100" else LABEL[REF]) + "; ".join(
            "%s %s: %s" % (LABEL[o], "under loss" if lossy else "without loss", ", ".join(
                "%s %d" % (v.replace("wins", "SCTP wins").replace("ties", "ties").replace(
                    "loses", "SCTP loses").replace("not", "not judged"), n) for v, n in sorted(c.items())))
            for (o, lossy), c in sorted(tally.items())) + ".")
        p()
    tails = []
    for k in keys:
        (l, d, loss, w, model, queue) = k
        s, h = get.get(k + (REF,)), get.get(k + ("h2c",))
        if loss > 0 and s and h and "-" not in (s["lat_p99_ms"], h["lat_p99_ms"]):
            tails.append("%g Mbit/s %d ms %g %%%s%s %s: SCTP %s ms, h2c %s ms" % (
                l, d, loss, loss_words(model), queue_words(queue), w, s["lat_p99_ms"], h["lat_p99_ms"]))
    if tails:
        p("Tail latency under loss (p99, %s against h2c): " % LABEL[REF] + "; ".join(tails) + ".")
        p()
    if lab == "v2":
        why_v2(p, keys, get)
        published(p, keys, get)
    else:
        why(p, keys, get, {u["row"]: u for u in un})
    if lab == "v2":
        p("**Unshaped rates** (the page over each cell's delay only, no rate limit, no loss; "
          "Mbit/s of objects, and client and server's CPU share together): " + "; ".join(
              "%s ms: %s" % (d, ", ".join("%s %s (%s %%)" % (LABEL.get(u["row"], u["row"]), u["mbit"], u["cpu_pct"])
                                          for u in un if u["one_way_delay_ms"] == d))
              for d in sorted({u["one_way_delay_ms"] for u in un}, key=float)) + ".")
        p()
        p("Raw data: `samples.csv` (every run), `results.csv` (medians and intervals), "
          "`unshaped.csv`, `fidelity.txt`, `params.txt` and `raw/` (each request and the router's "
          "counters) in docs/results/06/ for a full run (`test/experiments/run --reanalyse 06` "
          "makes this section again from them).%s" % (
              " Quick mode: %d cell(s) (%s), one run each; not the results section." % (
                  len(cells.split()), cells.strip()) if quick == "1" else ""))
        return
    p("**Unshaped rates** (the page over the link's delay only, no rate limit, no loss; Mbit/s "
      "of objects, and client and server's CPU share together): " + ", ".join("%s %s (%s %%)" % (
          LABEL.get(u["row"], u["row"]), u["mbit"], u["cpu_pct"]) for u in un)
      + ". TCP's segmentation offloads batch 64 KiB per packet through the emulated CPU; SCTP, "
      "usrsctp and QUIC handle each packet one by one, and QUIC and TLS decrypt every byte.")
    p()
    p("Raw runs: `samples.csv` (every repetition), `results.csv` (medians), `unshaped.csv`, "
      "`raw/` (each client's output and per-request latencies).%s" % (
          " Quick mode: %d cell(s) of the grid (%s), the page only, one run each, without "
          "the rows of 10 streams, 6 connections and I-DATA; the full grid: %s." % (
              len(cells.split()), cells.strip(), GRID)
          if quick == "1" else
          " Cells measured: %s (%s), a subset of the full grid (`make experiments "
          "EXPERIMENTS=06`): %s." % (cells.strip(), subset, GRID) if subset else ""))


if __name__ == "__main__":
    main()
