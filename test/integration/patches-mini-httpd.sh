#!/bin/bash
# patches-mini-httpd.sh: mini_httpd 1.30 with patches/mini-httpd-1.30-sctp.patch (its listening
# socket is SCTP one-to-one: the one-line transport swap) against our httpload --proto sctp
# over kernel SCTP: every call answered, bodies checked against a manifest, a missing file
# is a 404. Kernel SCTP: natively or in the VM ("--inner" is the part run there).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
hl=$top_builddir/httpload/httpload
PB=${SCTPAPPS_PATCHES:-$top_srcdir/build/patches}
mh=$PB/bin/mini_httpd

if [ "$1" != --inner ]; then
	out=$("$top_srcdir/patches/apply" -q mini-httpd 2>&1)
	ok $? "patches/apply mini-httpd: $(echo "$out" | tail -n 1)"
	for f in "$hl" "$mh"; do
		if [ ! -x "$f" ]; then
			ok 1 "$f built"
			done_testing
			exit
		fi
	done
	run_tap kernel_sctp bash "$here/patches-mini-httpd.sh" --inner
	done_testing
	exit
fi

scratch patches-mini-httpd
ip link set lo mtu 1500 2>/dev/null
doc=$tmp/doc
mkdir -p "$doc"
head -c 1024 /dev/urandom >"$doc/1k.bin"
head -c 100000 /dev/urandom >"$doc/100k.bin"
chmod -R a+rX "$tmp"
python3 - "$doc" >"$tmp/manifest" <<'PY'
import os, sys, zlib
for n in sorted(os.listdir(sys.argv[1])):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    print("/%s %d %08x" % (n, len(d), zlib.crc32(d) & 0xffffffff))
PY
for try in $(seq 1 30); do
	b=$((20000 + (RANDOM % 2000) * 8))
	! ss -Hln --sctp "sport = :$b" 2>/dev/null | grep -q . && break
done
# -D: foreground; as root it serves as nobody (hence the a+rX)
"$mh" -D -h 127.0.0.1 -p $b -d "$doc" -l "$tmp/access.log" >"$tmp/mh.out" 2>"$tmp/mh.err" &
pids="$pids $!"
for i in $(seq 1 50); do
	ss -Hln --sctp "sport = :$b" 2>/dev/null | grep -q . && break
	sleep 0.1
done
ss -Hln --sctp "sport = :$b" | grep -q .
ok $? "mini_httpd listens on SCTP port $b ($(ss -Hln --sctp "sport = :$b" | awk '{print $1, $4}'))"

# mini_httpd answers one request per connection (Connection: close). Its replies are write()s
# on an SCTP socket: PPID 0, which the draft's clients take as HTTP only when told to.
load() { # load URI CONNS [OPTION...]
	local uri=$1 n=$2
	shift 2
	timeout 120 "$hl" --proto sctp --server 127.0.0.1 --port $b --uri "$uri" --num-conns "$n" \
	    --num-calls 1 --timeout 20 --verify-manifest "$tmp/manifest" "$@" >"$tmp/o" 2>"$tmp/e"
}
load /1k.bin 3
grep -q '^Reply status: 1xx=0 2xx=0 ' "$tmp/o" && grep -q 'other 3 ' "$tmp/o"
ok $? "without --accept-ppid0 httpload takes none of mini_httpd's PPID 0 replies as HTTP ($(grep -o 'other [0-9]*' "$tmp/o"))"
load /1k.bin 50 --accept-ppid0
rc=$?
grep -q '^Total: connections 50 requests 50 replies 50 ' "$tmp/o" &&
    grep -q '^Reply status: 1xx=0 2xx=50 ' "$tmp/o" && grep -q 'corrupt 0$' "$tmp/o" && [ $rc -eq 0 ]
rc=$?
ok $rc "httpload --proto sctp: 50 associations, 1 KB each, all 2xx, verified"
[ $rc -eq 0 ] || { grep -E '^(Total|Reply status|Errors)' "$tmp/o"; head -n 5 "$tmp/e"; } | sed 's/^/# /'
load /100k.bin 10 --accept-ppid0
rc=$?
grep -q '^Total: connections 10 requests 10 replies 10 ' "$tmp/o" &&
    grep -q 'corrupt 0$' "$tmp/o" && [ $rc -eq 0 ]
rc=$?
ok $rc "httpload --proto sctp: 100 KB bodies, verified"
[ $rc -eq 0 ] || { grep -E '^(Total|Reply status|Errors)' "$tmp/o"; head -n 5 "$tmp/e"; } | sed 's/^/# /'
load /missing 3 --accept-ppid0
grep -q '^Reply status: 1xx=0 2xx=0 3xx=0 4xx=3 ' "$tmp/o"
ok $? "a missing file: 404 over SCTP"
[ "$(grep -c ' 200 ' "$tmp/access.log")" -ge 60 ]
ok $? "mini_httpd's log has the 60 transfers"
done_testing
