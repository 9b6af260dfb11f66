/* tp_sctp_intl.c: tp_opts.sctp_interleave on kernel SCTP: I-DATA chunks (RFC 8260, user
 * messages of different streams interleaved) and the round-robin stream scheduler, so that
 * one large message does not hold back the other streams. Linux offers I-DATA only where the
 * sysctl net.sctp.intl_enable is 1 and the socket interleaves partial deliveries (level 2). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_sctp.h"

int
tp_sctp_intl_set(int fd, const struct tp_opts *o, char *err, size_t errlen)
{
	struct sctp_assoc_value av;
	int level = 2;

	if (!o->sctp_interleave)
		return TP_OK;
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, &level, sizeof(level)) == -1)
		return tp_sock_errno(err, errlen, "SCTP_FRAGMENT_INTERLEAVE 2");
	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	av.assoc_value = 1;
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, &av, sizeof(av)) == -1) {
		if (errno == EPERM)
			tp_seterr(err, errlen, "SCTP_INTERLEAVING_SUPPORTED (I-DATA): off in this "
			    "kernel (sysctl net.sctp.intl_enable=1 turns it on)");
		else
			tp_sock_errno(err, errlen, "SCTP_INTERLEAVING_SUPPORTED (I-DATA)");
		return TP_ERROR;
	}
	av.assoc_value = SCTP_SS_RR;
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_STREAM_SCHEDULER, &av, sizeof(av)) == -1)
		return tp_sock_errno(err, errlen, "SCTP_STREAM_SCHEDULER round-robin");
	return TP_OK;
}

/* Tells what the association uses where it interleaves (nothing where it does not). */
void
tp_sctp_intl_tell(struct tp_conn *c, const struct tp_sctp_as *as)
{
	struct sctp_assoc_value intl, ss;
	socklen_t len = sizeof(intl);

	memset(&intl, 0, sizeof(intl));
	intl.assoc_id = as->id;
	ss = intl;
	if (getsockopt(c->fd, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, &intl, &len) == -1 ||
	    !intl.assoc_value)
		return;
	len = sizeof(ss);
	if (getsockopt(c->fd, IPPROTO_SCTP, SCTP_STREAM_SCHEDULER, &ss, &len) == -1)
		ss.assoc_value = SCTP_SS_DEFAULT;
	tp_note(c, "I-DATA (RFC 8260) in use, stream scheduler %s",
	    ss.assoc_value == SCTP_SS_RR ? "round-robin" :
	    ss.assoc_value == SCTP_SS_PRIO ? "priority" : "first come first served");
}
