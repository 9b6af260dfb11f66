#!/bin/bash
# patches-poc.sh: poc 0.4.2 with patches/poc-0.4.2-*.patch over kernel SCTP (-T sctp: every
# message unordered; -T prsctp: also PR-SCTP TTL) against rtpaudio: poc-2250 -> rtpaudio play
# -t sctp|prsctp, poc-3119 -> rtpaudio play -t sctp, rtpaudio send -t sctp|prsctp -> pob-2250; poc-fec -> pob-fec.
# Each decode is compared with mpg123's decode of the file. Kernel SCTP: natively or in the
# VM ("--inner" is the part run there).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}
PB=${SCTPAPPS_PATCHES:-$top_srcdir/build/patches}
P=$PB/bin

if [ "$1" != --inner ]; then
	out=$("$top_srcdir/patches/apply" -q poc 2>&1)
	ok $? "patches/apply poc: $(echo "$out" | tail -n 1)"
	for f in "$R" "$P/poc-2250" "$P/pob-2250"; do
		if [ ! -x "$f" ]; then
			ok 1 "$f built"
			done_testing
			exit
		fi
	done
	for t in sox lame mpg123; do
		if ! command -v $t >/dev/null; then
			ok 1 "$t installed (scripts/setup.sh)"
			done_testing
			exit
		fi
	done
	run_tap kernel_sctp bash "$here/patches-poc.sh" --inner
	done_testing
	exit
fi

scratch patches-poc
ip link set lo mtu 1500 2>/dev/null
# the emulated VM is slow: a deep playout buffer
delay=${RTPAUDIO_DELAY:-1500}
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 3 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"
mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"
for try in $(seq 1 30); do
	port=$((20000 + (RANDOM % 2000) * 16))
	! ss -Hln --sctp "sport >= :$port and sport <= :$((port + 15))" 2>/dev/null | grep -q . && break
done

# identical OUT.wav: every sample of the overlap equal; $cmp is rtpaudio compare's line
identical() {
	cmp=$("$R" compare --max-offset 4608 "$tmp/ref.wav" "$1" 2>&1)
	echo "$cmp" | awk '{split($10, a, "/"); exit !(a[1] == a[2] && a[1] > 0 && $12 == 0)}'
}
reap() { # reap PID SECONDS: its exit status; killed (status 124) if still running after SECONDS
	local i
	for i in $(seq 1 $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		kill "$1"
		wait "$1"
		return 124
	fi
	wait "$1"
}
listening() { # listening PORT: wait until something listens on SCTP PORT
	local i
	for i in $(seq 1 50); do
		ss -Hln --sctp "sport = :$1" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# poc-FMT -T T -> rtpaudio play -t T -f FMT
poc_to_play() {
	local f=$1 t=$2 name=$3 want=$4
	port=$((port + 1))
	"$R" play -t "$t" -f "$f" -d "$delay" --json -o "$tmp/$name.wav" 127.0.0.1:$port \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	local pp=$!
	pids="$pids $pp"
	listening $port
	timeout 60 "$P/poc-$f" -q -T "$t" -L 500 -s 127.0.0.1 -p $port "$tmp/a.mp3" \
		>/dev/null 2>"$tmp/$name.serr"
	ok $? "$name: poc-$f -T $t exits 0 $(head -c 300 "$tmp/$name.serr")"
	reap $pp 20
	ok $? "$name: rtpaudio play -t $t -f $f exits 0 at the end of the association: $(cat "$tmp/$name.json")"
	grep -q "\"frames_played\":$want,\"frames_concealed\":0" "$tmp/$name.json"
	ok $? "$name: $want frames played, none concealed"
	identical "$tmp/$name.wav"
	ok $? "$name: PCM identical to mpg123's decode over the overlap ($cmp)"
}
poc_to_play 2250 sctp poc2250-sctp 116
poc_to_play 2250 prsctp poc2250-prsctp 116
# poc-3119 sends the Info frame as an ADU too: 117 frames
poc_to_play 3119 sctp poc3119-sctp 117

# rtpaudio send -t T -> pob-2250 -T T (pob writes MP3 frames on stdout as they are due and
# stops at the end of the association, its last buffered packets unwritten: -b 8 keeps that
# short)
send_to_pob() {
	local t=$1 name=$2
	port=$((port + 1))
	timeout 60 "$P/pob-2250" -q -T "$t" -b 8 -s 127.0.0.1 -p $port >"$tmp/$name.mp3" \
		2>"$tmp/$name.err" &
	local pp=$!
	pids="$pids $pp"
	listening $port
	"$R" send -t "$t" -f 2250 "$tmp/a.mp3" 127.0.0.1:$port 2>"$tmp/$name.serr"
	ok $? "$name: rtpaudio send -t $t exits 0 $(head -c 300 "$tmp/$name.serr")"
	reap $pp 20
	rc=$?
	# poc's receivers exit 1 whenever their loop ends (the end of the stream too); 124: killed
	[ $rc -ne 124 ]
	ok $? "$name: pob-2250 -T $t ends by itself at the end of the association (status $rc) $(head -c 300 "$tmp/$name.err")"
	mpg123 -q --no-gapless -w "$tmp/$name.wav" "$tmp/$name.mp3" 2>/dev/null
	identical "$tmp/$name.wav" &&
	    [ "$(echo "$cmp" | awk '{print $6}')" = 0 ] && [ "$(echo "$cmp" | awk '{print $4}')" -ge 115200 ]
	ok $? "$name: pob-2250's MP3 decodes identically from the start, at most 16 frames short ($cmp)"
}
send_to_pob sctp send-pob2250-sctp
send_to_pob prsctp send-pob2250-prsctp

# poc-fec -> pob-fec over SCTP (our player takes poc-fec on UDP only)
port=$((port + 1))
timeout 60 "$P/pob-fec" -q -T sctp -b 4 -s 127.0.0.1 -p $port >"$tmp/fec.mp3" 2>"$tmp/fec.err" &
pp=$!
pids="$pids $pp"
listening $port
timeout 60 "$P/poc-fec" -q -T sctp -s 127.0.0.1 -p $port "$tmp/a.mp3" >/dev/null 2>&1
ok $? "poc-fec -T sctp exits 0"
reap $pp 20
rc=$?
[ $rc -ne 124 ]
ok $? "pob-fec -T sctp ends by itself at the end of the association (status $rc)"
mpg123 -q --no-gapless -w "$tmp/fec.wav" "$tmp/fec.mp3" 2>/dev/null
identical "$tmp/fec.wav"
ok $? "poc-fec -> pob-fec over SCTP: decodes identically over the overlap ($cmp)"

"$P/poc-2250" -T tcp -s 127.0.0.1 -p 1 "$tmp/a.mp3" >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "poc-2250 -T tcp is refused"
done_testing
