#!/bin/sh
# experiments-reanalyse.sh: test/experiments/run --reanalyse measures nothing and judges a
# finished run's raw data again. It refuses an experiment that cannot be reanalysed and one
# without a finished run, naming why; and, where out/experiments/05-audio holds a finished run
# (after `make experiments`; .ci/run calls this script again after the quick run), a copy of
# that run reanalysed with --out gives the same checks, verdicts and figures as the run itself
# (the analysis is a function of raw/ alone), and leaves docs/ alone.
. "$(dirname "$0")/../lib.sh"
run=$top_srcdir/test/experiments/run
scratch reanalyse

"$run" --reanalyse --out "$tmp/none" 06 >"$tmp/a.out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'not ok .*06-multiplexing: nothing to reanalyse' "$tmp/a.out"
ok $? "--reanalyse 06 (no \"# reanalyse:\" line): refused, named, exit $rc" || sed 's/^/# /' "$tmp/a.out"

"$run" --reanalyse --out "$tmp/none" 05 >"$tmp/b.out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'not ok .*05-audio: nothing to reanalyse .*no finished run' "$tmp/b.out"
ok $? "--reanalyse 05 with no finished run in the folder: refused, named, exit $rc" || sed 's/^/# /' "$tmp/b.out"

src=$top_builddir/out/experiments/05-audio
if [ -s "$src/raw/measure.txt" ] && [ -s "$src/run.meta" ]; then
	mkdir -p "$tmp/o" && cp -a "$src" "$tmp/o/"
	cp "$src/run.log" "$tmp/last.log" # the last judgement: the measured run's, or a reanalysis
	before=$(cd "$top_srcdir" && git status --porcelain docs 2>/dev/null | md5sum)
	"$run" --reanalyse --out "$tmp/o" 05 >"$tmp/c.out" 2>&1
	rc=$?
	after=$(cd "$top_srcdir" && git status --porcelain docs 2>/dev/null | md5sum)
	# the checks the analysis makes, as the measured run wrote them and as reanalysed
	checks() { grep -E '^(not )?ok ' "$1" | grep -v -e 'test audio: ' -e 'the reference decode' | sed -E 's/^(not ok|ok) [0-9]* ?-? ?/\1 /'; }
	checks "$tmp/last.log" >"$tmp/m"
	checks "$tmp/o/05-audio/run.log" >"$tmp/r"
	[ $rc -eq 0 ] || grep -q '^not ok' "$tmp/m"
	ok $? "a copy of the last run of 05 reanalysed (exit $rc)" || sed 's/^/# /' "$tmp/c.out"
	[ -s "$tmp/m" ] && cmp -s "$tmp/m" "$tmp/r"
	ok $? "the same $(wc -l <"$tmp/r") checks with the same verdicts and figures as the last judgement of that run (a difference: the analysis changed since)" ||
		diff "$tmp/m" "$tmp/r" | head -20 | sed 's/^/# /'
	awk -v d="$tmp/o/05-audio/raw/" 'index($6, d) != 1 { bad++ } END { exit bad > 0 || NR == 0 }' "$tmp/o/05-audio/raw/cells.txt"
	ok $? "the copy was judged from its own files (cells.txt names streams in the copy only, not in $src)"
	grep -q '|full, reanalysed \|quick, reanalysed ' "$tmp/o/05-audio/run.meta" && [ "$before" = "$after" ]
	ok $? "run.meta says reanalysed ($(cut -d'|' -f2 "$tmp/o/05-audio/run.meta")); docs/ untouched with --out"
else
	diag "no finished run of 05 in $src (make experiments): the comparison is left to .ci/run"
fi
done_testing
