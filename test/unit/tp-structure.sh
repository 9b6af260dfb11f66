#!/bin/sh
# tp-structure.sh: lib/tp/tp.h is the applications' transport API, lib/tp/tp_impl.h the backends' side
# (docs/design.md, "Transports"): no file outside lib/tp/ includes tp_impl.h or calls its functions,
# none touches a connection's or listener's private fields (ops, fd, impl, cb, loop, firing...),
# and no program tells a transport by its name (capabilities are asked instead). The checks run
# on a planted bad tree first, so each of them is seen to fail.
. "$(dirname "$0")/../lib.sh"
scratch tp-structure

priv='ops|fd|impl|cb|cb_arg|notify|notify_arg|loop|want|firing|dead'
impl_fn='tp_(sock_[a-z_]+|fire|lfire|conn_new|note|note_reset)\('
names='tcp|unix|tcpm|unixm|sctp|sctp1m|usrsctp'

# impl_includes FILE...: the lines that include tp_impl.h
impl_includes() { grep -nH '#include *"tp_impl\.h"' "$@" /dev/null; }

# impl_calls FILE...: calls of the backends' functions
impl_calls() { grep -nHE "(^|[^a-z_])$impl_fn" "$@" /dev/null; }

# private_uses FILE...: NAME->FIELD for a private FIELD, where the file declares NAME as a
# struct tp_conn or tp_listener pointer (a variable, a parameter or a member)
private_uses() {
	local f vars
	for f in "$@"; do
		vars=$(sed -nE 's/.*struct tp_(conn|listener) \*+([a-z_][a-z0-9_]*).*/\2/p' "$f" |
		    sort -u | paste -sd'|' -)
		[ -n "$vars" ] || continue
		grep -nHE "(^|[^a-z0-9_])($vars)->($priv)([^a-z0-9_]|\$)" "$f"
	done
}

# name_compares FILE...: a transport name compared as a string
name_compares() { grep -nHE "str(n?case)?cmp\([^;]*\"($names)\"" "$@" /dev/null; }

# The checks must catch a planted file.
mkdir -p "$tmp/bad"
cat >"$tmp/bad/bad.c" <<'EOC'
#include "tp_impl.h"
static void f(struct tp_conn *tc, int x) { shutdown(tc->fd, 1); tp_fire(tc, x); }
static int g(const char *p) { return strcmp(p, "usrsctp") == 0; }
EOC
impl_includes "$tmp/bad/bad.c" >/dev/null; ok $? "the include check finds a planted #include \"tp_impl.h\""
impl_calls "$tmp/bad/bad.c" >/dev/null; ok $? "the call check finds a planted tp_fire()"
private_uses "$tmp/bad/bad.c" | grep -q .; ok $? "the field check finds a planted tc->fd"
name_compares "$tmp/bad/bad.c" >/dev/null; ok $? "the name check finds a planted strcmp(p, \"usrsctp\")"

# Everything outside lib/tp/ (the transports room, usrsctp/ with it) that is C.
find "$top_srcdir" -path "$top_srcdir/lib/tp" -prune -o -path "$top_srcdir/.git" -prune -o \
    -path "$top_srcdir/patches" -prune -o \( -name '*.c' -o -name '*.h' \) -print | sort >"$tmp/files"
diag "$(wc -l <"$tmp/files") C files outside lib/tp/"
[ -s "$tmp/files" ] || ok 1 "C files outside lib/tp/ found"

# shellcheck disable=SC2046
impl_includes $(cat "$tmp/files") >"$tmp/out"
[ ! -s "$tmp/out" ]; ok $? "no file outside lib/tp/ includes tp_impl.h" || sed 's/^/# /' "$tmp/out"
# shellcheck disable=SC2046
impl_calls $(cat "$tmp/files") >"$tmp/out"
[ ! -s "$tmp/out" ]; ok $? "no file outside lib/tp/ calls the backends' functions" || sed 's/^/# /' "$tmp/out"
# shellcheck disable=SC2046
private_uses $(cat "$tmp/files") >"$tmp/out"
[ ! -s "$tmp/out" ]; ok $? "no file outside lib/tp/ touches a connection's private fields" ||
    sed 's/^/# /' "$tmp/out"

# The programs
apps=$(for d in httpd httpload rtpaudio test/perf test/interop test/unit; do
	ls "$top_srcdir/$d"/*.c
done)
# shellcheck disable=SC2086
name_compares $apps >"$tmp/out"
[ ! -s "$tmp/out" ]; ok $? "no transport name compared as a string in httpd, httpload, rtpaudio, msgperf, tests" ||
    sed 's/^/# /' "$tmp/out"
done_testing
