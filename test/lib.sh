# test/lib.sh: TAP helpers for the test scripts (sourced). Every script prints TAP.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
tap_n=0
tap_failed=0
tap_t0=$(date +%s)

ok() {    # ok STATUS DESCRIPTION: STATUS 0 passes; returns 0 when it passed, 1 when not
	# (so that `ok $? "..." || diag-or-return` runs its right side exactly on a failure)
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
		return 0
	fi
	echo "not ok $tap_n - $2"
	tap_failed=$((tap_failed + 1))
	return 1
}

diag() { printf '# %s\n' "$*"; }

# todo STATUS DESCRIPTION REASON: a check known to fail for REASON (TAP's TODO): a failure is
# printed "not ok N - DESCRIPTION # TODO REASON" and fails nothing; a pass is a plain ok
todo() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
		return 0
	fi
	echo "not ok $tap_n - $2 # TODO $3"
	return 1
}

# run_tap CMD...: run a TAP producer (a cmocka binary, a script in the VM), renumber its lines
# into ours and keep its verdicts; a producer that dies without results fails.
run_tap() {
	local out rc line n0=$tap_n
	out=$(mktemp)
	CMOCKA_MESSAGE_OUTPUT=TAP "$@" >"$out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			local st=0 desc
			case "$line" in "not ok "*) st=1 ;; esac
			desc=$(printf '%s\n' "$line" | sed -E 's/^(not )?ok [0-9]* ?-? ?//')
			case "$desc" in
			*" # TODO "*) todo $st "${desc%% # TODO *}" "${desc#* # TODO }" ;;
			*) ok $st "$desc" ;;
			esac
			;;
		[0-9]*..[0-9]*) ;;
		*) printf '# %s\n' "$line" ;;
		esac
	done <"$out"
	rm -f "$out"
	if [ $rc -ne 0 ] && [ $tap_failed -eq 0 ]; then
		ok 1 "$1 exited with status $rc"
	elif [ $tap_n -eq $n0 ]; then
		ok 1 "$1 produced no results (exit $rc)"
	fi
}

# kernel_sctp CMD...: run where the kernel has SCTP: natively, or inside the VM (test/vm/run).
kernel_sctp() { vm_or_native "" "$@"; }

# vm_or_native HAVE_SCTP_OPTS CMD...: CMD natively where test/vm/have-sctp (with those options)
# says the host has it all, else inside the VM (test/vm/run).
vm_or_native() {
	local opts=$1 rc
	shift
	# shellcheck disable=SC2086
	if "$top_srcdir/test/vm/have-sctp" $opts 2>/dev/null; then
		"$@"
	else
		# 124: the VM timed out, 125: it did not boot. Under a loaded host the emulated
		# machine has been seen to hang without output once; a second try tells that apart
		# from a test that hangs (which then fails again).
		"$top_srcdir/test/vm/run" "$@"
		rc=$?
		if [ $rc -eq 124 ] || [ $rc -eq 125 ]; then
			echo "# test/vm/run exited $rc: trying once more"
			"$top_srcdir/test/vm/run" "$@"
			rc=$?
		fi
		return $rc
	fi
}

done_testing() {
	# the wall time, for CI's budget: grep -h "^# wall" test/*/*.log | sort -k3 -n
	echo "# wall $(($(date +%s) - tap_t0)) s $0"
	echo "1..$tap_n"
	[ $tap_failed -eq 0 ]
}

# include_edges DIR: "from to" for each #include "to.h" of a from.c or from.h in DIR where DIR/to.h
# exists, sorted (the structure tests' include graph, for tsort)
include_edges() {
	for f in "$1"/*.c "$1"/*.h; do
		from=$(basename "$f"); from=${from%.*}
		sed -n 's/^#include "\([^"]*\)\.h".*/\1/p' "$f" | while read -r to; do
			[ -f "$1/$to.h" ] && [ "$to" != "$from" ] && echo "$from $to"
		done
	done | sort -u
}

# call_edges DIR: "from to" for each external function (or data) that DIR's object from.o
# uses (nm: undefined) and DIR's to.o defines, sorted: the structure tests' call graph, for
# tsort. An object's name loses automake's target prefix (rtpaudio-play.o is play).
call_edges() {
	for o in "$1"/*.o; do
		[ -f "$o" ] || continue
		m=$(basename "$o" .o); m=${m#*-}
		nm "$o" | awk -v m="$m" 'NF == 3 && $2 ~ /^[TDBRC]$/ { print "D", $3, m }
			NF == 2 && $1 == "U" { print "U", $2, m }'
	done | awk 'BEGIN { n = 0 } $1 == "D" { def[$2] = $3; next } { use[n] = $2; from[n] = $3; n++ }
		END { for (i = 0; i < n; i++) if ((use[i] in def) && def[use[i]] != from[i])
			print from[i], def[use[i]] }' | sort -u
}

# reanalyse_committed NN NAME DIR REPORT: an experiment's committed form made from its finished run
# in DIR, as a full run leaves it in docs/results/NN/ (run.meta, params.txt, the CSVs, raw/
# packed), then `test/experiments/run --reanalyse` from it alone into an empty folder
# (EXP_PROVENANCE in place of docs/results): one TAP check, the same report.md as REPORT.
# Uses $tmp; $run is test/experiments/run.
reanalyse_committed() {
	local nn=$1 name=$2 d=$3 want=$4
	mkdir -p "$tmp/prov/$nn" && cp "$d"/run.meta "$d"/params.txt "$d"/*.csv "$tmp/prov/$nn/" &&
		tar -czf "$tmp/prov/$nn/raw.tar.gz" -C "$d" raw
	EXP_PROVENANCE=$tmp/prov "$run" --reanalyse --out "$tmp/fresh" "$nn" >"$tmp/p.out" 2>&1
	grep -q "reanalysing the committed run in $tmp/prov/$nn/" "$tmp/p.out" && cmp -s "$tmp/fresh/$name/report.md" "$want"
	ok $? "from docs/results/$nn/ alone (raw.tar.gz unpacked into an empty folder): the same report.md" ||
		{ grep -v '^ok' "$tmp/p.out" | head -20; diff "$want" "$tmp/fresh/$name/report.md" | head; } | sed 's/^/# /'
}

# scratch NAME: a fresh directory in $tmp and a list of background processes in $pids; at exit
# the processes are killed and the directory removed.
scratch() {
	tmp=$(mktemp -d "/tmp/$1.XXXXXX")
	pids=
	trap scratch_cleanup EXIT
}

scratch_cleanup() {
	# "|| :": in a script under set -e a process already gone must not stop the cleanup
	for p in $pids; do
		kill "$p" 2>/dev/null || :
	done
	wait 2>/dev/null || :
	if [ -n "${KEEP_SCRATCH:-}" ]; then
		echo "# scratch kept: $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}

# daemon_start [-n COUNT] [-t SECONDS] NAME READY-REGEX CMD...: CMD in the background, its
# stdout in $tmp/NAME.out and stderr in $tmp/NAME.err (after scratch), its pid in $daemon_pid
# and $last and in $pids (killed at exit). Ready when READY-REGEX (grep -E) matched COUNT lines
# (default 1) of the two files: 0. When CMD exits first or is not ready within SECONDS (default
# 10; 60 in the VM, SCTPAPPS_VM=1, whose emulated CPUs are slow): the last lines of its output
# as diagnostics, and 1.
daemon_start() {
	local n=1 t=10 name re end why f
	[ "${SCTPAPPS_VM:-0}" = 1 ] && t=60
	while :; do
		case $1 in
		-n) n=$2; shift 2 ;;
		-t) t=$2; shift 2 ;;
		*) break ;;
		esac
	done
	name=$1 re=$2
	shift 2
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	daemon_pid=$!
	last=$daemon_pid
	pids="$pids $daemon_pid"
	why="not ready after $t s"
	end=$(($(date +%s%N) + t * 1000000000)) # the clock's: a loaded host slows the loop
	while [ "$(date +%s%N)" -lt $end ]; do
		daemon_ready && return 0
		kill -0 "$daemon_pid" 2>/dev/null || { why="exited"; break; }
		sleep 0.1
	done
	daemon_ready && return 0 # it said so, then exited
	diag "$name ($1): $why, $n line(s) matching '$re' wanted; its output ends:"
	for f in "$tmp/$name.err" "$tmp/$name.out"; do
		[ -s "$f" ] && tail -n 20 "$f" | sed "s|^|# ${f##*/}: |"
	done
	return 1
}
daemon_ready() { # (daemon_start's locals) enough lines matched
	[ "$(cat "$tmp/$name.out" "$tmp/$name.err" 2>/dev/null | grep -acE "$re")" -ge "$n" ]
}

# httpd_start [-n COUNT] [-t SECONDS] NAME ARGS...: sctphttpd ($H, else the built one) with ARGS
# (daemon_start, NAME); ready when it said "listening on" COUNT times (default: one per -p and
# -L, else one: the default port or a -C file's first) and, with --workers, "N workers". $port:
# the port of its first TCP listener (unchanged without one: it may be the script's own).
httpd_start() {
	local want=0 t= a w=0 name
	while [ "$1" = -n ] || [ "$1" = -t ]; do
		if [ "$1" = -n ]; then want=$2; else t="-t $2"; fi
		shift 2
	done
	name=$1
	shift
	if [ "$want" = 0 ]; then
		for a in "$@"; do
			case $a in -p|--port|--port=*|-L|--listen|--listen=*) want=$((want + 1)) ;; esac
		done
		[ "$want" = 0 ] && want=1
	fi
	case " $* " in *" --workers "*|*" --workers="*) w=1 ;; esac
	# shellcheck disable=SC2086
	daemon_start $t -n $((want + w)) "$name" \
	    "^sctphttpd: (listening on |[0-9]+ workers\$)" "${H:-$top_builddir/sctphttpd}" "$@"
	w=$?
	a=$(sed -n 's/^sctphttpd: listening on tcp .*:\([0-9]*\)$/\1/p' "$tmp/$name.err" | head -n1)
	[ -z "$a" ] || port=$a
	return $w
}

# kernel_netem CMD...: like kernel_sctp, for what needs kernel SCTP and netem, veth, nftables
# (test/lab): natively where the host has them all, else inside the VM (test/vm/run).
kernel_netem() { vm_or_native --netem "$@"; }

# wait_bound [-n NETNS] PORT...: wait (10 s at most) until one of these ports is bound, for
# TCP, UDP or SCTP, on this host (or in NETNS), so that a sender started next finds its
# receiver (a fixed pause is a guess on a loaded machine); without ss, a fixed pause.
# Fails if none was bound in time.
wait_bound() {
	local i p f="" x=""
	[ "$1" = -n ] && { x="ip netns exec $2"; shift 2; }
	for p in "$@"; do f="$f${f:+ or }sport = :$p"; done
	if ! $x ss -HtuSan >/dev/null 2>&1; then
		sleep 0.5
		return 0
	fi
	for i in $(seq 1 100); do
		$x ss -HtuSan "( $f )" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# need FILE|COMMAND...: each must be an executable file (a path) or a command on PATH, else one
# failing result and the end of the script (a missing prerequisite fails, it never skips)
need() {
	local f
	for f in "$@"; do
		case $f in
		*/*) [ -x "$f" ] && continue ;;
		*) command -v "$f" >/dev/null && continue ;;
		esac
		ok 1 "$f missing (make check builds our programs; scripts/setup.sh installs the rest)"
		done_testing
		exit
	done
}

# udp_base N: a base port B such that UDP ports B .. B+N-1 are free (usrsctp encapsulation
# ports for a server and its clients), in $udp_base.
udp_base() {
	local try i
	for try in $(seq 1 30); do
		udp_base=$((30000 + (RANDOM % 1000) * 8))
		for i in $(seq 0 $(($1 - 1))); do
			ss -Huan "sport = :$((udp_base + i))" 2>/dev/null | grep -q . && continue 2
		done
		return 0
	done
}

# sigusr2_line PID FILE PATTERN: ask a server (sctphttpd) for its counters with SIGUSR2 and print
# the newest line of FILE (its stderr) matching PATTERN once a new one has come (5 s at most)
sigusr2_line() {
	local n j
	n=$(grep -c "$3" "$2")
	kill -USR2 "$1" 2>/dev/null
	for j in $(seq 1 50); do
		[ "$(grep -c "$3" "$2")" -gt "$n" ] && break
		sleep 0.1
	done
	grep "$3" "$2" | tail -n 1
}
