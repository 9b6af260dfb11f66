# hltls.awk: httpload --json --ssl's report -> "HANDSHAKES RESUMED MEAN_MS CONNECT_MS" for
# experiment 06's TLS over SCTP row: its TLS handshakes (one a stream), how many resumed the
# first stream's ticket, their mean (ms, each from its ClientHello to its end), and the
# association's own set-up (raw connect_sum over conns_connected, ms); "- - - -" without them.
function num(k,   m) {
	if (!match($0, "\"" k "\":[0-9.e+-]+")) return ""
	m = substr($0, RSTART, RLENGTH)
	sub(/^[^:]*:/, "", m)
	return m + 0
}
/"tls":\{"handshakes"/ {
	t = substr($0, index($0, "\"tls\":{\"handshakes\""))
	save = $0; $0 = t
	h = num("handshakes"); r = num("resumed"); mean = num("handshake_mean_ms")
	$0 = save
	c = num("conns_connected"); s = num("connect_sum")
}
END {
	if (h == "") { print "- - - -"; exit }
	printf "%d %d %.3f %s\n", h, r, mean, (c > 0 ? sprintf("%.3f", 1000 * s / c) : "-")
}
