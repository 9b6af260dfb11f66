/* session.c: one connection or association: connect, requests out, replies parsed per stream. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ev.h"
#include "load.h"

#define SESS_MAX_HEADERS 64
#define SESS_READS 16 /* reads per event before giving the others a turn */

enum { ST_HEAD = 0, ST_LENGTH, ST_CHUNKED, ST_CLOSE };

/* One stream (the only one on TCP): its outstanding calls, in order, and its parser. */
struct sess_stream {
	struct sess_call *q, *qtail;
	unsigned n;
	int state;
	uint64_t left;            /* ST_LENGTH: content bytes still to come */
	struct http_chunked ch;
	char *buf;                /* ST_HEAD: the head so far (heads are parsed from the start) */
	size_t len, cap;
	int mid;                  /* the last piece did not end its user message */
};

struct sess {
	struct ev_loop *loop;
	struct tp_conn *c;
	struct sess_opts o;
	struct sess_cbs cbs;
	void *arg;
	int up, closing, finishing, ended, in_handler, msg;
	unsigned watching;        /* events asked of the transport */
	unsigned nstreams, cursor, outstanding;
	struct sess_stream *st;
	struct sess_call *sq, *sqtail; /* requests not wholly sent, in issue order */
	struct ev_timer timer;
	uint64_t t_start, t_up, last_progress;
	uint64_t grace_us;        /* sess_grace: extra time until the next data comes in */
	long reset_stream;        /* the server reset this stream (RFC 6525), -1: none */
	struct sess_tls *tls;     /* https: its TLS connections, or NULL */
};

/* One receive buffer per thread: replies are consumed from it before the next read. */
static __thread char sess_rbuf[65536];
/* Stream transports: pipelined requests gathered here, to go out in one write. */
static __thread char sess_wbuf[16384];

/* Finished calls are kept for the next ones, per thread: no malloc per call. */
#define SESS_FREE_MAX 4096
static __thread struct sess_call *sess_free_calls;
static __thread unsigned sess_nfree;

static struct sess_call *
sess_call_new(void)
{
	struct sess_call *k = sess_free_calls;

	if (k == NULL)
		return calloc(1, sizeof(*k));
	sess_free_calls = k->next;
	sess_nfree--;
	memset(k, 0, sizeof(*k));
	return k;
}

void
sess_cache_free(void)
{
	struct sess_call *k;

	while ((k = sess_free_calls) != NULL) {
		sess_free_calls = k->next;
		free(k);
	}
	sess_nfree = 0;
}

static void
sess_call_free(struct sess_call *k)
{
	if (k == NULL)
		return;
	free(k->own);
	k->own = NULL;
	if (sess_nfree >= SESS_FREE_MAX) {
		free(k);
		return;
	}
	k->next = sess_free_calls;
	sess_free_calls = k;
	sess_nfree++;
}

static void sess_ev(struct tp_conn *c, unsigned events, void *arg);
static int sess_input(struct sess *s, unsigned sid, char *p, size_t n);
static void sess_deferred(struct ev_loop *loop, void *arg);

/*
 * The stack's events, while it is read: only "stream reset incoming: 3 5" matters, the
 * server's abort of the transactions on those streams (the draft's reset): a reply still
 * owed there will never be complete. Noted here, acted on once the read returned.
 */
/* Stream sid is in the middle of a user message (its first piece came, not its last). */
static int
sess_mid(const struct sess *s, uint16_t sid)
{
	return s->msg && s->st != NULL && sid < s->nstreams && s->st[sid].mid;
}

static void
sess_note(struct tp_conn *c, const char *what, void *arg)
{
	struct sess *s = arg;
	const char *p;
	char *end;

	(void)c;
	if (strncmp(what, "I-DATA", 6) == 0) /* --sctp-interleave: what the association uses */
		fprintf(stderr, "httpload: %s\n", what);
	if (strncmp(what, "stream reset incoming", 21) != 0 || (p = strchr(what, ':')) == NULL)
		return;
	if (s->st == NULL)
		return;
	if (strstr(p, "all") != NULL) { /* every stream (an empty list in the event) */
		unsigned i;
		for (i = 0; i < s->nstreams && s->reset_stream < 0; i++)
			if (s->st[i].q != NULL)
				s->reset_stream = (long)i;
		return;
	}
	for (p++; *p != '\0' && s->reset_stream < 0; p = end) {
		unsigned long id = strtoul(p, &end, 10);
		if (end == p)
			break;
		if (id < s->nstreams && s->st[id].q != NULL)
			s->reset_stream = (long)id;
	}
}

const char *
load_err_name(enum load_err e)
{
	static const char *const names[LOAD_E_NUM] = {
		"ok", "client-timo", "socket-timo", "connrefused", "connreset", "fd-unavail",
		"addrunavail", "ftab-full", "other", "corrupt",
	};

	return (unsigned)e < LOAD_E_NUM ? names[e] : "other";
}

/* errno is not an API between layers: the transport's text says what happened. */
enum load_err
sess_classify(const char *err)
{
	if (strcasestr(err, "refused") != NULL)
		return LOAD_E_REFUSED;
	if (strcasestr(err, "reset") != NULL || strcasestr(err, "aborted") != NULL ||
	    strcasestr(err, "broken pipe") != NULL)
		return LOAD_E_RESET;
	if (strcasestr(err, "timed out") != NULL)
		return LOAD_E_SOCK_TIMO;
	if (strcasestr(err, "open files in system") != NULL)
		return LOAD_E_FTABFULL;
	if (strcasestr(err, "too many open files") != NULL)
		return LOAD_E_FDUNAVAIL;
	if (strcasestr(err, "assign requested address") != NULL ||
	    strcasestr(err, "address not available") != NULL)
		return LOAD_E_ADDRUNAVAIL;
	return LOAD_E_OTHER;
}

static void
sess_watch(struct sess *s, unsigned events)
{
	if (s->watching == events)
		return;
	s->watching = events;
	tp_watch(s->c, s->loop, events, events ? sess_ev : NULL, s);
}

/* The session is over: tell the owner, once; afterwards the caller touches s no more. */
static int
sess_end(struct sess *s, enum load_err e, const char *fmt, ...)
{
	char why[TP_ERRLEN];
	va_list ap;

	if (s->ended)
		return -1;
	s->ended = 1;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ev_timer_stop(s->loop, &s->timer);
	ev_undefer(s->loop, sess_deferred, s);
	sess_watch(s, 0);
	s->cbs.end(s, e, why, s->outstanding, s->arg);
	return -1;
}

static void
sess_progress(struct sess *s)
{
	s->last_progress = ev_now_us(s->loop);
}

void
sess_grace(struct sess *s, uint64_t us)
{
	s->grace_us = us;
}

static void
sess_timer(struct ev_loop *loop, void *arg)
{
	struct sess *s = arg;
	uint64_t now = ev_clock_us(), due = s->last_progress + s->o.timeout_us + s->grace_us;

	if (now >= due && (!s->up || s->outstanding > 0)) {
		sess_end(s, LOAD_E_CLIENT_TIMO, "no progress for %.3f s",
		    (double)s->o.timeout_us / 1e6);
		return;
	}
	ev_timer_start(loop, &s->timer, now >= due ? s->o.timeout_us : due - now, sess_timer, s);
}

struct sess *
sess_new(struct ev_loop *loop, const struct sess_opts *o, const struct sess_cbs *cbs, void *arg,
    enum load_err *e, char *err, size_t errlen)
{
	struct sess *s;

	*e = LOAD_OK;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		tp_seterr(err, errlen, "out of memory");
		*e = LOAD_E_OTHER;
		return NULL;
	}
	s->loop = loop;
	s->o = *o;
	if (s->o.max_piped == 0)
		s->o.max_piped = 1;
	s->cbs = *cbs;
	s->arg = arg;
	s->t_start = ev_clock_us();
	s->last_progress = s->t_start;
	if ((s->c = o->conn != NULL ? o->conn : tp_connect(o->proto, o->addr, &o->tp, err,
	    errlen)) == NULL) {
		*e = sess_classify(err);
		goto bad;
	}
	s->msg = (tp_caps(s->c) & TP_CAP_MSG) != 0;
	s->reset_stream = -1;
	if (s->msg)
		tp_set_notify(s->c, sess_note, s);
	sess_watch(s, EV_WRITE);
	if (o->timeout_us > 0)
		ev_timer_start(loop, &s->timer, o->timeout_us, sess_timer, s);
	return s;
bad:
	free(s);
	return NULL;
}

void
sess_free(struct sess *s)
{
	struct sess_call *k, *next;
	unsigned i;

	if (s == NULL)
		return;
	ev_timer_stop(s->loop, &s->timer);
	ev_undefer(s->loop, sess_deferred, s);
	for (i = 0; s->st != NULL && i < s->nstreams; i++) {
		for (k = s->st[i].q; k != NULL; k = next) {
			next = k->next;
			sess_call_free(k);
		}
		free(s->st[i].buf);
	}
	free(s->st);
	sess_tls_free(s->tls);
	if (s->c != NULL) {
		tp_watch(s->c, s->loop, 0, NULL, NULL);
		tp_conn_free(s->c);
	}
	free(s);
}

unsigned
sess_slots(const struct sess *s)
{
	unsigned cap;

	if (!s->up || s->closing || s->finishing || s->ended)
		return 0;
	cap = s->nstreams * s->o.max_piped;
	return cap > s->outstanding ? cap - s->outstanding : 0;
}

unsigned sess_outstanding(const struct sess *s) { return s->outstanding; }
unsigned sess_streams(const struct sess *s) { return s->up ? s->nstreams : 0; }
int sess_is_up(const struct sess *s) { return s->up; }
int sess_closing(const struct sess *s) { return s->closing; }
uint64_t sess_t_start(const struct sess *s) { return s->t_start; }
uint64_t sess_t_up(const struct sess *s) { return s->t_up; }
struct tp_conn *sess_conn(struct sess *s) { return s->c; }
const struct sess_tls_stats *sess_tls(const struct sess *s) { return s->tls != NULL ? sess_tls_stats(s->tls) : NULL; }
int sess_tls_refused(const struct sess *s) { return s->tls != NULL && sess_tls_cert_error(s->tls); }

/* Outside the handler nothing else runs the end check: do it from the loop. */
static void
sess_deferred(struct ev_loop *loop, void *arg)
{
	struct sess *s = arg;

	(void)loop;
	if (s->outstanding == 0 && (s->finishing || s->closing))
		sess_end(s, LOAD_OK, "done");
}

void
sess_finish(struct sess *s)
{
	s->finishing = 1;
	if (!s->in_handler && s->outstanding == 0)
		ev_defer(s->loop, sess_deferred, s);
}

/* The draft's stream choice: the first idle stream from the cursor on; pipeline (when
 * allowed) only when none is idle, onto the least busy. */
static int
sess_pick(struct sess *s)
{
	unsigned i, j, best = 0, bestn = ~0u;

	for (i = 0; i < s->nstreams; i++) {
		j = (s->cursor + i) % s->nstreams;
		if (s->st[j].n == 0)
			return (int)j;
		if (s->st[j].n < bestn) {
			bestn = s->st[j].n;
			best = j;
		}
	}
	return bestn < s->o.max_piped ? (int)best : -1;
}

struct sess_call *
sess_issue(struct sess *s, const char *req, size_t len, int head_req, uint64_t t_sched)
{
	struct sess_stream *st;
	struct sess_call *k;
	int j;

	if (sess_slots(s) == 0 || (j = sess_pick(s)) < 0)
		return NULL;
	if ((k = sess_call_new()) == NULL)
		return NULL;
	s->cursor = ((unsigned)j + 1) % s->nstreams;
	k->req = req;
	k->req_len = len;
	k->head_req = head_req;
	k->stream = (uint16_t)j;
	k->t_issue = ev_clock_us();
	k->t_sched = t_sched ? t_sched : k->t_issue;
	k->content_length = -1;
	k->bol = 1;
	st = &s->st[j];
	if (st->qtail != NULL)
		st->qtail->next = k;
	else
		st->q = k;
	st->qtail = k;
	st->n++;
	s->outstanding++;
	if (s->sqtail != NULL)
		s->sqtail->snext = k;
	else
		s->sq = k;
	s->sqtail = k;
	/* In the handler the requests go out at its end, in one go; else wait to be writable. */
	if (!s->in_handler)
		sess_watch(s, EV_READ | EV_WRITE);
	return k;
}

/* A byte stream: the pending requests, copied into one buffer, in one write. */
static int
sess_flush_gather(struct sess *s)
{
	struct tp_msginfo mi;
	struct sess_call *k;
	size_t n, len, sent;
	int rc;

	while (s->sq != NULL) {
		len = 0;
		for (k = s->sq; k != NULL && len < sizeof(sess_wbuf); k = k->snext) {
			n = k->req_len - k->sent;
			if (n > sizeof(sess_wbuf) - len)
				n = sizeof(sess_wbuf) - len;
			memcpy(sess_wbuf + len, k->req + k->sent, n);
			len += n;
		}
		memset(&mi, 0, sizeof(mi));
		sent = 0;
		rc = tp_send(s->c, sess_wbuf, len, &mi, &sent);
		if (rc == TP_RETRY)
			return 0;
		if (rc != TP_OK)
			return sess_end(s, sess_classify(s->c->err), "%s", s->c->err);
		sess_progress(s);
		n = sent;
		while ((k = s->sq) != NULL && n > 0) {
			size_t take = k->req_len - k->sent < n ? k->req_len - k->sent : n;

			k->sent += take;
			n -= take;
			if (k->sent < k->req_len)
				break;
			s->sq = k->snext;
			if (s->sq == NULL)
				s->sqtail = NULL;
			k->snext = NULL;
		}
		if (sent < len)
			return 0; /* a short write: the socket is full */
	}
	return 0;
}

/* An HTTP message's send info on stream sid: PPID 63 (the draft), in clear or in TLS records. */
static void
sess_http_msginfo(struct tp_msginfo *mi, unsigned sid)
{
	memset(mi, 0, sizeof(*mi));
	mi->stream = sid;
	mi->ppid = LOAD_PPID_HTTP;
}

/* https: each request whole to its stream's TLS connection, then the records, streams in
 * turn, one user message (at most LOAD_MSG_MAX) at a time. */
static int
sess_flush_tls(struct sess *s)
{
	char err[TP_ERRLEN];
	struct tp_msginfo mi;
	struct sess_call *k;
	const void *p;
	size_t n, sent;
	uint16_t sid;
	int rc;

	struct sess_call **pk = &s->sq, *prev = NULL;

	while ((k = *pk) != NULL) {
		if (!sess_tls_may_start(s->tls, k->stream)) {
			prev = k; /* it waits for the first stream's session ticket */
			pk = &k->snext;
			continue;
		}
		if (sess_tls_write(s->tls, k->stream, k->req + k->sent, k->req_len - k->sent, err,
		    sizeof(err)) == -1)
			return sess_end(s, LOAD_E_OTHER, "TLS %s", err);
		k->sent = k->req_len;
		*pk = k->snext;
		if (s->sqtail == k)
			s->sqtail = prev;
		k->snext = NULL;
	}
	while (sess_tls_next(s->tls, &sid, &p, &n)) {
		if (s->msg && n > LOAD_MSG_MAX)
			n = LOAD_MSG_MAX;
		sess_http_msginfo(&mi, sid);
		sent = 0;
		rc = tp_send(s->c, p, n, &mi, &sent);
		if (rc == TP_RETRY)
			return 0;
		if (rc != TP_OK)
			return sess_end(s, sess_classify(s->c->err), "%s", s->c->err);
		sess_progress(s);
		sess_tls_sent(s->tls, sid, s->msg ? n : sent);
		if (!s->msg && sent < n)
			return 0;
	}
	return 0;
}

/* Something to send now: requests (on https, those not waiting for a ticket), or records. */
static int
sess_wants_write(const struct sess *s)
{
	const struct sess_call *k;

	if (s->tls == NULL)
		return s->sq != NULL;
	if (sess_tls_pending(s->tls))
		return 1;
	for (k = s->sq; k != NULL; k = k->snext)
		if (sess_tls_may_start(s->tls, k->stream))
			return 1;
	return 0;
}

/* https: ciphertext of stream sid in, its plaintext to the reply parser. */
static int
sess_input_tls(struct sess *s, unsigned sid, char *p, size_t n)
{
	char err[TP_ERRLEN];
	size_t got;
	int rc;

	if (sid >= s->nstreams)
		return sess_input(s, sid, p, n);
	if (sess_tls_input(s->tls, sid, p, n, err, sizeof(err)) == -1)
		return sess_end(s, LOAD_E_OTHER, "TLS %s", err);
	/* p was copied: the receive buffer takes the plaintext now. */
	while ((rc = sess_tls_read(s->tls, sid, sess_rbuf, sizeof(sess_rbuf), &got, err,
	    sizeof(err))) == 1) {
		if (sess_input(s, sid, sess_rbuf, got) < 0)
			return -1;
	}
	if (rc == -1)
		return sess_end(s, LOAD_E_OTHER, "TLS %s", err);
	return 0;
}

static int
sess_flush(struct sess *s)
{
	struct tp_msginfo mi;
	struct sess_call *k;
	size_t n, sent;
	int rc;

	if (s->tls != NULL)
		return sess_flush_tls(s);
	if (!s->msg && s->sq != NULL && s->sq->snext != NULL)
		return sess_flush_gather(s);
	while ((k = s->sq) != NULL) {
		n = k->req_len - k->sent;
		/* Message types: one SCTP message per request piece, at most 16 KiB (draft). */
		if (s->msg && n > LOAD_MSG_MAX)
			n = LOAD_MSG_MAX;
		sess_http_msginfo(&mi, k->stream);
		sent = 0;
		rc = tp_send(s->c, k->req + k->sent, n, &mi, &sent);
		if (rc == TP_RETRY)
			return 0;
		if (rc != TP_OK)
			return sess_end(s, sess_classify(s->c->err), "%s", s->c->err);
		sess_progress(s);
		k->sent += sent;
		if (k->sent == k->req_len) {
			s->sq = k->snext;
			if (s->sq == NULL)
				s->sqtail = NULL;
			k->snext = NULL;
		} else if (!s->msg) {
			return 0; /* a short write: the socket is full */
		}
	}
	return 0;
}

/* The reply at the head of st is complete. */
static int
sess_reply_done(struct sess *s, struct sess_stream *st)
{
	struct sess_call *k = st->q;

	st->q = k->next;
	if (st->q == NULL)
		st->qtail = NULL;
	st->n--;
	s->outstanding--;
	st->state = ST_HEAD;
	k->t_done = ev_clock_us();
	k->complete = 1;
	if (st->q != NULL && st->q->t_first == 0 && st->len > 0)
		st->q->t_first = k->t_done;
	s->cbs.done(s, k, s->arg);
	sess_call_free(k);
	return s->ended ? -1 : 1;
}

static void
sess_deliver(struct sess *s, struct sess_call *k, const char *p, size_t n)
{
	k->data_bytes += n;
	if (n > 0 && s->cbs.body != NULL)
		s->cbs.body(s, k, p, n, s->arg);
}

/* Body bytes at *pp for the reply at the head of st: 1 when it is complete, 0 when more is
 * to come, -1 when the session ended. */
static int
sess_body(struct sess *s, struct sess_stream *st, char **pp, size_t *pn)
{
	struct sess_call *k = st->q;
	char *p = *pp;
	size_t n = *pn, dl;
	ssize_t r;

	switch (st->state) {
	case ST_LENGTH:
		dl = n < st->left ? n : (size_t)st->left;
		k->body_bytes += dl;
		sess_deliver(s, k, p, dl);
		st->left -= dl;
		*pp += dl;
		*pn -= dl;
		return st->left == 0 ? sess_reply_done(s, st) : 0;
	case ST_CHUNKED:
		dl = n;
		if ((r = http_chunked_decode(&st->ch, p, &dl)) == -1)
			return sess_end(s, LOAD_E_OTHER, "malformed chunked body on stream %u",
			    k->stream);
		sess_deliver(s, k, p, dl);
		/* As httperf: content is the decoded data, the footer the trailer section after
		 * the last chunk (its final CRLF included); chunk-size lines count as neither. */
		k->body_bytes += dl;
		k->footer_bytes = st->ch.trailer_bytes;
		if (r == -2) {
			*pn = 0;
			return 0;
		}
		*pp = p + dl;
		*pn = (size_t)r;
		return sess_reply_done(s, st);
	default: /* ST_CLOSE */
		k->body_bytes += n;
		sess_deliver(s, k, p, n);
		*pn = 0;
		return 0;
	}
}

static void
sess_consume(struct sess_stream *st, size_t n)
{
	memmove(st->buf, st->buf + n, st->len - n);
	st->len -= n;
}

/* Parse heads (and what follows them) from st->buf: 0, or -1 when the session ended. */
static int
sess_heads(struct sess *s, struct sess_stream *st, unsigned sid)
{
	struct http_header hdrs[SESS_MAX_HEADERS];
	struct http_response res;
	struct http_framing fr;
	struct sess_call *k;
	char *p;
	size_t n;
	int r;

	while (st->len > 0 && st->state == ST_HEAD) {
		if ((k = st->q) == NULL)
			return sess_end(s, LOAD_E_OTHER, "data on stream %u with no request "
			    "outstanding", sid);
		if (k->t_first == 0)
			k->t_first = ev_clock_us();
		memset(&res, 0, sizeof(res));
		res.headers = hdrs;
		res.max_head = LOAD_HEAD_MAX;
		r = http_parse_response(st->buf, st->len, &res, SESS_MAX_HEADERS);
		if (r == -2)
			return 0;
		if (r < 0)
			return sess_end(s, LOAD_E_OTHER, "malformed reply on stream %u: %s", sid,
			    http_error_str(res.error));
		k->hdr_bytes += (uint64_t)r;
		if (res.status < 200 && res.status != 101) {
			sess_consume(st, (size_t)r); /* interim: the final response follows */
			continue;
		}
		k->status = res.status;
		k->minor_version = res.minor_version;
		if (http_response_framing(&res, k->head_req, &fr) == -1)
			return sess_end(s, LOAD_E_OTHER, "reply on stream %u with bad framing "
			    "(Content-Length or Transfer-Encoding)", sid);
		if (!http_keep_alive(res.minor_version, hdrs, res.num_headers))
			s->closing = 1;
		if (fr.body == HTTP_BODY_LENGTH || fr.body == HTTP_BODY_NONE)
			k->content_length = (int64_t)fr.length;
		if (s->cbs.head != NULL)
			s->cbs.head(s, k, st->buf, (size_t)r, &res, s->arg);
		switch (fr.body) {
		case HTTP_BODY_NONE:
			sess_consume(st, (size_t)r);
			if (sess_reply_done(s, st) < 0)
				return -1;
			continue;
		case HTTP_BODY_LENGTH:
			st->state = ST_LENGTH;
			st->left = fr.length;
			break;
		case HTTP_BODY_CHUNKED:
			st->state = ST_CHUNKED;
			http_chunked_init(&st->ch);
			break;
		default:
			st->state = ST_CLOSE;
			s->closing = 1;
			break;
		}
		p = st->buf + r;
		n = st->len - (size_t)r;
		while (n > 0 && st->state != ST_HEAD)
			if (sess_body(s, st, &p, &n) < 0)
				return -1;
		memmove(st->buf, p, n);
		st->len = n;
	}
	return 0;
}

static int
sess_input(struct sess *s, unsigned sid, char *p, size_t n)
{
	struct sess_stream *st;
	size_t cap;
	char *b;

	if (sid >= s->nstreams)
		return sess_end(s, LOAD_E_OTHER, "data on stream %u, beyond the %u usable", sid,
		    s->nstreams);
	st = &s->st[sid];
	while (n > 0) {
		if (st->state != ST_HEAD) {
			if (sess_body(s, st, &p, &n) < 0)
				return -1;
			continue;
		}
		if (st->len + n > st->cap) {
			cap = st->cap ? st->cap : 4096;
			while (cap < st->len + n)
				cap *= 2;
			if ((b = realloc(st->buf, cap)) == NULL)
				return sess_end(s, LOAD_E_OTHER, "out of memory");
			st->buf = b;
			st->cap = cap;
		}
		memcpy(st->buf + st->len, p, n);
		st->len += n;
		n = 0;
		if (sess_heads(s, st, sid) < 0)
			return -1;
		if (st->state == ST_HEAD && st->len > LOAD_HEAD_MAX)
			return sess_end(s, LOAD_E_OTHER, "reply head on stream %u longer than %u "
			    "bytes", sid, LOAD_HEAD_MAX);
	}
	return 0;
}

/* The peer ended the connection (FIN or SHUTDOWN). */
static int
sess_eof(struct sess *s)
{
	unsigned i;

	for (i = 0; i < s->nstreams; i++)
		if (s->st[i].q != NULL && s->st[i].state == ST_CLOSE)
			if (sess_reply_done(s, &s->st[i]) < 0)
				return -1;
	if (s->outstanding > 0)
		return sess_end(s, LOAD_E_RESET, "the server closed the connection with %u "
		    "repl%s incomplete", s->outstanding, s->outstanding == 1 ? "y" : "ies");
	return sess_end(s, LOAD_OK, "closed by the server");
}

static int
sess_connected(struct sess *s)
{
	struct tp_conn *c = s->c;
	unsigned n = 1;

	if (tp_caps(c) & TP_CAP_STREAMS) {
		/* The draft's N: the smaller negotiated count, never more than asked. */
		n = c->streams_in < c->streams_out ? c->streams_in : c->streams_out;
		if (s->o.tp.streams > 0 && n > s->o.tp.streams)
			n = s->o.tp.streams;
		if (n == 0)
			n = 1;
	}
	if ((s->st = calloc(n, sizeof(*s->st))) == NULL)
		return sess_end(s, LOAD_E_OTHER, "out of memory");
	if (s->o.tls != NULL && (s->tls = sess_tls_new(s->o.tls, s->msg, n)) == NULL)
		return sess_end(s, LOAD_E_OTHER, "out of memory");
	s->nstreams = n;
	s->up = 1;
	s->t_up = ev_clock_us();
	sess_progress(s);
	if (s->cbs.up != NULL)
		s->cbs.up(s, s->arg);
	return s->ended ? -1 : 0;
}

static void
sess_ev(struct tp_conn *c, unsigned events, void *arg)
{
	struct sess *s = arg;
	struct tp_msginfo mi;
	size_t got;
	int rc, i;

	s->in_handler = 1;
	if (!s->up) {
		if ((rc = tp_finish(c)) == TP_RETRY) {
			s->in_handler = 0;
			return;
		}
		if (rc != TP_OK) {
			sess_end(s, sess_classify(c->err), "%s", c->err);
			return;
		}
		if (sess_connected(s) < 0)
			return;
		events |= EV_READ;
	}
	if (events & (EV_READ | EV_ERROR)) {
		for (i = 0; i < SESS_READS; i++) {
			rc = tp_recv(c, sess_rbuf, sizeof(sess_rbuf), &mi, &got);
			if (s->reset_stream >= 0) {
				/* All the stream's data came before its reset: what is owed is lost. */
				sess_end(s, LOAD_E_RESET, "stream %ld reset by the server: its reply "
				    "is incomplete", s->reset_stream);
				return;
			}
			if (rc == TP_RETRY)
				break;
			if (rc == TP_EOF) {
				sess_eof(s);
				return;
			}
			if (rc != TP_OK) {
				sess_end(s, sess_classify(c->err), "%s", c->err);
				return;
			}
			sess_progress(s);
			s->grace_us = 0;
			if (got == 0)
				continue;
			/* Draft: PPID 63 is HTTP; nothing else is taken as HTTP unless told to
			 * (--accept-ppid0: the unspecified 0 of generic tools). A message's first
			 * piece tells it: with I-DATA (RFC 8260) only the first fragment carries
			 * the PPID, and a later piece may come with another number in its place. */
			if ((tp_caps(c) & TP_CAP_PPID) && mi.ppid != LOAD_PPID_HTTP &&
			    !(mi.ppid == 0 && s->o.accept_ppid0) && !sess_mid(s, mi.stream)) {
				sess_end(s, LOAD_E_OTHER, "data with PPID %u on stream %u, not HTTP's 63%s",
				    mi.ppid, mi.stream, mi.ppid == 0 ? " (--accept-ppid0 takes it)" : "");
				return;
			}
			if ((s->tls != NULL ? sess_input_tls : sess_input)(s,
			    (tp_caps(c) & TP_CAP_STREAMS) ? mi.stream : 0, sess_rbuf, got) < 0)
				return;
			if (s->msg && s->st != NULL && mi.stream < s->nstreams)
				s->st[mi.stream].mid = !(mi.flags & TP_F_EOR);
			/* A byte stream that filled less than the buffer is drained: no read
			 * just to see EAGAIN (the loop is level-triggered; more will wake it). */
			if (!s->msg && got < sizeof(sess_rbuf))
				break;
		}
	}
	if ((s->sq != NULL || (s->tls != NULL && sess_tls_pending(s->tls))) && sess_flush(s) < 0)
		return;
	s->in_handler = 0;
	if (s->outstanding == 0 && (s->finishing || s->closing)) {
		sess_end(s, LOAD_OK, s->closing ? "closed by the server" : "done");
		return;
	}
	sess_watch(s, sess_wants_write(s) ? EV_READ | EV_WRITE : EV_READ);
}
