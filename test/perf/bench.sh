#!/bin/sh
# bench.sh: msgperf against the reference tools, measured in one run on this host's loopback:
#   TCP, 128 KiB writes, one way:  msgperf vs iperf3
# Prints the figure and the ratio msgperf/peer. Usage: test/perf/bench.sh [SECONDS]
# usrsctp has no reference tool here: Debian's tsctp prints a line per packet and measures its
# own logging. test/perf/benchmarks.sh (make bench) has every figure with its spread.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-5}
mp=./msgperf
for t in iperf3 "$mp"; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench: $t not found (./run-tests sets up)" >&2; exit 1; }
done
. test/lib.sh # scratch
scratch bench

# --- TCP ---
port=$((40000 + $$ % 5000))
iperf3 -s -1 -p $port >/dev/null 2>&1 &
pids="$pids $!"
sleep 0.5
iperf3 -c 127.0.0.1 -p $port -t "$secs" -l 131072 -J >"$tmp/iperf.json"
ip_kbps=$(python3 -c 'import json,sys; print("%.0f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1000))' "$tmp/iperf.json")
mp_kbps=$($mp -q --csv -t tcp -s 131072 -T oneway -d "$secs" | awk -F, '$1=="oneway" {print $4}')

ratio() { python3 -c 'import sys; a,b=float(sys.argv[1] or 0),float(sys.argv[2] or 0); print("%.2f" % (a/b) if b else "n/a")' "$1" "$2"; }
printf '%-40s %14s %14s %7s\n' "one-way loopback throughput (kbit/s)" "msgperf" "peer" "ratio"
printf '%-40s %14s %14s %7s\n' "TCP, 131072-byte writes (vs iperf3)" "$mp_kbps" "$ip_kbps" "$(ratio "$mp_kbps" "$ip_kbps")"
