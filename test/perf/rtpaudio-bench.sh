#!/bin/sh
# rtpaudio-bench.sh: how many concurrent 192 kbit/s MP3 streams (RFC 5219 over UDP) one sender
# process, one core, can pace: `rtpaudio send --streams N` for each N, to a loopback socket
# that never reads (no receiver's work on the CPU). Per N: packets, the sender's CPU share of
# one core, how late packets left against their due time. N is "paced" when the process used
# under 90 % of a core and at most 1 % of the packets left more than 5 ms late (a tenth of
# a typical jitter buffer's margin); "a core's CPU would carry" extrapolates N to 90 % of a
# core from the CPU it used (what the process could do on an idle core; lateness on a loaded
# host is the scheduler's). Usage: test/perf/rtpaudio-bench.sh [SECONDS [N...]]
# (default 10 s; N = 100 500 1000 2000). Absolute numbers depend on the host's load.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-10}
[ $# -gt 0 ] && shift
ns=${*:-100 500 1000 2000}
R=./rtpaudio/rtpaudio
for t in "$R" sox lame python3; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench: $t not found (scripts/setup.sh)" >&2; exit 1; }
done
. test/lib.sh # scratch
scratch rtpaudio-bench
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth "$secs" sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"
port=$((41000 + $$ % 5000 * 2))
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
time.sleep(3600)' $port >/dev/null 2>&1 &
pids="$pids $!"
sleep 0.3
ulimit -n 4096 2>/dev/null || true
echo "rtpaudio send --streams N: 192 kbit/s MP3 (RFC 5219, UDP), $secs s, $(nproc) CPUs on this host"
echo "| streams | packets | packets/s | CPU (% of a core) | streams a core's CPU would carry | mean late (us) | > 1 ms | > 5 ms | > 20 ms | max late (ms) | paced |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
best=0
for n in $ns; do
	line=$("$R" send -f 3119 --streams "$n" "$tmp/a.mp3" 127.0.0.1:$port)
	v() { echo "$line" | sed -n "s/.* $1=\\([0-9.]*\\).*/\\1/p"; }
	pk=$(echo "$line" | sed -n 's/.*packets=\([0-9]*\).*/\1/p')
	paced=$(awk -v c="$(v cpu_pct)" -v l="$(v late_over_5000us_pct)" 'BEGIN { print (c < 90 && l <= 1) ? "yes" : "no" }')
	[ "$paced" = yes ] && best=$n
	printf '| %s | %s | %.0f | %s | %s | %s | %s %% | %s %% | %s %% | %s | %s |\n' "$n" "$pk" \
		"$(awk -v p="$pk" -v w="$(v wall_s)" 'BEGIN { print p / w }')" "$(v cpu_pct)" \
		"$(awk -v n="$n" -v c="$(v cpu_pct)" 'BEGIN { printf "%.0f", (c > 0 ? n * 90 / c : 0) }')" \
		"$(v late_mean_us)" "$(v late_over_1000us_pct)" "$(v late_over_5000us_pct)" \
		"$(v late_over_20000us_pct)" "$(v late_max_ms)" "$paced"
done
echo "largest N paced by one process: $best (target: 1000 or more)"
