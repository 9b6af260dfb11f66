#!/bin/sh
# msgperf.sh: msgperf's table and CSV on the host's loopback give plausible numbers.
. "$(dirname "$0")/../lib.sh"
mp="$top_builddir/msgperf"
out=$(mktemp)

"$mp" -q -t tcp,tcpm,unix,unixm -s 10,1000 -d 0.3 >"$out" 2>&1
ok $? "msgperf table over tcp,tcpm,unix,unixm exits 0"
grep -q '^| tcpm | [0-9]* | [0-9]* |$' "$out"
ok $? "throughput table has a tcpm row with two numbers"
grep -q '^| unixm | [0-9.]* | [0-9.]* |$' "$out"
ok $? "latency table has a unixm row"
# Every number in the tables is positive.
bad=$(grep '^| [a-z]' "$out" | tr -d '|' | awk '{for(i=2;i<=NF;i++) if ($i+0 <= 0) print}')
[ -z "$bad" ]
ok $? "every cell is a positive number"
[ -z "$bad" ] || sed 's/^/# /' "$out" # the whole table, to tell which cell and why

"$mp" -q --csv -t unixm -s 100 -d 0.3 >"$out" 2>&1
ok $? "msgperf --csv exits 0"
[ "$(head -1 "$out")" = "test,protocol,size,value,unit,messages,p50_us,p99_us,error" ]
ok $? "CSV header"
awk -F, 'NR>1 && $2=="unixm" && $3==100 && $4>0 && $6>0 {n++} END {exit n==2?0:1}' "$out"
ok $? "CSV has throughput and latency rows for unixm 100 B with values and message counts"

# Server and client as separate commands (the two-host set-up), over tcpm with streams ignored.
port=$((20000 + $$ % 10000))
"$mp" server -t tcpm -a 127.0.0.1:$port & spid=$!
sleep 0.3
"$mp" client -q -t tcpm -a 127.0.0.1:$port -s 1000 -T latency -d 0.3 >"$out" 2>&1
ok $? "client against a separate server process"
grep -q '^| tcpm | [0-9.]* |$' "$out"
ok $? "client prints its latency table"
kill $spid; wait $spid 2>/dev/null

"$mp" --help | grep -q -- '--use-streams'
ok $? "--help documents the options"
rm -f "$out"
done_testing
