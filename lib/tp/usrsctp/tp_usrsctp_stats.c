/* tp_usrsctp_stats.c: the usrsctp stack's own counters (struct sctpstat), for diagnostics. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_usrsctp.h"

/*
 * The counters that tell why a transfer waited: retransmission timeouts (T3 on DATA, INIT,
 * COOKIE-ECHO), what was retransmitted, and what the stack dropped or queued for want of room.
 * A tail of latency at the minimum RTO is explained, or not, by these.
 */
#define TP_USRSCTP_STAT(f) { #f + 6, offsetof(struct sctpstat, f) }
static const struct {
	const char *name;
	size_t off;
} tp_usrsctp_stat_fields[] = {
	TP_USRSCTP_STAT(sctps_timodata),
	TP_USRSCTP_STAT(sctps_timoinit),
	TP_USRSCTP_STAT(sctps_timocookie),
	TP_USRSCTP_STAT(sctps_timowindowprobe),
	TP_USRSCTP_STAT(sctps_timosack),
	TP_USRSCTP_STAT(sctps_sendretransdata),
	TP_USRSCTP_STAT(sctps_sendfastretrans),
	TP_USRSCTP_STAT(sctps_recvdupdata),
	TP_USRSCTP_STAT(sctps_datadroprwnd),
	TP_USRSCTP_STAT(sctps_datadropchklmt),
	TP_USRSCTP_STAT(sctps_nomem),
	TP_USRSCTP_STAT(sctps_senderrors),
	TP_USRSCTP_STAT(sctps_lowlevelerr),
	TP_USRSCTP_STAT(sctps_windowprobed),
	TP_USRSCTP_STAT(sctps_maxburstqueued),
	TP_USRSCTP_STAT(sctps_ifnomemqueued),
	TP_USRSCTP_STAT(sctps_naglequeued),
	TP_USRSCTP_STAT(sctps_send_cwnd_avoid),
	TP_USRSCTP_STAT(sctps_badvtag),
	TP_USRSCTP_STAT(sctps_outoftheblue),
	TP_USRSCTP_STAT(sctps_aborted),
	TP_USRSCTP_STAT(sctps_passiveestab),
	TP_USRSCTP_STAT(sctps_activeestab),
	TP_USRSCTP_STAT(sctps_senddata),
	TP_USRSCTP_STAT(sctps_recvdata),
	TP_USRSCTP_STAT(sctps_sendpackets),
	TP_USRSCTP_STAT(sctps_recvpackets),
};

/* "name=value ..." of the counters above, into buf; the length written. */
size_t
tp_usrsctp_stats_fill(char *buf, size_t len)
{
	struct sctpstat st;
	size_t i, n = 0;
	uint32_t v;
	int w;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	memset(&st, 0, sizeof(st));
	usrsctp_get_stat(&st);
	for (i = 0; i < sizeof(tp_usrsctp_stat_fields) / sizeof(tp_usrsctp_stat_fields[0]); i++) {
		memcpy(&v, (const char *)&st + tp_usrsctp_stat_fields[i].off, sizeof(v));
		w = snprintf(buf + n, len - n, "%s%s=%u", n ? " " : "", tp_usrsctp_stat_fields[i].name,
		    v);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	/* and the tuning the stack holds (tp_usrsctp_tune.c) */
	if (n + 1 < len) {
		buf[n] = ' ';
		w = (int)tp_usrsctp_tuning_fill(buf + n + 1, len - n - 1);
		if (w > 0)
			n += (size_t)w + 1;
		else
			buf[n] = '\0';
	}
	return n;
}

/* The threaded stack's (the type usrsctp's): nothing unless it runs. */
size_t
tp_usrsctp_stats(char *buf, size_t len)
{
	if (len > 0)
		buf[0] = '\0';
	if (!tp_usrsctp_running())
		return 0;
	return tp_usrsctp_stats_fill(buf, len);
}

/*
 * At exit (each stack's, which passes its own counters: tp_usrsctp_stats or
 * tp_usrsctp_nt_stats), with SCTPAPPS_USRSCTP_STATS=FILE in the environment: a line
 * "PID counters" is appended to FILE, so that a benchmark can tell a client's retransmission
 * timeouts.
 */
void
tp_usrsctp_stats_file(size_t (*stats)(char *buf, size_t len))
{
	const char *path = getenv("SCTPAPPS_USRSCTP_STATS");
	char buf[2048];
	FILE *f;

	if (path != NULL && *path != '\0' && (f = fopen(path, "a")) != NULL) {
		stats(buf, sizeof(buf));
		fprintf(f, "%ld %s\n", (long)getpid(), buf);
		fclose(f);
	}
}
