/* tp_usrsctp_udp.c: usrsctp's own UDP sockets, sized so that a burst cannot overrun them. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
	int got, least = 0, found = 0;

	if ((dir = opendir("/proc/self/fd")) == NULL)
		return;
	while ((d = readdir(dir)) != NULL && found < TP_USRSCTP_UDP_MAXFD) {
		fd = strtol(d->d_name, &end, 10);
		if (*end != '\0' || end == d->d_name || fd == dirfd(dir))
			continue;
		if (!tp_usrsctp_udp_ours((int)fd, port))
			continue;
		found++;
		got = tp_usrsctp_udp_grow((int)fd);
		if (least == 0 || got < least)
			least = got;
	}
	closedir(dir);
	tp_usrsctp_udp_window(least);
}

/* The stack's default receive window: a quarter of what the kernel granted the UDP socket
 * (the measured limit: 64 KiB windows never overran 256 KiB). */
void
tp_usrsctp_udp_window(int granted)
{
	if (granted > 0 && (uint32_t)(granted / 4) < usrsctp_sysctl_get_sctp_recvspace())
		usrsctp_sysctl_set_sctp_recvspace((uint32_t)(granted / 4));
}

/* The threadless stack's own socket (tp_usrsctp_nt.c), given its buffer the same way: the
 * buffer granted, for tp_usrsctp_udp_window once the stack runs. */
int
tp_usrsctp_udp_size(int fd)
{
	return tp_usrsctp_udp_grow(fd);
}
