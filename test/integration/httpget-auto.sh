#!/bin/bash
# httpget-auto.sh: discovery and fallback as the draft describes them (its Discovery and
# Fallback section): sctphttpd --alt-svc advertises its SCTP listeners on TCP responses, httpget
# --proto auto learns the alternative into its cache file, then races native SCTP, SCTP in UDP
# (usrsctp) and TCP happy-eyeballs style, remembers what worked, and falls back to TCP when the
# alternative is gone; alternatives for another host or a clear are not taken (TAP). On this
# host without kernel SCTP the native attempt fails at once, which starts the next one at once.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
need "$H" "$G" curl /usr/bin/python3

scratch httpget-auto
chmod 755 "$tmp"
doc=$tmp/doc
mkdir -p "$doc"
head -c 100000 /dev/urandom >"$doc/a.bin"
chmod -R a+rX "$doc"
base=$(httpd_udp_ports 2)
su=$base cu=$((base + 1))
cache=$tmp/cache

httpd_start h -p 0 -h 127.0.0.1 -d "$doc" -L usrsctp:127.0.0.1:8081 --udp-port $su --alt-svc 600
ok $? "sctphttpd --alt-svc 600 on TCP port $port and usrsctp 127.0.0.1:8081 (UDP $su)"
tp=$port main=$last
alt=$(curl -sI "http://127.0.0.1:$tp/a.bin" | tr -d '\r' | sed -n 's/^Alt-Svc: //p')
[ "$alt" = "http%2F1.1+sctp=\":8081\"; ma=600; sctp-udp=$su" ]
ok $? "a TCP response advertises the SCTP listener: Alt-Svc: $alt"

get() {  # get NAME: httpget --proto auto, a.bin compared, stderr in $tmp/NAME.err, time in $secs
	local t0 rc
	t0=$(date +%s.%N)
	timeout 30 "$G" -v -s -m 10 --proto auto --alt-cache "$cache" --udp-port $cu \
	    -o "$tmp/$1.out" "http://127.0.0.1:$tp/a.bin" 2>"$tmp/$1.err"
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	[ $rc = 0 ] && cmp -s "$doc/a.bin" "$tmp/$1.out"
}
get first
rc=$?
[ $rc = 0 ] && grep -q '^httpget: auto: tcp .* came up first' "$tmp/first.err" &&
    grep -qx "127.0.0.1:$tp 8081 $su [0-9]* - 0" "$cache"
ok $? "first --proto auto: over TCP (no alternative known), the alternative learnt into the cache: $(cat "$cache")"
[ $rc = 0 ] || sed 's/^/# /' "$tmp/first.err"

get second
rc=$?
grep -q '^httpget: auto: usrsctp 127.0.0.1:8081 came up first' "$tmp/second.err" &&
    grep -q '^httpget: connected to 127.0.0.1:8081' "$tmp/second.err" && [ $rc = 0 ] &&
    grep -qx "127.0.0.1:$tp 8081 $su [0-9]* usrsctp [0-9]*" "$cache"
ok $? "second: the race (native SCTP, SCTP in UDP, TCP) taken by usrsctp, body identical, remembered"
sed -n 's/^httpget: auto: /# /p' "$tmp/second.err"

get third
grep -q '^httpget: auto: trying usrsctp' "$tmp/third.err" &&
    [ "$(grep -c '^httpget: auto: trying' "$tmp/third.err")" = 1 ]
ok $? "third: what worked is tried first, and alone when it comes up within 250 ms"

# The alternative goes away: usrsctp's INIT is not answered, TCP starts 250 ms later and wins.
kill $main
wait $main 2>/dev/null
httpd_start h2 -p $tp -h 127.0.0.1 -d "$doc"
get fallback
rc=$?
[ $rc = 0 ] && grep -q '^httpget: auto: tcp .* came up first' "$tmp/fallback.err" &&
    awk -v s="$secs" 'BEGIN { exit !(s < 5) }' &&
    grep -qx "127.0.0.1:$tp 8081 $su [0-9]* tcp [0-9]*" "$cache"
ok $? "the alternative gone: TCP after the attempt delay, in $secs s, body identical; TCP remembered"
sed -n 's/^httpget: auto: /# /p' "$tmp/fallback.err"
kill $last
wait $last 2>/dev/null

# A server that says other things in Alt-Svc (python): another host is never taken (the draft's
# MUST), nor a port >= 1024 for an origin below 1024 (not testable here without root ports),
# and "clear" removes what was known.
cat >"$tmp/srv.py" <<'PY'
import http.server, sys
alts = dict(a.split(" ", 1) for a in sys.argv[2:])  # "PATH ALT-SVC": the answer by path,
class H(http.server.BaseHTTPRequestHandler):          # not by order (a retried request
    def do_GET(self):                                  # must not shift the next one's)
        self.send_response(200)
        self.send_header("Alt-Svc", alts.get(self.path, "clear"))
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H)
print("ready", flush=True)
s.serve_forever()
PY
pp=$((tp + 1))
/usr/bin/python3 "$tmp/srv.py" $pp '/evil http%2F1.1+sctp="evil.example:8081"; ma=600' \
    '/multi h3=":443", http%2F1.1+sctp=":9000"; ma=60' \
    '/huge http%2F1.1+sctp=":9001"; ma=99999999999999999999; sctp-udp=99999999999999999999' \
    '/wrap http%2F1.1+sctp=":4294967297"' '/junk http%2F1.1+sctp=":9002"; ma=5x' >"$tmp/py.out" 2>&1 &
pids="$pids $!"
wait_bound $pp
ask() { timeout 10 "$G" -s -m 5 --proto auto --alt-cache "$cache" "http://127.0.0.1:$pp$1" >/dev/null 2>&1; }
ask /evil
! grep -q "^127.0.0.1:$pp " "$cache"
ok $? "an alternative on another host (evil.example) is not taken"
ask /multi
grep -qx "127.0.0.1:$pp 9000 0 [0-9]* - 0" "$cache"
ok $? "the http/1.1+sctp one of several alternatives (after h3) is taken, without sctp-udp"
ask /clear
grep -qx "127.0.0.1:$pp 0 0 0 [-a-z]* [0-9]*" "$cache"
ok $? "Alt-Svc: clear removes it"
# Numbers a peer sends are parsed with bounds (issue 33): ma beyond 2^31 is 2^31 (RFC 9111
# 1.2.2), never an overflow into a negative expiry; a port beyond 65535 is not wrapped to 1.
t0=$(date +%s)
ask /huge
read -r _ alt udp until _ < <(grep "^127.0.0.1:$pp " "$cache")
t1=$(date +%s)
[ "$alt $udp" = "9001 0" ] && [ $((until - t0)) -ge 2147483648 ] && [ $((until - t1)) -le 2147483648 ]
ok $? "ma=99999999999999999999: kept for 2^31 s (expiry $until at $t1), sctp-udp of 20 digits ignored"
ask /wrap
grep -qx "127.0.0.1:$pp 9001 0 $until [-a-z]* [0-9]*" "$cache"
ok $? "port 4294967297 is not taken (as port 1 or any other): $(cat "$cache")"
ask /junk
grep -qx "127.0.0.1:$pp 9001 0 $until [-a-z]* [0-9]*" "$cache"
ok $? "ma=5x (not a number) is not taken"
# issue 33: a transport that cannot connect (here: no kernel SCTP, or nothing on port 1 where
# there is) is a connect failure, exit 7 as curl's, never 2 (usage)
"$G" -s -m 5 --proto sctp http://127.0.0.1:1/x >/dev/null 2>"$tmp/nosctp.err"
rc=$?
[ $rc = 7 ] && [ -s "$tmp/nosctp.err" ]
ok $? "httpget --proto sctp where it cannot connect: exit $rc ($(head -n1 "$tmp/nosctp.err"))"
"$G" --help | grep -q -- '--proto tcp|sctp|sctp1m|usrsctp|auto' && "$H" --help | grep -q -- '--alt-svc'
ok $? "--help of both documents the options"
done_testing
