#!/bin/bash
# https.sh: https (issue 37) on the host: sctphttpd --tls-cert/--tls-key on TCP, usrsctp-nt and
# usrsctp, one TLS 1.3 connection per stream (RFC 3436); httpget https:// with certificate
# verification (1 and 100 streams, every body compared byte for byte), httpload --ssl (the page
# on 100 streams, bodies by a manifest, handshakes reported), curl and openssl
# s_client as outside clients on TCP; bad certificates refused (exit 60); no HTTP in clear on
# the wire (a capture of loopback); a garbage, truncated or stalled TLS record costs its stream
# only; --tls-max. Kernel SCTP: https-kernel.sh (in the VM).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
. "$here/https-common.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
T=${TLS_PEER:-$top_builddir/test/interop/tls_peer}
need "$H" "$G" "$T" openssl curl dumpcap tshark

scratch https
chmod 755 "$tmp"
https_pki
ok $? "test certificates made (CA, server, another CA's, expired, wrong name)" ||
    sed 's/^/# /' "$tmp/pki/log"
pki=$tmp/pki
doc=$tmp/doc
mkdir -p "$doc"
echo first >"$doc/first.txt"
httpd_sized_files "$doc"
chmod -R a+rX "$doc"
base=$(httpd_udp_ports 8)
ca="--cacert $pki/ca.pem"

"$H" --tls-cert "$pki/srv.pem" -p 0 >/dev/null 2>"$tmp/e1"
rc=$?
[ $rc = 2 ] && grep -q 'sctphttpd: --tls-cert and --tls-key go together' "$tmp/e1"
ok $? "--tls-cert without --tls-key: a usage error, exit 2 (exit $rc)"
"$H" --tls-cert "$tmp/none.pem" --tls-key "$pki/srv.key" -p 0 >/dev/null 2>"$tmp/e2"
rc=$?
[ $rc = 1 ] && grep -q "sctphttpd: TLS certificate $tmp/none.pem with key .*: " "$tmp/e2"
ok $? "a certificate file that is not there: a clear error, exit 1 (exit $rc)" ||
    sed 's/^/# /' "$tmp/e2"

# one server: https on TCP and on usrsctp-nt
su=$base cu=$((base + 1))
httpd_start main -p 0 -h 127.0.0.1 -L usrsctp-nt:127.0.0.1:$((base + 7)) --udp-port $su \
    --udp-remote-port $cu -d "$doc" --tls-cert "$pki/srv.pem" --tls-key "$pki/srv.key"
ok $? "sctphttpd serves https on TCP and usrsctp-nt at once"
tport=$port sport=$((base + 7))

# a capture of loopback while the clients below run: nothing of HTTP may be seen in clear
dumpcap -q -i lo -f "tcp port $tport or udp port $su" -w "$tmp/cap.pcapng" 2>"$tmp/dumpcap.err" &
cap=$!
pids="$pids $cap"
for i in $(seq 1 50); do grep -q "File:" "$tmp/dumpcap.err" 2>/dev/null && break; sleep 0.1; done

curl -sS --cacert "$pki/ca.pem" -o "$tmp/curl.out" "https://localhost:$tport/u4" 2>"$tmp/curl.err"
rc=$?
cmp -s "$tmp/curl.out" "$doc/u4"
ok $? "curl --cacert over TCP: TLS verified, the 1 MiB body byte for byte (exit $rc)" ||
    sed 's/^/# /' "$tmp/curl.err"

curl -sS --cacert "$pki/ca.pem" --tls-max 1.2 -o /dev/null "https://localhost:$tport/first.txt" \
    2>"$tmp/curl12.err"
rc=$?
[ $rc = 35 ]
ok $? "TLS 1.3 only: curl --tls-max 1.2 fails its handshake (exit $rc, 35 wanted)" ||
    sed 's/^/# /' "$tmp/curl12.err"

urls() { for i in $(seq 0 99); do echo "https://$1/u$i"; done; }
same() { # same DIR: all 100 bodies as on disk
	local i
	for i in $(seq 0 99); do cmp -s "$doc/u$i" "$1/u$i" || return 1; done
}
tcpget() {
	mkdir -p "$tmp/$1"
	timeout 60 "$G" -s --json $ca -O "$tmp/$1" "${@:2}" 2>"$tmp/$1.err"
}
tcpget t100 $(urls 127.0.0.1:$tport)
rc=$?
[ $rc = 0 ] && same "$tmp/t100" &&
    grep -q '"tls_handshakes": 1, .*"tls_alpn": "http/1.1"' "$tmp/t100.err"
ok $? "httpget https over TCP: 100 objects on one connection, one handshake, ALPN http/1.1 (exit $rc)" ||
    tail -n 3 "$tmp/t100.err" | sed 's/^/# /'

sget() { # sget NAME STREAMS: the 100-object page over usrsctp-nt
	mkdir -p "$tmp/$1"
	timeout 60 "$G" -s --json --proto usrsctp-nt --udp-port $cu --udp-remote-port $su \
	    --streams "$2" $ca -O "$tmp/$1" $(urls localhost:$sport) 2>"$tmp/$1.err"
}
sget n1 1
rc=$?
[ $rc = 0 ] && same "$tmp/n1" &&
    grep -q '"tls_handshakes": 1, .*"tls_alpn": "http/1.1+sctp"' "$tmp/n1.err"
ok $? "usrsctp-nt, 1 stream: the 100-object page, verified, ALPN http/1.1+sctp, one handshake (exit $rc)" ||
    tail -n 3 "$tmp/n1.err" | sed 's/^/# /'
sget n100 100
rc=$?
[ $rc = 0 ] && same "$tmp/n100" &&
    grep -q '"tls_handshakes": 100, "tls_resumed": 99, .*"tls_alpn": "http/1.1+sctp"' "$tmp/n100.err"
ok $? "usrsctp-nt, 100 streams: the 100-object page, a TLS connection per stream, streams 2..100 resumed from the first's ticket (exit $rc)" ||
    tail -n 3 "$tmp/n100.err" | sed 's/^/# /'
diag "handshakes: $(grep -o '"tls_handshakes.*"tls_handshake_max_s": [0-9.]*' "$tmp/n100.err")"

HL=${HTTPLOAD:-$top_builddir/httpload/httpload}
timeout 60 "$HL" --ssl $ca --server localhost --port $sport --uri /u4 --num-conns 3 \
    --num-calls 4 --streams 4 --proto usrsctp-nt --udp-port $cu --udp-remote-port $su \
    >"$tmp/hl.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^Reply status: 1xx=0 2xx=12 3xx=0 4xx=0 5xx=0' "$tmp/hl.out" &&
    grep -q '^Reply size \[B\]: header [0-9.]* content 1048576.0 ' "$tmp/hl.out" &&
    grep -q '^Errors: total 0 ' "$tmp/hl.out"
ok $? "httpload --ssl over usrsctp-nt: 3 associations of 4 streams, 12 replies of 1 MiB, no error (exit $rc)" ||
    grep '^Reply\|^Errors\|httpload:' "$tmp/hl.out" | sed 's/^/# /'
# the handshakes counted apart: a TLS connection per stream, each association's streams 2..4
# resumed from its first stream's ticket
grep -q '^TLS handshakes: 12 (9 resumed), mean [0-9.]* ms, longest [0-9.]* ms$' "$tmp/hl.out"
ok $? "httpload --ssl reports its handshakes apart: 12, 9 of them resumed ($(grep '^TLS' "$tmp/hl.out"))"
# the 100-object page by httpload --ssl: one association of 100 streams, the certificate
# verified, every body checked against a manifest (size and CRC-32)
python3 - "$doc" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY
for i in $(seq 0 99); do printf '/u%d\0' "$i"; done >"$tmp/wlog"
timeout 60 "$HL" --ssl $ca --server localhost --port $sport --proto usrsctp-nt --udp-port $cu \
    --udp-remote-port $su --streams 100 --num-conns 1 --num-calls 100 --wlog "n,$tmp/wlog" \
    --verify-manifest "$tmp/manifest" >"$tmp/hlp.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^Total: connections 1 requests 100 replies 100 ' "$tmp/hlp.out" &&
    grep -q '^Reply status: 1xx=0 2xx=100 3xx=0 4xx=0 5xx=0' "$tmp/hlp.out" &&
    grep -q 'corrupt 0$' "$tmp/hlp.out" && grep -q '^TLS handshakes: 100 (99 resumed), ' "$tmp/hlp.out"
ok $? "httpload --ssl over usrsctp-nt: the 100-object page on 100 streams, verified, every body by the manifest, 100 handshakes (99 resumed) (exit $rc)" ||
    grep '^Total\|^Reply status\|^Errors\|^TLS\|httpload' "$tmp/hlp.out" | sed 's/^/# /'
# a certificate its CA file does not vouch for: httpload says so once (not once a connection)
# and exits non-zero
timeout 60 "$HL" --ssl --cacert "$pki/otherca.pem" --server localhost --port $sport --proto usrsctp-nt \
    --udp-port $cu --udp-remote-port $su --streams 4 --num-conns 3 --num-calls 4 --uri /first.txt \
    >"$tmp/hlbad.out" 2>"$tmp/hlbad.err"
rc=$?
[ $rc != 0 ] && [ "$(grep -c 'certificate of localhost refused' "$tmp/hlbad.err")" = 1 ] &&
    grep -q '^Reply status: 1xx=0 2xx=0 ' "$tmp/hlbad.out"
ok $? "httpload --ssl against a certificate its CA file does not vouch for: refused, said once, exit $rc" ||
    sed 's/^/# /' "$tmp/hlbad.err"
# and in --json, and through httpload merge (two clients' reports: 24 handshakes, 18 resumed)
timeout 60 "$HL" --ssl $ca --server localhost --port $sport --uri /u4 --num-conns 3 \
    --num-calls 4 --streams 4 --proto usrsctp-nt --udp-port $cu --udp-remote-port $su --json \
    >"$tmp/hl.json" 2>"$tmp/hl.jerr"
"$HL" merge "$tmp/hl.json" "$tmp/hl.json" >"$tmp/hlm.out" 2>&1
grep -q '"tls":{"handshakes":12,"resumed":9,"handshake_mean_ms":[0-9.]*,"handshake_max_ms":[0-9.]*}' "$tmp/hl.json" &&
    grep -q '^TLS handshakes: 24 (18 resumed), mean [0-9.]* ms, longest [0-9.]* ms$' "$tmp/hlm.out"
ok $? "httpload --ssl --json: the handshakes in its \"tls\" object; merged twice: 24, 18 resumed" ||
    { head -c 300 "$tmp/hl.json"; grep '^TLS\|merge' "$tmp/hlm.out"; } | sed 's/^/# /'

printf 'GET /first.txt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' |
    timeout 20 openssl s_client -quiet -connect 127.0.0.1:$tport -CAfile "$pki/ca.pem" \
    -verify_return_error -alpn http/1.1 -servername localhost >"$tmp/ossl.out" 2>"$tmp/ossl.err"
rc=$?
grep -q '^HTTP/1.1 200 OK' "$tmp/ossl.out" && grep -qx first "$tmp/ossl.out"
ok $? "openssl s_client (TCP, ALPN http/1.1, verified): 200 and the body (exit $rc)" ||
    sed 's/^/# /' "$tmp/ossl.err"

sleep 0.5
kill -INT $cap
wait $cap 2>/dev/null
n=$(tshark -r "$tmp/cap.pcapng" 2>/dev/null | wc -l)
clear=$(tshark -r "$tmp/cap.pcapng" -Y 'frame contains "GET /" or frame contains "HTTP/1.1"' \
    2>/dev/null | wc -l)
[ "$n" -gt 200 ] && [ "$clear" = 0 ] && ! grep -aq 'GET /u\|HTTP/1.1 200' "$tmp/cap.pcapng"
ok $? "the capture of loopback ($n frames, TCP and SCTP in UDP): no \"GET /\" nor \"HTTP/1.1\" in clear ($clear frames)"

# hostile streams on one association: garbage (x), truncated (t), stalled (s) beside good (g)
httpd_start hostile -L usrsctp-nt:127.0.0.1:$((base + 5)) --udp-port $((base + 4)) \
    --udp-remote-port $cu -d "$doc" --tls-cert "$pki/srv.pem" --tls-key "$pki/srv.key" \
    --request-timeout 1
timeout 30 "$T" --udp-port $cu --udp-remote-port $((base + 4)) usrsctp-nt 127.0.0.1:$((base + 5)) \
    "$pki/ca.pem" localhost /first.txt gxgtgs+ 2500 >"$tmp/peer.out" 2>&1
rc=$?
printf '%s\n' "stream 0: 200 6" "stream 1: alert 10 reset" "stream 2: 200 6" \
    "stream 3: reset" "stream 4: 200 6" "stream 5: reset" "stream 0 again: 200 6" \
    "stream 1 again: 200 6" "stream 2 again: 200 6" "stream 3 again: 200 6" \
    "stream 4 again: 200 6" "stream 5 again: 200 6" >"$tmp/peer.want"
diff "$tmp/peer.want" "$tmp/peer.out" >"$tmp/peer.diff"
ok $? "a garbage record (alert 10, reset), a truncated one and a stalled handshake (reset after --request-timeout 1) cost their streams only; after the reset each serves again (exit $rc)" ||
    sed 's/^/# /' "$tmp/peer.diff"
kill -0 $last
ok $? "the server runs on"

# bad certificates: exit 60 and what was wrong
badsrv() { # badsrv NAME CERT: a TCP server with that certificate, $bport
	httpd_start "$1" -p 0 -h 127.0.0.1 -d "$doc" --tls-cert "$pki/$2" --tls-key "$pki/srv.key"
	bport=$port
}
badsrv other other.pem
timeout 20 "$G" -s $ca "https://localhost:$bport/first.txt" >"$tmp/b1.out" 2>"$tmp/b1.err"
rc=$?
[ $rc = 60 ] && [ ! -s "$tmp/b1.out" ] &&
    grep -q "^httpget: TLS stream 0: certificate of localhost refused: .*issuer is unknown" "$tmp/b1.err"
ok $? "another CA's certificate: refused, nothing written, exit 60 (exit $rc)" ||
    sed 's/^/# /' "$tmp/b1.err"
timeout 20 "$G" -s --insecure "https://localhost:$bport/first.txt" >"$tmp/b1k.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -qx first "$tmp/b1k.out"
ok $? "--insecure takes it (exit $rc)"
badsrv expired expired.pem
timeout 20 "$G" -s $ca "https://127.0.0.1:$port/first.txt" >/dev/null 2>"$tmp/b2.err"
rc=$?
[ $rc = 60 ] && grep -q "certificate of 127.0.0.1 refused: .*expired" "$tmp/b2.err"
ok $? "an expired certificate: refused, exit 60 (exit $rc)" || sed 's/^/# /' "$tmp/b2.err"
badsrv wrongname wrongname.pem
timeout 20 "$G" -s $ca "https://localhost:$port/first.txt" >/dev/null 2>"$tmp/b3.err"
rc=$?
[ $rc = 60 ] && grep -q "certificate of localhost refused: .*name in the certificate does not match" "$tmp/b3.err"
ok $? "a certificate for another name: refused, exit 60 (exit $rc)" || sed 's/^/# /' "$tmp/b3.err"
timeout 20 "$G" -s "https://localhost:$port/first.txt" >/dev/null 2>"$tmp/b4.err"
rc=$?
[ $rc = 60 ]
ok $? "without --cacert the system's trust store: our test CA is not in it, exit 60 (exit $rc)"

# --tls-max 4: one association holds at most 2 handshakes; another association is served
httpd_start cap -p 0 -h 127.0.0.1 -L usrsctp-nt:127.0.0.1:$((base + 6)) --udp-port $((base + 2)) \
    --udp-remote-port $((base + 3)) -d "$doc" --tls-cert "$pki/srv.pem" --tls-key "$pki/srv.key" \
    --tls-max 4
capport=$port
timeout 30 "$T" --udp-port $((base + 3)) --udp-remote-port $((base + 2)) usrsctp-nt \
    127.0.0.1:$((base + 6)) "$pki/ca.pem" localhost /first.txt ssgg 2500 >"$tmp/cap.out" 2>&1 &
flood=$!
sleep 1
timeout 20 "$G" -s $ca "https://localhost:$capport/first.txt" >"$tmp/cap2.out" 2>&1
rc=$?
wait $flood
printf '%s\n' "stream 0: nothing" "stream 1: nothing" "stream 2: reset" "stream 3: reset" >"$tmp/cap.want"
diff "$tmp/cap.want" "$tmp/cap.out" >"$tmp/cap.diff" && [ $rc = 0 ] && grep -qx first "$tmp/cap2.out"
ok $? "--tls-max 4: two stalled handshakes fill one association's half, its next two streams are reset; a TCP client meanwhile is served (exit $rc)" ||
    sed 's/^/# /' "$tmp/cap.diff" "$tmp/cap2.out"
# what sctphttpd(8) says of --tls-max: a client that starts all its streams' handshakes at once
# needs half the cap to hold its streams; below that its page is cut (the streams beyond the
# association's half reset); at the default (128 an association) it is whole (above)
timeout 60 "$HL" --ssl $ca --server localhost --port $((base + 6)) --proto usrsctp-nt \
    --udp-port $((base + 3)) --udp-remote-port $((base + 2)) --streams 100 --num-conns 1 \
    --num-calls 100 --wlog "n,$tmp/wlog" --timeout 20 >"$tmp/capp.out" 2>&1
rc4=$?
grep -q '^Reply status: 1xx=0 2xx=100 ' "$tmp/capp.out"
full4=$?
[ $rc4 != 0 ] && [ $full4 != 0 ] && grep -q '^Errors: total 1 ' "$tmp/capp.out"
ok $? "--tls-max 4 against a 100-stream page: cut, as the man page says (exit $rc4; $(grep '^Reply status' "$tmp/capp.out"))"
done_testing
