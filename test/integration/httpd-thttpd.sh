#!/bin/bash
# httpd-thttpd.sh: sctphttpd's thttpd flags: -t throttles, -c CGI/1.1 with its time limit,
# -M max-age, -T charset, thttpd.conf names in -C; over TCP (curl) and usrsctp (httpget) (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}

for f in "$H" "$G"; do
	[ -x "$f" ] || { ok 1 "$f not built"; done_testing; exit; }
done
for t in curl perl; do
	command -v $t >/dev/null || { ok 1 "$t missing"; done_testing; exit; }
done

scratch httpd-thttpd
chmod 755 "$tmp"
udp_free() {
	! ss -Huan "sport = :$1" 2>/dev/null | grep -q .
}
for try in $(seq 1 30); do
	base=$((30000 + (RANDOM % 1000) * 8))
	udp_free $base && udp_free $((base + 1)) && break
done
su=$base cu=$((base + 1))

doc=$tmp/doc
mkdir -p "$doc/cgi-bin" "$doc/slow"
head -c 1048576 /dev/urandom >"$doc/slow/1m.bin"
cp "$doc/slow/1m.bin" "$doc/1m.bin"
echo hello >"$doc/a.txt"
# The program prints its whole environment, and its input.
cat >"$doc/cgi-bin/env.cgi" <<'EOF'
#!/usr/bin/perl
print "Content-Type: text/plain\r\n\r\n";
print "$_=$ENV{$_}\n" for sort keys %ENV;
if ($ENV{CONTENT_LENGTH}) { read(STDIN, my $b, $ENV{CONTENT_LENGTH}); print "BODY=$b\n"; }
EOF
cat >"$doc/cgi-bin/status.cgi" <<'EOF'
#!/bin/sh
printf 'Status: 404 Gone Fishing\r\nX-Mine: yes\r\nContent-Type: text/plain\r\n\r\nmissing\n'
EOF
cat >"$doc/cgi-bin/redirect.cgi" <<'EOF'
#!/bin/sh
printf 'Location: /a.txt\r\n\r\n'
EOF
# hangs before any output, with a child of its own: both must go at the limit
cat >"$doc/cgi-bin/hang.cgi" <<EOF
#!/bin/sh
sleep 4711 &
sleep 4712
EOF
cat >"$doc/cgi-bin/part.cgi" <<'EOF'
#!/bin/sh
printf 'Content-Type: text/plain\r\n\r\npartial\n'
sleep 4713
EOF
printf 'no interpreter line: exec fails\n' >"$doc/cgi-bin/bad.cgi"
cat >"$doc/cgi-bin/big.cgi" <<EOF
#!/bin/sh
printf 'Content-Type: application/octet-stream\r\n\r\n'
cat "$doc/1m.bin"
EOF
cat >"$doc/cgi-bin/count.cgi" <<'EOF'
#!/bin/sh
n=$(head -c "$CONTENT_LENGTH" | wc -c)
printf 'Content-Type: text/plain\r\n\r\n%s\n' "$n"
EOF
echo "plain" >"$doc/cgi-bin/noexec.cgi"
chmod 755 "$doc"/cgi-bin/*.cgi
chmod 644 "$doc/cgi-bin/noexec.cgi"
chmod -R a+rX "$doc"
rate=262144
cat >"$tmp/throttles" <<EOF
# thttpd's format: pattern, then max or min-max bytes per second
slow/**      $rate
**.min       100000-200000
EOF
for i in 1 2 3; do cp "$doc/slow/1m.bin" "$doc/m$i.min"; done

start() { SECRET=do-not-leak httpd_start "$@"; } # start NAME ARGS...: sctphttpd ARGS, $port and $last set
secs() { awk "BEGIN { printf \"%.2f\", ($2 - $1) / 1e9 }"; }
within() { awk "BEGIN { exit !($1 >= $2 && $1 <= $3) }"; }
uget() {
	timeout 60 "$G" -s -m 30 --proto usrsctp --udp-port $cu --udp-remote-port $su "$@"
}

start main -p 0 -h 127.0.0.1 -L usrsctp:127.0.0.1:8080 --udp-port $su --udp-remote-port $cu \
    -d "$doc" -t "$tmp/throttles" -c '/cgi-bin/*' --cgi-timeout 2 -M 3600 -T iso-8859-1 \
    -l "$tmp/access.log"
ok $? "starts with -t, -c, -M, -T on TCP and usrsctp"
U=http://127.0.0.1:$port

# --- throttles --------------------------------------------------------------------------------
t0=$(date +%s%N)
curl -sf -o "$tmp/got" "$U/slow/1m.bin"
t1=$(date +%s%N)
cmp -s "$tmp/got" "$doc/1m.bin" && within "$(secs $t0 $t1)" 3.4 6
ok $? "throttled 1 MiB at $rate B/s over TCP: $(secs $t0 $t1) s (size/rate = 4.0 s), intact"
t0=$(date +%s%N)
curl -sf -o "$tmp/got" "$U/1m.bin"
t1=$(date +%s%N)
cmp -s "$tmp/got" "$doc/1m.bin" && within "$(secs $t0 $t1)" 0 1
ok $? "the same file outside the pattern: $(secs $t0 $t1) s"
t0=$(date +%s%N)
curl -sf -o "$tmp/g1" "$U/slow/1m.bin" &
c1=$!
curl -sf -o "$tmp/g2" "$U/slow/1m.bin?second" &
c2=$!
wait $c1 $c2
t1=$(date +%s%N)
cmp -s "$tmp/g1" "$doc/1m.bin" && cmp -s "$tmp/g2" "$doc/1m.bin" && within "$(secs $t0 $t1)" 7 11
ok $? "two throttled downloads at once share the rate: 2 MiB in $(secs $t0 $t1) s (8.0 s)"
t0=$(date +%s%N)
uget -o "$tmp/got" http://127.0.0.1:8080/slow/1m.bin
rc=$?
t1=$(date +%s%N)
[ $rc = 0 ] && cmp -s "$tmp/got" "$doc/1m.bin" && within "$(secs $t0 $t1)" 3.4 6
ok $? "throttled 1 MiB over usrsctp (httpget): $(secs $t0 $t1) s, intact (exit $rc)"
t0=$(date +%s%N)
uget -o "$tmp/got" http://127.0.0.1:8080/1m.bin
t1=$(date +%s%N)
cmp -s "$tmp/got" "$doc/1m.bin" && within "$(secs $t0 $t1)" 0 2
ok $? "unthrottled 1 MiB over usrsctp: $(secs $t0 $t1) s"
# MIN-MAX 100000-200000: two responses get 100000 each, a third would get less: 503.
curl -s -o /dev/null "$U/m1.min" &
c1=$!
curl -s -o /dev/null "$U/m2.min" &
c2=$!
sleep 0.5
c=$(curl -s -o /dev/null -w '%{http_code}' "$U/m3.min")
wait $c1 $c2
c2nd=$(curl -s -o /dev/null -w '%{http_code}' -r 0-99 "$U/m3.min")
[ "$c" = 503 ] && [ "$c2nd" = 206 ]
ok $? "a throttle's MIN: a third response that would fall below it gets 503 ($c), later served ($c2nd)"

# --- CGI --------------------------------------------------------------------------------------
curl -s -H 'Proxy: http://evil/' -H 'Authorization: Basic eDp5' -H 'X-Thing: 1' \
    "$U/cgi-bin/env.cgi?a=1&b=2" >"$tmp/env"
grep -qx 'GATEWAY_INTERFACE=CGI/1.1' "$tmp/env" && grep -qx 'REQUEST_METHOD=GET' "$tmp/env" &&
    grep -qx 'QUERY_STRING=a=1&b=2' "$tmp/env" && grep -qx 'SCRIPT_NAME=/cgi-bin/env.cgi' "$tmp/env" &&
    grep -qx "SERVER_PORT=$port" "$tmp/env" && grep -qx 'REMOTE_ADDR=127.0.0.1' "$tmp/env" &&
    grep -qx 'SERVER_PROTOCOL=HTTP/1.1' "$tmp/env" && grep -qx 'HTTP_X_THING=1' "$tmp/env"
ok $? "CGI over TCP: the RFC 3875 meta-variables"
! grep -q 'do-not-leak' "$tmp/env" && ! grep -q '^SECRET=' "$tmp/env" &&
    ! grep -q '^HTTP_PROXY=' "$tmp/env" && ! grep -q '^HTTP_AUTHORIZATION=' "$tmp/env" &&
    [ "$(grep -c . "$tmp/env")" -gt 10 ]
ok $? "CGI environment sanitised: no SECRET of the server's, no HTTP_PROXY, no credentials"
extra=$(sed 's/=.*//' "$tmp/env" | grep -v -x -E 'PATH|GATEWAY_INTERFACE|SERVER_(SOFTWARE|PROTOCOL|NAME|PORT)|REQUEST_METHOD|SCRIPT_NAME|QUERY_STRING|REMOTE_(ADDR|HOST)|CONTENT_(TYPE|LENGTH)|HTTP_[A-Z0-9_]+' | tr '\n' ' ')
[ -z "$extra" ]
ok $? "CGI environment: only meta-variables and PATH (extra: '$extra')"
curl -s -d 'x=1&y=two' "$U/cgi-bin/env.cgi" >"$tmp/env"
grep -qx 'BODY=x=1&y=two' "$tmp/env" && grep -qx 'CONTENT_LENGTH=9' "$tmp/env" &&
    grep -qx 'REQUEST_METHOD=POST' "$tmp/env" &&
    grep -qx 'CONTENT_TYPE=application/x-www-form-urlencoded' "$tmp/env"
ok $? "CGI POST: the body on stdin, CONTENT_LENGTH and CONTENT_TYPE"
curl -s -D "$tmp/h" -o "$tmp/b" "$U/cgi-bin/status.cgi"
head -n1 "$tmp/h" | grep -q '^HTTP/1.1 404 Gone Fishing' && grep -qi '^X-Mine: yes' "$tmp/h" &&
    grep -qi '^Transfer-Encoding: chunked' "$tmp/h" && [ "$(cat "$tmp/b")" = missing ]
ok $? "CGI Status: and other header lines passed on, the body chunked"
curl -s -D "$tmp/h" -o "$tmp/b" "$U/cgi-bin/redirect.cgi"
head -n1 "$tmp/h" | grep -q '^HTTP/1.1 200 ' && ! grep -qi '^Location:' "$tmp/h" && [ "$(cat "$tmp/b")" = hello ]
ok $? "CGI Location: of a local path alone: served in the program's place (RFC 3875 6.2.2; thttpd sends a 302)"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$U/cgi-bin/noexec.cgi")" = 403 ] &&
    [ "$(curl -s -o /dev/null -w '%{http_code}' -d x "$U/a.txt")" = 405 ]
ok $? "not executable: 403; POST outside the CGI pattern: 405"
curl -s -o "$tmp/got" "$U/cgi-bin/big.cgi"
cmp -s "$tmp/got" "$doc/1m.bin"
ok $? "CGI output of 1 MiB through the pipe, intact"
printf 'GET /cgi-bin/status.cgi HTTP/1.1\r\nHost: x\r\n\r\nGET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
    timeout 5 nc 127.0.0.1 "$port" >"$tmp/r"
[ "$(grep -a -e '^HTTP/1.1' -e '^hello' -e '^missing' "$tmp/r" | tr -d '\r' | tr '\n' ' ')" = "HTTP/1.1 404 Gone Fishing missing HTTP/1.1 200 OK hello " ]
ok $? "CGI then a file pipelined on one connection: in order"

t0=$(date +%s%N)
curl -s -o /dev/null -w '%{http_code}' "$U/cgi-bin/hang.cgi" >"$tmp/hang" &
hc=$!
sleep 0.5
t2=$(date +%s%N)
[ "$(curl -s -m 2 "$U/a.txt")" = hello ]
okrc=$?
t3=$(date +%s%N)
wait $hc
t1=$(date +%s%N)
sleep 0.3
left=$(pgrep -f 'sleep 471[12]' | wc -l)
[ "$(cat "$tmp/hang")" = 504 ] && within "$(secs $t0 $t1)" 1.8 3.5 && [ $okrc = 0 ] && [ "$left" = 0 ]
ok $? "a hanging CGI: 504 at the 2 s limit ($(secs $t0 $t1) s), its children killed ($left left), another client served meanwhile in $(secs $t2 $t3) s"
t0=$(date +%s%N)
curl -s -o "$tmp/b" "$U/cgi-bin/part.cgi"
rc=$?
t1=$(date +%s%N)
[ $rc = 18 ] && [ "$(cat "$tmp/b")" = partial ] && within "$(secs $t0 $t1)" 1.8 3.5
ok $? "a CGI killed after its head: the client sees the body cut short (curl exit $rc)"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$U/cgi-bin/bad.cgi")" = 500 ]
ok $? "a CGI that cannot be executed (no #! line), no output: 500"

uget -o "$tmp/env" "http://127.0.0.1:8080/cgi-bin/env.cgi?over=sctp"
rc=$?
[ $rc = 0 ] && grep -qx 'QUERY_STRING=over=sctp' "$tmp/env" && grep -qx 'SCTP_STREAM=0' "$tmp/env" &&
    ! grep -q 'do-not-leak' "$tmp/env"
ok $? "CGI over usrsctp (httpget): output on the request's stream, environment sanitised (exit $rc)"
mkdir -p "$tmp/dl"
uget -O "$tmp/dl" http://127.0.0.1:8080/cgi-bin/hang.cgi http://127.0.0.1:8080/a.txt \
    http://127.0.0.1:8080/cgi-bin/big.cgi
[ "$(cat "$tmp/dl/a.txt")" = hello ] && cmp -s "$tmp/dl/big.cgi" "$doc/1m.bin" &&
    grep -q '504' "$tmp/dl/hang.cgi"
ok $? "usrsctp: a hanging CGI on one stream (504), a file and a 1 MiB CGI on others, one association"

# --- -M, -T -----------------------------------------------------------------------------------
curl -sI "$U/a.txt" >"$tmp/h"
grep -qi '^Cache-Control: max-age=3600' "$tmp/h" && grep -qi '^Expires: ' "$tmp/h" &&
    grep -qi '^Content-Type: text/plain; charset=iso-8859-1' "$tmp/h"
ok $? "-M 3600: Cache-Control max-age and Expires; -T iso-8859-1: the charset of text/plain"
uget -I http://127.0.0.1:8080/a.txt >"$tmp/h"
grep -qi '^Cache-Control: max-age=3600' "$tmp/h" &&
    grep -qi '^Content-Type: text/plain; charset=iso-8859-1' "$tmp/h"
ok $? "-M and -T over usrsctp (httpget -I)"
sleep 1.2
grep -q '"GET /cgi-bin/status.cgi HTTP/1.1" 404 8' "$tmp/access.log" &&
    grep -q '"GET /cgi-bin/hang.cgi HTTP/1.1" 504 ' "$tmp/access.log"
ok $? "access log: CGI statuses as sent (404, 504) and body bytes"
kill $last
wait $last 2>/dev/null

"$H" -p 0 -T 30 >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q -- '--idle-timeout' "$tmp/e"
ok $? "-T with a number: refused, pointing at --idle-timeout"
printf 'slow/**  fast\n' >"$tmp/bad-throttles"
"$H" -p 0 -t "$tmp/bad-throttles" -d "$doc" >/dev/null 2>"$tmp/e"
[ $? = 1 ] && grep -q 'bad-throttles:1: want PATTERN MAX' "$tmp/e"
ok $? "a bad throttle file: exit 1 naming the line"

# A program that reads all its input before it answers, on a server queuing one response per
# connection: the request content must still be read, or both would wait for the time limit.
start pipe1 -p 0 -h 127.0.0.1 -d "$doc" -c '/cgi-bin/*' --cgi-timeout 5 --pipeline 1
head -c 500000 /dev/zero | tr '\0' x >"$tmp/body"
t0=$(date +%s%N)
r=$(curl -s -m 10 --data-binary @"$tmp/body" "http://127.0.0.1:$port/cgi-bin/count.cgi")
t1=$(date +%s%N)
[ "$r" = 500000 ] && within "$(secs $t0 $t1)" 0 0.8
ok $? "CGI POST of 500 kB read whole before the answer, with --pipeline 1 ($r, $(secs $t0 $t1) s: curl's Expect: 100-continue answered at once)"
kill $last

cat >"$tmp/thttpd.conf" <<EOF
# thttpd.conf names
dir=$doc
host=127.0.0.1
port=0
cgipat=**.cgi
max_age=60
throttles=$tmp/throttles
EOF
start conf -C "$tmp/thttpd.conf"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/cgi-bin/status.cgi")" = 404 ] &&
    curl -sI "http://127.0.0.1:$port/a.txt" | grep -qi '^Cache-Control: max-age=60'
ok $? "-C with thttpd.conf's names (cgipat, max_age, throttles)"
kill $last

done_testing
