/* hist.c: log-linear histogram (HdrHistogram-style): exact below 2048, then 1024 per octave. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

/* Values below HIST_SUB are counted exactly; above, each power of two is cut into HIST_HALF
 * buckets, so a bucket is at most 1/1024 (0.1 %) of its value wide: three significant digits
 * whatever the magnitude, in a fixed 250 KB, without knowing the range in advance. */
#define HIST_SUB   2048u
#define HIST_HALF  1024u
#define HIST_SHIFTS 30u  /* up to 2^40 us: twelve days */
#define HIST_NB    (HIST_SUB + HIST_SHIFTS * HIST_HALF)

static size_t
hist_index(uint64_t v)
{
	unsigned m, shift;

	if (v < HIST_SUB)
		return (size_t)v;
	m = 63u - (unsigned)__builtin_clzll(v);
	shift = m - 10u;
	if (shift > HIST_SHIFTS)
		return HIST_NB - 1;
	return HIST_SUB + (size_t)(shift - 1u) * HIST_HALF + (size_t)((v >> shift) - HIST_HALF);
}

/* The lowest value of bucket i. */
static uint64_t
hist_lo(size_t i)
{
	size_t shift, sub;

	if (i < HIST_SUB)
		return i;
	shift = (i - HIST_SUB) / HIST_HALF + 1;
	sub = (i - HIST_SUB) % HIST_HALF + HIST_HALF;
	return (uint64_t)sub << shift;
}

/* The middle of bucket i: what a quantile falling into it reports. */
static uint64_t
hist_value(size_t i)
{
	size_t shift;

	if (i < HIST_SUB)
		return i;
	shift = (i - HIST_SUB) / HIST_HALF + 1;
	return hist_lo(i) + ((uint64_t)1 << shift) / 2;
}

int
hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	if ((h->counts = calloc(HIST_NB, sizeof(*h->counts))) == NULL)
		return -1;
	h->min = UINT64_MAX;
	return 0;
}

void
hist_free(struct hist *h)
{
	if (h == NULL)
		return;
	free(h->counts);
	h->counts = NULL;
}

void
hist_add(struct hist *h, uint64_t v)
{
	h->counts[hist_index(v)]++;
	h->n++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->sum += (double)v;
	h->sum2 += (double)v * (double)v;
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
	size_t i;

	for (i = 0; i < HIST_NB; i++)
		dst->counts[i] += src->counts[i];
	dst->n += src->n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum += src->sum;
	dst->sum2 += src->sum2;
}

uint64_t
hist_quantile(const struct hist *h, double q)
{
	uint64_t want, seen = 0, v;
	size_t i;

	if (h->n == 0)
		return 0;
	if (q >= 1.0)
		return h->max;
	want = (uint64_t)ceil(q * (double)h->n);
	if (want == 0)
		want = 1;
	for (i = 0; i < HIST_NB; i++) {
		seen += h->counts[i];
		if (seen >= want) {
			/* Never outside what was seen: the bucket middle may be past the max. */
			v = hist_value(i);
			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}

/* --json's raw section: each non-empty bucket as [its lowest value, count]. */
void
hist_print_buckets(FILE *f, const struct hist *h)
{
	size_t i;
	const char *sep = "";

	fputc('[', f);
	for (i = 0; i < HIST_NB; i++) {
		if (h->counts[i] == 0)
			continue;
		fprintf(f, "%s[%llu,%llu]", sep, (unsigned long long)hist_lo(i),
		    (unsigned long long)h->counts[i]);
		sep = ",";
	}
	fputc(']', f);
}

/* Back from hist_print_buckets: COUNT more in the bucket of V (n, min, max, sum are the
 * caller's: they travel beside the buckets). */
void
hist_add_bucket(struct hist *h, uint64_t v, uint64_t count)
{
	h->counts[hist_index(v)] += count;
}

double
hist_mean(const struct hist *h)
{
	return h->n ? h->sum / (double)h->n : 0.0;
}

double
hist_stddev(const struct hist *h)
{
	double m, var;

	if (h->n < 2)
		return 0.0;
	m = h->sum / (double)h->n;
	var = (h->sum2 - (double)h->n * m * m) / (double)(h->n - 1);
	return var > 0 ? sqrt(var) : 0.0;
}
