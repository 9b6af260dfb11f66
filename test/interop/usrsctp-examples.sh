#!/bin/bash
# usrsctp-examples.sh: our usrsctp type against usrsctp's example programs (TAP).
#
# The examples come from Debian's libusrsctp-examples (/usr/lib/usrsctp). Each program runs its
# own usrsctp stack on its own UDP encapsulation port; their arguments put the ports:
#   echo_server|discard_server|daytime_server LOCAL_UDP REMOTE_UDP   (SCTP ports 7, 9, 13)
#   client ADDR PORT LOCAL_PORT LOCAL_UDP REMOTE_UDP                  (stdin lines out, echoes out)
#   http_client ADDR PORT LOCAL_PORT LOCAL_UDP REMOTE_UDP URI
#   tsctp [-E LOCAL_UDP] [-U REMOTE_UDP] [-l LEN] [-n COUNT] -p PORT [ADDR]  (no ADDR: server)
# Environment: top_builddir, USRSCTP_EXAMPLES (default /usr/lib/usrsctp), USRSCTP_INTEROP_PORT
# (first of 24 UDP ports to use; default: a free range picked at random).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
P=${TP_PEER:-$top_builddir/test/interop/tp_peer}
E=${USRSCTP_EXAMPLES:-/usr/lib/usrsctp}
PLAN=14

if [ ! -x "$P" ]; then
	ok 1 "$P not built (make check builds it)"
	done_testing
	exit
fi
for prog in echo_server discard_server daytime_server client tsctp http_client; do
	if [ ! -x "$E/$prog" ]; then
		ok 1 "$E/$prog missing (apt-get install libusrsctp-examples)"
		done_testing
		exit
	fi
done

scratch usrsctp-examples

have_ss=0
ss -Huan >/dev/null 2>&1 && have_ss=1

udp_bound() {
	[ "$have_ss" = 1 ] && ss -Huan "sport = :$1" 2>/dev/null | grep -q .
}

# A range of 24 UDP ports that nothing holds.
pick_base() {
	local try b i busy
	if [ -n "$USRSCTP_INTEROP_PORT" ]; then
		base=$USRSCTP_INTEROP_PORT
		return
	fi
	for try in $(seq 1 30); do
		b=$((20000 + (RANDOM % 500) * 24))
		busy=0
		for i in $(seq 0 23); do
			if udp_bound $((b + i)); then
				busy=1
				break
			fi
		done
		if [ "$busy" = 0 ]; then
			base=$b
			return
		fi
	done
	base=$b
}
pick_base

# Show a file in the TAP log, without usrsctp's own debug lines.
show() {
	local f
	for f in "$@"; do
		[ -s "$f" ] || continue
		echo "# --- $(basename "$f")"
		grep -av '^\[S\]' "$f" | tail -n 15 | sed 's/^/#   /'
	done
}
check() {
	local desc=$1
	shift
	if "$@"; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		show "$tmp"/*.out "$tmp"/*.err
	fi
	rm -f "$tmp"/*.out "$tmp"/*.err
}

# Wait (5 s at most) until a UDP port is bound: without ss, a fixed pause.
wait_udp() {
	local i
	if [ "$have_ss" = 0 ]; then
		sleep 0.5
		return
	fi
	for i in $(seq 1 50); do
		udp_bound "$1" && return 0
		sleep 0.1
	done
	return 1
}

# Wait (5 s at most) until a file has a line matching a pattern.
wait_line() {
	local i
	for i in $(seq 1 50); do
		grep -aq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# start NAME UDP_PORT COMMAND...: in the background, output in $tmp/NAME.out and .err.
start() {
	local name=$1 port=$2
	shift 2
	stdbuf -oL -eL "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	last=$!
	pids="$pids $last"
	wait_udp "$port"
}

# A tp_peer server: wait for its "listening on" line.
start_peer() {
	daemon_start "$1" '^listening on ' "$P" --timeout 60 "${@:2}"
}

stop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

peer() {
	timeout 40 "$P" --timeout 30 "$@"
}

# peer_first ARGS...: the first peer against an example server just started, its output in
# $tmp/c.out and c.err. The server binds its UDP port (what start waits for) before it
# listens, and prints nothing when it does: an association refused is tried again, 5 s at most.
peer_first() {
	local i
	for i in $(seq 1 25); do
		peer "$@" >"$tmp/c.out" 2>"$tmp/c.err" && return 0
		grep -q 'could not be started' "$tmp/c.err" || return 1
		sleep 0.2
	done
	return 1
}

echo "# tp_peer: $P; examples: $E; UDP ports $base..$((base + 23))"

# --- echo_server (one-to-many, SCTP port 7): our client.
e1=$((base + 0)) e2=$((base + 1))
start echo_server "$e1" "$E/echo_server" "$e1" "$e2"
echo_pid=$last

t_echo_text() {
	peer_first --udp-port "$e2" --udp-remote-port "$e1" --stream 3 --ppid 42 \
	    send usrsctp 127.0.0.1:7 hello "second message" &&
	grep -qx 'reply stream=3 ppid=42 len=5: hello' "$tmp/c.out" &&
	grep -qx 'reply stream=3 ppid=42 len=14: second message' "$tmp/c.out"
}
check "echo_server echoes our messages on their stream with their PPID" t_echo_text

t_echo_flags() {
	peer --udp-port "$e2" --udp-remote-port "$e1" --stream 5 --unordered --lifetime 2000 \
	    --size 8000 --count 3 send usrsctp 127.0.0.1:7 >"$tmp/c.out" 2>"$tmp/c.err" &&
	[ "$(grep -cx 'reply stream=5 ppid=0 unordered len=8000 match' "$tmp/c.out")" = 3 ]
}
check "echo_server: unordered PR-SCTP messages of 8000 bytes come back intact" t_echo_flags

t_echo_streams() {
	! peer --verbose --udp-port "$e2" --udp-remote-port "$e1" --streams 3000 --stream 2500 \
	    send usrsctp 127.0.0.1:7 x >"$tmp/c.out" 2>"$tmp/c.err" &&
	grep -q 'peer granted [0-9]* of the 3000 outbound streams' "$tmp/c.err" &&
	grep -q 'stream 2500 out of range' "$tmp/c.err"
}
check "echo_server grants fewer streams than asked: told, and a stream beyond is refused" \
    t_echo_streams
stop "$echo_pid"

# --- discard_server (SCTP port 9): it prints what it got, PPID in host order.
d1=$((base + 2)) d2=$((base + 3))
start discard_server "$d1" "$E/discard_server" "$d1" "$d2"
discard_pid=$last
t_discard() {
	local f="$tmp/discard_server.out"
	peer_first --udp-port "$d2" --udp-remote-port "$d1" --stream 2 --ppid 258 --no-reply \
	    send usrsctp 127.0.0.1:9 one twotwo "three three" &&
	wait_line "$f" 'Msg of length 11 ' &&
	grep -aq 'Msg of length 3 .* on stream 2 .*PPID 258,' "$f" &&
	grep -aq 'Msg of length 6 .* on stream 2 .*PPID 258,' "$f" &&
	grep -aq 'Msg of length 11 .* on stream 2 .*PPID 258,' "$f"
}
check "discard_server gets our 3 messages: lengths, stream 2, PPID 258 in network order" \
    t_discard
stop "$discard_pid"

# --- daytime_server (one-to-one, SCTP port 13): sends the time and closes.
y1=$((base + 4)) y2=$((base + 5))
start daytime_server "$y1" "$E/daytime_server" "$y1" "$y2"
daytime_pid=$last
t_daytime() {
	peer_first --udp-port "$y2" --udp-remote-port "$y1" get usrsctp 127.0.0.1:13 &&
	grep -Eq '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}$' \
	    "$tmp/c.out"
}
check "daytime_server: we read the date, then the end of the association" t_daytime

# The same through a relay that drops the server's SHUTDOWN COMPLETE (chunk type 14): the end
# is the peer's SHUTDOWN, read after its last data (SCTP has no half-close), not the handshake
# after it, which here never completes (our SHUTDOWN ACK is sent again and again): so the date,
# and an exit after the 3 s that a process gives its associations' shutdowns at most.
r1=$((base + 18)) r2=$((base + 19)) r3=$((base + 20))
start relay "$r1" python3 "$here/sctp-udp-relay.py" "$r1" "$r2" "$y1" 14 "$tmp/relay.count"
relay_pid=$last
t_daytime_relay() {
	local t0 ms
	t0=$(date +%s%N)
	peer_first --udp-port "$r3" --udp-remote-port "$r1" get usrsctp 127.0.0.1:13 || return 1
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "ended $ms ms after the start; relay: $(cat "$tmp/relay.count")" >>"$tmp/c.err"
	grep -Eq '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ' "$tmp/c.out" &&
	[ "$ms" -lt 10000 ] &&
	wait_line "$tmp/relay.count" 'dropped [1-9]'
}
check "daytime_server, its SHUTDOWN COMPLETE dropped: the end at its SHUTDOWN, out within 10 s" \
    t_daytime_relay
stop "$relay_pid"
stop "$daytime_pid"

# --- usrsctp's client against our echo listener.
l1=$((base + 6)) l2=$((base + 7))
t_client() {
	start_peer lis --udp-port "$l1" --udp-remote-port "$l2" listen usrsctp 127.0.0.1:5001 ||
	    return 1
	(echo hello; sleep 0.3; echo "second line"; sleep 0.5) |
	    timeout 30 "$E/client" 127.0.0.1 5001 0 "$l2" "$l1" >"$tmp/client.out" 2>"$tmp/client.err"
	stop "$last"
	grep -aqx hello "$tmp/client.out" && grep -aqx 'second line' "$tmp/client.out"
}
check "usrsctp client: our listener echoes its lines" t_client

# --- tsctp client against our counting listener.
r1=$((base + 8)) r2=$((base + 9))
t_tsctp_client() {
	local rp
	start_peer recv --udp-port "$r1" --udp-remote-port "$r2" recv usrsctp 127.0.0.1:5002 ||
	    return 1
	rp=$last
	timeout 30 "$E/tsctp" -E "$r2" -U "$r1" -l 1000 -n 100 -p 5002 127.0.0.1 \
	    >"$tmp/tsctp.out" 2>"$tmp/tsctp.err" || return 1
	wait "$rp"
	grep -qx 'received 100 messages, 100000 bytes' "$tmp/recv.out"
}
check "tsctp client sends 100 messages of 1000 bytes: our listener counts them all" \
    t_tsctp_client

# --- tsctp server against our client.
s1=$((base + 10)) s2=$((base + 11))
start tsctp_server "$s1" "$E/tsctp" -E "$s1" -p 5003
tsctp_pid=$last
t_tsctp_server() {
	peer --udp-port "$s2" --udp-remote-port "$s1" --size 1000 --count 50 --no-reply \
	    send usrsctp 127.0.0.1:5003 >"$tmp/c.out" 2>"$tmp/c.err" &&
	wait_line "$tmp/tsctp_server.out" '^1000, 50, [0-9]*, 50000, '
}
check "tsctp server gets our 50 messages of 1000 bytes, then our clean close" t_tsctp_server
stop "$tsctp_pid"

# --- http_client against our listener, which echoes the request and closes.
h1=$((base + 12)) h2=$((base + 13))
t_http() {
	start_peer http --udp-port "$h1" --udp-remote-port "$h2" --close-after 1 \
	    listen usrsctp 127.0.0.1:8080 || return 1
	timeout 30 "$E/http_client" 127.0.0.1 8080 0 "$h2" "$h1" / \
	    >"$tmp/http_client.out" 2>"$tmp/http_client.err" || return 1
	stop "$last"
	sed -n '/^HTTP response:/,$p' "$tmp/http_client.out" | grep -aq '^GET / HTTP/1.0'
}
check "http_client: our listener sends its request back and closes without loss" t_http

# --- two processes of ours: a 1 MiB message, and the errors.
m1=$((base + 14)) m2=$((base + 15))
start_peer big --udp-port "$m1" --udp-remote-port "$m2" listen usrsctp 127.0.0.1:6000
big_pid=$last
t_big() {
	peer --udp-port "$m2" --udp-remote-port "$m1" --size 1048576 --count 2 \
	    send usrsctp 127.0.0.1:6000 >"$tmp/c.out" 2>"$tmp/c.err" &&
	[ "$(grep -cx 'reply stream=0 ppid=0 len=1048576 match' "$tmp/c.out")" = 2 ]
}
check "two processes: 1 MiB messages echoed intact" t_big

t_refused() {
	! peer --udp-port "$m2" --udp-remote-port "$m1" send usrsctp 127.0.0.1:5999 x \
	    >"$tmp/c.out" 2>"$tmp/c.err" &&
	grep -q 'refused' "$tmp/c.err"
}
check "connect to a port nobody listens on: connection refused" t_refused

t_in_use() {
	! peer --udp-port "$m1" send usrsctp 127.0.0.1:6000 x >"$tmp/c.out" 2>"$tmp/c.err" &&
	grep -q "UDP port $m1 in use" "$tmp/c.err"
}
check "a UDP port another stack holds: UDP port in use" t_in_use
stop "$big_pid"

a1=$((base + 16)) a2=$((base + 17))
t_abort() {
	start_peer abort --udp-port "$a1" --udp-remote-port "$a2" --close-after 1 \
	    listen usrsctp 127.0.0.1:6001 || return 1
	! peer --udp-port "$a2" --udp-remote-port "$a1" --size 100000 --count 100 --no-reply \
	    send usrsctp 127.0.0.1:6001 >"$tmp/c.out" 2>"$tmp/c.err"
	local rc=$?
	stop "$last"
	[ "$rc" = 0 ] && grep -q 'aborted by peer' "$tmp/c.err"
}
check "the peer closes with data unread (ABORT) mid-transfer: we say so" t_abort

[ "$tap_n" = "$PLAN" ] || ok 1 "ran $tap_n tests, planned $PLAN"
done_testing
