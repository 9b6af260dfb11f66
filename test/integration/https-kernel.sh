#!/bin/bash
# https-kernel.sh: https (issue 37) over kernel SCTP: sctphttpd --tls-cert/--tls-key on sctp and
# sctp1m, httpget https:// with verification, the 100-object page on 100 streams (a TLS
# connection per stream, streams 2..100 resumed), bodies byte for byte; the same page by
# httpload --ssl (bodies by a manifest, handshakes reported); no HTTP in clear in a
# capture; openssl s_client and gnutls-cli over lksctp-tools' withsctp on one stream (RFC
# 3436 lets a generic TLS client use stream 0). Natively where the kernel has SCTP, else in the
# VM (test/vm/run): "--inner" is the part run there.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
. "$here/https-common.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
HL=${HTTPLOAD:-$top_builddir/httpload/httpload}

if [ "$1" != --inner ]; then
	need "$H" "$G" "$HL" openssl withsctp dumpcap
	run_tap kernel_sctp bash "$here/https-kernel.sh" --inner
	done_testing
	exit
fi

scratch https-kernel

chmod 755 "$tmp"
https_pki
ok $? "test certificates made" || sed 's/^/# /' "$tmp/pki/log"
pki=$tmp/pki
doc=$tmp/doc
mkdir -p "$doc"
echo first >"$doc/first.txt"
httpd_sized_files "$doc"
chmod -R a+rX "$doc"
b=$((20000 + (RANDOM % 2000) * 8))

httpd_start -n 2 main -L sctp:127.0.0.1:$b -L sctp1m:127.0.0.1:$((b + 1)) -d "$doc" \
    --tls-cert "$pki/srv.pem" --tls-key "$pki/srv.key" --accept-ppid0
ok $? "sctphttpd serves https on kernel sctp and sctp1m"

dumpcap -q -i lo -f "sctp" -w "$tmp/cap.pcapng" 2>"$tmp/dumpcap.err" &
cap=$!
pids="$pids $cap"
for i in $(seq 1 100); do grep -q "File:" "$tmp/dumpcap.err" 2>/dev/null && break; sleep 0.1; done

for t in "sctp $b" "sctp1m $((b + 1))"; do
	set -- $t
	mkdir -p "$tmp/$1"
	timeout 120 "$G" -s --json --proto sctp --cacert "$pki/ca.pem" -O "$tmp/$1" \
	    $(for i in $(seq 0 99); do echo "https://127.0.0.1:$2/u$i"; done) 2>"$tmp/$1.err"
	rc=$?
	bad=0
	for i in $(seq 0 99); do cmp -s "$doc/u$i" "$tmp/$1/u$i" || bad=$((bad + 1)); done
	[ $rc = 0 ] && [ $bad = 0 ] &&
	    grep -q '"tls_handshakes": 100, "tls_resumed": 99, .*"tls_alpn": "http/1.1+sctp"' "$tmp/$1.err"
	ok $? "$1: the 100-object page on 100 streams over https, verified, every body byte for byte ($bad differ), streams 2..100 resumed (exit $rc)" ||
	    tail -n 3 "$tmp/$1.err" | sed 's/^/# /'
	diag "$1: $(grep -o '"tls_handshakes.*"tls_handshake_max_s": [0-9.]*' "$tmp/$1.err")"
done

# httpload --ssl, the load generator: the same page (u0..u99 in the order of a --wlog) on one
# association of 100 streams, with certificate verification, every body checked against a
# manifest (size and CRC-32), its handshakes reported apart
python3 - "$doc" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY
for i in $(seq 0 99); do printf '/u%d\0' "$i"; done >"$tmp/wlog"
for t in "sctp $b" "sctp1m $((b + 1))"; do
	set -- $t
	timeout 120 "$HL" --ssl --cacert "$pki/ca.pem" --server 127.0.0.1 --port $2 --proto $1 \
	    --streams 100 --num-conns 1 --num-calls 100 --wlog "n,$tmp/wlog" --timeout 60 \
	    --verify-manifest "$tmp/manifest" >"$tmp/hl.$1" 2>"$tmp/hl.$1.err"
	rc=$?
	[ $rc = 0 ] && grep -q '^Total: connections 1 requests 100 replies 100 ' "$tmp/hl.$1" &&
	    grep -q '^Reply status: 1xx=0 2xx=100 3xx=0 4xx=0 5xx=0' "$tmp/hl.$1" &&
	    grep -q 'corrupt 0$' "$tmp/hl.$1" && grep -q '^Errors: total 0 ' "$tmp/hl.$1" &&
	    grep -q '^TLS handshakes: 100 (99 resumed), ' "$tmp/hl.$1"
	ok $? "$1: httpload --ssl fetches the 100-object page on 100 streams, verified, every body by the manifest, 100 handshakes (99 resumed) (exit $rc)" ||
	    grep -h '^Total\|^Reply status\|^Errors\|^TLS\|httpload' "$tmp/hl.$1" "$tmp/hl.$1.err" | sed 's/^/# /'
	diag "$1: $(grep '^TLS' "$tmp/hl.$1")"
done

timeout 20 "$G" -s --proto sctp --cacert "$pki/otherca.pem" "https://127.0.0.1:$b/first.txt" \
    >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 60 ] && grep -q 'certificate of 127.0.0.1 refused' "$tmp/bad.err"
ok $? "a certificate its CA file does not vouch for: refused, exit 60 (exit $rc)" ||
    sed 's/^/# /' "$tmp/bad.err"

req=$'GET /first.txt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'
printf '%s' "$req" | timeout 20 withsctp openssl s_client -quiet -connect 127.0.0.1:$b \
    -CAfile "$pki/ca.pem" -verify_return_error >"$tmp/ossl.out" 2>"$tmp/ossl.err"
rc=$?
grep -q '^HTTP/1.1 200 OK' "$tmp/ossl.out" && grep -qx first "$tmp/ossl.out"
ok $? "withsctp openssl s_client on stream 0 (PPID 0, --accept-ppid0): verified, 200 and the body (exit $rc)" ||
    sed 's/^/# /' "$tmp/ossl.err" "$tmp/ossl.out" | tail -n 8
if command -v gnutls-cli >/dev/null; then
	printf '%s' "$req" | timeout 20 withsctp gnutls-cli --logfile=/dev/null --x509cafile "$pki/ca.pem" \
	    -p $b 127.0.0.1 >"$tmp/gcli.out" 2>"$tmp/gcli.err"
	rc=$?
	grep -q '^HTTP/1.1 200 OK' "$tmp/gcli.out" && grep -qx first "$tmp/gcli.out"
	ok $? "withsctp gnutls-cli on stream 0: verified, 200 and the body (exit $rc)" ||
	    sed 's/^/# /' "$tmp/gcli.err" | tail -n 8
fi

sleep 0.5
kill -INT $cap
wait $cap 2>/dev/null
# the capture's bytes as they are (pcapng keeps payloads verbatim; tshark starts too slowly in
# the emulated machine): more than the 10 MB of bodies carried, and no HTTP among them
n=$(stat -c %s "$tmp/cap.pcapng")
clear=$(grep -ac 'GET /\|HTTP/1.1' "$tmp/cap.pcapng")
[ "$n" -gt 10000000 ] && [ "$clear" = 0 ]
ok $? "the capture of kernel SCTP on loopback ($n bytes): no \"GET /\" nor \"HTTP/1.1\" in clear ($clear lines)"
[ $tap_failed = 0 ] || sed 's/^/# server: /' "$tmp/main.err" | tail -n 20
done_testing
