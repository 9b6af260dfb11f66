#!/bin/bash
# test/lab/router-vm.sh: the lab v2 router, run inside the VM by test/lab/router.sh (through
# test/vm/run, never by hand). It bridges the two virtio-net NICs (the client's, MAC ...:c1, and
# the server's, ...:c2), turns receive aggregation off on both (gro_max_size 0, and ethtool's
# gro/gso/tso off where ethtool exists), puts netem (delay, loss) with a tbf child (rate, queue
# limit in bytes) on each egress, then serves the host's commands: a file $VM_OUT/ctl/req.N
# holding one command line is answered in $VM_OUT/ctl/rep.N (first line "status S").
#   set DEV DELAY_MS JITTER_MS LOSS RATE LIMIT_BYTES   LOSS: 0 | random:PCT | ge:P:R (netem
#                                                      gemodel, percent); RATE: tc syntax or 0
#   stats                                              counters (see router.sh stats)
#   run CMD...                                         a shell command (diagnostics)
#   stop                                               leave (the VM powers off)
# ROUTER_GUEST_GRO=on leaves GRO as the kernel has it (a planted fault for the fidelity test).
set -u
ctl=$VM_OUT/ctl
# the VM's devtmpfs has no /dev/fd, which <(...) needs
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mkdir -p "$ctl"

nic_by_mac() { # the interface with this MAC address
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

fail() {
	echo "router-vm: $*" >&2
	echo "$*" >"$VM_OUT/failed"
	exit 1
}

for i in $(seq 1 100); do
	c=$(nic_by_mac 52:54:00:5c:00:c1) && s=$(nic_by_mac 52:54:00:5c:00:c2) && break
	sleep 0.1
done
[ -n "${c:-}" ] && [ -n "${s:-}" ] || fail "the two NICs (52:54:00:5c:00:c1/c2) did not appear: $(ls /sys/class/net)"
ip link set "$c" name cli || fail "rename $c"
ip link set "$s" name srv || fail "rename $s"
ip link add br0 type bridge stp_state 0 forward_delay 0 || fail "no bridge (module bridge?)"
for d in cli srv; do
	if [ "${ROUTER_GUEST_GRO:-off}" != on ]; then
		ip link set dev "$d" gro_max_size 0 || fail "gro_max_size 0 on $d"
		! command -v ethtool >/dev/null || ethtool -K "$d" gro off gso off tso off 2>/dev/null
	fi
	ip link set "$d" master br0 || fail "enslave $d"
	ip link set "$d" up
done
# the router sends nothing of its own (its frames would count as traffic): no IPv6 anywhere
for d in br0 cli srv; do sysctl -qw "net.ipv6.conf.$d.disable_ipv6=1" 2>/dev/null; done
ip link set br0 up
# the bridge does not filter: no br_netfilter, no addresses on the router
sysctl -qw net.bridge.bridge-nf-call-iptables=0 2>/dev/null

# set DEV DELAY JITTER LOSS RATE LIMIT: netem (delay, jitter, loss; its own limit large, so that it
# drops by loss alone) as root 1:, tbf (rate, queue LIMIT bytes) as its child 10:
set_link() {
	local dev=$1 delay=$2 jitter=$3 loss=$4 rate=$5 limit=$6 args burst
	args="delay ${delay}ms"
	[ "$jitter" = 0 ] || args="$args ${jitter}ms distribution normal"
	case "$loss" in
	0) ;;
	random:*) args="$args loss random ${loss#random:}%" ;;
	ge:*:*) loss=${loss#ge:}; args="$args loss gemodel ${loss%%:*}% ${loss#*:}%" ;;
	*) echo "bad loss $loss"; return 2 ;;
	esac
	tc qdisc del dev "$dev" root 2>/dev/null
	# shellcheck disable=SC2086
	tc qdisc add dev "$dev" root handle 1: netem limit 1000000 $args || return 1
	[ "$rate" = 0 ] && return 0
	burst=$(tc_burst "$rate")
	tc qdisc add dev "$dev" parent 1:1 handle 10: tbf rate "$rate" burst "$burst" limit "$limit" || return 1
}

tc_burst() { # a tbf bucket: 2 full frames, or 1 ms at RATE if more
	local r=$1 bps
	case "$r" in
	*gbit) bps=$(awk -v x="${r%gbit}" 'BEGIN { print x * 1e9 }') ;;
	*mbit) bps=$(awk -v x="${r%mbit}" 'BEGIN { print x * 1e6 }') ;;
	*kbit) bps=$(awk -v x="${r%kbit}" 'BEGIN { print x * 1e3 }') ;;
	*bit) bps=${r%bit} ;;
	esac
	awk -v b="$bps" 'BEGIN { x = b / 8 / 1000; if (x < 3028) x = 3028; printf "%d\n", x }'
}

# qdisc_counts DEV HANDLE: "sent dropped" packets of that qdisc (0 0 when absent)
qdisc_counts() {
	tc -s qdisc show dev "$1" | awk -v h="$2" '
		$1 == "qdisc" { cur = ($3 == h) }
		cur && $1 == "Sent" { sent = $4; d = $7; sub(/,$/, "", d); drop = d; cur = 0; found = 1 }
		END { if (!found) { sent = 0; drop = 0 } print sent + 0, drop + 0 }'
}

stat_of() { cat "/sys/class/net/$1/statistics/$2"; }

stats() {
	local dir in out ns nd ts td
	for dir in c2s s2c; do
		if [ $dir = c2s ]; then in=cli out=srv; else in=srv out=cli; fi
		read -r ns nd < <(qdisc_counts $out 1:)
		read -r ts td < <(qdisc_counts $out 10:)
		echo "$dir in_pkts=$(stat_of $in rx_packets) in_bytes=$(stat_of $in rx_bytes)" \
			"in_dropped=$(stat_of $in rx_dropped) netem_sent=$ns netem_dropped=$nd" \
			"queue_sent=$ts queue_dropped=$td out_pkts=$(stat_of $out tx_packets)" \
			"out_dropped=$(stat_of $out tx_dropped)"
	done
	for d in cli srv; do
		echo "nic $d $(ip -d link show dev "$d" | grep -o 'gro_max_size [0-9]*' | tr ' ' =)" \
			"$(ip -d link show dev "$d" | grep -o 'gso_max_size [0-9]*' | tr ' ' =)"
	done
	echo "uptime $(cut -d' ' -f1 /proc/uptime)"
}

handle() { # one command line
	local cmd=$1
	shift
	case "$cmd" in
	set) [ $# = 6 ] || { echo "usage: set DEV DELAY JITTER LOSS RATE LIMIT"; return 2; }
		case "$1" in cli | srv) ;; *) echo "bad device $1"; return 2 ;; esac
		# a setting tc refuses leaves the link as it was
		if set_link "$@" 2>&1; then
			echo "$*" >"/run/router-last.$1"
		else
			# shellcheck disable=SC2046
			set_link $(cat "/run/router-last.$1") >/dev/null 2>&1
			return 1
		fi ;;
	stats) stats ;;
	run) bash -c "$*" 2>&1 ;;
	stop) return 0 ;;
	*) echo "unknown command $cmd"; return 2 ;;
	esac
}

for d in cli srv; do
	set_link $d 0 0 0 0 0 || fail "netem on $d"
	echo "$d 0 0 0 0 0" >"/run/router-last.$d"
done
echo "$$" >"$VM_OUT/ready"
# wait without forking (a fork costs ~50 ms under TCG): read with a timeout from a FIFO that never
# gets data
mkfifo /run/router-tick && exec 7<>/run/router-tick
while :; do
	for f in "$ctl"/req.*; do
		[ -f "$f" ] || continue
		n=${f##*/req.}
		read -r line <"$f"
		rm -f "$f"
		# shellcheck disable=SC2086
		out=$(handle $line)
		st=$?
		printf 'status %s\n%s\n' "$st" "$out" >"$ctl/rep.$n.tmp"
		mv "$ctl/rep.$n.tmp" "$ctl/rep.$n"
		[ "${line%% *}" = stop ] && exit 0
	done
	read -r -t 0.05 -u 7 _
done
