#!/bin/sh
# exp06-awk.sh: experiment 06's awk programs (and hltls.awk, h2connect.awk: the encrypted rows'
# handshakes), shared by the VM lab's driver and lab v2's
# (test/experiments/06-multiplexing/h3log.awk, bodies.awk), on made-up input with exact answers:
# gtlsclient's stamped lines to per-request latencies and the run's time (from T0 or from the
# first submit; a stream closed twice counted once, a close with no submit not at all); the
# objects that did not arrive whole (missing, short, one more than the manifest says).
. "$(dirname "$0")/../lib.sh"
scratch exp06-awk
d=$top_srcdir/test/experiments/06-multiplexing
printf '%s\n' '100.000 http: stream 0x0 submit' '100.010 http: stream 0xa submit' \
    '100.500 HTTP stream 0 closed' '100.810 HTTP stream 10 closed' '100.900 HTTP stream 10 closed' \
    '101.000 HTTP stream 14 closed' >"$tmp/h3.out"
sum=$(awk -v lat="$tmp/lat1" -v t0=99.5 -f "$d/h3log.awk" "$tmp/h3.out")
[ "$sum" = "2 1.310" ] && [ "$(tr '\n' ' ' <"$tmp/lat1")" = "500.000 800.000 " ]
ok $? "h3log.awk from T0 99.5: 2 requests in 1.310 s, latencies 500 and 800 ms (got '$sum', $(tr '\n' ' ' <"$tmp/lat1"))"
sum=$(awk -v lat="$tmp/lat2" -v t0= -f "$d/h3log.awk" "$tmp/h3.out")
[ "$sum" = "2 0.810" ]
ok $? "h3log.awk without T0: timed from the first submit, 0.810 s (got '$sum')"
sum=$(printf '' | awk -v lat="$tmp/lat3" -v t0=5 -f "$d/h3log.awk")
[ "$sum" = "0 0.000" ]
ok $? "h3log.awk with no line: 0 requests, 0 s (got '$sum')"
printf '%s\n' '/a 10' '/b 5' '/d 7' >"$tmp/got"
printf '%s\n' '/a 10 x' '/b 6 y' '/c 1 z' '/d 7 w' >"$tmp/manifest"
printf '%s\n' /a /b /c /d >"$tmp/workload"
bad=$(awk -f "$d/bodies.awk" - "$tmp/manifest" "$tmp/workload" <"$tmp/got")
[ "$bad" = 2 ]
ok $? "bodies.awk: /b short and /c missing, /a and /d whole: 2 (got $bad)"
# hltls.awk on a real httpload --ssl --json report (4 streams over usrsctp-nt, 8 calls): its
# "tls" object and the association's set-up from the raw counters (1.292 ms); the raw section's
# own "tls" (sums in s) not taken for it
cat >"$tmp/hl.json" <<'JSON'
{"connections":1,"requests":8,"replies":8,"duration_s":0.007129,"conn_rate":140.272,"request_rate":1122.177,"reply_rate":1122.177,"bytes":{"request":560,"header":1872,"content":40000,"footer":0},"status":{"1xx":0,"2xx":8,"3xx":0,"4xx":0,"5xx":0},"errors":{"total":0,"client-timo":0,"socket-timo":0,"connrefused":0,"connreset":0,"fd-unavail":0,"addrunavail":0,"ftab-full":0,"other":0,"corrupt":0},"latency_ms":{"min":0.150,"mean":2.858,"p50":0.538,"p90":5.638,"p99":5.638,"p99.9":5.638,"max":5.638,"stddev":2.794},"cpu_s":{"user":0.003,"system":0.000},"tls":{"handshakes":4,"resumed":3,"handshake_mean_ms":2.649,"handshake_max_ms":3.029},"raw":{"format":1,"duration":0.0071289999999999999,"user":0.0033800000000000002,"system":4.200000000000037e-05,"conns_connected":1,"max_conns":1,"max_burst":0,"connect_sum":0.001292,"responses":8,"replies":8,"response_sum":0.022849999999999999,"xfer_sum":1.4000000000000003e-05,"life":{"n":1,"sum":0.0071019999999999998,"sum2":5.0438403999999999e-05,"min":0.0071019999999999998,"max":0.0071019999999999998,"hist":[[7,1]]},"rate":{"n":0,"sum":0,"sum2":0,"min":1.7976931348623157e+308,"max":0},"sess":{"ok":0,"failed":0,"conns":0,"life_sum":0,"fail_sum":0,"rate_n":0,"rate_sum":0,"rate_sum2":0,"rate_min":1.7976931348623157e+308,"rate_max":0,"len":[]},"lat":{"n":8,"min":150,"max":5638,"sum":22864,"sum2":119987846,"hist":[[150,2],[167,1],[538,1],[5108,1],[5548,1],[5560,1],[5636,1]]},"clients":0,"client_rates":[0,0,0],"tls":{"handshakes":4,"resumed":3,"hs_sum":0.010598,"hs_max":0.003029}}}
JSON
got=$(awk -f "$d/hltls.awk" "$tmp/hl.json")
[ "$got" = "4 3 2.649 1.292" ]
ok $? "hltls.awk: 4 handshakes, 3 resumed, mean 2.649 ms, association set-up 1.292 ms (got '$got')"
got=$(printf '{"connections":1,"raw":{"conns_connected":1,"connect_sum":0.002}}\n' | awk -f "$d/hltls.awk")
[ "$got" = "- - - -" ]
ok $? "hltls.awk on a report in clear: '- - - -' (got '$got')"
# h2connect.awk: h2load's "time for connect" mean, whatever its unit
for c in '3.05ms 3.050' '950us 0.950' '1.2s 1200.000'; do
	printf 'finished in 1.00s\ntime for connect:   1us   2us   %s   0us   100.00%%\n' "${c% *}" >"$tmp/h2.out"
	got=$(awk -f "$d/h2connect.awk" "$tmp/h2.out")
	[ "$got" = "1 0 - ${c#* }" ]
	ok $? "h2connect.awk: a mean of ${c% *} is ${c#* } ms (got '$got')"
done
got=$(printf 'finished in 1.00s\n' | awk -f "$d/h2connect.awk")
[ "$got" = "- - - -" ]
ok $? "h2connect.awk without its line: '- - - -' (got '$got')"
done_testing
