#!/bin/bash
# test/lab/router.sh: lab v2's router. A TCG VM (test/vm/run) with two virtio-net NICs on host
# TAPs (vnet_hdr off) bridges a client network namespace and a server one on the host; netem and
# tbf in the VM hold the link per direction (delay, jitter, loss random or Gilbert-Elliott, rate,
# queue limit), guest GRO off. The endpoints run natively in the two namespaces. See
# test/lab/README.md ("Lab v2").
#   router.sh up DIR [--timeout SEC] [--owner PID] [--cc ALGO]   start; DIR/env names it all
#   router.sh set DIR [c2s|s2c|both] [--delay MS] [--jitter MS] [--loss PCT] [--ge-burst N]
#                     [--rate RATE] [--limit BYTES|Nbdp]
#   router.sh stats DIR       counters per direction, the router's CPU (one snapshot)
#   router.sh cc DIR ALGO     TCP congestion control of both namespaces (their route's congctl)
#   router.sh run DIR CMD...  a command in the router VM (diagnostics)
#   router.sh down DIR        stop it; namespaces, TAPs and qemu gone (also after a failure)
# Needs root, /dev/net/tun, network namespaces; no SCTP or netem on the host.
set -u
prog=router.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

usage() {
	sed -n '/^#   router.sh/s/^#   //p' "${BASH_SOURCE[0]}"
	exit 2
}
die() {
	echo "$prog: $*" >&2
	exit 1
}

ROUTER_IP_C=10.77.0.1 ROUTER_IP_S=10.77.0.2

# --- the control channel: a request file in the shared directory, answered by router-vm.sh ---
# req DIR TIMEOUT_S CMD...: send CMD, print the reply (without its status line), return its status
req() {
	local d=$1 t=$2 n f i st
	shift 2
	[ -d "$d/out/ctl" ] || { echo "$prog: $d is not a running router" >&2; return 1; }
	n=$(date +%s%N)$RANDOM
	printf '%s\n' "$*" >"$d/out/ctl/.req.$n" && mv "$d/out/ctl/.req.$n" "$d/out/ctl/req.$n" || return 1
	f=$d/out/ctl/rep.$n
	for i in $(seq 1 $((t * 20))); do
		[ -f "$f" ] && break
		if [ -f "$d/runner.pid" ] && ! kill -0 "$(cat "$d/runner.pid")" 2>/dev/null; then
			rm -f "$d/out/ctl/req.$n"
			echo "$prog: the router VM has stopped (see $d/vm.log)" >&2
			return 1
		fi
		sleep 0.05
	done
	[ -f "$f" ] || { rm -f "$d/out/ctl/req.$n"; echo "$prog: no answer to '$*' in ${t}s" >&2; return 1; }
	read -r _ st <"$f"
	tail -n +2 "$f"
	rm -f "$f"
	return "$st"
}

# --- down: idempotent, whatever state a failed up left ---
down() {
	local d=$1 p
	[ -f "$d/env" ] || [ -f "$d/names" ] || { echo "$prog: $d: no router here" >&2; return 1; }
	# shellcheck disable=SC1091
	. "$d/names"
	if [ -f "$d/runner.pid" ] && kill -0 "$(cat "$d/runner.pid")" 2>/dev/null; then
		req "$d" 5 stop >/dev/null 2>&1 || true
		p=$(cat "$d/runner.pid")
		for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		# the runner's trap stops qemu and virtiofsd
		kill "$p" 2>/dev/null
		for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	fi
	if [ -f "$d/qemu.pid" ]; then
		p=$(cat "$d/qemu.pid")
		if [ -n "$p" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = qemu-system-x86 ]; then
			kill "$p" 2>/dev/null
		fi
	fi
	if [ -f "$d/watch.pid" ]; then
		p=$(cat "$d/watch.pid")
		[ "$p" = "${ROUTER_WATCHER:-}" ] || kill "$p" 2>/dev/null
	fi
	ip netns del "$NS_C" 2>/dev/null
	ip netns del "$NS_S" 2>/dev/null
	ip link del "$TAP_C" 2>/dev/null
	ip link del "$TAP_S" 2>/dev/null
	rm -f "$d/env" "$d/runner.pid" "$d/watch.pid" "$d/qemu.pid"
	return 0
}

up() {
	local d=$1 timeout_s=14400 owner=$PPID cc=cubic id i
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--timeout) timeout_s=${2:-}; shift 2 ;;
		--owner) owner=${2:-}; shift 2 ;;
		--cc) cc=${2:-}; shift 2 ;;
		*) usage ;;
		esac
	done
	[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "bad --timeout '$timeout_s'"
	[[ $owner =~ ^[1-9][0-9]*$ ]] && kill -0 "$owner" 2>/dev/null || die "bad --owner '$owner' (a live pid)"
	grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null ||
		modprobe "tcp_$cc" 2>/dev/null || die "congestion control '$cc' not available here"
	[ "$(id -u)" = 0 ] || die "must run as root"
	[ -c /dev/net/tun ] || die "no /dev/net/tun"
	mkdir -p "$d" || die "cannot create $d"
	d=$(cd "$d" && pwd -P)
	[ ! -f "$d/env" ] || die "$d already holds a router (router.sh down $d first)"
	# names from our pid: routers on one host do not collide (IFNAMSIZ 15)
	id=$$
	cat >"$d/names" <<-EOF
		NS_C=rt${id}c NS_S=rt${id}s TAP_C=rt${id}tc TAP_S=rt${id}ts
	EOF
	# shellcheck disable=SC1091
	. "$d/names"
	up_dir=$d
	trap 'down "$up_dir" >/dev/null 2>&1' EXIT
	trap 'exit 130' INT TERM HUP
	rm -rf "$d/out" && mkdir -p "$d/out" || die "cannot create $d/out"
	ip tuntap add dev "$TAP_C" mode tap || die "cannot create TAP $TAP_C"
	ip tuntap add dev "$TAP_S" mode tap || die "cannot create TAP $TAP_S"
	local vnet=off
	[ "${ROUTER_PLANT_VNET_HDR:-}" = on ] && vnet=on
	# test/vm/run boots it; our NICs, qemu's pid file and the modules ride on its options
	(
		cd "$top" || exit 125
		export SCTPAPPS_VM_MODULES="virtio_net bridge sch_tbf ${SCTPAPPS_VM_MODULES:-}"
		export SCTPAPPS_VM_QEMU_OPTS="-netdev tap,id=nc,ifname=$TAP_C,script=no,downscript=no,vnet_hdr=$vnet
			-device virtio-net-pci,netdev=nc,mac=52:54:00:5c:00:c1
			-netdev tap,id=ns,ifname=$TAP_S,script=no,downscript=no,vnet_hdr=$vnet
			-device virtio-net-pci,netdev=ns,mac=52:54:00:5c:00:c2 -pidfile $d/qemu.pid"
		export ROUTER_GUEST_GRO=${ROUTER_PLANT_GRO:-off}
		exec setsid "$top/test/vm/run" --timeout "$timeout_s" --smp 1 --mem 512 --out "$d/out" \
			bash test/lab/router-vm.sh
	) </dev/null >"$d/vm.log" 2>&1 &
	echo $! >"$d/runner.pid"
	for i in $(seq 1 1200); do
		[ -f "$d/out/ready" ] && break
		[ -f "$d/out/failed" ] && die "the router VM failed: $(cat "$d/out/failed")"
		kill -0 "$(cat "$d/runner.pid")" 2>/dev/null || die "the router VM stopped: $(tail -n 20 "$d/vm.log")"
		sleep 0.1
	done
	[ -f "$d/out/ready" ] || die "the router VM was not ready in 120 s: $(tail -n 20 "$d/vm.log")"
	[ -s "$d/qemu.pid" ] || die "qemu wrote no pid file"
	# qemu holds the TAPs now: move each into its namespace
	for i in C S; do
		local ns=NS_$i tap=TAP_$i ip=ROUTER_IP_$i
		ip netns add "${!ns}" || die "ip netns add ${!ns} failed"
		ip -n "${!ns}" link set lo up
		ip link set "${!tap}" netns "${!ns}" || die "cannot move ${!tap} into ${!ns}"
		ip -n "${!ns}" link set "${!tap}" name eth0
		# IPv4 alone: no router solicitations or MLD reports among the counted packets
		ip netns exec "${!ns}" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
		ip -n "${!ns}" addr add "${!ip}/24" dev eth0
		ip -n "${!ns}" link set eth0 up
	done
	set_cc "$d" "$cc" || die "cannot set congestion control $cc on the namespaces' routes"

	cat >"$d/env" <<-EOF
		ROUTER_DIR=$d
		ROUTER_NS_C=$NS_C
		ROUTER_NS_S=$NS_S
		ROUTER_IP_C=$ROUTER_IP_C
		ROUTER_IP_S=$ROUTER_IP_S
		ROUTER_CC=$cc
		ROUTER_VNET_HDR=$vnet
		ROUTER_GUEST_GRO=${ROUTER_PLANT_GRO:-off}
		ROUTER_QEMU_PID=$(cat "$d/qemu.pid")
	EOF
	# reachable both ways before we say so
	ip netns exec "$NS_C" ping -q -c 1 -W 20 "$ROUTER_IP_S" >/dev/null ||
		die "the server namespace is not reachable through the router"
	# a watcher: the owner or the VM gone, the router goes (an owner killed with SIGKILL included)
	setsid bash -c 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done
		ROUTER_WATCHER=$$ exec "$3" down "$4"' watcher "$owner" "$(cat "$d/runner.pid")" \
		"$here/router.sh" "$d" </dev/null >/dev/null 2>&1 &
	echo $! >"$d/watch.pid"
	trap - EXIT INT TERM HUP
	# default link: nothing but the router's own path (no delay, no loss, unshaped)
	cat "$d/env"
}

# set_cc DIR ALGO: TCP congestion control of both namespaces, on their route to each other
# (ip route's congctl: the host's default is bbr and a namespace may not pick a default outside
# net.ipv4.tcp_allowed_congestion_control, which is the host's and stays untouched)
set_cc() {
	local d=$1 cc=$2 ns
	# shellcheck disable=SC1091
	. "$d/names"
	grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null ||
		modprobe "tcp_$cc" 2>/dev/null || { echo "$prog: congestion control '$cc' not available here" >&2; return 1; }
	for ns in "$NS_C" "$NS_S"; do
		ip -n "$ns" route replace 10.77.0.0/24 dev eth0 proto kernel scope link congctl "$cc" || return 1
	done
	[ ! -f "$d/env" ] || sed -i "s/^ROUTER_CC=.*/ROUTER_CC=$cc/" "$d/env"
}

# set DIR [DIRECTION] options: netem + tbf on the egress of that direction (both by default)
set_link() {
	local d=$1 which=both delay=0 jitter=0 loss=0 burst=0 rate=0 limit=1bdp lossarg bytes dev st=0
	shift
	case "${1:-}" in c2s | s2c | both) which=$1; shift ;; esac
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || die "set: $1 needs a value"
		case "$1" in
		--delay) delay=$2 ;;
		--jitter) jitter=$2 ;;
		--loss) loss=$2 ;;
		--ge-burst) burst=$2 ;;
		--rate) rate=$2 ;;
		--limit) limit=$2 ;;
		*) die "set: unknown option $1" ;;
		esac
		shift 2
	done
	for v in delay jitter loss burst; do
		[[ ${!v} =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "set: bad --${v/burst/ge-burst} '${!v}' (a number >= 0)"
	done
	awk -v l="$loss" 'BEGIN { exit !(l < 100) }' || die "set: --loss $loss: must be below 100 (percent)"
	[[ $rate == 0 || $rate =~ ^[0-9]+(\.[0-9]+)?[kmg]?bit$ ]] && [[ ! $rate =~ ^0+(\.0+)?[kmg]?bit$ ]] ||
		die "set: bad --rate '$rate' (tc syntax: 10mbit, 1mbit; 0 unshaped)"
	lossarg=0
	if [ "$loss" != 0 ] && awk -v l="$loss" 'BEGIN { exit !(l > 0) }'; then
		if [ "$burst" = 0 ]; then
			lossarg=random:$loss
		else
			# Gilbert: lose every packet in the bad state, none in the good; a mean burst of N
			# packets (r = 1/N) and the same mean loss L (p = L r / (1 - L))
			awk -v b="$burst" 'BEGIN { exit !(b >= 1) }' || die "set: --ge-burst must be >= 1 (packets)"
			lossarg=$(awk -v l="$loss" -v b="$burst" 'BEGIN { L = l / 100; r = 1 / b;
				printf "ge:%.6f:%.6f\n", 100 * L * r / (1 - L), 100 * r }')
		fi
	fi
	bytes=$(rate_limit_bytes "$rate" "$delay" "$limit") || die "set: bad --limit '$limit' (BYTES or Nbdp)"
	case "$which" in c2s) devs=srv ;; s2c) devs=cli ;; both) devs="cli srv" ;; esac
	for dev in $devs; do
		req "$d" 30 set "$dev" "$delay" "$jitter" "$lossarg" "$rate" "$bytes" || st=1
	done
	[ $st = 0 ] || die "set failed"
	# what is in force, for the record
	printf 'set %s delay=%s jitter=%s loss=%s rate=%s limit=%s\n' "$which" "$delay" "$jitter" "$lossarg" "$rate" "$bytes" >>"$d/settings.log"
}

# rate_limit_bytes RATE DELAY_MS LIMIT: the tbf queue in bytes; Nbdp: N x rate x RTT (2 x the
# one-way delay), at least 2 full frames
rate_limit_bytes() {
	local rate=$1 delay=$2 limit=$3 bps n
	if [[ $limit =~ ^[1-9][0-9]*$ ]]; then echo "$limit"; return 0; fi
	[[ $limit =~ ^([0-9]+(\.[0-9]+)?)bdp$ ]] || return 1
	n=${BASH_REMATCH[1]}
	case "$rate" in
	0) echo 3028; return 0 ;;
	*gbit) bps=$(awk -v x="${rate%gbit}" 'BEGIN { print x * 1e9 }') ;;
	*mbit) bps=$(awk -v x="${rate%mbit}" 'BEGIN { print x * 1e6 }') ;;
	*kbit) bps=$(awk -v x="${rate%kbit}" 'BEGIN { print x * 1e3 }') ;;
	*bit) bps=${rate%bit} ;;
	esac
	awk -v n="$n" -v b="$bps" -v d="$delay" 'BEGIN { x = n * b / 8 * 2 * d / 1000; if (x < 3028) x = 3028; printf "%d\n", x }'
}

# stats DIR: the guest's counters, then the host's view of qemu: its CPU ticks and the time
stats() {
	local d=$1 p
	[ -f "$d/env" ] || die "$d: no router running"
	p=$(sed -n 's/^ROUTER_QEMU_PID=//p' "$d/env")
	req "$d" 30 stats || die "stats failed"
	# utime + stime of qemu (all its threads), the clock tick, the host's wall clock
	awk '{ print "cpu ticks=" $14 + $15 }' "/proc/$p/stat" 2>/dev/null | tr '\n' ' ' || die "qemu ($p) is gone"
	echo "hz=$(getconf CLK_TCK) time=$EPOCHREALTIME loadavg=$(cut -d' ' -f1 /proc/loadavg)"
}

cmd=${1:-}
[ $# -ge 2 ] || usage
shift
dir=$1
shift
case "$cmd" in
up) up "$dir" "$@" ;;
down) down "$dir" ;;
set) [ -f "$dir/env" ] || die "$dir: no router running"; set_link "$dir" "$@" ;;
stats) stats "$dir" ;;
run) [ -f "$dir/env" ] || die "$dir: no router running"; req "$dir" 60 run "$@" ;;
cc) [ -f "$dir/env" ] || die "$dir: no router running"; [ $# = 1 ] || usage; set_cc "$dir" "$1" || exit 1 ;;
*) usage ;;
esac
