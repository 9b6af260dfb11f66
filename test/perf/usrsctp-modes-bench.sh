#!/bin/bash
# usrsctp-modes-bench.sh: the two ways of running usrsctp, one message in flight (the keep-alive
# case at one association, where the thread hand-offs are not hidden by work): the round trip of
# msgperf over TCP, of msgperf over usrsctp with its threads (the type usrsctp: AF_INET in UDP),
# of msgperf over usrsctp without them (the type usrsctp-nt: AF_CONN, the stack fed from the
# program's loop, the same SCTP in UDP on the wire), and of test/perf/usrsctp-conn-rr, the bare
# threadless stack in a loop of its own (what our transport layer costs above it). Each figure
# RUNS times (default 3), the four interleaved, server on CPU 1 and client on CPU 0; median
# (min-max) of the mean round trip, and TCP's round trip over each (the rate against TCP's).
# usage: test/perf/usrsctp-modes-bench.sh [SECONDS]   (default 2; RUNS=N; SIZES="100 1000";
#        USRSCTP_LIBDIR=DIR: both usrsctp rows on DIR/libusrsctp.so.2)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/../.." && pwd)}
. "$here/bench-lib.sh"
bench_netns "$@"
D=${1:-2}
SIZES=${SIZES:-100 1000}
RR=${RR:-$top/test/perf/usrsctp-conn-rr}
bench_need "$MSGPERF" "$RR" taskset
bench_pin
pin_note=${pin_note/httpload/the client}
scratch usrsctp-modes
load0=$(bench_load)
base=$(free_udp_block 4)

# one_run MODE SIZE -> mean round trip in us (nothing when the run failed)
one_run() {
	local mode=$1 s=$2 sp port=$((base + 3)) out
	case $mode in
	conn)
		"${usrsctp_env[@]}" "${pin_srv[@]}" timeout 60 "$RR" server "$port" &
		sp=$!
		sleep 0.3
		out=$("${usrsctp_env[@]}" "${pin_cli[@]}" timeout 60 "$RR" client 127.0.0.1 "$port" "$s" "$D")
		wait $sp
		sed -n 's/.*mean RTT \([0-9.]*\) us$/\1/p' <<<"$out" ;;
	*)
		local srv_udp=() cli_udp=() # usrsctp: each process its own UDP port, the other's as remote
		[ "$mode" = tcp ] || srv_udp=(--udp-port $((base + 1)) --udp-remote-port "$base") \
		    cli_udp=(--udp-port "$base" --udp-remote-port $((base + 1)))
		"${usrsctp_env[@]}" "${pin_srv[@]}" "$MSGPERF" server -t "$mode" -a 127.0.0.1:$((base + 2)) \
		    --nodelay -q "${srv_udp[@]}" &
		sp=$!
		sleep 0.5
		"${usrsctp_env[@]}" "${pin_cli[@]}" timeout 60 "$MSGPERF" client -t "$mode" \
		    -a 127.0.0.1:$((base + 2)) -s "$s" -T latency -d "$D" --nodelay --csv -q "${cli_udp[@]}" 2>/dev/null |
		    awk -F, '$1 == "latency" { print $4 }'
		kill $sp 2>/dev/null
		wait $sp 2>/dev/null ;;
	esac
}

echo "# usrsctp with and without its threads: one message in flight"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); host $(uname -n), $(nproc) CPUs, Linux $(uname -r)"
echo "- load average at the start: $load0"
echo "- libusrsctp: $(bench_usrsctp_lib "$MSGPERF")"
echo "- $RUNS runs of $D s per figure, the four interleaved; $pin_note"
echo
echo "| size | TCP RTT us | usrsctp (threads) RTT us | TCP/that | usrsctp-nt (no threads) RTT us | TCP/that | bare threadless stack RTT us | TCP/that |"
echo "|---|---|---|---|---|---|---|---|"
fail=0
for s in $SIZES; do
	: >"$tmp/tcp" ; : >"$tmp/thr" ; : >"$tmp/nt" ; : >"$tmp/conn" ; : >"$tmp/r1" ; : >"$tmp/r2" ; : >"$tmp/r3"
	for i in $(seq 1 "$RUNS"); do
		t=$(one_run tcp "$s") u=$(one_run usrsctp "$s") n=$(one_run usrsctp-nt "$s") c=$(one_run conn "$s")
		[ -n "$t" ] && [ -n "$u" ] && [ -n "$n" ] && [ -n "$c" ] || { fail=1; echo "run $i at $s B failed: tcp '$t' usrsctp '$u' usrsctp-nt '$n' bare '$c'" >&2; continue; }
		echo "$t" >>"$tmp/tcp"; echo "$u" >>"$tmp/thr"; echo "$n" >>"$tmp/nt"; echo "$c" >>"$tmp/conn"
		ratio "$t" "$u" >>"$tmp/r1"; ratio "$t" "$n" >>"$tmp/r2"; ratio "$t" "$c" >>"$tmp/r3"
	done
	echo "| $s | $(spread <"$tmp/tcp") | $(spread <"$tmp/thr") | $(spread <"$tmp/r1") | $(spread <"$tmp/nt") | $(spread <"$tmp/r2") | $(spread <"$tmp/conn") | $(spread <"$tmp/r3") |"
done
echo
echo "load average at the end: $(bench_load)"
exit $fail
