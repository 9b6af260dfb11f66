/* tp_sctp_common.c: placeholder until the kernel SCTP backend lands. */
#include "tp_sctp.h"

int
tp_sctp_socket(int family, int type, const struct tp_opts *o, char *err, size_t errlen)
{
	(void)family; (void)type; (void)o;
	tp_seterr(err, errlen, "kernel SCTP backend not built yet");
	return -1;
}

int
tp_sctp_bind(int fd, const struct tp_addrs *a, char *err, size_t errlen)
{
	(void)fd; (void)a;
	tp_seterr(err, errlen, "kernel SCTP backend not built yet");
	return -1;
}
