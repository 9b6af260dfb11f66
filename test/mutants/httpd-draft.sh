#!/bin/bash
# httpd-draft.sh: the draft's normative points and the URL patterns of sctphttpd, quickly (a few
# seconds, host only, usrsctp), for the mutant set: the response on its request's stream with
# PPID 63, PPID 0 refused with a stream error, a stream error resetting only its stream, CGI
# patterns ('*' within a segment, '**' across), a throttle's rate and its MIN.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=$top_builddir/sctphttpd
P=$top_builddir/test/interop/tp_peer
S=$top_builddir/test/unit/test_httpd_streams
need "$H" "$P" "$S" curl || { done_testing; exit; }
grep -q 'define HAVE_USRSCTP 1' "$top_builddir/config.h" || { ok 1 "usrsctp not built"; done_testing; exit; }

scratch httpd-draft
chmod 755 "$tmp"
udp_base 2
su=$udp_base cu=$((udp_base + 1)) sport=$((20000 + RANDOM % 20000))

doc=$tmp/doc
mkdir -p "$doc/cgi-bin/sub" "$doc/deep/a/b" "$doc/slow" "$doc/min"
echo first >"$doc/first.txt"
echo again >"$doc/again.txt"
for f in cgi-bin/run.cgi cgi-bin/sub/run.cgi deep/a/b/run.cgi; do
	printf '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\nran\\n"\n' >"$doc/$f"
	chmod 755 "$doc/$f"
done
head -c 60000 /dev/urandom >"$doc/slow/60k.bin"
head -c 60000 /dev/urandom >"$doc/min/a.bin"
head -c 60000 /dev/urandom >"$doc/min/b.bin"
chmod -R a+rX "$doc"
printf 'slow/** 100000\nmin/** 100000-100000\n' >"$tmp/throttles"

httpd_start h -p 0 -h 127.0.0.1 -L "usrsctp:127.0.0.1:$sport" --udp-port $su --udp-remote-port $cu \
    -d "$doc" -t "$tmp/throttles" -c 'cgi-bin/*|deep/**.cgi'
[ -n "$port" ] && grep -q '^sctphttpd: listening on usrsctp' "$tmp/h.err"
ok $? "listens on TCP 127.0.0.1:$port and usrsctp 127.0.0.1:$sport" || sed 's/^/# /' "$tmp/h.err"

peer() {
	timeout 20 "$P" --timeout 10 --udp-port $cu --udp-remote-port $su "$@" send usrsctp \
	    "127.0.0.1:$sport" $'GET /first.txt HTTP/1.1\r\nHost: x\r\n\r\n' >"$tmp/p.out" 2>&1
}
peer --stream 7 --ppid 63
grep -q '^reply stream=7 ppid=63 len=[0-9]*: HTTP/1.1 200 OK' "$tmp/p.out" && grep -qx 'first' "$tmp/p.out"
ok $? "a request on stream 7: its response on stream 7 with PPID 63" || sed 's/^/# /' "$tmp/p.out"

peer --stream 2 --ppid 0
grep -q '^reply stream=2 ppid=63 len=[0-9]*: HTTP/1.1 400 ' "$tmp/p.out"
ok $? "PPID 0 is not HTTP: a stream error, 400 on that stream" || sed 's/^/# /' "$tmp/p.out"

streams() {
	timeout 30 "$S" --timeout 20 --udp-port $cu --udp-remote-port $su --dir "$doc" usrsctp \
	    "127.0.0.1:$sport" "$@" >"$tmp/s.out" 2>&1
}
streams --retry /again.txt --expect-resets 1 '5:/bad path' 6:/first.txt 3:/again.txt 3:/first.txt
rc=$?
[ $rc = 0 ] && grep -q 'stream=5 status=400 .* /bad path$' "$tmp/s.out" &&
    grep -q '^reset stream=5 idle$' "$tmp/s.out" && grep -q 'stream=6 .* match /first.txt$' "$tmp/s.out" &&
    grep -q 'stream=5 status=200 .* match /again.txt$' "$tmp/s.out" &&
    [ "$(grep -c 'stream=3 status=200 .* match' "$tmp/s.out")" = 2 ] &&
    [ "$(grep -c '^connected' "$tmp/s.out")" = 1 ]
ok $? "a stream error (a space in the target): 400, stream 5 reset and usable again, the others served, one association"
[ $rc = 0 ] || sed 's/^/# /' "$tmp/s.out"

get() {
	curl -s --max-time 20 "http://127.0.0.1:$port$1"
}
[ "$(get /cgi-bin/run.cgi)" = ran ] && get /cgi-bin/sub/run.cgi | grep -q '^#!/bin/sh' &&
    [ "$(get /deep/a/b/run.cgi)" = ran ]
ok $? "CGI patterns: '*' within one segment (cgi-bin/sub/ is a file), '**' across (deep/a/b/)"

# bodies past SERVER_INLINE_BODY (16 KiB) are throttled; the bucket holds 0.1 s of the rate
t=$(curl -s --max-time 20 -o "$tmp/60k" -w '%{time_total}' "http://127.0.0.1:$port/slow/60k.bin")
cmp -s "$tmp/60k" "$doc/slow/60k.bin" && awk -v t="$t" 'BEGIN { exit !(t >= 0.3 && t < 5) }'
ok $? "throttle 100000 B/s: 60 kB take 0.3..5 s ($t s)"

streams 1:/min/a.bin 2:/min/b.bin
[ "$(grep -c 'status=503' "$tmp/s.out")" = 1 ] && [ "$(grep -c 'status=200 .* match /min/' "$tmp/s.out")" = 1 ]
ok $? "throttle MIN 100000 of 100000 B/s: of two at once, one is served and one refused (503)"
done_testing
