#!/bin/sh
# test/fuzz/build.sh: build the libFuzzer harnesses with clang, ASan and UBSan, outside the
# automake build (which may use gcc). Usage: test/fuzz/build.sh [OUTDIR] (default
# $top_builddir/test/fuzz/bin); prints the harness names. Needs clang and libclang-rt-dev.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=${1:-${top_builddir:-$src}/test/fuzz/bin}
CC=${FUZZ_CC:-clang}
mkdir -p "$out"
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
  -fno-sanitize-recover=undefined -Wall -Wextra -Wshadow -Werror
  -I$src/lib/ev -I$src/lib/http -I$src/lib/tls -I$src/lib/tp -I$src/lib/tp/usrsctp -I$src/rtpaudio -I$here"
http="$src/lib/http/http_parse.c $src/lib/http/http_header.c $src/lib/http/http_range.c $src/lib/http/http_cond.c $src/lib/http/http_date.c
  $src/lib/http/http_path.c $src/lib/http/http_chunked.c"
audio="$src/rtpaudio/mp3.c $src/rtpaudio/rtp.c $src/rtpaudio/fmt_2250.c $src/rtpaudio/fmt_3119.c
  $src/rtpaudio/fec.c $src/rtpaudio/fmt_fec.c $src/rtpaudio/jitter.c $src/rtpaudio/rtcp.c"

extra= # compiler and linker flags of the next build, beside the sources (a library's)
build() { # build NAME SOURCES...
	name=$1
	shift
	# shellcheck disable=SC2086
	if [ ! -x "$out/$name" ] || [ -n "$(find "$here/$name.c" "$here/fuzz.h" "$@" -newer "$out/$name" 2>/dev/null)" ]; then
		$CC $flags -o "$out/$name.tmp" "$here/$name.c" "$@" $extra -lm
		mv "$out/$name.tmp" "$out/$name"
	fi
	echo "${name#fuzz_}"
}
# shellcheck disable=SC2086
{
	build fuzz_http_request $http
	build fuzz_http_response $http
	build fuzz_mp3 $audio
	build fuzz_rtp2250 $audio
	build fuzz_rtp3119 $audio
	build fuzz_fec $audio
	build fuzz_adu $audio
	build fuzz_rtcp $audio
	# https (issue 37): lib/tls/tls.c on Debian's GnuTLS, whose flags pkg-config gives
	extra="$(pkg-config --cflags --libs gnutls)"
	build fuzz_tls_record "$src/lib/tls/tls.c"
	extra=
}
