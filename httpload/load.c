/* load.c: the schedule: connections at a rate (open loop) or kept at a concurrency (closed). */
#include <errno.h>
#include <math.h>
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
};

struct load_run {
	const struct load_opts *o;
	struct ev_loop *loop;
	struct load_stats *st;
	struct verify_manifest man;
	const struct verify_entry *expect; /* the manifest's entry for the URI */
	struct sess_opts so;
	char *req;
	size_t req_len;
	int head_req;
	struct load_conn *active;
	uint64_t nactive, started, num_conns, next_id;
	uint64_t t0, next_sched, t_end;
	uint64_t interval_replies;
	struct ev_timer tick, sample, stop, retry;
	int stopping;            /* no new connections */
	unsigned seed;
	char err[TP_ERRLEN];
};

static void load_start_due(struct load_run *r);
static int load_conn_start(struct load_run *r, uint64_t t_sched);
static void load_tick(struct ev_loop *loop, void *arg);
static void load_refill(struct load_run *r);
static void load_retry(struct ev_loop *loop, void *arg);

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

/* Keep the connection's streams busy with calls, as many as it has slots and calls left. */
static void
load_fill(struct load_conn *lc)
{
	struct load_run *r = lc->r;
	const struct load_opts *o = r->o;
	struct sess_call *k;
	int bol;

	while (lc->calls_left > 0 && !r->stopping && sess_slots(lc->s) > 0) {
		k = sess_issue(lc->s, r->req, r->req_len, r->head_req,
		    lc->first_wave ? lc->t_sched : 0);
		if (k == NULL)
			break;
		k->id = r->next_id++;
		k->arg = lc;
		if (lc->calls_left != UINT64_MAX)
			lc->calls_left--;
		r->st->sent++;
		r->st->req_bytes += r->req_len;
		if (o->print_request) {
			bol = 1;
			if (o->print_request & LOAD_PRINT_HEADER)
				load_print_lines(r, "SH", k->id, r->req, r->req_len, &bol);
			printf("SS%llu: header %zu content 0\n", (unsigned long long)k->id,
			    r->req_len);
		}
	}
	lc->first_wave = 0;
	if (lc->calls_left == 0 || r->stopping)
		sess_finish(lc->s);
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

static void
load_done(struct sess *s, struct sess_call *k, void *arg)
{
	struct load_conn *lc = arg;
	struct load_run *r = lc->r;
	struct load_stats *st = r->st;
	int cls = k->status / 100;

	st->replies++;
	st->status[cls < 1 ? 1 : cls > 5 ? 5 : cls]++;
	st->hdr_bytes += k->hdr_bytes;
	st->body_bytes += k->body_bytes;
	st->footer_bytes += k->footer_bytes;
	st->xfer_sum += (double)(k->t_done - k->t_first) / 1e6;
	hist_add(&st->lat, k->t_done - k->t_sched);
	r->interval_replies++;
	lc->completed++;
	if (r->o->verify) {
		if (k->content_length >= 0 && !k->head_req &&
		    k->data_bytes != (uint64_t)k->content_length)
			st->errors[LOAD_E_CORRUPT]++;
		else if (r->expect != NULL && k->status == 200 && !k->head_req &&
		    (k->data_bytes != r->expect->size || k->crc != r->expect->crc))
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
	load_fill(lc);
}

static void
load_check_done(struct load_run *r)
{
	if (r->nactive == 0 && (r->stopping || r->started >= r->num_conns))
		ev_stop(r->loop);
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
	/* Dropped at the end of a closed-loop run: it lived until the stop, not until now. */
	if (lc->completed > 0)
		report_lifetime(r->st, (double)((r->stopping ? r->t_end : ev_clock_us()) -
		    sess_t_start(lc->s)) / 1e6);
	sess_free(lc->s);
	free(lc);
}

static void
load_end(struct sess *s, enum load_err e, const char *why, unsigned abandoned, void *arg)
{
	struct load_conn *lc = arg;
	struct load_run *r = lc->r;

	(void)s;
	(void)abandoned;
	if (e != LOAD_OK) {
		r->st->errors[e]++;
		if (r->o->verbose)
			fprintf(stderr, "httpload: connection %s: %s\n", load_err_name(e), why);
	}
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
	while (!r->stopping && r->started < r->num_conns && r->next_sched <= now &&
	    (r->o->max_conns == 0 || r->nactive < r->o->max_conns)) {
		load_conn_start(r, r->next_sched);
		burst++;
		r->next_sched += (uint64_t)(load_interarrival(r) * 1e6);
	}
	if (burst > r->st->max_burst)
		r->st->max_burst = burst;
	if (!r->stopping && r->started < r->num_conns &&
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
	while (!r->stopping && r->started < r->num_conns && r->nactive < target)
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

static void
load_sample(struct ev_loop *loop, void *arg)
{
	struct load_run *r = arg;
	struct load_stats *st = r->st;
	double rate = (double)r->interval_replies / LOAD_RATE_INTERVAL;

	if (r->o->verbose)
		printf("reply-rate = %-8.1f\n", rate);
	st->rate_sum += rate;
	st->rate_sum2 += rate * rate;
	if (rate < st->rate_min)
		st->rate_min = rate;
	if (rate > st->rate_max)
		st->rate_max = rate;
	st->rate_samples++;
	r->interval_replies = 0;
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

static int
load_request(struct load_run *r)
{
	const struct load_opts *o = r->o;
	const char *ka;
	char host[300];
	int n;

	/* Host names the first address; a port other than 80 goes with it (RFC 9110 7.2). */
	snprintf(host, sizeof(host), "%.*s", (int)strcspn(o->server, ","), o->server);
	if (o->port != 80 && strchr(host, ':') == NULL)
		snprintf(host + strlen(host), sizeof(host) - strlen(host), ":%u", o->port);
	else if (o->port != 80)
		snprintf(host, sizeof(host), "[%.*s]:%u", (int)strcspn(o->server, ","), o->server,
		    o->port);
	/* As httperf: HTTP/1.0 asks for keep-alive, so that --num-calls works there too. */
	ka = o->http_minor == 0 ? "Connection: keep-alive\r\n" : "";
	n = snprintf(NULL, 0, "%s %s HTTP/1.%d\r\nUser-Agent: httpload/%s\r\n%sHost: %s\r\n%s\r\n",
	    o->method, o->uri, o->http_minor, PACKAGE_VERSION, ka, host,
	    o->headers ? o->headers : "");
	if ((r->req = malloc((size_t)n + 1)) == NULL)
		return -1;
	snprintf(r->req, (size_t)n + 1, "%s %s HTTP/1.%d\r\nUser-Agent: httpload/%s\r\n%s"
	    "Host: %s\r\n%s\r\n", o->method, o->uri, o->http_minor, PACKAGE_VERSION, ka, host,
	    o->headers ? o->headers : "");
	r->req_len = (size_t)n;
	r->head_req = strcmp(o->method, "HEAD") == 0;
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
	if (load_request(&r) == -1) {
		tp_seterr(err, errlen, "out of memory");
		goto bad;
	}
	r.so.proto = o->proto;
	r.so.addr = o->addr;
	tp_opts_init(&r.so.tp);
	r.so.tp.streams = (uint16_t)o->streams;
	r.so.tp.nodelay = (int)o->nodelay;
	r.so.tp.rto_min_ms = o->rto_min;
	r.so.tp.sndbuf = o->sndbuf;
	r.so.tp.rcvbuf = o->rcvbuf;
	r.so.tp.udp_port = (uint16_t)o->udp_port;
	r.so.tp.udp_remote_port = (uint16_t)o->udp_remote_port;
	r.so.max_piped = o->max_piped;
	r.so.timeout_us = (uint64_t)(o->timeout * 1e6);
	r.num_conns = o->num_conns;
	getrusage(RUSAGE_SELF, &ru0);
	r.t0 = ev_clock_us();
	r.t_end = r.t0;
	ev_timer_start(r.loop, &r.sample, (uint64_t)(LOAD_RATE_INTERVAL * 1e6), load_sample, &r);
	if (o->duration > 0)
		ev_timer_start(r.loop, &r.stop, (uint64_t)(o->duration * 1e6), load_stop, &r);
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
	verify_manifest_free(&r.man);
	free(r.req);
	ev_free(r.loop);
	return rc;
}
