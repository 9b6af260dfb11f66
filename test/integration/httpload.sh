#!/bin/bash
# httpload.sh: httpload against nginx and lighttpd over TCP, next to httperf; errors; httpget.
. "$(dirname "$0")/../lib.sh"
hl="$top_builddir/httpload/httpload"
hg="$top_builddir/httpload/httpget"
bad="$top_srcdir/test/integration/httpload-badserver.py"
py=/usr/bin/python3
[ -x $py ] || py=python3
tmp=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
	$py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_port() { # wait_port PORT: until something accepts on 127.0.0.1:PORT
	local i
	for i in $(seq 100); do
		(exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
field() { # field FILE REGEX: the first capture group of REGEX in FILE
	sed -nE "s/$2/\\1/p" "$1" | head -1
}

mkdir -p "$tmp/root" "$tmp/ng"
chmod 755 "$tmp" "$tmp/root" # nginx's workers run as another user
head -c 1024 /dev/urandom >"$tmp/root/1k.bin"
head -c 300000 /dev/urandom >"$tmp/root/300k.bin"
: >"$tmp/root/empty"
$py - "$tmp/root" >"$tmp/manifest" <<'EOF'
import os, sys, zlib
root = sys.argv[1]
for n in sorted(os.listdir(root)):
    d = open(os.path.join(root, n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
EOF

# ---- servers ----
servers=""
if command -v nginx >/dev/null 2>&1; then
	ngport=$(free_port)
	cat >"$tmp/ng/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $tmp/ng/nginx.pid;
error_log $tmp/ng/error.log;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path $tmp/ng; proxy_temp_path $tmp/ng; fastcgi_temp_path $tmp/ng;
	uwsgi_temp_path $tmp/ng; scgi_temp_path $tmp/ng;
	types { application/octet-stream bin; }
	server { listen 127.0.0.1:$ngport; root $tmp/root; keepalive_requests 100000; }
}
EOF
	nginx -c "$tmp/ng/nginx.conf" -p "$tmp/ng" 2>"$tmp/ng/stderr" &
	pids="$pids $!"
	wait_port "$ngport" && servers="$servers nginx:$ngport"
fi
if command -v lighttpd >/dev/null 2>&1; then
	ltport=$(free_port)
	cat >"$tmp/lighttpd.conf" <<EOF
server.document-root = "$tmp/root"
server.bind = "127.0.0.1"
server.port = $ltport
server.max-keep-alive-requests = 100000
EOF
	lighttpd -D -f "$tmp/lighttpd.conf" 2>"$tmp/lighttpd.err" &
	pids="$pids $!"
	wait_port "$ltport" && servers="$servers lighttpd:$ltport"
fi
[ -n "$servers" ]
ok $? "a reference server runs (nginx or lighttpd:$servers)"
have_httperf=0
command -v httperf >/dev/null 2>&1 && have_httperf=1

# The regexes scripts use on httperf's report: every one must match httpload's too.
report_regexes='^Maximum connect burst length: [0-9]+$
^Total: connections [0-9]+ requests [0-9]+ replies [0-9]+ test-duration [0-9.]+ s$
^Connection rate: [0-9.]+ conn/s \([0-9.]+ ms/conn, <=[0-9]+ concurrent connections\)$
^Connection time \[ms\]: min [0-9.]+ avg [0-9.]+ max [0-9.]+ median [0-9.]+ stddev [0-9.]+$
^Connection time \[ms\]: connect [0-9.]+$
^Connection length \[replies/conn\]: [0-9.]+$
^Request rate: [0-9.]+ req/s \([0-9.]+ ms/req\)$
^Request size \[B\]: [0-9.]+$
^Reply rate \[replies/s\]: min [0-9.]+ avg [0-9.]+ max [0-9.]+ stddev [0-9.]+ \([0-9]+ samples\)$
^Reply time \[ms\]: response [0-9.]+ transfer [0-9.]+$
^Reply size \[B\]: header [0-9.]+ content [0-9.]+ footer [0-9.]+ \(total [0-9.]+\)$
^Reply status: 1xx=[0-9]+ 2xx=[0-9]+ 3xx=[0-9]+ 4xx=[0-9]+ 5xx=[0-9]+$
^CPU time \[s\]: user [0-9.]+ system [0-9.]+ \(user [0-9.]+% system [0-9.]+% total [0-9.]+%\)$
^Net I/O: [0-9.]+ KB/s \([0-9.]+\*10\^6 bps\)$
^Errors: total [0-9]+ client-timo [0-9]+ socket-timo [0-9]+ connrefused [0-9]+ connreset [0-9]+$
^Errors: fd-unavail [0-9]+ addrunavail [0-9]+ ftab-full [0-9]+ other [0-9]+'
parses() { # parses FILE: all of httperf's lines are there, in httperf's format
	local re missing=""
	while IFS= read -r re; do
		grep -Eq "$re" "$1" || missing="$missing [$re]"
	done <<<"$report_regexes"
	[ -z "$missing" ] || diag "unmatched:$missing"
	[ -z "$missing" ]
}
counts() { # counts FILE: the lines that must agree with httperf (durations left out)
	sed -nE 's/^(Total: connections [0-9]+ requests [0-9]+ replies [0-9]+).*/\1/p;
		/^Reply size/p; /^Reply status/p' "$1"
}

for srv in $servers; do
	name=${srv%%:*} port=${srv##*:}
	for case in "/1k.bin --num-conns 40 --num-calls 5 --rate 400" \
		"/300k.bin --num-conns 10 --num-calls 2" \
		"/missing --num-conns 10 --num-calls 3 --rate 200" \
		"/empty --num-conns 5 --num-calls 2 --http-version 1.0"; do
		uri=${case%% *} args=${case#* }
		# shellcheck disable=SC2086
		"$hl" --server 127.0.0.1 --port "$port" --uri "$uri" $args >"$tmp/hl.out" 2>&1
		rc=$?
		parses "$tmp/hl.out"
		ok $? "$name $uri: the report parses with httperf's regexes"
		[ $rc -eq 0 ]
		ok $? "$name $uri $args: exit 0"
		if [ "$have_httperf" = 1 ]; then
			# shellcheck disable=SC2086
			httperf --server 127.0.0.1 --port "$port" --uri "$uri" $args >"$tmp/hp.out" 2>/dev/null
			counts "$tmp/hl.out" >"$tmp/hl.counts"
			counts "$tmp/hp.out" >"$tmp/hp.counts"
			diff "$tmp/hp.counts" "$tmp/hl.counts" >"$tmp/diff" && [ -s "$tmp/hl.counts" ]
			st=$?
			[ $st -eq 0 ] || diag "$(cat "$tmp/diff")"
			ok $st "$name $uri $args: same counts and byte totals as httperf"
		fi
	done
	"$hl" --server 127.0.0.1 --port "$port" --uri /300k.bin --num-conns 5 --num-calls 4 \
		--verify-manifest "$tmp/manifest" >"$tmp/v.out" 2>&1
	rc=$?
	grep -q '^Errors: fd-unavail 0 addrunavail 0 ftab-full 0 other 0 corrupt 0$' "$tmp/v.out" &&
		grep -q 'replies 20 ' "$tmp/v.out" && grep -q ' 2xx=20 ' "$tmp/v.out" && [ $rc -eq 0 ]
	ok $? "$name: --verify-manifest: 20 bodies, none corrupt, exit 0"
	"$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin --num-conns 4 --num-calls 20 \
		--max-piped-calls 5 --verify >"$tmp/p.out" 2>&1
	grep -q 'requests 80 replies 80 ' "$tmp/p.out" && grep -q 'Errors: total 0 ' "$tmp/p.out"
	ok $? "$name: pipelining 5 deep: 80 replies, no error"
	"$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin --concurrency 8 --duration 1 \
		--json >"$tmp/j.out" 2>&1 &&
	$py -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["replies"] > 100 and d["errors"]["total"] == 0 and d["latency_ms"]["p99"] > 0 else 1)' "$tmp/j.out"
	ok $? "$name: closed loop 8 x 1 s, --json: replies, no error, p99 ($(head -c 120 "$tmp/j.out"))"
done

# ---- errors: each shows in the Errors lines, exit status 1, no crash ----
errcase() { # errcase MODE REGEX DESCRIPTION [ARGS]
	local mode=$1 re=$2 desc=$3 port rc
	shift 3
	if [ "$mode" = refused ]; then
		port=$(free_port)
	else
		$py "$bad" "$mode" >"$tmp/bad.port" &
		pids="$pids $!"
		for _ in $(seq 100); do [ -s "$tmp/bad.port" ] && break; sleep 0.05; done
		port=$(cat "$tmp/bad.port")
		rm -f "$tmp/bad.port"
	fi
	"$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin --num-conns 3 --timeout 0.5 "$@" \
		>"$tmp/e.out" 2>&1
	rc=$?
	grep -Eq "$re" "$tmp/e.out" && [ $rc -eq 1 ] && parses "$tmp/e.out"
	ok $? "$desc (exit $rc: $(grep '^Errors' "$tmp/e.out" | tr '\n' ' '))"
}
errcase refused 'connrefused 3 ' "connection refused: connrefused 3"
errcase reset 'connreset 3$' "reset after the request: connreset 3"
errcase silent 'client-timo 3 ' "no answer: client-timo 3"
errcase midbody 'connreset 3$' "server closes mid-body: connreset 3"
errcase malformed 'other 3' "malformed status line: other 3"
errcase badchunk 'other 3' "malformed chunked body: other 3"
errcase corrupt 'corrupt 3$' "wrong bytes under a right length: corrupt 3" \
	--verify-manifest "$tmp/manifest"
$py "$bad" chunked >"$tmp/bad.port" &
pids="$pids $!"
for _ in $(seq 100); do [ -s "$tmp/bad.port" ] && break; sleep 0.05; done
"$hl" --server 127.0.0.1 --port "$(cat "$tmp/bad.port")" --num-conns 3 --num-calls 3 \
	--verify >"$tmp/c.out" 2>&1
grep -q 'replies 9 ' "$tmp/c.out" && grep -q 'corrupt 0$' "$tmp/c.out"
ok $? "chunked replies: 9 complete, verified"

# ---- usage ----
"$hl" --help >"$tmp/h.out" 2>&1 && grep -q -- '--num-conns' "$tmp/h.out"
ok $? "httpload --help"
"$hl" --no-such-option >"$tmp/u.out" 2>&1
[ $? -eq 2 ] && grep -q "unrecognized option" "$tmp/u.out"
ok $? "unknown option: exit 2 with a message"
"$hl" --wsess 1,1,1 >"$tmp/u.out" 2>&1
[ $? -eq 2 ] && grep -q "does not support" "$tmp/u.out"
ok $? "--wsess: refused clearly"
"$hl" --proto carrier-pigeon >"$tmp/u.out" 2>&1
[ $? -eq 2 ] && grep -q "unknown transport" "$tmp/u.out"
ok $? "unknown transport: exit 2"

# ---- httpget ----
# shellcheck disable=SC2086
set -- $servers
srv=${1:-}
port=${srv##*:}
if [ -n "$srv" ]; then
	"$hg" "http://127.0.0.1:$port/300k.bin" >"$tmp/g.out" 2>"$tmp/g.err" &&
		cmp -s "$tmp/g.out" "$tmp/root/300k.bin"
	ok $? "httpget URL: the body on stdout ($(head -c 200 "$tmp/g.err"))"
	mkdir -p "$tmp/dl"
	"$hg" -O "$tmp/dl" "http://127.0.0.1:$port/1k.bin" "http://127.0.0.1:$port/300k.bin" \
		"http://127.0.0.1:$port/empty" 2>"$tmp/g.err" &&
		cmp -s "$tmp/dl/1k.bin" "$tmp/root/1k.bin" &&
		cmp -s "$tmp/dl/300k.bin" "$tmp/root/300k.bin" && [ -f "$tmp/dl/empty" ]
	ok $? "httpget -O DIR with three URLs on one connection"
	"$hg" -I "http://127.0.0.1:$port/1k.bin" >"$tmp/g.out" 2>&1 &&
		grep -qi '^Content-Length: 1024' "$tmp/g.out"
	ok $? "httpget -I: the head"
	"$hg" -f "http://127.0.0.1:$port/missing" >"$tmp/g.out" 2>&1
	[ $? -eq 22 ]
	ok $? "httpget -f on a 404: exit 22"
fi
"$hg" "http://127.0.0.1:$(free_port)/x" >/dev/null 2>&1
[ $? -eq 7 ]
ok $? "httpget, connection refused: exit 7"
$py "$bad" midbody >"$tmp/bad.port" &
pids="$pids $!"
for _ in $(seq 100); do [ -s "$tmp/bad.port" ] && break; sleep 0.05; done
"$hg" "http://127.0.0.1:$(cat "$tmp/bad.port")/x" >/dev/null 2>&1
[ $? -eq 18 ]
ok $? "httpget, body cut short: exit 18"
done_testing
