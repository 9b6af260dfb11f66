# httpd-cases.sh: the HTTP/1.1 cases that httpd-conformance.sh (sctphttpd against nginx over
# TCP) and httpd-sctp-conformance.sh (sctphttpd over SCTP streams against the draft) both run
# (sourced). The caller defines case_ NAME WHAT REQUEST [OURS NGINX WHY]: WHAT is the summary
# compared (see what below), @HOST@ in REQUEST the host:port asked, and OURS NGINX WHY a
# deliberate difference of sctphttpd from nginx.

# httpd_cases_tree: the tree served, in $doc ($tmp/doc)
httpd_cases_tree() {
	doc=$tmp/doc
	mkdir -p "$doc/sub" "$doc/list"
	printf '0123456789abcdefghij' >"$doc/r.txt"
	touch -d '2020-01-02 03:04:05 UTC' "$doc/r.txt"
	echo '<p>sub</p>' >"$doc/sub/index.html"
	echo 'body { }' >"$doc/s.css"
	echo '{}' >"$doc/j.json"
	printf '\x89PNG' >"$doc/i.png"
	touch "$doc/list/x.txt"
	chmod -R a+rX "$doc"
}

# what WHAT FILE: the summary compared: "status", "status/HEADER" or "statuses" (all status
# lines, for pipelining)
what() {
	case $1 in
	statuses) grep -ao 'HTTP/1\.[01] [0-9]*' "$2" | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//' ;;
	status) head -n1 "$2" | cut -d' ' -f2 ;;
	status/*) echo "$(head -n1 "$2" | cut -d' ' -f2) $(grep -ai "^${1#status/}: " "$2" |
	    head -n1 | cut -d' ' -f2- | sed 's/boundary=.*/boundary=/')" ;;
	esac
}

# httpd_cases: every case, through case_
httpd_cases() {
	local C long big
	C='Connection: close\r\n'
	G() { echo "GET $1 HTTP/1.1\r\nHost: @HOST@\r\n$C$2\r\n"; }

	# methods
	case_ "GET a file" status/Content-Length "$(G /r.txt)"
	case_ "HEAD a file" status/Content-Length "HEAD /r.txt HTTP/1.1\r\nHost: @HOST@\r\n$C\r\n"
	case_ "GET a missing file" status "$(G /nope)"
	case_ "POST to a file" status "POST /r.txt HTTP/1.1\r\nHost: @HOST@\r\nContent-Length: 2\r\n$C\r\nab"
	case_ "PUT" status "PUT /r.txt HTTP/1.1\r\nHost: @HOST@\r\nContent-Length: 2\r\n$C\r\nab"
	case_ "DELETE" status "DELETE /r.txt HTTP/1.1\r\nHost: @HOST@\r\n$C\r\n"
	case_ "an unknown method" status "FOO /r.txt HTTP/1.1\r\nHost: @HOST@\r\n$C\r\n" 501 405 \
	    "RFC 9110 15.6.2: a method the server does not know is 501; nginx answers 405 for files"
	# versions and Host
	case_ "HTTP/1.0 without Host" status "GET /r.txt HTTP/1.0\r\n\r\n"
	case_ "HTTP/1.1 without Host" status "GET /r.txt HTTP/1.1\r\n$C\r\n"
	case_ "two Host fields" status "GET /r.txt HTTP/1.1\r\nHost: a\r\nHost: b\r\n$C\r\n"
	case_ "HTTP/1.2 (served as 1.1, RFC 9110 2.5)" status "GET /r.txt HTTP/1.2\r\nHost: @HOST@\r\n$C\r\n"
	case_ "HTTP/2.0 in HTTP/1 syntax" status "GET /r.txt HTTP/2.0\r\nHost: @HOST@\r\n$C\r\n"
	case_ "absolute-form target" status/Content-Length "GET http://@HOST@/r.txt HTTP/1.1\r\nHost: @HOST@\r\n$C\r\n"
	# conditional requests
	case_ "the ETag" status/ETag "$(G /r.txt)"
	case_ "If-None-Match with the ETag" status/ETag "$(G /r.txt 'If-None-Match: "5e0d5da5-14"\r\n')"
	case_ "If-None-Match: *" status "$(G /r.txt 'If-None-Match: *\r\n')"
	case_ "If-Modified-Since later" status "$(G /r.txt 'If-Modified-Since: Fri, 01 Jan 2021 00:00:00 GMT\r\n')" \
	    304 200 "RFC 9110 13.1.3: unchanged since a later date is 304; nginx's default (if_modified_since exact) wants the very date"
	case_ "If-Modified-Since earlier" status "$(G /r.txt 'If-Modified-Since: Wed, 01 Jan 2020 00:00:00 GMT\r\n')"
	case_ "If-Unmodified-Since earlier" status "$(G /r.txt 'If-Unmodified-Since: Wed, 01 Jan 2020 00:00:00 GMT\r\n')"
	case_ "If-Match another ETag" status "$(G /r.txt 'If-Match: "zz"\r\n')"
	# ranges
	case_ "one range" status/Content-Range "$(G /r.txt 'Range: bytes=2-4\r\n')"
	case_ "a suffix range" status/Content-Range "$(G /r.txt 'Range: bytes=-3\r\n')"
	case_ "an unsatisfiable range" status/Content-Range "$(G /r.txt 'Range: bytes=100-\r\n')"
	case_ "two ranges: multipart/byteranges" status/Content-Type "$(G /r.txt 'Range: bytes=0-1,5-6\r\n')"
	case_ "17 ranges" status/Content-Length "$(G /r.txt "Range: bytes=$(seq -s, 0 16 | sed 's/\([0-9]*\)/\1-\1/g')\\r\\n")" \
	    "200 20" "206 1470" "at most 16 ranges are served (against amplification), more get the whole file"
	case_ "If-Range with the ETag" status/Content-Range "$(G /r.txt 'If-Range: "5e0d5da5-14"\r\nRange: bytes=0-1\r\n')"
	case_ "If-Range with another ETag" status/Content-Length "$(G /r.txt 'If-Range: "zz"\r\nRange: bytes=0-1\r\n')"
	# Expect, chunked, pipelining
	case_ "Expect: 100-continue to a file" status "POST /r.txt HTTP/1.1\r\nHost: @HOST@\r\nExpect: 100-continue\r\nContent-Length: 2\r\n$C\r\nab"
	case_ "GET with a chunked body" status "GET /r.txt HTTP/1.1\r\nHost: @HOST@\r\nTransfer-Encoding: chunked\r\n$C\r\n2\r\nab\r\n0\r\n\r\n"
	case_ "two pipelined requests" statuses "GET /r.txt HTTP/1.1\r\nHost: @HOST@\r\n\r\nGET /nope HTTP/1.1\r\nHost: @HOST@\r\n$C\r\n"
	case_ "Content-Length and Transfer-Encoding (smuggling)" status "POST /r.txt HTTP/1.1\r\nHost: @HOST@\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n$C\r\n0\r\n\r\n"
	# long lines and headers
	long=$(head -c 9000 /dev/zero | tr '\0' a)
	case_ "a 9000-byte request target" status "$(G "/$long")"
	big=$(head -c 20000 /dev/zero | tr '\0' b)
	case_ "a 20000-byte header field" status "$(G /r.txt "X-Big: $big\\r\\n")" 431 400 \
	    "RFC 6585 431 for a header section past the limit; nginx says 400 (Request Header Or Cookie Too Large)"
	# traversal and encodings
	case_ "/../ above the root" status "$(G /../../etc/passwd)"
	case_ "%2e%2e above the root" status "$(G /%2e%2e/%2e%2e/etc/passwd)"
	case_ "a percent-encoded name" status "$(G /r%2Etxt)"
	case_ "an encoded slash %2F" status "$(G /sub%2Findex.html)" 400 200 \
	    "%2F would change the path's segments after decoding: refused rather than taken as /"
	# directories
	case_ "a directory without its slash" status/Location "$(G /sub)"
	case_ "the redirect of //host/../sub" status/Location "$(G //127.0.0.2:8080/../sub)"
	case_ "a directory with index.html" status/Content-Length "$(G /sub/)"
	case_ "a directory listing" status/Content-Type "$(G /list/)" "200 text/html; charset=utf-8" \
	    "200 text/html" "we name the charset of generated HTML"
	# MIME types
	case_ "text/plain" status/Content-Type "$(G /r.txt)" "200 text/plain; charset=utf-8" \
	    "200 text/plain" "text types carry -T's charset (UTF-8 by default), as thttpd's"
	case_ "text/css" status/Content-Type "$(G /s.css)"
	case_ "application/json" status/Content-Type "$(G /j.json)"
	case_ "image/png" status/Content-Type "$(G /i.png)"
}
