/* tlsio.c: https for sctphttpd, one concern: the TLS sessions of a connection, one per stream
 * (lib/tls.h does the protocol), the handshake cap (--tls-max) and the records to send. */
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
unsigned tlsio_handshakes(void) { return tlsio.handshakes; }

struct tlsio *
tlsio_new(uint16_t nstreams, int msg)
{
	struct tlsio *io = calloc(1, sizeof(*io));

	if (io == NULL)
		return NULL;
	if ((io->t = calloc(nstreams, sizeof(*io->t))) == NULL) {
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
	if (!tls_done(t) && !tls_failed(t))
		tlsio.handshakes--;
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
tlsio_after(struct tlsio *io, struct tls_sess *t, int had_out, int was_hs, int rc)
{
	int has = tlsio_has_out(t);

	if (has && !had_out)
		io->out++;
	else if (!has && had_out)
		io->out--;
	if (was_hs && (tls_done(t) || tls_failed(t)))
		tlsio.handshakes--;
	if (rc == TLS_ERROR) {
		snprintf(io->err, sizeof(io->err), "%s", tls_err(t));
		return TLSIO_FAIL;
	}
	return TLSIO_OK;
}

static int
tlsio_hs(const struct tls_sess *t)
{
	return !tls_done(t) && !tls_failed(t);
}

int
tlsio_input(struct tlsio *io, uint16_t sid, const char *p, size_t n, tlsio_plain_cb *plain,
    void *arg)
{
	struct tls_sess *t = io->t[sid];
	int rc, had, hs;
	size_t got;

	if (t == NULL) {
		if (tlsio.handshakes >= httpd_config()->tls_max) {
			snprintf(io->err, sizeof(io->err), "%u TLS handshakes in progress "
			    "(--tls-max): none more starts", tlsio.handshakes);
			return TLSIO_FULL;
		}
		t = tls_sess_new(tlsio.ctx, io->msg ? TLS_ALPN_SCTP : TLS_ALPN_TCP, io->err,
		    sizeof(io->err));
		if (t == NULL)
			return TLSIO_FAIL;
		io->t[sid] = t;
		tlsio.handshakes++;
	}
	if (tls_failed(t)) {
		snprintf(io->err, sizeof(io->err), "%s", tls_err(t));
		return TLSIO_FAIL;
	}
	had = tlsio_has_out(t);
	hs = tlsio_hs(t);
	rc = tls_input(t, p, n);
	if (tlsio_after(io, t, had, hs, rc) != TLSIO_OK)
		return TLSIO_FAIL;
	for (;;) {
		had = tlsio_has_out(t);
		hs = tlsio_hs(t);
		rc = tls_read(t, tlsio.buf, sizeof(tlsio.buf), &got);
		if (tlsio_after(io, t, had, hs, rc) != TLSIO_OK)
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
	int had, hs;

	if (t == NULL) {
		snprintf(io->err, sizeof(io->err), "no TLS connection on stream %u", (unsigned)sid);
		return TLSIO_FAIL;
	}
	had = tlsio_has_out(t);
	hs = tlsio_hs(t);
	return tlsio_after(io, t, had, hs, tls_write(t, p, n));
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
