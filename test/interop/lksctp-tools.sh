#!/bin/bash
# lksctp-tools.sh: our kernel SCTP types (sctp, sctp1m) against lksctp-tools' sctp_darn and
# sctp_test, both directions (TAP). Needs kernel SCTP: run it in the VM where the host lacks it,
#   test/vm/run test/interop/lksctp-tools.sh
#
# The peers (package lksctp-tools):
#   sctp_darn -H LOCAL -P PORT -l [-e] [-t]   prints what arrives (SNDRCV: stream, PPID as on the
#                                             wire), -e echoes each message back, -t one-to-one
#   sctp_darn -H LOCAL -P PORT -h ADDR|-c ADDR... -p PORT -s [-t] [-I]
#                                             sends each stdin line (with its newline and a NUL);
#                                             -I: commands "snd=LEN", "abort", "shutdown"
#   sctp_test -H LOCAL -P PORT -l -d 2 [-T]   server: prints each message and its first bytes
#   sctp_test -H LOCAL -P PORT -h ADDR -p PORT -s -c 4 -x 1 -D [-T]
#                                             client: 10 messages of 1 to 32768 bytes, reads each
#                                             reply (-D)
# Our side is tp_peer (test/interop/tp_peer.c). Environment: top_builddir, TP_PEER,
# LKSCTP_INTEROP_PORT (first of 40 SCTP ports; default: a random range).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
P=${TP_PEER:-$top_builddir/test/interop/tp_peer}
PLAN=14

if [ ! -x "$P" ]; then
	ok 1 "$P not built (make check builds it)"; done_testing
	exit
fi
for prog in sctp_darn sctp_test stdbuf; do
	if ! command -v "$prog" >/dev/null 2>&1; then
		ok 1 "$prog missing (apt-get install lksctp-tools coreutils)"; done_testing
		exit
	fi
done
if ! "$P" --help 2>/dev/null | grep -q listen; then
	ok 1 "$P does not run"; done_testing
	exit
fi
probe=$(timeout 5 "$P" --timeout 1 listen sctp 127.0.0.1:0 2>&1)
case "$probe" in
*"no SCTP support"*)
	ok 1 "kernel has no SCTP: run it with test/vm/run $0"; done_testing
	exit
	;;
esac

scratch lksctp-tools

base=${LKSCTP_INTEROP_PORT:-$((10000 + (RANDOM % 500) * 40))} # below the ephemeral ports
port() { echo $((base + $1)); }

show() {
	local f
	for f in "$@"; do
		[ -s "$f" ] || continue
		echo "# --- $(basename "$f")"
		tail -n 15 "$f" | cut -c1-200 | sed 's/^/#   /'
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
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	pids=
	rm -f "$tmp"/*.out "$tmp"/*.err
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

# bg NAME PATTERN COMMAND...: a peer in the background, line-buffered into $tmp/NAME.out; wait
# for the line that says it is ready.
bg() {
	daemon_start "$1" "$2" stdbuf -oL -eL "${@:3}"
}

# Our peer, in the foreground.
peer() {
	timeout 40 "$P" --timeout 30 "$@"
}

# Our server in the background: "listening on" once it is. (tp_peer flushes its lines itself;
# stdbuf would not mix with a sanitizer build's runtime.)
peer_bg() {
	daemon_start "$1" '^listening on ' "$P" --timeout 30 "${@:2}"
}

echo "# tp_peer: $P; SCTP ports $base..$((base + 39))"

# --- sctp_darn listens (one-to-many, echoing); our clients connect.
t_darn_echo_sctp() {
	local p
	p=$(port 0)
	bg darn 'listening' sctp_darn -H 127.0.0.1 -P "$p" -l -e || return 1
	peer --stream 3 --ppid 42 send sctp "127.0.0.1:$p" hello "second message" \
	    >"$tmp/c.out" 2>"$tmp/c.err" &&
	grep -qx 'reply stream=0 ppid=0 len=5: hello' "$tmp/c.out" &&
	grep -qx 'reply stream=0 ppid=0 len=14: second message' "$tmp/c.out" &&
	wait_line "$tmp/darn.out" '^DATA(14): ' &&
	grep -aq '^DATA(5):  hell' "$tmp/darn.out" &&
	[ "$(grep -ac '^   sinfo_stream 3$' "$tmp/darn.out")" = 2 ] &&
	[ "$(grep -ac '^   sinfo_ppid 704643072$' "$tmp/darn.out")" = 2 ] # 42, network order
}
check "sctp client -> sctp_darn -l -e: messages echoed, darn saw stream 3 and PPID 42" \
    t_darn_echo_sctp

t_darn_echo_sctp1m() {
	local p
	p=$(port 1)
	bg darn 'listening' sctp_darn -H 127.0.0.1 -P "$p" -l -e || return 1
	peer --stream 1 --unordered --lifetime 2000 --size 60000 --count 3 \
	    send sctp1m "127.0.0.1:$p" >"$tmp/c.out" 2>"$tmp/c.err" &&
	[ "$(grep -cx 'reply stream=0 ppid=0 len=60000 match' "$tmp/c.out")" = 3 ] &&
	wait_line "$tmp/darn.out" '^DATA(60000)' &&
	[ "$(grep -ac '^   sinfo_flags 0x1$' "$tmp/darn.out")" = 3 ] # SCTP_UNORDERED
}
check "sctp1m client -> sctp_darn -l -e: 3 unordered PR-SCTP messages of 60000 bytes intact" \
    t_darn_echo_sctp1m

t_darn_echo_tcpstyle() {
	local p
	p=$(port 2)
	bg darn 'listening' sctp_darn -H 127.0.0.1 -P "$p" -l -e -t || return 1
	peer send sctp1m "127.0.0.1:$p" "one-to-one peer" "again" >"$tmp/c.out" 2>"$tmp/c.err" &&
	grep -qx 'reply stream=0 ppid=0 len=15: one-to-one peer' "$tmp/c.out" &&
	grep -qx 'reply stream=0 ppid=0 len=5: again' "$tmp/c.out"
}
check "sctp1m client -> sctp_darn -l -e -t (one-to-one): messages echoed" t_darn_echo_tcpstyle

t_darn_multihomed() {
	local p
	p=$(port 3)
	bg darn 'listening' sctp_darn -H 127.0.0.1 -P "$p" -B 127.0.0.2 -l -e || return 1
	peer --local 127.0.0.3,127.0.0.4:0 send sctp "127.0.0.2,127.0.0.1:$p" "two homes" \
	    >"$tmp/c.out" 2>"$tmp/c.err" &&
	grep -qx 'reply stream=0 ppid=0 len=9: two homes' "$tmp/c.out"
}
check "sctp client bound to 2 addresses -> sctp_darn on 2 (bindx), connectx to both: echoed" \
    t_darn_multihomed

# --- sctp_test listens; our clients send.
t_test_server() {
	local p
	p=$(port 4)
	bg srv 'Receiving packets' sctp_test -H 127.0.0.1 -P "$p" -l -d 2 || return 1
	peer --stream 2 --ppid 63 --no-reply send sctp "127.0.0.1:$p" "hello sctp_test server" \
	    >"$tmp/c.out" 2>"$tmp/c.err" &&
	wait_line "$tmp/srv.out" 'Data 22 bytes' &&
	grep -aq 'Data 22 bytes. First 10 bytes: hello sct' "$tmp/srv.out" &&
	wait_line "$tmp/srv.out" 'SHUTDOWN_COMPLETE'
}
check "sctp client -> sctp_test -l: the message, then a graceful shutdown" t_test_server

t_test_server_tcpstyle() {
	local p
	p=$(port 5)
	bg srv 'Receiving packets' sctp_test -H 127.0.0.1 -P "$p" -l -d 2 -T || return 1
	peer --no-reply send sctp1m "127.0.0.1:$p" "to a one-to-one server" \
	    >"$tmp/c.out" 2>"$tmp/c.err" &&
	wait_line "$tmp/srv.out" 'Data 22 bytes' &&
	grep -aq 'Data 22 bytes. First 10 bytes: to a one-' "$tmp/srv.out"
}
check "sctp1m client -> sctp_test -l -T (one-to-one): the message" t_test_server_tcpstyle

# --- lksctp clients against our listeners.
sizes='1 1000 2000 3000 5000 10000 15000 20000 25000 32768'
# sctp_test's replies, in order, as a list of sizes.
test_replies() {
	grep -ao 'recvmsg(sk=[0-9]*) Data [0-9]* bytes' "$1" | awk '{ printf "%s%s", s, $3; s = " " }'
}

t_test_client() {
	local type=$1 tflag=$2 p=$3
	peer_bg lis --verbose --once listen "$type" "127.0.0.1:$p" || return 1
	timeout 30 sctp_test -H 127.0.0.1 -P $((p + 1)) -h 127.0.0.1 -p "$p" -s -c 4 -x 1 -D \
	    -d 1 $tflag >"$tmp/test.out" 2>"$tmp/test.err" || return 1
	wait_line "$tmp/lis.err" 'closed after 10 messages' &&
	[ "$(test_replies "$tmp/test.out")" = "$sizes" ] &&
	wait "$last" # --once: it exits as soon as the association ends
}
check "sctp_test -s (one-to-many) -> our sctp1m listener: 10 messages echoed, sizes kept" \
    t_test_client sctp1m "" "$(port 6)"
check "sctp_test -s -T (one-to-one) -> our sctp listener: 10 messages echoed, sizes kept" \
    t_test_client sctp -T "$(port 8)"
check "sctp_test -s (one-to-many) -> our sctp listener: 10 messages echoed, sizes kept" \
    t_test_client sctp "" "$(port 10)"

t_darn_client() {
	local type=$1 tflag=$2 p=$3
	peer_bg recv recv "$type" "127.0.0.1:$p" || return 1
	(printf 'alpha\nbeta gamma\nthird line of text\n'; sleep 1) |
	    timeout 20 sctp_darn -H 127.0.0.1 -P $((p + 1)) -h 127.0.0.1 -p "$p" -s $tflag \
	    >"$tmp/darn.out" 2>"$tmp/darn.err"
	# each line goes with its newline and a NUL: 7 + 12 + 20 bytes
	wait_line "$tmp/recv.out" '^received ' &&
	grep -qx 'received 3 messages, 39 bytes' "$tmp/recv.out"
}
check "sctp_darn -s (one-to-many) -> our sctp listener: 3 lines, 39 bytes" \
    t_darn_client sctp "" "$(port 12)"
check "sctp_darn -s -t (one-to-one) -> our sctp1m listener: 3 lines, 39 bytes" \
    t_darn_client sctp1m -t "$(port 14)"

t_darn_connectx() {
	local p
	p=$(port 16)
	peer_bg recv recv sctp "127.0.0.1,127.0.0.2:$p" || return 1
	grep -qx "listening on 127.0.0.1,127.0.0.2:$p" "$tmp/recv.out" || return 1
	(printf 'multihomed\n'; sleep 1) |
	    timeout 20 sctp_darn -H 127.0.0.3 -P $((p + 1)) -c 127.0.0.1 -c 127.0.0.2 -p "$p" -s \
	    >"$tmp/darn.out" 2>"$tmp/darn.err"
	wait_line "$tmp/recv.out" '^received ' &&
	grep -qx 'received 1 messages, 12 bytes' "$tmp/recv.out" &&
	grep -aqx "127.0.0.1:$p" "$tmp/darn.out" && grep -aqx "127.0.0.2:$p" "$tmp/darn.out"
}
check "sctp_darn -c A -c B (connectx) -> our listener on 2 addresses: darn sees both" \
    t_darn_connectx

t_darn_abort() {
	local type=$1 p=$2
	peer_bg lis --verbose listen "$type" "127.0.0.1:$p" || return 1
	(printf 'snd=100\n'; sleep 2; printf 'abort\n'; sleep 1) |
	    timeout 20 sctp_darn -H 127.0.0.1 -P $((p + 1)) -h 127.0.0.1 -p "$p" -s -I \
	    >"$tmp/darn.out" 2>"$tmp/darn.err"
	wait_line "$tmp/lis.err" 'closed after 1 messages' &&
	grep -q 'association aborted by peer (cause 12)' "$tmp/lis.err"
}
check "sctp_darn aborts after one message: our sctp listener says 'aborted by peer'" \
    t_darn_abort sctp "$(port 18)"
check "sctp_darn aborts after one message: our sctp1m listener says 'aborted by peer'" \
    t_darn_abort sctp1m "$(port 20)"

[ "$tap_n" = "$PLAN" ] || ok 1 "ran $tap_n tests, planned $PLAN"
done_testing
