/* tp_sctp.c: kernel SCTP, one-to-one style (SOCK_STREAM): one socket per association. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ev.h"
#include "tp_sctp.h"

#define TP_SCTP_READS 64 /* notifications consumed per call at most */

struct tp_sctp_conn {
	struct tp_sctp_as as;
	struct tp_sctp_nbuf nb;
	unsigned fdwant; /* what the fd is registered for */
};

static int
tp_sctp_listen(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o)
{
	if ((l->fd = tp_sctp_socket(tp_sctp_family(a, NULL), SOCK_STREAM, o, l->err,
	    sizeof(l->err))) == -1)
		return TP_ERROR;
	if (tp_sock_reuseport(l->fd, o, l->err, sizeof(l->err)) != TP_OK ||
	    tp_sctp_listen_fd(l->fd, a, o->backlog, l->local, sizeof(l->local), l->err,
	    sizeof(l->err)) != TP_OK)
		goto bad;
	return TP_OK;
bad:
	close(l->fd);
	l->fd = -1;
	return TP_ERROR;
}

static int
tp_sctp_accept(struct tp_listener *l, struct tp_conn *c)
{
	struct tp_sctp_conn *s;
	struct sctp_status st;
	int rc;

	if ((rc = tp_sock_accept(l, c, NULL)) != TP_OK)
		return rc;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		tp_seterr(l->err, sizeof(l->err), "out of memory");
		goto bad;
	}
	c->impl = s;
	tp_sctp_as_init(&s->as, 0, c->streams_asked);
	/* Its COMM_UP comes as the socket's first notification; the counts are known now. */
	if (tp_sctp_sstatus(c->fd, 0, &st) == 0)
		tp_sctp_as_up(c, &s->as, st.sstat_instrms, st.sstat_outstrms);
	else
		tp_sctp_as_up(c, &s->as, 0, 0);
	return TP_OK;
bad:
	free(c->impl);
	c->impl = NULL;
	close(c->fd);
	c->fd = -1;
	return TP_ERROR;
}

static int
tp_sctp_connect(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o)
{
	struct tp_sctp_conn *s = NULL;
	struct tp_addrs local;
	sctp_assoc_t id;
	int family;

	tp_addr_str((const struct sockaddr *)&a->a[0], a->len[0], c->peer, sizeof(c->peer));
	local.n = 0;
	if (o->local != NULL &&
	    tp_addrs_parse(o->local, AF_UNSPEC, &local, c->err, sizeof(c->err)) == -1)
		return TP_ERROR;
	family = tp_sctp_family(a, &local);
	if ((c->fd = tp_sctp_socket(family, SOCK_STREAM, o, c->err, sizeof(c->err))) == -1)
		return TP_ERROR;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		tp_seterr(c->err, sizeof(c->err), "out of memory");
		goto bad;
	}
	tp_sctp_as_init(&s->as, 0, c->streams_asked);
	s->as.t0_us = ev_clock_us();
	if (o->rto_initial_ms)
		s->as.rto_initial_ms = o->rto_initial_ms;
	if (local.n > 0 && tp_sctp_bind(c->fd, &local, c->err, sizeof(c->err)) != TP_OK)
		goto bad;
	if (tp_sctp_connectx(c->fd, a, &id, c->err, sizeof(c->err)) != TP_OK)
		goto bad;
	c->impl = s;
	return TP_OK;
bad:
	free(s);
	close(c->fd);
	c->fd = -1;
	return TP_ERROR;
}

static int
tp_sctp_fail(struct tp_conn *c)
{
	struct tp_sctp_conn *s = c->impl;

	tp_seterr(c->err, sizeof(c->err), "%s", s->as.err);
	return TP_ERROR;
}

/* A complete notification is in s->nb: apply it. */
static void
tp_sctp_noted(struct tp_conn *c)
{
	struct tp_sctp_conn *s = c->impl;

	tp_sctp_note(c, &s->as, &s->nb, c->fd);
	s->nb.len = 0;
}

/* Consume the notifications at the head of the socket; stop before data. */
static void
tp_sctp_notes(struct tp_conn *c)
{
	struct tp_sctp_conn *s = c->impl;
	struct tp_sctp_rinfo ri;
	unsigned char buf[256];
	ssize_t n;
	int i;

	for (i = 0; i < TP_SCTP_READS && !s->as.failed; i++) {
		if (s->nb.len == 0) {
			n = tp_sctp_recv_piece(c->fd, buf, 1, MSG_PEEK, &ri);
			if (n <= 0 || !ri.notification)
				return;
		}
		if ((n = tp_sctp_recv_piece(c->fd, buf, sizeof(buf), 0, &ri)) <= 0)
			return;
		if (!ri.notification)
			return; /* cannot happen: the head was a notification */
		if (tp_sctp_nbuf_add(&s->nb, buf, (size_t)n, (ri.mi.flags & TP_F_EOR) != 0))
			tp_sctp_noted(c);
	}
}

static int tp_sctp_sync(struct tp_conn *c);
static int tp_sctp_finish(struct tp_conn *c);

static void
tp_sctp_fd_ev(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct tp_conn *c = arg;
	struct tp_sctp_conn *s = c->impl;

	(void)loop;
	(void)fd;
	if (!s->as.up && !s->as.failed) {
		(void)tp_sctp_finish(c);
		if (!s->as.up && !s->as.failed)
			return;
		events = EV_WRITE | (s->as.failed ? EV_ERROR | EV_READ : 0);
		if (tp_sctp_sync(c) != TP_OK)
			events |= EV_ERROR | EV_READ;
	}
	events &= c->want | EV_ERROR;
	if (events)
		tp_fire(c, events);
}

/* Register the fd: until the association is up, for its COMM_UP (or failure) only. The
 * socket says writable while it connects, which would spin the loop. */
static int
tp_sctp_sync(struct tp_conn *c)
{
	struct tp_sctp_conn *s = c->impl;
	unsigned ev = c->want;

	if (c->loop == NULL || ev == 0)
		return TP_OK;
	if (!s->as.up && !s->as.failed)
		ev = EV_READ;
	if (ev == s->fdwant)
		return TP_OK;
	if (ev_fd_set(c->loop, c->fd, ev, tp_sctp_fd_ev, c) == -1)
		return tp_sock_errno(c->err, sizeof(c->err), "event loop");
	s->fdwant = ev;
	return TP_OK;
}

static int
tp_sctp_watch(struct tp_conn *c, struct ev_loop *loop, unsigned events)
{
	struct tp_sctp_conn *s = c->impl;

	if (events == 0) {
		ev_fd_del(loop, c->fd);
		s->fdwant = 0;
		return TP_OK;
	}
	s->fdwant = ~0u; /* force a registration */
	return tp_sctp_sync(c);
}

static int
tp_sctp_finish(struct tp_conn *c)
{
	struct tp_sctp_conn *s = c->impl;
	struct sctp_status st;
	int e;

	if (s->as.failed)
		return tp_sctp_fail(c);
	if (s->as.up)
		return TP_OK;
	tp_sctp_notes(c); /* COMM_UP or CANT_STR_ASSOC */
	if (s->as.failed)
		return tp_sctp_fail(c);
	if (!s->as.up) {
		if ((e = tp_sctp_sockerr(c->fd)) != 0) {
			tp_sctp_as_fail(&s->as, "%s", e == ETIMEDOUT ?
			    "connection timed out (no answer to INIT)" : tp_sctp_reason(e));
			return tp_sctp_fail(c);
		}
		if (tp_sctp_sstatus(c->fd, 0, &st) == -1 || st.sstat_state != SCTP_ESTABLISHED)
			return TP_RETRY;
		tp_sctp_as_up(c, &s->as, st.sstat_instrms, st.sstat_outstrms);
	}
	if (tp_sctp_sync(c) != TP_OK)
		return TP_ERROR;
	return TP_OK;
}

static int
tp_sctp_send(struct tp_conn *c, const void *buf, size_t len, const struct tp_msginfo *mi,
    size_t *sent)
{
	struct tp_sctp_conn *s = c->impl;
	int rc;

	*sent = 0;
	tp_sctp_tell(c, &s->as);
	if (s->as.failed)
		return tp_sctp_fail(c);
	if (!s->as.up && (rc = tp_sctp_finish(c)) != TP_OK)
		return rc;
	rc = tp_sctp_send_msg(c->fd, 0, c->streams_out, buf, len, mi, c->err, sizeof(c->err));
	if (rc == TP_OK)
		*sent = len;
	return rc;
}

static int
tp_sctp_recv(struct tp_conn *c, void *buf, size_t cap, struct tp_msginfo *mi, size_t *got)
{
	struct tp_sctp_conn *s = c->impl;
	struct tp_sctp_rinfo ri;
	ssize_t n;
	int i;

	tp_sctp_tell(c, &s->as);
	for (i = 0; i < TP_SCTP_READS; i++) {
		if (s->as.failed)
			return tp_sctp_fail(c);
		if (s->as.shut && s->nb.len == 0)
			return TP_EOF; /* SHUTDOWN comes after the peer's last data */
		if (cap == 0)
			return TP_OK;
		if ((n = tp_sctp_recv_piece(c->fd, buf, cap, 0, &ri)) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return TP_RETRY;
			if (errno == ENOTCONN && !s->as.up)
				return TP_RETRY;
			tp_sctp_as_fail(&s->as, "%s", tp_sctp_reason(errno));
			return tp_sctp_fail(c);
		}
		if (ri.notification) {
			if (tp_sctp_nbuf_add(&s->nb, buf, (size_t)n, (ri.mi.flags & TP_F_EOR) != 0))
				tp_sctp_noted(c);
			continue;
		}
		if (n == 0) {
			s->as.shut = 1;
			return TP_EOF;
		}
		*got = (size_t)n;
		*mi = ri.mi;
		return TP_OK;
	}
	return TP_RETRY;
}

static int
tp_sctp_status(struct tp_conn *c, struct tp_status *st)
{
	return tp_sctp_get_status(c->fd, 0, st, c->err, sizeof(c->err));
}

static int
tp_sctp_reset_stream(struct tp_conn *c, uint16_t stream)
{
	return tp_sctp_reset(c->fd, 0, stream, c->err, sizeof(c->err));
}

static void
tp_sctp_close(struct tp_conn *c)
{
	free(c->impl);
	c->impl = NULL;
	tp_sock_close(c); /* the kernel shuts the association down gracefully */
}

const struct tp_type tp_type_sctp = {
	.name = "sctp",
	.help = "kernel SCTP, one-to-one style (one socket per association)",
	.caps = TP_CAP_MSG | TP_CAP_STREAMS | TP_CAP_UNORDERED | TP_CAP_PRSCTP |
	    TP_CAP_MULTIHOME | TP_CAP_PPID | TP_CAP_FORK | TP_CAP_INTERLEAVE,
	.listen = tp_sctp_listen,
	.accept = tp_sctp_accept,
	.lwatch = tp_sock_lwatch,
	.lclose = tp_sock_lclose,
	.connect = tp_sctp_connect,
	.finish = tp_sctp_finish,
	.send = tp_sctp_send,
	.recv = tp_sctp_recv,
	.watch = tp_sctp_watch,
	.status = tp_sctp_status,
	.close = tp_sctp_close,
	.reset_stream = tp_sctp_reset_stream,
};
