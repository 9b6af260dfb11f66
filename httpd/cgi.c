/* cgi.c: CGI/1.1 (RFC 3875), one concern: fork and exec with an environment built from scratch,
 * the request content on stdin, the output through non-blocking pipes on the event loop as its
 * response's body source, a time limit. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgi.h"
#include "ev.h"
#include "head.h"
#include "http.h"
#include "httpd.h"
#include "log.h"
#include "resp.h"
#include "server_file.h"
#include "tp.h"

#define CGI_HEAD_MAX 16384          /* the script's header section */
#define CGI_OUT_HIGH (256u * 1024)  /* output waiting for the client: stop reading the script */
#define CGI_ENV_MAX 128
#define CGI_PATH "PATH=/usr/local/bin:/usr/bin:/bin"

struct cgi {
	struct resp_src src;        /* the body source of its response r */
	struct cgi *next;           /* all running scripts, for the reaper */
	struct cgi **body_slot;     /* the caller's pointer to it while it takes request content */
	struct resp *r;
	char *out;                  /* its output as the response goes: out[off..len) to send */
	size_t out_len, out_off, out_cap;
	pid_t pid;
	int in_fd, out_fd;          /* our ends: the script's stdin and stdout */
	char *body;                 /* request content not yet written to the script */
	size_t body_len, body_off;
	uint64_t body_left;         /* content still to come from the client */
	char *head;                 /* the script's header section until it is complete */
	size_t head_len;
	int head_done;              /* the response head went into out */
	int head_only, chunked, minor, close;
	int out_eof, exited, killed, timed_out, done, aborted;
	int refused;                /* cgi_refuse: the status to answer if nothing went out */
	int redirected;             /* a local redirect: its response is another's (r->redirect) */
	char *host;                 /* the request's Host, for a local redirect's request */
	int wstatus;
	struct ev_timer timer;
};

static struct cgi *cgi_list;
static unsigned cgi_running;        /* in cgi_list and not reaped yet: processes */

static void cgi_check(struct cgi *c);

static void
cgi_close_fd(int *fd)
{
	if (*fd != -1) {
		ev_fd_del(httpd_loop(), *fd);
		close(*fd);
		*fd = -1;
	}
}

static void
cgi_free(struct cgi *c)
{
	struct cgi **pp;

	if (c == NULL)
		return;
	if (!c->exited)
		kill(-c->pid, SIGKILL); /* the client is gone: so is the work done for it */
	ev_timer_stop(httpd_loop(), &c->timer);
	cgi_close_fd(&c->in_fd);
	cgi_close_fd(&c->out_fd);
	if (c->body_slot != NULL && *c->body_slot == c)
		*c->body_slot = NULL;
	for (pp = &cgi_list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			if (!c->exited)
				cgi_running--;
			break;
		}
	/* A child not reaped yet is reaped by cgi_reap, which ignores pids it does not know. */
	free(c->body);
	free(c->head);
	free(c->out);
	free(c->host);
	free(c);
}

/* Room for more output; bytes already sent are dropped first. */
static int
cgi_reserve(struct cgi *c, size_t more)
{
	char *n;

	if (c->out_off > 0 && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_cap - c->out_len >= more)
		return 0;
	if (c->out_off > 0) {
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
		if (c->out_cap - c->out_len >= more)
			return 0;
	}
	if ((n = realloc(c->out, c->out_len + more + 4096)) == NULL)
		return -1;
	c->out = n;
	c->out_cap = c->out_len + more + 4096;
	return 0;
}

static int
cgi_append(struct cgi *c, const char *data, size_t n)
{
	int hl = 0;

	if (c->head_only || n == 0)
		return 0;
	if (cgi_reserve(c, n + 16) == -1)
		return -1;
	if (c->chunked)
		hl = snprintf(c->out + c->out_len, 16, "%zx\r\n", n);
	memcpy(c->out + c->out_len + hl, data, n);
	c->out_len += (size_t)hl + n;
	if (c->chunked) {
		memcpy(c->out + c->out_len, "\r\n", 2);
		c->out_len += 2;
	}
	c->r->body_sent += n;
	return 0;
}

/* A local redirect: the request its response is to be, for the stream to answer in its place
 * (strm_head); the program's output goes unread. */
static int
cgi_local_redirect(struct cgi *c, const char *loc, size_t loc_len)
{
	size_t cap = loc_len + (c->host != NULL ? strlen(c->host) : 0) + 64;
	char *q = malloc(cap);

	if (q == NULL)
		return -1;
	snprintf(q, cap, "%s %.*s HTTP/1.%d\r\n%s%s%s\r\n", c->head_only ? "HEAD" : "GET",
	    (int)loc_len, loc, c->minor, c->host != NULL ? "Host: " : "",
	    c->host != NULL ? c->host : "", c->host != NULL ? "\r\n" : "");
	free(c->r->redirect);
	c->r->redirect = q;
	c->redirected = 1;
	c->head_done = 1;
	resp_wake(c->r);
	return 0;
}

/* The script's header lines as ours: Status, Location (302 without Status), the rest passed
 * on except the framing and hop-by-hop fields that are ours to decide. */
static int
cgi_make_head(struct cgi *c, const char *h, size_t len)
{
	char out[CGI_HEAD_MAX + 1024], reason[64] = "";
	const char *p = h, *end = h + len, *loc = NULL;
	size_t o = 0, loc_len = 0;
	int status = 0, have_location = 0, fields = 0, n;

	n = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *colon, *v, *ve;
		size_t nl;
		if (eol == NULL)
			eol = end;
		ve = eol;
		if (ve > p && ve[-1] == '\r')
			ve--;
		colon = memchr(p, ':', (size_t)(ve - p));
		if (ve == p)
			break;
		if (colon == NULL || colon == p)
			return -1;
		nl = (size_t)(colon - p);
		for (v = p; v < colon; v++)
			if (!http_is_tchar((unsigned char)*v))
				return -1;
		for (v = colon + 1; v < ve && (*v == ' ' || *v == '\t'); v++)
			;
		for (const char *q = v; q < ve; q++)
			if ((unsigned char)*q < 0x20 && *q != '\t')
				return -1;
		if (http_token_eq(p, nl, "Status")) {
			char *e;
			long st = strtol(v, &e, 10);
			/* RFC 9110 15: three digits, 100-599; and final: a 1xx from a program
			 * would be the response's only head, the client waiting for the real one */
			if (st < 200 || st > 599 || e != v + 3 || (e < ve && *e != ' '))
				return -1;
			status = (int)st;
			while (e < ve && *e == ' ')
				e++;
			snprintf(reason, sizeof(reason), "%.*s", (int)(ve - e), e);
		} else if (http_token_eq(p, nl, "Connection") || http_token_eq(p, nl, "Keep-Alive") ||
		    http_token_eq(p, nl, "Transfer-Encoding") || http_token_eq(p, nl, "Content-Length") ||
		    http_token_eq(p, nl, "Date") || http_token_eq(p, nl, "Server")) {
			;
		} else {
			fields++;
			if (http_token_eq(p, nl, "Location")) {
				have_location = 1;
				loc = v;
				loc_len = (size_t)(ve - v);
			}
			if (o + (size_t)(ve - p) + 2 >= sizeof(out))
				return -1;
			memcpy(out + o, p, (size_t)(ve - p));
			o += (size_t)(ve - p);
			memcpy(out + o, "\r\n", 2);
			o += 2;
		}
		p = eol + 1;
	}
	/* RFC 3875 6.2.2: a Location of an abs-path alone is a local redirect, served here */
	if (status == 0 && fields == 1 && loc != NULL && loc_len > 0 && loc[0] == '/' &&
	    (loc_len == 1 || loc[1] != '/'))
		return cgi_local_redirect(c, loc, loc_len);
	if (status == 0)
		status = have_location ? 302 : 200;
	if (reason[0] == '\0')
		snprintf(reason, sizeof(reason), "%s", head_status_text(status));
	if (status == 204 || status == 304)
		c->head_only = 1;
	c->chunked = !c->head_only && c->minor >= 1;
	if (!c->chunked && !c->head_only)
		c->close = 1; /* HTTP/1.0: the body ends with the connection */
	if (cgi_reserve(c, o + 512) == -1)
		return -1;
	n = snprintf(c->out + c->out_len, o + 512,
	    "HTTP/1.1 %d %s\r\nServer: " SERVER_SOFTWARE "\r\nDate: %s\r\n%.*s%s%s",
	    status, reason, head_date_now(), (int)o, out,
	    c->chunked ? "Transfer-Encoding: chunked\r\n" : "",
	    c->close ? "Connection: close\r\n\r\n" : (c->minor == 0 ?
	    "Connection: keep-alive\r\n\r\n" : "\r\n"));
	if (n < 0 || (size_t)n >= o + 512)
		return -1;
	c->out_len += (size_t)n;
	c->r->status = status;
	c->r->close = c->close; /* told to the connection by the wake that follows */
	log_set_status(c->r, status);
	c->head_done = 1;
	return 0;
}

/* Output before the head is complete: gather it, then make the head. */
static int
cgi_head_input(struct cgi *c, const char *data, size_t n)
{
	size_t i, start = c->head_len > 3 ? c->head_len - 3 : 0, hend = 0;
	char *nh;

	if (c->head_len + n > CGI_HEAD_MAX)
		return -1;
	if ((nh = realloc(c->head, c->head_len + n + 1)) == NULL)
		return -1;
	c->head = nh;
	memcpy(c->head + c->head_len, data, n);
	c->head_len += n;
	for (i = start; i < c->head_len && hend == 0; i++) {
		if (c->head[i] != '\n')
			continue;
		if (i == 0)
			hend = 1; /* no header lines at all: refused below */
		else if (c->head[i - 1] == '\n')
			hend = i + 1;
		else if (i >= 2 && c->head[i - 1] == '\r' && c->head[i - 2] == '\n')
			hend = i + 1;
	}
	if (hend == 0)
		return 0;
	if (hend == 1 || cgi_make_head(c, c->head, hend) == -1)
		return -1;
	if (cgi_append(c, c->head + hend, c->head_len - hend) == -1)
		return -1;
	free(c->head);
	c->head = NULL;
	c->head_len = 0;
	return 0;
}

static void cgi_out_ev(struct ev_loop *loop, int fd, unsigned events, void *arg);

static void
cgi_out_watch(struct cgi *c)
{
	if (c->out_fd == -1)
		return;
	if (c->out_len - c->out_off < CGI_OUT_HIGH)
		ev_fd_set(httpd_loop(), c->out_fd, EV_READ, cgi_out_ev, c);
	else
		ev_fd_set(httpd_loop(), c->out_fd, 0, NULL, NULL);
}

/* The source's pull: what the program wrote so far; its end once it is done. */
static int
cgi_pull(struct resp_src *src, struct resp *r, struct resp_sink *k, size_t max)
{
	struct cgi *c = (struct cgi *)src;
	size_t n = 0, want = c->out_len - c->out_off;
	int rc;

	(void)r;
	if (c->redirected)
		return RESP_WAIT; /* until its stream answers the redirect (strm_head) */
	if (want > 0) {
		if ((rc = resp_sink_put(k, c->out + c->out_off, want < max ? want : max, &n)) != TP_OK)
			return rc == TP_RETRY ? RESP_RETRY : RESP_ERROR;
		c->out_off += n;
		k->moved += n;
		if (!c->done)
			cgi_out_watch(c); /* read on if the program was held back */
		if (c->out_off < c->out_len)
			return RESP_MORE;
	}
	if (!c->done)
		return k->moved > 0 ? RESP_MORE : RESP_WAIT;
	return c->aborted ? RESP_ABORT : RESP_END;
}

static uint64_t
cgi_left(const struct resp_src *src)
{
	(void)src;
	return UINT64_MAX;
}

static void
cgi_src_free(struct resp_src *src)
{
	cgi_free((struct cgi *)src);
}

static const struct resp_src_ops cgi_ops = {
	.pull = cgi_pull, .left = cgi_left, .free = cgi_src_free,
};

static void
cgi_fail(struct cgi *c)
{
	if (!c->exited) {
		kill(-c->pid, SIGKILL);
		c->killed = 1;
	}
	cgi_close_fd(&c->out_fd);
	c->out_eof = 1;
}

static void
cgi_out_ev(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct cgi *c = arg;
	char buf[16384];
	int rounds;

	(void)loop;
	(void)fd;
	(void)events;
	for (rounds = 0; rounds < 16 && c->out_fd != -1; rounds++) {
		ssize_t n = read(c->out_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			cgi_close_fd(&c->out_fd);
			c->out_eof = 1;
			break;
		}
		if ((!c->head_done ? cgi_head_input(c, buf, (size_t)n) :
		    cgi_append(c, buf, (size_t)n)) == -1) {
			cgi_fail(c); /* a bad header section, or out of memory */
			break;
		}
		if (c->out_len - c->out_off >= CGI_OUT_HIGH)
			break;
	}
	cgi_out_watch(c);
	cgi_check(c);
	if (c->head_done)
		resp_wake(c->r);
}

static void
cgi_in_ev(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct cgi *c = arg;

	(void)loop;
	(void)fd;
	(void)events;
	while (c->body_off < c->body_len) {
		ssize_t n = write(c->in_fd, c->body + c->body_off, c->body_len - c->body_off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			/* The script does not read its input (EPIPE): that is its business. */
			c->body_off = c->body_len;
			c->body_left = 0;
			break;
		}
		c->body_off += (size_t)n;
	}
	c->body_off = c->body_len = 0;
	if (c->body_left == 0)
		cgi_close_fd(&c->in_fd); /* EOF on the script's stdin */
	else
		ev_fd_set(httpd_loop(), c->in_fd, 0, NULL, NULL);
}

/* Request content from the client, in order. */
void
cgi_body(struct cgi *c, const char *data, size_t n)
{
	char *nb;

	if (n > c->body_left)
		n = (size_t)c->body_left;
	c->body_left -= n;
	if (c->in_fd == -1)
		return;
	if (n > 0) {
		if ((nb = realloc(c->body, c->body_len + n)) == NULL) {
			cgi_fail(c);
			cgi_check(c);
			return;
		}
		c->body = nb;
		memcpy(c->body + c->body_len, data, n);
		c->body_len += n;
	}
	cgi_in_ev(httpd_loop(), c->in_fd, EV_WRITE, c);
	if (c->in_fd != -1 && c->body_off < c->body_len)
		ev_fd_set(httpd_loop(), c->in_fd, EV_WRITE, cgi_in_ev, c);
}

/* Chunked content ended: EOF on the program's stdin once what waits is written. */
void
cgi_body_end(struct cgi *c)
{
	c->body_left = 0;
	if (c->in_fd != -1 && c->body_off >= c->body_len)
		cgi_close_fd(&c->in_fd);
}

/* Its request content was malformed or too large: the program goes, and if nothing of its
 * answer went out yet, status is answered instead, with "Connection: close" where conn_close
 * says the connection closes after it (TCP: the rest of the content is not read). */
void
cgi_refuse(struct cgi *c, int status, int conn_close)
{
	c->refused = status;
	if (conn_close && !c->head_done)
		c->close = 1;
	c->body_left = 0;
	cgi_fail(c);
	cgi_check(c);
}

/* Done when its output ended and it was reaped; killed or killed by a signal: aborted. */
static void
cgi_check(struct cgi *c)
{
	struct resp *r = c->r;

	if (c->done || !c->out_eof || !c->exited)
		return;
	c->done = 1;
	ev_timer_stop(httpd_loop(), &c->timer);
	cgi_close_fd(&c->in_fd);
	if (c->redirected)
		return; /* its response is another's */
	if (!c->head_done) {
		/* Nothing went out yet: an error response instead. */
		int status = c->refused ? c->refused : c->timed_out ? 504 : 500;
		char page[HEAD_MAX + 512];
		size_t blen;
		int n = head_error_page(status, c->minor, c->close, page, sizeof(page), &blen);
		c->out_off = c->out_len = 0;
		if (n < 0 || cgi_reserve(c, (size_t)n) == -1) {
			c->aborted = 1;
		} else {
			memcpy(c->out, page, (size_t)n);
			c->out_len = (size_t)n;
			r->body_sent = blen;
			r->status = status;
		}
		log_set_status(r, status);
	} else if (c->killed || WIFSIGNALED(c->wstatus)) {
		c->aborted = 1; /* a partial body: the client must not take it as complete */
	} else if (c->chunked) {
		if (cgi_reserve(c, 5) == 0) {
			memcpy(c->out + c->out_len, "0\r\n\r\n", 5);
			c->out_len += 5;
		} else {
			c->aborted = 1;
		}
	}
	resp_wake(r);
}

static void
cgi_timeout(struct ev_loop *loop, void *arg)
{
	struct cgi *c = arg;

	(void)loop;
	c->timed_out = 1;
	if (!c->exited) {
		kill(-c->pid, SIGKILL);
		c->killed = 1;
	}
	/* Its output pipe may be held open by nothing now; the reaper and EOF finish it. */
}

/* SIGCHLD: every child that ended. */
void
cgi_reap(void)
{
	struct cgi *c;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (c = cgi_list; c != NULL; c = c->next)
			if (c->pid == pid)
				break;
		if (c == NULL)
			continue;
		c->exited = 1;
		cgi_running--;
		c->wstatus = st;
		/* A grandchild may hold the pipe: the script's process group goes with it. */
		kill(-pid, SIGKILL);
		cgi_check(c);
	}
}

/* --- the environment ---------------------------------------------------------------------- */

struct cgi_env {
	char *v[CGI_ENV_MAX + 1];
	size_t n;
};

static void
cgi_env_add(struct cgi_env *e, const char *name, const char *val, size_t vlen)
{
	char *s;
	size_t nl = strlen(name), i;

	if (e->n >= CGI_ENV_MAX)
		return;
	for (i = 0; i < e->n; i++)
		if (strncmp(e->v[i], name, nl) == 0 && e->v[i][nl] == '=')
			return; /* the first of repeated fields */
	if ((s = malloc(nl + vlen + 2)) == NULL)
		return;
	memcpy(s, name, nl);
	s[nl] = '=';
	memcpy(s + nl + 1, val, vlen);
	s[nl + 1 + vlen] = '\0';
	e->v[e->n++] = s;
}

static void
cgi_env_str(struct cgi_env *e, const char *name, const char *val)
{
	cgi_env_add(e, name, val, strlen(val));
}

static void
cgi_env_free(struct cgi_env *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	e->n = 0;
}

/* RFC 3875 section 4.1, and nothing of the server's own environment but a fixed PATH. */
static void
cgi_env_build(struct cgi_env *e, const struct httpd_origin *from, const struct http_request *req,
    const char *script_name, const char *path_info, uint64_t clen)
{
	char name[128], num[32];
	const char *host, *local = from->local, *colon;
	size_t host_len, i, j;
	const struct http_header *h;

	e->n = 0;
	e->v[e->n++] = strdup(CGI_PATH);
	if (e->v[0] == NULL)
		e->n = 0;
	cgi_env_str(e, "GATEWAY_INTERFACE", "CGI/1.1");
	cgi_env_str(e, "SERVER_SOFTWARE", SERVER_SOFTWARE);
	cgi_env_str(e, "SERVER_PROTOCOL", req->minor_version ? "HTTP/1.1" : "HTTP/1.0");
	cgi_env_add(e, "REQUEST_METHOD", req->method, req->method_len);
	cgi_env_str(e, "SCRIPT_NAME", script_name);
	/* RFC 3875 4.1.5: the decoded path after the script's, when there is one (no
	 * PATH_TRANSLATED, which 4.1.6 leaves to the server: a chroot would make it wrong). */
	if (path_info != NULL && *path_info != '\0')
		cgi_env_str(e, "PATH_INFO", path_info);
	cgi_env_add(e, "QUERY_STRING", req->query ? req->query : "", req->query ? req->query_len : 0);
	cgi_env_str(e, "REMOTE_ADDR", from->peer);
	cgi_env_str(e, "REMOTE_HOST", from->peer);
	/* SERVER_NAME: the Host asked for, else the listener's address; SERVER_PORT: ours. */
	colon = strrchr(local, ':');
	if (colon != NULL && strrchr(local, ']') > colon)
		colon = NULL;
	if (http_request_host(req, &host, &host_len) == 0 && host != NULL && host_len > 0)
		cgi_env_add(e, "SERVER_NAME", host, host_len);
	else
		cgi_env_add(e, "SERVER_NAME", local, colon ? (size_t)(colon - local) : strlen(local));
	if (colon != NULL)
		cgi_env_str(e, "SERVER_PORT", colon + 1);
	if ((h = http_header_find(req->headers, req->num_headers, "Content-Type", NULL)) != NULL)
		cgi_env_add(e, "CONTENT_TYPE", h->value, h->value_len);
	/* Chunked content has no length to give: the program reads its stdin to EOF. */
	if (clen != CGI_LEN_CHUNKED && (clen > 0 || req->method_id == HTTP_METHOD_POST)) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)clen);
		cgi_env_str(e, "CONTENT_LENGTH", num);
	}
	if (from->msg) {
		/* Not in RFC 3875: the SCTP stream the request came on, for scripts that care. */
		snprintf(num, sizeof(num), "%u", (unsigned)from->stream);
		cgi_env_str(e, "SCTP_STREAM", num);
	}
	for (i = 0; i < req->num_headers; i++) {
		h = &req->headers[i];
		/* Credentials are not the script's (RFC 3875 4.1.18); "Proxy" would become
		 * HTTP_PROXY, which HTTP libraries take as their proxy (httpoxy). */
		if (http_token_eq(h->name, h->name_len, "Authorization") ||
		    http_token_eq(h->name, h->name_len, "Proxy-Authorization") ||
		    http_token_eq(h->name, h->name_len, "Proxy") ||
		    http_token_eq(h->name, h->name_len, "Content-Type") ||
		    http_token_eq(h->name, h->name_len, "Content-Length") ||
		    h->name_len + 6 >= sizeof(name))
			continue;
		memcpy(name, "HTTP_", 5);
		for (j = 0; j < h->name_len; j++) {
			unsigned char ch = (unsigned char)h->name[j];
			if (ch >= 'a' && ch <= 'z')
				ch = (unsigned char)(ch - 'a' + 'A');
			else if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
				ch = '_';
			name[5 + j] = (char)ch;
		}
		name[5 + h->name_len] = '\0';
		cgi_env_add(e, name, h->value, h->value_len);
	}
	e->v[e->n] = NULL;
}

/* In the child: only async-signal-safe calls from here on (usrsctp has threads). */
static void
cgi_child(int in, int out, const char *dir, const char *prog, char *const *argv,
    char *const *envp)
{
	sigset_t all;
	struct sigaction sa;
	int sig;

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < 32; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (dup2(in, 0) == -1 || dup2(out, 1) == -1)
		_exit(127);
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == -1) {
		int fd;
		for (fd = 3; fd < 65536; fd++)
			close(fd);
	}
	if (chdir(dir) == -1)
		_exit(127);
	execve(prog, argv, envp);
	_exit(127);
}

int
cgi_full(void)
{
	return cgi_running >= httpd_config()->cgi_max;
}

/*
 * Run the script at path (opened as fd, checked beneath the root) for req; r is its response,
 * already queued in request order and filled as the output arrives. script_name is its URL
 * path, path_info what followed it in the request's (NULL or "": none). Returns 0, or an HTTP
 * status to answer instead.
 */
int
cgi_start(const struct httpd_origin *from, struct cgi **body_slot,
    const struct http_request *req, const char *path, const char *script_name,
    const char *path_info, const struct stat *st, uint64_t clen, struct resp *r, int conn_close)
{
	char abs[PATH_MAX + 8], dir[PATH_MAX + 8], *slash, *argv[2];
	struct cgi_env env;
	struct cgi *c;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	const char *host;
	size_t host_len;
	pid_t pid;

	if (!(st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) || !S_ISREG(st->st_mode))
		return 403;
	if (file_abs_path(path, abs, sizeof(abs)) == -1)
		return 500; /* the root's path and the script's past PATH_MAX: not the URI's fault */
	/* Each program is forked before its content arrives: without a bound, connections that
	 * never send it hold a process each. */
	if (cgi_running >= httpd_config()->cgi_max)
		return 503;
	snprintf(dir, sizeof(dir), "%s", abs);
	if ((slash = strrchr(dir, '/')) != NULL)
		slash[slash == dir ? 1 : 0] = '\0';
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return 503;
	c->src.ops = &cgi_ops;
	c->in_fd = c->out_fd = -1;
	c->body_slot = body_slot;
	c->r = r;
	c->minor = req->minor_version;
	c->close = conn_close;
	c->head_only = req->method_id == HTTP_METHOD_HEAD;
	if (http_request_host(req, &host, &host_len) == 0 && host != NULL &&
	    (c->host = strndup(host, host_len)) == NULL) {
		free(c);
		return 503;
	}
	c->body_left = clen;
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1)
		goto nofd;
	cgi_env_build(&env, from, req, script_name, path_info, clen);
	argv[0] = strrchr(abs, '/') + 1;
	argv[1] = NULL;
	pid = fork();
	if (pid == 0)
		cgi_child(in[0], out[1], dir, abs, argv, env.v);
	cgi_env_free(&env);
	if (pid == -1)
		goto nofd;
	setpgid(pid, pid); /* also here: no race with the first kill(-pid) */
	close(in[0]);
	close(out[1]);
	c->pid = pid;
	c->in_fd = in[1];
	c->out_fd = out[0];
	fcntl(c->in_fd, F_SETFL, O_NONBLOCK);
	fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
	c->next = cgi_list;
	cgi_list = c;
	cgi_running++;
	r->src = &c->src;
	r->status = 200;
	ev_timer_start(httpd_loop(), &c->timer,
	    (uint64_t)httpd_config()->cgi_timeout_s * 1000000, cgi_timeout, c);
	if (clen > 0)
		*body_slot = c;
	else
		cgi_close_fd(&c->in_fd);
	ev_fd_set(httpd_loop(), c->out_fd, EV_READ, cgi_out_ev, c);
	return 0;
nofd:
	if (in[0] != -1) {
		close(in[0]);
		close(in[1]);
	}
	if (out[0] != -1) {
		close(out[0]);
		close(out[1]);
	}
	free(c);
	return 503;
}
