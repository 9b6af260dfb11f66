/* server_http.c: one parsed request to its responses (static files, listings, CGI, errors); it
 * knows nothing of connections: the caller queues what it hands back. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgi.h"
#include "altsvc.h"
#include "head.h"
#include "httpd.h"
#include "log.h"
#include "match.h"
#include "mmc.h"
#include "resp.h"
#include "server_file.h"
#include "server_http.h"
#include "server_ranges.h"
#include "throttle.h"

/* r goes out after what is queued already. */
static void
serve_out(struct server_http_ctx *x, struct resp *r)
{
	if (x->nout < sizeof(x->out) / sizeof(x->out[0]))
		x->out[x->nout++] = r;
	else
		resp_free(r); /* not reached: a request makes two responses at most */
}

/* Read no more requests, close after these: request_asked, the client said so. The first
 * reason counts; the responses after it say "Connection: close". */
static void
serve_close(struct server_http_ctx *x, int request_asked)
{
	if (x->close == 0)
		x->close = request_asked ? 1 : 2;
	x->draining = 1;
}

static void
serve_close_fd(int fd)
{
	if (fd != -1)
		close(fd);
}

/* The request line, for the log: up to its line end (the whole head is in the buffer). */
static size_t
serve_line_len(const struct http_request *req)
{
	const char *p = req->method;

	while (*p != '\r' && *p != '\n')
		p++;
	return (size_t)(p - req->method);
}

/* A response whose body (if any) is in memory. */
static void
serve_queue_raw(struct server_http_ctx *x, const struct http_request *req, const struct head_out *o,
    const char *body, size_t blen, int head_only, const char *raw, size_t rawlen)
{
	char head[HEAD_MAX];
	struct resp *r;
	int hl;

	if ((r = resp_new()) == NULL)
		goto oom;
	if ((hl = head_format(o, head, sizeof(head))) < 0)
		goto oom;
	hl = altsvc_head(x->from.msg, head, hl, sizeof(head));
	if (head_only)
		blen = 0;
	if ((r->buf = malloc((size_t)hl + blen + 1)) == NULL)
		goto oom;
	memcpy(r->buf, head, (size_t)hl);
	if (blen > 0)
		memcpy(r->buf + hl, body, blen);
	r->len = (size_t)hl + blen;
	r->body_sent = blen;
	r->status = o->status;
	r->close = o->close;
	if (log_enabled()) {
		if (req != NULL) {
			raw = req->method;
			rawlen = serve_line_len(req);
		} else if (raw == NULL || rawlen == 0) {
			raw = "-";
			rawlen = 1;
		}
		r->log = log_prepare(x->from.peer, req, raw, rawlen, o->status, &r->log_split);
	}
	serve_out(x, r);
	return;
oom:
	/* Nothing sensible can go out; closing keeps the byte stream in step. */
	resp_free(r);
	serve_close(x, 0);
}

static void
serve_queue(struct server_http_ctx *x, const struct http_request *req, const struct head_out *o,
    const char *body, size_t blen, int head_only)
{
	serve_queue_raw(x, req, o, body, blen, head_only, NULL, 0);
}

static void
serve_error_page(struct server_http_ctx *x, const struct http_request *req, int status,
    int conn_close, const char *extra, int head_only)
{
	char body[512];
	struct head_out o = { 0 };
	int n;

	n = head_error_body(body, sizeof(body), status, NULL);
	o.status = status;
	o.minor = req ? req->minor_version : 1;
	o.close = conn_close || x->draining;
	o.ctype = "text/html; charset=utf-8";
	o.clen = (uint64_t)n;
	o.has_clen = 1;
	o.extra = extra;
	serve_queue(x, req, &o, body, (size_t)n, head_only);
}

/* A request that could not be parsed: no request to go by, so close after it. raw: its
 * first line as far as it came, for the log (escaped there); note: why, in the body. */
void
server_http_error(struct server_http_ctx *x, int status, int minor_version, int conn_close,
    const char *raw, size_t rawlen, const char *note)
{
	size_t i;
	char body[512];
	struct head_out o = { 0 };
	int n;

	n = head_error_body(body, sizeof(body), status, note);
	o.status = status;
	o.minor = minor_version;
	o.close = conn_close || x->draining;
	o.ctype = "text/html; charset=utf-8";
	o.clen = (uint64_t)n;
	o.has_clen = 1;
	for (i = 0; raw != NULL && i < rawlen && i < 1024; i++)
		if (raw[i] == '\r' || raw[i] == '\n')
			break;
	serve_queue_raw(x, NULL, &o, body, (size_t)n, 0, raw, i);
}

/*
 * A directory asked without its trailing slash: 301 to the normalised path plus "/", as an
 * absolute URI as nginx sends it (the host asked for, else the listener's address, and the
 * listener's port). Never the raw target: "//evil/../d" or "/\\evil/../d" would send the
 * client elsewhere.
 */
static void
serve_redirect_dir(struct server_http_ctx *x, const struct http_request *req, const char *path,
    int conn_close, int head_only)
{
	char extra[HEAD_MAX / 2], enc[HEAD_MAX / 4];
	const char *host, *local = x->from.local, *port = strrchr(local, ':');
	size_t host_len = 0;
	int n, port_len;

	if (port != NULL && strchr(port, ']') != NULL)
		port = NULL;
	if (http_request_host(req, &host, &host_len) == -1 || host == NULL || host_len == 0) {
		host = local;
		host_len = port != NULL ? (size_t)(port - local) : strlen(local);
	} else if (x->from.msg) {
		/* SCTP: the origin's port as the client named it, not the SCTP listener's: an
		 * "http" URI's authority is the TCP origin's (the draft's Discovery section) */
		port = host[host_len] == ':' ? host + host_len : NULL;
	}
	if (port != NULL && strncmp(port, ":80", 3) == 0 && (port[3] < '0' || port[3] > '9'))
		port = NULL;
	port_len = port != NULL ? 1 + (int)strspn(port + 1, "0123456789") : 0;
	n = -1;
	/* the decoded path again as a URL path: sub-delims, ':', '@' and '/' as they are */
	if (file_url_encode(path, "!$&'()*+,;=:@/", enc, sizeof(enc)) >= 0)
		n = snprintf(extra, sizeof(extra), "Location: http://%.*s%.*s%s/%s%.*s\r\n",
		    (int)host_len, host, port_len, port != NULL ? port : "", enc, req->query ? "?" : "",
		    req->query ? (int)req->query_len : 0, req->query ? req->query : "");
	if (n < 0 || (size_t)n >= sizeof(extra)) {
		serve_error_page(x, req, 414, conn_close, NULL, head_only);
		return;
	}
	serve_error_page(x, req, 301, conn_close, extra, head_only);
}

static void
serve_file(struct server_http_ctx *x, const struct http_request *req, const char *path, int fd,
    const struct stat *st, int conn_close, int head_only)
{
	char lm[HTTP_DATE_LEN + 1], extra[768], head[HEAD_MAX], cache[128];
	char etag[HTTP_ETAG_MAX], mctype[96];
	struct head_out o = { 0 };
	struct http_range rg[SERVER_MAX_RANGES];
	enum http_range_result rr = HTTP_RANGE_IGNORE;
	uint64_t size = (uint64_t)st->st_size, first = 0, len = size;
	size_t elen, nr = 0;
	struct resp *r = NULL;
	int hl;

	if (http_date_format(st->st_mtime, lm, sizeof(lm)) == 0)
		lm[0] = '\0';
	elen = http_etag_format(st->st_mtime, size, etag, sizeof(etag));
	cache[0] = '\0';
	if (httpd_config()->max_age >= 0) {
		/* -M, as thttpd: how long caches may keep it, both ways of saying so. */
		char exp[HTTP_DATE_LEN + 1];
		long ma = httpd_config()->max_age;
		if (http_date_format(time(NULL) + ma, exp, sizeof(exp)) == 0)
			exp[0] = '\0';
		snprintf(cache, sizeof(cache), "Cache-Control: max-age=%ld\r\nExpires: %s\r\n", ma, exp);
	}
	o.minor = req->minor_version;
	o.close = conn_close;
	o.ctype = file_mime(path);
	o.extra = extra;
	switch (http_preconditions(req, etag, elen, st->st_mtime)) {
	case HTTP_COND_NOT_MODIFIED:
		snprintf(extra, sizeof(extra), "Last-Modified: %s\r\nETag: %s\r\n%s", lm, etag, cache);
		o.status = 304;
		o.ctype = NULL;
		serve_queue(x, req, &o, NULL, 0, 1);
		serve_close_fd(fd);
		return;
	case HTTP_COND_FAILED:
		serve_close_fd(fd);
		serve_error_page(x, req, 412, conn_close, NULL, head_only);
		return;
	case HTTP_COND_OK:
		break;
	}
	/* If-Range naming anything but the current file: send the whole (changed) file. */
	if (http_if_range(req, etag, elen, st->st_mtime))
		rr = range_request(req, size, rg, SERVER_MAX_RANGES, &nr);
	if (rr == HTTP_RANGE_UNSATISFIABLE) {
		snprintf(extra, sizeof(extra), "Content-Range: bytes */%llu\r\n",
		    (unsigned long long)size);
		serve_close_fd(fd);
		serve_error_page(x, req, 416, conn_close, extra, head_only);
		return;
	}
	if (rr == HTTP_RANGE_OK && nr > 1) {
		char *body = range_multipart(fd, size, o.ctype, rg, nr, mctype, sizeof(mctype), &len);
		if (body != NULL) {
			snprintf(extra, sizeof(extra), "Last-Modified: %s\r\nETag: %s\r\n%s"
			    "Accept-Ranges: bytes\r\n", lm, etag, cache);
			o.status = 206;
			o.ctype = mctype;
			o.clen = len;
			o.has_clen = 1;
			serve_queue(x, req, &o, body, (size_t)len, head_only);
			free(body);
			serve_close_fd(fd);
			return;
		}
		rr = HTTP_RANGE_IGNORE; /* too much to build: the whole file, as RFC 9110 allows */
		len = size;
	}
	if (rr == HTTP_RANGE_OK) {
		first = rg[0].first;
		len = rg[0].last - rg[0].first + 1;
		o.status = 206;
		snprintf(extra, sizeof(extra), "Last-Modified: %s\r\nETag: %s\r\n%sAccept-Ranges: "
		    "bytes\r\nContent-Range: bytes %llu-%llu/%llu\r\n", lm, etag, cache,
		    (unsigned long long)rg[0].first, (unsigned long long)rg[0].last,
		    (unsigned long long)size);
	} else {
		o.status = 200;
		snprintf(extra, sizeof(extra), "Last-Modified: %s\r\nETag: %s\r\n%sAccept-Ranges: "
		    "bytes\r\n", lm, etag, cache);
	}
	o.clen = len;
	o.has_clen = 1;
	if ((r = resp_new()) == NULL || (hl = head_format(&o, head, sizeof(head))) < 0)
		goto oom;
	hl = altsvc_head(x->from.msg, head, hl, sizeof(head));
	if (head_only || len <= SERVER_INLINE_BODY) {
		size_t blen = head_only ? 0 : (size_t)len, got = 0;
		if ((r->buf = malloc((size_t)hl + blen + 1)) == NULL)
			goto oom;
		memcpy(r->buf, head, (size_t)hl);
		while (got < blen) {
			ssize_t n = pread(fd, r->buf + hl + got, blen - got, (off_t)(first + got));
			if (n <= 0) {
				if (n < 0 && errno == EINTR)
					continue;
				/* The file shrank under us: the promised length cannot be kept. */
				resp_free(r);
				serve_close_fd(fd);
				serve_error_page(x, req, 500, 1, NULL, head_only);
				return;
			}
			got += (size_t)n;
		}
		r->len = (size_t)hl + blen;
		r->body_sent = blen;
		serve_close_fd(fd);
	} else {
		if ((r->buf = malloc((size_t)hl)) == NULL)
			goto oom;
		memcpy(r->buf, head, (size_t)hl);
		r->len = (size_t)hl;
		if (x->from.msg)
			r->src = mmc_src(fd, st, (off_t)first, (off_t)(first + len));
		if (r->src == NULL && (r->src = resp_file_src(fd, (off_t)first,
		    (off_t)(first + len))) == NULL)
			goto oom;
		if (throttle_attach(r, path) == -1) {
			/* A MIN in the throttle file: its share would be too small now. */
			resp_free(r);
			serve_error_page(x, req, 503, conn_close, NULL, head_only);
			return;
		}
	}
	r->status = o.status;
	r->close = o.close;
	if (log_enabled())
		r->log = log_prepare(x->from.peer, req, req->method, serve_line_len(req), o.status,
		    &r->log_split);
	serve_out(x, r);
	return;
oom:
	if (r == NULL || r->src == NULL)
		serve_close_fd(fd);
	resp_free(r);
	serve_close(x, 0);
}

/* path: what is opened (with -v, below the host's directory); upath: the URL path shown. */
static void
serve_dir(struct server_http_ctx *x, const struct http_request *req, const char *path,
    const char *upath, int fd, int conn_close, int head_only)
{
	char idx[PATH_MAX + 16];
	struct head_out o = { 0 };
	struct stat st;
	char *body = NULL;
	size_t blen = 0;
	int ifd = -1, status;

	if (path[strlen(path) - 1] != '/') {
		serve_close_fd(fd);
		serve_redirect_dir(x, req, upath, conn_close, head_only);
		return;
	}
	if ((size_t)snprintf(idx, sizeof(idx), "%sindex.html", path) < sizeof(idx) &&
	    file_open(idx, &ifd, &st) == 0) {
		if (S_ISREG(st.st_mode)) {
			serve_close_fd(fd);
			serve_file(x, req, idx, ifd, &st, conn_close, head_only);
			return;
		}
		serve_close_fd(ifd);
	}
	if (!httpd_config()->listings) {
		serve_close_fd(fd);
		serve_error_page(x, req, 403, conn_close, NULL, head_only);
		return;
	}
	if ((status = file_listing(fd, upath, &body, &blen)) != 0) {
		serve_error_page(x, req, status, conn_close, NULL, head_only);
		return;
	}
	o.status = 200;
	o.minor = req->minor_version;
	o.close = conn_close;
	o.ctype = "text/html; charset=utf-8";
	o.clen = blen;
	o.has_clen = 1;
	serve_queue(x, req, &o, body, blen, head_only);
	free(body);
}

/*
 * -v: the host's directory name, lowercased (the port is already off). A name that could
 * leave the root or hide ("..", ".x", "/", NUL, any byte outside [a-z0-9.-_] or "[v6:]"),
 * or no Host at all (HTTP/1.0), is 0: answer 400. Else the length written to out.
 */
static size_t
serve_vhost_dir(const char *host, size_t len, char *out, size_t cap)
{
	size_t i;

	if (host == NULL || len == 0 || len >= cap || host[0] == '.')
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)host[i];
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
		    c == '_' || c == '[' || c == ']' || c == ':'))
			return 0;
		out[i] = (char)c;
	}
	out[len] = '\0';
	return len;
}

/* Expect: 100-continue (RFC 9110 10.1.1): the content will be read, so say so, and the client
 * need not wait a second before it sends it. */
static void
serve_continue(struct server_http_ctx *x, const struct http_request *req, uint64_t clen)
{
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
	const struct http_header *ex;
	struct resp *r;

	if (clen == 0 || req->minor_version < 1 ||
	    (ex = http_header_find(req->headers, req->num_headers, "Expect", NULL)) == NULL ||
	    !http_token_eq(ex->value, ex->value_len, "100-continue"))
		return;
	if ((r = resp_new()) == NULL || (r->buf = malloc(sizeof(cont))) == NULL) {
		resp_free(r);
		return;
	}
	memcpy(r->buf, cont, sizeof(cont));
	r->len = sizeof(cont) - 1;
	r->status = 100;
	serve_out(x, r);
}

/* -c: the program at path runs for this request; its output becomes the response. */
static void
serve_cgi(struct server_http_ctx *x, const struct http_request *req, const struct http_framing *fr,
    const char *path, const char *upath, const char *path_info, const struct stat *st,
    int conn_close)
{
	uint64_t clen = fr->body == HTTP_BODY_LENGTH ? fr->length :
	    fr->body == HTTP_BODY_CHUNKED ? CGI_LEN_CHUNKED : 0;
	struct resp *r;
	int status;

	/* Chunked content is counted against the limit as it is decoded (server.c). */
	if (clen != CGI_LEN_CHUNKED && clen > httpd_config()->cgi_max_body) {
		serve_error_page(x, req, 413, 1, NULL, 0);
		serve_close(x, 0);
		return;
	}
	/* A client's own pipeline is queued, not refused: while programs of this stream are
	 * among those at --cgi-max, this request waits for one of them to end. */
	if (x->programs > 0 && cgi_full()) {
		x->wait = 1;
		return;
	}
	if ((r = resp_new()) == NULL) {
		serve_close(x, 0);
		return;
	}
	if (log_enabled())
		r->log = log_prepare(x->from.peer, req, req->method, serve_line_len(req), 200,
		    &r->log_split);
	if ((status = cgi_start(&x->from, x->body_cgi, req, path, upath, path_info, st, clen, r,
	    conn_close)) != 0) {
		resp_free(r);
		/* busy (--cgi-max with other clients' programs): worth asking again soon */
		serve_error_page(x, req, status, conn_close, status == 503 ? "Retry-After: 1\r\n" :
		    NULL, 0);
		return;
	}
	r->program = 1;
	serve_continue(x, req, clen);
	serve_out(x, r);
}

/*
 * RFC 3875 4.1.5: "/cgi-bin/env.cgi/extra/path" runs /cgi-bin/env.cgi with PATH_INFO
 * "/extra/path". path (the URL path) and open_path (the same with the -v host directory
 * before it, vlen bytes) end at a "/" in turn, left to right: the first prefix that opens as a
 * regular file is the script when the CGI pattern takes it (a file has nothing below it, so no
 * longer prefix can be one). Returns the prefix length with *fd and *st, or 0 (404).
 */
static size_t
serve_cgi_prefix(char *path, char *open_path, size_t vlen, int *fd, struct stat *st)
{
	size_t i, len = strlen(path);
	int status;

	for (i = 1; i < len; i++) {
		if (path[i] != '/')
			continue;
		path[i] = open_path[vlen + i] = '\0';
		status = file_open(open_path, fd, st);
		path[i] = open_path[vlen + i] = '/';
		if (status != 0)
			return 0;
		if (S_ISDIR(st->st_mode)) {
			close(*fd);
			continue;
		}
		path[i] = '\0';
		status = match_pattern(httpd_config()->cgi_pattern, path);
		path[i] = '/';
		if (status)
			return i;
		close(*fd);
		return 0;
	}
	return 0;
}

void
server_http_handle(struct server_http_ctx *x, const struct http_request *req,
    const struct http_framing *fr)
{
	/* The path's own length bounds it, never PATH_MAX: --max-line is the one URI limit
	 * (a path too long for the file system names no file: 404). */
	size_t cap = req->path_len + 2, vlen = 0, pre = 0;
	char *path = NULL, *vpath = NULL, *info = NULL, vdir[256];
	char *open_path;
	const char *host;
	size_t host_len;
	int keep = http_keep_alive(req->minor_version, req->headers, req->num_headers);
	int conn_close, head_only = req->method_id == HTTP_METHOD_HEAD, fd = -1, status, cgi;
	struct stat st;
	ssize_t plen;

	if (!keep)
		serve_close(x, 1);
	conn_close = !keep || x->draining;
	if (req->method_id == HTTP_METHOD_OTHER || req->method_id == HTTP_METHOD_CONNECT) {
		serve_error_page(x, req, 501, conn_close, NULL, 0);
		return;
	}
	if (http_request_host(req, &host, &host_len) == -1 ||
	    (req->form != HTTP_TARGET_ORIGIN && req->form != HTTP_TARGET_ABSOLUTE)) {
		serve_error_page(x, req, 400, conn_close, NULL, head_only);
		return;
	}
	if ((path = malloc(cap)) == NULL || (vpath = malloc(cap + sizeof(vdir) + 2)) == NULL) {
		serve_error_page(x, req, 503, conn_close, NULL, head_only);
		goto out;
	}
	/* "..", "%2e%2e", NUL, %2F: all refused here, before any file system call. */
	if ((plen = http_path_clean(req->path, req->path_len, path, cap)) < 1) {
		serve_error_page(x, req, 400, conn_close, NULL, head_only);
		goto out;
	}
	cgi = httpd_config()->cgi_pattern != NULL &&
	    match_pattern(httpd_config()->cgi_pattern, path);
	open_path = path;
	if (httpd_config()->vhost) {
		if (serve_vhost_dir(host, host_len, vdir, sizeof(vdir)) == 0) {
			serve_error_page(x, req, 400, conn_close, NULL, head_only);
			goto out;
		}
		snprintf(vpath, cap + sizeof(vdir) + 2, "/%s%s", vdir, path);
		open_path = vpath;
		vlen = strlen(vdir) + 1;
	}
	status = file_open(open_path, &fd, &st);
	if (status == 404 && httpd_config()->cgi_pattern != NULL &&
	    (pre = serve_cgi_prefix(path, open_path, vlen, &fd, &st)) > 0) {
		if ((info = strdup(path + pre)) == NULL) {
			serve_error_page(x, req, 503, conn_close, NULL, head_only);
			goto out;
		}
		path[pre] = '\0'; /* the script's own path: SCRIPT_NAME */
		open_path[vlen + pre] = '\0';
		status = 0;
		cgi = 1;
	}
	if (req->method_id != HTTP_METHOD_GET && req->method_id != HTTP_METHOD_HEAD &&
	    !(cgi && req->method_id == HTTP_METHOD_POST)) {
		serve_error_page(x, req, 405, conn_close,
		    cgi ? "Allow: GET, HEAD, POST\r\n" : "Allow: GET, HEAD\r\n", 0);
		goto out;
	}
	if (status != 0) {
		serve_error_page(x, req, status, conn_close, NULL, head_only);
		goto out;
	}
	if (cgi && S_ISREG(st.st_mode)) {
		close(fd);
		fd = -1;
		serve_cgi(x, req, fr, open_path, path, info, &st, conn_close);
	} else if (S_ISDIR(st.st_mode)) {
		serve_dir(x, req, open_path, path, fd, conn_close, head_only);
		fd = -1;
	} else {
		serve_file(x, req, open_path, fd, &st, conn_close, head_only);
		fd = -1;
	}
out:
	if (fd != -1)
		close(fd);
	free(info);
	free(vpath);
	free(path);
}
