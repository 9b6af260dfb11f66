/* report.c: the counters, httperf 0.9.0's report line for line, latency percentiles, JSON, CSV. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

int
report_stats_init(struct load_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->life_min = DBL_MAX;
	st->rate_min = DBL_MAX;
	st->sess_rate_min = DBL_MAX;
	if ((st->life_hist = calloc(LOAD_LIFE_BINS + 1, sizeof(*st->life_hist))) == NULL)
		return -1;
	if (hist_init(&st->lat) == -1) {
		free(st->life_hist);
		st->life_hist = NULL;
		return -1;
	}
	return 0;
}

void
report_stats_free(struct load_stats *st)
{
	if (st == NULL)
		return;
	free(st->life_hist);
	st->life_hist = NULL;
	hist_free(&st->lat);
}

void
report_lifetime(struct load_stats *st, double t)
{
	size_t bin = (size_t)(t * LOAD_LIFE_BINS / 100.0);

	st->life_sum += t;
	st->life_sum2 += t * t;
	if (t < st->life_min)
		st->life_min = t;
	if (t > st->life_max)
		st->life_max = t;
	st->lifetimes++;
	st->life_hist[bin < LOAD_LIFE_BINS ? bin : LOAD_LIFE_BINS]++;
}

/* Threads: the counters add up; durations and CPU are the caller's (the longest, the sum). */
void
report_stats_merge(struct load_stats *d, const struct load_stats *s)
{
	size_t i;

	d->conns_issued += s->conns_issued;
	d->conns_connected += s->conns_connected;
	d->max_conns += s->max_conns;
	if (s->max_burst > d->max_burst)
		d->max_burst = s->max_burst;
	d->lifetimes += s->lifetimes;
	d->life_sum += s->life_sum;
	d->life_sum2 += s->life_sum2;
	if (s->life_min < d->life_min)
		d->life_min = s->life_min;
	if (s->life_max > d->life_max)
		d->life_max = s->life_max;
	for (i = 0; i <= LOAD_LIFE_BINS; i++)
		d->life_hist[i] += s->life_hist[i];
	d->connect_sum += s->connect_sum;
	d->rate_samples += s->rate_samples;
	d->rate_sum += s->rate_sum;
	d->rate_sum2 += s->rate_sum2;
	if (s->rate_min < d->rate_min)
		d->rate_min = s->rate_min;
	if (s->rate_max > d->rate_max)
		d->rate_max = s->rate_max;
	d->responses += s->responses;
	d->sent += s->sent;
	d->replies += s->replies;
	d->response_sum += s->response_sum;
	d->xfer_sum += s->xfer_sum;
	d->req_bytes += s->req_bytes;
	d->hdr_bytes += s->hdr_bytes;
	d->body_bytes += s->body_bytes;
	d->footer_bytes += s->footer_bytes;
	for (i = 0; i < 6; i++)
		d->status[i] += s->status[i];
	for (i = 0; i < LOAD_E_NUM; i++)
		d->errors[i] += s->errors[i];
	hist_merge(&d->lat, &s->lat);
	d->sess_ok += s->sess_ok;
	d->sess_failed += s->sess_failed;
	d->sess_conns += s->sess_conns;
	d->sess_life_sum += s->sess_life_sum;
	d->sess_fail_sum += s->sess_fail_sum;
	d->sess_rate_samples += s->sess_rate_samples;
	d->sess_rate_sum += s->sess_rate_sum;
	d->sess_rate_sum2 += s->sess_rate_sum2;
	if (s->sess_rate_min < d->sess_rate_min)
		d->sess_rate_min = s->sess_rate_min;
	if (s->sess_rate_max > d->sess_rate_max)
		d->sess_rate_max = s->sess_rate_max;
	for (i = 0; i <= LOAD_SESS_LEN_MAX; i++)
		d->sess_len[i] += s->sess_len[i];
	d->tls_handshakes += s->tls_handshakes;
	d->tls_resumed += s->tls_resumed;
	d->tls_hs_sum += s->tls_hs_sum;
	if (s->tls_hs_max > d->tls_hs_max)
		d->tls_hs_max = s->tls_hs_max;
}

uint64_t
report_errors_total(const struct load_stats *st)
{
	uint64_t t = 0;
	int i;

	for (i = 1; i < LOAD_E_NUM; i++)
		t += st->errors[i];
	return t;
}

static double
report_stddev(double sum, double sum2, uint64_t n)
{
	double m = sum / (double)n, v = (sum2 - (double)n * m * m) / (double)(n - 1);

	return v > 0 ? sqrt(v) : 0.0;
}

static double
report_median(const struct load_stats *st)
{
	uint64_t n = 0;
	size_t i;

	/* httperf's: the middle of the 1 ms bin where half of the lifetimes are reached. */
	for (i = 0; i < LOAD_LIFE_BINS; i++) {
		n += st->life_hist[i];
		if ((double)n >= 0.5 * (double)st->lifetimes)
			return (i + 0.5) * 1e-3;
	}
	return 0.0;
}

static uint64_t
report_replies(const struct load_stats *st)
{
	return st->status[1] + st->status[2] + st->status[3] + st->status[4] + st->status[5];
}

void
report_httperf(FILE *f, const struct load_stats *st, int verify)
{
	double delta = st->duration > 0 ? st->duration : 1e-9;
	double life_avg = 0, life_sd = 0, life_med = 0, rate_avg = 0, rate_sd = 0;
	double resp = 0, xfer = 0, hdr = 0, body = 0, foot = 0, call_size = 0;
	uint64_t replies = report_replies(st), total_size, errs = report_errors_total(st);

	fprintf(f, "\nTotal: connections %llu requests %llu replies %llu test-duration %.3f s\n",
	    (unsigned long long)st->conns_issued, (unsigned long long)st->sent,
	    (unsigned long long)replies, st->duration);
	fputc('\n', f);
	fprintf(f, "Connection rate: %.1f conn/s (%.1f ms/conn, <=%llu concurrent connections)\n",
	    (double)st->conns_issued / delta,
	    st->conns_issued ? 1e3 * delta / (double)st->conns_issued : 0.0,
	    (unsigned long long)st->max_conns);
	if (st->lifetimes > 0) {
		life_avg = st->life_sum / (double)st->lifetimes;
		if (st->lifetimes > 1)
			life_sd = report_stddev(st->life_sum, st->life_sum2, st->lifetimes);
		life_med = report_median(st);
	}
	fprintf(f, "Connection time [ms]: min %.1f avg %.1f max %.1f median %.1f stddev %.1f\n",
	    st->lifetimes > 0 ? 1e3 * st->life_min : 0.0, 1e3 * life_avg, 1e3 * st->life_max,
	    1e3 * life_med, 1e3 * life_sd);
	fprintf(f, "Connection time [ms]: connect %.1f\n",
	    st->conns_connected ? 1e3 * st->connect_sum / (double)st->conns_connected : 0.0);
	if (st->tls_handshakes > 0)
		fprintf(f, "TLS handshakes: %llu (%llu resumed), mean %.1f ms, longest %.1f ms\n",
		    (unsigned long long)st->tls_handshakes, (unsigned long long)st->tls_resumed,
		    1e3 * st->tls_hs_sum / (double)st->tls_handshakes, 1e3 * st->tls_hs_max);
	fprintf(f, "Connection length [replies/conn]: %.3f\n",
	    st->lifetimes > 0 ? (double)replies / (double)st->lifetimes : 0.0);
	fputc('\n', f);
	if (st->sent > 0)
		call_size = (double)st->req_bytes / (double)st->sent;
	fprintf(f, "Request rate: %.1f req/s (%.1f ms/req)\n", (double)st->sent / delta,
	    st->sent ? 1e3 * delta / (double)st->sent : 0.0);
	fprintf(f, "Request size [B]: %.1f\n", call_size);
	fputc('\n', f);
	if (st->rate_samples > 0) {
		rate_avg = st->rate_sum / (double)st->rate_samples;
		if (st->rate_samples > 1)
			rate_sd = report_stddev(st->rate_sum, st->rate_sum2, st->rate_samples);
	}
	fprintf(f, "Reply rate [replies/s]: min %.1f avg %.1f max %.1f stddev %.1f "
	    "(%llu samples)\n", st->rate_samples > 0 ? st->rate_min : 0.0, rate_avg, st->rate_max,
	    rate_sd, (unsigned long long)st->rate_samples);
	if (st->responses > 0)
		resp = st->response_sum / (double)st->responses;
	if (replies > 0) {
		xfer = st->xfer_sum / (double)replies;
		hdr = (double)st->hdr_bytes / (double)replies;
		body = (double)st->body_bytes / (double)replies;
		foot = (double)st->footer_bytes / (double)replies;
	}
	fprintf(f, "Reply time [ms]: response %.1f transfer %.1f\n", 1e3 * resp, 1e3 * xfer);
	fprintf(f, "Reply size [B]: header %.1f content %.1f footer %.1f (total %.1f)\n", hdr, body,
	    foot, hdr + body + foot);
	fprintf(f, "Reply status: 1xx=%llu 2xx=%llu 3xx=%llu 4xx=%llu 5xx=%llu\n",
	    (unsigned long long)st->status[1], (unsigned long long)st->status[2],
	    (unsigned long long)st->status[3], (unsigned long long)st->status[4],
	    (unsigned long long)st->status[5]);
	fputc('\n', f);
	fprintf(f, "CPU time [s]: user %.2f system %.2f (user %.1f%% system %.1f%% total %.1f%%)\n",
	    st->user, st->sys, 100.0 * st->user / delta, 100.0 * st->sys / delta,
	    100.0 * (st->user + st->sys) / delta);
	total_size = st->req_bytes + st->hdr_bytes + st->body_bytes;
	fprintf(f, "Net I/O: %.1f KB/s (%.1f*10^6 bps)\n", (double)total_size / delta / 1024.0,
	    8e-6 * (double)total_size / delta);
	fputc('\n', f);
	fprintf(f, "Errors: total %llu client-timo %llu socket-timo %llu connrefused %llu "
	    "connreset %llu\n", (unsigned long long)errs,
	    (unsigned long long)st->errors[LOAD_E_CLIENT_TIMO],
	    (unsigned long long)st->errors[LOAD_E_SOCK_TIMO],
	    (unsigned long long)st->errors[LOAD_E_REFUSED],
	    (unsigned long long)st->errors[LOAD_E_RESET]);
	/* The corrupt count extends the last line (only when checking), so that the regexes
	 * written for httperf's lines still match. */
	fprintf(f, "Errors: fd-unavail %llu addrunavail %llu ftab-full %llu other %llu",
	    (unsigned long long)st->errors[LOAD_E_FDUNAVAIL],
	    (unsigned long long)st->errors[LOAD_E_ADDRUNAVAIL],
	    (unsigned long long)st->errors[LOAD_E_FTABFULL],
	    (unsigned long long)st->errors[LOAD_E_OTHER]);
	if (verify)
		fprintf(f, " corrupt %llu", (unsigned long long)st->errors[LOAD_E_CORRUPT]);
	fputc('\n', f);
}

/* httperf 0.9.0's session lines (stat/sess_stat.c), after the Errors lines. */
void
report_sessions(FILE *f, const struct load_stats *st)
{
	uint64_t n = st->sess_ok + st->sess_failed;
	size_t i, longest = 0;
	double delta = st->duration > 0 ? st->duration : 1e-9;

	for (i = 0; i <= LOAD_SESS_LEN_MAX; i++)
		if (st->sess_len[i] > 0)
			longest = i;
	fprintf(f, "\nSession rate [sess/s]: min %.2f avg %.2f max %.2f stddev %.2f (%llu/%llu)\n",
	    st->sess_rate_samples ? st->sess_rate_min : 0.0, (double)st->sess_ok / delta,
	    st->sess_rate_samples ? st->sess_rate_max : 0.0,
	    st->sess_rate_samples > 1 ? report_stddev(st->sess_rate_sum, st->sess_rate_sum2,
	    st->sess_rate_samples) : 0.0, (unsigned long long)st->sess_ok, (unsigned long long)n);
	fprintf(f, "Session: avg %.2f connections/session\n",
	    n ? (double)st->sess_conns / (double)n : 0.0);
	fprintf(f, "Session lifetime [s]: %.1f\n",
	    st->sess_ok ? st->sess_life_sum / (double)st->sess_ok : 0.0);
	fprintf(f, "Session failtime [s]: %.1f\n",
	    st->sess_failed ? st->sess_fail_sum / (double)st->sess_failed : 0.0);
	fprintf(f, "Session length histogram:");
	for (i = 0; i <= longest; i++)
		fprintf(f, " %llu", (unsigned long long)st->sess_len[i]);
	fputc('\n', f);
}

static const double report_q[] = { 0.5, 0.9, 0.99, 0.999 };

/* Ours, after httperf's report: per-call latency, corrected for coordinated omission. */
void
report_latency(FILE *f, const struct load_stats *st)
{
	const struct hist *h = &st->lat;

	fprintf(f, "\nLatency [ms]: min %.3f avg %.3f p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f "
	    "max %.3f stddev %.3f (%llu calls)\n", h->n ? (double)h->min / 1e3 : 0.0,
	    hist_mean(h) / 1e3, (double)hist_quantile(h, 0.5) / 1e3,
	    (double)hist_quantile(h, 0.9) / 1e3, (double)hist_quantile(h, 0.99) / 1e3,
	    (double)hist_quantile(h, 0.999) / 1e3, (double)h->max / 1e3, hist_stddev(h) / 1e3,
	    (unsigned long long)h->n);
}

void
report_json(FILE *f, const struct load_stats *st)
{
	const struct hist *h = &st->lat;
	double d = st->duration > 0 ? st->duration : 1e-9;
	uint64_t replies = report_replies(st);
	int i;

	fprintf(f, "{\"connections\":%llu,\"requests\":%llu,\"replies\":%llu,\"duration_s\":%.6f,"
	    "\"conn_rate\":%.3f,\"request_rate\":%.3f,\"reply_rate\":%.3f,",
	    (unsigned long long)st->conns_issued, (unsigned long long)st->sent,
	    (unsigned long long)replies, st->duration, (double)st->conns_issued / d,
	    (double)st->sent / d, (double)replies / d);
	fprintf(f, "\"bytes\":{\"request\":%llu,\"header\":%llu,\"content\":%llu,\"footer\":%llu},",
	    (unsigned long long)st->req_bytes, (unsigned long long)st->hdr_bytes,
	    (unsigned long long)st->body_bytes, (unsigned long long)st->footer_bytes);
	fprintf(f, "\"status\":{\"1xx\":%llu,\"2xx\":%llu,\"3xx\":%llu,\"4xx\":%llu,\"5xx\":%llu},",
	    (unsigned long long)st->status[1], (unsigned long long)st->status[2],
	    (unsigned long long)st->status[3], (unsigned long long)st->status[4],
	    (unsigned long long)st->status[5]);
	fprintf(f, "\"errors\":{\"total\":%llu", (unsigned long long)report_errors_total(st));
	for (i = 1; i < LOAD_E_NUM; i++)
		fprintf(f, ",\"%s\":%llu", load_err_name((enum load_err)i),
		    (unsigned long long)st->errors[i]);
	fprintf(f, "},\"latency_ms\":{\"min\":%.3f,\"mean\":%.3f", h->n ? (double)h->min / 1e3 : 0.0,
	    hist_mean(h) / 1e3);
	for (i = 0; i < 4; i++)
		fprintf(f, ",\"p%g\":%.3f", report_q[i] * 100, (double)hist_quantile(h, report_q[i]) / 1e3);
	fprintf(f, ",\"max\":%.3f,\"stddev\":%.3f},\"cpu_s\":{\"user\":%.3f,\"system\":%.3f}",
	    (double)h->max / 1e3, hist_stddev(h) / 1e3, st->user, st->sys);
	if (st->tls_handshakes > 0)
		fprintf(f, ",\"tls\":{\"handshakes\":%llu,\"resumed\":%llu,\"handshake_mean_ms\":%.3f,"
		    "\"handshake_max_ms\":%.3f}", (unsigned long long)st->tls_handshakes,
		    (unsigned long long)st->tls_resumed, 1e3 * st->tls_hs_sum / (double)st->tls_handshakes,
		    1e3 * st->tls_hs_max);
	if (st->clients > 0)
		fprintf(f, ",\"clients\":%llu,\"clients_rate_sum\":{\"conn_rate\":%.3f,"
		    "\"request_rate\":%.3f,\"reply_rate\":%.3f}", (unsigned long long)st->clients,
		    st->client_rates[0], st->client_rates[1], st->client_rates[2]);
	report_raw_print(f, st);
	fputs("}\n", f);
}

void
report_csv(FILE *f, const struct load_stats *st, int header)
{
	const struct hist *h = &st->lat;
	double d = st->duration > 0 ? st->duration : 1e-9;
	uint64_t replies = report_replies(st);

	if (header)
		fprintf(f, "connections,requests,replies,duration_s,reply_rate,bytes_in,"
		    "status_2xx,status_3xx,status_4xx,status_5xx,errors,corrupt,"
		    "lat_p50_ms,lat_p90_ms,lat_p99_ms,lat_p999_ms,lat_max_ms\n");
	fprintf(f, "%llu,%llu,%llu,%.6f,%.3f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,"
	    "%.3f,%.3f,%.3f,%.3f,%.3f\n",
	    (unsigned long long)st->conns_issued, (unsigned long long)st->sent,
	    (unsigned long long)replies, st->duration, (double)replies / d,
	    (unsigned long long)(st->hdr_bytes + st->body_bytes + st->footer_bytes),
	    (unsigned long long)st->status[2], (unsigned long long)st->status[3],
	    (unsigned long long)st->status[4], (unsigned long long)st->status[5],
	    (unsigned long long)report_errors_total(st),
	    (unsigned long long)st->errors[LOAD_E_CORRUPT],
	    (double)hist_quantile(h, 0.5) / 1e3, (double)hist_quantile(h, 0.9) / 1e3,
	    (double)hist_quantile(h, 0.99) / 1e3, (double)hist_quantile(h, 0.999) / 1e3,
	    (double)h->max / 1e3);
}
