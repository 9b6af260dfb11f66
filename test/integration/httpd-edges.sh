#!/bin/bash
# httpd-edges.sh: what clients from outside found at sctphttpd's edges over TCP (issue 33), each
# with its boundary: one URI limit (--max-line, never PATH_MAX), CGI PATH_INFO and SCRIPT_NAME
# (RFC 3875 4.1.5, 4.1.13), the Host port (RFC 9112 3.2), a CGI's Status (100-599) and local
# redirects (RFC 3875 6.2.2), a connection's own pipelined CGI requests queued, not refused (TAP).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/httpd-common.sh"
H=${SCTPHTTPD:-$top_builddir/sctphttpd}
need "$H" curl /usr/bin/python3

scratch httpd-edges
chmod 755 "$tmp"
doc=$tmp/doc
mkdir -p "$doc/cgi-bin" "$doc/sub"
echo hello >"$doc/a.txt"
cat >"$doc/cgi-bin/env.cgi" <<'EOS'
#!/bin/sh
printf 'Content-Type: text/plain\r\n\r\n'
echo "SCRIPT_NAME=$SCRIPT_NAME"
echo "PATH_INFO=${PATH_INFO-unset}"
echo "QUERY_STRING=$QUERY_STRING"
EOS
chmod -R a+rX "$doc"
chmod 755 "$doc/cgi-bin/env.cgi"

# raw BYTES: send them (a python bytes literal), print what comes back until the close (5 s)
raw() {
	/usr/bin/python3 - "$port" "$1" <<'PY'
import ast, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(ast.literal_eval("b'" + sys.argv[2] + "'") if not sys.argv[2].startswith("@") else
          open(sys.argv[2][1:], "rb").read())
s.settimeout(5)
out = b""
try:
    while True:
        d = s.recv(65536)
        if not d:
            break
        out += d
except socket.timeout:
    pass
sys.stdout.write(out.decode("latin-1").replace("\r", ""))
PY
}

httpd_start main -p 0 -h 127.0.0.1 -d "$doc" -c '/cgi-bin/*' --max-line 20000
ok $? "sctphttpd -c '/cgi-bin/*' --max-line 20000"
U=http://127.0.0.1:$port

# --- item 4: one URI limit, --max-line (the request line), whatever PATH_MAX is --------------
long=$(head -c 5000 /dev/zero | tr '\0' x)
got=$(curl -s -o /dev/null -w '%{http_code}' "$U/$long")
[ "$got" = 404 ]
ok $? "a 5001-byte path under --max-line 20000: $got (no such file), not 414"
got=$(curl -s "$U/cgi-bin/env.cgi/$long" | sed -n 's/^PATH_INFO=//p')
[ "$got" = "/$long" ]
ok $? "a 5000-byte PATH_INFO reaches the program whole (${#got} bytes)"
# the request line "GET /x... HTTP/1.1" of exactly 20000 bytes passes, 20001 is 414
for n in 20000 20001; do
	p=$(head -c $((n - 14)) /dev/zero | tr '\0' y)
	printf 'GET /%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' "$p" >"$tmp/line"
	got=$(raw "@$tmp/line" | head -n1)
	case $n in 20000) want='HTTP/1.1 404' ;; *) want='HTTP/1.1 414' ;; esac
	case $got in "$want"*) r=0 ;; *) r=1 ;; esac
	ok $r "a request line of $n bytes against --max-line 20000: $got"
done

# --- item 5: PATH_INFO and SCRIPT_NAME (RFC 3875 4.1.5, 4.1.13) -------------------------------
got=$(curl -s "$U/cgi-bin/env.cgi/extra/path?q=1" | tr '\n' ' ')
[ "$got" = "SCRIPT_NAME=/cgi-bin/env.cgi PATH_INFO=/extra/path QUERY_STRING=q=1 " ]
ok $? "/cgi-bin/env.cgi/extra/path?q=1: $got"
got=$(curl -s "$U/cgi-bin/env.cgi/%7Euser/a%20b" | sed -n 's/^PATH_INFO=//p')
[ "$got" = "/~user/a b" ]
ok $? "PATH_INFO is decoded: '$got'"
got=$(curl -s "$U/cgi-bin/env.cgi/" | tr '\n' ' ')
[ "$got" = "SCRIPT_NAME=/cgi-bin/env.cgi PATH_INFO=/ QUERY_STRING= " ]
ok $? "a trailing slash: PATH_INFO=/ ($got)"
got=$(curl -s "$U/cgi-bin/env.cgi" | tr '\n' ' ')
[ "$got" = "SCRIPT_NAME=/cgi-bin/env.cgi PATH_INFO=unset QUERY_STRING= " ]
ok $? "no extra path: no PATH_INFO at all ($got)"
got=$(curl -s -o /dev/null -w '%{http_code}' "$U/a.txt/extra")
[ "$got" = 404 ]
ok $? "a static file with a path after it: $got (PATH_INFO is for CGI programs only)"
got=$(curl -s -o /dev/null -w '%{http_code}' "$U/cgi-bin/nothere.cgi/extra")
[ "$got" = 404 ]
ok $? "no such program, with a path after it: $got"
got=$(curl -s -o /dev/null -w '%{http_code}' --path-as-is "$U/cgi-bin/env.cgi/../../a.txt")
[ "$got" = 200 ] && [ "$(curl -s --path-as-is "$U/cgi-bin/env.cgi/../../a.txt")" = hello ]
ok $? "/cgi-bin/env.cgi/../../a.txt is /a.txt, normalised before PATH_INFO: $got"

# --- item 6: the Host port (RFC 9112 3.2: an invalid Host is 400), a CGI's Status -------------
for h in evil.com:99999 evil.com:65536 a:65535; do
	got=$(raw "GET /a.txt HTTP/1.1\\r\\nHost: $h\\r\\nConnection: close\\r\\n\\r\\n" | head -n1)
	case $h in a:65535) want='HTTP/1.1 200' ;; *) want='HTTP/1.1 400' ;; esac
	case $got in "$want"*) r=0 ;; *) r=1 ;; esac
	ok $r "Host: $h: $got"
done
for st in 999 600 599 100x 199 200; do
	printf '#!/bin/sh\nprintf "Status: %s Odd\\r\\nContent-Type: text/plain\\r\\n\\r\\nx\\n"\n' "$st" \
	    >"$doc/cgi-bin/st$st.cgi"
	chmod 755 "$doc/cgi-bin/st$st.cgi"
	got=$(curl -s -o /dev/null -w '%{http_code}' "$U/cgi-bin/st$st.cgi")
	case $st in 599|200) want=$st ;; *) want=500 ;; esac
	[ "$got" = "$want" ]
	ok $? "a CGI's Status: $st: $got (valid: a final status, 200-599)"
done

# --- item 6: a CGI's local redirect (RFC 3875 6.2.2: a Location of an abs-path alone) is served
lr() {  # lr NAME LOCATION [MORE HEADER LINES]: a program that answers with them
	printf '#!/bin/sh\nprintf "Location: %s\\r\\n%s\\r\\n"\n' "$2" "$3" >"$doc/cgi-bin/$1.cgi"
	chmod 755 "$doc/cgi-bin/$1.cgi"
}
lr lr1 /a.txt
lr lr2 '/cgi-bin/env.cgi/p?x=1'
lr lr3 /cgi-bin/lr3.cgi
lr lr4 http://elsewhere.example/a.txt
lr lr5 /a.txt 'Content-Type: text/plain\\r\\n'
lr lr6 //elsewhere.example/a.txt
got=$(curl -s -w ' %{http_code}' "$U/cgi-bin/lr1.cgi")
[ "$got" = $'hello\n 200' ]
ok $? "Location: /a.txt alone: the file served in its place, 200 (${got//$'\n'/ })"
got=$(curl -s "$U/cgi-bin/lr2.cgi" | tr '\n' ' ')
[ "$got" = "SCRIPT_NAME=/cgi-bin/env.cgi PATH_INFO=/p QUERY_STRING=x=1 " ]
ok $? "to another program with a path and a query: $got"
got=$(curl -s -o /dev/null -w '%{http_code}' -I "$U/cgi-bin/lr1.cgi")
[ "$got" = 200 ]
ok $? "HEAD of a local redirect: $got"
got=$(curl -s -m 20 -o /dev/null -w "%{http_code}" "$U/cgi-bin/lr3.cgi")
[ "$got" = 500 ]
ok $? "a program redirecting to itself: $got after 10 rounds, no endless loop"
for n in lr4 lr5 lr6; do
	got=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$U/cgi-bin/$n.cgi")
	case $got in "302 "*) r=0 ;; *) r=1 ;; esac
	ok $r "$n: an absolute URI, a field beside it, or a network path: the client's redirect ($got)"
done
got=$(printf 'GET /cgi-bin/lr1.cgi HTTP/1.1\r\nHost: x\r\n\r\nGET /cgi-bin/lr2.cgi HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >"$tmp/lrp"; raw "@$tmp/lrp")
[ "$(grep -c '^HTTP/1.1 200 ' <<<"$got")" = 2 ] && grep -qx hello <<<"$got" &&
    grep -q 'PATH_INFO=/p' <<<"$got"
ok $? "two pipelined local redirects on one connection: both answered, in order"

# --- item 6: a client's own pipeline of CGI requests is queued, not refused -----------------
cat >"$doc/cgi-bin/slow.cgi" <<'EOS'
#!/bin/sh
sleep "${QUERY_STRING#*s=}"
printf 'Content-Type: text/plain\r\n\r\nbody-%s\n' "${QUERY_STRING%%&*}"
EOS
chmod 755 "$doc/cgi-bin/slow.cgi"
httpd_start lim -p 0 -h 127.0.0.1 -d "$doc" -c '/cgi-bin/*' --cgi-max 4
ok $? "a second server with --cgi-max 4"
: >"$tmp/pipe9"
for i in 1 2 3 4 5 6 7 8 9; do
	c=; [ $i = 9 ] && c=$'Connection: close\r\n'
	printf 'GET /cgi-bin/slow.cgi?%s&s=0.2 HTTP/1.1\r\nHost: x\r\n%s\r\n' $i "$c" >>"$tmp/pipe9"
done
got=$(raw "@$tmp/pipe9")
[ "$(grep -c '^HTTP/1.1 200 ' <<<"$got")" = 9 ] && ! grep -q '^HTTP/1.1 503' <<<"$got" &&
    [ "$(grep -o '^body-[1-9]' <<<"$got" | tr -d '\nbody-')" = 123456789 ]
ok $? "nine pipelined CGI requests on one connection with --cgi-max 4: nine 200s, in order ($(grep -c '^HTTP/1.1 200 ' <<<"$got") 200s, $(grep -c '^HTTP/1.1 503 ' <<<"$got") 503s)"
# other clients' programs fill --cgi-max: then 503, with Retry-After
for i in 1 2 3 4; do
	curl -s -m 10 "http://127.0.0.1:$port/cgi-bin/slow.cgi?o$i&s=3" >/dev/null &
	pids="$pids $!"
done
sleep 1
got=$(raw 'GET /cgi-bin/slow.cgi?x&s=0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
grep -q '^HTTP/1.1 503 ' <<<"$got" && grep -qx 'Retry-After: 1' <<<"$got"
ok $? "--cgi-max 4 reached by four other clients: 503 with Retry-After: 1 ($(head -n1 <<<"$got"))"
done_testing
