#!/bin/bash
# test/fuzz/fuzz.sh: the libFuzzer harnesses replay their seed corpora and regression inputs
# (clean), then each fuzzes for FUZZ_SECONDS (default 4) without a crash (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bin=$top_builddir/test/fuzz/bin

if ! command -v "${FUZZ_CC:-clang}" >/dev/null; then
	ok 1 "clang missing (apt-get install clang libclang-rt-dev): cannot build the harnesses"
	done_testing
	exit
fi
names=$("$here/build.sh" "$bin" 2>"$bin.err")
ok $? "the harnesses build with clang -fsanitize=fuzzer,address,undefined"
[ -s "$bin.err" ] && sed 's/^/# /' "$bin.err" | head -n 20
rm -f "$bin.err"

for n in $names; do
	files=$(ls "$here/corpus/$n" | wc -l)
	out=$("$bin/fuzz_$n" "$here/corpus/$n"/* 2>&1)
	rc=$?
	ran=$(printf '%s\n' "$out" | grep -c '^Executed ')
	[ $rc -eq 0 ] && [ "$ran" -eq "$files" ] && [ "$files" -gt 0 ]
	ok $? "fuzz_$n replays its corpus and regression inputs ($ran of $files files) cleanly"
	[ $rc -eq 0 ] || printf '%s\n' "$out" | grep -E 'ERROR|SUMMARY|check failed' | sed 's/^/# /'
done

out=$(FUZZ_SECONDS=${FUZZ_SECONDS:-4} "$here/run.sh" 2>&1)
rc=$?
for n in $names; do
	line=$(printf '%s\n' "$out" | grep "^fuzz_$n ")
	printf '%s\n' "$line" | grep -Eq ' crashes=0( |$)' && ! printf '%s\n' "$line" | grep -q 'execs=0 '
	ok $? "fuzz_$n: ${line#fuzz_$n }"
done
[ $rc -eq 0 ] || printf '%s\n' "$out" | grep -v '^fuzz_' | sed 's/^/# /'
done_testing
