/* tp_usrsctp.c: placeholder until the usrsctp backend lands. */
#include "tp.h"

static int
tp_usrsctp_listen(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o)
{
	(void)a; (void)o;
	tp_seterr(l->err, sizeof(l->err), "not implemented yet");
	return TP_ERROR;
}

static int
tp_usrsctp_connect(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o)
{
	(void)a; (void)o;
	tp_seterr(c->err, sizeof(c->err), "not implemented yet");
	return TP_ERROR;
}

const struct tp_type tp_type_usrsctp = {
	.name = "usrsctp",
	.help = "placeholder",
	.listen = tp_usrsctp_listen,
	.connect = tp_usrsctp_connect,
};
