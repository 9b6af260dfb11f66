/* test_mp3.c: MPEG audio frame parser: synthetic headers and side information, ID3v2,
 * Xing/Info, resync, and real files made by the wrapper script (sox + lame). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtpaudio.h"

/* A header: version bits (3 = MPEG-1, 2 = MPEG-2, 0 = 2.5), layer 1..3, bitrate and rate
 * indices, padding, mode. */
static void
hdr(uint8_t *p, int ver, int layer, int crc, int bri, int sri, int pad, int mode)
{
	p[0] = 0xff;
	p[1] = (uint8_t)(0xe0 | ver << 3 | (4 - layer) << 1 | (crc ? 0 : 1));
	p[2] = (uint8_t)(bri << 4 | sri << 2 | pad << 1);
	p[3] = (uint8_t)(mode << 6);
}

struct bw {
	uint8_t *p;
	size_t pos;
};

static void
putbits(struct bw *b, unsigned v, int n)
{
	while (n-- > 0) {
		if ((v >> n) & 1)
			b->p[b->pos >> 3] |= (uint8_t)(0x80 >> (b->pos & 7));
		b->pos++;
	}
}

/* A whole MPEG-1 layer III frame (128 kbit/s 44.1 kHz, 417 bytes) with the given side info. */
static int
l3frame(uint8_t *p, int mono, int mdb, const int *p23)
{
	struct bw b;
	int gr, ch, nch = mono ? 1 : 2;

	memset(p, 0, 1000);
	hdr(p, MP3_V1, 3, 0, 9, 0, 0, mono ? 3 : 1);
	b.p = p + 4;
	b.pos = 0;
	putbits(&b, (unsigned)mdb, 9);
	putbits(&b, 0, mono ? 5 : 3);
	putbits(&b, 0, 4 * nch);
	for (gr = 0; gr < 2; gr++)
		for (ch = 0; ch < nch; ch++) {
			putbits(&b, (unsigned)p23[gr * nch + ch], 12);
			putbits(&b, 0x1234, 47 - 32);
			putbits(&b, 0, 32);
		}
	return 417;
}

static void
test_lengths(void **state)
{
	static const struct {
		int ver, layer, bri, sri, pad, len, rate, kbps, samples;
	} t[] = {
		{ MP3_V1, 3, 9, 0, 0, 417, 44100, 128, 1152 },
		{ MP3_V1, 3, 9, 0, 1, 418, 44100, 128, 1152 },
		{ MP3_V1, 3, 11, 0, 0, 626, 44100, 192, 1152 },
		{ MP3_V1, 3, 11, 0, 1, 627, 44100, 192, 1152 },
		{ MP3_V1, 3, 14, 1, 0, 960, 48000, 320, 1152 },
		{ MP3_V1, 2, 14, 1, 0, 1152, 48000, 384, 1152 },
		{ MP3_V1, 2, 14, 2, 1, 1729, 32000, 384, 1152 },
		{ MP3_V1, 1, 14, 1, 0, 448 * 12 / 48 * 4, 48000, 448, 384 },
		{ MP3_V1, 1, 1, 0, 1, (12 * 32000 / 44100 + 1) * 4, 44100, 32, 384 },
		{ MP3_V2, 3, 8, 0, 0, 208, 22050, 64, 576 },
		{ MP3_V2, 2, 8, 0, 0, 417, 22050, 64, 1152 },
		{ MP3_V2, 1, 14, 2, 0, (12 * 256000 / 16000) * 4, 16000, 256, 384 },
		{ MP3_V25, 3, 1, 2, 0, 72, 8000, 8, 576 },
		{ MP3_V25, 2, 14, 2, 1, 2881, 8000, 160, 1152 },
	};
	struct mp3_frame f;
	uint8_t p[4];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		hdr(p, t[i].ver, t[i].layer, 0, t[i].bri, t[i].sri, t[i].pad, 0);
		assert_int_equal(mp3_header_parse(p, 4, &f), t[i].len);
		assert_int_equal(f.len, t[i].len);
		assert_int_equal(f.rate, t[i].rate);
		assert_int_equal(f.bitrate, t[i].kbps);
		assert_int_equal(f.samples, t[i].samples);
		assert_int_equal(f.layer, t[i].layer);
		assert_true(f.len <= MP3_MAX_FRAME);
	}
	hdr(p, MP3_V1, 3, 1, 9, 0, 0, 3);
	assert_int_equal(mp3_header_parse(p, 4, &f), 417);
	assert_int_equal(f.crc, 1);
	assert_int_equal(f.channels, 1);
	assert_int_equal(mp3_frame_ts90k(&f), 2351);
}

static void
test_not_headers(void **state)
{
	struct mp3_frame f;
	uint8_t p[4];

	(void)state;
	hdr(p, MP3_V1, 3, 0, 9, 0, 0, 0);
	assert_int_equal(mp3_header_parse(p, 3, &f), -2);
	assert_int_equal(mp3_header_parse(p, 0, &f), -2);
	p[0] = 0xfe;
	assert_int_equal(mp3_header_parse(p, 4, &f), -1);
	hdr(p, 1, 3, 0, 9, 0, 0, 0);          /* reserved version */
	assert_int_equal(mp3_header_parse(p, 4, &f), -1);
	hdr(p, MP3_V1, 3, 0, 9, 0, 0, 0);
	p[1] &= 0xf9;                         /* layer bits 00: reserved */
	assert_int_equal(mp3_header_parse(p, 4, &f), -1);
	hdr(p, MP3_V1, 3, 0, 15, 0, 0, 0);    /* bad bitrate */
	assert_int_equal(mp3_header_parse(p, 4, &f), -1);
	hdr(p, MP3_V1, 3, 0, 0, 0, 0, 0);     /* free format: refused */
	assert_int_equal(mp3_header_parse(p, 4, &f), -1);
	hdr(p, MP3_V1, 3, 0, 9, 3, 0, 0);     /* reserved rate */
	assert_int_equal(mp3_header_parse(p, 4, &f), -1);
	hdr(p, MP3_V1, 3, 0, 9, 0, 0, 0);
	p[3] |= 2;                            /* reserved emphasis */
	assert_int_equal(mp3_header_parse(p, 4, &f), -1);
}

static void
test_side_info(void **state)
{
	static const int st[4] = { 1000, 1200, 800, 999 }, mo[2] = { 1500, 1501 };
	uint8_t p[1000];
	struct mp3_frame f;
	size_t i;

	(void)state;
	l3frame(p, 0, 300, st);
	assert_int_equal(mp3_frame_parse(p, 417, &f), 417);
	assert_int_equal(f.side_len, 32);
	assert_int_equal(f.main_data_begin, 300);
	assert_int_equal(f.main_data_len, (1000 + 1200 + 800 + 999 + 7) / 8);
	assert_int_equal(f.main_data_here, 417 - 4 - 32);
	l3frame(p, 1, 511, mo);
	assert_int_equal(mp3_frame_parse(p, 417, &f), 417);
	assert_int_equal(f.side_len, 17);
	assert_int_equal(f.main_data_begin, 511);
	assert_int_equal(f.main_data_len, (3001 + 7) / 8);
	/* fed byte by byte: incomplete until the whole frame is there */
	for (i = 0; i < 417; i++)
		assert_int_equal(mp3_frame_parse(p, i, &f), i < 4 ? -2 : -2);
	/* MPEG-2 mono: 8-bit main_data_begin, one granule, 9 bytes of side info */
	memset(p, 0, sizeof(p));
	hdr(p, MP3_V2, 3, 0, 8, 0, 0, 3);
	p[4] = 200;
	p[5] = 0x00;
	{
		struct bw b = { p + 4, 9 };  /* after main_data_begin (8) + private (1) */
		putbits(&b, 1600, 12);
	}
	assert_int_equal(mp3_frame_parse(p, 208, &f), 208);
	assert_int_equal(f.side_len, 9);
	assert_int_equal(f.main_data_begin, 200);
	assert_int_equal(f.main_data_len, 200);
}

static void
test_id3v2(void **state)
{
	uint8_t t[20] = { 'I', 'D', '3', 4, 0, 0, 0, 0, 2, 1 };

	(void)state;
	assert_int_equal(mp3_id3v2_len(t, 20), 10 + 257);
	t[5] = 0x10; /* footer */
	assert_int_equal(mp3_id3v2_len(t, 20), 10 + 257 + 10);
	assert_int_equal(mp3_id3v2_len(t, 9), -2);
	t[8] = 0x80; /* not syncsafe */
	assert_int_equal(mp3_id3v2_len(t, 20), 0);
	assert_int_equal(mp3_id3v2_len((const uint8_t *)"TAG.......", 10), 0);
	assert_int_equal(mp3_id3v2_len((const uint8_t *)"XY", 2), -2);
	assert_int_equal(mp3_id3v2_len((const uint8_t *)"XYZ", 3), 0);
}

/* A stream: ID3v2, Info frame, junk, frames of two bit rates, trailing junk. */
static void
test_file_mem(void **state)
{
	static const int st[4] = { 8, 8, 8, 8 };
	uint8_t *b = calloc(1, 8192);
	struct mp3_file *m;
	struct mp3_frame f;
	size_t n = 0, skip;
	char err[128];
	int i;

	(void)state;
	memcpy(b, "ID3\x04\x00\x00\x00\x00\x00\x05", 10);
	n = 15;
	l3frame(b + n, 0, 0, st);
	memcpy(b + n + 36, "Info", 4);
	n += 417;
	for (i = 0; i < 4; i++) {
		if (i == 1) {
			memcpy(b + n, "\xff\xe3junk\xff", 7); /* junk with a stray sync pattern */
			n += 7;
		}
		l3frame(b + n, 0, i ? 10 : 0, st);
		if (i == 2) {
			hdr(b + n, MP3_V1, 3, 0, 11, 0, 0, 1);  /* 192 kbit/s: 626 bytes */
			n += 626;
		} else {
			n += 417;
		}
	}
	m = mp3_file_from_mem(b, n, err, sizeof(err));
	assert_non_null(m);
	assert_int_equal(m->nframes, 4);
	assert_int_equal(m->id3v2, 1);
	assert_int_equal(m->info_frame, 1);
	assert_int_equal(m->vbr, 1);
	assert_int_equal(m->skipped, 7);
	assert_int_equal(m->samples, 4 * 1152);
	assert_int_equal(m->off[0], 15 + 417);
	assert_int_equal(m->off[1], 15 + 417 + 417 + 7);
	/* mp3_sync skips the junk to the frame after it, with or without a previous frame */
	assert_int_equal(mp3_sync(b + m->off[0] + 417, n - m->off[0] - 417, &m->first, &f, &skip),
	    7);
	assert_int_equal(skip, 7);
	assert_int_equal(mp3_sync(b + m->off[0] + 417, n - m->off[0] - 417, NULL, &f, &skip), 7);
	assert_int_equal(mp3_sync(b, 3, NULL, &f, &skip), -2);
	mp3_file_free(m);
	assert_null(mp3_file_from_mem((const uint8_t *)"nothing here", 12, err, sizeof(err)));
	mp3_file_free(NULL);
	free(b);
}

/* Real files from lame (the wrapper exports them): every frame parses, the totals agree with
 * mpg123's decode, the bit reservoir never goes back further than it can. */
static void
check_file(const char *path, long want_samples, int want_version, int want_vbr, int want_id3)
{
	struct mp3_file *m;
	struct mp3_frame f;
	char err[256];
	size_t i;
	long avail = 0;

	m = mp3_file_new(path, err, sizeof(err));
	if (m == NULL)
		fail_msg("%s", err);
	assert_int_equal(m->first.version, want_version);
	assert_int_equal(m->vbr, want_vbr);
	assert_int_equal(m->id3v2, want_id3);
	assert_int_equal(m->info_frame, 1);
	assert_int_equal(m->skipped, 0);
	if (want_samples >= 0)
		assert_int_equal((long)m->samples, want_samples);
	for (i = 0; i < m->nframes; i++) {
		size_t end = i + 1 < m->nframes ? m->off[i + 1] : m->len;
		int n = mp3_frame_parse(m->data + m->off[i], m->len - m->off[i], &f);
		assert_true(n > 0);
		assert_true(m->off[i] + (size_t)n <= end);
		assert_int_equal(f.layer, 3);
		if (!want_vbr)
			assert_int_equal(f.bitrate, m->first.bitrate);
		assert_true(f.main_data_begin <= avail);
		assert_true(f.main_data_len <= f.main_data_begin + f.main_data_here);
		avail += f.main_data_here;
	}
	mp3_file_free(m);
}

static void
test_real_files(void **state)
{
	const char *cbr = getenv("RTPAUDIO_MP3"), *vbr = getenv("RTPAUDIO_MP3_VBR"),
	    *v2 = getenv("RTPAUDIO_MP3_V2"), *ns = getenv("RTPAUDIO_MP3_SAMPLES");

	(void)state;
	if (cbr == NULL || vbr == NULL || v2 == NULL || ns == NULL)
		fail_msg("run through test/unit/rtpaudio-mp3.sh (it makes the files)");
	check_file(cbr, atol(ns), MP3_V1, 0, 0);
	check_file(vbr, -1, MP3_V1, 1, 1);
	check_file(v2, -1, MP3_V2, 0, 0);
}

/* Random bytes and mutated real frames never read out of bounds (ASan build). */
static void
test_fuzz(void **state)
{
	uint8_t *b = malloc(4096);
	struct mp3_frame f;
	struct mp3_file *m;
	char err[64];
	size_t skip;
	int i, j;

	(void)state;
	srand(1);
	for (i = 0; i < 20000; i++) {
		size_t n = (size_t)(rand() % 4096);
		uint8_t *p;
		for (j = 0; j < (int)n; j++)
			b[j] = (uint8_t)(rand() % 4 ? rand() : 0xff);
		p = malloc(n ? n : 1);
		memcpy(p, b, n);
		mp3_frame_parse(p, n, &f);
		mp3_sync(p, n, NULL, &f, &skip);
		mp3_id3v2_len(p, n);
		if (mp3_frame_parse(p, n, &f) > 0)
			mp3_is_info(p, n, &f);
		if (i % 50 == 0 && (m = mp3_file_from_mem(p, n, err, sizeof(err))) != NULL)
			mp3_file_free(m);
		free(p);
	}
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_not_headers),
		cmocka_unit_test(test_side_info),
		cmocka_unit_test(test_id3v2),
		cmocka_unit_test(test_file_mem),
		cmocka_unit_test(test_real_files),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
