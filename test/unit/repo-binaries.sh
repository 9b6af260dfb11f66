#!/bin/sh
# repo-binaries.sh: git tracks no built program or object (issue 36 item 5: a committed test
# binary made `git status` dirty after every build, and a stale one could be run in place of
# its source). Every file git tracks is looked at by its first bytes: none is an ELF file or an
# ar archive. The check is first run on a planted tree, so that it can fail. Outside a git
# checkout (a release tarball) there is nothing to check: a skip, said.
. "$(dirname "$0")/../lib.sh"
scratch repo-binaries

# built FILE...: the files that begin as an ELF file or an ar archive does
built() {
	for f in "$@"; do
		[ -f "$f" ] || continue
		case $(head -c 8 "$f" | od -An -c | tr -d ' \n') in
		177ELF*|'!<arch>'*) echo "$f" ;;
		esac
	done
}

printf '\177ELF\002\001\001\000' >"$tmp/prog"
printf '!<arch>\n' >"$tmp/lib.a"
printf '#!/bin/sh\necho ELF\n' >"$tmp/script"
[ "$(built "$tmp/prog" "$tmp/lib.a" "$tmp/script" | tr '\n' ' ')" = "$tmp/prog $tmp/lib.a " ]
ok $? "a planted ELF file and an ar archive are found, a script that prints ELF is not"

if git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top_srcdir" && git ls-files | while IFS= read -r f; do built "$f"; done) >"$tmp/tracked"
	n=$(cd "$top_srcdir" && git ls-files | wc -l)
	[ "$n" -gt 100 ] && [ ! -s "$tmp/tracked" ]
	ok $? "none of the $n files git tracks is a built program, object or archive" || sed 's/^/# /' "$tmp/tracked"
else
	ok 0 "# SKIP not a git checkout (a tarball): nothing tracked to check"
fi
done_testing
