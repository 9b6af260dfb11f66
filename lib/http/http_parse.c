/* http_parse.c: request lines, status lines and header sections, parsed afresh on each call. */
#include <string.h>

#include "http.h"

/* tchar (RFC 9110 §5.6.2): ALPHA DIGIT ! # $ % & ' * + - . ^ _ ` | ~ */
static const unsigned char tchar_tab[128] = {
	/* 0x00 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x10 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x20 */ 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0,
	/* 0x30 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
	/* 0x40 */ 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	/* 0x50 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1,
	/* 0x60 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	/* 0x70 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0,
};

int
http_is_tchar(unsigned char c)
{
	return c < 128 && tchar_tab[c];
}

/* field-vchar, SP or HTAB: what a field value may hold (obs-text included, RFC 9110 §5.5). */
static int
is_value_char(unsigned char c)
{
	return (c >= 0x20 && c != 0x7f) || c == '\t';
}

/* A request-target is URI characters only: printable ASCII, and no fragment (RFC 9112 §3.2). */
static int
is_target_char(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '#';
}

static int
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int
is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Limits beyond this are clamped: the byte count returned is an int. */
static size_t
clamp_limit(size_t limit, size_t dflt)
{
	if (limit == 0)
		return dflt;
	return limit > (size_t)1 << 28 ? (size_t)1 << 28 : limit;
}

/*
 * The start line at p, at most limit bytes before its line end. Returns 0 with *le at the end
 * of the content and *next after the line end, -2 when incomplete, -1 when too long. A prefix
 * is judged too long only once no line end can make it fit, so every longer input agrees.
 */
static int
find_start_line(const char *p, const char *end, size_t limit, const char **le, const char **next)
{
	size_t avail = (size_t)(end - p);
	size_t scan = avail < limit + 2 ? avail : limit + 2;
	const char *lf = memchr(p, '\n', scan);

	if (lf == NULL) {
		if (avail >= limit + 2 || (avail == limit + 1 && p[limit] != '\r'))
			return -1;
		return -2;
	}
	*next = lf + 1;
	if (lf > p && lf[-1] == '\r')
		lf--;
	if ((size_t)(lf - p) > limit)
		return -1;
	*le = lf;
	return 0;
}

/* A field line at p that must end, line end included, within budget bytes. As above. */
static int
find_field_line(const char *p, const char *end, size_t budget, const char **le, const char **next)
{
	size_t avail = (size_t)(end - p);
	const char *lf = memchr(p, '\n', avail < budget ? avail : budget);

	if (lf == NULL)
		return avail >= budget ? -1 : -2;
	*next = lf + 1;
	if (lf > p && lf[-1] == '\r')
		lf--;
	*le = lf;
	return 0;
}

/*
 * The header section at *pp up to and including its empty line. A CR left inside a line
 * (a bare CR) is a CTL and so refused with the rest, which keeps CR from ever ending a line.
 */
static int
parse_headers(const char **pp, const char *end, size_t max_head, struct http_header *hdr,
    size_t max, size_t *num, enum http_error *err)
{
	const char *start = *pp, *p = *pp, *le, *next, *q, *v;
	size_t n = 0;
	int r;

	for (;;) {
		size_t used = (size_t)(p - start);

		r = find_field_line(p, end, used < max_head ? max_head - used : 0, &le, &next);
		if (r == -2)
			return -2;
		if (r == -1) {
			*err = HTTP_ERR_HEAD_TOO_LARGE;
			return -1;
		}
		if (le == p)
			break;
		/* obs-fold, or whitespace before the first field: 400 (RFC 9112 §2.2, §5.2). */
		if (*p == ' ' || *p == '\t')
			goto malformed;
		if (n == max) {
			*err = HTTP_ERR_TOO_MANY_HEADERS;
			return -1;
		}
		for (q = p; q < le && http_is_tchar((unsigned char)*q); q++)
			;
		/* No whitespace between name and colon (RFC 9112 §5.1): it is not a tchar. */
		if (q == p || q == le || *q != ':')
			goto malformed;
		hdr[n].name = p;
		hdr[n].name_len = (size_t)(q - p);
		for (q++; q < le && (*q == ' ' || *q == '\t'); q++)
			;
		for (v = q; q < le; q++)
			if (!is_value_char((unsigned char)*q))
				goto malformed;
		while (le > v && (le[-1] == ' ' || le[-1] == '\t'))
			le--;
		hdr[n].value = v;
		hdr[n].value_len = (size_t)(le - v);
		n++;
		p = next;
	}
	*num = n;
	*pp = next;
	return 0;
malformed:
	*err = HTTP_ERR_MALFORMED;
	return -1;
}

/* "HTTP/" DIGIT "." DIGIT, exactly 8 bytes. 0 with *minor for 1.0 and 1.1, and 1 for a higher
 * 1.x (RFC 9110 §2.5: served as the highest minor version we have), else -1 with *err. */
static int
parse_version(const char *p, size_t len, int *minor, enum http_error *err)
{
	if (len != 8 || memcmp(p, "HTTP/", 5) != 0 || !is_digit((unsigned char)p[5]) ||
	    p[6] != '.' || !is_digit((unsigned char)p[7])) {
		*err = HTTP_ERR_MALFORMED;
		return -1;
	}
	if (p[5] != '1') {
		*err = HTTP_ERR_VERSION;
		return -1;
	}
	*minor = p[7] > '1' ? 1 : p[7] - '0';
	return 0;
}

static enum http_method
method_id(const char *m, size_t len)
{
	static const struct {
		const char *name;
		enum http_method id;
	} tab[] = {
		{ "GET", HTTP_METHOD_GET }, { "HEAD", HTTP_METHOD_HEAD },
		{ "POST", HTTP_METHOD_POST }, { "PUT", HTTP_METHOD_PUT },
		{ "DELETE", HTTP_METHOD_DELETE },
		{ "OPTIONS", HTTP_METHOD_OPTIONS }, { "TRACE", HTTP_METHOD_TRACE },
		{ "CONNECT", HTTP_METHOD_CONNECT }, { "PATCH", HTTP_METHOD_PATCH },
	};
	size_t i;

	/* Methods are case-sensitive (RFC 9110 §9.1). */
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strlen(tab[i].name) == len && memcmp(tab[i].name, m, len) == 0)
			return tab[i].id;
	return HTTP_METHOD_OTHER;
}

static void
split_path_query(struct http_request *req, const char *p, const char *end)
{
	const char *q = memchr(p, '?', (size_t)(end - p));

	req->path = p;
	req->path_len = (size_t)((q ? q : end) - p);
	if (q != NULL) {
		req->query = q + 1;
		req->query_len = (size_t)(end - q - 1);
	}
}

/* Which of the four forms the target has, and its parts. -1 when it fits none. */
static int
parse_target(struct http_request *req)
{
	const char *t = req->target, *end = t + req->target_len, *p, *a;

	if (req->method_id == HTTP_METHOD_CONNECT) {
		if (memchr(t, '/', req->target_len) != NULL)
			return -1;
		req->form = HTTP_TARGET_AUTHORITY;
		req->authority = t;
		req->authority_len = req->target_len;
		return 0;
	}
	if (*t == '/') {
		req->form = HTTP_TARGET_ORIGIN;
		split_path_query(req, t, end);
		return 0;
	}
	if (*t == '*' && req->target_len == 1) {
		if (req->method_id != HTTP_METHOD_OPTIONS)
			return -1;
		req->form = HTTP_TARGET_ASTERISK;
		return 0;
	}
	/* absolute-form: scheme "://" authority [path] ["?" query] (RFC 3986 §3). */
	if (!is_alpha((unsigned char)*t))
		return -1;
	for (p = t + 1; p < end && (is_alpha((unsigned char)*p) || is_digit((unsigned char)*p) ||
	    *p == '+' || *p == '-' || *p == '.'); p++)
		;
	if (end - p < 3 || memcmp(p, "://", 3) != 0)
		return -1;
	for (a = p += 3; p < end && *p != '/' && *p != '?'; p++)
		;
	if (p == a)
		return -1;
	req->form = HTTP_TARGET_ABSOLUTE;
	req->authority = a;
	req->authority_len = (size_t)(p - a);
	if (p == end || *p == '?') {
		/* An empty path is "/" (RFC 9112 §3.2.1); keep the query that follows. */
		if (p < end) {
			req->query = p + 1;
			req->query_len = (size_t)(end - p - 1);
		}
		req->path = "/";
		req->path_len = 1;
		return 0;
	}
	split_path_query(req, p, end);
	return 0;
}

int
http_parse_request(const char *buf, size_t len, struct http_request *req, size_t max_headers)
{
	const char *p = buf, *end = buf + len, *le, *next, *q, *t;
	size_t max_line = clamp_limit(req->max_line, HTTP_MAX_LINE_DEFAULT);
	size_t max_head = clamp_limit(req->max_head, HTTP_MAX_HEAD_DEFAULT);
	size_t skipped;
	int r;

	req->error = HTTP_ERR_NONE;
	req->method = req->target = req->authority = req->path = req->query = NULL;
	req->method_len = req->target_len = req->authority_len = req->path_len = 0;
	req->query_len = req->num_headers = 0;
	req->method_id = HTTP_METHOD_OTHER;
	req->form = HTTP_TARGET_ORIGIN;
	req->minor_version = -1;

	/* Ignore empty lines before the request line (RFC 9112 §2.2); they count in max_line. */
	while (p < end && (*p == '\n' || *p == '\r')) {
		if (*p == '\r') {
			if (p + 1 == end)
				return -2;
			if (p[1] != '\n')
				break;
			p++;
		}
		p++;
		if ((size_t)(p - buf) > max_line) {
			req->error = HTTP_ERR_LINE_TOO_LONG;
			return -1;
		}
	}
	skipped = (size_t)(p - buf);
	r = find_start_line(p, end, max_line - skipped, &le, &next);
	if (r == -2)
		return -2;
	if (r == -1) {
		req->error = HTTP_ERR_LINE_TOO_LONG;
		return -1;
	}

	/* method SP request-target SP HTTP-version, single spaces (RFC 9112 §3). */
	for (q = p; q < le && http_is_tchar((unsigned char)*q); q++)
		;
	if (q == p || q == le || *q != ' ')
		goto malformed;
	req->method = p;
	req->method_len = (size_t)(q - p);
	req->method_id = method_id(p, req->method_len);
	for (t = ++q; q < le && is_target_char((unsigned char)*q); q++)
		;
	if (q == t || q == le || *q != ' ')
		goto malformed;
	req->target = t;
	req->target_len = (size_t)(q - t);
	q++;
	if (parse_version(q, (size_t)(le - q), &req->minor_version, &req->error) == -1)
		return -1;
	if (parse_target(req) == -1)
		goto malformed;

	p = next;
	r = parse_headers(&p, end, max_head, req->headers, max_headers, &req->num_headers,
	    &req->error);
	if (r != 0)
		return r;
	return (int)(p - buf);
malformed:
	req->error = HTTP_ERR_MALFORMED;
	return -1;
}

int
http_parse_response(const char *buf, size_t len, struct http_response *res, size_t max_headers)
{
	const char *p = buf, *end = buf + len, *le, *next, *q;
	size_t max_line = clamp_limit(res->max_line, HTTP_MAX_LINE_DEFAULT);
	size_t max_head = clamp_limit(res->max_head, HTTP_MAX_HEAD_DEFAULT);
	int r;

	res->error = HTTP_ERR_NONE;
	res->minor_version = -1;
	res->status = 0;
	res->reason = NULL;
	res->reason_len = res->num_headers = 0;

	r = find_start_line(p, end, max_line, &le, &next);
	if (r == -2)
		return -2;
	if (r == -1) {
		res->error = HTTP_ERR_LINE_TOO_LONG;
		return -1;
	}
	/* HTTP-version SP 3DIGIT SP [ reason ]; a missing SP before an empty reason is let by. */
	if (le - p < 12 || p[8] != ' ')
		goto malformed;
	if (parse_version(p, 8, &res->minor_version, &res->error) == -1)
		return -1;
	q = p + 9;
	if (q[0] < '1' || q[0] > '9' || !is_digit((unsigned char)q[1]) ||
	    !is_digit((unsigned char)q[2]))
		goto malformed;
	res->status = (q[0] - '0') * 100 + (q[1] - '0') * 10 + (q[2] - '0');
	q += 3;
	if (q < le) {
		if (*q++ != ' ')
			goto malformed;
		res->reason = q;
		for (; q < le; q++)
			if (!is_value_char((unsigned char)*q))
				goto malformed;
		res->reason_len = (size_t)(le - res->reason);
	} else {
		res->reason = q;
	}

	p = next;
	r = parse_headers(&p, end, max_head, res->headers, max_headers, &res->num_headers,
	    &res->error);
	if (r != 0)
		return r;
	return (int)(p - buf);
malformed:
	res->error = HTTP_ERR_MALFORMED;
	return -1;
}

int
http_error_status(enum http_error err)
{
	switch (err) {
	case HTTP_ERR_NONE:
		return 200;
	case HTTP_ERR_MALFORMED:
		return 400;
	case HTTP_ERR_LINE_TOO_LONG:
		return 414;
	case HTTP_ERR_HEAD_TOO_LARGE:
	case HTTP_ERR_TOO_MANY_HEADERS:
		return 431;
	case HTTP_ERR_VERSION:
		return 505;
	}
	return 400;
}

const char *
http_error_str(enum http_error err)
{
	switch (err) {
	case HTTP_ERR_NONE:
		return "no error";
	case HTTP_ERR_MALFORMED:
		return "malformed message head";
	case HTTP_ERR_LINE_TOO_LONG:
		return "start line too long";
	case HTTP_ERR_HEAD_TOO_LARGE:
		return "header section too large";
	case HTTP_ERR_TOO_MANY_HEADERS:
		return "too many header fields";
	case HTTP_ERR_VERSION:
		return "unsupported HTTP version";
	}
	return "unknown error";
}
