# test/experiments/common.sh: what experiments 01-03 share (sourced): the lab, TAP checks,
# gnuplot, numbers. Environment (from test/experiments/run): QUICK, EXP_OUT, EXP_ROOT.
: "${EXP_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${QUICK:=0}"
: "${EXP_OUT:?EXP_OUT not set (run through test/experiments/run)}"
export EXP_ROOT QUICK EXP_OUT
LAB_OUT=$EXP_OUT
. "$EXP_ROOT/test/lab/lab.sh"
MSGPERF=$EXP_ROOT/msgperf
: "${top_srcdir:=$EXP_ROOT}"
. "$EXP_ROOT/test/lib.sh"
[ -x "$MSGPERF" ] || { ok 1 "$MSGPERF not built (scripts/setup.sh)"; exit 1; }
command -v gnuplot >/dev/null || { ok 1 "gnuplot not installed (apt-get install gnuplot-nox)"; exit 1; }

# check STATUS DESCRIPTION: one TAP line, lib.sh's ok (run renumbers them); while
# $EXP_SKIP_WHY says why (a row this check needs was skipped by the plan), a TAP skip instead
check() {
	if [ -n "${EXP_SKIP_WHY:-}" ]; then ok 0 "$2 # SKIP $EXP_SKIP_WHY"; else ok "$@"; fi
}

exp_done() { exit $((tap_failed > 0)); }

# awk_test EXPR [VAR=VALUE...]: exit status of a numeric comparison done by awk; a VALUE that
# is missing (empty or "-": a measurement that failed or was skipped) fails it, whatever EXPR
awk_test() {
	local e=$1
	shift
	local a=() v
	for v in "$@"; do
		case ${v#*=} in "" | -) return 1 ;; esac
		a+=(-v "$v")
	done
	awk "${a[@]}" "BEGIN { exit !($e) }"
}

# fmt NUMBER [DECIMALS]: a number for a table ("-" stays)
fmt() {
	if [ -z "$1" ] || [ "$1" = - ]; then echo -; else LC_ALL=C printf '%.*f\n' "${2:-0}" "$1"; fi
}

# exp_plot NAME W H: run $EXP_OUT/NAME.gp twice, for NAME.png and NAME.svg (the script sets
# everything but the terminal and the output).
exp_plot() {
	local name=$1 w=${2:-1000} h=${3:-560}
	(cd "$EXP_OUT" &&
		gnuplot -e "set terminal pngcairo size $w,$h font 'Sans,10'; set output '$name.png'" "$name.gp" &&
		gnuplot -e "set terminal svg size $w,$h font 'Sans,10' dynamic; set output '$name.svg'" "$name.gp")
	check $? "figure $name.png and .svg drawn"
}

# exp_can ROLE CAP: whether host ROLE can do CAP (sctp, usrsctp): with --hosts tried there
# (test/lab/hosts.sh's lab_can; the reason in $LAB_WHY), in the lab and the VM always
exp_can() {
	LAB_WHY=
	[ -z "${LAB_HOSTS:-}" ] || lab_can "$@"
}

# exp_plan ROW WHY: say a row is planned (WHY empty) or skipped, for the log and the report
# ($EXP_SKIPPED: "ROW: WHY" lines)
EXP_SKIPPED=
exp_plan() {
	if [ -z "$2" ]; then
		diag "plan: $1: runs"
	else
		diag "plan: $1: skipped ($2)"
		EXP_SKIPPED="$EXP_SKIPPED$1: $2"$'\n'
	fi
}

# exp_where: a phrase for the report: where this ran
exp_where() {
	if [ -n "${LAB_HOSTS:-}" ]; then
		lab_hosts_where
	elif [ "${SCTPAPPS_VM:-0}" = 1 ]; then
		echo "in the project's VM (Debian kernel $(uname -r) under qemu TCG, $(nproc) vCPU)"
	else
		echo "natively (kernel $(uname -r), $(nproc) CPUs)"
	fi
}

# exp_server HOST PORT MSGPERF-SERVER-ARGS...: a msgperf server in HOST (lab_bg), listening on
# PORT (given in the args' address) before this returns; its pid in $LAB_PID. EXP_PIN=CPUS:
# the server runs on those CPUs only (taskset).
exp_server() {
	local host=$1 port=$2 i
	shift 2
	lab_bg "$host" ${EXP_PIN:+taskset -c "$EXP_PIN"} "$MSGPERF" server "$@"
	for i in $(seq 50); do
		[ -n "$("lab_$host" ss -Hln -t -S "sport = :$port" 2>/dev/null)" ] && return 0
		kill -0 "$LAB_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# exp_unshaped_mbit N CMD...: CMD (msgperf CSV lines on stdout, kbit/s in the 4th field) run N
# times with the link unshaped (lab_unshaped); the best, in Mbit/s. The best, because a shared
# host's load only ever lowers it: TCG's speed follows the host's idle cores.
exp_unshaped_mbit() {
	local n=$1
	shift
	while [ "$n" -gt 0 ]; do
		lab_unshaped "$@"
		n=$((n - 1))
	done |
		awk -F, '$4 > m { m = $4 } END { printf "%.1f\n", m / 1000 }'
}

# exp_max A B: the larger of two numbers
exp_max() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a ? b : a) }'; }

# exp_kill PID: stop a background job (a server) and reap it
exp_kill() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# --- repetitions, counters, reanalysis (issue 31) ---
# EXP_REPS: how often each cell is measured (rows interleaved within it): 5 in the full mode, 1
# in the quick one (CI's time); the environment may ask for more (10 where the spread is wide).
: "${EXP_REPS:=$([ "$QUICK" = 1 ] && echo 1 || echo 5)}"
[[ $EXP_REPS =~ ^[1-9][0-9]*$ ]] || { ok 1 "EXP_REPS='$EXP_REPS': a number of runs >= 1"; exit 1; }
CELLS=$EXP_ROOT/test/experiments/cells.py
# the system python (in the VM a pyenv shim in PATH is slow under TCG: test/vm/README.md)
EXP_PY=/usr/bin/python3
[ -x "$EXP_PY" ] || EXP_PY=python3

# exp_measuring: true on a measured run (raw/ made); with EXP_REANALYSE=1 (test/experiments/run
# --reanalyse) false, after loading the scalars the measured run saved (raw/measure.sh, exp_save):
# the script then analyses raw/ alone, and nothing it reports may come from this machine.
exp_measuring() {
	mkdir -p "$EXP_OUT/raw"
	[ "${EXP_REANALYSE:-0}" = 1 ] || return 0
	[ -s "$EXP_OUT/raw/measure.sh" ] || { check 1 "reanalyse: no finished run in $EXP_OUT (raw/measure.sh)"; exit 1; }
	. "$EXP_OUT/raw/measure.sh"
	echo "# reanalysed from $EXP_OUT/raw (measured $EXP_MEASURED_AT)"
	return 1
}

# exp_save VAR...: raw/measure.sh, the measured run's scalars for a reanalysis (with where, the
# kernel, the date and the runs per cell: the report's words about the run)
exp_save() {
	local v
	EXP_WHERE=$(exp_where) EXP_KERNEL=$(uname -r) EXP_IN_VM=${SCTPAPPS_VM:-0}
	EXP_MEASURED_AT=$(date -u '+%Y-%m-%d %H:%M UTC')
	for v in EXP_WHERE EXP_KERNEL EXP_IN_VM EXP_MEASURED_AT EXP_REPS QUICK "$@"; do
		printf '%s=%q\n' "$v" "${!v-}"
	done >"$EXP_OUT/raw/measure.sh"
}

# exp_counters: "RETRANS TIMEOUTS BUSY TOTAL" now: retransmissions (TCP's RetransSegs, SCTP's T3
# and fast retransmits) and timeouts (TCPTimeouts, SctpT3RtxExpireds) summed over hosts a and b,
# and the machine's busy and total CPU ticks (/proc/stat). Two of them: exp_counters_delta.
exp_counters() {
	{
		lab_a cat /proc/net/snmp /proc/net/netstat /proc/net/sctp/snmp
		lab_b cat /proc/net/snmp /proc/net/netstat /proc/net/sctp/snmp
	} 2>/dev/null | awk '
		$1 ~ /:$/ { if (seen[$1]) { for (i = 2; i <= NF; i++) v[$1 h[$1, i]] += $i; seen[$1] = 0 }
			    else { for (i = 2; i <= NF; i++) h[$1, i] = $i; seen[$1] = 1 }; next }
		NF == 2 { v[$1] += $2 }
		END { printf "%d %d ", v["Tcp:RetransSegs"] + v["SctpT3Retransmits"] + v["SctpFastRetransmits"],
			v["TcpExt:TCPTimeouts"] + v["SctpT3RtxExpireds"] }'
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8; exit }' /proc/stat
}
# exp_counters_delta BEFORE AFTER: "RETRANS,TIMEOUTS,CPU_PCT" between two exp_counters
exp_counters_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); t = y[4] - x[4]
		printf "%d,%d,%s\n", y[1] - x[1], y[2] - x[2], (t > 0 ? sprintf("%.0f", 100 * (y[3] - x[3]) / t) : "") }'
}

# exp_netem_stats NS DEV: "PKTS BYTES DROPPED" of the netem on DEV since it was set (lab_link)
exp_netem_stats() {
	ip netns exec "$1" tc -s qdisc show dev "$2" 2>/dev/null |
		awk '/^qdisc netem/ { on = 1; next } /^qdisc/ { on = 0 }
		     on && /Sent/ { gsub(/[(),]/, " "); for (i = 1; i <= NF; i++) { if ($i == "Sent") b = $(i+1); if ($i == "pkt") p = $(i-1); if ($i == "dropped") d = $(i+1) } }
		     END { print p + 0, b + 0, d + 0 }'
}

# exp_gt KEY_A KEY_B [FACTOR]: whether cell A is above FACTOR (1) times cell B, from the global
# arrays R (median), L, H (the interval) and N (runs) an experiment fills from cells.py: with at
# least 5 runs each only where A's interval lies above B's (L[A] > FACTOR x H[B]: a ranking holds
# only where the intervals say so), with fewer by the medians (the quick mode's single runs).
# $EXP_HOW says how it was judged, for the check's text.
exp_gt() {
	local a=$1 b=$2 f=${3:-1}
	if awk_test 'x >= 5 && y >= 5' x="${N[$a]:-0}" y="${N[$b]:-0}"; then
		EXP_HOW="intervals [$(fmt "${L[$a]:-}")-$(fmt "${H[$a]:-}")] and [$(fmt "${L[$b]:-}")-$(fmt "${H[$b]:-}")], ${N[$a]} and ${N[$b]} runs"
		awk_test 'lo > f * hi' lo="${L[$a]:-}" hi="${H[$b]:-}" f="$f"
	else
		EXP_HOW="medians of ${N[$a]:-0} and ${N[$b]:-0} runs, not judged by intervals"
		awk_test 'a > f * b' a="${R[$a]:-}" b="${R[$b]:-}" f="$f"
	fi
}

# exp_ci KEY [DECIMALS]: "median [lo-hi]" of a cell for a table (the median alone with 1 run)
exp_ci() {
	local k=$1 d=${2:-0}
	if [ -z "${R[$k]:-}" ]; then
		echo -
	elif [ "${N[$k]:-0}" -gt 1 ]; then
		echo "$(fmt "${R[$k]}" "$d") [$(fmt "${L[$k]}" "$d")-$(fmt "${H[$k]}" "$d")]"
	else
		fmt "${R[$k]}" "$d"
	fi
}
