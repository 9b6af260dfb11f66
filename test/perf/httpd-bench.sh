#!/bin/bash
# httpd-bench.sh: sctphttpd against nginx over TCP on the loopback, one worker each, the same
# files, keep-alive: wrk -t1 -c50 -dSECONDS on a 1 KiB and a 100 KiB file. Not a test: prints
# requests per second and the ratio (sctphttpd / nginx; the goal is >= 1.0).
# Then HTTP over usrsctp: httpget fetching a 10 MiB file from sctphttpd (RUNS runs, bytes/s
# each, timed by httpget --json from the first request byte to the last body byte), against
# msgperf's raw usrsctp one-way rate with 16384-byte messages (the server's message size) for
# SECONDS; the ratio is the median HTTP run over the raw rate (the goal is >= 0.8); and the same
# GETs with the mmap cache off (--mmap-cache 0: pread per message), the cache's gain as a ratio.
# (test/perf/benchmarks.sh, make bench, measures these figures with their spread.)
# Then --workers: sctphttpd with 1 and with 2 workers, wrk -t2 -c50 on the 1 KiB file, and nginx
# with 2 worker processes in the same run; the gain is 2 workers over 1 (on 2 cores, which wrk
# shares).
#   test/perf/httpd-bench.sh [SECONDS]     (needs wrk and nginx: apt-get install wrk nginx-light)
#   HTTPD_BENCH=tcp|usrsctp|workers|all (default all)  RUNS=N (default 5)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$here/../..}
H=${SCTPHTTPD:-$top/sctphttpd}
D=${1:-5}
G=${HTTPGET:-$top/httpload/httpget}
MSGPERF=${MSGPERF:-$top/msgperf}
WHAT=${HTTPD_BENCH:-all}
RUNS=${RUNS:-5}
. "$here/bench-lib.sh" # bench_nginx_conf
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

need="$H"
[ "$WHAT" = usrsctp ] || need="$need wrk $NGINX"
[ "$WHAT" = tcp ] || [ "$WHAT" = workers ] || need="$need $G $MSGPERF"
for t in $need; do
	command -v "$t" >/dev/null || { echo "httpd-bench: $t missing" >&2; exit 1; }
done
scratch httpd-bench # test/lib.sh, through bench-lib.sh: the servers in $pids go at exit
chmod 755 "$tmp"
hpid= npid= upid=
mkdir "$tmp/doc" "$tmp/nginx"
head -c 1024 /dev/urandom >"$tmp/doc/1k.bin"
head -c 102400 /dev/urandom >"$tmp/doc/100k.bin"
head -c 10485760 /dev/urandom >"$tmp/doc/10m.bin"
chmod -R a+rX "$tmp/doc"

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
udp_free() {
	! ss -Huan "sport = :$1" 2>/dev/null | grep -q .
}

bench_tcp() {
	hp=$(free_port)
	np=$(free_port)

	"$H" -p "$hp" -h 127.0.0.1 -d "$tmp/doc" 2>"$tmp/h.err" &
	hpid=$!
	pids="$pids $hpid"
	bench_nginx_conf 1 "$np"
	"$NGINX" -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" 2>"$tmp/n.err" &
	npid=$!
	pids="$pids $npid"
	sleep 0.5
	for u in "http://127.0.0.1:$hp/1k.bin" "http://127.0.0.1:$np/1k.bin"; do
		curl -sf -o /dev/null "$u" || { echo "httpd-bench: $u does not answer" >&2; cat "$tmp"/*.err >&2; exit 1; }
	done

	printf '%-10s %14s %14s %7s\n' file sctphttpd nginx ratio
	for f in 1k.bin 100k.bin; do
		a=$(rps "http://127.0.0.1:$hp/$f")
		b=$(rps "http://127.0.0.1:$np/$f")
		printf '%-10s %14s %14s %7s\n' "$f" "$a" "$b" "$(awk "BEGIN { if ($b > 0) printf \"%.2f\", $a / $b }")"
	done
	kill $hpid $npid 2>/dev/null
	wait $hpid $npid 2>/dev/null
	hpid= npid=
}

rps() {
	local out
	out=$(wrk -t${WRK_T:-1} -c50 -d"$D" "$1" 2>&1)
	if echo "$out" | grep -q -e 'Socket errors' -e 'Non-2xx'; then
		echo "httpd-bench: errors with $1:" >&2
		echo "$out" >&2
	fi
	echo "$out" | sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p'
}

bench_workers() {
	local hp np a1 a2 b2
	hp=$(free_port)
	np=$(free_port)
	"$H" -p "$hp" -h 127.0.0.1 -d "$tmp/doc" 2>"$tmp/h1.err" &
	hpid=$!
	pids="$pids $hpid"
	sleep 0.5
	a1=$(WRK_T=2 rps "http://127.0.0.1:$hp/1k.bin")
	kill $hpid
	wait $hpid 2>/dev/null
	"$H" -p "$hp" -h 127.0.0.1 -d "$tmp/doc" --workers 2 2>"$tmp/h2.err" &
	hpid=$!
	pids="$pids $hpid"
	sleep 0.5
	a2=$(WRK_T=2 rps "http://127.0.0.1:$hp/1k.bin")
	kill $hpid
	wait $hpid 2>/dev/null
	hpid=
	bench_nginx_conf 2 "$np"
	"$NGINX" -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" 2>"$tmp/n2.err" &
	npid=$!
	pids="$pids $npid"
	sleep 0.5
	b2=$(WRK_T=2 rps "http://127.0.0.1:$np/1k.bin")
	kill $npid
	wait $npid 2>/dev/null
	npid=
	echo
	echo "--workers on $(nproc) cores, 1 KiB file, wrk -t2 -c50 ${D}s (req/s):"
	printf '%-22s %14s %14s %14s %8s %8s\n' "" "1 worker" "2 workers" "nginx 2 w." gain "vs nginx"
	printf '%-22s %14s %14s %14s %8s %8s\n' sctphttpd "$a1" "$a2" "$b2" \
	    "$(awk "BEGIN { if ($a1 > 0) printf \"%.2f\", $a2 / $a1 }")" \
	    "$(awk "BEGIN { if ($b2 > 0) printf \"%.2f\", $a2 / $b2 }")"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

bench_usrsctp() {
	local base try su cu tu tcu port i bps all med ts
	for try in $(seq 1 30); do
		base=$((30000 + (RANDOM % 1000) * 8))
		udp_free $base && udp_free $((base + 1)) && udp_free $((base + 2)) &&
		    udp_free $((base + 3)) && break
	done
	su=$base cu=$((base + 1)) tu=$((base + 2)) tcu=$((base + 3)) port=8080
	for mm in on off; do
		[ $mm = on ] && mopt= || mopt="--mmap-cache 0"
		# shellcheck disable=SC2086
		"$H" -L usrsctp:127.0.0.1:$port --udp-port $su --udp-remote-port $cu -d "$tmp/doc" \
		    $mopt 2>"$tmp/u.err" &
		upid=$!
		pids="$pids $upid"
		sleep 0.5
		all=
		for i in $(seq 1 "$RUNS"); do
			if ! "$G" --json -s --proto usrsctp --udp-port $cu --udp-remote-port $su \
			    -o "$tmp/got" http://127.0.0.1:$port/10m.bin 2>"$tmp/g.json" ||
			    ! cmp -s "$tmp/got" "$tmp/doc/10m.bin"; then
				echo "httpd-bench: httpget over usrsctp failed" >&2
				return 1
			fi
			bps=$(sed -n 's/.*"bytes_per_s": \([0-9]*\).*/\1/p' "$tmp/g.json")
			all="$all $bps"
		done
		kill $upid 2>/dev/null
		wait $upid 2>/dev/null
		upid=
		if [ $mm = on ]; then
			med=$(echo $all | tr ' ' '\n' | median)
			allon=$all
		else
			medoff=$(echo $all | tr ' ' '\n' | median)
			alloff=$all
		fi
	done
	# the raw usrsctp rate, bytes/s (msgperf reports kbit/s)
	ts=$("$MSGPERF" -q --csv -t usrsctp -s 16384 -T oneway -d "$D" --udp-port $tu |
	    awk -F, '$1 == "oneway" { printf "%.0f\n", $4 * 1000 / 8 }')
	echo
	echo "HTTP over usrsctp, 10 MiB file (bytes/s; httpget, $RUNS runs):$allon"
	echo "  the same with --mmap-cache 0:$alloff"
	printf '%-34s %14s %14s %7s\n' "usrsctp one way (bytes/s)" "HTTP median" "msgperf 16384" ratio
	printf '%-34s %14s %14s %7s\n' "10 MiB GET vs raw usrsctp ${D}s" "$med" "${ts:-fail}" \
	    "$(awk "BEGIN { if (\"${ts:-0}\" + 0 > 0) printf \"%.2f\", $med / ${ts:-1}; else print \"n/a\" }")"
	printf '%-34s %14s %14s %7s\n' "mmap cache vs pread (bytes/s)" "mmap median" "pread median" ratio
	printf '%-34s %14s %14s %7s\n' "10 MiB GET over usrsctp" "$med" "$medoff" \
	    "$(awk "BEGIN { if ($medoff > 0) printf \"%.2f\", $med / $medoff }")"
}

case $WHAT in
tcp) bench_tcp ;;
usrsctp) bench_usrsctp ;;
workers) bench_workers ;;
*) bench_tcp; bench_usrsctp; bench_workers ;;
esac
