#!/bin/bash
# test/fuzz/run.sh: run the libFuzzer harnesses, FUZZ_JOBS at a time, FUZZ_SECONDS each (default 60),
# from the seed corpora (new inputs go to a scratch copy, not to the checked-in corpus).
# Usage: test/fuzz/run.sh [HARNESS...] (default all). Prints one line per harness: execs,
# execs/s, coverage (edges), features, corpus size, crashes and how many ran at once (jobs);
# exits 1 on any crash.
# FUZZ_RESULTS=FILE also writes those lines there (replacing those of the harnesses run,
# keeping the others'); FUZZ_ARTIFACTS=DIR keeps crash inputs there
# (default: a directory under /tmp, named in the output); FUZZ_JOBS (default 2) at once.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_builddir:=$(cd "$here/../.." && pwd)}"
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-2}
bin=$top_builddir/test/fuzz/bin
names=$("$here/build.sh" "$bin") || { echo "fuzz: build failed" >&2; exit 1; }
[ $# -gt 0 ] && names="$*"
work=$(mktemp -d /tmp/fuzz.XXXXXX)
art=${FUZZ_ARTIFACTS:-$work/crashes}
mkdir -p "$art"

one() { # one NAME: a campaign; its summary line on stdout
	local n=$1 log=$work/$1.log rc cov ft corp execs eps crashes
	mkdir -p "$work/corpus-$n"
	"$bin/fuzz_$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix="$art/$n-" "$work/corpus-$n" "$here/corpus/$n" >"$log" 2>&1
	rc=$?
	cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n1 | cut -d' ' -f2)
	ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -n1 | cut -d' ' -f2)
	corp=$(grep -Eo 'corp: [0-9]+' "$log" | tail -n1 | cut -d' ' -f2)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	crashes=$(find "$art" -name "$n-*" | wc -l)
	[ $rc -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1 # died without an artifact
	echo "fuzz_$n seconds=$secs execs=${execs:-0} execs_per_s=${eps:-0} cov=${cov:-0}" \
	    "ft=${ft:-0} corpus=${corp:-0} crashes=$crashes jobs=$jobs"
	if [ "$crashes" -ne 0 ]; then
		grep -E 'ERROR|SUMMARY|check failed|#[0-9] ' "$log" | head -n 20 | sed 's/^/#   /'
	fi
}
export -f one
export bin here work art secs jobs
echo "fuzz: $secs s per harness, $jobs at once; logs and crash inputs under $work" >&2
printf '%s\n' $names | xargs -P "$jobs" -I{} bash -c 'one {}' >"$work/summary"
cat "$work/summary"
if [ -n "${FUZZ_RESULTS:-}" ]; then
	# the lines of the harnesses run now replace theirs; the others' stay (a campaign may
	# be run a few harnesses at a time)
	pat=$(printf '%s\n' $names | sed 's/^/^fuzz_/; s/$/ /' | paste -sd'|')
	{
		[ -f "$FUZZ_RESULTS" ] && grep -Ev "$pat" "$FUZZ_RESULTS"
		grep '^fuzz_' "$work/summary"
	} >"$work/results" && cat "$work/results" >"$FUZZ_RESULTS"
fi
if grep -q 'crashes=[1-9]' "$work/summary"; then
	echo "fuzz: crashes: inputs in $art" >&2
	exit 1
fi
[ -n "${FUZZ_KEEP:-}" ] || [ -n "${FUZZ_ARTIFACTS:-}" ] || rm -rf "$work"
exit 0
