/* test_ev.c: event loop: fd watchers, timers in order, stopping timers, deferred calls, weak fds
 * and timers, calls at ev_free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ev.h"

static int order[16], norder;

static void
mark(struct ev_loop *loop, void *arg)
{
	(void)loop;
	order[norder++] = (int)(intptr_t)arg;
}

static void
test_timers_in_order(void **state)
{
	struct ev_timer t[6];
	struct ev_loop *loop;
	char err[128];
	uint64_t t0 = ev_clock_us();

	(void)state;
	memset(t, 0, sizeof(t));
	norder = 0;
	loop = ev_new(err, sizeof(err));
	assert_non_null(loop);
	ev_timer_start(loop, &t[0], 30000, mark, (void *)3);
	ev_timer_start(loop, &t[1], 10000, mark, (void *)1);
	ev_timer_start(loop, &t[2], 20000, mark, (void *)2);
	ev_timer_start(loop, &t[3], 15000, mark, (void *)99);
	ev_timer_start(loop, &t[4], 40000, mark, (void *)4);
	ev_timer_start(loop, &t[5], 5000, mark, (void *)98);
	ev_timer_stop(loop, &t[3]);
	ev_timer_stop(loop, &t[5]);
	assert_false(ev_timer_armed(&t[3]));
	assert_true(ev_timer_armed(&t[0]));
	assert_int_equal(ev_run(loop), 0);
	assert_int_equal(norder, 4);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 3);
	assert_int_equal(order[3], 4);
	assert_true(ev_clock_us() - t0 >= 40000);
	ev_free(loop);
}

struct pipe_state {
	int fds[2];
	int reads;
	char buf[16];
};

static void
on_read(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct pipe_state *p = arg;
	ssize_t n;

	assert_true(events & EV_READ);
	n = read(fd, p->buf, sizeof(p->buf));
	if (n <= 0) {
		ev_fd_del(loop, fd);
		return;
	}
	p->reads++;
}

static void
writer(struct ev_loop *loop, void *arg)
{
	struct pipe_state *p = arg;

	(void)loop;
	assert_int_equal(write(p->fds[1], "hi", 2), 2);
	close(p->fds[1]);
}

static void
test_fd_watch(void **state)
{
	struct pipe_state p = { .reads = 0 };
	struct ev_timer t = { 0 };
	struct ev_loop *loop;
	char err[128];

	(void)state;
	assert_int_equal(pipe(p.fds), 0);
	loop = ev_new(err, sizeof(err));
	assert_int_equal(ev_fd_set(loop, p.fds[0], EV_READ, on_read, &p), 0);
	ev_timer_start(loop, &t, 1000, writer, &p);
	assert_int_equal(ev_run(loop), 0); /* ends: EOF removes the watcher, no timers left */
	assert_int_equal(p.reads, 1);
	assert_memory_equal(p.buf, "hi", 2);
	close(p.fds[0]);
	ev_free(loop);
}

/* Weak fds and timers are served while the loop runs and do not keep it running: a weak timer
 * due before the one strong timer fires, the run ends with that timer though the weak fd and a
 * later weak timer are still there; ev_free calls what was asked, and a cancelled one not. */
static int weak_ticks, freed;

static void
weak_tick(struct ev_loop *loop, void *arg)
{
	(void)loop;
	(void)arg;
	weak_ticks++;
}

static void
on_free(struct ev_loop *loop, void *arg)
{
	(void)loop;
	freed += (int)(intptr_t)arg;
}

static void
never(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	(void)arg;
	fail_msg("a weak fd with nothing to read fired");
}

static void
test_weak(void **state)
{
	struct ev_timer strong = { 0 }, w1 = { 0 }, w2 = { 0 };
	struct ev_loop *loop;
	char err[128];
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	loop = ev_new(err, sizeof(err));
	assert_int_equal(ev_fd_set(loop, fds[0], EV_READ, never, NULL), 0);
	ev_fd_weak(loop, fds[0]);
	w1.weak = w2.weak = 1;
	ev_timer_start(loop, &w1, 1000, weak_tick, NULL);
	ev_timer_start(loop, &w2, 60 * 1000000ull, weak_tick, NULL);
	ev_timer_start(loop, &strong, 20000, weak_tick, NULL);
	assert_int_equal(ev_run(loop), 0); /* returns after the strong timer, not 60 s later */
	assert_int_equal(weak_ticks, 2);
	assert_true(ev_timer_armed(&w2));
	ev_timer_stop(loop, &w2);
	ev_timer_start(loop, &w1, 1000, weak_tick, NULL); /* weak alone: nothing to run */
	assert_int_equal(ev_run(loop), 0);
	assert_int_equal(weak_ticks, 2);
	ev_timer_stop(loop, &w1);
	ev_fd_del(loop, fds[0]);
	assert_int_equal(ev_on_free(loop, on_free, (void *)1), 0);
	assert_int_equal(ev_on_free(loop, on_free, (void *)10), 0);
	ev_on_free_cancel(loop, on_free, (void *)10);
	ev_free(loop);
	assert_int_equal(freed, 1);
	close(fds[0]);
	close(fds[1]);
}

/* A deferred call alone keeps the run only until it ran: with nothing strong left, ev_run does
 * not then wait for a weak timer (it waited 2 s here; usrsctp-nt's weak tick kept a loop that
 * watched nothing 10 ms longer, issue 35). */
static int deferred;

static void
defer_once(struct ev_loop *loop, void *arg)
{
	(void)loop;
	(void)arg;
	deferred++;
}

static void
test_weak_defer(void **state)
{
	struct ev_timer w = { 0 };
	struct ev_loop *loop;
	char err[128];
	uint64_t t;

	(void)state;
	weak_ticks = 0;
	loop = ev_new(err, sizeof(err));
	w.weak = 1;
	ev_timer_start(loop, &w, 2000000, weak_tick, NULL);
	assert_int_equal(ev_defer(loop, defer_once, NULL), 0);
	t = ev_clock_us();
	assert_int_equal(ev_run(loop), 0);
	t = ev_clock_us() - t;
	assert_int_equal(deferred, 1);
	assert_int_equal(weak_ticks, 0);
	assert_true(ev_timer_armed(&w));
	if (t >= 1000000)
		fail_msg("ev_run waited %llu us for a weak timer", (unsigned long long)t);
	ev_timer_stop(loop, &w);
	ev_free(loop);
}

static int again;

static void
redefer(struct ev_loop *loop, void *arg)
{
	(void)arg;
	if (++again < 3)
		ev_defer(loop, redefer, NULL);
}

static void
test_defer(void **state)
{
	struct ev_loop *loop;
	char err[128];

	(void)state;
	norder = 0;
	again = 0;
	loop = ev_new(err, sizeof(err));
	ev_defer(loop, mark, (void *)1);
	ev_defer(loop, mark, (void *)1); /* the same call twice is queued once */
	ev_defer(loop, mark, (void *)2);
	ev_undefer(loop, mark, (void *)2);
	ev_defer(loop, redefer, NULL);   /* a call may defer itself again */
	assert_int_equal(ev_run(loop), 0);
	assert_int_equal(norder, 1);
	assert_int_equal(order[0], 1);
	assert_int_equal(again, 3);
	ev_free(loop);
}

static int fired;

static void
count(struct ev_loop *loop, void *arg)
{
	(void)loop;
	(void)arg;
	fired++;
}

static void
test_many_timers(void **state)
{
	static struct ev_timer t[500];
	struct ev_loop *loop;
	char err[128];
	int i;

	(void)state;
	fired = 0;
	loop = ev_new(err, sizeof(err));
	for (i = 0; i < 500; i++)
		ev_timer_start(loop, &t[i], (uint64_t)((i * 7919) % 500) * 20, count, NULL);
	for (i = 0; i < 500; i += 2)
		ev_timer_stop(loop, &t[i]);
	for (i = 0; i < 500; i++)
		assert_int_equal(ev_timer_armed(&t[i]), i % 2);
	/* Every timer left fires, once, and the loop ends when none is left. */
	assert_int_equal(ev_run(loop), 0);
	assert_int_equal(fired, 250);
	for (i = 0; i < 500; i++)
		assert_false(ev_timer_armed(&t[i]));
	ev_free(loop);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers_in_order),
		cmocka_unit_test(test_fd_watch),
		cmocka_unit_test(test_defer),
		cmocka_unit_test(test_many_timers),
		cmocka_unit_test(test_weak),
		cmocka_unit_test(test_weak_defer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
