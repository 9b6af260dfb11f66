/* uri.c: httperf's URI generators: --wset (a working set walked at a rate), --wlog (a list). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

/* --wset N,X: file i of N is PREFIX/d/d/.../d.html, i written with as many digits as N-1 has
 * (none when N is 1), a slash before each. As httperf: an accumulator gains X per call and,
 * each time it reaches 1, the walk moves on by the client count; it starts at the client's id
 * and with a random fraction. Calls are numbered (atomically: threads share the walk), so
 * call c moves floor(start + (c+1) X) times: the same walk httperf's running sum makes. */
int
uri_wset_init(struct uri_gen *g, const char *prefix, uint64_t n, double x, unsigned client_id,
    unsigned client_n, unsigned seed, char *err, size_t errlen)
{
	uint64_t j;
	size_t plen = strlen(prefix);

	memset(g, 0, sizeof(*g));
	if (n < 1 || n > UINT32_MAX || x < 0 || x > 1) {
		tp_seterr(err, errlen, "--wset: N must be 1 to %u and X 0 to 1", UINT32_MAX);
		return -1;
	}
	/* httperf drops one trailing slash of the prefix: the path brings its own. */
	if (plen > 0 && prefix[plen - 1] == '/')
		plen--;
	if (plen >= sizeof(g->prefix) - 64) {
		tp_seterr(err, errlen, "--wset: URI prefix too long");
		return -1;
	}
	memcpy(g->prefix, prefix, plen);
	g->prefix_len = plen;
	g->kind = URI_WSET;
	g->nfiles = n;
	g->rate = x;
	for (j = 1; j < n; j *= 10)
		g->digits++;
	g->first = client_id % n;
	g->step = client_n % n;
	g->start = (double)rand_r(&seed) / ((double)RAND_MAX + 1.0);
	return 0;
}

/* --wlog B,F: F holds URIs, each ended by a NUL (the last one may lack it); empty ones are
 * skipped. B y: wrap around at the end; n: no more calls after the last one. */
int
uri_wlog_load(struct uri_gen *g, const char *file, int loop, char *err, size_t errlen)
{
	FILE *f;
	size_t cap = 0, i, start;
	long size;
	char *b = NULL;

	memset(g, 0, sizeof(*g));
	if ((f = fopen(file, "rb")) == NULL) {
		tp_seterr(err, errlen, "--wlog: %s: %s", file, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		tp_seterr(err, errlen, "--wlog: %s: cannot find its size", file);
		goto bad;
	}
	if ((b = malloc((size_t)size + 1)) == NULL) {
		tp_seterr(err, errlen, "--wlog: out of memory");
		goto bad;
	}
	if (fread(b, 1, (size_t)size, f) != (size_t)size) {
		tp_seterr(err, errlen, "--wlog: %s: short read", file);
		goto bad;
	}
	b[size] = '\0';
	for (i = 0, start = 0; i <= (size_t)size; i++) {
		if (b[i] != '\0')
			continue;
		if (i > start) {
			if (g->n == cap) {
				size_t *o = realloc(g->off, (cap ? 2 * cap : 64) * sizeof(*o));

				if (o == NULL) {
					tp_seterr(err, errlen, "--wlog: out of memory");
					goto bad;
				}
				g->off = o;
				cap = cap ? 2 * cap : 64;
			}
			g->off[g->n++] = start;
		}
		start = i + 1;
	}
	if (g->n == 0) {
		tp_seterr(err, errlen, "--wlog: %s holds no URI (a NUL after each)", file);
		goto bad;
	}
	fclose(f);
	g->kind = URI_WLOG;
	g->file = file;
	g->buf = b;
	g->loop = loop;
	return 0;
bad:
	fclose(f);
	free(b);
	free(g->off);
	g->off = NULL;
	g->n = 0;
	return -1;
}

void
uri_free(struct uri_gen *g)
{
	if (g == NULL)
		return;
	free(g->buf);
	free(g->off);
	memset(g, 0, sizeof(*g));
}

/* The next call's URI: a pointer into g (--wlog) or into buf, with its length in *len;
 * NULL once a --wlog list without wrap-around is used up. */
const char *
uri_next(struct uri_gen *g, char *buf, size_t cap, size_t *len)
{
	uint64_t c = atomic_fetch_add(&g->calls, 1), file, moves;
	const char *u;
	size_t o;
	unsigned d;

	if (g->kind == URI_WLOG) {
		if (!g->loop && c >= g->n)
			return NULL;
		u = g->buf + g->off[c % g->n];
		*len = strlen(u);
		return u;
	}
	moves = (uint64_t)floor(g->start + (double)(c + 1) * g->rate);
	/* n < 2^32: the product fits */
	file = (g->first + (moves % g->nfiles) * g->step) % g->nfiles;
	if (cap < g->prefix_len + 2 * g->digits + 6)
		return NULL;
	memcpy(buf, g->prefix, g->prefix_len);
	o = g->prefix_len + 2 * g->digits;
	memcpy(buf + o, ".html", 6);
	for (d = 0; d < g->digits; d++, file /= 10) {
		buf[o - 2 * d - 1] = (char)('0' + file % 10);
		buf[o - 2 * d - 2] = '/';
	}
	*len = o + 5;
	return buf;
}
