/* test_rtp3119.c: RFC 5219 mpa-robust: frames to ADUs, descriptors, packing and fragments,
 * frames rebuilt from ADUs with and without loss, poc-3119's descriptors, random input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtpaudio.h"

/* NFR synthetic MPEG-1 layer III frames, 128 kbit/s 44.1 kHz stereo (417/418 bytes, 32
 * bytes of side information): main data laid end to end through the reservoir with random
 * lengths, main_data_begin up to 511, every main data byte a function of its stream
 * position, the bytes after the last frame's data zero (ancillary). */
#define NFR 60
#define HS 36
static uint8_t frames[NFR][MP3_MAX_FRAME];
static size_t flen[NFR], mdlen[NFR];
static int mdb[NFR];
static int64_t mdpos[NFR];   /* main data start in the stream */
static struct fmt_frame fr[NFR];

struct bitw {
	uint8_t *p;
	size_t pos;
};

static void
putbits(struct bitw *b, unsigned v, int n)
{
	while (n-- > 0) {
		if ((v >> n) & 1)
			b->p[b->pos >> 3] |= (uint8_t)(0x80 >> (b->pos & 7));
		b->pos++;
	}
}

static uint8_t
stream_byte(int64_t pos)
{
	return (uint8_t)(pos * 7 + 3 + (pos >> 8));
}

static void
make_frames(unsigned seed)
{
	int64_t fstart = 0, d = 0, next;
	size_t i, k;

	srand(seed);
	for (i = 0; i < NFR; i++) {
		flen[i] = i % 3 == 0 ? 418 : 417;
		memset(frames[i], 0, MP3_MAX_FRAME);
	}
	for (i = 0; i < NFR; i++) {
		uint8_t *p = frames[i];
		struct bitw b = { p + 4, 0 };
		int64_t s = (int64_t)(flen[i] - HS), lo, hi;
		unsigned bits;
		p[0] = 0xff;
		p[1] = 0xfb; /* MPEG-1 layer III, no CRC */
		p[2] = (uint8_t)(9 << 4 | (i % 3 == 0) << 1);
		p[3] = 0x00;
		next = fstart + s;
		lo = next - 511 - d;
		hi = fstart + s - d;
		if (lo < 0)
			lo = 0;
		mdlen[i] = (size_t)(lo + rand() % (hi - lo + 1));
		mdb[i] = (int)(fstart - d);
		mdpos[i] = d;
		putbits(&b, (unsigned)mdb[i], 9);
		putbits(&b, 0, 3 + 8);
		bits = (unsigned)mdlen[i] * 8;
		for (k = 0; k < 4; k++) {
			unsigned g = bits / 4 + (k == 0 ? bits % 4 : 0);
			putbits(&b, g, 12);
			putbits(&b, 0x5a5a5a5, 32); /* the rest of the granule: never read */
			putbits(&b, 0x1234, 15);
		}
		d += (int64_t)mdlen[i];
		fstart = next;
		fr[i].p = p;
		fr[i].len = flen[i];
		fr[i].ts = (uint32_t)((uint64_t)i * 1152 * 90000 / 44100);
	}
	/* the main data bytes, written into the frames' data areas */
	fstart = 0;
	for (i = 0; i < NFR; i++) {
		int64_t s = (int64_t)(flen[i] - HS), pos;
		for (pos = fstart; pos < fstart + s; pos++)
			frames[i][HS + (pos - fstart)] = pos < d ? stream_byte(pos) : 0;
		fstart += s;
	}
}

static void
test_3119_adus(void **state)
{
	struct fmt_3119_enc e;
	struct mp3_frame f;
	uint8_t adu[FMT_3119_MAXADU];
	size_t i, k;
	int n;

	(void)state;
	make_frames(1);
	fmt_3119_enc_init(&e);
	for (i = 0; i < NFR; i++) {
		assert_int_equal(mp3_frame_parse(frames[i], flen[i], &f), (int)flen[i]);
		assert_int_equal(f.main_data_begin, mdb[i]);
		assert_int_equal(f.main_data_len, (int)mdlen[i]);
		n = fmt_3119_adu(&e, frames[i], flen[i], adu, sizeof(adu));
		assert_int_equal(n, HS + (int)mdlen[i]);
		assert_memory_equal(adu, frames[i], HS);
		for (k = 0; k < mdlen[i]; k++)
			assert_int_equal(adu[HS + k], stream_byte(mdpos[i] + (int64_t)k));
		assert_int_equal(fmt_3119_adu_parse(adu, (size_t)n, &f), n);
		assert_int_equal(fmt_3119_adu_parse(adu, HS - 1, &f), -2);
	}
	assert_int_equal(e.dummies, 0);
	/* a stream cut in the middle of the reservoir: the first frame becomes empty */
	fmt_3119_enc_init(&e);
	assert_true(mdb[5] > 0);
	assert_int_equal(fmt_3119_adu(&e, frames[5], flen[5], adu, sizeof(adu)), HS);
	assert_int_equal(e.dummies, 1);
	/* the back-pointer's edge: a reservoir one byte short makes a dummy, a whole one not */
	fmt_3119_enc_init(&e);
	e.reslen = (size_t)mdb[5] - 1;
	assert_int_equal(fmt_3119_adu(&e, frames[5], flen[5], adu, sizeof(adu)), HS);
	assert_int_equal(e.dummies, 1);
	fmt_3119_enc_init(&e);
	e.reslen = (size_t)mdb[5];
	assert_int_equal(fmt_3119_adu(&e, frames[5], flen[5], adu, sizeof(adu)), HS + (int)mdlen[5]);
	assert_int_equal(e.dummies, 0);
	assert_int_equal(fmt_3119_adu(&e, frames[5], flen[5], adu, 10), -1);
	assert_int_equal(fmt_3119_adu(&e, frames[5], flen[5] - 1, adu, sizeof(adu)), -1);
	frames[0][1] = 0xfd; /* layer II */
	assert_int_equal(fmt_3119_adu(&e, frames[0], flen[0], adu, sizeof(adu)), -1);
}

static void
test_3119_desc(void **state)
{
	uint8_t p[2];
	size_t size;
	int cont;

	(void)state;
	p[0] = 0x3f;
	assert_int_equal(fmt_3119_desc_parse(p, 1, &cont, &size), 1);
	assert_int_equal(cont, 0);
	assert_int_equal(size, 63);
	p[0] = 0xc1;
	p[1] = 0x02;
	assert_int_equal(fmt_3119_desc_parse(p, 1, &cont, &size), -2);
	assert_int_equal(fmt_3119_desc_parse(p, 2, &cont, &size), 2);
	assert_int_equal(cont, 1);
	assert_int_equal(size, 0x102);
	assert_int_equal(fmt_3119_desc_parse(p, 0, &cont, &size), -2);
}

/* The descriptor's one-byte form holds sizes up to 63: an ADU of 64 needs the two-byte one. */
static void
test_3119_desc_edge(void **state)
{
	static const size_t sizes[] = { 63, 64 };
	uint8_t adu[64], pkt[200];
	struct fmt_frame a;
	size_t i, off, used, len, size;
	int cont;

	(void)state;
	memset(adu, 0x55, sizeof(adu));
	for (i = 0; i < 2; i++) {
		a.p = adu;
		a.len = sizes[i];
		a.ts = 0;
		off = 0;
		len = fmt_3119_pack(&a, 1, &off, pkt, sizeof(pkt), &used);
		assert_int_equal(used, 1);
		assert_int_equal(len, sizes[i] + 1 + i);
		assert_int_equal(fmt_3119_desc_parse(pkt, len, &cont, &size), (int)(1 + i));
		assert_int_equal(cont, 0);
		assert_int_equal(size, sizes[i]);
	}
}

/* every frame of the encoder's ADUs, in order */
static uint8_t adus[NFR][FMT_3119_MAXADU];
static struct fmt_frame af[NFR];

static void
make_adus(unsigned seed)
{
	struct fmt_3119_enc e;
	size_t i;

	make_frames(seed);
	fmt_3119_enc_init(&e);
	for (i = 0; i < NFR; i++) {
		af[i].p = adus[i];
		af[i].len = (size_t)fmt_3119_adu(&e, frames[i], flen[i], adus[i], FMT_3119_MAXADU);
		af[i].ts = fr[i].ts;
	}
}

struct out {
	int n, dummies, adus;
	uint8_t data[NFR + 40][MP3_MAX_FRAME];
	size_t len[NFR + 40];
	int dummy[NFR + 40];
	uint32_t ts[NFR + 40];
	struct fmt_3119_deframe *df;
};

static void
frame_cb(void *arg, const uint8_t *frame, size_t len, uint32_t ts, int dummy)
{
	struct out *o = arg;
	struct mp3_frame f;

	assert_true(o->n < NFR + 40);
	assert_int_equal(mp3_frame_parse(frame, len, &f), (int)len);
	memcpy(o->data[o->n], frame, len);
	o->len[o->n] = len;
	o->dummy[o->n] = dummy;
	o->ts[o->n++] = ts;
	o->dummies += dummy;
}

static void
adu_cb(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct out *o = arg;

	o->adus++;
	assert_int_equal(fmt_3119_deframe_put(o->df, adu, len, ts), 0);
}

/* What a decoder reads for output frame j: main_data_len bytes from main_data_begin back,
 * through the data areas of the frames before it. */
static void
decoder_view(const struct out *o, int j, uint8_t *md, size_t *mdl)
{
	struct mp3_frame f;
	int64_t start = 0, want;
	int i;

	mp3_frame_parse(o->data[j], o->len[j], &f);
	for (i = 0; i < j; i++)
		start += (int64_t)(o->len[i] - HS);
	want = start - f.main_data_begin;
	*mdl = (size_t)f.main_data_len;
	start = 0;
	for (i = 0; i <= j; i++) {
		int64_t s = start, t = start + (int64_t)(o->len[i] - HS), a, b;
		a = want > s ? want : s;
		b = want + (int64_t)*mdl < t ? want + (int64_t)*mdl : t;
		if (a < b)
			memcpy(md + (a - want), o->data[i] + HS + (a - s), (size_t)(b - a));
		start = t;
	}
}

/* Pack at space, depack dropping packets where drop[i], rebuild; returns packets. */
static int
roundtrip(size_t space, const int *drop, struct out *o)
{
	static uint8_t pkt[FMT_3119_MAXADU];
	struct fmt_3119_depack d;
	struct fmt_3119_deframe df;
	size_t off = 0, used, k = 0, len;
	int np = 0;

	memset(o, 0, sizeof(*o));
	o->df = &df;
	fmt_3119_depack_init(&d);
	fmt_3119_deframe_init(&df, frame_cb, o);
	while (k < NFR) {
		uint32_t ts = af[k].ts;
		len = fmt_3119_pack(&af[k], NFR - k, &off, pkt, space, &used);
		assert_true(len > 0 && len <= space);
		if (drop == NULL || !drop[np])
			assert_true(fmt_3119_depack(&d, pkt, len, (uint16_t)(65530 + np), ts, adu_cb,
			    o) >= 0);
		np++;
		k += used;
	}
	fmt_3119_deframe_flush(&df);
	assert_int_equal(d.malformed, 0);
	return np;
}

static void
test_3119_exact(void **state)
{
	static struct out o;
	size_t spaces[] = { 1388, 600, 120, 40 };
	size_t s, i;
	int np;

	(void)state;
	make_adus(2);
	for (s = 0; s < sizeof(spaces) / sizeof(spaces[0]); s++) {
		np = roundtrip(spaces[s], NULL, &o);
		if (spaces[s] == 1388)
			assert_true(np < NFR / 2); /* several ADUs a packet */
		else if (spaces[s] == 120)
			assert_true(np > NFR * 3);  /* fragments */
		assert_int_equal(o.adus, NFR);
		assert_int_equal(o.n, NFR);
		assert_int_equal(o.dummies, 0);
		for (i = 0; i < NFR; i++) {
			assert_int_equal(o.len[i], flen[i]);
			assert_memory_equal(o.data[i], frames[i], flen[i]);
			assert_true(o.ts[i] - fr[i].ts + 1 <= 2); /* per-packet sums round */
		}
	}
}

static void
test_3119_loss(void **state)
{
	static struct out o;
	static uint8_t md[FMT_3119_MAXADU];
	int drop[8 * NFR], np, i, j, seed, played, lost;
	size_t mdl;

	(void)state;
	for (seed = 0; seed < 20; seed++) {
		make_adus(100 + (unsigned)seed);
		srand((unsigned)seed);
		for (i = 0; i < 8 * NFR; i++)
			drop[i] = i > 0 && rand() % 4 == 0;
		np = roundtrip(seed % 2 ? 500 : 1388, drop, &o);
		assert_true(np > 0);
		/* every frame comes out, a dummy for each lost ADU (up to the last received) */
		assert_true(o.n <= NFR && o.n >= o.adus);
		assert_int_equal(o.n - o.dummies, o.adus);
		played = lost = 0;
		for (j = 0; j < o.n; j++) {
			assert_true(o.ts[j] - fr[j].ts + 1 <= 2);
			if (o.dummy[j]) {
				lost++;
				continue;
			}
			/* a received ADU decodes from exactly its own main data */
			assert_int_equal(o.len[j], flen[j]);
			assert_memory_equal(o.data[j], frames[j], 4);
			decoder_view(&o, j, md, &mdl);
			assert_int_equal(mdl, mdlen[j]);
			assert_memory_equal(md, adus[j] + HS, mdl);
			played++;
		}
		assert_true(played > 0 && lost > 0);
	}
}

/* poc-3119 writes 2-byte descriptors' low byte from size + 1 without the carry. */
static size_t
poc_desc(uint8_t *p, size_t len)
{
	p[0] = (uint8_t)(0x40 | ((len >> 8) & 0x3f));
	p[1] = (uint8_t)(len + 1);
	return 2;
}

/* part2_3_length of granule 0 channel 0 (MPEG-1 stereo: bits 20..31 of the side
 * information) set to bits, the other granules' to 0 */
static void
set_part23(uint8_t *adu, unsigned bits)
{
	int pos[4] = { 20, 79, 138, 197 }, g, b;

	for (g = 0; g < 4; g++)
		for (b = 0; b < 12; b++) {
			int at = pos[g] + b;
			unsigned v = g == 0 ? (bits >> (11 - b)) & 1 : 0;
			adu[4 + at / 8] = (uint8_t)((adu[4 + at / 8] & ~(0x80 >> (at % 8))) |
			    (v << (7 - at % 8)));
		}
}
static void
count_cb(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	(void)adu;
	(void)ts;
	assert_int_equal(len, 511);
	(*(int *)arg)++;
}

static void
test_3119_poc(void **state)
{
	static struct out o;
	static uint8_t pkt[4 * FMT_3119_MAXADU], md[FMT_3119_MAXADU];
	struct fmt_3119_depack d;
	struct fmt_3119_deframe df;
	size_t len = 0, i, mdl;
	int nbig = 0;

	(void)state;
	make_adus(3);
	memset(&o, 0, sizeof(o));
	o.df = &df;
	fmt_3119_depack_init(&d);
	fmt_3119_deframe_init(&df, frame_cb, &o);
	for (i = 0; i < 3; i++) {
		len += poc_desc(pkt + len, af[i].len);
		memcpy(pkt + len, af[i].p, af[i].len);
		len += af[i].len;
	}
	assert_int_equal(fmt_3119_depack(&d, pkt, len, 1, af[0].ts, adu_cb, &o), 3);
	assert_int_equal(d.poc_offbyone, 3);
	assert_int_equal(d.malformed, 0);
	/* the same ADUs with correct descriptors are not taken for poc's */
	len = 0;
	for (i = 3; i < 6; i++) {
		pkt[len++] = (uint8_t)(0x40 | af[i].len >> 8);
		pkt[len++] = (uint8_t)af[i].len;
		memcpy(pkt + len, af[i].p, af[i].len);
		len += af[i].len;
	}
	assert_int_equal(fmt_3119_depack(&d, pkt, len, 2, af[3].ts, adu_cb, &o), 3);
	assert_int_equal(d.poc_offbyone, 3);
	/* an ADU of 511 bytes: poc writes 0x100 */
	{
		static uint8_t big[600];
		struct mp3_frame f;
		memcpy(big, af[6].p, HS);
		set_part23(big, (511 - HS) * 8);
		memset(big + HS, 0x5a, 511 - HS);
		assert_int_equal(fmt_3119_adu_parse(big, 511, &f), 511);
		len = poc_desc(pkt, 511);
		assert_int_equal(pkt[0], 0x41);
		assert_int_equal(pkt[1], 0x00);
		memcpy(pkt + 2, big, 511);
		assert_int_equal(fmt_3119_depack(&d, pkt, 513, 3, 0, count_cb, &nbig), 1);
		assert_int_equal(nbig, 1);
		assert_int_equal(d.poc_offbyone, 4);
	}
	fmt_3119_deframe_flush(&df);
	assert_int_equal(o.n, 6);
	for (i = 0; i < 6; i++) {
		/* later frames' main data is not there: compare what each decodes from */
		decoder_view(&o, (int)i, md, &mdl);
		assert_int_equal(mdl, mdlen[i]);
		assert_memory_equal(md, adus[i] + HS, mdl);
	}
}

static void
test_3119_malformed(void **state)
{
	static struct out o;
	static uint8_t pkt[FMT_3119_MAXADU];
	struct fmt_3119_depack d;
	struct fmt_3119_deframe df;
	size_t off = 0, used, len, cut;

	(void)state;
	make_adus(4);
	memset(&o, 0, sizeof(o));
	o.df = &df;
	fmt_3119_depack_init(&d);
	fmt_3119_deframe_init(&df, frame_cb, &o);
	len = fmt_3119_pack(af, NFR, &off, pkt, 1388, &used);
	assert_true(used >= 2);
	/* every truncation of a packet of whole ADUs: refused or a prefix of ADUs, never more */
	for (cut = 0; cut < len; cut++) {
		int r = fmt_3119_depack(&d, pkt, cut, (uint16_t)cut, 0, adu_cb, &o);
		assert_true(r == -1 || r == 0 || (r > 0 && (size_t)r < used));
	}
	assert_int_equal(fmt_3119_depack(&d, pkt, len, 0, 0, adu_cb, &o), (int)used);
	/* a continuation with nothing before it is dropped, not delivered */
	pkt[0] |= 0x80;
	assert_int_equal(fmt_3119_depack(&d, pkt, len, 0, 0, adu_cb, &o), 0);
	pkt[0] = 0;  /* size 0 */
	assert_int_equal(fmt_3119_depack(&d, pkt, len, 0, 0, adu_cb, &o), -1);
	/* not an ADU */
	assert_int_equal(fmt_3119_deframe_put(&df, pkt, 3, 0), -1);
	assert_int_equal(fmt_3119_deframe_put(&df, af[1].p, af[1].len - 1, 0), -1);
	/* a missing middle fragment drops the ADU */
	off = 0;
	len = fmt_3119_pack(af, NFR, &off, pkt, 100, &used);
	assert_int_equal(used, 0);
	assert_int_equal(fmt_3119_depack(&d, pkt, len, 10, 5, adu_cb, &o), 0);
	fmt_3119_pack(af, NFR, &off, pkt, 100, &used);
	len = fmt_3119_pack(af, NFR, &off, pkt, 100, &used);
	assert_int_equal(fmt_3119_depack(&d, pkt, len, 12, 5, adu_cb, &o), 0);
	assert_true(d.fragments_dropped >= 1);
}

/* Interleaved (cycle 8, then 5 with a partial last cycle): pack, depack, deinterleave,
 * rebuild: the frames come back exactly; with losses every received ADU still decodes from
 * its own main data. */
struct ilout {
	struct out *o;
	struct fmt_3119_depack *d;
	struct fmt_3119_deint *di;
};

static void
il_adu_cb(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct ilout *x = arg;

	assert_true(fmt_3119_interleaved(adu, len));
	assert_int_equal(fmt_3119_deint_put(x->di, adu, len, ts, x->d->index == 0), 0);
}

static void
il_out_cb(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct out *o = arg;

	assert_false(fmt_3119_interleaved(adu, len));
	o->adus++;
	assert_int_equal(fmt_3119_deframe_put(o->df, adu, len, ts), 0);
}

static void
test_3119_interleave(void **state)
{
	static struct out o;
	static struct fmt_3119_deint di;
	static uint8_t il[NFR * FMT_3119_MAXADU], pkt[FMT_3119_MAXADU], md[FMT_3119_MAXADU];
	struct fmt_frame a[NFR];
	uint32_t ts[NFR];
	struct fmt_3119_depack d;
	struct fmt_3119_deframe df;
	struct ilout x = { &o, &d, &di };
	size_t cycles[] = { 8, 5, 8 }, c, k, off, used, len, mdl;
	int np, i, lost;

	(void)state;
	for (c = 0; c < 3; c++) {
		make_adus(10 + (unsigned)c);
		memcpy(a, af, sizeof(a));
		for (i = 0; i < NFR; i++)
			ts[i] = af[i].ts;
		fmt_3119_interleave(a, NFR, cycles[c], il, ts);
		assert_int_equal(a[0].p[0], 1);       /* odd indices first */
		assert_int_equal(a[0].p[1] >> 5, 0);
		assert_int_equal(a[cycles[c]].p[1] >> 5, 1);
		assert_int_equal(ts[0], af[1].ts);
		memset(&o, 0, sizeof(o));
		o.df = &df;
		fmt_3119_depack_init(&d);
		fmt_3119_deframe_init(&df, frame_cb, &o);
		fmt_3119_deint_init(&di, il_out_cb, &o);
		off = 0;
		np = 0;
		lost = 0;
		for (k = 0; k < NFR; k += used, np++) {
			uint32_t t = ts[k];
			len = fmt_3119_pack(&a[k], NFR - k, &off, pkt, c == 1 ? 300 : 900, &used);
			assert_true(len > 0);
			if (c == 2 && np % 5 == 3) {
				lost++;
				continue;
			}
			assert_true(fmt_3119_depack(&d, pkt, len, (uint16_t)np, t, il_adu_cb, &x) >= 0);
		}
		fmt_3119_deint_flush(&di);
		fmt_3119_deframe_flush(&df);
		assert_int_equal(d.malformed, 0);
		if (c < 2) {
			assert_int_equal(o.n, NFR);
			assert_int_equal(o.dummies, 0);
			for (i = 0; i < NFR; i++) {
				assert_memory_equal(o.data[i], frames[i], flen[i]);
				assert_true(o.ts[i] - fr[i].ts + 2 <= 4);
			}
			continue;
		}
		assert_true(lost > 0 && o.dummies > 0);
		assert_int_equal(o.n - o.dummies, o.adus);
		for (i = 0; i < o.n; i++) {
			assert_true(o.ts[i] - fr[i].ts + 2 <= 4);
			if (o.dummy[i])
				continue;
			assert_memory_equal(o.data[i], frames[i], 4);
			decoder_view(&o, i, md, &mdl);
			assert_int_equal(mdl, mdlen[i]);
			assert_memory_equal(md, adus[i] + HS, mdl);
		}
	}
	/* not interleaved, index 255, a header that is not one: refused */
	make_adus(3);
	assert_int_equal(fmt_3119_deint_put(&di, af[0].p, af[0].len, 0, 1), -1);
	memcpy(pkt, af[0].p, af[0].len);
	pkt[0] = 255;
	pkt[1] &= 0x1f;
	assert_int_equal(fmt_3119_deint_put(&di, pkt, af[0].len, 0, 1), -1);
	pkt[0] = 3;
	pkt[2] = 0xf0; /* bit rate index 15 */
	assert_int_equal(fmt_3119_deint_put(&di, pkt, af[0].len, 0, 1), -1);
}

static void
fuzz_cb(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct fmt_3119_deframe *df = arg;

	fmt_3119_deframe_put(df, adu, len, ts);
}

static void
null_frame(void *arg, const uint8_t *frame, size_t len, uint32_t ts, int dummy)
{
	struct mp3_frame f;

	(void)ts;
	(void)dummy;
	assert_int_equal(mp3_frame_parse(frame, len, &f), (int)len);
	(*(int *)arg)++;
}

static void
test_3119_fuzz(void **state)
{
	static uint8_t good[2][FMT_3119_MAXADU];
	static struct fmt_3119_deint dis;
	struct fmt_3119_deint *di = &dis;
	struct fmt_3119_depack d;
	struct fmt_3119_deframe df;
	size_t glen[2], off = 0, used;
	int i, k, nf = 0;

	(void)state;
	make_adus(5);
	glen[0] = fmt_3119_pack(af, NFR, &off, good[0], 1388, &used);
	glen[1] = fmt_3119_pack(af + used, NFR - used, &off, good[1], 300, &used);
	fmt_3119_depack_init(&d);
	fmt_3119_deframe_init(&df, null_frame, &nf);
	fmt_3119_deint_init(di, fuzz_cb, &df);
	srand(7);
	for (i = 0; i < 30000; i++) {
		int g = i & 1;
		size_t n = i % 3 == 0 ? (size_t)(rand() % 1500) : glen[g];
		uint8_t *p = malloc(n ? n : 1);
		if (i % 3 == 0) {
			for (k = 0; k < (int)n; k++)
				p[k] = (uint8_t)rand();
			if (n > 8 && rand() % 2) { /* plausible start: descriptor, header */
				p[0] = (uint8_t)(0x40 | (rand() % 8));
				p[2] = 0xff;
				p[3] = 0xfb;
			}
		} else {
			memcpy(p, good[g], n);
			for (k = rand() % 8; k >= 0 && n > 0; k--)
				p[rand() % n] ^= (uint8_t)(1u << (rand() % 8));
			if (rand() % 4 == 0)
				n = (size_t)rand() % (n + 1);
		}
		fmt_3119_depack(&d, p, n, (uint16_t)(rand() % 4), (uint32_t)(rand() % 3) * 2351,
		    fuzz_cb, &df);
		fmt_3119_deframe_put(&df, p, n, (uint32_t)rand());
		if (n > 0)
			p[0] = (uint8_t)(rand() % 256);
		fmt_3119_deint_put(di, p, n, (uint32_t)rand(), rand() % 2);
		if (i % 100 == 0) {
			fmt_3119_deint_flush(di);
			fmt_3119_deframe_flush(&df);
		}
		free(p);
	}
	fmt_3119_deint_flush(di);
	fmt_3119_deframe_flush(&df);
	assert_true(nf > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_3119_adus),
		cmocka_unit_test(test_3119_desc),
		cmocka_unit_test(test_3119_desc_edge),
		cmocka_unit_test(test_3119_exact),
		cmocka_unit_test(test_3119_loss),
		cmocka_unit_test(test_3119_poc),
		cmocka_unit_test(test_3119_malformed),
		cmocka_unit_test(test_3119_interleave),
		cmocka_unit_test(test_3119_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
