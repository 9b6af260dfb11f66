#!/bin/bash
# test/lab/test-hosts.sh: the experiments and the load generator on "real hosts" over ssh (TAP):
# three network namespaces, each with its own sshd (keys made here, its own configuration, on its
# own address; no system sshd touched), used through an inventory: experiments 01 and 04 in quick
# mode with --hosts --emulate against the same in the plain lab, an interrupted run that puts
# the qdiscs back, a host that fails, and a three-client httpload merge. Needs root, netns, netem,
# kernel SCTP, OpenSSH's sshd: run it through test/integration/lab-hosts.sh (in the VM).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# a private mount namespace: the ssh user below exists in it only
if [ -z "${HOSTS_TEST_MNT:-}" ]; then
	HOSTS_TEST_MNT=1 exec unshare -m bash "$0" "$@"
fi
. "$here/../lib.sh"
py=/usr/bin/python3
[ -x $py ] || py=python3
for t in /usr/sbin/sshd ssh ssh-keygen; do
	command -v $t >/dev/null || { echo "not ok 1 - $t missing (scripts/setup.sh installs openssh-server)"; exit 1; }
done
scratch lab-hosts
net=10.30.0
. "$here/hosts-fixture.sh"
ssh -n -i "$tmp/key" -o UserKnownHostsFile="$tmp/known" -o StrictHostKeyChecking=accept-new \
	-o BatchMode=yes "sctplab@$net.2" 'id -u; ip -br addr show eth0' >"$tmp/probe" 2>&1
grep -q "^0$" "$tmp/probe" && grep -q "$net.2/" "$tmp/probe"
ok $? "ssh reaches host b's own sshd in its namespace ($(tr '\n' ' ' <"$tmp/probe"))"

# --- experiments 01 and 04: the plain lab, then the same through the inventory ---
t0=$(date +%s)
"$root/test/experiments/run" --native --quick --out "$tmp/lab" 01 04 >"$tmp/lab.tap" 2>&1
rc=$?
diag "lab: $(tail -1 "$tmp/lab.tap") in $(($(date +%s) - t0)) s"
grep '^not ok' "$tmp/lab.tap" | sed 's/^/# lab: /'
# measured(TAP): each experiment ran to its end (its report written, no exit on an error) and
# its measurements worked; its qualitative checks are the experiment's business (on a loaded
# host a CPU-bound one may miss: diag)
measured() {
	! grep -Eq '^not ok .*(exited with status|wrote no report|produced no checks|every measurement worked|every run answered|answer on host)' "$1" &&
		[ "$(grep -c '^ok .*\(every measurement worked\|every run answered\)' "$1")" = 2 ]
}
measured "$tmp/lab.tap"
ok $? "experiments 01 and 04 in the plain lab: measured, reports written ($(tail -1 "$tmp/lab.tap"))"
t0=$(date +%s)
"$root/test/experiments/run" --hosts "$inv" --emulate --quick --out "$tmp/hosts" 01 04 \
	>"$tmp/hosts.tap" 2>&1
rc=$?
diag "hosts: $(tail -1 "$tmp/hosts.tap") in $(($(date +%s) - t0)) s"
grep -E '^(not ok|#.*(lab|host)[: ])' "$tmp/hosts.tap" | head -20 | sed 's/^/# hosts: /'
measured "$tmp/hosts.tap"
ok $? "the same over ssh, run --hosts --emulate --quick 01 04: measured, reports written ($(tail -1 "$tmp/hosts.tap"))"

# same rows, same order of magnitude (the VM's CPU is shared: loose)
$py - "$tmp/lab" "$tmp/hosts" >"$tmp/cmp" <<'PY'
import csv, sys, statistics
bad = []
for exp, key, val in (("01-loopback", ("protocol", "size_B"), "throughput_kbit_s"),
                      ("04-http", ("link_mbit", "file_bytes", "transport"), "throughput_KBps")):
    rows = []
    for d in sys.argv[1:]:
        rows.append({tuple(r[k] for k in key): r[val] for r in csv.DictReader(open("%s/%s/results.csv" % (d, exp)))})
    lab, hosts = rows
    if sorted(lab) != sorted(hosts):
        bad.append("%s: rows differ: %s" % (exp, sorted(set(lab) ^ set(hosts))))
    ratios = [float(hosts[k]) / float(lab[k]) for k in lab if k in hosts and lab[k] and hosts[k] and float(lab[k]) > 0]
    far = [k for k in lab if k in hosts and lab[k] and hosts[k] and float(lab[k]) > 0 and not 0.1 <= float(hosts[k]) / float(lab[k]) <= 10]
    print("%s: %d rows, hosts/lab %s: median %.2f, min %.2f, max %.2f; beyond 10x: %s" % (exp, len(lab), val,
          statistics.median(ratios), min(ratios), max(ratios), far or "none"))
    # loose: a loaded host's CPU moves a CPU-bound cell (01) a lot, the whole table little
    if not ratios or not 0.2 <= statistics.median(ratios) <= 5 or len(far) > len(ratios) // 4:
        bad.append("%s: median ratio %.2f, %d of %d cells beyond 10x" % (exp, statistics.median(ratios) if ratios else 0, len(far), len(ratios)))
for b in bad:
    print("MISMATCH " + b)
sys.exit(1 if bad else 0)
PY
st=$?
while IFS= read -r l; do diag "$l"; done <"$tmp/cmp"
ok $st "the hosts' results.csv have the lab's rows, the same order of magnitude (median ratio within 5x, at most a quarter of the cells beyond 10x)"
p=$tmp/hosts/04-http/params.txt
grep -q '^hosts: inventory .*netem' "$p" && grep -q "^host a: sctplab@$net.1 eth0" "$p" &&
	grep -q "^host b: sctplab@$net.2 eth0" "$p" && grep -q '^  system: .*kernel ' "$p" &&
	grep -q '^  nic eth0: mtu ' "$p" && grep -q '^  binaries .*msgperf (sctpapps)' "$p"
ok $? "04's params.txt records the hosts, kernels, NICs, link emulation and binaries"
grep -q 'on real hosts over ssh' "$tmp/hosts/01-loopback/report.md" &&
	[ -s "$tmp/hosts/04-http/04-http-1mbit.png" ] && [ -s "$tmp/hosts/04-http/samples.csv" ]
ok $? "reports and figures come back into the output folder ($(grep -o 'on real hosts over ssh[^.]*' "$tmp/hosts/01-loopback/report.md" | head -c 160))"
left=""
for i in 0 1 2; do
	q=$(ip netns exec "${ns[$i]}" tc qdisc show dev eth0 root)
	case "$q" in *netem*) left="$left ${ns[$i]}: $q;" ;; esac
	m=$(ip netns exec "${ns[$i]}" cat /sys/class/net/lo/mtu)
	[ "$m" = 65536 ] || left="$left ${ns[$i]}: lo mtu $m;"
	for p in $(ip netns pids "${ns[$i]}"); do
		c=$(tr '\0' ' ' <"/proc/$p/cmdline")
		case "$c" in *sshd*) ;; *) left="$left ${ns[$i]}: $c;" ;; esac
	done
done
[ -z "$left" ]
ok $? "afterwards the hosts are as before: no netem, lo's MTU back, nothing left running${left:+ ($left)}"

# --- interrupted: the qdiscs go back all the same ---
"$root/test/experiments/run" --hosts "$inv" --emulate --quick --out "$tmp/int" 04 >"$tmp/int.tap" 2>&1 &
rp=$!
seen=0
for _ in $(seq 300); do
	ip netns exec "${ns[0]}" tc qdisc show dev eth0 root | grep -q netem && { seen=1; break; }
	sleep 0.2
done
sleep 2
kill -TERM $rp
wait $rp
rc=$?
q=$(ip netns exec "${ns[0]}" tc qdisc show dev eth0 root; ip netns exec "${ns[1]}" tc qdisc show dev eth0 root)
[ $seen = 1 ] && [ $rc -ne 0 ] && ! grep -q netem <<<"$q"
ok $? "run stopped (SIGTERM) while netem was on: exit $rc, the qdiscs put back ($(echo $q | head -c 120))"

# --- a failed host fails the run with its name and its first error line ---
sed "s/^b .*/b sctplab@$net.9 eth0 $net.9/" "$inv" >"$tmp/bad"
"$root/test/experiments/run" --hosts "$tmp/bad" --quick --out "$tmp/bad-out" 04 >"$tmp/bad.tap" 2>&1
rc=$?
line=$(grep -m1 "host b (sctplab@$net.9, address $net.9): cannot log in: ssh: " "$tmp/bad.tap")
[ $rc -ne 0 ] && [ -n "$line" ]
ok $? "an unreachable host b: the run fails naming it (exit $rc: ${line:-$(grep -m3 . "$tmp/bad.tap" | tr '\n' ' ')})"
"$root/test/experiments/run" --hosts "$inv" --quick --out "$tmp/unsup" 02 >"$tmp/unsup.tap" 2>&1
grep -q 'not ok 1 - experiment 02: not supported with --hosts yet' "$tmp/unsup.tap"
ok $? "an experiment without hosts support says so ($(grep -m1 'not ok' "$tmp/unsup.tap"))"

# --- three httpload clients at one moment, one merged report ---
mkdir -p "$tmp/www"
chmod 755 "$tmp/www"
head -c 20000 /dev/urandom >"$tmp/www/f20k"
ip netns exec "${ns[1]}" "$root/sctphttpd" -d "$tmp/www" -h "$net.2" -p 8080 -L "sctp:$net.2:8080" \
	>"$tmp/httpd.log" 2>&1 &
pids="$pids $!"
wait_bound -n "${ns[1]}" 8080
"$root/test/experiments/loadgen" --hosts "$inv" --clients a,a2,a3 --out "$tmp/lg" -- \
	--proto sctp --streams 10 --server '{ADDR:b}' --port 8080 --uri /f20k --num-conns 8 \
	--num-calls 10 --timeout 30 >"$tmp/lg.out" 2>&1
rc=$?
grep '^client \|^Merged\|^Total\|^Latency' "$tmp/lg.out" | while IFS= read -r l; do diag "$l"; done
ok $rc "loadgen: three clients over ssh (a, a2, a3), exit $rc"
$py - "$tmp/lg" <<'PY' >"$tmp/lgcmp"
import json, sys, glob
d = sys.argv[1]
m = json.load(open(d + "/merged.json"))
cs = [json.load(open(f)) for f in sorted(glob.glob(d + "/client-*.json"))]
bad = [k for k in ("connections", "requests", "replies") if m[k] != sum(c[k] for c in cs)]
bad += ["errors." + k for k in m["errors"] if m["errors"][k] != sum(c["errors"][k] for c in cs)]
bad += ["bytes." + k for k in m["bytes"] if m["bytes"][k] != sum(c["bytes"][k] for c in cs)]
if m["raw"]["lat"]["n"] != sum(c["raw"]["lat"]["n"] for c in cs): bad.append("latency calls")
if abs(m["clients_rate_sum"]["reply_rate"] - sum(c["reply_rate"] for c in cs)) > 0.01: bad.append("reply rate sum")
print("%d clients; replies %d = %s; reply rate sum %.1f/s" % (len(cs), m["replies"],
      " + ".join(str(c["replies"]) for c in cs), m["clients_rate_sum"]["reply_rate"]))
if len(cs) != 3 or m["replies"] != 3 * 80: bad.append("not 3 x 80 replies")
print("MISMATCH " + ", ".join(bad) if bad else "sums agree")
sys.exit(1 if bad else 0)
PY
st=$?
ok $st "the merged report's totals are the sums of the three clients' ($(tr '\n' ' ' <"$tmp/lgcmp"))"
# --- a host whose sshd is slow to greet: the login is tried again ---
# on host a2's namespace a second address, $net.4, where a relay to its sshd stays silent on the
# first connection it takes (ssh: "Connection timed out during banner exchange") and relays the
# others; with a 3 s ConnectTimeout from the inventory, one client over it
ip -n "${ns[2]}" addr add "$net.4/24" dev eth0
ip netns exec "${ns[2]}" $py - "$net.4" "$net.3" >"$tmp/greeter.log" 2>&1 <<'PY' &
import socket, sys, threading, time
src, dst = sys.argv[1], sys.argv[2]
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((src, 22)); ls.listen(16)
print("listening", flush=True)
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d: break
            b.sendall(d)
    except OSError: pass
    for s in (a, b):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
n = 0
while True:
    c, _ = ls.accept(); n += 1
    print("connection", n, flush=True)
    if n == 1:
        threading.Thread(target=lambda c=c: (time.sleep(20), c.close()), daemon=True).start()
        continue
    u = socket.create_connection((dst, 22))
    threading.Thread(target=pipe, args=(c, u), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c), daemon=True).start()
PY
pids="$pids $!"
for _ in $(seq 50); do grep -q listening "$tmp/greeter.log" && break; sleep 0.1; done
{
	grep -v '^ssh ' "$inv" | grep '^b '
	echo "a4 sctplab@$net.4 eth0 $net.4"
	echo "ssh -i $tmp/key -o UserKnownHostsFile=$tmp/known -o StrictHostKeyChecking=no -o ConnectTimeout=3"
} >"$tmp/slow"
t0=$(date +%s)
"$root/test/experiments/loadgen" --hosts "$tmp/slow" --clients a4 --out "$tmp/lg-slow" -- \
	--proto tcp --server '{ADDR:b}' --port 8080 --uri /f20k --num-conns 4 --num-calls 2 \
	--timeout 30 >"$tmp/lg-slow.out" 2>&1
rc=$?
retry=$(grep -m1 'host a4 .*login 1 of 3 failed' "$tmp/lg-slow.out")
[ $rc = 0 ] && [ -n "$retry" ] && grep -q '^Total: connections 4 requests 8 replies 8' "$tmp/lg-slow.out"
ok $? "a host slow to greet (its first connection silent): the login tried again, the run served (exit $rc in $(($(date +%s) - t0)) s; ${retry:-$(grep -m2 . "$tmp/lg-slow.out" | tr '\n' ' ')})"

# what ran, for a look afterwards (test/vm/run --out DIR, or natively $VM_OUT)
[ -z "${VM_OUT:-}" ] || cp -r "$tmp/lab" "$tmp/hosts" "$tmp"/*.tap "$tmp/lg" "$VM_OUT/" 2>/dev/null
done_testing
