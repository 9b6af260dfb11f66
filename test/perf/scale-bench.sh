#!/bin/bash
# scale-bench.sh: sctphttpd over usrsctp beside the same server over TCP, as associations
# (connections) grow: 1, 10, 100, 1000 of them kept busy by httpload (closed loop, 1 KiB file),
# keep-alive and one association per request. Each figure RUNS times (default 3), usrsctp and
# TCP runs interleaved; median (min-max) of req/s, the usrsctp/TCP ratio per pair, p99.9
# latency, and the server's RSS after each size (one server per transport for the whole run:
# flat RSS means no growth with the associations served), and per row the usrsctp
# retransmission timeouts of both processes and the UDP datagrams the kernel dropped (the why
# of a tail: docs/usrsctp-costs.md). Markdown on stdout.
# Then the fair latency figure: 1000 associations at a fixed offered rate below both
# transports' capacity (open loop), where a closed loop's latency only restates its rate.
# Targets (issue 23): p99.9 under 50 ms at 1000 associations, keep-alive req/s at least 0.6 of
# TCP's, RSS flat (test/perf/churn-bench.sh: over a long churn).
# "On one core": with PIN=1 (the default on a host of 2 CPUs or more) the server, all its
# threads, runs on CPU 1 and httpload on CPU 0, for both transports alike.
#   test/perf/scale-bench.sh [SECONDS]   (default 3; COUNTS="1 10 100 1000"; RUNS=N;
#   OPEN_N=1000 OPEN_RATE=2000: the open-loop row, OPEN_N= for none; PIN=0|1;
#   USRSCTP_LIBDIR=DIR: the usrsctp processes on DIR/libusrsctp.so.2, scripts/usrsctp-release.sh;
#   USRSCTP_TYPE=usrsctp-nt: usrsctp without its threads, bench-lib.sh)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/../.." && pwd)}
. "$here/bench-lib.sh"
bench_netns "$@"
D=${1:-3}
COUNTS=${COUNTS-1 10 100 1000}   # empty: the open-loop row only
OPEN_N=${OPEN_N-1000}      # the open-loop row: OPEN_N associations (empty: no such row)
OPEN_RATE=${OPEN_RATE:-2000} # ... asked OPEN_RATE requests/s in all
OPEN_CALLS=20              # ... in sessions of this many calls
bench_need "$SCTPHTTPD" "$HTTPLOAD" python3 ss
bench_pin
bench_scratch scale-bench
tp=$(free_tcp)
bench_usrsctp_httpd scale-bench -p "$tp" -h 127.0.0.1
rss0=$(rss_kb $hpid)

load() { # PROTO N ka|one|open -> JSON on stdout
	local args="--server 127.0.0.1 --uri /1k.bin --timeout 10 --json"
	case $3 in
	ka) args="$args -c $2 -d $D" ;;
	one) args="$args -c $2 -d $D --num-calls 1" ;;
	open) # N associations open, each asking every N/OPEN_RATE s: OPEN_RATE req/s offered
		args="$args --rate $((OPEN_RATE / OPEN_CALLS))"
		args="$args --wsess $((2 * $2)),$OPEN_CALLS,$(awk -v n=$2 -v r=$OPEN_RATE 'BEGIN { printf "%g", n / r }')" ;;
	esac
	if [ "$1" = usrsctp ]; then
		# shellcheck disable=SC2086
		SCTPAPPS_USRSCTP_STATS=$tmp/cs "${usrsctp_env[@]}" "${pin_cli[@]}" "$HTTPLOAD" $args \
		    --port 8080 --proto "$USRSCTP_TYPE" --udp-port $((base + 1)) --udp-remote-port "$base" 2>>"$tmp/l.err"
	else
		# shellcheck disable=SC2086
		"${pin_cli[@]}" "$HTTPLOAD" $args --port "$tp" 2>>"$tmp/l.err"
	fi
}
field() { json_field "$1" "$2"; }
# The server's usrsctp counters now (SIGUSR2's second line), and the sum of the counters named
# in $2 (comma-separated) in the lines of $1, for the why of a tail: retransmission timeouts
# (timodata, timoinit, timocookie), duplicates the peer received (a timeout that was spurious),
# and the datagrams the kernel dropped (UDP RcvbufErrors and InErrors of this namespace).
srv_counters() { sigusr2_line $hpid "$tmp/h.err" "transport counters"; }
csum() { tr ' ;' '\n\n' <"$1" | awk -F= -v k=",$2," 'index(k, "," $1 ",") { s += $2 } END { print s + 0 }'; }
udp_drops() { awk '/^Udp:/ { n++; if (n == 1) for (i = 1; i <= NF; i++) h[i] = $i
	else for (i = 1; i <= NF; i++) if (h[i] == "RcvbufErrors" || h[i] == "InErrors") s += $i }
	END { print s + 0 }' /proc/net/snmp; }
T3=timodata,timoinit,timocookie
# The server's CPU (user + system, every thread) in % of one core over a load: which side is
# the bottleneck (pinned, each has one core: a side at 100 % is the limit).
srv_ticks() { awk '{ print $14 + $15 }' "/proc/$hpid/stat"; }
# The server's context switches (every thread, voluntary and forced) per reply over a load: on
# one core, how often usrsctp's receive thread and the loop hand the core to each other.
srv_switches() { awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { s += $2 } END { print s + 0 }' \
	/proc/"$hpid"/task/*/status 2>/dev/null; }
per_reply() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { if (r > 0) printf "%.2f\n", (b - a) / r }'; }
now_s() { date +%s.%N; }
cpu_pct() { awk -v t0="$1" -v t1="$2" -v w0="$3" -v w1="$4" -v hz="$(getconf CLK_TCK)" \
	'BEGIN { if (w1 > w0) printf "%.0f\n", 100 * (t1 - t0) / hz / (w1 - w0) }'; }
cli_pct() { # httpload's own CPU over its duration, from its --json
	awk -v u="$(field "$1" cpu_s/user)" -v s="$(field "$1" cpu_s/system)" -v d="$(field "$1" duration_s)" \
	    'BEGIN { if (d > 0) printf "%.0f\n", 100 * (u + s) / d }'
}

echo "## Scaling: sctphttpd over $USRSCTP_TYPE beside TCP"
echo
echo "httpload -c N (closed loop) on a 1 KiB file, ${D} s a run, $RUNS runs each, usrsctp and TCP"
echo "interleaved; one sctphttpd serving both. Load average at the start: $(bench_load)."
echo "libusrsctp: $(bench_usrsctp_lib $hpid); the usrsctp httpload runs load the same."
echo "CPUs: $(nproc), $pin_note."
echo
echo "| N | mode | usrsctp req/s | TCP req/s | usrsctp/TCP | usrsctp p99.9 ms | TCP p99.9 ms | server CPU %, usrsctp / TCP | server context switches a reply, usrsctp / TCP | httpload CPU %, usrsctp / TCP | usrsctp errors | usrsctp T3 timeouts (spurious) | UDP drops | server RSS kB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
rows() { # N MODES...
	local n=$1 mode i u t
	shift
	for mode in "$@"; do
		: >"$tmp/u"; : >"$tmp/t"; : >"$tmp/r"; : >"$tmp/up"; : >"$tmp/tp"; : >"$tmp/ue"
		: >"$tmp/cs"; : >"$tmp/s0"; : >"$tmp/s1"; : >"$tmp/uc"; : >"$tmp/tc"; : >"$tmp/ucl"; : >"$tmp/tcl"; : >"$tmp/ux"; : >"$tmp/tx"
		d0=$(udp_drops)
		for i in $(seq 1 "$RUNS"); do
			srv_counters >>"$tmp/s0"
			k0=$(srv_ticks) w0=$(now_s) x0=$(srv_switches)
			load usrsctp "$n" $mode >"$tmp/uj"
			cpu_pct "$k0" "$(srv_ticks)" "$w0" "$(now_s)" >>"$tmp/uc"
			per_reply "$x0" "$(srv_switches)" "$(field "$tmp/uj" replies)" >>"$tmp/ux"
			srv_counters >>"$tmp/s1"
			k0=$(srv_ticks) w0=$(now_s) x0=$(srv_switches)
			load tcp "$n" $mode >"$tmp/tj"
			cpu_pct "$k0" "$(srv_ticks)" "$w0" "$(now_s)" >>"$tmp/tc"
			per_reply "$x0" "$(srv_switches)" "$(field "$tmp/tj" replies)" >>"$tmp/tx"
			cli_pct "$tmp/uj" >>"$tmp/ucl"
			cli_pct "$tmp/tj" >>"$tmp/tcl"
			u=$(field "$tmp/uj" reply_rate)
			t=$(field "$tmp/tj" reply_rate)
			echo "$u" >>"$tmp/u"; echo "$t" >>"$tmp/t"; ratio "$u" "$t" >>"$tmp/r"
			field "$tmp/uj" latency_ms/p99.9 >>"$tmp/up"
			field "$tmp/tj" latency_ms/p99.9 >>"$tmp/tp"
			field "$tmp/uj" errors/total >>"$tmp/ue"
		done
		echo "| $n | $(case $mode in ka) echo keep-alive ;; one) echo one per request ;; open) echo "open loop, $OPEN_RATE req/s offered" ;; esac) |" \
		    "$(spread <"$tmp/u") | $(spread <"$tmp/t") | $(spread <"$tmp/r") |" \
		    "$(spread <"$tmp/up") | $(spread <"$tmp/tp") |" \
		    "$(median <"$tmp/uc") / $(median <"$tmp/tc") | $(median <"$tmp/ux") / $(median <"$tmp/tx") |" \
		    "$(median <"$tmp/ucl") / $(median <"$tmp/tcl") |" \
		    "$(awk '{ s += $1 } END { print s + 0 }' "$tmp/ue") |" \
		    "$(($(csum "$tmp/cs" $T3) + $(csum "$tmp/s1" $T3) - $(csum "$tmp/s0" $T3)))" \
		    "($(($(csum "$tmp/cs" recvdupdata) + $(csum "$tmp/s1" recvdupdata) - $(csum "$tmp/s0" recvdupdata)))) |" \
		    "$(($(udp_drops) - d0)) | $(rss_kb $hpid) |"
	done
}
for n in $COUNTS; do
	rows "$n" ka one
done
[ -z "$OPEN_N" ] || rows "$OPEN_N" open
echo
echo "The closed-loop rows keep N clients busy: their latency is N / throughput (Little's law),"
echo "so at 1000 clients it mostly restates the rate."
if [ -n "$OPEN_N" ]; then
	echo "The open-loop row is the fair latency"
	echo "figure: $OPEN_N associations open, each asking once every $(awk -v n=$OPEN_N -v r=$OPEN_RATE 'BEGIN { printf "%g", n / r }') s ($OPEN_CALLS calls a session, sessions"
	echo "started at a fixed rate for twice a session's life: httpload --rate --wsess), $OPEN_RATE req/s offered"
	echo "while all are open; its latency counts from when each call was due (an association's first"
	echo "call from when it was due to connect). Its req/s is the mean over the run, ramps included: a"
	echo "transport that keeps up shows $((2 * OPEN_N * OPEN_CALLS)) calls over 3 session lives, 2/3 of the offered rate; less means it fell"
	echo "behind, and its latency is then a queue's."
fi
echo
echo "Server CPU: sctphttpd's user + system time, all its threads, in % of one core over each load"
echo "(medians); httpload CPU: the client's own, from its --json. Pinned, a side at about 100 % is"
echo "what limits the rate; usrsctp's threads can take a little over one core's worth unpinned."
echo "Context switches: the server's, every thread, voluntary and forced, per reply. usrsctp's"
echo "receive thread hands each datagram to the loop; as a SCHED_BATCH thread it does not preempt the"
echo "loop on wake-up and takes what queued meanwhile in one go (SCTPAPPS_USRSCTP_SCHED=normal: as"
echo "before, one switch there and one back per datagram at 10 associations)."
echo
echo "T3 timeouts: usrsctp's retransmission timeouts (DATA, INIT, COOKIE-ECHO) in both processes"
echo "over the row's usrsctp runs; in brackets the duplicate DATA chunks they received, which is"
echo "what a timeout that fired for want of a late SACK (not of a loss) leaves. UDP drops: the"
echo "kernel's RcvbufErrors and InErrors over the row (both transports; the namespace is the run's)."
echo
echo "Server RSS: $rss0 kB at the start, $(rss_kb $hpid) kB at the end. Load average at the end: $(bench_load)."
kill -0 $hpid 2>/dev/null || echo "**sctphttpd died during the run.**"
