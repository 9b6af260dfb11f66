#!/bin/bash
# rtpaudio-poc.sh: interop with poc (Debian poc-streamer 0.4.2, built by patches/apply) over
# UDP on the loopback. poc as upstream wrote it (build fix only): poc-2250, poc-3119 and
# poc-fec -> rtpaudio play; rtpaudio send -f fec -> pob-fec; its pob-2250 garbles our stream
# (it glues datagrams together) and the patched one plays it; the patched poc-3119 writes
# true 2-byte descriptors. Each decode is compared with mpg123's decode of the file.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}

need "$R" sox lame mpg123
out=$("$top_srcdir/patches/apply" -q poc 2>&1)
ok $? "patches/apply poc: $(echo "$out" | tail -n 1)"
PB=${SCTPAPPS_PATCHES:-$top_srcdir/build/patches}
U=$PB/upstream-bin
P=$PB/bin
scratch rtpaudio-poc
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 3 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"
mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"
port=$((27000 + (RANDOM % 1000) * 4))

# compare NAME OUT.wav: $cmp is rtpaudio compare's line; exact over the overlap: every
# sample of the overlap equal (poc's frame boundaries move the start and the end)
identical() {
	cmp=$("$R" compare --max-offset 4608 "$tmp/ref.wav" "$2" 2>&1)
	echo "$cmp" | awk '{split($10, a, "/"); exit !(a[1] == a[2] && a[1] > 0 && $12 == 0)}'
}
field() { sed "s/.*\"$2\":\\([0-9.]*\\).*/\\1/" "$tmp/$1.json"; }

# poc's sender (DIR/poc-FMT) -> rtpaudio play -f FMT
poc_to_play() {
	local dir=$1 f=$2 name=$3
	port=$((port + 2))
	"$R" play -f "$f" --idle 1500 -D 60 --json -o "$tmp/$name.wav" 127.0.0.1:$port \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	local pp=$!
	pids="$pids $pp"
	wait_bound $port
	timeout 20 "$dir/poc-$f" -q -s 127.0.0.1 -p $port "$tmp/a.mp3" >/dev/null 2>"$tmp/$name.serr"
	ok $? "$name: poc-$f exits 0"
	wait $pp
	ok $? "$name: rtpaudio play -f $f exits 0: $(cat "$tmp/$name.json")"
}

# poc-2250: one frame per packet; its Info frame is not sent. Bit-exact.
poc_to_play "$U" 2250 poc2250
"$R" compare --exact "$tmp/ref.wav" "$tmp/poc2250.wav" >"$tmp/c" 2>&1
ok $? "poc2250: PCM identical to mpg123's decode ($(cat "$tmp/c"))"

# poc-3119: one ADU per packet, its Info frame sent as an ADU (decoded as one frame of
# silence before the audio: offset 1152); its 2-byte descriptors say ADU size + 1, which
# the player tolerates and counts.
poc_to_play "$U" 3119 poc3119
identical poc3119 "$tmp/poc3119.wav"
ok $? "poc3119: PCM identical over the overlap ($cmp)"
[ "$(echo "$cmp" | awk '{print $6}')" = 1152 ]
ok $? "poc3119: offset one frame (poc sends the Info frame)"
[ "$(field poc3119 poc_descriptors)" -gt 100 ]
ok $? "poc3119: $(field poc3119 poc_descriptors) descriptors of ADU size + 1 tolerated"

# the patched poc-3119 writes the true size
poc_to_play "$P" 3119 poc3119fixed
identical poc3119fixed "$tmp/poc3119fixed.wav"
ok $? "poc3119fixed: PCM identical over the overlap ($cmp)"
[ "$(field poc3119fixed poc_descriptors)" = 0 ]
ok $? "poc3119fixed: no off-by-one descriptors"

# poc-fec (k 20, n 25): the last, incomplete group of ADUs is never sent (100 of 116 frames)
poc_to_play "$U" fec pocfec
identical pocfec "$tmp/pocfec.wav"
ok $? "pocfec: PCM identical over the overlap ($cmp)"
[ "$(field pocfec frames_played)" = 100 ] && [ "$(field pocfec fec_groups)" = 5 ]
ok $? "pocfec: 5 groups, 100 frames played"

# rtpaudio send -> DIR/pob-FMT (-b: a buffer small enough to start within our 3 s)
send_to_pob() {
	local dir=$1 f=$2 name=$3 b=$4
	port=$((port + 2))
	timeout 20 "$dir/pob-$f" -q -b "$b" -s 127.0.0.1 -p $port >"$tmp/$name.mp3" \
		2>"$tmp/$name.err" &
	local pp=$!
	pids="$pids $pp"
	wait_bound $port
	"$R" send -f "$f" "$tmp/a.mp3" 127.0.0.1:$port 2>"$tmp/$name.serr"
	ok $? "$name: rtpaudio send -f $f exits 0"
	# pob-* never end by themselves on UDP: they play out the buffer, then wait
	sleep 3
	kill $pp 2>/dev/null
	wait $pp 2>/dev/null
	mpg123 -q --no-gapless -w "$tmp/$name.wav" "$tmp/$name.mp3" 2>/dev/null
}

# -b 8: pob-fec starts once half its ring (4 groups) is in; with 4 it could play the ring empty
# before our last group (spread over its duration) was in, and then wait to prebuffer again
send_to_pob "$U" fec pobfec 8
identical pobfec "$tmp/pobfec.wav"
ok $? "pobfec: pob-fec's MP3 decodes identically over the overlap ($cmp)"
[ "$(echo "$cmp" | awk '{print $4}')" -ge 129024 ]
ok $? "pobfec: at most 4 frames short ($(echo "$cmp" | awk '{print $4}') of 133632)"

# pob-2250 as upstream wrote it reads up to 1500 bytes across datagrams: our packets of two
# frames come out glued and cut; the patched pob-2250 reads one datagram at a time.
send_to_pob "$U" 2250 pob2250 16
! identical pob2250 "$tmp/pob2250.wav"
ok $? "pob2250 (upstream): garbled, as expected of its read loop ($cmp)"
send_to_pob "$P" 2250 pob2250fixed 16
"$R" compare --exact "$tmp/ref.wav" "$tmp/pob2250fixed.wav" >"$tmp/c" 2>&1
ok $? "pob2250fixed: PCM identical to mpg123's decode ($(cat "$tmp/c"))"
done_testing
