# test/lab/lab.sh: the paper's testbeds from network namespaces, veth pairs, netem and nftables
# (bash library, sourced). Needs root, netns, veth, sch_netem, nftables: natively on a Linux host
# that has them, otherwise inside the VM runner (test/vm/run); the same script either way.
# The API is fixed by the experiments that use it (see test/lab/README.md):
#   lab_loopback                                       host a alone (loopback, MTU 1500)
#   lab_two_hosts RATE DELAY_MS LOSS_PCT [JITTER_MS]   one link a <-> b, netem on both ends
#   lab_link RATE DELAY_MS LOSS_PCT [JITTER_MS]        change that link in place
#   lab_two_paths                                      a <-> b direct (path 1) and via router r
#   lab_block_primary on|off, lab_flap PERIOD_S        block path 1 (nftables), periodically
#   lab_a CMD.., lab_b CMD.., lab_bg a|b CMD..         run in a host ($LAB_PID: the last bg pid)
#   lab_record, lab_unshaped_mbit, lab_unshaped CMD.., lab_teardown

LAB_A_IP=10.10.0.1 LAB_B_IP=10.10.0.2
LAB_A_IP1=10.10.1.1 LAB_B_IP1=10.10.1.2
LAB_A_IP2=10.10.2.1 LAB_B_IP2=10.10.3.2
LAB_R_IP2A=10.10.2.2 LAB_R_IP2B=10.10.3.1
# path 1 and path 2 of lab_two_paths (the paper's wired and wireless links)
LAB_P1_RATE=10mbit LAB_P1_DELAY=0.18
LAB_P2_RATE=11mbit LAB_P2_DELAY=1.87
: "${LAB_OUT:=${EXP_OUT:-}}"
# The VM's devtmpfs has no /dev/fd, which bash's process substitution, <(...), needs.
[ "${SCTPAPPS_VM:-0}" != 1 ] || [ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd 2>/dev/null
# Namespace names carry our pid: runs on one host do not collide.
LAB_NS_A=lab$$a LAB_NS_B=lab$$b LAB_NS_R=lab$$r
LAB_TOPO= LAB_PARAMS= LAB_PIDS= LAB_PID= LAB_FLAP_PID=
LAB_LINK_ARGS= LAB_LINK_DELAY=

lab_die() {
	echo "lab: $*" >&2
	exit 1
}

# lab_netem NS DEV RATE DELAY_MS LOSS_PCT [JITTER_MS]: netem as the root qdisc of DEV (replaced).
# Rate 0 is unshaped. A loss of 0 is left out (netem then never draws).
lab_netem() {
	local ns=$1 dev=$2 rate=$3 delay=$4 loss=$5 jitter=${6:-0} args
	args="delay ${delay}ms"
	[ "$jitter" = 0 ] || args="$args ${jitter}ms distribution normal"
	[ "$loss" = 0 ] || args="$args loss random ${loss}%"
	[ "$rate" = 0 ] || args="$args rate $rate"
	# Deleted and added again, not "replace": netem keeps a rate it is not told to change.
	ip netns exec "$ns" tc qdisc del dev "$dev" root 2>/dev/null
	# shellcheck disable=SC2086
	ip netns exec "$ns" tc qdisc add dev "$dev" root netem limit 10000 $args ||
		lab_die "tc netem on $ns/$dev ($args) failed"
}

lab_ns_new() { # lab_ns_new NS: a fresh namespace with lo up
	ip netns add "$1" || lab_die "ip netns add $1 failed (root? netns?)"
	ip -n "$1" link set lo up
	ip netns exec "$1" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
}

# lab_veth NS1 DEV1 ADDR1 NS2 DEV2 ADDR2: a veth pair between two namespaces, addresses /24, up.
lab_veth() {
	ip link add "lab$$x" netns "$1" type veth peer name "lab$$y" netns "$4" ||
		lab_die "veth $1/$2 <-> $4/$5 failed"
	ip -n "$1" link set "lab$$x" name "$2"
	ip -n "$4" link set "lab$$y" name "$5"
	ip -n "$1" addr add "$3/24" dev "$2"
	ip -n "$4" addr add "$6/24" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
	lab_offloads_off "$1" "$2"
	lab_offloads_off "$4" "$5"
}

# lab_offloads_off NS DEV: no segmentation offload and no receive aggregation on DEV, so that
# netem (on DEV's root) sees wire-sized packets and draws its loss once per packet, not once per
# 64 KiB superpacket (issue 31, the same fix as lab v2's router): gso_max_segs 1 and
# gro_max_size 0 (ip link), and ethtool's gso/gro/tso off where ethtool exists. Neither possible:
# the lab stops, saying so. $LAB_OFFLOADS says how (params.txt). gso_max_size is the MTU too:
# kernel SCTP builds its GSO packets up to gso_max_size and ignores gso_max_segs (in the VM, netem
# dropped 0.71-0.73 % of SCTP's packets at 1 % with gso_max_segs 1 alone, 0.96-1.07 % with this).
lab_offloads_off() {
	local how= mtu
	mtu=$(ip -n "$1" -o link show dev "$2" 2>/dev/null | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
	ip -n "$1" link set dev "$2" gso_max_segs 1 gso_max_size "${mtu:-1500}" gro_max_size 0 2>/dev/null &&
		how="gso_max_segs 1, gso_max_size ${mtu:-1500}, gro_max_size 0"
	if command -v ethtool >/dev/null && ip netns exec "$1" ethtool -K "$2" gso off gro off tso off 2>/dev/null; then
		how="${how:+$how; }ethtool gso/gro/tso off"
	fi
	[ -n "$how" ] || lab_die "offloads: cannot turn GSO/GRO off on $1/$2 (ip link gso_max_segs/gro_max_size and ethtool both failed): netem would drop superpackets"
	LAB_OFFLOADS="$how (every veth end)"
}

lab_check_rate() { # RATE in tc syntax, or 0
	case "$1" in
	0 | [0-9]*bit | [0-9]*[kmg]bit | [0-9]*.[0-9]*[kmg]bit) ;;
	*) lab_die "bad rate '$1' (tc syntax: 100mbit, 1mbit, or 0 for unshaped)" ;;
	esac
}

lab_check_num() { # WHAT VALUE: a non-negative decimal number
	[[ $2 =~ ^[0-9]+(\.[0-9]+)?$ ]] || lab_die "bad $1 '$2' (a number >= 0)"
}

lab_check_link_args() {
	[ $# -ge 3 ] && [ $# -le 4 ] || lab_die "usage: RATE DELAY_MS LOSS_PCT [JITTER_MS]"
	lab_check_rate "$1"
	lab_check_num delay "$2"
	lab_check_num loss "$3"
	lab_check_num jitter "${4:-0}"
}

# lab_loopback: host a alone (its loopback, MTU 1500: at lo's 64 KiB default Linux SCTP waits
# on delayed SACKs, about 200 ms a round), for loopback measurements.
lab_loopback() {
	[ "$(id -u)" = 0 ] || lab_die "needs root"
	trap lab_teardown EXIT
	lab_ns_new "$LAB_NS_A"
	ip -n "$LAB_NS_A" link set lo mtu 1500
	LAB_TOPO=loopback
	LAB_PARAMS="host a alone, its loopback with MTU 1500"
}

# lab_two_hosts RATE DELAY_MS LOSS_PCT [JITTER_MS]: hosts a and b on one link, each direction
# shaped by netem on the sending end.
lab_two_hosts() {
	lab_check_link_args "$@"
	[ "$(id -u)" = 0 ] || lab_die "needs root"
	trap lab_teardown EXIT
	lab_ns_new "$LAB_NS_A"
	lab_ns_new "$LAB_NS_B"
	lab_veth "$LAB_NS_A" eth0 "$LAB_A_IP" "$LAB_NS_B" eth0 "$LAB_B_IP"
	LAB_TOPO=two_hosts
	lab_link "$@"
}

# lab_link RATE DELAY_MS LOSS_PCT [JITTER_MS]: change the lab_two_hosts link in place.
lab_link() {
	lab_check_link_args "$@"
	[ "$LAB_TOPO" = two_hosts ] || lab_die "lab_link: no lab_two_hosts link"
	lab_netem "$LAB_NS_A" eth0 "$@"
	lab_netem "$LAB_NS_B" eth0 "$@"
	LAB_LINK_ARGS="$*" LAB_LINK_DELAY=$2
	LAB_PARAMS="a=$LAB_A_IP b=$LAB_B_IP rate=$1 one-way-delay=${2}ms loss=${3}% jitter=${4:-0}ms (netem on both ends)"
}

# lab_two_paths: path 1 direct (a eth1 - b eth1), path 2 through router r (a eth2 - r eth0,
# r eth1 - b eth2). Each path is shaped on the hosts' ends; each host reaches the other's path-2
# subnet only through r, and replies leave by the path their request came on (no asymmetry).
lab_two_paths() {
	[ $# -eq 0 ] || lab_die "usage: lab_two_paths"
	[ "$(id -u)" = 0 ] || lab_die "needs root"
	trap lab_teardown EXIT
	lab_ns_new "$LAB_NS_A"
	lab_ns_new "$LAB_NS_B"
	lab_ns_new "$LAB_NS_R"
	lab_veth "$LAB_NS_A" eth1 "$LAB_A_IP1" "$LAB_NS_B" eth1 "$LAB_B_IP1"
	lab_veth "$LAB_NS_A" eth2 "$LAB_A_IP2" "$LAB_NS_R" eth0 "$LAB_R_IP2A"
	lab_veth "$LAB_NS_R" eth1 "$LAB_R_IP2B" "$LAB_NS_B" eth2 "$LAB_B_IP2"
	ip netns exec "$LAB_NS_R" sysctl -qw net.ipv4.ip_forward=1
	ip -n "$LAB_NS_A" route add "${LAB_B_IP2%.*}.0/24" via "$LAB_R_IP2A" dev eth2 src "$LAB_A_IP2"
	ip -n "$LAB_NS_B" route add "${LAB_A_IP2%.*}.0/24" via "$LAB_R_IP2B" dev eth2 src "$LAB_B_IP2"
	lab_netem "$LAB_NS_A" eth1 "$LAB_P1_RATE" "$LAB_P1_DELAY" 0
	lab_netem "$LAB_NS_B" eth1 "$LAB_P1_RATE" "$LAB_P1_DELAY" 0
	lab_netem "$LAB_NS_A" eth2 "$LAB_P2_RATE" "$LAB_P2_DELAY" 0
	lab_netem "$LAB_NS_B" eth2 "$LAB_P2_RATE" "$LAB_P2_DELAY" 0
	LAB_TOPO=two_paths
	LAB_PARAMS="path 1: a=$LAB_A_IP1 b=$LAB_B_IP1 direct, rate=$LAB_P1_RATE one-way-delay=${LAB_P1_DELAY}ms; path 2: a=$LAB_A_IP2 b=$LAB_B_IP2 via router r ($LAB_R_IP2A, $LAB_R_IP2B), rate=$LAB_P2_RATE one-way-delay=${LAB_P2_DELAY}ms (netem on the hosts' ends)"
}

# lab_block_primary on|off: drop everything on path 1 (a's eth1, both directions) with nftables.
lab_block_primary() {
	[ "$LAB_TOPO" = two_paths ] || lab_die "lab_block_primary: no lab_two_paths"
	case "$1" in
	on)
		ip netns exec "$LAB_NS_A" nft -f - <<NFT || lab_die "nft block failed"
table inet lab
delete table inet lab
table inet lab {
	chain in { type filter hook input priority 0; policy accept; iifname "eth1" drop; }
	chain out { type filter hook output priority 0; policy accept; oifname "eth1" drop; }
}
NFT
		;;
	off) ip netns exec "$LAB_NS_A" nft delete table inet lab 2>/dev/null || true ;;
	*) lab_die "usage: lab_block_primary on|off" ;;
	esac
}

# lab_flap PERIOD_S: in the background, path 1 up PERIOD_S seconds, blocked PERIOD_S, and so on;
# each switch goes to $LAB_OUT/flap.log as "EPOCH_SECONDS up|blocked" (first line: the start).
lab_flap() {
	[[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] || lab_die "usage: lab_flap PERIOD_S"
	[ "$LAB_TOPO" = two_paths ] || lab_die "lab_flap: no lab_two_paths"
	local log=${LAB_OUT:-/tmp}/flap.log period=$1
	(
		s=
		trap '[ -z "$s" ] || kill "$s" 2>/dev/null; exit 0' TERM
		state=up
		t0=$(date +%s.%N)
		echo "$t0 up" >>"$log"
		k=0
		while :; do
			# Switch k at t0 + k * period: nft's own time (a good part of a second under
			# TCG) does not add up over the run.
			k=$((k + 1))
			sleep "$(awk -v t0="$t0" -v k=$k -v p="$period" -v now="$(date +%s.%N)" \
			    'BEGIN { d = t0 + k * p - now; printf "%.3f\n", (d > 0 ? d : 0) }')" & s=$!
			wait "$s"
			if [ $state = up ]; then
				lab_block_primary on
				state=blocked
			else
				lab_block_primary off
				state=up
			fi
			echo "$(date +%s.%N) $state" >>"$log"
		done
	) &
	LAB_FLAP_PID=$!
	LAB_PIDS="$LAB_PIDS $LAB_FLAP_PID"
}

lab_ns_of() {
	case "$1" in
	a) echo "$LAB_NS_A" ;;
	b) echo "$LAB_NS_B" ;;
	r) echo "$LAB_NS_R" ;;
	*) lab_die "no host '$1' (a, b, r)" ;;
	esac
}

# lab_exec a|b|r CMD...: run CMD in that host: the one place that says how a host is reached
# (here its namespace; test/lab/hosts.sh, with $LAB_HOSTS, replaces it by ssh to real hosts).
lab_exec() {
	local ns
	ns=$(lab_ns_of "$1") || exit 1
	shift
	ip netns exec "$ns" "$@"
}
lab_a() { lab_exec a "$@"; }
lab_b() { lab_exec b "$@"; }

# lab_bg a|b|r CMD...: start CMD in that host in the background; its pid in $LAB_PID (call this
# directly, not in $(...), or the pid is lost); lab_teardown kills it.
lab_bg() {
	local ns
	ns=$(lab_ns_of "$1") || exit 1
	shift
	# ip netns exec itself, not lab_exec (a function: a subshell of its own in the background),
	# so that $! is the program (ip netns exec execs it): killing and waiting for it reach the
	# program. test/lab/hosts.sh has its own lab_bg.
	ip netns exec "$ns" "$@" &
	LAB_PID=$!
	LAB_PIDS="$LAB_PIDS $LAB_PID"
}

# lab_cpu_ticks a|b|r PID: the CPU time (user + system, in clock ticks) of a process lab_bg
# started there (ip netns exec execs it: the pid is the program's), 0 when gone.
lab_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$2/stat" 2>/dev/null || echo 0; }

# lab_push DIR: make DIR (files an experiment made for its hosts) visible at the same path in
# every host: the namespaces share this file system already.
lab_push() { :; }

lab_pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown; }

# lab_record: $LAB_OUT/params.txt: topology, parameters, versions, date, commit.
lab_record() {
	local f=${LAB_OUT:?lab_record: LAB_OUT or EXP_OUT not set}/params.txt root=${EXP_ROOT:-.}
	mkdir -p "$LAB_OUT"
	{
		echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
		echo "topology: ${LAB_TOPO:-none}"
		echo "parameters: $LAB_PARAMS"
		echo "distribution: $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}") (Debian $(cat /etc/debian_version 2>/dev/null || echo -))"
		echo "kernel: $(uname -r) ($(uname -m)), $(uname -v)"
		if [ "${SCTPAPPS_VM:-0}" = 1 ]; then
			echo "machine: qemu VM (test/vm/run, TCG), $(nproc) vCPU, host $(cat /proc/sys/kernel/hostname)"
		else
			echo "machine: native, $(nproc) CPUs"
		fi
		echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
		echo "net.sctp.rto_min: $(cat /proc/sys/net/sctp/rto_min 2>/dev/null || echo -) ms"
		echo "usrsctp: $(lab_pkgver libusrsctp-dev)"
		echo "lksctp-tools: $(lab_pkgver lksctp-tools) (libsctp-dev $(lab_pkgver libsctp-dev))"
		echo "iproute2: $(ip -V 2>&1 | head -1)"
		echo "nftables: $(nft --version 2>&1 | head -1)"
		echo "iperf3: $(iperf3 --version 2>&1 | head -1)"
		echo "gnuplot: $(gnuplot --version 2>&1 | head -1)"
		echo "qemu: $(lab_pkgver qemu-system-x86)"
		echo "compiler: $(${CC:-cc} --version 2>/dev/null | head -1)"
		echo "libmpg123: $(lab_pkgver libmpg123-dev); nginx: $(lab_pkgver nginx)"
		echo "git commit: $(git -C "$root" -c safe.directory='*' rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" -c safe.directory='*' diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
		echo "offloads: ${LAB_OFFLOADS:-none set (no veth)}"
		echo "QUICK: ${QUICK:-0}"
	} >"$f"
}

# lab_unshaped CMD...: run CMD with the link (path 1 of lab_two_paths) shaped by nothing but its
# delay (no rate limit, no loss), then put the link back as it was; CMD's status.
lab_unshaped() {
	local rc dev delay
	case "$LAB_TOPO" in
	two_hosts) dev=eth0 delay=$LAB_LINK_DELAY ;;
	two_paths) dev=eth1 delay=$LAB_P1_DELAY ;;
	*) lab_die "lab_unshaped: no link (lab_two_hosts or lab_two_paths first)" ;;
	esac
	lab_netem "$LAB_NS_A" $dev 0 "$delay" 0
	lab_netem "$LAB_NS_B" $dev 0 "$delay" 0
	"$@"
	rc=$?
	if [ "$LAB_TOPO" = two_hosts ]; then
		# shellcheck disable=SC2086
		lab_link $LAB_LINK_ARGS
	else
		lab_netem "$LAB_NS_A" eth1 "$LAB_P1_RATE" "$LAB_P1_DELAY" 0
		lab_netem "$LAB_NS_B" eth1 "$LAB_P1_RATE" "$LAB_P1_DELAY" 0
	fi
	return $rc
}

# lab_iperf_mbit DST: TCP rate a -> DST (iperf3, 2 s) in Mbit/s, or nothing
lab_iperf_mbit() {
	local port=$((5201 + RANDOM % 20000)) pid
	lab_bg b iperf3 -s -1 -p "$port" >/dev/null 2>&1
	pid=$LAB_PID
	sleep 0.5
	lab_exec a iperf3 -c "$1" -p "$port" -t 2 -f m 2>&1 |
		awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i+1) == "Mbits/sec") v = $i } END { print v }'
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# lab_unshaped_mbit: the TCP rate a -> b in Mbit/s with the link (path 1 of lab_two_paths) shaped
# by nothing but its delay for a moment (iperf3, 2 s), then the link as it was; prints it.
lab_unshaped_mbit() {
	local dst mbit
	case "$LAB_TOPO" in
	two_hosts) dst=$LAB_B_IP ;;
	two_paths) dst=$LAB_B_IP1 ;;
	*) lab_die "lab_unshaped_mbit: no link (lab_two_hosts or lab_two_paths first)" ;;
	esac
	mbit=$(lab_unshaped lab_iperf_mbit "$dst")
	[ -n "$mbit" ] || { echo "lab_unshaped_mbit: iperf3 gave no rate" >&2; echo 0; return 1; }
	echo "$mbit"
}

# lab_teardown: kill the background jobs, delete the namespaces (and with them veths, qdiscs,
# nftables rules). Safe to call twice.
lab_teardown() {
	local p ns
	for p in $LAB_PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $LAB_PIDS; do
		wait "$p" 2>/dev/null
	done
	LAB_PIDS=
	for ns in "$LAB_NS_A" "$LAB_NS_B" "$LAB_NS_R"; do
		# processes left in a namespace (started by lab_a &, say) would keep its veths alive
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$p" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	LAB_TOPO=
}

# Real hosts over ssh instead of namespaces: $LAB_HOSTS names an inventory (test/lab/hosts.sh).
if [ -n "${LAB_HOSTS:-}" ]; then
	. "$(dirname "${BASH_SOURCE[0]}")/hosts.sh"
fi
