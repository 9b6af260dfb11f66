#!/bin/bash
# httpload-kernel.sh: httpload and httpget over kernel SCTP (sctp, sctp1m) against sctphttpd:
# 1, 10 and 100 streams with --verify, several URLs on one association, a multihomed server and
# a failover when one of its addresses goes dark mid-run (TAP). Runs natively where the kernel
# has SCTP, else inside the VM (test/vm/run): "--inner" is the part run there.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
hl=$top_builddir/httpload/httpload
hg=$top_builddir/httpload/httpget
H=${SCTPHTTPD:-$top_builddir/sctphttpd}

if [ "$1" != --inner ]; then
	for f in "$H" "$hl" "$hg"; do
		if [ ! -x "$f" ]; then
			ok 1 "$f not built"
			done_testing
			exit
		fi
	done
	# Always in the VM, even where this host has SCTP: the failover case sets net.sctp sysctls.
	run_tap "$top_srcdir/test/vm/run" bash "$here/httpload-kernel.sh" --inner
	done_testing
	exit
fi

scratch httpload-kernel
chmod 755 "$tmp"
nft_table=
trap '[ -z "$nft_table" ] || nft delete table ip "$nft_table" 2>/dev/null; scratch_cleanup' EXIT

doc=$tmp/doc
mkdir -p "$doc"
head -c 1024 /dev/urandom >"$doc/1k.bin"
head -c 100000 /dev/urandom >"$doc/100k.bin"
echo first >"$doc/first.txt"
chmod -R a+rX "$doc"
# the manifest: PATH SIZE CRC32 (cksum's CRC is not zlib's, so python computes it)
python3 - "$doc" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY

sctp_free() {
	! ss -Hln --sctp "sport = :$1" 2>/dev/null | grep -q .
}
for try in $(seq 1 30); do
	b=$((20000 + (RANDOM % 2000) * 8))
	sctp_free $b && sctp_free $((b + 1)) && sctp_free $((b + 2)) && break
done

start() { httpd_start -n "$2" "$1" "${@:3}"; } # start NAME WANT ARGS...: sctphttpd ARGS, listening WANT times
field() { # field FILE REGEX: the first capture group of REGEX in FILE
	sed -nE "s/$2/\\1/p" "$1" | head -1
}

start main 4 -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$b -L sctp1m:127.0.0.1:$((b + 1)) \
    -L sctp:127.0.0.1,127.0.0.2:$((b + 2)) --idle-timeout 30
ok $? "sctphttpd listens on sctp, sctp1m and a multihomed sctp (127.0.0.1,127.0.0.2)"
main=$last

# ---- counts and --verify-manifest, 1, 10 and 100 streams, both kernel transports ----
for t in "sctp $b" "sctp1m $((b + 1))"; do
	set -- $t
	for s in 1 10 100; do
		timeout 120 "$hl" --proto "$1" --server 127.0.0.1 --port "$2" --streams $s \
		    --uri /1k.bin --num-conns 3 --num-calls 60 --max-piped-calls 2 --timeout 20 \
		    --verbose --verify-manifest "$tmp/manifest" >"$tmp/o" 2>"$tmp/e"
		rc=$?
		grep -q '^Total: connections 3 requests 180 replies 180 ' "$tmp/o" &&
		    grep -q '^Reply status: 1xx=0 2xx=180 3xx=0 4xx=0 5xx=0' "$tmp/o" &&
		    grep -q 'corrupt 0$' "$tmp/o" && grep -q "$s streams\? usable" "$tmp/e" &&
		    [ $rc -eq 0 ]
		ok $? "$1, $s stream(s): 3 x 60 calls (2 piped), all 2xx, verified, $s usable"
		[ $rc -eq 0 ] || { grep -E '^(Total|Reply status|Errors)' "$tmp/o"; head -n 3 "$tmp/e"; } |
		    sed 's/^/# /'
	done
	# a body larger than one SCTP user message (16 KiB), several on one association
	timeout 120 "$hl" --proto "$1" --server 127.0.0.1 --port "$2" --streams 10 --uri /100k.bin \
	    --num-conns 2 --num-calls 20 --timeout 20 --verify-manifest "$tmp/manifest" \
	    >"$tmp/o" 2>"$tmp/e"
	rc=$?
	grep -q '^Total: connections 2 requests 40 replies 40 ' "$tmp/o" &&
	    grep -q 'corrupt 0$' "$tmp/o" && [ $rc -eq 0 ]
	ok $? "$1: 100 KB bodies (7 messages each) on 10 streams, verified"
	[ $rc -eq 0 ] || grep -E '^(Total|Errors)' "$tmp/o" | sed 's/^/# /'
	# a wrong manifest entry is caught: the test of the test
	sed 's/^\/1k.bin \([0-9]*\) .*/\/1k.bin \1 00000000/' "$tmp/manifest" >"$tmp/bad-manifest"
	timeout 60 "$hl" --proto "$1" --server 127.0.0.1 --port "$2" --streams 10 --uri /1k.bin \
	    --num-conns 1 --num-calls 5 --timeout 20 --verify-manifest "$tmp/bad-manifest" \
	    >"$tmp/o" 2>"$tmp/e"
	[ $? -eq 1 ] && grep -q 'corrupt 5$' "$tmp/o"
	ok $? "$1: a checksum that does not match counts each call as corrupt (exit 1)"
done

# ---- httpget: several URLs on one association, one per stream ----
mkdir -p "$tmp/dl"
u=http://127.0.0.1:$b
timeout 60 "$hg" --proto sctp -v -O "$tmp/dl" "$u/1k.bin" "$u/100k.bin" "$u/first.txt" \
    "$u/missing" 2>"$tmp/g.err"
rc=$?
cmp -s "$tmp/dl/1k.bin" "$doc/1k.bin" && cmp -s "$tmp/dl/100k.bin" "$doc/100k.bin" &&
    cmp -s "$tmp/dl/first.txt" "$doc/first.txt" && grep -q 'on stream 3' "$tmp/g.err" &&
    grep -q '4 streams' "$tmp/g.err" && [ $rc -eq 0 ]
ok $? "httpget over sctp: four URLs on one association, one per stream, content checked"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/g.err"
timeout 30 "$hg" --proto sctp1m -s "$u/first.txt" >"$tmp/g.out" 2>"$tmp/g.err" &&
    timeout 30 "$hg" --proto sctp1m -s -o "$tmp/g2.out" "http://127.0.0.1:$((b + 1))/first.txt" &&
    cmp -s "$tmp/g2.out" "$doc/first.txt"
ok $? "httpget over sctp1m"
timeout 30 "$hg" --proto sctp -f "$u/missing" >/dev/null 2>&1
[ $? -eq 22 ]
ok $? "httpget --fail over sctp: exit 22 on a 404"

# ---- multihoming: connectx to both addresses of one server ----
m=$((b + 2))
timeout 60 "$hl" --proto sctp --server 127.0.0.1,127.0.0.2 --port $m --streams 10 \
    --uri /1k.bin --num-conns 2 --num-calls 50 --timeout 20 --verify-manifest "$tmp/manifest" \
    >"$tmp/o" 2>"$tmp/e"
rc=$?
grep -q '^Total: connections 2 requests 100 replies 100 ' "$tmp/o" && grep -q 'corrupt 0$' "$tmp/o" &&
    [ $rc -eq 0 ]
ok $? "--server 127.0.0.1,127.0.0.2: connectx to a multihomed server, 2 x 50 calls"
[ $rc -eq 0 ] || { grep -E '^(Total|Errors)' "$tmp/o"; head -n 3 "$tmp/e"; } | sed 's/^/# /'
timeout 60 "$hl" --proto sctp --server 127.0.0.2,127.0.0.1 --port $m --uri /first.txt \
    --num-conns 1 --num-calls 10 --timeout 20 >"$tmp/o" 2>"$tmp/e"
[ $? -eq 0 ] && grep -q 'replies 10 ' "$tmp/o"
ok $? "--server 127.0.0.2,127.0.0.1: the second address first"

# Failover: one association, closed loop, for 7 s; after 1 s the server's first address drops
# all that is sent to it. With short RTOs and path_max_retrans 1, httpload's own options for its
# association (--rto-min/--rto-initial/--rto-max/--path-max-retrans), the client moves to
# 127.0.0.2 within about a second, well inside --timeout 3: no errors, and replies keep coming
# after the drop. The heartbeat interval is a sysctl (so only in the VM).
if [ "${SCTPAPPS_VM:-}" = 1 ] && command -v nft >/dev/null; then
	sysctl -qw net.sctp.hb_interval=500
	# A counter on the path to 127.0.0.1 from the start shows it carried the load until the
	# drop (the primary path: the first address given).
	nft_table=httpload_$$
	nft add table ip $nft_table &&
	    nft add chain ip $nft_table out '{ type filter hook output priority 0; }' &&
	    nft add rule ip $nft_table out ip daddr 127.0.0.1 sctp dport $m counter
	ok $? "nft: a counter on 127.0.0.1:$m"
	timeout 60 "$hl" --proto sctp --server 127.0.0.1,127.0.0.2 --port $m --streams 4 \
	    --uri /1k.bin --concurrency 1 --duration 7 --timeout 3 --verbose \
	    --rto-min 100 --rto-initial 200 --rto-max 400 --path-max-retrans 1 \
	    --verify-manifest "$tmp/manifest" >"$tmp/o" 2>"$tmp/e" &
	lp=$!
	sleep 1
	nft add rule ip $nft_table out ip daddr 127.0.0.1 sctp dport $m counter drop
	ok $? "nft: 127.0.0.1:$m blocked mid-run"
	wait $lp
	rc=$?
	nft list table ip $nft_table >"$tmp/nft" 2>&1
	dropped=$(sed -nE 's/.*counter packets ([0-9]+) .* drop.*/\1/p' "$tmp/nft")
	via1=$(sed -nE '/drop/d; s/.*counter packets ([0-9]+) .*/\1/p' "$tmp/nft")
	nft delete table ip $nft_table && nft_table=
	n=$(field "$tmp/o" '^Reply status: 1xx=[0-9]+ 2xx=([0-9]+) .*')
	# A stall of 3 s (--timeout) from the drop at 1 s would end the 7 s run with client-timo:
	# no error means the replies went on, through 127.0.0.2. Each call sends at least one
	# packet to the server: more replies than packets ever sent to 127.0.0.1 (via1, the
	# dropped ones included) went through 127.0.0.2.
	[ $rc -eq 0 ] && grep -q 'Errors: total 0 ' "$tmp/o" && grep -q 'corrupt 0$' "$tmp/o" &&
	    [ "${via1:-0}" -gt 100 ] && [ "${dropped:-0}" -gt 0 ] &&
	    [ "${n:-0}" -gt $((${via1:-0} + 100)) ]
	ok $? "failover: the load went on through 127.0.0.2 ($n replies; $via1 packets to 127.0.0.1, $dropped of them dropped)"
	[ $rc -eq 0 ] || { grep -E '^(Total|Errors)' "$tmp/o"; head -n 3 "$tmp/e"; } | sed 's/^/# /'
else
	ok 1 "failover with nft: needs the VM (it sets net.sctp sysctls) and nft"
fi

kill -USR1 $main
timeout 10 tail --pid=$main -f /dev/null
wait $main
ok $? "sctphttpd: SIGUSR1, exit 0"
done_testing
