/* tp_usrsctp_tune.c: what an association can be given beyond RFC 4960's defaults (issue 38's
 * tuned rows): the delayed SACK timer (per socket) and the initial congestion window (a sysctl
 * of the stack: one stack per process). What the stack then holds, RTO min included, is read
 * back from it, so that the counters line (tp_usrsctp_stats_fill) says what the stack uses,
 * not what was asked for. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tp_usrsctp.h"

/* read back from the last socket set up (0: none yet) */
static uint32_t tune_rto_min, tune_sack_delay;

int
tp_usrsctp_tuning(struct socket *so, const struct tp_opts *o, char *err, size_t errlen)
{
	struct sctp_sack_info si;
	struct sctp_rtoinfo rto;
	socklen_t len;

	if (o->init_cwnd_mtus && usrsctp_sysctl_set_sctp_initial_cwnd(o->init_cwnd_mtus) != 0) {
		tp_seterr(err, errlen, "usrsctp sysctl sctp_initial_cwnd %u: %s", o->init_cwnd_mtus,
		    strerror(errno));
		return -1;
	}
	if (o->sack_delay_ms) {
		memset(&si, 0, sizeof(si));
		si.sack_assoc_id = SCTP_FUTURE_ASSOC;
		si.sack_delay = o->sack_delay_ms;
		if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_DELAYED_SACK, &si, sizeof(si)) == -1) {
			tp_seterr(err, errlen, "SCTP_DELAYED_SACK %u ms: %s", o->sack_delay_ms,
			    strerror(errno));
			return -1;
		}
	}
	memset(&si, 0, sizeof(si));
	si.sack_assoc_id = SCTP_FUTURE_ASSOC;
	len = sizeof(si);
	if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_DELAYED_SACK, &si, &len) == 0)
		tune_sack_delay = si.sack_delay;
	memset(&rto, 0, sizeof(rto));
	rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
	len = sizeof(rto);
	if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_RTOINFO, &rto, &len) == 0)
		tune_rto_min = rto.srto_min;
	return 0;
}

size_t
tp_usrsctp_tuning_fill(char *buf, size_t len)
{
	int w;

	if (len == 0)
		return 0;
	w = snprintf(buf, len, "rto_min=%u sack_delay=%u initial_cwnd=%u", tune_rto_min,
	    tune_sack_delay, usrsctp_sysctl_get_sctp_initial_cwnd());
	if (w < 0 || (size_t)w >= len) {
		buf[0] = '\0';
		return 0;
	}
	return (size_t)w;
}
