#!/bin/bash
# httpload-bench.sh [SECONDS]: the reply rate one httpload core drives against nginx (4 workers,
# 1 KiB file, keep-alive) next to wrk -t1 and httperf, as ratios from one run; then 20 000
# connections at once, which httperf cannot hold (select(2), FD_SETSIZE 1024). Not a test.
set -u
secs=${1:-5}
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
hl="$top_builddir/httpload/httpload"
conns=${CONNS:-50}
big=${BIG:-20000}
for t in nginx wrk httperf; do
	command -v $t >/dev/null || { echo "httpload-bench: $t is missing (apt-get install nginx-light wrk httperf)"; exit 1; }
done
ulimit -n "$(ulimit -Hn)" 2>/dev/null
# The big run needs a descriptor per connection and a few more.
hard=$(ulimit -Hn)
[ "$hard" != unlimited ] && [ "$big" -gt $((hard - 100)) ] && big=$((hard - 100)) &&
	echo "httpload-bench: ulimit -Hn is $hard: the big run uses $big connections"
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'kill $ngpid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root"
chmod 755 "$tmp/root"
head -c 1024 /dev/urandom >"$tmp/root/1k.bin"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$tmp/nginx.conf" <<NG
daemon off;
worker_processes 4;
worker_rlimit_nofile 65536;
pid $tmp/nginx.pid;
error_log $tmp/error.log crit;
events { worker_connections 30000; }
http {
	access_log off;
	client_body_temp_path $tmp; proxy_temp_path $tmp; fastcgi_temp_path $tmp;
	uwsgi_temp_path $tmp; scgi_temp_path $tmp;
	keepalive_requests 10000000; keepalive_timeout 120s;
	server { listen 127.0.0.1:$port backlog=65535; root $tmp/root; }
}
NG
nginx -c "$tmp/nginx.conf" -p "$tmp" & ngpid=$!
sleep 1
uri="http://127.0.0.1:$port/1k.bin"

# One core each: the tools are pinned to CPU 0 where the machine has more than one.
pin=""
[ "$(nproc)" -gt 1 ] && command -v taskset >/dev/null && pin="taskset -c 0"

wrk_rate=$($pin wrk -t1 -c"$conns" -d"${secs}s" "$uri" | awk '/^Requests\/sec:/ {print $2}')
hl_rate=$($pin "$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin -c "$conns" -d "$secs" --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.1f" % d["reply_rate"])')
calls=$(python3 -c "print(int(max(1000, float('$wrk_rate') * $secs / $conns)))")
hp_out=$($pin httperf --server 127.0.0.1 --port "$port" --uri /1k.bin --rate 1000 \
	--num-conns "$conns" --num-calls "$calls" 2>/dev/null)
hp_rate=$(printf '%s\n' "$hp_out" | awk '/^Total:/ {r=$7; d=$9} END {if (d > 0) printf "%.1f", r / d}')

printf '\nreply rate, nginx 4 workers, 1 KiB, keep-alive, %d connections, %s s, one core each\n' "$conns" "$secs"
printf '%-10s %12s\n' tool replies/s
printf '%-10s %12s\n' httpload "$hl_rate" wrk "$wrk_rate" httperf "$hp_rate"
python3 - "$hl_rate" "$wrk_rate" "$hp_rate" <<'PY'
import sys
h, w, p = (float(x or 0) for x in sys.argv[1:])
print("httpload / wrk     %.2f   (goal >= 0.9)" % (h / w if w else 0))
print("httpload / httperf %.2f   (goal >= 2)" % (h / p if p else 0))
PY

# Connecting takes seconds at this count (the listen backlog, the server's accept loop): longer.
bsecs=$((secs * 3))
printf '\n%d connections open at once (closed loop, %s s)\n' "$big" "$bsecs"
"$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin -c "$big" -d "$bsecs" --timeout 30 >"$tmp/big.out" 2>&1
grep -E '^(Total|Connection rate|Reply status|Errors)|^Latency' "$tmp/big.out" | sed 's/^/httpload: /'
httperf --server 127.0.0.1 --port "$port" --uri /1k.bin --rate "$big" --num-conns "$big" \
	--num-calls 100 --timeout 30 >"$tmp/hpbig.out" 2>&1
grep -E '^(Total|Connection rate|Errors)|FD_SETSIZE' "$tmp/hpbig.out" | sed 's/^/httperf:  /'
