/* tp_usrsctp_nt.c: usrsctp run without its threads (usrsctp_init_nothreads, AF_CONN), in the
 * event loops of the process: the stack of the type usrsctp-nt (tp_usrsctp.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ev.h"
#include "tp_crc32c.h"
#include "tp_udp_gro.h"
#include "tp_usrsctp.h"

/*
 * The process owns one UDP socket on its port (tp_opts.udp_port). A loop that watched a socket
 * of the stack also watches that UDP socket and a 10 ms timer, until the loop is freed (see
 * "Loops" below): the loop reads the datagrams in batches (recvmmsg) and hands each to
 * usrsctp_conninput (UDP GRO's coalesced buffers cut back into datagrams first: on by default
 * where the kernel has it, SCTPAPPS_USRSCTP_GRO=0 off), and the timer calls usrsctp_handle_timers with the time gone by. The
 * stack sends through nt_output into a queue (tp_usrsctp_out.c) that leaves in one sendmmsg
 * on the same socket: after each batch in, each tick, each round of readiness calls, and
 * before the loop sleeps (a deferred call, asked for by the first packet queued).
 * Nothing runs beside the loop: no receive thread, no timer thread, no bell, nothing to join
 * at exit (the lingering shutdowns are pumped by the exit itself, tp_usrsctp_nt_atexit).
 *
 * usrsctp knows a remote end only as an opaque AF_CONN address. Ours is a handle to a peer,
 * one per remote UDP address (IP and port), made when its first datagram comes or when a
 * connect names it (tp_usrsctp_peer.c).
 *
 * CRC32c is ours, as a NIC's that offloads it (usrsctp_enable_crc32c_offload): computed into
 * every packet the stack sends and checked on every datagram before the stack sees it (a bad
 * one is dropped and counted). Debian's libusrsctp is built unoptimised, where its own CRC32c
 * was 15 % of a loaded server's time; this one is compiled with the project's flags.
 *
 * The stack's upcalls come in the loop's own calls (conninput, handle_timers, sendv): they
 * only queue the socket on its loop's list, which a deferred call passes on after the batch,
 * before the loop sleeps (nt_drain), as tp_usrsctp_wake.c does for the threads.
 */

#define NT_TICK_US 10000          /* usrsctp_handle_timers' period while the stack has sockets */
#define NT_IDLE_TICK_US 1000000   /* ... and while it has none, open or lingering */
#define NT_LOOPS 8                /* loops driving the stack at once, at most */
#define NT_BATCH 32               /* datagrams per recvmmsg */
#define NT_BATCHES 8              /* recvmmsg calls per readiness at most: then others' turn */
#define NT_DGRAM 65536


struct nt_watch {
	struct socket *so;
	int li;                   /* index of its loop in nt_loops, -1: not watched */
	struct ev_loop *loop;     /* that loop (a slot freed and taken again is told apart) */
	tp_usrsctp_wake_cb *cb;
	void *arg;
	int pending;              /* told by the stack, not yet passed on */
	unsigned long round;      /* the drain round it was queued in */
	struct nt_watch *prev, *next; /* its loop's queue, while pending and watched */
};

struct nt_loop {
	struct ev_loop *loop;     /* NULL: a free entry */
	int slow;                 /* its tick runs at NT_IDLE_TICK_US */
	size_t watchers;          /* sockets watched in it: its tick keeps it running */
	struct ev_timer tick;
	struct nt_watch *head, *tail;
};

static int nt_fd = -1;                    /* the UDP socket; -1 until the stack runs */
static uint16_t nt_port;
static struct nt_loop nt_loops[NT_LOOPS];
static size_t nt_nwatch;                  /* sockets with a watch entry (open sockets) */
static unsigned long nt_round;
static uint64_t nt_last_us;
static struct {
	unsigned long in, no_peer, trunc, bad_crc, gro;
} nt_count;
static int nt_gro;                        /* UDP_GRO on the socket */

/* The stack's packets out: queued; the first one queued asks every loop driving the stack
 * to flush before it sleeps (whichever runs next). */
static void
nt_flush_cb(struct ev_loop *loop, void *arg)
{
	(void)loop;
	(void)arg;
	tp_usrsctp_out_flush();
}

static int
nt_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df)
{
	const struct sockaddr *to;
	socklen_t tolen;
	int i;

	(void)tos;
	(void)set_df;
	if ((to = tp_usrsctp_peer_addr((uintptr_t)addr, &tolen, ev_clock_us())) == NULL) {
		nt_count.no_peer++;
		return 0; /* gone: as a lost packet */
	}
	tp_crc32c_sctp_set(buf, len);
	if (tp_usrsctp_out_add(to, tolen, buf, len))
		for (i = 0; i < NT_LOOPS; i++)
			if (nt_loops[i].loop != NULL) /* out of memory: the next tick flushes */
				(void)ev_defer(nt_loops[i].loop, nt_flush_cb, &nt_loops[i]);
	return 0;
}

/* One datagram in: checked, then to the stack. */
static void
nt_input(const struct sockaddr *from, socklen_t fromlen, void *buf, size_t len, uint64_t now)
{
	uintptr_t h;

	if (!tp_crc32c_sctp_ok(buf, len)) {
		nt_count.bad_crc++;
		return;
	}
	if ((h = tp_usrsctp_peer_get(from, fromlen, now)) == 0)
		return;
	nt_count.in++;
	usrsctp_conninput((void *)h, buf, len, 0);
}

/* Datagrams in: up to NT_BATCHES batches, then the loop's other events get their turn (the
 * socket stays readable, so the loop comes back). With UDP GRO a buffer may hold a run of
 * datagrams from one peer, of one size but the last: cut back into them. */
static void
nt_read_batches(void)
{
	static unsigned char bufs[NT_BATCH][NT_DGRAM];
	static struct sockaddr_storage from[NT_BATCH];
	static struct mmsghdr mm[NT_BATCH];
	static struct iovec iov[NT_BATCH];
	static char ctl[NT_BATCH][TP_UDP_GRO_CMSG];
	struct iovec seg[NT_DGRAM / 512];
	size_t k, ns;
	uint64_t now;
	int b, i, n;

	if (mm[0].msg_hdr.msg_iov == NULL) /* the headers once; recvmmsg rewrites their lengths */
		for (i = 0; i < NT_BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = NT_DGRAM;
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_name = &from[i];
		}
	for (b = 0; b < NT_BATCHES; b++) {
		for (i = 0; i < NT_BATCH; i++) {
			mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
			mm[i].msg_hdr.msg_control = nt_gro ? ctl[i] : NULL;
			mm[i].msg_hdr.msg_controllen = nt_gro ? sizeof(ctl[i]) : 0;
		}
		if ((n = recvmmsg(nt_fd, mm, NT_BATCH, MSG_DONTWAIT, NULL)) <= 0)
			return;
		now = ev_clock_us();
		for (i = 0; i < n; i++) {
			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC) {
				nt_count.trunc++;
				continue;
			}
			ns = tp_udp_gro_split(bufs[i], mm[i].msg_len, nt_gro ?
			    tp_udp_gro_size(&mm[i].msg_hdr) : 0, seg, sizeof(seg) / sizeof(seg[0]));
			if (ns > 1)
				nt_count.gro++;
			if (ns > sizeof(seg) / sizeof(seg[0])) /* not from Linux (64 at most): counted */
				nt_count.trunc += ns - sizeof(seg) / sizeof(seg[0]);
			for (k = 0; k < ns && k < sizeof(seg) / sizeof(seg[0]); k++)
				nt_input((struct sockaddr *)&from[i], mm[i].msg_hdr.msg_namelen,
				    seg[k].iov_base, seg[k].iov_len, now);
		}
		if (n < NT_BATCH)
			return;
	}
}

/* ... and what the stack answered, out at once. */
static void
nt_read(void)
{
	nt_read_batches();
	tp_usrsctp_out_flush();
}

/* The stack's clock: the time gone by since the last call, in whole milliseconds. */
static void
nt_timers(void)
{
	uint64_t now = ev_clock_us(), ms = (now - nt_last_us) / 1000;

	if (ms > 0) {
		nt_last_us += ms * 1000;
		usrsctp_handle_timers((uint32_t)ms);
	}
	tp_usrsctp_linger_tick();
	tp_usrsctp_peer_gc(now);
	tp_usrsctp_out_flush();
}

static void
nt_input_cb(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	(void)arg;
	nt_read();
}

static void nt_tick_cb(struct ev_loop *loop, void *arg);

/* The tick: fast while the stack has sockets, slow while it has none; strong (it keeps the loop
 * running) while the loop watches a socket of the stack, weak while it watches none. */
static void
nt_tick_arm(struct nt_loop *L)
{
	ev_timer_stop(L->loop, &L->tick);
	L->tick.weak = L->watchers == 0;
	ev_timer_start(L->loop, &L->tick, L->slow ? NT_IDLE_TICK_US : NT_TICK_US, nt_tick_cb, L);
}

static void
nt_tick_cb(struct ev_loop *loop, void *arg)
{
	struct nt_loop *L = arg;

	(void)loop;
	L->slow = nt_nwatch == 0 && tp_usrsctp_linger_count() == 0;
	nt_tick_arm(L);
	nt_timers();
}

/* A socket is made: the loops that tick slowly tick at the stack's pace again. */
static void
nt_tick_fast(void)
{
	int i;

	for (i = 0; i < NT_LOOPS; i++)
		if (nt_loops[i].loop != NULL && nt_loops[i].slow) {
			nt_loops[i].slow = 0;
			nt_tick_arm(&nt_loops[i]);
		}
}

/* Readiness: queued by the upcall, passed on by the loop after its batch. */
static void
nt_unlink(struct nt_watch *w)
{
	struct nt_loop *L = &nt_loops[w->li];

	if (w->prev != NULL)
		w->prev->next = w->next;
	else if (L->head == w)
		L->head = w->next;
	else
		return; /* not queued */
	if (w->next != NULL)
		w->next->prev = w->prev;
	else
		L->tail = w->prev;
	w->prev = w->next = NULL;
}

static void nt_drain(struct ev_loop *loop, void *arg);

static void
nt_queue(struct nt_watch *w)
{
	struct nt_loop *L = &nt_loops[w->li];

	if (L->loop != w->loop) { /* its loop went (ev_free): unwatched */
		w->li = -1;
		return;
	}
	w->round = nt_round;
	w->prev = L->tail;
	w->next = NULL;
	if (L->tail != NULL)
		L->tail->next = w;
	else
		L->head = w;
	L->tail = w;
	(void)ev_defer(L->loop, nt_drain, L); /* out of memory: the once-a-second check finds it */
}

static void
nt_drain(struct ev_loop *loop, void *arg)
{
	struct nt_loop *L = arg;
	unsigned long r = ++nt_round;
	struct nt_watch *w;

	while (L->loop == loop && (w = L->head) != NULL && w->round < r) {
		nt_unlink(w);
		w->pending = 0;
		w->cb(w->arg); /* may close any socket, this one too */
	}
	if (L->loop == loop && L->head != NULL)
		(void)ev_defer(loop, nt_drain, L); /* told again meanwhile: the next turn */
	tp_usrsctp_out_flush();
}

static void
nt_upcall(struct socket *so, void *arg, int flags)
{
	struct nt_watch *w = arg;

	(void)so;
	(void)flags;
	if (w == NULL || w->pending)
		return;
	w->pending = 1;
	if (w->li >= 0)
		nt_queue(w);
}

/*
 * Loops: a loop that watched a socket of the stack once drives it from then on: it reads the
 * UDP socket and ticks until the loop is freed (ev_on_free). A stack must run while it has
 * associations, watched or not: a client that stopped watching its connections between calls
 * still has to acknowledge what comes and time what it sent. The UDP socket is a weak watcher
 * (ev_fd_weak) and the tick is weak while the loop watches no socket of the stack: ev_run then
 * ends as it would without them; while it watches one, the tick keeps it running, as a
 * watched kernel socket's fd would.
 */
static void nt_loop_gone(struct ev_loop *loop, void *arg);

static int
nt_loop_get(struct ev_loop *loop)
{
	struct nt_loop *L;
	int i, freel = -1;

	for (i = 0; i < NT_LOOPS; i++) {
		if (nt_loops[i].loop == loop)
			return i;
		if (freel == -1 && nt_loops[i].loop == NULL)
			freel = i;
	}
	if (freel == -1) {
		errno = EMFILE;
		return -1;
	}
	L = &nt_loops[freel];
	if (ev_on_free(loop, nt_loop_gone, L) == -1) {
		errno = EMFILE;
		return -1;
	}
	if (ev_fd_set(loop, nt_fd, EV_READ, nt_input_cb, NULL) == -1) {
		ev_on_free_cancel(loop, nt_loop_gone, L);
		return -1;
	}
	ev_fd_weak(loop, nt_fd);
	memset(L, 0, sizeof(*L));
	L->loop = loop;
	nt_tick_arm(L);
	if (tp_usrsctp_out_queued() > 0)
		(void)ev_defer(loop, nt_flush_cb, L);
	return freel;
}

/* The loop is being freed: it drives the stack no more; what it queued waits for a watch. */
static void
nt_loop_gone(struct ev_loop *loop, void *arg)
{
	struct nt_loop *L = arg;
	struct nt_watch *w;

	while ((w = L->head) != NULL) {
		nt_unlink(w);
		w->li = -1;
	}
	ev_fd_del(loop, nt_fd);
	ev_timer_stop(loop, &L->tick);
	ev_undefer(loop, nt_drain, L);
	ev_undefer(loop, nt_flush_cb, L);
	memset(L, 0, sizeof(*L));
}

static void
nt_unwatch(struct nt_watch *w)
{
	struct nt_loop *L;

	if (w->li < 0)
		return;
	L = &nt_loops[w->li];
	if (L->loop == w->loop) {
		nt_unlink(w);
		if (--L->watchers == 0)
			nt_tick_arm(L); /* weak now */
	}
	w->li = -1;
}

static uintptr_t
nt_wake_new(struct socket *so, char *err, size_t errlen)
{
	struct nt_watch *w;

	if ((w = calloc(1, sizeof(*w))) == NULL) {
		tp_seterr(err, errlen, "out of memory");
		return 0;
	}
	w->so = so;
	w->li = -1;
	nt_nwatch++;
	nt_tick_fast();
	usrsctp_set_upcall(so, nt_upcall, w);
	return (uintptr_t)w;
}

static int
nt_wake_watch(uintptr_t id, struct ev_loop *loop, tp_usrsctp_wake_cb *cb, void *arg)
{
	struct nt_watch *w = (struct nt_watch *)id;
	int i;

	if (loop == NULL || (w->li >= 0 && (nt_loops[w->li].loop != loop || w->loop != loop)))
		nt_unwatch(w);
	w->cb = cb;
	w->arg = arg;
	if (loop == NULL || w->li >= 0)
		return 0;
	if ((i = nt_loop_get(loop)) == -1)
		return -1;
	w->li = i;
	w->loop = loop;
	if (nt_loops[i].watchers++ == 0)
		nt_tick_arm(&nt_loops[i]); /* strong now */
	if (w->pending)
		nt_queue(w); /* what the stack told while nobody watched */
	return 0;
}

static void
nt_wake_free(struct socket *so, uintptr_t id)
{
	struct nt_watch *w = (struct nt_watch *)id;

	if (so != NULL) {
		usrsctp_set_upcall(so, nt_upcall, NULL);
		tp_usrsctp_linger_close(so);
	}
	if (w == NULL)
		return;
	nt_unwatch(w);
	nt_nwatch--;
	free(w);
}

/* The exit: the shutdowns of closed associations are pumped here, nobody else would. */
static void
nt_wait(void)
{
	struct pollfd p = { .fd = nt_fd, .events = POLLIN };

	if (poll(&p, 1, 1) > 0)
		nt_read();
	nt_timers();
}

static void
tp_usrsctp_nt_atexit(void)
{
	tp_usrsctp_out_flush();
	tp_usrsctp_stats_file(tp_usrsctp_nt_stats);
	if (nt_nwatch == 0)
		tp_usrsctp_linger_finish(3000, nt_wait);
	tp_usrsctp_out_flush();
}

/* The UDP socket: on the listener's address where the first use is a listener on one
 * address, else on the wildcard (dual stack where the host has IPv6). */
static int
nt_socket(const struct tp_addrs *bind_to, uint16_t port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	socklen_t len;
	int fd, zero = 0;

	memset(&ss, 0, sizeof(ss));
	if (bind_to != NULL && bind_to->n == 1) {
		memcpy(&ss, &bind_to->a[0], bind_to->len[0]);
		len = bind_to->len[0];
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		len = sizeof(*s6);
	}
	if (ss.ss_family == AF_INET6)
		s6->sin6_port = htons(port);
	else
		s4->sin_port = htons(port);
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1 && ss.ss_family == AF_INET6 && bind_to == NULL) {
		/* no IPv6 here: IPv4 alone */
		memset(&ss, 0, sizeof(ss));
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		len = sizeof(*s4);
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	}
	if (fd == -1) {
		tp_seterr(err, errlen, "UDP socket: %s", strerror(errno));
		return -1;
	}
	if (ss.ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (struct sockaddr *)&ss, len) == -1) {
		if (errno == EADDRINUSE)
			tp_seterr(err, errlen, "UDP port %u in use", port);
		else
			tp_seterr(err, errlen, "UDP port %u: %s", port, strerror(errno));
		close(fd);
		return -1;
	}
	tp_usrsctp_peer_family(ss.ss_family);
	return fd;
}

int
tp_usrsctp_nt_stack(const struct tp_opts *o, const struct tp_addrs *bind_to, char *err,
    size_t errlen)
{
	static int atexit_done;
	const char *gro;
	uint16_t port = o->udp_port ? o->udp_port : TP_USRSCTP_PORT;

	if (tp_usrsctp_running()) {
		tp_seterr(err, errlen, "this process runs usrsctp with its threads (type usrsctp): "
		    "usrsctp-nt cannot run beside it");
		return -1;
	}
	if (nt_fd != -1) {
		if (o->udp_port != 0 && o->udp_port != nt_port) {
			tp_seterr(err, errlen, "this process's usrsctp stack runs on UDP port %u, "
			    "not %u (one port per process)", nt_port, o->udp_port);
			return -1;
		}
		return 0;
	}
	if ((nt_fd = nt_socket(bind_to, port, err, errlen)) == -1)
		return -1;
	tp_usrsctp_run_set(TP_USRSCTP_RUN_NOTHREADS);
	nt_port = port;
	tp_usrsctp_out_fd(nt_fd);
	gro = getenv("SCTPAPPS_USRSCTP_GRO");
	nt_gro = (gro == NULL || strcmp(gro, "0") != 0) && tp_udp_gro_on(nt_fd) == 0;
	nt_last_us = ev_clock_us();
	usrsctp_init_nothreads(0, nt_output, NULL);
	usrsctp_enable_crc32c_offload();
	tp_usrsctp_udp_window(tp_usrsctp_udp_size(nt_fd));
	usrsctp_sysctl_set_sctp_no_csum_on_loopback(0); /* always CRC32c, as peers expect */
	usrsctp_sysctl_set_sctp_blackhole(0);           /* INIT to a closed port gets an ABORT */
	tp_usrsctp_linger_threadless();
	if (!atexit_done) {
		atexit(tp_usrsctp_nt_atexit);
		atexit_done = 1;
	}
	return 0;
}


size_t
tp_usrsctp_nt_stats(char *buf, size_t len)
{
	unsigned long evicted, sent, err, calls, gso;
	size_t n, peers;
	int w;

	if (len > 0)
		buf[0] = '\0';
	if (nt_fd == -1 || len == 0)
		return 0;
	n = tp_usrsctp_stats_fill(buf, len);
	tp_usrsctp_peer_counts(&peers, &evicted);
	tp_usrsctp_out_counts(&sent, &err, &calls, &gso);
	w = snprintf(buf + n, len - n, "%sudp_in=%lu udp_in_gro=%lu udp_gro=%d udp_out=%lu "
	    "udp_out_err=%lu udp_out_calls=%lu udp_out_gso=%lu udp_trunc=%lu udp_bad_crc=%lu "
	    "peers=%zu peers_evicted=%lu out_no_peer=%lu", n ? " " : "", nt_count.in,
	    nt_count.gro, nt_gro, sent, err, calls, gso, nt_count.trunc, nt_count.bad_crc, peers,
	    evicted, nt_count.no_peer);
	if (w > 0 && (size_t)w < len - n)
		n += (size_t)w;
	return n;
}

const struct tp_usrsctp_mode tp_usrsctp_nothreads = {
	.conn = 1,
	.wake_new = nt_wake_new,
	.wake_watch = nt_wake_watch,
	.wake_free = nt_wake_free,
};
