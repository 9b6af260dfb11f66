/* tp_usrsctp_stack.c: the process's one usrsctp stack, started on first use, and its exit. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tp_usrsctp.h"

static uint16_t tp_usrsctp_udp; /* the stack's local UDP port; 0 until it runs */

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
	int dropped = 0, batch;

	if (syscall(SYS_capget, &h, saved) == 0 && (saved[0].effective & (1u << CAP_NET_RAW))) {
		memcpy(noraw, saved, sizeof(noraw));
		noraw[0].effective &= ~(1u << CAP_NET_RAW);
		dropped = syscall(SYS_capset, &h, noraw) == 0;
	}
	batch = tp_usrsctp_sched_begin(); /* its threads inherit SCHED_BATCH */
	usrsctp_init(port, NULL, NULL);
	if (batch)
		tp_usrsctp_sched_end();
	if (dropped)
		syscall(SYS_capset, &h, saved);
}

static void
tp_usrsctp_sleep(void)
{
	usleep(1000);
}

/*
 * At exit, with every socket of ours closed: the associations closed while alive finish their
 * SHUTDOWN exchange (tp_usrsctp_linger.c, 3 s at most), and the process ends without
 * usrsctp_finish, which would wait for the stack's socket list to empty at its next kill timer
 * (20-30 ms) and join its threads at their 100 ms receive timeout and 10 ms tick. Nothing is
 * left to send by then; a process with sockets still open ends as it is (a server).
 * The counters go to SCTPAPPS_USRSCTP_STATS's file first (tp_usrsctp_stats_file).
 */
static void
tp_usrsctp_atexit(void)
{
	tp_usrsctp_stats_file(tp_usrsctp_stats);
	if (tp_usrsctp_wake_count() == 0)
		tp_usrsctp_linger_finish(3000, tp_usrsctp_sleep);
}

int
tp_usrsctp_stack(const struct tp_opts *o, char *err, size_t errlen)
{
	static int atexit_done;
	uint16_t port = o->udp_port ? o->udp_port : TP_USRSCTP_PORT;
	char scratch[TP_ERRLEN];

	if (tp_usrsctp_nt_running()) {
		tp_seterr(err, errlen, "this process runs usrsctp without its threads (type "
		    "usrsctp-nt): usrsctp cannot run beside it");
		return -1;
	}
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
	tp_usrsctp_run_set(TP_USRSCTP_RUN_THREADS);
	if (!atexit_done) {
		atexit(tp_usrsctp_atexit);
		atexit_done = 1;
	}
	return 0;
}

