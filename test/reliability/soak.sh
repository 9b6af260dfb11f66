#!/bin/bash
# soak.sh: httpload --verify against sctphttpd for DURATION seconds per transport (default
# 600): TCP, usrsctp with 100 streams, and kernel SCTP with 100 streams (in the VM, test/vm/run,
# when this kernel has no SCTP). Checks 0 errors and 0 corrupted bodies, and that the server's
# RSS is flat and its open fds back to their count once the load is over (RSS and fds printed
# at the start, every minute and at the end) (TAP).
# Usage: test/reliability/soak.sh [DURATION [TRANSPORT...]]; TRANSPORT: tcp usrsctp kernel.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/common.sh"
dur=${1:-${DURATION:-600}}
[ $# -gt 0 ] && shift
transports=${*:-tcp usrsctp kernel}
need "$H" "$LD"
scratch soak
[ -n "${SOAK_INNER:-}" ] || result_reset

doc=$tmp/doc
mkdir -p "$doc"
for s in 1k 10k 100k; do
	head -c $(( ${s%k} * 1000 )) /dev/urandom >"$doc/$s.bin"
done
python3 - "$doc" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY
# a session log: one burst of 99 calls, the three sizes in turn (bodies of every size
# checked; on SCTP the burst runs on 99 streams at once), then the next session's connection
{
	echo /1k.bin
	for i in $(seq 1 32); do printf '\t/10k.bin\n\t/100k.bin\n\t/1k.bin\n'; done
	printf '\t/10k.bin\n\t/100k.bin\n'
} >"$tmp/sess"

soak() { # soak NAME SERVER-LISTEN HTTPLOAD-ARGS...
	local name=$1 listen=$2 t0 i rss0 fd0 rss fd rssmax=0 fdmax=0 rc
	shift 2
	free_ports 3 || { ok 1 "$name: no free ports"; return; }
	local tp=$port su=$((port + 1)) cu=$((port + 2))
	start_httpd "srv-$name" -L "$listen:127.0.0.1:$tp" --udp-port $su --udp-remote-port $cu \
	    --sctp-streams 100 -d "$doc" --idle-timeout 600
	ok $? "$name: sctphttpd up on port $tp" || return
	local srv=$last idle0 idle1
	idle0=$(nfds $srv)
	timeout $((dur + 120)) "$LD" --server 127.0.0.1 --port $tp --timeout 30 --json \
	    --udp-port $cu --udp-remote-port $su --duration "$dur" \
	    --verify-manifest "$tmp/manifest" "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" &
	local load=$!
	# the start: once the connections are open and the first calls done
	sleep 5
	rss0=$(rss_kb $srv) fd0=$(nfds $srv)
	diag "$name start: RSS $rss0 kB, $fd0 fds"
	t0=$(date +%s)
	while kill -0 $load 2>/dev/null; do
		sleep 2
		rss=$(rss_kb $srv) fd=$(nfds $srv)
		[ -n "$rss" ] || break
		[ "$rss" -gt "$rssmax" ] && rssmax=$rss
		[ "$fd" -gt "$fdmax" ] && fdmax=$fd
		[ $(( ($(date +%s) - t0) % 60 )) -lt 2 ] && [ $(($(date +%s) - t0)) -ge 60 ] &&
		    diag "$name $(($(date +%s) - t0)) s: RSS $rss kB, $fd fds"
		rss1=$rss fd1=$fd
	done
	wait $load
	rc=$?
	# the end: the last sample under load (the connections still open)
	diag "$name end: RSS $rss1 kB, $fd1 fds (max $rssmax kB, $fdmax fds)"
	local j=$tmp/$name.json
	calls=$(grep -o '"replies":[0-9]*' "$j" | head -n 1 | cut -d: -f2)
	errors=$(grep -o '"errors":{"total":[0-9]*' "$j" | grep -o '[0-9]*$' | head -n 1)
	corrupt=$(grep -o '"corrupt":[0-9]*' "$j" | head -n 1 | cut -d: -f2)
	bytes=$(grep -o '"content":[0-9]*' "$j" | head -n 1 | cut -d: -f2)
	[ $rc = 0 ] && [ "${errors:-1}" = 0 ] && [ "${corrupt:-1}" = 0 ] && [ "${calls:-0}" -gt 0 ]
	ok $? "$name: $dur s, ${calls:-0} calls verified (${bytes:-0} body bytes), errors ${errors:-?}, corrupt ${corrupt:-?}"
	[ $rc = 0 ] || sed 's/^/#   /' "$j" "$tmp/$name.err" | head -n 5
	# flat: RSS within 10 % + 1 MB of the start. Under load the fds follow the connections
	# opened and closed at that instant (printed); the leak check is the idle count below.
	[ -n "$rss1" ] && [ "$rss1" -le $((rss0 + rss0 / 10 + 1024)) ]
	ok $? "$name: RSS $rss0 -> $rss1 kB: flat (fds under load $fd0 -> $fd1, at most $fdmax)"
	# and once the clients are gone, as many fds as before they came (no leak)
	for i in $(seq 1 100); do
		idle1=$(nfds $srv)
		[ "$idle1" -le "$idle0" ] && break
		sleep 0.1
	done
	[ "$idle1" = "$idle0" ]
	ok $? "$name: idle server fds before the load $idle0, after it $idle1"
	kill $srv
	wait $srv 2>/dev/null
	result "soak-$name" "$dur s: ${calls:-0} calls, ${bytes:-0} bytes verified, errors ${errors:-?}, corrupt ${corrupt:-?}; RSS $rss0 -> $rss1 kB, fds $fd0 -> $fd1 under load, $idle0 -> $idle1 idle"
}

for t in $transports; do
	case $t in
	tcp)
		soak tcp tcp --wsesslog 1000000,0,"$tmp/sess" --max-connections 8 ;;
	usrsctp)
		soak usrsctp usrsctp --proto usrsctp --streams 100 --wsesslog 1000000,0,"$tmp/sess" \
		    --max-connections 4 ;;
	kernel)
		if [ -n "${SOAK_INNER:-}" ] || "$top_srcdir/test/vm/have-sctp" 2>/dev/null; then
			ip link set lo mtu 1500 2>/dev/null
			soak kernel sctp --proto sctp --streams 100 --wsesslog 1000000,0,"$tmp/sess" \
			    --max-connections 4
		else
			mkdir -p "$tmp/vm"
			chmod 777 "$tmp/vm"
			SOAK_INNER=1 RELIABILITY_OUT=$tmp/vm run_tap "$top_srcdir/test/vm/run" \
			    --timeout $((dur + 200)) --out "$tmp/vm" "$0" "$dur" kernel
			cat "$tmp/vm"/*.txt 2>/dev/null | while IFS=$'\t' read -r k v; do result "$k" "$v"; done
		fi ;;
	*)
		ok 1 "unknown transport $t (tcp, usrsctp, kernel)" ;;
	esac
done
done_testing
