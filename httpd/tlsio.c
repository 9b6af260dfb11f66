/* tlsio.c: https for sctphttpd, one concern: the TLS sessions of a connection, one per stream
 * (lib/tls/tls.h does the protocol), the handshake cap (--tls-max) and the records to send. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "tls.h"
#include "tlsio.h"

struct tlsio {
	uint16_t n;
	int msg;
	struct tls_sess **t;      /* n entries, each made when its stream first has data */
	uint64_t *t0;             /* when each handshake in progress began (us), 0 = none */
	unsigned hs;              /* handshakes in progress on this connection */
	unsigned out;             /* streams with records to send */
	uint16_t cursor;          /* where tlsio_next looks first: streams take turns */
	char err[256];
};

static struct {
	struct tls_ctx *ctx;
	unsigned handshakes;
	char buf[16384];
} tlsio;

int
tlsio_init(char *err, size_t errlen)
{
	struct config *cf = httpd_config();

	if (cf->tls_cert == NULL)
		return 0;
	if ((tlsio.ctx = tls_ctx_server(cf->tls_cert, cf->tls_key, err, errlen)) == NULL)
		return -1;
	return 0;
}

void
tlsio_fini(void)
{
	tls_ctx_free(tlsio.ctx);
	tlsio.ctx = NULL;
}

int tlsio_on(void) { return tlsio.ctx != NULL; }
unsigned tlsio_in_handshake(const struct tlsio *io) { return io->hs; }

struct tlsio *
tlsio_new(uint16_t nstreams, int msg)
{
	struct tlsio *io = calloc(1, sizeof(*io));

	if (io == NULL)
		return NULL;
	io->t = calloc(nstreams, sizeof(*io->t));
	io->t0 = calloc(nstreams, sizeof(*io->t0));
	if (io->t == NULL || io->t0 == NULL) {
		free(io->t);
		free(io->t0);
		free(io);
		return NULL;
	}
	io->n = nstreams;
	io->msg = msg;
	return io;
}

static int
tlsio_has_out(const struct tls_sess *t)
{
	size_t n;

	return t != NULL && (tls_out(t, &n), n > 0);
}

/* Stream sid's session goes: a handshake it had in progress no longer counts. */
static void
tlsio_drop(struct tlsio *io, uint16_t sid)
{
	struct tls_sess *t = io->t[sid];

	if (t == NULL)
		return;
	if (io->t0[sid] != 0) {
		tlsio.handshakes--;
		io->hs--;
		io->t0[sid] = 0;
	}
	if (tlsio_has_out(t))
		io->out--;
	tls_sess_free(t);
	io->t[sid] = NULL;
}

void
tlsio_free(struct tlsio *io)
{
	uint16_t i;

	if (io == NULL)
		return;
	for (i = 0; i < io->n; i++)
		tlsio_drop(io, i);
	free(io->t);
	free(io->t0);
	free(io);
}

void
tlsio_forget(struct tlsio *io, uint16_t sid)
{
	if (sid < io->n)
		tlsio_drop(io, sid);
}

/* Around every call that may add records or end a handshake: the counts follow. */
static int
tlsio_after(struct tlsio *io, uint16_t sid, int had_out, int rc)
{
	struct tls_sess *t = io->t[sid];
	int has = tlsio_has_out(t);

	if (has && !had_out)
		io->out++;
	else if (!has && had_out)
		io->out--;
	if (io->t0[sid] != 0 && (tls_done(t) || tls_failed(t))) {
		tlsio.handshakes--;
		io->hs--;
		io->t0[sid] = 0;
	}
	if (rc == TLS_ERROR) {
		snprintf(io->err, sizeof(io->err), "%s", tls_err(t));
		return TLSIO_FAIL;
	}
	return TLSIO_OK;
}

int
tlsio_input(struct tlsio *io, uint16_t sid, const char *p, size_t n, tlsio_plain_cb *plain,
    void *arg)
{
	struct tls_sess *t = io->t[sid];
	unsigned max = httpd_config()->tls_max;
	int rc, had;
	size_t got;

	if (t == NULL) {
		/* The cap: in the process, and half of it for one connection, so that one
		 * association's flood leaves room for the others'. */
		if (tlsio.handshakes >= max || io->hs >= (max + 1) / 2) {
			snprintf(io->err, sizeof(io->err), "%u TLS handshakes in progress, %u on "
			    "this association (--tls-max %u): none more starts", tlsio.handshakes,
			    io->hs, max);
			return TLSIO_FULL;
		}
		t = tls_sess_new(tlsio.ctx, io->msg ? TLS_ALPN_SCTP : TLS_ALPN_TCP, io->err,
		    sizeof(io->err));
		if (t == NULL)
			return TLSIO_FAIL;
		io->t[sid] = t;
		tlsio.handshakes++;
		io->hs++;
		io->t0[sid] = httpd_now_us() | 1;
	}
	if (tls_failed(t)) {
		snprintf(io->err, sizeof(io->err), "%s", tls_err(t));
		return TLSIO_FAIL;
	}
	had = tlsio_has_out(t);
	rc = tls_input(t, p, n);
	if (tlsio_after(io, sid, had, rc) != TLSIO_OK)
		return TLSIO_FAIL;
	for (;;) {
		had = tlsio_has_out(t);
		rc = tls_read(t, tlsio.buf, sizeof(tlsio.buf), &got);
		if (tlsio_after(io, sid, had, rc) != TLSIO_OK)
			return TLSIO_FAIL;
		if (rc != TLS_OK)
			return TLSIO_OK; /* more to come, or close_notify: the transport's end follows */
		plain(arg, sid, tlsio.buf, got);
		if (io->t[sid] != t)
			return TLSIO_OK; /* the stream was given up meanwhile */
	}
}

int
tlsio_write(struct tlsio *io, uint16_t sid, const char *p, size_t n)
{
	struct tls_sess *t = io->t[sid];
	int had;

	if (t == NULL) {
		snprintf(io->err, sizeof(io->err), "no TLS connection on stream %u", (unsigned)sid);
		return TLSIO_FAIL;
	}
	had = tlsio_has_out(t);
	return tlsio_after(io, sid, had, tls_write(t, p, n));
}

int
tlsio_pending(const struct tlsio *io)
{
	return io->out > 0;
}

int
tlsio_next(struct tlsio *io, uint16_t *sid, const void **p, size_t *n)
{
	uint16_t i, k;

	if (io->out == 0)
		return 0;
	for (k = 0; k < io->n; k++) {
		i = (uint16_t)((io->cursor + k) % io->n);
		if (io->t[i] != NULL && tlsio_has_out(io->t[i])) {
			*sid = i;
			*p = tls_out(io->t[i], n);
			return 1;
		}
	}
	return 0;
}

void
tlsio_sent(struct tlsio *io, uint16_t sid, size_t n)
{
	struct tls_sess *t = io->t[sid];

	tls_out_done(t, n);
	if (!tlsio_has_out(t)) {
		io->out--;
		io->cursor = (uint16_t)((sid + 1) % io->n);
	}
}

const char *
tlsio_err(const struct tlsio *io, uint16_t sid)
{
	(void)sid;
	return io->err;
}

/* The handshake in progress that began first: when (us), and its stream; 0 = none. */
uint64_t
tlsio_oldest(const struct tlsio *io, uint16_t *sid)
{
	uint64_t best = 0;
	uint16_t i;

	for (i = 0; io->hs > 0 && i < io->n; i++)
		if (io->t0[i] != 0 && (best == 0 || io->t0[i] < best)) {
			best = io->t0[i];
			*sid = i;
		}
	return best;
}
