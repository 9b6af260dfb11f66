/* server_ranges.h: Range and multipart/byteranges (server_ranges.c). */
#ifndef SCTPHTTPD_SERVER_RANGES_H
#define SCTPHTTPD_SERVER_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"

enum http_range_result range_request(const struct http_request *req, uint64_t size,
    struct http_range *r, size_t max, size_t *n);
char *range_multipart(int fd, uint64_t size, const char *ctype, const struct http_range *rg,
    size_t n, char *ctype_out, size_t ctype_cap, size_t *blen);

#endif
