/* test_udp_gro.c: UDP GRO buffers cut back into datagrams (lib/tp/usrsctp/tp_udp_gro.c): the cut at
 * exact sizes and their boundaries, then on this kernel's loopback with real sockets: a GSO
 * message of 5 x 1000 + 300 bytes to a socket with UDP_GRO comes in as one buffer of 5300
 * bytes with a size of 1000, cut back into the 6 datagrams byte for byte; the same to a
 * socket without it (the fallback) comes in as 6 datagrams. Skipped where the kernel has no
 * UDP GSO or GRO. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/tp/usrsctp/tp_udp_gro.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

static unsigned char buf[65536];

static void
test_split_sizes(void **state)
{
	struct iovec v[70];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	/* 5 x 1000 + 300: six, the last short */
	assert_int_equal(tp_udp_gro_split(buf, 5300, 1000, v, 70), 6);
	for (i = 0; i < 5; i++) {
		assert_ptr_equal(v[i].iov_base, buf + i * 1000);
		assert_int_equal(v[i].iov_len, 1000);
	}
	assert_ptr_equal(v[5].iov_base, buf + 5000);
	assert_int_equal(v[5].iov_len, 300);
	/* a whole multiple: no empty one after */
	assert_int_equal(tp_udp_gro_split(buf, 4000, 1000, v, 70), 4);
	assert_int_equal(v[3].iov_len, 1000);
	/* one byte over: one of 1 byte */
	assert_int_equal(tp_udp_gro_split(buf, 4001, 1000, v, 70), 5);
	assert_int_equal(v[4].iov_len, 1);
	assert_ptr_equal(v[4].iov_base, buf + 4000);
	/* no size (no GRO), or a size no smaller than the buffer: one datagram */
	assert_int_equal(tp_udp_gro_split(buf, 1452, 0, v, 70), 1);
	assert_int_equal(v[0].iov_len, 1452);
	assert_int_equal(tp_udp_gro_split(buf, 1452, 1452, v, 70), 1);
	assert_int_equal(v[0].iov_len, 1452);
	assert_int_equal(tp_udp_gro_split(buf, 1000, 1452, v, 70), 1);
	/* 64 segments of 1000 in 65000 bytes, counted past a short out: none written past it */
	memset(v, 0, sizeof(v));
	assert_int_equal(tp_udp_gro_split(buf, 64000, 1000, v, 3), 64);
	assert_int_equal(v[2].iov_len, 1000);
	assert_null(v[3].iov_base);
	assert_int_equal(v[3].iov_len, 0);
}

static int
udp_socket(struct sockaddr_in *a)
{
	socklen_t l = sizeof(*a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)a, sizeof(*a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)a, &l), 0);
	return fd;
}

/* One GSO message of 5 x 1000 + 300 bytes from a fresh socket to to; -1: no GSO here. */
static int
gso_send(const struct sockaddr_in *to, const unsigned char *p)
{
	struct sockaddr_in me;
	int fd = udp_socket(&me), rc;
	uint16_t s = 1000;
	union { char b[CMSG_SPACE(sizeof(uint16_t))]; struct cmsghdr a; } c;
	struct iovec v = { (void *)p, 5300 };
	struct msghdr h;
	struct cmsghdr *cm;

	memset(&h, 0, sizeof(h));
	h.msg_name = (void *)to;
	h.msg_namelen = sizeof(*to);
	h.msg_iov = &v;
	h.msg_iovlen = 1;
	h.msg_control = c.b;
	h.msg_controllen = sizeof(c.b);
	cm = CMSG_FIRSTHDR(&h);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(s));
	memcpy(CMSG_DATA(cm), &s, sizeof(s));
	rc = sendmsg(fd, &h, 0) == 5300 ? 0 : -1;
	close(fd);
	return rc;
}

static ssize_t
recv_one(int fd, unsigned char *p, size_t len, size_t *seg)
{
	char c[TP_UDP_GRO_CMSG];
	struct iovec v = { p, len };
	struct msghdr h;
	ssize_t n;

	memset(&h, 0, sizeof(h));
	h.msg_iov = &v;
	h.msg_iovlen = 1;
	h.msg_control = c;
	h.msg_controllen = sizeof(c);
	n = recvmsg(fd, &h, MSG_DONTWAIT);
	*seg = n > 0 ? tp_udp_gro_size(&h) : 0;
	return n;
}

static void
test_loopback(void **state)
{
	static unsigned char in[65536];
	struct sockaddr_in a, b;
	struct iovec v[8];
	size_t seg, i, k;
	ssize_t n;
	int gro = udp_socket(&a), plain = udp_socket(&b);

	(void)state;
	for (i = 0; i < 5300; i++)
		buf[i] = (unsigned char)(i * 13 + i / 1000);
	if (tp_udp_gro_on(gro) == -1 || gso_send(&a, buf) == -1) {
		printf("# this kernel has no UDP GSO or GRO (%s): the loopback half skipped\n",
		    strerror(errno));
		close(gro);
		close(plain);
		skip();
	}
	usleep(10000);
	n = recv_one(gro, in, sizeof(in), &seg);
	assert_int_equal(n, 5300);            /* one buffer */
	assert_int_equal(seg, 1000);          /* its segments' size */
	assert_int_equal(recv_one(gro, in + 5300, 100, &k), -1); /* and nothing more */
	assert_int_equal(tp_udp_gro_split(in, (size_t)n, seg, v, 8), 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(v[i].iov_len, i < 5 ? 1000 : 300);
		assert_memory_equal(v[i].iov_base, buf + i * 1000, v[i].iov_len);
	}
	/* the fallback: without UDP_GRO the kernel cuts it, six datagrams, no size */
	assert_int_equal(gso_send(&b, buf), 0);
	usleep(10000);
	for (i = 0; i < 6; i++) {
		n = recv_one(plain, in, sizeof(in), &seg);
		assert_int_equal(n, i < 5 ? 1000 : 300);
		assert_int_equal(seg, 0);
		assert_memory_equal(in, buf + i * 1000, (size_t)n);
	}
	assert_int_equal(recv_one(plain, in, sizeof(in), &seg), -1);
	close(gro);
	close(plain);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_sizes),
		cmocka_unit_test(test_loopback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
