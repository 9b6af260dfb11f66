/* tp_base.c: what the transport types call back into, below tp.c (which calls them through
 * their vtables): error text, notes, firing a connection's or listener's callback, with the
 * level-triggered re-firing and the free delayed while firing that it needs (tp_watch and
 * tp_conn_free, which share them), and the initial RTO to ask for. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ev.h"
#include "tp_impl.h"

void
tp_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The initial RTO to ask for: the option's; without one, 0 (the stack's, RFC 4960's 3 s)
 * unless the bounds given exclude 3 s, then the bound nearest it. Linux would keep a 3 s
 * initial RTO above an RTO max of 400 ms (a lost INIT or COOKIE ECHO waits 3 s), usrsctp
 * refuses the bounds (it wants min <= initial <= max). */
uint32_t
tp_rto_initial_ms(const struct tp_opts *o)
{
	if (o->rto_initial_ms)
		return o->rto_initial_ms;
	if (o->rto_max_ms && o->rto_max_ms < TP_RTO_INITIAL_MS)
		return o->rto_max_ms;
	if (o->rto_min_ms > TP_RTO_INITIAL_MS)
		return o->rto_min_ms;
	return 0;
}

void
tp_lfire(struct tp_listener *l)
{
	if (l->cb != NULL)
		l->cb(l, l->cb_arg);
}

static void tp_refire(struct ev_loop *loop, void *arg);

/* Keep the level-triggered promise for data the type holds in its own buffers. */
static void
tp_check_pending(struct tp_conn *c)
{
	if (c->loop != NULL && c->ops->pending != NULL && (c->ops->pending(c) & c->want))
		ev_defer(c->loop, tp_refire, c);
}

static void
tp_refire(struct ev_loop *loop, void *arg)
{
	struct tp_conn *c = arg;
	unsigned ev;

	(void)loop;
	if (c->ops->pending == NULL || (ev = c->ops->pending(c) & c->want) == 0)
		return;
	tp_fire(c, ev);
}

static void
tp_conn_destroy(struct tp_conn *c)
{
	if (c->loop != NULL) {
		ev_undefer(c->loop, tp_refire, c);
		c->ops->watch(c, c->loop, 0);
	}
	c->ops->close(c);
	free(c);
}

int
tp_fire(struct tp_conn *c, unsigned events)
{
	if (c->cb == NULL)
		return 0;
	c->firing++;
	c->cb(c, events, c->cb_arg);
	c->firing--;
	if (c->dead) {
		if (c->firing == 0)
			tp_conn_destroy(c);
		return 1;
	}
	tp_check_pending(c);
	return 0;
}

int
tp_watch(struct tp_conn *c, struct ev_loop *loop, unsigned events, tp_conn_cb *cb, void *arg)
{
	if (c->loop != NULL && (c->loop != loop || events == 0)) {
		ev_undefer(c->loop, tp_refire, c);
		c->ops->watch(c, c->loop, 0);
		c->loop = NULL;
	}
	c->cb = cb;
	c->cb_arg = arg;
	c->want = events;
	if (events == 0)
		return TP_OK;
	c->loop = loop;
	if (c->ops->watch(c, loop, events) != TP_OK)
		return TP_ERROR;
	tp_check_pending(c);
	return TP_OK;
}

int
tp_rewatch(struct tp_conn *c, unsigned events)
{
	if (c->loop == NULL)
		return TP_ERROR;
	return tp_watch(c, c->loop, events, c->cb, c->cb_arg);
}

void
tp_set_notify(struct tp_conn *c, tp_notify_cb *cb, void *arg)
{
	c->notify = cb;
	c->notify_arg = arg;
}

void
tp_note(struct tp_conn *c, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (c->notify == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	c->notify(c, buf, c->notify_arg);
}

/* A stream reset event as text: "stream reset incoming: 3 5", "... outgoing denied: 3". */
void
tp_note_reset(struct tp_conn *c, unsigned flags, const uint16_t *list, size_t n)
{
	char buf[256];
	size_t i, o = 0;
	int k;

	for (i = 0; i < n && o < sizeof(buf) - 8; i++) {
		k = snprintf(buf + o, sizeof(buf) - o, " %u", (unsigned)list[i]);
		if (k < 0)
			break;
		o += (size_t)k;
	}
	buf[o < sizeof(buf) ? o : sizeof(buf) - 1] = '\0';
	/* 0x1 incoming, 0x2 outgoing, 0x4 denied, 0x8 failed: the same in Linux and usrsctp */
	tp_note(c, "stream reset%s%s%s%s:%s", (flags & 0x1) ? " incoming" : "",
	    (flags & 0x2) ? " outgoing" : "", (flags & 0x4) ? " denied" : "",
	    (flags & 0x8) ? " failed" : "", n == 0 ? " all" : buf);
}

void
tp_conn_free(struct tp_conn *c)
{
	if (c == NULL)
		return;
	if (c->firing) {
		c->dead = 1;
		c->cb = NULL;
		return;
	}
	tp_conn_destroy(c);
}
