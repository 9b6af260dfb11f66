#!/bin/bash
# httpd-kernel.sh: sctphttpd over kernel SCTP, one-to-one (sctp) and one-to-many (sctp1m), with
# tp_peer, test_httpd_streams and lksctp-tools' withsctp curl as clients (TAP). Runs natively
# where the kernel has SCTP, else inside the VM (test/vm/run): "--inner" is the part run there.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
P=${TP_PEER:-$top_builddir/test/interop/tp_peer}
S=${HTTPD_STREAMS:-$top_builddir/test/unit/test_httpd_streams}
G=${HTTPGET:-$top_builddir/httpload/httpget}

if [ "$1" != --inner ]; then
	for f in "$H" "$G" "$P" "$S"; do
		if [ ! -x "$f" ]; then
			ok 1 "$f not built (make check builds it)"
			done_testing
			exit
		fi
	done
	run_tap kernel_sctp bash "$here/httpd-kernel.sh" --inner
	done_testing
	exit
fi

scratch httpd-kernel
chmod 755 "$tmp"

doc=$tmp/doc
mkdir -p "$doc"
echo first >"$doc/first.txt"
head -c 5000000 /dev/urandom >"$doc/big.bin"
for i in $(seq 0 99); do echo "file $i" >"$doc/f$i.txt"; done
chmod -R a+rX "$doc"

sctp_free() {
	! ss -Hln --sctp "sport = :$1" 2>/dev/null | grep -q .
}
for try in $(seq 1 30); do
	b=$((20000 + (RANDOM % 2000) * 8))
	sctp_free $b && sctp_free $((b + 1)) && sctp_free $((b + 2)) && sctp_free $((b + 3)) &&
	    sctp_free $((b + 4)) && sctp_free $((b + 5)) && break
done

start() { httpd_start -n "$2" "$1" "${@:3}"; }

start main 4 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$b -L sctp1m:127.0.0.1:$((b + 1)) \
    -L sctp:127.0.0.1,127.0.0.2:$((b + 2))
ok $? "listens on TCP, sctp, sctp1m and a multihomed sctp (127.0.0.1,127.0.0.2) at once"
main=$last

req=$'GET /first.txt HTTP/1.1\r\nHost: x\r\n\r\n'
for t in "sctp $b" "sctp1m $((b + 1))"; do
	set -- $t
	timeout 30 "$P" --timeout 20 --stream 5 --ppid 63 send "$1" 127.0.0.1:"$2" "$req" \
	    >"$tmp/p.out" 2>&1
	grep -q '^reply stream=5 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$tmp/p.out" &&
	    grep -qx first "$tmp/p.out"
	ok $? "$1: tp_peer's request on stream 5 answered on stream 5 with PPID 63"

	args="0:/big.bin"
	for i in $(seq 1 30); do args="$args $i:/f$i.txt"; done
	args="$args 40:/first.txt 40:/f1.txt 40:/f2.txt"
	timeout 60 "$S" --timeout 30 --dir "$doc" "$1" 127.0.0.1:"$2" $args >"$tmp/s.out" 2>&1
	rc=$?
	[ $rc = 0 ] && [ "$(grep -c ' match ' "$tmp/s.out")" = 34 ] && ! grep -q 'bad ppid' "$tmp/s.out"
	ok $? "$1: 34 requests on 32 streams of one association, each on its stream, intact"
	grep '^done' "$tmp/s.out" | tail -n1 | grep -q 'stream=0 .* /big.bin$'
	ok $? "$1: the 5 MB answer on stream 0 completes after the 30 small ones"
	[ "$(grep 'stream=40 ' "$tmp/s.out" | awk '{ print $NF }' | tr '\n' ' ')" = "/first.txt /f1.txt /f2.txt " ]
	ok $? "$1: pipelined on one stream, answered in order"
	[ $rc = 0 ] || tail -n 20 "$tmp/s.out" | sed 's/^/# /'

	args=
	for i in $(seq 0 99); do args="$args $i:/f$i.txt"; done
	timeout 60 "$S" --timeout 30 --dir "$doc" "$1" 127.0.0.1:"$2" $args >"$tmp/s.out" 2>&1
	[ $? = 0 ] && [ "$(grep -c ' match ' "$tmp/s.out")" = 100 ] && grep -q 'in=100 out=100' "$tmp/s.out"
	ok $? "$1: 100 concurrent transactions on 100 streams"
done

# Acceptance: httpget with 1, 10 and 100 URLs on one association, one per stream, each body
# compared byte for byte (0 B to 1 MiB: the VM is slow under TCG).
httpd_sized_files "$doc"
chmod -R a+rX "$doc"
mkdir -p "$tmp/dl"
for sz in $sizes; do
	rm -f "$tmp/dl/one"
	timeout 60 "$G" -s -m 30 --proto sctp -o "$tmp/dl/one" http://127.0.0.1:$b/s$sz
	rc=$?
	[ $rc = 0 ] && cmp -s "$doc/s$sz" "$tmp/dl/one"
	ok $? "sctp: httpget, 1 URL, $sz bytes, identical (exit $rc)"
done
for t in "sctp $b" "sctp1m $((b + 1))"; do
	set -- $t
	for count in 10 100; do
		rm -f "$tmp/dl"/u*
		urls=
		for n in $(seq 0 $((count - 1))); do urls="$urls http://127.0.0.1:$2/u$n"; done
		timeout 120 "$G" -v -s -m 30 --proto $1 -O "$tmp/dl" $urls 2>"$tmp/hg.err"
		rc=$?
		streams=$(sed -n 's/^httpget: .* on stream \([0-9]*\)$/\1/p' "$tmp/hg.err" | sort -un | wc -l)
		bad=0
		for n in $(seq 0 $((count - 1))); do cmp -s "$doc/u$n" "$tmp/dl/u$n" || bad=$((bad + 1)); done
		[ $rc = 0 ] && [ $bad = 0 ] && [ "$streams" = $count ] &&
		    [ "$(grep -c '^httpget: connected' "$tmp/hg.err")" = 1 ]
		ok $? "$1: httpget, $count URLs on one association, $count streams, 0 B..1 MiB, identical (exit $rc, $bad differ)"
		[ $rc = 0 ] || tail -n 5 "$tmp/hg.err" | sed 's/^/# /'
	done
done

timeout 30 "$P" --timeout 20 --stream 1 --ppid 63 send sctp 127.0.0.2:$((b + 2)) "$req" \
    >"$tmp/p.out" 2>&1
grep -q '^reply stream=1 ppid=63 .*HTTP/1.1 200 OK' "$tmp/p.out"
ok $? "multihomed listener: served through its second address 127.0.0.2"

timeout 0.5 "$S" --dir "$doc" sctp 127.0.0.1:$b 0:/big.bin 1:/big.bin >/dev/null 2>&1
timeout 0.5 "$S" --dir "$doc" sctp1m 127.0.0.1:$((b + 1)) 0:/big.bin 1:/big.bin >/dev/null 2>&1
sleep 0.5
timeout 30 "$P" --timeout 20 --stream 2 --ppid 63 send sctp1m 127.0.0.1:$((b + 1)) "$req" \
    >"$tmp/p.out" 2>&1
kill -0 $main && grep -q 'HTTP/1.1 200 OK' "$tmp/p.out"
ok $? "clients vanishing mid-transfer (sctp, sctp1m): the server carries on"

kill -USR1 $main
timeout 10 tail --pid=$main -f /dev/null
wait $main
ok $? "SIGUSR1: exit 0"

# Aborting one transaction: a file truncated while it is sent (throttled, so that it is
# truncated mid-transfer). Without RE-CONFIG (net.sctp.reconf_enable=0, Linux's default) the
# stream is given up and the association closes after the other streams; with it the stream
# is reset (RFC 6525) and serves the next request on the same association.
echo 'slow/** 1000000' >"$tmp/throttles"
mkdir -p "$doc/slow"
echo small >"$doc/s.txt"
echo again >"$doc/again.txt"
chmod -R a+rX "$doc"
truncated_run() {  # truncated_run NAME: fetch slow/big.bin and s.txt, truncate after 1.5 s
	head -c 5000000 /dev/urandom >"$doc/slow/big.bin"
	chmod a+r "$doc/slow/big.bin"
	(sleep 1.5; : >"$doc/slow/big.bin") &
	timeout 60 "$S" --timeout 30 --dir "$doc" --retry /again.txt sctp 127.0.0.1:$((b + 4)) \
	    1:/slow/big.bin 2:/s.txt >"$tmp/$1.out" 2>&1
}
orig=$(sysctl -n net.sctp.reconf_enable 2>/dev/null)
if [ -n "$SCTPAPPS_VM" ]; then
	sysctl -qw net.sctp.reconf_enable=0
	start noreconf 2 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$((b + 4)) -t "$tmp/throttles"
	truncated_run noreconf
	rc=$?
	sed 's/^/#   /' "$tmp/noreconf.out"
	[ $rc != 0 ] && grep -q 'stream=2 .* match /s.txt$' "$tmp/noreconf.out" &&
	    grep -q 'the server closed early' "$tmp/noreconf.out" && ! grep -q '^reset' "$tmp/noreconf.out"
	ok $? "sctp without RE-CONFIG: a truncated file gives up its stream; the other answered, then the association closes"
	kill $last
	wait $last 2>/dev/null
	sysctl -qw net.sctp.reconf_enable=1 # before the sockets: the endpoint takes it at creation
	start reconf 2 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$((b + 4)) -t "$tmp/throttles"
	truncated_run reconf
	rc=$?
	sed 's/^/#   /' "$tmp/reconf.out"
	[ $rc = 0 ] && grep -q '^reset stream=1 /slow/big.bin$' "$tmp/reconf.out" &&
	    grep -q 'stream=2 .* match /s.txt$' "$tmp/reconf.out" &&
	    grep -q 'stream=1 status=200 .* match /again.txt$' "$tmp/reconf.out"
	ok $? "sctp with net.sctp.reconf_enable=1: stream 1 reset (RFC 6525), stream 2 served, stream 1 serves again"
	kill $last
	wait $last 2>/dev/null
	# A stream error with a client that never enabled resets (socat, ncat, plain sockets;
	# issue 33): its stack denies the server's reset, or the server's own refuses it
	# (reconf_enable=0); either way the stream is retired and the association goes on.
	bad=$'GARBAGE\r\n\r\n'
	for rcf in 1 0; do
		sysctl -qw net.sctp.reconf_enable=$rcf
		start "deny$rcf" 3 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$((b + 4)) \
		    -L sctp1m:127.0.0.1:$((b + 5))
		for t in "sctp $((b + 4))" "sctp1m $((b + 5))"; do
			set -- $t
			o=$tmp/deny$rcf-$1.out
			timeout 30 "$P" --timeout 20 --deny-resets --pause 800 --ppid 63 \
			    --streams-each 1,2,3 send sctp 127.0.0.1:$2 "$bad" "$req" "$req" >"$o" 2>&1
			rc=$?
			[ $rc = 0 ] && grep -q '^reply stream=1 ppid=63 len=[0-9]*: HTTP/1.1 400 ' "$o" &&
			    ! grep -qi '^Connection: close' "$o" &&
			    [ "$(grep -c '^reply stream=[23] ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$o")" = 2 ]
			ok $? "$1, reconf_enable=$rcf, a client that never enabled resets: 400 on stream 1 (no Connection: close), the association survives, streams 2 and 3 served 0.8 s apart (exit $rc)"
			[ $rc = 0 ] || grep -v '^[A-Z][-a-zA-Z]*: \|^first\|^<\|^.$' "$o" | sed 's/^/#   /'
		done
		kill $last
		wait $last 2>/dev/null
	done
	sysctl -qw net.sctp.reconf_enable="${orig:-0}"
else
	ok 1 "stream reset over kernel SCTP: only in the VM (it sets net.sctp.reconf_enable)"
	ok 1 "a stream error with a client that denies resets: only in the VM (as above)"
fi

# --workers 2 on TCP and sctp one-to-one: associations spread over both workers.
start workers 2 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$((b + 5)) --workers 2
wm=$last
timeout 60 "$S" --idle 40 --timeout 10 sctp 127.0.0.1:$((b + 5)) >"$tmp/idle.out" 2>&1 &
ip=$!
for i in $(seq 1 100); do grep -q '^open' "$tmp/idle.out" && break; sleep 0.1; done
wpids=$(pgrep -P $wm | tr '\n' ' ')
held=$(for p in $wpids; do
	n=$(ls -l /proc/$p/fd 2>/dev/null | grep -c socket:)
	echo "$p:$n"
done | tr '\n' ' ')
kill $ip 2>/dev/null
wait $ip 2>/dev/null
busy=0
for h in $held; do [ "${h#*:}" -gt 8 ] && busy=$((busy + 1)); done
[ "$(grep -c . <<<"$(echo $wpids | tr ' ' '\n')")" = 2 ] && [ $busy = 2 ] &&
    grep -q '^open 40' "$tmp/idle.out" &&
    [ "$(timeout 20 "$G" -s --proto sctp http://127.0.0.1:$((b + 5))/first.txt)" = first ]
ok $? "--workers 2, sctp one-to-one: 40 associations spread over both workers (pid:sockets $held)"
kill $wm
timeout 10 tail --pid=$wm -f /dev/null
wait $wm
ok $? "--workers 2: TERM stops the master and both workers, exit $?"

# withsctp (lksctp-tools) turns curl's TCP socket into SCTP; its data goes with PPID 0. It
# converts only socket(..., SOCK_STREAM, ...) asked without flags: curl 8.14 (Debian 13) asks
# for SOCK_CLOEXEC and stays TCP (no association comes: SctpPassiveEstabs does not move). Then
# socat's own SCTP client asks instead, its data also with PPID 0 (shut-none: SCTP has no
# half-close, a SHUTDOWN after the request would end the association before the answer).
estabs() { awk '$1 == "SctpPassiveEstabs" { print $2 }' /proc/net/sctp/snmp; }
if command -v withsctp >/dev/null && command -v socat >/dev/null; then
	start ws 2 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$((b + 3)) --accept-ppid0
	e0=$(estabs)
	out=$(timeout 20 withsctp curl -s "http://127.0.0.1:$((b + 3))/first.txt" 2>"$tmp/ws.err")
	if [ "$out" = first ]; then
		ok 0 "withsctp curl against the sctp listener (--accept-ppid0)"
	elif [ "$(estabs)" = "$e0" ]; then
		diag "withsctp left $(curl --version | head -n1 | cut -d' ' -f1-2)'s socket TCP (it asks for socket flags): socat instead"
		printf 'GET /first.txt HTTP/1.0\r\n\r\n' |
		    timeout 20 socat -t 5 - "SCTP:127.0.0.1:$((b + 3)),shut-none" >"$tmp/ws.out" 2>"$tmp/ws.err"
		head -n1 "$tmp/ws.out" | grep -q ' 200 ' && [ "$(tail -n1 "$tmp/ws.out")" = first ]
		ok $? "socat's SCTP client against the sctp listener (--accept-ppid0)"
		sed 's/^/# /' "$tmp/ws.err"
	else
		ok 1 "withsctp curl against the sctp listener (--accept-ppid0): '$out'"
		sed 's/^/# /' "$tmp/ws.err"
	fi
	kill $last
else
	ok 1 "withsctp or socat missing (apt-get install lksctp-tools socat)"
fi
# ncat (nmap's) as the README shows it: PPID 0, so --accept-ppid0, and its input kept open
# (once its input ends it sends SHUTDOWN and stops reading, whether the answer came or not: a
# loaded VM took over 2 s; Connection: close ends the association, and ncat, once answered)
if command -v ncat >/dev/null; then
	start nc 2 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$((b + 3)) --accept-ppid0
	(printf 'GET /first.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'; sleep 15) |
	    timeout 20 ncat --sctp 127.0.0.1 $((b + 3)) >"$tmp/nc.out" 2>"$tmp/nc.err"
	head -n1 "$tmp/nc.out" | grep -q ' 200 ' && [ "$(tail -n1 "$tmp/nc.out")" = first ]
	ok $? "ncat --sctp against the sctp listener (--accept-ppid0), its input kept open: $(head -n1 "$tmp/nc.out" | tr -d '\r')"
	sed 's/^/# /' "$tmp/nc.err"
	kill $last
else
	ok 1 "ncat missing (apt-get install ncat)"
fi


# --sctp-interleave (both ends): I-DATA (RFC 8260) and the round-robin stream scheduler; Linux
# offers I-DATA only with net.sctp.intl_enable=1, and says so when it is 0.
L=${HTTPLOAD:-$top_builddir/httpload/httpload}
intl0=$(sysctl -n net.sctp.intl_enable 2>/dev/null)
if [ -n "$intl0" ] && [ -x "$L" ]; then
	sysctl -qw net.sctp.intl_enable=0
	timeout 10 "$H" -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$((b + 4)) --sctp-interleave \
	    >/dev/null 2>"$tmp/intl.err"
	rc=$?
	[ $rc != 0 ] && [ $rc != 124 ] && grep -q 'intl_enable' "$tmp/intl.err"
	ok $? "--sctp-interleave where net.sctp.intl_enable is 0: refused, with the sysctl named (exit $rc)"
	sysctl -qw net.sctp.intl_enable=1
	start intl 2 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$((b + 4)) --sctp-interleave
	timeout 60 "$L" --proto sctp --sctp-interleave --server 127.0.0.1 --port $((b + 4)) \
	    --streams 4 --uri /big.bin --num-calls 8 --verify --timeout 20 >"$tmp/intl.out" \
	    2>"$tmp/intl.v"
	rc=$?
	grep -q 'I-DATA (RFC 8260) in use, stream scheduler round-robin' "$tmp/intl.v" &&
	    grep -q ' 2xx=8 ' "$tmp/intl.out" && grep -q 'corrupt 0$' "$tmp/intl.out" && [ $rc = 0 ]
	ok $? "--sctp-interleave on both ends: I-DATA and round-robin in use, 8 x 5 MB on 4 streams whole (exit $rc)"
	[ $rc = 0 ] || sed 's/^/# /' "$tmp/intl.v" | head -5
	kill $last
	sysctl -qw net.sctp.intl_enable="$intl0"
else
	ok 1 "net.sctp.intl_enable missing or httpload not built: no I-DATA test"
fi
done_testing
