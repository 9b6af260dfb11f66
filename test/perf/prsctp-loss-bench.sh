#!/bin/bash
# test/perf/prsctp-loss-bench.sh: rtpaudio's PR-SCTP over usrsctp-nt and the threaded usrsctp
# beside plain UDP at LOSS % random loss (nftables "numgen random" on lo in a network
# namespace of each run's own, unshare -n; both ways), RUNS runs of each, three at a time;
# prints every run's residual frame loss, packets never played and the sender's end, the
# medians, whether nt's median is no worse than the threaded one's, and how many SCTP runs lost
# more than the UDP run beside them (issue 35's target: none).
# Extra sender options (e.g. --rto-min 1000 --rto-max 60000, the stacks' own) in SEND_ARGS.
# usage: test/perf/prsctp-loss-bench.sh [RUNS (5)] [LOSS (5)] [SECONDS (10)]   (root)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/../.." && pwd)}
R=${RTPAUDIO:-$top/rtpaudio/rtpaudio}
runs=${1:-5} loss=${2:-5} secs=${3:-10}
for t in "$R" sox lame nft unshare ip; do
	command -v "$t" >/dev/null || { echo "prsctp-loss-bench: $t missing" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/prsctp-loss-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
sox -n -r 44100 -c 2 -b 16 "$tmp/src.wav" synth "$secs" sine 220-1760 sine 330-2640 vol 0.5
lame --quiet -b 128 "$tmp/src.wav" "$tmp/a.mp3"
echo "# rtpaudio PR-SCTP (lifetime 200 ms, playout 200 ms) at $loss % random loss both ways, ${secs} s of audio, $runs runs; sender options: ${SEND_ARGS:-none}"
echo "# host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the start"

. "$(dirname "$0")/../integration/rtp-lossy.sh" # run NAME TRANSPORT STACK LOSS-PCT [SEND-ARGS], field, median

worse=0
for i in $(seq 1 "$runs"); do
	run nt$i prsctp usrsctp-nt "$loss" "${SEND_ARGS:-}" &
	run th$i prsctp usrsctp "$loss" "${SEND_ARGS:-}" &
	run udp$i udp - "$loss" &
	wait
	line="run $i:"
	for t in nt th udp; do
		line="$line $t $(field $t$i residual_frame_loss_pct) % ($(field $t$i packets_lost) never played, end $(cat "$tmp/$t$i.t") ms, exit $(cat "$tmp/$t$i.rc" 2>/dev/null | tr ' ' /));"
	done
	echo "$line"
	u=$(field udp$i residual_frame_loss_pct)
	for t in nt th; do
		awk -v a="$(field $t$i residual_frame_loss_pct)" -v b="$u" 'BEGIN { exit !(a != "" && b != "" && a <= b) }' ||
		    { echo "  $t lost more than UDP in run $i"; worse=$((worse + 1)); }
	done
done
for t in nt th udp; do
	eval "m_$t=$(for i in $(seq 1 "$runs"); do field $t$i residual_frame_loss_pct; done | median)"
done
echo "median residual frame loss: usrsctp-nt ${m_nt} %, usrsctp ${m_th} %, udp ${m_udp} %"
awk -v a="$m_nt" -v b="$m_th" 'BEGIN { exit !(a >= 0 && a <= b) }' && v=yes || v=no
echo "nt's median no worse than threaded's: $v; SCTP runs worse than the UDP run beside them: $worse"
