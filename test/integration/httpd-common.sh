# httpd-common.sh: what the sctphttpd semantics and conformance scripts share (sourced after
# test/lib.sh and scratch): starting a server, a CGI program, free UDP ports.

# httpd_start NAME ARGS...: run sctphttpd ($H) with ARGS, its output in $tmp/NAME.{out,err};
# wait until it listens on all it was asked to (TCP: $port set; usrsctp), $last is its pid.
httpd_start() {
	local name=$1 i u want_u=0 want_t=0
	shift
	case " $* " in *" usrsctp:"*) want_u=1 ;; esac
	case " $* " in *" -p "*) want_t=1 ;; esac
	"$H" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	last=$!
	pids="$pids $last"
	for i in $(seq 1 50); do
		u=$(grep -c '^sctphttpd: listening on usrsctp' "$tmp/$name.err")
		port=$(sed -n 's/^sctphttpd: listening on tcp .*:\([0-9]*\)$/\1/p' "$tmp/$name.err" | head -n1)
		if { [ -n "$port" ] || [ $want_t = 0 ]; } && [ "$u" -ge $want_u ]; then
			return 0
		fi
		kill -0 "$last" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/# /' "$tmp/$name.err"
	return 1
}

# httpd_start_n NAME N ARGS...: as httpd_start, until it says it listens N times (kernel SCTP
# listeners, which it opens before the TCP one says so); $last is its pid.
httpd_start_n() {
	local name=$1 want=$2 i
	shift 2
	"$H" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	last=$!
	pids="$pids $last"
	for i in $(seq 1 100); do
		[ "$(grep -c '^sctphttpd: listening on' "$tmp/$name.err")" -ge "$want" ] && return 0
		kill -0 "$last" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/# /' "$tmp/$name.err"
	return 1
}

# httpd_echo_cgi FILE: a CGI program that answers "len=N body=CONTENT": CONTENT_LENGTH bytes
# of its input, or all of it to EOF when there is no CONTENT_LENGTH (chunked content)
httpd_echo_cgi() {
	cat >"$1" <<'EOS'
#!/usr/bin/perl
binmode STDIN; binmode STDOUT;
my $b = '';
if (defined $ENV{CONTENT_LENGTH}) { read(STDIN, $b, $ENV{CONTENT_LENGTH}); }
else { local $/; $b = <STDIN> // ''; }
print "Content-Type: text/plain\r\n\r\n", "len=", length($b), " body=$b\n";
EOS
	chmod 755 "$1"
}

# httpd_udp_ports N: the first of N free consecutive UDP ports (usrsctp needs one per process)
httpd_udp_ports() {
	local try base i free
	for try in $(seq 1 30); do
		base=$((30000 + (RANDOM % 1000) * 8))
		free=1
		for i in $(seq 0 $(($1 - 1))); do
			ss -Huan "sport = :$((base + i))" 2>/dev/null | grep -q . && free=0
		done
		[ $free = 1 ] && break
	done
	echo "$base"
}
