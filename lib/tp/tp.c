/* tp.c: transport registry, dispatch through the vtables (the firing and re-firing the types
 * call back into: tp_base.c, below). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ev.h"
#include "tp_impl.h"

const struct tp_type *
tp_type_find(const char *name)
{
	const struct tp_type *const *t;

	for (t = tp_types(); *t != NULL; t++)
		if (strcmp((*t)->name, name) == 0)
			return *t;
	return NULL;
}

static const struct tp_type *
tp_type_get(const char *name, char *err, size_t errlen)
{
	const struct tp_type *const *t;
	const struct tp_type *found;
	char known[256] = "";

	if (name != NULL && (found = tp_type_find(name)) != NULL)
		return found;
	for (t = tp_types(); *t != NULL; t++) {
		strncat(known, " ", sizeof(known) - strlen(known) - 1);
		strncat(known, (*t)->name, sizeof(known) - strlen(known) - 1);
	}
	tp_seterr(err, errlen, "unknown transport '%s' (known:%s)", name ? name : "", known);
	return NULL;
}

void
tp_opts_init(struct tp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->streams = 10;
	o->backlog = 511;
	o->path_max_retrans = -1;
	o->frame_hdr = 4;
}

static int
tp_family(const struct tp_type *t)
{
	return (t->caps & TP_CAP_PATH) ? AF_UNIX : AF_UNSPEC;
}

struct tp_listener *
tp_listen(const char *type, const char *addr, const struct tp_opts *o, char *err, size_t errlen)
{
	const struct tp_type *t;
	struct tp_listener *l = NULL;
	struct tp_addrs a;

	if ((t = tp_type_get(type, err, errlen)) == NULL)
		goto bad;
	if (tp_addrs_parse(addr, tp_family(t), &a, err, errlen) == -1)
		goto bad;
	if ((l = calloc(1, sizeof(*l))) == NULL) {
		tp_seterr(err, errlen, "out of memory");
		goto bad;
	}
	l->ops = t;
	l->fd = -1;
	if (o != NULL)
		l->opts = *o;
	else
		tp_opts_init(&l->opts);
	if (t->listen(l, &a, &l->opts) != TP_OK) {
		tp_seterr(err, errlen, "%s listen on %s: %s", t->name, addr, l->err);
		goto bad;
	}
	return l;
bad:
	if (l != NULL) {
		l->ops = NULL; /* listen failed: the type cleaned up after itself */
		free(l);
	}
	return NULL;
}

int
tp_accept(struct tp_listener *l, struct tp_conn **out)
{
	struct tp_conn *c;
	int rc;

	*out = NULL;
	if ((c = tp_conn_new(l->ops)) == NULL) {
		tp_seterr(l->err, sizeof(l->err), "out of memory");
		return TP_ERROR;
	}
	c->from = l;
	c->streams_asked = l->opts.streams;
	rc = l->ops->accept(l, c);
	if (rc != TP_OK) {
		free(c);
		return rc;
	}
	*out = c;
	return TP_OK;
}

int
tp_listener_watch(struct tp_listener *l, struct ev_loop *loop, tp_listener_cb *cb, void *arg)
{
	int rc;

	if (l->loop != NULL && l->loop != loop)
		l->ops->lwatch(l, l->loop, 0);
	l->cb = cb;
	l->cb_arg = arg;
	l->loop = cb != NULL ? loop : NULL;
	rc = l->ops->lwatch(l, loop, cb != NULL);
	return rc;
}

void
tp_listener_free(struct tp_listener *l)
{
	if (l == NULL)
		return;
	if (l->loop != NULL)
		l->ops->lwatch(l, l->loop, 0);
	l->ops->lclose(l);
	free(l);
}

struct tp_conn *
tp_conn_new(const struct tp_type *t)
{
	struct tp_conn *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->ops = t;
	c->fd = -1;
	c->streams_in = c->streams_out = 1;
	return c;
}

struct tp_conn *
tp_connect(const char *type, const char *addr, const struct tp_opts *o, char *err, size_t errlen)
{
	const struct tp_type *t;
	struct tp_conn *c = NULL;
	struct tp_opts def;
	struct tp_addrs a;

	if ((t = tp_type_get(type, err, errlen)) == NULL)
		goto bad;
	if (tp_addrs_parse(addr, tp_family(t), &a, err, errlen) == -1)
		goto bad;
	if (o == NULL) {
		tp_opts_init(&def);
		o = &def;
	}
	if ((c = tp_conn_new(t)) == NULL) {
		tp_seterr(err, errlen, "out of memory");
		goto bad;
	}
	c->streams_asked = o->streams;
	if (t->connect(c, &a, o) != TP_OK) {
		tp_seterr(err, errlen, "%s connect to %s: %s", t->name, addr, c->err);
		goto bad;
	}
	return c;
bad:
	free(c); /* connect failed: the type cleaned up after itself */
	return NULL;
}

int
tp_finish(struct tp_conn *c)
{
	return c->ops->finish(c);
}

static void
tp_wait_cb(struct tp_conn *c, unsigned events, void *arg)
{
	(void)c;
	*(unsigned *)arg = events;
	ev_stop(c->loop);
}

static void
tp_wait_timeout(struct ev_loop *loop, void *arg)
{
	(void)arg;
	ev_stop(loop);
}

int
tp_wait(struct tp_conn *c, unsigned events, int timeout_ms)
{
	struct ev_loop *loop;
	struct ev_timer t = { 0 };
	unsigned got = 0;
	int rc = TP_ERROR;

	if ((loop = ev_new(c->err, sizeof(c->err))) == NULL)
		return TP_ERROR;
	if (tp_watch(c, loop, events, tp_wait_cb, &got) != TP_OK)
		goto out;
	if (timeout_ms >= 0)
		ev_timer_start(loop, &t, (uint64_t)timeout_ms * 1000, tp_wait_timeout, NULL);
	if (ev_run(loop) == -1)
		tp_seterr(c->err, sizeof(c->err), "wait: %s", strerror(errno));
	else
		rc = got ? TP_OK : TP_RETRY;
	ev_timer_stop(loop, &t);
	tp_watch(c, loop, 0, NULL, NULL);
out:
	ev_free(loop);
	return rc;
}

int
tp_connect_wait(struct tp_conn *c, int timeout_ms)
{
	uint64_t end = ev_clock_us() + (uint64_t)timeout_ms * 1000;
	int rc;

	while ((rc = tp_finish(c)) == TP_RETRY) {
		uint64_t now = ev_clock_us();
		if (timeout_ms >= 0 && now >= end) {
			tp_seterr(c->err, sizeof(c->err), "connect timed out after %d ms", timeout_ms);
			return TP_ERROR;
		}
		if (tp_wait(c, EV_WRITE, timeout_ms < 0 ? -1 : (int)((end - now + 999) / 1000)) ==
		    TP_ERROR)
			return TP_ERROR;
	}
	return rc;
}

int
tp_send(struct tp_conn *c, const void *buf, size_t len, const struct tp_msginfo *mi, size_t *sent)
{
	static const struct tp_msginfo none;
	size_t dummy;

	return c->ops->send(c, buf, len, mi ? mi : &none, sent ? sent : &dummy);
}

int
tp_recv(struct tp_conn *c, void *buf, size_t cap, struct tp_msginfo *mi, size_t *got)
{
	struct tp_msginfo dummy;

	if (mi == NULL)
		mi = &dummy;
	memset(mi, 0, sizeof(*mi));
	*got = 0;
	return c->ops->recv(c, buf, cap, mi, got);
}

int
tp_sendfile(struct tp_conn *c, int fd, off_t *off, size_t len, size_t *sent)
{
	size_t dummy;

	if (sent == NULL)
		sent = &dummy;
	*sent = 0;
	if (c->ops->sendfile == NULL) {
		tp_seterr(c->err, sizeof(c->err), "%s: sendfile not supported", c->ops->name);
		return TP_ERROR;
	}
	return c->ops->sendfile(c, fd, off, len, sent);
}

void
tp_conn_abort(struct tp_conn *c)
{
	struct linger l = { 1, 0 };

	if (c == NULL)
		return;
	if (c->ops->abort != NULL)
		c->ops->abort(c);
	else if (c->fd != -1)
		(void)setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	tp_conn_free(c);
}

int
tp_shutdown_write(struct tp_conn *c)
{
	if ((c->ops->caps & TP_CAP_MSG) || c->fd == -1) {
		tp_seterr(c->err, sizeof(c->err), "%s: half close not supported", c->ops->name);
		return TP_ERROR;
	}
	if (shutdown(c->fd, SHUT_WR) == -1)
		return tp_sock_errno(c->err, sizeof(c->err), "shutdown");
	return TP_OK;
}

int
tp_reset_stream(struct tp_conn *c, uint16_t stream)
{
	if (c->ops->reset_stream == NULL) {
		tp_seterr(c->err, sizeof(c->err), "%s: stream reset not supported", c->ops->name);
		return TP_ERROR;
	}
	return c->ops->reset_stream(c, stream);
}

int
tp_status(struct tp_conn *c, struct tp_status *st)
{
	memset(st, 0, sizeof(*st));
	st->streams_in = c->streams_in;
	st->streams_out = c->streams_out;
	if (c->ops->status == NULL)
		return TP_OK;
	return c->ops->status(c, st);
}
