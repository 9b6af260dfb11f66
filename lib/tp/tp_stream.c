/* tp_stream.c: the byte-stream kernel types, tcp and unix. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp_impl.h"

static int
tp_stream_opts(int fd, int family, const struct tp_opts *o, char *err, size_t errlen)
{
	int one = 1;

	if (family != AF_UNIX && o->nodelay &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
		return tp_sock_errno(err, errlen, "TCP_NODELAY");
	return tp_sock_bufs(fd, o, err, errlen);
}

static int
tp_stream_listen(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o)
{
	int family = a->a[0].ss_family;

	if (a->n != 1) {
		tp_seterr(l->err, sizeof(l->err), "%s takes one address", l->ops->name);
		return TP_ERROR;
	}
	if ((l->fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return tp_sock_errno(l->err, sizeof(l->err), "socket");
	if (tp_stream_opts(l->fd, family, o, l->err, sizeof(l->err)) != TP_OK ||
	    tp_sock_reuseport(l->fd, o, l->err, sizeof(l->err)) != TP_OK ||
	    tp_sock_listen_fd(l->fd, a, o->backlog, l->err, sizeof(l->err), l->local,
	    sizeof(l->local)) != TP_OK)
		goto bad;
	return TP_OK;
bad:
	close(l->fd);
	l->fd = -1;
	return TP_ERROR;
}

static int
tp_stream_accept(struct tp_listener *l, struct tp_conn *c)
{
	int family, rc;

	if ((rc = tp_sock_accept(l, c, &family)) != TP_OK)
		return rc;
	if (tp_stream_opts(c->fd, family, &l->opts, l->err, sizeof(l->err)) != TP_OK) {
		close(c->fd);
		c->fd = -1;
		return TP_ERROR;
	}
	return TP_OK;
}

static int
tp_stream_connect(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o)
{
	int family = a->a[0].ss_family;
	struct tp_addrs local;

	if (a->n != 1) {
		tp_seterr(c->err, sizeof(c->err), "%s takes one address", c->ops->name);
		return TP_ERROR;
	}
	tp_addr_str((const struct sockaddr *)&a->a[0], a->len[0], c->peer, sizeof(c->peer));
	c->fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd == -1)
		return tp_sock_errno(c->err, sizeof(c->err), "socket");
	if (tp_stream_opts(c->fd, family, o, c->err, sizeof(c->err)) != TP_OK)
		goto bad;
	if (o->local != NULL && family != AF_UNIX) {
		if (tp_addrs_parse(o->local, AF_UNSPEC, &local, c->err, sizeof(c->err)) == -1)
			goto bad;
		if (bind(c->fd, (struct sockaddr *)&local.a[0], local.len[0]) == -1) {
			tp_sock_errno(c->err, sizeof(c->err), "bind");
			goto bad;
		}
	}
	if (connect(c->fd, (const struct sockaddr *)&a->a[0], a->len[0]) == -1 &&
	    errno != EINPROGRESS) {
		tp_sock_errno(c->err, sizeof(c->err), "connect");
		goto bad;
	}
	return TP_OK;
bad:
	close(c->fd);
	c->fd = -1;
	return TP_ERROR;
}

static int
tp_stream_send(struct tp_conn *c, const void *buf, size_t len, const struct tp_msginfo *mi,
    size_t *sent)
{
	ssize_t n;

	(void)mi;
	*sent = 0;
	n = send(c->fd, buf, len, MSG_NOSIGNAL);
	if (n >= 0) {
		*sent = (size_t)n;
		return TP_OK;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return TP_RETRY;
	return tp_sock_errno(c->err, sizeof(c->err), "send");
}

static int
tp_stream_recv(struct tp_conn *c, void *buf, size_t cap, struct tp_msginfo *mi, size_t *got)
{
	ssize_t n = recv(c->fd, buf, cap, 0);

	if (n > 0) {
		*got = (size_t)n;
		mi->flags = TP_F_EOR;
		return TP_OK;
	}
	if (n == 0)
		return cap == 0 ? TP_OK : TP_EOF;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return TP_RETRY;
	return tp_sock_errno(c->err, sizeof(c->err), "recv");
}

/* The kernel copies file pages to the socket: no user-space buffer for static file bodies. */
static int
tp_stream_sendfile(struct tp_conn *c, int fd, off_t *off, size_t len, size_t *sent)
{
	ssize_t n;

	*sent = 0;
	n = sendfile(c->fd, fd, off, len);
	if (n >= 0) {
		*sent = (size_t)n;
		return TP_OK;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return TP_RETRY;
	return tp_sock_errno(c->err, sizeof(c->err), "sendfile");
}

#define TP_STREAM_TYPE(sym, nm, cp, hp) \
const struct tp_type sym = { \
	.name = nm, .help = hp, .caps = TP_CAP_FORK | (cp), \
	.listen = tp_stream_listen, .accept = tp_stream_accept, .lwatch = tp_sock_lwatch, \
	.lclose = tp_sock_lclose, .connect = tp_stream_connect, .finish = tp_sock_finish, \
	.send = tp_stream_send, .recv = tp_stream_recv, .watch = tp_sock_fd_watch, \
	.close = tp_sock_close, .sendfile = tp_stream_sendfile, \
}

TP_STREAM_TYPE(tp_type_tcp, "tcp", 0, "TCP byte stream (kernel)");
TP_STREAM_TYPE(tp_type_unix, "unix", TP_CAP_PATH, "UNIX-domain stream socket (path or @abstract)");
