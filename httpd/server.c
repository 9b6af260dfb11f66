/* server.c: sctphttpd's process, listeners, connections and associations, streams and their I/O. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

#define SERVER_RBUF 65536
#define SERVER_WRITE_ROUNDS 64          /* sends per event before other connections get a turn */
#define SERVER_SENDFILE_MAX (1u << 20)
#define SERVER_DRAIN_US 1000000         /* the draft's drain period D, at least 1 s */
#define SERVER_RESET_RETRY_US 20000     /* a stream reset the stack could not take yet */
#define SERVER_MMC_AGE_US 60000000      /* an unused file mapping is kept this long */

/*
 * One connection or association. TCP has one stream; a message transport (SCTP) has N, each
 * its own HTTP byte stream, and sends from its streams in turn, one user message each.
 */
struct conn {
	struct conn *prev, *next;   /* all connections, least recently active first */
	struct tp_conn *tc;
	int msg;                    /* message transport: stream ids, PPID 63, bounded messages */
	int use_sendfile;
	uint16_t nstreams;          /* N: usable streams */
	struct strm **st;           /* N entries, each made when its stream first has data */
	struct strm *ring_head, *ring_tail;
	char *obuf;                 /* one built user message that waits for room */
	size_t olen;
	struct strm *ostrm;
	struct ev_timer timer;
	uint64_t last_us;           /* last progress either way */
	uint64_t drain_until;
	uint64_t linger_until;
	unsigned pending;           /* responses queued on all streams */
	int draining;               /* close once nothing is pending and drain_until has passed */
	int eof;                    /* the peer ended its data (TCP FIN) */
	int lingering;              /* TCP: our side shut after the last response, awaiting FIN */
	int stalled;                /* TCP: the response at the head has nothing to send now */
	uint64_t thr_until;         /* a throttle holds some output back until then, 0 = none */
	unsigned resets;            /* streams whose reset is still to be asked */
	uint64_t reset_retry_us;
	unsigned want;
	char peer[64];              /* address only, for the log */
};

static struct {
	struct config cf;
	struct ev_loop *loop;
	struct tp_listener **ls;
	char **lspec;               /* what each was asked for, "TYPE ADDR", for --workers */
	size_t nls, nlspec;
	int accepting;
	struct conn *lru_head, *lru_tail;
	long nconns, max_conns;
	int graceful;               /* SIGUSR1: no new connections, exit when the last one ends */
	int sigfd;
	struct ev_timer tick;
	int chrooted;
	int is_master;              /* --workers: the process that only forwards signals */
	char rbuf[SERVER_RBUF];
} srv = { .sigfd = -1 };

static void conn_free(struct conn *cn);
static int conn_write(struct conn *cn);
static int conn_check(struct conn *cn);
static void conn_rewatch(struct conn *cn);
static void conn_timer_sync(struct conn *cn);
static void strm_reparse(struct strm *s);
static void server_on_accept(struct tp_listener *l, void *arg);
static void strm_ring_pop(struct conn *cn);
static void strm_reset_try(struct strm *s);
static void strm_reset_begin(struct strm *s);
static void conn_ev(struct tp_conn *tc, unsigned events, void *arg);

struct config *
server_config(void)
{
	return &srv.cf;
}

struct ev_loop *
server_loop(void)
{
	return srv.loop;
}

const char *
server_local(const struct strm *s)
{
	return s->cn->tc->from != NULL ? s->cn->tc->from->local : "";
}

uint16_t
server_stream_id(const struct strm *s)
{
	return s->id;
}

uint64_t
server_now_us(void)
{
	return srv.loop != NULL ? ev_now_us(srv.loop) : ev_clock_us();
}

const char *
server_peer(const struct strm *s)
{
	return s->cn->peer;
}

int
server_is_msg(const struct strm *s)
{
	return s->cn->msg;
}

int
server_draining(const struct strm *s)
{
	return s->cn->draining || srv.graceful;
}

/*
 * "Connection: close", an error that leaves the byte stream out of step, or a shutdown. On TCP
 * nothing more is read as a request and the connection closes after the responses queued. On
 * an association it means the whole association (the draft's "Connection: close"): every
 * request already received is answered, and when the server decided it, requests arriving in
 * the next second (sent before the client saw the close) are answered too.
 */
static void
conn_drain(struct conn *cn, int request_asked)
{
	if (!cn->msg && cn->st[0] != NULL)
		cn->st[0]->dead = 1;
	if (!cn->draining) {
		cn->draining = 1;
		cn->drain_until = (cn->msg && !request_asked) ? server_now_us() + SERVER_DRAIN_US : 0;
		conn_timer_sync(cn);
	}
}

void
server_close_after(struct strm *s, int request_asked)
{
	conn_drain(s->cn, request_asked);
}

/* --- streams ------------------------------------------------------------------------------ */

static struct strm *
strm_new(struct conn *cn, uint16_t id)
{
	struct strm *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->cn = cn;
	s->id = id;
	s->rq_tail = &s->rq;
	return s;
}

static void
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

static void
strm_ring_add(struct conn *cn, struct strm *s)
{
	if (s->in_ring)
		return;
	s->in_ring = 1;
	s->out_next = NULL;
	if (cn->ring_tail != NULL)
		cn->ring_tail->out_next = s;
	else
		cn->ring_head = s;
	cn->ring_tail = s;
}

/* The stream at the head of the ring has sent one message: to the back, or out. */
static void
strm_ring_next(struct conn *cn)
{
	struct strm *s = cn->ring_head;

	if (s == NULL)
		return;
	cn->ring_head = s->out_next;
	if (cn->ring_head == NULL)
		cn->ring_tail = NULL;
	s->in_ring = 0;
	s->out_next = NULL;
	if (s->rq != NULL)
		strm_ring_add(cn, s);
}

void
server_enqueue(struct strm *s, struct resp *r)
{
	*s->rq_tail = r;
	s->rq_tail = &r->next;
	s->nresp++;
	s->cn->pending++;
	if (s->cn->msg)
		strm_ring_add(s->cn, s);
}

/*
 * A CGI response has output or has ended. Only watches change here, nothing is sent: the
 * caller (the program's pipe callback) must not see its response freed under it.
 */
void
server_resp_wake(struct strm *s)
{
	struct conn *cn = s->cn;

	if (cn->msg) {
		if (s->rq != NULL)
			strm_ring_add(cn, s);
	} else {
		cn->stalled = 0;
	}
	conn_rewatch(cn);
}

/* A throttle's wait is over: every stream with output competes again. */
static void
conn_unthrottle(struct conn *cn)
{
	uint16_t i;

	cn->thr_until = 0;
	cn->stalled = 0;
	if (!cn->msg)
		return;
	for (i = 0; i < cn->nstreams; i++)
		if (cn->st[i] != NULL && cn->st[i]->rq != NULL)
			strm_ring_add(cn, cn->st[i]);
}

static void
conn_throttled(struct conn *cn, uint64_t wait_us)
{
	uint64_t t = server_now_us() + wait_us;

	if (cn->thr_until == 0 || t < cn->thr_until)
		cn->thr_until = t;
	conn_timer_sync(cn);
}

static void
strm_resp_done(struct strm *s)
{
	struct resp *r = s->rq;

	s->rq = r->next;
	if (s->rq == NULL)
		s->rq_tail = &s->rq;
	s->nresp--;
	s->cn->pending--;
	log_done(r);
	resp_free(r);
	/* Pipelined requests waited for room in the queue. */
	if (s->in_len > 0 && !s->dead)
		strm_reparse(s);
}

/* Read no more from s: on SCTP its stream is reset once what it owes has gone and the
 * association goes on (the draft's stream error); on TCP (or without stream resets) the
 * connection closes after its responses. */
static void
strm_give_up(struct strm *s)
{
	int reset = s->cn->msg && s->cn->tc->ops->reset_stream != NULL;

	s->dead = 1;
	s->body_skip = 0; /* what follows is not read as content either */
	s->chunked = 0;
	if (s->body_cgi != NULL)
		cgi_refuse(s->body_cgi, 400);
	s->body_cgi = NULL;
	if (!reset)
		server_close_after(s, 0);
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
 * read no more from it. */
static void
strm_error_note(struct strm *s, int status, const char *raw, size_t rawlen, const char *note)
{
	int reset = s->cn->msg && s->cn->tc->ops->reset_stream != NULL;

	http_send_error(s, status, 1, !reset, raw, rawlen, note);
	strm_give_up(s);
}

static void
strm_error(struct strm *s, int status, const char *raw, size_t rawlen)
{
	strm_error_note(s, status, raw, rawlen, NULL);
}

/* Request content still to come on s (then no request is parsed). */
static int
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
	if (s->chunk_total > srv.cf.cgi_max_body) {
		if (s->body_cgi != NULL)
			cgi_refuse(s->body_cgi, 413);
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
	size_t off = 0;
	int rc;

	/* Request content is taken whatever the queue: a CGI program may wait for all of it
	 * before it answers. A stream that reads no more requests ("Connection: close",
	 * HTTP/1.0) still takes the content of the last one. */
	while (off < len && (strm_in_body(s) || (!s->dead && s->nresp < srv.cf.pipeline_max))) {
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
		req.max_line = srv.cf.max_line;
		req.max_head = srv.cf.max_head;
		rc = http_parse_request(buf + off, len - off, &req, SERVER_MAX_HEADERS);
		if (rc == -2) {
			if (s->head_since == 0) {
				s->head_since = server_now_us();
				conn_timer_sync(s->cn);
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
		http_handle(s, &req, &fr);
	}
	return s->dead ? len : off;
}

static int
strm_append(struct strm *s, const char *data, size_t len)
{
	/* A full head and a window of pipelined requests; beyond that the peer is flooding. */
	size_t limit = srv.cf.max_line + srv.cf.max_head + 2 * SERVER_RBUF;

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
static void
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
		s->cn->pending--;
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
 * transaction": TCP closes; SCTP resets the stream (RFC 6525) where both ends support it and
 * the rest of the association goes on; else the stream is given up and the association
 * closes once the other streams are done. Returns -1 when cn is gone.
 */
static int
strm_abort(struct strm *s)
{
	struct conn *cn = s->cn;

	if (!cn->msg) {
		conn_free(cn);
		return -1;
	}
	if (cn->ring_head == s)
		strm_ring_pop(cn);
	strm_forget(s);
	strm_reset_begin(s);
	return 0;
}

static void
strm_reset_begin(struct strm *s)
{
	s->dead = 1; /* what still comes on it belongs to the aborted transaction */
	s->reset_after = 0;
	s->reset_pending = 1;
	s->cn->resets++;
	strm_reset_try(s);
}

/* Ask for the reset; the stack may want the stream's queue drained first (Linux) or have a
 * request outstanding: the connection's timer asks again. */
static void
strm_reset_try(struct strm *s)
{
	struct conn *cn = s->cn;
	int rc = tp_reset_stream(cn->tc, s->id);

	if (rc == TP_RETRY) {
		cn->reset_retry_us = server_now_us() + SERVER_RESET_RETRY_US;
		conn_timer_sync(cn);
		return;
	}
	s->reset_pending = 0;
	cn->resets--;
	if (rc == TP_OK) {
		/* Asked; still dead until the stack tells that our incoming direction is reset:
		 * what the peer sent before it saw the request belongs to the aborted transaction. */
		s->reset_wait = 1;
		return;
	}
	/* No stream reset here: the draft's fallback, the stream is given up and the
	 * association closes once the transactions on the other streams are done. */
	conn_drain(cn, 0);
}

/* --- connections -------------------------------------------------------------------------- */

static void
conn_lru_unlink(struct conn *cn)
{
	if (cn->prev != NULL)
		cn->prev->next = cn->next;
	else
		srv.lru_head = cn->next;
	if (cn->next != NULL)
		cn->next->prev = cn->prev;
	else
		srv.lru_tail = cn->prev;
	cn->prev = cn->next = NULL;
}

static void
conn_lru_append(struct conn *cn)
{
	cn->prev = srv.lru_tail;
	cn->next = NULL;
	if (srv.lru_tail != NULL)
		srv.lru_tail->next = cn;
	else
		srv.lru_head = cn;
	srv.lru_tail = cn;
}

static void
conn_touch(struct conn *cn)
{
	cn->last_us = server_now_us();
	if (srv.lru_tail != cn) {
		conn_lru_unlink(cn);
		conn_lru_append(cn);
	}
}

static int
conn_has_output(const struct conn *cn)
{
	return cn->msg ? (cn->olen > 0 || cn->ring_head != NULL) : cn->pending > 0 && !cn->stalled;
}

static int
conn_idle(const struct conn *cn)
{
	uint16_t i;

	if (cn->pending > 0 || cn->olen > 0)
		return 0;
	for (i = 0; i < cn->nstreams; i++)
		if (cn->st[i] != NULL && cn->st[i]->head_since != 0)
			return 0;
	return 1;
}

static void
server_accept_resume(void)
{
	size_t i;

	if (srv.accepting || srv.graceful || srv.nconns >= srv.max_conns)
		return;
	for (i = 0; i < srv.nls; i++)
		tp_listener_watch(srv.ls[i], srv.loop, server_on_accept, NULL);
	srv.accepting = 1;
}

static void
conn_free(struct conn *cn)
{
	uint16_t i;

	if (cn == NULL)
		return;
	ev_timer_stop(srv.loop, &cn->timer);
	for (i = 0; i < cn->nstreams; i++)
		strm_free(cn->st[i]);
	free(cn->st);
	free(cn->obuf);
	if (cn->tc != NULL) /* safe inside its callback: tp delays it until it returns */
		tp_conn_free(cn->tc);
	conn_lru_unlink(cn);
	free(cn);
	srv.nconns--;
	if (srv.graceful && srv.nconns == 0)
		ev_stop(srv.loop);
	server_accept_resume();
}

/* A peer that stopped responding: a graceful shutdown would wait on it too (and usrsctp
 * keeps the process at exit for it), so the association goes with an ABORT. */
static void
conn_abort(struct conn *cn)
{
	struct tp_conn *tc = cn->tc;

	cn->tc = NULL;
	conn_free(cn);
	tp_conn_abort(tc);
}

/* The earliest moment the timer has something to do. */
static uint64_t
conn_deadline(const struct conn *cn)
{
	uint64_t d = cn->last_us + (uint64_t)srv.cf.idle_timeout_s * 1000000, t;
	uint16_t i;

	if (cn->lingering)
		return cn->linger_until;
	for (i = 0; i < cn->nstreams; i++)
		if (cn->st[i] != NULL && cn->st[i]->head_since != 0 &&
		    (t = cn->st[i]->head_since + (uint64_t)srv.cf.request_timeout_s * 1000000) < d)
			d = t;
	/* Only a drain period still to come: once past, it waits on the responses, and a
	 * deadline in the past would fire the timer again at once, for ever (a peer gone
	 * silent while SIGUSR1 drains: a busy loop until the idle limit). */
	if (cn->draining && cn->drain_until > server_now_us() && cn->drain_until < d)
		d = cn->drain_until;
	if (cn->thr_until != 0 && cn->thr_until < d)
		d = cn->thr_until;
	if (cn->resets > 0 && cn->reset_retry_us < d)
		d = cn->reset_retry_us;
	return d;
}

static void conn_timer_cb(struct ev_loop *loop, void *arg);

static void
conn_timer_arm(struct conn *cn, uint64_t when)
{
	uint64_t now = server_now_us();

	ev_timer_start(srv.loop, &cn->timer, when > now ? when - now : 0, conn_timer_cb, cn);
}

/* Something may now be due earlier than the timer is set for. */
static void
conn_timer_sync(struct conn *cn)
{
	uint64_t d = conn_deadline(cn);

	if (!ev_timer_armed(&cn->timer) || cn->timer.when_us > d)
		conn_timer_arm(cn, d);
}

static void
conn_timer_cb(struct ev_loop *loop, void *arg)
{
	struct conn *cn = arg;
	uint64_t now = ev_now_us(loop);
	uint16_t i;

	if (cn->lingering) {
		if (now >= cn->linger_until) {
			conn_free(cn);
			return;
		}
		conn_timer_arm(cn, cn->linger_until);
		return;
	}
	/* Slowloris: a head that does not complete in time is answered 408 and ends the stream. */
	for (i = 0; i < cn->nstreams; i++) {
		struct strm *s = cn->st[i];
		if (s != NULL && s->head_since != 0 &&
		    now - s->head_since >= (uint64_t)srv.cf.request_timeout_s * 1000000)
			strm_error(s, 408, s->in, s->in_len);
	}
	if (now - cn->last_us >= (uint64_t)srv.cf.idle_timeout_s * 1000000 && conn_idle(cn)) {
		conn_free(cn); /* idle: on SCTP nothing is outstanding, so SHUTDOWN at once */
		return;
	}
	if (now - cn->last_us >= (uint64_t)srv.cf.idle_timeout_s * 1000000 &&
	    (cn->pending > 0 || cn->olen > 0)) {
		conn_abort(cn); /* the peer stopped reading, or vanished */
		return;
	}
	if (cn->thr_until != 0 && now >= cn->thr_until)
		conn_unthrottle(cn);
	for (i = 0; cn->resets > 0 && now >= cn->reset_retry_us && i < cn->nstreams; i++)
		if (cn->st[i] != NULL && cn->st[i]->reset_pending)
			strm_reset_try(cn->st[i]);
	if (conn_write(cn) == -1 || conn_check(cn) == -1)
		return;
	conn_rewatch(cn);
	conn_timer_arm(cn, conn_deadline(cn));
}

/* After the responses: close, or on TCP shut our side and wait for the peer's FIN, so that a
 * reset (unread pipelined data at close) cannot destroy the responses in flight. */
static int
conn_check(struct conn *cn)
{
	uint64_t now = server_now_us();

	if (cn->lingering)
		return 0;
	if (!cn->msg) {
		if (cn->pending > 0)
			return 0;
		if (cn->eof) {
			conn_free(cn);
			return -1;
		}
		if (cn->draining) {
			if (cn->tc->fd == -1 || srv.cf.linger_s == 0 ||
			    shutdown(cn->tc->fd, SHUT_WR) == -1) {
				conn_free(cn);
				return -1;
			}
			cn->lingering = 1;
			cn->linger_until = now + (uint64_t)srv.cf.linger_s * 1000000;
			ev_timer_stop(srv.loop, &cn->timer);
			conn_timer_arm(cn, cn->linger_until);
		}
		return 0;
	}
	if (cn->draining && cn->pending == 0 && cn->olen == 0 && now >= cn->drain_until) {
		conn_free(cn);
		return -1;
	}
	return 0;
}

static void
conn_rewatch(struct conn *cn)
{
	unsigned want = cn->eof ? 0 : EV_READ;

	if (!cn->msg && !cn->lingering && cn->st[0] != NULL &&
	    cn->st[0]->nresp >= srv.cf.pipeline_max && !strm_in_body(cn->st[0]))
		want = 0; /* TCP back-pressure; SCTP must read on: one window for all streams */
	if (!cn->lingering && conn_has_output(cn))
		want |= EV_WRITE;
	if (want != cn->want) {
		cn->want = want;
		/* tp_watch, not tp_rewatch: after a watch of nothing the conn has no loop left. */
		tp_watch(cn->tc, srv.loop, want, conn_ev, cn);
	}
}

/* A response whose body is produced as it goes (CGI) and has nothing more yet. */
static int
resp_waiting(const struct resp *r)
{
	return r->cgi != NULL && !cgi_finished(r->cgi);
}

/* It ended before its promised end (a CGI program killed or dead after its head). */
static int
resp_aborted(const struct resp *r)
{
	return r->cgi != NULL && cgi_aborted(r->cgi);
}

/* TCP: head, then the file by sendfile (or read and send), one response after the other. */
static int
conn_write_stream(struct conn *cn)
{
	struct strm *s = cn->st[0];
	struct resp *r;
	int rounds = 0, rc;

	cn->stalled = 0;
	while (s != NULL && (r = s->rq) != NULL) {
		size_t sent = 0;
		if (++rounds > SERVER_WRITE_ROUNDS)
			return 0;
		if (r->off < r->len) {
			rc = tp_send(cn->tc, r->buf + r->off, r->len - r->off, NULL, &sent);
			if (rc == TP_OK) {
				r->off += sent;
				if (r->cgi != NULL)
					cgi_drained(r->cgi);
			}
		} else if (r->fd != -1 && r->foff < r->fend) {
			size_t want = (size_t)(r->fend - r->foff);
			if (want > SERVER_SENDFILE_MAX)
				want = SERVER_SENDFILE_MAX;
			if (r->nthr > 0) {
				uint64_t wait;
				if ((want = throttle_allow(r, want, server_now_us(), &wait)) == 0) {
					cn->stalled = 1;
					conn_throttled(cn, wait);
					return 0;
				}
			}
			if (cn->use_sendfile) {
				rc = tp_sendfile(cn->tc, r->fd, &r->foff, want, &sent);
			} else {
				ssize_t n;
				if (want > sizeof(srv.rbuf))
					want = sizeof(srv.rbuf);
				n = pread(r->fd, srv.rbuf, want, r->foff);
				if (n <= 0) {
					conn_free(cn);
					return -1;
				}
				rc = tp_send(cn->tc, srv.rbuf, (size_t)n, NULL, &sent);
				if (rc == TP_OK)
					r->foff += (off_t)sent;
			}
			if (rc == TP_OK && sent == 0) {
				conn_free(cn); /* the file shrank: the promised length cannot be kept */
				return -1;
			}
			throttle_take(r, sent);
			r->body_sent += sent;
		} else if (resp_aborted(r)) {
			/* What went out is all there is: closing tells the client it is incomplete. */
			conn_free(cn);
			return -1;
		} else if (resp_waiting(r)) {
			cn->stalled = 1;
			return 0;
		} else {
			strm_resp_done(s);
			continue;
		}
		if (rc == TP_RETRY)
			return 0;
		if (rc != TP_OK) {
			conn_free(cn);
			return -1;
		}
		cn->last_us = server_now_us();
	}
	return 0;
}

/*
 * The next user message of stream s: the rest of its current response, at most msg_size
 * bytes, head and body together. A new response starts a new message (the draft's SHOULD).
 * 0: a message is in obuf (or the response is done); 1: nothing to send on s now (a throttle
 * or a CGI program holds it); -1: the response cannot be completed.
 */
static int
conn_build(struct conn *cn, struct strm *s)
{
	struct resp *r = s->rq;
	size_t cap = srv.cf.msg_size, n;

	cn->olen = 0;
	cn->ostrm = s;
	if (r->off < r->len) {
		n = r->len - r->off < cap ? r->len - r->off : cap;
		memcpy(cn->obuf, r->buf + r->off, n);
		r->off += n;
		cn->olen = n;
		if (r->cgi != NULL)
			cgi_drained(r->cgi);
	}
	if (r->fd != -1 && r->foff < r->fend && cn->olen < cap) {
		size_t want = cap - cn->olen;
		ssize_t got;
		if ((off_t)want > r->fend - r->foff)
			want = (size_t)(r->fend - r->foff);
		if (r->nthr > 0) {
			uint64_t wait;
			want = throttle_allow(r, want, server_now_us(), &wait);
			if (want == 0) {
				conn_throttled(cn, wait);
				return cn->olen > 0 ? 0 : 1;
			}
		}
		if (r->mm != NULL)
			got = mmc_copy(r->mm, cn->obuf + cn->olen, r->foff, want) == 0 ?
			    (ssize_t)want : -1;
		else
			got = pread(r->fd, cn->obuf + cn->olen, want, r->foff);
		if (got <= 0)
			return -1; /* the file shrank: the promised length cannot be kept */
		throttle_take(r, (size_t)got);
		r->foff += got;
		r->body_sent += (uint64_t)got;
		cn->olen += (size_t)got;
	}
	if (r->off >= r->len && (r->fd == -1 || r->foff >= r->fend)) {
		if (resp_aborted(r))
			return cn->olen > 0 ? 0 : -1;
		if (resp_waiting(r))
			return cn->olen > 0 ? 0 : 1;
		strm_resp_done(s);
	}
	return 0;
}

/* The ring's head stream has nothing to send now: out of the ring until it has. */
static void
strm_ring_pop(struct conn *cn)
{
	struct strm *s = cn->ring_head;

	cn->ring_head = s->out_next;
	if (cn->ring_head == NULL)
		cn->ring_tail = NULL;
	s->in_ring = 0;
	s->out_next = NULL;
}

/* Message transports: one message per stream with output, in turn (round-robin). */
static int
conn_write_msg(struct conn *cn)
{
	struct tp_msginfo mi;
	struct strm *s;
	int rounds = 0, rc;

	for (;;) {
		if (cn->olen == 0) {
			if (cn->ring_head == NULL)
				return 0;
			if (++rounds > SERVER_WRITE_ROUNDS)
				return 0;
			rc = conn_build(cn, cn->ring_head);
			if (rc == 1) {
				strm_ring_pop(cn);
				continue;
			}
			if (rc == -1) {
				if (strm_abort(cn->ring_head) == -1)
					return -1;
				continue;
			}
			if (cn->olen == 0) {
				strm_ring_next(cn); /* a response with nothing left ended */
				continue;
			}
		}
		memset(&mi, 0, sizeof(mi));
		mi.stream = cn->ostrm->id;
		mi.ppid = SERVER_PPID_HTTP;
		rc = tp_send(cn->tc, cn->obuf, cn->olen, &mi, NULL);
		if (rc == TP_RETRY)
			return 0;
		if (rc != TP_OK) {
			conn_free(cn);
			return -1;
		}
		cn->olen = 0;
		cn->last_us = server_now_us();
		s = cn->ostrm;
		strm_ring_next(cn);
		if (s->reset_after && s->rq == NULL)
			strm_reset_begin(s); /* its error response is with the stack now */
	}
}

static int
conn_write(struct conn *cn)
{
	if (cn->lingering)
		return 0;
	return cn->msg ? conn_write_msg(cn) : conn_write_stream(cn);
}

static struct strm *
conn_strm(struct conn *cn, uint16_t id)
{
	if (cn->st[id] == NULL)
		cn->st[id] = strm_new(cn, id);
	return cn->st[id];
}

/* Returns -1 when cn is gone. */
static int
conn_read(struct conn *cn)
{
	int rounds, rc;

	for (rounds = 0; rounds < 16 && !cn->eof; rounds++) {
		struct tp_msginfo mi;
		struct strm *s;
		size_t got = 0;

		if (!cn->msg && !cn->lingering && cn->st[0] != NULL &&
		    cn->st[0]->nresp >= srv.cf.pipeline_max && !strm_in_body(cn->st[0]))
			return 0;
		rc = tp_recv(cn->tc, srv.rbuf, sizeof(srv.rbuf), &mi, &got);
		if (rc == TP_RETRY)
			return 0;
		if (rc == TP_EOF && !cn->msg && !cn->lingering && cn->pending > 0) {
			cn->eof = 1; /* half-closed: the answers still go out */
			s = cn->st[0];
			if (s != NULL && strm_in_body(s)) {
				/* but content cut short: its program goes (it holds a process) */
				if (s->body_cgi != NULL)
					cgi_refuse(s->body_cgi, 400);
				s->body_cgi = NULL;
				s->body_skip = 0;
				s->chunked = 0;
			}
			return 0;
		}
		if (rc != TP_OK) {
			/* SCTP EOF: after SHUTDOWN nothing more can be sent; TCP: nothing owed. */
			conn_free(cn);
			return -1;
		}
		conn_touch(cn);
		if (cn->lingering || got == 0)
			continue;
		if (!cn->msg) {
			if ((s = conn_strm(cn, 0)) == NULL) {
				conn_free(cn);
				return -1;
			}
			strm_input(s, srv.rbuf, got);
			continue;
		}
		/* The draft: data on a stream we cannot answer on is an association error. */
		if (mi.stream >= cn->nstreams) {
			conn_free(cn);
			return -1;
		}
		if ((s = conn_strm(cn, mi.stream)) == NULL) {
			conn_free(cn);
			return -1;
		}
		if ((mi.ppid != SERVER_PPID_HTTP && !(srv.cf.ppid0 && mi.ppid == 0)) ||
		    (mi.flags & TP_F_UNORDERED)) {
			/* A stream error: not HTTP, or out of order. What it was, and for PPID 0
			 * (what generic SCTP tools send) the option that takes it, go in the
			 * answer and in the log's request field. */
			char why[160];
			if (s->dead)
				continue;
			if (mi.flags & TP_F_UNORDERED)
				snprintf(why, sizeof(why), "unordered SCTP data on stream %u: HTTP "
				    "needs ordered delivery", (unsigned)mi.stream);
			else
				snprintf(why, sizeof(why), "SCTP data with PPID %lu on stream %u: HTTP "
				    "is PPID 63%s", (unsigned long)mi.ppid, (unsigned)mi.stream,
				    mi.ppid == 0 ? "; sctphttpd --accept-ppid0 takes PPID 0 too" : "");
			strm_error_note(s, 400, why, strlen(why), why);
			continue;
		}
		strm_input(s, srv.rbuf, got);
	}
	return 0;
}

static void
conn_ev(struct tp_conn *tc, unsigned events, void *arg)
{
	struct conn *cn = arg;

	(void)tc;
	if ((events & (EV_READ | EV_ERROR)) && conn_read(cn) == -1)
		return;
	if (conn_write(cn) == -1 || conn_check(cn) == -1)
		return;
	conn_rewatch(cn);
}

static void
conn_peer_addr(struct conn *cn, const char *peer)
{
	const char *p = peer, *end;
	size_t n;

	if (*p == '[') {
		p++;
		end = strchr(p, ']');
		if (strncmp(p, "::ffff:", 7) == 0 && strchr(p + 7, '.') != NULL)
			p += 7;
	} else {
		end = strrchr(p, ':');
	}
	n = end != NULL ? (size_t)(end - p) : strlen(p);
	if (n >= sizeof(cn->peer))
		n = sizeof(cn->peer) - 1;
	memcpy(cn->peer, p, n);
	cn->peer[n] = '\0';
	if (n == 0)
		snprintf(cn->peer, sizeof(cn->peer), "-");
}

/*
 * The stack's events. Only stream resets matter here: "stream reset incoming: 3 5" ends the
 * wait of those streams (they start afresh); a reset denied or failed gives them up, and the
 * association closes once the others are done (the draft's fallback).
 */
static void
conn_note(struct tp_conn *tc, const char *what, void *arg)
{
	struct conn *cn = arg;
	const char *p;
	char *end;
	int bad;

	(void)tc;
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
		if (id >= cn->nstreams || (s = cn->st[id]) == NULL || !s->reset_wait)
			continue;
		s->reset_wait = 0;
		strm_forget(s);
		if (bad) {
			conn_drain(cn, 0);
			continue;
		}
		s->dead = 0; /* the next request on it starts afresh */
	}
}

static int
conn_new(struct tp_conn *tc)
{
	struct conn *cn = calloc(1, sizeof(*cn));
	unsigned n;

	if (cn == NULL)
		goto bad;
	cn->tc = tc;
	cn->msg = (tc->ops->caps & TP_CAP_MSG) != 0;
	n = 1;
	if (cn->msg) {
		n = tc->streams_in < tc->streams_out ? tc->streams_in : tc->streams_out;
		if (n > srv.cf.streams)
			n = srv.cf.streams;
		if (n == 0)
			n = 1;
		if ((cn->obuf = malloc(srv.cf.msg_size)) == NULL)
			goto bad;
	}
	cn->nstreams = (uint16_t)n;
	if ((cn->st = calloc(n, sizeof(*cn->st))) == NULL)
		goto bad;
	cn->use_sendfile = srv.cf.sendfile && tc->ops->sendfile != NULL;
	conn_peer_addr(cn, tc->peer);
	cn->want = EV_READ;
	if (cn->msg)
		tp_set_notify(tc, conn_note, cn);
	if (tp_watch(tc, srv.loop, EV_READ, conn_ev, cn) != TP_OK)
		goto bad;
	cn->last_us = server_now_us();
	conn_lru_append(cn);
	srv.nconns++;
	conn_timer_arm(cn, conn_deadline(cn));
	return 0;
bad:
	tp_conn_free(tc);
	if (cn != NULL) {
		free(cn->st);
		free(cn->obuf);
		free(cn);
	}
	return -1;
}

/* At the limit, the least recently active idle connection makes room for a new client. */
static int
server_evict_idle(void)
{
	struct conn *cn;
	int looked = 0;

	for (cn = srv.lru_head; cn != NULL && looked < 256; cn = cn->next, looked++) {
		if (conn_idle(cn) && !cn->lingering) {
			conn_free(cn);
			return 1;
		}
	}
	return 0;
}

static void
server_accept_pause(void)
{
	size_t i;

	if (!srv.accepting)
		return;
	for (i = 0; i < srv.nls; i++)
		tp_listener_watch(srv.ls[i], srv.loop, NULL, NULL);
	srv.accepting = 0;
}

static void
server_on_accept(struct tp_listener *l, void *arg)
{
	struct tp_conn *tc;
	int rounds, rc;

	(void)arg;
	for (rounds = 0; rounds < 64 && srv.accepting; rounds++) {
		if (srv.nconns >= srv.max_conns && !server_evict_idle()) {
			server_accept_pause();
			return;
		}
		rc = tp_accept(l, &tc);
		if (rc == TP_RETRY)
			return;
		if (rc != TP_OK) {
			/* Out of descriptors: free one if any is idle, else wait for the tick. */
			if (!server_evict_idle())
				server_accept_pause();
			return;
		}
		conn_new(tc);
	}
}

/* --- process ------------------------------------------------------------------------------ */

static void
server_stop_accepting(void)
{
	size_t i;

	server_accept_pause();
	for (i = 0; i < srv.nls; i++)
		tp_listener_free(srv.ls[i]);
	srv.nls = 0;
}

static void
server_graceful(void)
{
	struct conn *cn, *next;

	srv.graceful = 1;
	server_stop_accepting();
	for (cn = srv.lru_head; cn != NULL; cn = next) {
		next = cn->next;
		/* Nothing in flight: close now, without the drain period. */
		conn_drain(cn, cn->pending == 0 && cn->olen == 0);
		if (conn_check(cn) == 0)
			conn_rewatch(cn);
	}
	if (srv.nconns == 0)
		ev_stop(srv.loop);
}

/* SIGUSR2, as thttpd's: a line of statistics; unused mappings go at once. */
static void
server_stats(void)
{
	uint64_t bytes;
	unsigned files;

	mmc_expire(0);
	mmc_stats(&bytes, &files);
	fprintf(stderr, "sctphttpd: %ld connections and associations, mmap cache %u files "
	    "%llu bytes\n", srv.nconns, files, (unsigned long long)bytes);
}

static void
server_signal(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct signalfd_siginfo si;

	(void)events;
	(void)arg;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			ev_stop(loop);
			return;
		case SIGUSR1:
			server_graceful();
			break;
		case SIGCHLD:
			cgi_reap();
			break;
		case SIGUSR2:
			server_stats();
			break;
		case SIGHUP:
			if (log_reopen() == -1)
				fprintf(stderr, "sctphttpd: reopening the log failed: %s\n",
				    strerror(errno));
			break;
		}
	}
}

static void
server_tick(struct ev_loop *loop, void *arg)
{
	(void)arg;
	log_flush();
	mmc_expire(SERVER_MMC_AGE_US);
	server_accept_resume();
	ev_timer_start(loop, &srv.tick, 1000000, server_tick, NULL);
}

static int
server_listen_one(const char *type, const char *addr, char *err, size_t errlen)
{
	struct tp_listener **nl, *l;
	struct tp_opts o;
	char **ns;

	tp_opts_init(&o);
	o.streams = (uint16_t)srv.cf.streams; /* the draft's limit L, as MIS and OS */
	o.nodelay = 1;
	o.backlog = 4096;
	o.udp_port = srv.cf.udp_port;
	o.udp_remote_port = srv.cf.udp_remote_port;
	o.reuseport = srv.cf.workers > 1;
	o.sctp_interleave = srv.cf.interleave;
	if ((l = tp_listen(type, addr, &o, err, errlen)) == NULL)
		return -1;
	if ((nl = realloc(srv.ls, (srv.nls + 1) * sizeof(*nl))) != NULL)
		srv.ls = nl;
	if ((ns = realloc(srv.lspec, (srv.nlspec + 1) * sizeof(*ns))) != NULL)
		srv.lspec = ns;
	if (nl == NULL || ns == NULL || asprintf(&srv.lspec[srv.nlspec], "%s %s", type, addr) == -1) {
		tp_listener_free(l);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	srv.nlspec++;
	srv.ls[srv.nls++] = l;
	fprintf(stderr, "sctphttpd: listening on %s %s\n", type, l->local);
	return 0;
}

/*
 * --workers: worker 0 serves on the sockets it inherited; every other worker binds its own
 * on the same addresses and (now known) ports, SO_REUSEPORT joining them into one group.
 * The inherited copies go: only the master and worker 0 keep the first sockets open.
 */
static int
server_listen_again(char *err, size_t errlen)
{
	struct tp_listener *l;
	struct tp_opts o;
	size_t i;

	tp_opts_init(&o);
	o.streams = (uint16_t)srv.cf.streams;
	o.nodelay = 1;
	o.backlog = 4096;
	o.reuseport = 1;
	o.sctp_interleave = srv.cf.interleave;
	for (i = 0; i < srv.nls; i++) {
		char spec[400], *sp = strchr(srv.lspec[i], ' '), *colon;
		const char *port = strrchr(srv.ls[i]->local, ':');
		if (sp == NULL || port == NULL)
			continue;
		*sp = '\0';
		snprintf(spec, sizeof(spec), "%s", sp + 1);
		if ((colon = strrchr(spec, ':')) != NULL)
			snprintf(colon, sizeof(spec) - (size_t)(colon - spec), "%s", port);
		l = tp_listen(srv.lspec[i], spec, &o, err, errlen);
		*sp = ' ';
		if (l == NULL)
			return -1;
		tp_listener_free(srv.ls[i]);
		srv.ls[i] = l;
	}
	return 0;
}

/* In the process that serves (after --workers forked): the listeners on its loop. */
static int
server_watch_all(char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < srv.nls; i++)
		if (tp_listener_watch(srv.ls[i], srv.loop, server_on_accept, NULL) != TP_OK) {
			snprintf(err, errlen, "%s %s: %s", srv.ls[i]->ops->name, srv.ls[i]->local,
			    srv.ls[i]->err);
			return -1;
		}
	srv.accepting = 1;
	return 0;
}

/* Workers share listening sockets by inheriting them: a kernel socket can be shared, one
 * usrsctp stack (threads) or one one-to-many socket (one receive queue) cannot. */
static int
server_workers_check(char *err, size_t errlen)
{
	size_t i;

	if (srv.cf.workers <= 1)
		return 0;
	for (i = 0; i < srv.cf.nlistens; i++)
		if (strcmp(srv.cf.listens[i].type, "usrsctp") == 0 ||
		    strcmp(srv.cf.listens[i].type, "sctp1m") == 0) {
			snprintf(err, errlen, "--workers %u: %s listens in one process only (%s)",
			    srv.cf.workers, srv.cf.listens[i].type,
			    srv.cf.listens[i].type[0] == 'u' ? "its stack's threads do not fork" :
			    "one socket, one receive queue for all associations");
			return -1;
		}
	return 0;
}

static int
server_listen_all(char *err, size_t errlen)
{
	char addr[300];
	size_t i;

	if (srv.cf.port >= 0) {
		const char *h = srv.cf.host;
		if (h == NULL) {
			/* [::] takes IPv4 too (mapped) where the host allows it; else IPv4 only. */
			snprintf(addr, sizeof(addr), "[::]:%d", srv.cf.port);
			if (server_listen_one("tcp", addr, err, errlen) == -1) {
				snprintf(addr, sizeof(addr), "0.0.0.0:%d", srv.cf.port);
				if (server_listen_one("tcp", addr, err, errlen) == -1)
					return -1;
			}
		} else {
			if (strchr(h, ':') != NULL && h[0] != '[')
				snprintf(addr, sizeof(addr), "[%s]:%d", h, srv.cf.port);
			else
				snprintf(addr, sizeof(addr), "%s:%d", h, srv.cf.port);
			if (server_listen_one("tcp", addr, err, errlen) == -1)
				return -1;
		}
	}
	for (i = 0; i < srv.cf.nlistens; i++)
		if (server_listen_one(srv.cf.listens[i].type, srv.cf.listens[i].addr, err,
		    errlen) == -1)
			return -1;
	return 0;
}

/* After binding (ports below 1024) and opening the root and the log: chroot, then the user. */
static int
server_drop_privileges(char *err, size_t errlen)
{
	struct passwd *pw = NULL;
	uid_t uid;
	gid_t gid;

	if (srv.cf.user != NULL) {
		if ((pw = getpwnam(srv.cf.user)) == NULL) {
			snprintf(err, errlen, "unknown user %s", srv.cf.user);
			return -1;
		}
	}
	if (srv.cf.chroot) {
		if (chroot(srv.cf.dir) == -1 || chdir("/") == -1) {
			snprintf(err, errlen, "chroot %s: %s", srv.cf.dir, strerror(errno));
			return -1;
		}
		srv.chrooted = 1;
		file_root_chrooted();
	}
	if (pw == NULL)
		return 0;
	uid = pw->pw_uid;
	gid = pw->pw_gid;
	if (setgroups(1, &gid) == -1 || setgid(gid) == -1 || setuid(uid) == -1) {
		snprintf(err, errlen, "dropping privileges to %s: %s", srv.cf.user, strerror(errno));
		return -1;
	}
	/* Verify: a process that can become root again has dropped nothing. */
	if (uid != 0 && (setuid(0) != -1 || getuid() != uid || geteuid() != uid ||
	    getgid() != gid || getegid() != gid)) {
		snprintf(err, errlen, "privileges to %s not dropped", srv.cf.user);
		return -1;
	}
	return 0;
}

static void
server_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGUSR2);
}

static int
server_signals(char *err, size_t errlen)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN); /* sendfile(2) to a reset peer would raise it */
	server_sigset(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1 ||
	    (srv.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) == -1 ||
	    ev_fd_set(srv.loop, srv.sigfd, EV_READ, server_signal, NULL) == -1) {
		snprintf(err, errlen, "signals: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Idle connections are cheap, descriptors are the limit: take all the hard limit allows. */
static void
server_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (srv.cf.max_conns > 0)
		srv.max_conns = srv.cf.max_conns;
	else if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur > 256)
		srv.max_conns = (long)rl.rlim_cur - 128; /* room for files being sent, the log */
	else
		srv.max_conns = 128;
}

/* --daemon: fork before any listener (usrsctp's threads do not survive a fork); the parent
 * waits for the child's verdict on its set-up, so that errors still reach the terminal. */
static int
server_daemon(int *ready_fd)
{
	int p[2];
	char msg[512];
	ssize_t n;
	pid_t pid;

	if (pipe(p) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid > 0) {
		close(p[1]);
		n = read(p[0], msg, sizeof(msg) - 1);
		if (n > 0) {
			msg[n] = '\0';
			fprintf(stderr, "sctphttpd: %s\n", msg);
			_exit(1);
		}
		_exit(0);
	}
	close(p[0]);
	setsid();
	*ready_fd = p[1];
	return 0;
}

static int
server_pidfile(char *err, size_t errlen)
{
	FILE *f;

	if (srv.cf.pidfile == NULL)
		return 0;
	if ((f = fopen(srv.cf.pidfile, "we")) == NULL) {
		snprintf(err, errlen, "%s: %s", srv.cf.pidfile, strerror(errno));
		return -1;
	}
	fprintf(f, "%ld\n", (long)getpid());
	fclose(f);
	return 0;
}

int
main(int argc, char **argv)
{
	char err[512] = "";
	int rc, ready_fd = -1, status = 1;
	unsigned worker = 0;
	struct conn *cn;
	sigset_t sigs;

	config_init(&srv.cf);
	rc = config_parse(&srv.cf, argc, argv, err, sizeof(err));
	if (rc == 1) {
		config_usage(stdout);
		config_free(&srv.cf);
		return 0;
	}
	if (rc == 2) {
		printf("%s\n", SERVER_SOFTWARE);
		config_free(&srv.cf);
		return 0;
	}
	if (rc == -1) {
		fprintf(stderr, "sctphttpd: %s (see --help)\n", err);
		config_free(&srv.cf);
		return 2;
	}
	server_nofile();
	/* Blocked before any thread exists (usrsctp's start with the first listener): a
	 * thread with them unblocked would take TERM or USR1 with the default action. */
	server_sigset(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if (srv.cf.daemon && server_daemon(&ready_fd) == -1) {
		snprintf(err, sizeof(err), "fork: %s", strerror(errno));
		goto bad;
	}
	mmc_init(srv.cf.mmap_max);
	if (server_workers_check(err, sizeof(err)) == -1 ||
	    (srv.cf.throttles != NULL && throttle_load(srv.cf.throttles, err, sizeof(err)) == -1) ||
	    file_root_open(srv.cf.dir, err, sizeof(err)) == -1 ||
	    log_open(srv.cf.logfile, srv.cf.log_combined, err, sizeof(err)) == -1 ||
	    server_listen_all(err, sizeof(err)) == -1 ||
	    server_pidfile(err, sizeof(err)) == -1 ||
	    server_drop_privileges(err, sizeof(err)) == -1)
		goto bad;
	if (srv.cf.workers > 1) {
		/* The master: set up is done (errors above still reach the terminal); it only
		 * forwards signals. Its copies of the listeners go, the workers hold theirs. */
		log_shared(); /* several writers: whole lines per write */
		if ((rc = workers_run(srv.cf.workers, &sigs, &worker)) != -2) {
			if (ready_fd != -1)
				close(ready_fd);
			ready_fd = -1;
			srv.is_master = 1;
			status = rc;
			goto out;
		}
		/* A worker keeps them blocked: its signalfd takes what is pending already. */
		if (ready_fd != -1)
			close(ready_fd);
		ready_fd = -1;
		if (worker > 0 && server_listen_again(err, sizeof(err)) == -1)
			goto bad;
	}
	if ((srv.loop = ev_new(err, sizeof(err))) == NULL ||
	    server_signals(err, sizeof(err)) == -1 ||
	    server_watch_all(err, sizeof(err)) == -1)
		goto bad;
	ev_timer_start(srv.loop, &srv.tick, 1000000, server_tick, NULL);
	if (ready_fd != -1) {
		int dn = open("/dev/null", O_RDWR);
		if (dn != -1) {
			dup2(dn, 0);
			if (srv.cf.logfile == NULL || strcmp(srv.cf.logfile, "-") != 0)
				dup2(dn, 1);
			dup2(dn, 2);
			if (dn > 2)
				close(dn);
		}
		close(ready_fd);
		ready_fd = -1;
	}
	if (ev_run(srv.loop) == -1) {
		snprintf(err, sizeof(err), "event loop: %s", strerror(errno));
		goto bad;
	}
	status = 0;
bad:
	if (status != 0) {
		if (ready_fd != -1) {
			if (write(ready_fd, err, strlen(err)) < 0)
				status = 1;
		} else {
			fprintf(stderr, "sctphttpd: %s\n", err);
		}
	}
out:
	if (ready_fd != -1)
		close(ready_fd);
	srv.graceful = 1; /* no listener comes back while the connections go */
	while ((cn = srv.lru_head) != NULL) {
		if (cn->pending > 0 || cn->olen > 0)
			conn_abort(cn); /* what it still owes will never go */
		else
			conn_free(cn);
	}
	server_stop_accepting();
	free(srv.ls);
	while (srv.nlspec > 0)
		free(srv.lspec[--srv.nlspec]);
	free(srv.lspec);
	if (srv.loop != NULL)
		ev_timer_stop(srv.loop, &srv.tick);
	if (srv.sigfd != -1) {
		ev_fd_del(srv.loop, srv.sigfd);
		close(srv.sigfd);
	}
	log_close();
	throttle_free_all();
	mmc_free_all();
	file_root_close();
	if (srv.cf.pidfile != NULL && !srv.chrooted && (status == 0 || srv.is_master) &&
	    (srv.is_master || srv.cf.workers <= 1))
		unlink(srv.cf.pidfile);
	if (srv.loop != NULL)
		ev_free(srv.loop);
	config_free(&srv.cf);
	return status;
}
