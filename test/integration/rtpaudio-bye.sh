#!/bin/bash
# rtpaudio-bye.sh: the sender's RTCP BYE ends a UDP stream (issue 36: play_rtcp.c returns the
# BYE, play.c acts on it, so RTCP's module no longer calls back into play.c). A plain stream
# ends by its BYE ("stream_end": "bye"), at once, not at the --idle limit, every frame played;
# and a BYE read before the stream's last packet (two sockets, one wakeup after a stall: a
# relay holds the last packet back, stops the player, queues the BYE first) still ends it only
# after what the media socket holds has been played. Malformed RTCP ends nothing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}
need "$R" sox lame python3
scratch rtpaudio-bye
port=$((23000 + (RANDOM % 1000) * 8))

# A synthesized chirp, 3 s stereo 44.1 kHz, 192 kbit/s: 116 frames in 58 packets
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 3 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"

# A plain stream: the BYE ends it (the idle limit, 20 s, would be far later); a playout delay
# of 1 s, as below, so that a loaded host does not make a packet late
t0=$(date +%s%N)
"$R" play --idle 20000 -D 60 --playout-delay 1000 --json -o "$tmp/plain.wav" 127.0.0.1:$port \
	>"$tmp/plain.json" 2>"$tmp/plain.err" &
pp=$!
pids="$pids $pp"
wait_bound $port
"$R" send "$tmp/a.mp3" 127.0.0.1:$port 2>/dev/null
wait $pp
prc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $prc = 0 ] && grep -q '"stream_end":"bye"' "$tmp/plain.json" &&
	grep -q '"frames_played":116,"frames_concealed":0' "$tmp/plain.json" && [ $ms -lt 15000 ]
ok $? "a plain UDP stream ends by its BYE after $ms ms (idle limit 20000), 116 frames played (exit $prc): $(cat "$tmp/plain.json")"

# Malformed RTCP on the RTCP port (too short, a bad version, a length past the end) is no BYE:
# sent before the stream (once the sender's RTCP comes the player takes its address only), it
# ends nothing, and the stream plays to its end and its own BYE
port=$((port + 2))
"$R" play --idle 20000 -D 60 --playout-delay 1000 --json -o "$tmp/junk.wav" 127.0.0.1:$port \
	>"$tmp/junk.json" 2>"$tmp/junk.err" &
pp=$!
pids="$pids $pp"
wait_bound $port
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for m in (b"\x81", b"\x00\xcb\x00\x01\x00\x00\x00\x01", b"\x81\xcb\x00\x09\x00\x00\x00\x01"):
    s.sendto(m, ("127.0.0.1", int(sys.argv[1])))
    time.sleep(0.1)
' $((port + 1))
"$R" send "$tmp/a.mp3" 127.0.0.1:$port 2>/dev/null
wait $pp
prc=$?
[ $prc = 0 ] && grep -q '"stream_end":"bye"' "$tmp/junk.json" &&
	grep -q '"frames_played":116,"frames_concealed":0' "$tmp/junk.json"
ok $? "malformed RTCP first does not end the stream: 116 frames played, then its BYE (exit $prc): $(head -c 400 "$tmp/junk.json") $(head -c 200 "$tmp/junk.err")"

# The BYE queued before the last packet
port=$((port + 2))
"$R" play --idle 3000 -D 60 --playout-delay 1000 --json -o "$tmp/bye.wav" 127.0.0.1:$port \
	>"$tmp/bye.json" 2>"$tmp/bye.err" &
pp=$!
pids="$pids $pp"
daemon_start relay listening python3 "$here/rtpaudio-byerelay.py" $((port + 10)) $port $pp
rp=$daemon_pid
wait_bound $port
"$R" send "$tmp/a.mp3" 127.0.0.1:$((port + 10)) 2>/dev/null
wait $pp
prc=$?
wait $rp
n=$(tail -n1 "$tmp/relay.out")
[ $prc = 0 ] && [ "$n" = 58 ] && grep -q "\"packets_received\":$n,\"packets_lost\":0" "$tmp/bye.json" &&
	grep -q '"frames_played":116,"frames_concealed":0' "$tmp/bye.json" &&
	grep -q '"stream_end":"bye"' "$tmp/bye.json"
ok $? "a BYE queued before the last packet: all ${n:-?} of 58 packets played, then the BYE ends the stream (exit $prc): $(cat "$tmp/bye.json")"
done_testing
