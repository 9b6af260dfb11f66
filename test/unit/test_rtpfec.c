/* test_rtpfec.c: the Reed-Solomon erasure code: systematic, every erasure pattern of up to
 * n - k packets recovers exactly, more erasures or bad indices are refused; poc-fec's
 * header and groups of ADUs, whole, with every loss pattern, and fuzzed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtpaudio.h"

#define SZ 97

/* every subset of n of size k, in[] in index order, decoded and compared */
static void
all_patterns(int k, int n)
{
	static uint8_t src[FEC_MAXN][SZ], code[FEC_MAXN][SZ], out[FEC_MAXN][SZ];
	const uint8_t *s[FEC_MAXN], *in[FEC_MAXN];
	uint8_t *o[FEC_MAXN];
	struct fec *c;
	unsigned mask, full = 1u << n;
	int i, j, idx[FEC_MAXN], tried = 0;

	assert_non_null(c = fec_new(k, n));
	for (i = 0; i < k; i++) {
		for (j = 0; j < SZ; j++)
			src[i][j] = (uint8_t)(rand() % 4 == 0 ? 0 : rand());
		s[i] = src[i];
	}
	for (i = 0; i < n; i++)
		fec_encode(c, s, code[i], i, SZ);
	for (i = 0; i < k; i++)
		assert_memory_equal(code[i], src[i], SZ); /* systematic */
	for (i = 0; i < k; i++)
		o[i] = out[i];
	for (mask = 0; mask < full; mask++) {
		if (__builtin_popcount(mask) != k)
			continue;
		for (i = 0, j = 0; i < n; i++)
			if (mask & (1u << i)) {
				idx[j] = i;
				in[j++] = code[i];
			}
		/* shuffle the order the packets come in */
		for (i = k - 1; i > 0; i--) {
			int r = rand() % (i + 1), t = idx[i];
			const uint8_t *p = in[i];
			idx[i] = idx[r];
			in[i] = in[r];
			idx[r] = t;
			in[r] = p;
		}
		memset(out, 0xee, sizeof(out));
		assert_int_equal(fec_decode(c, in, idx, o, SZ), 0);
		for (i = 0; i < k; i++)
			assert_memory_equal(out[i], src[i], SZ);
		tried++;
	}
	assert_true(tried > 0);
	fec_free(c);
}

static void
test_fec_patterns(void **state)
{
	int k, n;

	(void)state;
	srand(1);
	for (n = 1; n <= 12; n++)
		for (k = 1; k <= n; k++)
			all_patterns(k, n);
}

static void
test_fec_large(void **state)
{
	static uint8_t src[FEC_MAXN][SZ], code[FEC_MAXN][SZ], out[FEC_MAXN][SZ];
	const uint8_t *s[FEC_MAXN], *in[FEC_MAXN];
	uint8_t *o[FEC_MAXN];
	struct fec *c;
	int i, j, t, idx[FEC_MAXN], k = 100, n = 255;

	(void)state;
	assert_non_null(c = fec_new(k, n));
	for (i = 0; i < k; i++) {
		for (j = 0; j < SZ; j++)
			src[i][j] = (uint8_t)rand();
		s[i] = src[i];
		o[i] = out[i];
	}
	for (i = 0; i < n; i++)
		fec_encode(c, s, code[i], i, SZ);
	for (t = 0; t < 20; t++) {
		int perm[FEC_MAXN];
		for (i = 0; i < n; i++)
			perm[i] = i;
		for (i = n - 1; i > 0; i--) {
			int r = rand() % (i + 1), x = perm[i];
			perm[i] = perm[r];
			perm[r] = x;
		}
		for (i = 0; i < k; i++) {
			idx[i] = perm[i];
			in[i] = code[perm[i]];
		}
		assert_int_equal(fec_decode(c, in, idx, o, SZ), 0);
		for (i = 0; i < k; i++)
			assert_memory_equal(out[i], src[i], SZ);
	}
	/* a repeated index, one out of range: refused */
	idx[1] = idx[0];
	assert_int_equal(fec_decode(c, in, idx, o, SZ), -1);
	idx[1] = 255;
	assert_int_equal(fec_decode(c, in, idx, o, SZ), -1);
	idx[1] = -1;
	assert_int_equal(fec_decode(c, in, idx, o, SZ), -1);
	fec_free(c);
	assert_null(fec_new(0, 4));
	assert_null(fec_new(5, 4));
	assert_null(fec_new(4, 256));
	fec_free(NULL);
}

/* Synthetic MPEG-1 layer III ADUs (stereo, 32 bytes of side information): main data of
 * a varying length, each byte telling its ADU and place. */
#define NADU 7
static uint8_t adu[NADU][600];
static struct fmt_frame af[NADU];

static void
make_adus(void)
{
	int i, j, bits;

	for (i = 0; i < NADU; i++) {
		size_t md = (size_t)(50 + i * 67);
		uint8_t *p = adu[i];
		memset(p, 0, sizeof(adu[i]));
		p[0] = 0xff;
		p[1] = 0xfb;
		p[2] = 0x90;
		p[3] = 0x00;
		/* part2_3_length of granule 0, channel 0: bits 20..31 of the side information */
		bits = (int)md * 8;
		p[4 + 2] = (uint8_t)((bits >> 8) & 0x0f);
		p[4 + 3] = (uint8_t)bits;
		for (j = 0; j < (int)md; j++)
			p[36 + j] = (uint8_t)(i * 31 + j);
		af[i].p = p;
		af[i].len = 36 + md;
		af[i].ts = (uint32_t)i * 2351;
	}
}

struct got {
	int n;
	int idx[FEC_MAXN];
	uint32_t ts[FEC_MAXN];
};

static void
got_cb(void *arg, const uint8_t *p, size_t len, uint32_t ts)
{
	struct got *g = arg;
	int i;

	for (i = 0; i < NADU; i++)
		if (len == af[i].len && memcmp(p, af[i].p, len) == 0)
			break;
	assert_true(i < NADU);
	g->idx[g->n] = i;
	g->ts[g->n++] = ts;
}

static void
test_fec_poc_groups(void **state)
{
	static uint8_t pk[FEC_MAXN][FMT_FEC_HDR + FMT_FEC_MAXLEN];
	static struct fmt_fec_rx r;
	struct fmt_fec_hdr h;
	struct mp3_frame f;
	size_t olen[FEC_MAXN];
	struct fec *c;
	struct got g;
	int k = NADU, n = 11, i, j;
	unsigned mask;

	(void)state;
	make_adus();
	for (i = 0; i < NADU; i++)
		assert_int_equal(fmt_3119_adu_parse(af[i].p, af[i].len, &f), (int)af[i].len);
	assert_non_null(c = fec_new(k, n));
	assert_int_equal(fmt_fec_group(c, af, 300, 1000000, pk, olen), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(fmt_fec_hdr_parse(pk[i], olen[i], &h), FMT_FEC_HDR);
		assert_int_equal(h.gseq, 300 & 0xff);
		assert_int_equal(h.pseq, i);
		assert_int_equal(h.k, k);
		assert_int_equal(h.n, n);
		assert_int_equal(h.fec_len, af[NADU - 1].len + 2);
		assert_int_equal(h.len, i < k ? af[i].len : af[NADU - 1].len);
		assert_int_equal(h.tstamp, 1000000);
		assert_int_equal(fmt_fec_hdr_parse(pk[i], olen[i] - 1, &h), -1);
		assert_int_equal(fmt_fec_hdr_parse(pk[i], FMT_FEC_HDR - 1, &h), -2);
	}
	pk[0][0] = 0xfd;
	assert_int_equal(fmt_fec_hdr_parse(pk[0], olen[0], &h), -1);
	pk[0][0] = FMT_FEC_MAGIC;
	/* every loss pattern: up to n - k lost, all ADUs back, in order, with timestamps */
	for (mask = 0; mask < (1u << n); mask++) {
		int lost = __builtin_popcount(mask);
		fmt_fec_rx_init(&r, got_cb, &g);
		memset(&g, 0, sizeof(g));
		for (i = 0; i < n; i++)
			if (!(mask & (1u << i)))
				assert_int_equal(fmt_fec_rx_put(&r, pk[i], olen[i]), 0);
		fmt_fec_rx_flush(&r);
		if (lost <= n - k) {
			assert_int_equal(g.n, k);
			for (j = 0; j < k; j++) {
				assert_int_equal(g.idx[j], j);
				assert_int_equal(g.ts[j], 90000 - (uint32_t)(k - j) * 2351);
			}
			for (j = 0, i = 0; i < k; i++)
				j += !!(mask & (1u << i));
			assert_int_equal(r.recovered, j);
			assert_int_equal(r.unrecoverable, 0);
		} else {
			/* only the sources received */
			for (j = 0, i = 0; i < k; i++)
				j += !(mask & (1u << i));
			assert_int_equal(g.n, j);
			assert_int_equal(r.unrecoverable, lost < n ? 1 : 0);
		}
		fmt_fec_rx_free(&r);
	}
	fec_free(c);
}

static void
any_cb(void *arg, const uint8_t *p, size_t len, uint32_t ts)
{
	struct mp3_frame f;

	(void)ts;
	assert_true(fmt_3119_adu_parse(p, len, &f) >= 0);
	(*(int *)arg)++;
}

static void
test_fec_fuzz(void **state)
{
	static uint8_t pk[FEC_MAXN][FMT_FEC_HDR + FMT_FEC_MAXLEN];
	static struct fmt_fec_rx r;
	size_t olen[FEC_MAXN], n;
	struct fec *c;
	int i, j, nd = 0;

	(void)state;
	make_adus();
	assert_non_null(c = fec_new(4, 7));
	assert_int_equal(fmt_fec_group(c, af, 1, 5, pk, olen), 0);
	fmt_fec_rx_init(&r, any_cb, &nd);
	srand(3);
	for (i = 0; i < 20000; i++) {
		uint8_t p[FMT_FEC_HDR + FMT_FEC_MAXLEN];
		int s = rand() % 7;
		n = olen[s];
		memcpy(p, pk[s], n);
		for (j = rand() % 4; j >= 0; j--)
			p[rand() % n] ^= (uint8_t)(1u << (rand() % 8));
		if (rand() % 4 == 0)
			n = (size_t)rand() % (n + 1);
		if (rand() % 8 == 0) { /* a plausible header over random bytes */
			for (j = 0; j < (int)n; j++)
				p[j] = (uint8_t)rand();
			if (n >= FMT_FEC_HDR) {
				p[0] = FMT_FEC_MAGIC;
				p[1] = 1;
				p[4] = (uint8_t)(1 + rand() % 8);
				p[5] = (uint8_t)(p[4] + rand() % 4);
				p[3] = (uint8_t)(rand() % p[5]);
				p[6] = (uint8_t)((n - FMT_FEC_HDR + 2) >> 8);
				p[7] = (uint8_t)(n - FMT_FEC_HDR + 2);
				p[8] = (uint8_t)((n - FMT_FEC_HDR) >> 8);
				p[9] = (uint8_t)(n - FMT_FEC_HDR);
			}
		}
		fmt_fec_rx_put(&r, p, n);
		if (i % 50 == 0)
			fmt_fec_rx_flush(&r);
	}
	fmt_fec_rx_flush(&r);
	assert_true(nd > 0);
	fmt_fec_rx_free(&r);
	fec_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fec_patterns),
		cmocka_unit_test(test_fec_large),
		cmocka_unit_test(test_fec_poc_groups),
		cmocka_unit_test(test_fec_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
