/* tp_usrsctp_udp.c: usrsctp's own UDP sockets, sized so a burst cannot overrun them, and woken at exit. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "tp_usrsctp.h"

/*
 * usrsctp receives every association's packets on one UDP socket per address family, which it
 * opens itself with a 128 KiB SO_RCVBUF (256 KiB as the kernel counts it, skb truesize, about
 * twice a 1000-byte datagram's payload). An SCTP receive window of that size already overruns
 * it on a loopback: the kernel drops datagrams (UDP RcvbufErrors), and each drop that ends a
 * flight costs a retransmission timeout of at least a second. The sockets are not in usrsctp's
 * API, but they are this process's descriptors, bound to the stack's port: found once after
 * usrsctp_init, given a large buffer (SO_RCVBUFFORCE where allowed, else SO_RCVBUF up to
 * net.core.rmem_max), and the stack's default receive window is bounded to a quarter of what
 * the kernel granted (the measured limit: 64 KiB windows never overran 256 KiB).
 */

#define TP_USRSCTP_UDP_RCVBUF (4 << 20) /* asked; the kernel doubles it */
#define TP_USRSCTP_UDP_MAXFD 2          /* IPv4 and IPv6 */

static int tp_usrsctp_udp_fd[TP_USRSCTP_UDP_MAXFD] = { -1, -1 };
static int tp_usrsctp_udp_nfd;

static int
tp_usrsctp_udp_ours(int fd, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int type = 0;
	socklen_t tlen = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) == -1 || type != SOCK_DGRAM)
		return 0;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port) == port;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) == port;
	return 0;
}

/* The receive buffer the kernel granted (as it counts it), the smallest of the sockets'. */
static int
tp_usrsctp_udp_grow(int fd)
{
	int want = TP_USRSCTP_UDP_RCVBUF, got = 0;
	socklen_t len = sizeof(got);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) == -1)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) == -1)
		return 0;
	return got;
}

/* After usrsctp_init on port: find the stack's UDP sockets and size them and its windows. */
void
tp_usrsctp_udp_setup(uint16_t port)
{
	struct dirent *d;
	DIR *dir;
	char *end;
	long fd;
	int got, least = 0;

	if ((dir = opendir("/proc/self/fd")) == NULL)
		return;
	while ((d = readdir(dir)) != NULL && tp_usrsctp_udp_nfd < TP_USRSCTP_UDP_MAXFD) {
		fd = strtol(d->d_name, &end, 10);
		if (*end != '\0' || end == d->d_name || fd == dirfd(dir))
			continue;
		if (!tp_usrsctp_udp_ours((int)fd, port))
			continue;
		tp_usrsctp_udp_fd[tp_usrsctp_udp_nfd++] = (int)fd;
		got = tp_usrsctp_udp_grow((int)fd);
		if (least == 0 || got < least)
			least = got;
	}
	closedir(dir);
	if (least > 0 && (uint32_t)(least / 4) < usrsctp_sysctl_get_sctp_recvspace())
		usrsctp_sysctl_set_sctp_recvspace((uint32_t)(least / 4));
}

/*
 * Before usrsctp_finish: its receive threads block in recvmsg with a 100 ms timeout and are
 * joined only once that ends. A 1 ms timeout from now on, and a datagram that no SCTP stack
 * accepts (too short for a common header) to end the wait already begun, make the join quick.
 */
void
tp_usrsctp_udp_wake(uint16_t port)
{
	struct timeval tv = { 0, 1000 };
	struct sockaddr_storage ss;
	socklen_t len;
	char junk[4] = { 0 };
	int i, s;

	for (i = 0; i < tp_usrsctp_udp_nfd; i++) {
		len = sizeof(ss);
		if (setsockopt(tp_usrsctp_udp_fd[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
		    getsockname(tp_usrsctp_udp_fd[i], (struct sockaddr *)&ss, &len) == -1)
			continue;
		if (ss.ss_family == AF_INET) {
			((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			((struct sockaddr_in *)&ss)->sin_port = htons(port);
		} else {
			((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
			((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
		}
		if ((s = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
			continue;
		sendto(s, junk, sizeof(junk), 0, (struct sockaddr *)&ss, len);
		close(s);
	}
}
