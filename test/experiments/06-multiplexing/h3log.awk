# h3log.awk: ngtcp2's gtlsclient has no per-request log; its debug lines for each request's
# submit ("http: stream 0x.. submit") and its stream's close ("HTTP stream N closed"), stamped
# with the host's clock as they come ($1), give one. Writes each request's latency (ms) to the
# file LAT, one a line, and prints "REQUESTS SECONDS": the requests answered and the time from T0
# (-v t0=EPOCH; empty: the first request's submit) to the last close.
function hex(s,   i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
$2 == "http:" && $5 == "submit" { st[hex($4)] = $1; if (first == "") first = $1; next }
$2 == "HTTP" && $5 == "closed" {
	id = $4 + 0
	if ((id in st) && !(id in d)) { d[id] = 1; n++; last = $1; printf "%.3f\n", ($1 - st[id]) * 1000 > lat }
}
END { start = (t0 != "" ? t0 : first); printf "%d %.3f\n", n, (n ? last - start : 0) }
