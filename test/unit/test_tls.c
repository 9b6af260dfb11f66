/* test_tls.c: lib/tls/tls.h's engine, a client and a server session joined in memory: the
 * handshake, data both ways, ALPN, session resumption, a garbage record (its alert), refused
 * certificates (another CA, another name, expired) and the cap on unread input. The test
 * certificates are made by tls.sh (https-common.sh) in $TLS_PKI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tls.h"

static char pki[512];

static const char *
f(const char *name)
{
	static char buf[4][600];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", pki, name);
	return buf[k];
}

/* Everything a has to send, to b. */
static int
pump(struct tls_sess *a, struct tls_sess *b)
{
	size_t n;
	const void *p = tls_out(a, &n);
	int rc = TLS_OK;

	if (n > 0) {
		rc = tls_input(b, p, n);
		tls_out_done(a, n);
	}
	return rc;
}

/* Both ways until neither has anything to send, reading what each side can. */
static void
talk(struct tls_sess *c, struct tls_sess *s, char *cbuf, size_t *clen, char *sbuf, size_t *slen)
{
	size_t got, n;
	int i;

	*clen = *slen = 0;
	for (i = 0; i < 10; i++) {
		pump(c, s);
		while (tls_read(s, sbuf + *slen, 4096 - *slen, &got) == TLS_OK)
			*slen += got;
		pump(s, c);
		while (tls_read(c, cbuf + *clen, 4096 - *clen, &got) == TLS_OK)
			*clen += got;
		tls_out(c, &n);
		if (n == 0 && (tls_out(s, &n), n == 0) && i > 2)
			break;
	}
}

struct pair {
	struct tls_ctx *sx, *cx;
	struct tls_sess *s, *c;
};

static void
pair_open(struct pair *p, const char *cert, const char *ca, const char *host, const char *salpn,
    const char *calpn)
{
	char err[512];

	p->sx = tls_ctx_server(f(cert), f("srv.key"), err, sizeof(err));
	assert_non_null(p->sx);
	p->cx = tls_ctx_client(f(ca), 0, host, err, sizeof(err));
	assert_non_null(p->cx);
	p->s = tls_sess_new(p->sx, salpn, err, sizeof(err));
	p->c = tls_sess_new(p->cx, calpn, err, sizeof(err));
	assert_non_null(p->s);
	assert_non_null(p->c);
}

static void
pair_close(struct pair *p)
{
	tls_sess_free(p->c);
	tls_sess_free(p->s);
	tls_ctx_free(p->cx);
	tls_ctx_free(p->sx);
}

static void
test_exchange(void **state)
{
	struct pair p;
	char cb[4096], sb[4096];
	size_t cl, sl;

	(void)state;
	pair_open(&p, "srv.pem", "ca.pem", "localhost", TLS_ALPN_SCTP, TLS_ALPN_SCTP);
	assert_int_equal(tls_start(p.c), TLS_OK);
	/* written before the handshake: queued, encrypted once it is done */
	assert_int_equal(tls_write(p.c, "GET / HTTP/1.1\r\n\r\n", 18), TLS_OK);
	assert_int_equal(tls_pending_plain(p.c), 18);
	talk(p.c, p.s, cb, &cl, sb, &sl);
	assert_true(tls_done(p.c) && tls_done(p.s));
	assert_int_equal(tls_pending_plain(p.c), 0);
	assert_int_equal(sl, 18);
	assert_memory_equal(sb, "GET / HTTP/1.1\r\n\r\n", 18);
	assert_string_equal(tls_alpn(p.c), TLS_ALPN_SCTP);
	assert_string_equal(tls_alpn(p.s), TLS_ALPN_SCTP);
	assert_int_equal(tls_write(p.s, "HTTP/1.1 200 OK\r\n", 17), TLS_OK);
	talk(p.c, p.s, cb, &cl, sb, &sl);
	assert_int_equal(cl, 17);
	assert_memory_equal(cb, "HTTP/1.1 200 OK\r\n", 17);
	assert_false(tls_resumed(p.c));
	pair_close(&p);
}

static void
test_resume(void **state)
{
	struct pair p;
	struct tls_sess *c2, *s2;
	char err[512], cb[4096], sb[4096];
	size_t cl, sl;

	(void)state;
	pair_open(&p, "srv.pem", "ca.pem", "localhost", TLS_ALPN_SCTP, TLS_ALPN_SCTP);
	tls_start(p.c);
	tls_write(p.c, "a", 1);
	talk(p.c, p.s, cb, &cl, sb, &sl);
	tls_write(p.s, "b", 1);
	talk(p.c, p.s, cb, &cl, sb, &sl);
	assert_true(tls_has_ticket(p.c));
	c2 = tls_sess_new(p.cx, TLS_ALPN_SCTP, err, sizeof(err));
	s2 = tls_sess_new(p.sx, TLS_ALPN_SCTP, err, sizeof(err));
	assert_int_equal(tls_sess_resume_from(c2, p.c), TLS_OK);
	tls_start(c2);
	tls_write(c2, "c", 1);
	talk(c2, s2, cb, &cl, sb, &sl);
	assert_int_equal(sl, 1);
	assert_true(tls_resumed(c2));
	assert_true(tls_resumed(s2));
	/* no ticket yet: a full handshake */
	assert_int_equal(tls_sess_resume_from(s2, NULL), TLS_AGAIN);
	tls_sess_free(c2);
	tls_sess_free(s2);
	pair_close(&p);
}

static void
test_alpn_mismatch(void **state)
{
	struct pair p;
	char cb[4096], sb[4096];
	size_t cl, sl;

	(void)state;
	pair_open(&p, "srv.pem", "ca.pem", "localhost", TLS_ALPN_TCP, TLS_ALPN_SCTP);
	tls_start(p.c);
	talk(p.c, p.s, cb, &cl, sb, &sl);
	assert_true(tls_failed(p.c));
	assert_false(tls_cert_error(p.c));
	assert_string_equal(tls_err(p.c), "TLS ALPN: the server chose \"\", not \"" TLS_ALPN_SCTP "\"");
	pair_close(&p);
}

static void
test_garbage(void **state)
{
	static const char junk[] = "\x17\x03\x03\x00\x04junk";
	struct pair p;
	const unsigned char *o;
	size_t n;

	(void)state;
	pair_open(&p, "srv.pem", "ca.pem", "localhost", TLS_ALPN_SCTP, TLS_ALPN_SCTP);
	assert_int_equal(tls_input(p.s, junk, sizeof(junk) - 1), TLS_ERROR);
	assert_true(tls_failed(p.s));
	o = tls_out(p.s, &n);
	/* a fatal unexpected_message alert, in clear (no keys yet) */
	assert_int_equal(n, 7);
	assert_memory_equal(o, "\x15\x03\x03\x00\x02\x02\x0a", 7);
	assert_int_equal(tls_input(p.s, "x", 1), TLS_ERROR); /* dead for good */
	pair_close(&p);
}

static void
refused(const char *cert, const char *ca, const char *host, const char *why)
{
	struct pair p;
	char cb[4096], sb[4096];
	size_t cl, sl;

	pair_open(&p, cert, ca, host, TLS_ALPN_SCTP, TLS_ALPN_SCTP);
	tls_start(p.c);
	tls_write(p.c, "secret", 6);
	talk(p.c, p.s, cb, &cl, sb, &sl);
	assert_true(tls_failed(p.c));
	assert_true(tls_cert_error(p.c));
	assert_int_equal(sl, 0); /* nothing reached the server */
	if (strstr(tls_err(p.c), why) == NULL)
		fail_msg("\"%s\" without \"%s\"", tls_err(p.c), why);
	pair_close(&p);
}

static void
test_refused(void **state)
{
	(void)state;
	refused("other.pem", "ca.pem", "localhost", "issuer is unknown");
	refused("srv.pem", "ca.pem", "other.example", "does not match");
	refused("wrongname.pem", "ca.pem", "localhost", "does not match");
	refused("expired.pem", "ca.pem", "127.0.0.1", "expired");
}

static void
test_input_cap(void **state)
{
	struct pair p;
	char *big = calloc(1, 256 * 1024 + 1);

	(void)state;
	assert_non_null(big);
	pair_open(&p, "srv.pem", "ca.pem", "localhost", TLS_ALPN_SCTP, TLS_ALPN_SCTP);
	assert_int_equal(tls_input(p.s, big, 256 * 1024 + 1), TLS_ERROR);
	assert_string_equal(tls_err(p.s), "TLS: more than 262144 bytes of unread records");
	tls_sess_free(p.s);
	p.s = tls_sess_new(p.sx, TLS_ALPN_SCTP, big, 64);
	tls_input(p.s, big, 256 * 1024); /* the limit itself is taken (then refused as a record) */
	assert_null(strstr(tls_err(p.s), "more than"));
	free(big);
	pair_close(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exchange),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_alpn_mismatch),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_input_cap),
	};
	const char *d = getenv("TLS_PKI");

	if (d == NULL) {
		fprintf(stderr, "test_tls: TLS_PKI (the test certificates' directory) not set\n");
		return 2;
	}
	snprintf(pki, sizeof(pki), "%s", d);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
