/* tp_sock.c: socket helpers shared by the kernel transport types. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ev.h"
#include "tp_impl.h"

int
tp_sock_errno(char *err, size_t errlen, const char *what)
{
	tp_seterr(err, errlen, "%s: %s", what, strerror(errno));
	return TP_ERROR;
}

int
tp_sock_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	return 0;
}

int
tp_sock_bufs(int fd, const struct tp_opts *o, char *err, size_t errlen)
{
	if (o->sndbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o->sndbuf, sizeof(o->sndbuf)) == -1)
		return tp_sock_errno(err, errlen, "SO_SNDBUF");
	if (o->rcvbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->rcvbuf, sizeof(o->rcvbuf)) == -1)
		return tp_sock_errno(err, errlen, "SO_RCVBUF");
	return TP_OK;
}

static void
tp_sock_conn_ev(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	(void)loop;
	(void)fd;
	tp_fire(arg, events);
}

int
tp_sock_fd_watch(struct tp_conn *c, struct ev_loop *loop, unsigned events)
{
	if (ev_fd_set(loop, c->fd, events, tp_sock_conn_ev, c) == -1)
		return tp_sock_errno(c->err, sizeof(c->err), "event loop");
	return TP_OK;
}

static void
tp_sock_listener_ev(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	tp_lfire(arg);
}

int
tp_sock_lwatch(struct tp_listener *l, struct ev_loop *loop, int on)
{
	if (!on) {
		ev_fd_del(loop, l->fd);
		return TP_OK;
	}
	if (ev_fd_set(loop, l->fd, EV_READ, tp_sock_listener_ev, l) == -1)
		return tp_sock_errno(l->err, sizeof(l->err), "event loop");
	return TP_OK;
}

/* Accept one connection, non-blocking, with its peer's address as text: TP_RETRY when none
 * is waiting (or it went away before we took it). */
int
tp_sock_accept(struct tp_listener *l, struct tp_conn *c, int *family)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	c->fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c->fd == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		    errno == ECONNABORTED)
			return TP_RETRY;
		return tp_sock_errno(l->err, sizeof(l->err), "accept");
	}
	tp_addr_str((struct sockaddr *)&ss, len, c->peer, sizeof(c->peer));
	if (family != NULL)
		*family = ss.ss_family;
	return TP_OK;
}

/* Completion of a non-blocking connect: SO_ERROR tells how it went. */
int
tp_sock_finish(struct tp_conn *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int e = 0;

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &len) == -1)
		return tp_sock_errno(c->err, sizeof(c->err), "connect");
	if (e != 0) {
		errno = e;
		return tp_sock_errno(c->err, sizeof(c->err), "connect");
	}
	len = sizeof(ss);
	if (getpeername(c->fd, (struct sockaddr *)&ss, &len) == -1) {
		if (errno == ENOTCONN)
			return TP_RETRY;
		return tp_sock_errno(c->err, sizeof(c->err), "connect");
	}
	return TP_OK;
}

void
tp_sock_close(struct tp_conn *c)
{
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
}

void
tp_sock_lclose(struct tp_listener *l)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);

	if (l->fd == -1)
		return;
	/* A unix listener leaves its socket file behind: remove it, as its creator. */
	if (getsockname(l->fd, (struct sockaddr *)&sun, &len) == 0 && sun.sun_family == AF_UNIX &&
	    len > offsetof(struct sockaddr_un, sun_path) && sun.sun_path[0] != '\0')
		unlink(sun.sun_path);
	close(l->fd);
	l->fd = -1;
}

/* Bind (all addresses are bound by the caller for SCTP; here the first) and listen. */
/* Before bind: several sockets on one address and port, the kernel spreading the peers. */
int
tp_sock_reuseport(int fd, const struct tp_opts *o, char *err, size_t errlen)
{
	int one = 1;

	if (o->reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) == -1)
		return tp_sock_errno(err, errlen, "SO_REUSEPORT");
	return TP_OK;
}

int
tp_sock_listen_fd(int fd, const struct tp_addrs *a, int backlog, char *err, size_t errlen,
    char *local, size_t locallen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int one = 1;

	if (a->a[0].ss_family != AF_UNIX)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (a->n > 0 && bind(fd, (const struct sockaddr *)&a->a[0], a->len[0]) == -1) {
		if (errno == EADDRINUSE)
			tp_seterr(err, errlen, "address already in use");
		else
			tp_sock_errno(err, errlen, "bind");
		return TP_ERROR;
	}
	if (listen(fd, backlog > 0 ? backlog : 511) == -1)
		return tp_sock_errno(err, errlen, "listen");
	if (tp_sock_nonblock(fd) == -1)
		return tp_sock_errno(err, errlen, "O_NONBLOCK");
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
		tp_addr_str((struct sockaddr *)&ss, len, local, locallen);
	return TP_OK;
}
