/* fuzz_http_request.c: libFuzzer harness for the request head parser and what the server
 * asks of a parsed head (framing, Host, Range, path, chunked body). */
#include <string.h>

#include "http.h"
#include "fuzz.h"

#define NHDR 64

static void
within(const char *p, size_t n, const char *buf, size_t len)
{
	FUZZ_CHECK(p >= buf && n <= len && p + n <= buf + len);
}

/* The body decoded at once and in pieces of a size the input chose: the same result. */
static void
chunked(const char *body, size_t len, size_t piece)
{
	struct http_chunked a, b;
	char *x = malloc(len + 1), *y = malloc(len + 1);
	size_t la = len, off = 0, outb = 0, n;
	ssize_t ra, rb = -2;

	FUZZ_CHECK(x != NULL && y != NULL);
	memcpy(x, body, len);
	http_chunked_init(&a);
	ra = http_chunked_decode(&a, x, &la);
	FUZZ_CHECK(ra >= -2 && la <= len);
	FUZZ_CHECK(ra < 0 || la + (size_t)ra <= len);
	http_chunked_init(&b);
	while (off < len && rb == -2) {
		n = len - off < piece ? len - off : piece;
		memcpy(y + outb, body + off, n);
		off += n;
		rb = http_chunked_decode(&b, y + outb, &n);
		outb += n;
	}
	if (ra == -1) {
		FUZZ_CHECK(rb == -1);
	} else if (ra == -2) {
		FUZZ_CHECK(rb == -2 && outb == la && memcmp(x, y, la) == 0);
	} else {
		FUZZ_CHECK(rb >= 0 && outb == la && memcmp(x, y, la) == 0);
		FUZZ_CHECK((size_t)rb + (len - off) == (size_t)ra);
		FUZZ_CHECK(http_chunked_done(&b));
	}
	free(x);
	free(y);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_header h[NHDR], h2[NHDR];
	struct http_request req, again;
	struct http_framing fr;
	struct http_range rg;
	const char *buf = (const char *)data, *host;
	size_t host_len, i;
	char path[1024];
	time_t t;
	int n, m;

	memset(&req, 0, sizeof(req));
	req.headers = h;
	req.max_line = 512;
	req.max_head = 2048;
	n = http_parse_request(buf, size, &req, NHDR);
	FUZZ_CHECK(n >= -2 && n <= (int)size);
	if (n == -1) {
		FUZZ_CHECK(req.error != HTTP_ERR_NONE);
		FUZZ_CHECK(http_error_status(req.error) >= 400);
		FUZZ_CHECK(http_error_str(req.error) != NULL);
		return 0;
	}
	if (n == -2)
		return 0;
	/* a prefix of a whole head is incomplete, never an error or another head */
	again = req;
	again.headers = h2;
	m = http_parse_request(buf, (size_t)n - 1, &again, NHDR);
	FUZZ_CHECK(m == -2);
	FUZZ_CHECK(req.minor_version == 0 || req.minor_version == 1);
	FUZZ_CHECK(req.num_headers <= NHDR);
	within(req.method, req.method_len, buf, (size_t)n);
	within(req.target, req.target_len, buf, (size_t)n);
	if (req.query != NULL)
		within(req.query, req.query_len, buf, (size_t)n);
	if (req.authority != NULL)
		within(req.authority, req.authority_len, buf, (size_t)n);
	for (i = 0; i < req.num_headers; i++) {
		within(h[i].name, h[i].name_len, buf, (size_t)n);
		within(h[i].value, h[i].value_len, buf, (size_t)n);
		FUZZ_CHECK(h[i].name_len > 0);
	}
	if (http_request_host(&req, &host, &host_len) == 0 && host != NULL)
		within(host, host_len, buf, (size_t)n);
	(void)http_connection(h, req.num_headers);
	(void)http_keep_alive(req.minor_version, h, req.num_headers);
	(void)http_if_modified_since(&req, &t);
	if (http_request_range(&req, 1000, &rg) == HTTP_RANGE_OK)
		FUZZ_CHECK(rg.first <= rg.last && rg.last < 1000);
	{
		static const char etag[] = "\"5e0d5da5-14\"";
		const struct http_header *rf = http_header_find(h, req.num_headers, "Range", NULL);
		struct http_range rs[4];
		size_t nr = 0;
		FUZZ_CHECK(http_preconditions(&req, etag, sizeof(etag) - 1, 1577934245) <=
		    HTTP_COND_FAILED);
		(void)http_if_range(&req, etag, sizeof(etag) - 1, 1577934245);
		if (rf != NULL && http_ranges_parse(rf->value, rf->value_len, 1000, rs, 4, &nr) ==
		    HTTP_RANGE_OK) {
			FUZZ_CHECK(nr >= 1 && nr <= 4);
			for (; nr > 0; nr--)
				FUZZ_CHECK(rs[nr - 1].first <= rs[nr - 1].last && rs[nr - 1].last < 1000);
		}
	}
	if (req.path != NULL) {
		ssize_t pl = http_path_clean(req.path, req.path_len, path, sizeof(path));
		if (pl >= 0) {
			FUZZ_CHECK((size_t)pl < sizeof(path) && path[pl] == '\0');
			FUZZ_CHECK(path[0] == '/' && strstr(path, "/../") == NULL &&
			    strstr(path, "//") == NULL && strlen(path) == (size_t)pl);
			FUZZ_CHECK(strstr(path, "/./") == NULL);
			FUZZ_CHECK(pl < 3 || strcmp(path + pl - 3, "/..") != 0);
			FUZZ_CHECK(pl < 2 || strcmp(path + pl - 2, "/.") != 0);
		}
	}
	if (http_request_framing(&req, &fr) == -1) {
		FUZZ_CHECK(fr.error != HTTP_FR_OK);
		FUZZ_CHECK(fr.smuggling == (fr.error == HTTP_FR_SMUGGLING));
		return 0;
	}
	/* both framings at once is always refused */
	FUZZ_CHECK(!(http_header_find(h, req.num_headers, "transfer-encoding", NULL) != NULL &&
	    http_header_find(h, req.num_headers, "content-length", NULL) != NULL));
	FUZZ_CHECK(fr.body != HTTP_BODY_CLOSE);
	if (fr.body == HTTP_BODY_CHUNKED)
		chunked(buf + n, size - (size_t)n, 1 + (size > 0 ? data[0] % 17 : 0));
	return 0;
}
