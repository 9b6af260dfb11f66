/* server_ranges.c: the byte ranges of a request for a file, and multipart/byteranges bodies
 * (RFC 9110 §14.6) for several of them, bounded against amplification. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "httpd.h"
#include "server_ranges.h"

/*
 * The ranges to serve of a representation of size bytes: OK with r[0..*n), UNSATISFIABLE,
 * or IGNORE (send it all): no Range, not GET, an invalid field, or more than max ranges.
 */
enum http_range_result
range_request(const struct http_request *req, uint64_t size, struct http_range *r, size_t max,
    size_t *n)
{
	enum http_range_result rr = http_request_range(req, size, &r[0]);
	const struct http_header *f;

	*n = rr == HTTP_RANGE_OK;
	if (rr != HTTP_RANGE_MULTI)
		return rr;
	f = http_header_find(req->headers, req->num_headers, "Range", NULL);
	rr = http_ranges_parse(f->value, f->value_len, size, r, max, n);
	return rr == HTTP_RANGE_MULTI ? HTTP_RANGE_IGNORE : rr;
}

/* The part header before range i. */
static int
range_part_head(char *buf, size_t cap, const char *boundary, const char *ctype,
    const struct http_range *rg, uint64_t size)
{
	return snprintf(buf, cap, "\r\n--%s\r\nContent-Type: %s\r\nContent-Range: bytes "
	    "%llu-%llu/%llu\r\n\r\n", boundary, ctype, (unsigned long long)rg->first,
	    (unsigned long long)rg->last, (unsigned long long)size);
}

/*
 * The multipart/byteranges body of ranges rg[0..n) of fd (size bytes, type ctype), in memory:
 * NULL when it would exceed SERVER_MULTIPART_MAX (then the whole file is sent, which RFC 9110
 * allows) or the file could not be read. *ctype_out gets the response's Content-Type.
 */
char *
range_multipart(int fd, uint64_t size, const char *ctype, const struct http_range *rg, size_t n,
    char *ctype_out, size_t ctype_cap, size_t *blen)
{
	static unsigned long serial;
	char boundary[40], part[512], *body = NULL;
	uint64_t total = 0;
	size_t i, off = 0;
	int hl;

	snprintf(boundary, sizeof(boundary), "sctphttpd%08lx%04lx", (unsigned long)getpid(),
	    ++serial & 0xffff);
	for (i = 0; i < n; i++) {
		if ((hl = range_part_head(part, sizeof(part), boundary, ctype, &rg[i], size)) < 0)
			return NULL;
		total += (uint64_t)hl + rg[i].last - rg[i].first + 1;
	}
	total += strlen(boundary) + 8; /* "\r\n--" boundary "--\r\n" */
	if (total > SERVER_MULTIPART_MAX || (body = malloc((size_t)total + 1)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t want = (size_t)(rg[i].last - rg[i].first + 1), got = 0;
		hl = range_part_head(body + off, (size_t)total + 1 - off, boundary, ctype, &rg[i],
		    size);
		off += (size_t)hl;
		while (got < want) {
			ssize_t k = pread(fd, body + off + got, want - got,
			    (off_t)(rg[i].first + got));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				free(body);
				return NULL;
			}
			got += (size_t)k;
		}
		off += want;
	}
	off += (size_t)snprintf(body + off, (size_t)total + 1 - off, "\r\n--%s--\r\n", boundary);
	snprintf(ctype_out, ctype_cap, "multipart/byteranges; boundary=%s", boundary);
	*blen = off;
	return body;
}
