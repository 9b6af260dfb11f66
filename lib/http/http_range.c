/* http_range.c: Range (RFC 9110 §14): one byte range, resolved against the representation size. */
#include <string.h>

#include "http.h"

/* 1*DIGIT; saturates instead of failing, since a huge position is valid and just unsatisfiable. */
static int
parse_pos(const char *s, size_t len, uint64_t *v)
{
	uint64_t n = 0;
	size_t i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		n = n > (UINT64_MAX - d) / 10 ? UINT64_MAX : n * 10 + d;
	}
	*v = n;
	return 0;
}

/* int-range or suffix-range, no whitespace inside. *suffix: "-N". -1 when invalid. */
static int
parse_spec(const char *s, size_t len, uint64_t *first, uint64_t *last, int *has_last, int *suffix)
{
	const char *dash = memchr(s, '-', len);

	if (dash == NULL)
		return -1;
	*suffix = dash == s;
	*has_last = dash + 1 < s + len;
	if (*suffix)
		return parse_pos(dash + 1, len - 1, last);
	if (parse_pos(s, (size_t)(dash - s), first) == -1)
		return -1;
	if (*has_last) {
		if (parse_pos(dash + 1, (size_t)(s + len - dash - 1), last) == -1)
			return -1;
		if (*last < *first)
			return -1; /* invalid, so the whole field is ignored (RFC 9110 §14.1.1) */
	}
	return 0;
}

/* One spec against the representation size: OK with r, UNSATISFIABLE, or IGNORE (a suffix
 * of an empty representation). */
static enum http_range_result
resolve(uint64_t first, uint64_t last, int has_last, int suffix, uint64_t size,
    struct http_range *r)
{
	if (suffix) {
		if (last == 0)
			return HTTP_RANGE_UNSATISFIABLE;
		if (size == 0)
			return HTTP_RANGE_IGNORE;
		r->first = last >= size ? 0 : size - last;
		r->last = size - 1;
		return HTTP_RANGE_OK;
	}
	if (first >= size)
		return HTTP_RANGE_UNSATISFIABLE;
	r->first = first;
	r->last = has_last && last < size ? last : size - 1;
	return HTTP_RANGE_OK;
}

/*
 * value: the Range field value; size: the length of the selected representation. A single
 * range gives HTTP_RANGE_OK with r clamped to the representation, or UNSATISFIABLE; several
 * give MULTI without more checks; an invalid field or another unit gives IGNORE (a server
 * may always ignore Range, RFC 9110 §14.2). An empty representation has no range we serve:
 * bytes=0- is UNSATISFIABLE and a suffix range IGNORE (200 with the empty body).
 */
enum http_range_result
http_range_parse(const char *value, size_t len, uint64_t size, struct http_range *r)
{
	const char *p = value, *end = value + len, *e;
	uint64_t first = 0, last = 0;
	int has_last, suffix, n = 0;
	size_t elen;

	if (len < 6 || !http_token_eq(value, 5, "bytes") || value[5] != '=')
		return HTTP_RANGE_IGNORE;
	p += 6;
	while (http_list_next(&p, end, &e, &elen)) {
		if (parse_spec(e, elen, &first, &last, &has_last, &suffix) == -1)
			return HTTP_RANGE_IGNORE;
		n++;
	}
	if (n == 0)
		return HTTP_RANGE_IGNORE;
	if (n > 1)
		return HTTP_RANGE_MULTI;
	/* One element: first, last and the flags are still its own. */
	return resolve(first, last, has_last, suffix, size, r);
}

/*
 * Several ranges (RFC 9110 §14.1.2), for multipart/byteranges: up to max of them resolved
 * into r[0..*n), in the order asked, the unsatisfiable ones left out. HTTP_RANGE_OK with
 * *n >= 1; UNSATISFIABLE when none is; IGNORE as http_range_parse; MULTI when more than max
 * were asked (against amplification: serve the whole representation).
 */
enum http_range_result
http_ranges_parse(const char *value, size_t len, uint64_t size, struct http_range *r,
    size_t max, size_t *n)
{
	const char *p = value, *end = value + len, *e;
	uint64_t first = 0, last = 0;
	int has_last, suffix, any = 0;
	size_t elen, asked = 0;

	*n = 0;
	if (len < 6 || !http_token_eq(value, 5, "bytes") || value[5] != '=')
		return HTTP_RANGE_IGNORE;
	p += 6;
	while (http_list_next(&p, end, &e, &elen)) {
		if (parse_spec(e, elen, &first, &last, &has_last, &suffix) == -1)
			return HTTP_RANGE_IGNORE;
		if (++asked > max)
			return HTTP_RANGE_MULTI;
		switch (resolve(first, last, has_last, suffix, size, &r[*n])) {
		case HTTP_RANGE_OK:
			(*n)++;
			break;
		case HTTP_RANGE_IGNORE:
			any = 1; /* an empty representation: served whole */
			break;
		default:
			break;
		}
	}
	if (asked == 0)
		return HTTP_RANGE_IGNORE;
	if (*n > 0)
		return HTTP_RANGE_OK;
	return any ? HTTP_RANGE_IGNORE : HTTP_RANGE_UNSATISFIABLE;
}

/*
 * The Range of a request: only GET has range handling (RFC 9110 §14.2); several Range fields
 * are IGNORE. If-Range is left to the server: when present and not matching, skip this call.
 */
enum http_range_result
http_request_range(const struct http_request *req, uint64_t size, struct http_range *r)
{
	const struct http_header *f;

	if (req->method_id != HTTP_METHOD_GET)
		return HTTP_RANGE_IGNORE;
	f = http_header_find(req->headers, req->num_headers, "Range", NULL);
	if (f == NULL || http_header_find(req->headers, req->num_headers, "Range", f) != NULL)
		return HTTP_RANGE_IGNORE;
	return http_range_parse(f->value, f->value_len, size, r);
}
