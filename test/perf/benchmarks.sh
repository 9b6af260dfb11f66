#!/bin/bash
# benchmarks.sh: the project's performance figures as a Markdown report on stdout (make bench
# writes it to docs/benchmarks.md). Every figure is measured RUNS times (default 3), each run
# next to its peer's (A B A B ...), and given as median (min-max); ratios are taken per pair.
#   - usrsctp, both types (usrsctp, usrsctp-nt): msgperf's raw one-way rate at 100, 1000 and
#     10000 bytes, with the UDP RcvbufErrors counted over the runs; HTTP over each (a 10 MiB
#     GET, httpget --json: first request byte to last body byte) against the raw rate at the
#     server's message size (16384)
#   - sctphttpd against nginx over TCP (wrk -t1 -c50, 1 KiB and 100 KiB), --workers 2 against 1
#   - msgperf TCP against iperf3 (131072-byte writes)
# usage: test/perf/benchmarks.sh [SECONDS]    (default 3 s per run; RUNS=N; SCALE=1 appends
#        test/perf/scale-bench.sh's table for each usrsctp type; the usrsctp processes on
#        scripts/usrsctp-release.sh's optimised build by default, USRSCTP_LIBDIR=DIR: on
#        DIR/libusrsctp.so.2, USRSCTP_LIBDIR=system: on Debian's; the header says which)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/../.." && pwd)}
# the Release libusrsctp unless USRSCTP_LIBDIR says otherwise (scripts/usrsctp-lib.sh pick:
# built first where need be, before the network namespace; USRSCTP_LIBDIR=system: Debian's)
if [ -z "${BENCH_NETNS:-}" ]; then
	USRSCTP_LIBDIR=$("$here/../../scripts/usrsctp-lib.sh" pick) || exit 1
	export USRSCTP_LIBDIR
fi
. "$here/bench-lib.sh"
bench_netns "$@"
D=${1:-3}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
bench_need "$MSGPERF" "$SCTPHTTPD" "$HTTPGET" wrk "$NGINX" iperf3 python3 ss
scratch benchmarks
chmod 755 "$tmp"
mkdir "$tmp/doc" "$tmp/nginx"
head -c 1024 /dev/urandom >"$tmp/doc/1k.bin"
head -c 102400 /dev/urandom >"$tmp/doc/100k.bin"
head -c 10485760 /dev/urandom >"$tmp/doc/10m.bin"
chmod -R a+rX "$tmp/doc"
load0=$(bench_load)

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$top" diff --quiet HEAD 2>/dev/null || commit="$commit (with local changes)"
cat <<EOF
# Benchmarks

Written by \`make bench\` (test/perf/benchmarks.sh): do not edit by hand.

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- commit: $commit
- host: $(uname -n), $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), Linux $(uname -r)
- load average at the start: $load0
- libusrsctp: $(bench_usrsctp_lib "$SCTPHTTPD")
- method: $RUNS runs of ${D} s per figure, each next to its peer's run (A B A B ...);
  median (min-max); ratios per pair of runs. $([ "${BENCH_NETNS:-}" = 1 ] && echo "A network namespace of its own (private loopback and UDP counters).")

The host may be shared: the ratios between figures measured side by side hold better than the
absolute rates.

EOF

# --- usrsctp: both types, usrsctp (its own threads) and usrsctp-nt (none, in the loop) ---
base=$(free_udp_block 6)
mp_usrsctp() { # TYPE SIZE [FIRST-UDP-PORT] -> kbit/s; msgperf's server and client, two processes as HTTP's
	local sp p=${3:-$base}
	"${usrsctp_env[@]}" "$MSGPERF" server -q -t "$1" -a 127.0.0.1:$((p + 2)) \
	    --udp-port "$p" --udp-remote-port $((p + 1)) &
	sp=$!
	sleep 0.3
	"${usrsctp_env[@]}" "$MSGPERF" client -q --csv -t "$1" -a 127.0.0.1:$((p + 2)) -s "$2" \
	    -T oneway -d "$D" --udp-port $((p + 1)) --udp-remote-port "$p" |
	    awk -F, '$1 == "oneway" { print $4 }'
	kill $sp 2>/dev/null
	wait $sp 2>/dev/null
}
echo "## usrsctp"
echo
echo "Two types run usrsctp: \`usrsctp\`, the stack with its own threads and UDP encapsulation, and"
echo "\`usrsctp-nt\`, the stack without threads, fed by the program's event loop (docs/design.md)."
echo "msgperf, raw one way on the loopback, server and client processes (kbit/s), and the UDP"
echo "receive-buffer drops (/proc/net/snmp RcvbufErrors) over all the runs of a size, the two types"
echo "interleaved:"
echo
echo "| message size | usrsctp kbit/s | usrsctp-nt kbit/s | nt / threads | RcvbufErrors, usrsctp / usrsctp-nt |"
echo "|---|---|---|---|---|"
for s in 100 1000 10000; do
	: >"$tmp/mpu$s"; : >"$tmp/mpn$s"; : >"$tmp/mpr$s"; eu=0; en=0
	for i in $(seq 1 "$RUNS"); do
		e0=$(udp_rcvbuf_errors); u=$(mp_usrsctp usrsctp $s); e1=$(udp_rcvbuf_errors)
		n=$(mp_usrsctp usrsctp-nt $s); e2=$(udp_rcvbuf_errors)
		eu=$((eu + e1 - e0)); en=$((en + e2 - e1))
		echo "$u" >>"$tmp/mpu$s"; echo "$n" >>"$tmp/mpn$s"; ratio "$n" "$u" >>"$tmp/mpr$s"
	done
	echo "| $s | $(spread <"$tmp/mpu$s") | $(spread <"$tmp/mpn$s") | $(spread <"$tmp/mpr$s") | $eu / $en |"
done
echo

# http_vs_raw TYPE: a row of HTTP GETs over TYPE against msgperf's raw rate over TYPE
http_vs_raw() {
	local t=$1 i j r h e0 e1 upid
	daemon_start "u$t" "listening on $t " "${usrsctp_env[@]}" "$SCTPHTTPD" -L "$t:127.0.0.1:8080" \
	    --udp-port $((base + 2)) --udp-remote-port $((base + 3)) -d "$tmp/doc" >&2 ||
	    { echo "benchmarks: sctphttpd over $t did not start" >&2; exit 1; }
	upid=$daemon_pid
	# the body checked once; the timed GETs below write it nowhere, as msgperf keeps none
	"${usrsctp_env[@]}" "$HTTPGET" -s --proto "$t" --udp-port $((base + 3)) --udp-remote-port $((base + 2)) \
	    -o "$tmp/got" http://127.0.0.1:8080/10m.bin && cmp -s "$tmp/got" "$tmp/doc/10m.bin" ||
	    { echo "benchmarks: httpget over $t failed" >&2; exit 1; }
	e0=$(udp_rcvbuf_errors)
	: >"$tmp/raw" ; : >"$tmp/http" ; : >"$tmp/hr"
	for i in $(seq 1 "$RUNS"); do
		kill -STOP $upid # msgperf alone on the loopback: the server idles meanwhile
		r=$(mp_usrsctp "$t" 16384 $((base + 4)))
		kill -CONT $upid
		for j in 1 2 3; do # three GETs a run: one 10 MiB GET is under a second
			"${usrsctp_env[@]}" "$HTTPGET" --json -s --proto "$t" --udp-port $((base + 3)) \
			    --udp-remote-port $((base + 2)) -o /dev/null http://127.0.0.1:8080/10m.bin 2>"$tmp/g.json" ||
			    { echo "benchmarks: httpget over $t failed" >&2; cat "$tmp/g.json" >&2; exit 1; }
			json_get bytes_per_s <"$tmp/g.json"
		done >"$tmp/h3"
		h=$(awk '{ print $1 * 8 / 1000 }' "$tmp/h3" | median)
		echo "$r" >>"$tmp/raw"
		echo "$h" >>"$tmp/http"
		ratio "$h" "$r" >>"$tmp/hr"
	done
	e1=$(udp_rcvbuf_errors)
	kill $upid 2>/dev/null
	wait $upid 2>/dev/null
	echo "| $t | $(spread <"$tmp/raw") | $(spread <"$tmp/http") | $(spread <"$tmp/hr") | $((e1 - e0)) |"
}
cat <<EOF
HTTP over usrsctp: a 10 MiB GET from sctphttpd (16384-byte messages), timed by httpget --json from
the first request byte to the last body byte (the median of 3 GETs a run, the body written to
/dev/null as msgperf keeps none; one GET first is checked byte for byte), against msgperf's raw
one-way rate at 16384 bytes over the same type (the anchor; the goal is a ratio of at least 0.8):

| type | msgperf one way, 16384 B, kbit/s | HTTP GET 10 MiB, kbit/s | ratio HTTP / raw | UDP RcvbufErrors |
|---|---|---|---|---|
EOF
http_vs_raw usrsctp
http_vs_raw usrsctp-nt
echo

# --- sctphttpd against nginx over TCP ---
rps() { # THREADS URL -> requests/s
	wrk -t"$1" -c50 -d"$D" "$2" 2>&1 | sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p'
}
hp=$(free_tcp)
np=$(free_tcp)
"$SCTPHTTPD" -p "$hp" -h 127.0.0.1 -d "$tmp/doc" 2>"$tmp/h.err" &
hpid=$!
"$SCTPHTTPD" -p $((hp + 1)) -h 127.0.0.1 -d "$tmp/doc" --workers 2 2>"$tmp/h2.err" &
h2pid=$!
bench_nginx_conf 1 "$np"
"$NGINX" -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" 2>"$tmp/n.err" &
npid=$!
pids="$pids $hpid $h2pid $npid"
sleep 0.5
echo "## sctphttpd and nginx over TCP"
echo
echo "wrk -t1 -c50 keep-alive, one worker each (requests/s):"
echo
echo "| file | sctphttpd | nginx | ratio |"
echo "|---|---|---|---|"
for f in 1k.bin 100k.bin; do
	: >"$tmp/a"; : >"$tmp/b"; : >"$tmp/r"
	for i in $(seq 1 "$RUNS"); do
		a=$(rps 1 "http://127.0.0.1:$hp/$f")
		b=$(rps 1 "http://127.0.0.1:$np/$f")
		echo "$a" >>"$tmp/a"; echo "$b" >>"$tmp/b"; ratio "$a" "$b" >>"$tmp/r"
	done
	echo "| $f | $(spread <"$tmp/a") | $(spread <"$tmp/b") | $(spread <"$tmp/r") |"
done
echo
: >"$tmp/a"; : >"$tmp/b"; : >"$tmp/r"
for i in $(seq 1 "$RUNS"); do
	a=$(rps 2 "http://127.0.0.1:$hp/1k.bin")
	b=$(rps 2 "http://127.0.0.1:$((hp + 1))/1k.bin")
	echo "$a" >>"$tmp/a"; echo "$b" >>"$tmp/b"; ratio "$b" "$a" >>"$tmp/r"
done
kill $hpid $h2pid $npid 2>/dev/null
wait $hpid $h2pid $npid 2>/dev/null
cat <<EOF
sctphttpd --workers 2 against 1 worker, 1 KiB, wrk -t2 -c50 (requests/s; $(nproc) CPUs, which wrk
shares):

| 1 worker | 2 workers | gain |
|---|---|---|
| $(spread <"$tmp/a") | $(spread <"$tmp/b") | $(spread <"$tmp/r") |

EOF

# --- msgperf TCP against iperf3 ---
: >"$tmp/a"; : >"$tmp/b"; : >"$tmp/r"
for i in $(seq 1 "$RUNS"); do
	ip=$(free_tcp)
	iperf3 -s -1 -p "$ip" >/dev/null 2>&1 &
	sleep 0.3
	iperf3 -c 127.0.0.1 -p "$ip" -t "$D" -l 131072 -J >"$tmp/iperf.json" 2>/dev/null
	wait
	b=$(json_get end/sum_received/bits_per_second <"$tmp/iperf.json" | awk '{ printf "%.0f\n", $1 / 1000 }')
	a=$("$MSGPERF" -q --csv -t tcp -s 131072 -T oneway -d "$D" | awk -F, '$1 == "oneway" { print $4 }')
	echo "$a" >>"$tmp/a"; echo "$b" >>"$tmp/b"; ratio "$a" "$b" >>"$tmp/r"
done
cat <<EOF
## msgperf against iperf3

TCP one way on the loopback, 131072-byte writes (kbit/s):

| msgperf | iperf3 | ratio |
|---|---|---|
| $(spread <"$tmp/a") | $(spread <"$tmp/b") | $(spread <"$tmp/r") |

EOF
cat <<EOF
## usrsctp-nt against raw UDP

One way, 16 KiB messages over usrsctp-nt (msgperf) beside raw UDP on the same loopback (iperf3
-u, one 1452-byte datagram per \`sendto\`), interleaved: plain (\`sendmmsg\`/\`recvmmsg\`
batches only), default (with UDP GRO on receive) and gso (UDP GSO on send too,
\`SCTPAPPS_USRSCTP_GSO=1\`). Issue 35's targets: default >= 0.8 of UDP's rate, gso >= 1.5
(test/perf/nt-udp-bench.sh):

\`\`\`
$("$here/nt-udp-bench.sh" "$RUNS" "$D" 16384 2>&1)
\`\`\`

EOF
if [ "${SCALE:-0}" = 1 ]; then
	USRSCTP_TYPE=usrsctp "$here/scale-bench.sh" "$D"
	echo
	USRSCTP_TYPE=usrsctp-nt "$here/scale-bench.sh" "$D"
	echo
fi
echo "Load average at the end: $(bench_load)."
