#!/bin/sh
# labv2-reanalyse.sh: experiment 06 on lab v2 (test/experiments/06-multiplexing/labv2.sh)
# --reanalyse DIR makes results.csv and report.md from a finished run's files alone, without
# root or a router: the same output twice, each row's median with its bootstrap interval, the
# router's checks as judged then (a failed one fails the reanalysis), and a folder that is not a
# finished run refused, named (TAP).
. "$(dirname "$0")/../lib.sh"
L=$top_srcdir/test/experiments/06-multiplexing/labv2.sh
scratch labv2-reanalyse
d=$tmp/run
mkdir -p "$d/raw"
{
	echo "link_mbit,one_way_delay_ms,loss_pct,workload,row,rep,requests,ok,protocol,time_s,wall_s,lat_p50_ms,lat_p90_ms,lat_p95_ms,lat_p99_ms,lat_source,wire_bytes,client_cpu_s,server_cpu_s,cc,srv_retrans,srv_timeouts,srv_fast_retrans,srv_tlp,loss_model,queue"
	for rep in 1 2 3 4 5 6; do
		echo "10,10,1,page,h2c,$rep,100,100,h2c,2.$((70 + rep)),2.9,1000,2000,2500,2700,h2load,2400000,0.06,0.01,cubic,40,0,40,3,random,1bdp"
		echo "10,10,1,page,usrsctp100,$rep,100,100,sctp,3.$((70 + rep)),3.9,900,1900,2100,2600,httpload,2500000,0.16,0.09,sctp-standard,50,0,50,-,random,1bdp"
		echo "1,50,0,page,h2c,$rep,100,100,h2c,19.$((10 + rep)),19.9,9000,18000,18500,19000,h2load,2400000,0.06,0.01,cubic,0,0,0,0,random,1bdp"
		echo "10,10,1,page,h2c,$rep,100,100,h2c,4.$((70 + rep)),4.9,1000,2000,2500,2700,h2load,2400000,0.06,0.01,cubic,40,2,30,3,ge3,4bdp"
		echo "10,10,1,page,usrsctp100tuned,$rep,100,100,sctp,3.$((50 + rep)),3.9,900,1900,2100,2600,httpload,2500000,0.16,0.09,sctp-standard-tuned,60,$rep,40,-,random,1bdp"
	done
} >"$d/samples.csv"
cat >"$d/unshaped.csv" <<'X'
row,one_way_delay_ms,content_bytes,time_s,mbit,cpu_pct
h2c,10,2227753,0.271,65.8,6
usrsctp100,10,2227753,1.127,15.8,6
usrsctp100tuned,10,2227753,1.0,17.8,6
h2c,50,2227753,0.5,35.6,6
X
cat >"$d/fidelity.txt" <<'X'
ok - 10mbit:10:1: c2s loss: 49 of 6008 packets (0.816 %), nominal 1 % random, 99 % interval 41..81
# fidelity 10mbit:10:1 dir=c2s packets=6008 netem_packets=6008 loss_drops=49 queue_drops=0 effective_loss_pct=0.8156 nominal_loss_pct=1 lo=41 hi=81 aggregation=ok loss=ok
X
# twice, as a run measures a row at a delay once a cell: named once in the report
echo "10mbit:10:1 not link-bound (under 3x the link: usrsctp100 usrsctp100)" >"$d/bound.txt"
printf 'experiment 06 on lab v2\ngit: x\ncells: 10mbit:10:1 1mbit:50:0 (rate:one-way delay ms:loss %% each way, random), rows: h2c usrsctp100, 6 run(s) a cell, interleaved\nrun time: 99 s\nmode: full\n' >"$d/params.txt"
printf '/a.js 1000\n/b.png 2000\n' >"$d/page.sizes"

"$L" --reanalyse "$d" >"$tmp/a.out" 2>&1
ok $? "--reanalyse a finished run: exit 0" || sed 's/^/# /' "$tmp/a.out"
cp "$d/results.csv" "$tmp/r1" && cp "$d/report.md" "$tmp/m1"
"$L" --reanalyse "$d" >/dev/null 2>&1
cmp -s "$d/results.csv" "$tmp/r1" && cmp -s "$d/report.md" "$tmp/m1"
ok $? "a second reanalysis writes the same results.csv and report.md (fixed bootstrap seed)"
[ "$(wc -l <"$d/results.csv")" = 6 ] &&
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["row"] == "h2c" && $c["loss_model"] == "random" { u[$c["one_way_delay_ms"]] = $c["unshaped_mbit"]; n[$c["one_way_delay_ms"]] = $c["reps"] }
		END { exit !(u[10] == "65.8" && u[50] == "35.6" && n[10] == 6) }' "$d/results.csv"
ok $? "results.csv: one line per cell and row, 6 runs, h2c's unshaped rate at each cell's own delay (65.8 at 10 ms, 35.6 at 50 ms)" ||
	sed 's/^/# /' "$d/results.csv"
grep -qF '| 10 Mbit/s 10 ms 1 % | h2c | 2.735 (2.715-2.755) | 1000.0 / 2700.0 | 2400 | 65.8 |' "$d/report.md"
ok $? "report.md: h2c's median 2.735 s with its interval, latencies, wire KB, unshaped rate at 10 ms" ||
	grep '^|' "$d/report.md" | sed 's/^/# /'
grep -qF '| 10 Mbit/s 10 ms 1 % ge3 q 4bdp | h2c | 4.735 (4.715-4.755) |' "$d/report.md" &&
	grep -qF '| 10 Mbit/s 10 ms 1 % | h2c | 6 | 40 / 0 / 40 / 3 |' "$d/report.md" &&
	grep -qF '| 10 Mbit/s 10 ms 1 % ge3 q 4bdp | h2c | 6 | 40 / 2 / 30 / 3 |' "$d/report.md" &&
	grep -qF '| 10 Mbit/s 10 ms 1 % | usrsctp100 | 6 | 50 / 0 / 50 / - |' "$d/report.md"
ok $? "report.md: a bursty (Gilbert, burst 3) cell with a 4 BDP queue kept apart from the random one, each row's counters (median of 6 runs)"
grep -q '^| 1 Mbit/s 50 ms 0 % | h2c | 19.135 .* | 35.6 |$' "$d/report.md"
ok $? "report.md: the 50 ms cell with the rate measured at 50 ms (35.6), not at 10 ms"
grep -q '^Bound: 10mbit:10:1 not link-bound (under 3x the link: usrsctp100);$' "$d/report.md" &&
	grep -q '^- fidelity 10mbit:10:1 dir=c2s' "$d/report.md"
ok $? "report.md: the bound status and the router's checks carried"
grep -qF "T3-rtx timeouts): 10 Mbit/s 10 ms 1 %, usrsctp100: 3.535 s and 3.5 T3-rtx tuned, 3.735 s and 0 untuned." "$d/report.md"
ok $? "report.md: the tuned row beside its untuned twin (medians: 3.535 s and 3.5 T3-rtx against 3.735 s and 0)" ||
	grep '^Tuned' "$d/report.md" | sed 's/^/# /'

sed -i 's/^ok - 10mbit/not ok - 10mbit/' "$d/fidelity.txt"
"$L" --reanalyse "$d" >"$tmp/b.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^not ok .* c2s loss' "$tmp/b.out"
ok $? "a run whose router check failed: its reanalysis fails too, naming the check (exit $rc)"
rm "$d/fidelity.txt"
"$L" --reanalyse "$d" >"$tmp/c.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'not ok - --reanalyse .*: no fidelity.txt (not a finished run)' "$tmp/c.out"
ok $? "a folder without fidelity.txt: refused, named (exit $rc)"
"$L" --reanalyse "$tmp/nothing" >"$tmp/d.out" 2>&1
[ $? = 1 ] && grep -q 'no samples.csv' "$tmp/d.out"
ok $? "a folder that does not exist: refused, named"
# a full run of fewer cells than grid.txt names the cells it did not measure (the run above: 2
# of them, 10mbit:10:1 among the grid's, 1mbit:50:0 too)
n=$(grep -vc '^#' "$top_srcdir/test/experiments/06-multiplexing/grid.txt")
grep -q "^\*\*Measured: 10mbit:10:1, 1mbit:50:0, 6 runs each; 2 of the $n cells of the grid (test/experiments/06-multiplexing/grid.txt); not measured: 10mbit:10:0 10mbit:10:3 .*1mbit:50:3\.\*\* A cell not measured is not judged" "$d/report.md" &&
	! grep -q 'not measured:.* 10mbit:10:1 ' "$d/report.md"
ok $? "report.md: a bounded full run names the grid's cells it did not measure, not those it did" ||
	grep '^\*\*Measured' "$d/report.md" | sed 's/^/# /'

# the encrypted rows: each against its clear twin, with its handshakes (samples.csv's tls_*
# columns, which a run before them lacks: the run above)
e=$tmp/enc
mkdir -p "$e/raw"
{
	echo "link_mbit,one_way_delay_ms,loss_pct,workload,row,rep,requests,ok,protocol,time_s,wall_s,lat_p50_ms,lat_p90_ms,lat_p95_ms,lat_p99_ms,lat_source,wire_bytes,client_cpu_s,server_cpu_s,cc,srv_retrans,srv_timeouts,srv_fast_retrans,srv_tlp,loss_model,queue,tls_handshakes,tls_resumed,tls_hs_mean_ms,connect_ms"
	for rep in 1 2 3 4 5; do
		echo "10,50,1,page,usrsctpnt100,$rep,100,100,sctp,4.$((10 + rep)),4.9,900,1900,2100,2600,httpload,2500000,0.16,0.09,sctp-standard,50,0,50,-,random,1bdp,-,-,-,-"
		echo "10,50,1,page,usrsctpnt100tls,$rep,100,100,sctp+tls,4.$((40 + rep)),4.9,900,1900,2100,2600,httpload,2600000,0.36,0.29,sctp-standard,50,0,50,-,random,1bdp,100,99,2${rep}0.0,10$rep.5"
		echo "10,50,1,page,h2c,$rep,100,100,h2c,3.$((20 + rep)),3.9,1000,2000,2500,2700,h2load,2400000,0.06,0.01,cubic,40,0,40,3,random,1bdp,-,-,-,-"
		echo "10,50,1,page,h2tls,$rep,100,100,h2,3.$((30 + rep)),3.9,1000,2000,2500,2700,h2load,2410000,0.07,0.02,cubic,40,0,40,3,random,1bdp,1,0,-,20$rep.0"
	done
} >"$e/samples.csv"
printf 'row,one_way_delay_ms,content_bytes,time_s,mbit,cpu_pct\n' >"$e/unshaped.csv"
for r in usrsctpnt100 usrsctpnt100tls h2c h2tls; do echo "$r,50,2227753,0.5,35.6,6" >>"$e/unshaped.csv"; done
cp "$d/page.sizes" "$e/" && echo "ok - 10mbit:50:1: c2s loss: 60 of 6000 packets (1.000 %)" >"$e/fidelity.txt" && echo "10mbit:50:1 link-bound" >"$e/bound.txt"
printf 'experiment 06 on lab v2\ngit: x\ncells: 10mbit:50:1 (rate:one-way delay ms:loss %% each way, random), rows: usrsctpnt100 usrsctpnt100tls h2c h2tls, 5 run(s) a cell, interleaved\nrun time: 99 s\nmode: full\n' >"$e/params.txt"
"$L" --reanalyse "$e" >"$tmp/e.out" 2>&1
grep -qF 'Encryption per page (medians of each cell'"'"'s runs, the TLS row against its clear twin): 10 Mbit/s 50 ms 1 %, usrsctpnt100tls: 4.430 s against 4.130 s in clear (+0.300 s; 100 handshakes (99 resumed), mean 230.0 ms, inside the page; association set-up 103.5 ms); 10 Mbit/s 50 ms 1 %, h2tls: 3.330 s against 3.230 s in clear (+0.100 s; one handshake before the first request, TCP and TLS 203.0 ms).' "$e/report.md"
ok $? "report.md: each TLS row against its clear twin, its handshakes (medians of 5 runs)" ||
	{ sed 's/^/# /' "$tmp/e.out" | tail -5; grep '^Encryption' "$e/report.md" | sed 's/^/# /'; }
grep -q '^- 10 Mbit/s, 50 ms, 1 % loss, page: .*usrsctp-nt, 100 streams, TLS 1.3 a stream loses to usrsctp-nt, 100 streams (4.430 s, 4.130 s' "$e/report.md" &&
	grep -q 'usrsctp-nt, 100 streams, TLS 1.3 a stream loses to HTTP/2 over TLS (nginx) (4.430 s, 3.330 s' "$e/report.md"
ok $? "report.md: the TLS row judged against its clear twin and against h2 over TLS, by their intervals"

# each row's own loss, from the router's counters after every run (raw/CELL.order): h2c's runs
# saw 30 of 5000 server packets dropped each, usrsctp100's 70, so the cell as a whole is at 1 %
# (200 of 20000, inside its interval) while each row alone is outside its own (60 and 140 of
# 10000; 6 loss checks in the run): both rows fail, named, the cell's check passes
r=$tmp/rows
mkdir -p "$r/raw"
snapr() { # snapr C2S_IN C2S_DROP S2C_IN S2C_DROP TICKS TIME
	printf 'c2s in_pkts=%d in_bytes=0 in_dropped=0 netem_sent=%d netem_dropped=%d queue_sent=0 queue_dropped=0 out_pkts=0 out_dropped=0\n' "$1" $(($1 - $2)) "$2"
	printf 's2c in_pkts=%d in_bytes=0 in_dropped=0 netem_sent=%d netem_dropped=%d queue_sent=0 queue_dropped=0 out_pkts=0 out_dropped=0\n' "$3" $(($3 - $4)) "$4"
	printf 'nic cli gro_max_size=0 gso_max_size=1500\nnic srv gro_max_size=0 gso_max_size=1500\ncpu ticks=%d hz=100 time=%s loadavg=1.0\n' "$5" "$6"
}
snapr 0 0 0 0 0 1000.0 >"$r/raw/10mbit_10_1.stats0"
ci=0 cd=0 si=0 sd=0 n=0
: >"$r/raw/10mbit_10_1.order"
for rep in 1 2; do
	for row in h2c usrsctp100; do
		n=$((n + 1)) ci=$((ci + 5000)) cd=$((cd + 50)) si=$((si + 5000))
		[ $row = h2c ] && sd=$((sd + 30)) || sd=$((sd + 70))
		snapr $ci $cd $si $sd $((n * 10)) "$((1000 + n)).0" >"$r/raw/10mbit_10_1-page-$row-$rep.stats"
		echo "$row $rep 10mbit_10_1-page-$row-$rep.stats" >>"$r/raw/10mbit_10_1.order"
	done
done
cp "$r/raw/10mbit_10_1-page-usrsctp100-2.stats" "$r/raw/10mbit_10_1.stats1"
grep '^link_mbit\|^10,10,1,page,h2c,\|^10,10,1,page,usrsctp100,' "$d/samples.csv" >"$r/samples.csv"
grep '^row\|,10,' "$d/unshaped.csv" >"$r/unshaped.csv"
cp "$d/page.sizes" "$r/" && echo "ok - placeholder" >"$r/fidelity.txt" && : >"$r/bound.txt"
printf 'experiment 06 on lab v2\ngit: x\ncells: 10mbit:10:1 (rate:one-way delay ms:loss %% each way, random), rows: h2c usrsctp100, 6 run(s) a cell, interleaved\nrun time: 99 s\nmode: full\n' >"$r/params.txt"
"$L" --reanalyse "$r" >"$tmp/r.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^ok .* 10mbit:10:1: s2c loss: 200 of 20000 packets .*99.8333 % (1 - 1 %/6' "$tmp/r.out" &&
	grep -q '^not ok .* 10mbit:10:1 h2c: s2c loss: 60 of 10000 packets' "$tmp/r.out" &&
	grep -q '^not ok .* 10mbit:10:1 usrsctp100: s2c loss: 140 of 10000 packets' "$tmp/r.out" &&
	grep -q '^ok .* 10mbit:10:1 h2c: c2s loss: 100 of 10000 packets' "$tmp/r.out" &&
	grep -qx '10mbit:10:1 fidelity-failed' "$r/bound.txt"
ok $? "each row's own loss judged from the counters after every run: h2c's 60 and usrsctp100's 140 of 10000 fail, the cell's 200 of 20000 passes (exit $rc)" ||
	grep 'loss:' "$tmp/r.out" | sed 's/^/# /'
grep -qF '| 10mbit:10:1 | usrsctp100 | 1.000 % of 10000 (ok) | 1.400 % of 10000 (FAIL) | 0 / 0 |' "$r/report.md" &&
	grep -qF '| 10mbit:10:1 | h2c | 1.000 % of 10000 (ok) | 0.600 % of 10000 (FAIL) | 0 / 0 |' "$r/report.md"
ok $? "report.md: each row's own loss per direction, with its verdict" || grep '^| 10mbit' "$r/report.md" | sed 's/^/# /'
# as committed (provenance/): the counters after every run packed in raw/runstats.tar.gz, unpacked
# by the reanalysis, the same verdicts
cp "$r/report.md" "$tmp/rows.md"
(cd "$r/raw" && tar -czf runstats.tar.gz *.order *-page-*.stats && rm -f *.order *-page-*.stats)
"$L" --reanalyse "$r" >"$tmp/r2.out" 2>&1
rc=$?
[ $rc = 1 ] && cmp -s "$tmp/rows.md" "$r/report.md" && [ "$(grep -c '^not ok' "$tmp/r2.out")" = 2 ]
ok $? "the same from raw/runstats.tar.gz (a committed run): the same report and the two failed rows (exit $rc)"

# --finish: a full run stopped in its second cell (10mbit:50:0 begun: two runs, a first snapshot,
# no bound line) made a run of its one finished cell; the other's runs and raw files dropped,
# params.txt and the report saying so, provenance/ and run.meta written
f=$tmp/fin
rm -rf "$f" && cp -a "$r" "$f" && rm -f "$f/params.txt" "$f/fidelity.txt" "$f/report.md" "$f/results.csv"
(cd "$f/raw" && tar -xzf runstats.tar.gz && rm runstats.tar.gz)
echo "10mbit:10:1 not link-bound (under 3x the link: usrsctp100)" >"$f/bound.txt"
for rep in 1; do for row in h2c usrsctp100; do
	echo "10,50,0,page,$row,$rep,100,100,x,9.000,9.1,1,2,3,4,log,1,0.1,0.1,cubic,0,0,0,0,random,1bdp" >>"$f/samples.csv"
	echo "$row $rep 10mbit_50_0-page-$row-$rep.stats" >>"$f/raw/10mbit_50_0.order"
	cp "$f/raw/10mbit_10_1.stats1" "$f/raw/10mbit_50_0-page-$row-$rep.stats"
done; done
cp "$f/raw/10mbit_10_1.stats1" "$f/raw/10mbit_50_0.stats0"
"$L" --finish "$f" --cells "10mbit:10:1 10mbit:50:0" >"$tmp/f.out" 2>&1
rc=$?
grep -q '^cells: 10mbit:10:1 (rate' "$f/params.txt" &&
	grep -qx 'interrupted: stopped in its cell 2; made a run of its 1 finished cells by labv2.sh --finish on .* (8 runs of the unfinished cells dropped); planned and not finished: 10mbit:50:0' "$f/params.txt" \
	&& grep -q '^cells: 10mbit:10:1 (rate.*, rows: h2c usrsctp100, 6 run(s) a cell' "$f/params.txt" &&
	! grep -q '^10,50,' "$f/samples.csv" && ! ls "$f"/raw/10mbit_50_0* >/dev/null 2>&1 &&
	grep -q '^\*\*An interrupted run\*\*: stopped in its cell 2' "$f/report.md" &&
	[ -s "$f/provenance/raw/runstats.tar.gz" ] && grep -q '^06-multiplexing|full|native|' "$f/run.meta" &&
	grep -q '^not ok .* 10mbit:10:1 h2c: s2c loss: 60 of 10000' "$tmp/f.out"
ok $? "--finish: the finished cell made a run (exit $rc, its planted row loss failing as before), the begun cell's 2 runs (and 6 of another loss model) and raw files dropped, params.txt and the report say 'interrupted', provenance/ and run.meta written" ||
	{ tail -5 "$tmp/f.out"; grep '^cells\|^interrupted' "$f/params.txt"; } | sed 's/^/# /'
"$L" --finish "$f" >"$tmp/f2.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'it has params.txt (a run that finished: --reanalyse it)' "$tmp/f2.out"
ok $? "--finish on a run that has its params.txt: refused, named (exit $rc)"
done_testing
