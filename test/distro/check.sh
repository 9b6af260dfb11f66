#!/bin/bash
# test/distro/check.sh: the README's two commands as a new user meets them on a Debian release:
# a minimal system of that release (debootstrap --variant=minbase, in a chroot on this machine),
# a clone of this repository's HEAD in it, then `./run-demo` and `./run-tests` inside, as root.
# For releases and for changes to set-up (scripts/setup.sh, test/vm/run), not every CI run.
set -euo pipefail

prog=test/distro/check.sh
usage() {
	cat <<EOF2
usage: $prog [options] RELEASE        (e.g. bookworm, trixie; 12 and 13 are taken too)
Build a minimal RELEASE system with debootstrap, clone this repository's HEAD (committed work
only) into its /root/sctpapps, run ./run-demo and then ./run-tests there, and print a summary.
  --out DIR       logs and summary (default out/distro/RELEASE)
  --mirror URL    Debian mirror (default \$DISTRO_MIRROR or http://deb.debian.org/debian)
  --demo-only     run ./run-demo only
  --tests-only    run ./run-tests only (it installs and builds by itself too)
  --keep          keep the chroot afterwards (default: removed; \$DISTRO_ROOT sets where)
The base system is downloaded once into ~/.cache/sctpapps-distro. The set-up that both commands
begin with (scripts/setup.sh), the VM's kernel and the patch tests' sources are fetched first,
with the network; the two commands then run in a network namespace of their own (only its
loopback), so that their servers never meet others on this machine.
Exit status: 0 when both commands succeeded, 1 otherwise, 2 on a usage or set-up error.
EOF2
}
die() { echo "$prog: $*" >&2; exit 2; }

out="" mirror=${DISTRO_MIRROR:-http://deb.debian.org/debian} demo=1 tests=1 keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	--out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift 2 ;;
	--mirror) [ $# -ge 2 ] || die "--mirror needs a value"; mirror=$2; shift 2 ;;
	--demo-only) tests=0; shift ;;
	--tests-only) demo=0; shift ;;
	--keep) keep=1; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
case "$1" in
12 | bookworm) release=bookworm ;;
13 | trixie) release=trixie ;;
*[!a-z]* | "") die "unknown release '$1'" ;;
*) release=$1 ;;
esac
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot, mounts)"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command -v git >/dev/null || die "git not found"
if ! command -v debootstrap >/dev/null; then
	echo "$prog: installing debootstrap" >&2
	apt-get install -y -qq debootstrap >/dev/null || die "apt-get install debootstrap failed"
fi
out=${out:-$top/out/distro/$release}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/sctpapps-distro
mkdir -p "$cache"
base=$cache/$release-minbase.tgz
root=${DISTRO_ROOT:-/var/tmp/sctpapps-distro}/$release
log() { echo "# $*"; }

mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
	mounted=()
	# and what the tests mounted inside (ip netns: /run/netns), deepest first
	awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null || true; done
	if [ $keep = 0 ]; then
		rm -rf --one-file-system "$root"
	else
		echo "$prog: kept $root (chroot $root bash)" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

t0=$SECONDS
if [ ! -s "$base" ]; then
	log "downloading the $release minbase system into $base"
	tmpd=$(mktemp -d)
	debootstrap --variant=minbase --make-tarball="$base.tmp" "$release" "$tmpd" "$mirror" \
		>"$out/debootstrap.log" 2>&1 || { rm -rf "$tmpd"; tail -5 "$out/debootstrap.log" >&2; die "debootstrap --make-tarball failed"; }
	rm -rf "$tmpd"
	mv "$base.tmp" "$base"
fi
[ ! -e "$root" ] || rm -rf --one-file-system "$root"
mkdir -p "$root"
log "debootstrap --variant=minbase $release $root"
debootstrap --variant=minbase --unpack-tarball="$base" "$release" "$root" "$mirror" \
	>"$out/debootstrap.log" 2>&1 || { tail -5 "$out/debootstrap.log" >&2; die "debootstrap failed"; }
sec=http://deb.debian.org/debian-security
cat >"$root/etc/apt/sources.list" <<EOF2
deb $mirror $release main
deb $mirror $release-updates main
deb $sec $release-security main
EOF2
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# the chroot's / a mount point of its own, as on a real machine: `ip netns exec` makes / a slave
# mount and fails (EINVAL) when / is just a directory
mount --bind "$root" "$root"
mounted+=("$root")
for m in proc sys dev dev/pts; do
	mount --bind "/$m" "$root/$m"
	mounted+=("$root/$m")
done
mount -t tmpfs -o mode=1777 shm "$root/dev/shm" 2>/dev/null && mounted+=("$root/dev/shm")
commit=$(git -C "$top" rev-parse --short HEAD)
log "cloning $commit into /root/sctpapps"
git clone -q "$top" "$root/root/sctpapps"
git -C "$root/root/sctpapps" checkout -q "$commit"
rel=$(. "$root/etc/os-release" && echo "$PRETTY_NAME")

in_root() { # in_root [unshare...] CMD: run CMD in the chroot as root, in a login-like environment
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/sh -c "cd /root/sctpapps && $1"
}
# isolated CMD: CMD in the chroot, in a network namespace of its own (only its loopback): the
# fixed ports of the demo and the tests meet nobody else's servers on this machine
isolated() {
	unshare -n -- bash -c "ip link set lo up && $(declare -f in_root); root=$root; in_root '$1'"
}
status=0
demo_line="not run" tests_line="not run"
# What needs the network, with it: the set-up both commands begin with (scripts/setup.sh: the
# packages, the build), the VM's kernel (test/vm/run --prepare) and the sources the patch tests
# build (patches/apply). The two commands then run as they are, their set-up already done.
log "$release: set-up with the network (log: $out/setup.log)"
t=$SECONDS
if in_root "scripts/setup.sh && test/vm/run --prepare && patches/apply -q" </dev/null >"$out/setup.log" 2>&1; then
	log "set-up: ok in $((SECONDS - t)) s"
else
	log "set-up FAILED after $((SECONDS - t)) s:"
	tail -20 "$out/setup.log"
	status=1
fi
if [ $demo = 1 ]; then
	log "$release: ./run-demo (log: $out/demo.log)"
	t=$SECONDS
	if isolated ./run-demo </dev/null >"$out/demo.log" 2>&1; then
		demo_line="ok in $((SECONDS - t)) s"
	else
		demo_line="FAILED (exit $?) after $((SECONDS - t)) s"
		status=1
		tail -20 "$out/demo.log"
	fi
	log "./run-demo: $demo_line"
fi
if [ $tests = 1 ]; then
	log "$release: ./run-tests (log: $out/tests.log)"
	t=$SECONDS
	if isolated ./run-tests </dev/null >"$out/tests.log" 2>&1; then
		rc=0
	else
		rc=$?
		status=1
	fi
	tests_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/tests.log" | tail -1)
	tests_line="${tests_line:-no summary line (exit $rc)} in $((SECONDS - t)) s"
	log "./run-tests: $tests_line"
fi
vmk=$(grep -ao 'VM: [^,]*' "$out/demo.log" 2>/dev/null | head -1 || true)
{
	echo "release: $rel ($release, minbase chroot, commit $commit)"
	echo "host kernel: $(uname -r) (the chroot shares it); ${vmk:-VM kernel: see tests.log}"
	echo "versions: $(chroot "$root" dpkg-query -W -f='${Package} ${Version}, ' gcc qemu-system-x86 libusrsctp-dev clang nginx-light nginx 2>/dev/null | sed 's/, $//')"
	echo "./run-demo: $demo_line"
	echo "./run-tests: $tests_line"
	echo "total: $((SECONDS - t0)) s"
} | tee "$out/summary.txt"
exit $status
