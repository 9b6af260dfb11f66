#!/bin/bash
# httpload.sh: httpload against nginx and lighttpd over TCP, next to httperf; errors; httpget.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../nginx.sh"
hl="$top_builddir/httpload/httpload"
hg="$top_builddir/httpload/httpget"
bad="$top_srcdir/test/integration/httpload-badserver.py"
py=/usr/bin/python3
[ -x $py ] || py=python3
scratch httpload

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
	nginx_conf "$tmp/ng" "types { application/octet-stream bin; }" \
	    "server { listen 127.0.0.1:$ngport; root $tmp/root; keepalive_requests 100000; }"
	nginx -c "$tmp/ng/nginx.conf" -p "$tmp/ng" 2>"$tmp/ng/stderr" &
	pids="$pids $!"
	if wait_port "$ngport"; then
		servers="$servers nginx:$ngport"
	else
		ok 1 "nginx (installed) starts: $(head -c 300 "$tmp/ng/stderr" "$tmp/ng/error.log" 2>/dev/null | tr '\n' ' ')"
	fi
fi
if command -v lighttpd >/dev/null 2>&1; then
	ltport=$(free_port)
	cat >"$tmp/lighttpd.conf" <<EOF
server.document-root = "$tmp/root"
server.bind = "127.0.0.1"
server.port = $ltport
server.max-keep-alive-requests = 65535
EOF
	lighttpd -D -f "$tmp/lighttpd.conf" 2>"$tmp/lighttpd.err" &
	pids="$pids $!"
	if wait_port "$ltport"; then
		servers="$servers lighttpd:$ltport"
	else
		ok 1 "lighttpd (installed) starts: $(head -c 300 "$tmp/lighttpd.err" | tr '\n' ' ')"
	fi
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
# counts FILE: the lines that must agree with httperf (durations left out). httperf divides
# byte totals by the reply count in integers: sizes are compared in whole bytes.
counts() {
	sed -nE 's/^(Total: connections [0-9]+ requests [0-9]+ replies [0-9]+).*/\1/p;
		s/\.[0-9]+//g; s/ \(total [0-9]+\)//; /^Reply size/p; /^Reply status/p' "$1"
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

# ---- --progress: a line on stderr every 5 s, nothing on stdout ----
set -- $servers
if [ -n "${1:-}" ]; then
	"$hl" --server 127.0.0.1 --port "${1##*:}" --uri /1k.bin -c 2 -d 5.5 --progress --json \
		>"$tmp/p.out" 2>"$tmp/p.err"
	grep -Eq '^httpload: 5 s: [0-9]+ replies \([0-9.]+/s now\), 2 connections open, [0-9]+ started, 0 errors$' "$tmp/p.err" &&
		[ "$(wc -l <"$tmp/p.err")" = 1 ] && $py -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/p.out"
	ok $? "--progress: one line on stderr after 5 s ($(head -1 "$tmp/p.err")), the JSON intact"
fi

# ---- SIGINT: the run ends early, the report is printed ----
# shellcheck disable=SC2086
set -- $servers
if [ -n "${1:-}" ]; then
	port=${1##*:}
	for args in "--concurrency 2 --duration 60" "--rate 50 --num-conns 100000 --num-calls 2" \
		"--concurrency 4 --duration 60 --threads 2"; do
		# shellcheck disable=SC2086
		"$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin $args >"$tmp/i.out" 2>&1 &
		lp=$!
		sleep 1
		kill -INT $lp
		for _ in $(seq 50); do kill -0 $lp 2>/dev/null || break; sleep 0.1; done
		kill -0 $lp 2>/dev/null && kill -KILL $lp
		wait $lp
		rc=$?
		d=$(field "$tmp/i.out" '^Total: .* test-duration ([0-9]+)\..*')
		n=$(field "$tmp/i.out" '^Total: connections [0-9]+ requests [0-9]+ replies ([0-9]+) .*')
		parses "$tmp/i.out" && [ $rc -eq 0 ] && [ "${d:-99}" -lt 3 ] && [ "${n:-0}" -gt 10 ]
		ok $? "SIGINT after 1 s ($args): report after ${d}s, $n replies, exit $rc"
	done
fi

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

# footer: httperf's meaning, the trailer section of a chunked reply (chunk-size lines: neither)
$py "$bad" trailer >"$tmp/bad.port" &
pids="$pids $!"
for _ in $(seq 100); do [ -s "$tmp/bad.port" ] && break; sleep 0.05; done
tport=$(cat "$tmp/bad.port")
"$hl" --server 127.0.0.1 --port "$tport" --num-conns 2 --num-calls 3 --verify >"$tmp/c.out" 2>&1
grep -q '^Reply size \[B\]: header 47.0 content 1024.0 footer 32.0 (total 1103.0)$' "$tmp/c.out" &&
	grep -q 'replies 6 ' "$tmp/c.out" && grep -q 'corrupt 0$' "$tmp/c.out"
ok $? "chunked with a trailer: content 1024, footer 32 ($(grep '^Reply size' "$tmp/c.out"))"
if [ "$have_httperf" = 1 ]; then
	httperf --server 127.0.0.1 --port "$tport" --num-conns 2 --num-calls 3 >"$tmp/hp.out" 2>/dev/null
	[ "$(counts "$tmp/hp.out")" = "$(counts "$tmp/c.out")" ]
	ok $? "chunked with a trailer: the same byte counts as httperf"
fi

# ---- sessions: --wsess, --burst-length, --think-timeout ----
sess_lines() { sed -nE '/^Session (length|:)/p; s/^(Session rate .*\()/(/p; /^Total/s/ test-duration.*//p' "$1"; }
set -- $servers
if [ -n "${1:-}" ]; then
	port=${1##*:}
	"$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin --wsess 10,6,0.2 --burst-length 3 \
		--rate 20 >"$tmp/s.out" 2>&1
	rc=$?
	life=$(field "$tmp/s.out" '^Session lifetime \[s\]: ([0-9.]+)$')
	grep -q '^Total: connections 10 requests 60 replies 60 ' "$tmp/s.out" &&
		grep -q '^Session rate \[sess/s\]: .* (10/10)$' "$tmp/s.out" &&
		grep -q '^Session length histogram: 0 0 0 0 0 0 10$' "$tmp/s.out" &&
		grep -q '^Session: avg 1.00 connections/session$' "$tmp/s.out" &&
		awk -v l="${life:-0}" 'BEGIN { exit !(l >= 0.2 && l < 0.4) }' && [ $rc -eq 0 ]
	ok $? "--wsess 10,6,0.2 --burst-length 3: 10 sessions of 2 bursts, one think time (${life}s: 0.2 and the calls, under 0.4)"
	"$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin --wsess 2,3,0.4 >"$tmp/s2.out" 2>&1
	life=$(field "$tmp/s2.out" '^Session lifetime \[s\]: ([0-9.]+)$')
	awk -v l="${life:-0}" 'BEGIN { exit !(l >= 0.8 && l < 1.2) }'
	ok $? "--wsess 2,3,0.4 (bursts of 1): two think times per session (${life}s: 0.8 and the calls, under 1.2)"
	if [ "$have_httperf" = 1 ]; then
		httperf --server 127.0.0.1 --port "$port" --uri /1k.bin --wsess 10,6,0.2 \
			--burst-length 3 --rate 20 >"$tmp/hp.out" 2>/dev/null
		diff <(sess_lines "$tmp/hp.out") <(sess_lines "$tmp/s.out") >"$tmp/diff"
		st=$?
		[ $st -eq 0 ] || diag "$(cat "$tmp/diff")"
		ok $st "--wsess: the same session lines as httperf"
	fi
fi
# --wsesslog: httperf's example file, two sessions used in turn
cat >"$tmp/sess.log" <<'EOF'
# session 1: a burst of three (its first request alone, then two), think 0.3 s, a POST burst
/1k.bin think=0.3
	/300k.bin
	/empty
/1k.bin method=POST contents='Post data'
  /empty

# session 2: a HEAD, then after the default think time a 404
/1k.bin method=HEAD
/missing
EOF
set -- $servers
if [ -n "${1:-}" ]; then
	port=${1##*:}
	"$hl" --server 127.0.0.1 --port "$port" --wsesslog 4,0.1,"$tmp/sess.log" --rate 10 \
		--print-request >"$tmp/w.out" 2>&1
	grep -q '^Total: connections 4 requests 14 replies 14 ' "$tmp/w.out" &&
		grep -q '^Session rate .*(4/4)$' "$tmp/w.out" &&
		grep -q '^Session length histogram: 0 0 2 0 0 2$' "$tmp/w.out" &&
		grep -q '^SH[0-9]*:POST /1k.bin HTTP/1.1$' "$tmp/w.out" && grep -q '^SB[0-9]*:Post data$' "$tmp/w.out" &&
		[ "$(grep -c '^SS[0-9]*: header [0-9]* content 9$' "$tmp/w.out")" = 2 ] &&
		grep -q '^SH[0-9]*:HEAD /1k.bin ' "$tmp/w.out" && grep -q '^SH[0-9]*:GET /missing ' "$tmp/w.out"
	ok $? "--wsesslog: 4 sessions from a file of 2 (14 calls), bursts, POST with contents, HEAD"
	if [ "$have_httperf" = 1 ]; then
		"$hl" --server 127.0.0.1 --port "$port" --wsesslog 4,0.1,"$tmp/sess.log" --rate 10 \
			>"$tmp/w.out" 2>&1
		httperf --server 127.0.0.1 --port "$port" --wsesslog 4,0.1,"$tmp/sess.log" \
			--rate 10 >"$tmp/hp.out" 2>/dev/null
		diff <(sess_lines "$tmp/hp.out"; grep '^Reply status' "$tmp/hp.out") \
			<(sess_lines "$tmp/w.out"; grep '^Reply status' "$tmp/w.out") >"$tmp/diff"
		st=$?
		[ $st -eq 0 ] || diag "$(cat "$tmp/diff")"
		ok $st "--wsesslog: the same totals, statuses and session lines as httperf"
	fi
fi
# ---- URI generators: --wset, --wlog ----
reqlines() { grep -a '^SH[0-9]*:GET ' "$1" | sed 's/^SH[0-9]*://' | tr -d '\r'; }
set -- $servers
if [ -n "${1:-}" ]; then
	port=${1##*:}
	mkdir -p "$tmp/root/ws/0" "$tmp/root/ws/1"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		head -c $((100 + i)) /dev/urandom >"$tmp/root/ws/0/$i.html"
		head -c $((200 + i)) /dev/urandom >"$tmp/root/ws/1/$i.html"
	done
	(cd "$tmp/root" && $py -c '
import os, zlib
for d, _, fs in os.walk("ws"):
    for n in fs:
        p = os.path.join(d, n); b = open(p, "rb").read()
        print("/%s %d %08x" % (p, len(b), zlib.crc32(b) & 0xffffffff))') >"$tmp/ws.manifest"
	"$hl" --server 127.0.0.1 --port "$port" --uri /ws --wset 20,1 --num-conns 5 --num-calls 5 \
		--print-request=header >"$tmp/ws.out" 2>&1
	reqlines "$tmp/ws.out" >"$tmp/ws.hl"
	[ "$(head -1 "$tmp/ws.hl")" = "GET /ws/0/1.html HTTP/1.1" ] &&
		[ "$(sed -n 10p "$tmp/ws.hl")" = "GET /ws/1/0.html HTTP/1.1" ] &&
		[ "$(sed -n 20p "$tmp/ws.hl")" = "GET /ws/0/0.html HTTP/1.1" ] &&
		[ "$(wc -l <"$tmp/ws.hl")" = 25 ] && grep -q ' 2xx=25 ' "$tmp/ws.out"
	ok $? "--wset 20,1: 25 calls walk /ws/0/1.html .. /ws/1/9.html and wrap to /ws/0/0.html"
	"$hl" --server 127.0.0.1 --port "$port" --uri /ws/ --wset 20,0.25 --num-conns 1 \
		--num-calls 40 --print-request=header --verify-manifest "$tmp/ws.manifest" >"$tmp/ws.out" 2>&1
	rc=$?
	runs=$(reqlines "$tmp/ws.out" | uniq -c | awk '{print $1}' | sed '1d;$d' | sort -u | tr '\n' ' ')
	[ "$runs" = "4 " ] && [ "$(reqlines "$tmp/ws.out" | sort -u | wc -l)" -ge 10 ] &&
		grep -q 'corrupt 0$' "$tmp/ws.out" && grep -q ' 2xx=40 ' "$tmp/ws.out" && [ $rc -eq 0 ]
	ok $? "--wset 20,0.25: each URI four times in a row (runs: $runs), bodies checked per URI"
	printf '/ws/0/3.html\0/1k.bin\0\0/missing' >"$tmp/uris.wlog"
	"$hl" --server 127.0.0.1 --port "$port" --wlog y,"$tmp/uris.wlog" --num-conns 2 \
		--num-calls 4 --print-request=header >"$tmp/wl.out" 2>&1
	reqlines "$tmp/wl.out" >"$tmp/wl.hl"
	printf 'GET %s HTTP/1.1\n' /ws/0/3.html /1k.bin /missing /ws/0/3.html /1k.bin /missing \
		/ws/0/3.html /1k.bin >"$tmp/wl.want"
	cmp -s "$tmp/wl.hl" "$tmp/wl.want" && grep -q ' 2xx=6 3xx=0 4xx=2 ' "$tmp/wl.out"
	ok $? "--wlog y: the file's URIs in turn, an empty entry skipped, wrapping around"
	"$hl" --server 127.0.0.1 --port "$port" --wlog n,"$tmp/uris.wlog" --num-conns 10 \
		--num-calls 2 --rate 100 --log "$tmp/wl.log" >"$tmp/wl.out" 2>&1
	rc=$?
	grep -q '^Total: connections 2 requests 3 replies 3 ' "$tmp/wl.out" && [ $rc -eq 0 ]
	ok $? "--wlog n: the run stops after the list's 3 URIs ($(grep '^Total' "$tmp/wl.out"))"
	# --log: a line per call, in completion order: due, status, latency, stream, bytes, target
	awk -F'\t' 'NF == 6 && $1 ~ /^[0-9]+$/ && $3 > 0 && $4 == 0 { print $2, $5, $6 }' \
		"$tmp/wl.log" | sort >"$tmp/wl.got"
	printf '%s\n' "200 1024 /1k.bin" "200 $(stat -c %s "$tmp/root/ws/0/3.html") /ws/0/3.html" \
		| sort >"$tmp/wl.want"
	grep -q '^404 [0-9]* /missing$' "$tmp/wl.got" && grep -v '^404' "$tmp/wl.got" |
		cmp -s - "$tmp/wl.want" && [ "$(wc -l <"$tmp/wl.log")" = 3 ]
	st=$?
	ok $st "--log: a line per call with its status, latency, stream, bytes and target"
	[ $st = 0 ] || diag "$(cat "$tmp/wl.log")"
	"$hl" --server 127.0.0.1 --port "$port" --log "$tmp/no/such/dir" >"$tmp/wl.out" 2>&1
	[ $? = 2 ] && grep -q 'log' "$tmp/wl.out"
	ok $? "--log to a file that cannot be made: exit 2 with a message"
	if [ "$have_httperf" = 1 ]; then
		for a in "--uri /ws --wset 20,1 --num-conns 3 --num-calls 9" \
			"--wlog y,$tmp/uris.wlog --num-conns 3 --num-calls 3"; do
			# shellcheck disable=SC2086
			"$hl" --server 127.0.0.1 --port "$port" $a --print-request=header >"$tmp/a.out" 2>&1
			# shellcheck disable=SC2086
			httperf --server 127.0.0.1 --port "$port" $a --print-request=header >"$tmp/b.out" 2>/dev/null
			diff <(reqlines "$tmp/b.out"; counts "$tmp/b.out") \
				<(reqlines "$tmp/a.out"; counts "$tmp/a.out") >"$tmp/diff"
			st=$?
			[ $st -eq 0 ] || diag "$(head -20 "$tmp/diff")"
			ok $st "${a%% --num-conns*}: the same request lines, counts and bytes as httperf"
		done
		# --wlog n is not compared: httperf stops the moment the list runs out, without
		# waiting for the replies out, so its totals depend on timing.
	fi
fi
# ---- --print-request, --print-reply, --method, --add-header, --max-piped-calls, --period:
# the same output as httperf (User-Agent, Host and Date aside: httperf leaves a port other than
# 80 out of Host, RFC 9110 puts it in) ----
printed() { # printed FILE: the SH/SB/SS/RH/RB/RS lines, the lines that differ by nature left out
	tr -d '\r' <"$1" | grep -aE '^(S[HBS]|R[HBS])[0-9]+:' | grep -avE ':(User-Agent|Host|Date):' |
		sed -E 's/^(SS[0-9]+: header )[0-9]+/\1N/'
}
set -- $servers
if [ -n "${1:-}" ] && [ "$have_httperf" = 1 ]; then
	port=${1##*:}
	for m in GET HEAD; do
		a=(--server 127.0.0.1 --port "$port" --uri /missing --num-conns 2 --num-calls 2
			--method $m --add-header 'X-Test: 1\n' --print-reply --print-request)
		"$hl" "${a[@]}" >"$tmp/a.out" 2>&1
		httperf "${a[@]}" >"$tmp/b.out" 2>/dev/null
		diff <(printed "$tmp/b.out") <(printed "$tmp/a.out") >"$tmp/diff" &&
			[ "$(printed "$tmp/a.out" | grep -c '^SH[0-9]*:X-Test: 1$')" = 4 ]
		st=$?
		[ $st -eq 0 ] || diag "$(head -20 "$tmp/diff")"
		ok $st "--method $m --add-header --print-reply --print-request: httperf's lines"
	done
	for a in "--uri /1k.bin --num-conns 4 --num-calls 30 --max-piped-calls 8" \
		"--uri /1k.bin --num-conns 20 --num-calls 2 --period e0.005" \
		"--uri /1k.bin --num-conns 20 --num-calls 2 --period u0.001,0.01 --max-connections 3"; do
		# shellcheck disable=SC2086
		"$hl" --server 127.0.0.1 --port "$port" $a >"$tmp/a.out" 2>&1
		# shellcheck disable=SC2086
		httperf --server 127.0.0.1 --port "$port" $a >"$tmp/b.out" 2>/dev/null
		diff <(counts "$tmp/b.out") <(counts "$tmp/a.out") >"$tmp/diff"
		st=$?
		[ $st -eq 0 ] || diag "$(cat "$tmp/diff")"
		ok $st "${a#--uri /1k.bin }: the same counts and bytes as httperf"
	done
fi
printf '/a contents=%s\n' "'open" >"$tmp/bad.log"
"$hl" --server 127.0.0.1 --port 9 --wsesslog 1,0,"$tmp/bad.log" >/dev/null 2>"$tmp/u.out"
[ $? -eq 2 ] && grep -q 'line 1: unterminated quote' "$tmp/u.out"
ok $? "--wsesslog: a bad file is refused with its line (exit 2)"

$py "$bad" slow >"$tmp/bad.port" &
pids="$pids $!"
for _ in $(seq 100); do [ -s "$tmp/bad.port" ] && break; sleep 0.05; done
sport=$(cat "$tmp/bad.port")
"$hl" --server 127.0.0.1 --port "$sport" --wsess 2,2,0 --timeout 0.4 >"$tmp/t1.out" 2>&1
"$hl" --server 127.0.0.1 --port "$sport" --wsess 2,2,0 --timeout 0.4 --think-timeout 1 \
	>"$tmp/t2.out" 2>&1
rc=$?
grep -q 'client-timo 2 ' "$tmp/t1.out" && grep -q 'Errors: total 0 ' "$tmp/t2.out" &&
	grep -q '(2/2)$' "$tmp/t2.out" && grep -q '(0/2)$' "$tmp/t1.out" && [ $rc -eq 0 ]
ok $? "--think-timeout 1: a reply 0.8 s late is fine (without it: client-timo, sessions failed)"

# ---- usage ----
"$hl" --help >"$tmp/h.out" 2>&1 && grep -q -- '--num-conns' "$tmp/h.out"
ok $? "httpload --help"
"$hl" --no-such-option >"$tmp/u.out" 2>&1
[ $? -eq 2 ] && grep -q "unrecognized option" "$tmp/u.out"
ok $? "unknown option: exit 2 with a message"
"$hl" --ssl-ciphers NORMAL >"$tmp/u.out" 2>&1
[ $? -eq 2 ] && grep -q "ssl-ciphers is an httperf option httpload does not support" "$tmp/u.out"
ok $? "--ssl-ciphers (--ssl is supported, https.sh): refused clearly"
"$hl" --wset 10,2 >"$tmp/u.out" 2>&1
[ $? -eq 2 ] && grep -q "wset takes" "$tmp/u.out"
ok $? "--wset with a rate above 1: exit 2"
: >"$tmp/empty.wlog"
"$hl" --wlog y,"$tmp/empty.wlog" >"$tmp/u.out" 2>&1
[ $? -eq 2 ] && grep -q "holds no URI" "$tmp/u.out"
ok $? "--wlog with an empty file: exit 2"
"$hl" --wsess 1,x,1 >"$tmp/u.out" 2>&1
[ $? -eq 2 ] && grep -q "wsess takes" "$tmp/u.out"
ok $? "--wsess with a bad argument: exit 2"
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
