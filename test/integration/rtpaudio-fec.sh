#!/bin/bash
# rtpaudio-fec.sh: poc-fec (Reed-Solomon groups of ADUs, plain UDP) send -> play on the
# loopback: loss-free and with up to n - k packets of each group lost, the played PCM equals
# mpg123's decode sample for sample and the player counts the ADUs recovered by FEC; with
# more lost than that the group's lost ADUs are concealed, the length kept.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}

need "$R" sox lame mpg123
scratch rtpaudio-fec
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 3 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"
mpg123 -q --no-gapless -w "$tmp/ref.wav" "$tmp/a.mp3"
port=$((25000 + (RANDOM % 1000) * 8))

stream() {
	local name=$1 sa=$2 pa=${3:-}
	port=$((port + 2))
	case "$pa" in *usrsctp*)
		local u=$((30000 + (RANDOM % 4000) * 2))
		pa="$pa --udp-port $u --udp-remote-port $((u + 1))"
		sa="$sa $pa --udp-port $((u + 1)) --udp-remote-port $u"
		;;
	?*) sa="$sa $pa" ;;
	esac
	"$R" play -f fec $pa --idle 1500 -D 60 --json -o "$tmp/$name.wav" 127.0.0.1:$port \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	local pp=$!
	pids="$pids $pp"
	wait_bound $port ${u:-}
	"$R" send -f fec $sa "$tmp/a.mp3" 127.0.0.1:$port 2>"$tmp/$name.serr"
	ok $? "$name: send exits 0"
	wait $pp
	ok $? "$name: play exits 0: $(cat "$tmp/$name.json")"
	cat "$tmp/$name.err" "$tmp/$name.serr" | sed 's/^/# /'
}
field() { sed "s/.*\"$2\":\\([0-9.]*\\).*/\\1/" "$tmp/$1.json"; }
exact() {
	local cmp
	cmp=$("$R" compare --exact "$tmp/ref.wav" "$tmp/$1.wav" 2>&1)
	ok $? "$1: PCM identical to mpg123's decode ($cmp)"
	grep -q '"frames_played":116,"frames_concealed":0' "$tmp/$1.json"
	ok $? "$1: 116 frames played, none concealed"
}

stream clean "-k 4 -n 6"
exact clean
[ "$(field clean fec_groups)" = 29 ] && [ "$(field clean fec_recovered)" = 0 ]
ok $? "clean: 29 groups, nothing to recover"
stream defaults ""
exact defaults
# every 5th packet lost: at most 2 of each group of 6
stream drop5 "-k 4 -n 6 --drop-every 5"
exact drop5
[ "$(field drop5 fec_recovered)" -gt 15 ] && [ "$(field drop5 fec_unrecoverable)" = 0 ]
ok $? "drop5: $(field drop5 fec_recovered) ADUs recovered by FEC, no group lost"
# every 2nd lost, 4 of 5 needed: groups lost, their lost ADUs concealed
stream drop2 "-k 4 -n 5 --drop-every 2"
fp=$(field drop2 frames_played); fc=$(field drop2 frames_concealed)
[ "$(field drop2 fec_unrecoverable)" -gt 0 ] && [ $((fp + fc)) -le 116 ] && [ $((fp + fc)) -ge 112 ] &&
	[ "$fc" -gt 0 ]
ok $? "drop2: $(field drop2 fec_unrecoverable) groups unrecoverable, $fp played + $fc concealed (the tail after the last ADU received is not counted)"
"$R" send -f fec -k 6 -n 4 "$tmp/a.mp3" 127.0.0.1:1 2>/dev/null
[ $? -eq 1 ]
ok $? "-n smaller than -k is refused"
# The same format over the other transports: SCTP (unordered), PR-SCTP, TCP (RFC 4571).
stream usctp "-k 4 -n 6" "-t sctp -s usrsctp"
exact usctp
stream uprsctp "-k 4 -n 6 --drop-every 5 --lifetime auto" "-t prsctp -s usrsctp"
exact uprsctp
[ "$(field uprsctp fec_recovered)" = 23 ]
ok $? "uprsctp: 23 ADUs recovered by FEC over PR-SCTP"
stream tcp "" "-t tcp"
exact tcp

# Through a relay that reorders (blocks of 3..10 reversed, nothing lost) or sends every
# packet 5 times, with 1200 ms of playout delay: FEC takes packets reordered across a
# group's end, each group counted once, each duplicate a duplicate (issue 32).
relayed() {
	local name=$1 mode=$2 rp
	port=$((port + 4))
	"$R" play -f fec -d 1200 --idle 3000 -D 60 --json -o "$tmp/$name.wav" 127.0.0.1:$port \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	local pp=$!
	python3 "$here/rtpaudio-reorder.py" $mode $((port + 2)) $port >"$tmp/$name.took" &
	rp=$!
	pids="$pids $pp $rp"
	wait_bound $port
	wait_bound $((port + 2))
	"$R" send -f fec -k 4 -n 6 "$tmp/a.mp3" 127.0.0.1:$((port + 2)) 2>"$tmp/$name.serr"
	wait $pp
	ok $? "$name: play exits 0: $(cat "$tmp/$name.json")"
	wait $rp
}
relayed reorder reorder
exact reorder
[ "$(field reorder fec_groups)" = 29 ] && [ "$(field reorder packets_played)" = 174 ] &&
	[ "$(field reorder packets_late)" = 0 ] && [ "$(field reorder packets_duplicate)" = 0 ] &&
	grep -q '"accounting_adds_up":true' "$tmp/reorder.json"
ok $? "reorder: $(cat "$tmp/reorder.took") packets relayed; 29 groups, 174 packets played, none late ($(field reorder fec_recovered) ADUs decoded from parity that came before them)"
relayed dup5 dup5
exact dup5
[ "$(field dup5 fec_groups)" = 29 ] && [ "$(field dup5 packets_played)" = 174 ] &&
	[ "$(field dup5 packets_duplicate)" = $((4 * 174)) ] &&
	[ "$(field dup5 packets_received)" = $((5 * 174)) ] && grep -q '"accounting_adds_up":true' "$tmp/dup5.json"
ok $? "dup5: 29 groups, 174 packets played, $((4 * 174)) duplicates of $((5 * 174)) received"
done_testing
