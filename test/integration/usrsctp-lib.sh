#!/bin/bash
# usrsctp-lib.sh: scripts/usrsctp-lib.sh, which libusrsctp ./run-demo and make bench load and
# say (issue 35): `which` names the system's library as Debian's, -O0, and a Release build
# (scripts/usrsctp-release.sh's) as such, for a program and for a running process; `pick` takes
# USRSCTP_LIBDIR=system as the system's, refuses a folder without the library, and by default
# takes the Release build where one is built (never building here: USRSCTP_LIB_NOBUILD=1);
# scripts/demo.sh's first line says the one its msgperf loads. TAP.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
S=$top_srcdir/scripts/usrsctp-lib.sh
M=${MSGPERF:-$top_builddir/msgperf}
need "$S" "$M" dpkg-query
grep -q 'define HAVE_USRSCTP 1' "$top_builddir/config.h" || { ok 1 "usrsctp not built"; done_testing; exit; }
scratch usrsctp-lib
export USRSCTP_LIB_NOBUILD=1

sys=$(env -u LD_LIBRARY_PATH ldd "$M" | awk '$1 ~ /^libusrsctp/ { print $3; exit }')
sys=$(readlink -f "$sys")
pkg=$(dpkg-query -S "$sys" 2>/dev/null | head -n1 | cut -d: -f1)
want="libusrsctp: $sys (Debian's $pkg $(dpkg-query -W -f='${Version}' "$pkg"), built -O0)"
out=$(env -u LD_LIBRARY_PATH "$S" which "$M")
[ -n "$pkg" ] && [ "$out" = "$want" ]
ok $? "which msgperf, the system's: '$out'"

out=$(USRSCTP_LIBDIR=system "$S" pick)
rc=$?
[ $rc = 0 ] && [ -z "$out" ]
ok $? "pick with USRSCTP_LIBDIR=system: nothing (the system's), exit $rc"
out=$(USRSCTP_LIBDIR=$tmp/none "$S" pick 2>&1)
rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "USRSCTP_LIBDIR=$tmp/none holds no libusrsctp.so.2"
ok $? "pick with a folder that holds no library: exit $rc, said: $out"
"$S" frob >/dev/null 2>&1
rc=$?
[ $rc = 2 ]
ok $? "an unknown command: usage error (exit $rc)"

rel=$("$top_srcdir/scripts/usrsctp-release.sh" -c -q 2>/dev/null)
if [ -n "$rel" ]; then
	out=$(env -u USRSCTP_LIBDIR "$S" pick)
	[ "$out" = "$rel" ]
	ok $? "pick by default: the Release build ($out)"
	out=$(LD_LIBRARY_PATH=$rel "$S" which "$M")
	echo "$out" | grep -q "^libusrsctp: $rel/libusrsctp.so.2[.0-9]* (usrsctp [^ ]* Release build, scripts/usrsctp-release.sh)$"
	ok $? "which msgperf with the Release build first: '$out'"
	want=$out
else
	out=$(env -u USRSCTP_LIBDIR "$S" pick)
	[ -z "$out" ]
	ok $? "pick by default, no Release build here (and none made): the system's"
	ok 0 "no Release build cached: its line not checked (scripts/usrsctp-release.sh builds it)"
fi

# a running process: what it has loaded, as the line says
udp_base 4
LD_LIBRARY_PATH=${rel:-} "$M" server -q -t usrsctp-nt -a 127.0.0.1:$((udp_base + 2)) --udp-port $udp_base \
    --udp-remote-port $((udp_base + 1)) &
mp=$!
for i in $(seq 1 50); do grep -q libusrsctp "/proc/$mp/maps" 2>/dev/null && break; sleep 0.1; done
out=$("$S" which $mp)
kill $mp
wait $mp 2>/dev/null
[ "$out" = "$want" ]
ok $? "which PID of a msgperf server: '$out'"

# the demo's first line (scripts/demo.sh: the header alone)
out=$(cd "$top_srcdir" && env -u USRSCTP_LIBDIR SCTPAPPS_DEMO_HEADER=1 scripts/demo.sh)
[ "$out" = "== $want ==" ]
ok $? "scripts/demo.sh says which it loads: '$out'"
out=$(cd "$top_srcdir" && USRSCTP_LIBDIR=system SCTPAPPS_DEMO_HEADER=1 scripts/demo.sh)
[ "$out" = "== libusrsctp: $sys (Debian's $pkg $(dpkg-query -W -f='${Version}' "$pkg"), built -O0) ==" ]
ok $? "scripts/demo.sh with USRSCTP_LIBDIR=system: '$out'"
done_testing
