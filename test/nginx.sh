# test/nginx.sh: nginx as a reference server for the tests, the experiments and the demo (sourced).
#
# nginx_conf [-w WORKERS] [-c CONNECTIONS] [-m MAIN-DIRECTIVE]... DIR DIRECTIVE...: write
# DIR/nginx.conf for an nginx run in the foreground (`nginx -c DIR/nginx.conf -p DIR`): no
# daemon, one process (with -w N, a master and N workers; -c: worker_connections, default
# 4096; -m: a directive of the main context, e.g. "worker_rlimit_nofile 65536;"), pid, error
# log and temporary files in DIR, no access log; each DIRECTIVE (one argument each, e.g.
# "sendfile on;" or "server { listen 127.0.0.1:8080; root /srv; }") goes into the http block,
# in order.
nginx_conf() {
	local dir d w=1 master=off conns=4096 main=""
	while [ $# -gt 1 ]; do
		case $1 in
		-w) w=$2 master=on ;;
		-c) conns=$2 ;;
		-m) main="$main$2
" ;;
		*) break ;;
		esac
		shift 2
	done
	dir=$1
	shift
	mkdir -p "$dir" || return 1
	{
		printf '%s\n' "daemon off;" "master_process $master;" "worker_processes $w;" "user root;" \
		    "pid $dir/nginx.pid;" "error_log $dir/error.log;"
		printf '%s' "$main"
		printf '%s\n' "events { worker_connections $conns; }" "http {" "	access_log off;" \
		    "	client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir;" \
		    "	uwsgi_temp_path $dir; scgi_temp_path $dir;"
		for d in "$@"; do printf '\t%s\n' "$d"; done
		echo "}"
	} >"$dir/nginx.conf"
}
