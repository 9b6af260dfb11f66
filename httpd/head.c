/* head.c: the response head sctphttpd writes (status line, Date, Server, framing fields) and
 * its error pages; shared by the request handler (server_http.c) and CGI (cgi.c). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "head.h"
#include "http.h"
#include "httpd.h"

const char *
head_status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 206: return "Partial Content";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 412: return "Precondition Failed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 416: return "Range Not Satisfiable";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	}
	return "Unknown";
}

/* Formatting a date costs more than a small response; it changes once a second. */
const char *
head_date_now(void)
{
	static char buf[HTTP_DATE_LEN + 1];
	static time_t last = -1;
	time_t now = time(NULL); /* the loop's clock is monotonic, not the date */

	if (now != last) {
		if (http_date_format(now, buf, sizeof(buf)) == 0)
			buf[0] = '\0';
		last = now;
	}
	return buf;
}

/* The head o describes into buf: its length, or -1 when it does not fit. */
int
head_format(const struct head_out *o, char *buf, size_t cap)
{
	int n;

	n = snprintf(buf, cap,
	    "HTTP/1.1 %d %s\r\nServer: " SERVER_SOFTWARE "\r\nDate: %s\r\n%s%s%s",
	    o->status, head_status_text(o->status), head_date_now(),
	    o->ctype ? "Content-Type: " : "", o->ctype ? o->ctype : "", o->ctype ? "\r\n" : "");
	if (n < 0 || (size_t)n >= cap)
		return -1;
	if (o->has_clen)
		n += snprintf(buf + n, cap - (size_t)n, "Content-Length: %llu\r\n",
		    (unsigned long long)o->clen);
	if ((size_t)n < cap && o->extra != NULL)
		n += snprintf(buf + n, cap - (size_t)n, "%s", o->extra);
	if ((size_t)n < cap) {
		if (o->close)
			n += snprintf(buf + n, cap - (size_t)n, "Connection: close\r\n\r\n");
		else if (o->minor == 0)
			n += snprintf(buf + n, cap - (size_t)n, "Connection: keep-alive\r\n\r\n");
		else
			n += snprintf(buf + n, cap - (size_t)n, "\r\n");
	}
	if ((size_t)n >= cap)
		return -1;
	return n;
}

/* The body of an error response; note: a sentence that says why (plain text), or NULL. */
int
head_error_body(char *body, size_t cap, int status, const char *note)
{
	int n = snprintf(body, cap,
	    "<!DOCTYPE html>\n<html><head><title>%d %s</title></head>\n"
	    "<body><h1>%d %s</h1>%s%s%s</body></html>\n",
	    status, head_status_text(status), status, head_status_text(status),
	    note != NULL ? "\n<p>" : "", note != NULL ? note : "", note != NULL ? "</p>\n" : "");

	return n < 0 || (size_t)n >= cap ? 0 : n;
}

/* A whole error response (head and page) into out: its length, -1 when it does not fit;
 * *body_len: the page's, for the log. */
int
head_error_page(int status, int minor_version, int conn_close, char *out, size_t cap,
    size_t *body_len)
{
	char body[512];
	struct head_out o = { 0 };
	int n, hl;

	n = head_error_body(body, sizeof(body), status, NULL);
	o.status = status;
	o.minor = minor_version;
	o.close = conn_close;
	o.ctype = "text/html; charset=utf-8";
	o.clen = (uint64_t)n;
	o.has_clen = 1;
	if ((hl = head_format(&o, out, cap)) < 0 || (size_t)(hl + n) > cap)
		return -1;
	memcpy(out + hl, body, (size_t)n);
	*body_len = (size_t)n;
	return hl + n;
}
