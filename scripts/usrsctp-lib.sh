#!/bin/bash
# scripts/usrsctp-lib.sh: which libusrsctp ./run-demo and make bench load, and which one a
# program or a process loads.
#
# usage: scripts/usrsctp-lib.sh pick
#        scripts/usrsctp-lib.sh which PROGRAM|PID
#   pick   prints the folder to put first in LD_LIBRARY_PATH (nothing: the system's library):
#          USRSCTP_LIBDIR=DIR   DIR, which must hold libusrsctp.so.2 (else exit 1);
#          USRSCTP_LIBDIR=system  the system's (Debian's libusrsctp2, built -O0);
#          unset                scripts/usrsctp-release.sh's Release build, built first when it
#                               is not yet (apt-get source: the network, a few minutes); where
#                               it cannot be, the system's, and why on stderr. With
#                               USRSCTP_LIB_NOBUILD=1 only an existing build is taken.
#          The Release build is the default since issue 35: callgrind counts half the
#          instructions per association of Debian's -O0 one (docs/usrsctp-costs.md).
#   which  "libusrsctp: PATH (whose)" for what PROGRAM loads with the LD_LIBRARY_PATH in force
#          (ldd), or what process PID has loaded (/proc/PID/maps); "libusrsctp: none loaded".
set -u
here=$(cd "$(dirname "$0")" && pwd)

usage() { sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'; }

pick() {
	local d
	case ${USRSCTP_LIBDIR-unset} in
	system|'') return 0 ;;
	unset) ;;
	*)
		[ -e "$USRSCTP_LIBDIR/libusrsctp.so.2" ] || {
			echo "usrsctp-lib: USRSCTP_LIBDIR=$USRSCTP_LIBDIR holds no libusrsctp.so.2 (scripts/usrsctp-release.sh prints the folder; USRSCTP_LIBDIR=system: Debian's)" >&2
			return 1
		}
		(cd "$USRSCTP_LIBDIR" && pwd)
		return 0 ;;
	esac
	if [ "${USRSCTP_LIB_NOBUILD:-0}" = 1 ]; then
		d=$("$here/usrsctp-release.sh" -c -q 2>/dev/null) || d=
	else
		d=$("$here/usrsctp-release.sh" -q) || {
			echo "usrsctp-lib: the Release libusrsctp could not be built (above): the system's is used" >&2
			d=
		}
	fi
	[ -z "$d" ] || echo "$d"
}

which_lib() {
	local f p
	case $1 in
	*[!0-9]*) f=$(ldd "$1" 2>/dev/null | awk '$1 ~ /^libusrsctp/ { print $3; exit }')
		[ -z "$f" ] || f=$(readlink -f "$f") ;;
	*) f=$(awk '$6 ~ /\/libusrsctp[^\/]*$/ { print $6; exit }' "/proc/$1/maps" 2>/dev/null) ;;
	esac
	if [ -z "$f" ]; then
		echo "libusrsctp: none loaded"
	elif [ -f "${f%/*}/BUILD-INFO" ]; then
		echo "libusrsctp: $f ($(sed -n '1s/:.*//p' "${f%/*}/BUILD-INFO"), scripts/usrsctp-release.sh)"
	elif p=$(dpkg-query -S "$f" 2>/dev/null | head -n1 | cut -d: -f1) && [ -n "$p" ]; then
		echo "libusrsctp: $f (Debian's $p $(dpkg-query -W -f='${Version}' "$p"), built -O0)"
	else
		echo "libusrsctp: $f (not Debian's)"
	fi
}

case ${1:-} in
pick) [ $# = 1 ] || { usage >&2; exit 2; }; pick ;;
which) [ $# = 2 ] || { usage >&2; exit 2; }; which_lib "$2" ;;
-h|--help) usage ;;
*) usage >&2; exit 2 ;;
esac
