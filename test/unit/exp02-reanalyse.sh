#!/bin/bash
# exp02-reanalyse.sh: experiment 02 judged again from a finished run's files alone
# (test/experiments/run --reanalyse --out DIR 02), on a made-up full run of 5 runs a cell: every
# cell reported as median [bootstrap 95 % interval]; the planted wrong-way cell (TCPM at 10
# Mbit/s: 9085 kbit/s at 0.1 % loss above 6400 at 0 %, tight runs) marked † and explained by its
# counters; a noisy cell that rises within overlapping intervals not marked; the RTO checks
# judged by the intervals; netem's counters checked (a planted superpacket cell fails that
# check); a second reanalysis writes the same report and CSVs (fixed bootstrap seed); nothing
# is taken from this machine (kernel, where, commit: the run's own).
. "$(dirname "$0")/../lib.sh"
run=$top_srcdir/test/experiments/run
scratch exp02
command -v gnuplot >/dev/null || skip_all "gnuplot not installed"
d=$tmp/o/02-loss
mkdir -p "$d/raw"

# mkrun DIR: a made-up full run of 02 (5 runs a cell)
mkrun() {
	awk -v OFS=, 'BEGIN {
		print "rate,loss_pct,rep,test,protocol,size,value,unit,messages,p50_us,p99_us,error,retrans,timeouts,cpu_pct"
		split("0 0.1 1 3 10", L, " ")
		split("tcpm sctp sctp-rto200 sctp-rto10", V, " ")
		# throughput (kbit/s) and latency (us) by variant and loss index
		tp["tcpm"] = "90000 78000 57000 23000 900"; tp["sctp"] = "60000 56000 50000 40000 800"
		tp["sctp-rto200"] = tp["sctp"]; tp["sctp-rto10"] = tp["sctp"]
		la["tcpm"] = "300 480 5000 14000 67000"; la["sctp"] = "320 1900 24000 82000 670000"
		la["sctp-rto200"] = "320 700 6000 20000 150000"; la["sctp-rto10"] = "320 400 2500 9000 60000"
		for (r = 1; r <= 2; r++) {
			rate = r == 1 ? "100mbit" : "10mbit"
			for (i = 1; i <= 5; i++) for (rep = 1; rep <= 5; rep++) for (j = 1; j <= 4; j++) {
				v = V[j]; split(tp[v], t, " "); split(la[v], l, " ")
				j1 = 1 + 0.01 * (rep - 3)             # tight: +-2 %
				x = t[i] * (r == 2 ? 0.1 : 1)
				rt = int(i * 10 * rep)
				if (r == 2 && v == "tcpm" && i == 1) { x = 6400; rt = 3 }   # the planted pair
				if (r == 2 && v == "tcpm" && i == 2) { x = 9085; rt = 40 }
				if (r == 1 && v == "sctp" && i == 2) { x = 62000 * (1 + 0.15 * (rep - 3)) } # noisy, overlapping 60000
				if (r == 1 && v == "sctp" && i == 1) { x = 60000 * (1 + 0.15 * (rep - 3)) }
				print rate, L[i], rep, "throughput", v, 500, x * j1, "kbit/s", 1000, "", "", "", rt, 0, 55
				y = l[i] * j1
				# 10 Mbit/s, 1 %: RTO min 200 ms and 10 ms apart by their medians (2600, 2500)
				# but not by their intervals (+-60 % spreads): that ranking must not hold
				if (r == 2 && i == 3 && v == "sctp-rto200") y = 2600 * (1 + 0.3 * (rep - 3))
				if (r == 2 && i == 3 && v == "sctp-rto10") y = 2500 * (1 + 0.3 * (rep - 3))
				print rate, L[i], rep, "latency", v, 500, y, "us", 1000, y * 0.9, y * 3, "", i, i - 1, 20
			}
		}
	}' >"$1/raw/runs.csv"
	{
		echo "rate,loss_pct,host,pkts,bytes,dropped"
		for r in 100mbit 10mbit; do for l in 0 0.1 1 3 10; do for h in a b; do
			awk -v r=$r -v l=$l -v h=$h 'BEGIN { n = 200000; d = int(n * l / 100); b = 554
				if (r == "10mbit" && l == 3 && h == "a") b = 30000   # a superpacket cell: offloads on
				printf "%s,%s,%s,%d,%.0f,%d\n", r, l, h, n - d, (n - d) * b, d }'
		done; done; done
	} >"$1/raw/netem.csv"
	cat >"$1/raw/measure.sh" <<'M'
EXP_WHERE=in\ the\ project\'s\ VM\ \(made-up\ kernel\ 9.9.9-test\)
EXP_KERNEL=9.9.9-test
EXP_IN_VM=1
EXP_MEASURED_AT=2026-12-01\ 10:00\ UTC
EXP_REPS=5
QUICK=0
tcp_unshaped=1470
sctp_unshaped=30.2
sctp_unshaped_fd=20.5
sctp_unshaped_note=''
secs=3600
rto_min=1000
rto_initial=3000
tcp_cc=cubic
M
	printf 'date: 2026-12-01 10:00:00 UTC\nkernel: 9.9.9-test\ngit commit: 0123456789abcdef0123456789abcdef01234567\noffloads: gso_max_segs 1, gro_max_size 0 (every veth end)\n' >"$1/params.txt"
	echo "02-loss|full|vm|2026-12-01 10:00 UTC|3600|30|0" >"$1/run.meta"
	echo "(the measured run's log)" >"$1/run.log"
}
mkrun "$d"

"$run" --reanalyse --out "$tmp/o" 02 >"$tmp/a.out" 2>&1
rc=$?
grep -q '^not ok .*02-loss: netem drew its loss per wire packet' "$tmp/a.out" &&
	grep -q '^not ok .*02-loss: and again at 10 ms (10mbit: 2600 -> 2500 us; intervals \[' "$tmp/a.out" &&
	[ "$(grep -c '^not ok' "$tmp/a.out")" = 2 ]
ok $? "reanalysed (exit $rc): every check passes but netem's (the planted superpacket cell) and the ranking of two overlapping intervals (10 Mbit/s, RTO min 200 ms against 10 ms: medians 2600 > 2500)" || grep -v "^ok" "$tmp/a.out" | head -30 | sed "s/^/# /"
grep -q "^#.*netem 10mbit 3 a: not ok: superpackets: 30000 bytes per packet" "$tmp/a.out"
ok $? "that cell and end named, with its bytes per packet" || grep netem "$tmp/a.out" | head -5 | sed "s/^/# /"
r=$d/report.md
grep -q '^| TCPM | 6400 \[[0-9]*-[0-9]*\] | 9085 \[[0-9]*-[0-9]*\] † |' "$r"
ok $? "10 Mbit/s TCPM: medians with intervals, the 0.1 % cell above the 0 % one marked †" || grep '^| TCPM' "$r" | sed 's/^/# /'
grep -q '^- 10mbit, TCPM, throughput: 9085 \[.*\] at 0.1 above 6400 \[.*\] at 0 beyond the intervals (retransmissions 40 against 3, ' "$r"
ok $? "and explained below the tables by its counters (retransmissions 40 against 3)" || grep '^- ' "$r" | sed 's/^/# /'
[ "$(grep -c "^|.*†" "$r")" = 1 ]
ok $? "no other cell marked: the noisy SCTP cell at 100 Mbit/s rising within overlapping intervals is not"
grep -q '^ok .*SCTP latency at 1 % loss drops when RTO min is lowered to 200 ms (100mbit: 24000 -> 6000 us; intervals \[' "$tmp/a.out"
ok $? "the RTO checks judged by the intervals of 5 runs each"
grep -q 'Each cell was measured 5 times' "$r" && grep -q '9.9.9-test' "$r" && ! grep -q "$(uname -r)" "$r"
ok $? "the report's words from the run (5 runs, its kernel), none from this machine"
awk -F, 'NR == 1 { ok = $4 == "runs" && $6 == "throughput_lo" } NR > 1 && $4 != 5 { bad++ } END { exit !(ok && !bad && NR == 41) }' "$d/results.csv"
ok $? "results.csv: 40 cells of 5 runs, with the intervals' columns"
cp "$r" "$tmp/r1" && cp "$d/results.csv" "$tmp/c1" && cp "$d/wrongway.csv" "$tmp/w1"
"$run" --reanalyse --out "$tmp/o" 02 >"$tmp/b.out" 2>&1
cmp -s "$r" "$tmp/r1" && cmp -s "$d/results.csv" "$tmp/c1" && cmp -s "$d/wrongway.csv" "$tmp/w1"
ok $? "a second reanalysis: the same report.md, results.csv and wrongway.csv" || diff "$tmp/r1" "$r" | head | sed 's/^/# /'
reanalyse_committed 02 02-loss "$d" "$tmp/r1"
grep -q '|full, reanalysed ' "$d/run.meta" && [ -e "$d/run-measured.log" ]
ok $? "run.meta says reanalysed, the measured run's log kept"
rm -f "$d/raw/measure.sh"
"$run" --reanalyse --out "$tmp/o" 02 >"$tmp/c.out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'not ok .*reanalyse: no finished run in .*raw/measure.sh' "$tmp/c.out"
ok $? "raw/measure.sh missing: refused, named, exit $rc" || sed 's/^/# /' "$tmp/c.out" | head
done_testing
