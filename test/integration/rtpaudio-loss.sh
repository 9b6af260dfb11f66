#!/bin/bash
# rtpaudio-loss.sh: random UDP loss without netem: a network namespace of our own whose
# loopback drops P % of the packets to the media ports (nftables "numgen random mod 100 < P
# drop"); the same file through RFC 2250, RFC 5219, RFC 5219 interleaved and poc-fec. The
# drops are random (nftables has no seed): the numbers are printed, and only what holds for
# any draw is asserted: 3119 never makes a frame undecodable, FEC recovers ADUs, every run
# keeps the timeline. RTPAUDIO_LOSS_PCT (default 15) and RTPAUDIO_LOSS_SECONDS (default 6).
# PR-SCTP over usrsctp and usrsctp-nt (SCTP in UDP on an even port: its data lose the same
# share; the sender's default RTO bounded by the lifetime, the player's SACKs at once) print
# their rows beside UDP's: each loses no more frames than UDP (2250), and usrsctp-nt no more
# than usrsctp but for one draw's spread, or, where the first draw says worse, by the medians of
# three draws each (issue 35: both lost 2-8 times UDP's share with the stacks' 1 s RTO minimum).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}
P=${RTPAUDIO_LOSS_PCT:-15}
secs=${RTPAUDIO_LOSS_SECONDS:-6}

if [ ! -x "$R" ]; then
	ok 1 "$R not built (needs libmpg123-dev)"
	done_testing
	exit
fi
for t in sox lame mpg123 nft ip; do
	if ! command -v $t >/dev/null; then
		ok 1 "$t not installed (scripts/setup.sh installs it)"
		done_testing
		exit
	fi
done
ns=rtpaudio-loss-$$
if [ "$(id -u)" != 0 ] || ! ip netns add $ns 2>/dev/null; then
	ok 1 "needs root and network namespaces"
	done_testing
	exit
fi
scratch rtpaudio-loss
chmod 755 "$tmp"
trap 'scratch_cleanup; ip netns del $ns 2>/dev/null' EXIT
X="ip netns exec $ns"
# media on even ports 26000..26998 (RTCP on the odd ones is left alone: the BYE ends a run)
$X ip link set lo up &&
	$X nft add table inet rtpaudio &&
	$X nft add chain inet rtpaudio in '{ type filter hook input priority 0; }' &&
	$X nft add rule inet rtpaudio in udp dport 26000-26998 udp dport and 1 == 0 \
		numgen random mod 100 '<' $P counter drop
ok $? "namespace $ns: lo up, $P % of the media packets dropped by nftables"

sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth $secs sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"
mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"
nfr=$(( ($(stat -c %s "$tmp/ref.wav") - 44) / 4 / 1152 ))
port=26000

stream() { # stream NAME PLAY-ARGS SEND-ARGS [PORT: the player's, besides the media port]
	local name=$1 pa=$2 sa=$3
	port=$((port + 2))
	$X "$R" play $pa --idle 1500 -D 60 --json -o "$tmp/$name.wav" 127.0.0.1:$port \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	local pp=$!
	pids="$pids $pp"
	wait_bound -n "$ns" $port ${4:-}
	$X "$R" send $sa "$tmp/a.mp3" 127.0.0.1:$port 2>"$tmp/$name.serr"
	local rs=$?
	wait $pp
	[ $rs = 0 ] && [ $? = 0 ]
	ok $? "$name: send and play exit 0: $(cat "$tmp/$name.json")"
}
field() { sed "s/.*\"$2\":\\([0-9.]*\\).*/\\1/" "$tmp/$1.json"; }

stream r2250 "" ""
stream r3119 "-f 3119" "-f 3119"
stream ril "-f 3119" "-f 3119 --interleave 8"
stream rfec "-f fec" "-f fec -k 4 -n 6"
# prsctp STACK NAME: PR-SCTP with the auto lifetime over SCTP in UDP: the player's encapsulation
# port even (its data dropped), the sender's odd
prsctp() {
	local u=$((26500 + ${#1} * 2))
	stream "$2" "-t prsctp -s $1 --udp-port $u --udp-remote-port $((u + 1))" \
		"-t prsctp -s $1 --udp-port $((u + 1)) --udp-remote-port $u --lifetime auto" $u
}
for st in usrsctp usrsctp-nt; do
	prsctp $st "rpr-$st"
done
for r in r2250 r3119 ril rfec rpr-usrsctp rpr-usrsctp-nt; do
	echo "# $r: $(( $(field $r frames_played) + $(field $r frames_concealed) )) of $nfr frames, residual frame loss $(field $r residual_frame_loss_pct) %," \
		"concealed $(field $r frames_concealed) (undecodable $(field $r frames_undecodable))," \
		"longest gap $(field $r longest_gap_ms) ms, recovered by FEC $(field $r fec_recovered)"
done
$X nft list ruleset | grep counter | sed 's/^/# /'
[ "$(field r2250 packets_lost)" -gt 0 ]
ok $? "the rule drops packets: 2250 lost $(field r2250 packets_lost)"
[ "$(field r3119 frames_undecodable)" = 0 ] && [ "$(field ril frames_undecodable)" = 0 ]
ok $? "3119: no frame undecodable for a lost reservoir"
[ "$(field rfec fec_recovered)" -gt 0 ]
ok $? "fec: $(field rfec fec_recovered) ADUs recovered by FEC"
# (PR-SCTP's end: what the sender still had unacknowledged when it closed is not on the
# timeline; its rows are printed)
bad=0
for r in r2250 r3119 ril rfec; do
	t=$(( $(field $r frames_played) + $(field $r frames_concealed) ))
	[ $t -le $nfr ] && [ $t -ge $((nfr - 8)) ] || { echo "# $r: $t of $nfr frames: $(cat "$tmp/$r.json")"; bad=1; }
done
ok $bad "every UDP run keeps the timeline (frames played + concealed = the file's, but for lost ends)"
bad=0
for r in r2250 r3119 ril rfec rpr-usrsctp rpr-usrsctp-nt; do
	grep -q '"accounting_adds_up":true' "$tmp/$r.json" && grep -q '"output_adds_up":true' "$tmp/$r.json" ||
		{ echo "# $r: $(cat "$tmp/$r.json")"; bad=1; }
done
ok $bad "every run: one fate per packet, played == written"
# PR-SCTP, usrsctp-nt beside usrsctp and UDP
nt=$(field rpr-usrsctp-nt residual_frame_loss_pct) us=$(field rpr-usrsctp residual_frame_loss_pct)
ud=$(field r2250 residual_frame_loss_pct)
line="PR-SCTP at $P % loss: usrsctp-nt $nt % residual frame loss, usrsctp $us %, udp (2250) $ud %"
awk -v n="$nt" -v u="$us" -v d="$ud" 'BEGIN { exit !(n != "" && u != "" && d != "" && n <= d && u <= d) }'
ok $? "$line: both SCTP stacks no worse than UDP"
# One draw: 5 points are about two packets' frames. Where the first draw says worse, two more
# draws of each stack decide, by the medians of three (a loaded host's single draw lost 5.2 %
# against 0 % once in CI; the 5-run medians: test/perf/prsctp-loss-bench.sh).
if awk -v n="$nt" -v u="$us" 'BEGIN { exit !(n != "" && n <= u + 5) }'; then
	ok 0 "PR-SCTP at $P % loss: usrsctp-nt $nt % no worse than usrsctp $us % (+5 points for one draw)"
else
	for k in 2 3; do
		for st in usrsctp usrsctp-nt; do
			prsctp $st "rpr-$st-$k"
		done
	done
	med() { for r in "$@"; do field "$r" residual_frame_loss_pct; done | sort -g | sed -n 2p; }
	ntm=$(med rpr-usrsctp-nt rpr-usrsctp-nt-2 rpr-usrsctp-nt-3)
	usm=$(med rpr-usrsctp rpr-usrsctp-2 rpr-usrsctp-3)
	draws="usrsctp-nt $nt, $(field rpr-usrsctp-nt-2 residual_frame_loss_pct), $(field rpr-usrsctp-nt-3 residual_frame_loss_pct); usrsctp $us, $(field rpr-usrsctp-2 residual_frame_loss_pct), $(field rpr-usrsctp-3 residual_frame_loss_pct)"
	awk -v n="$ntm" -v u="$usm" 'BEGIN { exit !(n != "" && u != "" && n <= u + 5) }'
	ok $? "PR-SCTP at $P % loss: usrsctp-nt's median $ntm % no worse than usrsctp's $usm % (+5 points; three draws each, as the first was worse: $draws)"
fi
done_testing
