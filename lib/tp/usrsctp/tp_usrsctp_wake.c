/* tp_usrsctp_wake.c: usrsctp's threads wake the event loop: one bell per loop, a queue of ids. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ev.h"
#include "tp_usrsctp.h"

/*
 * usrsctp runs its own threads (UDP receive, timers) and tells about a socket through an upcall
 * from them. The upcall queues the socket's id on the bell of the loop that watches it and
 * rings the bell (an eventfd) only when the loop is not already due to look: while the loop
 * works through a batch, what the stack tells meanwhile joins the queue without a system call,
 * and the loop takes it before it sleeps. The loop then computes readiness itself with
 * usrsctp_get_events(). (Measured before this: an eventfd per socket, written and read on
 * nearly every request; see docs/benchmarks.md.)
 *
 * The upcall's argument is an id, never a pointer: usrsctp reads it without a lock and may
 * still call with it while we close, so a closed socket's id simply finds its slot gone (a
 * generation in the id tells a reused slot from its former owner). Everything the upcall
 * touches is under tp_usrsctp_wake_mu.
 *
 * usrsctp makes the upcall only after it has processed an incoming packet. What its timers
 * decide alone (INIT or heartbeats given up) comes with no upcall, so a watched connection is
 * also checked once a second (tp_usrsctp.c): a safety net, not a poll loop.
 */

#define TP_USRSCTP_SLOTBITS 20      /* id = generation << SLOTBITS | (slot + 1) */
#define TP_USRSCTP_SLOTMAX  ((1u << TP_USRSCTP_SLOTBITS) - 2)
#define TP_USRSCTP_GENMASK  (UINTPTR_MAX >> TP_USRSCTP_SLOTBITS)
#define TP_USRSCTP_BELLS    8       /* loops watching usrsctp sockets at once, at most */

struct tp_usrsctp_slot {
	uintptr_t gen;
	int used;
	int pending;     /* told by the stack, not yet passed on to its watcher */
	int bell;        /* the bell of the loop that watches it; -1: not watched */
	tp_usrsctp_wake_cb *cb;
	void *arg;
	size_t next;     /* free list */
};

struct tp_usrsctp_ids {
	uintptr_t *v;
	size_t n, cap;
};

struct tp_usrsctp_bell {
	struct ev_loop *loop; /* NULL: a free bell */
	int efd;
	int rung;        /* written and not read yet: the loop looks at q before it sleeps */
	int busy;        /* the loop is passing a batch on (kept while it does) */
	size_t watchers;
	struct tp_usrsctp_ids q;    /* ids told, in order; the upcall appends */
	struct tp_usrsctp_ids work; /* the batch the loop passes on (loop only) */
};

static pthread_mutex_t tp_usrsctp_wake_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tp_usrsctp_slot *tp_usrsctp_slots; /* all of this under tp_usrsctp_wake_mu */
static size_t tp_usrsctp_nslots, tp_usrsctp_nused;
static size_t tp_usrsctp_free = SIZE_MAX;
static struct tp_usrsctp_bell tp_usrsctp_bells[TP_USRSCTP_BELLS];

/* Registry: a slot and its id. */
static uintptr_t
tp_usrsctp_reg_add(void)
{
	struct tp_usrsctp_slot *p, *s;
	uintptr_t id = 0;
	size_t i, n;

	pthread_mutex_lock(&tp_usrsctp_wake_mu);
	if (tp_usrsctp_free == SIZE_MAX) {
		n = tp_usrsctp_nslots ? 2 * tp_usrsctp_nslots : 16;
		if (n > TP_USRSCTP_SLOTMAX)
			n = TP_USRSCTP_SLOTMAX;
		if (n <= tp_usrsctp_nslots || (p = realloc(tp_usrsctp_slots, n * sizeof(*p))) == NULL)
			goto out;
		for (i = n; i-- > tp_usrsctp_nslots;) {
			memset(&p[i], 0, sizeof(p[i]));
			p[i].next = tp_usrsctp_free;
			tp_usrsctp_free = i;
		}
		tp_usrsctp_slots = p;
		tp_usrsctp_nslots = n;
	}
	i = tp_usrsctp_free;
	s = &tp_usrsctp_slots[i];
	tp_usrsctp_free = s->next;
	s->gen = (s->gen + 1) & TP_USRSCTP_GENMASK;
	if (s->gen == 0)
		s->gen = 1;
	s->used = 1;
	s->pending = 0;
	s->bell = -1;
	s->cb = NULL;
	s->arg = NULL;
	tp_usrsctp_nused++;
	id = (s->gen << TP_USRSCTP_SLOTBITS) | (uintptr_t)(i + 1);
out:
	pthread_mutex_unlock(&tp_usrsctp_wake_mu);
	return id;
}

/* The slot of an id, or NULL; under the lock. */
static struct tp_usrsctp_slot *
tp_usrsctp_reg_get(uintptr_t id)
{
	size_t i = (size_t)(id & ((1u << TP_USRSCTP_SLOTBITS) - 1));

	if (i == 0 || i > tp_usrsctp_nslots)
		return NULL;
	if (!tp_usrsctp_slots[i - 1].used || tp_usrsctp_slots[i - 1].gen != id >> TP_USRSCTP_SLOTBITS)
		return NULL;
	return &tp_usrsctp_slots[i - 1];
}

size_t
tp_usrsctp_wake_count(void)
{
	size_t n;

	pthread_mutex_lock(&tp_usrsctp_wake_mu);
	n = tp_usrsctp_nused;
	pthread_mutex_unlock(&tp_usrsctp_wake_mu);
	return n;
}

/* Bells. Under the lock. */
static int
tp_usrsctp_ids_add(struct tp_usrsctp_ids *q, uintptr_t id)
{
	uintptr_t *p;
	size_t n;

	if (q->n == q->cap) {
		n = q->cap ? 2 * q->cap : 64;
		if ((p = realloc(q->v, n * sizeof(*p))) == NULL)
			return -1;
		q->v = p;
		q->cap = n;
	}
	q->v[q->n++] = id;
	return 0;
}

/* Queue a slot's id on its bell, and ring the bell unless the loop is due to look anyway. */
static void
tp_usrsctp_bell_tell(struct tp_usrsctp_slot *s, uintptr_t id)
{
	struct tp_usrsctp_bell *b = &tp_usrsctp_bells[s->bell];
	uint64_t one = 1;

	if (tp_usrsctp_ids_add(&b->q, id) == -1)
		return; /* out of memory: the once-a-second check finds it */
	s->pending = 1;
	if (!b->rung && write(b->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
		b->rung = 1;
}

static int
tp_usrsctp_bell_find(struct ev_loop *loop)
{
	int i, freeb = -1;

	for (i = 0; i < TP_USRSCTP_BELLS; i++) {
		if (tp_usrsctp_bells[i].loop == loop)
			return i;
		if (freeb == -1 && tp_usrsctp_bells[i].loop == NULL)
			freeb = i;
	}
	return freeb;
}

/* A bell that nothing watches any more goes (not while its loop passes a batch on). */
static void
tp_usrsctp_bell_put(int i)
{
	struct tp_usrsctp_bell *b = &tp_usrsctp_bells[i];

	if (--b->watchers > 0 || b->busy)
		return;
	ev_fd_del(b->loop, b->efd);
	close(b->efd);
	free(b->q.v);
	free(b->work.v);
	memset(b, 0, sizeof(*b));
}

/* The loop side: take what the stack told, pass it on, and sleep only when nothing is left. */
static void
tp_usrsctp_bell_ring(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct tp_usrsctp_bell *b = arg;
	struct tp_usrsctp_ids t;
	struct tp_usrsctp_slot *s;
	tp_usrsctp_wake_cb *cb;
	uint64_t v;
	void *cbarg;
	size_t i;

	(void)loop;
	(void)fd;
	(void)events;
	pthread_mutex_lock(&tp_usrsctp_wake_mu);
	t = b->work;
	b->work = b->q;
	b->q = t;
	b->q.n = 0;
	b->busy = 1;
	for (i = 0; i < b->work.n; i++) {
		s = tp_usrsctp_reg_get(b->work.v[i]);
		if (s == NULL || !s->pending || s->bell != b - tp_usrsctp_bells)
			continue; /* closed, told twice, or unwatched since (a watch tells it again) */
		s->pending = 0;
		cb = s->cb;
		cbarg = s->arg;
		pthread_mutex_unlock(&tp_usrsctp_wake_mu);
		cb(cbarg); /* may close any socket, this one too: the next id is looked up again */
		pthread_mutex_lock(&tp_usrsctp_wake_mu);
	}
	b->work.n = 0;
	b->busy = 0;
	if (b->watchers == 0) {
		b->watchers = 1;
		tp_usrsctp_bell_put((int)(b - tp_usrsctp_bells));
	} else if (b->q.n == 0) {
		/* nothing came meanwhile: sleep, and be rung for what comes next */
		(void)!read(b->efd, &v, sizeof(v));
		b->rung = 0;
	} /* else the bell still reads as rung: the loop comes back after its other events */
	pthread_mutex_unlock(&tp_usrsctp_wake_mu);
}

/* Called by usrsctp's threads. */
static void
tp_usrsctp_upcall(struct socket *so, void *arg, int flags)
{
	struct tp_usrsctp_slot *s;

	(void)so;
	(void)flags;
	pthread_mutex_lock(&tp_usrsctp_wake_mu);
	if ((s = tp_usrsctp_reg_get((uintptr_t)arg)) != NULL && !s->pending) {
		if (s->bell >= 0)
			tp_usrsctp_bell_tell(s, (uintptr_t)arg);
		else
			s->pending = 1; /* told when it is watched */
	}
	pthread_mutex_unlock(&tp_usrsctp_wake_mu);
}

/* A registered id for a socket, with the upcall pointed at it. */
uintptr_t
tp_usrsctp_wake_new(struct socket *so, char *err, size_t errlen)
{
	uintptr_t id;

	if ((id = tp_usrsctp_reg_add()) == 0) {
		tp_seterr(err, errlen, "out of memory");
		return 0;
	}
	usrsctp_set_upcall(so, tp_usrsctp_upcall, (void *)id);
	return id;
}

static void
tp_usrsctp_unwatch(struct tp_usrsctp_slot *s)
{
	int i = s->bell;

	if (i < 0)
		return;
	s->bell = -1;
	tp_usrsctp_bell_put(i);
}

/* Watch id from loop: cb(arg) when the stack tells anything about it (loop NULL: stop). */
int
tp_usrsctp_wake_watch(uintptr_t id, struct ev_loop *loop, tp_usrsctp_wake_cb *cb, void *arg)
{
	struct tp_usrsctp_slot *s;
	struct tp_usrsctp_bell *b;
	int i, rc = -1, efd;

	pthread_mutex_lock(&tp_usrsctp_wake_mu);
	if ((s = tp_usrsctp_reg_get(id)) == NULL) {
		errno = EBADF;
		goto out;
	}
	if (loop == NULL || (s->bell >= 0 && tp_usrsctp_bells[s->bell].loop != loop))
		tp_usrsctp_unwatch(s);
	s->cb = cb;
	s->arg = arg;
	if (loop == NULL || s->bell >= 0) {
		rc = 0;
		goto out;
	}
	if ((i = tp_usrsctp_bell_find(loop)) == -1) {
		errno = EMFILE;
		goto out;
	}
	b = &tp_usrsctp_bells[i];
	if (b->loop == NULL) {
		if ((efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1)
			goto out;
		if (ev_fd_set(loop, efd, EV_READ, tp_usrsctp_bell_ring, b) == -1) {
			close(efd);
			goto out;
		}
		b->loop = loop;
		b->efd = efd;
	}
	b->watchers++;
	s->bell = i;
	if (s->pending) {
		s->pending = 0;
		tp_usrsctp_bell_tell(s, id); /* what the stack told while nobody watched */
	}
	rc = 0;
out:
	pthread_mutex_unlock(&tp_usrsctp_wake_mu);
	return rc;
}

/* Close a socket and drop its id, in the order that keeps the upcall harmless. */
void
tp_usrsctp_wake_free(struct socket *so, uintptr_t id)
{
	struct tp_usrsctp_slot *s;

	if (so != NULL) {
		/* The upcall function stays: usrsctp tests and calls it without a lock. */
		usrsctp_set_upcall(so, tp_usrsctp_upcall, NULL);
		tp_usrsctp_linger_close(so);
	}
	pthread_mutex_lock(&tp_usrsctp_wake_mu);
	if ((s = tp_usrsctp_reg_get(id)) != NULL) {
		tp_usrsctp_unwatch(s);
		s->used = 0;
		s->next = tp_usrsctp_free;
		tp_usrsctp_free = (size_t)(s - tp_usrsctp_slots);
		tp_usrsctp_nused--;
	}
	pthread_mutex_unlock(&tp_usrsctp_wake_mu);
}

const struct tp_usrsctp_mode tp_usrsctp_threads = {
	.conn = 0,
	.wake_new = tp_usrsctp_wake_new,
	.wake_watch = tp_usrsctp_wake_watch,
	.wake_free = tp_usrsctp_wake_free,
};
