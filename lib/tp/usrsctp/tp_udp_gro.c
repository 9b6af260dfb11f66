/* tp_udp_gro.c: UDP GRO's coalesced buffers cut back into the datagrams they were (the
 * kernel's UDP_GRO control message gives the size of each but the last). */
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>

#include "tp_udp_gro.h"

#ifndef UDP_GRO
#define UDP_GRO 104 /* linux/udp.h, Linux 5.0 */
#endif

int
tp_udp_gro_on(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one));
}

size_t
tp_udp_gro_size(const struct msghdr *h)
{
	struct cmsghdr *cm;
	int size;

	for (cm = CMSG_FIRSTHDR(h); cm != NULL; cm = CMSG_NXTHDR((struct msghdr *)h, cm))
		if (cm->cmsg_level == IPPROTO_UDP && cm->cmsg_type == UDP_GRO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(size))) {
			memcpy(&size, CMSG_DATA(cm), sizeof(size));
			return size > 0 ? (size_t)size : 0;
		}
	return 0;
}

size_t
tp_udp_gro_split(const void *buf, size_t len, size_t seg, struct iovec *out, size_t max)
{
	const unsigned char *p = buf;
	size_t n = 0, off = 0, l;

	if (seg == 0 || seg >= len) {
		if (max > 0) {
			out[0].iov_base = (void *)p;
			out[0].iov_len = len;
		}
		return 1;
	}
	while (off < len) {
		l = len - off < seg ? len - off : seg;
		if (n < max) {
			out[n].iov_base = (void *)(p + off);
			out[n].iov_len = l;
		}
		n++;
		off += l;
	}
	return n;
}
