#!/bin/bash
# httpd.sh: sctphttpd over TCP with curl, nc, wrk and python3 as clients (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}

if [ ! -x "$H" ]; then
	ok 1 "$H not built"
	done_testing
	exit
fi
for t in curl nc python3 wrk; do
	command -v $t >/dev/null || { ok 1 "$t missing (apt-get install curl netcat-openbsd python3 wrk)"; done_testing; exit; }
done

scratch httpd-test
chmod 755 "$tmp"

doc=$tmp/doc
mkdir -p "$doc/dir/sub" "$doc/list" "$doc/idx"
: >"$doc/zero"
printf x >"$doc/one"
head -c 1024 /dev/urandom >"$doc/1k.bin"
head -c 1048576 /dev/urandom >"$doc/1m.bin"
head -c 104857600 /dev/urandom >"$doc/100m.bin"
echo "first" >"$doc/first.txt"
echo "second" >"$doc/second.txt"
echo '<p>index</p>' >"$doc/idx/index.html"
touch "$doc/list/a<b>&c.txt" "$doc/list/plain.txt"
mkdir "$doc/list/d"
ln -s /etc/passwd "$doc/passwd-link"
ln -s ../.. "$doc/up-link"
ln -s first.txt "$doc/inner-link"
echo "secret" >"$tmp/outside.txt"
chmod -R a+rX "$tmp"

start() { httpd_start "$@"; } # start NAME ARGS...: sctphttpd ARGS, $port and $last set
stop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
# raw DATA: send bytes, print the answer until the server closes (or 5 s).
raw() {
	printf "$1" | timeout 5 nc -N 127.0.0.1 "$port"
}
code() {
	curl -s -o /dev/null -w '%{http_code}' "$@"
}

start main -p 0 -h 127.0.0.1 -d "$doc" -l "$tmp/access.log" --request-timeout 2 --idle-timeout 30
ok $? "starts and listens on TCP"
U=http://127.0.0.1:$port

for f in zero one 1k.bin 1m.bin 100m.bin; do
	curl -sf -o "$tmp/got" "$U/$f" && cmp -s "$tmp/got" "$doc/$f"
	ok $? "GET /$f: $(stat -c %s "$doc/$f") bytes, byte for byte"
done
rm -f "$tmp/got"

curl -sI "$U/1m.bin" >"$tmp/h"
grep -qi '^Content-Length: 1048576' "$tmp/h" && grep -qi '^Last-Modified: ' "$tmp/h" &&
    grep -qi '^Date: ' "$tmp/h" && grep -qi '^Server: sctphttpd' "$tmp/h" &&
    grep -qi '^Content-Type: application/octet-stream' "$tmp/h"
ok $? "HEAD: Content-Length, Date, Server, Last-Modified, Content-Type"
[ "$(curl -s --head "$U/1m.bin" -w '%{size_download}' -o /dev/null)" = 0 ]
ok $? "HEAD: no body"
grep -qi '^Content-Type: text/html' <(curl -sI "$U/idx/index.html")
ok $? "MIME type by extension: .html is text/html"

lm=$(sed -n 's/^Last-Modified: \(.*\)\r$/\1/ip' "$tmp/h")
[ "$(code -H "If-Modified-Since: $lm" "$U/1m.bin")" = 304 ]
ok $? "If-Modified-Since the Last-Modified date: 304"
[ "$(code -H "If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT" "$U/1m.bin")" = 200 ]
ok $? "If-Modified-Since an older date: 200"

curl -s -D "$tmp/h" -o "$tmp/part" -H 'Range: bytes=1000-1999' "$U/1m.bin"
head -n1 "$tmp/h" | grep -q ' 206 ' && grep -qi '^Content-Range: bytes 1000-1999/1048576' "$tmp/h" &&
    cmp -s "$tmp/part" <(tail -c +1001 "$doc/1m.bin" | head -c 1000)
ok $? "Range: 206, Content-Range, the right 1000 bytes"
curl -s -D "$tmp/h" -o /dev/null -H 'Range: bytes=2000000-' "$U/1m.bin"
head -n1 "$tmp/h" | grep -q ' 416 ' && grep -qi '^Content-Range: bytes \*/1048576' "$tmp/h"
ok $? "Range beyond the end: 416 with Content-Range bytes */size"

[ "$(code "$U/nothing-here")" = 404 ]
ok $? "missing file: 404"

curl -s "$U/list/" >"$tmp/list"
grep -q 'a&lt;b&gt;&amp;c.txt' "$tmp/list" && grep -q 'href="a%3Cb%3E%26c.txt"' "$tmp/list" &&
    grep -q 'href="d/"' "$tmp/list" && grep -q 'plain.txt' "$tmp/list"
ok $? "directory listing: names HTML-escaped, links URL-encoded, directories with /"
curl -s -D "$tmp/h" -o /dev/null "$U/list"
head -n1 "$tmp/h" | grep -q ' 301 ' && grep -qi "^Location: $U/list/" "$tmp/h"
ok $? "directory without a slash: 301 to the slash"
[ "$(curl -s "$U/idx/")" = "<p>index</p>" ]
ok $? "index.html served for its directory"

curl -sv "$U/first.txt" "$U/second.txt" >"$tmp/ka.out" 2>"$tmp/ka.err"
grep -qiE 'Re-?using existing (http: )?connection' "$tmp/ka.err" && [ "$(cat "$tmp/ka.out")" = "first
second" ]
ok $? "keep-alive: curl fetches two URLs on one connection"

raw 'GET /first.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /second.txt HTTP/1.0\r\n\r\n' >"$tmp/r"
[ "$(grep -c '^HTTP/1.1 200' "$tmp/r")" = 2 ] && grep -qi '^Connection: keep-alive' "$tmp/r" &&
    grep -qi '^Connection: close' "$tmp/r"
ok $? "HTTP/1.0 keep-alive: two answers on one connection, the second closes it"

raw 'GET /first.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /second.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /nothing HTTP/1.1\r\nHost: x\r\n\r\n' >"$tmp/r"
[ "$(grep -a -e '^first' -e '^second' -e '^HTTP/1.1 404' "$tmp/r" | tr -d '\r' | tr '\n' ' ')" = "first second HTTP/1.1 404 Not Found " ]
ok $? "pipelining: three requests in one write, three answers in order"

start=$(date +%s%N)
printf 'GET /first.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
    timeout 10 nc 127.0.0.1 "$port" >"$tmp/r"
t=$((($(date +%s%N) - start) / 1000000))
grep -qi '^Connection: close' "$tmp/r" && grep -q '^first' "$tmp/r" && [ "$t" -lt 3000 ]
ok $? "Connection: close: answered, then the server closes (${t} ms)"

# Security: nothing outside the document root.
[ "$(code --path-as-is "$U/../outside.txt")" = 400 ]
ok $? "/../outside.txt refused (400)"
[ "$(code --path-as-is "$U/%2e%2e/outside.txt")" = 400 ]
ok $? "/%2e%2e/outside.txt refused (400)"
[ "$(code --path-as-is "$U/dir/%2E%2e/%2e%2E/outside.txt")" = 400 ]
ok $? "/dir/%2E%2e/%2e%2E/outside.txt refused (400)"
[ "$(code "$U/first.txt%00.html")" = 400 ]
ok $? "NUL (%00) in the path refused (400)"
raw 'GET /first.txt\0 HTTP/1.1\r\nHost: x\r\n\r\n' | head -n1 | grep -q ' 400 '
ok $? "raw NUL in the request line refused (400)"
raw 'GET http://x/../outside.txt HTTP/1.1\r\nHost: x\r\n\r\n' | head -n1 | grep -q ' 400 '
ok $? "absolute-form target climbing out refused (400)"
raw 'GET ../outside.txt HTTP/1.1\r\nHost: x\r\n\r\n' | head -n1 | grep -q ' 400 '
ok $? "relative target refused (400)"
r=$(code "$U$tmp/outside.txt")
[ "$r" = 404 ]
ok $? "absolute file system path is looked up under the root: 404 ($r)"
[ "$(code "$U/passwd-link")" = 403 ] && [ "$(code "$U/up-link/outside.txt")" = 403 ]
ok $? "symlinks leading out of the root: 403"
[ "$(curl -s "$U/inner-link")" = first ]
ok $? "a symlink inside the root is followed"
[ "$(code "$U/dir/%2Fetc/passwd")" = 400 ]
ok $? "encoded slash (%2F) refused (400)"

long=$(head -c 9000 /dev/zero | tr '\0' a)
raw "GET /$long HTTP/1.1\r\nHost: x\r\n\r\n" | head -n1 | grep -q ' 414 '
ok $? "request line of 9000 bytes: 414"
big=$(head -c 20000 /dev/zero | tr '\0' b)
raw "GET / HTTP/1.1\r\nHost: x\r\nX-Big: $big\r\n\r\n" | head -n1 | grep -q ' 431 '
ok $? "header section of 20000 bytes: 431"
raw 'POST /first.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /second.txt HTTP/1.1\r\nHost: x\r\n\r\n' >"$tmp/r"
head -n1 "$tmp/r" | grep -q ' 405 ' && grep -qi '^Allow: GET, HEAD' "$tmp/r" && grep -q '^second' "$tmp/r"
ok $? "POST: 405 with Allow, its body skipped, the next request answered"
raw 'BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n' | head -n1 | grep -q ' 501 '
ok $? "unknown method: 501"
raw 'GET / HTTP/2.0\r\nHost: x\r\n\r\n' | head -n1 | grep -q ' 505 '
ok $? "HTTP/2.0 request line: 505"
raw 'GET / HTTP/1.1\r\n\r\n' | head -n1 | grep -q ' 400 '
ok $? "HTTP/1.1 without Host: 400"

# Slowloris: a head trickling in byte by byte is cut off at --request-timeout (2 s).
python3 - "$port" >"$tmp/slow" 2>&1 <<'EOF'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
t0 = time.time()
s.settimeout(0.3)
got = b""
for ch in b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
    try:
        s.send(bytes([ch]))
    except OSError:
        break
    try:
        d = s.recv(4096)
        if not d:
            break
        got += d
    except socket.timeout:
        pass
    except OSError:
        break
    if time.time() - t0 > 10:
        break
print("%.1f %s" % (time.time() - t0, got.split(b"\r\n")[0].decode()))
EOF
read -r secs line <"$tmp/slow"
awk "BEGIN { exit !($secs >= 1.8 && $secs < 4) }" && [ "$line" = "HTTP/1.1 408 Request Timeout" ]
ok $? "slowloris: cut off with 408 after ${secs} s (limit 2 s)"

# The access log: Common Log Format, control characters escaped.
raw 'GET /\001\033[31mred HTTP/1.1\r\nHost: x\r\n\r\n' >/dev/null
kill -HUP "$last"
sleep 1.3
grep -Eq '^127\.0\.0\.1 - - \[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9:]{8} \+0000\] "GET /first.txt HTTP/1.1" 200 6$' "$tmp/access.log"
ok $? "access log in Common Log Format"
grep -q '"GET /\\x01\\x1b\[31mred HTTP/1.1" 400' "$tmp/access.log" && ! grep -q "$(printf '\033')" "$tmp/access.log"
ok $? "access log: control characters of the request line escaped"
mv "$tmp/access.log" "$tmp/access.log.1"
kill -HUP "$last"
sleep 0.3
curl -s -o /dev/null "$U/second.txt"
sleep 1.3
grep -q '"GET /second.txt HTTP/1.1" 200' "$tmp/access.log" 2>/dev/null
ok $? "SIGHUP reopens the log (after rotation)"

out=$(wrk -t1 -c20 -d3 "$U/1k.bin" 2>&1)
echo "$out" | sed 's/^/#   /'
reqs=$(echo "$out" | sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
[ -n "$reqs" ] && [ "$reqs" -gt 100 ] && ! echo "$out" | grep -q -e 'Socket errors' -e 'Non-2xx'
ok $? "wrk -c20 for 3 s: $reqs requests, no errors"

# Many idle connections: new clients are still served.
python3 - "$port" 10000 >"$tmp/idle" 2>&1 <<EOF &
import resource, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
socks = []
for i in range(int(sys.argv[2])):
    socks.append(socket.create_connection(("127.0.0.1", int(sys.argv[1]))))
print("open", len(socks), flush=True)
time.sleep(30)
EOF
idle_pid=$!
pids="$pids $idle_pid"
for i in $(seq 1 200); do
	grep -q '^open' "$tmp/idle" && break
	kill -0 "$idle_pid" 2>/dev/null || break
	sleep 0.1
done
sleep 0.5
n=$(ls /proc/"$last"/fd 2>/dev/null | wc -l)
grep -q '^open 10000' "$tmp/idle" && [ "$(curl -s -m 5 "$U/first.txt")" = first ] && [ "$n" -gt 10000 ]
ok $? "10000 idle connections open (server holds $n fds): a new client is served"
kill "$idle_pid" 2>/dev/null
wait "$idle_pid" 2>/dev/null
grep -v '^open' "$tmp/idle" | sed 's/^/# /'

# SIGUSR1: no new connections, the download in flight completes, then exit 0.
curl -s --limit-rate 30M -o "$tmp/got" "$U/100m.bin" &
dl=$!
sleep 1
kill -USR1 "$last"
sleep 0.5
c=$(code -m 2 "$U/first.txt")
wait "$dl"
dlrc=$?
cmp -s "$tmp/got" "$doc/100m.bin"
cmprc=$?
timeout 10 tail --pid="$last" -f /dev/null
wait "$last"
hrc=$?
[ "$c" = 000 ] && [ $dlrc = 0 ] && [ $cmprc = 0 ] && [ $hrc = 0 ]
ok $? "SIGUSR1: new connection refused ($c), 100 MiB in flight completes intact, exit $hrc"
rm -f "$tmp/got"

start term -p 0 -h 127.0.0.1 -d "$doc"
kill -TERM "$last"
timeout 5 tail --pid="$last" -f /dev/null
wait "$last"
ok $? "SIGTERM: exits 0"

if ip -6 addr show dev lo 2>/dev/null | grep -q '::1'; then
	start v6 -L tcp:[::1]:0 -p 0 -h 127.0.0.1 -d "$doc"
	p6=$(sed -n 's/^sctphttpd: listening on tcp \[::1\]:\([0-9]*\)$/\1/p' "$tmp/v6.err")
	[ "$(curl -sg "http://[::1]:$p6/first.txt")" = first ] && [ "$(curl -s "$U/first.txt")" != x ] &&
	    [ "$(curl -s "http://127.0.0.1:$port/second.txt")" = second ]
	ok $? "IPv6 (-L tcp:[::1]:0) and IPv4 (-p) at once"
	stop "$last"
else
	ok 1 "IPv6 loopback: ::1 is missing on this host"
fi

cat >"$tmp/conf" <<EOF
# a config file
dir=$doc
host 127.0.0.1
port=0
log-format=combined
logfile=$tmp/combined.log
EOF
start conf -C "$tmp/conf"
curl -s -o /dev/null -A 'agent "x"' -e 'http://ref/' "http://127.0.0.1:$port/first.txt"
stop "$last"
grep -q '"GET /first.txt HTTP/1.1" 200 6 "http://ref/" "agent \\x22x\\x22"$' "$tmp/combined.log"
ok $? "-C config file; combined log format with Referer and User-Agent escaped"

# -v: virtual hosts, docroot/HOST/ by the Host header, lowercased, port stripped.
vh=$tmp/vh
mkdir -p "$vh/a.example" "$vh/b.example/sub" "$vh/[::1]"
echo A >"$vh/a.example/index.html"
echo B >"$vh/b.example/sub/x.txt"
echo secret >"$vh/top.txt"
chmod -R a+rX "$vh"
start vhost -p 0 -h 127.0.0.1 -d "$vh" -v
vu=http://127.0.0.1:$port
[ "$(curl -s -H 'Host: a.example' "$vu/")" = A ] &&
    [ "$(curl -s -H 'Host: B.Example:8080' "$vu/sub/x.txt")" = B ] &&
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: a.example' "$vu/sub/x.txt")" = 404 ]
ok $? "-v: the Host picks the directory (lowercased, port stripped); hosts do not see each other"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: ..' "$vu/top.txt")" = 400 ] &&
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: .hidden' "$vu/top.txt")" = 400 ] &&
    [ "$(curl -s -o /dev/null -w '%{http_code}' -0 -H 'Host:' "$vu/top.txt")" = 400 ] &&
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: nosuch.example' "$vu/top.txt")" = 404 ]
ok $? "-v: Host '..', '.hidden' or none is 400; an unknown host 404, never the root's files"
curl -s -H 'Host: b.example' "$vu/sub/" | grep -q 'Index of /sub/' &&
    ! curl -s -H 'Host: b.example' "$vu/sub/" | grep -q 'b.example'
ok $? "-v: a listing shows the URL path, not the host's directory"
stop "$last"

"$H" -V | grep -q '^sctphttpd/' && "$H" --help | grep -q -- '--sctp-msg-size'
ok $? "-V and --help"
"$H" --no-such-option >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q 'see --help' "$tmp/e"
ok $? "unknown option: exit 2 with a message"
"$H" -L bogus:127.0.0.1:1 -d "$doc" >/dev/null 2>"$tmp/e"
[ $? = 1 ] && grep -q "unknown transport 'bogus'" "$tmp/e"
ok $? "unknown transport type: exit 1 naming it"
"$H" -p "$port" -h 127.0.0.1 -d /nonexistent >/dev/null 2>"$tmp/e"
[ $? = 1 ] && grep -q 'document root' "$tmp/e"
ok $? "missing document root: exit 1"

"$H" -p 0 -h 127.0.0.1 -d "$doc" --daemon -i "$tmp/pid" 2>"$tmp/daemon.err"
drc=$?
dp=$(cat "$tmp/pid" 2>/dev/null)
dport=$(sed -n 's/^sctphttpd: listening on tcp .*:\([0-9]*\)$/\1/p' "$tmp/daemon.err")
[ $drc = 0 ] && [ -n "$dp" ] && kill -0 "$dp" && [ "$(curl -s "http://127.0.0.1:$dport/first.txt")" = first ]
ok $? "--daemon with -i PIDFILE: parent exits 0, the daemon serves"
[ -n "$dp" ] && kill "$dp" 2>/dev/null
sleep 0.3

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	start user -p 0 -h 127.0.0.1 -d "$doc" -u nobody -r
	uid=$(awk '/^Uid:/ { print $2 $3 $4 $5 }' /proc/"$last"/status)
	gid=$(awk '/^Groups:/ { print $2 }' /proc/"$last"/status)
	nuid=$(id -u nobody)
	[ "$uid" = "$nuid$nuid$nuid$nuid" ] && [ "$(curl -s "http://127.0.0.1:$port/first.txt")" = first ] &&
	    [ "$(readlink /proc/"$last"/root)" = "$doc" ]
	ok $? "-u nobody -r: all uids $nuid (groups: $gid), chrooted to the root, still serving"
	stop "$last"
else
	ok 1 "dropping privileges: needs root and the user nobody"
fi

done_testing
