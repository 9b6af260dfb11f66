#!/bin/bash
# httpload-merge.sh: httpload merge adds several clients' --json reports up exactly: totals the
# sums of the clients' own, latency histograms merged bucket by bucket (percentiles of all the
# calls, not averages), the clients' rates summed, errors summed; merging is associative; bad
# reports are refused with the file's name.
. "$(dirname "$0")/../lib.sh"
hl="$top_builddir/httpload/httpload"
httpd="$top_builddir/sctphttpd"
py=/usr/bin/python3
[ -x $py ] || py=python3
scratch httpload-merge
mkdir -p "$tmp/www"
head -c 3000 /dev/urandom >"$tmp/www/f3k"
head -c 40000 /dev/urandom >"$tmp/www/f40k"
port=$((20000 + RANDOM % 20000))
"$httpd" -d "$tmp/www" -h 127.0.0.1 -p "$port" -L "usrsctp:127.0.0.1:$port" \
	--udp-port $((port + 1)) --udp-remote-port $((port + 2)) >"$tmp/httpd.log" 2>&1 &
pids="$pids $!"
wait_bound "$port"
ok $? "sctphttpd listens on 127.0.0.1:$port"

# three clients at once, each its share (--client I/3), different files and transports
"$hl" --timeout 20 --server 127.0.0.1 --port "$port" --uri /f3k --num-conns 30 --num-calls 4 --client 0/3 \
	--json >"$tmp/c0.json" 2>"$tmp/c0.err" &
p0=$!
"$hl" --timeout 20 --server 127.0.0.1 --port "$port" --uri /f40k --num-conns 10 --num-calls 2 --client 1/3 \
	--rate 100 --json >"$tmp/c1.json" 2>"$tmp/c1.err" &
p1=$!
"$hl" --timeout 20 --proto usrsctp --streams 4 --udp-remote-port $((port + 1)) --udp-port $((port + 2)) \
	--server 127.0.0.1 --port "$port" --uri /f3k --num-conns 5 --num-calls 8 --client 2/3 \
	--json >"$tmp/c2.json" 2>"$tmp/c2.err" &
p2=$!
wait $p0 && wait $p1 && wait $p2
ok $? "three clients ran ($(cat "$tmp"/c?.err | head -c 300))"

"$hl" merge --json "$tmp"/c0.json "$tmp"/c1.json "$tmp"/c2.json >"$tmp/m.json" 2>"$tmp/m.err"
ok $? "httpload merge --json exits 0 ($(cat "$tmp/m.err"))"

# sums FILE...: the merged report against the sum of the clients' (python: the JSON as a
# reader other than ours)
$py - "$tmp/m.json" "$tmp"/c0.json "$tmp"/c1.json "$tmp"/c2.json >"$tmp/check" <<'PY'
import json, sys, math
m = json.load(open(sys.argv[1]))
cs = [json.load(open(f)) for f in sys.argv[2:]]
bad = []
def same(what, a, b, tol=0):
    if abs(a - b) > tol:
        bad.append("%s: merged %s, sum %s" % (what, a, b))
for k in ("connections", "requests", "replies"):
    same(k, m[k], sum(c[k] for c in cs))
for g in ("bytes", "status", "errors"):
    for k in m[g]:
        same(g + "." + k, m[g][k], sum(c[g][k] for c in cs))
same("latency calls", m["raw"]["lat"]["n"], sum(c["raw"]["lat"]["n"] for c in cs))
same("clients", m["clients"], len(cs))
for k in ("conn_rate", "request_rate", "reply_rate"):
    same("sum of the clients' " + k, m["clients_rate_sum"][k], sum(c[k] for c in cs), 0.002 * len(cs))
same("duration (the longest)", m["duration_s"], max(c["duration_s"] for c in cs))
same("latency min", m["latency_ms"]["min"], min(c["latency_ms"]["min"] for c in cs))
same("latency max", m["latency_ms"]["max"], max(c["latency_ms"]["max"] for c in cs))
# the histogram: bucket by bucket the sum; the merged p50/p90/p99 those of all the calls
h = {}
for c in cs:
    for lo, n in c["raw"]["lat"]["hist"]:
        h[lo] = h.get(lo, 0) + n
same("latency buckets", 0, sum(1 for lo, n in m["raw"]["lat"]["hist"] if h.get(lo) != n))
same("latency bucket count", len(m["raw"]["lat"]["hist"]), len(h))
vals = sorted(h.items())
total = sum(n for _, n in vals)
for q, key in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
    want, seen = max(1, math.ceil(q * total)), 0
    for lo, n in vals:
        seen += n
        if seen >= want:
            break
    # the merged quantile lies in that bucket (its lowest value up to 0.1 % more)
    v = m["latency_ms"][key] * 1000
    if not (lo - 1 <= v <= lo * 1.002 + 2):
        bad.append("%s: merged %.3f ms, bucket from %d us" % (key, v / 1000, lo))
mean = sum(c["raw"]["lat"]["sum"] for c in cs) / total
same("latency mean", m["latency_ms"]["mean"], mean / 1000, 0.0006)
print("replies %d = %s; reply rates %s -> %.1f/s; p99 %.3f ms (clients: %s)" % (m["replies"],
      " + ".join(str(c["replies"]) for c in cs), " + ".join("%.1f" % c["reply_rate"] for c in cs),
      m["clients_rate_sum"]["reply_rate"], m["latency_ms"]["p99"],
      ", ".join("%.3f" % c["latency_ms"]["p99"] for c in cs)))
for b in bad:
    print("MISMATCH " + b)
sys.exit(1 if bad else 0)
PY
st=$?
diag "$(cat "$tmp/check")"
ok $st "merged totals, bytes, statuses, errors and rates are the sums of the clients'; its histogram is theirs added bucket by bucket"

"$hl" merge "$tmp"/c0.json "$tmp"/c1.json "$tmp"/c2.json >"$tmp/m.txt"
grep -q '^Merged: 3 clients' "$tmp/m.txt" &&
	grep -Eq "^Total: connections 45 requests $(sed -nE 's/.*"requests":([0-9]+),.*/\1/p' "$tmp/m.json" | head -1) " "$tmp/m.txt" &&
	grep -q '^Latency \[ms\]: ' "$tmp/m.txt"
ok $? "the text report: httperf's lines over all three ($(grep '^Total' "$tmp/m.txt"))"

# associative: (c0 + c1) + c2 is c0 + c1 + c2, to the last digit
"$hl" merge --json "$tmp"/c0.json "$tmp"/c1.json >"$tmp/m01.json" &&
	"$hl" merge --json "$tmp"/m01.json "$tmp"/c2.json >"$tmp/m012.json"
cmp -s "$tmp/m012.json" "$tmp/m.json"
ok $? "merging a merged report again gives the same report to the byte"

# errors summed: a client against a closed port
"$hl" --server 127.0.0.1 --port $((port + 3)) --num-conns 3 --json >"$tmp/refused.json" 2>/dev/null
"$hl" merge --json "$tmp"/c0.json "$tmp"/refused.json >"$tmp/me.json"
rc=$?
grep -q '"errors":{"total":3,"client-timo":0,"socket-timo":0,"connrefused":3,' "$tmp/me.json" && [ $rc = 1 ]
ok $? "a client's errors are summed into the merged report, exit 1 (exit $rc: $(grep -o '"errors":{[^}]*}' "$tmp/me.json"))"

# bad input: refused with the file's name, exit 2
echo '{"connections":1,' >"$tmp/cut.json"
"$hl" merge "$tmp"/c0.json "$tmp"/cut.json >/dev/null 2>"$tmp/e1"
rc=$?
[ $rc = 2 ] && grep -q "cut.json: JSON" "$tmp/e1"
ok $? "a cut report: exit 2 naming it ($rc: $(cat "$tmp/e1"))"
echo '{"connections":1,"requests":1}' >"$tmp/old.json"
"$hl" merge "$tmp"/old.json >/dev/null 2>"$tmp/e2"
rc=$?
[ $rc = 2 ] && grep -q 'old.json: no "raw" section' "$tmp/e2"
ok $? "a report without its raw section: exit 2 ($rc: $(cat "$tmp/e2"))"
sed 's/"hist":\[\[/"hist":[[999999999,/' "$tmp/c0.json" >"$tmp/range.json"
"$hl" merge "$tmp"/range.json >/dev/null 2>"$tmp/e3"
rc=$?
[ $rc = 2 ] && grep -q 'out of range\|not \[\[key' "$tmp/e3"
ok $? "a histogram bucket out of range: exit 2 ($rc: $(cat "$tmp/e3"))"
printf '{"requests":99999999999999999999999,"raw":{"format":1}}' >"$tmp/big.json"
"$hl" merge "$tmp"/big.json >/dev/null 2>"$tmp/e5"
rc=$?
[ $rc = 2 ] && grep -q "requests: bad number" "$tmp/e5"
ok $? "a count beyond 64 bits: exit 2 ($rc: $(cat "$tmp/e5"))"
"$hl" merge "$tmp/nonexistent.json" >/dev/null 2>"$tmp/e4"
rc=$?
[ $rc = 2 ] && grep -q 'nonexistent.json: cannot read' "$tmp/e4"
ok $? "a missing file: exit 2 ($rc)"
"$hl" merge >/dev/null 2>&1
[ $? = 2 ]
ok $? "no file: usage, exit 2"
done_testing
