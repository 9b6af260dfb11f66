#!/bin/bash
# httpd-usrsctp.sh: sctphttpd over usrsctp (UDP encapsulation): usrsctp's http_client, tp_peer
# and test_httpd_streams (many streams of one association) as clients (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
P=${TP_PEER:-$top_builddir/test/interop/tp_peer}
S=${HTTPD_STREAMS:-$top_builddir/test/unit/test_httpd_streams}
E=${USRSCTP_EXAMPLES:-/usr/lib/usrsctp}

for f in "$H" "$P" "$S" "$E/http_client"; do
	if [ ! -x "$f" ]; then
		ok 1 "$f missing (make check builds ours; apt-get install libusrsctp-examples)"
		done_testing
		exit
	fi
done

tmp=$(mktemp -d /tmp/httpd-usrsctp.XXXXXX)
pids=
cleanup() {
	local p
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

udp_free() {
	! ss -Huan "sport = :$1" 2>/dev/null | grep -q .
}
for try in $(seq 1 30); do
	base=$((30000 + (RANDOM % 1000) * 8))
	udp_free $base && udp_free $((base + 1)) && udp_free $((base + 2)) && udp_free $((base + 3)) && break
done
su=$base      # the server's UDP encapsulation port
cu=$((base + 1)) # the clients'

doc=$tmp/doc
mkdir -p "$doc/sub"
echo first >"$doc/first.txt"
head -c 5000000 /dev/urandom >"$doc/big.bin"
for i in $(seq 0 99); do echo "file $i" >"$doc/f$i.txt"; done
echo '<p>sub</p>' >"$doc/sub/index.html"

start() {
	local name=$1 i
	shift
	"$H" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	last=$!
	pids="$pids $last"
	for i in $(seq 1 50); do
		grep -q '^sctphttpd: listening on usrsctp' "$tmp/$name.err" && return 0
		kill -0 "$last" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/# /' "$tmp/$name.err"
	return 1
}

start main -L usrsctp:127.0.0.1:8080 --udp-port $su --udp-remote-port $cu -d "$doc" \
    -l "$tmp/access.log"
ok $? "listens on usrsctp 127.0.0.1:8080 (UDP $su)"
main=$last

timeout 30 "$E/http_client" 127.0.0.1 8080 0 $cu $su /first.txt >"$tmp/hc.out" 2>&1
grep -aq '^HTTP/1.1 200 OK' "$tmp/hc.out" && grep -aqx 'first' "$tmp/hc.out" &&
    grep -aq 'SCTP_SHUTDOWN_COMP' "$tmp/hc.out"
ok $? "usrsctp's http_client (HTTP/1.0): 200, the file, then a clean SHUTDOWN"
grep -av '^\[S\]' "$tmp/hc.out" | tail -n 5 | sed 's/^/#   /'

peer() {
	timeout 30 "$P" --timeout 20 --udp-port $cu --udp-remote-port $su "$@"
}
req=$'GET /first.txt HTTP/1.1\r\nHost: x\r\n\r\n'
peer --stream 7 --ppid 63 send usrsctp 127.0.0.1:8080 "$req" >"$tmp/p.out" 2>&1
grep -q '^reply stream=7 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$tmp/p.out" && grep -qx 'first' "$tmp/p.out"
ok $? "tp_peer: request on stream 7, the response on stream 7 with PPID 63"

peer --stream 2 --ppid 0 send usrsctp 127.0.0.1:8080 "$req" >"$tmp/p.out" 2>&1
grep -q '^reply stream=2 ppid=63 len=[0-9]*: HTTP/1.1 400 ' "$tmp/p.out"
ok $? "PPID 0 is not HTTP: a stream error, 400 on that stream"

args="0:/big.bin"
for i in $(seq 1 30); do args="$args $i:/f$i.txt"; done
args="$args 40:/first.txt 40:/f1.txt 40:/sub/ 40:/f2.txt"
"$S" --timeout 30 --udp-port $cu --udp-remote-port $su --dir "$doc" usrsctp 127.0.0.1:8080 $args \
    >"$tmp/s.out" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(grep -c ' match ' "$tmp/s.out")" = 34 ] && ! grep -q 'bad ppid' "$tmp/s.out"
ok $? "35 requests on 32 streams of one association: each answer on its stream, PPID 63, intact"
last_line=$(grep '^done' "$tmp/s.out" | tail -n1)
echo "$last_line" | grep -q 'stream=0 .* /big.bin$'
ok $? "a 5 MB answer on stream 0 does not hold back the 30 small ones (it completes last)"
[ "$(grep 'stream=40 ' "$tmp/s.out" | awk '{ print $NF }' | tr '\n' ' ')" = "/first.txt /f1.txt /sub/ /f2.txt " ]
ok $? "4 requests pipelined on stream 40: answered in order"
[ $rc = 0 ] || sed 's/^/# /' "$tmp/s.out" | tail -n 20

args=
for i in $(seq 0 99); do args="$args $i:/f$i.txt"; done
"$S" --timeout 30 --udp-port $cu --udp-remote-port $su --dir "$doc" usrsctp 127.0.0.1:8080 $args \
    >"$tmp/s.out" 2>&1
[ $? = 0 ] && [ "$(grep -c ' match ' "$tmp/s.out")" = 100 ] && grep -q 'in=100 out=100' "$tmp/s.out"
ok $? "100 concurrent transactions on the 100 streams of one association"

"$S" --timeout 30 --streams 300 --udp-port $cu --udp-remote-port $su --dir "$doc" \
    usrsctp 127.0.0.1:8080 99:/f99.txt >"$tmp/s.out" 2>&1
[ $? = 0 ] && grep -q 'in=100 out=100' "$tmp/s.out"
ok $? "a client asking for 300 streams is granted the limit L=100, and served"

# A peer that goes away in the middle of a large answer: the server frees it and carries on.
timeout 0.5 "$S" --udp-port $cu --udp-remote-port $su --dir "$doc" usrsctp 127.0.0.1:8080 \
    0:/big.bin 1:/big.bin 2:/big.bin >/dev/null 2>&1
sleep 1
peer --stream 1 --ppid 63 send usrsctp 127.0.0.1:8080 "$req" >"$tmp/p.out" 2>&1
kill -0 $main && grep -q 'HTTP/1.1 200 OK' "$tmp/p.out"
ok $? "a client vanishing mid-transfer: the server lives on and serves the next one"

kill -USR1 $main
timeout 10 tail --pid=$main -f /dev/null
wait $main
ok $? "SIGUSR1 with associations: exit 0"
grep -q "\"GET /f99.txt HTTP/1.1\" 200 8" "$tmp/access.log"
ok $? "access log has the SCTP requests"

# Fewer streams: the server's limit.
start few -L usrsctp:127.0.0.1:8081 --udp-port $su --udp-remote-port $cu -d "$doc" \
    --sctp-streams 4 --sctp-msg-size 4096
"$S" --timeout 30 --udp-port $cu --udp-remote-port $su --dir "$doc" usrsctp 127.0.0.1:8081 \
    0:/big.bin 1:/f1.txt 2:/f2.txt 3:/f3.txt >"$tmp/s.out" 2>&1
[ $? = 0 ] && grep -q 'in=4 out=4' "$tmp/s.out" && [ "$(grep -c ' match ' "$tmp/s.out")" = 4 ]
ok $? "--sctp-streams 4 --sctp-msg-size 4096: 4 streams granted, all answers intact"
kill $last

done_testing
