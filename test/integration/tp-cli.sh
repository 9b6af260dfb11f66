#!/bin/bash
# tp-cli.sh: the transport options every program shares (lib/tp/tp_cli.c) mean one thing in each:
# --udp-port the local usrsctp UDP port, --udp-remote-port the peer's. A bad port is a clear
# error with a non-zero exit in sctphttpd, httpload, httpget, msgperf and rtpaudio send and
# play; httpload's and httpget's old spelling (--udp-port for the server's port,
# --udp-encaps-port for the local one) still works and warns; the new one works without a
# warning.
. "$(dirname "$0")/../lib.sh"
H="$top_builddir/sctphttpd" L="$top_builddir/httpload/httpload"
G="$top_builddir/httpload/httpget" M="$top_builddir/msgperf" R="$top_builddir/rtpaudio/rtpaudio"
need "$H" "$L" "$G" "$M" "$R"
scratch tp-cli
warn='now names the local UDP port|now spelt --udp-port'

# Bad values: each program, each option, each value.
for prog in "$H" "$L" "$G" "$M" "$R send" "$R play"; do
	name=$(basename "$prog") bad=
	for opt in --udp-port --udp-remote-port --sctp-udp-remote-port; do
		for v in 0 70000 x; do
			args="$opt $v"
			[ "$name" = httpget ] && args="$args http://127.0.0.1:1/"
			# shellcheck disable=SC2086
			timeout 10 $prog $args >/dev/null 2>"$tmp/e"
			rc=$?
			{ [ $rc -ne 0 ] && [ $rc -ne 124 ] &&
			    grep -q -- "$opt: bad UDP port '$v' (1 to 65535)" "$tmp/e"; } ||
			    bad="$bad $opt=$v (exit $rc: $(head -c 100 "$tmp/e"))"
		done
	done
	[ -z "$bad" ]
	ok $? "$name: --udp-port, --udp-remote-port, --sctp-udp-remote-port 0, 70000, x: an error\
 naming the option, non-zero exit${bad:+; not so:$bad}"
done

grep -q 'define HAVE_USRSCTP 1' "$top_builddir/config.h" || { done_testing; exit; }
mkdir -p "$tmp/doc"
head -c 5000 /dev/urandom >"$tmp/doc/a.bin"
udp_base 6
su=$udp_base cu=$((udp_base + 1)) gu=$((udp_base + 2)) tp=$((20000 + $$ % 20000))
"$H" -L "usrsctp:127.0.0.1:$tp" --udp-port $su --udp-remote-port $cu -d "$tmp/doc" \
    >"$tmp/h.out" 2>"$tmp/h.err" &
pids="$pids $!"
wait_bound $su
grep -qE "$warn" "$tmp/h.err"
[ $? -ne 0 ] && grep -q 'listening on usrsctp' "$tmp/h.err"
ok $? "sctphttpd --udp-port --udp-remote-port: listening, no warning"

# get NAME EXPECT_WARN ARGS...: httpget fetches a.bin over usrsctp with ARGS
get() {
	local name=$1 want=$2 rc w=0
	shift 2
	rm -f "$tmp/got"
	timeout 30 "$G" -s -m 10 --proto usrsctp "$@" -o "$tmp/got" "http://127.0.0.1:$tp/a.bin" \
	    2>"$tmp/g.err"
	rc=$?
	grep -qE "$warn" "$tmp/g.err" && w=1
	[ $rc -eq 0 ] && cmp -s "$tmp/got" "$tmp/doc/a.bin" && [ $w -eq "$want" ]
	ok $? "httpget $name: body fetched, $([ "$want" = 1 ] || echo "no ")warning (exit $rc$(
	    [ -s "$tmp/g.err" ] && echo ": $(head -c 200 "$tmp/g.err" | tr '\n' ' ')"))"
}
get "--udp-port LOCAL --udp-remote-port SERVER" 0 --udp-port $gu --udp-remote-port $su
get "--udp-encaps-port LOCAL --udp-port SERVER (old)" 1 --udp-encaps-port $gu --udp-port $su
grep -q 'udp-encaps-port is now spelt --udp-port' "$tmp/g.err" &&
    grep -q "taken as --udp-remote-port $su" "$tmp/g.err"
ok $? "httpget: the old spelling names both: --udp-encaps-port and --udp-port"
get "--udp-port SERVER (old, local port the default)" 1 --udp-port $su

# load NAME EXPECT_WARN ARGS...: httpload makes 2 calls over usrsctp with ARGS
load() {
	local name=$1 want=$2 rc w=0
	shift 2
	timeout 60 "$L" --proto usrsctp --server 127.0.0.1 --port $tp --uri /a.bin --num-conns 2 \
	    --timeout 10 "$@" >"$tmp/l.out" 2>"$tmp/l.err"
	rc=$?
	grep -qE "$warn" "$tmp/l.err" && w=1
	[ $rc -eq 0 ] && grep -q ' 2xx=2 ' "$tmp/l.out" && [ $w -eq "$want" ]
	ok $? "httpload $name: 2 replies, $([ "$want" = 1 ] || echo "no ")warning (exit $rc$(
	    [ -s "$tmp/l.err" ] && echo ": $(head -c 200 "$tmp/l.err" | tr '\n' ' ')"))"
}
load "--udp-port LOCAL --udp-remote-port SERVER" 0 --udp-port $((udp_base + 3)) --udp-remote-port $su
load "--udp-encaps-port LOCAL --udp-port SERVER (old)" 1 --udp-encaps-port $((udp_base + 3)) \
    --udp-port $su
load "--udp-port SERVER (old, local port the default)" 1 --udp-port $su

timeout 60 "$M" -q --csv -t usrsctp -s 100 -T latency -d 0.3 --udp-port $((udp_base + 4)) \
    >"$tmp/m.out" 2>"$tmp/m.err"
rc=$?
[ $rc -eq 0 ] && grep -q '^latency,usrsctp,100,' "$tmp/m.out" && ! grep -qE "$warn" "$tmp/m.err"
ok $? "msgperf --udp-port: the local table over usrsctp, no warning (exit $rc)"
done_testing
