#!/bin/bash
# httpload-bench.sh [SECONDS]: the reply rate one httpload core drives against nginx (4 workers,
# 1 KiB file, keep-alive) next to wrk -t1 and httperf, as ratios from one run; then 20 000
# connections at once, which httperf cannot hold (select(2), FD_SETSIZE 1024). Not a test.
#
# The clients run one at a time, each pinned to CPU 0; nginx is pinned to the other CPUs, so that
# a client never shares its core with the server. Where the server saturates before one client
# core does (a 2-CPU machine: nginx has one core), the measured rates only show the server; the
# client's cost per reply (its user + system CPU time, from getrusage of the child) then says
# what one client core would drive: replies / CPU-second. Both are printed, as ratios.
# Environment: CONNS="50 1000" (the concurrency levels), REPS=3 (runs per tool and level, the
# best kept: other processes on the machine only ever slow a run down), BIG=20000.
set -u
secs=${1:-5}
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
hl="$top_builddir/httpload/httpload"
levels=${CONNS:-50 1000}
reps=${REPS:-3}
big=${BIG:-20000}
for t in nginx wrk httperf taskset python3; do
	command -v $t >/dev/null || { echo "httpload-bench: $t is missing (apt-get install nginx-light wrk httperf)"; exit 1; }
done
[ -x "$hl" ] || { echo "httpload-bench: $hl not built"; exit 1; }
# The big run needs a descriptor per connection and a few more: raise the hard limit where we
# may (root with CAP_SYS_RESOURCE), else use what there is.
ulimit -Hn $((big + 100)) 2>/dev/null
ulimit -n "$(ulimit -Hn)" 2>/dev/null
hard=$(ulimit -Hn)
[ "$hard" != unlimited ] && [ "$big" -gt $((hard - 100)) ] && big=$((hard - 100)) &&
	echo "httpload-bench: ulimit -Hn is $hard here and cannot be raised: the big run uses $big connections"
. "$(dirname "$0")/../lib.sh" # scratch
. "$(dirname "$0")/../nginx.sh" # nginx_conf
scratch httpload-bench
chmod 755 "$tmp"
mkdir -p "$tmp/root"
chmod 755 "$tmp/root"
head -c 1024 /dev/urandom >"$tmp/root/1k.bin"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
nginx_conf -w 4 -c 30000 -m "worker_rlimit_nofile 65536;" "$tmp" \
    "keepalive_requests 10000000; keepalive_timeout 120s;" \
    "server { listen 127.0.0.1:$port backlog=65535; root $tmp/root; }"
ncpu=$(nproc)
cpin="" spin=""
if [ "$ncpu" -gt 1 ]; then
	cpin="taskset -c 0"
	spin="taskset -c 1-$((ncpu - 1))"
fi
# shellcheck disable=SC2086
$spin nginx -c "$tmp/nginx.conf" -p "$tmp" &
pids="$pids $!"
sleep 1
uri="http://127.0.0.1:$port/1k.bin"

# timed OUT CMD...: run CMD pinned to the client CPU, stdout to OUT; prints its CPU seconds
# (user + system of the child, from bash's times after it).
timed() {
	local out=$1 t0 t1 me=$BASHPID
	shift
	t0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$me/stat)
	# shellcheck disable=SC2086
	$cpin "$@" >"$out" 2>/dev/null
	t1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$me/stat)
	awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f\n", (b - a) / hz }'
}

results=$tmp/results
: >"$results"
for c in $levels; do
	for r in $(seq "$reps"); do
		cpu=$(timed "$tmp/wrk.out" wrk -t1 -c"$c" -d"${secs}s" "$uri")
		n=$(awk '/requests in/ {print $1}' "$tmp/wrk.out")
		d=$(awk '/requests in/ {sub(/s,$/, "", $4); print $4}' "$tmp/wrk.out")
		echo "wrk $c $n $d $cpu" >>"$results"
		wrk_rate=$(awk -v n="$n" -v d="$d" 'BEGIN { printf "%.0f", (d > 0 ? n / d : 0) }')

		cpu=$(timed "$tmp/hl.out" "$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin -c "$c" \
			-d "$secs" --json)
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["replies"], d["duration_s"])' \
			"$tmp/hl.out" | sed "s/^/httpload $c /; s/\$/ $cpu/" >>"$results"

		# httperf: c connections opened at once, each with as many calls as wrk's rate allows
		calls=$(awk -v w="$wrk_rate" -v s="$secs" -v c="$c" 'BEGIN { n = int(w * s / c); print (n < 100 ? 100 : n) }')
		cpu=$(timed "$tmp/hp.out" httperf --hog --server 127.0.0.1 --port "$port" --uri /1k.bin \
			--rate $((c * 20)) --num-conns "$c" --num-calls "$calls")
		awk '/^Total:/ {print $7, $9}' "$tmp/hp.out" | sed "s/^/httperf $c /; s/\$/ $cpu/" >>"$results"
	done
done

# Paced load over many mostly idle connections: 1000 sessions (one connection each) of 100
# calls, 50 ms of think time between calls, the same httperf options for both (wrk has no think
# time). httperf's select() scans every descriptor on each turn of its loop, however few are
# ready; httpload's epoll returns just the ready ones.
wsess=${WSESS:-1000,100,0.05}
for r in $(seq "$reps"); do
	for t in httpload httperf; do
		bin=$t
		[ $t = httpload ] && bin=$hl
		cpu=$(timed "$tmp/ws.out" "$bin" --hog --server 127.0.0.1 --port "$port" --uri /1k.bin \
			--wsess "$wsess" --rate 10000 --timeout 30)
		awk '/^Total:/ {print $7, $9}' "$tmp/ws.out" | sed "s/^/$t-wsess ${wsess%%,*} /; s/\$/ $cpu/" >>"$results"
	done
done

python3 - "$results" "$secs" "$ncpu" "$reps" "$wsess" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 5]
secs, ncpu, reps = sys.argv[2], int(sys.argv[3]), sys.argv[4]
best = {}
for tool, c, n, d, cpu in rows:
    n, d, cpu = float(n), float(d), float(cpu)
    rate = n / d if d > 0 else 0
    per_cpu = n / cpu if cpu > 0 else 0
    k = (tool, int(c))
    b = best.setdefault(k, [0, 0, 0])
    b[0] = max(b[0], rate)
    b[1] = max(b[1], per_cpu)
    if rate == b[0]:
        b[2] = cpu / d if d > 0 else 0
print("\nnginx 4 workers, 1 KiB file, keep-alive; clients one at a time on CPU 0, nginx on "
      "CPU%s; %s s per run, best of %s" % (" 1" if ncpu == 2 else "s 1-%d" % (ncpu - 1), secs, reps))
print("%-15s %6s %12s %12s %16s" % ("tool", "conns", "replies/s", "client CPU", "replies/CPU-s"))
for (tool, c), (rate, pc, load) in sorted(best.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    print("%-15s %6d %12.0f %11.0f%% %16.0f" % (tool, c, rate, 100 * load, pc))
for c in sorted({k[1] for k in best if "-" not in k[0]}):
    h, w, p = (best.get((t, c), [0, 0, 0]) for t in ("httpload", "wrk", "httperf"))
    def ratio(a, b):
        return a / b if b else 0
    print("%5d conns  rate: httpload/wrk %.2f  httpload/httperf %.2f   "
          "per client CPU-second: httpload/wrk %.2f  httpload/httperf %.2f" %
          (c, ratio(h[0], w[0]), ratio(h[0], p[0]), ratio(h[1], w[1]), ratio(h[1], p[1])))
h, p = (best.get((t + "-wsess", int(sys.argv[5].split(",")[0]))) for t in ("httpload", "httperf"))
if h and p:
    print("--wsess %s (paced, mostly idle connections): rate httpload/httperf %.2f, per client "
          "CPU-second httpload/httperf %.2f" % (sys.argv[5], h[0] / p[0] if p[0] else 0,
          h[1] / p[1] if p[1] else 0))
print("goals: >= 0.9x wrk, >= 2x httperf. Where a client's CPU is under 100% the server was the "
      "limit: the rate ratios then compare the server with itself, the per-CPU-second ones say "
      "what one client core drives.")
PY

# Connecting takes seconds at this count (the listen backlog, the server's accept loop): longer.
bsecs=$((secs * 3))
printf '\n%d connections open at once (closed loop, %s s)\n' "$big" "$bsecs"
"$hl" --server 127.0.0.1 --port "$port" --uri /1k.bin -c "$big" -d "$bsecs" --timeout 30 >"$tmp/big.out" 2>&1
grep -E '^(Total|Connection rate|Reply status|Errors)|^Latency' "$tmp/big.out" | sed 's/^/httpload: /'
httperf --server 127.0.0.1 --port "$port" --uri /1k.bin --rate "$big" --num-conns "$big" \
	--num-calls 100 --timeout 30 >"$tmp/hpbig.out" 2>&1
grep -E '^(Total|Connection rate|Errors)|FD_SETSIZE' "$tmp/hpbig.out" | sed 's/^/httperf:  /'
