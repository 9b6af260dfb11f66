/* tp_sctp.h: what the kernel SCTP types (one-to-one and one-to-many) share. */
#ifndef SCTPAPPS_TP_SCTP_H
#define SCTPAPPS_TP_SCTP_H

#include "tp.h"

/* tp_sctp_common.c */
int tp_sctp_socket(int family, int type, const struct tp_opts *o, char *err, size_t errlen);
int tp_sctp_bind(int fd, const struct tp_addrs *a, char *err, size_t errlen);

#endif
