#!/bin/bash
# rtpaudio-errors.sh: what rtpaudio send refuses, and how it says so (exit 1, the reason):
# an SDP for poc-fec (not RTP: no "RTP/AVP 14 MPA" that players would fail on), a layer II
# file as ADUs (the error names the format given), free-format MP3 (said exactly).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}
need "$R" sox lame ffmpeg
scratch rtpaudio-errors

sox -n -r 44100 -c 2 -b 16 "$tmp/s.wav" synth 1 sine 440 vol 0.5
lame --quiet -b 128 "$tmp/s.wav" "$tmp/l3.mp3"
lame --quiet --freeformat -b 400 "$tmp/s.wav" "$tmp/free.mp3"
ffmpeg -loglevel error -y -i "$tmp/s.wav" -f mp2 -c:a mp2 -b:a 192k "$tmp/l2.mp2"

"$R" send -f fec --sdp "$tmp/fec.sdp" "$tmp/l3.mp3" 127.0.0.1:9 2>"$tmp/e1"
rc=$?
[ $rc = 1 ] && grep -q -- '--sdp: --format fec is poc-fec over plain UDP, not RTP' "$tmp/e1" &&
	[ ! -e "$tmp/fec.sdp" ]
ok $? "send -f fec --sdp: refused, exit $rc, no SDP written: $(cat "$tmp/e1")"

for f in fec 3119; do
	"$R" send -f $f "$tmp/l2.mp2" 127.0.0.1:9 2>"$tmp/e2"
	rc=$?
	[ $rc = 1 ] && grep -q -- "--format $f: frame 0 of file 1 is MPEG layer 2, not layer III" "$tmp/e2"
	ok $? "send -f $f with a layer II file: exit $rc, the error names --format $f: $(cat "$tmp/e2")"
done

"$R" send "$tmp/free.mp3" 127.0.0.1:9 2>"$tmp/e3"
rc=$?
[ $rc = 1 ] && grep -q 'free-format MPEG audio (bit rate index 0) is not supported' "$tmp/e3"
ok $? "free-format MP3: exit $rc, said exactly: $(cat "$tmp/e3")"

# the same option with RFC 2250 writes its SDP (the refusal above is not --sdp failing)
"$R" send --sdp "$tmp/ok.sdp" "$tmp/l3.mp3" 127.0.0.1:9 >/dev/null 2>&1
grep -q 'm=audio 9 RTP/AVP 14' "$tmp/ok.sdp" && grep -q 'a=rtpmap:14 MPA/90000' "$tmp/ok.sdp"
ok $? "send --sdp with RFC 2250: RTP/AVP 14, MPA/90000"
done_testing
