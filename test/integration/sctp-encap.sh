#!/bin/bash
# sctp-encap.sh: kernel SCTP and usrsctp on one association (RFC 6951, SCTP in UDP): sctphttpd
# on kernel SCTP serving httpget and httpload on usrsctp with 1, 10 and 100 streams, the
# reverse (sctphttpd on usrsctp, the clients on kernel SCTP encapsulated), the same both ways
# with usrsctp-nt (the stack without its threads), and msgperf both ways, every body verified, and rtpaudio's MP3 over SCTP both ways, decoded exactly (TAP).
# Kernel SCTP in UDP needs Linux 5.11 or later: natively where
# the kernel has SCTP, else inside the VM (test/vm/run): "--inner" is the part run there.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
HL=${HTTPLOAD:-$top_builddir/httpload/httpload}
MP=${MSGPERF:-$top_builddir/msgperf}
S=${HTTPD_STREAMS:-$top_builddir/test/unit/test_httpd_streams}
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}
E=/usr/lib/usrsctp

if [ "$1" != --inner ]; then
	need "$H" "$G" "$HL" "$MP" "$S" "$R" "$E/http_client" tshark sox lame mpg123
	if ! "$G" --help | grep -q usrsctp; then
		ok 1 "this build has no usrsctp (configure found no libusrsctp)"
		done_testing
		exit
	fi
	run_tap kernel_sctp bash "$here/sctp-encap.sh" --inner
	done_testing
	exit
fi

if [ ! -e /proc/sys/net/sctp/udp_port ]; then
	ok 1 "kernel $(uname -r) has no SCTP over UDP (net.sctp.udp_port: Linux 5.11 or later)"
	done_testing
	exit
fi
scratch sctp-encap
chmod 755 "$tmp"
orig_udp=$(sysctl -n net.sctp.udp_port)
orig_reconf=$(sysctl -n net.sctp.reconf_enable)
trap 'scratch_cleanup; sysctl -qw net.sctp.udp_port="$orig_udp" net.sctp.reconf_enable="$orig_reconf"' EXIT

# Ports: the kernel's UDP port (the whole network namespace's), then one per usrsctp process.
udp_base 12
KU=$udp_base                                   # kernel SCTP in UDP
SU=$((udp_base + 1))                           # sctphttpd on usrsctp
GU=$((udp_base + 2)) LU=$((udp_base + 3))      # httpget, httpload on usrsctp
MS=$((udp_base + 4)) MC=$((udp_base + 5))      # msgperf server, client on usrsctp
RS=$((udp_base + 6)) RC=$((udp_base + 7))      # stream reset: usrsctp server, client
RP=$((udp_base + 8)) RT=$((udp_base + 9))      # rtpaudio player, sender on usrsctp
NS=$((udp_base + 10))                          # sctphttpd on usrsctp-nt
sctp_free() { ! ss -Hln --sctp "sport = :$1" 2>/dev/null | grep -q .; }
for try in $(seq 1 30); do
	b=$((20000 + (RANDOM % 2000) * 8))
	sctp_free $b && sctp_free $((b + 1)) && sctp_free $((b + 3)) && sctp_free $((b + 5)) && break
done

# Before the sockets: a kernel SCTP socket takes net.sctp.udp_port when it is created.
sysctl -qw net.sctp.udp_port=$KU
ok $? "net.sctp.udp_port=$KU (kernel $(uname -r))"

doc=$tmp/doc
mkdir -p "$doc" "$tmp/dl"
httpd_sized_files "$doc"
chmod -R a+rX "$doc"
/usr/bin/python3 - "$doc" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY

# gets WHO PROTO PORT COUNT OPTS...: httpget, COUNT URLs on one association, each body compared
gets() {
	local who=$1 proto=$2 port=$3 count=$4 n urls= rc bad=0 streams
	shift 4
	rm -f "$tmp/dl"/u*
	for n in $(seq 0 $((count - 1))); do urls="$urls http://127.0.0.1:$port/u$n"; done
	timeout 120 "$G" -v -s -m 30 --proto "$proto" "$@" -O "$tmp/dl" $urls 2>"$tmp/hg.err"
	rc=$?
	streams=$(sed -n 's/^httpget: .* on stream \([0-9]*\)$/\1/p' "$tmp/hg.err" | sort -un | wc -l)
	for n in $(seq 0 $((count - 1))); do cmp -s "$doc/u$n" "$tmp/dl/u$n" || bad=$((bad + 1)); done
	[ $rc = 0 ] && [ $bad = 0 ] && [ "$streams" = "$count" ] &&
	    [ "$(grep -c '^httpget: connected' "$tmp/hg.err")" = 1 ]
	ok $? "$who: httpget $proto, $count URL(s) on one association, $count stream(s), 0 B..1 MiB, identical (exit $rc, $bad differ)"
	[ $rc = 0 ] || tail -n 5 "$tmp/hg.err" | sed 's/^/# /'
}

# loads WHO PROTO PORT STREAMS OPTS...: httpload, 2 x 30 calls, every body checked (CRC-32)
loads() {
	local who=$1 proto=$2 port=$3 s=$4 rc
	shift 4
	timeout 120 "$HL" --proto "$proto" "$@" --server 127.0.0.1 --port "$port" --streams "$s" \
	    --uri /s102400 --num-conns 2 --num-calls 30 --max-piped-calls 2 --timeout 30 \
	    --verbose --verify-manifest "$tmp/manifest" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	grep -q '^Total: connections 2 requests 60 replies 60 ' "$tmp/o" &&
	    grep -q '^Reply status: 1xx=0 2xx=60 3xx=0 4xx=0 5xx=0' "$tmp/o" &&
	    grep -q 'corrupt 0$' "$tmp/o" && grep -q "$s streams\? usable" "$tmp/e" && [ $rc = 0 ]
	ok $? "$who: httpload $proto, $s stream(s), 2 x 30 calls of 100 KB, all 2xx, CRC-32 verified"
	[ $rc = 0 ] || { grep -E '^(Total|Reply status|Errors)' "$tmp/o"; head -n 3 "$tmp/e"; } |
	    sed 's/^/# /'
}

# ---- sctphttpd on kernel SCTP, clients on usrsctp (UDP to the kernel's port) ----
httpd_start -n 3 kernel -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$b -L sctp1m:127.0.0.1:$((b + 1)) \
    --alt-svc 600
kport=$(sed -n 's/^sctphttpd: listening on tcp .*:\([0-9]*\)$/\1/p' "$tmp/kernel.err")
ok $? "sctphttpd listens on kernel sctp and sctp1m"
for c in 1 10 100; do
	gets "kernel server" usrsctp $b $c --udp-port $GU --udp-remote-port $KU
done
gets "kernel sctp1m server" usrsctp $((b + 1)) 10 --udp-port $GU --udp-remote-port $KU
for s in 1 10 100; do
	loads "kernel server" usrsctp $b $s --udp-port $LU --udp-remote-port $KU
done
gets "kernel server, native client too" sctp $b 10

# --alt-svc names the kernel's UDP port too; httpget --proto auto: TCP first, then native SCTP
# wins the race (SCTP first, TCP 250 ms later).
alt=$(curl -sI "http://127.0.0.1:$kport/u1" | tr -d '\r' | sed -n 's/^Alt-Svc: //p')
[ "$alt" = "http%2F1.1+sctp=\":$b\"; ma=600; sctp-udp=$KU, http%2F1.1+sctp=\":$((b + 1))\"; ma=600; sctp-udp=$KU" ]
ok $? "--alt-svc on kernel listeners: Alt-Svc: $alt"
for n in 1 2; do
	timeout 30 "$G" -v -s --proto auto --alt-cache "$tmp/alt-cache" -o "$tmp/auto$n" \
	    "http://127.0.0.1:$kport/u4" 2>"$tmp/auto$n.err"
	echo $? >"$tmp/auto$n.rc"
done
[ "$(cat "$tmp/auto1.rc" "$tmp/auto2.rc" | tr '\n' ' ')" = "0 0 " ] &&
    cmp -s "$doc/u4" "$tmp/auto1" && cmp -s "$doc/u4" "$tmp/auto2" &&
    grep -q '^httpget: auto: tcp .* came up first' "$tmp/auto1.err" &&
    grep -q "^httpget: auto: sctp 127.0.0.1:$b came up first" "$tmp/auto2.err"
ok $? "httpget --proto auto: TCP, learns the alternative, then native kernel SCTP wins the race (1 MiB identical)"
sed -n 's/^httpget: auto: /# /p' "$tmp/auto2.err"

# ---- sctphttpd on usrsctp, clients on kernel SCTP in UDP ----
httpd_start -n 2 usr -p 0 -h 127.0.0.1 -d "$doc" -L usrsctp:127.0.0.1:$((b + 2)) --udp-port $SU
ok $? "sctphttpd listens on usrsctp (UDP port $SU)"
for c in 1 10 100; do
	gets "usrsctp server" sctp $((b + 2)) $c --sctp-udp-remote-port $SU
done
gets "usrsctp server" sctp1m $((b + 2)) 10 --sctp-udp-remote-port $SU
for s in 1 10 100; do
	loads "usrsctp server" sctp $((b + 2)) $s --sctp-udp-remote-port $SU
done

# ---- usrsctp-nt (usrsctp without its threads, AF_CONN) with kernel SCTP in UDP, both ways ----
for c in 1 100; do
	gets "kernel server" usrsctp-nt $b $c --udp-port $GU --udp-remote-port $KU
done
loads "kernel server" usrsctp-nt $b 10 --udp-port $LU --udp-remote-port $KU
httpd_start -n 2 usrnt -p 0 -h 127.0.0.1 -d "$doc" -L usrsctp-nt:127.0.0.1:$((b + 6)) --udp-port $NS
ok $? "sctphttpd listens on usrsctp-nt (UDP port $NS)"
for c in 1 100; do
	gets "usrsctp-nt server" sctp $((b + 6)) $c --sctp-udp-remote-port $NS
done
loads "usrsctp-nt server" sctp $((b + 6)) 10 --sctp-udp-remote-port $NS

# ---- msgperf both ways: echoes compared byte for byte, throughput both directions ----
mperf() {  # mperf WHO STYPE SOPTS CTYPE COPTS
	local who=$1 st=$2 so=$3 ct=$4 co=$5 port=$6 spid rc
	"$MP" server -t "$st" -a 127.0.0.1:$port $so >"$tmp/ms.out" 2>&1 &
	spid=$!
	pids="$pids $spid"
	sleep 1
	timeout 120 "$MP" client -q -t "$ct" -a 127.0.0.1:$port $co --streams 10 --use-streams 10 \
	    -s 100,20000 -T latency,throughput -d 2 --csv >"$tmp/mc.out" 2>&1
	rc=$?
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	[ $rc = 0 ] && [ "$(awk -F, 'NR > 1 && $4 > 0 && $6 > 0 && $9 == ""' "$tmp/mc.out" | wc -l)" = 4 ]
	ok $? "$who: msgperf $ct client, $st server, 10 streams, 100 B and 20 kB, echoes identical, both directions (exit $rc)"
	[ $rc = 0 ] || sed 's/^/# /' "$tmp/mc.out" "$tmp/ms.out" | tail -n 8
}
mperf "usrsctp to kernel" sctp "" usrsctp "--udp-port $MC --udp-remote-port $KU" $((b + 3))
mperf "kernel to usrsctp" usrsctp "--udp-port $MS" sctp "--sctp-udp-remote-port $MS" $((b + 4))
mperf "usrsctp-nt to kernel" sctp "" usrsctp-nt "--udp-port $MC --udp-remote-port $KU" $((b + 7))
mperf "kernel to usrsctp-nt" usrsctp-nt "--udp-port $MS" sctp "--sctp-udp-remote-port $MS" $((b + 8))

# ---- CRC32c: tshark checks every packet of both stacks, usrsctp's own http_client too ----
# (usrsctp leaves the checksum out on loopback by default, sctp_no_csum_on_loopback; our
# transport turns that off; http_client keeps the library's default)
tshark -i lo -f "udp port $KU" -w "$tmp/cap.pcapng" -q >/dev/null 2>"$tmp/ts.err" &
ts=$!
pids="$pids $ts"
for i in $(seq 1 200); do grep -q 'Capturing on' "$tmp/ts.err" && break; sleep 0.1; done
timeout 30 "$G" -s --proto usrsctp --udp-port $GU --udp-remote-port $KU -o "$tmp/crc1" \
    http://127.0.0.1:$b/s1024
r1=$?
timeout 30 "$E/http_client" 127.0.0.1 $b 0 $((udp_base + 4)) $KU /s1024 >"$tmp/crc2" 2>/dev/null
r2=$?
sleep 0.5
kill -INT $ts
timeout 20 tail --pid=$ts -f /dev/null
tshark -r "$tmp/cap.pcapng" -d udp.port==$KU,sctp -o sctp.checksum:CRC-32C -Y sctp -T fields \
    -e udp.srcport -e sctp.checksum.status >"$tmp/crc.txt" 2>/dev/null
from_k=$(awk -v k=$KU '$1 == k' "$tmp/crc.txt" | wc -l)
from_u=$(awk -v k=$KU '$1 != k' "$tmp/crc.txt" | wc -l)
badc=$(awk '$2 != 1' "$tmp/crc.txt" | wc -l)
[ $r1 = 0 ] && cmp -s "$doc/s1024" "$tmp/crc1" && [ $r2 = 0 ] && grep -q '^HTTP/1.1 200 OK' "$tmp/crc2" &&
    [ "$from_k" -gt 0 ] && [ "$from_u" -gt 0 ] && [ "$badc" = 0 ]
ok $? "CRC32c: tshark finds it good on all $((from_k + from_u)) packets ($from_k from the kernel, $from_u from usrsctp, http_client's included), $badc bad"
# ---- rtpaudio across the stacks: MP3 over SCTP (unordered), one end in UDP ----
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 3 sine 220-1760 vol 0.5 &&
    lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3" &&
    mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"
ok $? "a 3 s MP3 (sox, lame) and mpg123's decode of it"
audio() {  # audio WHO PORT PLAY-ARGS SEND-ARGS: play, send, then the WAV against mpg123's
	local who=$1 port=$2 pa=$3 sa=$4 pp rc cmp crc
	# shellcheck disable=SC2086
	"$R" play -t sctp $pa -d 400 -D 60 --json -o "$tmp/ra.wav" 127.0.0.1:$port \
	    >"$tmp/ra.json" 2>"$tmp/ra.err" &
	pp=$!
	pids="$pids $pp"
	sleep 1
	# shellcheck disable=SC2086
	timeout 60 "$R" send -t sctp $sa "$tmp/a.mp3" 127.0.0.1:$port 2>"$tmp/rs.err"
	rc=$?
	timeout 30 tail --pid=$pp -f /dev/null
	wait $pp
	cmp=$("$R" compare --exact "$tmp/ref.wav" "$tmp/ra.wav" 2>&1)
	crc=$?
	[ $rc = 0 ] && [ $crc = 0 ] && grep -q '"frames_concealed":0' "$tmp/ra.json"
	ok $? "$who: rtpaudio send and play over SCTP, PCM identical to mpg123's ($cmp; send exit $rc)"
	[ $rc = 0 ] || sed 's/^/#   /' "$tmp/rs.err" "$tmp/ra.err" | tail -n 6
}
audio "usrsctp sender, kernel player" $((b + 7)) "" "-s usrsctp --udp-port $RT --udp-remote-port $KU"
audio "kernel sender in UDP, usrsctp player" $((b + 8)) "-s usrsctp --udp-port $RP" \
    "--sctp-udp-remote-port $RP"

# ---- stream reset (RFC 6525) across the stacks: a file truncated mid-transfer ----
# RE-CONFIG is negotiated in INIT: the kernel takes net.sctp.reconf_enable at socket creation.
sysctl -qw net.sctp.reconf_enable=1
mkdir -p "$doc/slow"
echo again >"$doc/again.txt"
echo small >"$doc/small.txt"
echo 'slow/** 1000000' >"$tmp/throttles"
chmod -R a+rX "$doc"
httpd_start -n 2 kreset -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$((b + 5)) -t "$tmp/throttles"
httpd_start -n 2 ureset -p 0 -h 127.0.0.1 -d "$doc" -L usrsctp:127.0.0.1:$((b + 6)) --udp-port $RS \
    -t "$tmp/throttles"
reset_run() {  # reset_run WHO ARGS...: test_httpd_streams, slow/big.bin truncated after 1.5 s
	local who=$1 rc
	shift
	head -c 5000000 /dev/urandom >"$doc/slow/big.bin"
	chmod a+r "$doc/slow/big.bin"
	(sleep 1.5; : >"$doc/slow/big.bin") &
	timeout 60 "$S" --timeout 30 --dir "$doc" --retry /again.txt "$@" 1:/slow/big.bin \
	    2:/small.txt >"$tmp/reset.out" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q '^reset stream=1 /slow/big.bin$' "$tmp/reset.out" &&
	    grep -q 'stream=2 .* match /small.txt$' "$tmp/reset.out" &&
	    grep -q 'stream=1 status=200 .* match /again.txt$' "$tmp/reset.out"
	ok $? "$who: a truncated file resets stream 1 (RFC 6525), stream 2 served, stream 1 serves again (exit $rc)"
	[ $rc = 0 ] || sed 's/^/#   /' "$tmp/reset.out"
}
reset_run "kernel server, usrsctp client" --udp-port $RC --udp-remote-port $KU usrsctp \
    127.0.0.1:$((b + 5))
reset_run "usrsctp server, kernel client" --sctp-udp-remote-port $RS sctp 127.0.0.1:$((b + 6))

# ---- the kernel refuses to encapsulate without its own port ----
sysctl -qw net.sctp.udp_port=0
timeout 20 "$G" -s --proto sctp --sctp-udp-remote-port $SU http://127.0.0.1:$((b + 2))/u1 \
    >/dev/null 2>"$tmp/e"
rc=$?
[ $rc != 0 ] && grep -q 'net.sctp.udp_port' "$tmp/e"
ok $? "net.sctp.udp_port=0: --sctp-udp-remote-port fails at once and names the sysctl (exit $rc)"
sed 's/^/# /' "$tmp/e"
done_testing
