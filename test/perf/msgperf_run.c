/* msgperf_run.c: the measuring engines, both sides on the event loop: full-duplex throughput and
 * request/response latency, over any transport type. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ev.h"
#include "msgperf.h"

#define MP_BATCH 64 /* messages per turn and direction, so neither direction starves the other */
/* Setting up may take long on a lossy link: SCTP's handshake waits out its initial RTO (3 s,
 * doubling) for each lost INIT or COOKIE ECHO; at 10 % loss both ways two of them lost (one
 * setup in 30 or so) already take 9 s. */
#define MP_CONNECT_MS 60000

/* One side of a measurement: a connection that sends and receives messages of one size. */
struct mp_io {
	struct tp_conn *c;
	enum mp_test test;
	size_t size;
	unsigned char *tx, *rx;
	size_t txoff;         /* bytes of the current outgoing message already taken */
	size_t have;          /* bytes of the current incoming message */
	uint64_t seq;         /* messages sent */
	uint64_t rxbytes;
	uint16_t streams;     /* round-robin over this many streams */
	uint16_t stream;      /* stream of the last message received */
	unsigned flags;       /* TP_F_UNORDERED or 0 */
	int done;             /* the peer ended or failed */
	int failed;
};

static int
mp_io_init(struct mp_io *io, struct tp_conn *c, enum mp_test test, size_t size)
{
	size_t i, cap = size < 65536 ? 65536 : size;

	memset(io, 0, sizeof(*io));
	io->c = c;
	io->test = test;
	io->size = size;
	io->streams = 1;
	if ((io->tx = malloc(cap)) == NULL || (io->rx = malloc(cap)) == NULL)
		return -1;
	for (i = 0; i < size; i++)
		io->tx[i] = (unsigned char)('a' + i % 26);
	return 0;
}

static void
mp_io_free(struct mp_io *io)
{
	free(io->tx);
	free(io->rx);
	io->tx = io->rx = NULL;
}

/* Send one message (or the rest of it); TP_OK when it was taken whole. */
static int
mp_io_send_one(struct mp_io *io, uint16_t stream)
{
	struct tp_msginfo mi = { 0 };
	int rc;

	mi.stream = stream;
	mi.flags = io->flags;
	while (io->txoff < io->size) {
		size_t sent = 0;
		if ((rc = tp_send(io->c, io->tx + io->txoff, io->size - io->txoff, &mi, &sent)) !=
		    TP_OK)
			return rc;
		io->txoff += sent;
	}
	io->txoff = 0;
	io->seq++;
	return TP_OK;
}

static int
mp_io_pump_tx(struct mp_io *io)
{
	int i, rc;

	for (i = 0; i < MP_BATCH; i++) {
		uint16_t s = io->streams > 1 ? (uint16_t)(io->seq % io->streams) : 0;
		if ((rc = mp_io_send_one(io, s)) != TP_OK)
			return rc;
	}
	return TP_OK;
}

/* Receive into rx; TP_OK with a whole message in rx (have == its length), or TP_RETRY. In
 * throughput mode bytes are only counted. */
static int
mp_io_recv_one(struct mp_io *io)
{
	size_t cap = io->test == MP_LATENCY ? io->size : (io->size < 65536 ? 65536 : io->size);

	for (;;) {
		struct tp_msginfo mi;
		size_t got = 0;
		int rc;
		if (io->test == MP_LATENCY && io->have >= io->size && !(tp_caps(io->c) & TP_CAP_MSG))
			return TP_OK;
		rc = tp_recv(io->c, io->rx + (io->test == MP_LATENCY ? io->have : 0),
		    io->test == MP_LATENCY ? cap - io->have : cap, &mi, &got);
		if (rc != TP_OK)
			return rc;
		io->rxbytes += got;
		io->stream = mi.stream;
		if (io->test != MP_LATENCY)
			return TP_OK;
		io->have += got;
		if ((tp_caps(io->c) & TP_CAP_MSG) ? (mi.flags & TP_F_EOR) != 0 : io->have >= io->size)
			return TP_OK;
		if (io->have >= io->size) {
			/* A message longer than announced: the peer is not a msgperf. */
			tp_seterr(io->c->err, sizeof(io->c->err), "message longer than %zu bytes",
			    io->size);
			return TP_ERROR;
		}
	}
}

static int
mp_io_drain_rx(struct mp_io *io)
{
	int i, rc;

	for (i = 0; i < MP_BATCH; i++)
		if ((rc = mp_io_recv_one(io)) != TP_OK)
			return rc;
	return TP_OK;
}

/* ---- server ---- */

struct mp_sconn {
	struct mp_io io;
	unsigned char hello[MP_HELLO_LEN];
	size_t hlen;
	int echoing;   /* latency: a reply is being sent */
	int inited;
	struct mp_sconn *next, **prevp;
};

struct mp_srv {
	struct ev_loop *loop;
	struct mp_sconn *conns;
	char *err;
	size_t errlen;
};

static void
mp_sconn_free(struct mp_sconn *s)
{
	if (s->next != NULL)
		s->next->prevp = s->prevp;
	*s->prevp = s->next;
	tp_conn_free(s->io.c);
	mp_io_free(&s->io);
	free(s);
}

static int
mp_hello_parse(struct mp_sconn *s)
{
	const unsigned char *h = s->hello;
	size_t size;
	enum mp_test test;
	struct tp_conn *c = s->io.c;

	if (memcmp(h, "MSGPERF1", 8) != 0 || strchr("TLO", h[8]) == NULL || h[8] == '\0')
		return -1;
	size = (size_t)h[12] << 24 | (size_t)h[13] << 16 | (size_t)h[14] << 8 | h[15];
	if (size == 0 || size > 64u * 1024 * 1024)
		return -1;
	test = h[8] == 'T' ? MP_THROUGHPUT : h[8] == 'O' ? MP_ONEWAY : MP_LATENCY;
	if (mp_io_init(&s->io, c, test, size) == -1)
		return -1;
	s->io.streams = (uint16_t)(h[9] << 8 | h[10]);
	s->io.flags = h[11] ? TP_F_UNORDERED : 0;
	if (s->io.streams > c->streams_out)
		s->io.streams = c->streams_out;
	if (s->io.streams == 0)
		s->io.streams = 1;
	s->inited = 1;
	/* One-way: the server is the source, the client only receives and counts. */
	return tp_rewatch(c, test == MP_LATENCY ? EV_READ : EV_READ | EV_WRITE) == TP_OK ? 0 : -1;
}

static void
mp_sconn_ev(struct tp_conn *c, unsigned events, void *arg)
{
	struct mp_sconn *s = arg;
	int rc = TP_OK;

	(void)c;
	while (!s->inited) {
		struct tp_msginfo mi;
		size_t got = 0;
		rc = tp_recv(s->io.c, s->hello + s->hlen, MP_HELLO_LEN - s->hlen, &mi, &got);
		if (rc == TP_RETRY)
			return;
		if (rc != TP_OK)
			goto gone;
		s->hlen += got;
		if (s->hlen == MP_HELLO_LEN && mp_hello_parse(s) == -1)
			goto gone;
	}
	if (s->io.test != MP_LATENCY) {
		if ((events & EV_READ) && (rc = mp_io_drain_rx(&s->io)) != TP_RETRY && rc != TP_OK)
			goto gone;
		if ((events & EV_WRITE) && (rc = mp_io_pump_tx(&s->io)) != TP_RETRY && rc != TP_OK)
			goto gone;
		return;
	}
	for (;;) {
		if (!s->echoing) {
			if ((rc = mp_io_recv_one(&s->io)) == TP_RETRY)
				return;
			if (rc != TP_OK)
				goto gone;
			s->echoing = 1;
			memcpy(s->io.tx, s->io.rx, s->io.size);
		}
		/* The reply goes back on the stream of the request. */
		rc = mp_io_send_one(&s->io, s->io.stream);
		if (rc == TP_RETRY) {
			tp_rewatch(s->io.c, EV_WRITE);
			return;
		}
		if (rc != TP_OK)
			goto gone;
		s->echoing = 0;
		s->io.have = 0;
		tp_rewatch(s->io.c, EV_READ);
	}
gone:
	mp_sconn_free(s);
}

static void
mp_srv_accept(struct tp_listener *l, void *arg)
{
	struct mp_srv *srv = arg;
	struct tp_conn *c;
	struct mp_sconn *s;
	int rc;

	while ((rc = tp_accept(l, &c)) == TP_OK) {
		if ((s = calloc(1, sizeof(*s))) == NULL) {
			tp_conn_free(c);
			continue;
		}
		s->io.c = c;
		s->next = srv->conns;
		if (s->next != NULL)
			s->next->prevp = &s->next;
		s->prevp = &srv->conns;
		srv->conns = s;
		if (tp_watch(c, srv->loop, EV_READ, mp_sconn_ev, s) != TP_OK)
			mp_sconn_free(s);
	}
	if (rc == TP_ERROR)
		fprintf(stderr, "msgperf server: accept: %s\n", l->err);
}

/* Serve until killed. ready_fd (if >= 0) gets the bound address and a newline once listening. */
int
mp_server(const char *type, const char *addr, const struct tp_opts *o, int ready_fd, char *err,
    size_t errlen)
{
	struct tp_listener *l = NULL;
	struct mp_srv srv = { 0 };
	int rc = -1;

	if ((srv.loop = ev_new(err, errlen)) == NULL)
		goto out;
	if ((l = tp_listen(type, addr, o, err, errlen)) == NULL)
		goto out;
	if (tp_listener_watch(l, srv.loop, mp_srv_accept, &srv) != TP_OK) {
		tp_seterr(err, errlen, "%s", l->err);
		goto out;
	}
	if (ready_fd >= 0) {
		dprintf(ready_fd, "%s\n", l->local);
		close(ready_fd);
	}
	rc = ev_run(srv.loop);
	while (srv.conns != NULL)
		mp_sconn_free(srv.conns);
out:
	tp_listener_free(l);
	ev_free(srv.loop);
	return rc;
}

/* ---- client ---- */

struct mp_cli {
	struct mp_io io;
	struct ev_loop *loop;
	struct ev_timer end;
	struct ev_timer tick;    /* --series: one sample per interval */
	FILE *series;
	const char *type;
	uint64_t nticks, tick_us, tick_at, tick_bytes;
	uint64_t t0, t1, sent_at;
	double *rtt;
	size_t nrtt, caprtt;
	int stopped;
};

static void
mp_cli_stop(struct ev_loop *loop, void *arg)
{
	struct mp_cli *cl = arg;

	cl->stopped = 1;
	cl->t1 = ev_clock_us();
	ev_stop(loop);
}

/* One --series sample: the rate received since the last one. Samples are due at t0 + k * interval,
 * so a late wake-up does not shift the ones after it. */
static void
mp_cli_tick(struct ev_loop *loop, void *arg)
{
	struct mp_cli *cl = arg;
	uint64_t now = ev_clock_us(), due;
	struct timespec ts;
	double secs = (double)(now - cl->tick_at) / 1e6;

	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(cl->series, "%s,%zu,%.3f,%.3f,%.1f\n", cl->type, cl->io.size,
	    (double)(now - cl->t0) / 1e6, (double)ts.tv_sec + (double)ts.tv_nsec / 1e9,
	    secs > 0 ? (double)(cl->io.rxbytes - cl->tick_bytes) * 8 / 1000 / secs : 0);
	fflush(cl->series);
	cl->tick_at = now;
	cl->tick_bytes = cl->io.rxbytes;
	due = cl->t0 + ++cl->nticks * cl->tick_us;
	ev_timer_start(loop, &cl->tick, due > now ? due - now : 0, mp_cli_tick, cl);
}

static int
mp_cli_series_open(struct mp_cli *cl, const struct mp_cfg *cfg, char *err, size_t errlen)
{
	if ((cl->series = fopen(cfg->series, "a")) == NULL) {
		tp_seterr(err, errlen, "--series %s: %s", cfg->series, strerror(errno));
		return -1;
	}
	if (ftell(cl->series) == 0)
		fprintf(cl->series, "protocol,size,t_s,epoch_s,kbit_s\n");
	cl->tick_us = (uint64_t)(cfg->interval * 1e6);
	return 0;
}

static void
mp_cli_fail(struct mp_cli *cl)
{
	cl->io.failed = 1;
	cl->t1 = ev_clock_us();
	ev_stop(cl->loop);
}

static int
mp_cli_request(struct mp_cli *cl)
{
	uint16_t s = cl->io.streams > 1 ? (uint16_t)(cl->io.seq % cl->io.streams) : 0;

	cl->sent_at = ev_clock_us();
	return mp_io_send_one(&cl->io, s);
}

static void
mp_cli_ev(struct tp_conn *c, unsigned events, void *arg)
{
	struct mp_cli *cl = arg;
	int rc;

	if (cl->stopped)
		return;
	if (cl->io.test != MP_LATENCY) {
		if ((events & EV_READ) && (rc = mp_io_drain_rx(&cl->io)) != TP_RETRY && rc != TP_OK)
			goto bad;
		if ((events & EV_WRITE) && (rc = mp_io_pump_tx(&cl->io)) != TP_RETRY && rc != TP_OK)
			goto bad;
		return;
	}
	if ((events & EV_WRITE) && cl->io.txoff > 0) {
		if ((rc = mp_io_send_one(&cl->io, 0)) == TP_RETRY)
			return;
		if (rc != TP_OK)
			goto bad;
		tp_rewatch(c, EV_READ);
	}
	while ((rc = mp_io_recv_one(&cl->io)) == TP_OK) {
		uint64_t now = ev_clock_us();
		if (cl->io.have != cl->io.size) {
			tp_seterr(c->err, sizeof(c->err), "reply of %zu bytes to a %zu-byte request",
			    cl->io.have, cl->io.size);
			goto bad;
		}
		if (memcmp(cl->io.rx, cl->io.tx, cl->io.size) != 0) {
			tp_seterr(c->err, sizeof(c->err), "the echo of a %zu-byte request differs "
			    "from it", cl->io.size);
			goto bad;
		}
		if (cl->nrtt == cl->caprtt) {
			size_t n = cl->caprtt ? 2 * cl->caprtt : 4096;
			double *p = realloc(cl->rtt, n * sizeof(*p));
			if (p == NULL)
				goto bad;
			cl->rtt = p;
			cl->caprtt = n;
		}
		cl->rtt[cl->nrtt++] = (double)(now - cl->sent_at);
		cl->io.have = 0;
		if ((rc = mp_cli_request(cl)) == TP_RETRY) {
			tp_rewatch(c, EV_READ | EV_WRITE);
			return;
		}
		if (rc != TP_OK)
			goto bad;
	}
	if (rc == TP_RETRY)
		return;
bad:
	if (rc == TP_EOF)
		tp_seterr(c->err, sizeof(c->err), "server closed the connection");
	mp_cli_fail(cl);
}

static int
mp_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
mp_send_hello(struct mp_cli *cl, const struct mp_cfg *cfg, enum mp_test test, size_t size)
{
	unsigned char h[MP_HELLO_LEN];
	struct tp_msginfo mi = { 0 };
	uint64_t end = ev_clock_us() + MP_CONNECT_MS * 1000ull;
	size_t off = 0;

	memcpy(h, "MSGPERF1", 8);
	h[8] = test == MP_THROUGHPUT ? 'T' : test == MP_ONEWAY ? 'O' : 'L';
	h[9] = (unsigned char)(cl->io.streams >> 8);
	h[10] = (unsigned char)cl->io.streams;
	h[11] = (unsigned char)(cfg->unordered != 0);
	h[12] = (unsigned char)(size >> 24);
	h[13] = (unsigned char)(size >> 16);
	h[14] = (unsigned char)(size >> 8);
	h[15] = (unsigned char)size;
	while (off < sizeof(h)) {
		size_t sent = 0;
		int rc = tp_send(cl->io.c, h + off, sizeof(h) - off, &mi, &sent);
		if (rc == TP_RETRY) {
			if (ev_clock_us() > end || tp_wait(cl->io.c, EV_WRITE, 1000) == TP_ERROR)
				return -1;
			continue;
		}
		if (rc != TP_OK)
			return -1;
		off += sent;
	}
	return 0;
}

int
mp_client(const struct mp_cfg *cfg, const char *type, const char *addr, size_t size,
    enum mp_test test, struct mp_result *r)
{
	struct mp_cli cl;
	struct tp_conn *c = NULL;
	int rc = -1;

	memset(&cl, 0, sizeof(cl));
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->size = size;
	r->test = test;
	cl.type = type;
	if ((cl.loop = ev_new(r->err, sizeof(r->err))) == NULL)
		goto out;
	if (cfg->series != NULL && test != MP_LATENCY &&
	    mp_cli_series_open(&cl, cfg, r->err, sizeof(r->err)) == -1)
		goto out;
	if ((c = tp_connect(type, addr, &cfg->opts, r->err, sizeof(r->err))) == NULL)
		goto out;
	if (tp_connect_wait(c, MP_CONNECT_MS) != TP_OK) {
		tp_seterr(r->err, sizeof(r->err), "%s connect to %s: %s", type, addr, c->err);
		goto out;
	}
	if (mp_io_init(&cl.io, c, test, size) == -1) {
		tp_seterr(r->err, sizeof(r->err), "out of memory");
		goto out;
	}
	cl.io.streams = cfg->streams_used > c->streams_out ? c->streams_out : cfg->streams_used;
	if (cl.io.streams == 0)
		cl.io.streams = 1;
	cl.io.flags = cfg->unordered ? TP_F_UNORDERED : 0;
	if (mp_send_hello(&cl, cfg, test, size) == -1) {
		tp_seterr(r->err, sizeof(r->err), "sending the test header: %s", c->err);
		goto out;
	}
	cl.t0 = ev_clock_us();
	if (tp_watch(c, cl.loop, test == MP_THROUGHPUT ? EV_READ | EV_WRITE : EV_READ, mp_cli_ev,
	    &cl) != TP_OK) {
		tp_seterr(r->err, sizeof(r->err), "%s", c->err);
		goto out;
	}
	ev_timer_start(cl.loop, &cl.end, (uint64_t)(cfg->duration * 1e6), mp_cli_stop, &cl);
	if (cl.series != NULL) {
		cl.tick_at = cl.t0;
		cl.nticks = 1;
		ev_timer_start(cl.loop, &cl.tick, cl.tick_us, mp_cli_tick, &cl);
	}
	if (test == MP_LATENCY && (rc = mp_cli_request(&cl)) != TP_OK) {
		if (rc != TP_RETRY) {
			tp_seterr(r->err, sizeof(r->err), "send: %s", c->err);
			rc = -1;
			goto out;
		}
		tp_rewatch(c, EV_READ | EV_WRITE);
	}
	rc = -1;
	ev_run(cl.loop);
	ev_timer_stop(cl.loop, &cl.end);
	ev_timer_stop(cl.loop, &cl.tick);
	if (cl.io.failed) {
		tp_seterr(r->err, sizeof(r->err), "%s", c->err);
		goto out;
	}
	if (test != MP_LATENCY) {
		double secs = (double)(cl.t1 - cl.t0) / 1e6;
		r->messages = cl.io.seq;
		r->kbps = secs > 0 ? (double)cl.io.rxbytes * 8 / 1000 / secs : 0;
	} else {
		double sum = 0;
		size_t i;
		r->messages = cl.nrtt;
		if (cl.nrtt == 0) {
			tp_seterr(r->err, sizeof(r->err), "no reply within %.1f s", cfg->duration);
			goto out;
		}
		for (i = 0; i < cl.nrtt; i++)
			sum += cl.rtt[i];
		qsort(cl.rtt, cl.nrtt, sizeof(cl.rtt[0]), mp_cmp);
		r->lat_mean_us = sum / (double)cl.nrtt;
		r->lat_p50_us = cl.rtt[cl.nrtt / 2];
		r->lat_p99_us = cl.rtt[(size_t)((double)cl.nrtt * 0.99)];
	}
	rc = 0;
out:
	if (c != NULL && cl.loop != NULL)
		tp_watch(c, cl.loop, 0, NULL, NULL);
	tp_conn_free(c);
	mp_io_free(&cl.io);
	if (cl.series != NULL)
		fclose(cl.series);
	free(cl.rtt);
	ev_free(cl.loop);
	return rc;
}
