#!/bin/sh
# exp06-reanalyse.sh: `test/experiments/run --reanalyse 06` makes experiment 06's section again
# from a run's raw data alone (what a full run commits to docs/results/06/: the CSVs,
# fidelity.txt, bound.txt, params.txt, page.sizes, raw/ and run.meta), without root, a router
# or a measurement: on a copy of a real quick run of lab v2 (test/experiments/06-multiplexing/
# testrun/, two cells, six rows), report.md comes out byte for byte as committed there, the
# router's counters judged again by this fidelity.py (a planted drop count fails), run.meta says reanalysed, docs/ untouched (--out); a planted
# change in the raw data shows in the section (it is read, not copied). TAP.
. "$(dirname "$0")/../lib.sh"
run=$top_srcdir/test/experiments/run
fix=$top_srcdir/test/experiments/06-multiplexing/testrun
scratch exp06-reanalyse
mkdir -p "$tmp/o/06-multiplexing"
cp -a "$fix/." "$tmp/o/06-multiplexing/"
cp "$fix/report.md" "$tmp/want.md"
rm "$tmp/o/06-multiplexing/report.md"
before=$(cd "$top_srcdir" && git status --porcelain docs 2>/dev/null | md5sum)
"$run" --reanalyse --out "$tmp/o" 06 >"$tmp/a.out" 2>&1
rc=$?
after=$(cd "$top_srcdir" && git status --porcelain docs 2>/dev/null | md5sum)
[ $rc = 0 ] && grep -q '^ok .*06-multiplexing: reanalysed ' "$tmp/a.out"
ok $? "--reanalyse 06 on a copy of a quick run: exit $rc" || sed 's/^/# /' "$tmp/a.out" | tail -20
cmp -s "$tmp/want.md" "$tmp/o/06-multiplexing/report.md"
ok $? "report.md byte for byte as committed with the run ($(wc -l <"$tmp/want.md") lines)" ||
	diff "$tmp/want.md" "$tmp/o/06-multiplexing/report.md" | head -20 | sed 's/^/# /'
n=$(grep -c '^ok .*06-multiplexing: 10mbit:.*loss: [0-9]* of [0-9]* packets' "$tmp/a.out")
[ "$n" = 4 ]
ok $? "the router's loss checks judged again: 4 (2 cells x 2 directions), got $n"
grep -q '^06-multiplexing|quick, reanalysed [0-9-]* [0-9:]* UTC|native|' "$tmp/o/06-multiplexing/run.meta" && [ "$before" = "$after" ]
ok $? "run.meta says reanalysed ($(cut -d'|' -f2 "$tmp/o/06-multiplexing/run.meta")), docs/ untouched"

# a planted time (h2c's run at 10 Mbit/s 10 ms: 1.234 s) in samples.csv shows in the section
awk -F, 'BEGIN { OFS = "," } $1 == 10 && $2 == 10 && $5 == "h2c" { $10 = "1.234" } { print }' \
	"$fix/samples.csv" >"$tmp/o/06-multiplexing/samples.csv"
"$run" --reanalyse --out "$tmp/o" 06 >"$tmp/b.out" 2>&1
grep -q '^| HTTP/2 h2c (nginx) | 1.234 (1.234-1.234) \[1.234-1.234\] |' "$tmp/o/06-multiplexing/report.md"
ok $? "a planted h2c time (1.234 s) in samples.csv: in the section's table" ||
	grep '^| HTTP/2 h2c (nginx)' "$tmp/o/06-multiplexing/report.md" | sed 's/^/# /'

# the router's counters are judged again, not copied: 100 drops of 6657 at 1 % planted into the
# first cell's closing snapshot (netem's sent count lowered to match) fail its c2s loss check
# (interval 43..92 at 99.75 %, the run's 4 loss checks), mark the cell and fail the reanalysis
cp -a "$fix/." "$tmp/o/06-multiplexing/"
sed -i 's/^c2s \(.*\) netem_sent=6598 netem_dropped=59 /c2s \1 netem_sent=6557 netem_dropped=100 /' \
	"$tmp/o/06-multiplexing/raw/10mbit_10_1.stats1"
"$run" --reanalyse --out "$tmp/o" 06 >"$tmp/c.out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q '^not ok .*10mbit:10:1: c2s loss: 100 of 6657 packets .*99.75 % (1 - 1 %/4: the run.s 4 loss checks) interval 43\.\.92$' "$tmp/c.out" &&
	grep -qx '10mbit:10:1 fidelity-failed' "$tmp/o/06-multiplexing/bound.txt" &&
	[ "$(grep -c fidelity-failed "$tmp/o/06-multiplexing/bound.txt")" = 1 ]
ok $? "a planted drop count in the raw counters: judged again, the c2s check fails (exit $rc), its cell alone marked fidelity-failed" ||
	{ grep 'c2s loss\|not ok' "$tmp/c.out" | sed 's/^/# /'; sed 's/^/# bound: /' "$tmp/o/06-multiplexing/bound.txt"; }

# a closing snapshot cut short (a disk full, a copy interrupted): its cell fails, said, where the
# error used to vanish among the TAP lines and the reanalysis passed
cp -a "$fix/." "$tmp/o/06-multiplexing/"
head -c 50 "$fix/raw/10mbit_10_1.stats1" >"$tmp/o/06-multiplexing/raw/10mbit_10_1.stats1"
"$run" --reanalyse --out "$tmp/o" 06 >"$tmp/e.out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "^not ok .*10mbit:10:1: the router's counters could not be judged: fidelity.py: .*10mbit_10_1.stats1: c2s: no netem_sent" "$tmp/e.out" &&
	grep -qx '10mbit:10:1 fidelity-failed' "$tmp/o/06-multiplexing/bound.txt"
ok $? "a snapshot cut short: its cell's check fails, named, the reanalysis fails (exit $rc)" || grep 'not ok' "$tmp/e.out" | head -3 | sed 's/^/# /'

# the committed full run (docs/results/06/, where there is one): reanalysed from those files
# alone, its section is docs/results.md's 06 section byte for byte (the committed words are
# what the committed data and this analysis give)
c=$top_srcdir/docs/results/06
if [ -s "$c/run.meta" ]; then
	rm -rf "$tmp/c" && mkdir -p "$tmp/c/06-multiplexing" && cp -a "$c/." "$tmp/c/06-multiplexing/"
	"$run" --reanalyse --out "$tmp/c" 06 >"$tmp/d.out" 2>&1
	rc=$?
	awk '/^## 06\. / { on = 1 } on && /^## [0-9][0-9]\. / && !/^## 06\. / { exit } on' "$top_srcdir/docs/results.md" |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/c.want"
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp/c/06-multiplexing/report.md" >"$tmp/c.got"
	cmp -s "$tmp/c.want" "$tmp/c.got"
	ok $? "the committed run in docs/results/06/, reanalysed (exit $rc): docs/results.md's 06 section byte for byte ($(wc -l <"$tmp/c.want") lines)" ||
		diff "$tmp/c.want" "$tmp/c.got" | head -20 | sed 's/^/# /'
else
	diag "no committed full run in docs/results/06/: nothing to compare"
fi
done_testing
