/* tp_frame.c: message framing (length prefix, 4 bytes or RFC 4571's 2) over tcp and unix. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ev.h"
#include "tp_impl.h"

#define TP_FRAME_RXCAP 65536

struct tp_frame {
	int hdr;              /* 2 or 4 */
	unsigned char *tx;    /* bytes of accepted messages not yet written */
	size_t txlen, txoff, txcap;
	unsigned char rx[TP_FRAME_RXCAP];
	size_t rpos, rend;
	size_t rleft;         /* payload bytes of the current message not yet delivered */
	int inmsg;
	unsigned fdwant;      /* events asked of the fd */
};

static const struct tp_type *
tp_frame_base(const struct tp_type *t)
{
	return t == &tp_type_unixm ? &tp_type_unix : &tp_type_tcp;
}

static int
tp_frame_init(struct tp_conn *c, const struct tp_opts *o)
{
	struct tp_frame *f;

	if ((f = calloc(1, sizeof(*f))) == NULL) {
		tp_seterr(c->err, sizeof(c->err), "out of memory");
		return TP_ERROR;
	}
	f->hdr = o->frame_hdr == 2 ? 2 : 4;
	c->impl = f;
	return TP_OK;
}

static int
tp_frame_listen(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o)
{
	if (o->frame_hdr != 0 && o->frame_hdr != 2 && o->frame_hdr != 4) {
		tp_seterr(l->err, sizeof(l->err), "frame header must be 2 or 4 bytes");
		return TP_ERROR;
	}
	return tp_frame_base(l->ops)->listen(l, a, o);
}

static int
tp_frame_accept(struct tp_listener *l, struct tp_conn *c)
{
	int rc = tp_frame_base(l->ops)->accept(l, c);

	if (rc != TP_OK)
		return rc;
	if (tp_frame_init(c, &l->opts) != TP_OK) {
		tp_seterr(l->err, sizeof(l->err), "%s", c->err);
		tp_sock_close(c);
		return TP_ERROR;
	}
	return TP_OK;
}

static int
tp_frame_connect(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o)
{
	if (tp_frame_base(c->ops)->connect(c, a, o) != TP_OK)
		return TP_ERROR;
	if (tp_frame_init(c, o) != TP_OK) {
		tp_sock_close(c);
		return TP_ERROR;
	}
	return TP_OK;
}

/* Write what is queued; TP_OK once the queue is empty. */
static int
tp_frame_flush(struct tp_conn *c)
{
	struct tp_frame *f = c->impl;
	ssize_t n;

	while (f->txoff < f->txlen) {
		n = send(c->fd, f->tx + f->txoff, f->txlen - f->txoff, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return TP_RETRY;
			return tp_sock_errno(c->err, sizeof(c->err), "send");
		}
		f->txoff += (size_t)n;
	}
	f->txoff = f->txlen = 0;
	return TP_OK;
}

static int
tp_frame_queue(struct tp_frame *f, const unsigned char *p, size_t n)
{
	if (f->txlen + n > f->txcap) {
		size_t cap = f->txcap ? f->txcap : 4096;
		unsigned char *q;
		while (cap < f->txlen + n)
			cap *= 2;
		if ((q = realloc(f->tx, cap)) == NULL)
			return -1;
		f->tx = q;
		f->txcap = cap;
	}
	memcpy(f->tx + f->txlen, p, n);
	f->txlen += n;
	return 0;
}

static int tp_frame_sync(struct tp_conn *c);

static int
tp_frame_send(struct tp_conn *c, const void *buf, size_t len, const struct tp_msginfo *mi,
    size_t *sent)
{
	struct tp_frame *f = c->impl;
	unsigned char h[4];
	struct iovec iov[2];
	struct msghdr mh;
	size_t total, done;
	ssize_t n;
	int rc;

	(void)mi;
	*sent = 0;
	if ((f->hdr == 2 && len > 0xffff) || (uint64_t)len > 0xffffffffu) {
		tp_seterr(c->err, sizeof(c->err), "message of %zu bytes exceeds the %d-byte length "
		    "prefix", len, f->hdr);
		return TP_ERROR;
	}
	if ((rc = tp_frame_flush(c)) != TP_OK)
		return rc;
	if (f->hdr == 2) {
		h[0] = (unsigned char)(len >> 8);
		h[1] = (unsigned char)len;
	} else {
		h[0] = (unsigned char)(len >> 24);
		h[1] = (unsigned char)(len >> 16);
		h[2] = (unsigned char)(len >> 8);
		h[3] = (unsigned char)len;
	}
	iov[0].iov_base = h;
	iov[0].iov_len = (size_t)f->hdr;
	iov[1].iov_base = (void *)(uintptr_t)buf;
	iov[1].iov_len = len;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	total = (size_t)f->hdr + len;
	n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return TP_RETRY;
		return tp_sock_errno(c->err, sizeof(c->err), "send");
	}
	done = (size_t)n;
	/* The message is taken whole: what the socket did not take waits in our queue. */
	if (done < total) {
		if (done < (size_t)f->hdr &&
		    tp_frame_queue(f, h + done, (size_t)f->hdr - done) == -1)
			goto nomem;
		if (tp_frame_queue(f, (const unsigned char *)buf +
		    (done > (size_t)f->hdr ? done - (size_t)f->hdr : 0),
		    done > (size_t)f->hdr ? total - done : len) == -1)
			goto nomem;
		if (c->loop != NULL && tp_frame_sync(c) != TP_OK)
			return TP_ERROR;
	}
	*sent = len;
	return TP_OK;
nomem:
	tp_seterr(c->err, sizeof(c->err), "out of memory");
	return TP_ERROR;
}

static int
tp_frame_fill(struct tp_conn *c)
{
	struct tp_frame *f = c->impl;
	ssize_t n;

	if (f->rpos > 0) {
		memmove(f->rx, f->rx + f->rpos, f->rend - f->rpos);
		f->rend -= f->rpos;
		f->rpos = 0;
	}
	n = recv(c->fd, f->rx + f->rend, sizeof(f->rx) - f->rend, 0);
	if (n > 0) {
		f->rend += (size_t)n;
		return TP_OK;
	}
	if (n == 0) {
		if (f->inmsg || f->rend > 0) {
			tp_seterr(c->err, sizeof(c->err), "peer closed in the middle of a message");
			return TP_ERROR;
		}
		return TP_EOF;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return TP_RETRY;
	return tp_sock_errno(c->err, sizeof(c->err), "recv");
}

static int
tp_frame_recv(struct tp_conn *c, void *buf, size_t cap, struct tp_msginfo *mi, size_t *got)
{
	struct tp_frame *f = c->impl;
	size_t n, avail;
	int rc;

	while (!f->inmsg) {
		if (f->rend - f->rpos >= (size_t)f->hdr) {
			const unsigned char *h = f->rx + f->rpos;
			f->rleft = f->hdr == 2 ? ((size_t)h[0] << 8 | h[1]) :
			    ((size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3]);
			f->rpos += (size_t)f->hdr;
			f->inmsg = 1;
			break;
		}
		if ((rc = tp_frame_fill(c)) != TP_OK)
			return rc;
	}
	avail = f->rend - f->rpos;
	if (avail == 0 && f->rleft > 0) {
		/* Large payloads go straight to the caller's buffer, without our copy. */
		if (cap >= sizeof(f->rx) / 2) {
			ssize_t r = recv(c->fd, buf, cap < f->rleft ? cap : f->rleft, 0);
			if (r > 0) {
				n = (size_t)r;
				goto got;
			}
		}
		if ((rc = tp_frame_fill(c)) != TP_OK)
			return rc;
		avail = f->rend - f->rpos;
	}
	n = cap < f->rleft ? cap : f->rleft;
	if (n > avail)
		n = avail;
	memcpy(buf, f->rx + f->rpos, n);
	f->rpos += n;
got:
	f->rleft -= n;
	*got = n;
	if (f->rleft == 0) {
		f->inmsg = 0;
		mi->flags = TP_F_EOR;
	}
	return TP_OK;
}

static unsigned
tp_frame_pending(struct tp_conn *c)
{
	struct tp_frame *f = c->impl;
	size_t avail = f->rend - f->rpos;

	if (f->inmsg ? (avail > 0 || f->rleft == 0) : avail >= (size_t)f->hdr)
		return EV_READ;
	return 0;
}

static void
tp_frame_fd_ev(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct tp_conn *c = arg;
	struct tp_frame *f = c->impl;

	(void)loop;
	(void)fd;
	if ((events & EV_WRITE) && f->txlen > 0) {
		int rc = tp_frame_flush(c);
		if (rc == TP_ERROR) {
			tp_fire(c, EV_ERROR | (c->want & (EV_READ | EV_WRITE)));
			return;
		}
		if (rc == TP_RETRY)
			events &= ~EV_WRITE;
		if (tp_frame_sync(c) != TP_OK)
			return;
	}
	events &= c->want | EV_ERROR;
	if (events)
		tp_fire(c, events);
}

/* Ask the fd for what the user wants, plus writability while our queue is not empty. */
static int
tp_frame_sync(struct tp_conn *c)
{
	struct tp_frame *f = c->impl;
	unsigned ev = c->want | (f->txlen > 0 ? EV_WRITE : 0);

	if (c->loop == NULL || ev == f->fdwant)
		return TP_OK;
	if (ev_fd_set(c->loop, c->fd, ev, tp_frame_fd_ev, c) == -1)
		return tp_sock_errno(c->err, sizeof(c->err), "event loop");
	f->fdwant = ev;
	return TP_OK;
}

static int
tp_frame_watch(struct tp_conn *c, struct ev_loop *loop, unsigned events)
{
	struct tp_frame *f = c->impl;

	if (events == 0) {
		ev_fd_del(loop, c->fd);
		f->fdwant = 0;
		return TP_OK;
	}
	f->fdwant = ~0u; /* force a registration */
	return tp_frame_sync(c);
}

static void
tp_frame_close(struct tp_conn *c)
{
	struct tp_frame *f = c->impl;
	struct timeval tv = { 1, 0 };
	int fl;

	if (f != NULL && f->txlen > f->txoff && c->fd != -1 &&
	    (fl = fcntl(c->fd, F_GETFL)) != -1 && fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK) != -1) {
		/* Accepted messages are owed to the peer: a flush bounded by a send timeout. */
		setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		(void)tp_frame_flush(c);
	}
	if (f != NULL)
		free(f->tx);
	free(f);
	c->impl = NULL;
	tp_sock_close(c);
}

#define TP_FRAME_TYPE(sym, nm, cp, hp) \
const struct tp_type sym = { \
	.name = nm, .help = hp, .caps = TP_CAP_MSG | TP_CAP_FORK | (cp), \
	.listen = tp_frame_listen, .accept = tp_frame_accept, .lwatch = tp_sock_lwatch, \
	.lclose = tp_sock_lclose, .connect = tp_frame_connect, .finish = tp_sock_finish, \
	.send = tp_frame_send, .recv = tp_frame_recv, .watch = tp_frame_watch, \
	.pending = tp_frame_pending, .close = tp_frame_close, \
}

TP_FRAME_TYPE(tp_type_tcpm, "tcpm", 0, "TCP with a length prefix per message (framing)");
TP_FRAME_TYPE(tp_type_unixm, "unixm", TP_CAP_PATH, "UNIX stream socket with a length prefix per message");
