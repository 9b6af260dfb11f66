/* http_header.c: header semantics: lookup, lists, body framing, Connection, Host, conditionals. */
#include <string.h>

#include "http.h"

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* Field names and most tokens compare case-insensitively, in ASCII only (RFC 9110 §5.1). */
int
http_token_eq(const char *s, size_t len, const char *lit)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (lit[i] == '\0' || lower((unsigned char)s[i]) != lower((unsigned char)lit[i]))
			return 0;
	return lit[len] == '\0';
}

/* The first field named name after after (NULL: from the start), or NULL. */
const struct http_header *
http_header_find(const struct http_header *h, size_t n, const char *name,
    const struct http_header *after)
{
	size_t i = after != NULL ? (size_t)(after - h) + 1 : 0;

	for (; i < n; i++)
		if (http_token_eq(h[i].name, h[i].name_len, name))
			return &h[i];
	return NULL;
}

/*
 * The next element of a comma-separated list (RFC 9110 §5.6.1) from *pos, OWS trimmed and
 * empty elements skipped. 1 with the element, 0 at the end. Quoted strings are not looked
 * into: none of the lists read here (Connection, Transfer-Encoding, Content-Length, Range)
 * may hold one.
 */
int
http_list_next(const char **pos, const char *end, const char **elem, size_t *elem_len)
{
	const char *p = *pos, *e;

	while (p < end && (*p == ' ' || *p == '\t' || *p == ','))
		p++;
	if (p == end) {
		*pos = p;
		return 0;
	}
	if ((e = memchr(p, ',', (size_t)(end - p))) == NULL)
		e = end;
	*pos = e;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*elem = p;
	*elem_len = (size_t)(e - p);
	return 1;
}

/* 1*DIGIT, nothing else, at most INT64_MAX so that it fits an off_t. */
static int
parse_length(const char *s, size_t len, uint64_t *v)
{
	uint64_t n = 0;
	size_t i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (n > (INT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		n = n * 10 + (uint64_t)(s[i] - '0');
	}
	*v = n;
	return 0;
}

/*
 * Every Content-Length field and every element of each must be the same valid number
 * (RFC 9110 §8.6 lets "42, 42" count as 42; differing values are a framing attack).
 */
static enum http_frame_error
content_length(const struct http_header *h, size_t n, uint64_t *length, int *present)
{
	const struct http_header *f = NULL;
	const char *p, *e;
	size_t elen;
	uint64_t v;
	int nelem;

	*present = 0;
	while ((f = http_header_find(h, n, "Content-Length", f)) != NULL) {
		p = f->value;
		nelem = 0;
		while (http_list_next(&p, f->value + f->value_len, &e, &elen)) {
			if (parse_length(e, elen, &v) == -1)
				return HTTP_FR_BAD_LENGTH;
			if (*present && v != *length)
				return HTTP_FR_LENGTH_CONFLICT;
			*present = 1;
			*length = v;
			nelem++;
		}
		if (nelem == 0)
			return HTTP_FR_BAD_LENGTH;
	}
	return HTTP_FR_OK;
}

int
http_content_length(const struct http_header *h, size_t n, uint64_t *length)
{
	int present;

	if (content_length(h, n, length, &present) != HTTP_FR_OK)
		return -1;
	return present;
}

/*
 * The transfer codings of all Transfer-Encoding fields, in order. Returns -1 when there is
 * none at all or chunked comes twice, else *chunked_last and *other (a coding not chunked).
 */
static int
transfer_codings(const struct http_header *h, size_t n, int *chunked_last, int *other)
{
	const struct http_header *f = NULL;
	const char *p, *e;
	size_t elen;
	int nelem = 0, chunked = 0;

	*chunked_last = *other = 0;
	while ((f = http_header_find(h, n, "Transfer-Encoding", f)) != NULL) {
		p = f->value;
		while (http_list_next(&p, f->value + f->value_len, &e, &elen)) {
			nelem++;
			/* Compared whole: "chunked;x" is not chunked, so nobody decodes it. */
			if (http_token_eq(e, elen, "chunked")) {
				if (chunked++)
					return -1; /* chunked applied twice (RFC 9112 §6.1) */
				*chunked_last = 1;
			} else {
				*chunked_last = 0;
				*other = 1;
			}
		}
	}
	return nelem ? 0 : -1;
}

static int
frame_error(struct http_framing *fr, enum http_frame_error e)
{
	fr->error = e;
	fr->smuggling = e == HTTP_FR_SMUGGLING;
	return -1;
}

/*
 * How long the request body is (RFC 9112 §6.3). 0 with fr->body and fr->length, or -1 with
 * fr->error; on -1 the server answers 400 (501 for HTTP_FR_TE_UNSUPPORTED) and closes, as it
 * cannot tell where the next request would start.
 */
int
http_request_framing(const struct http_request *req, struct http_framing *fr)
{
	enum http_frame_error e;
	int has_cl, chunked_last, other;
	uint64_t len = 0;

	memset(fr, 0, sizeof(*fr));
	if (http_header_find(req->headers, req->num_headers, "Transfer-Encoding", NULL) != NULL) {
		/* Any Content-Length at all, valid or not, beside Transfer-Encoding (§6.3 #3). */
		if (http_header_find(req->headers, req->num_headers, "Content-Length", NULL))
			return frame_error(fr, HTTP_FR_SMUGGLING);
		/* HTTP/1.0 had no Transfer-Encoding: its framing is faulty (RFC 9112 §6.1). */
		if (req->minor_version == 0)
			return frame_error(fr, HTTP_FR_BAD_TE);
		if (transfer_codings(req->headers, req->num_headers, &chunked_last, &other) == -1 ||
		    !chunked_last)
			return frame_error(fr, HTTP_FR_BAD_TE);
		if (other)
			return frame_error(fr, HTTP_FR_TE_UNSUPPORTED);
		fr->body = HTTP_BODY_CHUNKED;
		return 0;
	}
	if ((e = content_length(req->headers, req->num_headers, &len, &has_cl)) != HTTP_FR_OK)
		return frame_error(fr, e);
	if (has_cl && len > 0) {
		fr->body = HTTP_BODY_LENGTH;
		fr->length = len;
	}
	return 0;
}

/*
 * How long the response body is (RFC 9112 §6.3); head_request: the request was HEAD. Both
 * Content-Length and Transfer-Encoding are refused here too (the RFC lets Transfer-Encoding
 * win, but a load generator should count that server as broken, not guess).
 */
int
http_response_framing(const struct http_response *res, int head_request, struct http_framing *fr)
{
	enum http_frame_error e;
	int has_cl, chunked_last, other;
	uint64_t len = 0;

	memset(fr, 0, sizeof(*fr));
	if (head_request || res->status < 200 || res->status == 204 || res->status == 304)
		return 0;
	if (http_header_find(res->headers, res->num_headers, "Transfer-Encoding", NULL) != NULL) {
		if (http_header_find(res->headers, res->num_headers, "Content-Length", NULL))
			return frame_error(fr, HTTP_FR_SMUGGLING);
		if (res->minor_version == 0)
			return frame_error(fr, HTTP_FR_BAD_TE);
		if (transfer_codings(res->headers, res->num_headers, &chunked_last, &other) == -1)
			return frame_error(fr, HTTP_FR_BAD_TE);
		/* chunked not last: the body runs to the close. */
		fr->body = chunked_last ? HTTP_BODY_CHUNKED : HTTP_BODY_CLOSE;
		return 0;
	}
	if ((e = content_length(res->headers, res->num_headers, &len, &has_cl)) != HTTP_FR_OK)
		return frame_error(fr, e);
	if (has_cl) {
		fr->body = len > 0 ? HTTP_BODY_LENGTH : HTTP_BODY_NONE;
		fr->length = len;
		return 0;
	}
	fr->body = HTTP_BODY_CLOSE;
	return 0;
}

/* The HTTP_CONN_* tokens found in all Connection fields. */
unsigned
http_connection(const struct http_header *h, size_t n)
{
	const struct http_header *f = NULL;
	const char *p, *e;
	size_t elen;
	unsigned flags = 0;

	while ((f = http_header_find(h, n, "Connection", f)) != NULL) {
		p = f->value;
		while (http_list_next(&p, f->value + f->value_len, &e, &elen)) {
			if (http_token_eq(e, elen, "close"))
				flags |= HTTP_CONN_CLOSE;
			else if (http_token_eq(e, elen, "keep-alive"))
				flags |= HTTP_CONN_KEEPALIVE;
			else if (http_token_eq(e, elen, "upgrade"))
				flags |= HTTP_CONN_UPGRADE;
		}
	}
	return flags;
}

/* Whether the connection persists after this message (RFC 9112 §9.3): close always wins. */
int
http_keep_alive(int minor_version, const struct http_header *h, size_t n)
{
	unsigned flags = http_connection(h, n);

	if (flags & HTTP_CONN_CLOSE)
		return 0;
	if (minor_version >= 1)
		return 1;
	return (flags & HTTP_CONN_KEEPALIVE) != 0;
}

static int
is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (lower(c) >= 'a' && lower(c) <= 'f');
}

/* unreserved, sub-delims and the "%" of pct-encoded (RFC 3986 §3.2.2). */
static int
is_reg_name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("-._~%!$&'()*+,;=", c) != NULL);
}

/*
 * uri-host [":" port] (RFC 3986 §3.2.2): an IP-literal in brackets, or a reg-name of
 * unreserved, pct-encoded and sub-delims characters, then a port of at most 65535 (or
 * none after the colon). No userinfo: "@" is refused. 0 with
 * *name_len (the port left off), -1 when invalid.
 */
static int
parse_host(const char *s, size_t len, size_t *name_len)
{
	const char *p = s, *end = s + len;

	if (p < end && *p == '[') {
		for (p++; p < end && *p != ']'; p++)
			if (!is_hex((unsigned char)*p) && *p != ':' && *p != '.')
				return -1;
		if (p == end || p == s + 1)
			return -1;
		p++;
	} else {
		for (; p < end && *p != ':'; p++)
			if (!is_reg_name_char((unsigned char)*p))
				return -1;
	}
	*name_len = (size_t)(p - s);
	if (p < end) {
		unsigned long port = 0;
		if (*p != ':')
			return -1;
		/* a port no TCP or SCTP has (":99999") makes the field invalid (§3.2: 400) */
		for (p++; p < end; p++) {
			if (*p < '0' || *p > '9')
				return -1;
			port = port * 10 + (unsigned long)(*p - '0');
			if (port > 65535)
				return -1;
		}
	}
	return 0;
}

/*
 * The host the request is for (RFC 9112 §3.2, §3.2.2): the authority of an absolute-form
 * target, else the Host field. -1 (answer 400) for an HTTP/1.1 request without Host, for
 * several Host fields, or an invalid one. 0 with *host NULL for an HTTP/1.0 request without
 * Host, and with *host_len 0 for an empty Host. The port is left off *host_len.
 */
int
http_request_host(const struct http_request *req, const char **host, size_t *host_len)
{
	const struct http_header *f;

	*host = NULL;
	*host_len = 0;
	f = http_header_find(req->headers, req->num_headers, "Host", NULL);
	if (f != NULL && http_header_find(req->headers, req->num_headers, "Host", f) != NULL)
		return -1;
	if (f == NULL && req->minor_version >= 1)
		return -1;
	if (f != NULL && parse_host(f->value, f->value_len, host_len) == -1)
		return -1;
	if (f != NULL)
		*host = f->value;
	if (req->form == HTTP_TARGET_ABSOLUTE || req->form == HTTP_TARGET_AUTHORITY) {
		if (parse_host(req->authority, req->authority_len, host_len) == -1 ||
		    *host_len == 0)
			return -1;
		*host = req->authority;
	}
	return 0;
}

/*
 * If-Modified-Since as RFC 9110 §13.1.3 has it: 1 with *t when the server should compare
 * (GET or HEAD, no If-None-Match, one field holding one valid HTTP-date), else 0: ignore it.
 */
int
http_if_modified_since(const struct http_request *req, time_t *t)
{
	const struct http_header *f;

	if (req->method_id != HTTP_METHOD_GET && req->method_id != HTTP_METHOD_HEAD)
		return 0;
	if (http_header_find(req->headers, req->num_headers, "If-None-Match", NULL) != NULL)
		return 0;
	f = http_header_find(req->headers, req->num_headers, "If-Modified-Since", NULL);
	if (f == NULL || http_header_find(req->headers, req->num_headers, "If-Modified-Since", f))
		return 0;
	return http_date_parse(f->value, f->value_len, t) == 0;
}
