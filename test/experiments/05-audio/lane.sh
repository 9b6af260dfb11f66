#!/bin/bash
# test/experiments/05-audio/lane.sh: a lane of experiment 05: one pair of hosts (lab.sh) and
# its jobs one after the other, each a stream on the link set for it. Lanes are processes of
# their own (lab.sh names namespaces after the shell's pid) and run side by side.
# Usage: lane.sh JOBS OUT; JOBS has lines "DRAW RATE LOSS_PCT FORMAT TRANSPORT [LIFETIME
# [OPTS...]]" (DRAW 1, 2, ...: a cell measured more than once, NAME-dDRAW after the first;
# FORMAT 2250 | 3119 | fec; TRANSPORT udp | sctp | prsctp; LIFETIME MS or auto; OPTS more
# options for the sender). For each job OUT gets NAME.json (the player's statistics),
# NAME.send (the sender's) and NAME.quality (`rtpaudio compare --quality` of the WAV played
# against A5_REF, computed after the stream at the lowest priority, the WAV then deleted:
# the player's own --reference is too slow under TCG).
# Environment: EXP_ROOT, A5_MP3, A5_REF (its clean decode, WAV), A5_DELAY_MS (one-way),
# A5_PLAYOUT_MS, A5_SECS, A5_QUEUE_MS.
# The link is lossless while the association comes up (INIT's first timer is 3 s: a lost
# INIT would cost the stream its start), and gets its loss before the first packet.
set -u
jobs=$1 out=$2
LAB_OUT=$out
. "$EXP_ROOT/test/lab/lab.sh"
R=$EXP_ROOT/rtpaudio/rtpaudio

# a5_link RATE DELAY_MS LOSS_PCT: lab_link's netem (replaced in place, no lab_link: each
# exec costs under TCG), its queue cut to a router's: about
# A5_QUEUE_MS at the link rate (600-byte packets) + the packets the delay line holds. netem's
# 10000 packets would hold a minute of audio: an overloaded link would then only delay
# everything (every transport alike) instead of dropping what does not fit.
a5_link() {
	local rate=$1 delay=$2 loss=$3 bps limit ns args
	case $rate in
	*mbit) bps=$((${rate%mbit} * 1000000)) ;;
	*kbit) bps=$((${rate%kbit} * 1000)) ;;
	*) bps=${rate%bit} ;;
	esac
	limit=$(( bps * A5_QUEUE_MS / 1000 / 8 / 600 + bps * delay / 1000 / 8 / 600 + 3 ))
	args="delay ${delay}ms"
	[ "$loss" = 0 ] || args="$args loss random ${loss}%"
	args="$args rate $rate"
	for ns in "$LAB_NS_A" "$LAB_NS_B"; do
		# shellcheck disable=SC2086
		ip netns exec "$ns" tc qdisc replace dev eth0 root netem limit "$limit" $args ||
			lab_die "netem limit $limit on $ns failed"
	done
}

# a5_stream NAME: one stream of the job set up below (pa, sa, rate, loss)
a5_stream() {
	local name=$1 pp sp
	a5_link "$rate" "$A5_DELAY_MS" 0
	# the player gives up A5_SECS + 30 s after it starts, whatever happens
	lab_bg b "$R" play "${pa[@]}" -d "$A5_PLAYOUT_MS" --idle 3000 -D $((A5_SECS + 30)) \
		--json -o "$out/$name.wav" "$LAB_B_IP:5004" >"$out/$name.json" 2>"$out/$name.play"
	pp=$LAB_PID
	sleep 0.5
	lab_bg a "$R" send "${sa[@]}" --start-delay 1000 "$A5_MP3" "$LAB_B_IP:5004" \
		2>"$out/$name.send"
	sp=$LAB_PID
	sleep 0.6
	a5_link "$rate" "$A5_DELAY_MS" "$loss"
	wait "$sp"
	wait "$pp"
}

first=1
while read -r draw rate loss fmt tr life more; do
	[ -n "$rate" ] || continue
	name=$fmt-$tr${life:+-$life}-$rate-$loss
	[ "$draw" = 1 ] || name=$name-d$draw
	if [ $first = 1 ]; then
		lab_two_hosts "$rate" "$A5_DELAY_MS" 0
		first=0
	fi
	pa=(-t "$tr" -f "$fmt")
	sa=(-t "$tr" -f "$fmt" --playout-delay "$A5_PLAYOUT_MS" --stats-interval 1000)
	case $fmt in
	3119) sa+=(--interleave 8) ;;
	fec) sa+=(-k 20 -n 25) ;;
	esac
	[ -n "$life" ] && sa+=(--lifetime "$life")
	# shellcheck disable=SC2206
	[ -n "$more" ] && sa+=($more)
	# A stream whose sender's timer fired 100 ms late or more measured the emulator, not
	# the link: it is run again (twice at most), the earlier try kept as NAME.tryN.*.
	for try in 1 2 3; do
		rm -f "$out/$name.wav"
		a5_stream "$name"
		late=$(sed -n 's/.*rtpaudio send: end .* late_max_ms=\([0-9.]*\).*/\1/p' "$out/$name.send")
		awk -v l="${late:-0}" 'BEGIN { exit !(l >= 100) }' && [ $try -lt 3 ] || break
		echo "$name $late" >>"$out/reruns.txt"
		for f in json play send; do mv "$out/$name.$f" "$out/$name.try$try.$f"; done
	done
	[ -s "$out/$name.wav" ] &&
		nice -n 19 "$R" compare --quality "$A5_REF" "$out/$name.wav" >"$out/$name.quality"
	rm -f "$out/$name.wav"
	echo "$name" >>"$out/done.txt"
done <"$jobs"
