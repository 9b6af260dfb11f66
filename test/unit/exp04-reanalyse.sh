#!/bin/bash
# exp04-reanalyse.sh: experiment 04 judged again from a finished run's files alone
# (test/experiments/run --reanalyse --out DIR 04), on a made-up full run (5 runs a cell): cells
# as median [bootstrap 95 % interval]; the bound check per row by that row's own unshaped rate
# (SCTP's 30 Mbit/s, not TCP's 1470): SCTP with 100 streams at 61 Mbit/s on the 100 Mbit/s link
# marked ‡ and its plateau put down to the CPU, TCP's cells cleared; the rankings judged by the
# intervals; a second reanalysis writes the same files (fixed bootstrap seed).
. "$(dirname "$0")/../lib.sh"
run=$top_srcdir/test/experiments/run
scratch exp04
for t in gnuplot nginx iperf3; do command -v $t >/dev/null || skip_all "$t not installed"; done
d=$tmp/o/04-http
mkdir -p "$d/raw"
hdr="link_mbit,one_way_delay_ms,file_bytes,transport,streams,associations,calls_per_association,rep,replies,duration_s,content_bytes,errors,corrupt,client_cpu_pct,server_cpu_pct,throughput_KBps"
# KB/s by link, size and row (the 100 Mbit/s link's SCTP rows level off near 60 Mbit/s)
gen() { # REPS_OR_u: samples (rep 1..5) or the unshaped runs (u)
	awk -v OFS=, -v mode="$1" 'BEGIN {
		split("tcp sctp1 sctp10 sctp100 usrsctp100 nginx", R, " ")
		v["1,1024"] = "20 15 60 100 80 22"; v["1,131072"] = "110 105 112 115 100 111"
		v["100,1024"] = "100 70 400 900 500 110"; v["100,131072"] = "5000 3000 6000 7500 4000 5200"
		u["1"] = "150000 3600 3600 3600 20000 150000"; u["100"] = "180000 3700 3700 3700 20000 180000"
		for (li = 1; li <= 2; li++) {
			l = li == 1 ? 1 : 100; dl = li == 1 ? 25 : 5
			if (mode == "u") {
				split(u[l], x, " ")
				for (j = 1; j <= 6; j++) print l, dl, 131072, R[j], 0, 1, 1, "u", 40, 1, 40 * 131072, 0, 0, 50, 50, x[j]
				continue
			}
			for (si = 1; si <= 2; si++) {
				s = si == 1 ? 1024 : 131072; split(v[l "," s], x, " ")
				for (rep = 1; rep <= 5; rep++) for (j = 1; j <= 6; j++)
					print l, dl, s, R[j], 0, 1, 1, rep, 20, 1, 20 * s, 0, 0, 30, 40, x[j] * (1 + 0.01 * (rep - 3))
			}
		}
	}'
}
{ echo "$hdr"; gen s; } >"$d/samples.csv"
{ echo "$hdr"; gen u; } >"$d/unshaped.csv"
cat >"$d/raw/measure.sh" <<'M'
ROWS=tcp\ sctp1\ sctp10\ sctp100\ usrsctp100\ nginx
skipped=''
skipped_rows=''
why_sctp=''
why_usrsctp=''
unshaped=\ 1mbit:1200\ 100mbit:1470
t_run=5000
REPS=5
SIZES=1024\ 131072
LINKS=1mbit:25\ 100mbit:5
QUICK=0
EXP_WHERE=in\ the\ project\'s\ VM\ \(Debian\ kernel\ 9.9.9-test\ under\ qemu\ TCG,\ 2\ vCPU\)
EXP_LINK_WORDS=one\ emulated\ link\ \(netem\ on\ both\ ends\)
EXP_MEASURED_AT=2026-12-01\ 10:00\ UTC
M
printf 'git commit: 0123456789abcdef0123456789abcdef01234567\n' >"$d/params.txt"
echo "04-http|full|vm|2026-12-01 10:00 UTC|5000|7|0" >"$d/run.meta"

"$run" --reanalyse --out "$tmp/o" 04 >"$tmp/a.out" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -q '^not ok' "$tmp/a.out"
ok $? "reanalysed: every check passes (exit $rc)" || grep -v '^ok' "$tmp/a.out" | head -30 | sed 's/^/# /'
r=$d/report.md
row=$(grep -A6 '^### 100 Mbit/s' "$r" | grep '^| 128 KiB')
case $row in *"| 7500.00 [7350.00-7650.00] ‡ |"*) true ;; *) false ;; esac
ok $? "100 Mbit/s, 128 KiB, SCTP 100 streams: median [interval], marked ‡ (61 Mbit/s, its own unshaped 30)" || echo "# $row"
case $row in "| 128 KiB | "*" | 5000.00 [4900.00-5100.00] | "*) true ;; *) false ;; esac
ok $? "and TCP's cell beside it cleared by TCP's own unshaped rate, not marked"
grep -q 'sctp100 61.4 of its own unshaped 30.3 Mbit/s (busiest process 40 % of a CPU): the CPU, not the link, sets it' "$r"
ok $? "the plateau put down to the row's own bound, in numbers" || grep 'level off' "$r" | sed 's/^/# /'
grep -q 'tcp 41.0, below its own unshaped 1474.6 Mbit/s: not the CPU' "$r"
ok $? "TCP's largest files below its own bound: not the CPU's"
[ "$(awk -F, '$7 == "marked"' "$d/bound.csv" | wc -l)" = 3 ]
ok $? "bound.csv: 3 cells marked (SCTP with 1, 10, 100 streams at 128 KiB on the 100 Mbit/s link: within 3x of their own 30 Mbit/s; TCP at 41 of its 1475 and the 1 Mbit/s link cleared)" || sed 's/^/# /' "$d/bound.csv"
grep -q '^ok .*SCTP with 100 streams beats TCP .*; intervals, 5 and 5 runs)' "$tmp/a.out"
ok $? "the ranking checks judged by the intervals of 5 runs each"
cp "$r" "$tmp/r1" && cp "$d/results.csv" "$tmp/c1" && cp "$d/bound.csv" "$tmp/b1"
"$run" --reanalyse --out "$tmp/o" 04 >"$tmp/b.out" 2>&1
cmp -s "$r" "$tmp/r1" && cmp -s "$d/results.csv" "$tmp/c1" && cmp -s "$d/bound.csv" "$tmp/b1"
ok $? "a second reanalysis: the same report.md, results.csv and bound.csv" || diff "$tmp/r1" "$r" | head | sed 's/^/# /'
reanalyse_committed 04 04-http "$d" "$tmp/r1"
rm "$d/unshaped.csv"
"$run" --reanalyse --out "$tmp/o" 04 >"$tmp/c.out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'not ok .*reanalyse: no finished run in' "$tmp/c.out"
ok $? "unshaped.csv missing: refused, named, exit $rc" || sed 's/^/# /' "$tmp/c.out" | head
done_testing
