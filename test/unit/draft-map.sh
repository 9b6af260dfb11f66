#!/bin/sh
# draft-map.sh: the draft's appendix "Normative Statements and Their Implementation" ({#impl-map}
# in drafts/draft-sctpapps-http-over-sctp.md) agrees with the tree, row by row. In the code
# column each path:function names an existing file that defines that C function (bare names
# after a comma are functions of the same file) and each other path an existing file; in the
# test column each script exists (test/integration/ unless "(test/DIR)" follows it) and each
# quoted text starts one of its ok/check titles (or, for a run_tap script, a cmocka test name
# of its binary's source). A row whose code says "not implemented" says "none" or "not tested"
# for its test and is listed; it is refused where the feature's option or call exists (I-DATA:
# --sctp-interleave; the stream scheduler: SCTP_STREAM_SCHEDULER). Text only: no sockets. The
# checks run on a planted bad table first, so each of them is seen to fail.
. "$(dirname "$0")/../lib.sh"
scratch draft-map
# DRAFT (argument): another copy of the draft to check, an older one say
draft=${1:-$top_srcdir/drafts/draft-sctpapps-http-over-sctp.md}

# map_refs DRAFT: the {#impl-map} table's references, one per line, tab-separated:
#   R n section statement code  a row    F n path          a file
#   D n path function       a function   T n script quote  a test title's start ("" none)
#   N n code test           a row whose code says "not implemented"
#   E n message             a cell not understood
map_refs() {
	awk '
	function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	function out(a, b, c) { print a "\t" n "\t" b (c == "" && a != "T" ? "" : "\t" c) }
	# the code cell: path[:function] anywhere; bare function names after a comma belong to the
	# path before them (up to the next ";"); a path in parentheses is a file to check only
	function code(cell,   s, i, items, k, it, p, f, cur) {
		s = cell
		while (match(s, /\([^()]*\)/)) {
			p = substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, 1, RSTART - 1) " " substr(s, RSTART + RLENGTH)
			while (match(p, /[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+\.[ch]/)) {
				out("F", substr(p, RSTART, RLENGTH)); p = substr(p, RSTART + RLENGTH)
			}
		}
		k = split(s, items, /;/)
		for (i = 1; i <= k; i++) {
			cur = ""
			s = items[i]
			while (s != "") {
				it = s
				if (match(s, /,/)) { it = substr(s, 1, RSTART - 1); s = substr(s, RSTART + 1) }
				else s = ""
				it = trim(it)
				if (match(it, /[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+\.[ch](:[A-Za-z_][A-Za-z0-9_]*)?/)) {
					p = substr(it, RSTART, RLENGTH)
					if (split(p, f, /:/) == 2) { out("D", f[1], f[2]); cur = f[1] }
					else { out("F", p); cur = "" }
				} else if (it ~ /^[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]*$/) {
					if (cur != "") out("D", cur, it)
					else out("E", "code: function " it " without a file before it")
				}
			}
		}
	}
	# the test cell: script [(test/DIR)] [: "quote", "quote"] [, script ...] [; ...]
	function tests(cell,   s, c, q, sc, seen, j) {
		s = cell; sc = ""
		while (s != "") {
			c = substr(s, 1, 1)
			if (c == "\"") {
				j = index(substr(s, 2), "\"")
				if (j == 0) { out("E", "test: an unclosed quote: " s); return }
				q = substr(s, 2, j - 1); s = substr(s, j + 2)
				if (sc == "") out("E", "test: \"" q "\" without a script before it")
				else { out("T", sc, q); seen = 1 }
			} else if (c == "(") {
				j = index(s, ")")
				if (j == 0) j = length(s)
				q = substr(s, 2, j - 2); s = substr(s, j + 1)
				# "(test/DIR)" right after a script: its directory
				if (sc != "" && !seen && sc !~ /\// && match(q, /^test\/[a-z]+$/)) sc = q "/" sc
			} else if (c == ";") {
				if (sc != "" && !seen) out("T", sc, "")
				sc = ""; s = substr(s, 2)
			} else if (match(s, /^[A-Za-z0-9_.\/-]+\.(sh|py)/)) {
				if (sc != "" && !seen) out("T", sc, "")
				sc = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); seen = 0
			} else if (match(s, /^[^";(]*[A-Za-z0-9_.\/-]*/) && RLENGTH > 0) {
				# prose up to the next quote, parenthesis, ";" or script name
				j = RLENGTH
				if (match(s, /[A-Za-z0-9_.\/-]+\.(sh|py)/) && RSTART > 1 && RSTART <= j) j = RSTART - 1
				s = substr(s, j + 1)
			} else s = substr(s, 2)
		}
		if (sc != "" && !seen) out("T", sc, "")
	}
	/^# .*\{#impl-map\}/ { inmap = 1; next }
	inmap && /^# / { exit }
	inmap && /^section *\|/ { intable = 1; next }
	intable && /^-+\|/ { next }
	intable && (/^Table:/ || /^$/) { exit }
	intable {
		n++
		k = split($0, cell, /\|/)
		if (k != 4) { out("E", "a row with " k " cells, not 4: " $0); next }
		for (i = 1; i <= 4; i++) cell[i] = trim(cell[i])
		print "R\t" n "\t" cell[1] "\t" cell[2] "\t" cell[3]
		code(cell[3])
		tests(cell[4])
		if (tolower(cell[3]) ~ /not implemented/) {
			out("N", cell[3], cell[4])
			if (tolower(cell[4]) !~ /^(none|not tested)/)
				out("E", "code says not implemented, test does not say none or not tested")
		} else if (tolower(cell[4]) ~ /^none/)
			out("E", "test says none, code does not say not implemented")
	}
	' "$1"
}

# defines FILE FUNCTION: FILE has a C definition of FUNCTION: a line at column 0 (not a
# preprocessor line or comment) with FUNCTION( whose declaration reaches "{" before ";"
defines() {
	awk -v fn="$2" '
	BEGIN { re = "(^|[^A-Za-z0-9_])" fn "[ \t]*\\(" }
	!look && /^[A-Za-z_]/ && $0 ~ re { look = 1; sub(".*" re, "") }
	look {
		b = index($0, "{"); s = index($0, ";")
		if (b && (!s || b < s)) { found = 1; exit }
		if (s) look = 0
	}
	END { exit !found }
	' "$1"
}

# titles SCRIPT ROOT: the titles its checks print, as written (ok/check STATUS "TITLE"), in it
# and in the scripts of its directory it sources; a title starting with a function's first
# argument ($1, or a variable set from it) once per call of that function, with the call's
# argument; and the cmocka test names of the binaries it runs with run_tap (test/DIR/NAME:
# from ROOT/test/DIR/NAME.c)
titles() {
	local d f root="$2"
	d=$(dirname "$1")
	# shellcheck disable=SC2046
	set -- "$1" $(sed -n 's/^\. .*\/\([A-Za-z0-9_-]*\.sh\)"\{0,1\}$/\1/p' "$1" | while read -r f; do
		[ -f "$d/$f" ] && echo "$d/$f"
	done)
	awk '
	# the quoted string s starts with, its escapes undone ($(...) kept whole, quotes and all)
	function str(s,   q, i, c, t, d) {
		q = substr(s, 1, 1); t = ""; d = 0
		for (i = 2; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (d > 0) { d += (c == "(") - (c == ")"); t = t c; continue }
			if (c == "$" && q == "\"" && substr(s, i + 1, 1) == "(") { d = 1; t = t "$("; i++; continue }
			if (c == q) return t
			if (c == "\\" && q == "\"" && index("\"\\$`", substr(s, i + 1, 1))) {
				i++; c = substr(s, i, 1)
				if (c == "$") c = "\001"        # an escaped $: literal, not a variable
			}
			t = t c
		}
		return t
	}
	function word(s) {   # a call argument: a quoted string or a word
		if (s ~ /^["\047]/) return str(s)
		match(s, /^[^ \t;|&)]*/)
		return substr(s, 1, RLENGTH)
	}
	FNR == 1 { fn = "" }
	match($0, /^[A-Za-z_][A-Za-z0-9_]*\(\)/) { fn = substr($0, 1, RLENGTH - 2); v1[fn] = "1"; def = 1 }
	/^}/ || (def && /}[ \t]*$/) { fn = "" }
	{ def = 0 }
	fn != "" && match($0, /[A-Za-z_][A-Za-z0-9_]*=["]?\$(1|\{1\})([^0-9A-Za-z_]|$)/) {
		v = substr($0, RSTART); sub(/=.*/, "", v); v1[fn] = v
	}
	match($0, /(^|[^A-Za-z0-9_])(ok|check)[ \t]+[^ \t]+[ \t]+["\047]/) {
		t = str(substr($0, RSTART + RLENGTH - 1))
		if (fn != "" && (index(t, "$" v1[fn]) == 1 || index(t, "${" v1[fn] "}") == 1)) {
			r = substr(t, index(t, "$" v1[fn]) == 1 ? length(v1[fn]) + 2 : length(v1[fn]) + 4)
			if (r !~ /^[A-Za-z0-9_]/) { tm[fn, ++ntm[fn]] = r; next }
		}
		print t
	}
	match($0, /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]+[^ \t]/) {
		c = $0; sub(/^[ \t]*/, "", c); f = c; sub(/[ \t].*/, "", f); sub(/^[^ \t]*[ \t]+/, "", c)
		arg[f, ++narg[f]] = word(c)
	}
	match($0, /run_tap .*\/test\/[a-z]+\/[A-Za-z0-9_]+/) {
		s = substr($0, RSTART, RLENGTH); sub(/.*\/test\//, "test/", s); print "\002" s
	}
	END {
		for (f in ntm) for (i = 1; i <= ntm[f]; i++) {
			if (!narg[f]) print "$" v1[f] tm[f, i]
			for (j = 1; j <= narg[f]; j++) print arg[f, j] tm[f, i]
		}
	}
	' "$@" | while IFS= read -r t; do
		case $t in
		"$(printf '\002')"*)
			sed -n 's/.*cmocka_unit_test[a-z_]*(\([A-Za-z0-9_]*\).*/\1/p' "$root/${t#?}.c" \
			    2>/dev/null ;;
		*) printf '%s\n' "$t" ;;
		esac
	done
}

# starts TITLES-FILE QUOTE: QUOTE starts one of the titles, where a shell expansion in a title
# ($x, ${x}, $(cmd), `cmd`) stands for any text, but not for all of QUOTE ("$1: a" is not started
# by every text)
starts() {
	awk -v q="$2" '
	# q from i is a prefix of an expansion of t from j, lit characters of t matched before
	function pm(i, t, j, lit,   k) {
		for (;;) {
			if (i > length(q)) return lit > 0
			if (j > length(t)) return 0
			if (substr(t, j, 1) == "\003") {
				for (k = i; k <= length(q) + 1; k++) if (pm(k, t, j + 1, lit)) return 1
				return 0
			}
			if (substr(t, j, 1) != substr(q, i, 1)) return 0
			i++; j++; lit++
		}
	}
	function glob(s,   o, c, d, i) {   # shell expansions to \003, escaped $ back to $
		o = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "`") {
				d = index(substr(s, i + 1), "`")
				i = d ? i + d : length(s)
				o = o "\003"; continue
			}
			if (c != "$") { o = o (c == "\001" ? "$" : c); continue }
			c = substr(s, i + 1, 1)
			if (c == "{" || c == "(") {
				d = 1; i++
				while (d > 0 && i < length(s)) {
					i++; c = substr(s, i, 1)
					if (c == "{" || c == "(") d++
					else if (c == "}" || c == ")") d--
				}
			} else if (c ~ /[A-Za-z_]/) {
				while (substr(s, i + 1, 1) ~ /[A-Za-z0-9_]/) i++
			} else i++
			o = o "\003"
		}
		return o
	}
	{ if (pm(1, glob($0), 1, 0)) { found = 1; exit } }
	END { exit !found }
	' "$1"
}

# Rows that call a feature missing (STATEMENT-ERE, CODE-ERE) where FILES have its PATTERN.
claims='I-DATA	not implemented	httpd/config.c	sctp-interleave
scheduler	not implemented|SCTP_STREAM_SCHEDULER is (not|never) set	lib/tp/tp_sctp*.c	SCTP_STREAM_SCHEDULER'

# check_map DRAFT ROOT: "row<TAB>message" for each reference of DRAFT's table that the tree in
# ROOT contradicts; the rows ("n<TAB>section: statement") in $tmp/rows, the not-implemented
# ones in $tmp/notimpl
check_map() {
	local tab kind n a b c st ce files pat
	tab=$(printf '\t')
	: >"$tmp/rows"; : >"$tmp/notimpl"
	map_refs "$1" >"$tmp/refs"
	while IFS="$tab" read -r kind n a b c; do
		case $kind in
		R)
			printf '%s\t%s: %s\n' "$n" "$a" "$b" >>"$tmp/rows"
			printf '%s\n' "$claims" | while IFS="$tab" read -r st ce files pat; do
				printf '%s %s\n' "$a" "$b" | grep -qE "$st" || continue
				printf '%s\n' "$c" | grep -qE "$ce" || continue
				# shellcheck disable=SC2086
				(cd "$2" && grep -l -- "$pat" $files 2>/dev/null) | head -n 1 | grep -q . &&
				    printf '%s\tcode: says "%s", but %s has %s\n' "$n" \
				    "$(printf '%s\n' "$c" | grep -oE "$ce" | head -n 1)" "$files" "$pat"
			done ;;
		E) printf '%s\t%s\n' "$n" "$a" ;;
		F) [ -f "$2/$a" ] || printf '%s\tcode: %s: no such file\n' "$n" "$a" ;;
		D)
			if [ ! -f "$2/$a" ]; then
				printf '%s\tcode: %s:%s: no such file\n' "$n" "$a" "$b"
			elif ! defines "$2/$a" "$b"; then
				printf '%s\tcode: %s:%s: %s defines no such function\n' "$n" "$a" "$b" "$a"
			fi ;;
		T)
			case $a in */*) ;; *) a=test/integration/$a ;; esac
			if [ ! -f "$2/$a" ]; then
				printf '%s\ttest: %s: no such script\n' "$n" "$a"
			elif [ -n "$b" ]; then
				titles "$2/$a" "$2" >"$tmp/titles"
				starts "$tmp/titles" "$b" ||
				    printf '%s\ttest: %s: "%s": no check of it starts so\n' "$n" "$a" "$b"
			fi ;;
		N) printf '%s\t%s\n' "$n" "$(sed -n "s/^$n$tab//p" "$tmp/rows")" >>"$tmp/notimpl" ;;
		esac
	done <"$tmp/refs"
}

# The checks must catch a planted bad table (and pass its good row).
b=$tmp/bad
mkdir -p "$b/a" "$b/httpd" "$b/lib/tp" "$b/test/integration" "$b/test/unit"
cat >"$b/a/x.c" <<'EOC'
int x_proto(int a,
    int b);
static int
x_fn(void)
{
	return x_proto(1, 2);
}
int x_one(int a) { return a; }
EOC
cat >"$b/test/integration/s.sh" <<'EOC'
t() { ok $? "$1: one check, ${n} items (exit $(echo 0))"; }
ok 0 'single \"quoted\"'
ok 1 "cost \$1 each, $n"
EOC
# shellcheck disable=SC2016
echo 'run_tap "$top_builddir/test/unit/t"' >"$b/test/unit/t.sh"
echo '		cmocka_unit_test(test_one),' >"$b/test/unit/t.c"
echo '{ "sctp-interleave", no_argument, NULL, OPT_INTL },' >"$b/httpd/config.c"
echo 'setsockopt(fd, IPPROTO_SCTP, SCTP_STREAM_SCHEDULER, &av, sizeof(av));' >"$b/lib/tp/tp_sctp_x.c"
cat >"$b/draft.md" <<'EOC'
# Normative Statements and Their Implementation {#impl-map}

section | statement | code | test
--------|-----------|------|-----
(#a) | good | a/x.c:x_fn (a, B_C, a/x.c), x_one; a/x.c (text) | s.sh: "sctp: one check, 3 items (exit 0)", "single ", "cost $1 each, 2"; t.sh (test/unit): "test_o"
(#b) | file | a/y.c:y_fn | none
(#c) | function | a/x.c:x_proto | not tested
(#d) | script | a/x.c | gone.sh: "x"
(#e) | title | a/x.c | s.sh: "sctp: two checks"
(#f) | coherent | not implemented | s.sh: "sctp: one"
(#g) | I-DATA | not implemented | none
(#h) | round-robin scheduler | httpd/x.c; SCTP_STREAM_SCHEDULER is not set | t.sh
Table: x
EOC
check_map "$b/draft.md" "$b" >"$tmp/bad.out"
found() { grep -q "^$1	.*$2" "$tmp/bad.out"; }
! grep -q '^1	' "$tmp/bad.out"
ok $? "a planted good row passes (path:function, bare names, titles with \$x, cmocka names)"
sed -n 's/^1	/#   /p' "$tmp/bad.out"
found 2 'a/y.c:y_fn: no such file'; ok $? "the check finds a planted missing file"
found 2 'test says none, code does not'
ok $? "the check finds \"none\" for a test where the code is named"
found 3 'x_proto: a/x.c defines no such function'; ok $? "the check finds a function only declared"
found 4 'gone.sh: no such script'; ok $? "the check finds a planted missing script"
found 5 '"sctp: two checks": no check'
ok $? "the check finds a planted title that no check starts with"
found 6 'not implemented, test does not say'
ok $? "the check finds \"not implemented\" with a test named"
found 7 'httpd/config.c has sctp-interleave'
ok $? "the check finds I-DATA \"not implemented\" beside --sctp-interleave"
found 8 'SCTP_STREAM_SCHEDULER is not set", but'
ok $? "the check finds \"SCTP_STREAM_SCHEDULER is not set\" beside its setsockopt"
found 8 'httpd/x.c: no such file'; ok $? "the check finds a planted missing file without a function"
[ "$(wc -l <"$tmp/notimpl")" = 2 ]; ok $? "two planted rows say not implemented"

# The draft's table.
check_map "$draft" "$top_srcdir" >"$tmp/out"
rows=$(wc -l <"$tmp/rows")
[ "$rows" -ge 40 ]; ok $? "the draft's {#impl-map} table has $rows rows (40 or more)"
diag "$(grep -c '^[DF]	' "$tmp/refs") code and $(grep -c '^T	' "$tmp/refs") test references;" \
    "$(wc -l <"$tmp/out") contradicted by the tree"
tab=$(printf '\t')
while IFS="$tab" read -r n what; do
	# (ok returns 0 either way: its diagnostics come after it, not behind ||)
	! grep -q "^$n$tab" "$tmp/out"
	ok $? "row $n $what"
	sed -n "s/^$n$tab/#   /p" "$tmp/out"
done <"$tmp/rows"
diag "$(wc -l <"$tmp/notimpl") rows say not implemented:"
sed 's/^\([0-9]*\)	/#   row \1 /' "$tmp/notimpl"
done_testing
