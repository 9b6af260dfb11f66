# test/lab/hosts.sh: the lab's hosts as real machines over ssh (sourced by lab.sh when
# $LAB_HOSTS names an inventory; see test/lab/README.md). It replaces how a host is reached
# (lab_exec, lab_bg) and what a topology does (lab_loopback, lab_two_hosts, lab_link: netem on
# the inventory's interfaces only with LAB_EMULATE=1, else the real link as it is); the
# experiments' code stays the same.
#
# Inventory, one line a host, '#' comments:
#   ROLE USER@HOST IFACE ADDR     role a (client), b (server), r (router), or any name (loadgen)
#   ssh OPTION...                 more ssh options for every host (e.g. -p 2222 -i KEY)
# On a host this writes only ~/.cache/sctpapps-lab/ (the project's binaries, by content hash,
# and a run directory removed at the end) and what the experiment pushes (lab_push, removed at
# the end); with LAB_EMULATE=1 also the root qdisc of the named interfaces and the MTU of lo
# (experiment 01), put back at the end, even when the run is interrupted.

LAB_HCTL= LAB_HUP= LAB_HPUSHED= LAB_HBGN=0
declare -A LAB_HTARGET LAB_HIF LAB_HADDR LAB_HDIR LAB_HRUN LAB_HUID LAB_HBG LAB_HQDISC LAB_HMTU
LAB_HSSH=(-o BatchMode=yes)
# after the inventory's options (ssh keeps the first value it is given for an option, so an
# inventory's -o ConnectTimeout=... wins): a loaded host's sshd may take seconds to greet
LAB_HSSH_DEFAULTS=(-o ConnectTimeout=30 -o ServerAliveInterval=15 -o ServerAliveCountMax=8)
LAB_HBINS="msgperf sctphttpd httpload/httpload httpload/httpget"
: "${LAB_EMULATE:=0}"

# the inventory, checked line by line
lab_hosts_read() {
	local f=$1 n=0 role target ifc addr extra line
	[ -r "$f" ] || lab_die "inventory $f: cannot read it"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		line=${line%%#*}
		read -r role target ifc addr extra <<<"$line"
		[ -n "$role" ] || continue
		if [ "$role" = ssh ]; then
			read -r -a extra <<<"${line#*ssh}"
			LAB_HSSH+=("${extra[@]}")
			continue
		fi
		[[ $role =~ ^[a-z][a-z0-9_]*$ ]] || lab_die "inventory $f:$n: bad role '$role'"
		[ -n "$addr" ] && [ -z "$extra" ] ||
			lab_die "inventory $f:$n: want 'ROLE USER@HOST IFACE ADDR', got '$line'"
		[[ $target =~ ^[A-Za-z0-9._-]+@[A-Za-z0-9._:-]+$ ]] ||
			lab_die "inventory $f:$n: '$target' is not USER@HOST"
		[[ $ifc =~ ^[A-Za-z0-9._@-]+$ ]] || lab_die "inventory $f:$n: bad interface '$ifc'"
		[ -z "${LAB_HTARGET[$role]:-}" ] || lab_die "inventory $f:$n: role $role twice"
		LAB_HTARGET[$role]=$target LAB_HIF[$role]=$ifc LAB_HADDR[$role]=$addr
	done <"$f"
	[ ${#LAB_HTARGET[@]} -gt 0 ] || lab_die "inventory $f: no hosts"
	LAB_HSSH+=("${LAB_HSSH_DEFAULTS[@]}")
}

lab_hosts_roles() { printf '%s\n' "${!LAB_HTARGET[@]}" | sort; }

# lab_hsh ROLE STRING: STRING run by ROLE's shell over the control master's connection (a
# master that died is started again by the next command: ControlMaster=auto). ssh's own failure
# (255) with no master left and no new login either: the host is lost (lab_hlost ends the run).
# ssh runs in the background, waited for: a signal's trap (the run interrupted) acts at once,
# where ssh as a master's client would notice its SIGTERM only when the remote command next
# prints.
lab_hsh() {
	local rc
	[ ! -e "$LAB_HCTL/lost.$1" ] || return 255
	ssh -n "${LAB_HSSH[@]}" -o ControlMaster=auto -o ControlPersist=yes \
		-o ControlPath="$LAB_HCTL/%C" "${LAB_HTARGET[$1]}" "$2" &
	wait $!
	rc=$?
	[ $rc = 255 ] && [ -n "$LAB_HCTL" ] && case " $LAB_HUP " in *" $1 "*) true ;; *) false ;; esac &&
		! ssh "${LAB_HSSH[@]}" -o ControlPath="$LAB_HCTL/%C" -O check "${LAB_HTARGET[$1]}" 2>/dev/null &&
		! ssh -n "${LAB_HSSH[@]}" -o ControlMaster=no -o ConnectTimeout=10 "${LAB_HTARGET[$1]}" true \
		    2>"$LAB_HCTL/lost-probe.$1" </dev/null && lab_hlost "$1" "$LAB_HCTL/lost-probe.$1"
	return $rc
}

# lab_hfirst FILE: its first line that is not one of ssh's warnings ("Warning: Permanently
# added ... to the list of known hosts", the post-quantum notice): the real cause; else its first
# line
LAB_HWARN='^(Warning: Permanently added |\*\* WARNING: connection is not using a post-quantum|\*\* This session may be vulnerable|\*\* The server may need to be upgraded|Pseudo-terminal will not be allocated)'
lab_hfirst() {
	{ grep -Ev "$LAB_HWARN" "$1" 2>/dev/null | grep -m1 . || grep -m1 . "$1" 2>/dev/null ||
		echo 'failed, no message'; } | tr -d '\r' # (ssh ends some lines with CR LF)
}

# lab_hname ROLE: how a message names a host: role, target, address
lab_hname() { echo "host $1 (${LAB_HTARGET[$1]}, address ${LAB_HADDR[$1]})"; }

# lab_hlost ROLE ERRFILE: a host that went away during the run: said once (stderr, and
# $LAB_OUT/hosts-lost for test/experiments/run: "ROLE|TARGET|ADDR|LINE"), and the run ends: this
# shell exits 3, or from a subshell ($(...), a pipeline) the main shell is told (SIGUSR1, whose
# trap lab_hosts_up set: exit 3). The teardown leaves a lost host alone and says what is left there.
lab_hlost() {
	local line
	[ -z "${LAB_HTEARDOWN:-}" ] || return 0
	[ ! -e "$LAB_HCTL/lost.$1" ] || return 0
	: >"$LAB_HCTL/lost.$1"
	line=$(lab_hfirst "$2")
	echo "lab: $(lab_hname "$1") lost during the run: $line" >&$LAB_HERR
	[ -z "${LAB_OUT:-}" ] || echo "$1|${LAB_HTARGET[$1]}|${LAB_HADDR[$1]}|$line" >>"$LAB_OUT/hosts-lost"
	[ "$BASHPID" = "$$" ] || kill -USR1 $$
	exit 3
}

# lab_hlogin ROLE ERRFILE: the control master to ROLE. A login that timed out or was cut
# (a loaded host's sshd slow to greet, MaxStartups) is tried again, three times in all, each
# retry said on stderr; any other failure (no route, refused, a key not accepted) is final.
lab_hlogin() {
	local role=$1 e=$2 try
	for try in 1 2 3; do
		ssh -fN "${LAB_HSSH[@]}" -o ControlMaster=yes -o ControlPersist=yes \
			-o ControlPath="$LAB_HCTL/%C" "${LAB_HTARGET[$role]}" 2>"$e" </dev/null && return 0
		grep -Eqi 'timed out|reset by peer|closed by remote|connection closed|kex_exchange_identification' "$e" &&
			[ $try -lt 3 ] || return 1
		echo "lab: $(lab_hname "$role"): login $try of 3 failed ($(lab_hfirst "$e")); trying again" >&2
		sleep $((try * 2))
	done
}

# lab_hroot ROLE STRING: as root there (sudo -n when the inventory's user is not root)
lab_hroot() {
	if [ "${LAB_HUID[$1]}" = 0 ]; then lab_hsh "$1" "$2"; else lab_hsh "$1" "sudo -n sh -c $(printf '%q' "$2")"; fi
}

# lab_hfail ROLE WHAT ERRFILE: the run ends with the host's name and its first error line
lab_hfail() {
	lab_die "$(lab_hname "$1"): $2: $(lab_hfirst "$3")"
}

# lab_hcmd ROLE ARGS...: ARGS quoted for the remote shell; the project's programs
# ($EXP_ROOT/...) become the copies on that host
lab_hcmd() {
	local role=$1 a out=
	shift
	for a in "$@"; do
		[ -n "${EXP_ROOT:-}" ] && [[ $a == "$EXP_ROOT"/* ]] && a=${LAB_HDIR[$role]}/${a#"$EXP_ROOT"/}
		out="$out $(printf '%q' "$a")"
	done
	printf '%s' "${out# }"
}

# (the remote shell, a session leader, keeps its pid in the run directory while the command
# runs: the teardown ends its process group when the run is interrupted; a shell that comes up
# after the teardown removed the run directory cannot write its pid and runs nothing: under load
# an interrupted run's last command came up after the teardown and outlived it)
lab_exec() {
	local role=$1 pf
	[ -n "${LAB_HTARGET[$role]:-}" ] || lab_die "no host '$role' in the inventory $LAB_HOSTS"
	shift
	pf=${LAB_HRUN[$role]}/fg.\$\$.pid
	lab_hsh "$role" "echo \$\$ 2>/dev/null >$pf || exit 143; $(lab_hcmd "$role" "$@"); r=\$?; rm -f $pf; exit \$r"
}

lab_bg() {
	local role=$1 pf
	[ -n "${LAB_HTARGET[$role]:-}" ] || lab_die "no host '$role' in the inventory $LAB_HOSTS"
	shift
	LAB_HBGN=$((LAB_HBGN + 1))
	pf=${LAB_HRUN[$role]}/bg$LAB_HBGN.pid
	lab_hsh "$role" "echo \$\$ 2>/dev/null >$pf || exit 143; exec $(lab_hcmd "$role" "$@")" &
	LAB_PID=$!
	LAB_HBG[$LAB_PID]="$role $pf"
	LAB_PIDS="$LAB_PIDS $LAB_PID"
}

lab_cpu_ticks() {
	local bg=${LAB_HBG[$2]:-}
	[ -n "$bg" ] || { echo 0; return; }
	lab_hsh "${bg%% *}" "awk '{ print \$14 + \$15 }' /proc/\$(cat ${bg#* })/stat 2>/dev/null || echo 0"
}

# lab_hosts_up ROLE...: a control master to each, its user, the binaries copied (once per
# content: ~/.cache/sctpapps-lab/HASH), a run directory; any failure ends the run naming the host
lab_hosts_up() {
	local role e hash b info
	[ -n "$LAB_HCTL" ] || LAB_HCTL=$(mktemp -d /tmp/labssh.XXXXXX)
	e=$LAB_HCTL/err
	hash=$(cd "$EXP_ROOT" && cat $LAB_HBINS 2>/dev/null | sha1sum | cut -c1-12)
	for b in $LAB_HBINS; do
		[ -x "$EXP_ROOT/$b" ] || lab_die "$EXP_ROOT/$b not built (scripts/setup.sh)"
	done
	trap 'exit 3' USR1 # lab_hlost in a subshell: a host is lost, the run ends
	for role in "$@"; do
		[ -n "${LAB_HTARGET[$role]:-}" ] || lab_die "the inventory $LAB_HOSTS has no host '$role' (this experiment needs: $*)"
		case " $LAB_HUP " in *" $role "*) continue ;; esac
		lab_hlogin "$role" "$e" || lab_hfail "$role" "cannot log in" "$e"
		LAB_HUP="$LAB_HUP $role"
		info=$(lab_hsh "$role" 'id -u; printf "%s\n" "$HOME"' 2>"$e") || lab_hfail "$role" "cannot run a command" "$e"
		LAB_HUID[$role]=$(sed -n 1p <<<"$info")
		LAB_HDIR[$role]=$(sed -n 2p <<<"$info")/.cache/sctpapps-lab/$hash
		LAB_HRUN[$role]=${LAB_HDIR[$role]}/run.$$.$(date +%s)
		if ! lab_hsh "$role" "test -e ${LAB_HDIR[$role]}/.complete" 2>/dev/null; then
			(cd "$EXP_ROOT" && tar -cf - $LAB_HBINS) |
				ssh "${LAB_HSSH[@]}" -o ControlMaster=no -o ControlPath="$LAB_HCTL/%C" \
				    "${LAB_HTARGET[$role]}" "d=${LAB_HDIR[$role]}; rm -rf \$d.tmp && mkdir -p \$d.tmp && tar -C \$d.tmp -xf - && touch \$d.tmp/.complete && rm -rf \$d && mv \$d.tmp \$d" \
				    2>"$e" || lab_hfail "$role" "copying the binaries" "$e"
		fi
		# each copy really loaded and run once (--version): a library missing, of another
		# version or broken shows as the loader's own words, whatever ldd would say
		lab_hsh "$role" "mkdir -p ${LAB_HRUN[$role]} && for b in $LAB_HBINS; do o=\$(${LAB_HDIR[$role]}/\$b --version 2>&1 >/dev/null) || echo \"\$b: exit \$?: \$(echo \"\$o\" | grep -m1 .)\"; done" \
			>"$e" 2>&1 || lab_hfail "$role" "checking the binaries" "$e"
		[ ! -s "$e" ] || lab_hfail "$role" "the copied binaries do not run there (install their libraries, or build there)" "$e"
	done
}

# lab_can ROLE CAP: whether ROLE can do CAP, tried for real there once (then remembered):
#   sctp     kernel SCTP: a 0.2 s msgperf SCTP measurement on its loopback
#   usrsctp  usrsctp (library loaded, a 0.2 s msgperf measurement over UDP on its loopback)
# (netem needs no probe: with --emulate the topology puts it on before any measurement, and a
# host where tc cannot ends the run there, named, with tc's own words)
# Status 0: it can; else 1 and the reason (one line) in $LAB_WHY.
declare -A LAB_HCAP
lab_can() {
	local role=$1 cap=$2 d=${LAB_HDIR[$1]:-} cmd e=$LAB_HCTL/err port
	if [ -z "${LAB_HCAP[$role,$cap]+set}" ]; then
		port=$((20000 + RANDOM % 30000))
		case $cap in
		sctp) cmd="$d/msgperf -q --csv -t sctp -s 10 -d 0.2 -T throughput" ;;
		usrsctp) cmd="$d/msgperf -q --csv -t usrsctp -s 10 -d 0.2 -T throughput --udp-port $port" ;;
		*) lab_die "lab_can: no capability '$cap' (sctp, usrsctp)" ;;
		esac
		if lab_hsh "$role" "$cmd" >/dev/null 2>"$e"; then
			LAB_HCAP[$role,$cap]=
		else
			LAB_HCAP[$role,$cap]="no $cap on host $role: $(lab_hfirst "$e")"
		fi
	fi
	LAB_WHY=${LAB_HCAP[$role,$cap]}
	[ -z "$LAB_WHY" ]
}

# lab_port_free ROLE PORT: nothing listens on PORT (TCP, UDP or SCTP) on ROLE
lab_port_free() {
	[ -z "$(lab_hsh "$1" "ss -Hln 'sport = :$2' 2>/dev/null")" ]
}

# lab_push DIR: DIR copied to the same path on every host that is up (removed at the end)
lab_push() {
	local role d=${1%/} e=$LAB_HCTL/err
	for role in $LAB_HUP; do
		tar -C / -cf - "${d#/}" |
			ssh "${LAB_HSSH[@]}" -o ControlMaster=no -o ControlPath="$LAB_HCTL/%C" \
			    "${LAB_HTARGET[$role]}" "tar -C / -xf -" 2>"$e" || lab_hfail "$role" "copying $d" "$e"
	done
	LAB_HPUSHED="$LAB_HPUSHED $d"
}

# lab_hqdisc_check ROLE: with --emulate, the first change to ROLE's interface: its root qdisc
# must be one the kernel put there by default (deleting ours brings such a one back)
lab_hqdisc_check() {
	local role=$1 q e=$LAB_HCTL/err
	[ -z "${LAB_HQDISC[$role]:-}" ] || return 0
	q=$(lab_hsh "$role" "tc qdisc show dev ${LAB_HIF[$role]} root" 2>"$e") ||
		lab_hfail "$role" "tc qdisc show dev ${LAB_HIF[$role]}" "$e"
	case "$(awk '{ print $2; exit }' <<<"$q")" in
	noqueue | pfifo_fast | fq_codel | mq | fq | "") ;;
	*) lab_die "host $role (${LAB_HTARGET[$role]}): ${LAB_HIF[$role]} has a root qdisc set by someone else ($q); not touching it (remove it with tc qdisc del dev ${LAB_HIF[$role]} root, or run without --emulate)" ;;
	esac
	LAB_HQDISC[$role]=${q:-none}
}

# lab_netem ROLE DEV RATE DELAY_MS LOSS_PCT [JITTER_MS]: with --emulate, netem on ROLE's
# inventory interface (DEV, the lab's name, is ignored); without, nothing
lab_netem() {
	local role=$1 rate=$3 delay=$4 loss=$5 jitter=${6:-0} args e=$LAB_HCTL/err
	[ "$LAB_EMULATE" = 1 ] || return 0
	lab_hqdisc_check "$role"
	args="delay ${delay}ms"
	[ "$jitter" = 0 ] || args="$args ${jitter}ms distribution normal"
	[ "$loss" = 0 ] || args="$args loss random ${loss}%"
	[ "$rate" = 0 ] || args="$args rate $rate"
	LAB_HQDISC[$role]="${LAB_HQDISC[$role]} (ours now)"
	lab_hroot "$role" "tc qdisc del dev ${LAB_HIF[$role]} root 2>/dev/null; tc qdisc add dev ${LAB_HIF[$role]} root netem limit 10000 $args" 2>"$e" ||
		lab_hfail "$role" "tc netem on ${LAB_HIF[$role]} ($args)" "$e"
}

lab_loopback() {
	local e
	trap lab_teardown EXIT
	trap 'exit 130' INT TERM HUP
	lab_hosts_up a
	e=$LAB_HCTL/err
	LAB_HMTU[a]=$(lab_hsh a "cat /sys/class/net/lo/mtu")
	if [ "$LAB_EMULATE" = 1 ] && [ "${LAB_HMTU[a]}" != 1500 ]; then
		lab_hroot a "ip link set lo mtu 1500" 2>"$e" || lab_hfail a "ip link set lo mtu 1500" "$e"
		LAB_PARAMS="host a (${LAB_HTARGET[a]}) alone, its loopback with MTU 1500 (was ${LAB_HMTU[a]}, put back after)"
	else
		LAB_HMTU[a]=
		LAB_PARAMS="host a (${LAB_HTARGET[a]}) alone, its loopback as it is (MTU $(lab_hsh a "cat /sys/class/net/lo/mtu"))"
	fi
	LAB_TOPO=loopback
}

lab_two_hosts() {
	lab_check_link_args "$@"
	trap lab_teardown EXIT
	trap 'exit 130' INT TERM HUP
	lab_hosts_up a b
	LAB_A_IP=${LAB_HADDR[a]} LAB_B_IP=${LAB_HADDR[b]}
	LAB_TOPO=two_hosts
	lab_link "$@"
}

lab_link() {
	lab_check_link_args "$@"
	[ "$LAB_TOPO" = two_hosts ] || lab_die "lab_link: no lab_two_hosts link"
	lab_netem a "" "$@"
	lab_netem b "" "$@"
	LAB_LINK_ARGS="$*" LAB_LINK_DELAY=$2
	if [ "$LAB_EMULATE" = 1 ]; then
		LAB_PARAMS="a=$LAB_A_IP (${LAB_HTARGET[a]} ${LAB_HIF[a]}) b=$LAB_B_IP (${LAB_HTARGET[b]} ${LAB_HIF[b]}) rate=$1 one-way-delay=${2}ms loss=${3}% jitter=${4:-0}ms (netem on both ends' interfaces)"
	else
		LAB_PARAMS="a=$LAB_A_IP (${LAB_HTARGET[a]} ${LAB_HIF[a]}) b=$LAB_B_IP (${LAB_HTARGET[b]} ${LAB_HIF[b]}): the real link as it is, not emulated (the experiment's setting, rate=$1 delay=${2}ms loss=${3}%, not applied: no --emulate)"
	fi
}

lab_two_paths() { lab_die "lab_two_paths: not supported with --hosts yet"; }
lab_block_primary() { lab_die "lab_block_primary: not supported with --hosts yet"; }
lab_flap() { lab_die "lab_flap: not supported with --hosts yet"; }

# lab_hosts_where: for a report: where this ran
lab_hosts_where() {
	local role out=
	for role in $LAB_HUP; do
		out="$out, $role = ${LAB_HTARGET[$role]} (kernel $(lab_hsh "$role" 'uname -r'), $(lab_hsh "$role" nproc) CPUs)"
	done
	echo "on real hosts over ssh${out:+:}${out#,}$([ "$LAB_EMULATE" = 1 ] && echo ", links emulated with netem" || echo ", the real link as it is")"
}

eval "$(declare -f lab_record | sed '1s/lab_record/lab_record_controller/')"
# lab_record: the controller's lines (the lab's), then each host's
lab_record() {
	local role f=${LAB_OUT:?}/params.txt
	lab_record_controller
	sed -i 's/^kernel: /controller kernel: /; s/^machine: /controller: /; s/^cpu: /controller cpu: /' "$f"
	{
		echo "hosts: inventory $LAB_HOSTS; link emulation: $([ "$LAB_EMULATE" = 1 ] && echo "netem on the inventory's interfaces (--emulate), removed at the end" || echo "none, the real link measured as it is")"
		for role in $LAB_HUP; do
			lab_hsh "$role" "i=${LAB_HIF[$role]}; echo \"host $role: ${LAB_HTARGET[$role]} ${LAB_HIF[$role]} ${LAB_HADDR[$role]}\"
echo \"  system: \$(. /etc/os-release 2>/dev/null; echo \$PRETTY_NAME), kernel \$(uname -r) (\$(uname -m)), \$(nproc) CPUs, \$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)\"
echo \"  nic \$i: mtu \$(cat /sys/class/net/\$i/mtu 2>/dev/null), speed \$(cat /sys/class/net/\$i/speed 2>/dev/null || echo ?) Mb/s, driver \$(basename \$(readlink /sys/class/net/\$i/device/driver 2>/dev/null) 2>/dev/null || echo virtual), root \$(tc qdisc show dev \$i root 2>/dev/null | head -1)\"
echo \"  lo mtu \$(cat /sys/class/net/lo/mtu); net.sctp.rto_min \$(cat /proc/sys/net/sctp/rto_min 2>/dev/null || echo -) ms; sctp module \$( [ -d /proc/sys/net/sctp ] && echo loaded || echo 'not loaded yet')\"
echo \"  binaries (${LAB_HDIR[$role]}): \$(${LAB_HDIR[$role]}/msgperf --version 2>&1 | head -1); \$(${LAB_HDIR[$role]}/httpload/httpload --version 2>&1 | head -1); nginx \$(nginx -v 2>&1 | sed 's|.*/||'); iperf3 \$(iperf3 --version 2>&1 | head -1 | cut -d' ' -f2)\"" 2>&1
		done
	} >>"$f"
}

lab_teardown() {
	local role p bg d
	LAB_HTEARDOWN=1
	for p in $LAB_PIDS; do
		kill "$p" 2>/dev/null
	done
	for role in $LAB_HUP; do
		d=
		for p in $LAB_HPUSHED; do d="$d $(printf '%q' "$p")"; done
		if [ -e "$LAB_HCTL/lost.$role" ]; then
			echo "lab: $(lab_hname "$role") lost: not cleaned, left there: ${LAB_HRUN[$role]}${d:+ $d}$([ -n "${LAB_HQDISC[$role]:-}" ] && echo ", netem on ${LAB_HIF[$role]}")$([ -n "${LAB_HMTU[$role]:-}" ] && echo ", lo's MTU (was ${LAB_HMTU[$role]})")" >&$LAB_HERR
			continue
		fi
		# each remote command's process group (its shell leads one: sshd made it a session)
		lab_hsh "$role" "for f in ${LAB_HRUN[$role]}/*.pid; do [ -e \"\$f\" ] && { kill -TERM -\$(cat \"\$f\") || kill \$(cat \"\$f\"); } 2>/dev/null; done; rm -rf ${LAB_HRUN[$role]}${d:+ $d}" 2>/dev/null
		if [ -n "${LAB_HQDISC[$role]:-}" ]; then
			lab_hroot "$role" "tc qdisc del dev ${LAB_HIF[$role]} root" 2>/dev/null
			LAB_HQDISC[$role]=
		fi
		if [ -n "${LAB_HMTU[$role]:-}" ]; then
			lab_hroot "$role" "ip link set lo mtu ${LAB_HMTU[$role]}" 2>/dev/null
			LAB_HMTU[$role]=
		fi
		ssh "${LAB_HSSH[@]}" -o ControlPath="$LAB_HCTL/%C" -O exit "${LAB_HTARGET[$role]}" 2>/dev/null
	done
	for p in $LAB_PIDS; do
		wait "$p" 2>/dev/null
	done
	LAB_PIDS= LAB_HUP= LAB_HPUSHED= LAB_HTEARDOWN=
	[ -z "$LAB_HCTL" ] || rm -rf "$LAB_HCTL"
	LAB_HCTL= LAB_TOPO=
}

lab_hosts_read "$LAB_HOSTS"
# the run's own stderr, for what must be seen whatever a caller does with a command's stderr
exec {LAB_HERR}>&2
LAB_NS_A=a LAB_NS_B=b LAB_NS_R=r
# the experiments' addresses, from the start (they write them in configurations early)
LAB_A_IP=${LAB_HADDR[a]:-$LAB_A_IP} LAB_B_IP=${LAB_HADDR[b]:-$LAB_B_IP}
