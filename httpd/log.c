/* log.c: the access log in Common or Combined Log Format, with the client's bytes escaped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http.h"
#include "log.h"
#include "resp.h"

static FILE *log_f;
static char *log_path;
static int log_combined_fmt;
static int log_line_buf;

/* Bytes a client sent are escaped so that a log line cannot be forged or break a terminal:
 * control characters, DEL, bytes >= 0x80, '"' and '\' become \xHH (Apache does the same). */
size_t
log_escape(const char *s, size_t n, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (cap == 0)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
			if (o + 4 >= cap)
				break;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			if (o + 1 >= cap)
				break;
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	return o;
}

int
log_open(const char *path, int combined, char *err, size_t errlen)
{
	FILE *f;

	log_combined_fmt = combined;
	if (path == NULL)
		return 0;
	if (strcmp(path, "-") == 0)
		f = stdout;
	else if ((f = fopen(path, "ae")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((log_path = strdup(path)) == NULL) {
		if (f != stdout)
			fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Fully buffered: a write per request would cost more than serving a small file; the
	 * server flushes once a second and before it exits. */
	setvbuf(f, NULL, _IOFBF, 65536);
	log_f = f;
	return 0;
}

/* Several processes append to one file: a write per line, so that lines never mix. */
void
log_shared(void)
{
	log_line_buf = 1;
	if (log_f != NULL)
		setvbuf(log_f, NULL, _IOLBF, 0);
}

/* SIGHUP: log rotation moved the file away; keep the old one if the new cannot be opened. */
int
log_reopen(void)
{
	FILE *f;

	if (log_f == NULL || log_f == stdout)
		return 0;
	if ((f = fopen(log_path, "ae")) == NULL)
		return -1;
	fclose(log_f);
	if (log_line_buf)
		setvbuf(f, NULL, _IOLBF, 0);
	else
		setvbuf(f, NULL, _IOFBF, 65536);
	log_f = f;
	return 0;
}

int
log_enabled(void)
{
	return log_f != NULL;
}

static void
log_header(const struct http_request *req, const char *name, char *out, size_t cap)
{
	const struct http_header *h;

	if (req == NULL ||
	    (h = http_header_find(req->headers, req->num_headers, name, NULL)) == NULL) {
		snprintf(out, cap, "-");
		return;
	}
	log_escape(h->value, h->value_len, out, cap);
}

/* Everything but the byte count, which is known only when the response is done. */
char *
log_prepare(const char *peer, const struct http_request *req, const char *raw_line,
    size_t raw_len, int status, size_t *split)
{
	char line[2048], ref[1024], ua[1024], when[64];
	struct tm tm;
	time_t now = time(NULL);
	char *out;
	int n, m;

	if (log_f == NULL)
		return NULL;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%d/%b/%Y:%H:%M:%S +0000", &tm);
	log_escape(raw_line, raw_len, line, sizeof(line));
	n = snprintf(NULL, 0, "%s - - [%s] \"%s\" %d ", peer, when, line, status);
	if (log_combined_fmt) {
		log_header(req, "Referer", ref, sizeof(ref));
		log_header(req, "User-Agent", ua, sizeof(ua));
		m = snprintf(NULL, 0, " \"%s\" \"%s\"\n", ref, ua);
	} else {
		m = 1;
	}
	if (n < 0 || m < 0 || (out = malloc((size_t)n + (size_t)m + 1)) == NULL)
		return NULL;
	snprintf(out, (size_t)n + 1, "%s - - [%s] \"%s\" %d ", peer, when, line, status);
	if (log_combined_fmt)
		snprintf(out + n, (size_t)m + 1, " \"%s\" \"%s\"\n", ref, ua);
	else
		snprintf(out + n, 2, "\n");
	*split = (size_t)n;
	return out;
}

/* A CGI response's status is known after the line was prepared: its three digits, in place. */
void
log_set_status(struct resp *r, int status)
{
	if (r->log == NULL || r->log_split < 4 || status < 100 || status > 999)
		return;
	r->log[r->log_split - 4] = (char)('0' + status / 100);
	r->log[r->log_split - 3] = (char)('0' + status / 10 % 10);
	r->log[r->log_split - 2] = (char)('0' + status % 10);
}

void
log_done(struct resp *r)
{
	if (log_f == NULL || r->log == NULL)
		return;
	fwrite(r->log, 1, r->log_split, log_f);
	if (r->body_sent > 0)
		fprintf(log_f, "%llu", (unsigned long long)r->body_sent);
	else
		fputc('-', log_f);
	fputs(r->log + r->log_split, log_f);
}

void
log_flush(void)
{
	if (log_f != NULL)
		fflush(log_f);
}

void
log_close(void)
{
	if (log_f != NULL) {
		fflush(log_f);
		if (log_f != stdout)
			fclose(log_f);
	}
	log_f = NULL;
	free(log_path);
	log_path = NULL;
}
