#!/bin/bash
# exp03-reanalyse.sh: experiment 03 judged again from a finished run's files alone
# (test/experiments/run --reanalyse --out DIR 03), on a made-up full run of 5 runs a cell: each
# cell's median and bootstrap interval in the table (cells.csv), the multipath ranking judged by
# the intervals, the rate with the primary blocked the median over the runs' series, a second
# reanalysis the same.
. "$(dirname "$0")/../lib.sh"
run=$top_srcdir/test/experiments/run
scratch exp03
command -v gnuplot >/dev/null || skip_all "gnuplot not installed"
d=$tmp/o/03-failover
mkdir -p "$d/raw"
awk -v OFS=, 'BEGIN {
	print "test,protocol,size,value,unit,messages,p50_us,p99_us,error,rep"
	split("tcpm-p1 tcpm-p2 sctp-p1 sctp-p2 tcpm sctp-pmr5 sctp-pmr1 sctp-pmr5-cx sctp-pmr1-cx", V, " ")
	split("3746 1786 2586 1128 1064 1500 1750 1600 1800", T, " ")
	split("1773 5757 1886 6868 4319 4600 4505 4550 4400", L, " ")
	for (rep = 1; rep <= 5; rep++) for (i = 1; i <= 9; i++) {
		j = 1 + 0.01 * (rep - 3)
		print "throughput", V[i], 500, T[i] * j, "kbit/s", 100, "", "", "", rep
		if (i <= 4 || V[i] == "tcpm" || V[i] == "sctp-pmr1") print "latency", V[i], 500, L[i] * j, "us", 100, L[i], L[i] * 2, "", rep
	}
}' >"$d/raw/raw.csv"
for v in tcpm sctp-pmr5 sctp-pmr1 sctp-pmr5-cx sctp-pmr1-cx; do
	for rep in 1 2 3 4 5; do
		x=$d/raw/$v-throughput-$rep
		mkdir -p "$x"
		printf '1000.0 up\n1010.0 blocked\n1020.0 up\n1030.0 blocked\n1040.0 up\n1050.0 blocked\n' >"$x/flap.log"
		# the client's rate: 8000 kbit/s with path 1 up; blocked: TCPM 0, SCTP 4000 + 100 x run
		awk -v OFS=, -v v=$v -v rep=$rep 'BEGIN { print "a,b,c,t,kbit"
			for (t = 1000.5; t < 1060; t += 0.5) {
				b = (t >= 1010 && t <= 1020) || (t >= 1030 && t <= 1040) || t >= 1050
				print 0, 0, 0, t, b ? (v == "tcpm" ? 0 : 4000 + 100 * rep) : 8000 } }' >"$x/series.csv"
		awk 'BEGIN { for (t = 1000; t < 1060; t += 0.25) printf "%.2f %d %d\n", t, t * 1000, t * 500 }' >"$x/counters.log"
	done
done
cat >"$d/raw/measure.sh" <<'M'
EXP_WHERE=in\ the\ project\'s\ VM\ \(made-up\ kernel\ 9.9.9-test\)
EXP_KERNEL=9.9.9-test
EXP_IN_VM=1
EXP_MEASURED_AT=2026-12-01\ 10:00\ UTC
EXP_REPS=5
QUICK=0
tcp_unshaped=900
sctp_unshaped=30.1
sctp_unshaped_note=''
secs=2700
pf_retrans=0
hb_interval=30000
M
echo "03-failover|full|vm|2026-12-01 10:00 UTC|2700|8|0" >"$d/run.meta"
printf 'git commit: 0123456789abcdef0123456789abcdef01234567\n' >"$d/params.txt"

"$run" --reanalyse --out "$tmp/o" 03 >"$tmp/a.out" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -q '^not ok' "$tmp/a.out"
ok $? "reanalysed: every check passes (exit $rc)" || grep -v '^ok' "$tmp/a.out" | head -30 | sed 's/^/# /'
r=$d/report.md
grep -q '^| SCTP throughput (kbit/s) | 2586 \[[0-9]*-[0-9]*\] (2586.0) | 1128 \[[0-9]*-[0-9]*\] (1128.5) | 1750 \[[0-9]*-[0-9]*\] (1750.0) |' "$r"
ok $? "the table: medians of 5 runs with their intervals beside the paper's" || grep '^| SCTP throughput' "$r" | sed 's/^/# /'
grep -q '^ok .*SCTP multipath throughput exceeds TCPM.s .*; intervals \[' "$tmp/a.out"
ok $? "the multipath ranking judged by the intervals"
grep -q '^| SCTP, path_max_retrans 1 | 1750 | 4300 |' "$r"
ok $? "with the primary blocked: the median over the 5 runs' series (4100..4500: 4300)" || grep '^| SCTP, path_max_retrans 1 |' "$r" | sed 's/^/# /'
grep -q 'pf_retrans 0' "$r" && grep -q '9.9.9-test' "$r" && ! grep -q "$(uname -r)" "$r"
ok $? "the report's sysctls and kernel are the run's, none of this machine's"
cp "$r" "$tmp/r1" && cp "$d/cells.csv" "$tmp/c1"
"$run" --reanalyse --out "$tmp/o" 03 >"$tmp/b.out" 2>&1
cmp -s "$r" "$tmp/r1" && cmp -s "$d/cells.csv" "$tmp/c1"
ok $? "a second reanalysis: the same report.md and cells.csv" || diff "$tmp/r1" "$r" | head | sed 's/^/# /'
reanalyse_committed 03 03-failover "$d" "$tmp/r1"
done_testing
