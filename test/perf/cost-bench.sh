#!/bin/bash
# cost-bench.sh: instructions per request of sctphttpd and httpload over usrsctp beside TCP,
# counted by callgrind (valgrind), which a loaded host does not change as it changes req/s.
# 100 associations (connections) keep-alive, CALLS requests each, 1 KiB file; the server's
# counts are zeroed after a warm-up and dumped per transport, the client is counted whole.
# Markdown on stdout: instructions per request by object (our program, libc, libusrsctp) and
# the share of usrsctp's CRC32c.
#   test/perf/cost-bench.sh [CALLS]   (default 50; USRSCTP_LIBDIR=DIR: the usrsctp processes on
#   DIR/libusrsctp.so.2, such as scripts/usrsctp-release.sh's optimised build)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/../.." && pwd)}
. "$here/bench-lib.sh"
bench_netns "$@"
CALLS=${1:-50}
N=100
bench_need "$SCTPHTTPD" "$HTTPLOAD" valgrind callgrind_control python3 ss
bench_scratch cost-bench
tp=$(free_tcp)
base=$(free_udp_block 2)
daemon_start -t 30 h 'listening on usrsctp' "${usrsctp_env[@]}" valgrind --tool=callgrind \
    --callgrind-out-file="$tmp/srv.%p" "$SCTPHTTPD" -L usrsctp:127.0.0.1:8080 --udp-port "$base" \
    --udp-remote-port $((base + 1)) -p "$tp" -h 127.0.0.1 -d "$tmp/doc" --idle-timeout 600 ||
	{ echo "cost-bench: sctphttpd under callgrind did not start" >&2; exit 1; }
hpid=$daemon_pid

on() { # PROTO CMD...: CMD, with USRSCTP_LIBDIR's library when PROTO is usrsctp
	local p=$1
	shift
	if [ "$p" = usrsctp ]; then "${usrsctp_env[@]}" "$@"; else "$@"; fi
}
args() { # PROTO
	if [ "$1" = usrsctp ]; then
		echo "--port 8080 --proto usrsctp --udp-port $((base + 1)) --udp-remote-port $base"
	else
		echo "--port $tp"
	fi
}
# self cost per object of callgrind FILE, per request: "prog libc usrsctp total"
cost() {
	python3 - "$1" "$2" "$3" <<'PY'
import re, sys
path, prog, n = sys.argv[1], sys.argv[2], float(sys.argv[3])
obs, ob, skip = {}, "", False
by = {"prog": 0, "libc": 0, "usrsctp": 0, "total": 0}
for line in open(path):
    m = re.match(r"(c?ob)=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(3):
            obs[m.group(2)] = m.group(3).strip().split("/")[-1]
        if m.group(1) == "ob":
            ob = obs[m.group(2)]
        continue
    if line.startswith("calls="):
        skip = True
        continue
    if line[:1].isdigit() or line[:1] in "+-*":
        if skip:
            skip = False
            continue
        parts = line.split()
        if len(parts) < 2:
            continue
        c = int(parts[1])
        by["total"] += c
        if ob == prog:
            by["prog"] += c
        elif ob.startswith("libc."):
            by["libc"] += c
        elif ob.startswith("libusrsctp"):
            by["usrsctp"] += c
print(" ".join("%.0f" % (by[k] / n) for k in ("prog", "libc", "usrsctp", "total")))
PY
}
# The CRC32c of a stripped library: callgrind names the static worker by address, so its
# inclusive cost is read under calculate_crc32c with --inclusive (callgrind_annotate).
crc() {
	callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
	    awk -v n="$2" '/:calculate_crc32c / { gsub(",", "", $1); printf "%.0f\n", $1 / n; f = 1; exit } END { if (!f) print "-" }'
}

# warm-up (the file, the first accepts), then each transport on its own dump
for p in usrsctp tcp; do
	# shellcheck disable=SC2046
	on $p "$HTTPLOAD" --server 127.0.0.1 --uri /1k.bin --timeout 60 --num-conns 10 --num-calls 5 \
	    $(args $p) >/dev/null 2>&1
done
echo "## Instructions per request: usrsctp beside TCP (callgrind)"
echo
echo "httpload -c $N --num-conns $N --num-calls $CALLS (keep-alive) on a 1 KiB file; user-space"
echo "instructions per request (the kernel's are not counted), callgrind $(valgrind --version)."
echo "libusrsctp: $(bench_usrsctp_lib $hpid), the usrsctp httpload's too. Load average: $(bench_load)."
echo
echo "| process | transport | ours | libc | libusrsctp | of which CRC32c | total |"
echo "|---|---|---|---|---|---|---|"
for p in usrsctp tcp; do
	callgrind_control -z $hpid >/dev/null 2>&1
	# shellcheck disable=SC2046
	on $p "$HTTPLOAD" --server 127.0.0.1 --uri /1k.bin --timeout 60 -c $N --num-conns $N \
	    --num-calls "$CALLS" $(args $p) --json >"$tmp/$p.json" 2>/dev/null
	callgrind_control -d "$p" $hpid >/dev/null 2>&1
	n=$(json_field "$tmp/$p.json" replies 0)
	f=$(ls -t "$tmp"/srv.* | head -1)
	# shellcheck disable=SC2046
	set -- $(cost "$f" sctphttpd "$n")
	echo "| sctphttpd | $p | $1 | $2 | $3 | $(crc "$f" "$n") | $4 |"
	# shellcheck disable=SC2046
	on $p valgrind --tool=callgrind --callgrind-out-file="$tmp/cli.$p" "$HTTPLOAD" --server 127.0.0.1 \
	    --uri /1k.bin --timeout 60 -c $N --num-conns $N --num-calls "$CALLS" $(args $p) \
	    --json >"$tmp/c$p.json" 2>/dev/null
	n=$(json_field "$tmp/c$p.json" replies 0)
	# shellcheck disable=SC2046
	set -- $(cost "$tmp/cli.$p" httpload "$n")
	echo "| httpload (whole run) | $p | $1 | $2 | $3 | $(crc "$tmp/cli.$p" "$n") | $4 |"
done
