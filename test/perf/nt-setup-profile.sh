#!/bin/bash
# test/perf/nt-setup-profile.sh: what one association per request costs over usrsctp-nt, in
# instructions (callgrind: the counts do not depend on the host's load). sctphttpd on
# usrsctp-nt serves a 1 KiB file; httpload makes N1, then N2 connections one after another,
# one GET each (set-up, request, reply, shutdown); both run under callgrind; the per-request
# count is (N2's - N1's) / (N2 - N1), so start-up and exit cancel out. Printed: the server's
# and the client's instructions per request, split into usrsctp's (libusrsctp), ours (the
# programs and lib/), libc's (malloc and free, memcpy...) and the rest, then the inclusive
# top functions per request of the server. The kernel's share (the syscalls) is not counted.
# USRSCTP_LIBDIR=DIR: DIR/libusrsctp.so.2 (e.g. scripts/usrsctp-release.sh's Release build)
# instead of the system's (Debian's, -O0); said in the first line.
# usage: test/perf/nt-setup-profile.sh [N1 (20)] [N2 (120)]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/../.." && pwd)}
H=${SCTPHTTPD:-$top/sctphttpd}
L=${HTTPLOAD:-$top/httpload/httpload}
n1=${1:-20} n2=${2:-120}
for t in "$H" "$L" valgrind callgrind_annotate python3; do
	command -v "$t" >/dev/null || { echo "nt-setup-profile: $t missing" >&2; exit 1; }
done
[ "$n2" -gt "$n1" ] || { echo "nt-setup-profile: N2 must be above N1" >&2; exit 2; }
env=()
[ -n "${USRSCTP_LIBDIR:-}" ] && env=(env "LD_LIBRARY_PATH=$USRSCTP_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
lib=$("${env[@]}" ldd "$H" | awk '$1 ~ /^libusrsctp/ { print $3; exit }')
lib=$(readlink -f "$lib")
if [ -f "${lib%/*}/BUILD-INFO" ]; then
	echo "# libusrsctp: $lib ($(head -n 1 "${lib%/*}/BUILD-INFO"))"
else
	echo "# libusrsctp: $lib (the system's: Debian's libusrsctp2 $(dpkg-query -W -f '${Version}' libusrsctp2 2>/dev/null), built -O0)"
fi
tmp=$(mktemp -d /tmp/nt-setup-profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT   # KEEP=DIR: the callgrind files copied there first
[ -n "${KEEP:-}" ] && trap 'mkdir -p "$KEEP" && cp "$tmp"/c* "$KEEP"/; rm -rf "$tmp"' EXIT
mkdir "$tmp/doc"
head -c 1024 /dev/urandom >"$tmp/doc/1k"
base=$((42000 + RANDOM % 1000 * 4))
CG=(valgrind --tool=callgrind --dump-instr=no --collect-jumps=no)

# one N: the server and the client under callgrind; OUT.srv and OUT.cli, their replies in OUT.rep
one() {
	local n=$1 out=$tmp/c$1 sp i
	"${env[@]}" "${CG[@]}" --callgrind-out-file="$out.srv" "$H" -L usrsctp-nt:127.0.0.1:$((base + 2)) \
	    --udp-port $base -d "$tmp/doc" 2>"$out.srv.err" &
	sp=$!
	for i in $(seq 1 100); do grep -q 'listening on' "$out.srv.err" && break; sleep 0.2; done
	"${env[@]}" "${CG[@]}" --callgrind-out-file="$out.cli" "$L" --server 127.0.0.1 --port $((base + 2)) \
	    --uri /1k --proto usrsctp-nt --udp-port $((base + 1)) --udp-remote-port $base \
	    --num-conns "$n" --num-calls 1 --timeout 60 --json >"$out.json" 2>"$out.cli.err"
	kill -TERM $sp
	wait $sp 2>/dev/null
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["replies"])' "$out.json" \
	    >"$out.rep" 2>/dev/null || echo 0 >"$out.rep"
}
# ir FILE: "TOTAL usrsctp ours libc other": self instructions by object, from the callgrind file
ir() {
	python3 - "$1" <<'PY'
import re, sys
names, cur, skip = {}, None, False
t = {"usrsctp": 0, "ours": 0, "libc": 0, "other": 0}
def kind(o):
    if "libusrsctp" in o: return "usrsctp"
    if re.search(r"/(sctphttpd|httpload|httpget|msgperf)$", o): return "ours"
    if "libc.so" in o or "ld-linux" in o: return "libc"
    return "other"
for line in open(sys.argv[1]):
    if line.startswith("cob="): # names are defined where first used, here too
        m = re.match(r"cob=\((\d+)\) (.*)", line.rstrip("\n"))
        if m: names[m.group(1)] = m.group(2)
        continue
    if line.startswith("ob="):
        m = re.match(r"ob=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
        if m:
            if m.group(2): names[m.group(1)] = m.group(2)
            cur = names.get(m.group(1), "")
        else:
            cur = line[3:].strip()
        continue
    if line.startswith("calls="):
        skip = True
        continue
    if line[:1] in "0123456789+-*":
        if skip:
            skip = False
            continue
        f = line.split()
        if len(f) >= 2 and cur is not None:
            t[kind(cur)] += int(f[1])
print(sum(t.values()), t["usrsctp"], t["ours"], t["libc"], t["other"])
PY
}
one "$n1"
one "$n2"
r1=$(cat "$tmp/c$n1.rep") r2=$(cat "$tmp/c$n2.rep")
echo "# replies: $r1 of $n1, $r2 of $n2"
for side in srv cli; do
	read -r a1 u1 o1 l1 x1 <<<"$(ir "$tmp/c$n1.$side")"
	read -r a2 u2 o2 l2 x2 <<<"$(ir "$tmp/c$n2.$side")"
	d=$((n2 - n1))
	echo "$([ $side = srv ] && echo server || echo client) instructions per request (one association each): $(((a2 - a1) / d)) in all: usrsctp $(((u2 - u1) / d)), ours $(((o2 - o1) / d)), libc $(((l2 - l1) / d)), other $(((x2 - x1) / d))"
done
echo "# the server's top functions, inclusive, per request ((N2 - N1) difference; usrsctp's names as built):"
callgrind_annotate --inclusive=yes --threshold=99 "$tmp/c$n2.srv" 2>/dev/null >"$tmp/a2"
callgrind_annotate --inclusive=yes --threshold=99 "$tmp/c$n1.srv" 2>/dev/null >"$tmp/a1"
python3 - "$tmp/a1" "$tmp/a2" "$((n2 - n1))" <<'PY'
import re, sys
def load(p):
    d = {}
    for line in open(p):
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(\S+)(?: \[(\S+)\])?", line)
        if m and ":" in m.group(2) and not m.group(2).startswith(("/", "./")) and \
            "(below" not in m.group(2) and not re.match(r"\?\?\?:0x", m.group(2)):
            d[m.group(2)] = d.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return d
a, b, n = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
rows = sorted(((b[k] - a.get(k, 0)) / n, k) for k in b)
want = re.compile(r"hmac|sha1|SHA1|cookie|timer_start|timer_stop|callout|malloc|free|calloc|"
    r"sctp_inpcb_alloc|sctp_aloc_assoc|sctp_free_assoc|usrsctp_socket|usrsctp_close|"
    r"usrsctp_conninput|sctp_common_input|sctp_send_initiate|sctp_lowlevel|crc32c|tp_|ev_|http")
for v, k in sorted(rows, reverse=True)[:25]:
    print("  %10.0f  %s" % (v, k))
print("# selected (cookie HMAC, timers, allocations, ours):")
for v, k in sorted(rows, reverse=True):
    if want.search(k) and v >= 500:
        print("  %10.0f  %s" % (v, k))
PY
