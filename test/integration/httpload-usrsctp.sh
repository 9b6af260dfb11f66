#!/bin/bash
# httpload-usrsctp.sh: httpload and httpget over usrsctp (UDP encapsulation) against sctphttpd.
. "$(dirname "$0")/../lib.sh"
hl="$top_builddir/httpload/httpload"
hg="$top_builddir/httpload/httpget"
httpd="$top_builddir/sctphttpd"
py=/usr/bin/python3
[ -x $py ] || py=python3
scratch httpload-usrsctp
if [ ! -x "$httpd" ] || ! grep -q 'define HAVE_USRSCTP 1' "$top_builddir/config.h"; then
	ok 1 "sctphttpd or usrsctp not built"
	done_testing
	exit
fi
free_udp() {
	$py -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
mkdir -p "$tmp/root"
head -c 1024 /dev/urandom >"$tmp/root/1k.bin"
head -c 100000 /dev/urandom >"$tmp/root/100k.bin"
$py - "$tmp/root" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY
sport=$(free_udp) cport=$(free_udp) gport=$(free_udp) port=$((20000 + $$ % 20000))
H=$httpd httpd_start httpd -L "usrsctp:127.0.0.1:$port" --udp-port "$sport" --udp-remote-port "$cport" \
	-d "$tmp/root" --sctp-streams 100
common="--proto usrsctp --server 127.0.0.1 --port $port --udp-port $cport --udp-remote-port $sport --timeout 10"
for s in 1 10 100; do
	# shellcheck disable=SC2086
	"$hl" $common --streams $s --uri /1k.bin --num-conns 4 --num-calls 60 --verbose \
		--verify-manifest "$tmp/manifest" --log "$tmp/log" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	# --log: 240 lines, each connection's 60 calls spread over min(s, 60) streams
	used=$(awk -F'\t' '$2 == 200 && $6 == "/1k.bin" { u[$4] = 1; n++ } END { print n + 0, length(u) }' "$tmp/log")
	grep -q 'requests 240 replies 240 ' "$tmp/o" && grep -q ' 2xx=240 ' "$tmp/o" &&
		grep -q 'corrupt 0$' "$tmp/o" && grep -q "$s streams\? usable" "$tmp/e" && [ $rc -eq 0 ] &&
		[ "$used" = "240 $((s < 60 ? s : 60))" ]
	ok $? "usrsctp, $s stream(s): 4 x 60 calls answered, verified, $s usable, --log: $used (exit $rc)"
	[ $rc -eq 0 ] || diag "$(grep -E '^(Total|Errors)' "$tmp/o"; head -3 "$tmp/e")"
done
# shellcheck disable=SC2086
"$hl" $common --streams 10 --uri /100k.bin --concurrency 2 --duration 1 --max-piped-calls 2 \
	--verify-manifest "$tmp/manifest" >"$tmp/o" 2>"$tmp/e"
grep -q 'corrupt 0$' "$tmp/o" && grep -q 'Errors: total 0 ' "$tmp/o" &&
	[ "$(sed -nE 's/.* 2xx=([0-9]+) .*/\1/p' "$tmp/o")" -gt 10 ]
ok $? "usrsctp closed loop, 10 streams x 2 piped, 100 KiB bodies verified"

mkdir -p "$tmp/dl"
"$hg" --proto usrsctp --udp-port "$gport" --udp-remote-port "$sport" -v -O "$tmp/dl" \
	"http://127.0.0.1:$port/1k.bin" "http://127.0.0.1:$port/100k.bin" \
	"http://127.0.0.1:$port/missing" 2>"$tmp/g.err"
rc=$?
cmp -s "$tmp/dl/1k.bin" "$tmp/root/1k.bin" && cmp -s "$tmp/dl/100k.bin" "$tmp/root/100k.bin" &&
	grep -q 'on stream 2' "$tmp/g.err" && grep -q '3 streams' "$tmp/g.err" && [ $rc -eq 0 ]
ok $? "httpget: three URLs on one association, one per stream, content checked (exit $rc)"
"$hg" --proto usrsctp --udp-port "$gport" --udp-remote-port "$sport" -f \
	"http://127.0.0.1:$port/missing" >/dev/null 2>&1
[ $? -eq 22 ]
ok $? "httpget --fail over usrsctp: exit 22 on a 404"
# shellcheck disable=SC2086
"$hl" --proto usrsctp --server 127.0.0.1 --port $((port + 1)) --udp-port "$cport" \
	--udp-remote-port "$sport" --num-conns 2 --timeout 3 >"$tmp/o" 2>&1
grep -Eq 'connrefused 2 |socket-timo 2 |client-timo 2 ' "$tmp/o"
ok $? "usrsctp, nobody on the port: counted ($(grep '^Errors: total' "$tmp/o"))"
done_testing
