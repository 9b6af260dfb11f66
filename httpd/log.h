/* log.h: the access log, Common or Combined Log Format (log.c). */
#ifndef SCTPHTTPD_LOG_H
#define SCTPHTTPD_LOG_H

#include <stddef.h>

struct http_request;
struct resp;

int log_open(const char *path, int combined, char *err, size_t errlen);
int log_reopen(void);
int log_enabled(void);
char *log_prepare(const char *peer, const struct http_request *req, const char *raw_line,
    size_t raw_len, int status, size_t *split);
void log_shared(void);
void log_set_status(struct resp *r, int status);
void log_done(struct resp *r);
void log_flush(void);
void log_close(void);
size_t log_escape(const char *s, size_t n, char *out, size_t cap);

#endif
