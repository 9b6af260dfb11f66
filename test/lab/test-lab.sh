#!/bin/bash
# test/lab/test-lab.sh: the lab's topologies do what lab.sh says (TAP). Needs root, netns, netem,
# nftables: run it through test/integration/lab.sh (natively or in the VM).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
LAB_OUT=$(mktemp -d /tmp/test-lab.XXXXXX)
. "$here/lab.sh"

# ping_stats HOST-FN DST COUNT INTERVAL: "LOSS_PCT MIN_RTT_MS" from ping's summary (the
# minimum: an emulated CPU on a loaded host only ever adds to a round trip)
ping_stats() {
	"$1" ping -q -n -c "$3" -i "$4" -W 2 "$2" 2>&1 |
		awk '/packet loss/ { for (i = 1; i <= NF; i++) if ($i ~ /%$/) l = $i + 0 }
		     /rtt|round-trip/ { split($4, v, "/"); r = v[1] }
		     END { printf "%s %s\n", l == "" ? 100 : l, r == "" ? "-" : r }'
}
in_range() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "-" && x >= lo && x <= hi) }'; }

# --- two hosts, one link ---
lab_two_hosts 100mbit 20 0
ok $? "lab_two_hosts 100mbit 20 ms 0 %"
lab_a ip -4 -o addr show dev eth0 | grep -q "inet $LAB_A_IP/"
ok $? "host a has $LAB_A_IP on eth0"
read -r loss rtt <<<"$(ping_stats lab_a "$LAB_B_IP" 10 0.2)"
diag "ping a -> b: loss $loss %, rtt $rtt ms (set: 2 x 20 ms)"
in_range "$rtt" 39.5 70
ok $? "RTT by ping is twice the one-way delay ($rtt ms, expected 40)"
[ "$loss" = 0 ]
ok $? "no loss on a lossless link ($loss %)"
lab_b ping -q -n -c 3 -i 0.2 -W 2 "$LAB_A_IP" >/dev/null
ok $? "b reaches a"

lab_link 0 1 10
ok $? "lab_link 0 1 ms 10 % changes the link in place"
read -r loss rtt <<<"$(ping_stats lab_a "$LAB_B_IP" 400 0.01)"
diag "ping a -> b, 400 probes: loss $loss % (10 % each way: expected 19 %), rtt $rtt ms"
in_range "$loss" 11 28
ok $? "round-trip loss is roughly 1 - 0.9^2 ($loss %, expected 19 %)"
in_range "$rtt" 1.9 30
ok $? "RTT follows the new delay ($rtt ms, expected 2)"

# (10 Mbit/s, not 20: with offloads off, as netem needs them, TCP in the VM moves a seventh of
# what it did with 64 KiB superpackets: 21 against 141 Mbit/s side by side at load 25)
lab_link 10mbit 1 0
mbit=$(lab_unshaped_mbit)
ok $? "lab_unshaped_mbit measures ($mbit Mbit/s)"
in_range "$mbit" 20 1000000
ok $? "unshaped rate is well above a 10 Mbit/s link ($mbit Mbit/s)"
port=$((20000 + RANDOM % 20000))
lab_bg b iperf3 -s -1 -p "$port" >/dev/null 2>&1
sleep 0.5
shaped=$(lab_a iperf3 -c "$LAB_B_IP" -p "$port" -t 2 -f m 2>&1 |
	awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i+1) == "Mbits/sec") v = $i } END { print v }')
in_range "${shaped:-0}" 7 10.5
ok $? "after it the link is shaped again (${shaped:-none} Mbit/s at 10mbit)"

# offloads off (issue 31): netem on the sending end saw wire-sized packets during the iperf3
# runs above (no 64 KiB GSO superpackets, whose loss netem would draw once), and both ends say so
read -r npk nby < <(lab_a tc -s qdisc show dev eth0 | awk '/Sent/ { print $4, $2; exit }')
awk -v p="${npk:-0}" -v b="${nby:-0}" 'BEGIN { exit !(p > 100 && b / p <= 1514) }'
ok $? "netem on a's eth0: $npk packets, $(awk -v p="${npk:-0}" -v b="${nby:-0}" 'BEGIN { printf "%.0f", p ? b / p : 0 }') bytes a packet after bulk TCP (<= 1514: offloads off)"
# (gso_max_size the MTU too: kernel SCTP sizes its GSO packets by it, not by gso_max_segs)
offl() { # offl NS-RUNNER: 0 when the device says gso_max_segs 1, gso_max_size 1500, gro_max_size 0
	"$1" ip -d link show dev eth0 | tr ' ' '\n' | awk '$0 == "gso_max_segs" { getline; s = $0 }
		$0 == "gso_max_size" { getline; z = $0 } $0 == "gro_max_size" { getline; g = $0 }
		END { exit !(s == 1 && z == 1500 && g == 0) }'
}
offl lab_a && offl lab_b
ok $? "both ends: gso_max_segs 1, gso_max_size 1500 (the MTU), gro_max_size 0" || lab_a ip -d link show dev eth0 | sed 's/^/# /'
lab_record
grep -q '^offloads: gso_max_segs 1, gso_max_size 1500, gro_max_size 0' "$LAB_OUT/params.txt"
ok $? "params.txt records the offloads ($(sed -n 's/^offloads: //p' "$LAB_OUT/params.txt"))"
grep -q "^kernel: $(uname -r)" "$LAB_OUT/params.txt" && grep -q '^topology: two_hosts' "$LAB_OUT/params.txt" &&
	grep -q 'rate=10mbit' "$LAB_OUT/params.txt" && grep -q '^usrsctp: ' "$LAB_OUT/params.txt"
ok $? "lab_record writes params.txt (topology, parameters, kernel, versions)"
sed 's/^/# params.txt: /' "$LAB_OUT/params.txt"
ns=$LAB_NS_A
lab_teardown
! ip netns list | grep -q "^$ns"
ok $? "lab_teardown removes the namespaces"

# --- two paths ---
lab_two_paths
ok $? "lab_two_paths"
read -r loss1 rtt1 <<<"$(ping_stats lab_a "$LAB_B_IP1" 10 0.1)"
read -r loss2 rtt2 <<<"$(ping_stats lab_a "$LAB_B_IP2" 10 0.1)"
diag "path 1: loss $loss1 % rtt $rtt1 ms (set 0.36); path 2: loss $loss2 % rtt $rtt2 ms (set 3.74)"
[ "$loss1" = 0 ] && [ "$loss2" = 0 ]
ok $? "both paths reachable (loss $loss1 %, $loss2 %)"
in_range "$rtt2" 3.7 40 && awk -v a="$rtt1" -v b="$rtt2" 'BEGIN { exit !(a < b) }'
ok $? "path 2 (via the router) is the slower one ($rtt1 ms < $rtt2 ms, >= 3.74)"
lab_a ip route get "$LAB_B_IP2" | grep -q "via 10.10.2.2 dev eth2 src $LAB_A_IP2"
ok $? "a reaches b's path-2 address through the router, from its own path-2 address"
lab_b ip route get "$LAB_A_IP2" | grep -q "via 10.10.3.1 dev eth2 src $LAB_B_IP2"
ok $? "and b back the same way (no asymmetric routing)"

lab_block_primary on
ok $? "lab_block_primary on"
read -r loss1 rtt1 <<<"$(ping_stats lab_a "$LAB_B_IP1" 3 0.2)"
read -r loss2 rtt2 <<<"$(ping_stats lab_a "$LAB_B_IP2" 3 0.2)"
[ "$loss1" = 100 ] && [ "$loss2" = 0 ]
ok $? "blocked: path 1 drops everything ($loss1 %), path 2 still works ($loss2 %)"
lab_block_primary off
read -r loss1 rtt1 <<<"$(ping_stats lab_a "$LAB_B_IP1" 3 0.2)"
[ "$loss1" = 0 ]
ok $? "lab_block_primary off: path 1 is back ($loss1 %)"

lab_flap 1
sleep 2.5
read -r loss1 rtt1 <<<"$(ping_stats lab_a "$LAB_B_IP1" 20 0.1)"
kill "$LAB_FLAP_PID"
wait "$LAB_FLAP_PID" 2>/dev/null
diag "flap.log: $(tr '\n' ';' <"$LAB_OUT/flap.log")"
[ "$(wc -l <"$LAB_OUT/flap.log")" -ge 3 ] && head -1 "$LAB_OUT/flap.log" | grep -q ' up$' &&
	sed -n 2p "$LAB_OUT/flap.log" | grep -q ' blocked$'
ok $? "lab_flap 1 logs up, blocked, up... with times"
in_range "$loss1" 5 95
ok $? "while flapping, path 1 loses part of a 2 s ping ($loss1 %)"
lab_teardown
rm -rf "$LAB_OUT"
done_testing
