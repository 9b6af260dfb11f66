# httpd-common.sh: what the sctphttpd semantics and conformance scripts share (sourced after
# test/lib.sh and scratch): sized files, a CGI program, free UDP ports (lib.sh's httpd_start
# starts a server).

# httpd_sized_files DIR: DIR/s0, s1, s1024, s102400, s1048576 (random bytes) and u0..u99 linked
# to them in turn (URLs of 0 B to 1 MiB for 1, 10 and 100 streams); $sizes lists the sizes.
httpd_sized_files() {
	local dir=$1 sz n i
	sizes="0 1 1024 102400 1048576"
	for sz in $sizes; do head -c $sz /dev/urandom >"$dir/s$sz"; done
	set -- $sizes
	for n in $(seq 0 99); do
		i=$((n % 5 + 1))
		ln "$dir/s${!i}" "$dir/u$n"
	done
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
