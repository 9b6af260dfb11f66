#!/bin/bash
# usrsctp-nt.sh: the threadless usrsctp type (usrsctp-nt: the stack fed by the program's loop,
# AF_CONN, our CRC32c) with real programs: sctphttpd, httpget, httpload and msgperf over it, and
# against the threaded type usrsctp both ways (the same SCTP in UDP on the wire); tshark judges
# every packet's CRC32c, the chunks and the datagram sizes; a client exits within 20 ms of its
# last byte; a one-way run at every size drops no datagram (RcvbufErrors), its packets leave in
# batches (sendmmsg); garbage and bad checksums at the server's UDP port are counted and
# survived; what the type cannot do (several addresses, the threaded stack in the same process)
# is refused with a reason. TAP.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
M=${MSGPERF:-$top_builddir/msgperf}
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
L=${HTTPLOAD:-$top_builddir/httpload/httpload}
need "$M" "$H" "$G" "$L" ss python3
grep -q 'define HAVE_USRSCTP 1' "$top_builddir/config.h" || { ok 1 "usrsctp not built"; done_testing; exit; }
scratch usrsctp-nt
asan() { grep -q 'fsanitize=address' "$top_builddir/Makefile" 2>/dev/null; }

udp_base 8
base=$udp_base srv=$udp_base cli=$((udp_base + 1))
doc=$tmp/doc
mkdir -p "$doc"
head -c 1024 /dev/urandom >"$doc/1k"
head -c 10485760 /dev/urandom >"$doc/10m"
head -c 100000 /dev/urandom >"$doc/100k"

# 1-2: sctphttpd on usrsctp-nt, a 10 MiB GET by httpget on usrsctp-nt and on usrsctp (threads)
daemon_start h 'listening on usrsctp-nt ' "$H" -L usrsctp-nt:127.0.0.1:8080 --udp-port $srv \
    --udp-remote-port $cli -d "$doc" || { done_testing; exit; }
hp=$daemon_pid
for t in usrsctp-nt usrsctp; do
	rm -f "$tmp/got"
	"$G" -s --proto $t --udp-port $cli --udp-remote-port $srv -o "$tmp/got" \
	    http://127.0.0.1:8080/10m 2>"$tmp/g.err"
	rc=$?
	[ $rc -eq 0 ] && cmp -s "$tmp/got" "$doc/10m"
	ok $? "httpget on $t from sctphttpd on usrsctp-nt: 10 MiB, byte for byte (exit $rc)"
done

# 3: httpload, 100 associations of 10 calls each with 10 streams, keep-alive: no error
"$L" --server 127.0.0.1 --port 8080 --uri /1k --proto usrsctp-nt --udp-port $cli --udp-remote-port $srv \
    -c 100 --num-conns 100 --num-calls 10 --streams 10 --timeout 20 --json >"$tmp/l.json" 2>"$tmp/l.err"
rc=$?
jf() { python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("/"): v = v[k]
print(v)' "$@" 2>/dev/null; }
replies=$(jf "$tmp/l.json" replies)
errs=$(jf "$tmp/l.json" errors/total)
[ $rc -eq 0 ] && [ "$replies" = 1000 ] && [ "$errs" = 0 ]
ok $? "httpload on usrsctp-nt, 100 associations x 10 calls: $replies replies, $errs errors"

# 4: an association silent for 2 s goes on (its peer is remembered: 10 minutes): httpload,
# one session of 2 calls 2 s apart on one association
# httpload watches nothing while it thinks: its stack must still acknowledge the answer (else
# the server's retransmission timer fires, timodata)
cnt() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
t0=$(sigusr2_line $hp "$tmp/h.err" "transport counters" | cnt timodata)
: >"$tmp/wcs"
SCTPAPPS_USRSCTP_STATS=$tmp/wcs "$L" --server 127.0.0.1 --port 8080 --uri /1k --proto usrsctp-nt \
    --udp-port $cli --udp-remote-port $srv --wsess 1,2,2 --rate 1 --timeout 20 --json \
    >"$tmp/w.json" 2>"$tmp/w.err"
rc=$?
t1=$(sigusr2_line $hp "$tmp/h.err" "transport counters" | cnt timodata)
tc=$(cnt timodata <"$tmp/wcs")
[ $rc -eq 0 ] && [ "$(jf "$tmp/w.json" replies)" = 2 ] && [ "$(jf "$tmp/w.json" errors/total)" = 0 ] &&
    [ -n "$t1" ] && [ "$t1" = "$t0" ] && [ "$tc" = 0 ]
ok $? "an association idle for 2 s between its calls, unwatched: 2 replies, no error, no retransmission timeout (server timodata $t0 -> $t1, client ${tc:-none}; exit $rc)"

# 5: tshark on the wire: every packet's CRC32c good, DATA with PPID 63, and no datagram over
# the path MTU the type sets (1452 bytes of SCTP, 1460 of UDP). A server and a client of their
# own with GSO off (SCTPAPPS_USRSCTP_GSO=0): a capture on lo sees a GSO message whole, before
# the kernel cuts it into these datagrams
if command -v tshark >/dev/null &&
    SCTPAPPS_USRSCTP_GSO=0 daemon_start h5 'listening on usrsctp-nt ' "$H" -L usrsctp-nt:127.0.0.1:8081 \
    --udp-port $((base + 2)) --udp-remote-port $((base + 3)) -d "$doc"; then
	h5=$daemon_pid
	tshark -i lo -f "udp port $((base + 2))" -w "$tmp/cap.pcapng" -q 2>"$tmp/ts.err" &
	tsp=$!
	pids="$pids $tsp"
	for i in $(seq 1 50); do grep -q Capturing "$tmp/ts.err" && break; sleep 0.1; done
	sleep 0.5
	for f in 100k 1k; do
		SCTPAPPS_USRSCTP_GSO=0 "$G" -s --proto usrsctp-nt --udp-port $((base + 3)) \
		    --udp-remote-port $((base + 2)) -o /dev/null http://127.0.0.1:8081/$f 2>/dev/null ||
		    diag "httpget /$f failed"
	done
	sleep 0.5
	kill $tsp $h5; wait $tsp $h5 2>/dev/null
	tshark -r "$tmp/cap.pcapng" -d udp.port==$((base + 2)),sctp -o sctp.checksum:crc-32c -T fields \
	    -e sctp.checksum.status -e sctp.chunk_type -e sctp.data_payload_proto_id -e udp.length \
	    2>"$tmp/ts2.err" >"$tmp/ts.txt"
	sed 's/^/# tshark: /' "$tmp/ts.err" "$tmp/ts2.err" | grep -v 'Running as\|MESSAGE' | head -5
	n=$(wc -l <"$tmp/ts.txt")
	bad=$(awk -F'\t' '$1 != 1' "$tmp/ts.txt" | wc -l)
	data=$(awk -F'\t' '$2 ~ /(^|,)0(,|$)/' "$tmp/ts.txt" | wc -l)
	ppid=$(awk -F'\t' '$2 ~ /(^|,)0(,|$)/ && $3 !~ /^63(,63)*$/' "$tmp/ts.txt" | wc -l)
	big=$(awk -F'\t' '$4 > 1460' "$tmp/ts.txt" | wc -l)
	kinds=$(awk -F'\t' '{ print $2 }' "$tmp/ts.txt" | tr ',' '\n' | sort -un | tr '\n' ' ')
	diag "tshark: $n packets, chunk types $kinds, largest UDP $(awk -F'\t' '$4 > m { m = $4 } END { print m }' "$tmp/ts.txt") bytes"
	[ "$n" -gt 20 ] && [ "$bad" = 0 ] && [ "$data" -gt 10 ] && [ "$ppid" = 0 ] && [ "$big" = 0 ]
	ok $? "tshark: all $n packets' CRC32c good, $data with DATA all PPID 63, none over 1460 bytes of UDP"
else
	ok 0 "# SKIP tshark not installed"
fi

# 6: the exit: httpget on usrsctp-nt ends within 20 ms of its last body byte (median of 5,
# the worse of two sizes; 100 ms under AddressSanitizer, whose leak check is left out)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    python3 - "$G" $cli $srv >"$tmp/exit.txt" 2>&1 <<'PY'
import json, subprocess, sys, time
g, lport, rport = sys.argv[1:4]
for f in ("1k", "100k"):
    waits = []
    for i in range(5):
        p = subprocess.run([g, "--json", "-s", "--proto", "usrsctp-nt", "--udp-port", lport,
                            "--udp-remote-port", rport, "-o", "/dev/null", "http://127.0.0.1:8080/" + f],
                           stderr=subprocess.PIPE)
        end = time.time()
        lines = [l for l in p.stderr.decode().splitlines() if l.startswith("{")]
        if p.returncode != 0 or not lines:
            print("FAIL", f, p.returncode, p.stderr.decode())
            sys.exit(1)
        waits.append((end - json.loads(lines[-1])["last_byte_epoch_s"]) * 1e3)
    waits.sort()
    print("%s exit_ms %.1f min %.1f max %.1f" % (f, waits[2], waits[0], waits[-1]))
PY
rc=$?
sed 's/^/# /' "$tmp/exit.txt"
worst=$(awk '{ print $3 }' "$tmp/exit.txt" | sort -n | tail -1)
if asan; then lim=100; else lim=20; fi
[ $rc -eq 0 ] && [ -n "$worst" ] && awk -v w="$worst" -v l="$lim" 'BEGIN { exit !(w < l) }'
ok $? "httpget on usrsctp-nt ends within $lim ms of its last body byte (median: $worst ms)"

# 7: garbage at the server's UDP port: short, random, an SCTP packet with a wrong checksum; the
# server counts the bad ones (SIGUSR2) and serves on
s0=$(sigusr2_line $hp "$tmp/h.err" "transport counters")
python3 - $srv <<'PY'
import os, random, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dst = ("127.0.0.1", int(sys.argv[1]))
random.seed(5)
for n in (0, 1, 11, 12):
    s.sendto(os.urandom(n), dst)
for i in range(200):
    s.sendto(os.urandom(random.randint(12, 1500)), dst)
# a well-formed INIT to port 8080 whose checksum is off by one bit
init = struct.pack("!HHII", 5000, 8080, 0, 0) + struct.pack("!BBHIIHHI", 1, 0, 20, 1234, 65536, 10, 10, 1)
s.sendto(init, dst)
PY
sleep 0.3
s1=$(sigusr2_line $hp "$tmp/h.err" "transport counters")
bad0=$(tr ' ' '\n' <<<"$s0" | sed -n 's/^udp_bad_crc=//p') bad1=$(tr ' ' '\n' <<<"$s1" | sed -n 's/^udp_bad_crc=//p')
"$G" -s --proto usrsctp-nt --udp-port $cli --udp-remote-port $srv -o "$tmp/got" http://127.0.0.1:8080/1k 2>/dev/null &&
    cmp -s "$tmp/got" "$doc/1k" && kill -0 $hp && [ -n "$bad1" ] && [ $((bad1 - ${bad0:-0})) -ge 200 ]
ok $? "205 bad datagrams at the server's UDP port: $((${bad1:-0} - ${bad0:-0})) counted as bad CRC32c (udp_bad_crc), and it serves on"
kill $hp; wait $hp 2>/dev/null

# 8: the threaded sctphttpd (type usrsctp) with httpget on usrsctp-nt: the other way round
daemon_start h2 'listening on usrsctp ' "$H" -L usrsctp:127.0.0.1:8080 --udp-port $srv \
    --udp-remote-port $cli -d "$doc" || { done_testing; exit; }
rm -f "$tmp/got"
"$G" -s --proto usrsctp-nt --udp-port $cli --udp-remote-port $srv -o "$tmp/got" \
    http://127.0.0.1:8080/10m 2>"$tmp/g.err" && cmp -s "$tmp/got" "$doc/10m"
ok $? "httpget on usrsctp-nt from sctphttpd on usrsctp (threads): 10 MiB, byte for byte"
kill $daemon_pid; wait $daemon_pid 2>/dev/null

# 9: msgperf one way at every size, server and client processes: no datagram dropped
# (RcvbufErrors of /proc/net/snmp, this host's; the rate is told)
rcvbuf_errors() { awk '/^Udp:/ { n++; if (n == 1) for (i = 1; i <= NF; i++) h[i] = $i
	else for (i = 1; i <= NF; i++) if (h[i] == "RcvbufErrors") print $i }' /proc/net/snmp; }
e0=$(rcvbuf_errors) fails=0 rates=
for size in 100 1000 10000 16384; do
	"$M" server -q -t usrsctp-nt -a 127.0.0.1:$((base + 6)) --udp-port $srv --udp-remote-port $cli &
	ms=$!
	sleep 0.3
	r=$(timeout 30 "$M" client -q --csv -t usrsctp-nt -a 127.0.0.1:$((base + 6)) -s $size -T oneway \
	    -d 2 --udp-port $cli --udp-remote-port $srv | awk -F, '$1 == "oneway" && $4 > 0 { print $4 }')
	kill -0 $ms 2>/dev/null || fails=$((fails + 1)) # the server ran until now
	kill $ms; wait $ms 2>/dev/null
	[ -n "$r" ] || fails=$((fails + 1))
	rates="$rates $size:${r:-none}"
done
e1=$(rcvbuf_errors)
diag "msgperf usrsctp-nt one way, kbit/s:$rates"
[ $fails = 0 ] && [ $((e1 - e0)) = 0 ]
ok $? "msgperf on usrsctp-nt one way at 100, 1000, 10000, 16384 B: every run done at a rate above 0, its server up until the end, $((e1 - e0)) datagrams dropped"

# 10-11: the stack's packets leave batched (tp_usrsctp_out.c: what one loop turn emits, in one
# sendmmsg): the receiving client of a one-way run sends its SACKs at least 3 a call (about 5
# measured; 1 when each went alone). By default no UDP GSO message (a GSO message to kernel SCTP
# in UDP on the same host panicked Linux 6.1); with SCTPAPPS_USRSCTP_GSO=1, where the kernel has
# UDP GSO, at least half of them in GSO runs (97 % measured).
# batched GSO STATS: one 1 s one-way run; the client's counters in STATS
batched() {
	: >"$2"
	"$M" server -q -t usrsctp-nt -a 127.0.0.1:$((base + 6)) --udp-port $srv --udp-remote-port $cli &
	ms=$!
	sleep 0.3
	SCTPAPPS_USRSCTP_GSO=$1 SCTPAPPS_USRSCTP_STATS=$2 timeout 30 "$M" client -q --csv -t usrsctp-nt \
	    -a 127.0.0.1:$((base + 6)) -s 16384 -T oneway -d 1 --udp-port $cli --udp-remote-port $srv >/dev/null
	rc=$?
	kill $ms; wait $ms 2>/dev/null
	bo=$(cnt udp_out <"$2") bc=$(cnt udp_out_calls <"$2") be=$(cnt udp_out_err <"$2")
	bg=$(cnt udp_out_gso <"$2")
	[ $rc = 0 ] && [ -n "$bc" ] && [ "${bc:-0}" -gt 0 ] && [ "$be" = 0 ] && [ "$bo" -ge $((3 * bc)) ]
}
batched "" "$tmp/bst"
r=$?
[ $r = 0 ] && [ "$bg" = 0 ]
ok $? "one way 16 KiB, default: the receiver's $bo packets left in ${bc:-no} sendmmsg calls (at least 3 a call), ${bg:-?} in GSO runs (none by default), ${be:-?} refused"
if python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).setsockopt(socket.SOL_UDP, 103, 1400)' 2>/dev/null; then
	gso=1 gwant="at least half in GSO runs"
else
	gso=0 gwant="no UDP GSO in this kernel"
fi
batched 1 "$tmp/gst"
r=$?
[ $r = 0 ] && { [ $gso = 0 ] || [ $((2 * ${bg:-0})) -ge "$bo" ]; }
ok $? "one way 16 KiB, SCTPAPPS_USRSCTP_GSO=1: $bo packets in ${bc:-no} calls, ${bg:-no} in GSO runs ($gwant), ${be:-?} refused"

# 12: a link whose MTU (1280) is under the stack's packets (1452 + 28), GSO asked for: a GSO run
# is refused (EMSGSIZE), GSO goes off and each packet leaves alone, in IP fragments, as without it
: >"$tmp/mst"
unshare -n bash -c 'ip link set lo mtu 1280 up || exit 1
"$1" server -q -t usrsctp-nt -a 127.0.0.1:$2 --udp-port $3 --udp-remote-port $4 &
s=$!
sleep 0.3
SCTPAPPS_USRSCTP_GSO=1 SCTPAPPS_USRSCTP_STATS=$5 timeout 30 "$1" client -q --csv -t usrsctp-nt -a 127.0.0.1:$2 -s 16384 \
    -T throughput -d 1 --udp-port $4 --udp-remote-port $3
kill $s' x "$M" $((base + 6)) $srv $cli "$tmp/mst" >"$tmp/mtu.csv" 2>"$tmp/mtu.err"
mr=$(awk -F, '$1 == "throughput" { print $4 }' "$tmp/mtu.csv") me=$(cnt udp_out_err <"$tmp/mst")
awk -v r="$mr" 'BEGIN { exit !(r > 0) }' && [ "$me" = 0 ]
ok $? "lo MTU 1280: throughput 16 KiB ${mr:-none} kbit/s, ${me:-?} packets refused (GSO off after the first EMSGSIZE)"

# 13-14: refused with a reason: several addresses (one path per association), and both stacks
# in one process
"$H" -L usrsctp-nt:127.0.0.1,127.0.0.2:8080 --udp-port $srv -d "$doc" >/dev/null 2>"$tmp/e1" &
bp=$!
for i in $(seq 1 50); do kill -0 $bp 2>/dev/null || break; sleep 0.1; done
kill $bp 2>/dev/null && { wait $bp; rc=0; } || { wait $bp; rc=$?; }
[ $rc -ne 0 ] && grep -q 'one path per association' "$tmp/e1"
ok $? "sctphttpd on usrsctp-nt at two addresses: refused, exit $rc ($(grep -m1 'path' "$tmp/e1" | head -c 140))"
"$H" -L usrsctp:127.0.0.1:8080 -L usrsctp-nt:127.0.0.1:8081 --udp-port $srv -d "$doc" \
    >/dev/null 2>"$tmp/e2" &
bp=$!
for i in $(seq 1 50); do kill -0 $bp 2>/dev/null || break; sleep 0.1; done
kill $bp 2>/dev/null && { wait $bp; rc=0; } || { wait $bp; rc=$?; }
[ $rc -ne 0 ] && grep -q 'cannot run beside it' "$tmp/e2"
ok $? "sctphttpd asked for usrsctp and usrsctp-nt at once: refused, exit $rc ($(grep -m1 'beside' "$tmp/e2" | head -c 140))"
done_testing
