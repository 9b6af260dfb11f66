#!/usr/bin/python3
"""summarize.py SAMPLES UNSHAPED RESULTS: experiment 06's runs (samples.csv) to one line per
cell, workload and row (results.csv): medians of the repetitions, the time's min and max and the
bootstrap 95 % interval of its median (stats.py), and
what bounds the row where its unshaped rate (unshaped.csv) is under 3x the link rate: the CPU
(client and server together busy half a CPU or more: the emulated CPU under TCG) or else round
trips. Then, where samples.csv has them (lab v2), the medians of each row's loss-recovery
counters (the server's retransmissions, timeouts, fast retransmits, tail-loss probes) and of
its handshakes (TLS handshakes a page, their mean, the connection's set-up), "-" where none."""
import csv, os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402


def med(vals):
    v = [float(x) for x in vals if x not in ("", "-")]
    return "%.1f" % statistics.median(v) if v else "-"


def main():
    samples, unshaped, out = sys.argv[1:4]
    rows = list(csv.DictReader(open(samples)))
    un = {r["row"]: r for r in csv.DictReader(open(unshaped))}
    cells = {}
    for r in rows:
        key = (float(r["link_mbit"]), int(r["one_way_delay_ms"]), float(r["loss_pct"]),
               r["workload"], r["row"], r.get("loss_model") or "random", r.get("queue") or "")
        cells.setdefault(key, []).append(r)
    cols = ["link_mbit", "one_way_delay_ms", "loss_pct", "workload", "row", "reps", "requests",
            "ok_all", "protocol", "time_s", "time_min_s", "time_max_s", "time_ci_lo_s",
            "time_ci_hi_s", "lat_p50_ms", "lat_p90_ms",
            "lat_p95_ms", "lat_p99_ms", "lat_source", "wire_bytes", "client_cpu_s",
            "server_cpu_s", "unshaped_mbit", "bound", "loss_model", "queue", "srv_retrans",
            "srv_timeouts", "srv_fast_retrans", "srv_tlp", "tls_handshakes", "tls_hs_mean_ms", "connect_ms"]
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for (l, d, p, wl, row, model, queue), rs in sorted(cells.items()):
            t = [float(r["time_s"]) for r in rs]
            u = float(un[row]["mbit"]) if row in un else 0.0
            busy = float(un[row]["cpu_pct"]) if row in un else 0.0
            bound = "" if u >= 3 * l else ("cpu" if busy >= 50 else "rtt")
            w.writerow(["%g" % l, d, "%g" % p, wl, row, len(rs), rs[0]["requests"],
                        int(all(r["ok"] == r["requests"] for r in rs)), rs[0]["protocol"],
                        "%.3f" % statistics.median(t), "%.3f" % min(t), "%.3f" % max(t),
                        "%.3f" % stats.bootstrap_ci(t)[0], "%.3f" % stats.bootstrap_ci(t)[1],
                        med(r["lat_p50_ms"] for r in rs), med(r["lat_p90_ms"] for r in rs),
                        med(r["lat_p95_ms"] for r in rs), med(r["lat_p99_ms"] for r in rs),
                        rs[0]["lat_source"], "%d" % statistics.median(int(r["wire_bytes"]) for r in rs),
                        med(r["client_cpu_s"] for r in rs), med(r["server_cpu_s"] for r in rs),
                        "%.1f" % u, bound, model, queue] +
                       [med(r.get(c, "-") for r in rs) for c in cols[-7:]])


if __name__ == "__main__":
    main()
