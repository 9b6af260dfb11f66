/* tp_sctp.h: what the kernel SCTP types (one-to-one and one-to-many) share. */
#ifndef SCTPAPPS_TP_SCTP_H
#define SCTPAPPS_TP_SCTP_H

#include <stdint.h>
#include <sys/types.h>
#include <netinet/sctp.h>

#include "tp_impl.h"

#define TP_SCTP_STREAMS 10 /* asked for when tp_opts.streams is 0 */

/* One received piece: what the cmsg and the flags said about it. */
struct tp_sctp_rinfo {
	sctp_assoc_t assoc;
	struct tp_msginfo mi;  /* stream, ppid (host order), TP_F_UNORDERED, TP_F_EOR */
	int notification;      /* MSG_NOTIFICATION: not data */
};

/* Notifications may come in pieces (a small read buffer, a SEND_FAILED with its data): the
 * head of one is kept here until its end. */
struct tp_sctp_nbuf {
	size_t len;
	union {
		union sctp_notification n;
		unsigned char b[1024];
	} u;
};

/* The state of one association, as the notifications and calls tell it. */
struct tp_sctp_as {
	sctp_assoc_t id;
	uint16_t streams_in, streams_out, asked;
	int up;         /* established (COMM_UP seen, or status said so) */
	int shut;       /* the peer shut down: no more data will come */
	int failed;     /* gone with an error, told in err */
	int noted;      /* the stream counts have been told */
	uint64_t t0_us; /* connect started (tells a refused INIT from an unanswered one) */
	uint32_t rto_initial_ms;
	char err[TP_ERRLEN];
};

/* tp_sctp_common.c */
int tp_sctp_family(const struct tp_addrs *a, const struct tp_addrs *b);
int tp_sctp_socket(int family, int type, const struct tp_opts *o, char *err, size_t errlen);
int tp_sctp_bind(int fd, const struct tp_addrs *a, char *err, size_t errlen);
int tp_sctp_listen_fd(int fd, const struct tp_addrs *a, int backlog, char *local, size_t locallen,
    char *err, size_t errlen);
int tp_sctp_connectx(int fd, const struct tp_addrs *a, sctp_assoc_t *id, char *err,
    size_t errlen);
int tp_sctp_send_msg(int fd, sctp_assoc_t id, uint16_t streams_out, const void *buf, size_t len,
    const struct tp_msginfo *mi, char *err, size_t errlen);
int tp_sctp_eof(int fd, sctp_assoc_t id, int abort);
ssize_t tp_sctp_recv_piece(int fd, void *buf, size_t cap, int flags, struct tp_sctp_rinfo *ri);
int tp_sctp_nbuf_add(struct tp_sctp_nbuf *nb, const void *p, size_t n, int eor);
sctp_assoc_t tp_sctp_note_assoc(const struct tp_sctp_nbuf *nb);
int tp_sctp_note_new(const struct tp_sctp_nbuf *nb, uint16_t *in, uint16_t *out);
void tp_sctp_note(struct tp_conn *c, struct tp_sctp_as *as, const struct tp_sctp_nbuf *nb,
    int sockerr);
void tp_sctp_as_init(struct tp_sctp_as *as, sctp_assoc_t id, uint16_t asked);
void tp_sctp_tell(struct tp_conn *c, struct tp_sctp_as *as);
void tp_sctp_as_up(struct tp_conn *c, struct tp_sctp_as *as, uint16_t in, uint16_t out);
int tp_sctp_as_fail(struct tp_sctp_as *as, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *tp_sctp_reason(int e);
int tp_sctp_sstatus(int fd, sctp_assoc_t id, struct sctp_status *st);
int tp_sctp_get_status(int fd, sctp_assoc_t id, struct tp_status *st, char *err, size_t errlen);
void tp_sctp_peer(int fd, sctp_assoc_t id, char *buf, size_t buflen);
int tp_sctp_sockerr(int fd);
int tp_sctp_reset(int fd, sctp_assoc_t id, uint16_t sid, char *err, size_t errlen);

/* tp_sctp_encap.c */
int tp_sctp_encap_local_port(void);
int tp_sctp_encap(int fd, const struct tp_opts *o, char *err, size_t errlen);

/* tp_sctp_intl.c: tp_opts.sctp_interleave */
int tp_sctp_intl_set(int fd, const struct tp_opts *o, char *err, size_t errlen);
void tp_sctp_intl_tell(struct tp_conn *c, const struct tp_sctp_as *as);

#endif
