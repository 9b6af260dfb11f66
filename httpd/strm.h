/* strm.h: HTTP byte streams (strm.c): the TCP connection's one, or the N streams of an SCTP
 * association: request parsing, the response queue, the send ring, stream errors and resets. */
#ifndef SCTPHTTPD_STRM_H
#define SCTPHTTPD_STRM_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"

struct cgi;
struct resp;
struct tp_conn;
struct strm;

/*
 * What the streams of one connection share, and what they ask of it: the connection (conn.c)
 * embeds it first and fills the three calls, so that streams never call up into conn.c.
 */
struct strm_set {
	struct tp_conn *tc;
	int msg;                      /* message transport: stream ids, PPID 63, bounded messages */
	uint16_t nstreams;            /* N: usable streams */
	struct strm **st;             /* N entries, each made when its stream first has data */
	struct strm *ring_head, *ring_tail; /* streams with output, in turn (message transports) */
	unsigned pending;             /* responses queued on all streams */
	unsigned resets;              /* streams whose reset is still to be asked */
	unsigned retired;             /* streams retired: a stream error that no reset could end */
	uint64_t reset_retry_us;
	int draining;                 /* "Connection: close": the connection closes after these */
	char peer[64];                /* address only, for the log */
	void (*drain)(struct strm_set *ss, int request_asked); /* "Connection: close" */
	void (*due)(struct strm_set *ss);   /* a deadline (request head, reset retry) moved earlier */
	void (*wake)(struct strm_set *ss);  /* a response has output again, or ended */
};

/* One HTTP byte stream: the TCP connection, or one stream of an association. */
struct strm {
	struct strm_set *set;
	uint16_t id;
	char *in;                     /* input not parsed yet */
	size_t in_len, in_cap;
	uint64_t head_since;          /* us: an incomplete head is waiting since then, 0 = none */
	uint64_t body_skip;           /* request content still to discard */
	int chunked;                  /* the request content is chunked: decoded by chunk */
	struct http_chunked chunk;
	uint64_t chunk_total;         /* content decoded so far, bounded by --cgi-max-body */
	struct resp *rq, **rq_tail;   /* responses in request order */
	unsigned nresp;
	struct strm *out_next;        /* ring of streams with output (message transports) */
	int in_ring;
	int dead;                     /* no more requests are read from it */
	struct cgi *body_cgi;         /* request content being read goes to this program */
	int reset_pending;            /* an aborted transaction: the stream reset is to be asked */
	int reset_after;              /* a stream error: reset once its error response is sent */
	int reset_wait;               /* reset asked: dead until our incoming direction is reset */
	int aborted;                  /* the reset ends a response cut short (not a stream error) */
	int retired;                  /* dead for the rest of the association (strm_reset_failed) */
};

struct strm *strm_get(struct strm_set *ss, uint16_t id); /* made on first use; NULL: no memory */
void strm_free(struct strm *s);
void strm_input(struct strm *s, char *data, size_t len);
int strm_in_body(const struct strm *s);   /* request content still to come (no request parsed) */
void strm_eof(struct strm *s);            /* TCP half-close: content cut short goes */
void strm_error(struct strm *s, int status, const char *raw, size_t rawlen);
void strm_error_note(struct strm *s, int status, const char *raw, size_t rawlen,
    const char *note);
struct resp *strm_head(struct strm *s);   /* its head response, a local redirect answered */
void strm_resp_done(struct strm *s);      /* its head response went out whole */
void strm_abort(struct strm *s);          /* SCTP: its head response cannot be completed */
void strm_reset_begin(struct strm *s);
void strm_reset_try(struct strm *s);
void strm_note(struct strm_set *ss, const char *what); /* the stack's stream reset events */
void strm_ring_add(struct strm_set *ss, struct strm *s);
void strm_ring_next(struct strm_set *ss);
void strm_ring_pop(struct strm_set *ss);

#endif
