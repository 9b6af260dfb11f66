/* tp_sctp1m.c: kernel SCTP, one-to-many style (SOCK_SEQPACKET): associations of one socket. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ev.h"
#include "tp_sctp.h"

/*
 * A listener has one socket for all its associations. Each association gets a tp_conn
 * (fd -1) when accepted; what the socket delivers for an association that is not the one
 * reading is queued in that association. The socket is registered in the loop while the
 * listener or any of its conns is watched, reading always (notifications must be consumed
 * for every association), writing while a conn waits to write. When it is ready, the conns
 * it has news for are fired from its event callback, one after the other; news found while
 * a conn reads (another's data) wakes that other one through a deferred call, never from
 * inside the reader's call. A client conn is the one association of a socket of its own.
 */

#define TP_SCTP1M_READS   64   /* pieces read per wake-up or recv call at most */
#define TP_SCTP1M_BUCKETS 64

struct tp_sctp1m_piece {
	struct tp_sctp1m_piece *next;
	size_t len, off;
	struct tp_msginfo mi;
	unsigned char data[];
};

struct tp_sctp1m_sock;

struct tp_sctp1m_assoc {
	struct tp_sctp_as as;
	struct tp_sctp1m_sock *s;
	struct tp_conn *c;              /* NULL until accepted */
	struct tp_sctp1m_assoc *hnext;  /* hash chain */
	struct tp_sctp1m_assoc *qnext;  /* accept queue */
	struct tp_sctp1m_assoc *fnext;  /* to fire from the socket's event */
	int infire;                     /* ... is on that list */
	struct tp_sctp1m_piece *head, *tail;
	unsigned contrib;               /* what this conn asks of the socket's registration */
	int wready;                     /* the socket said writable: tell the conn */
	int finished;                   /* client: connect completion was taken */
	char peer[64];
};

struct tp_sctp1m_sock {
	int fd;
	int refs;                       /* the listener and each conn */
	struct tp_listener *l;          /* NULL once closed, and for a client's socket */
	struct tp_sctp1m_assoc *one;    /* a client's association */
	struct ev_loop *loop;           /* the loop the socket is (to be) registered in */
	unsigned fdwant;                /* what it is registered for */
	int lwatch;                     /* the listener is watched */
	int inev;                       /* in the socket's event callback */
	int lready;                     /* ... which is to tell the listener */
	struct tp_sctp1m_assoc *fire;   /* ... and these conns */
	unsigned nread, nwrite;         /* conns that contribute EV_READ, EV_WRITE */
	struct tp_sctp1m_assoc *hash[TP_SCTP1M_BUCKETS];
	struct tp_sctp1m_assoc *accq, *acctail; /* up, not yet accepted */
	struct tp_sctp_nbuf nb;
	unsigned char rx[65536];        /* what is read for others than the reader */
};

static void tp_sctp1m_fd_ev(struct ev_loop *loop, int fd, unsigned events, void *arg);

/* The association table. */
static struct tp_sctp1m_assoc **
tp_sctp1m_slot(struct tp_sctp1m_sock *s, sctp_assoc_t id)
{
	return &s->hash[(uint32_t)id % TP_SCTP1M_BUCKETS];
}

static struct tp_sctp1m_assoc *
tp_sctp1m_find(struct tp_sctp1m_sock *s, sctp_assoc_t id)
{
	struct tp_sctp1m_assoc *a;

	if (s->one != NULL)
		return s->one; /* a client's socket has one association, whatever its id */
	for (a = *tp_sctp1m_slot(s, id); a != NULL; a = a->hnext)
		if (a->as.id == id)
			return a;
	return NULL;
}

static void
tp_sctp1m_unhash(struct tp_sctp1m_assoc *a)
{
	struct tp_sctp1m_assoc **p;

	for (p = tp_sctp1m_slot(a->s, a->as.id); *p != NULL; p = &(*p)->hnext)
		if (*p == a) {
			*p = a->hnext;
			break;
		}
	a->hnext = NULL;
}

static void
tp_sctp1m_hash(struct tp_sctp1m_assoc *a, sctp_assoc_t id)
{
	struct tp_sctp1m_assoc **p = tp_sctp1m_slot(a->s, id);

	a->as.id = id;
	a->hnext = *p;
	*p = a;
}

static void
tp_sctp1m_rehash(struct tp_sctp1m_assoc *a, sctp_assoc_t id)
{
	tp_sctp1m_unhash(a);
	tp_sctp1m_hash(a, id);
}

static struct tp_sctp1m_assoc *
tp_sctp1m_assoc_new(struct tp_sctp1m_sock *s, sctp_assoc_t id, uint16_t asked)
{
	struct tp_sctp1m_assoc *a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	tp_sctp_as_init(&a->as, id, asked);
	a->s = s;
	tp_sctp1m_hash(a, id);
	return a;
}

static void
tp_sctp1m_assoc_free(struct tp_sctp1m_assoc *a)
{
	struct tp_sctp1m_piece *p, *next;

	if (a == NULL)
		return;
	tp_sctp1m_unhash(a);
	if (a->infire) {
		struct tp_sctp1m_assoc **f;
		for (f = &a->s->fire; *f != NULL; f = &(*f)->fnext)
			if (*f == a) {
				*f = a->fnext;
				break;
			}
	}
	for (p = a->head; p != NULL; p = next) {
		next = p->next;
		free(p);
	}
	free(a);
}

static struct tp_sctp1m_sock *
tp_sctp1m_sock_new(int fd)
{
	struct tp_sctp1m_sock *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->fd = fd;
	s->refs = 1;
	return s;
}

static void tp_sctp1m_lkick(struct ev_loop *loop, void *arg);

static void
tp_sctp1m_unref(struct tp_sctp1m_sock *s)
{
	struct tp_sctp1m_assoc *a;
	size_t i;

	if (--s->refs > 0)
		return;
	if (s->loop != NULL) {
		if (s->fdwant)
			ev_fd_del(s->loop, s->fd);
		ev_undefer(s->loop, tp_sctp1m_lkick, s);
	}
	/* Left: associations never accepted; close() shuts them down gracefully. */
	for (i = 0; i < TP_SCTP1M_BUCKETS; i++)
		while ((a = s->hash[i]) != NULL)
			tp_sctp1m_assoc_free(a);
	close(s->fd);
	free(s);
}

/* Registration of the socket: reading while anything is watched, writing while a conn
 * waits to write. With nothing watched it forgets the loop, which may go away. */
static void
tp_sctp1m_sync(struct tp_sctp1m_sock *s)
{
	unsigned ev = 0;

	if (s->loop == NULL)
		return;
	if (s->lwatch || s->nread)
		ev = EV_READ;
	if (s->nwrite)
		ev |= EV_WRITE;
	if (ev != s->fdwant) {
		if (ev == 0)
			ev_fd_del(s->loop, s->fd);
		else if (ev_fd_set(s->loop, s->fd, ev, tp_sctp1m_fd_ev, s) == -1)
			return; /* out of memory: the old registration stays */
		s->fdwant = ev;
	}
	if (ev == 0)
		s->loop = NULL;
}

/* What a conn watching `want` asks of the socket. Every watched conn needs it read (its
 * notifications, a client's COMM_UP); writability means something once a client is up. */
static void
tp_sctp1m_contrib(struct tp_sctp1m_assoc *a, unsigned want)
{
	struct tp_sctp1m_sock *s = a->s;
	unsigned ev;

	ev = want ? EV_READ : 0;
	if ((want & EV_WRITE) && (a->as.up || s->one == NULL) && !a->as.failed)
		ev |= EV_WRITE;
	s->nread -= (a->contrib & EV_READ) != 0;
	s->nwrite -= (a->contrib & EV_WRITE) != 0;
	s->nread += (ev & EV_READ) != 0;
	s->nwrite += (ev & EV_WRITE) != 0;
	a->contrib = ev;
	tp_sctp1m_sync(s);
}

/* Again, after the association changed. */
static void
tp_sctp1m_recontrib(struct tp_sctp1m_assoc *a)
{
	if (a->c != NULL && a->c->loop != NULL)
		tp_sctp1m_contrib(a, a->c->want);
}

/* Events ready without the socket: queued data, an end, connect completion. */
static unsigned
tp_sctp1m_pending(struct tp_conn *c)
{
	struct tp_sctp1m_assoc *a = c->impl;
	unsigned r = 0;

	if (a->head != NULL || a->as.shut || a->as.failed)
		r |= EV_READ;
	if (a->as.failed || a->as.shut)
		r |= EV_WRITE;
	if (a->s->one != NULL && !a->finished && (a->as.up || a->as.failed))
		r |= EV_WRITE;
	if (a->wready)
		r |= EV_WRITE;
	return r;
}

/* Tell a conn what is ready; it may be gone afterwards. */
static void
tp_sctp1m_fire(struct tp_sctp1m_assoc *a)
{
	struct tp_conn *c = a->c;
	unsigned ev;

	ev = tp_sctp1m_pending(c) & c->want;
	a->wready = 0;
	if (ev)
		tp_fire(c, ev | (a->as.failed ? EV_ERROR : 0));
}

static void
tp_sctp1m_kick(struct ev_loop *loop, void *arg)
{
	struct tp_conn *c = arg;

	(void)loop;
	tp_sctp1m_fire(c->impl);
}

/* A conn has news: fired by the socket's event callback, or from a deferred call where it is
 * found inside some conn's call. */
static void
tp_sctp1m_wake(struct tp_sctp1m_assoc *a)
{
	struct tp_sctp1m_sock *s = a->s;
	struct tp_conn *c = a->c;

	if (c == NULL || c->loop == NULL || !(tp_sctp1m_pending(c) & c->want))
		return;
	if (!s->inev) {
		ev_defer(c->loop, tp_sctp1m_kick, c);
	} else if (!a->infire) {
		a->infire = 1;
		a->fnext = s->fire;
		s->fire = a;
	}
}

/* The listener has associations to accept. */
static void
tp_sctp1m_lwake(struct tp_sctp1m_sock *s)
{
	if (s->l == NULL || !s->lwatch || s->accq == NULL || s->loop == NULL)
		return;
	if (s->inev)
		s->lready = 1;
	else
		ev_defer(s->loop, tp_sctp1m_lkick, s);
}

/* Call the listener's callback; the caller holds a reference on s. */
static void
tp_sctp1m_lfire(struct tp_sctp1m_sock *s)
{
	if (s->l == NULL || !s->lwatch || s->accq == NULL)
		return;
	tp_lfire(s->l);
	/* Level-triggered: what the callback left in the queue is told again. */
	if (s->l != NULL && s->lwatch && s->accq != NULL && s->loop != NULL)
		ev_defer(s->loop, tp_sctp1m_lkick, s);
}

static void
tp_sctp1m_lkick(struct ev_loop *loop, void *arg)
{
	struct tp_sctp1m_sock *s = arg;

	(void)loop;
	s->refs++;
	tp_sctp1m_lfire(s);
	tp_sctp1m_unref(s);
}

/* Reading the socket. */
static int
tp_sctp1m_queue(struct tp_sctp1m_assoc *a, const void *p, size_t n, const struct tp_msginfo *mi)
{
	struct tp_sctp1m_piece *q;

	if ((q = malloc(sizeof(*q) + n)) == NULL)
		return -1;
	q->next = NULL;
	q->len = n;
	q->off = 0;
	q->mi = *mi;
	memcpy(q->data, p, n);
	if (a->tail != NULL)
		a->tail->next = q;
	else
		a->head = q;
	a->tail = q;
	tp_sctp1m_wake(a);
	return 0;
}

/* A new association on a listening socket: queued for accept. */
static void
tp_sctp1m_comm_up(struct tp_sctp1m_sock *s, sctp_assoc_t id)
{
	struct tp_sctp1m_assoc *a;

	if (s->l == NULL) {
		tp_sctp_eof(s->fd, id, 0); /* not listening any more */
		return;
	}
	if ((a = tp_sctp1m_assoc_new(s, id, s->l->opts.streams)) == NULL) {
		tp_sctp_eof(s->fd, id, 1);
		return;
	}
	tp_sctp_peer(s->fd, id, a->peer, sizeof(a->peer));
	if (s->acctail != NULL)
		s->acctail->qnext = a;
	else
		s->accq = a;
	s->acctail = a;
	tp_sctp1m_lwake(s);
}

/* A whole notification is in s->nb. */
static void
tp_sctp1m_noted(struct tp_sctp1m_sock *s)
{
	struct tp_sctp1m_assoc *a;
	sctp_assoc_t id = tp_sctp_note_assoc(&s->nb);
	uint16_t in, out;

	a = tp_sctp1m_find(s, id);
	if (a == NULL && tp_sctp_note_new(&s->nb, &in, &out)) {
		tp_sctp1m_comm_up(s, id);
		a = tp_sctp1m_find(s, id);
	}
	if (a != NULL) {
		if (s->one != NULL && a->as.id == 0 && id != 0)
			tp_sctp1m_rehash(a, id); /* connectx did not tell */
		tp_sctp_note(a->c, &a->as, &s->nb, -1);
		tp_sctp1m_recontrib(a);
		tp_sctp1m_wake(a);
	}
	s->nb.len = 0;
}

/* Read one piece. For `me`: 1 with it in buf. Otherwise it goes where it belongs: 0. */
static int
tp_sctp1m_read(struct tp_sctp1m_sock *s, struct tp_sctp1m_assoc *me, void *buf, size_t cap,
    struct tp_sctp_rinfo *ri, size_t *got)
{
	struct tp_sctp1m_assoc *a;
	ssize_t n;

	if ((n = tp_sctp_recv_piece(s->fd, buf, cap, 0, ri)) < 0)
		return -1;
	if (ri->notification) {
		if (tp_sctp_nbuf_add(&s->nb, buf, (size_t)n, (ri->mi.flags & TP_F_EOR) != 0))
			tp_sctp1m_noted(s);
		return 0;
	}
	if ((a = tp_sctp1m_find(s, ri->assoc)) == NULL)
		return 0; /* for an association closed here: dropped */
	if (a == me) {
		*got = (size_t)n;
		return 1;
	}
	if (tp_sctp1m_queue(a, buf, (size_t)n, &ri->mi) == -1) {
		tp_sctp_as_fail(&a->as, "out of memory for received data");
		tp_sctp_eof(s->fd, a->as.id, 1);
		tp_sctp1m_wake(a);
	}
	return 0;
}

static void
tp_sctp1m_drain(struct tp_sctp1m_sock *s)
{
	struct tp_sctp_rinfo ri;
	size_t got;
	int i;

	for (i = 0; i < TP_SCTP1M_READS; i++)
		if (tp_sctp1m_read(s, NULL, s->rx, sizeof(s->rx), &ri, &got) == -1)
			break;
}

static void
tp_sctp1m_fd_ev(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct tp_sctp1m_sock *s = arg;
	struct tp_sctp1m_assoc *a;
	size_t i;

	(void)loop;
	(void)fd;
	s->refs++;
	s->inev = 1;
	if (events & (EV_READ | EV_ERROR))
		tp_sctp1m_drain(s);
	if (events & (EV_WRITE | EV_ERROR))
		for (i = 0; i < TP_SCTP1M_BUCKETS; i++)
			for (a = s->hash[i]; a != NULL; a = a->hnext)
				if (a->contrib & EV_WRITE) {
					a->wready = 1;
					tp_sctp1m_wake(a);
				}
	/* What the callbacks find (another's data, a new association) joins the round. A
	 * callback may close any conn, or the listener: s is held, the list kept exact. */
	for (;;) {
		if (s->lready) {
			s->lready = 0;
			tp_sctp1m_lfire(s);
			continue;
		}
		if ((a = s->fire) == NULL)
			break;
		s->fire = a->fnext;
		a->infire = 0;
		tp_sctp1m_fire(a);
	}
	s->inev = 0;
	tp_sctp1m_unref(s);
}

/* Listener. */
static int
tp_sctp1m_listen(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o)
{
	struct tp_sctp1m_sock *s;
	int fd;

	fd = tp_sctp_socket(tp_sctp_family(a, NULL), SOCK_SEQPACKET, o, l->err, sizeof(l->err));
	if (fd == -1)
		return TP_ERROR;
	if (tp_sctp_listen_fd(fd, a, o->backlog, l->local, sizeof(l->local), l->err,
	    sizeof(l->err)) != TP_OK)
		goto bad;
	if ((s = tp_sctp1m_sock_new(fd)) == NULL) {
		tp_seterr(l->err, sizeof(l->err), "out of memory");
		goto bad;
	}
	s->l = l;
	l->impl = s;
	l->fd = fd;
	return TP_OK;
bad:
	close(fd);
	return TP_ERROR;
}

static int
tp_sctp1m_accept(struct tp_listener *l, struct tp_conn *c)
{
	struct tp_sctp1m_sock *s = l->impl;
	struct tp_sctp1m_assoc *a = s->accq;

	if (a == NULL)
		return TP_RETRY;
	s->accq = a->qnext;
	if (s->accq == NULL)
		s->acctail = NULL;
	a->qnext = NULL;
	a->c = c;
	a->as.asked = c->streams_asked ? c->streams_asked : TP_SCTP_STREAMS;
	c->impl = a;
	c->fd = -1; /* the listener's socket carries it */
	c->streams_in = a->as.streams_in;
	c->streams_out = a->as.streams_out;
	if (a->as.failed)
		tp_seterr(c->err, sizeof(c->err), "%s", a->as.err);
	memcpy(c->peer, a->peer, sizeof(c->peer));
	s->refs++;
	return TP_OK;
}

static int
tp_sctp1m_lwatch(struct tp_listener *l, struct ev_loop *loop, int on)
{
	struct tp_sctp1m_sock *s = l->impl;

	if (!on) {
		s->lwatch = 0;
		ev_undefer(loop, tp_sctp1m_lkick, s);
		tp_sctp1m_sync(s);
		return TP_OK;
	}
	if (s->loop != NULL && s->loop != loop && s->fdwant) {
		tp_seterr(l->err, sizeof(l->err), "sctp1m: a listener and its connections "
		    "must share one event loop");
		return TP_ERROR;
	}
	if (s->loop != loop && s->loop != NULL)
		ev_undefer(s->loop, tp_sctp1m_lkick, s);
	s->loop = loop;
	s->lwatch = 1;
	tp_sctp1m_sync(s);
	if (s->accq != NULL)
		ev_defer(loop, tp_sctp1m_lkick, s);
	return TP_OK;
}

static void
tp_sctp1m_lclose(struct tp_listener *l)
{
	struct tp_sctp1m_sock *s = l->impl;
	struct tp_sctp1m_assoc *a;

	if (s == NULL)
		return;
	s->l = NULL;
	s->lwatch = 0;
	if (s->loop != NULL)
		ev_undefer(s->loop, tp_sctp1m_lkick, s);
	if (s->refs > 1) {
		/* Accepted associations live on in this socket: take no new ones, and end
		 * those nobody accepted. */
		listen(s->fd, 0);
		while ((a = s->accq) != NULL) {
			s->accq = a->qnext;
			if (!a->as.failed)
				tp_sctp_eof(s->fd, a->as.id, 0);
			tp_sctp1m_assoc_free(a);
		}
		s->acctail = NULL;
		tp_sctp1m_sync(s);
	}
	l->impl = NULL;
	l->fd = -1;
	tp_sctp1m_unref(s);
}

/* Connections. */
static int
tp_sctp1m_connect(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o)
{
	struct tp_sctp1m_sock *s = NULL;
	struct tp_addrs local;
	sctp_assoc_t id;
	int fd;

	tp_addr_str((const struct sockaddr *)&a->a[0], a->len[0], c->peer, sizeof(c->peer));
	local.n = 0;
	if (o->local != NULL &&
	    tp_addrs_parse(o->local, AF_UNSPEC, &local, c->err, sizeof(c->err)) == -1)
		return TP_ERROR;
	fd = tp_sctp_socket(tp_sctp_family(a, &local), SOCK_SEQPACKET, o, c->err,
	    sizeof(c->err));
	if (fd == -1)
		return TP_ERROR;
	if ((s = tp_sctp1m_sock_new(fd)) == NULL ||
	    (s->one = tp_sctp1m_assoc_new(s, 0, c->streams_asked)) == NULL) {
		tp_seterr(c->err, sizeof(c->err), "out of memory");
		goto bad;
	}
	s->one->c = c;
	s->one->as.t0_us = ev_clock_us();
	if (o->rto_initial_ms)
		s->one->as.rto_initial_ms = o->rto_initial_ms;
	if (local.n > 0 && tp_sctp_bind(fd, &local, c->err, sizeof(c->err)) != TP_OK)
		goto bad;
	if (tp_sctp_connectx(fd, a, &id, c->err, sizeof(c->err)) != TP_OK)
		goto bad;
	tp_sctp1m_rehash(s->one, id);
	c->impl = s->one;
	c->fd = fd; /* its own socket, told for information: the conn owns it through impl */
	return TP_OK;
bad:
	if (s != NULL) {
		tp_sctp1m_assoc_free(s->one);
		s->one = NULL;
		free(s);
	}
	close(fd);
	return TP_ERROR;
}

static int
tp_sctp1m_fail(struct tp_conn *c)
{
	struct tp_sctp1m_assoc *a = c->impl;

	tp_seterr(c->err, sizeof(c->err), "%s", a->as.err);
	return TP_ERROR;
}

static int
tp_sctp1m_finish(struct tp_conn *c)
{
	struct tp_sctp1m_assoc *a = c->impl;
	struct tp_sctp1m_sock *s = a->s;
	struct sctp_status st;

	if (!a->as.up && !a->as.failed) {
		tp_sctp1m_drain(s); /* COMM_UP or CANT_STR_ASSOC */
		if (!a->as.up && !a->as.failed && tp_sctp_sstatus(s->fd, a->as.id, &st) == 0 &&
		    st.sstat_state == SCTP_ESTABLISHED) {
			tp_sctp_as_up(c, &a->as, st.sstat_instrms, st.sstat_outstrms);
			tp_sctp1m_recontrib(a);
		}
	}
	if (a->as.failed) {
		a->finished = 1;
		return tp_sctp1m_fail(c);
	}
	if (!a->as.up)
		return TP_RETRY;
	a->finished = 1;
	return TP_OK;
}

static int
tp_sctp1m_send(struct tp_conn *c, const void *buf, size_t len, const struct tp_msginfo *mi,
    size_t *sent)
{
	struct tp_sctp1m_assoc *a = c->impl;
	int rc;

	*sent = 0;
	tp_sctp_tell(c, &a->as);
	if (a->as.failed)
		return tp_sctp1m_fail(c);
	if (!a->finished && (rc = tp_sctp1m_finish(c)) != TP_OK)
		return rc;
	rc = tp_sctp_send_msg(a->s->fd, a->as.id, c->streams_out, buf, len, mi, c->err,
	    sizeof(c->err));
	if (rc == TP_OK)
		*sent = len;
	return rc;
}

static int
tp_sctp1m_recv(struct tp_conn *c, void *buf, size_t cap, struct tp_msginfo *mi, size_t *got)
{
	struct tp_sctp1m_assoc *a = c->impl;
	struct tp_sctp1m_piece *p;
	struct tp_sctp_rinfo ri;
	size_t n;
	int i, rc;

	tp_sctp_tell(c, &a->as);
	for (i = 0; i < TP_SCTP1M_READS; i++) {
		if ((p = a->head) != NULL) {
			n = p->len - p->off < cap ? p->len - p->off : cap;
			memcpy(buf, p->data + p->off, n);
			p->off += n;
			*got = n;
			*mi = p->mi;
			if (p->off < p->len) {
				mi->flags &= ~TP_F_EOR;
				return TP_OK;
			}
			if ((a->head = p->next) == NULL)
				a->tail = NULL;
			free(p);
			return TP_OK;
		}
		if (a->as.failed)
			return tp_sctp1m_fail(c);
		if (a->as.shut)
			return TP_EOF;
		if (cap == 0)
			return TP_OK;
		if ((rc = tp_sctp1m_read(a->s, a, buf, cap, &ri, got)) == 1) {
			*mi = ri.mi;
			return TP_OK;
		}
		if (rc == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return TP_RETRY;
			return tp_sock_errno(c->err, sizeof(c->err), "recv");
		}
	}
	return TP_RETRY;
}

static int
tp_sctp1m_watch(struct tp_conn *c, struct ev_loop *loop, unsigned events)
{
	struct tp_sctp1m_assoc *a = c->impl;
	struct tp_sctp1m_sock *s = a->s;

	if (events == 0) {
		ev_undefer(loop, tp_sctp1m_kick, c);
		a->wready = 0;
		tp_sctp1m_contrib(a, 0);
		return TP_OK;
	}
	if (s->loop != NULL && s->loop != loop && s->fdwant) {
		tp_seterr(c->err, sizeof(c->err), "sctp1m: a listener and its connections must "
		    "share one event loop");
		return TP_ERROR;
	}
	s->loop = loop;
	tp_sctp1m_contrib(a, events);
	return TP_OK;
}

static int
tp_sctp1m_status(struct tp_conn *c, struct tp_status *st)
{
	struct tp_sctp1m_assoc *a = c->impl;

	return tp_sctp_get_status(a->s->fd, a->as.id, st, c->err, sizeof(c->err));
}

static int
tp_sctp1m_reset_stream(struct tp_conn *c, uint16_t stream)
{
	struct tp_sctp1m_assoc *a = c->impl;

	return tp_sctp_reset(a->s->fd, a->as.id, stream, c->err, sizeof(c->err));
}

static void
tp_sctp1m_abort(struct tp_conn *c)
{
	struct tp_sctp1m_assoc *a = c->impl;

	if (a != NULL && !a->as.failed)
		tp_sctp_eof(a->s->fd, a->as.id, 1);
}

static void
tp_sctp1m_close(struct tp_conn *c)
{
	struct tp_sctp1m_assoc *a = c->impl;
	struct tp_sctp1m_sock *s;

	if (a == NULL)
		return;
	s = a->s;
	if (s->loop != NULL)
		ev_undefer(s->loop, tp_sctp1m_kick, c);
	tp_sctp1m_contrib(a, 0);
	/* This association only, gracefully; a client's socket goes with it (close does it). */
	if (s->one == NULL && !a->as.failed && !a->as.shut)
		tp_sctp_eof(s->fd, a->as.id, 0);
	if (s->one == a)
		s->one = NULL;
	tp_sctp1m_assoc_free(a);
	c->impl = NULL;
	c->fd = -1;
	tp_sctp1m_unref(s);
}

const struct tp_type tp_type_sctp1m = {
	.name = "sctp1m",
	.help = "kernel SCTP, one-to-many style (one socket for all associations)",
	.caps = TP_CAP_MSG | TP_CAP_STREAMS | TP_CAP_UNORDERED | TP_CAP_PRSCTP |
	    TP_CAP_MULTIHOME | TP_CAP_PPID | TP_CAP_INTERLEAVE,
	.listen = tp_sctp1m_listen,
	.accept = tp_sctp1m_accept,
	.lwatch = tp_sctp1m_lwatch,
	.lclose = tp_sctp1m_lclose,
	.connect = tp_sctp1m_connect,
	.finish = tp_sctp1m_finish,
	.send = tp_sctp1m_send,
	.recv = tp_sctp1m_recv,
	.watch = tp_sctp1m_watch,
	.pending = tp_sctp1m_pending,
	.status = tp_sctp1m_status,
	.close = tp_sctp1m_close,
	.reset_stream = tp_sctp1m_reset_stream,
	.abort = tp_sctp1m_abort,
};
