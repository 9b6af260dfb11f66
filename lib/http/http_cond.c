/* http_cond.c: validators and conditional requests (RFC 9110 §8.8, §13): ETag, If-Match,
 * If-None-Match, If-Modified-Since, If-Unmodified-Since, If-Range. */
#include <stdio.h>
#include <string.h>

#include "http.h"

/* "mtime-size" in hex, as nginx makes them: changes whenever either does. */
size_t
http_etag_format(time_t mtime, uint64_t size, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "\"%llx-%llx\"", (unsigned long long)mtime,
	    (unsigned long long)size);

	return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}

/* One entity-tag at *pos (OWS and commas before it skipped): 1 with the opaque-tag (quotes
 * included) and whether it was weak, 0 at the end, -1 when malformed. */
static int
etag_next(const char **pos, const char *end, const char **tag, size_t *len, int *weak)
{
	const char *p = *pos, *q;

	while (p < end && (*p == ' ' || *p == '\t' || *p == ','))
		p++;
	if (p == end)
		return 0;
	*weak = 0;
	if (end - p >= 2 && p[0] == 'W' && p[1] == '/') {
		*weak = 1;
		p += 2;
	}
	if (p == end || *p != '"')
		return -1;
	for (q = p + 1; q < end && *q != '"'; q++)
		if ((unsigned char)*q < 0x21 || *q == 0x7f)
			return -1;
	if (q == end)
		return -1;
	*tag = p;
	*len = (size_t)(q + 1 - p);
	q++;
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q < end && *q != ',')
		return -1;
	*pos = q;
	return 1;
}

/*
 * Does a field's value (If-Match, If-None-Match, If-Range) hold etag (ours, strong, quoted)?
 * "*" matches any current representation. strong: a weak tag never matches (If-Match,
 * If-Range); else the weak comparison (If-None-Match). A malformed list matches nothing.
 */
int
http_etag_match(const char *value, size_t len, const char *etag, size_t etag_len, int strong)
{
	const char *p = value, *end = value + len, *tag;
	size_t tl;
	int weak, rc;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p == 1 && *p == '*')
		return 1;
	while ((rc = etag_next(&p, end, &tag, &tl, &weak)) == 1)
		if (!(strong && weak) && tl == etag_len && memcmp(tag, etag, tl) == 0)
			return 1;
	return 0;
}

/* The one field called name, or NULL (absent, or several: then it is ignored). */
static const struct http_header *
only_field(const struct http_request *req, const char *name)
{
	const struct http_header *f = http_header_find(req->headers, req->num_headers, name, NULL);

	if (f != NULL && http_header_find(req->headers, req->num_headers, name, f) != NULL)
		return NULL;
	return f;
}

/* All the field's values, joined in our check: any listed tag in any of the fields. */
static int
any_field_matches(const struct http_request *req, const char *name, const char *etag,
    size_t etag_len, int strong, int *present)
{
	const struct http_header *f = NULL;

	*present = 0;
	while ((f = http_header_find(req->headers, req->num_headers, name, f)) != NULL) {
		*present = 1;
		if (http_etag_match(f->value, f->value_len, etag, etag_len, strong))
			return 1;
	}
	return 0;
}

/*
 * RFC 9110 §13.2.2, in its order, for the selected representation (etag, mtime):
 * If-Match (strong) then If-Unmodified-Since when there is no If-Match, both failing with
 * 412; If-None-Match (weak) failing with 304 for GET and HEAD, 412 for the others; else
 * If-Modified-Since for GET and HEAD only, 304. An invalid date is ignored.
 */
enum http_cond
http_preconditions(const struct http_request *req, const char *etag, size_t etag_len,
    time_t mtime)
{
	const struct http_header *f;
	int present, get = req->method_id == HTTP_METHOD_GET || req->method_id == HTTP_METHOD_HEAD;
	time_t t;

	if (any_field_matches(req, "If-Match", etag, etag_len, 1, &present) == 0 && present)
		return HTTP_COND_FAILED;
	if (!present && (f = only_field(req, "If-Unmodified-Since")) != NULL &&
	    http_date_parse(f->value, f->value_len, &t) == 0 && mtime > t)
		return HTTP_COND_FAILED;
	if (any_field_matches(req, "If-None-Match", etag, etag_len, 0, &present))
		return get ? HTTP_COND_NOT_MODIFIED : HTTP_COND_FAILED;
	if (!present && get && http_if_modified_since(req, &t) == 1 && mtime <= t)
		return HTTP_COND_NOT_MODIFIED;
	return HTTP_COND_OK;
}

/*
 * If-Range (RFC 9110 §13.1.5): 1 when the Range may be honoured (no If-Range, or it names
 * the current representation: our strong ETag, or exactly its Last-Modified date), else 0:
 * the whole representation is sent.
 */
int
http_if_range(const struct http_request *req, const char *etag, size_t etag_len, time_t mtime)
{
	const struct http_header *f = http_header_find(req->headers, req->num_headers, "If-Range",
	    NULL);
	time_t t;

	if (f == NULL)
		return 1;
	if (http_header_find(req->headers, req->num_headers, "If-Range", f) != NULL)
		return 0;
	if (f->value_len > 0 && (f->value[0] == '"' || f->value[0] == 'W'))
		return f->value[0] == '"' && f->value_len == etag_len &&
		    memcmp(f->value, etag, etag_len) == 0;
	return http_date_parse(f->value, f->value_len, &t) == 0 && t == mtime;
}
