# test/perf/bench-lib.sh: what the benchmark scripts share (sourced): a private loopback, free
# ports, the spread of repeated figures, the host's load, servers started and waited for.
: "${top:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh" # scratch, daemon_start
MSGPERF=${MSGPERF:-$top/msgperf}
SCTPHTTPD=${SCTPHTTPD:-$top/sctphttpd}
HTTPGET=${HTTPGET:-$top/httpload/httpget}
HTTPLOAD=${HTTPLOAD:-$top/httpload/httpload}
RUNS=${RUNS:-3}
. "$(dirname "${BASH_SOURCE[0]}")/../nginx.sh" # nginx_conf

# USRSCTP_LIBDIR=DIR: the usrsctp processes load DIR/libusrsctp.so.2 (scripts/usrsctp-release.sh
# prints the folder of its optimised build) in place of Debian's, without a relink: their
# commands start with "${usrsctp_env[@]}" (LD_LIBRARY_PATH=DIR). bench_usrsctp_lib tells which
# library a process has loaded.
USRSCTP_LIBDIR=${USRSCTP_LIBDIR:-}
usrsctp_env=()
if [ -n "$USRSCTP_LIBDIR" ]; then
	[ -e "$USRSCTP_LIBDIR/libusrsctp.so.2" ] || {
		echo "${0##*/}: USRSCTP_LIBDIR=$USRSCTP_LIBDIR holds no libusrsctp.so.2 (scripts/usrsctp-release.sh prints the folder)" >&2
		exit 1
	}
	USRSCTP_LIBDIR=$(cd "$USRSCTP_LIBDIR" && pwd)
	usrsctp_env=(env "LD_LIBRARY_PATH=$USRSCTP_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
fi
# command prefixes of the server and the load generator (bench_pin)
pin_srv=() pin_cli=()

# bench_netns "$@": run the script again in a network namespace of its own when it may (root,
# unshare): its ports then collide with nobody's, and /proc/net/snmp counts only its traffic.
bench_netns() {
	if [ -z "${BENCH_NETNS:-}" ] && unshare -n true 2>/dev/null; then
		BENCH_NETNS=1 exec unshare -n -- "$0" "$@"
	fi
	if [ "${BENCH_NETNS:-}" = 1 ]; then
		ip link set lo up
	fi
}

bench_need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || { echo "${0##*/}: $t missing" >&2; exit 1; }
	done
}

bench_load() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_usrsctp_lib PID|PROGRAM: the libusrsctp that process has loaded (/proc/PID/maps), or
# that PROGRAM loads with USRSCTP_LIBDIR (ldd), and whose it is: "PATH (Debian's libusrsctp2
# VERSION, built -O0)", or the first line of a BUILD-INFO beside it (scripts/usrsctp-release.sh's)
# (scripts/usrsctp-lib.sh which)
bench_usrsctp_lib() {
	"${usrsctp_env[@]}" "$(dirname "${BASH_SOURCE[0]}")/../../scripts/usrsctp-lib.sh" which "$1" |
	    sed 's/^libusrsctp: //'
}

# bench_pin: PIN=1 (the default on a host of 2 CPUs or more; PIN=0: not) runs the server, all
# its threads, on CPU 1 and the load generator on CPU 0 (taskset): pin_srv and pin_cli become
# their command prefixes; pin_note says which for a header.
bench_pin() {
	if [ -z "${PIN:-}" ]; then
		PIN=0
		[ "$(nproc)" -ge 2 ] && PIN=1
	fi
	if [ "$PIN" = 1 ]; then
		bench_need taskset
		pin_srv=(taskset -c 1) pin_cli=(taskset -c 0)
		pin_note="pinned: the server (all its threads) on CPU 1, httpload on CPU 0 (taskset), for both transports"
	else
		pin_srv=() pin_cli=()
		pin_note="not pinned (PIN=0): the scheduler places the processes"
	fi
}

# spread: numbers on stdin -> "median (min-max, n=N)"
spread() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "n/a"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%s (%s-%s, n=%d)\n", fmt(m), fmt(v[1]), fmt(v[NR]), NR }
		function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }'
}

# median: numbers on stdin -> the median alone
median() { spread | cut -d' ' -f1; }

# ratio A B -> A/B with two decimals, or n/a
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a != "") printf "%.2f\n", a / b; else print "n/a" }'; }

udp_rcvbuf_errors() {
	awk '/^Udp:/ { n++; if (n == 1) for (i = 1; i <= NF; i++) h[i] = $i
		else for (i = 1; i <= NF; i++) if (h[i] == "RcvbufErrors") print $i }' /proc/net/snmp
}

free_tcp() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# free_udp_block N: the first of N consecutive free UDP ports
free_udp_block() {
	local base i try ok
	for try in $(seq 1 50); do
		base=$((30000 + (RANDOM % 3000) * 8))
		ok=1
		for i in $(seq 0 $(($1 - 1))); do
			ss -Huan "sport = :$((base + i))" 2>/dev/null | grep -q . && ok=0
		done
		[ $ok = 1 ] && break
	done
	echo $base
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

# json_get KEY/KEY... < JSON
json_get() {
	python3 -c 'import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("/"):
    v = v[k]
print(v)' "$1"
}

# json_field FILE KEY/KEY... [DEFAULT]: that value of the JSON in FILE, or DEFAULT (else nothing)
# when the file or the key is missing
json_field() {
	python3 -c 'import json, sys
try:
    v = json.load(open(sys.argv[1]))
    for k in sys.argv[2].split("/"):
        v = v[k]
    print(v)
except Exception:
    if len(sys.argv) > 3:
        print(sys.argv[3])' "$@"
}

# bench_nginx_conf WORKERS PORT: $tmp/nginx/nginx.conf serving $tmp/doc on 127.0.0.1:PORT,
# sendfile and keep-alive without a limit (WORKERS 1: one process, no master)
bench_nginx_conf() {
	local w=""
	[ "$1" = 1 ] || w="-w $1"
	# shellcheck disable=SC2086
	nginx_conf $w "$tmp/nginx" "sendfile on;" "tcp_nopush on;" "keepalive_requests 1000000;" \
	    "default_type application/octet-stream;" "server { listen 127.0.0.1:$2; root $tmp/doc; }"
}

# bench_scratch NAME: $tmp (removed at exit, with the processes in $pids killed), a document
# root $tmp/doc with a 1 KiB file, and file descriptors for thousands of associations
bench_scratch() {
	scratch "$1"
	mkdir "$tmp/doc"
	head -c 1024 /dev/urandom >"$tmp/doc/1k.bin"
	ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
}

# USRSCTP_TYPE=usrsctp-nt: the usrsctp runs use the threadless type (usrsctp without its
# threads, in the program's loop) instead of usrsctp's own threads (the default, usrsctp).
USRSCTP_TYPE=${USRSCTP_TYPE:-usrsctp}
case $USRSCTP_TYPE in
usrsctp | usrsctp-nt) ;;
*) echo "${0##*/}: USRSCTP_TYPE=$USRSCTP_TYPE: usrsctp or usrsctp-nt" >&2; exit 2 ;;
esac

# bench_usrsctp_httpd NAME [ARGS...]: sctphttpd on $USRSCTP_TYPE:127.0.0.1:8080 (UDP ports $base
# and $base+1, from free_udp_block) serving $tmp/doc, with ARGS, USRSCTP_LIBDIR's library and
# bench_pin's CPU; its pid in $hpid, its stderr in $tmp/h.err; exits the script if it does not start
bench_usrsctp_httpd() {
	local name=$1
	shift
	base=$(free_udp_block 2)
	daemon_start h "listening on $USRSCTP_TYPE " "${usrsctp_env[@]}" "${pin_srv[@]}" \
	    "$SCTPHTTPD" -L "$USRSCTP_TYPE:127.0.0.1:8080" --udp-port "$base" --udp-remote-port $((base + 1)) \
	    "$@" -d "$tmp/doc" --idle-timeout 600 >&2 || { echo "$name: sctphttpd did not start" >&2; exit 1; }
	hpid=$daemon_pid
}
