/* tp_usrsctp_stack.c: the process's one usrsctp stack, and its threads' wake-ups into the loop. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tp_usrsctp.h"

/*
 * Threads. usrsctp runs its own threads (UDP receive, timers) and tells about a socket through
 * an upcall from them. The upcall only wakes an eventfd per socket, which is what the loop
 * watches; readiness is then computed in the loop with usrsctp_get_events(). The upcall's
 * argument is a slot id, never a pointer: usrsctp reads it without a lock and may still call
 * with it while we close, so a closed socket's id simply finds its slot gone.
 *
 * usrsctp makes the upcall only after it has processed an incoming packet. What its timers
 * decide alone (INIT or heartbeats given up) comes with no upcall, so a watched connection is
 * also checked once a second: a safety net, not a poll loop.
 */

#define TP_USRSCTP_SLOTBITS 20      /* id = generation << SLOTBITS | (slot + 1) */
#define TP_USRSCTP_SLOTMAX  ((1u << TP_USRSCTP_SLOTBITS) - 2)
#define TP_USRSCTP_GENMASK  (UINTPTR_MAX >> TP_USRSCTP_SLOTBITS)

struct tp_usrsctp_slot {
	uintptr_t gen;
	int efd;         /* -1: free */
	int signaled;    /* written to and not yet drained */
	size_t next;     /* free list */
};

static pthread_mutex_t tp_usrsctp_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tp_usrsctp_slot *tp_usrsctp_slots; /* under tp_usrsctp_mu, as the two below */
static size_t tp_usrsctp_nslots, tp_usrsctp_nused;
static size_t tp_usrsctp_free = SIZE_MAX;
static uint16_t tp_usrsctp_udp; /* the stack's local UDP port; 0 until it runs */

/* Registry of wake-ups: the only state the usrsctp threads touch. */
static uintptr_t
tp_usrsctp_reg_add(int efd)
{
	struct tp_usrsctp_slot *p, *s;
	uintptr_t id = 0;
	size_t i, n;

	pthread_mutex_lock(&tp_usrsctp_mu);
	if (tp_usrsctp_free == SIZE_MAX) {
		n = tp_usrsctp_nslots ? 2 * tp_usrsctp_nslots : 16;
		if (n > TP_USRSCTP_SLOTMAX)
			n = TP_USRSCTP_SLOTMAX;
		if (n <= tp_usrsctp_nslots || (p = realloc(tp_usrsctp_slots, n * sizeof(*p))) == NULL)
			goto out;
		for (i = n; i-- > tp_usrsctp_nslots;) {
			p[i].gen = 0;
			p[i].efd = -1;
			p[i].signaled = 0;
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
	s->efd = efd;
	s->signaled = 0;
	tp_usrsctp_nused++;
	id = (s->gen << TP_USRSCTP_SLOTBITS) | (uintptr_t)(i + 1);
out:
	pthread_mutex_unlock(&tp_usrsctp_mu);
	return id;
}

/* The slot of an id, or NULL; under tp_usrsctp_mu. */
static struct tp_usrsctp_slot *
tp_usrsctp_reg_get(uintptr_t id)
{
	size_t i = (size_t)(id & ((1u << TP_USRSCTP_SLOTBITS) - 1));

	if (i == 0 || i > tp_usrsctp_nslots)
		return NULL;
	if (tp_usrsctp_slots[i - 1].efd == -1 ||
	    tp_usrsctp_slots[i - 1].gen != id >> TP_USRSCTP_SLOTBITS)
		return NULL;
	return &tp_usrsctp_slots[i - 1];
}

static void
tp_usrsctp_reg_del(uintptr_t id)
{
	struct tp_usrsctp_slot *s;

	pthread_mutex_lock(&tp_usrsctp_mu);
	if ((s = tp_usrsctp_reg_get(id)) != NULL) {
		s->efd = -1;
		s->next = tp_usrsctp_free;
		tp_usrsctp_free = (size_t)(s - tp_usrsctp_slots);
		tp_usrsctp_nused--;
	}
	pthread_mutex_unlock(&tp_usrsctp_mu);
}

/* Called by usrsctp's threads. */
static void
tp_usrsctp_upcall(struct socket *so, void *arg, int flags)
{
	struct tp_usrsctp_slot *s;
	uint64_t one = 1;

	(void)so;
	(void)flags;
	pthread_mutex_lock(&tp_usrsctp_mu);
	if ((s = tp_usrsctp_reg_get((uintptr_t)arg)) != NULL && !s->signaled) {
		s->signaled = 1;
		if (write(s->efd, &one, sizeof(one)) == -1)
			s->signaled = 0; /* cannot happen short of a full counter: try next time */
	}
	pthread_mutex_unlock(&tp_usrsctp_mu);
}

/* Take the wake-up; what changed is read afterwards, so none is lost. */
void
tp_usrsctp_drain(uintptr_t id, int efd)
{
	struct tp_usrsctp_slot *s;
	uint64_t v;

	/* Under the lock: a flag cleared with a wake-up still unread would silence the upcall. */
	pthread_mutex_lock(&tp_usrsctp_mu);
	while (read(efd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		;
	if ((s = tp_usrsctp_reg_get(id)) != NULL)
		s->signaled = 0;
	pthread_mutex_unlock(&tp_usrsctp_mu);
}

/* An eventfd and a registered id for a socket, with the upcall pointed at it. */
int
tp_usrsctp_wake_new(struct socket *so, int *efd, uintptr_t *id, char *err, size_t errlen)
{
	if ((*efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1) {
		tp_seterr(err, errlen, "eventfd: %s", strerror(errno));
		return -1;
	}
	if ((*id = tp_usrsctp_reg_add(*efd)) == 0) {
		tp_seterr(err, errlen, "out of memory");
		close(*efd);
		*efd = -1;
		return -1;
	}
	usrsctp_set_upcall(so, tp_usrsctp_upcall, (void *)*id);
	return 0;
}

/* Close a socket and its wake-up, in the order that keeps the upcall harmless. */
void
tp_usrsctp_wake_free(struct socket *so, int efd, uintptr_t id)
{
	if (so != NULL) {
		/* The upcall function stays: usrsctp tests and calls it without a lock. */
		usrsctp_set_upcall(so, tp_usrsctp_upcall, NULL);
		tp_usrsctp_linger_close(so);
	}
	tp_usrsctp_reg_del(id);
	if (efd != -1)
		close(efd);
}

/* The process's stack: one, on one UDP port, started on first use. */
static int
tp_usrsctp_port_free(uint16_t port, char *err, size_t errlen)
{
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	int fd, one = 1, e = 0;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1) {
		tp_seterr(err, errlen, "UDP socket: %s", strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		e = errno;
	close(fd);
	if (e == 0 && (fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0)) != -1) {
		memset(&sin6, 0, sizeof(sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons(port);
		sin6.sin6_addr = in6addr_any;
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)) == -1 && errno != EADDRNOTAVAIL)
			e = errno;
		close(fd);
	}
	if (e == EADDRINUSE) {
		tp_seterr(err, errlen, "UDP port %u in use", port);
		return -1;
	}
	if (e != 0) {
		tp_seterr(err, errlen, "UDP port %u: %s", port, strerror(e));
		return -1;
	}
	return 0;
}

/*
 * As root, usrsctp also opens raw IP sockets for SCTP. They would see the kernel's own SCTP
 * traffic and answer it with ABORTs. UDP encapsulation is all this type uses, so the stack is
 * started without CAP_NET_RAW in this thread's effective set (its threads inherit that), and
 * the capability is given back afterwards.
 */
static void
tp_usrsctp_init(uint16_t port)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct saved[2], noraw[2];
	int dropped = 0;

	if (syscall(SYS_capget, &h, saved) == 0 && (saved[0].effective & (1u << CAP_NET_RAW))) {
		memcpy(noraw, saved, sizeof(noraw));
		noraw[0].effective &= ~(1u << CAP_NET_RAW);
		dropped = syscall(SYS_capset, &h, noraw) == 0;
	}
	usrsctp_init(port, NULL, NULL);
	if (dropped)
		syscall(SYS_capset, &h, saved);
}

/*
 * At exit, with every socket of ours closed: the associations closed while alive finish their
 * SHUTDOWN exchange (tp_usrsctp_linger.c, 3 s at most), and the process ends without
 * usrsctp_finish, which would wait for the stack's socket list to empty at its next kill timer
 * (20-30 ms) and join its threads at their 100 ms receive timeout and 10 ms tick. Nothing is
 * left to send by then; a process with sockets still open ends as it is (a server).
 */
static void
tp_usrsctp_atexit(void)
{
	size_t open;

	pthread_mutex_lock(&tp_usrsctp_mu);
	open = tp_usrsctp_nused;
	pthread_mutex_unlock(&tp_usrsctp_mu);
	if (open == 0)
		tp_usrsctp_linger_finish(3000);
}

int
tp_usrsctp_stack(const struct tp_opts *o, char *err, size_t errlen)
{
	static int atexit_done;
	uint16_t port = o->udp_port ? o->udp_port : TP_USRSCTP_PORT;
	char scratch[TP_ERRLEN];

	if (tp_usrsctp_udp != 0) {
		if (o->udp_port != 0 && o->udp_port != tp_usrsctp_udp) {
			tp_seterr(err, errlen, "this process's usrsctp stack runs on UDP port %u, "
			    "not %u (one port per process)", tp_usrsctp_udp, o->udp_port);
			return -1;
		}
		return 0;
	}
	/* A usrsctp_init on a taken port fails silently: find out first. */
	if (tp_usrsctp_port_free(port, err, errlen) == -1)
		return -1;
	tp_usrsctp_init(port);
	if (tp_usrsctp_port_free(port, scratch, sizeof(scratch)) == 0) {
		tp_seterr(err, errlen, "UDP port %u: the usrsctp stack could not bind it", port);
		usrsctp_finish();
		return -1;
	}
	tp_usrsctp_udp_setup(port);
	usrsctp_sysctl_set_sctp_no_csum_on_loopback(0); /* always CRC32c, as peers expect */
	usrsctp_sysctl_set_sctp_blackhole(0);           /* INIT to a closed port gets an ABORT */
	tp_usrsctp_udp = port;
	if (!atexit_done) {
		atexit(tp_usrsctp_atexit);
		atexit_done = 1;
	}
	return 0;
}

