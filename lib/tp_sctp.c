/* tp_sctp.c: placeholder until the sctp backend lands. */
#include "tp.h"

static int
tp_sctp_listen(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o)
{
	(void)a; (void)o;
	tp_seterr(l->err, sizeof(l->err), "not implemented yet");
	return TP_ERROR;
}

static int
tp_sctp_connect(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o)
{
	(void)a; (void)o;
	tp_seterr(c->err, sizeof(c->err), "not implemented yet");
	return TP_ERROR;
}

const struct tp_type tp_type_sctp = {
	.name = "sctp",
	.help = "placeholder",
	.listen = tp_sctp_listen,
	.connect = tp_sctp_connect,
};
