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

# stats: every counter with as few processes as can be (a fork costs ~50 ms under TCG, and
# experiment 06 asks after every run): sysfs read by the shell's own read, one tc and one ip a
# device, their output parsed by the shell
# qdisc_pair DEV: "NETEM_SENT NETEM_DROPPED QUEUE_SENT QUEUE_DROPPED" of DEV's 1: and 10:
qdisc_pair() {
	local line cur= ns=0 nd=0 ts=0 td=0 w
	while read -r line; do
		read -ra w <<<"$line"
		if [ "${w[0]:-}" = qdisc ]; then
			cur=${w[2]:-}
		elif [ "${w[0]:-}" = Sent ]; then
			case $cur in
			1:) ns=${w[3]} nd=${w[6]%,} ;;
			10:) ts=${w[3]} td=${w[6]%,} ;;
			esac
			cur=
		fi
	done < <(tc -s qdisc show dev "$1")
	echo "$ns $nd $ts $td"
}

stats() {
	local dir in out ns nd ts td l g s v
	local -A st
	for v in cli srv; do
		for l in rx_packets rx_bytes rx_dropped tx_packets tx_dropped; do
			read -r st[$v.$l] <"/sys/class/net/$v/statistics/$l"
		done
	done
	for dir in c2s s2c; do
		if [ $dir = c2s ]; then in=cli out=srv; else in=srv out=cli; fi
		read -r ns nd ts td < <(qdisc_pair $out)
		echo "$dir in_pkts=${st[$in.rx_packets]} in_bytes=${st[$in.rx_bytes]}" \
			"in_dropped=${st[$in.rx_dropped]} netem_sent=$ns netem_dropped=$nd" \
			"queue_sent=$ts queue_dropped=$td out_pkts=${st[$out.tx_packets]}" \
			"out_dropped=${st[$out.tx_dropped]}"
	done
	for v in cli srv; do
		l=$(ip -d link show dev "$v")
		g=-1 s=-1
		[[ $l =~ gro_max_size\ ([0-9]+) ]] && g=${BASH_REMATCH[1]}
		[[ $l =~ gso_max_size\ ([0-9]+) ]] && s=${BASH_REMATCH[1]}
		echo "nic $v gro_max_size=$g gso_max_size=$s"
	done
	read -r l _ </proc/uptime
	echo "uptime $l"
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
