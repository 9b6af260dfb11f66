#!/bin/bash
# httpd-capture.sh: sctphttpd's HTTP over kernel SCTP as tshark decodes it (TAP): one
# association, requests on 10 streams (two pipelined on one, a file truncated mid-transfer on
# another, whose stream the server resets, RFC 6525), captured on lo. tshark, not our code, is
# the judge: PPID 63 on every DATA chunk, the streams used, each response on its request's
# stream and in order with the right body, the RE-CONFIG naming the truncated stream. Runs
# natively where the kernel has SCTP, else inside the VM (test/vm/run): "--inner" runs there.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
S=${HTTPD_STREAMS:-$top_builddir/test/unit/test_httpd_streams}

if [ "$1" != --inner ]; then
	need "$H" "$S" tshark
	run_tap kernel_sctp bash "$here/httpd-capture.sh" --inner
	done_testing
	exit
fi

scratch httpd-capture
chmod 755 "$tmp"
orig=$(sysctl -n net.sctp.reconf_enable 2>/dev/null)
trap 'scratch_cleanup; [ -z "$orig" ] || sysctl -qw net.sctp.reconf_enable="$orig"' EXIT

sctp_free() { ! ss -Hln --sctp "sport = :$1" 2>/dev/null | grep -q .; }
for try in $(seq 1 30); do
	b=$((20000 + (RANDOM % 2000) * 8))
	sctp_free $b && break
done

doc=$tmp/doc
mkdir -p "$doc/slow"
for i in $(seq 0 9); do printf 'body of /f%s.txt\n' "$i" >"$doc/f$i.txt"; done
echo again >"$doc/again.txt"
head -c 5000000 /dev/urandom >"$doc/slow/big.bin"
chmod -R a+rX "$doc"
echo 'slow/** 1000000' >"$tmp/throttles"

# RE-CONFIG is negotiated in INIT and the endpoint takes the sysctl when its socket is made.
sysctl -qw net.sctp.reconf_enable=1
tshark -i lo -f "sctp port $b" -w "$tmp/cap.pcapng" -q >"$tmp/ts.out" 2>"$tmp/ts.err" &
ts=$!
pids="$pids $ts"
for i in $(seq 1 200); do grep -q 'Capturing on' "$tmp/ts.err" && break; sleep 0.1; done
grep -q 'Capturing on' "$tmp/ts.err"
ok $? "tshark captures on lo"

httpd_start -n 2 h -p 0 -h 127.0.0.1 -d "$doc" -L sctp:127.0.0.1:$b -t "$tmp/throttles"
(sleep 1.5; : >"$doc/slow/big.bin") &
timeout 60 "$S" --timeout 30 --dir "$doc" --retry /again.txt sctp 127.0.0.1:$b \
    0:/f0.txt 1:/f1.txt 2:/f2.txt 3:/f3.txt 3:/f4.txt 4:/f5.txt 5:/f6.txt 6:/f7.txt \
    7:/f8.txt 8:/f9.txt 9:/slow/big.bin >"$tmp/s.out" 2>&1
rc=$?
sed 's/^/#   /' "$tmp/s.out"
[ $rc = 0 ] && grep -q '^reset stream=9 /slow/big.bin$' "$tmp/s.out"
ok $? "the exchange: 10 streams, stream 9 reset mid-transfer and then served again (exit $rc)"
sleep 0.5
kill -INT $ts
wait $ts
ok $? "tshark wrote the capture ($(stat -c %s "$tmp/cap.pcapng" 2>/dev/null) bytes)"

# Every DATA chunk: direction, TSN, stream, PPID, payload (hex), as tshark reads them. A packet
# may bundle several chunks: the values come space-separated, in chunk order.
tshark -r "$tmp/cap.pcapng" -o sctp.reassembly:FALSE -Y sctp.data_sid -T fields -E aggregator=' ' -e sctp.srcport \
    -e sctp.data_tsn -e sctp.data_sid -e sctp.data_payload_proto_id -e data.data \
    >"$tmp/data.txt" 2>"$tmp/tsr.err"
ok $? "tshark decodes the DATA chunks ($(wc -l <"$tmp/data.txt") packets)"
tshark -r "$tmp/cap.pcapng" -Y 'sctp.chunk_type == 130' -T fields -E aggregator=' ' \
    -e sctp.srcport -e sctp.parameter_reconfig_sid >"$tmp/reconf.txt" 2>>"$tmp/tsr.err"
grep -v "^Running as user" "$tmp/tsr.err" | sed "s/^/# /" | head -n 5

judge() {  # judge CHECK: one verdict of the python judge below, by name
	/usr/bin/python3 - "$b" "$doc" "$1" "$tmp/data.txt" "$tmp/reconf.txt" <<'PY'
import sys
port, doc, check, data, reconf = sys.argv[1:6]
chunks, seen = [], set()
for line in open(data):
    f = line.rstrip("\n").split("\t")
    if len(f) < 5:
        continue
    for tsn, sid, ppid, hexd in zip(*(x.split(" ") for x in f[1:5])):
        key = (f[0], tsn)
        if key in seen:      # a retransmission
            continue
        seen.add(key)
        chunks.append((f[0] == port, int(sid, 0), int(ppid), bytes.fromhex(hexd)))
reqs, resps = {}, {}
for fromsrv, sid, ppid, d in chunks:
    if fromsrv:
        if d.startswith(b"HTTP/1.1 "):
            resps.setdefault(sid, []).append(bytearray(d))
        elif resps.get(sid):
            resps[sid][-1] += d
    else:
        reqs.setdefault(sid, []).append(d.split(b" ")[1].decode())
def body(p):
    return open(doc + p, "rb").read()
bad = []
if check == "ppid":
    bad = [c[:3] for c in chunks if c[2] != 63]
    print("%d DATA chunks, %d not PPID 63" % (len(chunks), len(bad)))
elif check == "streams":
    got = sorted(reqs)
    bad = [] if got == list(range(10)) and sorted(resps) == got else [got, sorted(resps)]
    print("request streams %s, response streams %s" % (got, sorted(resps)))
elif check == "pairs":
    n = 0
    for sid, paths in sorted(reqs.items()):
        rs = resps.get(sid, [])
        if len(rs) != len(paths):
            bad.append("stream %d: %d requests %d responses" % (sid, len(paths), len(rs)))
            continue
        for p, r in zip(paths, rs):
            n += 1
            if p == "/slow/big.bin":
                continue     # truncated and reset: its body is cut short
            if not r.startswith(b"HTTP/1.1 200 ") or r.split(b"\r\n\r\n", 1)[1] != body(p):
                bad.append("stream %d: %s answered %r" % (sid, p, bytes(r[:40])))
    print("%d responses, each on its request's stream, in order; %d wrong" % (n, len(bad)))
elif check == "reset":
    sids = set()
    for line in open(reconf):
        f = line.rstrip("\n").split("\t")
        if len(f) > 1 and f[1]:
            sids.update(int(s, 0) for s in f[1].split(" "))
    bad = [] if sids == {9} else [sorted(sids)]
    print("RE-CONFIG names streams %s" % sorted(sids))
for b_ in bad[:5]:
    print("  %s" % (b_,))
sys.exit(1 if bad else 0)
PY
}
for c in ppid streams pairs reset; do
	judge $c >"$tmp/j.out" 2>&1
	rc=$?
	ok $rc "tshark's reading, $c: $(head -n1 "$tmp/j.out")"
	[ $rc = 0 ] || sed -n '2,6s/^/# /p' "$tmp/j.out"
done
done_testing
