#!/bin/bash
# httpd-stream-error.sh: a stream error over usrsctp and usrsctp-nt with a client that never
# enabled stream reset (RFC 6525), as socat, ncat and plain sockets (issue 33): the server's
# reset is denied, so it retires the stream (the draft's "Without Stream Reset") and the
# association goes on: the next requests on other streams are served, with no "Connection:
# close". A client that takes resets gets its stream back instead. Kernel SCTP: httpd-kernel.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
P=${TP_PEER:-$top_builddir/test/interop/tp_peer}
need "$H" "$P"

scratch httpd-stream-error
chmod 755 "$tmp"
doc=$tmp/doc
mkdir -p "$doc"
echo first >"$doc/first.txt"
chmod -R a+rX "$doc"
base=$(httpd_udp_ports 4)
bad=$'GARBAGE\r\n\r\n'
get=$'GET /first.txt HTTP/1.1\r\nHost: x\r\n\r\n'

for type in usrsctp usrsctp-nt; do
	su=$base cu=$((base + 1))
	base=$((base + 2))
	httpd_start "$type" -L $type:127.0.0.1:8080 --udp-port $su --udp-remote-port $cu -d "$doc"
	ok $? "sctphttpd listens on $type 127.0.0.1:8080 (UDP $su)"
	srv=$last
	peer() {  # peer NAME [tp_peer options]: bad on stream 1, a pause, then requests
		local name=$1
		shift
		timeout 30 "$P" --timeout 20 --udp-port $cu --udp-remote-port $su --ppid 63 \
		    --pause 800 "$@" send $type 127.0.0.1:8080 "$bad" "$get" "$get" \
		    >"$tmp/$type-$name.out" 2>&1
	}
	peer deny --deny-resets --streams-each 1,2,3
	rc=$?
	o=$tmp/$type-deny.out
	[ $rc = 0 ] && grep -q '^reply stream=1 ppid=63 len=[0-9]*: HTTP/1.1 400 ' "$o" &&
	    ! grep -qi '^Connection: close' "$o" &&
	    [ "$(grep -c '^reply stream=[23] ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$o")" = 2 ]
	ok $? "$type, a client that denies resets: 400 on stream 1 (no Connection: close), the association survives 0.8 s later: streams 2 and 3 served (exit $rc)"
	[ $rc = 0 ] || sed 's/^/#   /' "$o" | grep -v '^#   [A-Z][-a-zA-Z]*: \|^#   first\|^#   <'
	peer take --streams-each 1,1,2
	rc=$?
	o=$tmp/$type-take.out
	[ $rc = 0 ] && grep -q '^reply stream=1 ppid=63 len=[0-9]*: HTTP/1.1 400 ' "$o" &&
	    grep -q '^reply stream=1 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$o" &&
	    grep -q '^reply stream=2 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$o"
	ok $? "$type, a client that takes resets: stream 1 reset after its 400 and serves again (exit $rc)"
	[ $rc = 0 ] || sed 's/^/#   /' "$o" | grep -v '^#   [A-Z][-a-zA-Z]*: \|^#   first\|^#   <'
	# what follows on the dead stream is discarded, never answered; the others are served
	timeout 30 "$P" --timeout 2 --udp-port $cu --udp-remote-port $su --ppid 63 --deny-resets \
	    --streams-each 1,1,2 ask $type 127.0.0.1:8080 "$bad" "$get" "$get" \
	    >"$tmp/$type-ask.out" 2>"$tmp/$type-ask.err"
	rc=$?
	[ $rc = 0 ] && [ "$(grep -c '^piece stream=1 ' "$tmp/$type-ask.err")" = 1 ] &&
	    [ "$(grep -c '^HTTP/1.1 400 ' "$tmp/$type-ask.out")" = 1 ] &&
	    [ "$(grep -c '^HTTP/1.1 200 OK' "$tmp/$type-ask.out")" = 1 ] &&
	    grep -q '^piece stream=2 ' "$tmp/$type-ask.err"
	ok $? "$type: a request pipelined behind the bad one on stream 1 is discarded, stream 2's answered (exit $rc)"
	[ $rc = 0 ] || sed 's/^/#   /' "$tmp/$type-ask.err"
	# every stream retired: nothing is left to serve, the association closes (gracefully)
	timeout 30 "$P" --timeout 20 --udp-port $cu --udp-remote-port $su --ppid 63 --streams 2 \
	    --pause 2500 --deny-resets --streams-each 0,1 send $type 127.0.0.1:8080 "$bad" "$bad" \
	    >"$tmp/$type-all.out" 2>&1
	rc=$?
	o=$tmp/$type-all.out
	[ $rc = 1 ] && grep -q '^connected .*(streams in 2, out 2)' "$o" &&
	    [ "$(grep -c '^reply stream=[01] ppid=63 len=[0-9]*: HTTP/1.1 400 ' "$o")" = 2 ] &&
	    grep -q 'tp_peer: the peer closed during the pause' "$o" &&
	    [ "$(grep -c 'peer closed' "$o")" = 1 ]
	ok $? "$type, 2 streams, both retired by stream errors: the association closes after the second (exit $rc)"
	[ $rc = 1 ] || grep -v '^[A-Z][-a-zA-Z]*: \|^<\|^.$' "$o" | sed 's/^/#   /'
	kill -0 $srv
	ok $? "$type: the server runs on"
	kill $srv
	wait $srv 2>/dev/null
done
done_testing
