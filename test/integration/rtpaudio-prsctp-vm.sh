#!/bin/bash
# rtpaudio-prsctp-vm.sh: run by rtpaudio-prsctp.sh where there are SCTP, netem and network
# namespaces (root). Two hosts s (10.77.0.1) and p (10.77.0.2) on a veth pair with netem on
# both ends.
#  1. --lifetime auto follows the RTT: 20 ms one-way, then 120 ms; the lifetime the sender
#     chose (its --stats-interval lines) drops by about half the RTT's growth.
#     The SCTP SRTT it reports is in ms (Linux gives jiffies; tp converts).
#  2. A link narrower than the stream (150 kbit/s for 192 kbit/s, 1 % loss, 30 ms, a
#     router's short queue: 5 packets, 160 ms), kernel SCTP and usrsctp (usrsctp-nt's PR-SCTP
#     printed beside): plain SCTP delivers everything, later
#     and later: after the playout delay is used up every packet comes after its play-out
#     time (late) and the stream stalls to its end; PR-SCTP (lifetime 200 ms) abandons what
#     expired at the sender and what it delivers is on time. (Until 2026-12-02 the player
#     played a packet that came after its time, as a file writer can: plain SCTP then looked
#     fine here. It now keeps a sound device's clock: see rtpaudio(1), "late".)
#  3. --rto-min 200 --rto-max 400 (kernel SCTP and usrsctp, 3 % loss): the association's RTO
#     that the sender's stats lines report stays within them (the stacks' default min is 1 s).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}
for t in "$R" sox lame ip tc; do
	command -v "$t" >/dev/null || { ok 1 "$t installed"; done_testing; exit; }
done
scratch rtpaudio-prsctp
chmod 755 "$tmp"
S=rpa-s-$$ P=rpa-p-$$
cleanup() {
	scratch_cleanup
	ip netns del $S 2>/dev/null
	ip netns del $P 2>/dev/null
}
trap cleanup EXIT
ip netns add $S && ip netns add $P &&
	ip link add rpa$$s netns $S type veth peer name rpa$$p netns $P &&
	ip -n $S addr add 10.77.0.1/24 dev rpa$$s && ip -n $P addr add 10.77.0.2/24 dev rpa$$p &&
	ip -n $S link set rpa$$s up && ip -n $P link set rpa$$p up &&
	ip -n $S link set lo up && ip -n $P link set lo up
ok $? "two namespaces on a veth pair"
link() { # link DELAY_MS LOSS_PCT RATE LIMIT
	ip netns exec $S tc qdisc replace dev rpa$$s root netem limit $4 delay ${1}ms \
		loss random ${2}% rate $3 &&
		ip netns exec $P tc qdisc replace dev rpa$$p root netem limit $4 delay ${1}ms \
		loss random ${2}% rate $3
}
secs=14
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth $secs sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -f -b 192 "$tmp/src.wav" "$tmp/a.mp3"
port=5004

# stream NAME PLAY-ARGS SEND-ARGS [CHANGE-AFTER-S CHANGE-CMD...]
stream() {
	local name=$1 pa=$2 sa=$3
	shift 3
	port=$((port + 2))
	case "$pa" in *usrsctp*)
		pa="$pa --udp-port 9899 --udp-remote-port 9900"
		sa="$sa --udp-port 9900 --udp-remote-port 9899"
	esac
	ip netns exec $P "$R" play $pa --idle 3000 -D $((secs + 40)) --json 10.77.0.2:$port \
		>"$tmp/$name.json" 2>"$tmp/$name.perr" &
	local pp=$!
	pids="$pids $pp"
	wait_bound -n $P $port 9899
	ip netns exec $S "$R" send $sa --stats-interval 500 "$tmp/a.mp3" 10.77.0.2:$port \
		2>"$tmp/$name.serr" &
	local sp=$!
	pids="$pids $sp"
	if [ $# -gt 0 ]; then
		sleep "$1"
		shift
		"$@"
	fi
	wait $sp
	local rs=$?
	wait $pp
	[ $rs = 0 ] && [ $? = 0 ]
	ok $? "$name: send and play exit 0: $(cat "$tmp/$name.json")"
	grep 'send: end' "$tmp/$name.serr" | sed 's/^/# /'
}
field() { sed -n "s/.*\"$2\":\\([-0-9.a-z]*\\).*/\\1/p" "$tmp/$1.json"; }
# median of a sender field over its stats lines with T0 <= t < T1
smed() {
	grep 'rtpaudio send: stats ' "$tmp/$1.serr" |
		sed -n "s/.* t=\\([0-9.]*\\) .* $2=\\([-0-9.]*\\).*/\\1 \\2/p" |
		awk -v a="$3" -v b="$4" '$1 >= a && $1 < b { print $2 }' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print -1 }'
}

# 1. --lifetime auto follows the RTT
link 20 0 100mbit 1000
stream auto "-t prsctp -d 400" "-t prsctp --lifetime auto" 6 link 120 0 100mbit 1000
e=$(smed auto lifetime_ms 2 5.5) l=$(smed auto lifetime_ms 9 13)
es=$(smed auto srtt_ms 2 5.5) ls=$(smed auto srtt_ms 9 13)
er=$(smed auto rtcp_rtt_ms 2 5.5) lr=$(smed auto rtcp_rtt_ms 9 13)
diag "lifetime $e -> $l ms, SCTP SRTT $es -> $ls ms, RTCP RTT $er -> $lr ms"
awk -v s0="$es" -v s1="$ls" -v r0="$er" -v r1="$lr" 'BEGIN { exit !(s1 > s0 && r0 < 120 && r1 >= 200) }'
ok $? "RTT 40 -> 240 ms: the RTCP RTT ($er -> $lr ms) sees it, the SCTP SRTT grows ($es -> $ls ms)"
# the SRTT in ms (Linux gives jiffies: 24 here at HZ 250): at least the path's 40 ms, at most
# that and a delayed SACK (200 ms). (Not on a lossy path: the kernel was seen to report no
# SRTT at all over a whole stream there, perhaps its one timed chunk abandoned.)
awk -v s="$es" 'BEGIN { exit !(s >= 36 && s <= 250) }'
ok $? "the SCTP SRTT is $es ms on a path of 40 ms RTT"
awk -v e="$e" -v l="$l" 'BEGIN { exit !(e >= 300 && e <= 400 && l <= e - 50 && l >= e - 170) }'
ok $? "--lifetime auto: $e ms at RTT 40 ms, $l ms at RTT 240 ms (the playout delay 400 less half the RTT's growth and twice the jitter)"
[ "$(field auto satisfactory)" = true ]
ok $? "the stream stays satisfactory across the change"

# 2. a link slower than the stream: SCTP stalls, PR-SCTP drops what expired
for stack in kernel usrsctp; do
	link 30 1 150kbit 5
	stream sctp-$stack "-t sctp -s $stack -d 400" "-t sctp -s $stack"
	link 30 1 150kbit 5
	stream prsctp-$stack "-t prsctp -s $stack -d 400" "-t prsctp -s $stack --lifetime 200"
	gs=$(field sctp-$stack longest_gap_ms) gp=$(field prsctp-$stack longest_gap_ms)
	fs=$(field sctp-$stack frames_played) fp=$(field prsctp-$stack frames_played)
	ls=$(field sctp-$stack packets_late) lp=$(field prsctp-$stack packets_late)
	ds=$(field sctp-$stack packets_lost) dp=$(field prsctp-$stack packets_lost)
	diag "$stack, 150 kbit/s, 1 % loss: longest gap SCTP $gs ms, PR-SCTP $gp ms;" \
		"frames played SCTP $fs, PR-SCTP $fp; late SCTP $ls, PR-SCTP $lp;" \
		"never delivered SCTP $ds, PR-SCTP $dp"
	awk -v g="$gs" -v l="$ls" 'BEGIN { exit !(g != "" && g >= 3000 && l >= 100) }'
	ok $? "$stack: plain SCTP stalls: $ls packets after their play-out time, a gap of $gs ms"
	[ "$(field sctp-$stack satisfactory)" = false ]
	ok $? "$stack: plain SCTP's stream is not satisfactory"
	awk -v d="$dp" -v z="$ds" 'BEGIN { exit !(d != "" && d >= 20 && z <= 10) }'
	ok $? "$stack: PR-SCTP abandoned $dp expired messages (never delivered; plain SCTP $ds)"
	# a retransmission timeout (RTO min 1 s) outlives the lifetime and abandons every
	# message in flight at once: mostly under 600 ms (usrsctp), once 1750 ms (a timeout and
	# its backed-off retry: 1 + 2 s at most); never a stall like plain SCTP's
	awk -v p="$gp" -v l="$lp" -v g="$gs" 'BEGIN { exit !(p != "" && p <= 3000 && p * 4 <= g && l <= 10) }'
	ok $? "$stack: PR-SCTP's longest gap ($gp ms) stays within two timeouts (1 + 2 s) and a quarter of plain SCTP's, $lp late"
	awk -v s="$fs" -v p="$fp" 'BEGIN { exit !(p >= 2 * s) }'
	ok $? "$stack: PR-SCTP played $fp frames, at least twice plain SCTP's $fs"
done
# usrsctp-nt's PR-SCTP row beside usrsctp's (issue 32 item 9): printed; that it plays about
# as many frames is a TAP TODO while the usrsctp-nt PR-SCTP fault (lib/tp/usrsctp/tp_usrsctp_nt*.c) is
# fixed on another branch
link 30 1 150kbit 5
stream prsctp-usrsctp-nt "-t prsctp -s usrsctp-nt -d 400" "-t prsctp -s usrsctp-nt --lifetime 200"
fn=$(field prsctp-usrsctp-nt frames_played) fu=$(field prsctp-usrsctp frames_played)
diag "usrsctp-nt, 150 kbit/s, 1 % loss: PR-SCTP longest gap $(field prsctp-usrsctp-nt longest_gap_ms) ms" \
	"(usrsctp $(field prsctp-usrsctp longest_gap_ms)), frames played $fn (usrsctp $fu)," \
	"late $(field prsctp-usrsctp-nt packets_late) ($(field prsctp-usrsctp packets_late))," \
	"never delivered $(field prsctp-usrsctp-nt packets_lost) ($(field prsctp-usrsctp packets_lost))"
awk -v n="$fn" -v u="$fu" 'BEGIN { exit !(n != "" && u != "" && n >= 0.9 * u) }'
todo $? "usrsctp-nt: PR-SCTP played $fn frames, at least 90 % of usrsctp's $fu" \
	"the usrsctp-nt PR-SCTP fault (lib/tp/usrsctp/tp_usrsctp_nt*.c), fixed on another branch"

# 3. the RTO bounds reach the association
for stack in kernel usrsctp; do
	link 30 3 100mbit 1000
	stream rto-$stack "-t prsctp -s $stack -d 400" \
		"-t prsctp -s $stack --lifetime auto --rto-min 200 --rto-max 400"
	r=$(grep 'rtpaudio send: stats ' "$tmp/rto-$stack.serr" | sed -n 's/.* rto_ms=\([0-9]*\) .*/\1/p' |
		sort -n | awk 'NR == 1 { lo = $1 } { hi = $1; n++ } END { if (n) print lo, hi, n }')
	set -- $r
	awk -v lo="${1:-0}" -v hi="${2:-0}" -v n="${3:-0}" 'BEGIN { exit !(n >= 10 && lo >= 200 && hi <= 400) }'
	ok $? "$stack: --rto-min 200 --rto-max 400: the association's RTO within [${1:-?}, ${2:-?}] ms over ${3:-0} stats lines" ||
		grep -m3 'rtpaudio send: stats ' "$tmp/rto-$stack.serr" | sed 's/^/# /'
done
done_testing
