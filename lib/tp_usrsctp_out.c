/* tp_usrsctp_out.c: the threadless usrsctp stack's packets out (tp_usrsctp_nt.c), batched: what
 * the stack emits within one turn of a loop leaves in one sendmmsg. */
#include <errno.h>
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
 */

#define OUT_SLOTS 64
#define OUT_SLOT 2048             /* the stack's packets are at most its MTU, 1452 bytes */

static unsigned char out_buf[OUT_SLOTS][OUT_SLOT];
static struct sockaddr_storage out_to[OUT_SLOTS];
static struct mmsghdr out_mm[OUT_SLOTS];
static struct iovec out_iov[OUT_SLOTS];
static size_t out_n;
static int out_fd = -1;
static struct {
	unsigned long sent, err, calls;
} out_count;

void
tp_usrsctp_out_fd(int fd)
{
	out_fd = fd;
}

size_t
tp_usrsctp_out_queued(void)
{
	return out_n;
}

/* Everything queued, out: as many sendmmsg calls as the kernel takes part of it. */
void
tp_usrsctp_out_flush(void)
{
	size_t off = 0;
	int n;

	while (off < out_n) {
		n = sendmmsg(out_fd, out_mm + off, (unsigned)(out_n - off), MSG_DONTWAIT);
		out_count.calls++;
		if (n <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			out_count.err++; /* the first refused (full buffer): dropped, then the rest */
			off++;
			continue;
		}
		out_count.sent += (unsigned long)n;
		off += (size_t)n;
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
tp_usrsctp_out_counts(unsigned long *sent, unsigned long *err, unsigned long *calls)
{
	*sent = out_count.sent;
	*err = out_count.err;
	*calls = out_count.calls;
}
