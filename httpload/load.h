/* load.h: httpload and httpget: options, sessions (associations and calls), schedule, report. */
#ifndef SCTPAPPS_LOAD_H
#define SCTPAPPS_LOAD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "http.h"
#include "tp.h"

struct ev_loop;

#define LOAD_DEFAULT_PROTO "tcp" /* --proto without one; a word tp_type_find knows */
#define LOAD_PPID_HTTP 63       /* draft-sctpapps-http-over-sctp: PPID of HTTP data */
#define LOAD_MSG_MAX   16384    /* draft: HTTP data per SCTP user message */
#define LOAD_HEAD_MAX  65536    /* a response head longer than this is malformed */

/* Why a connection (or one call, for CORRUPT) failed: httperf's error classes, plus ours. */
enum load_err {
	LOAD_OK = 0,
	LOAD_E_CLIENT_TIMO,  /* --timeout passed without progress */
	LOAD_E_SOCK_TIMO,    /* the stack gave up (ETIMEDOUT) */
	LOAD_E_REFUSED,
	LOAD_E_RESET,        /* reset, aborted, or closed by the server in the middle of a reply */
	LOAD_E_FDUNAVAIL,    /* out of file descriptors (EMFILE) */
	LOAD_E_ADDRUNAVAIL,  /* no local port or address (EADDRNOTAVAIL) */
	LOAD_E_FTABFULL,     /* system file table full (ENFILE) */
	LOAD_E_OTHER,        /* malformed reply, data on an idle stream, anything else */
	LOAD_E_CORRUPT,      /* --verify: a body's length or checksum is wrong (per call) */
	LOAD_E_NUM
};

/* ---- session.c: one connection or association, its streams and its calls ---- */

struct sess;
struct tls_ctx;
struct sess_tls_stats;

/* One transaction. The session owns it: it lives from sess_issue until its done callback. */
struct sess_call {
	struct sess_call *next;  /* in its stream's queue of outstanding calls */
	struct sess_call *snext; /* in the session's queue of requests to send */
	const char *req;         /* the request bytes, owned by the caller, kept until done */
	size_t req_len, sent;
	int head_req;            /* HEAD: the response has no body */
	uint16_t stream;
	uint64_t id;             /* the caller's */
	void *arg;               /* the caller's */
	uint64_t t_sched;        /* when it should have been sent (coordinated omission), us */
	uint64_t t_issue, t_first, t_done;
	int status;              /* 0 until the head has come */
	int minor_version;
	uint64_t hdr_bytes, body_bytes, footer_bytes, data_bytes; /* data: decoded content */
	int64_t content_length;  /* -1: not given */
	int complete;            /* the reply is whole (else abandoned when the session ended) */
	uint32_t crc;            /* the caller's scratch: running checksum of the content */
	int bol;                 /* the caller's scratch: printing is at the start of a line */
	char *own;               /* the caller's: freed with the call (a request built for it) */
};

struct sess_cbs {
	void (*up)(struct sess *s, void *arg);
	/* The final head of call k (1xx interim heads are skipped): raw bytes and parsed. */
	void (*head)(struct sess *s, struct sess_call *k, const char *raw, size_t len,
	    const struct http_response *res, void *arg);
	void (*body)(struct sess *s, struct sess_call *k, const char *p, size_t n, void *arg);
	/* The reply is complete. The callback may issue more calls, never free the session. */
	void (*done)(struct sess *s, struct sess_call *k, void *arg);
	/* The session is over: LOAD_OK (all done, or the server closed it idle) or why not,
	 * with text. abandoned: calls outstanding that will never complete. The callback is the
	 * last use of s by the session; it may (and should) sess_free it. */
	void (*end)(struct sess *s, enum load_err e, const char *why, unsigned abandoned,
	    void *arg);
};

struct sess_opts {
	const char *proto;       /* tp type name */
	const char *addr;        /* "h1,h2:port" */
	struct tp_opts tp;
	unsigned max_piped;      /* outstanding calls per stream (1: no pipelining) */
	uint64_t timeout_us;     /* no progress for this long: LOAD_E_CLIENT_TIMO (0: never) */
	int accept_ppid0;        /* --accept-ppid0: PPID 0 counts as HTTP too, not only 63 */
	struct tp_conn *conn;    /* set: connected already (httpget --proto auto), taken over */
	struct tls_ctx *tls;     /* set: https, a TLS connection per stream (sess_tls.c) */
};

struct sess *sess_new(struct ev_loop *loop, const struct sess_opts *o,
    const struct sess_cbs *cbs, void *arg, enum load_err *e, char *err, size_t errlen);
void sess_free(struct sess *s);
void sess_cache_free(void); /* the calling thread's cache of finished calls, when done */
/* Calls that can be issued now (0 while connecting or closing). */
unsigned sess_slots(const struct sess *s);
/* Issue a request on the next idle stream (round-robin, as the draft says): the call, or
 * NULL when no slot is free. */
struct sess_call *sess_issue(struct sess *s, const char *req, size_t len, int head_req,
    uint64_t t_sched);
unsigned sess_outstanding(const struct sess *s);
/* The next progress may take up to us more than the timeout (httperf's --think-timeout). */
void sess_grace(struct sess *s, uint64_t us);
/* No more calls: the session ends (end callback, LOAD_OK) once the outstanding ones are done. */
void sess_finish(struct sess *s);
unsigned sess_streams(const struct sess *s); /* usable streams N, 0 before it is up */
int sess_is_up(const struct sess *s);
int sess_closing(const struct sess *s);     /* the server said Connection: close */
uint64_t sess_t_start(const struct sess *s);
uint64_t sess_t_up(const struct sess *s);
struct tp_conn *sess_conn(struct sess *s);
enum load_err sess_classify(const char *err); /* a transport's error text: its class */
const char *load_err_name(enum load_err e);

/* TLS of the session (https), NULL in clear. */
const struct sess_tls_stats *sess_tls(const struct sess *s);
int sess_tls_refused(const struct sess *s); /* it ended: the server's certificate was refused */

/* ---- sess_tls.c: a session's TLS connections, one per stream (lib/tls/tls.h) ---- */
struct tls_ctx;
struct sess_tls;
struct sess_tls_stats {
	unsigned handshakes, resumed;  /* done, and of those resumed from a ticket */
	uint64_t hs_us_sum, hs_us_max; /* each from its ClientHello to its end */
	char alpn[32];
};
struct sess_tls *sess_tls_new(struct tls_ctx *ctx, int msg, unsigned n);
void sess_tls_free(struct sess_tls *x);
int sess_tls_write(struct sess_tls *x, unsigned i, const char *p, size_t n, char *err,
    size_t errlen);
int sess_tls_input(struct sess_tls *x, unsigned i, const char *p, size_t n, char *err,
    size_t errlen);
int sess_tls_read(struct sess_tls *x, unsigned i, char *buf, size_t cap, size_t *got, char *err,
    size_t errlen);
int sess_tls_next(struct sess_tls *x, uint16_t *sid, const void **p, size_t *n);
void sess_tls_sent(struct sess_tls *x, uint16_t sid, size_t n);
int sess_tls_pending(const struct sess_tls *x);
int sess_tls_may_start(const struct sess_tls *x, unsigned i);
int sess_tls_cert_error(const struct sess_tls *x);
const struct sess_tls_stats *sess_tls_stats(const struct sess_tls *x);

/* ---- happy.c: httpget --proto auto, Alt-Svc "http/1.1+sctp" and the transport race ---- */
const char *happy_cache_path(const char *given, char *buf, size_t cap);
void happy_learn(const char *cache, const char *origin, const char *head, size_t len,
    int verbose);
int happy_connect(struct ev_loop *loop, const char *cache, const char *origin,
    const struct tp_opts *o, uint64_t timeout_us, int verbose, const char **proto,
    struct tp_conn **conn, char *alt_used, size_t alt_cap, char *err, size_t errlen);

/* ---- hist.c: log-linear latency histogram (HdrHistogram-style), values in us ---- */

struct hist {
	uint64_t *counts;
	uint64_t n, min, max;
	double sum, sum2;
};

int hist_init(struct hist *h);
void hist_free(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
void hist_merge(struct hist *dst, const struct hist *src);
uint64_t hist_quantile(const struct hist *h, double q); /* q in [0,1] */
double hist_mean(const struct hist *h);
void hist_print_buckets(FILE *f, const struct hist *h);          /* [[lowest, count], ...] */
void hist_add_bucket(struct hist *h, uint64_t v, uint64_t count); /* its inverse, per bucket */
double hist_stddev(const struct hist *h);

/* ---- verify.c: --verify and --verify-manifest ---- */

struct verify_entry {
	char *path;
	uint64_t size;
	uint32_t crc;
};

struct verify_manifest {
	struct verify_entry *e;
	size_t n;
};

uint32_t verify_crc32(uint32_t crc, const void *p, size_t n); /* start with 0 */
int verify_manifest_load(struct verify_manifest *m, const char *file, char *err, size_t errlen);
void verify_manifest_free(struct verify_manifest *m);
const struct verify_entry *verify_manifest_find(const struct verify_manifest *m,
    const char *path, size_t len);

/* ---- wsesslog.c: httperf's --wsesslog file ---- */

struct wlog_req {
	char *uri, *method, *contents; /* method NULL: --method */
	size_t contents_len;
	char *req;               /* built by load.c: the request bytes */
	size_t req_len;
	int head_req;
};

struct wlog_burst {
	struct wlog_req *r;      /* r[0] first; the others once its reply has come */
	size_t n;
	double think;            /* s after the burst; < 0: the default */
};

struct wlog_sess {
	struct wlog_burst *b;
	size_t n;
	uint64_t calls;
};

struct wlog {
	struct wlog_sess *s;
	size_t n;
};

int wlog_load(struct wlog *w, const char *file, char *err, size_t errlen);
void wlog_free(struct wlog *w);

/* ---- uri.c: httperf's --wset and --wlog URI generators (shared by the threads) ---- */

enum { URI_NONE = 0, URI_WSET, URI_WLOG };

struct uri_gen {
	int kind;
	_Atomic uint64_t calls;  /* URIs handed out so far */
	/* --wset */
	char prefix[256];
	size_t prefix_len;
	uint64_t nfiles, first, step;
	unsigned digits;
	double rate, start;
	/* --wlog */
	const char *file;
	char *buf;               /* the file, NUL-separated URIs */
	size_t *off, n;          /* where each non-empty URI starts */
	int loop;
};

int uri_wset_init(struct uri_gen *g, const char *prefix, uint64_t n, double x,
    unsigned client_id, unsigned client_n, unsigned seed, char *err, size_t errlen);
int uri_wlog_load(struct uri_gen *g, const char *file, int loop, char *err, size_t errlen);
void uri_free(struct uri_gen *g);
const char *uri_next(struct uri_gen *g, char *buf, size_t cap, size_t *len);

/* ---- report.c: the counters, httperf's report, JSON and CSV ---- */

#define LOAD_LIFE_BINS 100000   /* httperf: 1 ms bins up to 100 s for the median lifetime */
#define LOAD_RATE_INTERVAL 5.0  /* httperf: reply rate sampled every 5 s */
#define LOAD_SESS_LEN_MAX 1000  /* the session length histogram's last bin */

struct load_stats {
	uint64_t conns_issued, conns_connected, max_conns, max_burst;
	uint64_t lifetimes;
	double life_sum, life_sum2, life_min, life_max;   /* seconds */
	uint32_t *life_hist;                               /* LOAD_LIFE_BINS + 1 */
	double connect_sum;
	uint64_t rate_samples;
	double rate_sum, rate_sum2, rate_min, rate_max;
	uint64_t responses, sent, replies;
	double response_sum, xfer_sum;
	uint64_t req_bytes, hdr_bytes, body_bytes, footer_bytes;
	uint64_t status[6];
	uint64_t errors[LOAD_E_NUM];
	/* --wsess: sessions (each one connection), httperf's session lines */
	uint64_t sess_ok, sess_failed, sess_conns;
	double sess_life_sum, sess_fail_sum;
	uint64_t sess_rate_samples;
	double sess_rate_sum, sess_rate_sum2, sess_rate_min, sess_rate_max;
	uint64_t sess_len[LOAD_SESS_LEN_MAX + 1]; /* sessions by calls completed (last: more) */
	struct hist lat;         /* per call: reply complete - scheduled (rate) or issued */
	double duration;         /* s */
	double user, sys;        /* CPU s */
	/* httpload merge: how many clients' reports, the sum of their own rates (per s:
	 * connections, requests, replies); 0 clients: one run's own report */
	uint64_t clients;
	double client_rates[3];
	/* --ssl: the TLS handshakes of every connection's streams (sess_tls.c), each from its
	 * ClientHello to its end, and how many of them resumed a ticket */
	uint64_t tls_handshakes, tls_resumed;
	double tls_hs_sum, tls_hs_max; /* s */
};

int report_stats_init(struct load_stats *st);
void report_stats_free(struct load_stats *st);
void report_stats_merge(struct load_stats *dst, const struct load_stats *src);
void report_lifetime(struct load_stats *st, double seconds);
uint64_t report_errors_total(const struct load_stats *st);
/* httperf 0.9.0's report, line for line; the corrupt count only when verifying. */
void report_httperf(FILE *f, const struct load_stats *st, int verify);
void report_latency(FILE *f, const struct load_stats *st);
void report_sessions(FILE *f, const struct load_stats *st); /* httperf's, with --wsess */
void report_json(FILE *f, const struct load_stats *st);
void report_csv(FILE *f, const struct load_stats *st, int header);
/* report_raw.c: --json's "raw" section (every counter, histograms by bucket), and back */
void report_raw_print(FILE *f, const struct load_stats *st);
int report_raw_read(const char *text, struct load_stats *st, char *err, size_t errlen);

/* ---- jsonr.c: a small JSON reader for httpload's own --json (httpload merge) ---- */

/* Each number: PATH is its object keys joined by '.', IDX[0..NIDX-1] its array indices (at
 * most JSONR_MAX_IDX), TOK its text. Strings, true, false and null are skipped. */
#define JSONR_MAX_IDX 4
typedef int (*jsonr_cb)(void *ctx, const char *path, const size_t *idx, size_t nidx,
    const char *tok, char *err, size_t errlen);
int jsonr_walk(const char *text, jsonr_cb cb, void *ctx, char *err, size_t errlen);

/* ---- merge.c: httpload merge FILE... (several clients' --json reports as one) ---- */

int merge_main(int argc, char **argv);

/* ---- load.c: the schedule ---- */

enum load_period { LOAD_PERIOD_D = 0, LOAD_PERIOD_U, LOAD_PERIOD_E };

#define LOAD_PRINT_HEADER 0x1u
#define LOAD_PRINT_BODY   0x2u

struct load_opts {
	struct tls_ctx *tls;     /* --ssl: https (sess_tls.c), NULL in clear */
	const char *server;      /* "a" or "a,b" (multihoming) */
	unsigned port;
	const char *uri;
	const char *method;
	int http_minor;          /* 0 or 1 */
	char *headers;           /* --add-header, CRLF-terminated lines, owned */
	double rate;             /* connections per second; 0: one after the other */
	enum load_period period;
	double period_a, period_b; /* seconds: mean (d, e) or bounds (u) */
	uint64_t num_conns;
	uint64_t num_calls;      /* per connection; 0: unlimited (closed loop) */
	int num_calls_set;
	double timeout;          /* s, 0: none */
	unsigned max_conns;      /* 0: unlimited */
	unsigned max_piped;
	unsigned concurrency;    /* closed loop: connections kept open; 0: open loop */
	double duration;         /* s, 0: until num-conns are done */
	unsigned print_reply, print_request; /* LOAD_PRINT_* */
	int hog, verbose, json, csv, verify, no_report;
	int progress;            /* a progress line on stderr every 5 s (thread 0 only) */
	const char *manifest;
	FILE *log;               /* --log: a line per completed call (reqlog.c), or NULL */
	unsigned client_id, client_n;
	int sndbuf, rcvbuf;      /* 0: as given by the stack (httperf's defaults are printed) */
	const char *proto;
	unsigned streams;
	unsigned rto_min, nodelay;
	int interleave;          /* --sctp-interleave */
	unsigned rto_initial, rto_max; /* ms, 0: the stack's */
	int path_max_retrans;    /* 0: the stack's */
	const char *local;       /* --local: addresses to bind first */
	unsigned udp_port, udp_remote_port;
	unsigned encap_port;     /* --sctp-udp-remote-port: kernel SCTP in UDP */
	unsigned sack_delay, init_cwnd; /* --sctp-sack-delay MS, --sctp-init-cwnd N (tp_cli) */
	int accept_ppid0;        /* --accept-ppid0 */
	unsigned threads;
	int wsess;               /* --wsess: num_conns sessions of num_calls calls, in bursts */
	double think;            /* s between a burst's last reply and the next burst */
	unsigned burst_len;      /* calls per burst (--burst-length, default 1) */
	double think_timeout;    /* s the first reply of a burst may take beyond --timeout */
	const char *wsesslog;    /* --wsesslog's file (wsess set too; think: the default) */
	struct uri_gen *uris;    /* --wset, --wlog: each call's URI (NULL: --uri for all) */
	char addr[512];          /* built: "server:port" */
};

/* ---- reqlog.c: --log FILE, a line per completed call ---- */

/* START_US STATUS LATENCY_US STREAM BYTES TARGET, tab-separated; START since the run's t0. */
void reqlog_call(FILE *f, const struct sess_call *k, uint64_t t0);

int load_run(const struct load_opts *o, struct load_stats *st, char *err, size_t errlen);
void load_interrupt(void); /* async-signal-safe: every run stops soon, and reports */

#endif
