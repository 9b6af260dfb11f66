#!/bin/sh
# bench.sh: msgperf against the reference tools, measured in one run on this host's loopback:
#   TCP, 128 KiB writes, one way:  msgperf vs iperf3
#   usrsctp, 10000-byte messages, one way: msgperf vs usrsctp's tsctp
# Prints each figure and the ratio msgperf/peer. Usage: test/perf/bench.sh [SECONDS]
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-5}
mp=./msgperf
tsctp=/usr/lib/usrsctp/tsctp
for t in iperf3 "$tsctp" "$mp"; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench: $t not found (./run-tests sets up)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

# --- TCP ---
port=$((40000 + $$ % 5000))
iperf3 -s -1 -p $port >/dev/null 2>&1 &
sleep 0.5
iperf3 -c 127.0.0.1 -p $port -t "$secs" -l 131072 -J >"$tmp/iperf.json"
ip_kbps=$(python3 -c 'import json,sys; print("%.0f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1000))' "$tmp/iperf.json")
mp_kbps=$($mp -q --csv -t tcp -s 131072 -T oneway -d "$secs" | awk -F, '$1=="oneway" {print $4}')

# --- usrsctp ---
sport=$((45000 + $$ % 5000))
$tsctp -E 9899 -p $sport >"$tmp/tsctp.out" 2>/dev/null &
tpid=$!
sleep 0.5
$tsctp -E 9900 -U 9899 -p $sport -l 10000 -T "$secs" 127.0.0.1 >/dev/null 2>&1 || true
sleep 1
kill $tpid 2>/dev/null || true
# The receiver's summary line: length, messages, ..., bytes, seconds, bytes/s, ...
ts_kbps=$(awk -F', ' 'NF >= 6 && $1 == 10000 {printf "%.0f\n", $6 * 8 / 1000}' "$tmp/tsctp.out" | tail -1)
mu_kbps=$($mp -q --csv -t usrsctp -s 10000 -T oneway -d "$secs" | awk -F, '$1=="oneway" {print $4}')

ratio() { python3 -c 'import sys; a,b=float(sys.argv[1] or 0),float(sys.argv[2] or 0); print("%.2f" % (a/b) if b else "n/a")' "$1" "$2"; }
printf '%-40s %14s %14s %7s\n' "one-way loopback throughput (kbit/s)" "msgperf" "peer" "ratio"
printf '%-40s %14s %14s %7s\n' "TCP, 131072-byte writes (vs iperf3)" "$mp_kbps" "$ip_kbps" "$(ratio "$mp_kbps" "$ip_kbps")"
printf '%-40s %14s %14s %7s\n' "usrsctp, 10000-byte messages (vs tsctp)" "${mu_kbps:-fail}" "${ts_kbps:-fail}" "$(ratio "${mu_kbps:-0}" "${ts_kbps:-0}")"
