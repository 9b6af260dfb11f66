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
need "$R" python3 sox lame mpg123
scratch rtpaudio-hostile
port=27100

sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 3 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -t -b 128 "$tmp/src.wav" "$tmp/a.mp3"
mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"

field() { sed -n "s/.*\"$2\":\\([a-z0-9.-]*\\).*/\\1/p" "$tmp/$1.json"; }

run() { # run SCENARIO [SEED]
	local sc=$1 name=$1${2:+-$2} pp rc bad="" kv k v got
	port=$((port + 2))
	"$R" play -d 1000 --idle 3000 -D 60 --json -o "$tmp/$name.wav" 127.0.0.1:$port \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	pp=$!
	wait_bound $port
	python3 "$here/rtpaudio-hostile.py" "$sc" "$tmp/a.mp3" $port ${2:-} >"$tmp/$name.want"
	wait $pp
	rc=$?
	[ $rc = 0 ] && ! grep -Eq 'runtime error|Sanitizer' "$tmp/$name.err"
	ok $? "$name: play exits 0 (exit $rc$(grep -Em1 'runtime error|Sanitizer' "$tmp/$name.err"))"
	for kv in $(cat "$tmp/$name.want"); do
		k=${kv%%=*} v=${kv#*=} got=$(field "$name" "$k")
		[ "$got" = "$v" ] || bad="$bad $k=$got (not $v)"
	done
	[ -z "$bad" ]
	ok $? "$name: the counts expected: $(tr '\n' ' ' <"$tmp/$name.want")${bad:+; wrong:$bad}"
	[ "$(field "$name" accounting_adds_up)" = true ]
	ok $? "$name: the accounting adds up: $(cat "$tmp/$name.json")"
}

exact() {
	local cmp
	cmp=$("$R" compare --exact "$tmp/ref.wav" "$tmp/$1.wav" 2>&1)
	ok $? "$1: PCM identical to mpg123's decode ($cmp)"
}

for sc in clean jump stray restart dup foreign wrongpt tsjump; do
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
