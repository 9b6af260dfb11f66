#!/bin/sh
# test/fuzz/make-corpus.sh: (re)write the seed corpora in test/fuzz/corpus/ (checked in):
# HTTP heads written out here; MP3 from sox and lame; the packet formats from that MP3 with
# rtpaudio's own packetizers (seed.c). Crashes found later are added by hand as crash-* files.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
c=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$c/http_request" "$c/http_response" "$c/mp3"

q() { printf "$2" >"$c/http_request/$1"; }
q get 'GET /index.html HTTP/1.1\r\nHost: example.com\r\nUser-Agent: seed\r\nAccept: */*\r\n\r\n'
q get10 'GET / HTTP/1.0\n\n'
q post-cl 'POST /form HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello'
q post-chunked 'POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nTrailer: x\r\n\r\n'
q smuggle 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
q dup-cl 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n'
q range 'GET /big HTTP/1.1\r\nHost: a\r\nRange: bytes=10-20,-5\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: keep-alive, Upgrade\r\n\r\n'
q absolute 'GET http://h.example:8080/a/../b/./c%20d?x=1 HTTP/1.1\r\nHost: h.example:8080\r\n\r\n'
q connect 'CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n'
q options 'OPTIONS * HTTP/1.1\r\nHost: [::1]:80\r\n\r\n'
q obsfold 'GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n'
q pipelined 'GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n'
r() { printf "$2" >"$c/http_response/$1"; }
r ok '\000HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello'
r chunked '\007HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n10;a=b\r\n0123456789abcdef\r\n0\r\nX-Trailer: 1\r\n\r\nHTTP/1.1'
r close '\001HTTP/1.0 200 OK\nServer: x\n\nbody until close'
r notmod '\002HTTP/1.1 304 Not Modified\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n'
r status-only '\003HTTP/1.1 404 \r\n\r\n'

sox -n -r 22050 -c 1 -b 16 "$tmp/a.wav" synth 0.4 sine 440-880 vol 0.5
lame --quiet -b 32 "$tmp/a.wav" "$tmp/a.mp3"
lame --quiet -V 9 --resample 8 "$tmp/a.wav" "$tmp/v.mp3"
head -c 1500 "$tmp/a.mp3" >"$c/mp3/lame-cbr"
head -c 1200 "$tmp/v.mp3" >"$c/mp3/lame-vbr-8k"
printf 'ID3\003\000\000\000\000\000\005abcde' | cat - "$c/mp3/lame-cbr" | head -c 800 >"$c/mp3/id3"
CC=${FUZZ_CC:-clang}
$CC -O1 -g -fsanitize=address,undefined -I"$src/rtpaudio" -I"$here" -o "$tmp/seed" "$here/seed.c" \
    "$src/rtpaudio/mp3.c" "$src/rtpaudio/rtp.c" "$src/rtpaudio/fmt_2250.c" \
    "$src/rtpaudio/fmt_3119.c" "$src/rtpaudio/fec.c" "$src/rtpaudio/fmt_fec.c" -lm
"$tmp/seed" "$tmp/a.mp3" "$c"
python3 "$here/seed-rtcp.py" "$c"
for d in "$c"/*; do
	echo "$(basename "$d"): $(ls "$d" | wc -l) files, $(cat "$d"/* | wc -c) bytes"
done
