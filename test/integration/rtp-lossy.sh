# test/integration/rtp-lossy.sh: sourced by usrsctp-nt-rtp.sh and test/perf/prsctp-loss-bench.sh:
# one rtpaudio stream in a network namespace of its own whose lo drops a share of the UDP
# datagrams (nftables numgen random: the host has no netem). Needs R (rtpaudio) and tmp (with
# a.mp3 in it).
# run NAME TRANSPORT STACK LOSS-PCT [SEND-ARGS]: play and send in a namespace of their own (lo, LOSS-PCT %
# of the UDP datagrams to the media or encapsulation ports dropped); NAME.json is the player's
# report, NAME.t the sender's wall time in ms, NAME.rc both exit codes
run() {
	local name=$1 tr=$2 st=$3 loss=$4 pa sa ports more=${5:-}
	if [ "$tr" = udp ]; then
		pa="-t udp" sa="-t udp" ports=5006
	else
		pa="-t $tr -s $st --udp-port 9899 --udp-remote-port 9900"
		sa="-t $tr -s $st --udp-port 9900 --udp-remote-port 9899 $more"
		ports=9899-9900
	fi
	unshare -n bash -c '
	ip link set lo up || exit 1
	if [ "$4" != 0 ]; then
		nft add table inet l && nft add chain inet l in "{ type filter hook input priority 0; }" &&
		nft add rule inet l in udp dport $5 numgen random mod 100 "<" $4 drop || exit 1
	fi
	$1 play $6 --idle 1500 -D 60 --json 127.0.0.1:5006 >$2.json 2>$2.perr &
	pp=$!
	for i in $(seq 1 50); do ss -Huan | grep -q ":5006 \|:9899 " && break; sleep 0.1; done
	t0=$(date +%s%N)
	$1 send $7 $3 127.0.0.1:5006 2>$2.serr
	rs=$?
	echo $((($(date +%s%N) - t0) / 1000000)) >$2.t
	wait $pp
	echo "$rs $?" >$2.rc' x "$R" "$tmp/$name" "$tmp/a.mp3" "$loss" "$ports" "$pa" "$sa"
}
field() { sed -n "s/.*\"$2\":\\([-0-9.a-z]*\\).*/\\1/p" "$tmp/$1.json" 2>/dev/null; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print -1 }'; }
