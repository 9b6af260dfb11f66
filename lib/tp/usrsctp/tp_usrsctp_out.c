/* tp_usrsctp_out.c: the threadless usrsctp stack's packets out (tp_usrsctp_nt.c), batched: what
 * the stack emits within one turn of a loop leaves in one sendmmsg. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_usrsctp.h"

/*
 * A packet is copied into a slot (with its destination) instead of sent; the slots go out in
 * one sendmmsg when they are all taken, and whenever tp_usrsctp_nt.c flushes: after a batch of
 * datagrams in, after the timers, after the readiness calls, before a loop sleeps (a deferred
 * call on every loop driving the stack, asked for by the first packet queued) and at exit. A
 * packet larger than a slot goes out alone, after the queue, in order. A full send buffer
 * drops what it refuses, as the kernel's own queue would: SCTP sends it again.
 * With SCTPAPPS_USRSCTP_GSO=1 in the environment, where the kernel has UDP GSO (UDP_SEGMENT,
 * Linux 4.18), a run of packets to one peer, all of one size but the last (no larger), leaves
 * as one message the kernel cuts into datagrams: one pass down the stack for the run. It is
 * off by default: a GSO message to a receiver on the same host (lo, a veth) reaches the
 * receiving socket whole, not cut, and Linux 6.1's kernel SCTP in UDP (net.sctp.udp_port)
 * panicked on it (BUG in udp_queue_rcv_skb, seen twice in test/integration/sctp-encap.sh in the
 * VM). The first refusal of a GSO message (an older kernel, EINVAL/EIO/ENOPROTOOPT; EMSGSIZE: a
 * link whose MTU is under a segment, which a datagram of its own passes in IP fragments) turns
 * it off for the process and sends those packets one a message.
 */

#define OUT_SLOTS 64
#define OUT_SLOT 2048             /* the stack's packets are at most its MTU, 1452 bytes */

static unsigned char out_buf[OUT_SLOTS][OUT_SLOT];
static struct sockaddr_storage out_to[OUT_SLOTS];
static struct mmsghdr out_mm[OUT_SLOTS];
static struct iovec out_iov[OUT_SLOTS];
#define OUT_GSO_MAX 64            /* segments a GSO message at most (the kernel's UDP_MAX_SEGMENTS) */
#define OUT_GSO_BYTES 65000       /* and bytes, under a datagram's 65507 */

static struct mmsghdr out_gmm[OUT_SLOTS];  /* the queue as messages, a run of packets each */
static size_t out_gn[OUT_SLOTS];           /* packets in each */
static union {
	char buf[CMSG_SPACE(sizeof(uint16_t))];
	struct cmsghdr align;
} out_cmsg[OUT_SLOTS];
static size_t out_n;
static int out_fd = -1;
static int out_gso;               /* 1: asked for (SCTPAPPS_USRSCTP_GSO=1), not refused yet */
static struct {
	unsigned long sent, err, calls, gso;
} out_count;

void
tp_usrsctp_out_fd(int fd)
{
	const char *e = getenv("SCTPAPPS_USRSCTP_GSO");

	out_fd = fd;
	out_gso = e != NULL && strcmp(e, "1") == 0;
}

size_t
tp_usrsctp_out_queued(void)
{
	return out_n;
}

/* Packets i and j go to one peer. */
static int
out_same_peer(size_t i, size_t j)
{
	return out_mm[i].msg_hdr.msg_namelen == out_mm[j].msg_hdr.msg_namelen &&
	    memcmp(&out_to[i], &out_to[j], out_mm[i].msg_hdr.msg_namelen) == 0;
}

/* The queue from packet FROM on as messages: runs of packets for GSO (with out_gso), else one
 * packet each. */
static size_t
out_group(size_t from)
{
	size_t g = 0, i = from, j, bytes, seg;
	struct msghdr *h;
	struct cmsghdr *cm;
	uint16_t size;

	while (i < out_n) {
		seg = out_iov[i].iov_len;
		bytes = seg;
		for (j = i + 1; out_gso && j < out_n && j - i < OUT_GSO_MAX && out_same_peer(i, j) &&
		    out_iov[j].iov_len <= seg && bytes + out_iov[j].iov_len <= OUT_GSO_BYTES; j++) {
			bytes += out_iov[j].iov_len;
			if (out_iov[j].iov_len < seg) { /* a shorter one ends the run */
				j++;
				break;
			}
		}
		out_gmm[g] = out_mm[i];
		h = &out_gmm[g].msg_hdr;
		h->msg_iovlen = j - i; /* the slots' iovecs follow each other */
		if (j - i > 1) {
			size = (uint16_t)seg;
			h->msg_control = out_cmsg[g].buf;
			h->msg_controllen = sizeof(out_cmsg[g].buf);
			cm = CMSG_FIRSTHDR(h);
			cm->cmsg_level = SOL_UDP;
			cm->cmsg_type = UDP_SEGMENT;
			cm->cmsg_len = CMSG_LEN(sizeof(size));
			memcpy(CMSG_DATA(cm), &size, sizeof(size));
		}
		out_gn[g++] = j - i;
		i = j;
	}
	return g;
}

/* Everything queued, out: as many sendmmsg calls as the kernel takes part of it. */
void
tp_usrsctp_out_flush(void)
{
	size_t off = 0, g;
	int n;

	g = out_group(0);
	while (off < g) {
		n = sendmmsg(out_fd, out_gmm + off, (unsigned)(g - off), MSG_DONTWAIT);
		out_count.calls++;
		if (n <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && out_gso && out_gn[off] > 1 &&
			    (errno == EINVAL || errno == EIO || errno == ENOPROTOOPT ||
			    errno == EMSGSIZE)) {
				out_gso = 0; /* no GSO here: the rest again, one packet a message */
				g = out_group((size_t)(out_gmm[off].msg_hdr.msg_iov - out_iov));
				off = 0;
				continue;
			}
			out_count.err += out_gn[off]; /* refused (full buffer): dropped, then the rest */
			off++;
			continue;
		}
		for (; n > 0; n--, off++) {
			out_count.sent += out_gn[off];
			if (out_gn[off] > 1)
				out_count.gso += out_gn[off];
		}
	}
	out_n = 0;
}

/* A packet to send: queued (1: the queue was empty, a flush is to be asked for), or sent at
 * once when larger than a slot (0). */
int
tp_usrsctp_out_add(const struct sockaddr *to, socklen_t tolen, const void *buf, size_t len)
{
	size_t i;

	if (len > OUT_SLOT || tolen > sizeof(out_to[0])) {
		tp_usrsctp_out_flush();
		out_count.calls++;
		if (sendto(out_fd, buf, len, MSG_DONTWAIT, to, tolen) == -1)
			out_count.err++;
		else
			out_count.sent++;
		return 0;
	}
	if (out_n == OUT_SLOTS)
		tp_usrsctp_out_flush();
	i = out_n++;
	memcpy(out_buf[i], buf, len);
	memcpy(&out_to[i], to, tolen);
	out_iov[i].iov_base = out_buf[i];
	out_iov[i].iov_len = len;
	memset(&out_mm[i], 0, sizeof(out_mm[i]));
	out_mm[i].msg_hdr.msg_name = &out_to[i];
	out_mm[i].msg_hdr.msg_namelen = tolen;
	out_mm[i].msg_hdr.msg_iov = &out_iov[i];
	out_mm[i].msg_hdr.msg_iovlen = 1;
	return out_n == 1;
}

void
tp_usrsctp_out_counts(unsigned long *sent, unsigned long *err, unsigned long *calls,
    unsigned long *gso)
{
	*sent = out_count.sent;
	*err = out_count.err;
	*calls = out_count.calls;
	*gso = out_count.gso;
}
