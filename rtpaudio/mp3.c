/* mp3.c: MPEG audio frame headers, layer III side information, ID3v2 and Xing/Info skipping. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rtpaudio.h"

/* kbit/s by [version is 1][layer - 1][index]; index 0 (free format) and 15 are refused. */
static const short mp3_bitrates[2][3][16] = {
	{ /* MPEG-2 and 2.5 */
		{ 0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256, -1 },
		{ 0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, -1 },
		{ 0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, -1 },
	},
	{ /* MPEG-1 */
		{ 0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, -1 },
		{ 0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, -1 },
		{ 0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, -1 },
	},
};

static const int mp3_rates[4][3] = {
	{ 11025, 12000, 8000 },  /* 2.5 */
	{ 0, 0, 0 },             /* reserved */
	{ 22050, 24000, 16000 }, /* 2 */
	{ 44100, 48000, 32000 }, /* 1 */
};

/* The 4-byte header alone: returns the frame length (the caller checks it has that many
 * bytes), -2 with fewer than 4 bytes, -1 when this is not a header. */
int
mp3_header_parse(const uint8_t *p, size_t len, struct mp3_frame *f)
{
	int ver, lay, bri, sri, v1;

	if (len < 4)
		return -2;
	if (p[0] != 0xff || (p[1] & 0xe0) != 0xe0)
		return -1;
	ver = (p[1] >> 3) & 3;
	lay = 4 - ((p[1] >> 1) & 3);
	bri = p[2] >> 4;
	sri = (p[2] >> 2) & 3;
	if (ver == 1 || lay == 4 || sri == 3 || bri == 0 || bri == 15)
		return -1;
	/* Emphasis 2 is reserved: a random 0xffe. pattern in audio data often has it. */
	if ((p[3] & 3) == 2)
		return -1;
	v1 = ver == MP3_V1;
	memset(f, 0, sizeof(*f));
	f->version = ver;
	f->layer = lay;
	f->crc = !(p[1] & 1);
	f->bitrate = mp3_bitrates[v1][lay - 1][bri];
	f->rate = mp3_rates[ver][sri];
	f->padding = (p[2] >> 1) & 1;
	f->mode = p[3] >> 6;
	f->channels = f->mode == 3 ? 1 : 2;
	if (lay == 1) {
		f->samples = 384;
		f->len = (12 * f->bitrate * 1000 / f->rate + f->padding) * 4;
	} else if (lay == 2 || v1) {
		f->samples = 1152;
		f->len = 144 * f->bitrate * 1000 / f->rate + f->padding;
	} else {
		f->samples = 576;
		f->len = 72 * f->bitrate * 1000 / f->rate + f->padding;
	}
	return f->len;
}

/* MSB-first bit reader over the side information (bounds are checked by the caller). */
struct mp3_bits {
	const uint8_t *p;
	size_t pos;
};

static unsigned
mp3_getbits(struct mp3_bits *b, int n)
{
	unsigned v = 0;

	while (n-- > 0) {
		v = (v << 1) | ((b->p[b->pos >> 3] >> (7 - (b->pos & 7))) & 1);
		b->pos++;
	}
	return v;
}

/* Layer III side information after a parsed header at p (a frame or an RFC 5219 ADU, which
 * has no main data of its own length): fills side_len, main_data_begin, main_data_len.
 * Returns header + CRC + side information bytes, -2 when len is shorter, -1 not layer III. */
int
mp3_side_parse(const uint8_t *p, size_t len, struct mp3_frame *f)
{
	struct mp3_bits b;
	int gr, ch, ngr, bits = 0, hs;

	if (f->layer != 3)
		return -1;
	if (f->version == MP3_V1)
		f->side_len = f->channels == 1 ? 17 : 32;
	else
		f->side_len = f->channels == 1 ? 9 : 17;
	hs = 4 + 2 * f->crc + f->side_len;
	if ((size_t)hs > len)
		return -2;
	b.p = p + 4 + 2 * f->crc;
	b.pos = 0;
	if (f->version == MP3_V1) {
		f->main_data_begin = (int)mp3_getbits(&b, 9);
		mp3_getbits(&b, f->channels == 1 ? 5 : 3);  /* private bits */
		mp3_getbits(&b, 4 * f->channels);          /* scfsi */
		ngr = 2;
	} else {
		f->main_data_begin = (int)mp3_getbits(&b, 8);
		mp3_getbits(&b, f->channels == 1 ? 1 : 2);
		ngr = 1;
	}
	for (gr = 0; gr < ngr; gr++)
		for (ch = 0; ch < f->channels; ch++) {
			bits += (int)mp3_getbits(&b, 12);  /* part2_3_length */
			/* the rest of the granule: 59 bits in MPEG-1, 63 in MPEG-2 */
			mp3_getbits(&b, f->version == MP3_V1 ? 47 : 51);
		}
	f->main_data_len = (bits + 7) / 8;
	return hs;
}

/* Header and, for layer III, side information: needs the whole frame. Returns the frame
 * length, -2 when len is shorter than the frame, -1 when it is not a frame. */
int
mp3_frame_parse(const uint8_t *p, size_t len, struct mp3_frame *f)
{
	int n, hs;

	if ((n = mp3_header_parse(p, len, f)) < 0)
		return n;
	if ((size_t)n > len)
		return -2;
	if (f->layer != 3)
		return n;
	if ((hs = mp3_side_parse(p, (size_t)n, f)) < 0)
		return -1;
	f->main_data_here = n - hs;
	return n;
}

/* ID3v2 tag at p: its whole length (header, syncsafe size, footer), 0 when there is none,
 * -2 when fewer than 10 bytes are there to tell. */
long
mp3_id3v2_len(const uint8_t *p, size_t len)
{
	long n;

	if (len < 10)
		return len >= 3 && memcmp(p, "ID3", 3) != 0 ? 0 : -2;
	if (memcmp(p, "ID3", 3) != 0 || p[3] == 0xff || p[4] == 0xff ||
	    ((p[6] | p[7] | p[8] | p[9]) & 0x80))
		return 0;
	n = ((long)p[6] << 21) | ((long)p[7] << 14) | ((long)p[8] << 7) | p[9];
	return 10 + n + ((p[5] & 0x10) ? 10 : 0);
}

/* A Xing/Info (LAME) or VBRI (Fraunhofer) frame: metadata, silent, not to be sent. */
int
mp3_is_info(const uint8_t *p, size_t len, const struct mp3_frame *f)
{
	size_t off;

	if (f->layer != 3 || len < (size_t)f->len)
		return 0;
	off = 4 + (size_t)f->side_len;
	if (off + 4 <= len && (memcmp(p + off, "Xing", 4) == 0 || memcmp(p + off, "Info", 4) == 0))
		return 1;
	/* some encoders count the CRC in */
	if (f->crc && off + 6 <= len &&
	    (memcmp(p + off + 2, "Xing", 4) == 0 || memcmp(p + off + 2, "Info", 4) == 0))
		return 1;
	return 36 + 4 <= len && memcmp(p + 36, "VBRI", 4) == 0;
}

/* Next frame from p. A header like prev's (same version, layer and rate: the stream goes
 * on) is taken as it is; any other (the first one, or after junk) must be followed by a
 * header like it where there is room for one, so a stray 0xfff pattern does not count.
 * Returns the frame's offset from p, *skipped the junk bytes before it; -2 when no frame
 * is complete within len. */
long
mp3_sync(const uint8_t *p, size_t len, const struct mp3_frame *prev, struct mp3_frame *f,
    size_t *skipped)
{
	struct mp3_frame g;
	size_t i;
	int n;

	*skipped = 0;
	for (i = 0; i + 4 <= len; i++) {
		if ((n = mp3_frame_parse(p + i, len - i, f)) == -1)
			continue;
		if (n == -2)
			return -2;
		if ((prev == NULL || prev->version != f->version || prev->layer != f->layer ||
		    prev->rate != f->rate) && i + (size_t)n + 4 <= len) {
			if (mp3_header_parse(p + i + n, len - i - n, &g) < 0 || g.version != f->version ||
			    g.layer != f->layer || g.rate != f->rate)
				continue;
		}
		*skipped = i;
		return (long)i;
	}
	return -2;
}

uint32_t
mp3_frame_ts90k(const struct mp3_frame *f)
{
	return (uint32_t)((uint64_t)f->samples * RTP_CLOCK_MPA / (uint64_t)f->rate);
}

/* Whether p holds free-format frames: two headers with bit rate index 0, the rest of their
 * header valid and the same (version, layer, rate, mode), one after the other. */
static int
mp3_free_format(const uint8_t *p, size_t len)
{
	size_t i, n = 0;
	uint8_t h[4];

	for (i = 0; i + 4 <= len && n < 2; i++) {
		uint8_t b[4] = { p[i], p[i + 1], (uint8_t)(p[i + 2] | 0x10), p[i + 3] };
		struct mp3_frame f;
		if ((p[i + 2] >> 4) != 0 || mp3_header_parse(b, 4, &f) < 0)
			continue;
		if (n == 1 && (memcmp(h, p + i, 2) != 0 || (h[2] & 0x0c) != (p[i + 2] & 0x0c) ||
		    (h[3] & 0xc0) != (p[i + 3] & 0xc0)))
			continue;
		memcpy(h, p + i, 4);
		n++;
		i += 3;
	}
	return n == 2;
}

struct mp3_file *
mp3_file_from_mem(const uint8_t *p, size_t len, char *err, size_t errlen)
{
	struct mp3_file *m;
	struct mp3_frame f, prev;
	size_t pos = 0, cap = 0, skip;
	long id3, at;
	int first = 1;

	if ((m = calloc(1, sizeof(*m))) == NULL || (m->data = malloc(len ? len : 1)) == NULL)
		goto nomem;
	memcpy(m->data, p, len);
	m->len = len;
	while ((id3 = mp3_id3v2_len(m->data + pos, len - pos)) > 0 && (size_t)id3 <= len - pos) {
		pos += (size_t)id3;
		m->id3v2 = 1;
	}
	while (pos < len && (at = mp3_sync(m->data + pos, len - pos, first ? NULL : &prev, &f,
	    &skip)) >= 0) {
		pos += (size_t)at;
		m->skipped += skip;
		prev = f;
		if (first && mp3_is_info(m->data + pos, len - pos, &f)) {
			m->info_frame = 1;
			pos += (size_t)f.len;
			first = 0;
			continue;
		}
		if (m->nframes == cap) {
			size_t *o;
			cap = cap ? 2 * cap : 1024;
			if ((o = realloc(m->off, cap * sizeof(*o))) == NULL)
				goto nomem;
			m->off = o;
		}
		if (m->nframes == 0)
			m->first = f;
		else if (f.bitrate != m->first.bitrate)
			m->vbr = 1;
		m->off[m->nframes++] = pos;
		m->samples += (uint64_t)f.samples;
		pos += (size_t)f.len;
		first = 0;
	}
	if (m->nframes == 0) {
		if (mp3_free_format(m->data, len))
			snprintf(err, errlen, "free-format MPEG audio (bit rate index 0) is not "
			    "supported: re-encode at a standard bit rate");
		else
			snprintf(err, errlen, "no MPEG audio frames found");
		goto bad;
	}
	return m;
nomem:
	snprintf(err, errlen, "out of memory");
bad:
	mp3_file_free(m);
	return NULL;
}

struct mp3_file *
mp3_file_new(const char *path, char *err, size_t errlen)
{
	struct mp3_file *m = NULL;
	struct stat st;
	uint8_t *buf = NULL;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL || fstat(fileno(fp), &st) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto bad;
	}
	if ((buf = malloc(st.st_size ? (size_t)st.st_size : 1)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto bad;
	}
	if (fread(buf, 1, (size_t)st.st_size, fp) != (size_t)st.st_size) {
		snprintf(err, errlen, "%s: short read", path);
		goto bad;
	}
	if ((m = mp3_file_from_mem(buf, (size_t)st.st_size, err, errlen)) == NULL) {
		char e[128];
		snprintf(e, sizeof(e), "%s", err);
		snprintf(err, errlen, "%s: %s", path, e);
	}
bad:
	if (fp != NULL)
		fclose(fp);
	free(buf);
	return m;
}

void
mp3_file_free(struct mp3_file *m)
{
	if (m == NULL)
		return;
	free(m->data);
	free(m->off);
	free(m);
}
