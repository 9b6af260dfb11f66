/* throttle.c: thttpd's throttles (-t FILE): a byte rate per URL pattern, shared evenly by the
 * responses that match it, paced from the event loop's timers (a token bucket per response): a
 * wrapper around the response's body source. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "match.h"
#include "resp.h"
#include "throttle.h"

#define THROTTLE_MAX 64
#define THROTTLE_TICK_US 100000   /* bucket depth: a tenth of a second of the rate */
#define THROTTLE_MIN_BURST 4096
#define THROTTLE_PER_RESP 4     /* throttles one response counts against at most */

struct throttle {
	char *pattern;
	uint64_t max_bps, min_bps;
	unsigned active;              /* responses matching it now */
};

static struct throttle throttle_tab[THROTTLE_MAX];
static unsigned throttle_n;

static int
throttle_rate(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return -1;
	return (int)(end - s);
}

/* thttpd's format: "PATTERN MAX" or "PATTERN MIN-MAX" (bytes per second), '#' comments. */
int
throttle_load(const char *path, char *err, size_t errlen)
{
	char line[1024];
	unsigned lineno = 0;
	FILE *f;

	throttle_free_all();
	if ((f = fopen(path, "r")) == NULL) {
		snprintf(err, errlen, "throttle file %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *pat, *lim, *c;
		uint64_t a, b;
		int n;

		lineno++;
		if ((c = strchr(p, '#')) != NULL)
			*c = '\0';
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			continue;
		pat = p;
		while (*p != '\0' && !isspace((unsigned char)*p))
			p++;
		if (*p != '\0')
			*p++ = '\0';
		while (isspace((unsigned char)*p))
			p++;
		lim = p;
		while (*p != '\0' && !isspace((unsigned char)*p))
			p++;
		*p = '\0';
		if ((n = throttle_rate(lim, &a)) < 0)
			goto bad;
		b = a;
		if (lim[n] == '-') {
			int m = throttle_rate(lim + n + 1, &b);
			if (m < 0 || lim[n + 1 + m] != '\0')
				goto bad;
		} else if (lim[n] != '\0') {
			goto bad;
		} else {
			a = 0;
		}
		if (b == 0 || a > b)
			goto bad;
		if (throttle_n == THROTTLE_MAX) {
			snprintf(err, errlen, "%s:%u: more than %d throttles", path, lineno,
			    THROTTLE_MAX);
			goto fail;
		}
		if ((throttle_tab[throttle_n].pattern = strdup(pat)) == NULL) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		throttle_tab[throttle_n].min_bps = a;
		throttle_tab[throttle_n].max_bps = b;
		throttle_n++;
	}
	fclose(f);
	return 0;
bad:
	snprintf(err, errlen, "%s:%u: want PATTERN MAX or PATTERN MIN-MAX (bytes/s, MAX > 0)",
	    path, lineno);
fail:
	fclose(f);
	throttle_free_all();
	return -1;
}

void
throttle_free_all(void)
{
	unsigned i;

	for (i = 0; i < throttle_n; i++)
		free(throttle_tab[i].pattern);
	memset(throttle_tab, 0, sizeof(throttle_tab));
	throttle_n = 0;
}

/* A body source under throttles: each has its own bucket filled at its share of them. */
struct throttle_src {
	struct resp_src src;
	struct resp_src *inner;
	unsigned char thr[THROTTLE_PER_RESP]; /* the throttles it counts against */
	unsigned nthr;
	double tokens;
	uint64_t last;
};

/* its share: as in thttpd, each pattern's rate split evenly among its responses now. */
static double
throttle_share(const struct throttle_src *t)
{
	double rate = 0;
	unsigned i;

	for (i = 0; i < t->nthr; i++) {
		const struct throttle *p = &throttle_tab[t->thr[i]];
		double share = (double)p->max_bps / (p->active > 0 ? p->active : 1);
		if (i == 0 || share < rate)
			rate = share;
	}
	return rate;
}

/* Bytes of the body that may go now (at most want); 0 with *wait_us until some may. Each
 * response has its own bucket filled at its share, a tenth of a second deep. */
static size_t
throttle_allow(struct throttle_src *t, size_t want, uint64_t now, uint64_t *wait_us)
{
	double rate = throttle_share(t), burst = rate * THROTTLE_TICK_US / 1e6, need;

	*wait_us = 0;
	if (burst < THROTTLE_MIN_BURST)
		burst = THROTTLE_MIN_BURST;
	if (t->last == 0) {
		t->tokens = burst;
	} else if (now > t->last) {
		t->tokens += (double)(now - t->last) * rate / 1e6;
		if (t->tokens > burst)
			t->tokens = burst;
	}
	t->last = now;
	if (t->tokens >= (double)want)
		return want;
	/* Wait for a useful piece rather than send a trickle of tiny messages. */
	need = burst / 2 < (double)want ? burst / 2 : (double)want;
	if (t->tokens < need) {
		*wait_us = (uint64_t)((need - t->tokens) * 1e6 / rate) + 1;
		return 0;
	}
	return (size_t)t->tokens;
}

static int
throttle_pull(struct resp_src *src, struct resp *r, struct resp_sink *k, size_t max)
{
	struct throttle_src *t = (struct throttle_src *)src;
	uint64_t left = t->inner->ops->left(t->inner);
	size_t before = k->moved, want = left < max ? (size_t)left : max;
	int rc;

	if (left == 0)
		return t->inner->ops->pull(t->inner, r, k, max);
	if ((want = throttle_allow(t, want, httpd_now_us(), &k->wait_us)) == 0)
		return RESP_WAIT;
	rc = t->inner->ops->pull(t->inner, r, k, want);
	t->tokens -= (double)(k->moved - before);
	return rc;
}

static uint64_t
throttle_left(const struct resp_src *src)
{
	const struct throttle_src *t = (const struct throttle_src *)src;

	return t->inner->ops->left(t->inner);
}

static void
throttle_src_free(struct resp_src *src)
{
	struct throttle_src *t = (struct throttle_src *)src;
	unsigned i;

	for (i = 0; i < t->nthr; i++)
		throttle_tab[t->thr[i]].active--;
	t->inner->ops->free(t->inner);
	free(t);
}

static const struct resp_src_ops throttle_ops = {
	.pull = throttle_pull, .left = throttle_left, .free = throttle_src_free,
};

/*
 * r's body under the throttles path falls under. Like thttpd, a pattern's rate is shared by all
 * its responses; a MIN refuses (-1: answer 503) a response whose share would fall below it.
 */
int
throttle_attach(struct resp *r, const char *path)
{
	unsigned char thr[THROTTLE_PER_RESP];
	struct throttle_src *ts;
	unsigned i, n = 0;

	for (i = 0; i < throttle_n && n < THROTTLE_PER_RESP; i++) {
		struct throttle *t = &throttle_tab[i];
		if (!match_pattern(t->pattern, path))
			continue;
		if (t->min_bps > 0 && t->max_bps / (t->active + 1) < t->min_bps)
			return -1;
		thr[n++] = (unsigned char)i;
	}
	if (n == 0 || r->src == NULL)
		return 0;
	if ((ts = calloc(1, sizeof(*ts))) == NULL)
		return -1;
	ts->src.ops = &throttle_ops;
	ts->inner = r->src;
	memcpy(ts->thr, thr, n);
	ts->nthr = n;
	for (i = 0; i < n; i++)
		throttle_tab[thr[i]].active++;
	r->src = &ts->src;
	return 0;
}
