/* fec.c: systematic Vandermonde Reed-Solomon erasure code over GF(2^8) (poly 0x11D), after
 * Luigi Rizzo's fec.c: k source packets become n; any k of them give the k back. */
#include <stdlib.h>
#include <string.h>

#include "rtpaudio.h"

static uint8_t fec_exp[510], fec_log[256];
static int fec_ready;

static void
fec_tables(void)
{
	int i, x = 1;

	if (fec_ready)
		return;
	for (i = 0; i < 255; i++) {
		fec_exp[i] = fec_exp[i + 255] = (uint8_t)x;
		fec_log[x] = (uint8_t)i;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	fec_ready = 1;
}

static uint8_t
fec_mul(uint8_t a, uint8_t b)
{
	return a && b ? fec_exp[fec_log[a] + fec_log[b]] : 0;
}

static uint8_t
fec_inv1(uint8_t a)
{
	return fec_exp[255 - fec_log[a]];
}

/* m (k x k) inverted in place by Gauss-Jordan; -1 when singular. */
static int
fec_invert(uint8_t *m, int k)
{
	uint8_t *a = malloc((size_t)k * (size_t)(2 * k)), t, f;
	int r, c, p, rc = -1;

	if (a == NULL)
		return -1;
	for (r = 0; r < k; r++)
		for (c = 0; c < 2 * k; c++)
			a[r * 2 * k + c] = c < k ? m[r * k + c] : (uint8_t)(c - k == r);
	for (c = 0; c < k; c++) {
		for (p = c; p < k && a[p * 2 * k + c] == 0; p++)
			;
		if (p == k)
			goto bad;
		if (p != c)
			for (r = 0; r < 2 * k; r++) {
				t = a[p * 2 * k + r];
				a[p * 2 * k + r] = a[c * 2 * k + r];
				a[c * 2 * k + r] = t;
			}
		f = fec_inv1(a[c * 2 * k + c]);
		for (r = 0; r < 2 * k; r++)
			a[c * 2 * k + r] = fec_mul(a[c * 2 * k + r], f);
		for (p = 0; p < k; p++) {
			if (p == c || (f = a[p * 2 * k + c]) == 0)
				continue;
			for (r = 0; r < 2 * k; r++)
				a[p * 2 * k + r] ^= fec_mul(f, a[c * 2 * k + r]);
		}
	}
	for (r = 0; r < k; r++)
		memcpy(m + r * k, a + r * 2 * k + k, (size_t)k);
	rc = 0;
bad:
	free(a);
	return rc;
}

/* The n x k encoding matrix: Vandermonde rows (x_0 = 0, x_i = g^(i-1)) times the inverse of
 * its top k x k, so the first k rows are the identity (systematic). */
struct fec *
fec_new(int k, int n)
{
	struct fec *c;
	uint8_t *v = NULL, *top = NULL;
	int i, j, l;

	if (k < 1 || n < k || n > FEC_MAXN)
		return NULL;
	fec_tables();
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->enc = malloc((size_t)n * (size_t)k)) == NULL ||
	    (v = malloc((size_t)n * (size_t)k)) == NULL || (top = malloc((size_t)k * (size_t)k)) == NULL)
		goto bad;
	c->k = k;
	c->n = n;
	for (i = 0; i < n; i++)
		for (j = 0; j < k; j++)
			v[i * k + j] = i == 0 ? (uint8_t)(j == 0) :
			    fec_exp[((i - 1) * j) % 255];
	memcpy(top, v, (size_t)k * (size_t)k);
	if (fec_invert(top, k) == -1)
		goto bad;
	for (i = 0; i < n; i++)
		for (j = 0; j < k; j++) {
			uint8_t s = 0;
			for (l = 0; l < k; l++)
				s ^= fec_mul(v[i * k + l], top[l * k + j]);
			c->enc[i * k + j] = s;
		}
	free(v);
	free(top);
	return c;
bad:
	free(v);
	free(top);
	fec_free(c);
	return NULL;
}

void
fec_free(struct fec *c)
{
	if (c == NULL)
		return;
	free(c->enc);
	free(c);
}

/* dst = row index of the code applied to the k source packets of sz bytes. */
void
fec_encode(const struct fec *c, const uint8_t *const *src, uint8_t *dst, int index, size_t sz)
{
	const uint8_t *row = c->enc + index * c->k;
	size_t b;
	int j;

	if (index < c->k) {
		memcpy(dst, src[index], sz);
		return;
	}
	memset(dst, 0, sz);
	for (j = 0; j < c->k; j++) {
		uint8_t f = row[j];
		if (f == 0)
			continue;
		for (b = 0; b < sz; b++)
			if (src[j][b])
				dst[b] ^= fec_exp[fec_log[f] + fec_log[src[j][b]]];
	}
}

/* The k source packets (out[0..k)) from any k distinct packets in[i] with indices idx[i].
 * Returns 0, -1 when the indices are not k distinct ones below n (or out of memory). */
int
fec_decode(const struct fec *c, const uint8_t *const *in, const int *idx, uint8_t **out,
    size_t sz)
{
	uint8_t *m;
	int i, j, l, k = c->k, rc = -1;
	size_t b;

	if ((m = malloc((size_t)k * (size_t)k)) == NULL)
		return -1;
	for (i = 0; i < k; i++) {
		if (idx[i] < 0 || idx[i] >= c->n)
			goto bad;
		for (j = 0; j < i; j++)
			if (idx[j] == idx[i])
				goto bad;
		memcpy(m + i * k, c->enc + idx[i] * k, (size_t)k);
	}
	if (fec_invert(m, k) == -1)
		goto bad;
	for (j = 0; j < k; j++) {
		for (i = 0; i < k && idx[i] != j; i++)
			;
		if (i < k) {
			if (out[j] != in[i])
				memcpy(out[j], in[i], sz);
			continue;
		}
		memset(out[j], 0, sz);
		for (l = 0; l < k; l++) {
			uint8_t f = m[j * k + l];
			if (f == 0)
				continue;
			for (b = 0; b < sz; b++)
				if (in[l][b])
					out[j][b] ^= fec_exp[fec_log[f] + fec_log[in[l][b]]];
		}
	}
	rc = 0;
bad:
	free(m);
	return rc;
}
