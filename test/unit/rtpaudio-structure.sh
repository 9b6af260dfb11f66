#!/bin/sh
# rtpaudio-structure.sh: rtpaudio's module structure (docs/design.md): the #include "x.h" edges
# among rtpaudio/'s files have no circle, no file is over 700 lines unless its opening comment
# says it is one concern, and no payload format is told by its name or number outside its
# fmt_NAME.c and the table (fmt.c, fmt.h): send and play ask struct rtpaudio_fmt instead.
# No call circle either: the calls among rtpaudio's objects (nm: what one uses that another
# defines, call_edges in test/lib.sh) go one way (tsort finds no loop), so no module calls back
# into the one that calls it (a callback or a lower module instead: docs/design.md); lib/'s
# objects alike (the types call down into tp_base.c, not back into tp.c; the two usrsctp stacks
# ask tp_usrsctp_run.c which runs), with the circles listed when there is one.
# Each rule is first shown to catch a planted breach, so that it can fail.
. "$(dirname "$0")/../lib.sh"
d=$top_srcdir/rtpaudio
scratch rtpaudio-structure


# a format compared by its number, name or payload type, or its table entry used directly
fmt_cmp='(format|fmt) *[!=]=|[!=]= *(2250|3119|5219|0xfec|RTP_PT_MPA|FMT_3119_PT)\b'
fmt_cmp=$fmt_cmp'|\bFMT_FEC\b([^_]|$)|str(n?case)?cmp\([^;]*"(2250|3119|5219|fec)"'
fmt_cmp=$fmt_cmp'|\bfmt_(2250|3119|fec)_fmt\b'
fmt_outside() {
	for f in "$1"/*.c "$1"/*.h; do
		case $(basename "$f") in fmt.c|fmt.h|fmt_*.c) continue ;; esac
		grep -nHE "$fmt_cmp" "$f"
	done
}

# the rules can fail: a planted circle, a planted comparison
mkdir "$tmp/bad"
printf '#include "b.h"\n' >"$tmp/bad/a.h"
printf '#include "a.h"\n' >"$tmp/bad/b.h"
printf '#include "a.h"\nint x(int format) { return format == 3119; }\n' >"$tmp/bad/c.c"
printf 'int y(const char *s) { return strcmp(s, "fec") == 0; }\n' >"$tmp/bad/fmt_x.c"
include_edges "$tmp/bad" | tsort >/dev/null 2>"$tmp/badloop"
grep -q . "$tmp/badloop"
ok $? "a planted include circle is found"
[ "$(fmt_outside "$tmp/bad" | wc -l)" -eq 1 ] && fmt_outside "$tmp/bad" | grep -q 'c\.c:2:'
ok $? "a planted format comparison is found outside fmt_*.c, and only there"

include_edges "$d" >"$tmp/edges"
diag "$(wc -l <"$tmp/edges") include edges among rtpaudio's modules:"
awk '{ e[$1] = e[$1] " " $2 } END { for (m in e) print "#   " m " ->" e[m] }' "$tmp/edges" | sort
tsort "$tmp/edges" >"$tmp/order" 2>"$tmp/loop"
[ -s "$tmp/edges" ] && ! grep -q . "$tmp/loop"
ok $? "no include circle among rtpaudio's modules ($(tac "$tmp/order" | tr '\n' ' '))"
sed 's/^/# /' "$tmp/loop"

# the call rule can fail: a planted circle of three objects (a calls b, b calls c, c calls a)
# is found, and one going down only is not
for m in a:b b:c c:a; do
	printf 'void %s(void);\nvoid %s(void) { %s(); }\n' "${m#*:}" "${m%:*}" "${m#*:}" >"$tmp/bad/call_${m%:*}.c"
	cc -c -o "$tmp/bad/prefix-${m%:*}.o" "$tmp/bad/call_${m%:*}.c"
done
call_edges "$tmp/bad" >"$tmp/badcalls"
tsort "$tmp/badcalls" >/dev/null 2>"$tmp/badcloop"
grep -qx 'a b' "$tmp/badcalls" && grep -q loop "$tmp/badcloop"
ok $? "a planted call circle (a -> b -> c -> a, from the objects' symbols) is found"
rm "$tmp/bad/prefix-c.o"
call_edges "$tmp/bad" | tsort >/dev/null 2>"$tmp/badcloop"
[ ! -s "$tmp/badcloop" ]
ok $? "and without c -> a there is none"

ob=$top_builddir/rtpaudio
call_edges "$ob" >"$tmp/calls"
tsort "$tmp/calls" >/dev/null 2>"$tmp/cloop"
[ "$(grep -c '^play' "$tmp/calls")" -ge 10 ] && ! grep -q . "$tmp/cloop"
ok $? "no call circle among rtpaudio's objects ($(wc -l <"$tmp/calls") edges, e.g. play -> play_source -> play_rtcp -> play_sched)" ||
    sed 's/^/# /' "$tmp/cloop"
# lib/'s objects are in its rooms (lib/ev, lib/http, lib/tls, lib/tp, lib/tp/usrsctp): all of
# them, linked into one folder, make one graph, so a circle across rooms is found too
mkdir "$tmp/libo"
find "$top_builddir/lib" -name '*.o' -exec ln -s {} "$tmp/libo/" \;
call_edges "$tmp/libo" >"$tmp/libcalls"
tsort "$tmp/libcalls" >/dev/null 2>"$tmp/libloop"
[ "$(ls "$tmp"/libo/*.o 2>/dev/null | wc -l)" -gt 10 ] && grep -qx 'tp tp_registry' "$tmp/libcalls" &&
    ! grep -q . "$tmp/libloop"
ok $? "no call circle among lib/'s objects ($(wc -l <"$tmp/libcalls") edges, e.g. tp -> tp_registry -> the types -> tp_base)" ||
    grep -v 'input contains a loop' "$tmp/libloop" | sed 's/^tsort: //' | paste -sd' ' |
    sed 's/^/# lib call circles (tsort, one after another): /'

big=
for f in "$d"/*.c; do
	n=$(wc -l <"$f")
	[ "$n" -le 700 ] || head -n 3 "$f" | grep -q 'one concern' || big="$big $(basename "$f") ($n)"
done
[ -z "$big" ]
ok $? "no file in rtpaudio/ over 700 lines but one concern's${big:+: over:$big}"

fmt_outside "$d" >"$tmp/cmp"
[ ! -s "$tmp/cmp" ]
ok $? "no payload format compared by name or number outside fmt_*.c and fmt.c"
sed 's/^/# /' "$tmp/cmp"
done_testing
