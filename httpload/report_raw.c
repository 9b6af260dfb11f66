/* report_raw.c: --json's "raw" section, every counter a report is made from (histograms
 * bucket by bucket, sums not means), and its reading back: what httpload merge adds up. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

enum raw_type { RAW_U64, RAW_DBL };

struct raw_field {
	const char *path;
	enum raw_type type;
	size_t off;
};

#define RAW_U(p, m) { p, RAW_U64, offsetof(struct load_stats, m) }
#define RAW_D(p, m) { p, RAW_DBL, offsetof(struct load_stats, m) }

/* The counters outside "raw" are read from the report's own fields. */
static const struct raw_field raw_fields[] = {
	RAW_U("connections", conns_issued), RAW_U("requests", sent),
	RAW_U("bytes.request", req_bytes), RAW_U("bytes.header", hdr_bytes),
	RAW_U("bytes.content", body_bytes), RAW_U("bytes.footer", footer_bytes),
	RAW_U("status.1xx", status[1]), RAW_U("status.2xx", status[2]),
	RAW_U("status.3xx", status[3]), RAW_U("status.4xx", status[4]),
	RAW_U("status.5xx", status[5]),
	RAW_D("raw.duration", duration), RAW_D("raw.user", user), RAW_D("raw.system", sys),
	RAW_U("raw.conns_connected", conns_connected), RAW_U("raw.max_conns", max_conns),
	RAW_U("raw.max_burst", max_burst), RAW_D("raw.connect_sum", connect_sum),
	RAW_U("raw.responses", responses), RAW_U("raw.replies", replies),
	RAW_D("raw.response_sum", response_sum), RAW_D("raw.xfer_sum", xfer_sum),
	RAW_U("raw.life.n", lifetimes), RAW_D("raw.life.sum", life_sum),
	RAW_D("raw.life.sum2", life_sum2), RAW_D("raw.life.min", life_min),
	RAW_D("raw.life.max", life_max),
	RAW_U("raw.rate.n", rate_samples), RAW_D("raw.rate.sum", rate_sum),
	RAW_D("raw.rate.sum2", rate_sum2), RAW_D("raw.rate.min", rate_min),
	RAW_D("raw.rate.max", rate_max),
	RAW_U("raw.sess.ok", sess_ok), RAW_U("raw.sess.failed", sess_failed),
	RAW_U("raw.sess.conns", sess_conns), RAW_D("raw.sess.life_sum", sess_life_sum),
	RAW_D("raw.sess.fail_sum", sess_fail_sum), RAW_U("raw.sess.rate_n", sess_rate_samples),
	RAW_D("raw.sess.rate_sum", sess_rate_sum), RAW_D("raw.sess.rate_sum2", sess_rate_sum2),
	RAW_D("raw.sess.rate_min", sess_rate_min), RAW_D("raw.sess.rate_max", sess_rate_max),
	RAW_U("raw.lat.n", lat.n), RAW_U("raw.lat.min", lat.min), RAW_U("raw.lat.max", lat.max),
	RAW_D("raw.lat.sum", lat.sum), RAW_D("raw.lat.sum2", lat.sum2),
	RAW_U("raw.clients", clients),
	RAW_U("raw.tls.handshakes", tls_handshakes), RAW_U("raw.tls.resumed", tls_resumed),
	RAW_D("raw.tls.hs_sum", tls_hs_sum), RAW_D("raw.tls.hs_max", tls_hs_max),
};

/* [[index, count], ...] of the non-empty bins of V32 (or V64) */
static void
raw_print_pairs(FILE *f, const uint32_t *v32, const uint64_t *v64, size_t n)
{
	const char *sep = "";
	uint64_t c;
	size_t i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		c = v32 != NULL ? v32[i] : v64[i];
		if (c != 0) {
			fprintf(f, "%s[%zu,%llu]", sep, i, (unsigned long long)c);
			sep = ",";
		}
	}
	fputc(']', f);
}

static void
raw_u(FILE *f, const char *sep, const char *key, uint64_t v)
{
	fprintf(f, "%s\"%s\":%llu", sep, key, (unsigned long long)v);
}

static void
raw_d(FILE *f, const char *sep, const char *key, double v)
{
	fprintf(f, "%s\"%s\":%.17g", sep, key, v);
}

/* ,"raw":{...} (the caller closes the report's object); doubles with 17 digits: exact. Its
 * keys are those of raw_fields, plus the histograms. */
void
report_raw_print(FILE *f, const struct load_stats *st)
{
	fputs(",\"raw\":{\"format\":1", f);
	raw_d(f, ",", "duration", st->duration);
	raw_d(f, ",", "user", st->user);
	raw_d(f, ",", "system", st->sys);
	raw_u(f, ",", "conns_connected", st->conns_connected);
	raw_u(f, ",", "max_conns", st->max_conns);
	raw_u(f, ",", "max_burst", st->max_burst);
	raw_d(f, ",", "connect_sum", st->connect_sum);
	raw_u(f, ",", "responses", st->responses);
	raw_u(f, ",", "replies", st->replies);
	raw_d(f, ",", "response_sum", st->response_sum);
	raw_d(f, ",", "xfer_sum", st->xfer_sum);
	raw_u(f, ",\"life\":{", "n", st->lifetimes);
	raw_d(f, ",", "sum", st->life_sum);
	raw_d(f, ",", "sum2", st->life_sum2);
	raw_d(f, ",", "min", st->life_min);
	raw_d(f, ",", "max", st->life_max);
	fputs(",\"hist\":", f);
	raw_print_pairs(f, st->life_hist, NULL, LOAD_LIFE_BINS + 1);
	raw_u(f, "},\"rate\":{", "n", st->rate_samples);
	raw_d(f, ",", "sum", st->rate_sum);
	raw_d(f, ",", "sum2", st->rate_sum2);
	raw_d(f, ",", "min", st->rate_min);
	raw_d(f, ",", "max", st->rate_max);
	raw_u(f, "},\"sess\":{", "ok", st->sess_ok);
	raw_u(f, ",", "failed", st->sess_failed);
	raw_u(f, ",", "conns", st->sess_conns);
	raw_d(f, ",", "life_sum", st->sess_life_sum);
	raw_d(f, ",", "fail_sum", st->sess_fail_sum);
	raw_u(f, ",", "rate_n", st->sess_rate_samples);
	raw_d(f, ",", "rate_sum", st->sess_rate_sum);
	raw_d(f, ",", "rate_sum2", st->sess_rate_sum2);
	raw_d(f, ",", "rate_min", st->sess_rate_min);
	raw_d(f, ",", "rate_max", st->sess_rate_max);
	fputs(",\"len\":", f);
	raw_print_pairs(f, NULL, st->sess_len, LOAD_SESS_LEN_MAX + 1);
	raw_u(f, "},\"lat\":{", "n", st->lat.n);
	raw_u(f, ",", "min", st->lat.min);
	raw_u(f, ",", "max", st->lat.max);
	raw_d(f, ",", "sum", st->lat.sum);
	raw_d(f, ",", "sum2", st->lat.sum2);
	fputs(",\"hist\":", f);
	hist_print_buckets(f, &st->lat);
	raw_u(f, "},", "clients", st->clients);
	fprintf(f, ",\"client_rates\":[%.17g,%.17g,%.17g]", st->client_rates[0],
	    st->client_rates[1], st->client_rates[2]);
	raw_u(f, ",\"tls\":{", "handshakes", st->tls_handshakes);
	raw_u(f, ",", "resumed", st->tls_resumed);
	raw_d(f, ",", "hs_sum", st->tls_hs_sum);
	raw_d(f, ",", "hs_max", st->tls_hs_max);
	fputs("}}", f);
}

/* Reading back: one report into ST (fresh from report_stats_init). */
struct raw_read {
	struct load_stats *st;
	int format;
	uint64_t pair[2];        /* a histogram's [key, count] being read */
};

static int
raw_tok_u64(const char *tok, uint64_t *v)
{
	char *end;

	if (*tok == '-' || strpbrk(tok, ".eE") != NULL)
		return -1;
	errno = 0;
	*v = strtoull(tok, &end, 10);
	return *end == '\0' && errno == 0 ? 0 : -1;
}

static int
raw_pair(struct raw_read *r, const char *path, const size_t *idx, uint64_t v, char *err,
    size_t errlen)
{
	struct load_stats *st = r->st;

	r->pair[idx[1]] = v;
	if (idx[1] == 0)
		return 0;
	if (strcmp(path, "raw.life.hist") == 0) {
		if (r->pair[0] > LOAD_LIFE_BINS || v > UINT32_MAX - st->life_hist[r->pair[0]])
			goto bad;
		st->life_hist[r->pair[0]] += (uint32_t)v;
	} else if (strcmp(path, "raw.sess.len") == 0) {
		if (r->pair[0] > LOAD_SESS_LEN_MAX)
			goto bad;
		st->sess_len[r->pair[0]] += v;
	} else {
		hist_add_bucket(&st->lat, r->pair[0], v);
	}
	return 0;
bad:
	snprintf(err, errlen, "%s: bucket %llu out of range, or its count too large", path,
	    (unsigned long long)r->pair[0]);
	return -1;
}

static int
raw_field_cb(void *ctx, const char *path, const size_t *idx, size_t nidx, const char *tok,
    char *err, size_t errlen)
{
	struct raw_read *r = ctx;
	uint64_t u;
	size_t i;
	char *end;
	void *p;

	if (strcmp(path, "raw.format") == 0) {
		r->format = atoi(tok);
		return 0;
	}
	if (strcmp(path, "raw.client_rates") == 0 && nidx == 1 && idx[0] < 3) {
		r->st->client_rates[idx[0]] = strtod(tok, NULL);
		return 0;
	}
	if (strcmp(path, "raw.life.hist") == 0 || strcmp(path, "raw.sess.len") == 0 ||
	    strcmp(path, "raw.lat.hist") == 0) {
		if (nidx != 2 || idx[1] > 1 || raw_tok_u64(tok, &u) == -1) {
			snprintf(err, errlen, "%s: not [[key, count], ...] (at '%s')", path, tok);
			return -1;
		}
		return raw_pair(r, path, idx, u, err, errlen);
	}
	if (strncmp(path, "errors.", 7) == 0) {
		for (i = 1; i < LOAD_E_NUM; i++)
			if (strcmp(path + 7, load_err_name((enum load_err)i)) == 0)
				break;
		if (i == LOAD_E_NUM)
			return 0; /* "total", or a class this httpload does not know */
		if (raw_tok_u64(tok, &r->st->errors[i]) == -1)
			goto bad;
		return 0;
	}
	for (i = 0; i < sizeof(raw_fields) / sizeof(raw_fields[0]); i++) {
		if (strcmp(path, raw_fields[i].path) != 0 || nidx != 0)
			continue;
		p = (char *)r->st + raw_fields[i].off;
		if (raw_fields[i].type == RAW_U64) {
			if (raw_tok_u64(tok, p) == -1)
				goto bad;
		} else {
			*(double *)p = strtod(tok, &end);
			if (*end != '\0')
				goto bad;
		}
		return 0;
	}
	return 0; /* the derived figures (rates, latency_ms, ...): made again from the counters */
bad:
	snprintf(err, errlen, "%s: bad number '%s'", path, tok);
	return -1;
}

/* TEXT: one report of httpload --json; ST: initialised by report_stats_init. */
int
report_raw_read(const char *text, struct load_stats *st, char *err, size_t errlen)
{
	struct raw_read r;

	memset(&r, 0, sizeof(r));
	r.st = st;
	if (jsonr_walk(text, raw_field_cb, &r, err, errlen) == -1)
		return -1;
	if (r.format != 1) {
		snprintf(err, errlen, "%s", r.format == 0 ?
		    "no \"raw\" section (not httpload --json, or from an httpload before merge)" :
		    "\"raw\" section of an unknown format");
		return -1;
	}
	return 0;
}
