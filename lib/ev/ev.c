/* ev.c: epoll event loop: level-triggered fd watchers, a binary heap of timers, deferred calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "ev.h"

struct ev_fd {
	ev_fd_cb *cb;
	void *arg;
	unsigned events;
	unsigned gen; /* bumped on every change, so a stale event for a reused fd is dropped */
	int weak;     /* does not keep ev_run going (ev_fd_weak) */
};

struct ev_call {
	ev_cb *cb;
	void *arg;
};

struct ev_loop {
	int epfd;
	int stop;
	uint64_t now_us;
	struct ev_fd *fds;
	size_t nfds;
	struct ev_timer **heap;
	size_t nheap, capheap;
	struct ev_call *defer;    /* calls to run before the next wait */
	size_t ndefer, capdefer;
	size_t nwatch;            /* fds with a watcher */
	size_t nweak, nweakheap;  /* of these, and of the timers, the weak ones */
	struct ev_call onfree[EV_ONFREE_MAX]; /* called by ev_free (ev_on_free) */
	size_t nonfree;
};

uint64_t
ev_clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct ev_loop *
ev_new(char *err, size_t errlen)
{
	struct ev_loop *loop;

	if ((loop = calloc(1, sizeof(*loop))) == NULL)
		goto bad;
	if ((loop->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		goto bad;
	loop->now_us = ev_clock_us();
	return loop;
bad:
	snprintf(err, errlen, "event loop: %s", strerror(errno));
	free(loop);
	return NULL;
}

void
ev_free(struct ev_loop *loop)
{
	size_t i;

	if (loop == NULL)
		return;
	for (i = 0; i < loop->nonfree; i++)
		loop->onfree[i].cb(loop, loop->onfree[i].arg);
	close(loop->epfd);
	free(loop->fds);
	free(loop->heap);
	free(loop->defer);
	free(loop);
}

static int
ev_fd_grow(struct ev_loop *loop, int fd)
{
	size_t n = loop->nfds ? loop->nfds : 64;
	struct ev_fd *p;

	while (n <= (size_t)fd)
		n *= 2;
	if ((p = realloc(loop->fds, n * sizeof(*p))) == NULL)
		return -1;
	memset(p + loop->nfds, 0, (n - loop->nfds) * sizeof(*p));
	loop->fds = p;
	loop->nfds = n;
	return 0;
}

int
ev_fd_set(struct ev_loop *loop, int fd, unsigned events, ev_fd_cb *cb, void *arg)
{
	struct epoll_event ee;
	struct ev_fd *f;
	int op;

	if (fd < 0)
		return -1;
	if (events == 0) {
		ev_fd_del(loop, fd);
		return 0;
	}
	if ((size_t)fd >= loop->nfds && ev_fd_grow(loop, fd) == -1)
		return -1;
	f = &loop->fds[fd];
	memset(&ee, 0, sizeof(ee));
	ee.events = ((events & EV_READ) ? EPOLLIN | EPOLLRDHUP : 0) |
	    ((events & EV_WRITE) ? EPOLLOUT : 0);
	ee.data.u64 = (uint64_t)(unsigned)fd | ((uint64_t)(f->gen + 1) << 32);
	op = f->cb ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	if (epoll_ctl(loop->epfd, op, fd, &ee) == -1) {
		/* The fd may have been closed and reused behind our back: start afresh. */
		if (op == EPOLL_CTL_MOD && errno == ENOENT)
			op = EPOLL_CTL_ADD;
		else if (op == EPOLL_CTL_ADD && errno == EEXIST)
			op = EPOLL_CTL_MOD;
		else
			return -1;
		if (epoll_ctl(loop->epfd, op, fd, &ee) == -1)
			return -1;
	}
	if (f->cb == NULL)
		loop->nwatch++;
	f->gen++;
	f->cb = cb;
	f->arg = arg;
	f->events = events;
	return 0;
}

void
ev_fd_del(struct ev_loop *loop, int fd)
{
	struct ev_fd *f;

	if (fd < 0 || (size_t)fd >= loop->nfds || loop->fds[fd].cb == NULL)
		return;
	f = &loop->fds[fd];
	epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL); /* fails harmlessly if already closed */
	f->cb = NULL;
	f->arg = NULL;
	f->events = 0;
	f->gen++;
	loop->nwatch--;
	if (f->weak) {
		f->weak = 0;
		loop->nweak--;
	}
}

/* A watched fd that does not keep ev_run going by itself (libuv's unref): a helper's socket
 * that should be read while the loop runs, and not be the reason it runs. */
void
ev_fd_weak(struct ev_loop *loop, int fd)
{
	if (fd < 0 || (size_t)fd >= loop->nfds || loop->fds[fd].cb == NULL || loop->fds[fd].weak)
		return;
	loop->fds[fd].weak = 1;
	loop->nweak++;
}

/* cb(loop, arg) at ev_free, before the loop goes: for whoever keeps a pointer to it. */
int
ev_on_free(struct ev_loop *loop, ev_cb *cb, void *arg)
{
	if (loop->nonfree == EV_ONFREE_MAX)
		return -1;
	loop->onfree[loop->nonfree].cb = cb;
	loop->onfree[loop->nonfree].arg = arg;
	loop->nonfree++;
	return 0;
}

void
ev_on_free_cancel(struct ev_loop *loop, ev_cb *cb, void *arg)
{
	size_t i;

	for (i = 0; i < loop->nonfree; i++)
		if (loop->onfree[i].cb == cb && loop->onfree[i].arg == arg) {
			loop->onfree[i] = loop->onfree[--loop->nonfree];
			return;
		}
}

/* Timers: a min-heap on when_us; each timer knows its slot, so stopping is O(log n). */
static void
ev_heap_put(struct ev_loop *loop, size_t i, struct ev_timer *t)
{
	loop->heap[i] = t;
	t->slot = i + 1;
}

static void
ev_heap_up(struct ev_loop *loop, size_t i)
{
	struct ev_timer *t = loop->heap[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (loop->heap[p]->when_us <= t->when_us)
			break;
		ev_heap_put(loop, i, loop->heap[p]);
		i = p;
	}
	ev_heap_put(loop, i, t);
}

static void
ev_heap_down(struct ev_loop *loop, size_t i)
{
	struct ev_timer *t = loop->heap[i];

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= loop->nheap)
			break;
		if (c + 1 < loop->nheap && loop->heap[c + 1]->when_us < loop->heap[c]->when_us)
			c++;
		if (loop->heap[c]->when_us >= t->when_us)
			break;
		ev_heap_put(loop, i, loop->heap[c]);
		i = c;
	}
	ev_heap_put(loop, i, t);
}

void
ev_timer_stop(struct ev_loop *loop, struct ev_timer *t)
{
	struct ev_timer *moved;
	size_t i;

	if (t->slot == 0)
		return;
	i = t->slot - 1;
	t->slot = 0;
	loop->nheap--;
	if (t->weak)
		loop->nweakheap--;
	if (i == loop->nheap)
		return;
	moved = loop->heap[loop->nheap];
	ev_heap_put(loop, i, moved);
	ev_heap_up(loop, i);
	ev_heap_down(loop, moved->slot - 1);
}

void
ev_timer_start(struct ev_loop *loop, struct ev_timer *t, uint64_t after_us, ev_cb *cb, void *arg)
{
	ev_timer_stop(loop, t);
	if (loop->nheap == loop->capheap) {
		size_t n = loop->capheap ? 2 * loop->capheap : 64;
		struct ev_timer **p = realloc(loop->heap, n * sizeof(*p));
		if (p == NULL)
			abort(); /* a loop that cannot keep a timer cannot keep its promises */
		loop->heap = p;
		loop->capheap = n;
	}
	t->when_us = ev_clock_us() + after_us;
	t->cb = cb;
	t->arg = arg;
	ev_heap_put(loop, loop->nheap++, t);
	ev_heap_up(loop, loop->nheap - 1);
	if (t->weak)
		loop->nweakheap++;
}

int
ev_timer_armed(const struct ev_timer *t)
{
	return t->slot != 0;
}

int
ev_defer(struct ev_loop *loop, ev_cb *cb, void *arg)
{
	size_t i;

	for (i = 0; i < loop->ndefer; i++)
		if (loop->defer[i].cb == cb && loop->defer[i].arg == arg)
			return 0;
	if (loop->ndefer == loop->capdefer) {
		size_t n = loop->capdefer ? 2 * loop->capdefer : 16;
		struct ev_call *p = realloc(loop->defer, n * sizeof(*p));
		if (p == NULL)
			return -1;
		loop->defer = p;
		loop->capdefer = n;
	}
	loop->defer[loop->ndefer].cb = cb;
	loop->defer[loop->ndefer].arg = arg;
	loop->ndefer++;
	return 0;
}

void
ev_undefer(struct ev_loop *loop, ev_cb *cb, void *arg)
{
	size_t i;

	for (i = 0; i < loop->ndefer; i++)
		if (loop->defer[i].cb == cb && loop->defer[i].arg == arg)
			loop->defer[i].cb = NULL; /* run_defer skips it */
}

static void
ev_run_defer(struct ev_loop *loop)
{
	size_t n = loop->ndefer, i;

	if (n == 0)
		return;
	/* Run what is queued now; what these calls defer runs on the next turn. An entry is
	 * cleared before its call so that the call may defer itself again. */
	for (i = 0; i < n; i++) {
		struct ev_call c = loop->defer[i];
		loop->defer[i].cb = NULL;
		if (c.cb != NULL)
			c.cb(loop, c.arg);
	}
	memmove(loop->defer, loop->defer + n, (loop->ndefer - n) * sizeof(loop->defer[0]));
	loop->ndefer -= n;
}

static void
ev_run_timers(struct ev_loop *loop)
{
	while (loop->nheap > 0 && loop->heap[0]->when_us <= loop->now_us) {
		struct ev_timer *t = loop->heap[0];
		ev_timer_stop(loop, t);
		t->cb(loop, t->arg);
	}
}

/* A strong fd or timer is left: something ev_run waits for. */
static int
ev_strong(const struct ev_loop *loop)
{
	return loop->nwatch > loop->nweak || loop->nheap > loop->nweakheap;
}

/* One turn; for ev_run (run set), no wait once only weak fds and timers are left. */
static int
ev_turn(struct ev_loop *loop, int timeout_ms, int run)
{
	struct epoll_event evs[256];
	int n, i;

	ev_run_defer(loop);
	if (loop->stop || (run && !ev_strong(loop)))
		timeout_ms = 0; /* asked to stop, or ev_run's end: don't wait for another event */
	if (loop->ndefer > 0 || (loop->nwatch == 0 && loop->nheap == 0 && timeout_ms < 0))
		timeout_ms = 0; /* more to run, or nothing left that could wake us */
	if (loop->nheap > 0) {
		uint64_t now = ev_clock_us(), when = loop->heap[0]->when_us;
		int t = when <= now ? 0 : (int)((when - now + 999) / 1000);
		if (timeout_ms < 0 || t < timeout_ms)
			timeout_ms = t;
	}
	n = epoll_wait(loop->epfd, evs, 256, timeout_ms);
	if (n == -1 && errno != EINTR)
		return -1;
	loop->now_us = ev_clock_us();
	for (i = 0; i < n; i++) {
		int fd = (int)(evs[i].data.u64 & 0xffffffffu);
		unsigned gen = (unsigned)(evs[i].data.u64 >> 32);
		unsigned ev = 0;
		struct ev_fd *f;

		if ((size_t)fd >= loop->nfds)
			continue;
		f = &loop->fds[fd];
		if (f->cb == NULL || f->gen != gen)
			continue;
		if (evs[i].events & (EPOLLIN | EPOLLRDHUP))
			ev |= EV_READ;
		if (evs[i].events & EPOLLOUT)
			ev |= EV_WRITE;
		if (evs[i].events & (EPOLLERR | EPOLLHUP))
			ev |= EV_ERROR | (f->events & (EV_READ | EV_WRITE));
		ev &= f->events | EV_ERROR;
		if (ev)
			f->cb(loop, fd, ev, f->arg);
	}
	ev_run_timers(loop);
	return n > 0 ? n : 0;
}

int
ev_run_once(struct ev_loop *loop, int timeout_ms)
{
	return ev_turn(loop, timeout_ms, 0);
}

int
ev_run(struct ev_loop *loop)
{
	loop->stop = 0;
	/* until stopped, or until nothing but weak fds and timers is left (ev_fd_weak); deferred
	 * calls that leave nothing strong end it at once, not when a weak timer is due */
	while (!loop->stop && (ev_strong(loop) || loop->ndefer > 0))
		if (ev_turn(loop, -1, 1) == -1)
			return -1;
	return 0;
}

void
ev_stop(struct ev_loop *loop)
{
	loop->stop = 1;
}

uint64_t
ev_now_us(struct ev_loop *loop)
{
	return loop->now_us;
}
