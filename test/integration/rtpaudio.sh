#!/bin/bash
# rtpaudio.sh: rtpaudio send -> play on the loopback over udp, tcp (RFC 4571) and usrsctp
# (sctp, prsctp; with the stack's threads and without, usrsctp-nt): the played PCM equals
# mpg123's decode of the file sample for sample (offset 0, same length); a lossy run conceals
# and says "not satisfactory". "--kernel" runs the kernel SCTP variants (inside the VM when
# the host lacks SCTP, see rtpaudio-kernel.sh).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}
mode=${1:-host}
delay=${RTPAUDIO_DELAY:-200}

need "$R" sox lame mpg123
scratch rtpaudio
chmod 755 "$tmp"

# A synthesized chirp, 3 s stereo 44.1 kHz, 192 kbit/s (never a recording).
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 3 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"
# The reference: every audio frame decoded, no gapless trimming (the player does not trim).
mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"
port=$((21000 + (RANDOM % 1000) * 8))

# stream NAME TRANSPORT-ARGS [SEND-ARGS]: play in the background, send, wait for the player
stream() {
	local name=$1 targs=$2 sargs=$3 pargs=
	port=$((port + 2))
	case "$targs" in *usrsctp*)
		# encapsulation ports of our own: other suites' usrsctp stacks use the defaults
		local u=$((30000 + (RANDOM % 4000) * 2))
		pargs="--udp-port $u --udp-remote-port $((u + 1))"
		sargs="$sargs --udp-port $((u + 1)) --udp-remote-port $u"
	esac
	"$R" play $targs $pargs -d "$delay" --idle 2000 -D 60 --json -o "$tmp/$name.wav" 127.0.0.1:$port \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	local pp=$!
	pids="$pids $pp"
	wait_bound $port ${u:-}
	"$R" send $targs $sargs --stats-interval 1000 "$tmp/a.mp3" 127.0.0.1:$port \
		2>"$tmp/$name.serr"
	ok $? "$name: send exits 0"
	local i
	for i in $(seq 1 100); do kill -0 $pp 2>/dev/null || break; sleep 0.1; done
	wait $pp
	ok $? "$name: play ends by itself at the end of the stream and exits 0"
	cat "$tmp/$name.err" "$tmp/$name.serr" | sed 's/^/# /'
}

exact() {
	local name=$1 cmp
	cmp=$("$R" compare --exact "$tmp/ref.wav" "$tmp/$name.wav" 2>&1)
	ok $? "$name: PCM identical to mpg123's decode ($cmp)"
	grep -q '"frames_played":116,"frames_concealed":0' "$tmp/$name.json" &&
		grep -q '"packets_lost":0,"packets_late":0,"packets_duplicate":0' "$tmp/$name.json" &&
		grep -q '"satisfactory":true' "$tmp/$name.json"
	ok $? "$name: statistics: 116 frames played, none lost, satisfactory: $(cat "$tmp/$name.json")"
}

# RTCP both ways: the player's receiver reports reach the sender, which takes the RTT from
# LSR/DLSR (RFC 3550 section 6.4.1) and the player's playout delay from its APP packet.
rtcp() {
	local name=$1 end
	end=$(grep 'rtpaudio send: end ' "$tmp/$name.serr")
	echo "$end" | grep -Eq ' rr=[1-9][0-9]* ' &&
		echo "$end" | grep -Eq ' rtcp_rtt_ms=[0-9]+\.[0-9] ' &&
		echo "$end" | grep -q " playout_ms=$delay " &&
		echo "$end" | grep -q ' rr_cum_lost=0 ' &&
		grep -Eq '"rtcp_rr_sent":[1-9][0-9]*,"rtcp_sr_received":[1-9]' "$tmp/$name.json"
	ok $? "$name: RTCP receiver reports reach the sender, RTT and playout delay known: $end"
}

if [ "$mode" = --kernel ]; then
	stream ksctp "-t sctp"
	exact ksctp
	rtcp ksctp
	stream kprsctp "-t prsctp" "--lifetime 500"
	exact kprsctp
	rtcp kprsctp
	done_testing
	exit
fi

stream udp "-t udp" "--sdp $tmp/udp.sdp"
exact udp
rtcp udp
grep -q '^a=rtpmap:14 MPA/90000' "$tmp/udp.sdp" && grep -q "^m=audio $port RTP/AVP 14" "$tmp/udp.sdp"
ok $? "send --sdp writes an SDP description"
stream tcp "-t tcp"
exact tcp
rtcp tcp
stream usctp "-t sctp -s usrsctp"
exact usctp
rtcp usctp
stream uprsctp "-t prsctp -s usrsctp" "--lifetime 300"
exact uprsctp
# the same over usrsctp without its threads (usrsctp-nt, in rtpaudio's loop)
stream ntsctp "-t sctp -s usrsctp-nt"
exact ntsctp
rtcp ntsctp
stream ntprsctp "-t prsctp -s usrsctp-nt" "--lifetime 300"
exact ntprsctp
# --lifetime auto on an interleaved RFC 3119 stream: its timestamps jump back and forth, so
# the player reports a large jitter where the loopback has none; the sender takes only the
# jitter beyond its own send times' (self_jitter_ms), and keeps the lifetime at the playout
# delay.
stream uauto "-t prsctp -s usrsctp -f 3119" "--interleave 8 --lifetime auto"
st=$(grep -E 'rtpaudio send: (stats|end) .* rr=[1-9]' "$tmp/uauto.serr")
[ -n "$st" ] && echo "$st" | awk -v d="$delay" '{ for (i = 1; i <= NF; i++) { split($i, kv, "=")
	if (kv[1] == "lifetime_ms" && kv[2] + 20 < d) bad = 1
	if (kv[1] == "rr_jitter_ms" && kv[2] + 0 > j) j = kv[2] + 0 } }
	END { exit !(!bad && j >= 30) }' && grep -q '"satisfactory":true' "$tmp/uauto.json"
ok $? "uauto: interleaved 3119, --lifetime auto: the reported jitter is the interleaving's, the lifetime stays within 20 ms of the playout delay $delay: $(echo "$st" | grep -o 'lifetime_ms=[0-9]*\|rr_jitter_ms=[0-9.]*\|self_jitter_ms=[0-9.]*' | paste -sd' ')"
# Small MTU: frames (626/627 bytes) in fragments of at most 300-byte packets.
stream frag "-t udp" "--mtu 300"
exact frag

# Every 10th packet never sent: lost, concealed (plus frames whose bit reservoir went with
# the loss), the length kept, the verdict negative.
stream lossy "-t udp" "--drop-every 10"
j=$(cat "$tmp/lossy.json")
echo "$j" | grep -q '"packets_lost":5,' && echo "$j" | grep -q '"satisfactory":false'
ok $? "lossy: 5 of 58 packets lost, not satisfactory: $j"
fp=$(echo "$j" | sed 's/.*"frames_played":\([0-9]*\).*/\1/')
fc=$(echo "$j" | sed 's/.*"frames_concealed":\([0-9]*\).*/\1/')
[ $((fp + fc)) -eq 116 ] && [ "$fc" -ge 10 ]
ok $? "lossy: played $fp + concealed $fc = 116 frames"
cmp=$("$R" compare --min-corr 0.8 --count-tolerance 0 "$tmp/ref.wav" "$tmp/lossy.wav")
ok $? "lossy: output still aligned and close ($cmp)"

# --reference: segmental SNR against a clean decode; --driver wav: through libout123's writer
port=$((port + 2))
"$R" play --reference "$tmp/a.mp3" --driver wav -o "$tmp/drv.wav" --idle 2000 -D 60 --json \
	127.0.0.1:$port >"$tmp/ref.json" 2>"$tmp/ref.err" &
pp=$!
pids="$pids $pp"
sleep 0.5
"$R" send --drop-every 10 "$tmp/a.mp3" 127.0.0.1:$port 2>/dev/null
wait $pp
snr=$(sed -n 's/.*"segsnr_db":\([-0-9.]*\).*/\1/p' "$tmp/ref.json")
awk -v s="$snr" 'BEGIN { exit !(s != "" && s > 20 && s < 59) }'
ok $? "--reference: a lossy stream's segmental SNR is $snr dB (60 is loss-free): $(cat "$tmp/ref.json")"
cmp=$("$R" compare --min-corr 0.8 --count-tolerance 0 "$tmp/ref.wav" "$tmp/drv.wav" 2>&1)
ok $? "--driver wav -o: libout123 wrote the played audio ($cmp)"
"$R" play --driver default -D 1 127.0.0.1:$((port + 40)) >/dev/null 2>"$tmp/dev.err"
rc=$?
[ $rc = 0 ] || { [ $rc = 1 ] && grep -q 'no sound device on this machine' "$tmp/dev.err"; }
ok $? "--driver default: plays, or says there is no sound device (exit $rc)"

# The BYE that ends a stream, also when read before its last packet: rtpaudio-bye.sh.

"$R" --help | grep -q 'rtpaudio play' && "$R" send --help | grep -q -- '--lifetime' &&
	"$R" play --help | grep -q -- '--playout-delay'
ok $? "--help documents the subcommands and options"
"$R" send -t bogus "$tmp/a.mp3" 127.0.0.1:1 2>/dev/null
[ $? -eq 1 ]
ok $? "an unknown transport is refused"
"$R" send "$tmp/src.wav.nope" 127.0.0.1:1 2>/dev/null
[ $? -eq 1 ]
ok $? "a missing file is refused"
done_testing
