/* ev.h: single-threaded epoll event loop with fd watchers, timers and deferred calls. */
#ifndef SCTPAPPS_EV_H
#define SCTPAPPS_EV_H

#include <stddef.h>
#include <stdint.h>

#define EV_READ  0x1u
#define EV_WRITE 0x2u
#define EV_ERROR 0x4u /* hang-up or socket error; always reported, never asked for */

struct ev_loop;

typedef void ev_fd_cb(struct ev_loop *loop, int fd, unsigned events, void *arg);
typedef void ev_cb(struct ev_loop *loop, void *arg);

/* A timer is owned by its user (embedded in a larger struct); the loop only links it. */
struct ev_timer {
	uint64_t when_us;
	ev_cb *cb;
	void *arg;
	size_t slot; /* index in the heap + 1; 0 = not armed */
	int weak;    /* set before ev_timer_start: does not keep ev_run going */
};

#define EV_ONFREE_MAX 4 /* ev_on_free callbacks per loop */

/* ev.c */
struct ev_loop *ev_new(char *err, size_t errlen);
void ev_free(struct ev_loop *loop);
int ev_fd_set(struct ev_loop *loop, int fd, unsigned events, ev_fd_cb *cb, void *arg);
void ev_fd_del(struct ev_loop *loop, int fd);
void ev_fd_weak(struct ev_loop *loop, int fd);
int ev_on_free(struct ev_loop *loop, ev_cb *cb, void *arg);
void ev_on_free_cancel(struct ev_loop *loop, ev_cb *cb, void *arg);
void ev_timer_start(struct ev_loop *loop, struct ev_timer *t, uint64_t after_us, ev_cb *cb, void *arg);
void ev_timer_stop(struct ev_loop *loop, struct ev_timer *t);
int ev_timer_armed(const struct ev_timer *t);
int ev_defer(struct ev_loop *loop, ev_cb *cb, void *arg);
void ev_undefer(struct ev_loop *loop, ev_cb *cb, void *arg);
int ev_run(struct ev_loop *loop);
int ev_run_once(struct ev_loop *loop, int timeout_ms);
void ev_stop(struct ev_loop *loop);
uint64_t ev_now_us(struct ev_loop *loop);
uint64_t ev_clock_us(void);

#endif
