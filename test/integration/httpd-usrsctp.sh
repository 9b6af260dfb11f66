#!/bin/bash
# httpd-usrsctp.sh: sctphttpd over usrsctp (UDP encapsulation): usrsctp's http_client, tp_peer
# and test_httpd_streams (many streams of one association) as clients (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
P=${TP_PEER:-$top_builddir/test/interop/tp_peer}
S=${HTTPD_STREAMS:-$top_builddir/test/unit/test_httpd_streams}
E=${USRSCTP_EXAMPLES:-/usr/lib/usrsctp}

for f in "$H" "$G" "$P" "$S" "$E/http_client"; do
	if [ ! -x "$f" ]; then
		ok 1 "$f missing (make check builds ours; apt-get install libusrsctp-examples)"
		done_testing
		exit
	fi
done

scratch httpd-usrsctp

udp_free() {
	! ss -Huan "sport = :$1" 2>/dev/null | grep -q .
}
for try in $(seq 1 30); do
	base=$((30000 + (RANDOM % 1000) * 8))
	udp_free $base && udp_free $((base + 1)) && udp_free $((base + 2)) && udp_free $((base + 3)) &&
	    udp_free $((base + 4)) && udp_free $((base + 5)) && break
done
su=$base      # the server's UDP encapsulation port
cu=$((base + 1)) # the clients'

doc=$tmp/doc
mkdir -p "$doc/sub"
echo first >"$doc/first.txt"
head -c 5000000 /dev/urandom >"$doc/big.bin"
for i in $(seq 0 99); do echo "file $i" >"$doc/f$i.txt"; done
echo '<p>sub</p>' >"$doc/sub/index.html"

start() { httpd_start "$@"; } # start NAME ARGS...: sctphttpd ARGS, $last set

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

# Acceptance: httpget fetches 1, 10 and 100 URLs on one association (one per stream), every
# body compared byte for byte, for 0 B to 10 MiB, and one 100 MiB file over TCP and usrsctp.
# Its own UDP ports (base+2, base+3): the servers above may still hold theirs.
au=$((base + 2)) acu=$((base + 3))
acc=$tmp/acc
mkdir -p "$acc" "$tmp/dl"
sizes="0 1 1024 102400 1048576 10485760"
for sz in $sizes; do head -c $sz /dev/urandom >"$acc/s$sz"; done
head -c 104857600 /dev/urandom >"$acc/big100m"
for n in $(seq 0 99); do  # u0..u99: the six sizes in turn, hard links
	set -- $sizes
	shift $((n % 6))
	ln "$acc/s$1" "$acc/u$n"
done
httpd_start acc -p 0 -h 127.0.0.1 -L usrsctp:127.0.0.1:8082 --udp-port $au --udp-remote-port $acu \
    -d "$acc"
accpid=$daemon_pid
tport=$port
[ -n "$tport" ]
ok $? "acceptance server on TCP 127.0.0.1:$tport and usrsctp 127.0.0.1:8082 (UDP $au)"

hget() {
	timeout 120 "$G" -s -m 30 --proto usrsctp --udp-port $acu --udp-remote-port $au "$@"
}
# same N...: 0 when every uN fetched into $tmp/dl is identical to the original
same() {
	local n bad=0
	for n in "$@"; do cmp -s "$acc/u$n" "$tmp/dl/u$n" || { bad=1; diag "u$n differs"; }; done
	return $bad
}

for sz in $sizes; do
	rm -f "$tmp/dl/one"
	hget -o "$tmp/dl/one" http://127.0.0.1:8082/s$sz
	rc=$?
	[ $rc = 0 ] && cmp -s "$acc/s$sz" "$tmp/dl/one"
	ok $? "httpget, 1 URL over usrsctp: $sz bytes, identical (exit $rc)"
done

for count in 10 100; do
	rm -f "$tmp/dl"/u*
	urls= ns=
	for n in $(seq 0 $((count - 1))); do urls="$urls http://127.0.0.1:8082/u$n"; ns="$ns $n"; done
	hget -v -O "$tmp/dl" $urls 2>"$tmp/hg.err"
	rc=$?
	streams=$(sed -n 's/^httpget: .* on stream \([0-9]*\)$/\1/p' "$tmp/hg.err" | sort -un | wc -l)
	[ $rc = 0 ] && grep -q "^httpget: connected to .*, $count streams" "$tmp/hg.err" &&
	    [ "$(grep -c '^httpget: connected' "$tmp/hg.err")" = 1 ] && [ "$streams" = $count ] &&
	    same $ns
	ok $? "httpget, $count URLs on one usrsctp association, $count streams, 0 B..10 MiB, all identical (exit $rc)"
	[ $rc = 0 ] || tail -n 5 "$tmp/hg.err" | sed 's/^/# /'
done

for proto in tcp usrsctp; do
	[ $proto = tcp ] && url=http://127.0.0.1:$tport/big100m || url=http://127.0.0.1:8082/big100m
	t0=$(date +%s.%N)
	timeout 120 "$G" -s -m 30 --proto $proto --udp-port $acu --udp-remote-port $au "$url" |
	    cmp -s - "$acc/big100m"
	st=("${PIPESTATUS[@]}")
	t1=$(date +%s.%N)
	[ "${st[0]}" = 0 ] && [ "${st[1]}" = 0 ]
	ok $? "httpget, 100 MiB over $proto: identical (exit ${st[0]}, $(echo "$t0 $t1" | awk '{ printf "%.1f s", $2 - $1 }'))"
done
kill $accpid
rm -rf "$acc" "$tmp/dl"

# Many idle associations: a new client is still served. One usrsctp process holds them all
# (several would pick the same SCTP ports from the same address); usrsctp's timer and its
# association lookups grow with the count (on both sides), so opening is superlinear: 3000
# take 2 s here, 6000 19 s, 10000 90 s on an idle host and 6 minutes on a loaded one. 5000 by
# default; HTTPD_IDLE_ASSOCS=10000 for the issue's figure. --idle-timeout leaves them time.
idle_n=${HTTPD_IDLE_ASSOCS:-5000}
iu=$((base + 4)) icu=$((base + 5))
"$H" -L usrsctp:127.0.0.1:8083 --udp-port $iu --udp-remote-port $icu -d "$doc" --idle-timeout 600 \
    >"$tmp/idle-srv.out" 2>"$tmp/idle-srv.err" &
idle_srv=$!
pids="$pids $idle_srv"
sleep 0.5
(ulimit -n $((idle_n + 1000)) 2>/dev/null
 exec timeout 400 "$S" --idle $idle_n --timeout 300 --udp-port $icu --udp-remote-port $iu \
    usrsctp 127.0.0.1:8083) >"$tmp/idle" 2>&1 &
idle_pid=$!
pids="$pids $idle_pid"
t0=$(date +%s)
for i in $(seq 1 300); do
	grep -q '^open' "$tmp/idle" && break
	kill -0 $idle_pid 2>/dev/null || break
	sleep 1
done
for i in $(seq 1 30); do  # until the server has accepted them all (SIGUSR2 counts them)
	kill -USR2 $idle_srv 2>/dev/null
	sleep 1
	n=$(sed -n 's/^sctphttpd: \([0-9]*\) connections and associations.*/\1/p' "$tmp/idle-srv.err" | tail -1)
	n=${n:-0}
	[ "$n" -ge "$idle_n" ] && break
done
# The new client binds SCTP port 40000, below the ephemeral range (49152-65535) the idle
# process took its ports from: the same address and port from two stacks would look to the
# server like one peer restarting an association.
timeout 30 "$S" --timeout 10 --local 127.0.0.1:40000 --udp-port $((base + 3)) --udp-remote-port $iu \
    --dir "$doc" usrsctp 127.0.0.1:8083 1:/first.txt >"$tmp/idle-new" 2>&1
grep -q ' match /first.txt$' "$tmp/idle-new" && out=first || out=$(cat "$tmp/idle-new")
# The server's count may fall a little short when the host is loaded (a few associations
# given up by the stack while the rest were being opened): 98 % must be there.
grep -q "^open $idle_n\$" "$tmp/idle" && [ "$out" = first ] && [ "$n" -ge $((idle_n * 98 / 100)) ]
ok $? "$idle_n idle usrsctp associations open (server holds $n, $(ls /proc/$idle_srv/fd 2>/dev/null | wc -l) fds, $(($(date +%s) - t0)) s to open): a new client is served"
[ "$out" = first ] || diag "the new client got: '$out'"
grep -v '^open' "$tmp/idle" | head -n 3 | sed 's/^/# /'
kill $idle_pid $idle_srv 2>/dev/null

done_testing
