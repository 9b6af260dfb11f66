#!/bin/bash
# usrsctp-tuning.sh: the SCTP tuning of experiment 06's tuned rows reaches the stack: sctphttpd
# (--rto-min, --sctp-sack-delay, --sctp-init-cwnd) and httpload (--rto-min and the same two) on
# usrsctp and usrsctp-nt, each read back from the stack (sctphttpd's SIGUSR2 counters line,
# httpload's SCTPAPPS_USRSCTP_STATS line: rto_min, sack_delay, initial_cwnd): usrsctp's own
# defaults without them (1000 ms, 200 ms, 3 MTUs), exactly the values given with them, a page
# fetched through the tuned pair; values out of range (the boundaries: 0 and 501 ms, 0 and 65
# MTUs, --rto-min 9) refused with the option named and exit 2, nothing started. TAP.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
L=${HTTPLOAD:-$top_builddir/httpload/httpload}
need "$H" "$L"
grep -q 'define HAVE_USRSCTP 1' "$top_builddir/config.h" || { ok 1 "usrsctp not built"; done_testing; exit; }
scratch usrsctp-tuning
udp_base 4
srv=$udp_base cli=$((udp_base + 1))
mkdir -p "$tmp/doc"
head -c 100000 /dev/urandom >"$tmp/doc/100k"
tune() { tr ' ' '\n' | grep -E '^(rto_min|sack_delay|initial_cwnd)=' | tr '\n' ' ' | sed 's/ $//'; }
TUNED="--rto-min 200 --sctp-sack-delay 40 --sctp-init-cwnd 10"

for t in usrsctp usrsctp-nt; do
	for how in default tuned; do
		args=()
		[ $how = tuned ] && args=($TUNED)
		daemon_start h "listening on $t " "$H" -L $t:127.0.0.1:8080 --udp-port $srv \
			--udp-remote-port $cli -d "$tmp/doc" "${args[@]}" || { done_testing; exit; }
		hp=$daemon_pid
		got=$(sigusr2_line $hp "$tmp/h.err" "transport counters" | tune)
		want="rto_min=1000 sack_delay=200 initial_cwnd=3"
		[ $how = tuned ] && want="rto_min=200 sack_delay=40 initial_cwnd=10"
		[ "$got" = "$want" ]
		ok $? "sctphttpd on $t, $how: the stack holds $want (read back: $got)"
		rm -f "$tmp/cs"
		SCTPAPPS_USRSCTP_STATS=$tmp/cs "$L" --server 127.0.0.1 --port 8080 --uri /100k --proto $t \
			--udp-port $cli --udp-remote-port $srv --num-conns 1 --num-calls 3 --timeout 20 --json \
			"${args[@]}" >"$tmp/l.json" 2>"$tmp/l.err"
		rc=$?
		got=$(tune <"$tmp/cs" 2>/dev/null)
		[ $rc = 0 ] && grep -q '"2xx":3' "$tmp/l.json" && [ "$got" = "$want" ]
		ok $? "httpload on $t, $how: 3 replies of 100 kB (exit $rc), its stack held $want (read back: $got)" ||
			sed 's/^/# /' "$tmp/l.err" "$tmp/l.json"
		kill "$hp" 2>/dev/null
		wait "$hp" 2>/dev/null
	done
done

# bad values: refused before anything starts, the option and its range named, exit 2
for bad in "--sctp-sack-delay 0|--sctp-sack-delay: bad value '0' (1 to 500)" \
	"--sctp-sack-delay 501|--sctp-sack-delay: bad value '501' (1 to 500)" \
	"--sctp-init-cwnd 0|--sctp-init-cwnd: bad value '0' (1 to 64)" \
	"--sctp-init-cwnd 65|--sctp-init-cwnd: bad value '65' (1 to 64)" \
	"--sctp-sack-delay 4x|--sctp-sack-delay: bad value '4x' (1 to 500)"; do
	a=${bad%%|*} msg=${bad#*|}
	# shellcheck disable=SC2086
	"$H" -L usrsctp:127.0.0.1:8080 --udp-port $srv $a >/dev/null 2>"$tmp/b1"
	r1=$?
	# shellcheck disable=SC2086
	"$L" --server 127.0.0.1 --port 8080 --uri /100k --proto usrsctp $a >/dev/null 2>"$tmp/b2"
	r2=$?
	[ $r1 = 2 ] && [ $r2 = 2 ] && grep -qF -e "$msg" "$tmp/b1" && grep -qF -e "$msg" "$tmp/b2"
	ok $? "$a: sctphttpd and httpload refuse it, \"$msg\" (exit $r1, $r2)" || sed 's/^/# /' "$tmp/b1" "$tmp/b2"
done
"$H" -L usrsctp:127.0.0.1:8080 --udp-port $srv --rto-min 9 >/dev/null 2>"$tmp/b3"
r=$?
[ $r = 2 ] && grep -q "bad number '9'" "$tmp/b3"
ok $? "sctphttpd --rto-min 9 (under 10 ms): refused, exit $r" || sed 's/^/# /' "$tmp/b3"
done_testing
