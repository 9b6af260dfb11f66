#!/bin/bash
# httpd-abort.sh: sctphttpd over usrsctp: the mmap cache serves a changed file fresh; a
# response that cannot be completed (file truncated while sending, CGI killed after its head)
# aborts only its transaction by a stream reset (RFC 6525) and the association goes on;
# SIGUSR1 with a client that vanished mid-transfer neither spins nor outstays the idle limit.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
S=${HTTPD_STREAMS:-$top_builddir/test/unit/test_httpd_streams}

for f in "$H" "$G" "$S"; do
	[ -x "$f" ] || { ok 1 "$f not built (make check builds it)"; done_testing; exit; }
done
command -v curl >/dev/null || { ok 1 "curl missing"; done_testing; exit; }

scratch httpd-abort
chmod 755 "$tmp"
udp_free() {
	! ss -Huan "sport = :$1" 2>/dev/null | grep -q .
}
for try in $(seq 1 30); do
	base=$((30000 + (RANDOM % 1000) * 8))
	udp_free $base && udp_free $((base + 1)) && udp_free $((base + 2)) &&
	    udp_free $((base + 3)) && break
done
su=$base cu=$((base + 1))

doc=$tmp/doc
mkdir -p "$doc/cgi-bin" "$doc/slow"
echo small >"$doc/s.txt"
echo again >"$doc/again.txt"
cat >"$doc/cgi-bin/part.cgi" <<'EOF'
#!/bin/sh
printf 'Content-Type: text/plain\r\n\r\npartial\n'
sleep 4714
EOF
chmod 755 "$doc/cgi-bin/part.cgi"
chmod -R a+rX "$doc"
echo 'slow/** 1000000' >"$tmp/throttles"

start() { httpd_start "$@"; } # start NAME ARGS...: sctphttpd ARGS, $port and $last set
uget() {
	timeout 60 "$G" -s -m 20 --proto usrsctp --udp-port $cu --udp-remote-port $su "$@"
}
streams() {
	timeout 60 "$S" --timeout 20 --udp-port $cu --udp-remote-port $su --dir "$doc" "$@"
}
mapped() {  # mapped PID FILE: how many mappings of FILE the process has
	grep -c " $2\( (deleted)\)\?\$" /proc/"$1"/maps 2>/dev/null
}

start main -p 0 -h 127.0.0.1 -L usrsctp:127.0.0.1:8080 --udp-port $su --udp-remote-port $cu \
    -d "$doc" -t "$tmp/throttles" -c '/cgi-bin/*' --cgi-timeout 2
ok $? "starts on TCP and usrsctp"
main=$last
tport=$port

# --- the mmap cache ---------------------------------------------------------------------------
head -c 3000000 /dev/urandom >"$doc/c.bin"
uget -o "$tmp/got" http://127.0.0.1:8080/c.bin && cmp -s "$tmp/got" "$doc/c.bin" &&
    uget -o "$tmp/got2" http://127.0.0.1:8080/c.bin && cmp -s "$tmp/got2" "$doc/c.bin"
r1=$?
n1=$(mapped $main "$doc/c.bin")
[ $r1 = 0 ] && [ "$n1" = 1 ]
ok $? "mmap cache: a 3 MB file over usrsctp twice, intact, mapped once ($n1 mapping)"
head -c 1000000 /dev/urandom >>"$doc/c.bin"
uget -o "$tmp/got" http://127.0.0.1:8080/c.bin && cmp -s "$tmp/got" "$doc/c.bin"
ok $? "the file grew on disk (same inode, new size and mtime): served fresh, 4 MB intact"
head -c 4000000 /dev/urandom >"$tmp/new.bin"
touch -d '2001-01-01' "$tmp/new.bin"
chmod a+r "$tmp/new.bin"
mv "$tmp/new.bin" "$doc/c.bin"
uget -o "$tmp/got" http://127.0.0.1:8080/c.bin && cmp -s "$tmp/got" "$doc/c.bin"
r=$?
n=$(grep -c " $doc/c.bin\$" /proc/$main/maps)
[ $r = 0 ] && [ "$n" = 1 ]
ok $? "the file replaced by rename, an older mtime: the new one served, mapped once"
kill -USR2 $main  # test hook: expire unused mappings now, not after a minute
sleep 0.3
! grep -q "c.bin (deleted)" /proc/$main/maps
ok $? "the replaced file's old mapping expires (unused), its disk space is not held"
curl -s -o "$tmp/got" "http://127.0.0.1:$tport/c.bin" && cmp -s "$tmp/got" "$doc/c.bin"
ok $? "TCP still sends it by sendfile, intact"

start nommap -L usrsctp:127.0.0.1:8081 --udp-port $((base + 2)) --udp-remote-port $((base + 3)) \
    -d "$doc" --mmap-cache 0
timeout 60 "$G" -s -m 20 --proto usrsctp --udp-port $((base + 3)) --udp-remote-port $((base + 2)) \
    -o "$tmp/got" http://127.0.0.1:8081/c.bin && cmp -s "$tmp/got" "$doc/c.bin" &&
    [ "$(mapped $last "$doc/c.bin")" = 0 ]
ok $? "--mmap-cache 0: read with pread, nothing mapped, intact"
kill $last

# --- aborting one transaction -----------------------------------------------------------------
head -c 5000000 /dev/urandom >"$doc/slow/big.bin"
(sleep 1.5; : >"$doc/slow/big.bin") &
streams --retry /again.txt usrsctp 127.0.0.1:8080 1:/slow/big.bin 2:/s.txt >"$tmp/s.out" 2>&1
rc=$?
sed 's/^/#   /' "$tmp/s.out"
[ $rc = 0 ] && grep -q '^reset stream=1 /slow/big.bin$' "$tmp/s.out" &&
    grep -q 'stream=2 .* match /s.txt$' "$tmp/s.out" &&
    grep -q 'stream=1 status=200 .* match /again.txt$' "$tmp/s.out" &&
    [ "$(grep -c '^connected' "$tmp/s.out")" = 1 ]
ok $? "a file truncated while it is sent (mapped: SIGBUS caught): stream 1 reset, stream 2 served, stream 1 serves the next request, one association"

streams --retry /again.txt usrsctp 127.0.0.1:8080 3:/cgi-bin/part.cgi 4:/s.txt >"$tmp/s.out" 2>&1
rc=$?
sed 's/^/#   /' "$tmp/s.out"
[ $rc = 0 ] && grep -q '^reset stream=3 /cgi-bin/part.cgi$' "$tmp/s.out" &&
    grep -q 'stream=4 .* match /s.txt$' "$tmp/s.out" &&
    grep -q 'stream=3 status=200 .* match /again.txt$' "$tmp/s.out"
ok $? "a CGI killed at its time limit after its head: stream 3 reset, the association goes on"

streams --retry /again.txt --expect-resets 1 usrsctp 127.0.0.1:8080 '5:/bad path' 6:/s.txt >"$tmp/s.out" 2>&1
rc=$?
sed 's/^/#   /' "$tmp/s.out"
[ $rc = 0 ] && grep -q 'stream=5 status=400 .* /bad path$' "$tmp/s.out" &&
    grep -q '^reset stream=5 idle$' "$tmp/s.out" && grep -q 'stream=6 .* match /s.txt$' "$tmp/s.out" &&
    grep -q 'stream=5 status=200 .* match /again.txt$' "$tmp/s.out"
ok $? "a stream error (a request line with a space): 400, then stream 5 reset and usable again"

head -c 5000000 /dev/urandom >"$doc/slow/big.bin"
(sleep 1.5; : >"$doc/slow/big.bin") &
curl -s -o "$tmp/got" "http://127.0.0.1:$tport/slow/big.bin"
rc=$?
[ $rc = 18 ]
ok $? "TCP: the same truncation closes the connection, the client sees the body cut short (curl $rc)"
[ "$(uget http://127.0.0.1:8080/s.txt)" = small ]
ok $? "the server still serves usrsctp after all that"

# --- SIGUSR1 with a client that vanished ------------------------------------------------------
kill $main
wait $main 2>/dev/null
head -c 50000000 /dev/urandom >"$doc/huge.bin"
start usr1 -L usrsctp:127.0.0.1:8080 --udp-port $su --udp-remote-port $cu -d "$doc" \
    --idle-timeout 3
p=$last
"$S" --timeout 60 --udp-port $cu --udp-remote-port $su --dir "$doc" usrsctp 127.0.0.1:8080 \
    1:/huge.bin 2:/huge.bin >/dev/null 2>&1 &
c=$!
pids="$pids $c"
sleep 0.5
# Stopped, not killed: no ABORT, no SHUTDOWN, not even an ICMP port unreachable (its UDP
# socket stays open): the server's sends just stop being acknowledged.
kill -STOP $c
sleep 1
kill -USR1 $p
t0=$(date +%s%N)
cpu0=$(awk '{ print $14 + $15 }' /proc/$p/stat)
cpu1=$cpu0
while kill -0 $p 2>/dev/null; do
	cpu1=$(awk '{ print $14 + $15 }' /proc/$p/stat 2>/dev/null || echo $cpu1)
	[ $(($(date +%s%N) - t0)) -gt 20000000000 ] && break
	sleep 0.2
done
t1=$(date +%s%N)
kill -0 $p 2>/dev/null && still=1 || still=0
kill -9 $c 2>/dev/null
wait $c 2>/dev/null
wait $p
prc=$?
secs=$(awk "BEGIN { printf \"%.1f\", ($t1 - $t0) / 1e9 }")
ticks=$((cpu1 - cpu0))
[ $still = 0 ] && [ $prc = 0 ] && [ $ticks -lt 15 ] && awk "BEGIN { exit !($secs < 3 + 4) }"
ok $? "SIGUSR1, the client gone mid-transfer: exit $prc after $secs s (idle limit 3 s, usrsctp's own exit ~2 s), $ticks CPU ticks meanwhile (no busy loop)"

done_testing
