#!/bin/bash
# churn-bench.sh: a long association churn against one sctphttpd over usrsctp: httpload -c C
# with one association per request (1 KiB file), in chunks of CHUNK seconds until TOTAL
# associations were served. After each chunk: the associations so far, the chunk's rate and
# errors, the server's RSS and the load average (RSS flat over the churn: nothing kept per
# association). With SCTPHTTPD pointing at a sanitizer build (ASan, TSan) this is the crash hunt:
# the server's stderr is searched for sanitizer reports. Markdown on stdout; exit 1 if the
# server died or a sanitizer reported anything.
#   test/perf/churn-bench.sh [TOTAL]   (default 200000; C=50, CHUNK=20; USRSCTP_LIBDIR=DIR:
#   both processes on DIR/libusrsctp.so.2, such as scripts/usrsctp-release.sh's;
#   USRSCTP_TYPE=usrsctp-nt: the threadless type, bench-lib.sh)
#   test/perf/churn-bench.sh 1000000 >docs/churn.md: the figure of docs/churn.md
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/../.." && pwd)}
. "$here/bench-lib.sh"
bench_netns "$@"
TOTAL=${1:-200000}
C=${C:-50}
CHUNK=${CHUNK:-20}
bench_need "$SCTPHTTPD" "$HTTPLOAD" python3
bench_scratch churn-bench
bench_usrsctp_httpd churn-bench
field() { json_field "$1" "$2" 0; }

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "## Association churn: sctphttpd over $USRSCTP_TYPE"
echo
echo "Written by test/perf/churn-bench.sh $TOTAL on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit,"
echo "host $(uname -n), $(nproc) CPUs (shared: read the load column)."
echo
echo "httpload -c $C --num-calls 1 (one association per request, 1 KiB file) in chunks of ${CHUNK} s"
echo "until $TOTAL associations; server: ${SCTPHTTPD##*/}$([ -n "${SAN:-}" ] && echo " ($SAN)")."
echo "Load average at the start: $(bench_load). Server RSS at the start: $(rss_kb $hpid) kB."
echo "libusrsctp: $(bench_usrsctp_lib $hpid)."
echo
echo "| chunk | associations so far | associations/s | errors | server RSS kB | load |"
echo "|---|---|---|---|---|---|"
done_n=0 k=0 died=0
rss_half=
while [ "$done_n" -lt "$TOTAL" ]; do
	k=$((k + 1))
	"${usrsctp_env[@]}" "$HTTPLOAD" --server 127.0.0.1 --port 8080 --uri /1k.bin --proto "$USRSCTP_TYPE" \
	    --udp-port $((base + 1)) --udp-remote-port "$base" -c "$C" -d "$CHUNK" --num-calls 1 \
	    --timeout 10 --json >"$tmp/j" 2>>"$tmp/l.err"
	n=$(field "$tmp/j" connections)
	done_n=$((done_n + n))
	kill -0 $hpid 2>/dev/null || died=1
	rss=$(rss_kb $hpid)
	[ -z "$rss_half" ] && [ "$done_n" -ge $((TOTAL / 2)) ] && rss_half=$rss
	echo "| $k | $done_n | $(field "$tmp/j" conn_rate) | $(field "$tmp/j" errors/total) | ${rss:-gone} | $(bench_load) |"
	[ $died = 1 ] && break
	[ "$n" -gt 0 ] || break
done
echo
rss_end=$(rss_kb $hpid)
echo "Server RSS: ${rss_half:-?} kB at half the associations, ${rss_end:-gone} kB at the end. Load average at the end: $(bench_load)."
kill $hpid 2>/dev/null
wait $hpid 2>/dev/null
st=$?
bad=$(grep -c 'Sanitizer\|runtime error' "$tmp/h.err")
echo "Server exit status $st after SIGTERM; sanitizer reports: $bad."
if [ $died = 1 ] || [ "$bad" -gt 0 ]; then
	echo
	echo '```'
	grep -A30 -m3 'Sanitizer\|runtime error' "$tmp/h.err" | head -90
	echo '```'
	exit 1
fi
exit 0
