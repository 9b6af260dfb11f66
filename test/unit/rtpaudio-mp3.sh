#!/bin/sh
# rtpaudio-mp3.sh: the MP3 frame parser on synthetic frames and on files lame makes now.
. "$(dirname "$0")/../lib.sh"
scratch rtpaudio-mp3
dir=$tmp
if ! command -v sox >/dev/null || ! command -v lame >/dev/null || ! command -v mpg123 >/dev/null; then
	ok 1 "sox, lame and mpg123 installed (scripts/setup.sh)"
	done_testing
	exit
fi
# A chirp, never a recording: 3 s stereo at 44.1 kHz.
sox -n -r 44100 -c 2 -b 16 "$dir/src.wav" synth 3 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$dir/src.wav" "$dir/cbr.mp3"
lame --quiet -V 2 --tt chirp --add-id3v2 "$dir/src.wav" "$dir/vbr.mp3"
lame --quiet --resample 22.05 -b 64 "$dir/src.wav" "$dir/v2.mp3"
mpg123 -q --no-gapless -w "$dir/ref.wav" "$dir/cbr.mp3"
bytes=$(stat -c %s "$dir/ref.wav")
RTPAUDIO_MP3="$dir/cbr.mp3" RTPAUDIO_MP3_VBR="$dir/vbr.mp3" RTPAUDIO_MP3_V2="$dir/v2.mp3" \
RTPAUDIO_MP3_SAMPLES=$(( (bytes - 44) / 4 )) \
	run_tap "$top_builddir/test/unit/test_mp3"
done_testing
