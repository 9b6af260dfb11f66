#!/bin/bash
# httpd-conformance.sh: the same HTTP/1.1 requests over TCP to sctphttpd and to nginx serving
# the same tree: methods, versions, Host, conditional requests, ranges, Expect, chunked,
# pipelining, absolute-form, long lines and headers, traversal and encodings, directory
# redirects and listings, MIME types. Each case asserts parity, or names the deliberate
# difference and checks both sides give exactly what is named (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
. "$here/httpd-cases.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
need "$H" nginx curl nc

scratch httpd-conformance
chmod 755 "$tmp"
httpd_cases_tree

# nginx, as any user, in the scratch directory, on a free loopback port
free_port() {
	local p
	for p in $(shuf -i 20000-29999 -n 50); do
		ss -Htan "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}
np=$(free_port)
mkdir -p "$tmp/ngx"
cat >"$tmp/ngx/nginx.conf" <<EON
daemon off;
master_process off;
worker_processes 1;
error_log $tmp/ngx/error.log;
pid $tmp/ngx/nginx.pid;
events { worker_connections 64; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	access_log off;
	client_body_temp_path $tmp/ngx/body;
	server {
		listen 127.0.0.1:$np;
		root $doc;
		autoindex on;
	}
}
EON
nginx -p "$tmp/ngx" -c "$tmp/ngx/nginx.conf" 2>"$tmp/ngx/start.err" &
pids="$pids $!"
httpd_start h -p 0 -h 127.0.0.1 -d "$doc"
hp=$port
for i in $(seq 1 50); do
	ss -Htan "sport = :$np" | grep -q LISTEN && break
	sleep 0.1
done
[ -n "$hp" ] && ss -Htan "sport = :$np" | grep -q LISTEN
ok $? "sctphttpd on port $hp and nginx on port $np serve one tree"
[ -n "$hp" ] || { sed 's/^/# /' "$tmp/h.err" "$tmp/ngx/start.err"; done_testing; exit; }

# ask PORT REQUEST: the raw answer (until the server closes, 3 s at most), CRs removed
ask() {
	printf '%b' "$2" | timeout 3 nc -N 127.0.0.1 "$1" | tr -d '\r'
}
# case NAME WHAT REQUEST [OURS NGINX WHY]: same summary from both, or exactly the named
# difference. Placeholders in REQUEST: @HOST@ (the port each is asked on).
n_same=0 n_diff=0
case_() {
	local name=$1 w=$2 req=$3 ours=$4 theirs=$5 why=$6 a b
	ask "$hp" "${req//@HOST@/127.0.0.1:$hp}" >"$tmp/a"
	ask "$np" "${req//@HOST@/127.0.0.1:$np}" >"$tmp/b"
	a=$(what "$w" "$tmp/a" | sed "s/:$hp\\b/:PORT/g")
	b=$(what "$w" "$tmp/b" | sed "s/:$np\\b/:PORT/g")
	if [ -z "$why" ]; then
		[ -n "$a" ] && [ "$a" = "$b" ]
		ok $? "$name: both '$a'$( [ "$a" = "$b" ] || echo " (nginx '$b')")"
		n_same=$((n_same + 1))
	else
		[ "$a" = "$ours" ] && [ "$b" = "$theirs" ]
		ok $? "$name: deliberate difference, sctphttpd '$a', nginx '$b': $why"
		n_diff=$((n_diff + 1))
	fi
}
httpd_cases
diag "$n_same cases in parity with nginx $(nginx -v 2>&1 | sed 's/.*\///'), $n_diff deliberate differences"

done_testing
