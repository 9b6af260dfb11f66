#!/bin/bash
# test/experiments/06-multiplexing/labv2.sh: experiment 06's rows on lab v2 (test/lab/router.sh:
# the endpoints native on the host in two namespaces, a TCG VM as the router), with every
# fidelity check on (test/lab/fidelity.py) in every cell. test/experiments/06-multiplexing.sh
# (make experiments EXPERIMENTS=06) picks its grid and runs it; the VM lab's version, with its
# kernel SCTP rows, is vmlab.sh beside it.
#   labv2.sh [--out DIR] [--cells "RATE:DELAY_MS:LOSS_PCT[:ge=N][:q=Nbdp] ..."] [--reps N] [--rows "..."]
#            [--mode quick|full]
#     a cell's loss is random unless ge=N (Gilbert, the same mean, mean burst N packets); its
#     queue 1 BDP unless q=Nbdp (e.g. q=4bdp)
#   labv2.sh --reanalyse DIR     results.csv and report.md again from DIR's files (no root)
#   labv2.sh --finish DIR [--cells "PLANNED"]   a full run that was stopped mid-way (killed, a
#                                host lost): its finished cells (those with a closing snapshot
#                                and a bound line) made a run of their own, the rest of DIR's
#                                samples and raw files dropped, params.txt written saying so
#                                ("interrupted:"), then the analysis, provenance/ and run.meta
# Defaults: one cell 10mbit:10:1, one run, rows tcp1 h2c h2cbbr h3 usrsctpnt100 usrsctp100.
# Rows usrsctpnt100tuned and usrsctp100tuned: the same with TCP's figures on both ends (RTO min
# 200 ms, initial window 10 packets, delayed SACK 40 ms: --rto-min, --sctp-init-cwnd,
# --sctp-sack-delay), their own sctphttpd each (usrsctp's initial window is the process's);
# the values the servers' stacks hold are read back into params.txt.
# --mode: what report.md says of the run (default quick). Writes DIR (default
# out/experiments/06-labv2; its other files left alone): samples.csv (a line per run), results.csv
# (summarize.py: medians, bootstrap intervals, bound), unshaped.csv (each row's rate at each
# cell's delay, nothing else), fidelity.txt (the router's checks per cell), raw/ (each run's
# client output and per-request log), params.txt, page.sizes, report.md (a section of
# docs/results.md: report.py's tables and verdicts, then lab v2's checks and counters), and
# provenance/ (what a full run commits to docs/results/06/: the CSVs, fidelity.txt, bound.txt,
# params.txt, page.sizes, raw/requests.csv.gz with every request, raw/*.stats*). TAP on stdout; exit 0 iff every
# check passed (a failed fidelity check fails the run and marks its cell). The router's counters
# are taken before each cell, after each run (its delay line drained) and after the cell: the
# cell is judged as a whole (loss, aggregation, guest GRO, the router's CPU) and each row on its
# own runs added up (loss and aggregation: every protocol saw the nominal loss per packet).
#
# One completion time for every row: from the first request's start to the last response's
# end, in the client's own per-request log (httpload --log, h2load --log-file; HTTP/3: ngtcp2's
# gtlsclient has none, so its debug lines for each request's submit and its stream's close are
# stamped as they come, to within a pipe's delay), so a process's start-up and its connection
# set-up before the first request are not counted.
# TCP congestion control: cubic (the namespaces' route, router.sh cc), bbr on the h2cbbr row;
# QUIC (h3): ngtcp2's cubic on both ends (--cc=cubic).
set -u
EXP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$EXP_ROOT" || exit 1
HERE=$EXP_ROOT/test/experiments/06-multiplexing
. test/nginx.sh
R=$EXP_ROOT/test/lab/router.sh
F=$EXP_ROOT/test/lab/fidelity.py
PY=/usr/bin/python3
HL=$EXP_ROOT/httpload/httpload
HTTPD=$EXP_ROOT/sctphttpd
OUT=${EXP_OUT:-$EXP_ROOT/out/experiments/06-labv2}
CELLS="10mbit:10:1"
REPS=1
REANALYSE=
FINISH=
TUNE=(--rto-min 200 --sctp-init-cwnd 10 --sctp-sack-delay 40)
MODE=quick
ROWS="tcp1 h2c h2cbbr h3 usrsctpnt100 usrsctp100"
while [ $# -gt 0 ]; do
	case "$1" in
	--out) OUT=$2; shift 2 ;;
	--cells) CELLS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--rows) ROWS=$2; shift 2 ;;
	--reanalyse) REANALYSE=$2; shift 2 ;;
	--finish) FINISH=$2; shift 2 ;;
	--mode) MODE=$2; shift 2 ;;
	*) echo "usage: $0 [--out DIR] [--cells \"RATE:DELAY:LOSS ...\"] [--reps N] [--rows \"...\"] [--mode quick|full] | --reanalyse DIR" >&2; exit 2 ;;
	esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "labv2.sh: bad --reps '$REPS'" >&2; exit 2; }
case $MODE in quick | full) ;; *) echo "labv2.sh: bad --mode '$MODE' (quick or full)" >&2; exit 2 ;; esac
for c in $CELLS; do
	[[ $c =~ ^[0-9.]+[kmg]?bit:[0-9.]+:[0-9.]+(:ge=[0-9.]+)?(:q=[0-9.]+bdp)?$ ]] ||
		{ echo "labv2.sh: bad cell '$c' (RATE:DELAY_MS:LOSS_PCT[:ge=N][:q=Nbdp])" >&2; exit 2; }
done
for r in $ROWS; do
	case $r in tcp1 | tcppipe | h2c | h2cbbr | h2tls | h3 | usrsctp100 | usrsctpnt100 | usrsctp100tuned | usrsctpnt100tuned | usrsctpnt100tls) ;;
	*) echo "labv2.sh: unknown row '$r'" >&2; exit 2 ;; esac
done
# analyse: results.csv and report.md from the run's files alone (samples.csv, unshaped.csv,
# fidelity.txt, bound.txt): what --reanalyse DIR does again without measuring
analyse() {
	local d t=$OUT/.an st=0
	mkdir -p "$t" || return 1
	# summarize.py per delay, each with the unshaped rates measured at that delay
	for d in $(awk -F, 'NR > 1 { print $2 }' "$OUT/samples.csv" | sort -un); do
		awk -F, -v d="$d" 'NR == 1 || $2 == d' "$OUT/samples.csv" >"$t/s.$d"
		awk -F, -v d="$d" 'NR == 1 || $2 == d' "$OUT/unshaped.csv" >"$t/u.$d"
		$PY "$HERE/summarize.py" "$t/s.$d" "$t/u.$d" "$t/r.$d" || st=1
	done
	# one header; csv's \r\n line ends to \n (awk reads the last column)
	awk 'FNR > 1 || NR == 1 { sub(/\r$/, ""); print }' "$t"/r.* >"$OUT/results.csv" 2>/dev/null || st=1
	rm -rf "$t"
	# report.py's section (its tables, verdicts and sums, as the VM lab's), told what params.txt says
	local mode rows reps secs commit
	mode=$(sed -n 's/^mode: \([a-z]*\).*/\1/p' "$OUT/params.txt")
	rows=$(sed -n 's/^cells: .*, rows: \(.*\), [0-9]* run(s) a cell.*/\1/p' "$OUT/params.txt")
	reps=$(sed -n 's/^cells: .*, \([0-9]*\) run(s) a cell.*/\1/p' "$OUT/params.txt")
	secs=$(sed -n 's/^run time: \([0-9]*\) s.*/\1/p' "$OUT/params.txt")
	commit=$(sed -n 's/^git: \([^ ]*\).*/\1/p' "$OUT/params.txt")
	[ -n "$rows" ] || rows=$(awk -F, 'NR > 1 && !s[$5]++ { printf "%s ", $5 }' "$OUT/samples.csv")
	[ -n "$reps" ] || reps=$(awk -F, 'NR > 1 && $6 > m { m = $6 } END { print m + 0 }' "$OUT/samples.csv")
	# a full run of fewer cells than the grid (grid.txt; EXP06_CELLS) names those it did not measure
	local subset="" missing c
	if [ "${mode:-quick}" = full ]; then
		missing=
		for c in $(grep -v '^#' "$HERE/grid.txt"); do
			case " $CELLS " in *" $c "*) ;; *) missing="$missing $c" ;; esac
		done
		[ -z "$missing" ] || subset="$(echo $CELLS | wc -w) of the $(grep -vc '^#' "$HERE/grid.txt") cells of the grid (test/experiments/06-multiplexing/grid.txt); not measured:$missing"
	fi
	{
		$PY "$HERE/report.py" "$OUT/results.csv" "$OUT/unshaped.csv" "$OUT/page.sizes" 06-multiplexing \
			"$([ "${mode:-quick}" = full ] && echo 0 || echo 1)" "$reps" "${secs:-?}" "on this host (lab v2)" \
			"$CELLS" "$rows" "$subset" "${commit:-unknown}" v2 || st=1
		# a figure a link and delay: every row's time by cell, with its interval (figure.py,
		# gnuplot: .png and .svg beside report.md, copied to docs/results/ by test/experiments/run)
		rm -f "$OUT"/06-multiplexing-*mbit-*ms.{dat,gp,png,svg}
		local figs g
		figs=$($PY "$HERE/figure.py" "$OUT/results.csv" "$OUT" 06-multiplexing) || st=1
		for g in "$OUT"/06-multiplexing-*mbit-*ms.gp; do
			[ -e "$g" ] || continue
			g=$(basename "$g" .gp)
			(cd "$OUT" && gnuplot -e "set terminal pngcairo size 1100,560 font 'Sans,10'; set output '$g.png'" "$g.gp" &&
				gnuplot -e "set terminal svg size 1100,560 font 'Sans,10' dynamic; set output '$g.svg'" "$g.gp") || st=1
		done
		[ -z "$figs" ] || { echo; echo "$figs" | awk 'NR > 1 { print "" } { print }'; }
		echo
		echo "### Lab v2: every cell and row, the router's checks, loss recovery"
		echo
		if grep -q '^interrupted: ' "$OUT/params.txt"; then
			echo "**An interrupted run**: $(sed -n 's/^interrupted: //p' "$OUT/params.txt")."
			echo
		fi
		echo "$(sed -n 3p "$OUT/params.txt")"
		echo
		echo "| cell | row | time s (95 % CI) | p50 / p99 ms | wire KB | unshaped Mbit/s |"
		echo "|---|---|---|---|---|---|"
		awk -F, 'NR == FNR { if (FNR > 1 && !u[$1 "," $2]) u[$1 "," $2] = $5; next }
			FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ m = ("loss_model" in c && $c["loss_model"] != "random") ? " " $c["loss_model"] : ""
		  m = m (("queue" in c && $c["queue"] != "1bdp" && $c["queue"] != "") ? " q " $c["queue"] : "")
		  printf "| %s Mbit/s %s ms %s %%%s | %s | %s (%s-%s) | %s / %s | %.0f | %s |\n", $c["link_mbit"], $c["one_way_delay_ms"],
			  $c["loss_pct"], m, $c["row"], $c["time_s"], $c["time_ci_lo_s"], $c["time_ci_hi_s"], $c["lat_p50_ms"],
			  $c["lat_p99_ms"], $c["wire_bytes"] / 1000, u[$c["row"] "," $c["one_way_delay_ms"]] }' "$OUT/unshaped.csv" "$OUT/results.csv"
		echo
		echo "Loss recovery, server side (the page's sender), the median of each cell's runs: retransmitted segments or DATA chunks / retransmission timeouts (TCP's RTO, SCTP's T3-rtx; QUIC's PTOs) / fast retransmits / tail loss probes (TCP; SCTP has none); h3: packets declared lost / PTOs (gtlsserver's qlog)"
		echo
		echo "| cell | row | runs | retrans / timeouts / fast / TLP |"
		echo "|---|---|---|---|"
		$PY - "$OUT/samples.csv" <<'PYEOF' || st=1
import csv, statistics, sys
cols = ("srv_retrans", "srv_timeouts", "srv_fast_retrans", "srv_tlp")
got, order = {}, []
for r in csv.DictReader(open(sys.argv[1])):
    m = r.get("loss_model") or "random"
    q = r.get("queue") or ""
    k = "%s Mbit/s %s ms %s %%%s%s | %s" % (r["link_mbit"], r["one_way_delay_ms"], r["loss_pct"],
                                          "" if m == "random" else " " + m,
                                          " q " + q if q not in ("", "1bdp") else "", r["row"])
    if k not in got:
        got[k] = []
        order.append(k)
    got[k].append([r.get(c, "-") for c in cols] + [r.get("time_s", "-")])
def med(k, i):
    v = [float(x[i]) for x in got[k] if x[i] not in ("", "-")]
    return "%g" % statistics.median(v) if v else "-"
for k in order:
    print("| %s | %d | %s |" % (k, len(got[k]), " / ".join(med(k, i) for i in range(len(cols)))))
# the tuned SCTP rows beside their untuned twins, cell by cell: what RTO min 200 ms, an initial
# window of 10 and a 40 ms delayed SACK changed, in time and in T3-rtx timeouts (medians)
said = []
for k in order:
    cell, row = k.split(" | ")
    if row.endswith("tuned") and cell + " | " + row[:-5] in got:
        u = cell + " | " + row[:-5]
        said.append("%s, %s: %s s and %s T3-rtx tuned, %s s and %s untuned" % (
            cell, row[:-5], med(k, 4), med(k, 1), med(u, 4), med(u, 1)))
if said:
    print()
    print("Tuned against untuned SCTP (medians of the time to fetch the page and of the server's "
          "T3-rtx timeouts): " + "; ".join(said) + ".")
# encryption per page: each TLS row against its clear twin, cell by cell (medians), and the
# handshakes it made (samples.csv's tls_* and connect_ms; older runs have none)
rows = list(csv.DictReader(open(sys.argv[1])))
def tmed(k, col):
    v = [float(r[col]) for r in rows if r.get(col) not in (None, "", "-") and cellrow(r) == k]
    return statistics.median(v) if v else None
def cellrow(r):
    m = r.get("loss_model") or "random"
    q = r.get("queue") or ""
    return "%s Mbit/s %s ms %s %%%s%s | %s" % (r["link_mbit"], r["one_way_delay_ms"], r["loss_pct"],
                                             "" if m == "random" else " " + m,
                                             " q " + q if q not in ("", "1bdp") else "", r["row"])
enc = []
for k in order:
    cell, row = k.split(" | ")
    twin = {"usrsctpnt100tls": "usrsctpnt100", "h2tls": "h2c"}.get(row)
    if not twin or cell + " | " + twin not in got:
        continue
    a, b = tmed(k, "time_s"), tmed(cell + " | " + twin, "time_s")
    h, res, hs, con = (tmed(k, c) for c in ("tls_handshakes", "tls_resumed", "tls_hs_mean_ms", "connect_ms"))
    if row == "h2tls":
        how = "one handshake before the first request, TCP and TLS %s ms" % ("%.1f" % con if con is not None else "-")
    else:
        how = "%s handshakes (%s resumed), mean %s ms, inside the page; association set-up %s ms" % (
            "%g" % h if h is not None else "-", "%g" % res if res is not None else "-",
            "%.1f" % hs if hs is not None else "-", "%.1f" % con if con is not None else "-")
    enc.append("%s, %s: %.3f s against %.3f s in clear (%+.3f s; %s)" % (cell, row, a, b, a - b, how))
if enc:
    print()
    print("Encryption per page (medians of each cell's runs, the TLS row against its clear twin): "
          + "; ".join(enc) + ".")
PYEOF
		echo
		# (a row under 3x in more than one measurement at the delay named once)
		echo "Bound: $(awk '{ k = index($0, "(under 3x the link:"); if (!k) { print; next }
			head = substr($0, 1, k + 18); rest = substr($0, k + 19); sub(/\)$/, "", rest)
			n = split(rest, w, " "); o = ""; delete s
			for (i = 1; i <= n; i++) if (!(w[i] in s)) { s[w[i]] = 1; o = o " " w[i] }
			print head o ")" }' "$OUT/bound.txt" 2>/dev/null | tr '\n' ';' || echo "not recorded")"
		echo
		echo "Fidelity (per cell and direction):"
		echo
		awk '$1 == "#" && $2 == "fidelity" && ($4 ~ /^dir=/ || $4 ~ /^router_cpu/)' "$OUT/fidelity.txt" | sed 's/^# /- /'
		echo
		# each row's runs of a cell added up (where the run took the router's counters after
		# every run): the loss each protocol saw, per direction
		if grep -q '^# fidelity [^ ]* [^ =]* dir=' "$OUT/fidelity.txt"; then
			echo "Each row's own loss (its runs of the cell added up; effective % of its packets, and whether within the interval), and the packets the queue (tbf, one BDP unless said) dropped, congestion's losses beside netem's:"
			echo
			echo "| cell | row | c2s | s2c | queue drops c2s / s2c |"
			echo "|---|---|---|---|---|"
			awk '$1 == "#" && $2 == "fidelity" && $5 ~ /^dir=/ {
				for (i = 5; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				k = $3 " | " $4
				if (!(k in seen)) { seen[k] = 1; order[++n] = k }
				cellv[k, v["dir"]] = sprintf("%.3f %% of %d (%s)", v["effective_loss_pct"], v["packets"],
					(v["aggregation"] == "ok" && v["loss"] != "FAIL") ? (v["loss"] == "n/a" ? "not judged" : "ok") : "FAIL")
				qd[k, v["dir"]] = v["queue_drops"] }
				END { for (i = 1; i <= n; i++) printf "| %s | %s | %s | %s / %s |\n", order[i], cellv[order[i], "c2s"],
					cellv[order[i], "s2c"], qd[order[i], "c2s"], qd[order[i], "s2c"] }' \
				"$OUT/fidelity.txt"
			echo
		fi
		echo "Kernel SCTP rows are not on lab v2 yet (their endpoints need a kernel with SCTP: a VM on the router, next step; \`make experiments-06vm\` measures them in the VM lab)."
	} >"$OUT/report.md.tmp" && mv "$OUT/report.md.tmp" "$OUT/report.md"
	return $st
}

# provenance: what a full run commits (test/experiments/run copies it to docs/results/06/):
# the CSVs, params.txt, the router's counters (the runs' own packed), every request's latency
# from each client's own log, a line each, gzipped
provenance() {
	local P=$OUT/provenance f b
	rm -rf "$P"
	mkdir -p "$P/raw" &&
		cp "$OUT"/{samples,results,unshaped}.csv "$OUT"/{fidelity,bound,params}.txt "$OUT/page.sizes" "$P/" &&
		cp "$OUT"/raw/*.stats[01] "$P/raw/" &&
		{ ! ls "$OUT"/raw/*.order >/dev/null 2>&1 ||
			(cd "$OUT/raw" && tar -czf "$P/raw/runstats.tar.gz" --sort=name --owner=0 --group=0 --mtime=@0 *.order *-page-*.stats); } &&
		for f in "$OUT"/raw/*.lat; do
			b=$(basename "$f" .lat)
			awk -v c="${b%%-page-*}" -v r="${b#*-page-}" '{ n = split(r, x, "-"); printf "%s,%s,%s,%d,%s\n", c, x[1], x[n], NR, $1 }' "$f"
		done | { echo "cell,row,rep,request,latency_ms"; cat; } | gzip -9n >"$P/raw/requests.csv.gz"
}

# cell_parse CELL: rate, delay, loss, ge (0: random loss) and q (the queue) of a cell
cell_parse() {
	local x1 x2 x
	IFS=: read -r rate delay loss x1 x2 <<<"$1"
	ge=0 q=1bdp
	for x in $x1 $x2; do
		case $x in ge=*) ge=${x#ge=} ;; q=*) q=${x#q=} ;; esac
	done
}
# the run's judged loss checks (fidelity.py --family: each judged at 1 - 1 %/M, so that a run
# of many cells fails by chance at most 1 % of the time): two a cell with loss, the cell's
# and, where the run took a snapshot after every run (DIR/raw/CELL.order), two more a row
family() { # family DIR
	local c n=0 per
	for c in $CELLS; do
		cell_parse "$c"
		per=2
		if [ -z "$REANALYSE" ]; then # measuring: every cell will have its rows' snapshots
			per=$((2 + 2 * $(echo $ROWS | wc -w)))
		elif [ -s "$1/raw/${c//:/_}.order" ]; then
			per=$((2 + 2 * $(cut -d' ' -f1 "$1/raw/${c//:/_}.order" | sort -u | wc -l)))
		fi
		awk -v l="$loss" 'BEGIN { exit !(l > 0) }' && n=$((n + per))
	done
	echo $((n > 0 ? n : 1))
}
# fid LABEL ARGS...: fidelity.py ARGS; counters it cannot read (exit 2: a snapshot missing or
# cut short) are a failed check of their own, not a message lost among the TAP lines
fid() {
	local label=$1 out rc
	shift
	out=$("$F" "$@" 2>&1)
	rc=$?
	[ -z "$out" ] || echo "$out"
	[ $rc != 2 ] || echo "not ok - $label: the router's counters could not be judged: $(echo "$out" | tail -n 1)"
	return $rc
}
# judge CELL DIR: fidelity.py on the cell's two snapshots of the router's counters (DIR/raw/),
# then, where the run snapshot them after each run (DIR/raw/CELL.order: "ROW REP FILE" in the
# order run, each run between the snapshot before it and its own), each row's runs added up:
# every row saw the nominal loss per packet, not only the cell as a whole; TAP to stdout, the
# status returned
judge() {
	local c=$1 d=$2 st=0 prev row rep f pairs r fam
	fam=$(family "$d")
	cell_parse "$c"
	fid "$c" "$d/raw/${c//:/_}.stats0" "$d/raw/${c//:/_}.stats1" --loss "$loss" --ge-burst "$ge" --label "$c" \
		--family "$fam" || st=1
	[ -s "$d/raw/${c//:/_}.order" ] || return $st
	for r in $(cut -d' ' -f1 "$d/raw/${c//:/_}.order" | awk '!s[$1]++'); do
		prev=$d/raw/${c//:/_}.stats0 pairs=()
		while read -r row rep f; do
			[ "$row" = "$r" ] && pairs+=("$prev" "$d/raw/$f")
			prev=$d/raw/$f
		done <"$d/raw/${c//:/_}.order"
		fid "$c $r" "${pairs[@]}" --loss "$loss" --ge-burst "$ge" --label "$c $r" --family "$fam" --loss-only || st=1
	done
	return $st
}
n_tap=0 failed=0
check() { # check STATUS TEXT
	n_tap=$((n_tap + 1))
	if [ "$1" = 0 ]; then echo "ok $n_tap - $2"; else echo "not ok $n_tap - $2"; failed=$((failed + 1)); fi
}
# rejudge: fidelity.txt made again by judge for every cell of $CELLS, and bound.txt's
# fidelity-failed marks with it (the counters are data, their judgement analysis)
rejudge() {
	local c
	: >"$OUT/fidelity.txt.new" && { grep -v ' fidelity-failed$' "$OUT/bound.txt" 2>/dev/null; true; } >"$OUT/bound.txt.new"
	for c in $CELLS; do
		judge "$c" "$OUT" >>"$OUT/fidelity.txt.new" || echo "$c fidelity-failed" >>"$OUT/bound.txt.new"
	done
	mv "$OUT/fidelity.txt.new" "$OUT/fidelity.txt" && mv "$OUT/bound.txt.new" "$OUT/bound.txt"
}
# incomplete_runs: the runs of samples.csv that did not answer all their requests, "" if none
incomplete_runs() {
	awk -F, 'NR > 1 && $8 != $7 { printf "%s%s/%s/%s: %s of %s", (n++ ? "; " : ""), $1 "mbit" $2 "ms" $3 "%", $5, $6, $8, $7 }' "$OUT/samples.csv"
}
# replay: the router's checks of fidelity.txt as TAP lines of this run (a failed one fails it)
replay() {
	local l
	while IFS= read -r l; do
		case "$l" in "ok - "*) check 0 "${l#ok - }" ;; "not ok - "*) check 1 "${l#not ok - }" ;; esac
	done <"$OUT/fidelity.txt"
}
if [ -n "$FINISH" ]; then
	# a full run stopped mid-way: its finished cells are the ones whose bound line the run
	# wrote (after each cell's closing snapshot); the others' samples and raw files dropped
	OUT=$(cd "$FINISH" 2>/dev/null && pwd) || { echo "not ok - --finish $FINISH: no such folder"; exit 1; }
	for f in samples.csv unshaped.csv page.sizes bound.txt; do
		[ -s "$OUT/$f" ] || { echo "not ok - --finish $OUT: no $f (no cell finished)"; exit 1; }
	done
	[ ! -s "$OUT/params.txt" ] || { echo "not ok - --finish $OUT: it has params.txt (a run that finished: --reanalyse it)"; exit 1; }
	PLANNED=$CELLS
	CELLS=$(awk '$2 != "fidelity-failed" && !s[$1]++ { printf "%s ", $1 }' "$OUT/bound.txt")
	CELLS=${CELLS% }
	for c in $CELLS; do [ -s "$OUT/raw/${c//:/_}.stats1" ] || { echo "not ok - --finish: $c has a bound line but no closing snapshot"; exit 1; }; done
	keep=$(for c in $CELLS; do cell_parse "$c"; echo "${rate%mbit},$delay,$loss,$([ "$ge" = 0 ] && echo random || echo "ge$ge"),$q"; done)
	awk -F, -v keep="$keep" 'BEGIN { n = split(keep, k, "\n"); for (i = 1; i <= n; i++) want[k[i]] = 1 }
		NR == 1 { print; for (i = 1; i <= NF; i++) c[$i] = i; next }
		($1 "," $2 "," $3 "," $c["loss_model"] "," $c["queue"]) in want' "$OUT/samples.csv" >"$OUT/samples.csv.new" || exit 1
	dropped=$(($(wc -l <"$OUT/samples.csv") - $(wc -l <"$OUT/samples.csv.new")))
	mv "$OUT/samples.csv.new" "$OUT/samples.csv"
	unfinished=
	for c in $PLANNED; do case " $CELLS " in *" $c "*) ;; *) unfinished="$unfinished $c" ;; esac; done
	# the raw files of a cell begun and not finished (those measured at a delay no finished
	# cell has, the unshaped runs, stay: they are what they are)
	for f in "$OUT"/raw/*; do
		b=$(basename "$f")
		case $b in 0_*) continue ;; esac
		c=${b%%-page-*}
		c=${c%.order}
		c=${c%.stats0}
		c=${c%.stats1}
		case " ${CELLS//:/_} " in *" $c "*) ;; *) rm -f "$f" ;; esac
	done
	first=${CELLS%% *}
	rows=$(cut -d' ' -f1 "$OUT/raw/${first//:/_}.order" 2>/dev/null | awk '!s[$1]++')
	[ -n "$rows" ] || rows=$(awk -F, 'NR > 1 && !s[$5]++ { print $5 }' "$OUT/samples.csv")
	rows=$(echo $rows)
	reps=$(awk -F, 'NR > 1 && $6 > m { m = $6 } END { print m + 0 }' "$OUT/samples.csv")
	ROWS=$rows
	t0=$(stat -c %Y "$OUT/page.sizes") t1=$t0
	for c in $CELLS; do t=$(stat -c %Y "$OUT/raw/${c//:/_}.stats1"); [ "$t" -le "$t1" ] || t1=$t; done
	{
		echo "experiment 06 on lab v2 (issue 38, first step): $(date -u -d "@$t1" '+%Y-%m-%d %H:%M UTC')"
		echo "git: $(git -C "$OUT" -c safe.directory='*' rev-parse --short HEAD 2>/dev/null || echo unknown) (the tree the run's folder is in)"
		echo "cells: $CELLS (rate:one-way delay ms:loss % each way, random unless ge=mean burst (Gilbert); queue (tbf) q= BDPs, 1 unless said), rows: ${rows}, $reps run(s) a cell, interleaved"
		echo "interrupted: stopped in its cell $(echo $CELLS | wc -w | awk '{ print $1 + 1 }'); made a run of its $(echo $CELLS | wc -w) finished cells by labv2.sh --finish on $(date -u '+%Y-%m-%d %H:%M UTC') ($dropped runs of the unfinished cells dropped)${unfinished:+; planned and not finished:$unfinished}"
		echo "topology: client ns - TAP (vnet_hdr=off) - router VM (TCG, 1 vCPU, bridge, netem + tbf per direction, guest GRO off) - TAP - server ns (the run's names went with it)"
		echo "host: $(uname -r), $(nproc) CPUs (at --finish); router kernel: not read (the router was gone)"
		echo "router NICs (after the first cell): $(grep '^nic' "$OUT/raw/${first//:/_}.stats1" 2>/dev/null | tr '\n' ';')"
		echo "congestion control: TCP rows cubic on the namespaces' route (ip route congctl; host default $(cat /proc/sys/net/ipv4/tcp_congestion_control)), h2cbbr bbr; h3: ngtcp2's cubic (--cc=cubic, both ends); usrsctp: its standard (RFC 4960) control"
		echo "tuned SCTP rows (${TUNE[*]} on both ends): the values the servers held were not read back (the run was stopped)"
		echo "completion time: first request's start to last response's end, from each client's own per-request log (httpload --log, h2load --log-file; gtlsclient: its submit and close lines stamped as they come)"
		echo "versions: nginx $(nginx -v 2>&1 | sed 's/.*\///'), $(h2load --version 2>&1 | head -1), $(dpkg-query -W -f '${Package} ${Version}\n' 'libusrsctp*' 2>/dev/null | head -n1), $(dpkg-query -W -f '${Package} ${Version}' ngtcp2-client 2>/dev/null), qemu $(qemu-system-x86_64 --version | head -1 | awk '{ print $4 }') (at --finish)"
		echo "router checks: see fidelity.txt; cells: $(grep -v ' fidelity-failed$' "$OUT/bound.txt" | awk -v keep=" $CELLS " 'index(keep, " " $1 " ")' | tr '\n' ';')"
		echo "run time: $((t1 - t0)) s"
		echo "mode: full"
	} >"$OUT/params.txt"
	awk -v keep=" $CELLS " 'index(keep, " " $1 " ")' "$OUT/bound.txt" >"$OUT/bound.txt.new" && mv "$OUT/bound.txt.new" "$OUT/bound.txt"
	rejudge
	check 0 "finished cells: $CELLS ($dropped runs of unfinished cells dropped)"
	replay
	bad=$(incomplete_runs)
	[ -z "$bad" ]
	check $? "every run of the finished cells answered all its requests${bad:+: $bad}"
	analyse
	check $? "summarize.py and report.py: medians and bootstrap intervals (results.csv), report.md"
	provenance
	check $? "provenance/: the CSVs, params.txt, the router's counters and every request's latency (raw/requests.csv.gz)"
	echo "06-multiplexing|full|native|$(date -u -d "@$t1" '+%Y-%m-%d %H:%M UTC')|$((t1 - t0))|$((n_tap - failed))|$failed" >"$OUT/run.meta"
	echo "1..$n_tap"
	[ $failed = 0 ]
	exit
fi
if [ -n "$REANALYSE" ]; then
	OUT=$REANALYSE
	for f in samples.csv unshaped.csv fidelity.txt bound.txt params.txt page.sizes; do
		[ -s "$OUT/$f" ] || [ $f = bound.txt ] || { echo "not ok - --reanalyse $OUT: no $f (not a finished run)"; exit 1; }
	done
	CELLS=$(sed -n 's/^cells: \([^(]*\) (rate.*/\1/p' "$OUT/params.txt")
	# the router's counters after each run, packed in a committed run (provenance/)
	if [ -s "$OUT/raw/runstats.tar.gz" ] && ! ls "$OUT"/raw/*.order >/dev/null 2>&1; then
		tar -xzf "$OUT/raw/runstats.tar.gz" -C "$OUT/raw" || { echo "not ok - $OUT/raw/runstats.tar.gz: cannot unpack"; exit 1; }
	fi
	# the router's counters are data, their judgement analysis: judged again with this
	# fidelity.py where the run left its snapshots (fidelity.txt and bound.txt's fidelity-failed
	# marks rewritten), else as judged then
	have=1
	for c in $CELLS; do [ -s "$OUT/raw/${c//:/_}.stats0" ] && [ -s "$OUT/raw/${c//:/_}.stats1" ] || have=0; done
	if [ $have = 1 ]; then
		rejudge
		check $? "the router's counters judged again from $OUT/raw/ (fidelity.py, $(family "$OUT") loss checks in the run)"
	fi
	analyse
	check $? "reanalysed $OUT: results.csv and report.md from its own files"
	# the router's checks as judged then
	replay
	echo "1..$n_tap"
	[ $failed = 0 ]
	exit
fi
for t in "$HL" "$HTTPD"; do [ -x "$t" ] || { echo "not ok - $t not built"; exit 1; }; done
for t in nginx h2load gtlsserver gtlsclient openssl $PY; do command -v "$t" >/dev/null || { echo "not ok - $t missing (scripts/setup.sh)"; exit 1; }; done

# its own files only: test/experiments/run keeps its run.log in the same folder
rm -rf "$OUT/raw" "$OUT/provenance" "$OUT"/{samples,results,unshaped}.csv "$OUT"/{fidelity,bound,params}.txt \
	"$OUT/report.md" "$OUT/page.sizes" && mkdir -p "$OUT/raw" || exit 1
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d /tmp/exp06v2.XXXXXX)
chmod 755 "$work"
RD=$work/router
pids=()
teardown() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -f "$RD/env" ] && "$R" down "$RD" >/dev/null 2>&1
	rm -rf "$work"
}
trap teardown EXIT
trap 'exit 130' INT TERM HUP

mkdir -p "$work/www" && chmod 755 "$work/www"
$PY "$HERE/objects.py" "$work/www" "$work" || { echo "not ok - objects.py failed"; exit 1; }
tr '\n' '\0' <"$work/workload.page" >"$work/wlog.page"
cp "$work/page.sizes" "$OUT/page.sizes" || exit 1
n_req=$(wc -l <"$work/workload.page")
page_bytes=$(awk '{ s += $2 } END { print s }' "$work/page.sizes")

t_start=$(date +%s)
"$R" up "$RD" --owner $$ >"$work/up.out" 2>&1
check $? "router up (lab v2: TCG VM bridging the client and server namespaces)" || true
[ -f "$RD/env" ] || { sed 's/^/# /' "$work/up.out"; exit 1; }
. "$RD/env"
C=$ROUTER_NS_C S=$ROUTER_NS_S IP=$ROUTER_IP_S
PORT=8080 PORTNT=8082 H2C=8443 H3=4433 U_S=9899 U_C=9898 U_SNT=9897 U_CNT=9896
PORTT=8084 PORTNTT=8086 U_ST=9895 U_CT=9894 U_SNTT=9893 U_CNTT=9892
H2S=8444 PORTNTS=8088 U_SNTS=9891 U_CNTS=9890
# one certificate for every encrypted row (h2 over TLS, HTTP/3, TLS over usrsctp-nt), for the
# server's address: the clients that verify (httpload --ssl) check it against the CA, itself
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=b \
	-addext "subjectAltName=IP:$IP" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null || { echo "not ok - openssl could not make a certificate"; exit 1; }

nginx_conf "$work/ng" "default_type application/octet-stream;" "sendfile on;" \
	"keepalive_requests 10000;" "http2_max_concurrent_streams 128;" \
	"server { listen $IP:$H2C http2; root $work/www; }" \
	"server { listen $IP:$H2S ssl http2; root $work/www; ssl_protocols TLSv1.3; ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem; }"
bg() { # bg LOG NS CMD...: in the background (stdout and stderr to $work/LOG), killed at the end
	local log=$work/$1
	shift
	ip netns exec "$@" </dev/null >>"$log" 2>&1 &
	pids+=($!)
}
bg httpd.log "$S" "$HTTPD" -d "$work/www" -h "$IP" -p $PORT -L "usrsctp:$IP:$PORT" --udp-port $U_S \
	--udp-remote-port $U_C --sctp-streams 100 --idle-timeout 60
pid_httpd=${pids[-1]}
bg httpd-nt.log "$S" "$HTTPD" -d "$work/www" -p 0 -h "$IP" -L "usrsctp-nt:$IP:$PORTNT" --udp-port $U_SNT \
	--sctp-streams 100 --idle-timeout 60
pid_nt=${pids[-1]}
pid_httpdt= pid_ntt=
case " $ROWS " in *" usrsctp100tuned "*)
	bg httpd-t.log "$S" "$HTTPD" -d "$work/www" -p 0 -h "$IP" -L "usrsctp:$IP:$PORTT" --udp-port $U_ST \
		--udp-remote-port $U_CT --sctp-streams 100 --idle-timeout 60 "${TUNE[@]}"
	pid_httpdt=${pids[-1]} ;;
esac
case " $ROWS " in *" usrsctpnt100tuned "*)
	bg httpd-ntt.log "$S" "$HTTPD" -d "$work/www" -p 0 -h "$IP" -L "usrsctp-nt:$IP:$PORTNTT" --udp-port $U_SNTT \
		--sctp-streams 100 --idle-timeout 60 "${TUNE[@]}"
	pid_ntt=${pids[-1]} ;;
esac
pid_nts=
case " $ROWS " in *" usrsctpnt100tls "*)
	bg httpd-nts.log "$S" "$HTTPD" -d "$work/www" -p 0 -h "$IP" -L "usrsctp-nt:$IP:$PORTNTS" --udp-port $U_SNTS \
		--sctp-streams 100 --idle-timeout 60 --tls-cert "$work/cert.pem" --tls-key "$work/key.pem"
	pid_nts=${pids[-1]} ;;
esac
bg nginx.log "$S" nginx -c "$work/ng/nginx.conf" -p "$work/ng"
pid_nginx=${pids[-1]}
mkdir -p "$work/qlog"
bg h3.log "$S" gtlsserver -q --cc=cubic --qlog-dir="$work/qlog" -d "$work/www" "$IP" $H3 "$work/key.pem" "$work/cert.pem"
pid_h3=${pids[-1]}
one=$(head -1 "$work/workload.page")
up=1
for _ in $(seq 100); do
	ip netns exec "$C" "$HL" --server "$IP" --port $PORT --uri "$one" --timeout 5 >/dev/null 2>&1 &&
		ip netns exec "$C" h2load -n 1 "http://$IP:$H2C$one" 2>&1 | grep -q '1 succeeded' &&
		ip netns exec "$C" h2load -n 1 "https://$IP:$H2S$one" 2>&1 | grep -q '1 succeeded' && { up=0; break; }
	sleep 0.2
done
# the tuned servers: listening (their options taken)
for l in ${pid_httpdt:+httpd-t.log} ${pid_ntt:+httpd-ntt.log} ${pid_nts:+httpd-nts.log}; do
	for _ in $(seq 50); do grep -q 'listening on usrsctp' "$work/$l" && break; sleep 0.2; done
	grep -q 'listening on usrsctp' "$work/$l" || up=1
done
check $up "sctphttpd (TCP, usrsctp, usrsctp-nt, tuned and TLS ones where asked) and nginx (h2c, h2 over TLS) answer in the server namespace"
[ $up = 0 ] || { cat "$work"/*.log | sed 's/^/# /'; exit 1; }

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# recovery ROW: the server side's loss-recovery counters now, "RETRANS TIMEOUTS FAST_RETRANS
# TLP" (absolute; the sender of the page is the server). TCP rows: the server namespace's own
# SNMP counters (nstat: TcpRetransSegs, TcpExtTCPTimeouts, TcpExtTCPFastRetrans,
# TcpExtTCPLossProbes). usrsctp rows: that sctphttpd's stack (SIGUSR2: sendretransdata,
# timodata (T3-rtx), sendfastretrans; no TLP in SCTP: "-").
recovery() {
	local pid log n j line
	case $1 in
	h3) # the server's qlog (every connection so far): packets declared lost (each one's data
		# is sent again), probe timeouts (PTO) started
		cat "$work"/qlog/* 2>/dev/null | awk '/packet_lost/ { l++ } /"pto_count":[1-9]/ { p++ }
			END { printf "%d %d - -\n", l, p }'
		return ;;
	usrsctpnt*tuned) pid=$pid_ntt log=$work/httpd-ntt.log ;;
	usrsctpnt*tls) pid=$pid_nts log=$work/httpd-nts.log ;;
	usrsctp*tuned) pid=$pid_httpdt log=$work/httpd-t.log ;;
	usrsctpnt*) pid=$pid_nt log=$work/httpd-nt.log ;;
	usrsctp*) pid=$pid_httpd log=$work/httpd.log ;;
	*)
		ip netns exec "$S" nstat -asz TcpRetransSegs TcpExtTCPTimeouts TcpExtTCPFastRetrans TcpExtTCPLossProbes 2>/dev/null |
			awk '{ v[$1] = $2 } END { printf "%d %d %d %d\n", v["TcpRetransSegs"], v["TcpExtTCPTimeouts"],
				v["TcpExtTCPFastRetrans"], v["TcpExtTCPLossProbes"] }'
		return
		;;
	esac
	n=$(grep -c 'transport counters:' "$log")
	kill -USR2 "$pid" 2>/dev/null
	for j in $(seq 1 50); do
		[ "$(grep -c 'transport counters:' "$log")" -gt "$n" ] && break
		sleep 0.1
	done
	line=$(grep 'transport counters:' "$log" | tail -n 1)
	[ "$(grep -c 'transport counters:' "$log")" -gt "$n" ] || { echo "- - - -"; return; }
	echo "$line" | awk '{ for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) v[kv[1]] = kv[2] }
		END { printf "%d %d %d -\n", v["sendretransdata"], v["timodata"], v["sendfastretrans"] }'
}
wire_bytes() { # rx + tx bytes of the client's interface (both ways, headers and handshakes)
	ip netns exec "$C" cat /sys/class/net/eth0/statistics/rx_bytes /sys/class/net/eth0/statistics/tx_bytes |
		awk '{ s += $1 } END { print s + 0 }'
}
HZ=$(getconf CLK_TCK)

# run CELL ROW REP: one fetch of the page; a samples.csv line on stdout. Time: first request's
# start to last response's end, from the client's own per-request log.
run() {
	local cell=$1 row=$2 rep=$3 base spid ok=0 proto=none secs=0 c0 c1 t0 t1 cc=cubic src tls="- - - -"
	local rate delay loss
	base=$OUT/raw/${cell//:/_}-page-$row-$rep
	mapfile -t uris <"$work/workload.page"
	case $row in h2c | h2cbbr | h2tls) spid=$pid_nginx ;; h3) spid=$pid_h3 ;; usrsctpnt*tuned) spid=$pid_ntt ;;
		usrsctpnt*tls) spid=$pid_nts ;;
		usrsctp*tuned) spid=$pid_httpdt ;; usrsctpnt*) spid=$pid_nt ;; *) spid=$pid_httpd ;; esac
	[ $row = h2cbbr ] && cc=bbr
	"$R" cc "$RD" $cc >/dev/null || echo "# cannot set congestion control $cc" >&2
	case $row in usrsctp*tuned) cc=sctp-standard-tuned ;; usrsctp*) cc=sctp-standard ;; h3) cc=quic-cubic ;; esac # their own, over UDP
	b0=$(wire_bytes)
	k0=$(recovery "$row")
	c0=$(cpu_ticks "$spid")
	t0=$EPOCHREALTIME
	case $row in
	h2c | h2cbbr | h2tls)
		src=h2load
		rm -f "$base.h2log"
		local url=http://$IP:$H2C want=h2c
		[ $row = h2tls ] && url=https://$IP:$H2S want=h2
		/usr/bin/time -f '%U %S' -o "$base.cpu" ip netns exec "$C" h2load -n "$n_req" -c 1 -m 100 \
			--log-file="$base.h2log" "${uris[@]/#/$url}" >"$base.out" 2>&1
		proto=$(sed -n 's/^Application protocol: //p' "$base.out" | head -1)
		ok=$(awk '/^requests:/ { for (i = 1; i < NF; i++) if ($(i+1) ~ /^succeeded/) print $i }' "$base.out")
		[ "$proto" = $want ] || ok=0
		# h2 over TLS: its one handshake precedes the first request (h2load's "time for
		# connect", TCP's and TLS's, its mean over the one connection): "1 0 - CONNECT_MS"
		[ $row = h2tls ] && tls=$(awk -f "$HERE/h2connect.awk" "$base.out")
		# start (us since the epoch), status, duration (us)
		secs=$(awk -F'\t' '$2 >= 200 && $2 < 300 { s = $1; e = $1 + $3; if (!n++ || s < lo) lo = s; if (e > hi) hi = e }
			END { printf "%.3f\n", n ? (hi - lo) / 1e6 : 0 }' "$base.h2log")
		awk -F'\t' '$2 >= 200 && $2 < 300 { printf "%.3f\n", $3 / 1000 }' "$base.h2log" >"$base.lat"
		;;
	h3)
		src=gtlsclient
		rm -rf "$work/dl" && mkdir -p "$work/dl"
		# debug output with packet and frame dumps off; each request's submit and its stream's
		# close stamped as they come; time: first submit to last close
		/usr/bin/time -f '%U %S' -o "$base.cpu" ip netns exec "$C" timeout 120 gtlsclient --cc=cubic --no-quic-dump --no-http-dump \
			--exit-on-all-streams-close --download="$work/dl" --max-streams-bidi=128 "$IP" $H3 \
			"${uris[@]/#/https://$IP:$H3}" 2>&1 >/dev/null |
			grep --line-buffered -E '^(http: stream 0x[0-9a-f]+ submit|HTTP stream [0-9]+ closed|Negotiated ALPN)' |
			while IFS= read -r l; do echo "$EPOCHREALTIME $l"; done >"$base.out"
		grep -q ' Negotiated ALPN is h3$' "$base.out" && proto=h3
		awk -v lat="$base.lat" -v t0="" -f "$HERE/h3log.awk" "$base.out" >"$base.sum"
		read -r ok secs <"$base.sum"
		# every body whole: the downloads against the manifest's sizes
		local bad
		bad=$( (cd "$work/dl" && stat -c '/%n %s' -- *) 2>/dev/null | awk -f "$HERE/bodies.awk" - "$work/manifest" "$work/workload.page")
		[ "$bad" = 0 ] || ok=0
		;;
	*)
		src=httpload
		local args=(--server "$IP" --port $PORT --wlog "n,$work/wlog.page" --timeout 120 --json
			--verify-manifest "$work/manifest" --log "$base.hlog")
		case $row in
		usrsctpnt*tuned) args+=(--proto usrsctp-nt --port $PORTNTT --streams "$(tr -dc 0-9 <<<"$row")" --udp-port $U_CNTT
			--udp-remote-port $U_SNTT --num-conns 1 --num-calls "$n_req" "${TUNE[@]}"); proto=sctp ;;
		usrsctpnt*tls) args+=(--proto usrsctp-nt --port $PORTNTS --streams "$(tr -dc 0-9 <<<"$row")" --udp-port $U_CNTS
			--udp-remote-port $U_SNTS --num-conns 1 --num-calls "$n_req" --ssl --cacert "$work/cert.pem"); proto=sctp+tls ;;
		usrsctp*tuned) args+=(--proto usrsctp --port $PORTT --streams "$(tr -dc 0-9 <<<"$row")" --udp-port $U_CT
			--udp-remote-port $U_ST --num-conns 1 --num-calls "$n_req" "${TUNE[@]}"); proto=sctp ;;
		tcp1) args+=(--num-conns "$n_req" --num-calls 1); proto=http/1.1 ;;
		tcppipe) args+=(--num-conns 1 --num-calls "$n_req" --max-piped-calls "$n_req"); proto=http/1.1 ;;
		usrsctpnt*) args+=(--proto usrsctp-nt --port $PORTNT --streams "${row#usrsctpnt}" --udp-port $U_CNT
			--udp-remote-port $U_SNT --num-conns 1 --num-calls "$n_req"); proto=sctp ;;
		usrsctp*) args+=(--proto usrsctp --streams "${row#usrsctp}" --udp-port $U_C
			--udp-remote-port $U_S --num-conns 1 --num-calls "$n_req"); proto=sctp ;;
		esac
		/usr/bin/time -f '%U %S' -o "$base.cpu" ip netns exec "$C" "$HL" "${args[@]}" >"$base.json" 2>"$base.err"
		ok=$(awk '
			function num(k,   m) { if (match($0, "\"" k "\":[0-9.]+")) { m = substr($0, RSTART, RLENGTH); sub(/.*:/, "", m); return m + 0 }
				return -1 }
			{ ok = num("2xx"); if (num("total") > 0) ok = 0 } END { print ok + 0 }' "$base.json")
		# TLS over SCTP: a handshake per stream, each request waiting for its stream's (inside
		# the page's time): "HANDSHAKES RESUMED MEAN_MS CONNECT_MS" (the association's set-up)
		case $row in *tls) tls=$(awk -f "$HERE/hltls.awk" "$base.json") ;; esac
		# start (us since the run's start), status, latency (us)
		secs=$(awk -F'\t' '$2 >= 200 && $2 < 300 { s = $1; e = $1 + $3; if (!n++ || s < lo) lo = s; if (e > hi) hi = e }
			END { printf "%.3f\n", n ? (hi - lo) / 1e6 : 0 }' "$base.hlog" 2>/dev/null)
		awk -F'\t' '$2 >= 200 && $2 < 300 { printf "%.3f\n", $3 / 1000 }' "$base.hlog" >"$base.lat" 2>/dev/null
		;;
	esac
	t1=$EPOCHREALTIME
	c1=$(cpu_ticks "$spid")
	k1=$(recovery "$row")
	b1=$(wire_bytes)
	local rate delay loss ge q
	cell_parse "$cell"
	local lat ccpu=""
	lat=$(sort -n "$base.lat" 2>/dev/null | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "- - - -"; exit }
		split("0.5 0.9 0.95 0.99", a, " ")
		for (i = 1; i <= 4; i++) { k = int(a[i] * NR + 0.999999); if (k < 1) k = 1; printf "%s%.1f", (i > 1 ? " " : ""), v[k] }
		print "" }')
	[ -s "$base.cpu" ] && { mapfile -t ccpu <"$base.cpu"; ccpu=${ccpu[-1]}; }
	awk -v rate="${rate%mbit}" -v delay="$delay" -v loss="$loss" -v row="$row" -v rep="$rep" -v n="$n_req" \
	    -v ok="${ok:-0}" -v proto="${proto:-none}" -v secs="${secs:-0}" -v t0="$t0" -v t1="$t1" -v lat="$lat" \
	    -v ccpu="$ccpu" -v scpu=$((c1 - c0)) -v hz="$HZ" -v src="$src" -v cc="$cc" -v bytes=$((b1 - b0)) -v k0="$k0" -v k1="$k1" -v model="$([ "$ge" = 0 ] && echo random || echo "ge$ge")" -v q="$q" -v tls="$tls" 'BEGIN {
		split(k0, x, " "); split(k1, y, " ")
		split(lat, l, " "); split(ccpu, c, " ")
		printf "%s,%s,%s,page,%s,%s,%d,%d,%s,%.3f,%.3f,%s,%s,%s,%s,%s,%d,%.2f,%.2f,%s", rate, delay, loss, row, rep,
		    n, ok, proto, secs, t1 - t0, l[1], l[2], l[3], l[4], src, bytes, c[1] + c[2], scpu / hz, cc
		for (i = 1; i <= 4; i++) printf ",%s", (x[i] == "-" || y[i] == "-" || x[i] == "" || y[i] == "") ? "-" : y[i] - x[i]
		split(tls, t, " ")
		printf ",%s,%s,%s,%s,%s,%s\n", model, q, t[1], t[2], t[3], t[4] }'
}

csv=$OUT/samples.csv
echo "link_mbit,one_way_delay_ms,loss_pct,workload,row,rep,requests,ok,protocol,time_s,wall_s,lat_p50_ms,lat_p90_ms,lat_p95_ms,lat_p99_ms,lat_source,wire_bytes,client_cpu_s,server_cpu_s,cc,srv_retrans,srv_timeouts,srv_fast_retrans,srv_tlp,loss_model,queue,tls_handshakes,tls_resumed,tls_hs_mean_ms,connect_ms" >"$csv"
unshaped=$OUT/unshaped.csv
echo "row,one_way_delay_ms,content_bytes,time_s,mbit,cpu_pct" >"$unshaped"
: >"$OUT/fidelity.txt"
: >"$OUT/bound.txt"
for cell in $CELLS; do
	cell_parse "$cell"
	# each row's unshaped rate at this cell's delay (no rate limit, no loss)
	"$R" set "$RD" --delay "$delay" >/dev/null || check 1 "router set --delay $delay"
	for row in $ROWS; do
		run "0:$delay:0" "$row" unshaped >"$work/u.csv"
		awk -F, -v row="$row" -v b="$page_bytes" '{ printf "%s,%s,%s,%s,%.1f,%.0f\n", row, $2, b, $10,
			($10 > 0 ? b * 8 / $10 / 1e6 : 0), ($11 > 0 ? 100 * ($18 + $19) / $11 : 0) }' "$work/u.csv" >>"$unshaped"
	done
	"$R" set "$RD" --delay "$delay" --loss "$loss" --ge-burst "$ge" --rate "$rate" --limit "$q" >/dev/null ||
		check 1 "router set $cell"
	"$R" stats "$RD" >"$OUT/raw/${cell//:/_}.stats0"
	: >"$OUT/raw/${cell//:/_}.order"
	for rep in $(seq "$REPS"); do
		for row in $ROWS; do # rows interleaved: every row once per repetition
			run "$cell" "$row" "$rep" >>"$csv"
			# the router's counters after each run (its delay line drained first): the row's
			# own loss, judged with its other runs (judge)
			sleep "$(awk -v d="$delay" 'BEGIN { print 2 * d / 1000 + 0.2 }')"
			"$R" stats "$RD" >"$OUT/raw/${cell//:/_}-page-$row-$rep.stats" &&
				echo "$row $rep ${cell//:/_}-page-$row-$rep.stats" >>"$OUT/raw/${cell//:/_}.order"
		done
	done
	sleep $(awk -v d="$delay" 'BEGIN { print 2 * d / 1000 + 0.2 }') # netem's delay line drains
	"$R" stats "$RD" >"$OUT/raw/${cell//:/_}.stats1"
	judge "$cell" "$OUT" >"$work/fid"
	fst=$?
	cell_parse "$cell"
	cat "$work/fid" >>"$OUT/fidelity.txt"
	while IFS= read -r l; do
		case "$l" in
		"ok - "*) check 0 "${l#ok - }" ;;
		"not ok - "*) check 1 "${l#not ok - }" ;;
		*) echo "$l" ;;
		esac
	done <"$work/fid"
	[ $fst = 0 ] || echo "$cell fidelity-failed" >>"$OUT/bound.txt"
	# link-bound only when every row's unshaped rate is 3x the link or more
	lb=$(awk -F, -v d="$delay" -v r="${rate%mbit}" 'NR > 1 && $2 == d { n++; if ($5 < 3 * r && !seen[$1]++) { bad = bad " " $1 } }
		END { print (n && bad == "") ? "link-bound" : "not link-bound (under 3x the link:" bad ")" }' "$unshaped")
	echo "$cell $lb" >>"$OUT/bound.txt"
done
t_run=$(($(date +%s) - t_start))

nruns=$(($(wc -l <"$csv") - 1))
want=$(($(echo $CELLS | wc -w) * REPS * $(echo $ROWS | wc -w)))
[ "$nruns" = "$want" ]
check $? "every cell, row and repetition ran ($nruns of $want)"
bad=$(incomplete_runs)
[ -z "$bad" ]
check $? "every run answered all its requests (httpload: bodies by CRC-32; h3: by size; h2load: 2xx)${bad:+: $bad}"
badt=$(awk -F, 'NR > 1 && !($10 > 0) { printf "%s%s", (n++ ? " " : ""), $5 }' "$csv")
[ -z "$badt" ]
check $? "every run has a completion time from its per-request log${badt:+ (not: $badt)}"
{
	echo "experiment 06 on lab v2 (issue 38, first step): $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "git: $(git -c safe.directory='*' rev-parse --short HEAD 2>/dev/null)$(git -c safe.directory='*' diff --quiet HEAD 2>/dev/null || echo ' (local changes)')"
	echo "cells: $CELLS (rate:one-way delay ms:loss % each way, random unless ge=mean burst (Gilbert); queue (tbf) q= BDPs, 1 unless said), rows: $ROWS, $REPS run(s) a cell, interleaved"
	echo "topology: client ns $C ($ROUTER_IP_C) - TAP (vnet_hdr=$ROUTER_VNET_HDR) - router VM (TCG, 1 vCPU, bridge, netem + tbf per direction, guest GRO $ROUTER_GUEST_GRO) - TAP - server ns $S ($IP)"
	echo "host: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); router kernel: $("$R" run "$RD" uname -r 2>/dev/null | tr -d '\n')"
	echo "host TAP offloads: $(ip -n "$C" -d link show eth0 | grep -o 'vnet_hdr [a-z]*') (client), $(ip -n "$S" -d link show eth0 | grep -o 'vnet_hdr [a-z]*') (server)"
	first=${CELLS%% *}
	echo "router NICs (after the first cell): $(grep '^nic' "$OUT/raw/${first//:/_}.stats1" 2>/dev/null | tr '\n' ';')"
	echo "congestion control: TCP rows cubic on the namespaces' route (ip route congctl; host default $(cat /proc/sys/net/ipv4/tcp_congestion_control)), h2cbbr bbr; h3: ngtcp2's cubic (--cc=cubic, both ends); usrsctp: its standard (RFC 4960) control"
	echo "tuned SCTP rows (${TUNE[*]} on both ends), as the servers' stacks held them (SIGUSR2): usrsctp $(grep -o 'rto_min=[0-9]* sack_delay=[0-9]* initial_cwnd=[0-9]*' "$work/httpd-t.log" 2>/dev/null | tail -1 || echo -), usrsctp-nt $(grep -o 'rto_min=[0-9]* sack_delay=[0-9]* initial_cwnd=[0-9]*' "$work/httpd-ntt.log" 2>/dev/null | tail -1 || echo -); untuned: $(grep -o 'rto_min=[0-9]* sack_delay=[0-9]* initial_cwnd=[0-9]*' "$work/httpd.log" 2>/dev/null | tail -1 || echo -)"
	echo "completion time: first request's start to last response's end, from each client's own per-request log (httpload --log, h2load --log-file; gtlsclient: its submit and close lines stamped as they come)"
	echo "versions: nginx $(nginx -v 2>&1 | sed 's/.*\///'), $(h2load --version 2>&1 | head -1), $(dpkg-query -W -f '${Package} ${Version}\n' 'libusrsctp*' 2>/dev/null | head -n1), $(dpkg-query -W -f '${Package} ${Version}' ngtcp2-client 2>/dev/null), qemu $(qemu-system-x86_64 --version | head -1 | awk '{ print $4 }')"
	echo "router checks: see fidelity.txt; cells: $(tr '\n' ';' <"$OUT/bound.txt")"
	echo "run time: ${t_run} s"
	echo "mode: $MODE"
} >"$OUT/params.txt"
analyse
check $? "summarize.py and report.py: medians and bootstrap intervals (results.csv), report.md"
# provenance/: what a full run commits (test/experiments/run copies it to docs/results/06/):
# every request's latency from each client's own log, a line each, gzipped; the router's counters
provenance
check $? "provenance/: the CSVs, params.txt, the router's counters and every request's latency (raw/requests.csv.gz)"

echo "1..$n_tap"
[ $failed = 0 ]
