#!/bin/bash
# faults-vm.sh: the fault tests that need kernel SCTP, netem or veth, in the VM (test/vm/run):
# associations aborted by the peer (SO_LINGER 0 close), 10 000 half-open associations (raw INITs
# never completed), 1 000 idle associations of 100 streams, 10 % loss by netem on a veth
# pair with every body verified, TCP and kernel SCTP, and a multihomed association whose
# primary path fails during a transfer (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/common.sh"
S=${HTTPD_STREAMS:-$top_builddir/test/unit/test_httpd_streams}
need "$H" "$G" "$LD" "$S"
if [ -z "${SCTPAPPS_VM:-}" ] && ! "$top_srcdir/test/vm/have-sctp" --netem 2>/dev/null; then
	result_reset
	out=$(mktemp -d /tmp/faults-vm.XXXXXX)
	chmod 777 "$out"
	RELIABILITY_OUT=$out run_tap "$top_srcdir/test/vm/run" --timeout 500 --out "$out" "$0"
	cat "$out"/*.txt 2>/dev/null | while IFS=$'\t' read -r k v; do result "$k" "$v"; done
	rm -rf "$out"
	done_testing
	exit
fi
py=/usr/bin/python3
scratch faults-vm
[ -n "${SCTPAPPS_VM:-}" ] || result_reset
ip link set lo mtu 1500
tp=8080
doc=$tmp/doc
mkdir -p "$doc"
head -c 5000000 /dev/urandom >"$doc/big.bin"
head -c 100000 /dev/urandom >"$doc/100k.bin"
head -c 1024 /dev/urandom >"$doc/1k.bin"
$py - "$doc" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY
nofile() { ulimit -n 8192; exec "$@"; } # nofile CMD...: CMD with 8192 descriptors
daemon_start main '^sctphttpd: listening' nofile "$H" -L sctp:127.0.0.1:$tp -d "$doc" --idle-timeout 600 -l "$tmp/access.log"
ok $? "sctphttpd on kernel SCTP 127.0.0.1:$tp"
main=$daemon_pid

fetch_ok() {
	rm -f "$tmp/got"
	timeout 60 "$G" -s -m 20 --proto sctp "$@" -o "$tmp/got" >/dev/null 2>"$tmp/g.err" &&
	    cmp -s "$tmp/got" "$doc/big.bin"
}
fd0=$(nfds $main)
aborted=0
for i in $(seq 1 10); do
	timeout 30 $py "$here/abort_kernel.py" 127.0.0.1 $tp /big.bin 4 200000 >>"$tmp/ab.out" 2>&1 &&
	    aborted=$((aborted + 1))
done
for i in $(seq 1 50); do [ "$(nfds $main)" -le "$fd0" ] && break; sleep 0.1; done
fd1=$(nfds $main)
[ $aborted = 10 ] && [ "$fd1" -le "$fd0" ] && kill -0 $main
ok $? "kernel SCTP: 10 associations aborted mid-body (4 streams, SO_LINGER 0): fds $fd0 before, $fd1 after"
[ $aborted = 10 ] || tail -n 3 "$tmp/ab.out" | sed 's/^/#   /'
fetch_ok http://127.0.0.1:$tp/big.bin
ok $? "kernel SCTP: then 5 MB served intact"
result kernel-abort "10 associations ABORTed mid-body (40 streams): fds $fd0 -> $fd1, served after"

new_client() { # latency of a new client's 1 KB fetch in $lat
	local t0 t1 rc
	t0=$(date +%s.%N)
	timeout 30 "$G" -s -m 20 --proto sctp -o "$tmp/1k" http://127.0.0.1:$tp/1k.bin 2>/dev/null
	rc=$?
	t1=$(date +%s.%N)
	lat=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
	[ $rc = 0 ] && cmp -s "$tmp/1k" "$doc/1k.bin"
}
new_client
ok $? "a new client alone: $lat s"
base=$lat
$py "$here/initflood.py" raw 127.0.0.1 $tp 10000 >"$tmp/flood" 2>&1 &
flood=$!
served=0 worst=0
for i in 1 2 3; do
	new_client && served=$((served + 1))
	worst=$(echo "$worst $lat" | awk '{ print ($2 > $1) ? $2 : $1 }')
done
wait $flood
new_client
rc=$?
grep -q '^sent 10000 INITs' "$tmp/flood" && [ $served = 3 ] && [ $rc = 0 ] && awk "BEGIN { exit !($worst < 10) }"
ok $? "10000 half-open associations ($(cat "$tmp/flood")): 3 of 3 new clients served during them (worst $worst s, alone $base s), after in $lat s"
result kernel-half-open "10000 raw INITs never completed ($(sed 's/.*, //' "$tmp/flood")): 3/3 new clients served, worst $worst s (alone $base s)"

(ulimit -n 4096; exec timeout 300 "$S" --idle 1000 --streams 100 --timeout 200 sctp 127.0.0.1:$tp) \
    >"$tmp/idle" 2>&1 &
idle=$!
pids="$pids $idle"
t0=$(date +%s)
for i in $(seq 1 200); do
	grep -q '^open' "$tmp/idle" && break
	kill -0 $idle 2>/dev/null || break
	sleep 1
done
n=$(nfds $main)
new_client
rc=$?
grep -q '^open 1000$' "$tmp/idle" && [ $rc = 0 ] && [ "$n" -ge 1000 ] && awk "BEGIN { exit !($lat < 10) }"
ok $? "1000 idle kernel SCTP associations x 100 streams ($(($(date +%s) - t0)) s to open, server $n fds): a new client served in $lat s"
grep -v '^open' "$tmp/idle" | head -n 3 | sed 's/^/# /'
result kernel-idle "1000 idle associations x 100 streams: new client served in $lat s (alone $base s), server $n fds"
kill $idle $main 2>/dev/null
wait $idle $main 2>/dev/null

# --- 10 % loss by netem on both ends of a veth pair between two namespaces ---
ip netns add rs && ip netns add rc && ip link add r-srv type veth peer name r-cli &&
    ip link set r-srv netns rs && ip link set r-cli netns rc
Sx="ip netns exec rs" Cx="ip netns exec rc"
$Sx ip addr add 10.8.0.1/24 dev r-srv && $Sx ip link set r-srv up && $Sx ip link set lo up &&
    $Cx ip addr add 10.8.0.2/24 dev r-cli && $Cx ip link set r-cli up && $Cx ip link set lo up &&
    $Sx tc qdisc add dev r-srv root netem loss 10% && $Cx tc qdisc add dev r-cli root netem loss 10%
ok $? "veth pair between two namespaces, netem loss 10 % on both ends"
$Sx "$H" -L sctp:10.8.0.1:$tp -L tcp:10.8.0.1:$tp -d "$doc" --idle-timeout $LOSS_TIMEOUT \
    >"$tmp/l.out" 2>"$tmp/l.err" &
lsrv=$!
pids="$pids $lsrv"
sleep 1
lossy() { # lossy NAME ARGS...
	LOAD_TIMEOUT=$LOSS_TIMEOUT load_verified "$1" "$Cx" 10.8.0.1 "${@:2}"
}
lossy tcp --uri /100k.bin --num-conns 5 --num-calls 10
rc=$?
[ $rc = 0 ] && [ "$replies" = 50 ] && [ "$content" = 5000000 ]
ok $? "TCP over netem 10 %: $replies of 50 x 100 KB verified, $content bytes, errors ${errors:-?}"
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/tcp.json" "$tmp/tcp.err" | head -n 5
result kernel-loss-tcp "netem 10 %: 50 x 100 KB over TCP (VM), $content bytes verified, $((5000000 - ${content:-0})) lost"
lossy sctp --proto sctp --streams 10 --uri /100k.bin --num-conns 5 --num-calls 10
rc=$?
[ $rc = 0 ] && [ "$replies" = 50 ] && [ "$content" = 5000000 ]
ok $? "kernel SCTP over netem 10 %, 10 streams: $replies of 50 x 100 KB verified, $content bytes, errors ${errors:-?}"
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/sctp.json" "$tmp/sctp.err" | head -n 5
result kernel-loss-sctp "netem 10 %: 50 x 100 KB over kernel SCTP (10 streams), $content bytes verified, $((5000000 - ${content:-0})) lost"
kill $lsrv
ip netns del rs
ip netns del rc

# --- a multihomed association loses its primary path during a transfer ---
# test/lab's two paths (10 Mbit/s direct, 11 Mbit/s through a router): the server listens on
# its address on each, the client (every address of its own in the INIT) asks for two 5 MB
# bodies over kernel SCTP; 3 s in, path 1 drops everything (nftables, both directions).
# Each end moves to path 2 on its own: the client with its association's options (RTO
# 100..400 ms, path_max_retrans 1), the server with the kernel's defaults (RTO min 1 s;
# potentially-failed state after one timeout, RFC 7829). Both bodies must come whole.
LAB_OUT=$tmp/lab
. "$top_srcdir/test/lab/lab.sh"
lab_two_paths
trap 'lab_teardown; scratch_cleanup' EXIT
lab_bg b "$H" -L "sctp:$LAB_B_IP1,$LAB_B_IP2:$tp" -d "$doc"
sleep 1
txb() { ip -n "$LAB_NS_B" -s link show "$1" | awk '/TX:/ { getline; print $1; exit }'; }
p1a=$(txb eth1) p2a=$(txb eth2)
( sleep 3; lab_block_primary on; echo "$(txb eth1) $(txb eth2)" >"$tmp/at-block" ) &
blocker=$!
t0=$(date +%s.%N)
load_verified failover "ip netns exec $LAB_NS_A" "$LAB_B_IP1,$LAB_B_IP2" --proto sctp \
    --streams 2 --uri /big.bin --num-conns 1 --num-calls 2 \
    --rto-min 100 --rto-initial 200 --rto-max 400 --path-max-retrans 1
rc=$?
secs=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
wait $blocker
read -r p1b p2b <"$tmp/at-block"
p1c=$(txb eth1) p2c=$(txb eth2)
before=$((p1b - p1a)) after=$((p2c - p2b)) stray=$((p1c - p1b))
[ $rc = 0 ] && [ "$replies" = 2 ] && [ "$content" = 10000000 ] && [ $before -gt 1000000 ] &&
    [ $after -gt 1000000 ] && [ $stray -lt 100000 ]
ok $? "multihomed kernel SCTP, path 1 blocked 3 s into 2 x 5 MB: $replies bodies, $content bytes verified in $secs s; the server sent $before bytes on path 1 before the block, $after on path 2 after it ($stray on path 1 after)"
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/failover.json" "$tmp/failover.err" | head -n 5
result kernel-failover "path 1 of 2 blocked 3 s into 2 x 5 MB over kernel SCTP: $content bytes verified, $((10000000 - ${content:-0})) lost, $secs s; server sent $before bytes on path 1 before, $after on path 2 after"
lab_teardown
done_testing
