#!/bin/bash
# valgrind.sh: the main programs under valgrind's memcheck on a representative subset of the
# integration suite: sctphttpd served by httpget and httpload, rtpaudio send to rtpaudio play,
# each over TCP and usrsctp. Every process runs under memcheck (--leak-check=full; definite
# and indirect leaks count as errors); each must exit as it would without it, with no error
# (TAP). A few minutes on two cores.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/common.sh"
need "$H" "$G" "$LD" "$RA"
for t in valgrind sox lame; do
	command -v $t >/dev/null || { ok 1 "$t missing (scripts/setup.sh installs it)"; done_testing; exit; }
done
scratch valgrind
result_reset
free_ports 8 || { ok 1 "no free ports"; done_testing; exit; }
tp=$port su=$((port + 1)) cu=$((port + 2))
# An ASan build (SANITIZE=1 ./run-tests) cannot run under valgrind: there the same runs are
# checked by ASan, UBSan and LeakSanitizer instead, with the same verdicts.
if ldd "$H" 2>/dev/null | grep -q libasan; then
	checker="ASan+LSan (ASan build)"
else
	checker=memcheck
fi
vg() { # vg NAME CMD...: exec CMD under the checker, its log in $tmp/vg-NAME.log*
	local name=$1
	shift
	if [ "$checker" = memcheck ]; then
		exec valgrind -q --error-exitcode=99 --leak-check=full \
		    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
		    --num-callers=20 --log-file="$tmp/vg-$name.log" "$@"
	fi
	ASAN_OPTIONS=detect_leaks=1:exitcode=99:log_path=$tmp/vg-$name.log exec "$@"
}
checked=0 clean=0
vg_ok() { # vg_ok NAME RC DESCRIPTION: the exit status and the log
	local errs
	# valgrind's own notes (--PID--, an unknown syscall) are not the program's errors
	errs=$(cat "$tmp/vg-$1.log"* 2>/dev/null | grep -c '^==[0-9]*==')
	checked=$((checked + 1))
	[ "$2" = 0 ] && [ "${errs:-0}" = 0 ]
	local rc=$?
	[ $rc = 0 ] && clean=$((clean + 1))
	ok $rc "$3 under $checker: exit $2, $errs lines of errors and leaks"
	[ $rc = 0 ] || cat "$tmp/vg-$1.log"* 2>/dev/null | head -n 40 | sed 's/^/#   /'
}

doc=$tmp/doc
mkdir -p "$doc"
head -c 300000 /dev/urandom >"$doc/300k.bin"
head -c 1024 /dev/urandom >"$doc/1k.bin"
python3 - "$doc" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY

# background ones: exec in a subshell, so that $! is the program itself
daemon_start -n 2 -t 30 httpd '^sctphttpd: listening' vg httpd "$H" -L tcp:127.0.0.1:$tp \
    -L usrsctp:127.0.0.1:$tp --udp-port $su --udp-remote-port $cu -d "$doc" \
    -l "$tmp/access.log"
ok $? "sctphttpd under $checker listens on TCP and usrsctp"
srv=$daemon_pid

(vg get-tcp "$G" -s -o "$tmp/a" -o "$tmp/b" http://127.0.0.1:$tp/300k.bin http://127.0.0.1:$tp/1k.bin)
rc=$?
cmp -s "$tmp/a" "$doc/300k.bin" && cmp -s "$tmp/b" "$doc/1k.bin" || rc="$rc, bodies differ"
vg_ok get-tcp "$rc" "httpget over TCP, 2 URLs"
(vg get-usrsctp "$G" -s --proto usrsctp --udp-port $((port + 3)) --udp-remote-port $su \
    -o "$tmp/a" -o "$tmp/b" http://127.0.0.1:$tp/300k.bin http://127.0.0.1:$tp/1k.bin)
rc=$?
cmp -s "$tmp/a" "$doc/300k.bin" && cmp -s "$tmp/b" "$doc/1k.bin" || rc="$rc, bodies differ"
vg_ok get-usrsctp "$rc" "httpget over usrsctp, 2 URLs on 2 streams"
(vg load-tcp "$LD" --server 127.0.0.1 --port $tp --uri /1k.bin --num-conns 10 --num-calls 10 \
    --verify-manifest "$tmp/manifest") >"$tmp/load-tcp.out" 2>&1
rc=$?
grep -q 'replies 100 ' "$tmp/load-tcp.out" || rc="$rc, not 100 replies"
vg_ok load-tcp "$rc" "httpload over TCP, 10 x 10 calls verified"
(vg load-usrsctp "$LD" --server 127.0.0.1 --port $tp --uri /1k.bin --num-conns 4 --num-calls 25 \
    --proto usrsctp --streams 10 --udp-port $((port + 4)) --udp-remote-port $su \
    --verify-manifest "$tmp/manifest") >"$tmp/load-usrsctp.out" 2>&1
rc=$?
grep -q 'replies 100 ' "$tmp/load-usrsctp.out" || rc="$rc, not 100 replies"
vg_ok load-usrsctp "$rc" "httpload over usrsctp, 4 x 25 calls on 10 streams verified"
# a malformed request and a client gone mid-transfer, for the error paths
raw $tp $'GET /\x01 HTTP/1.1\r\n\r\n'
(exec 3<>/dev/tcp/127.0.0.1/$tp; printf 'GET /300k.bin HTTP/1.1\r\nHost: a\r\n\r\n' >&3
 head -c 1000 <&3 >/dev/null) 2>/dev/null
sleep 1
kill -TERM $srv
timeout 60 tail --pid=$srv -f /dev/null
wait $srv
vg_ok httpd $? "sctphttpd (TCP and usrsctp, SIGTERM)"

sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 2 sine 220-880 vol 0.5
lame --quiet -b 128 "$tmp/src.wav" "$tmp/a.mp3"
for t in tcp usrsctp; do
	ap=$((port + 5))
	case $t in
	tcp) targs="-t tcp" sargs="-t tcp" ;;
	usrsctp) targs="-t sctp -s usrsctp --udp-port $((port + 6)) --udp-remote-port $((port + 7))"
		sargs="-t sctp -s usrsctp --udp-port $((port + 7)) --udp-remote-port $((port + 6))" ;;
	esac
	# memcheck slows both ends many times over: a playout delay that covers it (the check is
	# about memory errors; the verdict only says the stream went through)
	# shellcheck disable=SC2086
	(vg play-$t "$RA" play $targs -d 2000 -j \
	    -o "$tmp/out-$t.wav" 127.0.0.1:$ap) >"$tmp/play-$t.json" 2>"$tmp/play-$t.err" &
	player=$!
	pids="$pids $player"
	sleep 3
	# shellcheck disable=SC2086
	(vg send-$t "$RA" send $sargs "$tmp/a.mp3" 127.0.0.1:$ap) 2>"$tmp/send-$t.err"
	vg_ok send-$t $? "rtpaudio send over $t"
	timeout 60 tail --pid=$player -f /dev/null
	wait $player
	rc=$?
	grep -q '"satisfactory":true' "$tmp/play-$t.json" || rc="$rc, not satisfactory"
	vg_ok play-$t "$rc" "rtpaudio play over $t ($(grep -o '"frames_played":[0-9]*' "$tmp/play-$t.json"))"
done
result valgrind "$clean of $checked processes clean under $checker (sctphttpd, httpget, httpload, rtpaudio send/play; TCP and usrsctp): 0 errors, 0 definite/indirect leaks"
done_testing
