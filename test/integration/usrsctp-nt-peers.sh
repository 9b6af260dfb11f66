#!/bin/bash
# usrsctp-nt-peers.sh: usrsctp-nt's peers (lib/tp/usrsctp/tp_usrsctp_peer.c: one per remote UDP address,
# kept in a hash of 1024 buckets) on a dual-stack listener (issue 35, fault 2): sctphttpd on
# usrsctp-nt:[::]:PORT, whose UDP socket maps IPv4 peers to ::ffff:a.b.c.d; three httpget
# clients at once, two from 127.0.0.1 on UDP ports that land in one bucket and one from ::1 on
# a port that lands there too: each gets its document byte for byte, and the server counts
# three peers. (The IPv4-only listeners of the other tests never map an address.) TAP.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
need "$H" "$G" ss python3
grep -q 'define HAVE_USRSCTP 1' "$top_builddir/config.h" || { ok 1 "usrsctp not built"; done_testing; exit; }
scratch usrsctp-nt-peers
if ! python3 -c 'import socket; s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(("::1", 0))' 2>/dev/null; then
	ok 1 "no IPv6 on this host's loopback (::1)"
	done_testing
	exit
fi

udp_base 8
srv=$udp_base
# UDP ports in srv+1.. whose peers share a bucket: pe_hash's FNV-1a over the address's 16
# bytes and the port's 2 in network order, modulo 1024, mirrored here (should pe_hash change,
# the ports no longer collide and mutant peer-same-no-port, which bites only within a bucket,
# survives: test/mutants/run shows it)
read -r c1 c2 c3 <<<"$(python3 - "$srv" <<'PY'
import socket, sys
def h(addr, port):
    x = 2166136261
    for b in socket.inet_pton(socket.AF_INET6, addr) + port.to_bytes(2, "big"):
        x = ((x ^ b) * 16777619) & (2**64 - 1)
    return x % 1024
srv = int(sys.argv[1])
v4 = "::ffff:127.0.0.1"
ports = [p for p in range(srv + 1, 65535) if not srv <= p < srv + 8]
a = srv + 1
b = next(p for p in ports if p != a and h(v4, p) == h(v4, a))
c = next(p for p in ports if p not in (a, b) and h("::1", p) == h(v4, a))
print(a, b, c)
PY
)"
for p in $c2 $c3; do
	ss -Huan "sport = :$p" | grep -q . && { ok 1 "UDP port $p in use"; done_testing; exit; }
done
diag "server UDP port $srv; clients 127.0.0.1:$c1, 127.0.0.1:$c2 and [::1]:$c3 share one peer bucket"

doc=$tmp/doc
mkdir -p "$doc"
for f in a b c; do head -c 300000 /dev/urandom >"$doc/$f"; done
daemon_start h 'listening on usrsctp-nt ' "$H" -L "usrsctp-nt:[::]:8080" --udp-port $srv -d "$doc" ||
    { done_testing; exit; }
hp=$daemon_pid

# 1-3: the three at once
get() { # get NAME UDP-PORT URL
	"$G" -s -m 10 --proto usrsctp-nt --udp-port "$2" --udp-remote-port $srv -o "$tmp/got.$1" "$3" \
	    2>"$tmp/g.$1.err"
	echo $? >"$tmp/g.$1.rc"
}
get a $c1 http://127.0.0.1:8080/a &
g1=$!
get b $c2 http://127.0.0.1:8080/b &
g2=$!
get c $c3 "http://[::1]:8080/c" &
wait $g1 $g2 $!
for f in a b c; do
	rc=$(cat "$tmp/g.$f.rc")
	[ "$rc" = 0 ] && cmp -s "$tmp/got.$f" "$doc/$f"
	ok $? "client $f (UDP port $(case $f in a) echo $c1 ;; b) echo $c2 ;; c) echo "$c3, ::1" ;; esac)): 300000 bytes byte for byte, exit $rc $(head -c 120 "$tmp/g.$f.err")"
done

# 4: three peers, none evicted (SIGUSR2 counters)
s=$(sigusr2_line $hp "$tmp/h.err" "transport counters")
peers=$(tr ' ' '\n' <<<"$s" | sed -n 's/^peers=//p') ev=$(tr ' ' '\n' <<<"$s" | sed -n 's/^peers_evicted=//p')
[ "$peers" = 3 ] && [ "$ev" = 0 ]
ok $? "the server knows 3 peers (peers=$peers, evicted $ev)"
kill $hp
wait $hp 2>/dev/null
done_testing
