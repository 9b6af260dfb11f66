#!/bin/bash
# rtpaudio-hostile.sh: rtpaudio play against a hostile sender (rtpaudio-hostile.py): sequence
# jumps, a stray packet, an SSRC restart, timestamp jumps (spliced), duplicates, a foreign SSRC
# interleaved, wrong payload types, a sender whose SR counts packets never sent, mutated
# datagrams; two files joined with cat; --idle bounding the wait for a sender. Each run: the counts the sender expects, the accounting adding up (every
# datagram played, late, duplicate, malformed, wrong payload type, other source, unvalidated
# or oversized; every frame of the timeline played or concealed), the PCM exact where every
# frame came; and nothing received is an error, with no output file. A 1 s playout delay
# keeps a loaded host (CI, ASan) from making packets late; -D 60 lets python3 take its time
# to start (seconds on a loaded host) where --idle alone would bound the wait for it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}
need "$R" python3 sox soxi lame mpg123
scratch rtpaudio-hostile
port=27100

sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 3 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -t -b 128 "$tmp/src.wav" "$tmp/a.mp3"
sox -n -r 32000 -c 1 -b 16 "$tmp/m.wav" synth 1 sine 440 vol 0.5
lame --quiet -t -b 64 "$tmp/m.wav" "$tmp/m.mp3"
mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"

field() { sed -n "s/.*\"$2\":\"\\{0,1\\}\\([a-z0-9.-]*\\).*/\\1/p" "$tmp/$1.json"; }

# Every run, whatever the sender did: the exit status it expects (exit=N, default 0), the
# counts it expects, one fate per packet (the accounting adds up), and what the listener got:
# frames played + concealed = frames written = the WAV's own samples / 1152.
run() { # run SCENARIO [SEED]
	local sc=$1 name=$1${2:+-$2} pp rc bad="" kv k v got want_rc pl co wr fw
	port=$((port + 2))
	"$R" play -d 1000 --idle 3000 -D 60 --json -o "$tmp/$name.wav" 127.0.0.1:$port \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	pp=$!
	wait_bound $port
	HOSTILE_MP3B=$tmp/m.mp3 python3 "$here/rtpaudio-hostile.py" "$sc" "$tmp/a.mp3" $port \
		${2:-} >"$tmp/$name.want"
	wait $pp
	rc=$?
	want_rc=$(sed -n 's/^exit=//p' "$tmp/$name.want")
	[ $rc = "${want_rc:-0}" ] && ! grep -Eq 'runtime error|Sanitizer' "$tmp/$name.err"
	ok $? "$name: play exits ${want_rc:-0} (exit $rc $(head -c 300 "$tmp/$name.err"))"
	for kv in $(grep -v '^exit=' "$tmp/$name.want"); do
		k=${kv%%=*} v=${kv#*=} got=$(field "$name" "$k")
		[ "$got" = "$v" ] || bad="$bad $k=$got (not $v)"
	done
	[ -z "$bad" ]
	ok $? "$name: the counts expected: $(tr '\n' ' ' <"$tmp/$name.want")${bad:+; wrong:$bad}"
	[ "$(field "$name" accounting_adds_up)" = true ]
	ok $? "$name: the accounting adds up: $(cat "$tmp/$name.json")"
	pl=$(field "$name" frames_played) co=$(field "$name" frames_concealed)
	wr=$(field "$name" frames_written) fw=$(($(soxi -s "$tmp/$name.wav" 2>/dev/null || echo -1152) / 1152))
	[ -n "$pl" ] && [ $((pl + co)) = "$wr" ] && [ "$wr" = "$fw" ] &&
		[ "$(field "$name" output_adds_up)" = true ]
	ok $? "$name: played == written: $pl played + $co concealed = $wr written = $fw in the WAV; one fate per packet: $(field "$name" packets_received) received, accounting_adds_up $(field "$name" accounting_adds_up)"
}

exact() {
	local cmp
	cmp=$("$R" compare --exact "$tmp/ref.wav" "$tmp/$1.wav" 2>&1)
	ok $? "$1: PCM identical to mpg123's decode ($cmp)"
}

for sc in clean jump stray restart dup foreign wrongpt tsjump zerolen pause srlie intruder \
    restart4; do
	run $sc
	[ "$(field $sc satisfactory)" = true ]
	ok $? "$sc: satisfactory"
	exact $sc
done
run tsback
[ "$(field tsback satisfactory)" = false ]
ok $? "tsback: 7 packets late (6 %) before the jump is clear: not satisfactory"
run tail
[ "$(field tail satisfactory)" = false ] && [ "$(field tail sender_packets)" = 116 ] &&
	[ "$(field tail sender_packets_missing)" = 56 ]
ok $? "tail: the sender's SR counts 116 packets, 56 never came: not satisfactory"
for seed in 1 2 3; do
	run mutated $seed
done
# what the listener got, whatever the sender did (issue 32): a format change refused (exit 1,
# the WAV holds what was played), a stalled sender's end not satisfactory, losses before a
# restart or a new source in packets_lost
for sc in rate stall jumploss restartloss; do
	run $sc
done
# the text report and the JSON say the same (zerolen again, as text): every count of the
# text equals its JSON field, and bad = malformed + wrong payload type in both
port=$((port + 2))
"$R" play -d 1000 --idle 3000 -D 60 -o "$tmp/zt.wav" 127.0.0.1:$port >"$tmp/zt.txt" 2>/dev/null &
pp=$!
wait_bound $port
python3 "$here/rtpaudio-hostile.py" zerolen "$tmp/a.mp3" $port >/dev/null
wait $pp
t=$(sed -n 's/^packets: \([0-9]*\) received, \([0-9]*\) lost, \([0-9]*\) late, \([0-9]*\) duplicated, \([0-9]*\) bad$/\1 \2 \3 \4 \5/p' "$tmp/zt.txt")
t="$t $(sed -n 's/^frames: \([0-9]*\) played, \([0-9]*\) concealed (\([0-9]*\) undecodable.*/\1 \2 \3/p' "$tmp/zt.txt")"
t="$t $(sed -n 's/^accounting: \([0-9]*\) received = \([0-9]*\) played + \([0-9]*\) late + \([0-9]*\) duplicate + \([0-9]*\) malformed + \([0-9]*\) wrong payload type + \([0-9]*\) other source + \([0-9]*\) unvalidated + \([0-9]*\) oversized.*/\1 \2 \3 \4 \5 \6 \7 \8 \9/p' "$tmp/zt.txt")"
t="$t $(sed -n 's/^output: \([0-9-]*\) frames written = \([0-9]*\) played + \([0-9]*\) concealed, \([0-9]*\) refused.*/\1 \2 \3 \4/p' "$tmp/zt.txt")"
j=""
for k in packets_received packets_lost packets_late packets_duplicate packets_bad frames_played \
    frames_concealed frames_undecodable packets_received packets_played packets_late \
    packets_duplicate packets_malformed packets_wrong_pt packets_other_source \
    packets_unvalidated packets_oversized frames_written frames_played frames_concealed \
    frames_refused; do
	j="$j $(field zerolen $k)"
done
set -- $t
[ "$(echo $t)" = "$(echo $j)" ] && [ $# = 21 ] && [ "$5" = $((${13} + ${14})) ] &&
	[ "$(field zerolen packets_bad)" = $(($(field zerolen packets_malformed) + $(field zerolen packets_wrong_pt))) ]
ok $? "zerolen as text: the counts are the JSON's ($(echo $t) / $(echo $j)), bad = malformed + wrong payload type"
grep -q "the stream changed format after 40 frames, from 44100 Hz 2 channels to 32000 Hz 1 channel: an output holds one format" "$tmp/rate.err"
ok $? "rate: the reason: $(cat "$tmp/rate.err")"
# an output that fails (a file size limit: a full disk's write error, in a file of ours):
# exit 1 with the reason after the report, which says what the WAV holds (the frames before
# the failing one), played == written, not satisfactory
port=$((port + 2))
(trap '' XFSZ; ulimit -f 100; exec "$R" play -d 1000 --idle 3000 -D 60 --json -o "$tmp/full.wav" \
	127.0.0.1:$port) >"$tmp/full.json" 2>"$tmp/full.err" &
pp=$!
wait_bound $port
python3 "$here/rtpaudio-hostile.py" clean "$tmp/a.mp3" $port >/dev/null
wait $pp
rc=$?
fw=$(($(soxi -s "$tmp/full.wav" 2>/dev/null || echo -1152) / 1152))
[ $rc = 1 ] && grep -q "full.wav: write failed: File too large" "$tmp/full.err" &&
	[ "$(field full frames_written)" = "$fw" ] && [ "$fw" -gt 10 ] && [ "$fw" -lt 30 ] &&
	[ "$(field full frames_played)" = "$fw" ] && [ "$(field full output_adds_up)" = true ] &&
	[ "$(field full satisfactory)" = false ] && [ "$(field full accounting_adds_up)" = true ] &&
	[ "$(field full frames_refused)" = $((116 - fw)) ]
ok $? "a write error at 100 KB: exit $rc, $(cat "$tmp/full.err"); $fw frames in the WAV; $(cat "$tmp/full.json")"

# two files joined with cat (ID3 tags and a Xing frame mid-file) over RFC 2250 and RFC 5219:
# the Xing frame in the middle has its place on the timeline and is decoded (mpg123 decodes it
# too), nothing is concealed at the join, and the PCM is mpg123's decode of the same frames
# sample for sample: of the file without the ID3v2 tag in the middle (the sender leaves tags
# out). mpg123 given the joined file itself differs in the Xing frame only (some hundred
# samples by ~100 of 32768): meeting an ID3v2 tag mid-stream it resets part of its decoder,
# which the frames alone do not ask for; that is checked too.
sox -n -r 44100 -c 2 -b 16 "$tmp/b.wav" synth 1 sine 660 vol 0.5
lame --quiet -b 128 --tt A "$tmp/src.wav" "$tmp/ja.mp3"
lame --quiet -b 128 --tt B "$tmp/b.wav" "$tmp/jb.mp3"
cat "$tmp/ja.mp3" "$tmp/jb.mp3" >"$tmp/jab.mp3"
mpg123 -q --no-gapless -w "$tmp/jab.ref.wav" "$tmp/jab.mp3"
# jb.mp3's ID3v2 tag: 10 bytes and a syncsafe size
set -- $(od -An -tu1 -j6 -N4 "$tmp/jb.mp3")
id3=$((10 + ($1 << 21 | $2 << 14 | $3 << 7 | $4)))
{ cat "$tmp/ja.mp3"; tail -c +$((id3 + 1)) "$tmp/jb.mp3"; } >"$tmp/jab.frames.mp3"
mpg123 -q --no-gapless -w "$tmp/jab.frames.wav" "$tmp/jab.frames.mp3"
[ "$(head -c 3 "$tmp/jb.mp3")" = ID3 ] && [ "$(tail -c +$((id3 + 1)) "$tmp/jb.mp3" | head -c 1 | od -An -tx1)" = " ff" ]
ok $? "jb.mp3 has an ID3v2 tag of $id3 bytes, frames after it"
for f in 2250 3119; do
	port=$((port + 2))
	"$R" play -f $f -d 1000 --idle 3000 -D 60 --json -o "$tmp/jab$f.wav" 127.0.0.1:$port \
		>"$tmp/jab$f.json" 2>/dev/null &
	pp=$!
	wait_bound $port
	"$R" send -f $f "$tmp/jab.mp3" 127.0.0.1:$port 2>/dev/null
	wait $pp
	cmp=$("$R" compare --exact "$tmp/jab.frames.wav" "$tmp/jab$f.wav" 2>&1) &&
		[ "$(field jab$f frames_concealed)" = 0 ] && [ "$(field jab$f satisfactory)" = true ]
	ok $? "cat-joined files over $f: nothing concealed, satisfactory, PCM exactly mpg123's of the frames ($cmp)"
	cmp=$("$R" compare --max-offset 0 --count-tolerance 0 --min-corr 0.9999 \
	    "$tmp/jab.ref.wav" "$tmp/jab$f.wav" 2>&1) &&
		"$R" compare --max-offset 0 --min-corr 0.9999 "$tmp/jab.ref.wav" "$tmp/jab.frames.wav" >/dev/null
	ok $? "cat-joined files over $f: mpg123 of the joined file differs in the Xing frame only, as mpg123 of the frames does ($cmp)"
done

# --idle without --duration bounds the wait for the first packet (udp) or connection
# (usrsctp): "nothing received", exit 1, in about the idle time
for t in udp "sctp -s usrsctp --udp-port $((30000 + (RANDOM % 4000) * 2))"; do
	port=$((port + 2))
	t0=$(date +%s%N)
	"$R" play -t $t --idle 1000 -o "$tmp/idle.wav" 127.0.0.1:$port >/dev/null 2>"$tmp/idle.err"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $rc = 1 ] && grep -q "nothing received on 127.0.0.1:$port" "$tmp/idle.err" &&
		[ $ms -ge 900 ] && [ $ms -lt 10000 ] && [ ! -e "$tmp/idle.wav" ]
	ok $? "play -t ${t%% *} --idle 1000, no sender: exit $rc after $ms ms, $(cat "$tmp/idle.err")"
done

# nothing received: an error naming the address, exit 1, no 0-byte file that is not a WAV
port=$((port + 2))
"$R" play --duration 1 -o "$tmp/none.wav" 127.0.0.1:$port >"$tmp/none.out" 2>"$tmp/none.err"
rc=$?
[ $rc = 1 ] && grep -q "nothing received on 127.0.0.1:$port" "$tmp/none.err" && [ ! -e "$tmp/none.wav" ]
ok $? "nothing received: exit $rc, $(cat "$tmp/none.err"), no output file"
done_testing
