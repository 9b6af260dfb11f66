#!/bin/bash
# test/lab/test-hosts-walk.sh: the walk of test/lab/README.md ("A first run, step by step"),
# its lines run as written (TAP), in a fresh clone of this tree, against two "machines"
# (test/lab/hosts-fixture.sh: namespaces, each its own sshd): client1.lan and server.lan are
# their addresses, root@ their user (sctplab, uid 0), eth1 their eth0, ~ a home of the test's
# (bound over /root in a private mount namespace). Replaced: ssh-copy-id (it asks for a
# password) by appending the key to the hosts' authorized_keys, and scripts/setup.sh by copying
# this tree's built binaries (WALK_BUILD=1: setup.sh as written, minutes). EXP_D=0.1 keeps the
# experiment's measurements short. Needs root, netns, sshd, git.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ -z "${HOSTS_TEST_MNT:-}" ]; then
	HOSTS_TEST_MNT=1 exec unshare -m bash "$0" "$@"
fi
. "$here/../lib.sh"
for t in /usr/sbin/sshd ssh ssh-keygen git; do
	command -v $t >/dev/null || { echo "not ok 1 - $t missing (scripts/setup.sh installs openssh-server)"; exit 1; }
done
scratch lab-hosts-walk
net=10.33.$((RANDOM % 200))
. "$here/hosts-fixture.sh"
mkdir -p "$tmp/root"
mount --bind "$tmp/root" /root

# the walk's lines: "    $ " commands between the markers, a heredoc's lines with them
awk '/^<!-- walk -->/ { on = 1; next } /^<!-- \/walk -->/ { on = 0 } on' "$root/test/lab/README.md" |
	sed -n 's/^    //p' >"$tmp/walk.txt"
n=$(grep -c '^\$ ' "$tmp/walk.txt")
[ "$n" -ge 6 ]
ok $? "test/lab/README.md has a walk ($n commands)"

# a fresh clone of what is committed
if [ -d "$root/.git" ] || [ -f "$root/.git" ]; then
	git clone -q "$root" "$tmp/clone" 2>"$tmp/clone.err"
	ok $? "a fresh clone ($(git -C "$tmp/clone" log --oneline -1 2>/dev/null | cut -c1-60))"
else
	ok 1 "$root is not a git tree: no clone to walk in"
	done_testing
	exit
fi

# the script: the walk's lines, its names made the fixture's, the two replacements
{
	echo "set -e"
	echo "cd $tmp/clone"
	sed -e 's/^\$ //' \
	    -e "s/client1\\.lan/$net.1/g; s/server\\.lan/$net.2/g" \
	    -e "s/192\\.168\\.7\\.1/$net.1/g; s/192\\.168\\.7\\.2/$net.2/g" \
	    -e "s/root@/sctplab@/g; s/ eth1 / eth0 /g" \
	    -e "s|^ssh-copy-id -i \\([^ ]*\\) .*|cat \\1.pub >>$tmp/home/.ssh/authorized_keys|" \
	    -e "s|^scripts/setup.sh .*|${WALK_BUILD:+scripts/setup.sh}${WALK_BUILD:-(cd $root \\&\\& tar -cf - msgperf sctphttpd httpload/httpload httpload/httpget) \\| tar -xf -}|" \
	    "$tmp/walk.txt"
} >"$tmp/walk.sh"
sed 's/^/# walk: /' "$tmp/walk.sh"
HOME=/root EXP_D=0.1 bash -x "$tmp/walk.sh" >"$tmp/walk.out" 2>&1
rc=$?
ok $rc "the walk ran to its end (exit $rc$([ $rc = 0 ] || echo "; last lines: $(tail -3 "$tmp/walk.out" | tr '\n' ' ')"))"
c=$tmp/clone
grep -q '^Total: connections 16 requests 160 replies 160 ' "$tmp/walk.out" &&
	grep -q '^client a (sctplab@' "$tmp/walk.out" && grep -q '^client a2 (sctplab@' "$tmp/walk.out" &&
	[ -s "$c/out/loadgen/merged.json" ]
ok $? "its loadgen: sctphttpd started on server.lan, two clients merged: 16 connections, 160 replies ($(grep -m1 '^Total' "$tmp/walk.out"))"
m=$(cat "$c/out/hosts/01-loopback/run.meta" 2>/dev/null)
[[ $m == "01-loopback|quick|hosts|"*"|0" ]] && [ -s "$c/out/hosts/01-loopback/report.md" ] &&
	grep -q 'on real hosts over ssh' "$c/out/hosts/01-loopback/report.md" &&
	[ -z "$(git -C "$c" status --porcelain docs)" ]
ok $? "its experiment: 01 on the hosts, every check passed, in out/hosts/, docs/ untouched (run.meta: $m)"
[ -z "${VM_OUT:-}" ] || cp "$tmp/walk.sh" "$tmp/walk.out" "$VM_OUT/" 2>/dev/null
done_testing
