/* server_http.h: one parsed request to its responses (server_http.c). The handler knows no
 * connection: it reads where the request came from and hands back what to queue. */
#ifndef SCTPHTTPD_SERVER_HTTP_H
#define SCTPHTTPD_SERVER_HTTP_H

#include <stddef.h>

#include "http.h"
#include "httpd.h"

struct cgi;
struct resp;

struct server_http_ctx {
	struct httpd_origin from;
	int draining;                 /* responses must say Connection: close */
	struct cgi **body_cgi;        /* where a CGI program taking the request content goes */
	unsigned programs;            /* CGI answers still queued on this stream (resp.program) */
	/* out */
	struct resp *out[2];          /* the responses, in request order (100 Continue first) */
	unsigned nout;
	int close;                    /* read no more requests: 1 the client asked, 2 we decided */
	int wait;                     /* not handled: --cgi-max is reached by this stream's own
	                               * programs among others; ask again when one has ended */
};

void server_http_handle(struct server_http_ctx *x, const struct http_request *req,
    const struct http_framing *fr);
/* A request that could not be parsed: raw is its first line as far as it came, for the log;
 * note: why, in the page. */
void server_http_error(struct server_http_ctx *x, int status, int minor_version, int close,
    const char *raw, size_t rawlen, const char *note);

#endif
