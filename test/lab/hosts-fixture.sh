# test/lab/hosts-fixture.sh: "real hosts" for the hosts tests (sourced by test-hosts.sh and
# test-hosts-faults.sh after test/lib.sh's scratch): three network namespaces on a bridge, each
# running its own sshd (keys made here, its own configuration, on its own address; no system sshd
# touched), a user sctplab (uid 0, its home in $tmp) in a private mount namespace (the caller
# re-executes itself under unshare -m first), and an inventory $inv naming them.
# In: $net (the bridge's /24, e.g. 10.30.0; the namespaces at .1-.3, the controller at .254).
# Out: ns[0..2], $br, $inv, $tmp/key (the user's key), $tmp/known (known hosts); cleanup as the
# EXIT trap (namespaces, bridge, scratch).
chmod 755 "$tmp"
ns=(hs$$a hs$$b hs$$c) br=hbr$$
cleanup() {
	local n
	for n in "${ns[@]}"; do
		for p in $(ip netns pids "$n" 2>/dev/null); do kill "$p" 2>/dev/null; done
		ip netns del "$n" 2>/dev/null
	done
	ip link del "$br" 2>/dev/null
	[ -z "${made_run_sshd:-}" ] || rmdir /run/sshd 2>/dev/null
	scratch_cleanup
}
trap cleanup EXIT

# The ssh user: uid 0 (netem needs root), its home here and /bin/sh as its shell, so that no
# login file of the real root's runs (root's .bashrc here starts pyenv: seconds a command).
mkdir -p "$tmp/home/.ssh"
cp /etc/passwd "$tmp/passwd"
echo "sctplab:x:0:0:sctpapps lab:$tmp/home:/bin/sh" >>"$tmp/passwd"
mount --bind "$tmp/passwd" /etc/passwd
ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" && ssh-keygen -q -t ed25519 -N '' -f "$tmp/key"
cp "$tmp/key.pub" "$tmp/home/.ssh/authorized_keys"
[ -d /run/sshd ] || { mkdir -p /run/sshd && made_run_sshd=1; }

# three hosts on one bridge: the namespaces' eth0 at $net.1-3, the controller at $net.254
ip link add "$br" type bridge && ip addr add "$net.254/24" dev "$br" && ip link set "$br" up
for i in 0 1 2; do
	n=${ns[$i]} a=$net.$((i + 1))
	ip netns add "$n"
	ip -n "$n" link set lo up
	ip link add "hv$$$i" type veth peer name eth0 netns "$n"
	ip link set "hv$$$i" master "$br" up
	ip -n "$n" addr add "$a/24" dev eth0
	ip -n "$n" link set eth0 up
	cat >"$tmp/sshd$i.conf" <<EOF
ListenAddress $a
Port 22
HostKey $tmp/hostkey
PidFile $tmp/sshd$i.pid
AuthorizedKeysFile $tmp/home/.ssh/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxSessions 50
MaxStartups 50
EOF
	ip netns exec "$n" /usr/sbin/sshd -f "$tmp/sshd$i.conf" -E "$tmp/sshd$i.log"
done
inv=$tmp/inventory
cat >"$inv" <<EOF
# the test's hosts: three namespaces, each its own sshd
a   sctplab@$net.1 eth0 $net.1
b   sctplab@$net.2 eth0 $net.2
a2  sctplab@$net.3 eth0 $net.3
a3  sctplab@$net.1 eth0 $net.1
ssh -i $tmp/key -o UserKnownHostsFile=$tmp/known -o StrictHostKeyChecking=accept-new
EOF
