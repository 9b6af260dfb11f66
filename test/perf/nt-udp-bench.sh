#!/bin/bash
# test/perf/nt-udp-bench.sh: usrsctp-nt one way at SIZE bytes (msgperf, server and client
# processes) beside its anchor, raw UDP on the same loopback (iperf3 -u, one 1452-byte datagram
# per sendto, as many as it can: the receiver's rate), interleaved RUNS times, nt three ways:
# "plain" (SCTPAPPS_USRSCTP_GSO=0 SCTPAPPS_USRSCTP_GRO=0: sendmmsg and recvmmsg batches only),
# "default" (batches, UDP GRO on receive where the kernel has it) and "gso" (GSO on send as well,
# SCTPAPPS_USRSCTP_GSO=1); prints each run, the medians, the ratios nt/UDP and the UDP counters
# (RcvbufErrors) it cost. Says which libusrsctp the programs loaded (USRSCTP_LIBDIR=DIR: that
# one, e.g. scripts/usrsctp-release.sh). Issue 35's targets: default >= 0.8, gso >= 1.5.
# usage: test/perf/nt-udp-bench.sh [RUNS (3)] [SECONDS (3)] [SIZE (16384)]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/../.." && pwd)}
M=${MSGPERF:-$top/msgperf}
runs=${1:-3} secs=${2:-3} size=${3:-16384}
for t in "$M" iperf3 python3; do
	command -v "$t" >/dev/null || { echo "nt-udp-bench: $t missing" >&2; exit 1; }
done
[ -n "${USRSCTP_LIBDIR:-}" ] && export LD_LIBRARY_PATH=$USRSCTP_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
lib=$(ldd "$M" | sed -n 's/.*libusrsctp[^ ]* => \([^ ]*\).*/\1/p')
echo "# libusrsctp: ${lib:-none} ($(case ${USRSCTP_LIBDIR:-} in '') echo "the system's (Debian: -O0)" ;; *) echo "USRSCTP_LIBDIR" ;; esac))"
echo "# host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
rcvbuf_errors() { awk '/^Udp:/ { n++; if (n == 1) for (i = 1; i <= NF; i++) h[i] = $i
	else for (i = 1; i <= NF; i++) if (h[i] == "RcvbufErrors") print $i }' /proc/net/snmp; }
base=$((40000 + RANDOM % 1000 * 8))
udp() { # kbit/s received
	timeout $((secs + 15)) iperf3 -s -1 -p $((base + 5)) >/dev/null 2>&1 &
	local s=$!
	sleep 0.5
	timeout $((secs + 10)) iperf3 -c 127.0.0.1 -p $((base + 5)) -u -b 0 -l 1452 -t "$secs" -J 2>/dev/null |
	    python3 -c 'import json, sys
try:
    e = json.load(sys.stdin)["end"]["sum"]
    print("%.0f" % (e["bits_per_second"] * (1 - e["lost_percent"] / 100) / 1000))
except (ValueError, KeyError):
    pass'
	wait $s 2>/dev/null
}
nt() { # GSO GRO: kbit/s received
	SCTPAPPS_USRSCTP_GSO=$1 SCTPAPPS_USRSCTP_GRO=$2 "$M" server -q -t usrsctp-nt -a 127.0.0.1:$((base + 6)) --udp-port $base --udp-remote-port $((base + 1)) &
	local s=$!
	sleep 0.3
	SCTPAPPS_USRSCTP_GSO=$1 SCTPAPPS_USRSCTP_GRO=$2 timeout $((secs + 30)) "$M" client -q --csv -t usrsctp-nt -a 127.0.0.1:$((base + 6)) -s "$size" \
	    -T oneway -d "$secs" --udp-port $((base + 1)) --udp-remote-port $base |
	    awk -F, '$1 == "oneway" { printf "%.0f\n", $4 }'
	kill $s 2>/dev/null
	wait $s 2>/dev/null
}
e0=$(rcvbuf_errors)
: >/tmp/nt-udp-bench.$$
for i in $(seq 1 "$runs"); do
	u=$(udp) p=$(nt 0 0) n=$(nt 0 1) g=$(nt 1 1)
	echo "run $i: udp ${u:-none} kbit/s; usrsctp-nt $size B plain ${p:-none}, default ${n:-none}, gso ${g:-none} kbit/s"
	echo "${u:-0} ${p:-0} ${n:-0} ${g:-0}" >>/tmp/nt-udp-bench.$$
done
e1=$(rcvbuf_errors)
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { awk -v c="$1" '{ print $c }' /tmp/nt-udp-bench.$$ | med; }
mu=$(col 1) mp=$(col 2) mn=$(col 3) mg=$(col 4)
rm -f /tmp/nt-udp-bench.$$
ratio() { awk -v a="$1" -v b="$mu" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
echo "median: udp $mu kbit/s; usrsctp-nt plain $mp, default $mn, gso $mg kbit/s"
echo "nt/udp: plain $(ratio "$mp"), default $(ratio "$mn") (target 0.8), gso $(ratio "$mg") (target 1.5)"
echo "RcvbufErrors during the runs: $((e1 - e0)) (iperf3's own UDP overruns count here too)"
