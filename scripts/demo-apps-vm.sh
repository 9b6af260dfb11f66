#!/bin/bash
# scripts/demo-apps-vm.sh: inside the VM (test/vm/run), two hosts in network namespaces joined
# by a veth pair, delay (and loss) by netem: HTTP over TCP vs SCTP with 1, 10 and 100 streams,
# beside HTTP/2 (nginx h2c, h2load: 100 streams on one TCP connection) and HTTP/3 (ngtcp2's
# gtlsserver and gtlsclient over QUIC) where those are installed, then MP3 over RTP on a lossy path with UDP, SCTP (unordered) and PR-SCTP (a fixed 200 ms
# lifetime, and the lifetime from the playout delay with the RTO bounded to it).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/demo-apps.XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	ip netns del demo-srv 2>/dev/null || true
	ip netns del demo-cli 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
. test/nginx.sh # nginx_conf
S="ip netns exec demo-srv"
C="ip netns exec demo-cli"

# Two hosts, one link: 10.99.0.1 (server) <-> 10.99.0.2 (client), both in this VM.
ip netns add demo-srv
ip netns add demo-cli
ip link add d-srv type veth peer name d-cli
ip link set d-srv netns demo-srv
ip link set d-cli netns demo-cli
$S ip addr add 10.99.0.1/24 dev d-srv
$C ip addr add 10.99.0.2/24 dev d-cli
for ns in demo-srv demo-cli; do ip -n $ns link set lo up; done
$S ip link set d-srv up
$C ip link set d-cli up
link() { # link DELAY_MS LOSS_PCT: netem on both ends (one-way delay DELAY_MS)
	$S tc qdisc replace dev d-srv root netem delay "${1}ms" loss "${2}%" rate 100mbit
	$C tc qdisc replace dev d-cli root netem delay "${1}ms" loss "${2}%" rate 100mbit
}

# --- HTTP: 100 requests for a 1 KiB file, 10 ms one-way delay ---
link 10 0
mkdir -p "$tmp/www"
head -c 1024 /dev/urandom >"$tmp/www/1k"
$S ./sctphttpd -d "$tmp/www" -h 10.99.0.1 -p 8080 -L sctp:10.99.0.1:8080 --idle-timeout 30 \
	>"$tmp/httpd.out" 2>&1 &
pids="$pids $!"
sleep 1
hl() { # hl LABEL ARGS...: one httpload run, its duration and reply rate
	local out
	out=$($C httpload/httpload --server 10.99.0.1 --port 8080 --uri /1k --timeout 20 "${@:2}" 2>&1)
	local n d
	n=$(echo "$out" | sed -n 's/^Total: .*replies \([0-9]*\).*/\1/p')
	d=$(echo "$out" | sed -n 's/^Total: .*test-duration \([0-9.]*\) s.*/\1/p')
	printf '| %s | %s | %s | %s |\n' "$1" "$n" "$d" \
		"$(awk -v n="${n:-0}" -v d="${d:-0}" 'BEGIN { if (d > 0) printf "%.0f", n / d; else print "-" }')"
}
echo "HTTP: 100 GETs of a 1 KiB file, link 100 Mbit/s, 10 ms one-way delay (RTT 20 ms)"
echo "| transport | replies | duration (s) | replies/s |"
echo "|---|---|---|---|"
hl "TCP, a connection per request" --num-conns 100 --num-calls 1
hl "TCP, one keep-alive connection" --num-conns 1 --num-calls 100
hl "SCTP, 1 stream" --proto sctp --streams 1 --num-conns 1 --num-calls 100
hl "SCTP, 10 streams" --proto sctp --streams 10 --num-conns 1 --num-calls 100
hl "SCTP, 100 streams" --proto sctp --streams 100 --num-conns 1 --num-calls 100
row() { # row LABEL REPLIES SECONDS
	printf '| %s | %s | %s | %s |\n' "$1" "${2:-0}" "${3:--}" \
		"$(awk -v n="${2:-0}" -v d="${3:-0}" 'BEGIN { if (d > 0) printf "%.0f", n / d; else print "-" }')"
}
# HTTP/2: nginx, cleartext h2c (prior knowledge), h2load's 100 streams on one connection
if command -v nginx >/dev/null && command -v h2load >/dev/null; then
	nginx_conf "$tmp/ng" "http2_max_concurrent_streams 128;" \
	    "server { listen 10.99.0.1:8443 http2; root $tmp/www; }"
	$S nginx -c "$tmp/ng/nginx.conf" -p "$tmp/ng" >/dev/null 2>&1 &
	pids="$pids $!"
	sleep 1
	out=$($C h2load -n 100 -c 1 -m 100 http://10.99.0.1:8443/1k 2>&1)
	# the run counts only where h2c was used, never a fallback to HTTP/1.1
	echo "$out" | grep -q '^Application protocol: h2c' || out=
	row "HTTP/2 h2c (nginx), 100 streams, 1 TCP conn." \
		"$(echo "$out" | sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p')" \
		"$(echo "$out" | awk '/^finished in/ { v = $3; sub(/,$/, "", v); if (v ~ /ms$/) { sub(/ms$/, "", v); v /= 1000 } else sub(/s$/, "", v); printf "%.3f", v }')"
fi
# HTTP/3: ngtcp2's examples over QUIC (TLS 1.3 inside), a self-signed certificate; the time is
# gtlsclient's whole run (handshake included, as h2load's and httpload's)
if command -v gtlsserver >/dev/null && command -v gtlsclient >/dev/null; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=demo \
		-keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
	$S gtlsserver -q -d "$tmp/www" 10.99.0.1 4433 "$tmp/key.pem" "$tmp/cert.pem" >/dev/null 2>&1 &
	pids="$pids $!"
	sleep 1
	urls=()
	for _ in $(seq 100); do urls+=(https://10.99.0.1:4433/1k); done
	t0=$(date +%s.%N)
	n=$($C timeout 60 gtlsclient --no-quic-dump --no-http-dump --exit-on-all-streams-close \
		--max-streams-bidi=128 10.99.0.1 4433 "${urls[@]}" 2>&1 >/dev/null |
		grep -c '^HTTP stream [0-9]* closed')
	t1=$(date +%s.%N)
	row "HTTP/3 (ngtcp2), 100 streams, QUIC" "$n" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
fi

# --- MP3: 10 s at 192 kbit/s, 30 ms one-way delay, 3 % loss each way ---
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth 10 sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 192 "$tmp/src.wav" "$tmp/a.mp3"
link 30 3
echo
echo "MP3 (RFC 2250), 10 s at 192 kbit/s, 30 ms one-way delay, 3 % loss each way"
echo "| transport | frames played | concealed | longest gap (ms) | verdict |"
echo "|---|---|---|---|---|"
port=5004
audio() { # audio LABEL TRANSPORT-ARGS [SEND-ARGS]
	port=$((port + 2))
	$C rtpaudio/rtpaudio play $2 -d 1000 --idle 3000 -D 25 --json -o /dev/null \
		10.99.0.2:$port >"$tmp/a.json" 2>/dev/null &
	local pp=$!
	sleep 0.5
	$S rtpaudio/rtpaudio send $2 ${3:-} "$tmp/a.mp3" 10.99.0.2:$port 2>/dev/null || true
	wait $pp || true
	local j
	j=$(cat "$tmp/a.json")
	printf '| %s | %s | %s | %s | %s |\n' "$1" \
		"$(echo "$j" | sed -n 's/.*"frames_played":\([0-9]*\).*/\1/p')" \
		"$(echo "$j" | sed -n 's/.*"frames_concealed":\([0-9]*\).*/\1/p')" \
		"$(echo "$j" | sed -n 's/.*"longest_gap_ms":\([0-9.]*\).*/\1/p')" \
		"$(echo "$j" | grep -q '"satisfactory":true' && echo satisfactory || echo not satisfactory)"
}
audio "UDP" "-t udp"
audio "SCTP, unordered" "-t sctp"
audio "PR-SCTP, lifetime 200 ms" "-t prsctp" "--lifetime 200"
audio "PR-SCTP, lifetime auto, RTO 200..1000 ms" "-t prsctp" "--lifetime auto --rto-min 200 --rto-max 1000"
