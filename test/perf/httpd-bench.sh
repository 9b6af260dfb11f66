#!/bin/bash
# httpd-bench.sh: sctphttpd against nginx over TCP on the loopback, one worker each, the same
# files, keep-alive: wrk -t1 -c50 -dSECONDS on a 1 KiB and a 100 KiB file. Not a test: prints
# requests per second and the ratio (sctphttpd / nginx; the goal is >= 1.0).
#   test/perf/httpd-bench.sh [SECONDS]     (needs wrk and nginx: apt-get install wrk nginx-light)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$here/../..}
H=${SCTPHTTPD:-$top/sctphttpd}
D=${1:-5}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

for t in wrk "$NGINX" "$H"; do
	command -v "$t" >/dev/null || { echo "httpd-bench: $t missing" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/httpd-bench.XXXXXX)
chmod 755 "$tmp"
hpid= npid=
cleanup() {
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null
	[ -n "$npid" ] && kill "$npid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tmp/doc" "$tmp/nginx"
head -c 1024 /dev/urandom >"$tmp/doc/1k.bin"
head -c 102400 /dev/urandom >"$tmp/doc/100k.bin"
chmod -R a+rX "$tmp/doc"

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
hp=$(free_port)
np=$(free_port)

"$H" -p "$hp" -h 127.0.0.1 -d "$tmp/doc" 2>"$tmp/h.err" &
hpid=$!
cat >"$tmp/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
master_process off;
error_log $tmp/nginx/error.log;
pid $tmp/nginx/nginx.pid;
events { worker_connections 4096; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 1000000;
	client_body_temp_path $tmp/nginx;
	proxy_temp_path $tmp/nginx;
	fastcgi_temp_path $tmp/nginx;
	uwsgi_temp_path $tmp/nginx;
	scgi_temp_path $tmp/nginx;
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:$np;
		root $tmp/doc;
	}
}
CONF
"$NGINX" -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" 2>"$tmp/n.err" &
npid=$!
sleep 0.5
for u in "http://127.0.0.1:$hp/1k.bin" "http://127.0.0.1:$np/1k.bin"; do
	curl -sf -o /dev/null "$u" || { echo "httpd-bench: $u does not answer" >&2; cat "$tmp"/*.err >&2; exit 1; }
done

rps() {
	local out
	out=$(wrk -t1 -c50 -d"$D" "$1" 2>&1)
	if echo "$out" | grep -q -e 'Socket errors' -e 'Non-2xx'; then
		echo "httpd-bench: errors with $1:" >&2
		echo "$out" >&2
	fi
	echo "$out" | sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p'
}

printf '%-10s %14s %14s %7s\n' file sctphttpd nginx ratio
for f in 1k.bin 100k.bin; do
	a=$(rps "http://127.0.0.1:$hp/$f")
	b=$(rps "http://127.0.0.1:$np/$f")
	printf '%-10s %14s %14s %7s\n' "$f" "$a" "$b" "$(awk "BEGIN { if ($b > 0) printf \"%.2f\", $a / $b }")"
done
