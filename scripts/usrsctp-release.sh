#!/bin/bash
# scripts/usrsctp-release.sh: the usrsctp that Debian ships, built optimised. Debian's
# libusrsctp2 is compiled with -O0 (usrsctp's configure appends "-g -O0" unless given
# --disable-debug); this fetches the same source (apt-get source of the installed
# libusrsctp2's source package, at the installed version, Debian's patches applied), builds it
# with CMake -DCMAKE_BUILD_TYPE=Release (-O3; SCTP_DEBUG stays defined as in Debian's) into a
# cache folder, checks that its soname is the installed library's and prints the folder that
# holds it. Our programs load it without a relink:
#   LD_LIBRARY_PATH=$(scripts/usrsctp-release.sh) ./sctphttpd ...
#   USRSCTP_LIBDIR=$(scripts/usrsctp-release.sh) test/perf/scale-bench.sh
#
# usage: scripts/usrsctp-release.sh [-d DIR] [-V VERSION] [-j JOBS] [-c] [-q] [-h|--help]
#   -d DIR      cache folder (default ${XDG_CACHE_HOME:-$HOME/.cache}/sctpapps-usrsctp); the
#               build goes to DIR/VERSION/, the library to DIR/VERSION/lib
#   -V VERSION  Debian version of the source (default: the installed libusrsctp2's); only
#               revisions of the installed upstream version are taken
#   -j JOBS     compile jobs (default: the number of CPUs)
#   -c          cached only: print the folder if it is built, else exit 1 (never builds)
#   -q          only errors on stderr
# Idempotent: when the folder is built, prints it at once. Needs the network only for apt,
# and root once, when apt does not know the source yet (a deb-src entry, apt-get update,
# missing build tools: cmake make gcc dpkg-dev).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${XDG_CACHE_HOME:-$HOME/.cache}/sctpapps-usrsctp
ver='' jobs=$(nproc) cached=0 quiet=0
TOOLS="cmake:cmake make:make gcc:gcc dpkg-source:dpkg-dev apt-get:apt readelf:binutils"

die() { echo "usrsctp-release: $*" >&2; exit 1; }
say() { [ $quiet -eq 1 ] || echo "usrsctp-release: $*" >&2; }
log() { # log NAME CMD...: CMD with its output in $logs/NAME.log, its end shown when it fails
	local name=$1
	shift
	if ! "$@" >"$logs/$name.log" 2>&1; then
		tail -n 20 "$logs/$name.log" >&2
		die "$name failed (whole log: $logs/$name.log)"
	fi
}
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }
soname() { readelf -d "$1" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p'; }

[ "${1:-}" = --help ] && { usage; exit 0; }
while getopts d:V:j:cqh o; do
	case $o in
	d) root=$OPTARG ;;
	V) ver=$OPTARG ;;
	j) jobs=$OPTARG ;;
	c) cached=1 ;;
	q) quiet=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { echo "usrsctp-release: unexpected argument '$1' (--help)" >&2; exit 2; }
case $jobs in '' | *[!0-9]* | 0) die "-j $jobs: a number of jobs, 1 or more" ;; esac

# The installed library: its file, soname, package, source package and version.
syslib=$(dpkg-query -S '*/libusrsctp.so.2' 2>/dev/null | head -n1)
[ -n "$syslib" ] || die "libusrsctp2 is not installed (scripts/setup.sh installs it)"
pkg=${syslib%%: *} syslib=$(readlink -f "${syslib#*: }")
want_so=$(soname "$syslib")
# shellcheck disable=SC2046 # two words
set -- $(dpkg-query -W -f='${source:Package} ${source:Version}' "$pkg")
src=$1 sysver=$2
if [ -z "$ver" ]; then
	ver=$sysver
elif ! [[ $ver =~ ^[0-9][A-Za-z0-9.+~]*(-[A-Za-z0-9.+~]+)?$ ]]; then
	die "bad version '$ver': a Debian version such as $sysver"
elif [ "${ver%-*}" != "${sysver%-*}" ]; then
	die "version $ver: not a revision of the installed $src ${sysver%-*} ($pkg $sysver), whose soname $want_so it must keep"
fi

out=$root/$ver lib=$root/$ver/lib
built() { [ -f "$lib/BUILD-INFO" ] && [ "$(soname "$lib/libusrsctp.so.2")" = "$want_so" ]; }
if built; then
	echo "$lib"
	exit 0
fi
[ $cached -eq 0 ] || die "no build of $src $ver in $out (run without -c to build it)"
if ! mkdir -p "$out" 2>/dev/null || [ ! -w "$out" ]; then
	die "cannot create the cache folder $out (-d DIR)"
fi
out=$(cd "$out" && pwd)
lib=$out/lib
logs=$out/log
mkdir -p "$logs" "$out/dl"
# one build at a time in a folder: the others wait, then find it built
exec 9>"$out/.lock"
flock 9 || die "cannot lock $out/.lock"
if built; then
	echo "$lib"
	exit 0
fi

# build tools (packages installed when root)
missing=
for t in $TOOLS; do
	command -v "${t%%:*}" >/dev/null 2>&1 || missing="$missing ${t#*:}"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" -eq 0 ] || die "missing:$missing (apt-get install$missing, or run as root)"
	say "installing$missing"
	# shellcheck disable=SC2086 # package names
	log apt-install env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
fi

# the source: apt-get source (once: the download is kept), dpkg-source -x checks it against
# the .dsc and applies Debian's patches
start=$(date +%s)
dsc=$out/dl/${src}_${ver#*:}.dsc
if [ ! -f "$dsc" ]; then
	# shellcheck source=scripts/debsrc.sh
	. "$here/debsrc.sh" # debsrc_need
	debsrc_need "$src" "$ver"
	apt-cache showsrc "$src" 2>/dev/null | grep -qx "Version: $ver" ||
		die "source $src $ver is not in the archive (only: $(apt-cache showsrc "$src" | sed -n 's/^Version: //p' | tr '\n' ' '))"
	say "apt-get source $src=$ver"
	if ! (cd "$out/dl" && apt-get source -q --download-only "$src=$ver") >"$logs/fetch.log" 2>&1 ||
	    [ ! -f "$dsc" ]; then
		tail -n 5 "$logs/fetch.log" >&2
		rm -f "$dsc"
		die "apt-get source $src=$ver failed (it needs the network; whole log: $logs/fetch.log)"
	fi
fi
rm -rf "$out/src" "$out/build" "$lib.tmp"
log unpack dpkg-source --no-copy -x "$dsc" "$out/src"

say "building $src $ver, CMake Release, $jobs job(s)"
log cmake cmake -S "$out/src" -B "$out/build" -DCMAKE_BUILD_TYPE=Release \
    -Dsctp_build_shared_lib=1 -Dsctp_build_programs=0 -Dsctp_werror=0
log build cmake --build "$out/build" -j "$jobs"
so=$out/build/usrsctplib/libusrsctp.so
[ -f "$so" ] || die "the build left no $so (log: $logs/build.log)"
got_so=$(soname "$so")
[ "$got_so" = "$want_so" ] ||
    die "the build's soname $got_so is not the installed library's ($want_so, $syslib)"

mkdir "$lib.tmp"
cp -P "$so"* "$lib.tmp/"
cat >"$lib.tmp/BUILD-INFO" <<EOF
usrsctp $ver Release build: Debian source package $src $ver, CMake -DCMAKE_BUILD_TYPE=Release
(-O3) -Dsctp_build_shared_lib=1 -Dsctp_build_programs=0 -Dsctp_werror=0, by
scripts/usrsctp-release.sh on $(date -u '+%Y-%m-%d %H:%M UTC') with $(gcc --version | head -n1).
soname $got_so, as Debian's $syslib ($pkg $sysver).
EOF
mv "$lib.tmp" "$lib"
rm -rf "$out/src" "$out/build"
say "built in $(($(date +%s) - start)) s: $lib"
echo "$lib"
