# test/reliability/common.sh: helpers of the reliability scripts (sourced after test/lib.sh).
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
G=${HTTPGET:-$top_builddir/httpload/httpget}
LD=${HTTPLOAD:-$top_builddir/httpload/httpload}
P=${TP_PEER:-$top_builddir/test/interop/tp_peer}
RA=${RTPAUDIO:-$top_builddir/rtpaudio/rtpaudio}

port_free() { # port_free tcp|udp PORT
	! ss -Hn"${1:0:1}"a "sport = :$2" 2>/dev/null | grep -q .
}

# free_ports N: N consecutive ports free for TCP and UDP, in $port (the first)
free_ports() {
	local try i good
	for try in $(seq 1 50); do
		port=$((20000 + (RANDOM % 2000) * 16))
		good=1
		for i in $(seq 0 $(($1 - 1))); do
			port_free t $((port + i)) && port_free u $((port + i)) || { good=0; break; }
		done
		[ $good = 1 ] && return 0
	done
	return 1
}

# start_httpd NAME ARGS...: lib.sh's httpd_start, $port (free_ports') kept; its pid in $last
start_httpd() {
	local keep=$port rc
	httpd_start "$@"
	rc=$?
	port=$keep
	return $rc
}

# raw PORT BYTES: send BYTES on a TCP connection, the answer in $tmp/raw.out; 0 when the server
# closed the connection within 3 s, 1 when it kept it open
raw() {
	local rc
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 2
	printf '%s' "$2" >&3
	timeout 3 cat <&3 >"$tmp/raw.out" 2>/dev/null
	rc=$?
	exec 3>&-
	[ $rc -ne 124 ]
}

# Under 10 % loss an association can go a whole RTO.max (60 s, kernel and usrsctp) without
# progress: timeouts back the RTO off, and one without an RTT sample between does not reset it.
# The limits of a lossy run (httpload --timeout, sctphttpd --idle-timeout) are above two of them.
LOSS_TIMEOUT=150

nfds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

# result KEY VALUE...: a figure for docs/reliability.md (make reliability-report), in
# $RELIABILITY_OUT (default $top_builddir/test/reliability/results/) under the script's name
result() {
	local dir=${RELIABILITY_OUT:-$top_builddir/test/reliability/results}
	local key=$1
	shift
	mkdir -p "$dir"
	printf '%s\t%s\n' "$key" "$*" >>"$dir/$(basename "$0" .sh).txt"
}
result_reset() {
	local dir=${RELIABILITY_OUT:-$top_builddir/test/reliability/results}
	mkdir -p "$dir"
	: >"$dir/$(basename "$0" .sh).txt"
}

# load_verified NAME PREFIX SERVER ARGS...: httpload --json with --verify-manifest $tmp/manifest
# against SERVER port $tp, run under PREFIX (e.g. "ip netns exec NS", or empty); sets replies,
# errors, corrupt and content from its JSON; 0 when it exited 0 with no error and no corrupt body.
# A connection fails after $LOAD_TIMEOUT s without progress (default 60; see LOSS_TIMEOUT).
load_verified() {
	local name=$1 pre=$2 srv=$3 rc to=${LOAD_TIMEOUT:-60}
	shift 3
	# shellcheck disable=SC2086
	timeout $((4 * to + 60)) $pre "$LD" --server "$srv" --port $tp --timeout $to --json \
	    --verify-manifest "$tmp/manifest" "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"
	rc=$?
	replies=$(grep -o '"replies":[0-9]*' "$tmp/$name.json" | head -n 1 | cut -d: -f2)
	errors=$(grep -o '"errors":{"total":[0-9]*' "$tmp/$name.json" | grep -o '[0-9]*$' | head -n 1)
	corrupt=$(grep -o '"corrupt":[0-9]*' "$tmp/$name.json" | head -n 1 | cut -d: -f2)
	content=$(grep -o '"content":[0-9]*' "$tmp/$name.json" | head -n 1 | cut -d: -f2)
	[ $rc = 0 ] && [ "${errors:-1}" = 0 ] && [ "${corrupt:-1}" = 0 ]
}
