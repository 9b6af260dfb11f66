/* test_http.c: HTTP parser: heads whole and byte by byte, limits, semantics, dates, paths, chunks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http.h"

#define S(lit) lit, sizeof(lit) - 1
#define MAXH 32

/* Helpers: every input is copied into a buffer of exactly its size, so ASan sees any over-read. */

static char *
dup_exact(const char *msg, size_t len)
{
	char *b = malloc(len ? len : 1);

	assert_non_null(b);
	memcpy(b, msg, len);
	return b;
}

/* Same place relative to each buffer, or the same constant (the "/" of an empty path). */
static void
same_ptr(const char *a, const char *abase, const char *b, const char *bbase)
{
	if (a == NULL || b == NULL) {
		assert_true(a == NULL && b == NULL);
		return;
	}
	assert_true(a == b || (uintptr_t)a - (uintptr_t)abase == (uintptr_t)b - (uintptr_t)bbase);
}

static void
same_headers(const struct http_header *a, const char *ab, const struct http_header *b,
    const char *bb, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		same_ptr(a[i].name, ab, b[i].name, bb);
		same_ptr(a[i].value, ab, b[i].value, bb);
		assert_int_equal(a[i].name_len, b[i].name_len);
		assert_int_equal(a[i].value_len, b[i].value_len);
	}
}

struct rq {
	struct http_request req;
	struct http_header h[MAXH];
	char *buf;
	int r;
};

static int
rq_parse(const char *msg, size_t len, size_t maxh, size_t max_line, size_t max_head,
    struct rq *q)
{
	memset(&q->req, 0x5a, sizeof(q->req)); /* outputs must all be written */
	q->req.headers = q->h;
	q->req.max_line = max_line;
	q->req.max_head = max_head;
	q->buf = dup_exact(msg, len);
	q->r = http_parse_request(q->buf, len, &q->req, maxh);
	return q->r;
}

static void
same_req(const struct rq *a, const struct rq *b)
{
	same_ptr(a->req.method, a->buf, b->req.method, b->buf);
	same_ptr(a->req.target, a->buf, b->req.target, b->buf);
	same_ptr(a->req.path, a->buf, b->req.path, b->buf);
	same_ptr(a->req.query, a->buf, b->req.query, b->buf);
	same_ptr(a->req.authority, a->buf, b->req.authority, b->buf);
	assert_int_equal(a->req.method_len, b->req.method_len);
	assert_int_equal(a->req.target_len, b->req.target_len);
	assert_int_equal(a->req.path_len, b->req.path_len);
	assert_int_equal(a->req.query_len, b->req.query_len);
	assert_int_equal(a->req.authority_len, b->req.authority_len);
	assert_int_equal(a->req.method_id, b->req.method_id);
	assert_int_equal(a->req.form, b->req.form);
	assert_int_equal(a->req.minor_version, b->req.minor_version);
	assert_int_equal(a->req.num_headers, b->req.num_headers);
	same_headers(a->req.headers, a->buf, b->req.headers, b->buf, a->req.num_headers);
}

/*
 * Parse msg whole into *q (free q->buf after), then every prefix: a success must be -2 for
 * each shorter prefix and the same result from its length on; an error is -2 up to some
 * prefix and then the same error for every longer one.
 */
static int
feed_req(const char *msg, size_t len, size_t maxh, size_t max_line, size_t max_head,
    struct rq *q)
{
	/* max_line + 2 + max_head bytes always get a verdict: a server needs no bigger buffer. */
	size_t verdict = (max_line ? max_line : HTTP_MAX_LINE_DEFAULT) + 2 +
	    (max_head ? max_head : HTTP_MAX_HEAD_DEFAULT);
	size_t i;
	int seen = 0;

	rq_parse(msg, len, maxh, max_line, max_head, q);
	if (q->r >= 0)
		assert_int_equal(q->req.error, HTTP_ERR_NONE);
	for (i = 0; i <= len; i++) {
		struct rq t;

		rq_parse(msg, i, maxh, max_line, max_head, &t);
		if (i >= verdict)
			assert_int_not_equal(t.r, -2);
		if (q->r >= 0) {
			if (i < (size_t)q->r) {
				assert_int_equal(t.r, -2);
			} else {
				assert_int_equal(t.r, q->r);
				same_req(q, &t);
			}
		} else if (q->r == -1) {
			if (t.r == -1) {
				assert_int_equal(t.req.error, q->req.error);
				seen = 1;
			} else {
				assert_false(seen);
				assert_int_equal(t.r, -2);
				assert_int_equal(t.req.error, HTTP_ERR_NONE);
			}
		} else {
			assert_int_equal(t.r, -2);
		}
		free(t.buf);
	}
	return q->r;
}

/* A request that must fail with err, whole and byte by byte. */
static void
req_bad(const char *msg, size_t len, size_t maxh, size_t max_line, size_t max_head,
    enum http_error err)
{
	struct rq q;

	assert_int_equal(feed_req(msg, len, maxh, max_line, max_head, &q), -1);
	assert_int_equal(q.req.error, err);
	free(q.buf);
}

static void
req_malformed(const char *msg, size_t len)
{
	req_bad(msg, len, MAXH, 0, 0, HTTP_ERR_MALFORMED);
}

static void
assert_span(const char *p, size_t len, const char *want)
{
	assert_non_null(p);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(p, want, len);
}

static void
assert_header(const struct http_request *req, size_t i, const char *name, const char *value)
{
	assert_true(i < req->num_headers);
	assert_span(req->headers[i].name, req->headers[i].name_len, name);
	assert_span(req->headers[i].value, req->headers[i].value_len, value);
}

/* Requests */

static void
test_req_simple(void **state)
{
	static const char m[] = "GET /index.html HTTP/1.1\r\nHost: example.com\r\n"
	    "User-Agent: t/1.0\r\nAccept: */*\r\n\r\n";
	struct rq q;

	(void)state;
	assert_int_equal(feed_req(S(m), MAXH, 0, 0, &q), (int)sizeof(m) - 1);
	assert_span(q.req.method, q.req.method_len, "GET");
	assert_int_equal(q.req.method_id, HTTP_METHOD_GET);
	assert_span(q.req.target, q.req.target_len, "/index.html");
	assert_int_equal(q.req.form, HTTP_TARGET_ORIGIN);
	assert_span(q.req.path, q.req.path_len, "/index.html");
	assert_null(q.req.query);
	assert_null(q.req.authority);
	assert_int_equal(q.req.minor_version, 1);
	assert_int_equal(q.req.num_headers, 3);
	assert_header(&q.req, 0, "Host", "example.com");
	assert_header(&q.req, 1, "User-Agent", "t/1.0");
	assert_header(&q.req, 2, "Accept", "*/*");
	/* Pointers go into the caller's buffer. */
	assert_true(q.req.headers[0].name > q.buf && q.req.headers[0].name < q.buf + sizeof(m));
	free(q.buf);
}

static void
test_req_query(void **state)
{
	struct rq q;

	(void)state;
	assert_true(feed_req(S("GET /a/b?x=1&y=2 HTTP/1.0\r\n\r\n"), MAXH, 0, 0, &q) > 0);
	assert_int_equal(q.req.minor_version, 0);
	assert_span(q.req.path, q.req.path_len, "/a/b");
	assert_span(q.req.query, q.req.query_len, "x=1&y=2");
	assert_int_equal(q.req.num_headers, 0);
	free(q.buf);
	/* An empty query is not an absent one. */
	assert_true(feed_req(S("GET /? HTTP/1.1\r\n\r\n"), MAXH, 0, 0, &q) > 0);
	assert_span(q.req.path, q.req.path_len, "/");
	assert_non_null(q.req.query);
	assert_int_equal(q.req.query_len, 0);
	free(q.buf);
	assert_true(feed_req(S("GET /a?b?c HTTP/1.1\r\n\r\n"), MAXH, 0, 0, &q) > 0);
	assert_span(q.req.path, q.req.path_len, "/a");
	assert_span(q.req.query, q.req.query_len, "b?c");
	free(q.buf);
}

static void
test_req_forms(void **state)
{
	struct rq q;

	(void)state;
	assert_true(feed_req(S("GET http://example.com:8080/p/q?x HTTP/1.1\r\nHost: h\r\n\r\n"),
	    MAXH, 0, 0, &q) > 0);
	assert_int_equal(q.req.form, HTTP_TARGET_ABSOLUTE);
	assert_span(q.req.authority, q.req.authority_len, "example.com:8080");
	assert_span(q.req.path, q.req.path_len, "/p/q");
	assert_span(q.req.query, q.req.query_len, "x");
	free(q.buf);
	/* An empty path is "/". */
	assert_true(feed_req(S("GET HTTP://h HTTP/1.1\r\n\r\n"), MAXH, 0, 0, &q) > 0);
	assert_span(q.req.authority, q.req.authority_len, "h");
	assert_span(q.req.path, q.req.path_len, "/");
	assert_null(q.req.query);
	free(q.buf);
	assert_true(feed_req(S("GET http://h?a=b HTTP/1.1\r\n\r\n"), MAXH, 0, 0, &q) > 0);
	assert_span(q.req.path, q.req.path_len, "/");
	assert_span(q.req.query, q.req.query_len, "a=b");
	free(q.buf);
	assert_true(feed_req(S("OPTIONS * HTTP/1.1\r\n\r\n"), MAXH, 0, 0, &q) > 0);
	assert_int_equal(q.req.form, HTTP_TARGET_ASTERISK);
	assert_int_equal(q.req.method_id, HTTP_METHOD_OPTIONS);
	assert_null(q.req.path);
	free(q.buf);
	assert_true(feed_req(S("CONNECT example.com:443 HTTP/1.1\r\n\r\n"), MAXH, 0, 0, &q) > 0);
	assert_int_equal(q.req.form, HTTP_TARGET_AUTHORITY);
	assert_span(q.req.authority, q.req.authority_len, "example.com:443");
	assert_null(q.req.path);
	free(q.buf);
	req_malformed(S("GET * HTTP/1.1\r\n\r\n"));
	req_malformed(S("CONNECT /x HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET http//x HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET http:///p HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET 1http://h/ HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET index.html HTTP/1.1\r\n\r\n"));
}

static void
test_req_methods(void **state)
{
	static const struct {
		const char *m;
		enum http_method id;
	} tab[] = {
		{ "GET / HTTP/1.1\r\n\r\n", HTTP_METHOD_GET },
		{ "HEAD / HTTP/1.1\r\n\r\n", HTTP_METHOD_HEAD },
		{ "POST / HTTP/1.1\r\n\r\n", HTTP_METHOD_POST },
		{ "PUT / HTTP/1.1\r\n\r\n", HTTP_METHOD_PUT },
		{ "DELETE / HTTP/1.1\r\n\r\n", HTTP_METHOD_DELETE },
		{ "TRACE / HTTP/1.1\r\n\r\n", HTTP_METHOD_TRACE },
		{ "PATCH / HTTP/1.1\r\n\r\n", HTTP_METHOD_PATCH },
		{ "get / HTTP/1.1\r\n\r\n", HTTP_METHOD_OTHER }, /* methods are case-sensitive */
		{ "GETS / HTTP/1.1\r\n\r\n", HTTP_METHOD_OTHER },
		{ "M-SEARCH / HTTP/1.1\r\n\r\n", HTTP_METHOD_OTHER },
	};
	size_t i;
	struct rq q;

	(void)state;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		assert_true(feed_req(tab[i].m, strlen(tab[i].m), MAXH, 0, 0, &q) > 0);
		assert_int_equal(q.req.method_id, tab[i].id);
		free(q.buf);
	}
}

static void
test_req_values(void **state)
{
	struct rq q;

	(void)state;
	/* OWS around values is trimmed; inner whitespace, obs-text and empty values stay. */
	assert_true(feed_req(S("GET / HTTP/1.1\r\nA:  x  y \t\r\nB:\r\nC:\t\r\nD: caf\xc3\xa9\r\n"
	    "E:z\r\n\r\n"), MAXH, 0, 0, &q) > 0);
	assert_int_equal(q.req.num_headers, 5);
	assert_header(&q.req, 0, "A", "x  y");
	assert_int_equal(q.req.headers[1].value_len, 0);
	assert_int_equal(q.req.headers[2].value_len, 0);
	assert_header(&q.req, 3, "D", "caf\xc3\xa9");
	assert_header(&q.req, 4, "E", "z");
	free(q.buf);
}

/* Bare LF ends lines as CRLF does (RFC 9112 §2.2), in any mix. */
static void
test_req_bare_lf(void **state)
{
	static const char m[] = "GET / HTTP/1.1\nHost: a\r\nX: y\n\n";
	static const char m2[] = "GET / HTTP/1.1\r\nHost: a\n\r\n";
	struct rq q;

	(void)state;
	assert_int_equal(feed_req(S(m), MAXH, 0, 0, &q), (int)sizeof(m) - 1);
	assert_int_equal(q.req.num_headers, 2);
	assert_header(&q.req, 0, "Host", "a");
	assert_header(&q.req, 1, "X", "y");
	free(q.buf);
	assert_int_equal(feed_req(S(m2), MAXH, 0, 0, &q), (int)sizeof(m2) - 1);
	free(q.buf);
}

static void
test_req_leading_empty_lines(void **state)
{
	static const char m[] = "\r\n\n\r\nGET / HTTP/1.1\r\n\r\n";
	struct rq q;

	(void)state;
	assert_int_equal(feed_req(S(m), MAXH, 0, 0, &q), (int)sizeof(m) - 1);
	assert_span(q.req.method, q.req.method_len, "GET");
	free(q.buf);
	/* They count against max_line: 5 bytes skipped + 14 of line > 18. */
	req_bad(S(m), MAXH, 18, 0, HTTP_ERR_LINE_TOO_LONG);
	assert_int_equal(feed_req(S(m), MAXH, 19, 0, &q), (int)sizeof(m) - 1);
	free(q.buf);
	/* A CR that starts no CRLF is no empty line. */
	req_malformed(S("\rGET / HTTP/1.1\r\n\r\n"));
	/* An endless stream of empty lines ends too. */
	req_bad(S("\r\n\r\n\r\n\r\n\r\n\r\n"), MAXH, 8, 0, HTTP_ERR_LINE_TOO_LONG);
	/* Empty lines and request line at 16, header section at 14: both just fit. */
	assert_int_equal(feed_req(S("\r\nGET / HTTP/1.1\r\nA: 1234567\r\n\r"), MAXH, 16, 14, &q), -2);
	free(q.buf);
	assert_int_equal(feed_req(S("\r\nGET / HTTP/1.1\r\nA: 1234567\r\n\r\n"), MAXH, 16, 14, &q),
	    32);
	free(q.buf);
	req_bad(S("\r\nGET / HTTP/1.1\r\nA: 12345678\r\n\r\n"), MAXH, 16, 14,
	    HTTP_ERR_HEAD_TOO_LARGE);
}

static void
test_req_incomplete(void **state)
{
	struct rq q;

	(void)state;
	assert_int_equal(feed_req(S("GET / HTTP/1.1\r\nHost: a\r\n"), MAXH, 0, 0, &q), -2);
	assert_int_equal(q.req.error, HTTP_ERR_NONE);
	free(q.buf);
	assert_int_equal(feed_req(S("GET / HTTP/1.1\r\nHost: a\r\n\r"), MAXH, 0, 0, &q), -2);
	free(q.buf);
	assert_int_equal(feed_req(S(""), MAXH, 0, 0, &q), -2);
	free(q.buf);
}

static void
test_req_pipelined(void **state)
{
	static const char m[] = "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
	    "GET /2 HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n";
	static const size_t first = sizeof("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n") - 1;
	struct rq q;

	(void)state;
	assert_int_equal(feed_req(S(m), MAXH, 0, 0, &q), (int)first);
	assert_span(q.req.path, q.req.path_len, "/1");
	assert_int_equal(q.req.num_headers, 1);
	free(q.buf);
	assert_int_equal(feed_req(m + first, sizeof(m) - 1 - first, MAXH, 0, 0, &q),
	    (int)(sizeof(m) - 1 - first));
	assert_span(q.req.path, q.req.path_len, "/2");
	assert_header(&q.req, 1, "Connection", "close");
	free(q.buf);
	/* A request followed by a body: the body is not consumed. */
	assert_int_equal(feed_req(S("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"), MAXH, 0, 0,
	    &q), (int)sizeof("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n") - 1);
	free(q.buf);
}

static void
test_req_malformed_line(void **state)
{
	(void)state;
	req_malformed(S("GET  / HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET /  HTTP/1.1\r\n\r\n"));
	req_malformed(S(" GET / HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1 \r\n\r\n"));
	req_malformed(S("GET\t/ HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET /a\tb HTTP/1.1\r\n\r\n"));
	req_malformed(S("G\x01T / HTTP/1.1\r\n\r\n"));
	req_malformed(S("G\0T / HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET /\0 HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET /\x7f HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET /caf\xc3\xa9 HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET /a#frag HTTP/1.1\r\n\r\n"));
	req_malformed(S("G(T / HTTP/1.1\r\n\r\n"));
	req_malformed(S("GET /\r HTTP/1.1\r\n\r\n"));   /* bare CR */
	req_malformed(S("GET / HTTP/1.1\rHost: a\r\n\r\n"));
	req_malformed(S("GET /\r\n\r\n"));              /* HTTP/0.9 */
	req_malformed(S("GET / http/1.1\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.10\r\n\r\n"));
	req_malformed(S("GET / HTTP/11.1\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.\r\n\r\n"));
	req_malformed(S("GET / HTTP/1\r\n\r\n"));
	req_malformed(S("GET / HTTP/a.b\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\r\n\r\n"));
	req_malformed(S("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n"));
}

static void
test_req_malformed_headers(void **state)
{
	(void)state;
	/* Whitespace between name and colon (RFC 9112 §5.1). */
	req_malformed(S("GET / HTTP/1.1\r\nHost : a\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nHost\t: a\r\n\r\n"));
	/* obs-fold, and whitespace before the first field. */
	req_malformed(S("GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nA: b\r\n\tc\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\n Host: a\r\n\r\n"));
	/* Names: tokens only, not empty, colon needed. */
	req_malformed(S("GET / HTTP/1.1\r\n: a\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nHost a\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nHo\0st: a\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\n\0Host: a\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nHo\x01st: a\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nHo\x7fst: a\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nH\xc3\xa9: a\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\n[x]: a\r\n\r\n"));
	/* Values: no CTL but HTAB, no NUL, no bare CR. */
	req_malformed(S("GET / HTTP/1.1\r\nA: b\0c\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nA: b\x01\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nA: b\x7f\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nA: b\rB: c\r\n\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nA: b\r\r\n\r\n"));
	/* A bare CR is no end of the head either. */
	req_malformed(S("GET / HTTP/1.1\r\nA: b\r\n\r\r\n"));
	req_malformed(S("GET / HTTP/1.1\r\nA: b\r\n\rX\r\n"));
}

static void
test_req_version(void **state)
{
	(void)state;
	req_bad(S("GET / HTTP/2.0\r\n\r\n"), MAXH, 0, 0, HTTP_ERR_VERSION);
	req_bad(S("GET / HTTP/0.9\r\n\r\n"), MAXH, 0, 0, HTTP_ERR_VERSION);
	req_bad(S("GET / HTTP/3.0\r\nHost: a\r\n\r\n"), MAXH, 0, 0, HTTP_ERR_VERSION);
	assert_int_equal(http_error_status(HTTP_ERR_VERSION), 505);
}

/* RFC 9110 §2.5: a higher minor version of 1.x is served as the highest we have, 1.1. */
static void
test_req_version_higher_minor(void **state)
{
	static const char *const v[] = { "GET / HTTP/1.2\r\nHost: a\r\n\r\n",
	    "GET / HTTP/1.9\r\nHost: a\r\n\r\n" };
	struct rq q;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		rq_parse(v[i], strlen(v[i]), MAXH, 0, 0, &q);
		assert_int_equal(q.req.error, HTTP_ERR_NONE);
		assert_int_equal(q.r, (int)strlen(v[i]));
		assert_int_equal(q.req.minor_version, 1);
		free(q.buf);
	}
}

static void
test_req_line_too_long(void **state)
{
	static const char ok32[] = "GET /aaaaaaaaaaaaaaaaaa HTTP/1.1\r\n\r\n"; /* line is 32 */
	static const char ok32lf[] = "GET /aaaaaaaaaaaaaaaaaa HTTP/1.1\n\n";
	static const char long33[] = "GET /aaaaaaaaaaaaaaaaaaa HTTP/1.1\r\n\r\n";
	static const char long33lf[] = "GET /aaaaaaaaaaaaaaaaaaa HTTP/1.1\n\n";
	char big[HTTP_MAX_LINE_DEFAULT + 64];
	struct rq q;
	size_t n;

	(void)state;
	assert_int_equal(feed_req(S(ok32), MAXH, 32, 0, &q), (int)sizeof(ok32) - 1);
	free(q.buf);
	assert_int_equal(feed_req(S(ok32lf), MAXH, 32, 0, &q), (int)sizeof(ok32lf) - 1);
	free(q.buf);
	req_bad(S(long33), MAXH, 32, 0, HTTP_ERR_LINE_TOO_LONG);
	req_bad(S(long33lf), MAXH, 32, 0, HTTP_ERR_LINE_TOO_LONG);
	/* No line end at all: refused as soon as no line end could make it fit. */
	req_bad(S("GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), MAXH, 32, 0,
	    HTTP_ERR_LINE_TOO_LONG);
	/* The length is judged before the content: a long line is a 414 whatever it holds. */
	req_bad(S("GET /aaa\x01" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\n\r\n"), MAXH, 32, 0,
	    HTTP_ERR_LINE_TOO_LONG);
	assert_int_equal(http_error_status(HTTP_ERR_LINE_TOO_LONG), 414);
	/* The default limit. */
	memcpy(big, "GET /", 5);
	n = HTTP_MAX_LINE_DEFAULT - 5 - 9;
	memset(big + 5, 'a', n);
	memcpy(big + 5 + n, " HTTP/1.1\r\n\r\n", 13);
	assert_int_equal(feed_req(big, 5 + n + 13, MAXH, 0, 0, &q), (int)(5 + n + 13));
	free(q.buf);
	memset(big + 5, 'a', n + 1);
	memcpy(big + 5 + n + 1, " HTTP/1.1\r\n\r\n", 13);
	req_bad(big, 5 + n + 1 + 13, MAXH, 0, 0, HTTP_ERR_LINE_TOO_LONG);
}

static void
test_req_head_too_large(void **state)
{
	/* Header section: "A: 0123456789\r\n" (15) + "B: 012345678901234567\r\n" (23) + 2 = 40 */
	static const char m40[] = "GET / HTTP/1.1\r\nA: 0123456789\r\n"
	    "B: 012345678901234567\r\n\r\n";
	static const char m41[] = "GET / HTTP/1.1\r\nA: 0123456789\r\n"
	    "B: 0123456789012345678\r\n\r\n";
	static const char mlf[] = "GET / HTTP/1.1\r\nA: 0123456789\r\nB: 0123456789012345678\n\n";
	struct rq q;

	(void)state;
	assert_int_equal(feed_req(S(m40), MAXH, 0, 40, &q), (int)sizeof(m40) - 1);
	free(q.buf);
	req_bad(S(m41), MAXH, 0, 40, HTTP_ERR_HEAD_TOO_LARGE);
	assert_int_equal(feed_req(S(mlf), MAXH, 0, 40, &q), (int)sizeof(mlf) - 1);
	free(q.buf);
	/* One endless field. */
	req_bad(S("GET / HTTP/1.1\r\nA: 0123456789012345678901234567890123456789"), MAXH, 0, 40,
	    HTTP_ERR_HEAD_TOO_LARGE);
	/* Many small ones. */
	req_bad(S("GET / HTTP/1.1\r\nA: 1\r\nA: 1\r\nA: 1\r\nA: 1\r\nA: 1\r\nA: 1\r\nA: 1\r\n\r\n"),
	    MAXH, 0, 40, HTTP_ERR_HEAD_TOO_LARGE);
	assert_int_equal(http_error_status(HTTP_ERR_HEAD_TOO_LARGE), 431);
}

static void
test_req_too_many_headers(void **state)
{
	static const char m2[] = "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n\r\n";
	static const char m3[] = "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n";
	struct rq q;

	(void)state;
	assert_int_equal(feed_req(S(m2), 2, 0, 0, &q), (int)sizeof(m2) - 1);
	free(q.buf);
	req_bad(S(m3), 2, 0, 0, HTTP_ERR_TOO_MANY_HEADERS);
	req_bad(S(m2), 0, 0, 0, HTTP_ERR_TOO_MANY_HEADERS);
	assert_int_equal(feed_req(S("GET / HTTP/1.1\r\n\r\n"), 0, 0, 0, &q), 18);
	free(q.buf);
	assert_int_equal(http_error_status(HTTP_ERR_TOO_MANY_HEADERS), 431);
	assert_int_equal(http_error_status(HTTP_ERR_MALFORMED), 400);
	assert_string_equal(http_error_str(HTTP_ERR_TOO_MANY_HEADERS), "too many header fields");
}

/* Mutations of good requests (xorshift, fixed seed): whatever the parser says, it says it
 * consistently for every prefix (feed_req checks), and never reads past the buffer (ASan). */
static uint32_t
rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void
test_req_mutations(void **state)
{
	static const char base[] = "GET http://h/a/b?c=d HTTP/1.1\r\nHost: h\r\n"
	    "Transfer-Encoding: chunked\r\nX: y\r\n\r\n";
	static const char bytes[] = "\0\t\n\r :/?%#\x7f\x80\xff";
	char m[sizeof(base) + 8];
	uint32_t x = 2463534242u;
	size_t len;
	int i, k, ok = 0;
	struct rq q;

	(void)state;
	/* Limits fit base exactly, so even whole mutants are held to the verdict bound. */
	assert_int_equal(feed_req(S(base), 4, 29, 45, &q), (int)sizeof(base) - 1);
	free(q.buf);
	for (i = 0; i < 3000; i++) {
		memcpy(m, base, sizeof(base) - 1);
		len = sizeof(base) - 1;
		for (k = 0; k < 1 + (int)(rnd(&x) % 3); k++) {
			size_t at = rnd(&x) % len;

			switch (rnd(&x) % 3) {
			case 0:
				m[at] = bytes[rnd(&x) % (sizeof(bytes) - 1)];
				break;
			case 1:
				m[at] = (char)rnd(&x);
				break;
			default:
				memmove(m + at, m + at + 1, len - at - 1); /* drop a byte */
				len--;
			}
		}
		if (feed_req(m, len, 4, 29, 45, &q) >= 0)
			ok++;
		free(q.buf);
	}
	assert_true(ok > 0 && ok < 3000);
}

/* Responses */

struct rs {
	struct http_response res;
	struct http_header h[MAXH];
	char *buf;
	int r;
};

static int
rs_parse(const char *msg, size_t len, size_t maxh, struct rs *s)
{
	memset(&s->res, 0x5a, sizeof(s->res));
	s->res.headers = s->h;
	s->res.max_line = 0;
	s->res.max_head = 0;
	s->buf = dup_exact(msg, len);
	s->r = http_parse_response(s->buf, len, &s->res, maxh);
	return s->r;
}

static int
feed_res(const char *msg, size_t len, size_t maxh, struct rs *s)
{
	size_t i;
	int seen = 0;

	rs_parse(msg, len, maxh, s);
	for (i = 0; i <= len; i++) {
		struct rs t;

		rs_parse(msg, i, maxh, &t);
		if (s->r >= 0) {
			if (i < (size_t)s->r) {
				assert_int_equal(t.r, -2);
			} else {
				assert_int_equal(t.r, s->r);
				assert_int_equal(t.res.status, s->res.status);
				assert_int_equal(t.res.minor_version, s->res.minor_version);
				same_ptr(t.res.reason, t.buf, s->res.reason, s->buf);
				assert_int_equal(t.res.reason_len, s->res.reason_len);
				assert_int_equal(t.res.num_headers, s->res.num_headers);
				same_headers(t.res.headers, t.buf, s->res.headers, s->buf,
				    s->res.num_headers);
			}
		} else if (s->r == -1) {
			if (t.r == -1) {
				assert_int_equal(t.res.error, s->res.error);
				seen = 1;
			} else {
				assert_false(seen);
				assert_int_equal(t.r, -2);
			}
		} else {
			assert_int_equal(t.r, -2);
		}
		free(t.buf);
	}
	return s->r;
}

static void
res_bad(const char *msg, size_t len, enum http_error err)
{
	struct rs s;

	assert_int_equal(feed_res(msg, len, MAXH, &s), -1);
	assert_int_equal(s.res.error, err);
	free(s.buf);
}

static void
test_res_simple(void **state)
{
	static const char m[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: x\r\n\r\nhello";
	struct rs s;

	(void)state;
	assert_int_equal(feed_res(S(m), MAXH, &s), (int)sizeof(m) - 1 - 5);
	assert_int_equal(s.res.status, 200);
	assert_int_equal(s.res.minor_version, 1);
	assert_span(s.res.reason, s.res.reason_len, "OK");
	assert_int_equal(s.res.num_headers, 2);
	assert_span(s.res.headers[1].value, s.res.headers[1].value_len, "x");
	free(s.buf);
	assert_true(feed_res(S("HTTP/1.0 404 Not Found\n\n"), MAXH, &s) > 0);
	assert_int_equal(s.res.status, 404);
	assert_int_equal(s.res.minor_version, 0);
	assert_span(s.res.reason, s.res.reason_len, "Not Found");
	free(s.buf);
	/* No reason, with or without its space. */
	assert_true(feed_res(S("HTTP/1.1 204\r\n\r\n"), MAXH, &s) > 0);
	assert_int_equal(s.res.status, 204);
	assert_int_equal(s.res.reason_len, 0);
	free(s.buf);
	assert_true(feed_res(S("HTTP/1.1 599 \r\n\r\n"), MAXH, &s) > 0);
	assert_int_equal(s.res.status, 599);
	assert_int_equal(s.res.reason_len, 0);
	free(s.buf);
	assert_int_equal(feed_res(S("HTTP/1.1 200 OK\r\nA: b\r\n"), MAXH, &s), -2);
	free(s.buf);
}

static void
test_res_errors(void **state)
{
	(void)state;
	res_bad(S("HTTP/1.1 20 OK\r\n\r\n"), HTTP_ERR_MALFORMED);
	res_bad(S("HTTP/1.1 2000 OK\r\n\r\n"), HTTP_ERR_MALFORMED);
	res_bad(S("HTTP/1.1 099 X\r\n\r\n"), HTTP_ERR_MALFORMED);
	res_bad(S("HTTP/1.1 2x0 X\r\n\r\n"), HTTP_ERR_MALFORMED);
	res_bad(S("HTTP/1.1  200 OK\r\n\r\n"), HTTP_ERR_MALFORMED);
	res_bad(S("HTTX/1.1 200 OK\r\n\r\n"), HTTP_ERR_MALFORMED);
	res_bad(S("HTTP/1.1 200 O\x01K\r\n\r\n"), HTTP_ERR_MALFORMED);
	res_bad(S("HTTP/1.1 200 OK\r\nA : b\r\n\r\n"), HTTP_ERR_MALFORMED);
	res_bad(S("HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n"), HTTP_ERR_MALFORMED);
	res_bad(S("HTTP/2.0 200 OK\r\n\r\n"), HTTP_ERR_VERSION);
	{
		struct rs s;

		assert_int_equal(feed_res(S("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\n\r\n"), 1, &s), -1);
		assert_int_equal(s.res.error, HTTP_ERR_TOO_MANY_HEADERS);
		free(s.buf);
	}
}

/* Header semantics */

static const struct http_header *
headers_of(const char *msg, struct rq *q)
{
	assert_true(rq_parse(msg, strlen(msg), MAXH, 0, 0, q) > 0);
	return q->h;
}

static void
test_header_find(void **state)
{
	struct rq q;
	const struct http_header *h = headers_of("GET / HTTP/1.1\r\nhost: a\r\nX: 1\r\n"
	    "HOST: b\r\n\r\n", &q), *f;
	const char *p, *e;
	size_t n = q.req.num_headers, elen;
	static const char list[] = " a , ,b,,\tc d ,";

	(void)state;
	f = http_header_find(h, n, "Host", NULL);
	assert_ptr_equal(f, &h[0]);
	f = http_header_find(h, n, "Host", f);
	assert_ptr_equal(f, &h[2]);
	assert_null(http_header_find(h, n, "Host", f));
	assert_null(http_header_find(h, n, "Hos", NULL));
	assert_null(http_header_find(h, n, "Hostx", NULL));
	assert_true(http_token_eq("Keep-ALIVE", 10, "keep-alive"));
	assert_false(http_token_eq("keep", 4, "keep-alive"));
	assert_false(http_token_eq("keep-alive2", 11, "keep-alive"));
	free(q.buf);
	p = list;
	assert_true(http_list_next(&p, list + sizeof(list) - 1, &e, &elen));
	assert_span(e, elen, "a");
	assert_true(http_list_next(&p, list + sizeof(list) - 1, &e, &elen));
	assert_span(e, elen, "b");
	assert_true(http_list_next(&p, list + sizeof(list) - 1, &e, &elen));
	assert_span(e, elen, "c d");
	assert_false(http_list_next(&p, list + sizeof(list) - 1, &e, &elen));
}

static int
cl_of(const char *fields, uint64_t *len)
{
	char msg[512];
	struct rq q;
	int r;

	snprintf(msg, sizeof(msg), "POST / HTTP/1.1\r\n%s\r\n", fields);
	headers_of(msg, &q);
	r = http_content_length(q.h, q.req.num_headers, len);
	free(q.buf);
	return r;
}

static void
test_content_length(void **state)
{
	uint64_t len = 7;

	(void)state;
	assert_int_equal(cl_of("Host: a\r\n", &len), 0);
	assert_int_equal(cl_of("Content-Length: 42\r\n", &len), 1);
	assert_int_equal(len, 42);
	assert_int_equal(cl_of("content-length: 0\r\n", &len), 1);
	assert_int_equal(len, 0);
	assert_int_equal(cl_of("Content-Length: 007\r\n", &len), 1);
	assert_int_equal(len, 7);
	assert_int_equal(cl_of("Content-Length: 9223372036854775807\r\n", &len), 1);
	assert_true(len == INT64_MAX);
	/* Identical repeats are one value (RFC 9110 §8.6). */
	assert_int_equal(cl_of("Content-Length: 5\r\nContent-Length: 5\r\n", &len), 1);
	assert_int_equal(len, 5);
	assert_int_equal(cl_of("Content-Length: 5, 5\r\n", &len), 1);
	assert_int_equal(len, 5);
	/* Strict digits: no sign, no space inside, no hex, no overflow, not empty. */
	assert_int_equal(cl_of("Content-Length: +5\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: -5\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 5 5\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 1 0\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 5a\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 0x5\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 5.0\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: \r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: ,\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 9223372036854775808\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 18446744073709551616\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 99999999999999999999999999\r\n", &len), -1);
	/* Differing values: a smuggling attempt. */
	assert_int_equal(cl_of("Content-Length: 5\r\nContent-Length: 6\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 5, 6\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 5\r\nContent-Length: 5, 50\r\n", &len), -1);
	assert_int_equal(cl_of("Content-Length: 5\r\nContent-Length: x\r\n", &len), -1);
}

/* http_request_framing on a request head; returns its result, *fr filled. */
static int
framing_of(const char *head, struct http_framing *fr)
{
	struct rq q;
	int r;

	assert_true(feed_req(head, strlen(head), MAXH, 0, 0, &q) > 0);
	r = http_request_framing(&q.req, fr);
	free(q.buf);
	return r;
}

static void
test_request_framing(void **state)
{
	struct http_framing fr;

	(void)state;
	assert_int_equal(framing_of("GET / HTTP/1.1\r\n\r\n", &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_NONE);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_NONE);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n", &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_LENGTH);
	assert_int_equal(fr.length, 10);
	assert_int_equal(fr.smuggling, 0);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_CHUNKED);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: CHUNKED\r\n\r\n", &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_CHUNKED);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: , chunked ,\r\n\r\n", &fr),
	    0);
	assert_int_equal(fr.body, HTTP_BODY_CHUNKED);

	/* Smuggling: Content-Length together with Transfer-Encoding, in any order or validity. */
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nContent-Length: 5\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_SMUGGLING);
	assert_int_equal(fr.smuggling, 1);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
	    "Content-Length: 5\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_SMUGGLING);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
	    "Content-Length: +5\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_SMUGGLING);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
	    "Content-Length:\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_SMUGGLING);
	assert_int_equal(framing_of("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n"
	    "Content-Length: 5\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_SMUGGLING);

	/* Content-Length alone but bad. */
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nContent-Length: 5\r\n"
	    "Content-Length: 6\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_LENGTH_CONFLICT);
	assert_int_equal(fr.smuggling, 0);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_LENGTH);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_LENGTH);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nContent-Length: 5\r\n"
	    "Content-Length: 5\r\n\r\n", &fr), 0);
	assert_int_equal(fr.length, 5);

	/* Transfer-Encoding: chunked last and once; others unsupported; none in HTTP/1.0. */
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
	    &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_TE_UNSUPPORTED);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_TE_UNSUPPORTED);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
	    &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_TE);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_TE);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_TE);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked;x=1\r\n\r\n",
	    &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_TE);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n", &fr),
	    -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_TE);
	assert_int_equal(framing_of("POST / HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n", &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_TE);
	assert_int_equal(framing_of("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", &fr),
	    -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_TE);
}

static int
res_framing_of(const char *head, int head_request, struct http_framing *fr)
{
	struct rs s;
	int r;

	assert_true(feed_res(head, strlen(head), MAXH, &s) > 0);
	r = http_response_framing(&s.res, head_request, fr);
	free(s.buf);
	return r;
}

static void
test_response_framing(void **state)
{
	struct http_framing fr;

	(void)state;
	assert_int_equal(res_framing_of("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n", 0, &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_LENGTH);
	assert_int_equal(fr.length, 12);
	assert_int_equal(res_framing_of("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n", 1, &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_NONE);
	assert_int_equal(res_framing_of("HTTP/1.1 304 Not Modified\r\nContent-Length: 12\r\n\r\n", 0,
	    &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_NONE);
	assert_int_equal(res_framing_of("HTTP/1.1 204 No Content\r\n\r\n", 0, &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_NONE);
	assert_int_equal(res_framing_of("HTTP/1.1 100 Continue\r\n\r\n", 0, &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_NONE);
	assert_int_equal(res_framing_of("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0, &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_NONE);
	assert_int_equal(res_framing_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0,
	    &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_CHUNKED);
	assert_int_equal(res_framing_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
	    0, &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_CHUNKED);
	assert_int_equal(res_framing_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 0, &fr),
	    0);
	assert_int_equal(fr.body, HTTP_BODY_CLOSE);
	assert_int_equal(res_framing_of("HTTP/1.0 200 OK\r\n\r\n", 0, &fr), 0);
	assert_int_equal(fr.body, HTTP_BODY_CLOSE);
	assert_int_equal(res_framing_of("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", 0, &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_SMUGGLING);
	assert_int_equal(res_framing_of("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0,
	    &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_BAD_TE);
	assert_int_equal(res_framing_of("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
	    "Content-Length: 4\r\n\r\n", 0, &fr), -1);
	assert_int_equal(fr.error, HTTP_FR_LENGTH_CONFLICT);
}

static void
test_connection(void **state)
{
	static const struct {
		const char *head;
		int keep;
		unsigned flags;
	} tab[] = {
		{ "GET / HTTP/1.1\r\n\r\n", 1, 0 },
		{ "GET / HTTP/1.0\r\n\r\n", 0, 0 },
		{ "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 0, HTTP_CONN_CLOSE },
		{ "GET / HTTP/1.1\r\nConnection: Close\r\n\r\n", 0, HTTP_CONN_CLOSE },
		{ "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 1, HTTP_CONN_KEEPALIVE },
		{ "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", 1, HTTP_CONN_KEEPALIVE },
		{ "GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n", 0,
		    HTTP_CONN_CLOSE | HTTP_CONN_KEEPALIVE },
		{ "GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", 0,
		    HTTP_CONN_CLOSE | HTTP_CONN_KEEPALIVE },
		{ "GET / HTTP/1.1\r\nConnection: Upgrade, TE\r\n\r\n", 1, HTTP_CONN_UPGRADE },
		{ "GET / HTTP/1.1\r\nConnection: closed\r\n\r\n", 1, 0 },
		{ "GET / HTTP/1.0\r\nKeep-Alive: timeout=5\r\n\r\n", 0, 0 },
	};
	size_t i;
	struct rq q;

	(void)state;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		headers_of(tab[i].head, &q);
		assert_int_equal(http_connection(q.h, q.req.num_headers), tab[i].flags);
		assert_int_equal(http_keep_alive(q.req.minor_version, q.h, q.req.num_headers),
		    tab[i].keep);
		free(q.buf);
	}
}

static int
host_of(const char *head, const char *want)
{
	struct rq q;
	const char *host;
	size_t len;
	int r;

	headers_of(head, &q);
	r = http_request_host(&q.req, &host, &len);
	if (r == 0 && want == NULL)
		assert_null(host);
	else if (r == 0)
		assert_span(host, len, want);
	free(q.buf);
	return r;
}

static void
test_host(void **state)
{
	(void)state;
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", "example.com"), 0);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: example.com:8080\r\n\r\n", "example.com"),
	    0);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n", "[::1]"), 0);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: 10.0.0.1\r\n\r\n", "10.0.0.1"), 0);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: a%2eb\r\n\r\n", "a%2eb"), 0);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost:\r\n\r\n", ""), 0);
	assert_int_equal(host_of("GET / HTTP/1.0\r\n\r\n", NULL), 0);
	assert_int_equal(host_of("GET / HTTP/1.0\r\nHost: h\r\n\r\n", "h"), 0);
	/* The authority of an absolute-form target wins over Host. */
	assert_int_equal(host_of("GET http://real:81/ HTTP/1.1\r\nHost: other\r\n\r\n", "real"), 0);
	assert_int_equal(host_of("GET http://real/ HTTP/1.0\r\n\r\n", "real"), 0);
	/* 400s (RFC 9112 §3.2). */
	assert_int_equal(host_of("GET / HTTP/1.1\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: user@a\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: a:8x\r\n\r\n", NULL), -1);
	/* Ports (issue 33): 65535 at most, leading zeros as digits; the authority's as well. */
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: evil.com:99999\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: a:65536\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: a:65535\r\n\r\n", "a"), 0);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: a:0000000080\r\n\r\n", "a"), 0);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: a:\r\n\r\n", "a"), 0);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: [::1]:70000\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET http://a:99999/ HTTP/1.1\r\nHost: a\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: [zz]\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET http://u@real/ HTTP/1.1\r\nHost: real\r\n\r\n", NULL), -1);
	assert_int_equal(host_of("GET http://:80/ HTTP/1.1\r\nHost: real\r\n\r\n", NULL), -1);
}

/* Conditional requests */

static enum http_cond
cond_of(const char *head, const char *etag, time_t mtime)
{
	struct rq q;
	enum http_cond c;

	assert_true(feed_req(head, strlen(head), MAXH, 0, 0, &q) > 0);
	c = http_preconditions(&q.req, etag, strlen(etag), mtime);
	free(q.buf);
	return c;
}

static int
if_range_of(const char *head, const char *etag, time_t mtime)
{
	struct rq q;
	int r;

	assert_true(feed_req(head, strlen(head), MAXH, 0, 0, &q) > 0);
	r = http_if_range(&q.req, etag, strlen(etag), mtime);
	free(q.buf);
	return r;
}

static void
test_conditional(void **state)
{
	static const char e[] = "\"5e0d5da5-14\"";
	const time_t t = 1577934245; /* Thu, 02 Jan 2020 03:04:05 GMT */
	char buf[HTTP_ETAG_MAX];

	(void)state;
	assert_int_equal(http_etag_format(t, 20, buf, sizeof(buf)), strlen(e));
	assert_string_equal(buf, e);
	assert_int_equal(http_etag_format(t, 20, buf, 5), 0);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\n\r\n", e, t), HTTP_COND_OK);
	/* If-None-Match: weak comparison, "*", lists, several fields; 412 for unsafe methods. */
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"5e0d5da5-14\"\r\n\r\n",
	    e, t), HTTP_COND_NOT_MODIFIED);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-None-Match: W/\"5e0d5da5-14\"\r\n\r\n",
	    e, t), HTTP_COND_NOT_MODIFIED);
	assert_int_equal(cond_of("HEAD / HTTP/1.1\r\nHost: a\r\nIf-None-Match: *\r\n\r\n", e, t),
	    HTTP_COND_NOT_MODIFIED);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"a\" , \"5e0d5da5-14\"\r\n\r\n",
	    e, t), HTTP_COND_NOT_MODIFIED);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"a\"\r\n"
	    "If-None-Match: \"5e0d5da5-14\"\r\n\r\n", e, t), HTTP_COND_NOT_MODIFIED);
	assert_int_equal(cond_of("POST / HTTP/1.1\r\nHost: a\r\nIf-None-Match: *\r\n\r\n", e, t),
	    HTTP_COND_FAILED);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"5e0d5da5\"\r\n\r\n",
	    e, t), HTTP_COND_OK);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-None-Match: 5e0d5da5-14\r\n\r\n",
	    e, t), HTTP_COND_OK);
	/* If-None-Match present: If-Modified-Since is not looked at (RFC 9110 13.1.3). */
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"a\"\r\n"
	    "If-Modified-Since: Fri, 01 Jan 2021 00:00:00 GMT\r\n\r\n", e, t), HTTP_COND_OK);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\n"
	    "If-Modified-Since: Fri, 01 Jan 2021 00:00:00 GMT\r\n\r\n", e, t),
	    HTTP_COND_NOT_MODIFIED);
	/* The boundary (issue 33): equal to Last-Modified is not modified; a second later is. */
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\n"
	    "If-Modified-Since: Thu, 02 Jan 2020 03:04:05 GMT\r\n\r\n", e, t),
	    HTTP_COND_NOT_MODIFIED);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\n"
	    "If-Modified-Since: Thu, 02 Jan 2020 03:04:04 GMT\r\n\r\n", e, t), HTTP_COND_OK);
	/* If-Match: strong; If-Unmodified-Since only without it. */
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-Match: W/\"5e0d5da5-14\"\r\n\r\n",
	    e, t), HTTP_COND_FAILED);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-Match: \"5e0d5da5-14\"\r\n"
	    "If-Unmodified-Since: Wed, 01 Jan 2020 00:00:00 GMT\r\n\r\n", e, t), HTTP_COND_OK);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\n"
	    "If-Unmodified-Since: Wed, 01 Jan 2020 00:00:00 GMT\r\n\r\n", e, t), HTTP_COND_FAILED);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\n"
	    "If-Unmodified-Since: Thu, 02 Jan 2020 03:04:05 GMT\r\n\r\n", e, t), HTTP_COND_OK);
	assert_int_equal(cond_of("GET / HTTP/1.1\r\nHost: a\r\nIf-Unmodified-Since: soon\r\n\r\n",
	    e, t), HTTP_COND_OK);
	/* If-Range: our strong ETag or exactly our date. */
	assert_int_equal(if_range_of("GET / HTTP/1.1\r\nHost: a\r\n\r\n", e, t), 1);
	assert_int_equal(if_range_of("GET / HTTP/1.1\r\nHost: a\r\nIf-Range: \"5e0d5da5-14\"\r\n\r\n",
	    e, t), 1);
	assert_int_equal(if_range_of("GET / HTTP/1.1\r\nHost: a\r\nIf-Range: W/\"5e0d5da5-14\"\r\n\r\n",
	    e, t), 0);
	assert_int_equal(if_range_of("GET / HTTP/1.1\r\nHost: a\r\n"
	    "If-Range: Thu, 02 Jan 2020 03:04:05 GMT\r\n\r\n", e, t), 1);
	assert_int_equal(if_range_of("GET / HTTP/1.1\r\nHost: a\r\n"
	    "If-Range: Thu, 02 Jan 2020 03:04:06 GMT\r\n\r\n", e, t), 0);
}

/* Range */

static void
test_ranges_multi(void **state)
{
	struct http_range r[4];
	size_t n;
	static const char v[] = "bytes=0-1, 5-6,-2,100-";

	(void)state;
	assert_int_equal(http_ranges_parse(v, strlen(v), 20, r, 4, &n), HTTP_RANGE_OK);
	assert_int_equal(n, 3); /* 100- is unsatisfiable and left out */
	assert_true(r[0].first == 0 && r[0].last == 1 && r[1].first == 5 && r[1].last == 6 &&
	    r[2].first == 18 && r[2].last == 19);
	assert_int_equal(http_ranges_parse(v, strlen(v), 20, r, 3, &n), HTTP_RANGE_MULTI);
	assert_int_equal(http_ranges_parse("bytes=30-,40-", 13, 20, r, 4, &n),
	    HTTP_RANGE_UNSATISFIABLE);
	assert_int_equal(http_ranges_parse("bytes=1-0,2-3", 13, 20, r, 4, &n), HTTP_RANGE_IGNORE);
	assert_int_equal(http_ranges_parse("items=1-2", 9, 20, r, 4, &n), HTTP_RANGE_IGNORE);
}

static void
range_ok(const char *v, uint64_t size, uint64_t first, uint64_t last)
{
	struct http_range r;

	assert_int_equal(http_range_parse(v, strlen(v), size, &r), HTTP_RANGE_OK);
	assert_true(r.first == first);
	assert_true(r.last == last);
}

static void
range_is(const char *v, uint64_t size, enum http_range_result want)
{
	struct http_range r;

	assert_int_equal(http_range_parse(v, strlen(v), size, &r), want);
}

static void
test_range(void **state)
{
	(void)state;
	range_ok("bytes=0-499", 1000, 0, 499);
	range_ok("bytes=500-999", 1000, 500, 999);
	range_ok("bytes=500-", 1000, 500, 999);
	range_ok("bytes=-200", 1000, 800, 999);
	range_ok("bytes=-2000", 1000, 0, 999);
	range_ok("bytes=0-5000", 1000, 0, 999);
	range_ok("bytes=999-999", 1000, 999, 999);
	/* the last byte position at the edge: size - 1 kept, size clamped to size - 1 */
	range_ok("bytes=0-999", 1000, 0, 999);
	range_ok("bytes=0-1000", 1000, 0, 999);
	range_ok("bytes=0-0", 1, 0, 0);
	range_ok("Bytes=1-2", 1000, 1, 2);
	range_ok("bytes= 1-2 ,", 1000, 1, 2);
	range_ok("bytes=0-99999999999999999999999", 1000, 0, 999);
	range_ok("bytes=-99999999999999999999999", 1000, 0, 999);
	range_is("bytes=1000-", 1000, HTTP_RANGE_UNSATISFIABLE);
	range_is("bytes=1000-2000", 1000, HTTP_RANGE_UNSATISFIABLE);
	range_is("bytes=99999999999999999999999-", 1000, HTTP_RANGE_UNSATISFIABLE);
	range_is("bytes=-0", 1000, HTTP_RANGE_UNSATISFIABLE);
	range_is("bytes=0-", 0, HTTP_RANGE_UNSATISFIABLE);
	range_is("bytes=-5", 0, HTTP_RANGE_IGNORE);
	range_is("bytes=0-1,5-6", 1000, HTTP_RANGE_MULTI);
	range_is("bytes=0-1, -5", 1000, HTTP_RANGE_MULTI);
	range_is("bytes=5-4", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=0-1,5-4", 1000, HTTP_RANGE_IGNORE);
	range_is("items=0-1", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes 0-1", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes =0-1", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=,", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=-", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=--5", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=a-b", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=0 - 5", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=+1-2", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=1-2-3", 1000, HTTP_RANGE_IGNORE);
	range_is("bytes=12", 1000, HTTP_RANGE_IGNORE);
	range_is("", 1000, HTTP_RANGE_IGNORE);
}

static enum http_range_result
request_range_of(const char *head, uint64_t size, struct http_range *r)
{
	struct rq q;
	enum http_range_result res;

	headers_of(head, &q);
	res = http_request_range(&q.req, size, r);
	free(q.buf);
	return res;
}

static void
test_request_range(void **state)
{
	struct http_range r;

	(void)state;
	assert_int_equal(request_range_of("GET / HTTP/1.1\r\nRange: bytes=10-19\r\n\r\n", 100, &r),
	    HTTP_RANGE_OK);
	assert_true(r.first == 10 && r.last == 19);
	assert_int_equal(request_range_of("GET / HTTP/1.1\r\nrange: bytes=-5\r\n\r\n", 100, &r),
	    HTTP_RANGE_OK);
	assert_true(r.first == 95 && r.last == 99);
	assert_int_equal(request_range_of("GET / HTTP/1.1\r\n\r\n", 100, &r), HTTP_RANGE_IGNORE);
	/* Range means something for GET only (RFC 9110 §14.2). */
	assert_int_equal(request_range_of("HEAD / HTTP/1.1\r\nRange: bytes=0-1\r\n\r\n", 100, &r),
	    HTTP_RANGE_IGNORE);
	assert_int_equal(request_range_of("POST / HTTP/1.1\r\nRange: bytes=0-1\r\n\r\n", 100, &r),
	    HTTP_RANGE_IGNORE);
	assert_int_equal(request_range_of("GET / HTTP/1.1\r\nRange: bytes=0-1\r\n"
	    "Range: bytes=2-3\r\n\r\n", 100, &r), HTTP_RANGE_IGNORE);
	assert_int_equal(request_range_of("GET / HTTP/1.1\r\nRange: bytes=200-\r\n\r\n", 100, &r),
	    HTTP_RANGE_UNSATISFIABLE);
}

/* Dates */

static void
date_is(const char *s, time_t want)
{
	time_t t = 12345;

	assert_int_equal(http_date_parse(s, strlen(s), &t), 0);
	assert_int_equal((long long)t, (long long)want);
}

static void
date_bad(const char *s)
{
	time_t t;

	assert_int_equal(http_date_parse(s, strlen(s), &t), -1);
}

static void
test_date_parse(void **state)
{
	(void)state;
	/* The three formats of RFC 9110 §5.6.7, same instant. */
	date_is("Sun, 06 Nov 1994 08:49:37 GMT", 784111777);
	date_is("Sunday, 06-Nov-94 08:49:37 GMT", 784111777);
	date_is("Sun Nov  6 08:49:37 1994", 784111777);
	date_is("Sun Nov 06 08:49:37 1994", 784111777);
	date_is("Wed Nov 16 08:49:37 1994", 784111777 + 10 * 86400);
	date_is("Thu, 01 Jan 1970 00:00:00 GMT", 0);
	date_is("Wed, 31 Dec 1969 23:59:59 GMT", -1);
	date_is("Tue, 29 Feb 2000 00:00:00 GMT", 951782400);
	date_is("Sat, 31 Dec 2016 23:59:60 GMT", 1483228800); /* leap second */
	date_is("Tue, 19 Jan 2038 03:14:08 GMT", 2147483648LL);
	date_is("Fri, 31 Dec 9999 23:59:59 GMT", 253402300799LL);
	/* Two-digit years: not more than 50 years ahead. */
	date_is("Thursday, 01-Oct-20 00:00:00 GMT", 1601510400);
	date_is("Friday, 01-Jan-99 00:00:00 GMT", 915148800);
	/* The day name is checked as a name only. */
	date_is("Mon, 06 Nov 1994 08:49:37 GMT", 784111777);
	date_bad("");
	date_bad("sun, 06 Nov 1994 08:49:37 GMT");
	date_bad("Sun, 06 nov 1994 08:49:37 GMT");
	date_bad("Sun, 06 Nov 1994 08:49:37 gmt");
	date_bad("Sun, 06 Nov 1994 08:49:37 UTC");
	date_bad("Sun, 6 Nov 1994 08:49:37 GMT");
	date_bad("Sun, 06 Nov 94 08:49:37 GMT");
	date_bad("Sun, 06 Nov 1994 08:49:37 GMT ");
	date_bad("Sun,  06 Nov 1994 08:49:37 GMT");
	date_bad("Sun, 06 Nov 1994 8:49:37 GMT");
	date_bad("Sun, 06 Nov 1994 24:00:00 GMT");
	date_bad("Sun, 06 Nov 1994 23:60:00 GMT");
	date_bad("Sun, 06 Nov 1994 23:59:61 GMT");
	date_bad("Sun, 00 Nov 1994 08:49:37 GMT");
	date_bad("Sun, 31 Nov 1994 08:49:37 GMT");
	date_bad("Sun, 29 Feb 1900 08:49:37 GMT");
	date_bad("Sun, 29 Feb 1999 08:49:37 GMT");
	date_bad("Sun, 06 Xyz 1994 08:49:37 GMT");
	date_bad("Abc, 06 Nov 1994 08:49:37 GMT");
	date_bad("Sun, 06 Nov 19x4 08:49:37 GMT");
	date_bad("Sun, 06 Nov 1994 08-49-37 GMT");
	date_bad("Sunday, 06-Nov-1994 08:49:37 GMT");
	date_bad("Sun, 06-Nov-94 08:49:37 GMT");
	date_bad("Sunday, 06 Nov 94 08:49:37 GMT");
	date_bad("Sunday, 06-Nov-94 08:49:37 UTC");
	date_bad("Sundae, 06-Nov-94 08:49:37 GMT");
	date_bad("Sun Nov  6 08:49:37 94");
	date_bad("Sun Nov 6 08:49:37 1994");
	date_bad("Sun Nov  6 08:49:37 1994 ");
	date_bad("Sun Nov 6  08:49:37 1994");
	date_bad("Sun Nov  x 08:49:37 1994");
	assert_int_equal(http_date_parse(S("Sun, 06 Nov 1994 08:49:37 GM\0"), &(time_t){ 0 }), -1);
}

static void
test_date_format(void **state)
{
	char buf[HTTP_DATE_LEN + 1];
	time_t t, back;
	long long v;

	(void)state;
	assert_int_equal(http_date_format(784111777, buf, sizeof(buf)), HTTP_DATE_LEN);
	assert_string_equal(buf, "Sun, 06 Nov 1994 08:49:37 GMT");
	http_date_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "Thu, 01 Jan 1970 00:00:00 GMT");
	http_date_format(-1, buf, sizeof(buf));
	assert_string_equal(buf, "Wed, 31 Dec 1969 23:59:59 GMT");
	http_date_format(951782400, buf, sizeof(buf));
	assert_string_equal(buf, "Tue, 29 Feb 2000 00:00:00 GMT");
	http_date_format(253402300799LL, buf, sizeof(buf));
	assert_string_equal(buf, "Fri, 31 Dec 9999 23:59:59 GMT");
	assert_int_equal(http_date_format(253402300800LL, buf, sizeof(buf)), 0);
	assert_int_equal(http_date_format(-62167219201LL, buf, sizeof(buf)), 0); /* year -1 */
	assert_int_equal(http_date_format(0, buf, HTTP_DATE_LEN), 0);
	/* The cache of the last dates (4): five in turn evict each other, each still right, a
	 * repeat is the same string, a short buffer is refused even for a cached date, and a
	 * date out of range is not cached. */
	{
		static const time_t ts[] = { 784111777, 0, -1, 951782400, 253402300799LL };
		static const char *const want[] = { "Sun, 06 Nov 1994 08:49:37 GMT",
			"Thu, 01 Jan 1970 00:00:00 GMT", "Wed, 31 Dec 1969 23:59:59 GMT",
			"Tue, 29 Feb 2000 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT" };
		int i, k;

		for (k = 0; k < 3; k++)
			for (i = 0; i < 5; i++) {
				memset(buf, 'x', sizeof(buf));
				assert_int_equal(http_date_format(ts[i], buf, sizeof(buf)), HTTP_DATE_LEN);
				assert_string_equal(buf, want[i]);
				assert_int_equal(http_date_format(ts[i], buf, sizeof(buf)), HTTP_DATE_LEN);
				assert_string_equal(buf, want[i]);
				assert_int_equal(http_date_format(ts[i], buf, HTTP_DATE_LEN), 0);
				assert_int_equal(http_date_format(253402300800LL, buf, sizeof(buf)), 0);
				assert_int_equal(http_date_format(253402300800LL, buf, sizeof(buf)), 0);
			}
	}
	/* Round trips over 200 years, at an odd stride so every weekday and month is hit. */
	for (v = -2208988800LL; v < 4102444800LL; v += 86400LL * 13 + 3607) {
		t = (time_t)v;
		assert_int_equal(http_date_format(t, buf, sizeof(buf)), HTTP_DATE_LEN);
		assert_int_equal(http_date_parse(buf, HTTP_DATE_LEN, &back), 0);
		assert_int_equal((long long)back, v);
	}
}

static int
ims_of(const char *head, time_t *t)
{
	struct rq q;
	int r;

	headers_of(head, &q);
	r = http_if_modified_since(&q.req, t);
	free(q.buf);
	return r;
}

static void
test_if_modified_since(void **state)
{
	time_t t = 0;

	(void)state;
	assert_int_equal(ims_of("GET / HTTP/1.1\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT"
	    "\r\n\r\n", &t), 1);
	assert_int_equal((long long)t, 784111777);
	t = 0;
	assert_int_equal(ims_of("HEAD / HTTP/1.1\r\nif-modified-since: Sunday, 06-Nov-94 08:49:37 GMT"
	    "\r\n\r\n", &t), 1);
	assert_int_equal((long long)t, 784111777);
	assert_int_equal(ims_of("GET / HTTP/1.1\r\nIf-Modified-Since:  Sun Nov  6 08:49:37 1994 "
	    "\r\n\r\n", &t), 1);
	/* Ignored (RFC 9110 §13.1.3): other methods, If-None-Match, bad or several values. */
	assert_int_equal(ims_of("POST / HTTP/1.1\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT"
	    "\r\n\r\n", &t), 0);
	assert_int_equal(ims_of("GET / HTTP/1.1\r\nIf-None-Match: \"x\"\r\n"
	    "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", &t), 0);
	assert_int_equal(ims_of("GET / HTTP/1.1\r\nIf-Modified-Since: yesterday\r\n\r\n", &t), 0);
	assert_int_equal(ims_of("GET / HTTP/1.1\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT, "
	    "Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", &t), 0);
	assert_int_equal(ims_of("GET / HTTP/1.1\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT"
	    "\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", &t), 0);
	assert_int_equal(ims_of("GET / HTTP/1.1\r\n\r\n", &t), 0);
}

/* Paths */

static void
decode_is(const char *in, const char *want)
{
	char out[256];

	assert_int_equal(http_path_decode(in, strlen(in), out, sizeof(out)), (ssize_t)strlen(want));
	assert_string_equal(out, want);
}

static void
decode_bad(const char *in, size_t len)
{
	char out[256];

	assert_int_equal(http_path_decode(in, len, out, sizeof(out)), -1);
}

static void
test_path_decode(void **state)
{
	char buf[16];

	(void)state;
	decode_is("/index.html", "/index.html");
	decode_is("/a%20b", "/a b");
	decode_is("/%41%42%7e%7E", "/AB~~");
	decode_is("/a+b", "/a+b");
	decode_is("/%c3%a9", "/\xc3\xa9");
	decode_is("/%2e%2E", "/..");
	decode_is("", "");
	decode_bad(S("/a%2Fb"));  /* an encoded "/" */
	decode_bad(S("/a%2fb"));
	decode_bad(S("/a%00b"));  /* an encoded NUL */
	decode_bad(S("/a\0b"));
	decode_bad(S("/a%"));
	decode_bad(S("/a%4"));
	decode_bad(S("/a%4g"));
	decode_bad(S("/a%g4"));
	decode_bad(S("/a%%41"));
	/* In place, and the size counts the NUL. */
	strcpy(buf, "/x%41%42");
	assert_int_equal(http_path_decode(buf, strlen(buf), buf, sizeof(buf)), 4);
	assert_string_equal(buf, "/xAB");
	assert_int_equal(http_path_decode("/abc", 4, buf, 5), 4);
	assert_int_equal(http_path_decode("/abc", 4, buf, 4), -1);
	assert_int_equal(http_path_decode("/%41", 4, buf, 3), 2);
	assert_int_equal(http_path_decode("", 0, buf, 0), -1);
}

static void
norm_is(const char *in, const char *want)
{
	char buf[256];
	size_t len = strlen(in);

	memcpy(buf, in, len + 1);
	if (want == NULL) {
		assert_int_equal(http_path_normalize(buf, len), -1);
		return;
	}
	assert_int_equal(http_path_normalize(buf, len), (ssize_t)strlen(want));
	assert_string_equal(buf, want);
}

static void
test_path_normalize(void **state)
{
	(void)state;
	norm_is("/", "/");
	norm_is("/a/b/c", "/a/b/c");
	norm_is("/a/b/", "/a/b/");
	norm_is("/a/./b", "/a/b");
	norm_is("/a/.", "/a/");
	norm_is("/./", "/");
	norm_is("/.", "/");
	norm_is("/a/../b", "/b");
	norm_is("/a/b/..", "/a/");
	norm_is("/a/b/../", "/a/");
	norm_is("/a/b/../../c", "/c");
	norm_is("/a/..", "/");
	norm_is("//a///b//", "/a/b/");
	norm_is("/a//..", "/");
	norm_is("/a/...", "/a/...");
	norm_is("/a/..b/.c/b..", "/a/..b/.c/b..");
	norm_is("/.hidden", "/.hidden");
	/* Climbing above the root is refused, wherever it happens. */
	norm_is("/..", NULL);
	norm_is("/../", NULL);
	norm_is("/../a", NULL);
	norm_is("/a/../..", NULL);
	norm_is("/a/../../b", NULL);
	norm_is("/./../a", NULL);
	norm_is("//..", NULL);
	norm_is("", NULL);
	norm_is("a/b", NULL);
}

static void
clean_is(const char *in, const char *want)
{
	char out[256];

	if (want == NULL) {
		assert_int_equal(http_path_clean(in, strlen(in), out, sizeof(out)), -1);
		return;
	}
	assert_int_equal(http_path_clean(in, strlen(in), out, sizeof(out)), (ssize_t)strlen(want));
	assert_string_equal(out, want);
}

static void
test_path_clean(void **state)
{
	(void)state;
	clean_is("/a/%2e%2e/b", "/b");
	clean_is("/a/%2E/b", "/a/b");
	clean_is("/%7Euser/x%20y", "/~user/x y");
	clean_is("/%2e%2e/etc/passwd", NULL);
	clean_is("/%2e%2E/%2e%2e/etc/passwd", NULL);
	clean_is("/a/%2e%2e/%2e%2e/x", NULL);
	clean_is("/.%2e/x", NULL);
	clean_is("/..%2fetc", NULL);
	clean_is("/%2e%2e%2fetc", NULL);
	clean_is("/a%00.html", NULL);
	clean_is("a", NULL);
}

/* Chunked */

enum { C_DONE, C_MORE, C_ERROR };

struct chunk_out {
	int status;
	char body[8192];
	size_t body_len;
	char rest[256];
	size_t rest_len;
};

/* Feed msg cut at the given offsets, each piece in a buffer of its own exact size. */
static void
chunk_run(const char *msg, size_t len, const size_t *cuts, size_t ncuts, struct chunk_out *o)
{
	struct http_chunked st;
	size_t i, from = 0, to, n;
	ssize_t r = -2;

	http_chunked_init(&st);
	memset(o, 0, sizeof(*o));
	for (i = 0; i <= ncuts; i++) {
		char *b;

		to = i < ncuts ? cuts[i] : len;
		b = dup_exact(msg + from, to - from);
		n = to - from;
		r = http_chunked_decode(&st, b, &n);
		if (r == -1) {
			free(b);
			o->status = C_ERROR;
			/* An error sticks. */
			n = 1;
			assert_int_equal(http_chunked_decode(&st, (char[]){ '0' }, &n), -1);
			return;
		}
		assert_true(o->body_len + n <= sizeof(o->body));
		memcpy(o->body + o->body_len, b, n);
		o->body_len += n;
		if (r >= 0) {
			assert_true(http_chunked_done(&st));
			assert_true(o->rest_len + (size_t)r <= sizeof(o->rest));
			memcpy(o->rest + o->rest_len, b + n, (size_t)r);
			o->rest_len += (size_t)r;
		} else {
			assert_int_equal(r, -2);
			assert_false(http_chunked_done(&st));
		}
		free(b);
		from = to;
	}
	o->status = r >= 0 ? C_DONE : C_MORE;
}

static void
same_chunk_out(const struct chunk_out *a, const struct chunk_out *b)
{
	assert_int_equal(a->status, b->status);
	if (a->status == C_ERROR)
		return;
	assert_int_equal(a->body_len, b->body_len);
	assert_memory_equal(a->body, b->body, a->body_len);
	assert_int_equal(a->rest_len, b->rest_len);
	assert_memory_equal(a->rest, b->rest, a->rest_len);
}

/* Whole, byte by byte, and cut in two at every offset: all must agree with the expected. */
static void
chunk_case(const char *msg, size_t len, int status, const char *body, size_t body_len,
    const char *rest, size_t rest_len)
{
	static size_t cuts[20000];
	struct chunk_out want, o;
	size_t i;

	assert_true(len < sizeof(cuts) / sizeof(cuts[0]));
	memset(&want, 0, sizeof(want));
	want.status = status;
	memcpy(want.body, body, body_len);
	want.body_len = body_len;
	memcpy(want.rest, rest, rest_len);
	want.rest_len = rest_len;
	chunk_run(msg, len, NULL, 0, &o);
	same_chunk_out(&want, &o);
	for (i = 0; i + 1 < len; i++)
		cuts[i] = i + 1;
	chunk_run(msg, len, cuts, len ? len - 1 : 0, &o);
	same_chunk_out(&want, &o);
	for (i = 0; i <= len; i++) {
		cuts[0] = i;
		chunk_run(msg, len, cuts, 1, &o);
		same_chunk_out(&want, &o);
	}
}

/* Mutated bodies: whole, byte by byte and every cut in two agree. */
static void
test_chunked_mutations(void **state)
{
	static const char base[] = "5;a=b\r\nhello\r\n10\r\n0123456789abcdef\r\n0\r\nT: v\r\n\r\nZ";
	static const char bytes[] = "0aF;\r\n :\t\0";
	char m[sizeof(base)];
	static size_t cuts[sizeof(base)];
	struct chunk_out whole, o;
	uint32_t x = 88172645u;
	size_t len = sizeof(base) - 1, i;
	int n, done = 0;

	(void)state;
	for (i = 0; i + 1 < len; i++)
		cuts[i] = i + 1;
	for (n = 0; n < 2000; n++) {
		memcpy(m, base, len);
		m[rnd(&x) % len] = bytes[rnd(&x) % (sizeof(bytes) - 1)];
		if (n % 2)
			m[rnd(&x) % len] = (char)rnd(&x);
		chunk_run(m, len, NULL, 0, &whole);
		chunk_run(m, len, cuts, len - 1, &o);
		same_chunk_out(&whole, &o);
		for (i = 0; i <= len; i++) {
			cuts[0] = i;
			chunk_run(m, len, cuts, 1, &o);
			same_chunk_out(&whole, &o);
			cuts[0] = 1;
		}
		done += whole.status == C_DONE;
	}
	assert_true(done > 0 && done < 2000);
}

#define CHUNK_OK(msg, body, rest) chunk_case(S(msg), C_DONE, S(body), S(rest))
#define CHUNK_MORE(msg, body) chunk_case(S(msg), C_MORE, S(body), "", 0)
#define CHUNK_BAD(msg) chunk_case(S(msg), C_ERROR, "", 0, "", 0)

static void
test_chunked(void **state)
{
	(void)state;
	CHUNK_OK("5\r\nhello\r\n0\r\n\r\n", "hello", "");
	CHUNK_OK("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", "");
	CHUNK_OK("a\r\n0123456789\r\nA\r\nabcdefghij\r\n0\r\n\r\n", "0123456789abcdefghij", "");
	CHUNK_OK("0\r\n\r\n", "", "");
	CHUNK_OK("000000000000000000005\r\nhello\r\n000\r\n\r\n", "hello", "");
	/* Data may hold anything, CRLF and NUL included. */
	CHUNK_OK("4\r\n\r\n\0\n\r\n0\r\n\r\n", "\r\n\0\n", "");
	/* Bare LF line ends: refused (strict, RFC 9112 7.1's grammar; issue 33). */
	CHUNK_BAD("5\nhello\r\n0\r\n\r\n");
	CHUNK_BAD("5\r\nhello\n0\r\n\r\n");
	CHUNK_BAD("5\r\nhello\r\n0\n\r\n");
	CHUNK_BAD("5\r\nhello\r\n0\r\n\n");
	CHUNK_BAD("5;a=b\nhello\r\n0\r\n\r\n");
	/* What follows the body is handed back. */
	CHUNK_OK("3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n", "abc", "GET / HTTP/1.1\r\n");
	CHUNK_MORE("5\r\nhel", "hel");
	CHUNK_MORE("5\r\nhello\r\n0\r\n", "hello");
	CHUNK_MORE("5\r\nhello\r\n0\r\nX: y\r\n", "hello");
	CHUNK_MORE("7fffffffffffffff\r\nab", "ab");
	CHUNK_MORE("", "");
}

static void
test_chunked_ext_trailers(void **state)
{
	(void)state;
	CHUNK_OK("5;name=value\r\nhello\r\n0;last\r\n\r\n", "hello", "");
	CHUNK_OK("5 ; a=\"q;x\" ;b\r\nhello\r\n0\r\n\r\n", "hello", "");
	CHUNK_OK("5\t;a=b\r\nhello\r\n0\r\n\r\n", "hello", "");
	CHUNK_OK("5  ;x\r\nhello\r\n0\r\n\r\n", "hello", "");
	CHUNK_BAD("5 \r\nhello\r\n0\r\n\r\n");  /* BWS only before ";" */
	CHUNK_BAD("5\t\r\nhello\r\n0\r\n\r\n");
	CHUNK_OK("5;\r\nhello\r\n0\r\n\r\n", "hello", "");
	CHUNK_OK("2\r\nab\r\n0\r\nExpires: never\r\nX-Sum: 1234\r\n\r\nNEXT", "ab", "NEXT");
	CHUNK_BAD("2\r\nab\r\n0\r\nA: b\nC:\r\n\r\n");
	CHUNK_BAD("2\r\nab\r\n0\r\nA: b\r\n c\r\n\r\n");  /* obs-fold in trailers */
	CHUNK_BAD("2\r\nab\r\n0\r\nbad\r\n\r\n");
	CHUNK_BAD("2\r\nab\r\n0\r\nA : b\r\n\r\n");
	CHUNK_BAD("2\r\nab\r\n0\r\nA: b\0\r\n\r\n");
	CHUNK_BAD("2\r\nab\r\n0\r\nA: b\rc\r\n\r\n");
	CHUNK_BAD("2\r\nab\r\n0\r\n\rX");
	CHUNK_BAD("5;a\x01\r\nhello\r\n0\r\n\r\n");
	CHUNK_BAD("5;a\rb\r\nhello\r\n0\r\n\r\n");
}

static void
test_chunked_errors(void **state)
{
	char big[HTTP_CHUNK_LINE_MAX + 64];
	size_t n;

	(void)state;
	CHUNK_BAD("\r\n");
	CHUNK_BAD(";a\r\n");
	CHUNK_BAD("g\r\n");
	CHUNK_BAD("-5\r\nhello\r\n");
	CHUNK_BAD("+5\r\nhello\r\n");
	CHUNK_BAD("0x5\r\nhello\r\n");
	CHUNK_BAD("5 5\r\nhello\r\n");
	CHUNK_BAD("5x\r\nhello\r\n");
	CHUNK_BAD("5\rhello\r\n");
	CHUNK_BAD("5\r\nhelloX\r\n0\r\n\r\n");
	CHUNK_BAD("5\r\nhelloX0\r\n\r\n");  /* a byte other than CR after the data */
	CHUNK_BAD("5\r\nhello0\r\n\r\n");
	CHUNK_BAD("5\r\nhello\rX0\r\n\r\n");
	CHUNK_BAD("5\r\nhello\r\r\n0\r\n\r\n");
	CHUNK_BAD(" 5\r\nhello\r\n0\r\n\r\n");
	CHUNK_BAD("0\r\n\r\r\n");
	/* Hostile sizes: past 2^64, and past an off_t. */
	CHUNK_BAD("10000000000000000\r\n");
	CHUNK_BAD("ffffffffffffffffffff\r\n");
	CHUNK_BAD("8000000000000000\r\n");
	/* An endless size line. */
	memcpy(big, "5;", 2);
	n = HTTP_CHUNK_LINE_MAX + 10;
	memset(big + 2, 'x', n - 2);
	chunk_case(big, n, C_ERROR, "", 0, "", 0);
	memset(big, '0', n);
	chunk_case(big, n, C_ERROR, "", 0, "", 0);
	/* At the bound, exactly: test_chunked_line_limit. */
}

/* The size line's limit counts its bytes, extensions included, not its line end: exactly
 * HTTP_CHUNK_LINE_MAX passes, one more is refused (a bare LF never passes). */
static void
chunk_line_case(size_t linelen, const char *eol, int status)
{
	static char m[HTTP_CHUNK_LINE_MAX + 64];
	size_t n = 0;

	memcpy(m, "2;", 2);
	memset(m + 2, 'x', linelen - 2);
	n = linelen;
	memcpy(m + n, eol, strlen(eol));
	n += strlen(eol);
	memcpy(m + n, "ab", 2);
	n += 2;
	memcpy(m + n, eol, strlen(eol));
	n += strlen(eol);
	memcpy(m + n, "0", 1);
	n += 1;
	memcpy(m + n, eol, strlen(eol));
	n += strlen(eol);
	memcpy(m + n, eol, strlen(eol));
	n += strlen(eol);
	if (status == C_DONE)
		chunk_case(m, n, C_DONE, "ab", 2, "", 0);
	else
		chunk_case(m, n, C_ERROR, "", 0, "", 0);
}

static void
test_chunked_line_limit(void **state)
{
	(void)state;
	chunk_line_case(HTTP_CHUNK_LINE_MAX, "\r\n", C_DONE);
	chunk_line_case(HTTP_CHUNK_LINE_MAX + 1, "\r\n", C_ERROR);
	chunk_line_case(HTTP_CHUNK_LINE_MAX, "\n", C_ERROR);
	chunk_line_case(HTTP_CHUNK_LINE_MAX + 1, "\n", C_ERROR);
}

static void
test_chunked_limits_and_reuse(void **state)
{
	static char big[HTTP_TRAILER_MAX + 64];
	struct http_chunked st;
	char buf[32];
	size_t n, i;

	(void)state;
	/* A trailer section past its bound, fed in pieces. */
	http_chunked_init(&st);
	memcpy(buf, "0\r\n", 3);
	n = 3;
	assert_int_equal(http_chunked_decode(&st, buf, &n), -2);
	memcpy(big, "X: ", 3);
	memset(big + 3, 'a', sizeof(big) - 3);
	for (i = 0; i < sizeof(big); i += 1000) {
		ssize_t r;

		n = sizeof(big) - i < 1000 ? sizeof(big) - i : 1000;
		r = http_chunked_decode(&st, big + i, &n);
		if (r == -1)
			break;
		assert_int_equal(r, -2);
	}
	assert_true(i < sizeof(big));
	/* After the end, whatever comes is handed back whole. */
	http_chunked_init(&st);
	memcpy(buf, "0\r\n\r\n", 5);
	n = 5;
	assert_int_equal(http_chunked_decode(&st, buf, &n), 0);
	assert_int_equal(n, 0);
	memcpy(buf, "abc", 3);
	n = 3;
	assert_int_equal(http_chunked_decode(&st, buf, &n), 3);
	assert_int_equal(n, 0);
	assert_memory_equal(buf, "abc", 3);
	/* A zeroed state is a fresh one. */
	memset(&st, 0, sizeof(st));
	memcpy(buf, "1\r\nz\r\n0\r\n\r\nQ", 12);
	n = 12;
	assert_int_equal(http_chunked_decode(&st, buf, &n), 1);
	assert_int_equal(n, 1);
	assert_memory_equal(buf, "zQ", 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_simple),
		cmocka_unit_test(test_req_query),
		cmocka_unit_test(test_req_forms),
		cmocka_unit_test(test_req_methods),
		cmocka_unit_test(test_req_values),
		cmocka_unit_test(test_req_bare_lf),
		cmocka_unit_test(test_req_leading_empty_lines),
		cmocka_unit_test(test_req_incomplete),
		cmocka_unit_test(test_req_pipelined),
		cmocka_unit_test(test_req_malformed_line),
		cmocka_unit_test(test_req_malformed_headers),
		cmocka_unit_test(test_req_version),
		cmocka_unit_test(test_conditional),
		cmocka_unit_test(test_ranges_multi),
		cmocka_unit_test(test_req_version_higher_minor),
		cmocka_unit_test(test_req_line_too_long),
		cmocka_unit_test(test_req_head_too_large),
		cmocka_unit_test(test_req_too_many_headers),
		cmocka_unit_test(test_req_mutations),
		cmocka_unit_test(test_res_simple),
		cmocka_unit_test(test_res_errors),
		cmocka_unit_test(test_header_find),
		cmocka_unit_test(test_content_length),
		cmocka_unit_test(test_request_framing),
		cmocka_unit_test(test_response_framing),
		cmocka_unit_test(test_connection),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_request_range),
		cmocka_unit_test(test_date_parse),
		cmocka_unit_test(test_date_format),
		cmocka_unit_test(test_if_modified_since),
		cmocka_unit_test(test_path_decode),
		cmocka_unit_test(test_path_normalize),
		cmocka_unit_test(test_path_clean),
		cmocka_unit_test(test_chunked),
		cmocka_unit_test(test_chunked_ext_trailers),
		cmocka_unit_test(test_chunked_errors),
		cmocka_unit_test(test_chunked_line_limit),
		cmocka_unit_test(test_chunked_limits_and_reuse),
		cmocka_unit_test(test_chunked_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
