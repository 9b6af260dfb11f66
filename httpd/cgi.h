/* cgi.h: CGI/1.1 programs, -c PATTERN (cgi.c). */
#ifndef SCTPHTTPD_CGI_H
#define SCTPHTTPD_CGI_H

#include <stdint.h>
#include <sys/stat.h>

struct cgi;
struct http_request;
struct httpd_origin;
struct resp;

#define CGI_LEN_CHUNKED UINT64_MAX    /* clen of chunked content: until cgi_body_end */
/* body_slot: where the request content's program is kept by the caller, cleared when it goes */
int cgi_start(const struct httpd_origin *from, struct cgi **body_slot,
    const struct http_request *req, const char *path, const char *script_name,
    const char *path_info, const struct stat *st, uint64_t clen, struct resp *r, int conn_close);
int cgi_full(void);                       /* --cgi-max programs are running */
void cgi_body(struct cgi *c, const char *data, size_t n);
void cgi_body_end(struct cgi *c);
void cgi_refuse(struct cgi *c, int status, int conn_close);
void cgi_reap(void);

#endif
