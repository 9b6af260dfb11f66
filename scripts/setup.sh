#!/bin/sh
# scripts/setup.sh: install what the build needs (Debian packages), bootstrap, configure, build.
# Usage: scripts/setup.sh [configure options...]; idempotent, quick when everything is there.
set -eu
cd "$(dirname "$0")/.."

# One entry a package. "a|b": the first of them that this release has (Debian 12 and 13 name
# some packages differently). "name?": only where this release has it (trixie ships virtiofsd
# as its own package; on bookworm it comes with qemu-system-common).
PACKAGES="build-essential autoconf automake libtool pkg-config
  libsctp-dev lksctp-tools libusrsctp-dev libusrsctp-examples
  libmpg123-dev libcmocka-dev libgnutls28-dev gnutls-bin?
  qemu-system-x86 qemu-system-common virtiofsd? busybox-static cpio kmod xz-utils iproute2
  nftables iputils-ping tshark
  openssh-server openssh-client
  iperf3 python3 mmark curl netcat-openbsd socat ncat wrk nginx-light|nginx lighttpd httperf
  nghttp2-client ngtcp2-server ngtcp2-client openssl time
  lame sox mpg123 gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  ffmpeg gnuplot-nox
  clang libclang-rt-dev valgrind"

installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q "install ok installed"; }
# known PKG: this release's package lists have PKG (a candidate version to install)
known() { apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'; }

# needed: the entries of $PACKAGES not satisfied yet, resolved to one package name each where
# the package lists tell ("a|b" to the first known; "p?" dropped where p is unknown)
needed() {
	for e in $PACKAGES; do
		case $e in
		*\?)
			p=${e%\?}
			installed "$p" || ! known "$p" || echo "$p"
			;;
		*)
			alts=$(echo "$e" | tr '|' ' ')
			done=0
			for p in $alts; do installed "$p" && { done=1; break; }; done
			[ $done = 1 ] && continue
			pick=""
			for p in $alts; do known "$p" && { pick=$p; break; }; done
			echo "${pick:-${alts%% *}}"
			;;
		esac
	done
}

missing=$(needed | tr '\n' ' ')
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing Debian packages: $missing" >&2
		echo "setup: run as root, or: sudo apt-get install $missing" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# the package lists are fresh now: resolve the alternatives again
	missing=$(needed | tr '\n' ' ')
	echo "setup: installing $missing"
	# Servers among them (nginx, lighttpd) are peers that tests start themselves: don't let
	# the package start them as system services.
	policy=/usr/sbin/policy-rc.d
	[ -e $policy ] || { printf '#!/bin/sh\nexit 101\n' >$policy; chmod +x $policy; added_policy=1; }
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	[ -z "${added_policy:-}" ] || rm -f $policy
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; exit 1; }
fi
# Reconfigure (and rebuild from clean) when the configure options change.
args="$*"
if [ ! -f Makefile ] || [ configure -nt config.status ] ||
    [ "$(cat .setup-args 2>/dev/null)" != "$args" ]; then
	[ -f Makefile ] && make -s clean >/dev/null 2>&1 || true
	./configure -q "$@"
	printf '%s\n' "$args" >.setup-args
fi
make -s -j"$(nproc)" all
