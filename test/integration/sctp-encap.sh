#!/bin/bash
# sctp-encap.sh: kernel SCTP and usrsctp on one association (RFC 6951, SCTP in UDP): sctphttpd
# on kernel SCTP serving httpget and httpload on usrsctp with 1, 10 and 100 streams, the
# reverse (sctphttpd on usrsctp, the clients on kernel SCTP encapsulated), and msgperf both
# ways, every body verified (TAP). Kernel SCTP in UDP needs Linux 5.11 or later: natively where
# the kernel has SCTP, else inside the VM (test/vm/run): "--inner" is the part run there.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
HL=${HTTPLOAD:-$top_builddir/httpload/httpload}
MP=${MSGPERF:-$top_builddir/msgperf}

if [ "$1" != --inner ]; then
	need "$H" "$G" "$HL" "$MP"
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
tmp=$(mktemp -d /tmp/sctp-encap.XXXXXX)
chmod 755 "$tmp"
pids=
orig_udp=$(sysctl -n net.sctp.udp_port)
cleanup() {
	local p
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	sysctl -qw net.sctp.udp_port="$orig_udp"
	rm -rf "$tmp"
}
trap cleanup EXIT

# Ports: the kernel's UDP port (the whole network namespace's), then one per usrsctp process.
udp_base 8
KU=$udp_base                                   # kernel SCTP in UDP
SU=$((udp_base + 1))                           # sctphttpd on usrsctp
GU=$((udp_base + 2)) LU=$((udp_base + 3))      # httpget, httpload on usrsctp
MS=$((udp_base + 4)) MC=$((udp_base + 5))      # msgperf server, client on usrsctp
sctp_free() { ! ss -Hln --sctp "sport = :$1" 2>/dev/null | grep -q .; }
for try in $(seq 1 30); do
	b=$((20000 + (RANDOM % 2000) * 8))
	sctp_free $b && sctp_free $((b + 1)) && sctp_free $((b + 3)) && break
done

# Before the sockets: a kernel SCTP socket takes net.sctp.udp_port when it is created.
sysctl -qw net.sctp.udp_port=$KU
ok $? "net.sctp.udp_port=$KU (kernel $(uname -r))"

doc=$tmp/doc
mkdir -p "$doc" "$tmp/dl"
sizes="0 1 1024 102400 1048576"
for sz in $sizes; do head -c $sz /dev/urandom >"$doc/s$sz"; done
for n in $(seq 0 99); do
	set -- $sizes
	shift $((n % 5))
	ln "$doc/s$1" "$doc/u$n"
done
chmod -R a+rX "$doc"
/usr/bin/python3 - "$doc" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY

start() {  # start NAME LISTENERS ARGS...: sctphttpd, until it says it listens on all
	local name=$1 want=$2 i
	shift 2
	"$H" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	last=$!
	pids="$pids $last"
	for i in $(seq 1 100); do
		[ "$(grep -c '^sctphttpd: listening on' "$tmp/$name.err")" -ge "$want" ] && return 0
		kill -0 "$last" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/# /' "$tmp/$name.err"
	return 1
}

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
start kernel 3 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$b -L sctp1m:127.0.0.1:$((b + 1))
ok $? "sctphttpd listens on kernel sctp and sctp1m"
for c in 1 10 100; do
	gets "kernel server" usrsctp $b $c --udp-encaps-port $GU --udp-port $KU
done
gets "kernel sctp1m server" usrsctp $((b + 1)) 10 --udp-encaps-port $GU --udp-port $KU
for s in 1 10 100; do
	loads "kernel server" usrsctp $b $s --udp-encaps-port $LU --udp-port $KU
done
gets "kernel server, native client too" sctp $b 10

# ---- sctphttpd on usrsctp, clients on kernel SCTP in UDP ----
start usr 2 -p 0 -h 127.0.0.1 -d "$doc" -L usrsctp:127.0.0.1:$((b + 2)) --udp-port $SU
ok $? "sctphttpd listens on usrsctp (UDP port $SU)"
for c in 1 10 100; do
	gets "usrsctp server" sctp $((b + 2)) $c --sctp-udp-remote-port $SU
done
gets "usrsctp server" sctp1m $((b + 2)) 10 --sctp-udp-remote-port $SU
for s in 1 10 100; do
	loads "usrsctp server" sctp $((b + 2)) $s --sctp-udp-remote-port $SU
done

# ---- msgperf both ways: echoes compared byte for byte, throughput both directions ----
mperf() {  # mperf WHO STYPE SOPTS CTYPE COPTS
	local who=$1 st=$2 so=$3 ct=$4 co=$5 port=$6 spid rc
	"$MP" server -t "$st" -a 127.0.0.1:$port $so >"$tmp/ms.out" 2>&1 &
	spid=$!
	pids="$pids $spid"
	sleep 1
	timeout 120 "$MP" client -q -t "$ct" -a 127.0.0.1:$port $co --streams 10 --use-streams 10 \
	    -s 100,20000 -T latency,throughput -d 1 --csv >"$tmp/mc.out" 2>&1
	rc=$?
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	[ $rc = 0 ] && [ "$(awk -F, 'NR > 1 && $4 > 0 && $6 > 0 && $9 == ""' "$tmp/mc.out" | wc -l)" = 4 ]
	ok $? "$who: msgperf $ct client, $st server, 10 streams, 100 B and 20 kB, echoes identical, both directions (exit $rc)"
	[ $rc = 0 ] || sed 's/^/# /' "$tmp/mc.out" "$tmp/ms.out" | tail -n 8
}
mperf "usrsctp to kernel" sctp "" usrsctp "--udp-port $MC --udp-remote-port $KU" $((b + 3))
mperf "kernel to usrsctp" usrsctp "--udp-port $MS" sctp "--sctp-udp-remote-port $MS" $((b + 4))

# ---- the kernel refuses to encapsulate without its own port ----
sysctl -qw net.sctp.udp_port=0
timeout 20 "$G" -s --proto sctp --sctp-udp-remote-port $SU http://127.0.0.1:$((b + 2))/u1 \
    >/dev/null 2>"$tmp/e"
rc=$?
[ $rc != 0 ] && grep -q 'net.sctp.udp_port' "$tmp/e"
ok $? "net.sctp.udp_port=0: --sctp-udp-remote-port fails at once and names the sysctl (exit $rc)"
sed 's/^/# /' "$tmp/e"
done_testing
