#!/bin/bash
# exp01-reanalyse.sh: experiment 01 judged again from a finished run's files alone
# (test/experiments/run --reanalyse --out DIR 01), on a made-up full run of 5 runs a cell: each
# cell's median (results.csv, the tables) and its bootstrap interval (cells.csv) from
# raw/runs.csv; a failed run named; a second reanalysis writes the same files; nothing taken from
# this machine.
. "$(dirname "$0")/../lib.sh"
run=$top_srcdir/test/experiments/run
scratch exp01
command -v gnuplot >/dev/null || skip_all "gnuplot not installed"
d=$tmp/o/01-loopback
mkdir -p "$d/raw"
mkrun() { # FAIL: 1 = one run of tcp 1000 B failed
	awk -v OFS=, -v fail="$1" 'BEGIN {
		print "test,protocol,size,value,unit,messages,p50_us,p99_us,error,rep"
		split("unix unixm tcp tcpm sctp sctp1m usrsctp sctp1m-v2", P, " ")
		split("10 100 1000 10000", S, " ")
		for (rep = 1; rep <= 5; rep++) for (i = 1; i <= 8; i++) for (j = 1; j <= 4; j++) {
			j1 = 1 + 0.02 * (rep - 3)
			tp = (1000 - 80 * i) * S[j] * j1; lat = (20 + 5 * i) * (1 + j / 10) * j1
			if (P[i] == "tcpm") lat = 30 * (1 + j / 10) * j1
			if (fail && rep == 2 && P[i] == "tcp" && S[j] == 1000) { print "throughput", "tcp", 1000, "", "", "", "", "", "exit 1: refused", rep; continue }
			print "throughput", P[i], S[j], tp, "kbit/s", tp, "", "", "", rep
			print "latency", P[i], S[j], lat, "us", 1000, lat * 0.9, lat * 2, "", rep
		}
		for (s = 1; s <= 100; s *= 10) {
			print "oneway", "sctp-streams" s, 100, 80000 + s, "kbit/s", 1, "", "", "", 1
			print "latency", "sctp-streams" s, 100, 60, "us", 1000, 55 + s / 100, 120, "", 1
		}
		print "throughput", "tcpm-again", 100, 74000, "kbit/s", 1, "", "", "", 1
	}' >"$d/raw/runs.csv"
	printf 'latency,tcpm,10,33,us,1000,31,60,\nlatency,sctp,10,50,us,1000,47,90,\n' >"$d/raw/rtt10.csv"
	cat >"$d/raw/measure.sh" <<'M'
EXP_WHERE=in\ the\ project\'s\ VM\ \(made-up\ kernel\ 9.9.9-test\)
EXP_KERNEL=9.9.9-test
EXP_IN_VM=1
EXP_MEASURED_AT=2026-12-01\ 10:00\ UTC
EXP_REPS=5
QUICK=0
D=3
types_s=unix\ unixm\ tcp\ tcpm\ sctp\ sctp1m\ usrsctp
why_sctp=''
why_usrsctp=''
EXP_SKIPPED=''
secs=900
M
	echo "01-loopback|full|vm|2026-12-01 10:00 UTC|900|10|0" >"$d/run.meta"
	printf 'git commit: 0123456789abcdef0123456789abcdef01234567\n' >"$d/params.txt"
}
mkrun 0
"$run" --reanalyse --out "$tmp/o" 01 >"$tmp/a.out" 2>&1
rc=$?
grep -q '^ok .*01-loopback: every measurement worked: 71 of 71 planned rows measured' "$tmp/a.out"
ok $? "reanalysed (exit $rc): 71 cells from 5 runs each, none failed" || grep -v '^ok' "$tmp/a.out" | head -30 | sed 's/^/# /'
# tcp at 100 B: 5 runs of 760 x 100 x (0.96 .. 1.04): median 76000
grep -q "^tcp,100,76000.0," "$d/results.csv"
ok $? "results.csv: tcp at 100 B the median of its 5 runs (76000 kbit/s)" || grep '^tcp,100,' "$d/results.csv" | sed 's/^/# /'
awk -F, '$1 == "throughput" && $2 == "tcp" && $3 == 100 { exit !($5 == 5 && $7 < $6 && $6 < $8) }' "$d/cells.csv"
ok $? "cells.csv: its 5 runs and an interval around the median"
grep -q "Ours is the median of 5 runs a cell" "$d/report.md" && grep -q "^| TCP | .* | 76000 \[[0-9]*-[0-9]*\] (115320) |" "$d/report.md" && grep -q '9.9.9-test' "$d/report.md" && ! grep -q "$(uname -r)" "$d/report.md"
ok $? "the report says 5 runs a cell, its tables give each median with its interval (TCP at 100 B: 76000 [lo-hi]), its kernel the run's, none of this machine's"
cp "$d/report.md" "$tmp/r1" && cp "$d/results.csv" "$tmp/c1" && cp "$d/cells.csv" "$tmp/e1"
"$run" --reanalyse --out "$tmp/o" 01 >"$tmp/b.out" 2>&1
cmp -s "$d/report.md" "$tmp/r1" && cmp -s "$d/results.csv" "$tmp/c1" && cmp -s "$d/cells.csv" "$tmp/e1"
ok $? "a second reanalysis: the same report.md, results.csv and cells.csv" || diff "$tmp/r1" "$d/report.md" | head | sed 's/^/# /'
reanalyse_committed 01 01-loopback "$d" "$tmp/r1"
mkrun 1
"$run" --reanalyse --out "$tmp/o" 01 >"$tmp/c.out" 2>&1
grep -q '^not ok .*every measurement worked: 71 of 71 planned rows measured (failed: tcp,1000,exit 1: refused' "$tmp/c.out"
ok $? "one failed run of 5: its cell still has a median of 4, the failure named and failed" || grep 'every measurement' "$tmp/c.out" | sed 's/^/# /'
done_testing
