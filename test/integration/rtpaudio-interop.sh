#!/bin/bash
# rtpaudio-interop.sh: rtpaudio's RFC 2250 stream against other implementations: our sender
# to GStreamer (rtpmpadepay) and to ffmpeg (from our SDP file); GStreamer's rtpmpapay and
# ffmpeg's RTP muxer to our player. Each output is compared with mpg123's decode of the file.
# RFC 5219 (--format 3119) to ffmpeg; GStreamer's rtpmparobustdepay gives an empty WAV (its
# bug: the ADU descriptor's lengths swapped, README "Interop: GStreamer's rtpmparobustdepay"):
# printed, with its debug log's first descriptor line, not asserted.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}

if [ ! -x "$R" ]; then
	ok 1 "$R not built (needs libmpg123-dev)"
	done_testing
	exit
fi
for t in sox lame mpg123 gst-launch-1.0 ffmpeg; do
	if ! command -v $t >/dev/null; then
		ok 1 "$t installed (scripts/setup.sh)"
		done_testing
		exit
	fi
done
scratch rtpaudio-interop
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 3 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"
mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"
port=$((23000 + (RANDOM % 1000) * 8))
caps="application/x-rtp,media=audio,clock-rate=90000,encoding-name=MPA,payload=14"

# our sender -> GStreamer (-e: SIGINT turns into EOS, so wavenc finishes its header)
gst-launch-1.0 -e -q udpsrc port=$port caps="$caps" ! rtpmpadepay ! mpegaudioparse ! \
	mpg123audiodec ! wavenc ! filesink location="$tmp/gst.wav" >"$tmp/gst.log" 2>&1 &
g=$!
pids="$pids $g"
sleep 1
"$R" send "$tmp/a.mp3" 127.0.0.1:$port
ok $? "send to GStreamer exits 0"
sleep 0.5
kill -INT $g
wait $g
cmp=$("$R" compare --exact "$tmp/ref.wav" "$tmp/gst.wav")
ok $? "GStreamer (rtpmpadepay ! mpg123audiodec) plays it identically ($cmp)"

# our sender -> ffmpeg, which reads our SDP file and ends at our RTCP BYE. Its decoder is
# not mpg123 (rounding differs by 1 LSB), so: same length, offset 0, correlation >= 0.999.
port=$((port + 2))
"$R" send --sdp "$tmp/ff.sdp" --start-delay 1500 "$tmp/a.mp3" 127.0.0.1:$port &
s=$!
pids="$pids $s"
for i in $(seq 1 20); do [ -s "$tmp/ff.sdp" ] && break; sleep 0.05; done
timeout 20 ffmpeg -nostdin -loglevel error -protocol_whitelist file,udp,rtp -i "$tmp/ff.sdp" \
	-y "$tmp/ff.wav" >"$tmp/ff.log" 2>&1
ok $? "ffmpeg receives from our SDP and ends at the BYE"
wait $s
cmp=$("$R" compare --min-corr 0.999 --count-tolerance 0 "$tmp/ref.wav" "$tmp/ff.wav")
ok $? "ffmpeg's decode matches ($cmp)"
[ "$(echo "$cmp" | awk '{print $6}')" = 0 ]
ok $? "ffmpeg's output starts at offset 0"

# GStreamer's sender -> our player. mpegaudioparse passes the Info frame on (we skip it)
# and leaves out the first two audio frames: offset -2304, the first frame after them
# decoded without its predecessor's overlap; so: correlation >= 0.95, length within 2 frames.
port=$((port + 2))
"$R" play -o "$tmp/g2.wav" --idle 1500 -D 60 --json 127.0.0.1:$port >"$tmp/g2.json" &
p=$!
pids="$pids $p"
sleep 0.3
gst-launch-1.0 -q filesrc location="$tmp/a.mp3" ! mpegaudioparse ! rtpmpapay ! \
	udpsink host=127.0.0.1 port=$port sync=true
ok $? "GStreamer rtpmpapay sends"
wait $p
ok $? "our player ends at the idle timeout: $(cat "$tmp/g2.json")"
cmp=$("$R" compare --min-corr 0.95 --count-tolerance 0 "$tmp/ref.wav" "$tmp/g2.wav")
ok $? "GStreamer's stream plays close to the reference ($cmp)"
grep -q '"frames_concealed":0' "$tmp/g2.json"
ok $? "nothing concealed from GStreamer's stream"

# ffmpeg's RTP muxer -> our player: identical samples, the last packet (2 frames) missing
# (ffmpeg does not send it), hence a tolerance of 2 frames.
port=$((port + 2))
"$R" play -o "$tmp/f2.wav" --idle 1500 -D 60 --json 127.0.0.1:$port >"$tmp/f2.json" &
p=$!
pids="$pids $p"
sleep 0.3
ffmpeg -nostdin -loglevel error -re -i "$tmp/a.mp3" -acodec copy -f rtp \
	rtp://127.0.0.1:$port >/dev/null
ok $? "ffmpeg -f rtp sends"
wait $p
ok $? "our player ends: $(cat "$tmp/f2.json")"
cmp=$("$R" compare --min-corr 0.999 --count-tolerance 2304 "$tmp/ref.wav" "$tmp/f2.wav")
ok $? "ffmpeg's stream plays as the reference ($cmp)"

# our RFC 5219 sender -> ffmpeg (mpa-robust from our SDP): the same samples as mpg123's
port=$((port + 2))
"$R" send -f 3119 --sdp "$tmp/f3.sdp" --start-delay 1500 "$tmp/a.mp3" 127.0.0.1:$port &
s=$!
pids="$pids $s"
for i in $(seq 1 20); do [ -s "$tmp/f3.sdp" ] && break; sleep 0.05; done
timeout 20 ffmpeg -nostdin -loglevel error -protocol_whitelist file,udp,rtp -i "$tmp/f3.sdp" \
	-y "$tmp/f3.wav" >"$tmp/f3.log" 2>&1
wait $s
cmp=$("$R" compare --min-corr 0.999 --count-tolerance 0 "$tmp/ref.wav" "$tmp/f3.wav")
ok $? "ffmpeg decodes our --format 3119 (mpa-robust) stream as the reference ($cmp)"
# ... and GStreamer's rtpmparobustdepay (its bug, not asserted)
port=$((port + 2))
GST_DEBUG=rtpmparobustdepay:6 GST_DEBUG_NO_COLOR=1 gst-launch-1.0 -e -q udpsrc port=$port \
	caps="application/x-rtp,media=audio,clock-rate=90000,encoding-name=MPA-ROBUST,payload=96" ! \
	rtpmparobustdepay ! mpegaudioparse ! mpg123audiodec ! wavenc ! \
	filesink location="$tmp/g3.wav" >"$tmp/g3.log" 2>&1 &
g=$!
pids="$pids $g"
sleep 1
"$R" send -f 3119 "$tmp/a.mp3" 127.0.0.1:$port
sleep 0.5
kill -INT $g
wait $g
diag "GStreamer rtpmparobustdepay from our --format 3119: $(stat -c %s "$tmp/g3.wav" 2>/dev/null || echo no) bytes of WAV; its first descriptor read: $(grep -m1 -o 'offset [0-9]* has cont.*' "$tmp/g3.log")"
done_testing
