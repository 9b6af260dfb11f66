#!/bin/bash
# httpd-workers.sh: sctphttpd --workers N over TCP: every worker serves (SO_REUSEPORT), the
# master forwards TERM, USR1 and HUP, a dead worker is reported and stops the rest (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}

[ -x "$H" ] || { ok 1 "$H not built"; done_testing; exit; }
for t in curl wrk ss; do
	command -v $t >/dev/null || { ok 1 "$t missing"; done_testing; exit; }
done

scratch httpd-workers
chmod 755 "$tmp"
doc=$tmp/doc
mkdir -p "$doc"
echo hello >"$doc/a.txt"
head -c 1024 /dev/urandom >"$doc/1k.bin"
head -c 50000000 /dev/urandom >"$doc/50m.bin"
chmod -R a+rX "$doc"

start() { httpd_start "$@"; } # start NAME ARGS...: sctphttpd ARGS (with --workers), $port and $last set
children() { pgrep -P "$1" | sort; }
gone() {  # gone PID...: 0 when none of them is alive within 10 s
	local p i
	for i in $(seq 1 100); do
		for p in "$@"; do kill -0 "$p" 2>/dev/null && break; p=; done
		[ -z "$p" ] && return 0
		sleep 0.1
	done
	return 1
}

start main -p 0 -h 127.0.0.1 -d "$doc" --workers 2 -i "$tmp/pid" -l "$tmp/access.log"
ok $? "--workers 2 starts"
master=$last
w=$(children $master)
[ "$(echo $w | wc -w)" = 2 ] && [ "$(cat "$tmp/pid")" = $master ]
ok $? "a master and 2 workers ($(echo $w)); the pid file has the master's id"

wrk -t2 -c40 -d4 "http://127.0.0.1:$port/1k.bin" >"$tmp/wrk.out" 2>&1 &
wk=$!
sleep 2
serving=$(ss -Htnp state established "( sport = :$port )" | grep -o 'pid=[0-9]*' | sort -u |
    sed 's/pid=//' | tr '\n' ' ')
wait $wk
sed 's/^/#   /' "$tmp/wrk.out"
n=0
for p in $w; do case " $serving " in *" $p "*) n=$((n + 1)) ;; esac; done
reqs=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$tmp/wrk.out")
[ "$n" = 2 ] && [ -n "$reqs" ] && [ "$reqs" -gt 1000 ] && ! grep -q -e 'Socket errors' -e 'Non-2xx' "$tmp/wrk.out"
ok $? "wrk -c40: both workers hold connections (pids: $serving), $reqs requests, no errors"

mv "$tmp/access.log" "$tmp/access.log.1"
kill -HUP $master
sleep 0.5
for i in $(seq 1 20); do curl -s -o /dev/null "http://127.0.0.1:$port/a.txt"; done
sleep 0.3
[ "$(grep -c '"GET /a.txt HTTP/1.1" 200 6$' "$tmp/access.log" 2>/dev/null)" = 20 ] &&
    ! grep -v '^127\.0\.0\.1 - - \[' "$tmp/access.log.1" | grep -q .
ok $? "HUP forwarded: every worker reopened the log (20 lines there), whole lines in the old one"

curl -s --limit-rate 20M -o "$tmp/got" "http://127.0.0.1:$port/50m.bin" &
dl=$!
sleep 0.7
kill -USR1 $master
sleep 0.3
c=$(curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/a.txt")
wait $dl
dlrc=$?
gone $master $w
g=$?
wait $master
mrc=$?
cmp -s "$tmp/got" "$doc/50m.bin" && [ $dlrc = 0 ] && [ "$c" = 000 ] && [ $g = 0 ] && [ $mrc = 0 ] &&
    [ ! -e "$tmp/pid" ]
ok $? "USR1 forwarded: no new connections ($c), the 50 MB download in flight completes, all exit, master 0"

start term -p 0 -h 127.0.0.1 -d "$doc" --workers 3
master=$last
w=$(children $master)
[ "$(curl -s "http://127.0.0.1:$port/a.txt")" = hello ] && kill -TERM $master && gone $master $w
g=$?
wait $master
mrc=$?
[ "$(echo $w | wc -w)" = 3 ] && [ $g = 0 ] && [ $mrc = 0 ]
ok $? "--workers 3, TERM to the master: all 4 processes gone, exit $mrc"

start die -p 0 -h 127.0.0.1 -d "$doc" --workers 2
master=$last
w=$(children $master)
set -- $w
kill -9 "$1"
gone $master $w
g=$?
wait $master
mrc=$?
[ $g = 0 ] && [ $mrc = 1 ] && grep -q "worker [01] (pid $1) killed by signal 9; stopping the others, nothing is restarted" "$tmp/die.err"
ok $? "a worker killed: reported, the other stopped, nothing restarted, master exit $mrc"
grep '^sctphttpd: worker' "$tmp/die.err" | sed 's/^/#   /'

"$H" -L usrsctp:127.0.0.1:0 --workers 2 -d "$doc" >/dev/null 2>"$tmp/e"
[ $? = 1 ] && grep -q 'usrsctp listens in one process only' "$tmp/e"
ok $? "--workers 2 with a usrsctp listener: refused ($(cat "$tmp/e"))"

done_testing
