/* strm.c: HTTP byte streams: the TCP connection's one, or each stream of an SCTP association.
 * Requests parsed (content to a CGI program or skipped), their responses queued in order, the
 * ring of streams with output, stream errors and resets (RFC 6525). */
#include <stdlib.h>
#include <string.h>

#include "cgi.h"
#include "httpd.h"
#include "log.h"
#include "resp.h"
#include "server_http.h"
#include "strm.h"
#include "tp.h"

#define SERVER_RESET_RETRY_US 20000     /* a stream reset the stack could not take yet */
#define SERVER_REDIRECTS_MAX 10         /* local redirects in a row: a loop, 500 */

static void strm_reparse(struct strm *s);
static void strm_resp_wake(struct resp *r, void *arg);

/* "Connection: close", or a stream given up without resets: the connection decides. */
static void
strm_close_after(struct strm *s, int request_asked)
{
	s->set->drain(s->set, request_asked);
}

static struct strm *
strm_new(struct strm_set *ss, uint16_t id)
{
	struct strm *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->set = ss;
	s->id = id;
	s->rq_tail = &s->rq;
	return s;
}

void
strm_free(struct strm *s)
{
	struct resp *r, *next;

	if (s == NULL)
		return;
	for (r = s->rq; r != NULL; r = next) {
		next = r->next;
		log_done(r);
		resp_free(r);
	}
	free(s->in);
	free(s);
}

void
strm_ring_add(struct strm_set *ss, struct strm *s)
{
	if (s->in_ring)
		return;
	s->in_ring = 1;
	s->out_next = NULL;
	if (ss->ring_tail != NULL)
		ss->ring_tail->out_next = s;
	else
		ss->ring_head = s;
	ss->ring_tail = s;
}

/* The stream at the head of the ring has sent one message: to the back, or out. */
void
strm_ring_next(struct strm_set *ss)
{
	struct strm *s = ss->ring_head;

	if (s == NULL)
		return;
	ss->ring_head = s->out_next;
	if (ss->ring_head == NULL)
		ss->ring_tail = NULL;
	s->in_ring = 0;
	s->out_next = NULL;
	if (s->rq != NULL)
		strm_ring_add(ss, s);
}

static void
strm_enqueue(struct strm *s, struct resp *r)
{
	r->wake = strm_resp_wake;
	r->wake_arg = s;
	*s->rq_tail = r;
	s->rq_tail = &r->next;
	s->nresp++;
	s->set->pending++;
	if (s->set->msg)
		strm_ring_add(s->set, s);
}

/*
 * A response's source (a CGI program) has output or has ended, or its head said "Connection:
 * close". Only watches change here, nothing is sent: the caller (the program's pipe callback)
 * must not see its response freed under it.
 */
static void
strm_resp_wake(struct resp *r, void *arg)
{
	struct strm *s = arg;
	struct strm_set *ss = s->set;

	if (r->close)
		strm_close_after(s, 0);
	if (ss->msg && s->rq != NULL)
		strm_ring_add(ss, s);
	ss->wake(ss);
}

/* What the request handler sees of s. */
static void
strm_ctx(struct strm *s, struct server_http_ctx *x)
{
	struct tp_conn *tc = s->set->tc;
	struct resp *r;

	memset(x, 0, sizeof(*x));
	x->from.peer = s->set->peer;
	x->from.local = tc->from != NULL ? tc->from->local : "";
	x->from.msg = s->set->msg;
	x->from.stream = s->id;
	x->draining = s->set->draining || httpd_stopping();
	x->body_cgi = &s->body_cgi;
	for (r = s->rq; r != NULL; r = r->next)
		x->programs += r->program != 0;
}

/* What it handed back: its responses queued in order, and "Connection: close". */
static void
strm_take(struct strm *s, struct server_http_ctx *x)
{
	unsigned i;

	for (i = 0; i < x->nout; i++)
		strm_enqueue(s, x->out[i]);
	if (x->close)
		strm_close_after(s, x->close == 1);
}


void
strm_resp_done(struct strm *s)
{
	struct resp *r = s->rq;

	s->rq = r->next;
	if (s->rq == NULL)
		s->rq_tail = &s->rq;
	s->nresp--;
	s->set->pending--;
	log_done(r);
	resp_free(r);
	/* Pipelined requests waited for room in the queue. */
	if (s->in_len > 0 && !s->dead)
		strm_reparse(s);
}

/*
 * The response at the head of s, to pull. A CGI program's local redirect (RFC 3875 6.2.2) is
 * answered here, in its place and with its log line: the request it names goes through the
 * handler as if the client had sent it. Here, not in the program's callbacks, so that no one
 * holds the program's response when it is freed.
 */
struct resp *
strm_head(struct strm *s)
{
	struct http_header hdrs[SERVER_MAX_HEADERS];
	struct resp *r = s->rq, *nr;
	struct http_request req;
	struct http_framing fr;
	struct server_http_ctx x;
	char *log;
	size_t split;
	unsigned i;
	int rc;

	if (r == NULL || r->redirect == NULL)
		return r;
	memset(&req, 0, sizeof(req));
	req.headers = hdrs;
	req.max_line = httpd_config()->max_line;
	req.max_head = httpd_config()->max_head;
	rc = http_parse_request(r->redirect, strlen(r->redirect), &req, SERVER_MAX_HEADERS);
	strm_ctx(s, &x);
	x.programs = 0; /* its own program is done with: no waiting for it */
	if (rc <= 0 || r->redirects >= SERVER_REDIRECTS_MAX ||
	    http_request_framing(&req, &fr) == -1)
		server_http_error(&x, 500, 1, 0, NULL, 0, "a CGI program's local redirect failed");
	else
		server_http_handle(&x, &req, &fr);
	if (x.nout == 0) {
		/* out of memory: the redirect is answered by nothing, so the response is cut */
		free(r->redirect);
		r->redirect = NULL;
		return r;
	}
	for (i = 0; i + 1 < x.nout; i++) /* a "100 Continue" before it: not for a GET */
		resp_free(x.out[i]);
	nr = x.out[x.nout - 1];
	nr->redirects = r->redirects + 1;
	nr->wake = strm_resp_wake;
	nr->wake_arg = s;
	nr->next = r->next;
	s->rq = nr;
	if (s->rq_tail == &r->next)
		s->rq_tail = &nr->next;
	/* the client's request line in the log, with the status it got */
	log = nr->log, split = nr->log_split;
	nr->log = r->log, nr->log_split = r->log_split;
	r->log = log, r->log_split = split;
	log_set_status(nr, nr->status);
	resp_free(r);
	if (x.close)
		strm_close_after(s, x.close == 1);
	return nr;
}

/* Read no more from s: on SCTP its stream is reset once what it owes has gone, or retired where
 * it cannot be (strm_reset_failed), and the association goes on (the draft's stream error); on TCP
 * the connection closes after its responses. */
static void
strm_give_up(struct strm *s)
{
	s->dead = 1;
	s->body_skip = 0; /* what follows is not read as content either */
	s->chunked = 0;
	if (s->body_cgi != NULL)
		cgi_refuse(s->body_cgi, 400, !s->set->msg);
	s->body_cgi = NULL;
	if (!s->set->msg)
		strm_close_after(s, 0);
	else if (s->rq == NULL)
		strm_reset_begin(s);
	else
		s->reset_after = 1;
	free(s->in);
	s->in = NULL;
	s->in_len = s->in_cap = 0;
	s->head_since = 0;
}

/* The framing of this stream can no longer be trusted: answer (note: why, or NULL), then
 * read no more from it. The answer says "Connection: close" only where the connection will
 * close for it: TCP, or the association's last usable stream where no reset can revive it. */
void
strm_error_note(struct strm *s, int status, const char *raw, size_t rawlen, const char *note)
{
	struct strm_set *ss = s->set;
	int last = (tp_caps(ss->tc) & TP_CAP_RESET) == 0 && ss->retired + 1u >= ss->nstreams;
	struct server_http_ctx x;

	strm_ctx(s, &x);
	server_http_error(&x, status, 1, !ss->msg || last, raw, rawlen, note);
	strm_take(s, &x);
	strm_give_up(s);
}

void
strm_error(struct strm *s, int status, const char *raw, size_t rawlen)
{
	strm_error_note(s, status, raw, rawlen, NULL);
}

/* Request content still to come on s (then no request is parsed). */
int
strm_in_body(const struct strm *s)
{
	return s->body_skip > 0 || s->chunked;
}

/*
 * Chunked request content at buf[*off..len), decoded in place (RFC 9112 §7.1) and given to
 * the CGI program that takes it, if any. A malformed body, or one past --cgi-max-body,
 * gives the stream up (its answer is already queued): -1. Else 0 with *off past what was
 * used; what followed the body is moved back to the end of buf, at the new *off.
 */
static int
strm_chunked(struct strm *s, char *buf, size_t len, size_t *off)
{
	char *p = buf + *off;
	size_t n = len - *off;
	ssize_t rest = http_chunked_decode(&s->chunk, p, &n);

	if (rest == -1) {
		strm_give_up(s);
		return -1;
	}
	s->chunk_total += n;
	/* What the current chunk still declares counts too (a lower bound while its size line
	 * is read): a chunk of 0x100000 bytes against a limit of 1000 gets its 413 at once. */
	if (s->chunk_total + s->chunk.left > httpd_config()->cgi_max_body) {
		if (s->body_cgi != NULL)
			cgi_refuse(s->body_cgi, 413, !s->set->msg);
		s->body_cgi = NULL;
		strm_give_up(s);
		return -1;
	}
	if (s->body_cgi != NULL && n > 0)
		cgi_body(s->body_cgi, p, n);
	if (rest == -2) {
		*off = len;
		return 0;
	}
	s->chunked = 0;
	if (s->body_cgi != NULL)
		cgi_body_end(s->body_cgi);
	s->body_cgi = NULL;
	memmove(buf + len - (size_t)rest, p + n, (size_t)rest);
	*off = len - (size_t)rest;
	return 0;
}

/* Parse and answer what buf holds; returns the bytes used (the rest waits for more). */
static size_t
strm_parse(struct strm *s, char *buf, size_t len)
{
	struct http_header hdrs[SERVER_MAX_HEADERS];
	struct http_request req;
	struct http_framing fr;
	struct server_http_ctx x;
	size_t off = 0;
	int rc;

	/* Request content is taken whatever the queue: a CGI program may wait for all of it
	 * before it answers. A stream that reads no more requests ("Connection: close",
	 * HTTP/1.0) still takes the content of the last one. */
	while (off < len && (strm_in_body(s) || (!s->dead && s->nresp < httpd_config()->pipeline_max))) {
		if (s->chunked) {
			if (strm_chunked(s, buf, len, &off) == -1)
				return len;
			continue;
		}
		if (s->body_skip > 0) {
			size_t k = len - off < s->body_skip ? len - off : (size_t)s->body_skip;
			if (s->body_cgi != NULL)
				cgi_body(s->body_cgi, buf + off, k);
			off += k;
			s->body_skip -= k;
			if (s->body_skip == 0)
				s->body_cgi = NULL;
			continue;
		}
		memset(&req, 0, sizeof(req));
		req.headers = hdrs;
		req.max_line = httpd_config()->max_line;
		req.max_head = httpd_config()->max_head;
		rc = http_parse_request(buf + off, len - off, &req, SERVER_MAX_HEADERS);
		if (rc == -2) {
			if (s->head_since == 0) {
				s->head_since = httpd_now_us();
				s->set->due(s->set);
			}
			break;
		}
		s->head_since = 0;
		if (rc < 0) {
			strm_error(s, http_error_status(req.error), buf + off, len - off);
			return len;
		}
		if (http_request_framing(&req, &fr) == -1) {
			strm_error(s, fr.error == HTTP_FR_TE_UNSUPPORTED ? 501 : 400, buf + off, len - off);
			return len;
		}
		off += (size_t)rc;
		if (fr.body == HTTP_BODY_LENGTH)
			s->body_skip = fr.length;
		if (fr.body == HTTP_BODY_CHUNKED) {
			s->chunked = 1;
			s->chunk_total = 0;
			http_chunked_init(&s->chunk);
		}
		strm_ctx(s, &x);
		server_http_handle(&x, &req, &fr);
		if (x.wait) {
			/* parsed again, content and all, when one of its programs has ended
			 * (strm_resp_done) */
			off -= (size_t)rc;
			s->body_skip = 0;
			s->chunked = 0;
			break;
		}
		strm_take(s, &x);
	}
	return s->dead ? len : off;
}

static int
strm_append(struct strm *s, const char *data, size_t len)
{
	/* A full head and a window of pipelined requests; beyond that the peer is flooding. */
	size_t limit = httpd_config()->max_line + httpd_config()->max_head + 2 * SERVER_RBUF;

	if (s->in_len + len > limit)
		return -1;
	if (s->in_len + len > s->in_cap) {
		size_t cap = s->in_cap ? s->in_cap : 4096;
		char *n;
		while (cap < s->in_len + len)
			cap *= 2;
		if ((n = realloc(s->in, cap)) == NULL)
			return -1;
		s->in = n;
		s->in_cap = cap;
	}
	memcpy(s->in + s->in_len, data, len);
	s->in_len += len;
	return 0;
}

static void
strm_consume(struct strm *s, size_t n)
{
	if (n >= s->in_len) {
		/* Idle streams hold no buffer: 10 000 idle connections cost little. */
		free(s->in);
		s->in = NULL;
		s->in_len = s->in_cap = 0;
		return;
	}
	memmove(s->in, s->in + n, s->in_len - n);
	s->in_len -= n;
}

static void
strm_reparse(struct strm *s)
{
	strm_consume(s, strm_parse(s, s->in, s->in_len));
}

/* Bytes that arrived on the stream; parsed in place when nothing was waiting before them. */
void
strm_input(struct strm *s, char *data, size_t len)
{
	size_t n;

	if (s->dead && !strm_in_body(s))
		return;
	if (s->in_len == 0) {
		n = strm_parse(s, data, len);
		if (n == len || s->dead)
			return;
		data += n;
		len -= n;
		if (strm_append(s, data, len) == -1)
			strm_error(s, 431, NULL, 0);
		return;
	}
	if (strm_append(s, data, len) == -1) {
		strm_error(s, 431, NULL, 0);
		return;
	}
	strm_reparse(s);
}

/* Forget everything of stream s: what it owes and what it was given; it starts afresh. */
static void
strm_forget(struct strm *s)
{
	struct resp *r, *next;

	for (r = s->rq; r != NULL; r = next) {
		next = r->next;
		log_done(r);
		resp_free(r);
		s->set->pending--;
	}
	s->rq = NULL;
	s->rq_tail = &s->rq;
	s->nresp = 0;
	free(s->in);
	s->in = NULL;
	s->in_len = s->in_cap = 0;
	s->head_since = 0;
	s->body_skip = 0;
	s->chunked = 0;
	s->body_cgi = NULL;
}

/*
 * The response at the head of stream s (the ring's head) cannot be completed: a file shrank
 * under it, a CGI program died after its head went out. The draft's "aborting one
 * transaction" on an association: the stream is reset (RFC 6525) where both ends support it and
 * the rest of the association goes on; else the stream is given up and the association closes
 * once the other streams are done. (TCP closes: conn.c.)
 */
void
strm_abort(struct strm *s)
{
	struct strm_set *ss = s->set;

	if (ss->ring_head == s)
		strm_ring_pop(ss);
	strm_forget(s);
	s->aborted = 1; /* a message cut short: without a reset, only the close tells the peer */
	strm_reset_begin(s);
}

/*
 * The draft's fallback where stream s cannot be reset: the type or the stack has no RE-CONFIG,
 * or the peer denied the request (a peer that never enabled resets: socat, ncat, plain
 * sockets). A response cut short leaves the peer's parser mid-message: the association closes
 * once the other streams are done. After a stream error the error response went whole and
 * tells the client; the stream is retired (nothing more read from it or sent on it, for the
 * rest of the association, as HTTP/2's RST_STREAM retires a stream id) and the others go on.
 * The association closes only when no usable stream is left.
 */
static void
strm_reset_failed(struct strm *s)
{
	struct strm_set *ss = s->set;

	s->dead = 1;
	if (s->aborted) {
		ss->drain(ss, 0);
		return;
	}
	if (s->retired)
		return;
	s->retired = 1;
	if (++ss->retired >= ss->nstreams)
		ss->drain(ss, 0);
}

void
strm_reset_begin(struct strm *s)
{
	s->dead = 1; /* what still comes on it belongs to the aborted transaction */
	s->reset_after = 0;
	s->reset_pending = 1;
	s->set->resets++;
	strm_reset_try(s);
}

/* Ask for the reset; the stack may want the stream's queue drained first (Linux) or have a
 * request outstanding: the connection's timer asks again. */
void
strm_reset_try(struct strm *s)
{
	struct strm_set *ss = s->set;
	int rc = tp_reset_stream(ss->tc, s->id);

	if (rc == TP_RETRY) {
		ss->reset_retry_us = httpd_now_us() + SERVER_RESET_RETRY_US;
		ss->due(ss);
		return;
	}
	s->reset_pending = 0;
	ss->resets--;
	if (rc == TP_OK) {
		/* Asked; still dead until the stack tells that our incoming direction is reset:
		 * what the peer sent before it saw the request belongs to the aborted transaction. */
		s->reset_wait = 1;
		return;
	}
	strm_reset_failed(s); /* no stream reset here */
}

/* The ring's head stream has nothing to send now: out of the ring until it has. */
void
strm_ring_pop(struct strm_set *ss)
{
	struct strm *s = ss->ring_head;

	ss->ring_head = s->out_next;
	if (ss->ring_head == NULL)
		ss->ring_tail = NULL;
	s->in_ring = 0;
	s->out_next = NULL;
}

struct strm *
strm_get(struct strm_set *ss, uint16_t id)
{
	if (ss->st[id] == NULL)
		ss->st[id] = strm_new(ss, id);
	return ss->st[id];
}

/* TCP: the peer ended its data. The answers still go out, but content cut short: its program
 * goes (it holds a process). */
void
strm_eof(struct strm *s)
{
	if (s == NULL || !strm_in_body(s))
		return;
	if (s->body_cgi != NULL)
		cgi_refuse(s->body_cgi, 400, 0);
	s->body_cgi = NULL;
	s->body_skip = 0;
	s->chunked = 0;
}

/*
 * The stack's events. Only stream resets matter here: "stream reset incoming: 3 5" ends the
 * wait of those streams (they start afresh); a reset denied or failed takes the draft's
 * fallback (strm_reset_failed).
 */
void
strm_note(struct strm_set *ss, const char *what)
{
	const char *p;
	char *end;
	int bad;

	if (strncmp(what, "stream reset", 12) != 0 || (p = strchr(what, ':')) == NULL)
		return;
	bad = strstr(what, "denied") != NULL || strstr(what, "failed") != NULL;
	if (!bad && strncmp(what, "stream reset incoming", 21) != 0)
		return;
	for (p++; *p != '\0'; p = end) {
		unsigned long id = strtoul(p, &end, 10);
		struct strm *s;
		if (end == p)
			break;
		if (id >= ss->nstreams || (s = ss->st[id]) == NULL || !s->reset_wait)
			continue;
		s->reset_wait = 0;
		strm_forget(s);
		if (bad) {
			strm_reset_failed(s);
			continue;
		}
		s->dead = 0; /* the next request on it starts afresh */
		s->aborted = 0;
	}
}
