/* sess_tls.c: https for httpget and httpload, one concern: a session's TLS connections, one per
 * stream (RFC 3436; TCP's one), made when a stream first sends, resumed from a ticket of an
 * earlier one where there is one, and their handshake times (lib/tls/tls.h does the protocol). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ev.h"
#include "load.h"
#include "tls.h"

struct sess_tls {
	struct tls_ctx *ctx;
	const char *alpn;
	unsigned n, out, cursor;
	struct tls_sess **t;
	uint64_t *t0;               /* when each stream's handshake began, 0 = done */
	int ticket_from;            /* a stream whose session holds a ticket, -1 = none yet */
	int first;                  /* the first stream to start, -1 = none yet */
	int go;                     /* the others start now: a ticket came, or none will */
	int cert_error;
	struct sess_tls_stats st;
};

struct sess_tls *
sess_tls_new(struct tls_ctx *ctx, int msg, unsigned n)
{
	struct sess_tls *x = calloc(1, sizeof(*x));

	if (x == NULL)
		return NULL;
	x->t = calloc(n, sizeof(*x->t));
	x->t0 = calloc(n, sizeof(*x->t0));
	if (x->t == NULL || x->t0 == NULL) {
		sess_tls_free(x);
		return NULL;
	}
	x->ctx = ctx;
	x->alpn = msg ? TLS_ALPN_SCTP : TLS_ALPN_TCP;
	x->n = n;
	x->ticket_from = -1;
	x->first = -1;
	x->go = n == 1;
	return x;
}

void
sess_tls_free(struct sess_tls *x)
{
	unsigned i;

	if (x == NULL)
		return;
	for (i = 0; x->t != NULL && i < x->n; i++)
		tls_sess_free(x->t[i]);
	free(x->t);
	free(x->t0);
	free(x);
}

static int
sess_tls_has_out(const struct tls_sess *t)
{
	size_t n;

	return t != NULL && (tls_out(t, &n), n > 0);
}

/* After a call on stream i: the count of streams with records, the handshake's end. */
static int
sess_tls_after(struct sess_tls *x, unsigned i, int had, int rc, char *err, size_t errlen)
{
	struct tls_sess *t = x->t[i];
	int has = sess_tls_has_out(t);
	uint64_t now, took;

	if (has && !had)
		x->out++;
	else if (!has && had)
		x->out--;
	if (rc == TLS_ERROR) {
		x->cert_error = tls_cert_error(t);
		snprintf(err, errlen, "stream %u: %s", i, tls_err(t));
		return -1;
	}
	if (x->t0[i] != 0 && tls_done(t)) {
		now = ev_clock_us();
		took = now - x->t0[i];
		x->t0[i] = 0;
		x->st.handshakes++;
		x->st.resumed += tls_resumed(t) ? 1 : 0;
		x->st.hs_us_sum += took;
		if (took > x->st.hs_us_max)
			x->st.hs_us_max = took;
		snprintf(x->st.alpn, sizeof(x->st.alpn), "%s", tls_alpn(t));
	}
	/* The first stream's ticket: the others resume from it (no certificate to sign and
	 * verify again). A server that sent its first reply bytes, or failed, without a
	 * ticket sends none: the others make full handshakes. */
	if (x->ticket_from < 0 && tls_done(t) && tls_has_ticket(t)) {
		x->ticket_from = (int)i;
		x->go = 1;
	}
	return 0;
}

/* Plaintext for stream i: its TLS connection starts with the first bytes. */
int
sess_tls_write(struct sess_tls *x, unsigned i, const char *p, size_t n, char *err, size_t errlen)
{
	struct tls_sess *t = x->t[i];
	int had, rc;

	if (t == NULL && x->first < 0)
		x->first = (int)i;
	if (t == NULL) {
		if ((t = tls_sess_new(x->ctx, x->alpn, err, errlen)) == NULL)
			return -1;
		x->t[i] = t;
		if (x->ticket_from >= 0)
			tls_sess_resume_from(t, x->t[x->ticket_from]);
		x->t0[i] = ev_clock_us();
		if (x->t0[i] == 0)
			x->t0[i] = 1;
		had = 0;
		if (sess_tls_after(x, i, had, tls_start(t), err, errlen) == -1)
			return -1;
	}
	had = sess_tls_has_out(t);
	rc = tls_write(t, p, n);
	return sess_tls_after(x, i, had, rc, err, errlen);
}

int
sess_tls_input(struct sess_tls *x, unsigned i, const char *p, size_t n, char *err, size_t errlen)
{
	struct tls_sess *t = x->t[i];
	int had;

	if (t == NULL) {
		snprintf(err, errlen, "stream %u: data before our TLS ClientHello", i);
		return -1;
	}
	had = sess_tls_has_out(t);
	return sess_tls_after(x, i, had, tls_input(t, p, n), err, errlen);
}

/* Plaintext of stream i: 1 with *got bytes, 0 none now (or the peer's close_notify), -1. */
int
sess_tls_read(struct sess_tls *x, unsigned i, char *buf, size_t cap, size_t *got, char *err,
    size_t errlen)
{
	struct tls_sess *t = x->t[i];
	int had = sess_tls_has_out(t), rc = tls_read(t, buf, cap, got);

	if (sess_tls_after(x, i, had, rc, err, errlen) == -1) {
		x->go = 1;
		return -1;
	}
	if (rc == TLS_OK && (int)i == x->first)
		x->go = 1; /* reply bytes before any ticket: none is coming first */
	return rc == TLS_OK ? 1 : 0;
}

int
sess_tls_next(struct sess_tls *x, uint16_t *sid, const void **p, size_t *n)
{
	unsigned k, i;

	if (x->out == 0)
		return 0;
	for (k = 0; k < x->n; k++) {
		i = (x->cursor + k) % x->n;
		if (sess_tls_has_out(x->t[i])) {
			*sid = (uint16_t)i;
			*p = tls_out(x->t[i], n);
			return 1;
		}
	}
	return 0;
}

void
sess_tls_sent(struct sess_tls *x, uint16_t sid, size_t n)
{
	tls_out_done(x->t[sid], n);
	if (!sess_tls_has_out(x->t[sid])) {
		x->out--;
		x->cursor = (sid + 1u) % x->n;
	}
}

int sess_tls_pending(const struct sess_tls *x) { return x->out > 0; }

/* May stream i send now? Its TLS connection is there, or it is the first, or the first's
 * ticket came (or will not). */
int
sess_tls_may_start(const struct sess_tls *x, unsigned i)
{
	return x->go || x->t[i] != NULL || x->first < 0;
}
int sess_tls_cert_error(const struct sess_tls *x) { return x->cert_error; }
const struct sess_tls_stats *sess_tls_stats(const struct sess_tls *x) { return &x->st; }
