/* conn.c: connections and associations, one concern (a connection's life from accept to close):
 * accepting (an idle one makes room at the limit), the LRU, timers (idle, request head, drain,
 * linger, throttle, reset retry), reading, and writing: TCP one response after the other, SCTP
 * one user message per stream in turn. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "conn.h"
#include "ev.h"
#include "httpd.h"
#include "resp.h"
#include "strm.h"
#include "tlsio.h"
#include "tp.h"

#define SERVER_WRITE_ROUNDS 64          /* sends per event before other connections get a turn */
#define SERVER_DRAIN_US 1000000         /* the draft's drain period D, at least 1 s */

/*
 * One connection or association. TCP has one stream; a message transport (SCTP) has N, each
 * its own HTTP byte stream, and sends from its streams in turn, one user message each.
 */
struct conn {
	struct strm_set ss;         /* first: its streams' calls find the conn from it */
	struct conn *prev, *next;   /* all connections, least recently active first */
	int use_sendfile;
	char *obuf;                 /* one built user message that waits for room */
	size_t olen;
	struct strm *ostrm;
	struct ev_timer timer;
	uint64_t last_us;           /* last progress either way */
	uint64_t drain_until;
	uint64_t linger_until;
	int eof;                    /* the peer ended its data (TCP FIN) */
	int lingering;              /* TCP: our side shut after the last response, awaiting FIN */
	int stalled;                /* TCP: the response at the head has nothing to send now */
	uint64_t thr_until;         /* a throttle holds some output back until then, 0 = none */
	unsigned want;
	struct tlsio *tls;          /* https: a TLS session per stream (tlsio.c), or NULL */
};

static struct {
	struct tp_listener **ls;
	size_t nls;
	int accepting;
	struct conn *lru_head, *lru_tail;
	long nconns, max_conns;
	char rbuf[SERVER_RBUF];
} conns;

static void conn_free(struct conn *cn);
static int conn_write(struct conn *cn);
static int conn_check(struct conn *cn);
static void conn_rewatch(struct conn *cn);
static void conn_timer_sync(struct conn *cn);
static void conn_on_accept(struct tp_listener *l, void *arg);
static void conn_ev(struct tp_conn *tc, unsigned events, void *arg);
static void conn_timer_cb(struct ev_loop *loop, void *arg);
static int conn_tls_fail(struct conn *cn, struct strm *s);

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
	if (!cn->ss.msg && cn->ss.st[0] != NULL)
		cn->ss.st[0]->dead = 1;
	if (!cn->ss.draining) {
		cn->ss.draining = 1;
		cn->drain_until = (cn->ss.msg && !request_asked) ? httpd_now_us() + SERVER_DRAIN_US : 0;
		conn_timer_sync(cn);
	}
}

/* A throttle's wait is over: every stream with output competes again. */
static void
conn_unthrottle(struct conn *cn)
{
	uint16_t i;

	cn->thr_until = 0;
	cn->stalled = 0;
	if (!cn->ss.msg)
		return;
	for (i = 0; i < cn->ss.nstreams; i++)
		if (cn->ss.st[i] != NULL && cn->ss.st[i]->rq != NULL)
			strm_ring_add(&cn->ss, cn->ss.st[i]);
}

static void
conn_throttled(struct conn *cn, uint64_t wait_us)
{
	uint64_t t = httpd_now_us() + wait_us;

	if (cn->thr_until == 0 || t < cn->thr_until)
		cn->thr_until = t;
	conn_timer_sync(cn);
}

static void
conn_lru_unlink(struct conn *cn)
{
	if (cn->prev != NULL)
		cn->prev->next = cn->next;
	else
		conns.lru_head = cn->next;
	if (cn->next != NULL)
		cn->next->prev = cn->prev;
	else
		conns.lru_tail = cn->prev;
	cn->prev = cn->next = NULL;
}

static void
conn_lru_append(struct conn *cn)
{
	cn->prev = conns.lru_tail;
	cn->next = NULL;
	if (conns.lru_tail != NULL)
		conns.lru_tail->next = cn;
	else
		conns.lru_head = cn;
	conns.lru_tail = cn;
}

static void
conn_touch(struct conn *cn)
{
	cn->last_us = httpd_now_us();
	if (conns.lru_tail != cn) {
		conn_lru_unlink(cn);
		conn_lru_append(cn);
	}
}

static int
conn_has_output(const struct conn *cn)
{
	if (cn->tls != NULL && tlsio_pending(cn->tls))
		return 1;
	if (cn->ss.msg)
		return cn->olen > 0 || cn->ss.ring_head != NULL;
	return cn->ss.pending > 0 && !cn->stalled;
}

static int
conn_idle(const struct conn *cn)
{
	uint16_t i;

	if (cn->ss.pending > 0 || cn->olen > 0)
		return 0;
	for (i = 0; i < cn->ss.nstreams; i++)
		if (cn->ss.st[i] != NULL && cn->ss.st[i]->head_since != 0)
			return 0;
	return 1;
}

void
conn_accept_resume(void)
{
	size_t i;

	if (conns.accepting || httpd_stopping() || conns.nconns >= conns.max_conns)
		return;
	for (i = 0; i < conns.nls; i++)
		tp_listener_watch(conns.ls[i], httpd_loop(), conn_on_accept, NULL);
	conns.accepting = 1;
}

static void
conn_free(struct conn *cn)
{
	uint16_t i;

	if (cn == NULL)
		return;
	ev_timer_stop(httpd_loop(), &cn->timer);
	for (i = 0; i < cn->ss.nstreams; i++)
		strm_free(cn->ss.st[i]);
	free(cn->ss.st);
	free(cn->obuf);
	tlsio_free(cn->tls);
	if (cn->ss.tc != NULL) /* safe inside its callback: tp delays it until it returns */
		tp_conn_free(cn->ss.tc);
	conn_lru_unlink(cn);
	free(cn);
	conns.nconns--;
	if (httpd_stopping() && conns.nconns == 0)
		ev_stop(httpd_loop());
	conn_accept_resume();
}

/* A peer that stopped responding: a graceful shutdown would wait on it too (and usrsctp
 * keeps the process at exit for it), so the association goes with an ABORT. */
static void
conn_abort(struct conn *cn)
{
	struct tp_conn *tc = cn->ss.tc;

	cn->ss.tc = NULL;
	conn_free(cn);
	tp_conn_abort(tc);
}

/* The earliest moment the timer has something to do. */
static uint64_t
conn_deadline(const struct conn *cn)
{
	uint64_t d = cn->last_us + (uint64_t)httpd_config()->idle_timeout_s * 1000000, t;
	uint16_t i;

	if (cn->lingering)
		return cn->linger_until;
	for (i = 0; i < cn->ss.nstreams; i++)
		if (cn->ss.st[i] != NULL && cn->ss.st[i]->head_since != 0 &&
		    (t = cn->ss.st[i]->head_since + (uint64_t)httpd_config()->request_timeout_s * 1000000) < d)
			d = t;
	/* Only a drain period still to come: once past, it waits on the responses, and a
	 * deadline in the past would fire the timer again at once, for ever (a peer gone
	 * silent while SIGUSR1 drains: a busy loop until the idle limit). */
	if (cn->ss.draining && cn->drain_until > httpd_now_us() && cn->drain_until < d)
		d = cn->drain_until;
	if (cn->thr_until != 0 && cn->thr_until < d)
		d = cn->thr_until;
	if (cn->ss.resets > 0 && cn->ss.reset_retry_us < d)
		d = cn->ss.reset_retry_us;
	if (cn->tls != NULL && (t = tlsio_oldest(cn->tls, &i)) != 0 &&
	    (t += (uint64_t)httpd_config()->request_timeout_s * 1000000) < d)
		d = t; /* a handshake, as a request head, must end within --request-timeout */
	return d;
}

static void
conn_timer_arm(struct conn *cn, uint64_t when)
{
	uint64_t now = httpd_now_us();

	ev_timer_start(httpd_loop(), &cn->timer, when > now ? when - now : 0, conn_timer_cb, cn);
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
	uint64_t now = ev_now_us(loop), t;
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
	for (i = 0; i < cn->ss.nstreams; i++) {
		struct strm *s = cn->ss.st[i];
		if (s != NULL && s->head_since != 0 &&
		    now - s->head_since >= (uint64_t)httpd_config()->request_timeout_s * 1000000)
			strm_error(s, 408, s->in, s->in_len);
	}
	if (now - cn->last_us >= (uint64_t)httpd_config()->idle_timeout_s * 1000000 && conn_idle(cn)) {
		conn_free(cn); /* idle: on SCTP nothing is outstanding, so SHUTDOWN at once */
		return;
	}
	if (now - cn->last_us >= (uint64_t)httpd_config()->idle_timeout_s * 1000000 &&
	    (cn->ss.pending > 0 || cn->olen > 0)) {
		conn_abort(cn); /* the peer stopped reading, or vanished */
		return;
	}
	if (cn->thr_until != 0 && now >= cn->thr_until)
		conn_unthrottle(cn);
	while (cn->tls != NULL && (t = tlsio_oldest(cn->tls, &i)) != 0 &&
	    now - t >= (uint64_t)httpd_config()->request_timeout_s * 1000000) {
		struct strm *s = strm_get(&cn->ss, i);
		if (s == NULL || conn_tls_fail(cn, s) == -1)
			return;
	}
	for (i = 0; cn->ss.resets > 0 && now >= cn->ss.reset_retry_us && i < cn->ss.nstreams; i++)
		if (cn->ss.st[i] != NULL && cn->ss.st[i]->reset_pending)
			strm_reset_try(cn->ss.st[i]);
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
	uint64_t now = httpd_now_us();

	if (cn->lingering)
		return 0;
	if (!cn->ss.msg) {
		if (cn->ss.pending > 0 || (cn->tls != NULL && tlsio_pending(cn->tls)))
			return 0;
		if (cn->eof) {
			conn_free(cn);
			return -1;
		}
		if (cn->ss.draining) {
			if (httpd_config()->linger_s == 0 || tp_shutdown_write(cn->ss.tc) != TP_OK) {
				conn_free(cn);
				return -1;
			}
			cn->lingering = 1;
			cn->linger_until = now + (uint64_t)httpd_config()->linger_s * 1000000;
			ev_timer_stop(httpd_loop(), &cn->timer);
			conn_timer_arm(cn, cn->linger_until);
		}
		return 0;
	}
	if (cn->ss.draining && cn->ss.pending == 0 && cn->olen == 0 && now >= cn->drain_until &&
	    (cn->tls == NULL || !tlsio_pending(cn->tls))) {
		conn_free(cn);
		return -1;
	}
	return 0;
}

static void
conn_rewatch(struct conn *cn)
{
	unsigned want = cn->eof ? 0 : EV_READ;

	if (!cn->ss.msg && !cn->lingering && cn->ss.st[0] != NULL &&
	    cn->ss.st[0]->nresp >= httpd_config()->pipeline_max && !strm_in_body(cn->ss.st[0]))
		want = 0; /* TCP back-pressure; SCTP must read on: one window for all streams */
	if (!cn->lingering && conn_has_output(cn))
		want |= EV_WRITE;
	if (want != cn->want) {
		cn->want = want;
		/* tp_watch, not tp_rewatch: after a watch of nothing the conn has no loop left. */
		tp_watch(cn->ss.tc, httpd_loop(), want, conn_ev, cn);
	}
}

/* A response message's send info on stream sid: PPID 63 (the draft), in clear or in TLS. */
static void
conn_http_msginfo(struct tp_msginfo *mi, unsigned sid)
{
	memset(mi, 0, sizeof(*mi));
	mi->stream = sid;
	mi->ppid = SERVER_PPID_HTTP;
}

/* https: the TLS records waiting, streams in turn, at most one user message each time.
 * 0: all went; 1: the transport is full; -1: cn is gone. */
static int
conn_tls_flush(struct conn *cn)
{
	struct tp_msginfo mi;
	const void *p;
	size_t n, sent;
	uint16_t sid;
	int rc;

	while (tlsio_next(cn->tls, &sid, &p, &n)) {
		if (n > httpd_config()->msg_size)
			n = httpd_config()->msg_size;
		conn_http_msginfo(&mi, sid);
		sent = 0;
		rc = tp_send(cn->ss.tc, p, n, &mi, &sent);
		if (rc == TP_RETRY)
			return 1;
		if (rc != TP_OK) {
			conn_free(cn);
			return -1;
		}
		tlsio_sent(cn->tls, sid, cn->ss.msg ? n : sent);
		cn->last_us = httpd_now_us();
		if (!cn->ss.msg && sent < n)
			return 1;
	}
	return 0;
}

/* https on TCP: each response pulled in pieces, encrypted, the records sent. */
static int
conn_write_stream_tls(struct conn *cn)
{
	struct strm *s = cn->ss.st[0];
	int rounds = 0, rc;

	cn->stalled = 0;
	for (;;) {
		if ((rc = conn_tls_flush(cn)) != 0)
			return rc == -1 ? -1 : 0;
		if (s == NULL || s->rq == NULL || ++rounds > SERVER_WRITE_ROUNDS)
			return 0;
		struct resp_sink k = { .buf = cn->obuf, .cap = httpd_config()->msg_size };
		rc = resp_pull(strm_head(s), &k);
		if (k.len > 0 && tlsio_write(cn->tls, 0, cn->obuf, k.len) != TLSIO_OK) {
			conn_free(cn);
			return -1;
		}
		if (k.wait_us != 0)
			conn_throttled(cn, k.wait_us);
		switch (rc) {
		case RESP_WAIT:
			if (k.len == 0) {
				cn->stalled = 1;
				return conn_tls_flush(cn) == -1 ? -1 : 0;
			}
			break;
		case RESP_ABORT:
		case RESP_ERROR:
			conn_free(cn);
			return -1;
		case RESP_END:
			strm_resp_done(s);
			break;
		default:
			break;
		}
		cn->last_us = httpd_now_us();
	}
}

/* TCP: the responses one after the other, each pulled from its head and body source. */
static int
conn_write_stream(struct conn *cn)
{
	struct strm *s = cn->ss.st[0];
	struct resp_sink k = { .tc = cn->ss.tc, .sendfile = cn->use_sendfile, .scratch = conns.rbuf,
	    .scratch_cap = sizeof(conns.rbuf) };
	int rounds = 0;

	cn->stalled = 0;
	while (s != NULL && s->rq != NULL) {
		if (++rounds > SERVER_WRITE_ROUNDS)
			return 0;
		switch (resp_pull(strm_head(s), &k)) {
		case RESP_RETRY:
			return 0;
		case RESP_WAIT:
			cn->stalled = 1;
			if (k.wait_us != 0)
				conn_throttled(cn, k.wait_us);
			return 0;
		case RESP_ABORT:
			/* What went out is all there is: closing tells the client it is incomplete. */
		case RESP_ERROR:
			conn_free(cn);
			return -1;
		case RESP_END:
			if (k.moved > 0)
				cn->last_us = httpd_now_us();
			strm_resp_done(s);
			break;
		default:
			cn->last_us = httpd_now_us();
		}
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
	struct resp_sink k = { .buf = cn->obuf, .cap = httpd_config()->msg_size };
	int rc = resp_pull(strm_head(s), &k);

	cn->ostrm = s;
	cn->olen = k.len;
	if (k.wait_us != 0)
		conn_throttled(cn, k.wait_us);
	switch (rc) {
	case RESP_END:
		strm_resp_done(s);
		return 0;
	case RESP_WAIT:
		return cn->olen > 0 ? 0 : 1;
	case RESP_ABORT:
		return -1;
	default:
		return 0;
	}
}

/* Message transports: one message per stream with output, in turn (round-robin). */
static int
conn_write_msg(struct conn *cn)
{
	struct tp_msginfo mi;
	struct strm *s;
	int rounds = 0, rc;

	for (;;) {
		if (cn->tls != NULL && (rc = conn_tls_flush(cn)) != 0)
			return rc == -1 ? -1 : 0;
		if (cn->olen == 0) {
			if (cn->ss.ring_head == NULL)
				return 0;
			if (++rounds > SERVER_WRITE_ROUNDS)
				return 0;
			rc = conn_build(cn, cn->ss.ring_head);
			if (rc == 1) {
				strm_ring_pop(&cn->ss);
				continue;
			}
			if (rc == -1) {
				strm_abort(cn->ss.ring_head);
				continue;
			}
			if (cn->olen == 0) {
				strm_ring_next(&cn->ss); /* a response with nothing left ended */
				continue;
			}
		}
		if (cn->tls != NULL) {
			/* Encrypted on its stream's TLS connection: the records go at the top. */
			if (tlsio_write(cn->tls, cn->ostrm->id, cn->obuf, cn->olen) != TLSIO_OK) {
				cn->olen = 0;
				strm_abort(cn->ostrm);
				continue;
			}
		} else {
			conn_http_msginfo(&mi, cn->ostrm->id);
			rc = tp_send(cn->ss.tc, cn->obuf, cn->olen, &mi, NULL);
			if (rc == TP_RETRY)
				return 0;
			if (rc != TP_OK) {
				conn_free(cn);
				return -1;
			}
		}
		cn->olen = 0;
		cn->last_us = httpd_now_us();
		s = cn->ostrm;
		strm_ring_next(&cn->ss);
		if (s->reset_after && s->rq == NULL)
			strm_reset_begin(s); /* its error response is with the stack now */
	}
}

static int
conn_write(struct conn *cn)
{
	if (cn->lingering)
		return 0;
	if (cn->ss.msg)
		return conn_write_msg(cn);
	return cn->tls != NULL ? conn_write_stream_tls(cn) : conn_write_stream(cn);
}

/* https: plaintext of stream sid, as if it had come in clear. */
static void
conn_tls_plain(void *arg, uint16_t sid, char *p, size_t n)
{
	struct conn *cn = arg;
	struct strm *s = strm_get(&cn->ss, sid);

	if (s != NULL)
		strm_input(s, p, n);
}

/* https: stream s's TLS connection failed, or its handshake took too long. -1: cn is gone. */
static int
conn_tls_fail(struct conn *cn, struct strm *s)
{
	if (conn_tls_flush(cn) == -1)
		return -1;
	if (!cn->ss.msg) {
		conn_free(cn); /* the alert went if the socket took it */
		return -1;
	}
	tlsio_forget(cn->tls, s->id);
	strm_abort(s);
	return 0;
}

/*
 * https: ciphertext on stream s. A TLS failure (a garbage or forged record, a handshake that
 * fails, the --tls-max cap) costs that stream only: its alert goes, its transaction is
 * aborted and the stream reset (the draft's stream error); the next bytes on it after the
 * reset start a new TLS connection. On TCP the connection closes. -1: cn is gone.
 */
static int
conn_tls_input(struct conn *cn, struct strm *s, const char *p, size_t n)
{
	int rc;
	unsigned hs = tlsio_in_handshake(cn->tls);

	if (s->dead)
		return 0; /* the rest of an aborted transaction, before its reset */
	rc = tlsio_input(cn->tls, s->id, p, n, conn_tls_plain, cn);
	if (tlsio_in_handshake(cn->tls) > hs)
		conn_timer_sync(cn); /* a handshake began: its deadline */
	if (rc == TLSIO_OK)
		return 0;
	return conn_tls_fail(cn, s);
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

		if (!cn->ss.msg && !cn->lingering && cn->ss.st[0] != NULL &&
		    cn->ss.st[0]->nresp >= httpd_config()->pipeline_max && !strm_in_body(cn->ss.st[0]))
			return 0;
		rc = tp_recv(cn->ss.tc, conns.rbuf, sizeof(conns.rbuf), &mi, &got);
		if (rc == TP_RETRY)
			return 0;
		if (rc == TP_EOF && !cn->ss.msg && !cn->lingering && cn->ss.pending > 0) {
			cn->eof = 1; /* half-closed: the answers still go out */
			strm_eof(cn->ss.st[0]);
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
		if (!cn->ss.msg) {
			if ((s = strm_get(&cn->ss, 0)) == NULL) {
				conn_free(cn);
				return -1;
			}
			if (cn->tls != NULL) {
				if (conn_tls_input(cn, s, conns.rbuf, got) == -1)
					return -1;
				continue;
			}
			strm_input(s, conns.rbuf, got);
			continue;
		}
		/* The draft: data on a stream we cannot answer on is an association error (ABORT). */
		if (mi.stream >= cn->ss.nstreams) {
			conn_abort(cn);
			return -1;
		}
		if ((s = strm_get(&cn->ss, mi.stream)) == NULL) {
			conn_free(cn);
			return -1;
		}
		if ((mi.ppid != SERVER_PPID_HTTP && !(httpd_config()->ppid0 && mi.ppid == 0)) ||
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
		if (cn->tls != NULL) {
			if (conn_tls_input(cn, s, conns.rbuf, got) == -1)
				return -1;
			continue;
		}
		strm_input(s, conns.rbuf, got);
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
	if (n >= sizeof(cn->ss.peer))
		n = sizeof(cn->ss.peer) - 1;
	memcpy(cn->ss.peer, p, n);
	cn->ss.peer[n] = '\0';
	if (n == 0)
		snprintf(cn->ss.peer, sizeof(cn->ss.peer), "-");
}

/* The stack's events: stream resets (strm.c). */
static void
conn_note(struct tp_conn *tc, const char *what, void *arg)
{
	struct conn *cn = arg;

	(void)tc;
	strm_note(&cn->ss, what);
}

/* --- what its streams ask (struct strm_set's calls) ------------------------------------- */

static void
conn_ss_drain(struct strm_set *ss, int request_asked)
{
	conn_drain((struct conn *)ss, request_asked);
}

static void
conn_ss_due(struct strm_set *ss)
{
	conn_timer_sync((struct conn *)ss);
}

/* Only watches change here, nothing is sent: the caller (a CGI program's pipe callback) must
 * not see its response freed under it. */
static void
conn_ss_wake(struct strm_set *ss)
{
	struct conn *cn = (struct conn *)ss;

	cn->stalled = 0;
	conn_rewatch(cn);
}

static int
conn_new(struct tp_conn *tc)
{
	struct conn *cn = calloc(1, sizeof(*cn));
	unsigned n;

	if (cn == NULL)
		goto bad;
	cn->ss.tc = tc;
	cn->ss.drain = conn_ss_drain;
	cn->ss.due = conn_ss_due;
	cn->ss.wake = conn_ss_wake;
	cn->ss.msg = (tp_caps(tc) & TP_CAP_MSG) != 0;
	n = 1;
	if (cn->ss.msg) {
		n = tc->streams_in < tc->streams_out ? tc->streams_in : tc->streams_out;
		if (n > httpd_config()->streams)
			n = httpd_config()->streams;
		if (n == 0)
			n = 1;
		if ((cn->obuf = malloc(httpd_config()->msg_size)) == NULL)
			goto bad;
	}
	cn->ss.nstreams = (uint16_t)n;
	if ((cn->ss.st = calloc(n, sizeof(*cn->ss.st))) == NULL)
		goto bad;
	if (tlsio_on()) {
		if ((cn->tls = tlsio_new((uint16_t)n, cn->ss.msg)) == NULL)
			goto bad;
		if (cn->obuf == NULL && (cn->obuf = malloc(httpd_config()->msg_size)) == NULL)
			goto bad;
	}
	cn->use_sendfile = cn->tls == NULL && httpd_config()->sendfile &&
	    (tp_caps(tc) & TP_CAP_SENDFILE) != 0;
	conn_peer_addr(cn, tc->peer);
	cn->want = EV_READ;
	if (cn->ss.msg)
		tp_set_notify(tc, conn_note, cn);
	if (tp_watch(tc, httpd_loop(), EV_READ, conn_ev, cn) != TP_OK)
		goto bad;
	cn->last_us = httpd_now_us();
	conn_lru_append(cn);
	conns.nconns++;
	conn_timer_arm(cn, conn_deadline(cn));
	return 0;
bad:
	tp_conn_free(tc);
	if (cn != NULL) {
		tlsio_free(cn->tls);
		free(cn->ss.st);
		free(cn->obuf);
		free(cn);
	}
	return -1;
}

/* At the limit, the least recently active idle connection makes room for a new client. */
static int
conn_evict_idle(void)
{
	struct conn *cn;
	int looked = 0;

	for (cn = conns.lru_head; cn != NULL && looked < 256; cn = cn->next, looked++) {
		if (conn_idle(cn) && !cn->lingering) {
			conn_free(cn);
			return 1;
		}
	}
	return 0;
}

static void
conn_accept_pause(void)
{
	size_t i;

	if (!conns.accepting)
		return;
	for (i = 0; i < conns.nls; i++)
		tp_listener_watch(conns.ls[i], httpd_loop(), NULL, NULL);
	conns.accepting = 0;
}

static void
conn_on_accept(struct tp_listener *l, void *arg)
{
	struct tp_conn *tc;
	int rounds, rc;

	(void)arg;
	for (rounds = 0; rounds < 64 && conns.accepting; rounds++) {
		if (conns.nconns >= conns.max_conns && !conn_evict_idle()) {
			conn_accept_pause();
			return;
		}
		rc = tp_accept(l, &tc);
		if (rc == TP_RETRY)
			return;
		if (rc != TP_OK) {
			/* Out of descriptors: free one if any is idle, else wait for the tick. */
			if (!conn_evict_idle())
				conn_accept_pause();
			return;
		}
		conn_new(tc);
	}
}

void
conn_stop_accepting(void)
{
	size_t i;

	conn_accept_pause();
	for (i = 0; i < conns.nls; i++)
		tp_listener_free(conns.ls[i]);
	conns.nls = 0;
}

void
conn_graceful(void)
{
	struct conn *cn, *next;

	httpd_set_stopping();
	conn_stop_accepting();
	for (cn = conns.lru_head; cn != NULL; cn = next) {
		next = cn->next;
		/* Nothing in flight: close now, without the drain period. */
		conn_drain(cn, cn->ss.pending == 0 && cn->olen == 0);
		if (conn_check(cn) == 0)
			conn_rewatch(cn);
	}
	if (conns.nconns == 0)
		ev_stop(httpd_loop());
}

int
conn_listen(struct tp_listener **ls, size_t n, char *err, size_t errlen)
{
	size_t i;

	conns.ls = ls;
	conns.nls = n;
	for (i = 0; i < n; i++)
		if (tp_listener_watch(ls[i], httpd_loop(), conn_on_accept, NULL) != TP_OK) {
			snprintf(err, errlen, "%s %s: %s", tp_type_name(tp_listener_type(ls[i])), ls[i]->local, ls[i]->err);
			return -1;
		}
	conns.accepting = 1;
	return 0;
}

void
conn_set_max(long max)
{
	conns.max_conns = max;
}

long
conn_count(void)
{
	return conns.nconns;
}

void
conn_close_all(void)
{
	struct conn *cn;

	while ((cn = conns.lru_head) != NULL) {
		if (cn->ss.pending > 0 || cn->olen > 0)
			conn_abort(cn); /* what it still owes will never go */
		else
			conn_free(cn);
	}
}
