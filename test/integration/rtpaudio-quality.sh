#!/bin/bash
# rtpaudio-quality.sh: play --reference's quality figure, the share of the reference's 20 ms
# segments played back at 20 dB SNR or better ("intact segments"), ranks the loss: over
# 0, 1, 3, 5 and 10 % packet loss (send --drop-every 100, 33, 20, 10: the same packets every
# run) it never rises, in every format (RFC 2250, RFC 5219, poc-fec), and for the formats
# without FEC it is lower at 5 % than at 1 % and lower at 1 % than loss-free (100). The
# segmental SNR, clamped at 60 dB per segment, does not separate them as clearly; both are
# printed. One frame (ADU) a packet (--mtu 700), so that 1 % drops some. `rtpaudio compare
# --quality` (experiment 05's figure, from the WAV written, aligned in whole frames) gives
# the player's figure for every one of these streams, and finds a frame offset.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}
need "$R" sox lame mpg123
scratch rtpaudio-quality
port=27300

sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 5 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"

field() { sed -n "s/.*\"$2\":\\([a-z0-9.-]*\\).*/\\1/p" "$tmp/$1.json"; }

# the five losses of a format at once (each on its own ports), real time; a 2 s playout
# delay keeps a loaded host's scheduling out of the figures
for fmt in 2250 3119 fec; do
	fa="-f $fmt"
	[ $fmt = fec ] && sa="-f fec -k 4 -n 5" || sa="-f $fmt --mtu 700"
	for loss in 0 1 3 5 10; do
		case $loss in 0) d=0 ;; 1) d=100 ;; 3) d=33 ;; 5) d=20 ;; 10) d=10 ;; esac
		port=$((port + 2))
		(
			"$R" play $fa -d 2000 --idle 3000 -D 60 --json --reference "$tmp/a.mp3" \
				-o "$tmp/$fmt-$loss.wav" 127.0.0.1:$port \
				>"$tmp/$fmt-$loss.json" 2>"$tmp/$fmt-$loss.err" &
			pp=$!
			wait_bound $port
			"$R" send $sa --drop-every $d "$tmp/a.mp3" 127.0.0.1:$port 2>/dev/null
			wait $pp
		) &
		pids="$pids $!"
	done
	wait
done
# compare --quality's frame-granular alignment: the clean decode 3 frames late (padded) and
# 2 frames early (its start cut); REF as WAV
mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"
sox "$tmp/ref.wav" "$tmp/late.wav" pad 3456s
sox "$tmp/ref.wav" "$tmp/early.wav" trim 2304s
a=$("$R" compare --quality "$tmp/ref.wav" "$tmp/late.wav")
b=$("$R" compare --quality "$tmp/ref.wav" "$tmp/early.wav")
case "$a/$b" in
"intact_segments_pct 100.00 segsnr_db 60.00 segments "*" offset 3456/intact_segments_pct "*" offset -2304") r=0 ;;
*) r=1 ;;
esac
ok $r "compare --quality aligns in whole frames: $a / $b"
"$R" compare --quality "$tmp/a.mp3" "$tmp/nonesuch.wav" 2>"$tmp/cq.err"
[ $? = 2 ] && grep -q "nonesuch.wav" "$tmp/cq.err"
ok $? "compare --quality: a missing file is an error naming it ($(cat "$tmp/cq.err"))"
for fmt in 2250 3119 fec; do
	line="" prev=101 mono=0
	for loss in 0 1 3 5 10; do
		q=$(field $fmt-$loss intact_segments_pct)
		s=$(field $fmt-$loss segsnr_db)
		line="$line $loss%: ${q:-none} (segsnr ${s:-none} dB, $(field $fmt-$loss satisfactory));"
		[ -n "$q" ] && awk -v a="$q" -v b="$prev" 'BEGIN { exit !(a <= b) }' || mono=1
		prev=${q:-0}
	done
	[ $mono = 0 ]
	ok $? "$fmt: intact segments never rise with the loss:$line"
	same=0 line=""
	for loss in 0 1 3 5 10; do
		q=$("$R" compare --quality "$tmp/a.mp3" "$tmp/$fmt-$loss.wav" |
			sed -n 's/^intact_segments_pct \([0-9.]*\) .* offset 0$/\1/p')
		line="$line $loss%: ${q:-none};"
		[ -n "$q" ] && [ "$q" = "$(field $fmt-$loss intact_segments_pct)" ] || same=1
	done
	[ $same = 0 ]
	ok $? "$fmt: compare --quality from the WAV gives the player's figure, offset 0:$line"
	[ "$(field $fmt-0 intact_segments_pct)" = 100.00 ]
	ok $? "$fmt: loss-free: 100.00 % intact"
	bad=0 line=""
	for loss in 0 1 3 5 10; do
		a=$(field $fmt-$loss accounting_adds_up)
		line="$line $loss%: ${a:-none} (lost $(field $fmt-$loss packets_lost), concealed $(field $fmt-$loss frames_concealed));"
		[ "$a" = true ] || bad=1
	done
	[ $bad = 0 ]
	ok $? "$fmt: every packet and frame accounted for at each loss (accounting_adds_up):$line"
	if [ $fmt != fec ]; then
		awk -v a="$(field $fmt-0 intact_segments_pct)" -v b="$(field $fmt-1 intact_segments_pct)" \
		    -v c="$(field $fmt-5 intact_segments_pct)" 'BEGIN { exit !(a > b && b > c) }'
		ok $? "$fmt: 1 % loss ranks below loss-free and above 5 %"
	fi
done
done_testing
