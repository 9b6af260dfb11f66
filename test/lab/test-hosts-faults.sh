#!/bin/bash
# test/lab/test-hosts-faults.sh: --hosts and loadgen when things go wrong (TAP), on "real hosts"
# over ssh (test/lab/hosts-fixture.sh: namespaces, each its own sshd): a host without kernel
# SCTP (its rows skipped by name, the others measured), an unknown host key with a wrong key,
# sshd killed mid-run, SIGTERM, a loadgen client that exits 127, no server. Needs root, netns and
# OpenSSH's sshd, not kernel SCTP or netem: natively (the no-SCTP case where the kernel has none;
# in the VM, whose kernel has it, with the module kept from loading), through
# test/integration/lab-hosts.sh.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ -z "${HOSTS_TEST_MNT:-}" ]; then
	HOSTS_TEST_MNT=1 exec unshare -m bash "$0" "$@"
fi
. "$here/../lib.sh"
for t in /usr/sbin/sshd ssh ssh-keygen; do
	command -v $t >/dev/null || { echo "not ok 1 - $t missing (scripts/setup.sh installs openssh-server)"; exit 1; }
done
scratch lab-hosts-faults
net=10.31.$((RANDOM % 200)).0
net=${net%.0}
. "$here/hosts-fixture.sh"

# a host has kernel SCTP here unless its kernel lacks it; in the VM the module is kept from
# loading for this test (a fresh VM has not loaded it yet: nothing has asked for it)
have_sctp() { "$root/msgperf" -q --csv -t sctp -s 10 -d 0.1 -T throughput >/dev/null 2>&1; }
nosctp=0
if ! have_sctp; then
	nosctp=1
elif [ "${SCTPAPPS_VM:-0}" = 1 ]; then
	echo "install sctp /bin/false" >/etc/modprobe.d/sctpapps-nosctp.conf
	modprobe -r sctp 2>/dev/null
	have_sctp || nosctp=2
fi

# want N: run part N (all unless $FAULTS lists some: FAULTS="2 5" for a quicker look)
want() { [ -z "${FAULTS:-}" ] || [[ " $FAULTS " == *" $1 "* ]]; }

# --- 1. a host without kernel SCTP: its SCTP rows skipped by name, the others measured ---
if ! want 1; then
	:
elif [ $nosctp = 0 ]; then
	ok 0 "experiment 01 on a host without kernel SCTP # SKIP this kernel has SCTP (natively; the VM keeps its module from loading)"
else
	EXP_D=0.1 "$root/test/experiments/run" --hosts "$inv" --quick --out "$tmp/nosctp" 01 >"$tmp/nosctp.tap" 2>&1
	rc=$?
	r=$tmp/nosctp/01-loopback/results.csv
	plan=$(grep -c '^#.*plan: .*skipped (no sctp on host a: msgperf: .*kernel has no SCTP support' "$tmp/nosctp.tap")
	usr=$(awk -F, '$1 == "usrsctp" && $3 != "" && $4 != ""' "$r" 2>/dev/null | wc -l)
	tcp=$(awk -F, '$1 == "tcpm" && $3 != "" && $4 != ""' "$r" 2>/dev/null | wc -l)
	sctp=$(awk -F, '$1 ~ /^sctp/ && ($3 != "" || $4 != "")' "$r" 2>/dev/null | wc -l)
	skips=$(grep -c '^ok .*# SKIP no sctp on host a' "$tmp/nosctp.tap")
	worked=$(grep -m1 'every measurement worked' "$tmp/nosctp.tap")
	[ "$plan" = 3 ] && [ "$usr" = 4 ] && [ "$tcp" = 4 ] && [ "$sctp" = 0 ] && [ "$skips" = 6 ] &&
		[[ $worked == "ok "*"41 of 41 planned rows measured; skipped: sctp,sctp1m,sctp1m-v2, sctp-streams1/10/100" ]] &&
		grep -q '^Rows skipped .*sctp: no sctp on host a' "$tmp/nosctp/01-loopback/report.md" && [ $rc = 0 ]
	ok $? "experiment 01 on a host without kernel SCTP: the plan skips its SCTP rows by name, usrsctp and TCP measured (exit $rc; plan lines $plan, usrsctp sizes $usr, tcpm $tcp, sctp cells $sctp, checks skipped $skips; $worked)"
fi

# --- 1b. experiment 04 there: TCP, nginx and usrsctp measured, SCTP's rows skipped; 8080 taken
# on b, so its ports are others, free ---
if ! want 1; then
	:
elif [ $nosctp = 0 ]; then
	ok 0 "experiment 04 on hosts without kernel SCTP # SKIP this kernel has SCTP"
else
	ip netns exec "${ns[1]}" python3 -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 8080)); s.listen(4); time.sleep(600)' &
	taker=$!
	wait_bound -n "${ns[1]}" 8080
	ls -d /tmp/exp04.* 2>/dev/null | sort >"$tmp/scratch0"
	"$root/test/experiments/run" --hosts "$inv" --quick --out "$tmp/nosctp" 04 >"$tmp/nosctp04.tap" 2>&1
	rc=$?
	kill $taker
	# its folder on the controller (made before lab_two_hosts replaced the EXIT trap) gone too
	left=$(ls -d /tmp/exp04.* 2>/dev/null | sort | comm -13 "$tmp/scratch0" -)
	r=$tmp/nosctp/04-http/results.csv
	rows=$(awk -F, 'NR > 1 { print $4 }' "$r" 2>/dev/null | sort | uniq -c | tr -s ' ' | paste -sd, -)
	ports=$(grep -m1 'plan: ports on b: ' "$tmp/nosctp04.tap")
	plan=$(grep -c 'plan: sctp[0-9]*: skipped (no sctp on host a: ' "$tmp/nosctp04.tap")
	answered=$(grep -m1 'every run answered' "$tmp/nosctp04.tap")
	[ "$rows" = " 4 nginx, 4 tcp, 4 usrsctp100" ] && [ "$plan" = 3 ] &&
		[[ $answered == "ok "*"(12 of 12 planned runs, 0 with errors; skipped rows: sctp1, sctp10, sctp100)" ]] &&
		[[ $ports == *"plan: ports on b: "* ]] && [[ $ports != *" 8080 "* ]] &&
		[ "$(grep -c '^ok .*# SKIP no sctp on host a' "$tmp/nosctp04.tap")" = 2 ] && [ -z "$left" ]
	ok $? "experiment 04 on hosts without kernel SCTP: TCP, nginx, usrsctp measured (cells: $rows), SCTP's 3 rows skipped by name (plan lines $plan), ports not the taken 8080 (${ports#*plan: }), its scratch folder removed${left:+ (left: $left)}; $answered"
fi

# --- 2. sshd killed mid-run: the run ends naming the host, results marked partial ---
# started_run DIR: run --hosts 01 into DIR in the background ($rp), back once its plan is out
started_run() {
	"$root/test/experiments/run" --hosts "$inv" --quick --out "$1" 01 >"$1.tap" 2>"$1.err" &
	rp=$!
	for _ in $(seq 600); do grep -q 'plan: ' "$1.tap" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
# leftovers NS: what runs in namespace NS besides sshd
leftovers() {
	local p c
	for p in $(ip netns pids "$1"); do
		c=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)
		case "$c" in *sshd*) ;; *) echo "$c;" ;; esac
	done
}
if want 2; then
	started_run "$tmp/lost"
	sleep 1
	for p in $(ip netns pids "${ns[0]}"); do
		grep -q sshd "/proc/$p/cmdline" 2>/dev/null && kill "$p"
	done
	t0=$(date +%s)
	wait $rp
	rc=$? secs=$(($(date +%s) - t0))
	o=$tmp/lost/01-loopback
	line=$(grep -m1 "^not ok .*01-loopback: host a (sctplab@$net.1, address $net.1) lost during the run: ssh: connect to host $net.1 port 22: Connection refused; results partial" "$tmp/lost.tap")
	[ $rc != 0 ] && [ -n "$line" ] && [ $secs -le 30 ] &&
		! grep -q '^ok .*every measurement worked' "$tmp/lost.tap" &&
		grep -q '^\*\*Partial results: host a (sctplab@.*) lost during the run: ssh: connect .*Connection refused' "$o/report.md" &&
		grep -q '^01-loopback|quick, partial: host a (sctplab@[0-9.]*) lost during the run: ssh: .*|hosts|' "$o/run.meta" &&
		grep -q "lab: host a (sctplab@$net.1, address $net.1) lost: not cleaned, left there: .*/.cache/sctpapps-lab/.*/run\." "$tmp/lost.tap"
	ok $? "sshd of host a killed mid-run: the run ends in $secs s (exit $rc), names host a, its address and the real error, no \"every measurement worked\", report.md and run.meta say partial, the scratch left there is named (${line:-$(grep -m3 'not ok\|lost' "$tmp/lost.tap" | tr '\n' ' ')}; $(cat "$o/run.meta" 2>/dev/null))"
	# host a back, cleaned by hand as the message says
	ip netns exec "${ns[0]}" /usr/sbin/sshd -f "$tmp/sshd0.conf" -E "$tmp/sshd0.log"
	for p in $(ip netns pids "${ns[0]}"); do
		grep -q msgperf "/proc/$p/cmdline" 2>/dev/null && kill "$p"
	done
	rm -rf "$tmp"/home/.cache/sctpapps-lab/*/run.*
fi

# --- 3. SIGTERM: the run stops within seconds, the host put back, run.meta written ---
if want 3; then
	started_run "$tmp/term"
	sleep 1
	t0=$(date +%s.%N)
	kill -TERM $rp
	wait $rp
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	o=$tmp/term/01-loopback
	sleep 0.5
	left=$(leftovers "${ns[0]}")
	runs=$(ls -d "$tmp"/home/.cache/sctpapps-lab/*/run.* 2>/dev/null)
	[ $rc = 130 ] && awk -v s="$secs" 'BEGIN { exit !(s <= 5) }' && [ -z "$left" ] && [ -z "$runs" ] &&
		grep -q '^01-loopback|quick, partial: interrupted (SIGTERM) after [0-9]* s|hosts|' "$o/run.meta" &&
		grep -q '^\*\*Partial results: interrupted (SIGTERM)' "$o/report.md"
	ok $? "SIGTERM to run --hosts: it ends in $secs s (exit $rc), nothing left running on the host${left:+ ($left)}, its run folder removed${runs:+ (left: $runs)}, run.meta and report.md say partial ($(cat "$o/run.meta" 2>/dev/null))"
fi

# --- 4. an unknown host key and a wrong key: the real cause, not ssh's warning ---
if want 4; then
	ssh-keygen -q -t ed25519 -N '' -f "$tmp/wrongkey"
	{
		grep -v '^ssh ' "$inv"
		echo "ssh -i $tmp/wrongkey -o UserKnownHostsFile=$tmp/known-new -o StrictHostKeyChecking=accept-new"
	} >"$tmp/wrong"
	"$root/test/experiments/loadgen" --hosts "$tmp/wrong" --clients a --out "$tmp/lg-wrong" -- \
		--server "$net.2" --port 9 --uri / >"$tmp/lg-wrong.out" 2>&1
	rc=$?
	line=$(grep -m1 "host a (sctplab@$net.1, address $net.1): cannot log in: " "$tmp/lg-wrong.out")
	[ $rc = 2 ] && [[ $line == *"Permission denied (publickey"* ]] && [[ $line != *Warning* ]]
	ok $? "a wrong key on a host not yet known: loadgen exits 2 naming the host and the real cause, not ssh's warning (${line:-$(head -c 300 "$tmp/lg-wrong.out")})"
	"$root/test/experiments/run" --hosts "$tmp/wrong" --quick --out "$tmp/wrong-run" 01 >"$tmp/wrong-run.tap" 2>&1
	rc=$?
	line=$(grep -m1 "host a (sctplab@$net.1, address $net.1): cannot log in: " "$tmp/wrong-run.tap")
	[ $rc != 0 ] && [[ $line == *"Permission denied (publickey"* ]] && [[ $line != *Warning* ]]
	ok $? "and run --hosts the same (exit $rc: $line)"
	# without --out: its results in out/hosts/, docs/ as it was (no figure, no results.md)
	sum() { (cd "$root" && cat docs/results.md docs/results/* 2>/dev/null | sha1sum); }
	d0=$(sum)
	rm -rf "$root/out/hosts/01-loopback"
	"$root/test/experiments/run" --hosts "$tmp/wrong" --quick 01 >"$tmp/nodocs.tap" 2>&1
	rc=$?
	d1=$(sum)
	m=$(cat "$root/out/hosts/01-loopback/run.meta" 2>/dev/null)
	[ $rc != 0 ] && [ "$d0" = "$d1" ] && [[ $m == "01-loopback|quick|hosts|"* ]] && ! grep -q '^# wrote docs' "$tmp/nodocs.tap"
	ok $? "run --hosts without --out: results in out/hosts/, labelled hosts ($m), docs/ untouched ($([ "$d0" = "$d1" ] && echo same || echo CHANGED))"
	rm -rf "$root/out/hosts/01-loopback"
fi

# --- 5. loadgen: no server; a client that exits 127 while another waits on a silent server ---
if want 5; then
	"$root/test/experiments/loadgen" --hosts "$inv" --clients a,a2 --out "$tmp/lg-none" -- \
		--server "$net.2" --port 9 --uri / --num-conns 4 >"$tmp/lg-none.out" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q '^Errors. reasons' "$tmp/lg-none.out" &&
		grep -q '^  client a: 4x connrefused: connect: Connection refused' "$tmp/lg-none.out" &&
		grep -q '^  client a2: 4x connrefused: connect: Connection refused' "$tmp/lg-none.out"
	ok $? "loadgen without a server: exit $rc, each client's reason said ($(grep -A2 '^Errors. reasons' "$tmp/lg-none.out" | tr '\n' ' '))"
	# --server-host: loadgen starts sctphttpd on b (usrsctp listener where b lacks kernel SCTP)
	mkdir -p "$tmp/www"
	chmod 755 "$tmp/www"
	head -c 5000 /dev/urandom >"$tmp/www/f5k"
	"$root/test/experiments/loadgen" --hosts "$inv" --clients a,a2 --server-host b --www "$tmp/www" \
		--out "$tmp/lg-srv" -- --server '{ADDR:b}' --port 8088 --uri /f5k --num-conns 4 --num-calls 2 \
		>"$tmp/lg-srv.out" 2>&1
	rc=$?
	sleep 0.3
	left=$(leftovers "${ns[1]}")
	[ $rc = 0 ] && grep -q '^Total: connections 8 requests 16 replies 16 ' "$tmp/lg-srv.out" &&
		grep -q "^server: sctphttpd -d $tmp/www -h $net.2 -p 8088 .*on host b" "$tmp/lg-srv/server.txt" &&
		[ -z "$left" ] && [ ! -e "$tmp/www.gone" ]
	ok $? "loadgen --server-host b: sctphttpd started there, 2 clients x 4 connections x 2 calls = 16 replies, the server stopped at the end${left:+ (left: $left)} (exit $rc; $(grep -m1 '^Total' "$tmp/lg-srv.out"))"
	# host a2's sshd again, its sessions with LD_LIBRARY_PATH=$tmp/badlib: empty while loadgen
	# checks the binaries, then (during --delay) a libusrsctp.so.2 that is no library
	mkdir -p "$tmp/badlib"
	for p in $(ip netns pids "${ns[2]}"); do grep -q sshd "/proc/$p/cmdline" 2>/dev/null && kill "$p"; done
	sleep 0.3
	echo "SetEnv LD_LIBRARY_PATH=$tmp/badlib" >>"$tmp/sshd2.conf"
	ip netns exec "${ns[2]}" /usr/sbin/sshd -f "$tmp/sshd2.conf" -E "$tmp/sshd2.log"
	# on b, a server that accepts and never answers
	ip netns exec "${ns[1]}" python3 -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("'"$net.2"'", 8099)); s.listen(64); print("up", flush=True)
c = []
while True: c.append(s.accept())' >"$tmp/silent.log" 2>&1 &
	pids="$pids $!"
	wait_bound -n "${ns[1]}" 8099
	"$root/test/experiments/loadgen" --hosts "$inv" --clients a,a2 --delay 3 --out "$tmp/lg-127" -- \
		--server "$net.2" --port 8099 --uri / --num-conns 2 --timeout 300 >"$tmp/lg-127.out" 2>&1 &
	lp=$!
	for _ in $(seq 100); do [ -s "$tmp/lg-127/hosts.txt" ] && break; sleep 0.1; done
	echo junk >"$tmp/badlib/libusrsctp.so.2"
	t0=$(date +%s)
	wait $lp
	rc=$? secs=$(($(date +%s) - t0))
	sleep 0.5
	line=$(grep -m1 "host a2 (sctplab@$net.3, address $net.3): httpload exited 127: .*libusrsctp.so.2" "$tmp/lg-127.out")
	left=$(leftovers "${ns[0]}")
	[ $rc = 2 ] && [ -n "$line" ] && [ $secs -le 20 ] && [ -z "$left" ]
	ok $? "loadgen: a client that exits 127 ends the run at once (exit $rc in $secs s after the start) with its stderr, the other client stopped on its host${left:+ (left: $left)} (${line:-$(head -c 300 "$tmp/lg-127.out")})"
	# the library check: a library that does not load (not only \"not found\") stops it before any start
	"$root/test/experiments/loadgen" --hosts "$inv" --clients a2 --out "$tmp/lg-lib" -- \
		--server "$net.2" --port 9 --uri / >"$tmp/lg-lib.out" 2>&1
	rc=$?
	line=$(grep -m1 "host a2 (sctplab@$net.3, address $net.3): the copied binaries do not run there .*: msgperf: exit 127: .*libusrsctp.so.2" "$tmp/lg-lib.out")
	[ $rc = 2 ] && [ -n "$line" ]
	ok $? "a library that is there but does not load: the check names host a2 and the loader's words, exit $rc (${line:-$(head -c 300 "$tmp/lg-lib.out")})"
	rm -f "$tmp/badlib/libusrsctp.so.2"
fi

[ $nosctp != 2 ] || rm -f /etc/modprobe.d/sctpapps-nosctp.conf
[ -z "${VM_OUT:-}" ] || cp -r "$tmp"/*.tap "$tmp"/*.out "$tmp/lost" "$tmp/term" "$VM_OUT/" 2>/dev/null
done_testing
