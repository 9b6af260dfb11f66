/* tp_usrsctp_nt.c: usrsctp run without its threads (usrsctp_init_nothreads, AF_CONN), in the
 * event loops of the process: the stack of the type usrsctp-nt (tp_usrsctp.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ev.h"
#include "tp_crc32c.h"
#include "tp_usrsctp.h"

/*
 * The process owns one UDP socket on its port (tp_opts.udp_port). Every loop that watches a
 * socket of the stack also watches that UDP socket and a 10 ms timer: the loop reads the
 * datagrams in batches (recvmmsg) and hands each to usrsctp_conninput, and the timer calls
 * usrsctp_handle_timers with the time gone by. The stack sends through tp_usrsctp_nt_output,
 * a sendto on the same socket, in the caller's own call (a usrsctp_sendv sends at once).
 * Nothing runs beside the loop: no receive thread, no timer thread, no bell, nothing to join
 * at exit (the lingering shutdowns are pumped by the exit itself, tp_usrsctp_nt_atexit).
 *
 * usrsctp knows a remote end only as an opaque AF_CONN address. Ours is a handle to a peer,
 * one per remote UDP address (IP and port), made when its first datagram comes or when a
 * connect names it: a generation and a slot number, never a pointer, so a handle the stack
 * still holds after its peer went (idle for NT_PEER_IDLE_US, or the oldest evicted when the
 * table is full) finds nothing and its packet is dropped, as a lost one.
 *
 * CRC32c is ours, as a NIC's that offloads it (usrsctp_enable_crc32c_offload): computed into
 * every packet the stack sends and checked on every datagram before the stack sees it (a bad
 * one is dropped and counted). Debian's libusrsctp is built unoptimised, where its own CRC32c
 * was 15 % of a loaded server's time; this one is compiled with the project's flags.
 *
 * The stack's upcalls come in the loop's own calls (conninput, handle_timers, sendv): they
 * only queue the socket on its loop's list, which a deferred call passes on after the batch,
 * before the loop sleeps (tp_usrsctp_nt_drain), as tp_usrsctp_wake.c does for the threads.
 */

#define NT_TICK_US 10000          /* usrsctp_handle_timers' period */
#define NT_LOOPS 8                /* loops watching at once, at most */
#define NT_BATCH 32               /* datagrams per recvmmsg */
#define NT_BATCHES 8              /* recvmmsg calls per readiness at most: then others' turn */
#define NT_DGRAM 65536
#define NT_SLOTBITS 16            /* handle = generation << NT_SLOTBITS | (slot + 1) */
#define NT_PEERMAX 4096
#define NT_BUCKETS 1024
#define NT_PEER_IDLE_US (600 * 1000000ull) /* no datagram either way: forgotten */

struct nt_peer {
	struct sockaddr_storage sa;
	socklen_t len;
	uintptr_t gen;
	int used;
	uint64_t last_us;
	size_t hnext;             /* hash chain or free list; SIZE_MAX ends it */
};

struct nt_watch {
	struct socket *so;
	int li;                   /* index of its loop in nt_loops, -1: not watched */
	tp_usrsctp_wake_cb *cb;
	void *arg;
	int pending;              /* told by the stack, not yet passed on */
	unsigned long round;      /* the drain round it was queued in */
	struct nt_watch *prev, *next; /* its loop's queue, while pending and watched */
};

struct nt_loop {
	struct ev_loop *loop;     /* NULL: a free entry */
	size_t watchers;
	struct ev_timer tick;
	struct nt_watch *head, *tail;
};

static int nt_fd = -1;                    /* the UDP socket; -1 until the stack runs */
static int nt_family;                     /* its family: AF_INET, or AF_INET6 (dual stack) */
static uint16_t nt_port;
static struct sockaddr_storage nt_bound;  /* its address (the wildcard, or a listener's) */
static struct nt_loop nt_loops[NT_LOOPS];
static size_t nt_nwatch;                  /* sockets with a watch entry (open sockets) */
static unsigned long nt_round;
static uint64_t nt_last_us, nt_gc_us;
static struct nt_peer *nt_peers;
static size_t nt_npeers, nt_nused, nt_free = SIZE_MAX;
static size_t nt_bucket[NT_BUCKETS];
static struct {
	unsigned long in, out, out_err, no_peer, evicted, trunc, bad_crc;
} nt_count;

int
tp_usrsctp_nt_running(void)
{
	return nt_fd != -1;
}

/* Peers: remote UDP addresses and their handles. */
static void
nt_canon(const struct sockaddr *sa, socklen_t len, struct sockaddr_storage *out, socklen_t *olen)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)out;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET && nt_family == AF_INET6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = s4->sin_port;
		s6->sin6_addr.s6_addr[10] = 0xff;
		s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&s6->sin6_addr.s6_addr[12], &s4->sin_addr, 4);
		*olen = sizeof(*s6);
		return;
	}
	memcpy(out, sa, len < sizeof(*out) ? len : sizeof(*out));
	*olen = len;
	if (out->ss_family == AF_INET6) {
		s6->sin6_flowinfo = 0;
		*olen = sizeof(*s6);
	} else {
		*olen = sizeof(struct sockaddr_in);
	}
}

static size_t
nt_hash(const struct sockaddr_storage *sa)
{
	const unsigned char *p;
	size_t n, i, h = 2166136261u;
	uint16_t port;

	if (sa->ss_family == AF_INET6) {
		p = (const unsigned char *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
		n = 16;
		port = ((const struct sockaddr_in6 *)sa)->sin6_port;
	} else {
		p = (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr;
		n = 4;
		port = ((const struct sockaddr_in *)sa)->sin_port;
	}
	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	h = (h ^ (port & 0xff)) * 16777619u;
	h = (h ^ (port >> 8)) * 16777619u;
	return h % NT_BUCKETS;
}

static int
nt_same(const struct nt_peer *p, const struct sockaddr_storage *sa, socklen_t len)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)&p->sa;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)sa;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)&p->sa;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)sa;

	if (p->len != len || p->sa.ss_family != sa->ss_family)
		return 0;
	if (sa->ss_family == AF_INET6)
		return a6->sin6_port == b6->sin6_port && a6->sin6_scope_id == b6->sin6_scope_id &&
		    memcmp(&a6->sin6_addr, &b6->sin6_addr, 16) == 0;
	return a4->sin_port == b4->sin_port && a4->sin_addr.s_addr == b4->sin_addr.s_addr;
}

static uintptr_t
nt_handle(size_t i)
{
	return nt_peers[i].gen << NT_SLOTBITS | (uintptr_t)(i + 1);
}

static struct nt_peer *
nt_peer_of(uintptr_t h)
{
	size_t i = (size_t)(h & ((1u << NT_SLOTBITS) - 1));

	if (i == 0 || i > nt_npeers || !nt_peers[i - 1].used ||
	    nt_peers[i - 1].gen != h >> NT_SLOTBITS)
		return NULL;
	return &nt_peers[i - 1];
}

static void
nt_peer_drop(size_t i)
{
	struct nt_peer *p = &nt_peers[i];
	size_t *link = &nt_bucket[nt_hash(&p->sa)];

	while (*link != SIZE_MAX && *link != i)
		link = &nt_peers[*link].hnext;
	if (*link == i)
		*link = p->hnext;
	usrsctp_deregister_address((void *)nt_handle(i));
	p->used = 0;
	p->hnext = nt_free;
	nt_free = i;
	nt_nused--;
}

/* A slot for a new peer: a free one, a new one, or the one idle longest. */
static int
nt_peer_slot(void)
{
	struct nt_peer *p;
	size_t i, n, old = SIZE_MAX;

	if (nt_free == SIZE_MAX && nt_npeers < NT_PEERMAX) {
		n = nt_npeers ? 2 * nt_npeers : 16;
		if (n > NT_PEERMAX)
			n = NT_PEERMAX;
		if ((p = realloc(nt_peers, n * sizeof(*p))) == NULL)
			return -1;
		nt_peers = p;
		for (i = n; i-- > nt_npeers;) {
			memset(&p[i], 0, sizeof(p[i]));
			p[i].hnext = nt_free;
			nt_free = i;
		}
		nt_npeers = n;
	}
	if (nt_free == SIZE_MAX) {
		for (i = 0; i < nt_npeers; i++)
			if (old == SIZE_MAX || nt_peers[i].last_us < nt_peers[old].last_us)
				old = i;
		nt_peer_drop(old);
		nt_count.evicted++;
	}
	return 0;
}

/* The handle of a remote UDP address, made if new (0: out of memory). */
static uintptr_t
nt_peer(const struct sockaddr *sa, socklen_t len, uint64_t now)
{
	struct sockaddr_storage ss;
	struct nt_peer *p;
	socklen_t sl;
	size_t b, i;

	nt_canon(sa, len, &ss, &sl);
	b = nt_hash(&ss);
	for (i = nt_bucket[b]; i != SIZE_MAX; i = nt_peers[i].hnext)
		if (nt_same(&nt_peers[i], &ss, sl)) {
			nt_peers[i].last_us = now;
			return nt_handle(i);
		}
	if (nt_peer_slot() == -1)
		return 0;
	i = nt_free;
	p = &nt_peers[i];
	nt_free = p->hnext;
	p->sa = ss;
	p->len = sl;
	p->gen = (p->gen + 1) & (UINTPTR_MAX >> NT_SLOTBITS);
	if (p->gen == 0)
		p->gen = 1;
	p->used = 1;
	p->last_us = now;
	p->hnext = nt_bucket[b];
	nt_bucket[b] = i;
	nt_nused++;
	usrsctp_register_address((void *)nt_handle(i));
	return nt_handle(i);
}

/* Peers silent for NT_PEER_IDLE_US either way are forgotten (looked at once a second). */
static void
nt_peer_gc(uint64_t now)
{
	size_t i;

	if (now - nt_gc_us < 1000000)
		return;
	nt_gc_us = now;
	for (i = 0; i < nt_npeers; i++)
		if (nt_peers[i].used && now - nt_peers[i].last_us > NT_PEER_IDLE_US)
			nt_peer_drop(i);
}

/* The stack's packets out. */
static int
nt_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df)
{
	struct nt_peer *p = nt_peer_of((uintptr_t)addr);

	(void)tos;
	(void)set_df;
	if (p == NULL) {
		nt_count.no_peer++;
		return 0; /* gone: as a lost packet */
	}
	p->last_us = ev_clock_us();
	tp_crc32c_sctp_set(buf, len);
	if (sendto(nt_fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&p->sa, p->len) == -1)
		nt_count.out_err++; /* a full send buffer drops it: SCTP sends it again */
	else
		nt_count.out++;
	return 0;
}

/* Datagrams in: up to NT_BATCHES batches, then the loop's other events get their turn (the
 * socket stays readable, so the loop comes back). */
static void
nt_read(void)
{
	static unsigned char bufs[NT_BATCH][NT_DGRAM];
	struct sockaddr_storage from[NT_BATCH];
	struct mmsghdr mm[NT_BATCH];
	struct iovec iov[NT_BATCH];
	uint64_t now;
	uintptr_t h;
	int b, i, n;

	for (b = 0; b < NT_BATCHES; b++) {
		memset(mm, 0, sizeof(mm));
		for (i = 0; i < NT_BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = NT_DGRAM;
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_name = &from[i];
			mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
		}
		if ((n = recvmmsg(nt_fd, mm, NT_BATCH, MSG_DONTWAIT, NULL)) <= 0)
			return;
		now = ev_clock_us();
		for (i = 0; i < n; i++) {
			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC) {
				nt_count.trunc++;
				continue;
			}
			if (!tp_crc32c_sctp_ok(bufs[i], mm[i].msg_len)) {
				nt_count.bad_crc++;
				continue;
			}
			if ((h = nt_peer((struct sockaddr *)&from[i], mm[i].msg_hdr.msg_namelen,
			    now)) == 0)
				continue;
			nt_count.in++;
			usrsctp_conninput((void *)h, bufs[i], mm[i].msg_len, 0);
		}
		if (n < NT_BATCH)
			return;
	}
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
	nt_peer_gc(now);
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

static void
nt_tick_cb(struct ev_loop *loop, void *arg)
{
	struct nt_loop *L = arg;

	ev_timer_start(loop, &L->tick, NT_TICK_US, nt_tick_cb, L);
	nt_timers();
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

/* Loops: each one watching a socket of the stack watches the UDP socket and ticks. */
static int
nt_loop_get(struct ev_loop *loop)
{
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
	if (ev_fd_set(loop, nt_fd, EV_READ, nt_input_cb, NULL) == -1)
		return -1;
	memset(&nt_loops[freel], 0, sizeof(nt_loops[freel]));
	nt_loops[freel].loop = loop;
	ev_timer_start(loop, &nt_loops[freel].tick, NT_TICK_US, nt_tick_cb, &nt_loops[freel]);
	return freel;
}

static void
nt_loop_put(int i)
{
	struct nt_loop *L = &nt_loops[i];

	if (--L->watchers > 0)
		return;
	ev_fd_del(L->loop, nt_fd);
	ev_timer_stop(L->loop, &L->tick);
	ev_undefer(L->loop, nt_drain, L);
	memset(L, 0, sizeof(*L));
}

static void
nt_unwatch(struct nt_watch *w)
{
	if (w->li < 0)
		return;
	nt_unlink(w);
	nt_loop_put(w->li);
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
	usrsctp_set_upcall(so, nt_upcall, w);
	return (uintptr_t)w;
}

static int
nt_wake_watch(uintptr_t id, struct ev_loop *loop, tp_usrsctp_wake_cb *cb, void *arg)
{
	struct nt_watch *w = (struct nt_watch *)id;
	int i;

	if (loop == NULL || (w->li >= 0 && nt_loops[w->li].loop != loop))
		nt_unwatch(w);
	w->cb = cb;
	w->arg = arg;
	if (loop == NULL || w->li >= 0)
		return 0;
	if ((i = nt_loop_get(loop)) == -1)
		return -1;
	nt_loops[i].watchers++;
	w->li = i;
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
	tp_usrsctp_stats_file();
	if (nt_nwatch == 0)
		tp_usrsctp_linger_finish(3000, nt_wait);
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
	nt_family = ss.ss_family;
	nt_bound = ss;
	return fd;
}

int
tp_usrsctp_nt_stack(const struct tp_opts *o, const struct tp_addrs *bind_to, char *err,
    size_t errlen)
{
	static int atexit_done;
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
	nt_port = port;
	nt_last_us = nt_gc_us = ev_clock_us();
	memset(nt_bucket, 0xff, sizeof(nt_bucket));
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

/* An address (IP and SCTP port) as the stack's: the handle of the peer at that IP and the
 * remote UDP port, with the SCTP port. */
int
tp_usrsctp_nt_conn_addr(const struct sockaddr_storage *ip, uint16_t udp_port,
    struct sockaddr_conn *out, char *err, size_t errlen)
{
	struct sockaddr_storage ss = *ip;
	uint16_t sctp_port = htons(tp_addr_port((const struct sockaddr *)ip));
	socklen_t len;

	if (ss.ss_family == AF_INET6 && nt_family == AF_INET) {
		tp_seterr(err, errlen, "IPv6 address, and this host's UDP socket is IPv4 only");
		return -1;
	}
	if (ss.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(udp_port);
		len = sizeof(struct sockaddr_in6);
	} else {
		((struct sockaddr_in *)&ss)->sin_port = htons(udp_port);
		len = sizeof(struct sockaddr_in);
	}
	memset(out, 0, sizeof(*out));
	out->sconn_family = AF_CONN;
	out->sconn_port = sctp_port;
	if ((out->sconn_addr = (void *)nt_peer((struct sockaddr *)&ss, len, ev_clock_us())) ==
	    NULL) {
		tp_seterr(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* An AF_CONN address as text: the peer's IP, the SCTP port ("?" for a peer forgotten). */
void
tp_usrsctp_nt_str(const struct sockaddr_conn *sc, char *buf, size_t len)
{
	struct nt_peer *p = nt_peer_of((uintptr_t)sc->sconn_addr);
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	const uint8_t *a;

	if (p == NULL) {
		snprintf(buf, len, "?:%u", ntohs(sc->sconn_port));
		return;
	}
	ss = p->sa;
	a = s6->sin6_addr.s6_addr;
	if (ss.ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memset(s4, 0, sizeof(*s4));
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, a + 12, 4); /* a points into ss: copy before clearing */
	}
	if (ss.ss_family == AF_INET6) {
		s6->sin6_port = sc->sconn_port;
		tp_addr_str((struct sockaddr *)&ss, sizeof(*s6), buf, len);
	} else {
		s4->sin_port = sc->sconn_port;
		tp_addr_str((struct sockaddr *)&ss, sizeof(*s4), buf, len);
	}
}

/* The UDP address the stack is bound to, for a listener's local text (its IP). */
const struct sockaddr_storage *
tp_usrsctp_nt_bound(void)
{
	return &nt_bound;
}

size_t
tp_usrsctp_nt_stats(char *buf, size_t len)
{
	size_t n;
	int w;

	if (len > 0)
		buf[0] = '\0';
	if (nt_fd == -1 || len == 0)
		return 0;
	n = tp_usrsctp_stats_fill(buf, len);
	w = snprintf(buf + n, len - n, "%sudp_in=%lu udp_out=%lu udp_out_err=%lu udp_trunc=%lu "
	    "udp_bad_crc=%lu peers=%zu peers_evicted=%lu out_no_peer=%lu", n ? " " : "", nt_count.in,
	    nt_count.out, nt_count.out_err, nt_count.trunc, nt_count.bad_crc, nt_nused,
	    nt_count.evicted, nt_count.no_peer);
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
