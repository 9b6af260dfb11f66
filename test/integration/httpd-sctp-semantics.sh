#!/bin/bash
# httpd-sctp-semantics.sh: HTTP semantics on SCTP streams (usrsctp) that issue 19 found broken:
# chunked requests, versions, PPIDs other than 63 on both sides; tp_peer sends raw messages on
# chosen streams and plays a server that answers with PPID 0 (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
L=${HTTPLOAD:-$top_builddir/httpload/httpload}
P=${TP_PEER:-$top_builddir/test/interop/tp_peer}
need "$H" "$G" "$L" "$P" perl

scratch httpd-sctp-semantics
chmod 755 "$tmp"
base=$(httpd_udp_ports 3)
su=$base cu=$((base + 1)) pu=$((base + 2))

doc=$tmp/doc
mkdir -p "$doc/cgi-bin"
echo first >"$doc/first.txt"
httpd_echo_cgi "$doc/cgi-bin/echo.cgi"
# half an answer, then it dies: the server resets the stream
cat >"$doc/cgi-bin/part.cgi" <<'EOS'
#!/bin/sh
printf 'Content-Type: text/plain\r\n\r\npartial\n'
sleep 0.3
kill -9 $$
EOS
chmod 755 "$doc/cgi-bin/part.cgi"
# an answer of unknown length (no Content-Length)
printf '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\nno length here\\n"\n' >"$doc/cgi-bin/nolen.cgi"
chmod 755 "$doc/cgi-bin/nolen.cgi"
# a local redirect (RFC 3875 6.2.2), answered on the stream in the program's place (issue 33)
printf '#!/bin/sh\nprintf "Location: /first.txt\\r\\n\\r\\n"\n' >"$doc/cgi-bin/local.cgi"
chmod 755 "$doc/cgi-bin/local.cgi"
chmod -R a+rX "$doc"

httpd_start main -L usrsctp:127.0.0.1:8080 --udp-port $su --udp-remote-port $cu -d "$doc" \
    -c '/cgi-bin/*' -l "$tmp/access.log"
ok $? "sctphttpd listens on usrsctp 127.0.0.1:8080 (UDP $su)"

peer() {
	timeout 30 "$P" --timeout 20 --udp-port $cu --udp-remote-port $su --ppid 63 "$@" \
	    send usrsctp 127.0.0.1:8080 "${msgs[@]}" >"$tmp/p.out" 2>&1
}
hdr=$'Host: x\r\nTransfer-Encoding: chunked\r\n\r\n'

# --- defect 2 over SCTP: decoded; a framing error costs its stream, not the association ---------
msgs=($'POST /cgi-bin/echo.cgi HTTP/1.1\r\n'"$hdr"$'3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n')
peer --stream 3
grep -q '^reply stream=3 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$tmp/p.out" && grep -q 'len=5 body=abcde' "$tmp/p.out"
ok $? "a chunked POST on stream 3 reaches the CGI program decoded, answered on stream 3"
msgs=($'POST /cgi-bin/echo.cgi HTTP/1.1\r\n'"$hdr"$'2\r\nabXY\r\n0\r\n\r\n' $'GET /first.txt HTTP/1.1\r\nHost: x\r\n\r\n')
peer --streams-each 2,5
grep -q '^reply stream=2 ppid=63 len=[0-9]*: HTTP/1.1 400 ' "$tmp/p.out" &&
    grep -q '^reply stream=5 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$tmp/p.out" && grep -qx first "$tmp/p.out"
ok $? "malformed chunked content on stream 2: 400 there, and the association goes on (stream 5: 200)"
sed 's/^/#   /' "$tmp/p.out" | grep reply

msgs=($'GET /cgi-bin/local.cgi HTTP/1.1\r\nHost: x\r\n\r\n')
peer --stream 7
grep -q '^reply stream=7 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$tmp/p.out" && grep -qx first "$tmp/p.out"
ok $? "a CGI's local redirect on stream 7: /first.txt served on stream 7 in its place"

# --- defect 3: versions on a stream, as the draft now says ------------------------------------
msgs=($'GET /first.txt HTTP/2.0\r\nHost: x\r\n\r\n' $'GET /first.txt HTTP/1.2\r\nHost: x\r\n\r\n')
peer --streams-each 4,6
grep -q '^reply stream=4 ppid=63 len=[0-9]*: HTTP/1.1 505 ' "$tmp/p.out" &&
    grep -q '^reply stream=6 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$tmp/p.out"
ok $? "HTTP/2.0 on stream 4: 505 and a stream error; HTTP/1.2 on stream 6 served as 1.1 (RFC 9110 2.5)"
msgs=($'GET /first.txt HTTP/1.0\r\n\r\n')
peer --stream 1
grep -q '^reply stream=1 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$tmp/p.out" && grep -q '^Connection: close' "$tmp/p.out"
ok $? "HTTP/1.0 on a stream: answered, with Connection: close (the association's, as the draft says)"
# the draft's one exception to "no close-delimited answer": HTTP/1.0 cannot take chunked
msgs=($'GET /cgi-bin/nolen.cgi HTTP/1.0\r\n\r\n')
peer --stream 2
grep -q '^reply stream=2 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$tmp/p.out" && grep -q '^Connection: close' "$tmp/p.out" &&
	! grep -qi '^Transfer-Encoding' "$tmp/p.out" && grep -qx 'no length here' "$tmp/p.out"
ok $? "a CGI answer of unknown length to HTTP/1.0 on a stream: Connection: close, the whole body, no chunked (the draft's exception)"
sed 's/^/#   /' "$tmp/p.out" | head -12

# --- defect 5: PPID 0 is refused with a reason naming --accept-ppid0 --------------------------
msgs=($'GET /first.txt HTTP/1.1\r\nHost: x\r\n\r\n')
timeout 30 "$P" --timeout 20 --udp-port $cu --udp-remote-port $su --ppid 0 --stream 2 \
    send usrsctp 127.0.0.1:8080 "${msgs[@]}" >"$tmp/p.out" 2>&1
grep -q '^reply stream=2 ppid=63 len=[0-9]*: HTTP/1.1 400 ' "$tmp/p.out" && grep -q -- '--accept-ppid0' "$tmp/p.out"
ok $? "PPID 0: 400, and its body names --accept-ppid0"
grep -i 'ppid' "$tmp/p.out" | sed 's/^/#   /'
sleep 1.2 # the log is written once a second
grep -q 'PPID 0 .*--accept-ppid0.* 400 ' "$tmp/access.log"
ok $? "the access log line says it too"
grep 'PPID' "$tmp/access.log" | sed 's/^/#   /'

# --- defect 6: our clients refuse answers with PPID other than 63 unless --accept-ppid0 ------
reply=$'HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabc\n'
timeout 30 "$P" --timeout 25 --udp-port $pu --udp-remote-port $cu --ppid 0 --reply "$reply" \
    listen usrsctp 127.0.0.1:8090 >"$tmp/fake.out" 2>&1 &
pids="$pids $!"
sleep 0.5
timeout 30 "$G" -s -m 10 --proto usrsctp --udp-port $cu --udp-remote-port $pu \
    http://127.0.0.1:8090/x >"$tmp/g.out" 2>"$tmp/g.err"
rc=$?
[ $rc -ne 0 ] && [ ! -s "$tmp/g.out" ] && grep -q 'PPID 0' "$tmp/g.err"
ok $? "httpget refuses an answer with PPID 0 (exit $rc: $(head -n1 "$tmp/g.err"))"
timeout 30 "$G" -s -m 10 --accept-ppid0 --proto usrsctp --udp-port $cu --udp-remote-port $pu \
    http://127.0.0.1:8090/x >"$tmp/g.out" 2>"$tmp/g.err"
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$tmp/g.out")" = abc ]
ok $? "httpget --accept-ppid0 takes it (exit $rc)"
timeout 60 "$L" --proto usrsctp --udp-port $cu --udp-remote-port $pu --server 127.0.0.1 \
    --port 8090 --uri /x --num-conns 1 --num-calls 1 --timeout 10 --json >"$tmp/l.out" 2>&1
grep -Eq '"replies": ?0[,}]' "$tmp/l.out" && grep -Eq '"other": ?1[,}]' "$tmp/l.out"
ok $? "httpload counts no reply from it, one error"
timeout 60 "$L" --accept-ppid0 --proto usrsctp --udp-port $cu --udp-remote-port $pu \
    --server 127.0.0.1 --port 8090 --uri /x --num-conns 1 --num-calls 1 --timeout 10 --json \
    >"$tmp/l2.out" 2>&1
grep -Eq '"2xx": ?1[,}]' "$tmp/l2.out"
ok $? "httpload --accept-ppid0 counts its 200"

# --- defect 12: a reply cut short by the server's stream reset is noticed at once --------------
now() { date +%s%N; }
t0=$(now)
timeout 30 "$G" -s -m 10 --proto usrsctp --udp-port $cu --udp-remote-port $su \
    http://127.0.0.1:8080/cgi-bin/part.cgi >"$tmp/g.out" 2>"$tmp/g.err"
rc=$?
t1=$(now)
secs=$(awk "BEGIN { printf \"%.2f\", ($t1 - $t0) / 1e9 }")
[ $rc -eq 18 ] && awk "BEGIN { exit !($secs < 5) }"
ok $? "httpget: a body cut short by a stream reset, exit $rc in $secs s (no-progress limit 10 s): $(head -n1 "$tmp/g.err")"

done_testing
