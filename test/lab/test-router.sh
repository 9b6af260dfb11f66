#!/bin/bash
# test/lab/test-router.sh: lab v2's router (test/lab/router.sh) does what test/lab/README.md says
# (TAP; run by test/integration/router.sh on the host, as root): the two namespaces reach each
# other through the VM with the delay set; a lossy TCP transfer passes the fidelity checks
# (test/lab/fidelity.py: one netem packet per wire packet, netem's drops within the binomial
# 99 % interval); the same with guest GRO left on (a planted fault) fails the loss check; bad
# settings are refused; down, and an owner killed with SIGKILL, leave no namespace, TAP or qemu.
. "$(dirname "$0")/../lib.sh"
R=$top_srcdir/test/lab/router.sh
F=$top_srcdir/test/lab/fidelity.py
need iperf3 ping qemu-system-x86_64
[ "$(id -u)" = 0 ] || { ok 1 "needs root (network namespaces, TAPs)"; done_testing; exit; }
scratch router
owner_pid=
cleanup_router() {
	[ -z "$owner_pid" ] || kill -9 "$owner_pid" 2>/dev/null
	for d in "$tmp"/r*; do [ -f "$d/env" ] && "$R" down "$d" >/dev/null 2>&1; done
	scratch_cleanup
}
trap cleanup_router EXIT

# gone DIR: nothing of that router is left (namespaces, TAPs, qemu)
gone() {
	local NS_C NS_S TAP_C TAP_S q
	. "$1/names"
	q=$(cat "$1/qemu.pid.seen" 2>/dev/null)
	[ ! -e "/run/netns/$NS_C" ] && [ ! -e "/run/netns/$NS_S" ] &&
		[ ! -e "/sys/class/net/$TAP_C" ] && [ ! -e "/sys/class/net/$TAP_S" ] &&
		{ [ -z "$q" ] || [ "$(cat "/proc/$q/comm" 2>/dev/null)" != qemu-system-x86 ]; }
}

# transfer DIR LOSS BYTES: stats, an iperf3 TCP transfer client -> server, stats; fidelity's
# verdict in $tmp/fid.out, its status returned
transfer() {
	local d=$1
	. "$d/env"
	ip netns exec "$ROUTER_NS_S" iperf3 -s -1 -D -I "$d/iperf.pid" >/dev/null 2>&1
	wait_bound -n "$ROUTER_NS_S" 5201
	"$R" stats "$d" >"$d/before" 2>&1
	ip netns exec "$ROUTER_NS_C" iperf3 -c "$ROUTER_IP_S" -n "$3" >"$d/iperf.out" 2>&1 ||
		diag "iperf3: $(tail -n 3 "$d/iperf.out")"
	sleep 0.2 # netem's delay line drains
	"$R" stats "$d" >"$d/after" 2>&1
	"$F" "$d/before" "$d/after" --loss "$2" >"$tmp/fid.out" 2>&1
}

# --- a VM that cannot boot: up fails and leaves nothing ---
SCTPAPPS_VM_MACHINE=bogus "$R" up "$tmp/rf" --owner $$ >"$tmp/upf.out" 2>&1
[ $? -ne 0 ] && grep -q 'failed to boot' "$tmp/upf.out" && gone "$tmp/rf"
ok $? "a router VM that cannot boot: up fails, says why, leaves no namespace, TAP or qemu" ||
	sed 's/^/# /' "$tmp/upf.out"

# --- two routers at once: r2 (guest GRO left on, a planted fault; owned by a process killed
# with SIGKILL at the end) boots while r1 is tested ---
owner_pid=$(sh -c 'sleep 1000 </dev/null >/dev/null 2>&1 & echo $!')
ROUTER_PLANT_GRO=on "$R" up "$tmp/r2" --owner "$owner_pid" >"$tmp/up2bg.out" 2>&1 &
up2_pid=$!

# --- a router, the link set, the delay seen ---
d=$tmp/r1
"$R" up "$d" --owner $$ >"$tmp/up.out" 2>&1
ok $? "router.sh up: VM booted, namespaces on its TAPs (${SECONDS}s)" || sed 's/^/# /' "$tmp/up.out" "$d/vm.log"
. "$d/env"
cp "$d/qemu.pid" "$d/qemu.pid.seen" 2>/dev/null
"$R" up "$d" --owner $$ >"$tmp/up2.out" 2>&1
[ $? -ne 0 ] && grep -q 'already holds a router' "$tmp/up2.out"
ok $? "a second up on the same directory is refused, named"
[ "$ROUTER_CC" = cubic ] && ip -n "$ROUTER_NS_C" route show 10.77.0.0/24 | grep -q 'congctl cubic'
ok $? "TCP congestion control cubic on the namespaces' route (host default: $(cat /proc/sys/net/ipv4/tcp_congestion_control))"
"$R" set "$d" --delay 10 --loss 1 >"$tmp/set.out" 2>&1
ok $? "set --delay 10 --loss 1 (both directions)" || sed 's/^/# /' "$tmp/set.out"
rtt=$(ip netns exec "$ROUTER_NS_C" ping -c 5 -i 0.2 -q "$ROUTER_IP_S" | sed -n 's|.*= \([0-9.]*\)/.*|\1|p')
awk -v r="$rtt" 'BEGIN { exit !(r >= 20 && r < 40) }'
ok $? "ping's minimum RTT $rtt ms: 2 x 10 ms and the router's own (20..40)"

for bad in "--loss 100" "--loss -1" "--rate 10xbit" "--rate 0mbit" "--delay ten" "--limit 3pdb" "--ge-burst 0.5 --loss 1" "--bogus 1"; do
	# shellcheck disable=SC2086
	"$R" set "$d" $bad >"$tmp/bad.out" 2>&1
	[ $? -ne 0 ] && grep -q '^router.sh: ' "$tmp/bad.out"
	ok $? "set $bad: refused with a message ($(head -n1 "$tmp/bad.out"))"
done

# --- fidelity of a lossy transfer (and r2, up by now, sees none of it) ---
wait "$up2_pid"
up2=$?
[ -f "$tmp/r2/env" ] && "$R" stats "$tmp/r2" >"$tmp/r2.before" 2>&1
transfer "$d" 1 4M
ok $? "(${SECONDS}s) TCP through 1 % loss: one netem packet per wire packet, drops within the 99 % interval" ||
	sed 's/^/# /' "$tmp/fid.out" "$d/after"
grep '^# fidelity' "$tmp/fid.out" | sed 's/^/# /'

[ -f "$tmp/r2/env" ] && "$R" stats "$tmp/r2" >"$tmp/r2.after" 2>&1
inp() { awk '$1 == "c2s" || $1 == "s2c" { sub(/in_pkts=/, "", $2); s += $2 } END { print s + 0 }' "$1" 2>/dev/null; }
i0=$(inp "$tmp/r2.before") i1=$(inp "$tmp/r2.after")
grep -q '^c2s in_pkts=' "$tmp/r2.after" 2>/dev/null && [ $((i1 - i0)) -le 10 ]
ok $? "a second router running at once saw none of the first one's transfer ($((i1 - i0)) packets)"
"$R" down "$d" >"$tmp/down.out" 2>&1
ok $? "router.sh down (${SECONDS}s)" || sed 's/^/# /' "$tmp/down.out"
gone "$d"
ok $? "after down: no namespace, TAP or qemu left"

# --- planted fault: guest GRO left on; owner killed ---
d=$tmp/r2
[ $up2 = 0 ]
ok $? "router.sh up with guest GRO left on (planted), booted beside the first" || sed 's/^/# /' "$tmp/up2bg.out" "$d/vm.log"
cp "$d/qemu.pid" "$d/qemu.pid.seen" 2>/dev/null
"$R" set "$d" --delay 10 --loss 1 >/dev/null 2>&1
transfer "$d" 1 4M
[ $? = 1 ] && grep -q '^not ok - c2s loss' "$tmp/fid.out"
ok $? "guest GRO on: the c2s loss check fails (netem draws once per superpacket)" ||
	sed 's/^/# /' "$tmp/fid.out"
grep -E '^# fidelity dir=c2s|GRO off' "$tmp/fid.out" | sed 's/^/# /'
kill -9 "$owner_pid"
owner_pid=
for i in $(seq 1 100); do gone "$d" && break; sleep 0.1; done
gone "$d"
ok $? "its owner killed with SIGKILL: the router went by itself (namespaces, TAPs, qemu)"
done_testing
