#!/bin/bash
# usrsctp-nt-gro.sh: usrsctp-nt's socket takes UDP GRO's coalesced buffers (UDP_GRO, on by default
# where the kernel has it, SCTPAPPS_USRSCTP_GRO=0 off) and cuts them back into the datagrams they
# were (lib/tp/usrsctp/tp_udp_gro.c) before the stack sees them (issue 35):
#  1. sctphttpd on usrsctp-nt says udp_gro=1 in its counters (SIGUSR2);
#  2. one GSO message of 5 x 100 + 40 bytes (not SCTP: bad checksums) to its port counts as one
#     GRO batch and exactly 6 datagrams with a bad checksum;
#  3. a 2 MB GET from it with its GSO on (SCTPAPPS_USRSCTP_GSO=1): the client receives GRO
#     batches (udp_in_gro > 0), no datagram with a bad checksum (a wrong cut would fail the
#     CRC32c), the body byte for byte;
#  4-5. the fallback, SCTPAPPS_USRSCTP_GRO=0: the same GET byte for byte with no GRO batch
#     (udp_gro=0), and the GSO message to such a server: 6 datagrams, no batch.
# Where the kernel has no UDP GSO or GRO (before Linux 5.0) 1-3 say so and check udp_gro=0. TAP.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
need "$H" "$G" python3
grep -q 'define HAVE_USRSCTP 1' "$top_builddir/config.h" || { ok 1 "usrsctp not built"; done_testing; exit; }
scratch usrsctp-nt-gro
udp_base 8
srv=$udp_base
doc=$tmp/doc
mkdir -p "$doc"
head -c 2000000 /dev/urandom >"$doc/big"
if python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.setsockopt(socket.SOL_UDP, 104, 1); s.setsockopt(socket.SOL_UDP, 103, 1000)' 2>/dev/null; then
	gro=1
else
	gro=0
	diag "this kernel has no UDP GSO or GRO: only the fallback is checked"
fi
cnt() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
# gso_garbage PORT: one GSO message, 5 x 100 + 40 bytes, from 127.0.0.1 to PORT
gso_garbage() {
	python3 - "$1" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendmsg([bytes(range(256)) * 2 + bytes(28)], [(socket.SOL_UDP, 103, struct.pack("H", 100))],
    0, ("127.0.0.1", int(sys.argv[1])))
PY
}

# 1-2
daemon_start h 'listening on usrsctp-nt ' env SCTPAPPS_USRSCTP_GSO=1 "$H" -L usrsctp-nt:127.0.0.1:8080 \
    --udp-port $srv -d "$doc" || { done_testing; exit; }
hp=$daemon_pid
s0=$(sigusr2_line $hp "$tmp/h.err" "transport counters")
[ "$(cnt udp_gro <<<"$s0")" = $gro ]
ok $? "the server's counters say udp_gro=$(cnt udp_gro <<<"$s0") (this kernel: $gro)"
if [ $gro = 1 ]; then
	gso_garbage $srv
	sleep 0.3
	s1=$(sigusr2_line $hp "$tmp/h.err" "transport counters")
	b0=$(cnt udp_bad_crc <<<"$s0") b1=$(cnt udp_bad_crc <<<"$s1") g0=$(cnt udp_in_gro <<<"$s0") g1=$(cnt udp_in_gro <<<"$s1")
	[ -n "$b1" ] && [ $((b1 - b0)) = 6 ] && [ $((g1 - g0)) = 1 ]
	ok $? "one GSO message of 5 x 100 + 40 bytes: $((b1 - b0)) datagrams with a bad checksum (6), $((g1 - g0)) GRO batch (1)"
else
	ok 0 "no UDP GRO here: the GSO message not sent"
fi

# 3-4: GETs with the server's GSO on, the client's GRO on and off
get() { # get NAME GRO
	: >"$tmp/$1.st"
	SCTPAPPS_USRSCTP_GRO=$2 SCTPAPPS_USRSCTP_STATS=$tmp/$1.st "$G" -s -m 20 --proto usrsctp-nt \
	    --udp-port $((srv + 1)) --udp-remote-port $srv -o "$tmp/$1.got" http://127.0.0.1:8080/big \
	    2>"$tmp/$1.err"
	rc=$?
	cmp -s "$tmp/$1.got" "$doc/big" && [ $rc = 0 ]
}
get on 1
r=$?
gi=$(cnt udp_in_gro <"$tmp/on.st") gb=$(cnt udp_bad_crc <"$tmp/on.st") gu=$(cnt udp_gro <"$tmp/on.st") gn=$(cnt udp_in <"$tmp/on.st")
[ $r = 0 ] && [ "$gb" = 0 ] && [ "$gu" = $gro ] && { [ $gro = 0 ] || [ "${gi:-0}" -gt 0 ]; }
ok $? "2 MB from a GSO sender: byte for byte, $gn datagrams in ${gi:-?} GRO batches (more than 0 where the kernel has GRO), ${gb:-?} bad checksums $(head -c 100 "$tmp/on.err")"
get off 0
r=$?
fi_=$(cnt udp_in_gro <"$tmp/off.st") fu=$(cnt udp_gro <"$tmp/off.st") fb=$(cnt udp_bad_crc <"$tmp/off.st")
[ $r = 0 ] && [ "$fi_" = 0 ] && [ "$fu" = 0 ] && [ "$fb" = 0 ]
ok $? "SCTPAPPS_USRSCTP_GRO=0: byte for byte, udp_gro=$fu, $fi_ GRO batches, $fb bad checksums $(head -c 100 "$tmp/off.err")"
kill $hp
wait $hp 2>/dev/null

# 5: a server without GRO: the GSO message as 6 datagrams
daemon_start h2 'listening on usrsctp-nt ' env SCTPAPPS_USRSCTP_GRO=0 "$H" -L usrsctp-nt:127.0.0.1:8081 \
    --udp-port $((srv + 2)) -d "$doc" || { done_testing; exit; }
hp=$daemon_pid
s0=$(sigusr2_line $hp "$tmp/h2.err" "transport counters")
if [ $gro = 1 ]; then
	gso_garbage $((srv + 2))
	sleep 0.3
fi
s1=$(sigusr2_line $hp "$tmp/h2.err" "transport counters")
b0=$(cnt udp_bad_crc <<<"$s0") b1=$(cnt udp_bad_crc <<<"$s1") g1=$(cnt udp_in_gro <<<"$s1")
[ "$(cnt udp_gro <<<"$s1")" = 0 ] && [ "$g1" = 0 ] && [ -n "$b1" ] && [ $((b1 - b0)) = $((6 * gro)) ]
ok $? "SCTPAPPS_USRSCTP_GRO=0 server: udp_gro=$(cnt udp_gro <<<"$s1"), the GSO message as $((b1 - b0)) datagrams ($((6 * gro))), $g1 GRO batches"
kill $hp
wait $hp 2>/dev/null
done_testing
