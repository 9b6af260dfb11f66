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
