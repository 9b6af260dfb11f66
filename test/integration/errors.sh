#!/bin/sh
# errors.sh: bad input gives a clear message and a non-zero exit, never a crash.
. "$(dirname "$0")/../lib.sh"
mp="$top_builddir/msgperf"
out=$(mktemp)

expect_fail() { # expect_fail "description" "message pattern" cmd...
	desc=$1 pat=$2
	shift 2
	"$@" >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "$pat" "$out"; then
		ok 0 "$desc"
	else
		ok 1 "$desc (exit $rc: $(head -c 300 "$out"))"
	fi
}

expect_fail "unknown transport" "unknown transport 'carrier-pigeon'" "$mp" -t carrier-pigeon
expect_fail "bad address" "bad address" "$mp" client -t tcp -a 999.0.0.1:80
expect_fail "address without port" "HOST:PORT" "$mp" client -t tcp -a 127.0.0.1
expect_fail "bad size" "bad size" "$mp" -s 0
expect_fail "bad option" "usage" "$mp" --no-such-option
expect_fail "connection refused" "refused" "$mp" client -t tcp -a 127.0.0.1:1 -d 0.2

port=$((30000 + $$ % 10000))
"$mp" server -t tcp -a 127.0.0.1:$port & spid=$!
sleep 0.3
expect_fail "port in use" "in use" "$mp" server -t tcp -a 127.0.0.1:$port
# Peer gone mid-transfer: the server dies during a long throughput run.
( sleep 0.5; kill -9 $spid ) &
expect_fail "peer gone mid-transfer" "reset\|closed\|Broken\|aborted" \
	"$mp" client -t tcp -a 127.0.0.1:$port -T throughput -s 10000 -d 5
wait $spid 2>/dev/null

if ! "$top_srcdir/test/vm/have-sctp"; then
	expect_fail "kernel SCTP missing: names usrsctp" "usrsctp" "$mp" -t sctp -d 0.2
fi
rm -f "$out"
done_testing
