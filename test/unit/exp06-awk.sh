#!/bin/sh
# exp06-awk.sh: experiment 06's two awk programs, shared by the VM lab's driver and lab v2's
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
done_testing
