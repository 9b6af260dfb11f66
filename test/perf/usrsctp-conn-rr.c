/*
 * usrsctp-conn-rr: request/response round trips over usrsctp without its threads, the stack
 * fed by the caller (usrsctp_init_nothreads, AF_CONN, usrsctp_conninput), as WebRTC stacks run
 * it: one thread, one epoll loop that reads the UDP socket and calls usrsctp_handle_timers.
 * The SCTP packets go in UDP datagrams (RFC 6951's wire format), CRC32c computed and checked as
 * on the AF_INET path. One association, one message in flight: the latency figure of
 * msgperf -T latency, for deciding between the two ways of running usrsctp (docs/design.md).
 *
 *   usrsctp-conn-rr server UDP-PORT
 *   usrsctp-conn-rr client HOST UDP-PORT [SIZE [SECONDS]]
 * The client prints "usrsctp-conn SIZE B: N round trips in S s, mean RTT U us" and ends the
 * association with an ABORT; the server serves one association and exits when it ends.
 * test/perf/usrsctp-modes-bench.sh sets it beside msgperf's TCP and usrsctp round trips.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <usrsctp.h>

#define RR_SCTP_PORT 5001
#define RR_TICK_MS 10

struct rr_peer {
	int udp;
	struct sockaddr_in sa;
	int known;
};

static struct rr_peer rr_peer;

static int
rr_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df)
{
	struct rr_peer *p = addr;

	(void)tos;
	(void)set_df;
	if (!p->known)
		return 0;
	(void)sendto(p->udp, buf, len, 0, (struct sockaddr *)&p->sa, sizeof p->sa);
	return 0;
}

static double
rr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every datagram waiting, into the stack. */
static void
rr_input(struct rr_peer *p)
{
	char buf[65536];
	struct sockaddr_in from;
	socklen_t fl;
	ssize_t n;

	for (;;) {
		fl = sizeof from;
		n = recvfrom(p->udp, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n <= 0)
			return;
		if (!p->known) {
			p->sa = from;
			p->known = 1;
		}
		usrsctp_conninput(p, buf, (size_t)n, 0);
	}
}

/* A whole message (to MSG_EOR) appended to msg; returns its length when complete, 0 if not yet,
 * -1 on EOF or error. */
static ssize_t
rr_recv(struct socket *so, char *msg, size_t cap, size_t *have)
{
	struct sctp_rcvinfo ri;
	socklen_t il = sizeof ri, fl = 0;
	unsigned int it = 0;
	int flags;
	ssize_t n;

	for (;;) {
		flags = 0;
		n = usrsctp_recvv(so, msg + *have, cap - *have, NULL, &fl, &ri, &il, &it, &flags);
		if (n < 0)
			return errno == EWOULDBLOCK || errno == EAGAIN ? 0 : -1;
		if (n == 0)
			return -1;
		*have += (size_t)n;
		if (flags & MSG_EOR) {
			n = (ssize_t)*have;
			*have = 0;
			return n;
		}
		if (*have == cap)
			return -1;
	}
}

static int
rr_send(struct socket *so, const char *msg, size_t len)
{
	struct sctp_sndinfo si;

	memset(&si, 0, sizeof si);
	si.snd_ppid = htonl(0);
	return usrsctp_sendv(so, msg, len, NULL, 0, &si, sizeof si, SCTP_SENDV_SNDINFO, 0) ==
	    (ssize_t)len ? 0 : -1;
}

int
main(int argc, char **argv)
{
	int server = argc >= 3 && strcmp(argv[1], "server") == 0;
	int client = argc >= 4 && strcmp(argv[1], "client") == 0;
	size_t size = client && argc > 4 ? strtoul(argv[4], NULL, 10) : 1000;
	double secs = client && argc > 5 ? atof(argv[5]) : 2, t0 = 0, tsent = 0, rtt = 0;
	struct sockaddr_in la = { .sin_family = AF_INET };
	struct sockaddr_conn sc = { .sconn_family = AF_CONN };
	struct itimerspec tick = { { 0, RR_TICK_MS * 1000000 }, { 0, RR_TICK_MS * 1000000 } };
	struct epoll_event ev = { .events = EPOLLIN }, evs[4];
	struct socket *lso = NULL, *so = NULL;
	static char msg[1 << 20];
	size_t have = 0;
	long trips = 0;
	int ep = -1, tfd = -1, on = 1, rc = 1, i, n;

	if ((!server && !client) || size == 0 || size > sizeof msg || secs <= 0) {
		fprintf(argc == 2 && strcmp(argv[1], "--help") == 0 ? stdout : stderr,
		    "usage: usrsctp-conn-rr server UDP-PORT\n"
		    "       usrsctp-conn-rr client HOST UDP-PORT [SIZE [SECONDS]]   (default 1000 B, 2 s)\n"
		    "Round trips of SIZE-byte messages over usrsctp run without its threads (AF_CONN,\n"
		    "fed from one epoll loop), SCTP in UDP datagrams to HOST:UDP-PORT; the client prints\n"
		    "the mean round-trip time.\n");
		return argc == 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	rr_peer.udp = socket(AF_INET, SOCK_DGRAM, 0);
	if (server)
		la.sin_port = htons((uint16_t)atoi(argv[2]));
	if (rr_peer.udp < 0 || bind(rr_peer.udp, (struct sockaddr *)&la, sizeof la) < 0) {
		perror("usrsctp-conn-rr: udp socket");
		goto out;
	}
	if (client) {
		rr_peer.sa.sin_family = AF_INET;
		rr_peer.sa.sin_port = htons((uint16_t)atoi(argv[3]));
		if (inet_pton(AF_INET, argv[2], &rr_peer.sa.sin_addr) != 1) {
			fprintf(stderr, "usrsctp-conn-rr: %s: not an IPv4 address\n", argv[2]);
			goto out;
		}
		rr_peer.known = 1;
	}
	usrsctp_init_nothreads(0, rr_output, NULL);
	usrsctp_register_address(&rr_peer);
	if ((so = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL)) == NULL) {
		perror("usrsctp-conn-rr: usrsctp_socket");
		goto out;
	}
	usrsctp_set_non_blocking(so, 1);
	usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on);
	sc.sconn_addr = &rr_peer;
	sc.sconn_port = htons(server ? RR_SCTP_PORT : 0);
	if (usrsctp_bind(so, (struct sockaddr *)&sc, sizeof sc) < 0) {
		perror("usrsctp-conn-rr: bind");
		goto out;
	}
	if (server) {
		lso = so;
		so = NULL;
		if (usrsctp_listen(lso, 1) < 0) {
			perror("usrsctp-conn-rr: listen");
			goto out;
		}
	} else {
		sc.sconn_port = htons(RR_SCTP_PORT);
		if (usrsctp_connect(so, (struct sockaddr *)&sc, sizeof sc) < 0 && errno != EINPROGRESS) {
			perror("usrsctp-conn-rr: connect");
			goto out;
		}
	}
	ep = epoll_create1(0);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	if (ep < 0 || tfd < 0 || timerfd_settime(tfd, 0, &tick, NULL) < 0)
		goto out;
	ev.data.fd = rr_peer.udp;
	epoll_ctl(ep, EPOLL_CTL_ADD, rr_peer.udp, &ev);
	ev.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	memset(msg, 'r', size);
	for (;;) {
		n = epoll_wait(ep, evs, 4, 1000);
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == tfd) {
				uint64_t x;

				if (read(tfd, &x, sizeof x) == sizeof x)
					usrsctp_handle_timers((uint32_t)(x * RR_TICK_MS));
			} else {
				rr_input(&rr_peer);
			}
		}
		if (lso && !so) {
			socklen_t sl = sizeof sc;

			if ((so = usrsctp_accept(lso, (struct sockaddr *)&sc, &sl)) != NULL)
				usrsctp_set_non_blocking(so, 1);
		}
		if (!so)
			continue;
		if (client && t0 == 0) {
			/* connected once a send is taken */
			if (rr_send(so, msg, size) < 0) {
				if (errno == EWOULDBLOCK || errno == EAGAIN || errno == ENOTCONN)
					continue;
				perror("usrsctp-conn-rr: send");
				goto out;
			}
			t0 = tsent = rr_now();
		}
		for (;;) {
			ssize_t got = rr_recv(so, msg, sizeof msg, &have);

			if (got < 0) {
				rc = client;
				goto out;
			}
			if (got == 0)
				break;
			if (server) {
				if (rr_send(so, msg, (size_t)got) < 0)
					goto out;
				continue;
			}
			rtt += rr_now() - tsent;
			trips++;
			if (rr_now() - t0 >= secs) {
				printf("usrsctp-conn %zu B: %ld round trips in %.2f s, mean RTT %.1f us\n",
				    size, trips, rr_now() - t0, rtt / trips * 1e6);
				rc = 0;
				goto out;
			}
			tsent = rr_now();
			if (rr_send(so, msg, size) < 0)
				goto out;
		}
	}
out:
	if (so) {
		struct linger abort_on_close = { 1, 0 };

		usrsctp_setsockopt(so, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
		usrsctp_close(so);
	}
	if (lso)
		usrsctp_close(lso);
	if (tfd >= 0)
		close(tfd);
	if (ep >= 0)
		close(ep);
	if (rr_peer.udp >= 0)
		close(rr_peer.udp);
	return rc;
}
