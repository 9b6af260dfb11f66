#!/bin/bash
# readme-examples.sh: README.md's examples run exactly as written. Each block after a
# '<!-- example: NAME -->' line (a fenced sh block) is taken from README.md itself, so the test
# and the page cannot drift apart, and run by sh in a scratch folder, with the built programs on
# the PATH (as the README says to put them), in a network namespace of its own (its fixed ports
# meet no other test's). What each prints is held to exact values: the file served over
# usrsctp-nt and over TCP, httpload's totals (100 replies, all 2xx, no error), the player's
# report (116 frames played, none concealed, accounting adds up, the WAV holds 116 frames) and
# msgperf's two tables (a row per type, a figure per size). A planted mistake in a copy of
# README.md (a wrong port) fails, so the check can fail. A minute at most in all.
. "$(dirname "$0")/../lib.sh"
b=$top_builddir
need "$b/sctphttpd" "$b/httpload/httpget" "$b/httpload/httpload" "$b/rtpaudio/rtpaudio" "$b/msgperf" \
	sox lame soxi unshare ip timeout
scratch readme-examples

# blocks README: each example as NAME<TAB>one line per command (the fence dropped), to $tmp/ex/NAME.sh
blocks() {
	rm -rf "$tmp/ex"
	mkdir -p "$tmp/ex"
	awk -v d="$tmp/ex" '
		/^<!-- example: [a-z0-9-]+ -->$/ { name = $3; want = 1; next }
		want && /^```sh$/ { f = d "/" name ".sh"; inb = 1; want = 0; printf "" >f; next }
		inb && /^```$/ { inb = 0; close(f); next }
		inb { print >>f }
	' "$1"
}

# run NAME: the example in a scratch folder, in a namespace of its own, 60 s at most
run() {
	local w=$tmp/run/$1
	rm -rf "$w"
	mkdir -p "$w"
	(cd "$w" && PATH=$b:$b/httpload:$b/rtpaudio:$PATH timeout 60 unshare -n \
	    sh -c 'ip link set lo up && exec sh "$0"' "$tmp/ex/$1.sh" >out 2>err)
	echo $? >"$w/rc"
}

# errs NAME: the start of what the example printed on stderr, on one line
errs() { head -c 300 "$tmp/run/$1/err" | tr '\n' ' '; }

blocks "$top_srcdir/README.md"
names=$(cd "$tmp/ex" && ls | sed 's/\.sh$//' | tr '\n' ' ')
[ "$names" = "httpload msgperf rtpaudio sctphttpd " ]
ok $? "README.md has the four examples, one per program (found: $names)"

t0=$(date +%s)
for n in sctphttpd httpload rtpaudio msgperf; do
	run $n
done
d=$tmp/run
[ "$(cat $d/sctphttpd/rc)" = 0 ] && [ "$(cat $d/sctphttpd/out)" = "hello over SCTP
hello over SCTP" ]
ok $? "sctphttpd: the file over usrsctp-nt and over TCP, as served (exit $(cat $d/sctphttpd/rc): $(tr '\n' '|' <$d/sctphttpd/out) $(errs sctphttpd))"

grep -q '^Total: connections 5 requests 100 replies 100 ' $d/httpload/out &&
	grep -q '^Reply status: 1xx=0 2xx=100 3xx=0 4xx=0 5xx=0$' $d/httpload/out &&
	grep -q '^Errors: total 0 ' $d/httpload/out && [ "$(cat $d/httpload/rc)" = 0 ]
ok $? "httpload: 5 associations x 20 requests over 10 streams, 100 replies, all 2xx, no error (exit $(cat $d/httpload/rc)): $(grep -E '^(Total|Reply status|Errors: total)' $d/httpload/out | tr '\n' '|') $(errs httpload)"

frames=$(soxi -s $d/rtpaudio/out.wav 2>/dev/null)
grep -q '^frames: 116 played, 0 concealed' $d/rtpaudio/out &&
	grep -q '^accounting: 58 received = 58 played .*(adds up)$' $d/rtpaudio/out &&
	grep -q '^verdict: satisfactory$' $d/rtpaudio/out && [ "$frames" = $((116 * 1152)) ] &&
	[ "$(cat $d/rtpaudio/rc)" = 0 ]
ok $? "rtpaudio: 116 frames played, none concealed, the accounting adds up, out.wav holds $frames samples (116 x 1152) (exit $(cat $d/rtpaudio/rc)): $(grep -E '^(frames|verdict)' $d/rtpaudio/out | tr '\n' '|') $(errs rtpaudio)"

rows=$(grep -cE '^\| (tcp|tcpm|usrsctp-nt) \| [0-9.]+ \| [0-9.]+ \|$' $d/msgperf/out)
grep -q '^| protocol | 100 | 1000 |$' $d/msgperf/out && [ "$rows" = 6 ] && [ "$(cat $d/msgperf/rc)" = 0 ]
ok $? "msgperf: throughput and latency, a row per type (6 rows), a figure per size (exit $(cat $d/msgperf/rc)): $(grep '^|' $d/msgperf/out | tr '\n' ' ') $(errs msgperf)"
diag "the four examples took $(($(date +%s) - t0)) s"

# the check can fail: a copy of README.md whose client asks the wrong port gets nothing
sed '/^<!-- example: sctphttpd -->$/,/^```$/s|http://127.0.0.1:8081/hello.txt|http://127.0.0.1:8082/hello.txt|' \
	"$top_srcdir/README.md" >"$tmp/README.md"
blocks "$tmp/README.md"
run sctphttpd
[ "$(cat $d/sctphttpd/out)" != "hello over SCTP
hello over SCTP" ]
ok $? "a planted mistake (the usrsctp-nt URL on port 8082) is seen: $(tr '\n' '|' <$d/sctphttpd/out)"
done_testing
