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

# --- 1. a host without kernel SCTP: its SCTP rows skipped by name, the others measured ---
if [ $nosctp = 0 ]; then
	ok 0 "experiment 01 on a host without kernel SCTP # SKIP this kernel has SCTP (natively; the VM keeps its module from loading)"
else
	"$root/test/experiments/run" --hosts "$inv" --quick --out "$tmp/nosctp" 01 >"$tmp/nosctp.tap" 2>&1
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
[ $nosctp != 2 ] || rm -f /etc/modprobe.d/sctpapps-nosctp.conf
done_testing
