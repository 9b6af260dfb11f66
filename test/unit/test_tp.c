/* test_tp.c: the same echo tests against any transport type: test_tp TYPE [ADDR]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ev.h"
#include "tp.h"

#define BIG (1024 * 1024)

static const char *type_name;
static const char *listen_addr;
static const struct tp_type *type;
static struct ev_loop *loop;

/* The echo server: each message comes back whole, on its stream, with its flags and PPID. */
struct echo {
	struct tp_conn *c;
	unsigned char *in;
	size_t inlen;
	struct tp_msginfo mi;
	unsigned char *out;
	size_t outlen, outoff;
	struct tp_msginfo outmi;
	int closed;
};

static struct tp_listener *srv;
static struct echo *echoes[64];
static int nechoes;
static int close_after_first; /* server drops the connection on its first message */
static int stall_server;      /* server accepts but never reads */
static int frame_hdr;         /* framed types: the length prefix both sides use (0: default) */
static char last_local[64];    /* where the last server listened */

static void echo_ev(struct tp_conn *c, unsigned events, void *arg);

static void
echo_free(struct echo *e)
{
	int i;

	for (i = 0; i < nechoes; i++)
		if (echoes[i] == e)
			echoes[i] = echoes[--nechoes];
	tp_conn_free(e->c);
	free(e->in);
	free(e->out);
	free(e);
}

static int
echo_flush(struct echo *e)
{
	while (e->outoff < e->outlen) {
		size_t sent = 0;
		int rc = tp_send(e->c, e->out + e->outoff, e->outlen - e->outoff, &e->outmi, &sent);
		if (rc == TP_RETRY) {
			tp_rewatch(e->c, EV_WRITE);
			return TP_RETRY;
		}
		if (rc != TP_OK)
			return TP_ERROR;
		e->outoff += sent;
	}
	e->outoff = e->outlen = 0;
	tp_rewatch(e->c, EV_READ);
	return TP_OK;
}

static void
echo_ev(struct tp_conn *c, unsigned events, void *arg)
{
	struct echo *e = arg;
	int rc;

	(void)events;
	(void)c;
	if (stall_server) {
		tp_rewatch(c, 0);
		return;
	}
	if (e->outlen > 0) {
		rc = echo_flush(e);
		if (rc == TP_ERROR)
			goto gone;
		if (rc == TP_RETRY)
			return;
	}
	for (;;) {
		struct tp_msginfo mi;
		size_t got = 0;
		rc = tp_recv(e->c, e->in + e->inlen, 2 * BIG - e->inlen, &mi, &got);
		if (rc == TP_RETRY)
			return;
		if (rc != TP_OK)
			goto gone;
		if (close_after_first)
			goto gone;
		e->inlen += got;
		e->mi = mi;
		if (!(mi.flags & TP_F_EOR) && e->inlen < 2 * BIG)
			continue;
		/* A whole message (or, on a stream type, whatever arrived): send it back. */
		memcpy(e->out, e->in, e->inlen);
		e->outlen = e->inlen;
		e->outoff = 0;
		e->outmi = mi;
		e->outmi.flags &= TP_F_UNORDERED;
		e->inlen = 0;
		rc = echo_flush(e);
		if (rc == TP_ERROR)
			goto gone;
		if (rc == TP_RETRY)
			return;
	}
gone:
	echo_free(e);
}

static void
srv_accept(struct tp_listener *l, void *arg)
{
	struct tp_conn *c;
	struct echo *e;

	(void)arg;
	while (tp_accept(l, &c) == TP_OK) {
		e = calloc(1, sizeof(*e));
		assert_non_null(e);
		e->c = c;
		e->in = malloc(2 * BIG);
		e->out = malloc(2 * BIG);
		assert_true(e->in && e->out && nechoes < 64);
		echoes[nechoes++] = e;
		assert_int_equal(tp_watch(c, loop, EV_READ, echo_ev, e), TP_OK);
	}
}

/* usrsctp: one UDP port per process; TEST_UDP_PORT keeps parallel test runs apart. */
static void
opts_init(struct tp_opts *o)
{
	const char *p = getenv("TEST_UDP_PORT");

	tp_opts_init(o);
	if (p != NULL)
		o->udp_port = o->udp_remote_port = (uint16_t)atoi(p);
}

static int
srv_start(uint16_t streams)
{
	char err[TP_ERRLEN];
	struct tp_opts o;

	opts_init(&o);
	o.streams = streams;
	o.sndbuf = o.rcvbuf = 4 * BIG;
	if (frame_hdr)
		o.frame_hdr = frame_hdr;
	srv = tp_listen(type_name, listen_addr, &o, err, sizeof(err));
	if (srv == NULL) {
		print_error("listen: %s\n", err);
		return -1;
	}
	return tp_listener_watch(srv, loop, srv_accept, NULL) == TP_OK ? 0 : -1;
}

static void
srv_stop(void)
{
	while (nechoes > 0)
		echo_free(echoes[0]);
	if (srv != NULL)
		snprintf(last_local, sizeof(last_local), "%s", srv->local);
	tp_listener_free(srv);
	srv = NULL;
	close_after_first = 0;
	stall_server = 0;
	frame_hdr = 0;
}

/* The client side runs in the same loop as the server, one step at a time. */
static unsigned client_events;

static void
client_ev(struct tp_conn *c, unsigned events, void *arg)
{
	(void)c;
	(void)arg;
	client_events |= events;
}

static void
step(void)
{
	client_events = 0;
	ev_run_once(loop, 50);
}

static struct tp_conn *
client_open(uint16_t streams, char *err, size_t errlen)
{
	struct tp_conn *c;
	struct tp_opts o;
	uint64_t end = ev_clock_us() + 20000000;
	int rc;

	opts_init(&o);
	o.streams = streams;
	o.sndbuf = o.rcvbuf = 4 * BIG;
	if (frame_hdr)
		o.frame_hdr = frame_hdr;
	if ((c = tp_connect(type_name, srv ? srv->local : last_local, &o, err, errlen)) == NULL)
		return NULL;
	tp_watch(c, loop, EV_WRITE, client_ev, NULL);
	while ((rc = tp_finish(c)) == TP_RETRY && ev_clock_us() < end)
		step();
	if (rc != TP_OK) {
		snprintf(err, errlen, "%s", rc == TP_RETRY ? "connect timed out" : c->err);
		tp_conn_free(c);
		return NULL;
	}
	tp_rewatch(c, EV_READ);
	return c;
}

static void
client_send(struct tp_conn *c, const void *buf, size_t len, const struct tp_msginfo *mi)
{
	size_t off = 0;
	uint64_t end = ev_clock_us() + 30000000;

	while (off < len || len == 0) {
		size_t sent = 0;
		int rc = tp_send(c, (const char *)buf + off, len - off, mi, &sent);
		if (rc == TP_RETRY) {
			tp_rewatch(c, EV_READ | EV_WRITE);
			step();
			assert_true(ev_clock_us() < end);
			continue;
		}
		if (rc != TP_OK)
			fail_msg("send: %s", c->err);
		off += sent;
		if (len == 0)
			break;
	}
	tp_rewatch(c, EV_READ);
}

/* Read one message (message types: up to its end; stream types: want bytes). */
static size_t
client_recv(struct tp_conn *c, unsigned char *buf, size_t cap, size_t want, struct tp_msginfo *out,
    int *pieces)
{
	size_t len = 0;
	uint64_t end = ev_clock_us() + 30000000;

	*pieces = 0;
	for (;;) {
		struct tp_msginfo mi;
		size_t got = 0;
		int rc = tp_recv(c, buf + len, cap - len, &mi, &got);
		if (rc == TP_RETRY) {
			step();
			if (ev_clock_us() > end)
				fail_msg("timeout waiting for a reply (%zu of %zu bytes)", len, want);
			continue;
		}
		if (rc != TP_OK)
			fail_msg("recv: rc %d: %s", rc, c->err);
		len += got;
		(*pieces)++;
		*out = mi;
		if ((tp_type_caps(type) & TP_CAP_MSG) ? (mi.flags & TP_F_EOR) != 0 : len >= want)
			return len;
		assert_true(len < cap);
	}
}

static void
fill(unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 131u + seed * 7u + (i >> 8)) & 0xff);
}

static int
setup(void **state)
{
	(void)state;
	return srv_start(10);
}

static int
teardown(void **state)
{
	(void)state;
	srv_stop();
	return 0;
}

static void
test_echo_sizes(void **state)
{
	static const size_t sizes[] = { 1, 10, 100, 1000, 10000, 65536, 300000, BIG };
	unsigned char *tx = malloc(BIG), *rx = malloc(2 * BIG);
	char err[TP_ERRLEN];
	struct tp_conn *c;
	size_t i;

	(void)state;
	assert_true(tx && rx);
	c = client_open(10, err, sizeof(err));
	if (c == NULL)
		fail_msg("connect: %s", err);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct tp_msginfo mi = { 0 }, got;
		int pieces;
		size_t n;
		fill(tx, sizes[i], (unsigned)i);
		client_send(c, tx, sizes[i], &mi);
		n = client_recv(c, rx, 2 * BIG, sizes[i], &got, &pieces);
		assert_int_equal(n, sizes[i]);
		assert_memory_equal(tx, rx, sizes[i]);
	}
	tp_conn_free(c);
	free(tx);
	free(rx);
}

static void
test_boundaries(void **state)
{
	unsigned char a[5], b[700], d[9], rx[2048];
	struct tp_msginfo mi = { 0 }, got;
	char err[TP_ERRLEN];
	struct tp_conn *c;
	int pieces;
	size_t n;

	(void)state;
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	fill(d, sizeof(d), 3);
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	/* Three messages back to back, before reading any reply. */
	client_send(c, a, sizeof(a), &mi);
	client_send(c, b, sizeof(b), &mi);
	client_send(c, d, sizeof(d), &mi);
	if (tp_type_caps(type) & TP_CAP_MSG) {
		n = client_recv(c, rx, sizeof(rx), sizeof(a), &got, &pieces);
		assert_int_equal(n, sizeof(a));
		assert_memory_equal(rx, a, sizeof(a));
		n = client_recv(c, rx, sizeof(rx), sizeof(b), &got, &pieces);
		assert_int_equal(n, sizeof(b));
		assert_memory_equal(rx, b, sizeof(b));
		n = client_recv(c, rx, sizeof(rx), sizeof(d), &got, &pieces);
		assert_int_equal(n, sizeof(d));
		assert_memory_equal(rx, d, sizeof(d));
	} else {
		/* A byte stream keeps the bytes and their order, not the boundaries. */
		n = client_recv(c, rx, sizeof(rx), sizeof(a) + sizeof(b) + sizeof(d), &got, &pieces);
		assert_int_equal(n, sizeof(a) + sizeof(b) + sizeof(d));
		assert_memory_equal(rx, a, sizeof(a));
		assert_memory_equal(rx + sizeof(a), b, sizeof(b));
		assert_memory_equal(rx + sizeof(a) + sizeof(b), d, sizeof(d));
	}
	tp_conn_free(c);
}

/* A message read with a small buffer comes in pieces, the last one flagged. */
static void
test_pieces(void **state)
{
	unsigned char tx[3000], rx[3000];
	struct tp_msginfo mi = { 0 }, got;
	char err[TP_ERRLEN];
	struct tp_conn *c;
	size_t len = 0;
	int n = 0;

	(void)state;
	fill(tx, sizeof(tx), 9);
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	client_send(c, tx, sizeof(tx), &mi);
	while (len < sizeof(tx)) {
		size_t g = 0;
		int rc = tp_recv(c, rx + len, 1000, &got, &g);
		if (rc == TP_RETRY) {
			step();
			continue;
		}
		assert_int_equal(rc, TP_OK);
		assert_true(g <= 1000);
		len += g;
		n++;
		if (tp_type_caps(type) & TP_CAP_MSG)
			assert_int_equal((got.flags & TP_F_EOR) != 0, len == sizeof(tx));
	}
	assert_int_equal(len, sizeof(tx));
	assert_true(n >= 3);
	assert_memory_equal(tx, rx, sizeof(tx));
	tp_conn_free(c);
}

static void
test_streams_ppid_unordered(void **state)
{
	unsigned char tx[100], rx[200];
	char err[TP_ERRLEN];
	struct tp_conn *c;
	uint16_t s;

	(void)state;
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	if (!(tp_type_caps(type) & TP_CAP_STREAMS)) {
		/* One stream only: what a message carries besides its bytes is not kept. */
		assert_int_equal(c->streams_out, 1);
		assert_int_equal(c->streams_in, 1);
		tp_conn_free(c);
		return;
	}
	assert_int_equal(c->streams_out, 10);
	for (s = 0; s < 10; s++) {
		struct tp_msginfo mi = { 0 }, got;
		int pieces;
		mi.stream = s;
		mi.ppid = 63 + s;
		mi.flags = (s & 1) ? TP_F_UNORDERED : 0;
		fill(tx, sizeof(tx), s);
		client_send(c, tx, sizeof(tx), &mi);
		assert_int_equal(client_recv(c, rx, sizeof(rx), sizeof(tx), &got, &pieces),
		    sizeof(tx));
		assert_memory_equal(tx, rx, sizeof(tx));
		assert_int_equal(got.stream, s);
		if (tp_type_caps(type) & TP_CAP_PPID)
			assert_int_equal(got.ppid, 63 + s);
		if (tp_type_caps(type) & TP_CAP_UNORDERED)
			assert_int_equal((got.flags & TP_F_UNORDERED) != 0, (s & 1) != 0);
	}
	tp_conn_free(c);
}

/* A message with a lifetime still arrives on a loss-free path. */
static void
test_prsctp(void **state)
{
	unsigned char tx[500], rx[600];
	struct tp_msginfo mi = { 0 }, got;
	char err[TP_ERRLEN];
	struct tp_conn *c;
	int pieces;

	(void)state;
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	mi.lifetime_ms = 200;
	mi.flags = TP_F_UNORDERED;
	fill(tx, sizeof(tx), 4);
	client_send(c, tx, sizeof(tx), &mi);
	assert_int_equal(client_recv(c, rx, sizeof(rx), sizeof(tx), &got, &pieces), sizeof(tx));
	assert_memory_equal(tx, rx, sizeof(tx));
	tp_conn_free(c);
}

/* The server grants 4 streams, the client asks for 10: reported, and stream 7 is refused. */
static void
test_fewer_streams(void **state)
{
	unsigned char tx[10] = "0123456789", rx[20];
	struct tp_msginfo mi = { 0 }, got;
	char err[TP_ERRLEN];
	struct tp_conn *c;
	size_t sent;
	int pieces;

	(void)state;
	srv_stop();
	assert_int_equal(srv_start(4), 0);
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	if (!(tp_type_caps(type) & TP_CAP_STREAMS)) {
		assert_int_equal(c->streams_out, 1);
		tp_conn_free(c);
		return;
	}
	assert_int_equal(c->streams_asked, 10);
	assert_int_equal(c->streams_out, 4);
	mi.stream = 7;
	assert_int_equal(tp_send(c, tx, sizeof(tx), &mi, &sent), TP_ERROR);
	assert_non_null(strstr(c->err, "stream"));
	mi.stream = 3;
	client_send(c, tx, sizeof(tx), &mi);
	assert_int_equal(client_recv(c, rx, sizeof(rx), sizeof(tx), &got, &pieces), sizeof(tx));
	assert_int_equal(got.stream, 3);
	tp_conn_free(c);
}

/* A connection whose peer (the server) drops it on the first message, which is sent. */
static struct tp_conn *
client_to_gone_peer(unsigned char *tx, size_t len, unsigned seed)
{
	struct tp_msginfo mi = { 0 };
	char err[TP_ERRLEN];
	struct tp_conn *c;

	close_after_first = 1;
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	fill(tx, len, seed);
	client_send(c, tx, len, &mi);
	return c;
}

/* The peer goes away mid-transfer: recv says so (EOF or error), never hangs or crashes. */
static void
test_peer_gone(void **state)
{
	unsigned char tx[1000];
	struct tp_msginfo mi = { 0 };
	struct tp_conn *c;
	uint64_t end = ev_clock_us() + 30000000;
	int rc = TP_RETRY;

	(void)state;
	c = client_to_gone_peer(tx, sizeof(tx), 5);
	while (ev_clock_us() < end) {
		unsigned char rx[100];
		size_t got;
		rc = tp_recv(c, rx, sizeof(rx), &mi, &got);
		if (rc != TP_RETRY)
			break;
		step();
	}
	assert_true(rc == TP_EOF || rc == TP_ERROR);
	tp_conn_free(c);
}

/* tp_send after the peer is gone: TP_ERROR with a reason, never TP_RETRY for ever. */
static void
test_send_peer_gone(void **state)
{
	unsigned char tx[1000];
	struct tp_msginfo mi = { 0 };
	struct tp_conn *c;
	uint64_t end = ev_clock_us() + 10000000;
	int rc = TP_RETRY, sends = 0;

	(void)state;
	c = client_to_gone_peer(tx, sizeof(tx), 6);
	while (ev_clock_us() < end) {
		size_t sent = 0;
		rc = tp_send(c, tx, sizeof(tx), &mi, &sent);
		if (rc == TP_ERROR)
			break;
		assert_true(rc == TP_OK || rc == TP_RETRY);
		sends += rc == TP_OK;
		step();
	}
	print_message("# send after the peer left: %d taken, then: %s\n", sends, c->err);
	assert_int_equal(rc, TP_ERROR);
	assert_true(strlen(c->err) > 0);
	tp_conn_free(c);
}

/* A length prefix per message over a byte stream (tcpm, unixm): messages, but not SCTP's. */
static int
type_is_framed(void)
{
	return (tp_type_caps(type) & TP_CAP_MSG) && !(tp_type_caps(type) & TP_CAP_STREAMS);
}

/* RFC 4571's 2-byte prefix: 65535 bytes go through whole, 65536 are a clear error (not a
 * length of 0 that puts the stream out of step), and the stream goes on after it. */
static void
test_frame_limit(void **state)
{
	static const size_t sizes[] = { 65535, 1, 65534 };
	unsigned char *tx = malloc(65537), *rx = malloc(2 * BIG);
	struct tp_msginfo mi = { 0 }, got;
	char err[TP_ERRLEN];
	struct tp_conn *c;
	size_t i, sent = 1;
	int pieces;

	(void)state;
	if (!type_is_framed()) {
		free(tx);
		free(rx);
		return;
	}
	assert_true(tx && rx);
	srv_stop();
	frame_hdr = 2;
	assert_int_equal(srv_start(10), 0);
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	fill(tx, 65537, 11);
	assert_int_equal(tp_send(c, tx, 65536, &mi, &sent), TP_ERROR);
	assert_int_equal(sent, 0);
	assert_non_null(strstr(c->err, "exceeds the 2-byte length prefix"));
	assert_int_equal(tp_send(c, tx, 65537, &mi, &sent), TP_ERROR);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		client_send(c, tx, sizes[i], &mi);
		assert_int_equal(client_recv(c, rx, 2 * BIG, sizes[i], &got, &pieces), sizes[i]);
		assert_memory_equal(tx, rx, sizes[i]);
	}
	tp_conn_free(c);
	free(tx);
	free(rx);
}

/* The framing layer queues what the socket did not take; when the peer goes away with that
 * queue not empty, the flush's error reaches the next tp_send as TP_ERROR. */
static void
test_frame_flush_error(void **state)
{
	unsigned char *tx = malloc(BIG);
	struct tp_msginfo mi = { 0 };
	char err[TP_ERRLEN];
	struct tp_conn *c;
	uint64_t end = ev_clock_us() + 10000000;
	size_t sent;
	int rc = TP_OK, n = 0;

	(void)state;
	if (!type_is_framed()) {
		free(tx);
		return;
	}
	assert_non_null(tx);
	stall_server = 1;
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	fill(tx, BIG, 12);
	/* Whole messages are taken until the socket is full and the rest of one waits. */
	while ((rc = tp_send(c, tx, BIG, &mi, &sent)) == TP_OK && n < 200) {
		n++;
		step();
	}
	assert_int_equal(rc, TP_RETRY);
	assert_true(n > 0 && nechoes == 1);
	echo_free(echoes[0]); /* unread data: the peer resets */
	while (ev_clock_us() < end) {
		rc = tp_send(c, tx, 10, &mi, &sent);
		if (rc == TP_ERROR)
			break;
		step();
	}
	print_message("# %d messages taken, then: %s\n", n, c->err);
	assert_int_equal(rc, TP_ERROR);
	assert_non_null(strstr(c->err, "send"));
	tp_conn_free(c);
	free(tx);
}

/* Messages taken while the socket was full wait in the framing layer's queue: once the peer
 * reads again they arrive whole, in order, byte for byte. */
static void
test_frame_backpressure(void **state)
{
	unsigned char *tx = malloc(BIG), *rx = malloc(2 * BIG);
	struct tp_msginfo mi = { 0 }, got;
	char err[TP_ERRLEN];
	struct tp_conn *c;
	size_t sent;
	int rc, n = 0, i, pieces;

	(void)state;
	if (!type_is_framed()) {
		free(tx);
		free(rx);
		return;
	}
	assert_true(tx && rx);
	stall_server = 1;
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	do {
		fill(tx, BIG, 20u + (unsigned)n);
		if ((rc = tp_send(c, tx, BIG, &mi, &sent)) == TP_OK)
			n++;
		step();
	} while (rc == TP_OK && n < 200);
	assert_int_equal(rc, TP_RETRY);
	assert_true(n > 1 && nechoes == 1);
	stall_server = 0;
	assert_int_equal(tp_watch(echoes[0]->c, loop, EV_READ, echo_ev, echoes[0]), TP_OK);
	for (i = 0; i < n; i++) {
		assert_int_equal(client_recv(c, rx, 2 * BIG, BIG, &got, &pieces), BIG);
		fill(tx, BIG, 20u + (unsigned)i);
		assert_memory_equal(tx, rx, BIG);
	}
	print_message("# %d messages queued behind a full socket, all back intact\n", n);
	tp_conn_free(c);
	free(tx);
	free(rx);
}

static void
test_refused(void **state)
{
	char err[TP_ERRLEN];
	struct tp_conn *c;
	(void)state;
	srv_stop();
	c = client_open(10, err, sizeof(err));
	assert_null(c);
	assert_true(strlen(err) > 0);
	print_message("# refused: %s\n", err);
	assert_int_equal(srv_start(10), 0);
}

static void
test_addr_in_use(void **state)
{
	char err[TP_ERRLEN];
	struct tp_listener *l2;

	(void)state;
	l2 = tp_listen(type_name, srv->local, &srv->opts, err, sizeof(err));
	assert_null(l2);
	assert_non_null(strstr(err, "in use"));
	print_message("# in use: %s\n", err);
}

static void
test_bad_input(void **state)
{
	char err[TP_ERRLEN];

	(void)state;
	assert_null(tp_connect("nosuch", "127.0.0.1:1", NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "unknown transport 'nosuch'"));
	assert_null(tp_listen(type_name, strncmp(type_name, "unix", 4) ? "no-such-host.invalid:80" :
	    "", NULL, err, sizeof(err)));
	assert_true(strlen(err) > 0);
}

/* The initial RTO asked for: the given one, else the stack's (0) within the bounds given. */
/* A loop that watched a connection and watches it no more ends ev_run at once: nothing of the
 * transport keeps it (usrsctp-nt's tick, strong while the loop watches a socket of the stack,
 * is weak from the unwatch on, not from its next firing 10 ms later). The least of 5. */
static void
test_unwatch_ends_run(void **state)
{
	char err[TP_ERRLEN];
	struct ev_loop *l2;
	struct tp_conn *c;
	uint64_t least = UINT64_MAX, t;
	int i;

	(void)state;
	if ((c = client_open(10, err, sizeof(err))) == NULL)
		fail_msg("connect: %s", err);
	assert_non_null(l2 = ev_new(err, sizeof(err)));
	for (i = 0; i < 5; i++) {
		assert_int_equal(tp_watch(c, l2, EV_READ, client_ev, NULL), TP_OK);
		assert_int_equal(tp_watch(c, l2, 0, NULL, NULL), TP_OK);
		t = ev_clock_us();
		assert_int_equal(ev_run(l2), 0);
		t = ev_clock_us() - t;
		if (t < least)
			least = t;
	}
	if (least >= 3000)
		fail_msg("ev_run of a loop that watches nothing took %llu us (least of 5)",
		    (unsigned long long)least);
	ev_free(l2);
	tp_conn_free(c);
}

static void
test_rto_initial(void **state)
{
	struct tp_opts o;

	(void)state;
	tp_opts_init(&o);
	assert_int_equal(tp_rto_initial_ms(&o), 0);
	o.rto_min_ms = 200;
	assert_int_equal(tp_rto_initial_ms(&o), 0);
	o.rto_max_ms = 400;
	assert_int_equal(tp_rto_initial_ms(&o), 400);
	o.rto_min_ms = 5000, o.rto_max_ms = 0;
	assert_int_equal(tp_rto_initial_ms(&o), 5000);
	o.rto_initial_ms = 700;
	assert_int_equal(tp_rto_initial_ms(&o), 700);
}

int
main(int argc, char **argv)
{
	static char unixpath[128];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_echo_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boundaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pieces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_streams_ppid_unordered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prsctp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fewer_streams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_peer_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_flush_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_backpressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_addr_in_use, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwatch_ends_run, setup, teardown),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_rto_initial),
	};
	char err[TP_ERRLEN], group[64];

	if (argc < 2) {
		fprintf(stderr, "usage: test_tp TYPE [LISTEN-ADDR]\n");
		return 2;
	}
	type_name = argv[1];
	if ((type = tp_type_find(type_name)) == NULL) {
		fprintf(stderr, "test_tp: unknown transport '%s'\n", type_name);
		return 2;
	}
	if (argc > 2) {
		listen_addr = argv[2];
	} else if (strncmp(type_name, "unix", 4) == 0) {
		snprintf(unixpath, sizeof(unixpath), "/tmp/test_tp.%ld.sock", (long)getpid());
		listen_addr = unixpath;
	} else {
		listen_addr = "127.0.0.1:0";
	}
	if ((loop = ev_new(err, sizeof(err))) == NULL) {
		fprintf(stderr, "test_tp: %s\n", err);
		return 2;
	}
	snprintf(group, sizeof(group), "tp_%s", type_name);
	return _cmocka_run_group_tests(group, tests, sizeof(tests) / sizeof(tests[0]), NULL, NULL);
}
