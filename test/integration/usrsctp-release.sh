#!/bin/bash
# usrsctp-release.sh: scripts/usrsctp-release.sh tells its usage, refuses a bad version, a
# version of another upstream release and a cache folder it cannot create, and fails loudly
# (non-zero, apt-get source and the network named) when it cannot fetch the source; it never
# builds here. When the cache already holds the optimised build, LD_LIBRARY_PATH makes
# sctphttpd load it (/proc/PID/maps) and serve a request over usrsctp with it. TAP.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
R=$top_srcdir/scripts/usrsctp-release.sh
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
need "$R" "$H" "$G" dpkg-query readelf
scratch usrsctp-release

out=$("$R" --help 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q 'usage: scripts/usrsctp-release.sh' &&
    echo "$out" | grep -q 'LD_LIBRARY_PATH=' && echo "$out" | grep -q 'CMAKE_BUILD_TYPE=Release'
ok $? "--help: usage, LD_LIBRARY_PATH and the build type told (exit $rc)"
"$R" -Z >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ]
ok $? "an unknown option: usage error (exit $rc)"

sysver=$(dpkg-query -W -f='${source:Version}' libusrsctp2 2>/dev/null)
out=$("$R" -d "$tmp/c" -V 'not a version' 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "bad version 'not a version'" && [ ! -e "$tmp/c" ]
ok $? "a malformed version: exit $rc, named, nothing created ($out)"
out=$("$R" -d "$tmp/c" -V 99.0.0-1 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q 'version 99.0.0-1: not a revision of the installed' &&
    [ ! -e "$tmp/c" ]
ok $? "another upstream version: exit $rc, refused before any download ($out)"
: >"$tmp/file"
out=$("$R" -d "$tmp/file" 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "cannot create the cache folder $tmp/file/"
ok $? "a cache folder that cannot be made: exit $rc, named ($out)"
out=$("$R" -c -d "$tmp/c" 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q 'no build of' && [ ! -e "$tmp/c/$sysver/lib" ]
ok $? "-c on an empty cache: exit $rc, no build ($out)"

# Without a network (a namespace of its own): the fetch fails, says why, and leaves no
# library. apt must know the source already (a deb-src entry), else the script would go on to
# write one and run apt-get update, which this test does not do to the host.
if ! apt-cache showsrc "$(dpkg-query -W -f='${source:Package}' libusrsctp2)" 2>/dev/null |
    grep -qx "Version: $sysver"; then
	ok 0 "# SKIP no network check: apt has no deb-src entry for $sysver (scripts/usrsctp-release.sh adds it)"
elif ! unshare -n true 2>/dev/null; then
	ok 0 "# SKIP no network check: unshare -n is not allowed here"
else
	t0=$(date +%s)
	out=$(unshare -n -- "$R" -d "$tmp/c" 2>&1)
	rc=$?
	[ $rc -ne 0 ] && echo "$out" | grep -q 'apt-get source .* failed (it needs the network' &&
	    [ ! -e "$tmp/c/$sysver/lib" ]
	ok $? "no network: exit $rc after $(($(date +%s) - t0)) s, apt-get source and the network named"
fi

# With the optimised build in the cache (scripts/usrsctp-release.sh ran before): a second call
# prints its folder at once, and sctphttpd loads it and serves over usrsctp with it.
if ! lib=$("$R" -c 2>/dev/null); then
	ok 0 "# SKIP no optimised build in the cache (scripts/usrsctp-release.sh makes one)"
	done_testing
	exit
fi
t0=$(date +%s%N)
again=$("$R" 2>&1)
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$again" = "$lib" ] && [ $ms -lt 5000 ] && [ -f "$lib/BUILD-INFO" ]
ok $? "built already: $lib printed after $ms ms, nothing else said"
grep -q 'define HAVE_USRSCTP 1' "$top_builddir/config.h" || { ok 1 "usrsctp not built"; done_testing; exit; }
for try in $(seq 1 30); do
	base=$((33000 + (RANDOM % 1000) * 2))
	ss -Huan "( sport = :$base or sport = :$((base + 1)) )" 2>/dev/null | grep -q . || break
done
mkdir "$tmp/doc"
head -c 5000 /dev/urandom >"$tmp/doc/f"
daemon_start h 'listening on usrsctp' env LD_LIBRARY_PATH="$lib" "$H" -L usrsctp:127.0.0.1:8080 \
    --udp-port $base --udp-remote-port $((base + 1)) -d "$tmp/doc"
ok $? "sctphttpd starts with LD_LIBRARY_PATH=$lib"
hp=$daemon_pid
maps=$(grep -o '/[^ ]*libusrsctp[^ ]*' "/proc/$hp/maps" | sort -u)
[ "$maps" = "$(readlink -f "$lib/libusrsctp.so.2")" ]
ok $? "it has loaded the optimised library and no other: $maps"
LD_LIBRARY_PATH=$lib "$G" -s -m 10 --proto usrsctp --udp-port $((base + 1)) --udp-remote-port $base \
    -o "$tmp/got" http://127.0.0.1:8080/f 2>"$tmp/g.err" && cmp -s "$tmp/got" "$tmp/doc/f"
ok $? "and serves a file over usrsctp with it"
[ -s "$tmp/g.err" ] && sed 's/^/# httpget: /' "$tmp/g.err"
done_testing
