# h2connect.awk: h2load's output -> "1 0 - CONNECT_MS" for experiment 06's h2 over TLS row (one
# connection, one full handshake, no resumption; its "time for connect:" mean, TCP's and TLS's
# handshakes together, in ms), or "- - - -" when the line is not there.
# The line: "time for connect:   MIN   MAX   MEAN   SD   +/-SD", each with its unit (us, ms, s).
function ms(v) {
	if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
	if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
	if (v ~ /s$/) return substr(v, 1, length(v) - 1) * 1000
	return -1
}
$1 == "time" && $2 == "for" && $3 == "connect:" && NF >= 6 { m = ms($6) }
END { if (m == "" || m < 0) print "- - - -"; else printf "1 0 - %.3f\n", m }
