#!/bin/sh
# exp06-docs.sh: a quick run of experiment 06 (one or two cells, one run a row: lab v2's CI
# mode) does not replace 06's section and row of docs/results.md; a full run does (the
# "# docs: full" line of 06-multiplexing.sh, read by test/experiments/run). On a scratch copy
# of run, the experiments' scripts and docs/results.md, with made-up runs in its out/, through
# `run --report` (no measurement). The other experiments' sections stay as they were. TAP.
. "$(dirname "$0")/../lib.sh"
scratch exp06-docs
r=$tmp/repo
mkdir -p "$r/test/experiments" "$r/docs" "$r/out/experiments/06-multiplexing"
cp "$top_srcdir/test/experiments/run" "$r/test/experiments/"
cp "$top_srcdir"/test/experiments/[0-9][0-9]-*.sh "$r/test/experiments/"
cp "$top_srcdir/test/lib.sh" "$r/test/"
cp "$top_srcdir/docs/results.md" "$r/docs/"
o=$r/out/experiments/06-multiplexing
# sect NN FILE: the "## NN." section
sect() { awk -v h="^## $1\\\\. " '$0 ~ h { on = 1; print; next } on && /^## [0-9][0-9]\. / { exit } on' "$2"; }
row06() { grep '^| 06-multiplexing |' "$1"; }
sect 06 "$r/docs/results.md" >"$tmp/s06"
sect 04 "$r/docs/results.md" >"$tmp/s04"
# the committed row as run keeps it: a row from before the commit column gets "?" there
row06 "$r/docs/results.md" | awk -F'|' 'NF == 9 { print $0 " ? |"; next } { print }' >"$tmp/r06"

echo "06-multiplexing|quick|native|2026-12-07 07:00 UTC|500|21|0" >"$o/run.meta"
printf '## 06. Multiplexing: a planted quick section\n\nQUICK-PLANT\n' >"$o/report.md"
(cd "$r" && env -u top_srcdir -u top_builddir test/experiments/run --report) >"$tmp/a.out" 2>&1
sect 06 "$r/docs/results.md" | cmp -s - "$tmp/s06" && row06 "$r/docs/results.md" | cmp -s - "$tmp/r06" &&
	! grep -q 'QUICK-PLANT' "$r/docs/results.md"
ok $? "a quick run of 06: its section ($(wc -l <"$tmp/s06") lines) and row ($(cut -c1-40 "$tmp/r06")...) kept as committed" ||
	{ sed 's/^/# /' "$tmp/a.out" | tail -5; row06 "$r/docs/results.md" | sed 's/^/# /'; }

echo "06-multiplexing|full|native|2026-12-07 10:00 UTC|9000|60|0" >"$o/run.meta"
echo "git commit: 0123456789abcdef0123456789abcdef01234567" >"$o/params.txt"
printf '## 06. Multiplexing: a planted full section\n\nFULL-PLANT\n' >"$o/report.md"
(cd "$r" && env -u top_srcdir -u top_builddir test/experiments/run --report) >"$tmp/b.out" 2>&1
grep -q '^FULL-PLANT$' "$r/docs/results.md" && [ "$(row06 "$r/docs/results.md")" = "| 06-multiplexing | full | native | 2026-12-07 10:00 UTC | 9000 s | 60 | 0 | 0123456789 |" ] &&
	! sect 06 "$r/docs/results.md" | grep -q 'SCTP streams against HTTP/2 and HTTP/3$'
ok $? "a full run of 06: its section and row (with the commit from its params.txt, 10 digits) replace the committed ones" ||
	{ sed 's/^/# /' "$tmp/b.out" | tail -5; row06 "$r/docs/results.md" | sed 's/^/# /'; }
sect 04 "$r/docs/results.md" | cmp -s - "$tmp/s04"
ok $? "experiment 04's section, not run here, kept as it was ($(wc -l <"$tmp/s04") lines)"

# lab v2's params.txt names its commit as "git: SHORT (local changes)": the row takes it too
echo "git: abcdef1 (local changes)" >"$o/params.txt"
(cd "$r" && env -u top_srcdir -u top_builddir test/experiments/run --report) >"$tmp/c.out" 2>&1
[ "$(row06 "$r/docs/results.md")" = "| 06-multiplexing | full | native | 2026-12-07 10:00 UTC | 9000 s | 60 | 0 | abcdef1 |" ]
ok $? "lab v2's 'git: abcdef1 (local changes)': the row's commit is abcdef1" || row06 "$r/docs/results.md" | sed 's/^/# /'
done_testing
