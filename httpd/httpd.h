/* httpd.h: sctphttpd's process-wide state (httpd.c): the configuration, the event loop and its
 * clock, the graceful stop; set up by main.c, read by every module. Below every other module. */
#ifndef SCTPHTTPD_HTTPD_H
#define SCTPHTTPD_HTTPD_H

#include <stdint.h>

#include "config.h"

struct ev_loop;

#define SERVER_SOFTWARE "sctphttpd/" PACKAGE_VERSION
#define SERVER_PPID_HTTP 63          /* draft-sctpapps-http-over-sctp: PPID of HTTP data */
#define SERVER_INLINE_BODY 16384     /* file bodies up to this size go out with their head */
#define SERVER_MAX_HEADERS 100
#define SERVER_RBUF 65536            /* bytes read from a connection at once */
#define SERVER_MAX_RANGES 16         /* a Range with more is answered with the whole file */
#define SERVER_MULTIPART_MAX (1u << 20) /* multipart/byteranges bodies built in memory */

/* Where a request came from: for the log, redirects and CGI's meta-variables. */
struct httpd_origin {
	const char *peer;             /* the client's address */
	const char *local;            /* the listener's address:port */
	int msg;                      /* a stream of an SCTP association */
	uint16_t stream;
};

struct config *httpd_config(void);
struct ev_loop *httpd_loop(void);
void httpd_set_loop(struct ev_loop *loop);
uint64_t httpd_now_us(void);          /* the loop's clock (monotonic), us */
int httpd_stopping(void);             /* SIGUSR1: every connection drains */
void httpd_set_stopping(void);

#endif
