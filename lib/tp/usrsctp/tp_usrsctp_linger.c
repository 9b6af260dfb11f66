/* tp_usrsctp_linger.c: connections closed while their association shuts down gracefully. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tp_usrsctp.h"

/*
 * A usrsctp_close on a live association leaves the SHUTDOWN exchange to the stack, and nothing
 * then tells when it is over: the stack's socket list empties only at its next kill timer,
 * 20-30 ms later, so a process that waits for usrsctp_finish to succeed waits that long after
 * its last byte. Instead such a socket is shut down (SHUT_WR: the SHUTDOWN goes after the data
 * still queued, as a close would) and kept until its association is gone, which SCTP_STATUS
 * tells at once; then it is closed. A few of the oldest are looked at on every close, all of
 * them every TP_USRSCTP_REAP_MS by a thread while any linger (a process whose last
 * connection closed may do nothing else for a long time), and all of them at exit. An abort
 * (SO_LINGER 0) and unread data (a close that ABORTs) are closed at once, as before, and so is
 * a lingering socket that data still reaches: its sender learns at once, as with a close.
 */

#define TP_USRSCTP_REAP 4     /* lingering sockets looked at per close */
#define TP_USRSCTP_REAP_MS 10 /* and all of them this often while any linger */

static pthread_mutex_t tp_usrsctp_linger_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tp_usrsctp_linger_cv = PTHREAD_COND_INITIALIZER;
static struct socket **tp_usrsctp_lingering; /* a FIFO ring, under tp_usrsctp_linger_mu */
static size_t tp_usrsctp_lhead, tp_usrsctp_lcount, tp_usrsctp_lcap;
static int tp_usrsctp_reaper_on, tp_usrsctp_reaper_stop; /* under tp_usrsctp_linger_mu */
static int tp_usrsctp_linger_nothread; /* threadless stack: its loop reaps (linger_tick) */

static void tp_usrsctp_linger_reap(size_t max);

static int
tp_usrsctp_linger_alive(struct socket *so)
{
	struct sctp_status st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_STATUS, &st, &len) == -1)
		return 0;
	return st.sstat_state == SCTP_ESTABLISHED || st.sstat_state == SCTP_SHUTDOWN_PENDING ||
	    st.sstat_state == SCTP_SHUTDOWN_SENT || st.sstat_state == SCTP_SHUTDOWN_RECEIVED ||
	    st.sstat_state == SCTP_SHUTDOWN_ACK_SENT;
}

/* Whether a close of so should wait for a graceful shutdown (else it closes at once). */
static int
tp_usrsctp_linger_wanted(struct socket *so)
{
	struct linger l;
	socklen_t len = sizeof(l);

	memset(&l, 0, sizeof(l));
	if (usrsctp_getsockopt(so, SOL_SOCKET, SO_LINGER, &l, &len) == 0 && l.l_onoff && l.l_linger == 0)
		return 0;
	if (usrsctp_get_events(so) & SCTP_EVENT_READ)
		return 0;
	return tp_usrsctp_linger_alive(so);
}

static int
tp_usrsctp_linger_push(struct socket *so)
{
	struct socket **p;
	size_t i, n;

	if (tp_usrsctp_lcount == tp_usrsctp_lcap) {
		n = tp_usrsctp_lcap ? 2 * tp_usrsctp_lcap : 16;
		if ((p = malloc(n * sizeof(*p))) == NULL)
			return -1;
		for (i = 0; i < tp_usrsctp_lcount; i++)
			p[i] = tp_usrsctp_lingering[(tp_usrsctp_lhead + i) % tp_usrsctp_lcap];
		free(tp_usrsctp_lingering);
		tp_usrsctp_lingering = p;
		tp_usrsctp_lcap = n;
		tp_usrsctp_lhead = 0;
	}
	tp_usrsctp_lingering[(tp_usrsctp_lhead + tp_usrsctp_lcount) % tp_usrsctp_lcap] = so;
	tp_usrsctp_lcount++;
	return 0;
}

/*
 * Data that came after the close is refused as a closed socket's would be: with an ABORT. Notifications are read and dropped, so that they do not count as such data.
 */
static int
tp_usrsctp_linger_refuse(struct socket *so)
{
	struct linger l = { 1, 0 };
	struct sctp_sndinfo si;
	struct sockaddr_storage from;
	struct sctp_rcvinfo rcv;
	socklen_t fromlen, infolen;
	unsigned int infotype;
	char buf[1024];
	int flags;

	/* usrsctp_recvv writes through every pointer it is given: none may be NULL */
	while (usrsctp_get_events(so) & SCTP_EVENT_READ) {
		flags = 0;
		fromlen = sizeof(from);
		infolen = sizeof(rcv);
		infotype = 0;
		if (usrsctp_recvv(so, buf, sizeof(buf), (struct sockaddr *)&from, &fromlen, &rcv,
		    &infolen, &infotype, &flags) <= 0)
			return 0;
		if (!(flags & MSG_NOTIFICATION)) {
			/* the ABORT as tp_usrsctp_abort sends it: a close with SO_LINGER 0 races
			 * with the receive thread (usrsctp issues 676, 709) */
			memset(&si, 0, sizeof(si));
			si.snd_flags = SCTP_ABORT;
			if (usrsctp_sendv(so, "", 0, NULL, 0, &si, sizeof(si), SCTP_SENDV_SNDINFO, 0) == -1)
				(void)usrsctp_setsockopt(so, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			return 1;
		}
	}
	return 0;
}

/* Look at up to max of the oldest: close those whose association is gone; under the lock. */
static void
tp_usrsctp_linger_reap(size_t max)
{
	struct socket *so;

	while (max-- > 0 && tp_usrsctp_lcount > 0) {
		so = tp_usrsctp_lingering[tp_usrsctp_lhead];
		tp_usrsctp_lhead = (tp_usrsctp_lhead + 1) % tp_usrsctp_lcap;
		tp_usrsctp_lcount--;
		if (!tp_usrsctp_linger_refuse(so) && tp_usrsctp_linger_alive(so))
			tp_usrsctp_linger_push(so); /* room: it was just taken out */
		else
			usrsctp_close(so);
	}
}

/* The reaper thread: started at the first linger, it looks every TP_USRSCTP_REAP_MS while
 * sockets linger and sleeps while none do (one thread for the process's life: no thread made
 * and ended per linger), until the exit stops it. */
static void *
tp_usrsctp_linger_reaper(void *arg)
{
	struct timespec t;

	(void)arg;
	pthread_mutex_lock(&tp_usrsctp_linger_mu);
	while (!tp_usrsctp_reaper_stop) {
		if (tp_usrsctp_lcount == 0) {
			pthread_cond_wait(&tp_usrsctp_linger_cv, &tp_usrsctp_linger_mu);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += TP_USRSCTP_REAP_MS * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&tp_usrsctp_linger_cv, &tp_usrsctp_linger_mu, &t);
		if (!tp_usrsctp_reaper_stop)
			tp_usrsctp_linger_reap(tp_usrsctp_lcount);
	}
	tp_usrsctp_reaper_on = 0;
	pthread_cond_broadcast(&tp_usrsctp_linger_cv);
	pthread_mutex_unlock(&tp_usrsctp_linger_mu);
	return NULL;
}

/* The reaper, once sockets linger (none can be had: they are looked at on closes only). */
static void
tp_usrsctp_linger_reaper_start(void)
{
	pthread_attr_t at;
	pthread_t t;

	if (tp_usrsctp_reaper_on || tp_usrsctp_reaper_stop || tp_usrsctp_lcount == 0 ||
	    tp_usrsctp_linger_nothread || pthread_attr_init(&at) != 0)
		return;
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, tp_usrsctp_linger_reaper, NULL) == 0)
		tp_usrsctp_reaper_on = 1;
	pthread_attr_destroy(&at);
}

/* Close a connection's socket, after its graceful shutdown where it has one to do. */
void
tp_usrsctp_linger_close(struct socket *so)
{
	pthread_mutex_lock(&tp_usrsctp_linger_mu);
	if (!tp_usrsctp_linger_wanted(so) || usrsctp_shutdown(so, SHUT_WR) == -1 ||
	    tp_usrsctp_linger_push(so) == -1)
		usrsctp_close(so);
	tp_usrsctp_linger_reap(TP_USRSCTP_REAP);
	tp_usrsctp_linger_reaper_start();
	if (tp_usrsctp_lcount > 0)
		pthread_cond_broadcast(&tp_usrsctp_linger_cv); /* a sleeping reaper looks again */
	pthread_mutex_unlock(&tp_usrsctp_linger_mu);
}

/* Sockets lingering now. */
size_t
tp_usrsctp_linger_count(void)
{
	size_t n;

	pthread_mutex_lock(&tp_usrsctp_linger_mu);
	n = tp_usrsctp_lcount;
	pthread_mutex_unlock(&tp_usrsctp_linger_mu);
	return n;
}

/* The threadless stack (tp_usrsctp_nt.c): no reaper thread; its loop's tick reaps. */
void
tp_usrsctp_linger_threadless(void)
{
	pthread_mutex_lock(&tp_usrsctp_linger_mu);
	tp_usrsctp_linger_nothread = 1;
	pthread_mutex_unlock(&tp_usrsctp_linger_mu);
}

void
tp_usrsctp_linger_tick(void)
{
	pthread_mutex_lock(&tp_usrsctp_linger_mu);
	tp_usrsctp_linger_reap(tp_usrsctp_lcount);
	pthread_mutex_unlock(&tp_usrsctp_linger_mu);
}

/* At exit: wait (up to ms, wait() taking about a millisecond: a sleep, or the threadless
 * stack's pump) for the lingering associations to end, then close every socket. Returns 0 if
 * they all ended in time. */
int
tp_usrsctp_linger_finish(int ms, void (*wait)(void))
{
	struct timespec t0, t;
	int left;

	pthread_mutex_lock(&tp_usrsctp_linger_mu);
	tp_usrsctp_reaper_stop = 1;
	pthread_cond_broadcast(&tp_usrsctp_linger_cv);
	while (tp_usrsctp_reaper_on)
		pthread_cond_wait(&tp_usrsctp_linger_cv, &tp_usrsctp_linger_mu);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (tp_usrsctp_lcount == 0 || (t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 >= ms)
			break;
		tp_usrsctp_linger_reap(tp_usrsctp_lcount);
		if (tp_usrsctp_lcount > 0) {
			pthread_mutex_unlock(&tp_usrsctp_linger_mu);
			wait();
			pthread_mutex_lock(&tp_usrsctp_linger_mu);
		}
	}
	left = tp_usrsctp_lcount > 0;
	while (tp_usrsctp_lcount > 0) {
		usrsctp_close(tp_usrsctp_lingering[tp_usrsctp_lhead]);
		tp_usrsctp_lhead = (tp_usrsctp_lhead + 1) % tp_usrsctp_lcap;
		tp_usrsctp_lcount--;
	}
	free(tp_usrsctp_lingering);
	tp_usrsctp_lingering = NULL;
	tp_usrsctp_lcap = tp_usrsctp_lhead = 0;
	pthread_mutex_unlock(&tp_usrsctp_linger_mu);
	return left ? -1 : 0;
}
