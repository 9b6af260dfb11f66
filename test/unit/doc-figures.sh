#!/bin/sh
# doc-figures.sh: the front page and the guides (docs/README.md lists them) show no figure
# typed by hand. README.md's summary table is what scripts/readme-summary.py makes from
# docs/results.md and docs/benchmarks.md (a figure changed in it fails, a planted one in a copy
# of the results comes through); every other figure of README.md and the guides is in a
# generated block, in a code block that shows its command ("$ ..."), quoted from the file a
# '<!-- figures: from FILE -->' line names (and found there), or on the allow-list with a
# reason (test/unit/doc_figures.py, test/unit/doc-figures.allow): a number typed into README.md
# by hand fails. Also: README.md has at most 250 lines, and every relative link of the manual
# leads to a file.
. "$(dirname "$0")/../lib.sh"
scratch doc-figures
top=$top_srcdir
gen=$top/scripts/readme-summary.py
chk=$top/test/unit/doc_figures.py
allow=$top/test/unit/doc-figures.allow
# the pages checked: the front page and the guides; not the generated files (their generators
# write every figure), nor design.md (the contributors' design notes)
pages="README.md docs/README.md docs/demo.md docs/sctphttpd.md docs/httpload.md docs/rtpaudio.md
docs/msgperf.md docs/transports.md docs/patches.md docs/lab.md docs/testing.md docs/https.md
docs/experiments.md"

n=$(wc -l <"$top/README.md")
[ "$n" -le 250 ]
ok $? "README.md has at most 250 lines ($n)"

python3 "$gen" --check >"$tmp/diff" 2>&1
ok $? "README.md's summary table is what scripts/readme-summary.py makes from docs/results.md and docs/benchmarks.md" ||
    sed 's/^/# /' "$tmp/diff"

# a figure changed by hand in the summary block fails --check
awk '/^<!-- scripts\/readme-summary.py: summary -->$/ { b = 1 } b && /\| [0-9.]+ \(/ && !done { sub(/\| [0-9.]+ \(/, "| 9.99 ("); done = 1 } { print }' \
    "$top/README.md" >"$tmp/README.md"
! cmp -s "$tmp/README.md" "$top/README.md" && ! python3 "$gen" --check --readme "$tmp/README.md" >/dev/null 2>&1
ok $? "a figure changed by hand in README.md's summary block fails --check"

# the generator reads the files: a planted usrsctp-nt ratio (7.77) and experiment 03's checks
# (41 passed, 2 failed) in copies come out in the table
sed 's/^| 1000 | \([^|]*\)| \([^|]*\)| [0-9.]* (/| 1000 | \1| \2| 7.77 (/' "$top/docs/benchmarks.md" >"$tmp/bench.md"
# (the row with or without its commit column: a quick run of the experiments, as CI makes one
# before the sanitizer suite, writes the row with the commit it ran at)
sed 's/^| 03-failover | \(.*\) | [0-9]* | [0-9]* |\( [^|]* |\)\{0,1\}$/| 03-failover | \1 | 41 | 2 |\2/' "$top/docs/results.md" >"$tmp/results.md"
cp "$top/README.md" "$tmp/README2.md"
python3 "$gen" --results "$tmp/results.md" --benchmarks "$tmp/bench.md" --readme "$tmp/README2.md" 2>"$tmp/gen.err"
grep -q '^| usrsctp-nt / usrsctp (threads), raw one way, 1000-byte messages | 7.77 (' "$tmp/README2.md" &&
    grep -q '^| 03-failover: .* | 41 checks passed, 2 failed (' "$tmp/README2.md"
ok $? "planted figures in copies of the two files come out in the table (7.77; 41 passed, 2 failed)" ||
    { sed 's/^/# /' "$tmp/gen.err"; grep '^| 03\|1000-byte' "$tmp/README2.md" | sed 's/^/# /'; }

# a file without what the table needs: exit 2, named
sed '/^## usrsctp$/,/^## sctphttpd/d' "$top/docs/benchmarks.md" >"$tmp/nobench.md"
python3 "$gen" --benchmarks "$tmp/nobench.md" --readme "$tmp/README2.md" --check >/dev/null 2>"$tmp/nb.err"
rc=$?
[ $rc = 2 ] && grep -q 'usrsctp' "$tmp/nb.err"
ok $? "benchmarks without their usrsctp section: exit 2 (was $rc), named: $(cat "$tmp/nb.err")"

cd "$top" || exit 1
# shellcheck disable=SC2086
python3 "$chk" --allow "$allow" $pages >"$tmp/figs" 2>&1
ok $? "every figure of README.md and the guides is generated, shown with its command, quoted from its file or allowed with a reason ($(grep -c '	' "$allow") allowed, all in the guides)" ||
    sed 's/^/# /' "$tmp/figs"
! grep -q '^README.md	' "$allow"
ok $? "the allow-list has nothing for README.md"

# a number typed into README.md by hand fails, named by its line; in prose, in a table, in a
# code block without its command; a quoted one changed fails too
plant() { # plant AFTER LINE: a copy of README.md with LINE after the first line starting AFTER
	awk -v p="$1" -v l="$2" '{ print } index($0, p) == 1 && !done { print l; done = 1 }' \
	    "$top/README.md" >"$tmp/README.md"
	python3 "$chk" --allow "$allow" --top "$top" --as README.md "$tmp/README.md" 2>&1
}
out=$(plant '## What it found' 'SCTP with 100 streams fetched the page 1.7x faster than HTTP/3.')
[ $? = 1 ] && echo "$out" | grep -q ': 1.7x: typed by hand'
ok $? "a ratio typed into README.md's prose fails: $out"
out=$(plant '## What it found' 'On our host it served 41234 requests a second, 12 ms at p99.')
[ $? = 1 ] && echo "$out" | grep -q ': 12 ms: typed by hand'
ok $? "a latency typed into README.md's prose fails: $out"
out=$(plant '## Quick start' '| transport | replies/s |
|---|---|
| SCTP, 100 streams | 4242 |')
[ $? = 1 ] && echo "$out" | grep -q ': 4242: typed by hand'
ok $? "a bare number in a table's result column fails: $out"
out=$(plant '| The paper' '| a new claim | `true` | 80 s | 57 s |')
[ $? = 1 ] && echo "$out" | grep -q ': 57 s: not found in the quoted' && ! echo "$out" | grep -q ': 80 s'
ok $? "in the quoted claims table, a time not in the files it names fails (one that is there passes): $out"
out=$(plant '## Quick start' '```
throughput 123456 kbit/s
```')
[ $? = 1 ] && echo "$out" | grep -q ': 123456 kbit/s: in a code block with no'
ok $? "a figure in a code block with no command fails: $out"
out=$(plant '## Quick start' '```
$ msgperf -t tcp -s 100 -d 1
throughput 123456 kbit/s
```')
[ $? = 0 ]
ok $? "the same after the command that printed it passes${out:+: $out}"

# the allow-list is read strictly: a line without a reason is refused
printf 'README.md\t1.7x\t\n' >"$tmp/bad.allow"
python3 "$chk" --allow "$tmp/bad.allow" README.md >/dev/null 2>"$tmp/ba.err"
rc=$?
[ $rc = 2 ] && grep -q 'PAGE<TAB>FIGURE<TAB>REASON' "$tmp/ba.err"
ok $? "an allow-list line without a reason: exit 2 (was $rc)"

# every relative link of the manual leads to a file
for p in $pages; do
	d=$(dirname "$p")
	grep -o '](\([^)#]*\))' "$p" | sed 's/^](//; s/)$//' | grep -v '^[a-z]*:' | while read -r l; do
		[ -z "$l" ] || [ -e "$d/$l" ] || echo "$p: $l"
	done
done >"$tmp/links"
[ ! -s "$tmp/links" ]
ok $? "every relative link of README.md and the guides leads to a file" || sed 's/^/# /' "$tmp/links"

# every guide is in the index and in this check
for f in docs/*.md; do
	case $f in docs/results.md|docs/benchmarks.md|docs/reliability.md|docs/churn*.md|docs/usrsctp-costs.md|docs/design.md|docs/README.md) continue ;; esac
	grep -q "($(basename "$f"))" docs/README.md && echo " $pages " | tr '\n' ' ' | grep -q " $f " || echo "$f"
done >"$tmp/unlisted"
[ ! -s "$tmp/unlisted" ]
ok $? "every guide in docs/ is in docs/README.md and checked here" || sed 's/^/# /' "$tmp/unlisted"
done_testing
