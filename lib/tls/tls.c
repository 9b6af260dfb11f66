/* tls.c: the TLS engine of tls.h on GnuTLS: TLS 1.3 only, ALPN, session tickets (a client
 * resumes the other streams of an association from the first), no 0-RTT (early data is never
 * enabled: HTTP requests replayed by an attacker on path could repeat a POST). Push and pull
 * functions move ciphertext through memory buffers; the caller's transport carries it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "tls.h"

#define TLS_PRIORITY "NORMAL:-VERS-ALL:+VERS-TLS1.3"
#define TLS_IN_MAX (256u * 1024) /* ciphertext received and not yet read: a peer's flood */

struct tls_buf {
	char *p;
	size_t off, len, cap; /* bytes [off, len) are unread */
};

struct tls_ctx {
	int server, insecure;
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t ticket_key;  /* server: session tickets for resumption */
	char host[256];
};

struct tls_sess {
	struct tls_ctx *x;
	gnutls_session_t s;
	struct tls_buf in, out, plain; /* ciphertext in, ciphertext out, plaintext before done */
	int done, failed, cert_error, eof;
	char err[600];
	char alpn[32];
	char want[32];                 /* the ALPN token offered (client) or selected (server) */
};

static int
tls_buf_put(struct tls_buf *b, const void *p, size_t n)
{
	size_t cap;
	char *np;

	if (n == 0)
		return 0; /* an empty message: nothing to keep (and no memcpy to NULL) */
	if (b->off > 0 && b->off == b->len)
		b->off = b->len = 0;
	if (b->len + n > b->cap) {
		if (b->off > 0) {
			memmove(b->p, b->p + b->off, b->len - b->off);
			b->len -= b->off;
			b->off = 0;
		}
		for (cap = b->cap ? b->cap : 4096; cap < b->len + n; cap *= 2)
			;
		if (cap > b->cap) {
			if ((np = realloc(b->p, cap)) == NULL)
				return -1;
			b->p = np;
			b->cap = cap;
		}
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static ssize_t
tls_push(gnutls_transport_ptr_t ptr, const void *p, size_t n)
{
	struct tls_sess *t = ptr;

	if (tls_buf_put(&t->out, p, n) == -1) {
		gnutls_transport_set_errno(t->s, ENOMEM);
		return -1;
	}
	return (ssize_t)n;
}

static ssize_t
tls_pull(gnutls_transport_ptr_t ptr, void *p, size_t n)
{
	struct tls_sess *t = ptr;
	size_t have = t->in.len - t->in.off;

	if (have == 0) {
		gnutls_transport_set_errno(t->s, EAGAIN);
		return -1;
	}
	if (n > have)
		n = have;
	memcpy(p, t->in.p + t->in.off, n);
	t->in.off += n;
	return (ssize_t)n;
}

/* GnuTLS asks whether data waits before some reads: the default would select(2) on the
 * transport pointer as if it were a descriptor. */
static int
tls_pull_timeout(gnutls_transport_ptr_t ptr, unsigned int ms)
{
	struct tls_sess *t = ptr;

	(void)ms;
	return t->in.len > t->in.off ? 1 : 0;
}

int
tls_available(void)
{
	return 1;
}

static void
tls_ctx_seterr(char *err, size_t errlen, const char *what, const char *file, int rc)
{
	snprintf(err, errlen, "%s%s%s: %s", what, file != NULL ? " " : "", file != NULL ? file : "",
	    gnutls_strerror(rc));
}

struct tls_ctx *
tls_ctx_server(const char *cert, const char *key, char *err, size_t errlen)
{
	struct tls_ctx *x = calloc(1, sizeof(*x));
	int rc;

	if (x == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->server = 1;
	if ((rc = gnutls_certificate_allocate_credentials(&x->cred)) < 0) {
		tls_ctx_seterr(err, errlen, "TLS credentials", NULL, rc);
		goto bad;
	}
	if ((rc = gnutls_certificate_set_x509_key_file(x->cred, cert, key, GNUTLS_X509_FMT_PEM)) < 0) {
		snprintf(err, errlen, "TLS certificate %s with key %s: %s", cert, key,
		    gnutls_strerror(rc));
		goto bad;
	}
	if ((rc = gnutls_session_ticket_key_generate(&x->ticket_key)) < 0) {
		tls_ctx_seterr(err, errlen, "TLS session ticket key", NULL, rc);
		goto bad;
	}
	return x;
bad:
	tls_ctx_free(x);
	return NULL;
}

struct tls_ctx *
tls_ctx_client(const char *cafile, int insecure, const char *host, char *err, size_t errlen)
{
	struct tls_ctx *x = calloc(1, sizeof(*x));
	int rc;

	if (x == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->insecure = insecure;
	snprintf(x->host, sizeof(x->host), "%s", host);
	if ((rc = gnutls_certificate_allocate_credentials(&x->cred)) < 0) {
		tls_ctx_seterr(err, errlen, "TLS credentials", NULL, rc);
		goto bad;
	}
	if (insecure)
		return x;
	rc = cafile != NULL ? gnutls_certificate_set_x509_trust_file(x->cred, cafile,
	    GNUTLS_X509_FMT_PEM) : gnutls_certificate_set_x509_system_trust(x->cred);
	if (rc < 0) {
		tls_ctx_seterr(err, errlen, "TLS trust", cafile != NULL ? cafile : "(system)", rc);
		goto bad;
	}
	if (rc == 0) {
		snprintf(err, errlen, "TLS trust %s: no certificate in it",
		    cafile != NULL ? cafile : "(system)");
		goto bad;
	}
	return x;
bad:
	tls_ctx_free(x);
	return NULL;
}

void
tls_ctx_free(struct tls_ctx *x)
{
	if (x == NULL)
		return;
	if (x->cred != NULL)
		gnutls_certificate_free_credentials(x->cred);
	if (x->ticket_key.data != NULL)
		gnutls_memset(x->ticket_key.data, 0, x->ticket_key.size);
	gnutls_free(x->ticket_key.data);
	free(x);
}

/* Host names go in SNI; addresses do not (RFC 6066), but both are verified. */
static int
tls_is_address(const char *h)
{
	return strspn(h, "0123456789.") == strlen(h) || strchr(h, ':') != NULL;
}

struct tls_sess *
tls_sess_new(struct tls_ctx *x, const char *alpn, char *err, size_t errlen)
{
	struct tls_sess *t = calloc(1, sizeof(*t));
	gnutls_datum_t proto;
	int rc;

	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->x = x;
	snprintf(t->want, sizeof(t->want), "%s", alpn != NULL ? alpn : "");
	if ((rc = gnutls_init(&t->s, (x->server ? GNUTLS_SERVER : GNUTLS_CLIENT) | GNUTLS_NONBLOCK)) < 0)
		goto bad;
	if ((rc = gnutls_priority_set_direct(t->s, TLS_PRIORITY, NULL)) < 0)
		goto bad;
	if ((rc = gnutls_credentials_set(t->s, GNUTLS_CRD_CERTIFICATE, x->cred)) < 0)
		goto bad;
	proto.data = (unsigned char *)t->want;
	proto.size = (unsigned)strlen(t->want);
	if (proto.size > 0 && (rc = gnutls_alpn_set_protocols(t->s, &proto, 1, 0)) < 0)
		goto bad;
	if (x->server) {
		if ((rc = gnutls_session_ticket_enable_server(t->s, &x->ticket_key)) < 0)
			goto bad;
	} else if (!x->insecure) {
		gnutls_session_set_verify_cert(t->s, x->host, 0);
	}
	if (!x->server && x->host[0] != '\0' && !tls_is_address(x->host) &&
	    (rc = gnutls_server_name_set(t->s, GNUTLS_NAME_DNS, x->host, strlen(x->host))) < 0)
		goto bad;
	gnutls_transport_set_ptr(t->s, t);
	gnutls_transport_set_push_function(t->s, tls_push);
	gnutls_transport_set_pull_function(t->s, tls_pull);
	gnutls_transport_set_pull_timeout_function(t->s, tls_pull_timeout);
	return t;
bad:
	snprintf(err, errlen, "TLS session: %s", gnutls_strerror(rc));
	tls_sess_free(t);
	return NULL;
}

void
tls_sess_free(struct tls_sess *t)
{
	if (t == NULL)
		return;
	if (t->s != NULL)
		gnutls_deinit(t->s);
	free(t->in.p);
	free(t->out.p);
	free(t->plain.p);
	free(t);
}

int
tls_sess_resume_from(struct tls_sess *t, const struct tls_sess *done)
{
	gnutls_datum_t d;
	int rc;

	if (done == NULL || !done->done || done->x->server ||
	    !(gnutls_session_get_flags(done->s) & GNUTLS_SFLAGS_SESSION_TICKET))
		return TLS_AGAIN; /* no ticket (yet): a full handshake */
	if (gnutls_session_get_data2(done->s, &d) < 0)
		return TLS_AGAIN;
	rc = gnutls_session_set_data(t->s, d.data, d.size);
	gnutls_free(d.data);
	return rc < 0 ? TLS_AGAIN : TLS_OK;
}

/* A fatal error: the alert the peer should see goes out, and the session is dead. */
static int
tls_fail(struct tls_sess *t, int rc, const char *what)
{
	gnutls_datum_t st;
	unsigned status;

	t->failed = 1;
	if (rc == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR || rc == GNUTLS_E_CERTIFICATE_ERROR) {
		t->cert_error = 1;
		status = gnutls_session_get_verify_cert_status(t->s);
		if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &st, 0) == 0) {
			snprintf(t->err, sizeof(t->err), "certificate of %s refused: %s", t->x->host,
			    (char *)st.data);
			gnutls_free(st.data);
		} else {
			snprintf(t->err, sizeof(t->err), "certificate of %s refused", t->x->host);
		}
	} else {
		snprintf(t->err, sizeof(t->err), "TLS %s: %s", what, gnutls_strerror(rc));
	}
	gnutls_alert_send_appropriate(t->s, rc);
	return TLS_ERROR;
}

static int
tls_flush_plain(struct tls_sess *t)
{
	ssize_t n;

	while (t->plain.len > t->plain.off) {
		n = gnutls_record_send(t->s, t->plain.p + t->plain.off, t->plain.len - t->plain.off);
		if (n < 0)
			return tls_fail(t, (int)n, "send");
		t->plain.off += (size_t)n;
	}
	t->plain.off = t->plain.len = 0;
	return TLS_OK;
}

static int
tls_step(struct tls_sess *t)
{
	gnutls_datum_t p;
	int rc;

	if (t->failed)
		return TLS_ERROR;
	if (t->done)
		return TLS_OK;
	rc = gnutls_handshake(t->s);
	if (rc == GNUTLS_E_AGAIN || rc == GNUTLS_E_INTERRUPTED)
		return TLS_AGAIN;
	if (rc < 0)
		return tls_fail(t, rc, "handshake");
	t->done = 1;
	if (gnutls_alpn_get_selected_protocol(t->s, &p) == 0 && p.size < sizeof(t->alpn)) {
		memcpy(t->alpn, p.data, p.size);
		t->alpn[p.size] = '\0';
	}
	/* A client that offered the token must get it: a peer that chose none speaks some
	 * other mapping, or none we know. */
	if (!t->x->server && t->want[0] != '\0' && strcmp(t->alpn, t->want) != 0) {
		t->failed = 1;
		snprintf(t->err, sizeof(t->err), "TLS ALPN: the server chose \"%s\", not \"%s\"",
		    t->alpn, t->want);
		gnutls_alert_send(t->s, GNUTLS_AL_FATAL, GNUTLS_A_NO_APPLICATION_PROTOCOL);
		return TLS_ERROR;
	}
	return tls_flush_plain(t);
}

int
tls_start(struct tls_sess *t)
{
	int rc = tls_step(t);

	return rc == TLS_ERROR ? TLS_ERROR : TLS_OK;
}

int
tls_input(struct tls_sess *t, const void *p, size_t n)
{
	if (t->failed)
		return TLS_ERROR;
	if (t->in.len - t->in.off + n > TLS_IN_MAX) {
		t->failed = 1;
		snprintf(t->err, sizeof(t->err), "TLS: more than %u bytes of unread records",
		    TLS_IN_MAX);
		return TLS_ERROR;
	}
	if (tls_buf_put(&t->in, p, n) == -1) {
		t->failed = 1;
		snprintf(t->err, sizeof(t->err), "out of memory");
		return TLS_ERROR;
	}
	return tls_step(t);
}

int
tls_read(struct tls_sess *t, void *buf, size_t cap, size_t *got)
{
	ssize_t n;
	int rc, tries;

	*got = 0;
	if ((rc = tls_step(t)) != TLS_OK)
		return rc;
	if (t->eof)
		return TLS_EOF;
	/* GnuTLS may answer AGAIN once with a whole record waiting (seen with 3.7 after a
	 * post-handshake message): ask again while bytes wait, a few times at most. */
	for (tries = 0; ; tries++) {
		n = gnutls_record_recv(t->s, buf, cap);
		if (n != GNUTLS_E_AGAIN || tries == 3 || (t->in.len == t->in.off &&
		    gnutls_record_check_pending(t->s) == 0))
			break;
	}
	if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
		return TLS_AGAIN;
	if (n == 0) {
		t->eof = 1;
		return TLS_EOF;
	}
	if (n < 0)
		return tls_fail(t, (int)n, "record");
	*got = (size_t)n;
	return TLS_OK;
}

int
tls_write(struct tls_sess *t, const void *p, size_t n)
{
	if (t->failed)
		return TLS_ERROR;
	if (tls_buf_put(&t->plain, p, n) == -1) {
		t->failed = 1;
		snprintf(t->err, sizeof(t->err), "out of memory");
		return TLS_ERROR;
	}
	return t->done ? tls_flush_plain(t) : TLS_OK;
}

int
tls_close(struct tls_sess *t)
{
	if (!t->done || t->failed)
		return TLS_ERROR;
	return gnutls_bye(t->s, GNUTLS_SHUT_WR) < 0 ? TLS_ERROR : TLS_OK;
}

const void *
tls_out(const struct tls_sess *t, size_t *n)
{
	*n = t->out.len - t->out.off;
	return t->out.p != NULL ? t->out.p + t->out.off : ""; /* nothing yet: no NULL + 0 */
}

void
tls_out_done(struct tls_sess *t, size_t n)
{
	t->out.off += n;
	if (t->out.off == t->out.len)
		t->out.off = t->out.len = 0;
}

int tls_done(const struct tls_sess *t) { return t->done; }
int tls_failed(const struct tls_sess *t) { return t->failed; }
int tls_cert_error(const struct tls_sess *t) { return t->cert_error; }
int tls_has_ticket(const struct tls_sess *t) { return t->done && (gnutls_session_get_flags(t->s) & GNUTLS_SFLAGS_SESSION_TICKET) != 0; }
int tls_resumed(const struct tls_sess *t) { return t->done && gnutls_session_is_resumed(t->s); }
size_t tls_pending_plain(const struct tls_sess *t) { return t->plain.len - t->plain.off; }
const char *tls_err(const struct tls_sess *t) { return t->err; }
const char *tls_alpn(const struct tls_sess *t) { return t->alpn; }
