#!/bin/bash
# test/vm/selftest.sh: run inside the VM (test/vm/run test/vm/selftest.sh): checks that kernel
# SCTP, netem, veth + network namespaces, module autoloading and nftables work, and that $VM_OUT
# reaches the host. Prints "selftest ok" and exits 0 when everything works.
set -euo pipefail

fails=0
pass() { echo "ok - $*"; }
fail() { echo "FAIL - $*"; fails=$((fails + 1)); }
skip() { echo "skip - $*"; }

# the real interpreter, not a pyenv/venv shim (shims are slow under TCG and may point elsewhere)
py=
for c in /usr/bin/python3 "$(command -v python3 || true)"; do
	[ -n "$c" ] && [ -x "$c" ] && { py=$c; break; }
done
pinger=(ping)
command -v ping >/dev/null 2>&1 || pinger=(busybox ping)

echo "kernel $(uname -r), $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
[ "$(id -u)" = 0 ] && pass "running as root" || fail "not root"
[ "${SCTPAPPS_VM:-}" = 1 ] && pass "SCTPAPPS_VM=1" || fail "SCTPAPPS_VM not set"

for m in sctp sch_netem veth nf_tables; do
	grep -q "^$m " /proc/modules && pass "module $m loaded" || fail "module $m not loaded"
done

# --- SCTP one-to-one echo on 127.0.0.1 (and over veth below) ---------------------------------
sctp_echo_py='
import socket, sys, threading
mode, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
def serve(ls):
    c, _ = ls.accept()
    while True:
        d = c.recv(65536)
        if not d: break
        c.sendall(d)
    c.close()
if mode in ("server", "both"):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_SCTP)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port)); ls.listen(1)
    if mode == "server":
        print("listening", flush=True); serve(ls); sys.exit(0)
    threading.Thread(target=serve, args=(ls,), daemon=True).start()
if mode in ("client", "both"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_SCTP)
    s.settimeout(10)
    s.connect((addr, port))
    msg = b"sctpapps-vm-echo " * 1000
    s.sendall(msg)
    got = b""
    while len(got) < len(msg):
        d = s.recv(65536)
        if not d: break
        got += d
    s.close()
    sys.exit(0 if got == msg else 1)
'
if [ -n "$py" ]; then
	if timeout 30 "$py" -c "$sctp_echo_py" both 127.0.0.1 36412; then
		pass "SCTP one-to-one echo on 127.0.0.1 (python3, IPPROTO_SCTP)"
	else
		fail "SCTP echo on 127.0.0.1"
	fi
elif command -v sctp_test >/dev/null 2>&1; then
	sctp_test -H 127.0.0.1 -P 36412 -l >/tmp/sctp_test.srv 2>&1 &
	srv=$!
	sleep 0.5
	if timeout 30 sctp_test -H 127.0.0.1 -P 36413 -h 127.0.0.1 -p 36412 -s -c 1 -x 1 >/tmp/sctp_test.cli 2>&1; then
		pass "SCTP send on 127.0.0.1 (sctp_test)"
	else
		cat /tmp/sctp_test.cli
		fail "SCTP send on 127.0.0.1 (sctp_test)"
	fi
	kill $srv 2>/dev/null || true
else
	fail "neither python3 nor sctp_test available for the SCTP check"
fi
[ -e /proc/net/sctp/assocs ] && pass "/proc/net/sctp present" || fail "/proc/net/sctp missing"

# --- netem on lo in a namespace ----------------------------------------------------------------
ip netns add st-netem
ip -n st-netem link set lo up
if ip netns exec st-netem tc qdisc add dev lo root netem delay 10ms; then
	out=$(ip netns exec st-netem "${pinger[@]}" -c 3 -i 0.2 127.0.0.1 2>&1 || true)
	avg=$(printf '%s\n' "$out" | sed -n -E 's|.*= [0-9.]+/([0-9.]+)/.*|\1|p')
	if [ -n "$avg" ] && awk -v a="$avg" 'BEGIN { exit !(a >= 19 && a < 200) }'; then
		pass "netem delay 10ms on lo: ping avg rtt ${avg} ms"
	else
		printf '%s\n' "$out"
		fail "netem: ping avg rtt '${avg}' not ~20 ms"
	fi
else
	fail "tc qdisc add dev lo root netem"
fi
# module autoload through the kernel's request_module (sch_tbf is not preloaded)
if ip netns exec st-netem tc qdisc replace dev lo root tbf rate 10mbit burst 32kbit latency 50ms; then
	pass "module autoload (tc qdisc tbf -> sch_tbf)"
else
	fail "module autoload (tc qdisc tbf)"
fi
ip netns del st-netem

# --- veth between two namespaces, SCTP across it -----------------------------------------------
ip netns add st-a
ip netns add st-b
if ip link add st-va netns st-a type veth peer name st-vb netns st-b; then
	ip -n st-a addr add 10.99.0.1/24 dev st-va
	ip -n st-b addr add 10.99.0.2/24 dev st-vb
	for n in st-a st-b; do ip -n $n link set lo up; done
	ip -n st-a link set st-va up
	ip -n st-b link set st-vb up
	if ip netns exec st-a "${pinger[@]}" -c 1 -W 5 10.99.0.2 >/dev/null 2>&1; then
		pass "veth + netns: ping 10.99.0.1 -> 10.99.0.2"
	else
		fail "veth + netns: ping"
	fi
	if [ -n "$py" ]; then
		ip netns exec st-b "$py" -c "$sctp_echo_py" server 10.99.0.2 36412 >/tmp/st-srv.log 2>&1 &
		srv=$!
		for _ in $(seq 50); do grep -q listening /tmp/st-srv.log 2>/dev/null && break; sleep 0.1; done
		if timeout 30 ip netns exec st-a "$py" -c "$sctp_echo_py" client 10.99.0.2 36412; then
			pass "SCTP echo across veth between namespaces"
		else
			fail "SCTP echo across veth"
		fi
		wait $srv 2>/dev/null || true
	fi
else
	fail "ip link add type veth"
fi
ip netns del st-a
ip netns del st-b

# --- nftables --------------------------------------------------------------------------------
if command -v nft >/dev/null 2>&1; then
	ip netns add st-nft
	if ip netns exec st-nft nft -f - <<'EOF'
table inet selftest {
	chain out {
		type filter hook output priority 0; policy accept;
		meta l4proto sctp numgen random mod 100 < 10 counter drop
	}
}
EOF
	then
		pass "nftables: table with an sctp numgen drop rule"
	else
		fail "nftables ruleset"
	fi
	ip netns del st-nft
else
	skip "nft not installed on the host (apt-get install nftables)"
fi

# --- VM_OUT ----------------------------------------------------------------------------------
if [ -n "${VM_OUT:-}" ] && echo "written in the VM" >"$VM_OUT/selftest.txt"; then
	pass "wrote \$VM_OUT/selftest.txt ($VM_OUT)"
else
	fail "cannot write to \$VM_OUT"
fi

if [ $fails -ne 0 ]; then
	echo "selftest FAILED ($fails)"
	exit 1
fi
echo "selftest ok"
