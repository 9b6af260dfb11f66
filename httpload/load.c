/* load.c: the schedule: connections at a rate (open loop) or kept at a concurrency (closed). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "ev.h"
#include "load.h"

struct load_conn {
	struct load_run *r;
	struct sess *s;
	struct load_conn *prev, *next; /* the run's active connections */
	uint64_t t_sched;        /* when the schedule wanted it started */
	uint64_t calls_left;     /* not issued yet; UINT64_MAX: no limit */
	uint64_t completed;
	int first_wave;          /* the calls issued when it came up: latency from t_sched */
	/* --wsess: the session's bursts; burst_left is what may still be issued of this one */
	uint64_t burst_left, burst_out;
	struct ev_timer think;
	const struct wlog_sess *ws; /* --wsesslog: its session, the burst, the next request */
	size_t bi, ri;
};

struct load_run {
	const struct load_opts *o;
	int cert_said;           /* --ssl: a refused certificate reported (once a loop) */
	struct ev_loop *loop;
	struct load_stats *st;
	struct verify_manifest man;
	struct wlog wl;
	uint64_t next_ws;        /* --wsesslog: the file's sessions in turn */
	const struct verify_entry *expect; /* the manifest's entry for the URI */
	struct sess_opts so;
	char *req;
	size_t req_len;
	int head_req;
	struct load_conn *active;
	uint64_t nactive, started, num_conns, next_id;
	uint64_t t0, next_sched, t_end;
	uint64_t interval_replies, interval_sessions;
	struct ev_timer tick, sample, stop, retry, intr;
	int stopping;            /* no new connections */
	int drained;             /* --wlog n: no URI left, no new calls (those out still count) */
	unsigned seed;
	char err[TP_ERRLEN];
};

static void load_start_due(struct load_run *r);
static void load_drain(struct load_run *r);
static int load_conn_start(struct load_run *r, uint64_t t_sched);
static void load_tick(struct ev_loop *loop, void *arg);
static void load_refill(struct load_run *r);
static void load_retry(struct ev_loop *loop, void *arg);
static int load_build(struct load_run *r, const char *method, const char *uri, const char *body,
    size_t body_len, char **out, size_t *out_len);

/* Seconds to the next connection (--rate, --period). */
static double
load_interarrival(struct load_run *r)
{
	const struct load_opts *o = r->o;
	double u;

	switch (o->period) {
	case LOAD_PERIOD_U:
		u = (double)rand_r(&r->seed) / ((double)RAND_MAX + 1.0);
		return o->period_a + u * (o->period_b - o->period_a);
	case LOAD_PERIOD_E:
		u = ((double)rand_r(&r->seed) + 1.0) / ((double)RAND_MAX + 2.0);
		return -o->period_a * log(u);
	default:
		return o->period_a;
	}
}

static void
load_print_lines(struct load_run *r, const char *tag, uint64_t id, const char *p, size_t n,
    int *bol)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (*bol) {
			printf("%s%llu:", tag, (unsigned long long)id);
			*bol = 0;
		}
		if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
			continue;
		putchar(p[i]);
		if (p[i] == '\n')
			*bol = 1;
	}
	(void)r;
}

/* --wset, --wlog: the next URI's request, built for one call (it owns it). -1 when the list
 * is used up (--wlog n: the run drains, no call or connection more) or out of memory. */
static int
load_uri_request(struct load_run *r, char **req, size_t *len)
{
	char buf[512];
	const char *u;
	size_t n;

	if ((u = uri_next(r->o->uris, buf, sizeof(buf), &n)) == NULL) {
		load_drain(r);
		return -1;
	}
	if (r->o->verbose)
		printf("httpload: accessing URI `%.*s'\n", (int)n, u);
	if (load_build(r, r->o->method, u, NULL, 0, req, len) == -1) {
		r->st->errors[LOAD_E_OTHER]++;
		return -1;
	}
	return 0;
}

/* Keep the connection's streams busy with calls, as many as it has slots and calls left. */
static void
load_fill(struct load_conn *lc)
{
	struct load_run *r = lc->r;
	const struct load_opts *o = r->o;
	struct sess_call *k;
	int bol;
	const char *req = r->req;
	size_t req_len = r->req_len;

	while (lc->calls_left > 0 && !r->stopping && !r->drained && sess_slots(lc->s) > 0 &&
	    (!o->wsess || lc->burst_left > 0)) {
		const struct wlog_req *wr = NULL;
		char *own = NULL;

		if (lc->ws != NULL) {
			wr = &lc->ws->b[lc->bi].r[lc->ri];
			req = wr->req;
			req_len = wr->req_len;
		} else if (o->uris != NULL) {
			if (load_uri_request(r, &own, &req_len) == -1)
				break;
			req = own;
		}
		k = sess_issue(lc->s, req, req_len, wr ? wr->head_req : r->head_req,
		    lc->first_wave ? lc->t_sched : 0);
		if (k == NULL) {
			free(own);
			break;
		}
		k->own = own;
		if (wr != NULL)
			lc->ri++;
		if (o->wsess) {
			if (lc->burst_out == 0 && o->think_timeout > 0)
				sess_grace(lc->s, (uint64_t)(o->think_timeout * 1e6));
			lc->burst_left--;
			lc->burst_out++;
		}
		k->id = r->next_id++;
		k->arg = lc;
		if (lc->calls_left != UINT64_MAX)
			lc->calls_left--;
		r->st->sent++;
		r->st->req_bytes += req_len;
		if (o->print_request) {
			size_t body = wr ? wr->contents_len : 0;

			bol = 1;
			if (o->print_request & LOAD_PRINT_HEADER)
				load_print_lines(r, "SH", k->id, req, req_len - body, &bol);
			if ((o->print_request & LOAD_PRINT_BODY) && body > 0) {
				bol = 1;
				load_print_lines(r, "SB", k->id, req + req_len - body, body, &bol);
				if (!bol)
					putchar('\n');
			}
			printf("SS%llu: header %zu content %zu\n", (unsigned long long)k->id,
			    req_len - body, body);
		}
	}
	lc->first_wave = 0;
	if (lc->calls_left == 0 || r->stopping || r->drained)
		sess_finish(lc->s);
}

/* --wsess: the think time is over, the next burst goes out. */
static void
load_think_over(struct ev_loop *loop, void *arg)
{
	struct load_conn *lc = arg;
	unsigned len = lc->r->o->burst_len ? lc->r->o->burst_len : 1;

	(void)loop;
	if (lc->ws != NULL) {
		/* the next burst's first request, alone; the rest after its reply */
		lc->bi++;
		lc->ri = 0;
		len = 1;
	}
	lc->burst_left = lc->calls_left < len ? lc->calls_left : len;
	load_fill(lc);
}

static void
load_up(struct sess *s, void *arg)
{
	struct load_conn *lc = arg;

	lc->r->st->conns_connected++;
	lc->r->st->connect_sum += (double)(sess_t_up(s) - sess_t_start(s)) / 1e6;
	if (lc->r->o->verbose)
		fprintf(stderr, "httpload: connected to %s, %u stream%s usable\n",
		    sess_conn(s)->peer, sess_streams(s), sess_streams(s) == 1 ? "" : "s");
	load_fill(lc);
}

static void
load_head(struct sess *s, struct sess_call *k, const char *raw, size_t len,
    const struct http_response *res, void *arg)
{
	struct load_conn *lc = arg;
	struct load_run *r = lc->r;
	int bol = 1;

	(void)s;
	(void)res;
	r->st->responses++;
	r->st->response_sum += (double)(k->t_first - k->t_issue) / 1e6;
	if (r->o->print_reply & LOAD_PRINT_HEADER)
		load_print_lines(r, "RH", k->id, raw, len, &bol);
}

static void
load_body(struct sess *s, struct sess_call *k, const char *p, size_t n, void *arg)
{
	struct load_conn *lc = arg;
	struct load_run *r = lc->r;

	(void)s;
	if (r->o->verify)
		k->crc = verify_crc32(k->crc, p, n);
	if (r->o->print_reply & LOAD_PRINT_BODY)
		load_print_lines(r, "RB", k->id, p, n, &k->bol);
}

/* --verify-manifest: the entry for the call's URI; the request line says which when URIs
 * vary (--wsesslog, --wset, --wlog). */
static const struct verify_entry *
load_expect(struct load_run *r, const struct sess_call *k)
{
	const char *u, *end;

	if (r->o->uris == NULL && r->wl.n == 0)
		return r->expect;
	if (r->man.n == 0 || (u = memchr(k->req, ' ', k->req_len)) == NULL)
		return NULL;
	u++;
	if ((end = memchr(u, ' ', k->req_len - (size_t)(u - k->req))) == NULL)
		return NULL;
	return verify_manifest_find(&r->man, u, (size_t)(end - u));
}

static void
load_done(struct sess *s, struct sess_call *k, void *arg)
{
	struct load_conn *lc = arg;
	struct load_run *r = lc->r;
	struct load_stats *st = r->st;
	const struct verify_entry *e;
	int cls = k->status / 100;

	st->replies++;
	st->status[cls < 1 ? 1 : cls > 5 ? 5 : cls]++;
	st->hdr_bytes += k->hdr_bytes;
	st->body_bytes += k->body_bytes;
	st->footer_bytes += k->footer_bytes;
	st->xfer_sum += (double)(k->t_done - k->t_first) / 1e6;
	hist_add(&st->lat, k->t_done - k->t_sched);
	if (r->o->log != NULL)
		reqlog_call(r->o->log, k, r->t0);
	r->interval_replies++;
	lc->completed++;
	if (r->o->verify) {
		if (k->content_length >= 0 && !k->head_req &&
		    k->data_bytes != (uint64_t)k->content_length)
			st->errors[LOAD_E_CORRUPT]++;
		else if ((e = load_expect(r, k)) != NULL && k->status == 200 && !k->head_req &&
		    (k->data_bytes != e->size || k->crc != e->crc))
			st->errors[LOAD_E_CORRUPT]++;
	}
	if (r->o->print_reply) {
		if (!k->bol)
			putchar('\n');
		printf("RS%llu: header %llu content %llu footer %llu\n", (unsigned long long)k->id,
		    (unsigned long long)k->hdr_bytes, (unsigned long long)k->body_bytes,
		    (unsigned long long)k->footer_bytes);
	}
	(void)s;
	if (r->o->wsess && lc->burst_out > 0 && --lc->burst_out == 0 && lc->burst_left == 0 &&
	    lc->calls_left > 0 && !r->stopping && !r->drained) {
		const struct wlog_burst *b = lc->ws ? &lc->ws->b[lc->bi] : NULL;

		if (b != NULL && lc->ri < b->n) {
			/* --wsesslog: the first reply is in, the rest of its burst goes out */
			lc->burst_left = b->n - lc->ri;
		} else {
			ev_timer_start(r->loop, &lc->think, (uint64_t)((b && b->think >= 0 ?
			    b->think : r->o->think) * 1e6), load_think_over, lc);
			return;
		}
	}
	load_fill(lc);
}

static void
load_check_done(struct load_run *r)
{
	if (r->nactive == 0 && (r->stopping || r->drained || r->started >= r->num_conns))
		ev_stop(r->loop);
}

/* --wlog n: the list is used up. The calls out are answered; the others finish. */
static void
load_drain(struct load_run *r)
{
	struct load_conn *lc;

	if (r->drained)
		return;
	r->drained = 1;
	ev_timer_stop(r->loop, &r->tick);
	ev_timer_stop(r->loop, &r->retry);
	for (lc = r->active; lc != NULL; lc = lc->next)
		sess_finish(lc->s);
	load_check_done(r);
}

/* --ssl: a connection's handshakes into the run's counters, as it goes */
static void
load_tls_count(struct load_stats *st, const struct sess_tls_stats *t)
{
	if (t == NULL)
		return;
	st->tls_handshakes += t->handshakes;
	st->tls_resumed += t->resumed;
	st->tls_hs_sum += (double)t->hs_us_sum / 1e6;
	if ((double)t->hs_us_max / 1e6 > st->tls_hs_max)
		st->tls_hs_max = (double)t->hs_us_max / 1e6;
}

static void
load_conn_free(struct load_conn *lc)
{
	struct load_run *r = lc->r;

	if (lc->prev != NULL)
		lc->prev->next = lc->next;
	else
		r->active = lc->next;
	if (lc->next != NULL)
		lc->next->prev = lc->prev;
	r->nactive--;
	ev_timer_stop(r->loop, &lc->think);
	/* Dropped at the end of a closed-loop run: it lived until the stop, not until now. */
	if (lc->completed > 0)
		report_lifetime(r->st, (double)((r->stopping ? r->t_end : ev_clock_us()) -
		    sess_t_start(lc->s)) / 1e6);
	load_tls_count(r->st, sess_tls(lc->s));
	sess_free(lc->s);
	free(lc);
}

/* --wsess: a session is over (its connection ended by itself, not by a stop): httperf's
 * session counters. A session of ours is one connection: it fails with it. */
static void
load_sess_end(struct load_conn *lc, int ok)
{
	struct load_stats *st = lc->r->st;
	double t = (double)(ev_clock_us() - sess_t_start(lc->s)) / 1e6;

	st->sess_conns++;
	if (ok) {
		st->sess_ok++;
		st->sess_life_sum += t;
		lc->r->interval_sessions++;
	} else {
		st->sess_failed++;
		st->sess_fail_sum += t;
	}
	st->sess_len[lc->completed < LOAD_SESS_LEN_MAX ? lc->completed : LOAD_SESS_LEN_MAX]++;
}

static void
load_end(struct sess *s, enum load_err e, const char *why, unsigned abandoned, void *arg)
{
	struct load_conn *lc = arg;
	struct load_run *r = lc->r;

	(void)abandoned;
	if (e != LOAD_OK) {
		r->st->errors[e]++;
		if (r->o->verbose)
			fprintf(stderr, "httpload: connection %s: %s\n", load_err_name(e), why);
		else if (sess_tls_refused(s) && !r->cert_said) {
			/* every connection would say the same: once is clear, many are noise */
			fprintf(stderr, "httpload: %s\n", why);
			r->cert_said = 1;
		}
	}
	if (r->o->wsess)
		load_sess_end(lc, e == LOAD_OK && lc->calls_left == 0 &&
		    lc->completed >= (lc->ws ? lc->ws->calls : r->o->num_calls));
	load_conn_free(lc);
	if (r->o->concurrency > 0 || r->o->rate <= 0)
		load_refill(r); /* closed loop, or --rate 0: the next takes this one's place */
	else if (r->o->max_conns > 0) {
		load_start_due(r);
	}
	r->t_end = ev_clock_us();
	load_check_done(r);
}

static const struct sess_cbs load_cbs = {
	.up = load_up,
	.head = load_head,
	.body = load_body,
	.done = load_done,
	.end = load_end,
};

static int
load_conn_start(struct load_run *r, uint64_t t_sched)
{
	struct load_conn *lc;
	enum load_err e;
	char err[TP_ERRLEN];

	r->started++;
	r->st->conns_issued++;
	if ((lc = calloc(1, sizeof(*lc))) == NULL) {
		r->st->errors[LOAD_E_OTHER]++;
		return -1;
	}
	lc->r = r;
	lc->t_sched = t_sched;
	lc->first_wave = t_sched != 0;
	lc->calls_left = r->o->num_calls ? r->o->num_calls : UINT64_MAX;
	if (r->wl.n > 0) {
		lc->ws = &r->wl.s[r->next_ws++ % r->wl.n];
		lc->calls_left = lc->ws->calls;
		lc->burst_left = 1;
	} else if (r->o->wsess)
		lc->burst_left = r->o->burst_len < lc->calls_left ? r->o->burst_len : lc->calls_left;
	if ((lc->s = sess_new(r->loop, &r->so, &load_cbs, lc, &e, err, sizeof(err))) == NULL) {
		r->st->errors[e]++;
		if (r->o->verbose)
			fprintf(stderr, "httpload: connection %s: %s\n", load_err_name(e), err);
		free(lc);
		r->t_end = ev_clock_us();
		return -1;
	}
	lc->next = r->active;
	if (r->active != NULL)
		r->active->prev = lc;
	r->active = lc;
	r->nactive++;
	if (r->nactive > r->st->max_conns)
		r->st->max_conns = r->nactive;
	return 0;
}

/* Open loop: start every connection whose time has come, however late the loop is; each
 * keeps its scheduled time, so latencies include the lateness (no coordinated omission). */
static void
load_start_due(struct load_run *r)
{
	uint64_t now = ev_clock_us(), burst = 0;

	ev_timer_stop(r->loop, &r->tick);
	while (!r->stopping && !r->drained && r->started < r->num_conns && r->next_sched <= now &&
	    (r->o->max_conns == 0 || r->nactive < r->o->max_conns)) {
		load_conn_start(r, r->next_sched);
		burst++;
		r->next_sched += (uint64_t)(load_interarrival(r) * 1e6);
	}
	if (burst > r->st->max_burst)
		r->st->max_burst = burst;
	if (!r->stopping && !r->drained && r->started < r->num_conns &&
	    (r->o->max_conns == 0 || r->nactive < r->o->max_conns))
		ev_timer_start(r->loop, &r->tick, r->next_sched > now ? r->next_sched - now : 0,
		    load_tick, r);
	load_check_done(r);
}

static void
load_tick(struct ev_loop *loop, void *arg)
{
	(void)loop;
	load_start_due(arg);
}

/* Closed loop and --rate 0: keep the target number open (a loop: refusals can be instant). */
static void
load_refill(struct load_run *r)
{
	uint64_t target = r->o->concurrency > 0 ? r->o->concurrency : 1;

	ev_timer_stop(r->loop, &r->retry);
	while (!r->stopping && !r->drained && r->started < r->num_conns && r->nactive < target)
		if (load_conn_start(r, 0) == -1) {
			/* Failed at once (out of fds, refused locally): try again in a while
			 * rather than spin, so that timers and the other connections go on. */
			ev_timer_start(r->loop, &r->retry, 1000, load_retry, r);
			break;
		}
	load_check_done(r);
}

static void
load_retry(struct ev_loop *loop, void *arg)
{
	(void)loop;
	load_refill(arg);
}

/* --progress (the default on a terminal): a line on stderr at each reply-rate sample. */
static void
load_progress(struct load_run *r, double rate)
{
	const struct load_stats *st = r->st;

	fprintf(stderr, "httpload: %.0f s: %llu replies (%.1f/s now), %llu connections open, "
	    "%llu started, %llu errors%s\n", (double)(ev_clock_us() - r->t0) / 1e6,
	    (unsigned long long)st->replies, rate, (unsigned long long)r->nactive,
	    (unsigned long long)r->started, (unsigned long long)report_errors_total(st),
	    r->o->threads > 1 ? " (thread 1, a share of the load)" : "");
}

static void
load_sample(struct ev_loop *loop, void *arg)
{
	struct load_run *r = arg;
	struct load_stats *st = r->st;
	double rate = (double)r->interval_replies / LOAD_RATE_INTERVAL;

	if (r->o->verbose)
		printf("reply-rate = %-8.1f\n", rate);
	if (r->o->progress)
		load_progress(r, rate);
	st->rate_sum += rate;
	st->rate_sum2 += rate * rate;
	if (rate < st->rate_min)
		st->rate_min = rate;
	if (rate > st->rate_max)
		st->rate_max = rate;
	st->rate_samples++;
	r->interval_replies = 0;
	if (r->o->wsess) {
		rate = (double)r->interval_sessions / LOAD_RATE_INTERVAL;
		st->sess_rate_sum += rate;
		st->sess_rate_sum2 += rate * rate;
		if (rate < st->sess_rate_min)
			st->sess_rate_min = rate;
		if (rate > st->sess_rate_max)
			st->sess_rate_max = rate;
		st->sess_rate_samples++;
		r->interval_sessions = 0;
	}
	ev_timer_start(loop, &r->sample, (uint64_t)(LOAD_RATE_INTERVAL * 1e6), load_sample, r);
}

/* --duration: no new connections; the closed loop also drops what is in flight. */
static void
load_stop(struct ev_loop *loop, void *arg)
{
	struct load_run *r = arg;
	struct load_conn *lc;

	(void)loop;
	r->stopping = 1;
	ev_timer_stop(r->loop, &r->tick);
	r->t_end = ev_clock_us();
	if (r->o->concurrency > 0)
		while ((lc = r->active) != NULL)
			load_conn_free(lc);
	else
		for (lc = r->active; lc != NULL; lc = lc->next)
			sess_finish(lc->s);
	load_check_done(r);
}

/* SIGINT (load_interrupt, from the handler): every run ends as soon as it sees the flag, as
 * a --duration stop does, and its report is printed as usual. A flag polled 10 times a second
 * rather than a pipe per loop: the threads share it, and nothing can fail in the handler. */
static volatile sig_atomic_t load_interrupted;

void
load_interrupt(void)
{
	load_interrupted = 1;
}

static void
load_intr_check(struct ev_loop *loop, void *arg)
{
	struct load_run *r = arg;
	struct load_conn *lc;

	if (!load_interrupted) {
		ev_timer_start(loop, &r->intr, 100000, load_intr_check, r);
		return;
	}
	r->stopping = 1;
	ev_timer_stop(r->loop, &r->tick);
	ev_timer_stop(r->loop, &r->retry);
	r->t_end = ev_clock_us();
	while ((lc = r->active) != NULL)
		load_conn_free(lc);
	load_check_done(r);
}

static int
load_build(struct load_run *r, const char *method, const char *uri, const char *body,
    size_t body_len, char **out, size_t *out_len)
{
	const struct load_opts *o = r->o;
	const char *ka;
	char host[300], cl[64] = "";
	int n;
	char *req;

	/* Host names the first address; a port other than 80 goes with it (RFC 9110 7.2). */
	snprintf(host, sizeof(host), "%.*s", (int)strcspn(o->server, ","), o->server);
	if (o->port != 80 && strchr(host, ':') == NULL)
		snprintf(host + strlen(host), sizeof(host) - strlen(host), ":%u", o->port);
	else if (o->port != 80)
		snprintf(host, sizeof(host), "[%.*s]:%u", (int)strcspn(o->server, ","), o->server,
		    o->port);
	/* As httperf: HTTP/1.0 asks for keep-alive, so that --num-calls works there too. */
	ka = o->http_minor == 0 ? "Connection: keep-alive\r\n" : "";
	if (body != NULL)
		snprintf(cl, sizeof(cl), "Content-Length: %zu\r\n", body_len);
	n = snprintf(NULL, 0, "%s %s HTTP/1.%d\r\nUser-Agent: httpload/%s\r\n%sHost: %s\r\n%s%s"
	    "\r\n", method, uri, o->http_minor, PACKAGE_VERSION, ka, host, cl,
	    o->headers ? o->headers : "");
	if ((req = malloc((size_t)n + body_len + 1)) == NULL)
		return -1;
	snprintf(req, (size_t)n + 1, "%s %s HTTP/1.%d\r\nUser-Agent: httpload/%s\r\n%s"
	    "Host: %s\r\n%s%s\r\n", method, uri, o->http_minor, PACKAGE_VERSION, ka, host, cl,
	    o->headers ? o->headers : "");
	if (body != NULL)
		memcpy(req + n, body, body_len);
	*out = req;
	*out_len = (size_t)n + body_len;
	(void)r;
	return 0;
}

static int
load_request(struct load_run *r)
{
	const struct load_opts *o = r->o;
	size_t i, j, k;

	if (load_build(r, o->method, o->uri, NULL, 0, &r->req, &r->req_len) == -1)
		return -1;
	r->head_req = strcmp(o->method, "HEAD") == 0;
	for (i = 0; i < r->wl.n; i++)
		for (j = 0; j < r->wl.s[i].n; j++)
			for (k = 0; k < r->wl.s[i].b[j].n; k++) {
				struct wlog_req *q = &r->wl.s[i].b[j].r[k];
				const char *m = q->method ? q->method : o->method;

				if (load_build(r, m, q->uri, q->contents, q->contents_len, &q->req,
				    &q->req_len) == -1)
					return -1;
				q->head_req = strcmp(m, "HEAD") == 0;
			}
	return 0;
}

static double
load_tv(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int
load_run(const struct load_opts *o, struct load_stats *st, char *err, size_t errlen)
{
	struct load_run r;
	struct rusage ru0, ru1;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.st = st;
	r.seed = 0x5eed ^ (unsigned)o->client_id;
	if ((r.loop = ev_new(err, errlen)) == NULL)
		return -1;
	if (o->manifest != NULL) {
		if (verify_manifest_load(&r.man, o->manifest, err, errlen) == -1)
			goto bad;
		r.expect = verify_manifest_find(&r.man, o->uri, strlen(o->uri));
	}
	if (o->wsesslog != NULL && wlog_load(&r.wl, o->wsesslog, err, errlen) == -1)
		goto bad;
	if (load_request(&r) == -1) {
		tp_seterr(err, errlen, "out of memory");
		goto bad;
	}
	r.so.proto = o->proto;
	r.so.addr = o->addr;
	r.so.tls = o->tls;
	tp_opts_init(&r.so.tp);
	r.so.tp.streams = (uint16_t)o->streams;
	r.so.tp.nodelay = (int)o->nodelay;
	r.so.tp.sctp_interleave = o->interleave;
	r.so.tp.rto_min_ms = o->rto_min;
	r.so.tp.rto_initial_ms = o->rto_initial;
	r.so.tp.rto_max_ms = o->rto_max;
	r.so.tp.path_max_retrans = o->path_max_retrans;
	r.so.tp.local = o->local;
	r.so.tp.sndbuf = o->sndbuf;
	r.so.tp.rcvbuf = o->rcvbuf;
	r.so.tp.udp_port = (uint16_t)o->udp_port;
	r.so.tp.udp_remote_port = (uint16_t)o->udp_remote_port;
	r.so.tp.encap_port = (uint16_t)o->encap_port;
	r.so.tp.sack_delay_ms = o->sack_delay;
	r.so.tp.init_cwnd_mtus = o->init_cwnd;
	r.so.max_piped = o->max_piped;
	r.so.accept_ppid0 = o->accept_ppid0;
	r.so.timeout_us = (uint64_t)(o->timeout * 1e6);
	r.num_conns = o->num_conns;
	getrusage(RUSAGE_SELF, &ru0);
	r.t0 = ev_clock_us();
	r.t_end = r.t0;
	ev_timer_start(r.loop, &r.sample, (uint64_t)(LOAD_RATE_INTERVAL * 1e6), load_sample, &r);
	if (o->duration > 0)
		ev_timer_start(r.loop, &r.stop, (uint64_t)(o->duration * 1e6), load_stop, &r);
	ev_timer_start(r.loop, &r.intr, 100000, load_intr_check, &r);
	if (o->concurrency == 0 && o->rate > 0) {
		r.next_sched = r.t0;
		load_start_due(&r);
	} else {
		load_refill(&r);
	}
	if (r.nactive > 0 || (!r.stopping && r.started < r.num_conns)) {
		if (ev_run(r.loop) == -1) {
			tp_seterr(err, errlen, "event loop: %s", strerror(errno));
			goto bad;
		}
	}
	if (r.t_end < r.t0)
		r.t_end = ev_clock_us();
	getrusage(RUSAGE_SELF, &ru1);
	st->duration = (double)(r.t_end - r.t0) / 1e6;
	st->user = load_tv(&ru1.ru_utime) - load_tv(&ru0.ru_utime);
	st->sys = load_tv(&ru1.ru_stime) - load_tv(&ru0.ru_stime);
	rc = 0;
bad:
	while (r.active != NULL)
		load_conn_free(r.active);
	ev_timer_stop(r.loop, &r.tick);
	ev_timer_stop(r.loop, &r.sample);
	ev_timer_stop(r.loop, &r.stop);
	ev_timer_stop(r.loop, &r.retry);
	ev_timer_stop(r.loop, &r.intr);
	verify_manifest_free(&r.man);
	wlog_free(&r.wl);
	free(r.req);
	ev_free(r.loop);
	sess_cache_free();
	return rc;
}
