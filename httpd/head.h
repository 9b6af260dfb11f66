/* head.h: our response heads and error pages (head.c). */
#ifndef SCTPHTTPD_HEAD_H
#define SCTPHTTPD_HEAD_H

#include <stddef.h>
#include <stdint.h>

#define HEAD_MAX 2048 /* our own header section; the longest part is Location */
struct head_out {
	int status;
	int minor;           /* the request's HTTP/1.x, for "Connection: keep-alive" in 1.0 */
	int close;
	const char *ctype;   /* NULL: no Content-Type */
	uint64_t clen;
	int has_clen;
	const char *extra;   /* more header lines, each ending in CRLF, or NULL */
};
const char *head_status_text(int status);
const char *head_date_now(void);
int head_format(const struct head_out *o, char *buf, size_t cap);
int head_error_body(char *body, size_t cap, int status, const char *note);
int head_error_page(int status, int minor_version, int close, char *out, size_t cap,
    size_t *body_len);

#endif
