#!/bin/bash
# patches-httperf.sh: httperf 0.9.0 with patches/httperf-0.9.0-sctp.patch against sctphttpd
# over kernel SCTP (one-to-one), 1, 10 and 100 streams, bursts of calls spread over them: every
# call answered, and the totals (replies, bytes) equal httpload's on the same server in the
# same run; a logging server shows the calls going round-robin over the streams with PPID 63.
# Kernel SCTP: natively or in the VM ("--inner" is the part run there).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
hl=$top_builddir/httpload/httpload
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
PB=${SCTPAPPS_PATCHES:-$top_srcdir/build/patches}
hp=$PB/bin/httperf

if [ "$1" != --inner ]; then
	out=$("$top_srcdir/patches/apply" -q httperf 2>&1)
	ok $? "patches/apply httperf: $(echo "$out" | tail -n 1)"
	for f in "$H" "$hl" "$hp"; do
		if [ ! -x "$f" ]; then
			ok 1 "$f built"
			done_testing
			exit
		fi
	done
	run_tap kernel_sctp bash "$here/patches-httperf.sh" --inner
	done_testing
	exit
fi

scratch patches-httperf
# kernel SCTP on lo's 64 KiB MTU waits on delayed SACKs; 1500 is a real link's
ip link set lo mtu 1500 2>/dev/null
doc=$tmp/doc
mkdir -p "$doc"
head -c 1024 /dev/urandom >"$doc/1k.bin"
head -c 100000 /dev/urandom >"$doc/100k.bin"
chmod -R a+rX "$tmp"
for try in $(seq 1 30); do
	b=$((20000 + (RANDOM % 2000) * 8))
	! ss -Hln --sctp "sport = :$b" 2>/dev/null | grep -q . && break
done
httpd_start h -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$b --idle-timeout 30
grep -q '^sctphttpd: listening on' "$tmp/h.err"
ok $? "sctphttpd listens on kernel SCTP port $b"

# totals FILE: "REPLIES BYTES 2XX" from an httperf-style report
totals() {
	awk '/^Total: connections/ {r = $7}
	    /^Reply size \[B\]:/ {gsub(/[()]/, ""); t = $NF}
	    /^Reply status:/ {split($4, a, "="); s = a[2]}
	    END {printf "%d %d %d\n", r, r * t + 0.5, s}' "$1"
}

# run STREAMS URI CONNS CALLS BURST
run() {
	local s=$1 uri=$2 n=$3 c=$4 burst=$5 want=$(($3 * $4)) hpt hlt
	timeout 120 "$hp" --sctp-streams "$s" --server 127.0.0.1 --port $b --uri "$uri" \
	    --num-conns "$n" --num-calls "$c" --burst-length "$burst" --timeout 20 \
	    >"$tmp/hp.out" 2>"$tmp/hp.err"
	local rc=$?
	hpt=$(totals "$tmp/hp.out")
	[ $rc -eq 0 ] && [ "$hpt" = "$want $(echo "$hpt" | cut -d' ' -f2) $want" ] &&
	    grep -q '^Errors: total 0 ' "$tmp/hp.out"
	rc=$?
	ok $rc "httperf --sctp-streams $s $uri: $n x $c calls in bursts of $burst, all 2xx, no errors ($hpt)"
	[ $rc -eq 0 ] || { grep -E '^(Total|Reply status|Errors)' "$tmp/hp.out"; head -n 5 "$tmp/hp.err"; } |
	    sed 's/^/# /'
	timeout 120 "$hl" --proto sctp --streams "$s" --server 127.0.0.1 --port $b --uri "$uri" \
	    --num-conns "$n" --num-calls "$c" --max-piped-calls 2 --timeout 20 \
	    >"$tmp/hl.out" 2>"$tmp/hl.err"
	hlt=$(totals "$tmp/hl.out")
	[ "$hpt" = "$hlt" ]
	ok $? "httperf's totals equal httpload's (replies, bytes, 2xx: $hpt / $hlt)"
}
run 1 /1k.bin 3 60 10
run 10 /1k.bin 3 60 10
run 100 /1k.bin 3 200 100
# bodies of several SCTP messages (sctphttpd: 16 KiB each), read in parts
run 10 /100k.bin 2 20 10

# which stream each call takes: a server that logs them (requests answered at once, so every
# stream is idle again when the next call of a burst goes out)
s=$((b + 1))
daemon_start py listening /usr/bin/python3 "$here/patches-streams.py" $s "$tmp/sids"
timeout 60 "$hp" --sctp-streams 10 --server 127.0.0.1 --port $s --uri / --num-conns 1 \
    --num-calls 30 --burst-length 10 --timeout 20 >"$tmp/hp.out" 2>&1
grep -q '^Total: connections 1 requests 30 replies 30 ' "$tmp/hp.out"
ok $? "httperf --sctp-streams 10: 30 calls answered by the logging server"
seq="$(for i in 1 2 3; do for j in $(seq 0 9); do echo "$j 63"; done; done)"
[ "$(cat "$tmp/sids")" = "$seq" ]
ok $? "the calls go round-robin over streams 0..9, each with PPID 63 ($(awk '{printf "%s ", $1}' "$tmp/sids"))"

# the option is checked
"$hp" --sctp-streams 0 --server 127.0.0.1 >/dev/null 2>&1
[ $? -eq 1 ]
ok $? "httperf --sctp-streams 0 is refused"
done_testing
