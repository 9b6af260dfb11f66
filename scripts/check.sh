#!/bin/sh
# scripts/check.sh: make check, then the summary line "N passed, N failed" from the test logs.
cd "$(dirname "$0")/.."
# Under sanitizers (SANITIZE=1, as ./run-tests passes it) the tests of scripts/sanitize-skip.txt
# are left out, each named in the output with its reason.
if [ "${SANITIZE:-0}" = 1 ]; then
	skip=$(sed -n 's/^\(test\/[^	 ]*\).*/\1/p' scripts/sanitize-skip.txt)
	tests=$(make -s print-tests | tr ' ' '\n' | grep -vxF "$skip" | tr '\n' ' ')
	make -s -j"$(nproc)" check AM_COLOR_TESTS=no TESTS="$tests" >check.out 2>&1
	rc=$?
	sed -n 's/^\(test\/[^	 ]*\)	\(.*\)/# not run again under sanitizers: \1 (\2)/p' scripts/sanitize-skip.txt
else
	make -s -j"$(nproc)" check AM_COLOR_TESTS=no >check.out 2>&1
	rc=$?
fi
cat check.out
# The failing tests' own logs, so that a CI log says why.
for trs in $(find . -name '*.trs' -newer Makefile 2>/dev/null); do
	if grep -q '^:test-result: \(FAIL\|ERROR\|XPASS\)' "$trs"; then
		echo "=== ${trs%.trs}.log ==="
		grep -v '^ok ' "${trs%.trs}.log" | tail -n 80
	fi
done
pass=$(sed -n 's/^# PASS: *//p' check.out | tail -1)
fail=$(sed -n 's/^# FAIL: *//p' check.out | tail -1)
xpass=$(sed -n 's/^# XPASS: *//p' check.out | tail -1)
err=$(sed -n 's/^# ERROR: *//p' check.out | tail -1)
skip=$(sed -n 's/^# SKIP: *//p' check.out | tail -1)
if [ -z "$pass" ]; then
	echo "check: make check printed no summary (exit $rc)" >&2
	pass=0
	fail=$(( ${fail:-0} + 1 ))
fi
fail=$(( ${fail:-0} + ${xpass:-0} + ${err:-0} ))
[ $rc -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
if [ "${skip:-0}" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
