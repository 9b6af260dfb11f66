/* fuzz_http_response.c: libFuzzer harness for the response head parser, its framing, and the
 * chunked decoder fed as httpload feeds it (whatever piece sizes the network gives). */
#include <string.h>

#include "http.h"
#include "fuzz.h"

#define NHDR 64

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_header h[NHDR], h2[NHDR];
	struct http_response res, again;
	struct http_framing fr;
	struct http_chunked ch;
	const char *buf = (const char *)data;
	size_t i, off, piece;
	char *body;
	ssize_t r = -2;
	int n;

	if (size < 1)
		return 0;
	piece = 1 + data[0] % 64;
	data++;
	size--;
	buf = (const char *)data;
	memset(&res, 0, sizeof(res));
	res.headers = h;
	n = http_parse_response(buf, size, &res, NHDR);
	FUZZ_CHECK(n >= -2 && n <= (int)size);
	if (n == -1)
		FUZZ_CHECK(res.error != HTTP_ERR_NONE);
	if (n < 0)
		return 0;
	again = res;
	again.headers = h2;
	FUZZ_CHECK(http_parse_response(buf, (size_t)n - 1, &again, NHDR) == -2);
	FUZZ_CHECK(res.status >= 100 && res.status <= 999);
	FUZZ_CHECK(res.minor_version == 0 || res.minor_version == 1);
	FUZZ_CHECK(res.reason >= buf && res.reason + res.reason_len <= buf + n);
	for (i = 0; i < res.num_headers; i++)
		FUZZ_CHECK(h[i].name >= buf && h[i].value + h[i].value_len <= buf + n);
	if (http_response_framing(&res, 0, &fr) == -1) {
		FUZZ_CHECK(fr.error != HTTP_FR_OK);
		return 0;
	}
	if (fr.body != HTTP_BODY_CHUNKED)
		return 0;
	/* the decoder in place over a copy, piece by piece */
	if ((body = malloc(size - (size_t)n + 1)) == NULL)
		return 0;
	memcpy(body, buf + n, size - (size_t)n);
	http_chunked_init(&ch);
	for (off = 0; off < size - (size_t)n && r == -2; off += piece) {
		size_t len = size - (size_t)n - off < piece ? size - (size_t)n - off : piece;
		r = http_chunked_decode(&ch, body + off, &len);
		FUZZ_CHECK(len <= piece);
		FUZZ_CHECK(fuzz_touch((const uint8_t *)body + off, len) <= 255 * piece);
	}
	FUZZ_CHECK(r >= -2);
	free(body);
	return 0;
}
