#!/bin/sh
# httpd-structure.sh: sctphttpd's module structure (docs/design.md): the #include "x.h" edges
# among httpd/'s files have no circle (each module, x.c with x.h, only uses the ones below it),
# no file is over 700 lines unless its opening comment says it is one concern, and no transport
# is told by its name (capabilities are asked of lib/tp/tp.h instead). The circle rule is first
# shown to catch a planted one, so that it can fail.
. "$(dirname "$0")/../lib.sh"
d=$top_srcdir/httpd
scratch httpd-structure


# the rule can fail: a planted circle (conn.h -> strm.h -> conn.h)
mkdir "$tmp/bad"
printf '#include "strm.h"\n' >"$tmp/bad/conn.h"
printf '#include "conn.h"\n' >"$tmp/bad/strm.h"
printf '#include "conn.h"\n' >"$tmp/bad/main.c"
include_edges "$tmp/bad" | tsort >/dev/null 2>"$tmp/badloop"
grep -q . "$tmp/badloop"
ok $? "a planted include circle is found"

include_edges "$d" >"$tmp/edges"
diag "$(wc -l <"$tmp/edges") include edges among httpd's modules:"
awk '{ e[$1] = e[$1] " " $2 } END { for (m in e) print "#   " m " ->" e[m] }' "$tmp/edges" | sort
tsort "$tmp/edges" >"$tmp/order" 2>"$tmp/loop"
[ -s "$tmp/edges" ] && ! grep -q . "$tmp/loop"
ok $? "no include circle among httpd's modules ($(tac "$tmp/order" | tr '\n' ' '))" ||
    sed 's/^/# /' "$tmp/loop"

big=
for f in "$d"/*.c; do
	n=$(wc -l <"$f")
	[ "$n" -le 700 ] || head -n 3 "$f" | grep -q 'one concern' || big="$big $(basename "$f") ($n)"
done
[ -z "$big" ]
ok $? "no file in httpd/ over 700 lines but one concern's${big:+: over:$big}"

grep -nE 'str(n?case)?cmp\([^;]*"(tcp|unix|tcpm|unixm|sctp|sctp1m|usrsctp)"' "$d"/*.c >"$tmp/names"
[ ! -s "$tmp/names" ]
ok $? "no transport name compared as a string in httpd/" || sed 's/^/# /' "$tmp/names"
done_testing
