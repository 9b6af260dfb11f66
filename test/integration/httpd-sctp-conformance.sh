#!/bin/bash
# httpd-sctp-conformance.sh: httpd-conformance.sh's cases over SCTP streams (usrsctp), each
# request on a stream of its own with PPID 63, judged against the draft
# (drafts/draft-sctpapps-http-over-sctp.md): the HTTP answer on a stream is the answer over TCP
# (#bytestream: RFC 9112 unchanged per stream), on the request's stream with PPID 63
# (#pertx, #ppid), except where the draft says otherwise; each such difference is named (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
. "$here/httpd-cases.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
P=${TP_PEER:-$top_builddir/test/interop/tp_peer}
need "$H" "$P" nc

scratch httpd-sctp-conformance
chmod 755 "$tmp"
httpd_cases_tree
base=$(httpd_udp_ports 2)
su=$base cu=$((base + 1))
httpd_start h -p 0 -h 127.0.0.1 -d "$doc" -L usrsctp:127.0.0.1:8080 --udp-port $su \
    --udp-remote-port $cu
ok $? "sctphttpd serves one tree on TCP port $port and usrsctp 127.0.0.1:8080 (UDP $su)"
hp=$port
[ -n "$hp" ] || { done_testing; exit; }

# ask_tcp REQUEST / ask_sctp STREAM REQUEST: the raw answer, CRs removed (until the server
# closes, 3 s at most); ask_sctp leaves the streams and PPIDs of the pieces in $tmp/pieces
ask_tcp() {
	printf '%b' "$1" | timeout 3 nc -N 127.0.0.1 "$hp" | tr -d '\r'
}
ask_sctp() {
	local req
	printf -v req '%b' "$2"
	timeout 10 "$P" --timeout 3 --udp-port $cu --udp-remote-port $su --ppid 63 --stream "$1" \
	    ask usrsctp 127.0.0.1:8080 "$req" 2>"$tmp/ask.err" | tr -d '\r'
	sed -n 's/^piece \(stream=[0-9]* ppid=[0-9]*\) .*/\1/p' "$tmp/ask.err" | sort -u >"$tmp/pieces"
}

# Where the draft makes SCTP differ from TCP: case name -> "TCP SCTP WHY" (none so far: each
# case is answered on its stream as over TCP; an HTTP/1.0 request is served, and it closes
# the association as it closes a TCP connection, (#bytestream) and (#connclose)).
declare -A draft_diff=()

n_same=0 n_diff=0 sid=0
case_() {
	local name=$1 w=$2 req=${3//@HOST@/127.0.0.1:$hp} a b d
	sid=$((sid % 9 + 1))
	ask_tcp "$req" >"$tmp/a"
	ask_sctp $sid "$req" >"$tmp/b"
	a=$(what "$w" "$tmp/a")
	b=$(what "$w" "$tmp/b")
	d=${draft_diff[$name]}
	if [ "$(cat "$tmp/pieces")" != "stream=$sid ppid=63" ]; then
		ok 1 "$name: on stream $sid, answered on '$(tr '\n' ' ' <"$tmp/pieces")' (not only stream $sid with PPID 63)"
		sed 's/^/# /' "$tmp/ask.err" | head -n 5
	elif [ -z "$d" ]; then
		[ -n "$a" ] && [ "$a" = "$b" ]
		ok $? "$name: on stream $sid with PPID 63, as over TCP: '$b'$( [ "$a" = "$b" ] || echo " (TCP '$a')")"
		n_same=$((n_same + 1))
	else
		[ "$a $b" = "${d%% *} $(set -- $d; echo $2)" ]
		ok $? "$name: the draft differs from TCP, TCP '$a', SCTP '$b': ${d#* * }"
		n_diff=$((n_diff + 1))
	fi
}
httpd_cases
diag "$n_same cases answered on their stream as over TCP, $n_diff differences the draft makes"

# The association outlives answers that close nothing: one association, several cases on
# several streams at once, each answered on its own.
printf -v r1 '%b' 'GET /r.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=2-4\r\n\r\n'
printf -v r2 '%b' 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n'
printf -v r3 '%b' 'GET /sub HTTP/1.1\r\nHost: x\r\n\r\n'
timeout 10 "$P" --timeout 3 --udp-port $cu --udp-remote-port $su --ppid 63 --streams-each 4,5,6 \
    send usrsctp 127.0.0.1:8080 "$r1" "$r2" "$r3" >"$tmp/p.out" 2>&1
grep -q '^reply stream=4 ppid=63 len=[0-9]*: HTTP/1.1 206 ' "$tmp/p.out" &&
    grep -q '^reply stream=5 ppid=63 len=[0-9]*: HTTP/1.1 404 ' "$tmp/p.out" &&
    grep -q '^reply stream=6 ppid=63 len=[0-9]*: HTTP/1.1 301 ' "$tmp/p.out"
ok $? "206, 404 and 301 on streams 4, 5 and 6 of one association, each on its stream"
grep '^reply' "$tmp/p.out" | cut -c1-60 | sed 's/^/# /'
done_testing
