#!/bin/sh
# draft-eval.sh: the draft's measurements come from docs/results.md, not from a hand. The draft
# holds no "[results: ...]" placeholder and includes drafts/eval-04.md; that fragment is exactly
# what drafts/eval.py makes from the committed docs/results.md (a number typed into it by hand
# fails); the generator really reads the results (a planted figure in a copy appears in its
# output, a ratio worded by it follows the number) and refuses results without experiment 04;
# and the draft builds with mmark (drafts/build.sh) with the table in its XML.
. "$(dirname "$0")/../lib.sh"
scratch draft-eval
draft=$top_srcdir/drafts/draft-sctpapps-http-over-sctp.md
gen=$top_srcdir/drafts/eval.py
res=$top_srcdir/docs/results.md

! grep -n '\[results:' "$draft" >"$tmp/ph"
ok $? "the draft has no [results: ...] placeholder" || sed 's/^/# /' "$tmp/ph"

grep -qx '{{eval-04.md}}' "$draft" && grep -qx '{{eval-06.md}}' "$draft"
ok $? "the draft includes the generated fragments {{eval-04.md}} and {{eval-06.md}}"

python3 "$gen" --check >"$tmp/diff" 2>&1
ok $? "drafts/eval-04.md, eval-06.md and the manual's blocks (README.md, docs/*.md) are what drafts/eval.py makes from docs/results.md" || sed 's/^/# /' "$tmp/diff"

# the manual shows experiment 6 through the generator (docs/demo.md, the demo's HTTP part): its
# block is there, holds the table, and a figure typed into it by hand fails the check
page=$top_srcdir/docs/demo.md
grep -q '^<!-- drafts/eval.py: eval-06.md -->$' "$page" &&
    sed -n '/^<!-- drafts\/eval.py: eval-06.md -->$/,/^<!-- drafts\/eval.py: end -->$/p' "$page" |
    grep -q '^| cell | SCTP, 100 streams | HTTP/2 h2c | HTTP/2 over TLS | HTTP/3 |'
ok $? "docs/demo.md has the generated block of experiment 6 with its table"
mkdir -p "$tmp/docs"
cp "$page" "$tmp/docs/demo.md"
python3 "$gen" --check --readme "$tmp/docs/demo.md" >/dev/null 2>&1 || fail_copy=1
awk '/^<!-- drafts\/eval.py: eval-06.md -->$/ { b = 1 } b && /^\| [0-9]/ && !done { sub(/\| [0-9.]+ /, "| 0.001 "); done = 1 } { print }' \
    "$page" >"$tmp/docs/demo.md"
[ -z "${fail_copy:-}" ] && ! cmp -s "$tmp/docs/demo.md" "$page" && ! python3 "$gen" --check --readme "$tmp/docs/demo.md" >/dev/null 2>&1
ok $? "a figure changed by hand in docs/demo.md's generated block fails --check (an untouched copy passes)"

# a figure typed into the fragment by hand is caught: the first table's first TCP figure, +1
mkdir -p "$tmp/hand"
awk -F'|' '/^\| [0-9]+ KiB \|/ && !done { $4 = " " ($4 + 1) " "; done = 1 } { print }' OFS='|' \
    "$top_srcdir/drafts/eval-04.md" >"$tmp/hand/eval-04.md"
! cmp -s "$tmp/hand/eval-04.md" "$top_srcdir/drafts/eval-04.md" &&
    ! python3 "$gen" --check "$tmp/hand" >/dev/null 2>&1
ok $? "a number changed by hand in the fragment fails --check"

# a planted row in a copy of the results (04's first table, first file: TCP 8, SCTP 100
# streams 3, 10 streams 20): in the output as planted, and the ratios computed from it
mkdir -p "$tmp/plant"
awk -F'|' '/^## 04\./ { s = 1 } /^## 05\./ { s = 0 }
     s && /^\| [0-9]+ KiB \|/ && !done { $2 = " 2 KiB "; $4 = " 8 "; $6 = " 20 "; $7 = " 3 "; done = 1 }
     { print }' OFS='|' "$res" >"$tmp/plant/results.md"
python3 "$gen" --results "$tmp/plant/results.md" "$tmp/plant" 2>"$tmp/plant.err"
grep -q '^| 2 KiB |[^|]*| 8 |[^|]*| 20 | 3 |' "$tmp/plant/eval-04.md" &&
    grep -q 'link, as a ratio to TCP.s throughput: SCTP with 100 streams 0.38x for 2 KiB files and [0-9.]*x for [0-9]* KiB files; 10 streams 2.50x for 2 KiB files' \
    "$tmp/plant/eval-04.md"
ok $? "a planted row (TCP 8, SCTP 100 streams 3, 10 streams 20 KB/s): in the table, 0.38x and 2.50x in the text" ||
    { sed 's/^/# /' "$tmp/plant.err"; grep -m1 '2 KiB' "$tmp/plant/eval-04.md" | sed 's/^/# /'; tail -1 "$tmp/plant/eval-04.md" | sed 's/^/# /'; }

# experiment 06's own report.py (its current format) on made-up runs (5 a row: SCTP 3.00-3.04 s,
# h2c 2.00-2.04 s, one cell without loss): the two checks below splice it into a copy of the
# results, so that they hold whatever docs/results.md holds now (a quick run rewrites it: it
# may have no cell without loss)
exp=$top_srcdir/test/experiments/06-multiplexing
mkdir -p "$tmp/r6"
python3 - "$tmp/r6" <<'PY'
import csv, os, sys
t = sys.argv[1]
w = csv.writer(open(os.path.join(t, "samples.csv"), "w", newline=""))
w.writerow(["link_mbit", "one_way_delay_ms", "loss_pct", "workload", "row", "rep", "requests", "ok",
            "protocol", "time_s", "lat_p50_ms", "lat_p90_ms", "lat_p95_ms", "lat_p99_ms", "lat_source",
            "wire_bytes", "client_cpu_s", "server_cpu_s"])
for row, base in (("sctp100", 3.0), ("h2c", 2.0), ("h2tls", 2.2), ("h3", 2.5)):
    for i in range(5):
        w.writerow(["10", "10", "0", "page", row, i + 1, 100, 100, "x", "%.4f" % (base + 0.01 * i),
                    10, 20, 30, 40, "log", 2000000, 0.5, 0.5])
w = csv.writer(open(os.path.join(t, "unshaped.csv"), "w", newline=""))
w.writerow(["row", "mbit", "cpu_pct"])
for r in ("sctp100", "h2c", "h2tls", "h3"):
    w.writerow([r, "50.0", "20"])
open(os.path.join(t, "page.sizes"), "w").write("".join("o%d %d\n" % (i, 1000 + i) for i in range(100)))
PY
python3 "$exp/summarize.py" "$tmp/r6/samples.csv" "$tmp/r6/unshaped.csv" "$tmp/r6/results.csv" &&
    python3 "$exp/report.py" "$tmp/r6/results.csv" "$tmp/r6/unshaped.csv" "$tmp/r6/page.sizes" \
    06-multiplexing 0 5 60 "a test" "10mbit:10:0" "sctp100 h2c h2tls h3" "" abc123 >"$tmp/r6/report.md" 2>"$tmp/r6.err"
r6ok=$?
sed '/^## 06\./,$d' "$res" >"$tmp/r6/results.md" && cat "$tmp/r6/report.md" >>"$tmp/r6/results.md"

# experiment 06: a planted page cell without loss (SCTP 100 streams 3.000 s, h2c 2.000 s, RTT
# marks in the last column) in the made-up report: the times and marks in the table, 1.50x in the
# sentence, the marks counted (2 of the 4 rows)
awk -F'|' '/^## 06\./ { s = 1 }
     s && /^### .* 0 % loss each way: page/ && !h { h = 1 }
     h && /^\| SCTP, 100 streams \|/ && !a { $3 = " 3.000 [2.900-3.100] "; $(NF - 1) = " RTT "; a = 1 }
     h && /^\| HTTP\/2 h2c \(nginx\) \|/ && !b { $3 = " 2.000 [1.900-2.100] "; $(NF - 1) = " RTT "; b = 1 }
     { print }' OFS='|' "$tmp/r6/results.md" >"$tmp/plant/results6.md"
python3 "$gen" --results "$tmp/plant/results6.md" "$tmp/plant" 2>"$tmp/plant6.err"
[ $r6ok = 0 ] &&
    grep -q '^| 10 Mbit/s, 10 ms, 0 % loss | 3.000 \[2.900-3.100\] (RTT) | 2.000 \[1.900-2.100\] (RTT) | 2.220 ' "$tmp/plant/eval-06.md" &&
    grep -q '^Without loss, SCTP with 100 streams took 1.50x at 10 Mbit/s, 10 ms the time' "$tmp/plant/eval-06.md" &&
    [ "$(grep -c '(RTT)\|(CPU)' "$tmp/plant/eval-06.md")" -eq 1 ] &&
    grep -q '^by the experiment.s rule: CPU (the emulated CPU) or RTT (round trips). 2 of the 4 rows' "$tmp/plant/eval-06.md"
ok $? "a planted 06 page cell (SCTP 3.000 s, h2c 2.000 s): in the table with its marks, 1.50x in the text" ||
    { sed 's/^/# /' "$tmp/r6.err" "$tmp/plant6.err"; grep -E '^\|.*0 % loss|^Without|rows$' "$tmp/plant/eval-06.md" | sed 's/^/# /'; }

[ $r6ok = 0 ] &&
    python3 "$gen" --results "$tmp/r6/results.md" "$tmp/r6" 2>>"$tmp/r6.err" &&
    grep -q '^| 10 Mbit/s, 10 ms, 0 % loss | 3.020 (3.000-3.040) \[3.000-3.040\] | 2.020 ' "$tmp/r6/eval-06.md" &&
    grep -q '^Without loss, SCTP with 100 streams took 1.50x at 10 Mbit/s, 10 ms ' "$tmp/r6/eval-06.md" &&
    grep -q 'a win or a loss only where the bootstrap 95 % intervals' "$tmp/r6/eval-06.md"
ok $? "06's report.py on made-up runs: the generator takes its table, interval and rule (3.020 s, 1.50x)" ||
    { sed 's/^/# /' "$tmp/r6.err"; grep -E '^\| 10|^Without' "$tmp/r6/eval-06.md" 2>/dev/null | sed 's/^/# /'; }

# lab v2's report (report.py ... v2: no kernel SCTP row; usrsctp-nt with 100 streams is its
# SCTP row) spliced in the same way: the generator takes usrsctp-nt's times as the SCTP column
mkdir -p "$tmp/v2"
python3 - "$tmp/v2" <<'PY'
import csv, os, sys
t = sys.argv[1]
w = csv.writer(open(os.path.join(t, "samples.csv"), "w", newline=""))
w.writerow(["link_mbit", "one_way_delay_ms", "loss_pct", "workload", "row", "rep", "requests", "ok",
            "protocol", "time_s", "lat_p50_ms", "lat_p90_ms", "lat_p95_ms", "lat_p99_ms", "lat_source",
            "wire_bytes", "client_cpu_s", "server_cpu_s", "loss_model", "queue"])
for row, base in (("usrsctpnt100", 2.4), ("h2c", 1.6), ("h2cbbr", 1.7), ("h3", 2.0),
                  ("usrsctpnt100tuned", 2.3), ("usrsctpnt100tls", 2.9)):
    for i in range(10):
        w.writerow(["10", "10", "0", "page", row, i + 1, 100, 100, "x", "%.4f" % (base + 0.01 * i),
                    10, 20, 30, 40, "log", 2000000, 0.5, 0.5, "random", "1bdp"])
w = csv.writer(open(os.path.join(t, "unshaped.csv"), "w", newline=""))
w.writerow(["row", "one_way_delay_ms", "mbit", "cpu_pct"])
for r in ("usrsctpnt100", "h2c", "h2cbbr", "h3", "usrsctpnt100tuned", "usrsctpnt100tls"):
    w.writerow([r, "10", "50.0", "20"])
open(os.path.join(t, "page.sizes"), "w").write("".join("o%d %d\n" % (i, 1000 + i) for i in range(100)))
PY
python3 "$exp/summarize.py" "$tmp/v2/samples.csv" "$tmp/v2/unshaped.csv" "$tmp/v2/results.csv" &&
    python3 "$exp/report.py" "$tmp/v2/results.csv" "$tmp/v2/unshaped.csv" "$tmp/v2/page.sizes" \
    06-multiplexing 0 10 60 "a test" "10mbit:10:0" "usrsctpnt100 h2c h2cbbr h3 usrsctpnt100tuned usrsctpnt100tls" "" abc123 v2 >"$tmp/v2/report.md" 2>"$tmp/v2.err" &&
    sed '/^## 06\./,$d' "$res" >"$tmp/v2/results.md" && cat "$tmp/v2/report.md" >>"$tmp/v2/results.md" &&
    python3 "$gen" --results "$tmp/v2/results.md" "$tmp/v2" 2>>"$tmp/v2.err" &&
    grep -q '^| 10 Mbit/s, 10 ms, 0 % loss | 2.445 ([0-9.-]*) \[2.400-2.490\] | 1.645 ' "$tmp/v2/eval-06.md" &&
    grep -q '^Without loss, SCTP with 100 streams (usrsctp-nt, lab v2) took 1.49x at 10 Mbit/s, 10 ms ' "$tmp/v2/eval-06.md" &&
    grep -q '^| cell | SCTP, 100 streams | HTTP/2 h2c | HTTP/2 over TLS | HTTP/3 | SCTP, tuned | SCTP over TLS |$' "$tmp/v2/eval-06.md" &&
    grep -q '^| 10 Mbit/s, 10 ms, 0 % loss | 2.445 ([0-9.-]*) \[2.400-2.490\] | 1.645 [^|]*| - | 2.045 [^|]*| 2.345 [^|]*| 2.945 ' "$tmp/v2/eval-06.md" &&
    grep -qx 'Why, as far as these runs show it: Without loss usrsctp-nt, 100 streams lost to h2c in most cells (0 wins, 0 ties, 1 loss of 1): .*' "$tmp/v2/eval-06.md" &&
    grep -q '^- 10 Mbit/s, 10 ms, 0 % loss, page: SCTP loses to HTTP/2 h2c (nginx) (2.445 s against 1.645 s); loses to HTTP/2 h2c, bbr (nginx)' "$tmp/v2/report.md"
ok $? "lab v2's report (usrsctp-nt 2.445 s, h2c 1.645 s, tuned 2.345 s, TLS 2.945 s, 10 runs): the generator takes it, its tuned and TLS columns, 1.49x, its reasons quoted, verdicts against h2c and h2c with bbr" ||
    { sed 's/^/# /' "$tmp/v2.err"; grep -E '^\| 10|^Without|^- 10' "$tmp/v2/eval-06.md" "$tmp/v2/report.md" 2>/dev/null | sed 's/^/# /'; }

sed '/^## 06\./,$d' "$res" >"$tmp/no06.md"
python3 "$gen" --results "$tmp/no06.md" "$tmp" >/dev/null 2>"$tmp/no06.err"
rc=$?
[ $rc = 2 ] && grep -q 'eval-06.md: no "## 06." section' "$tmp/no06.err"
ok $? "results without experiment 06: exit 2 (was $rc), named" || sed 's/^/# /' "$tmp/no06.err"

sed '/^## 04\./,/^## 05\./d' "$res" >"$tmp/no04.md"
python3 "$gen" --results "$tmp/no04.md" "$tmp" >/dev/null 2>"$tmp/no04.err"
rc=$?
[ $rc = 2 ] && grep -q 'eval-04.md: no "## 04." section' "$tmp/no04.err"
ok $? "results without experiment 04: exit 2 (was $rc), named" || sed 's/^/# /' "$tmp/no04.err"

if command -v mmark >/dev/null 2>&1; then
	sh "$top_srcdir/drafts/build.sh" "$tmp/out" >"$tmp/build.log" 2>&1 &&
	    grep -q 'Experiment 4, 1 Mbit/s' "$tmp/out/draft-sctpapps-http-over-sctp.xml"
	ok $? "the draft builds (drafts/build.sh) and its XML holds the generated table" || sed 's/^/# /' "$tmp/build.log"
else
	ok 1 "mmark is missing (scripts/setup.sh installs it): the draft cannot be built"
fi
done_testing
