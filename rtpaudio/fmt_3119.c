/* fmt_3119.c: RFC 5219 (was RFC 3119) loss-tolerant MP3: ADUs, descriptors, frame rebuilding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

static int
fmt_3119_mdb_max(const struct mp3_frame *f)
{
	return f->version == MP3_V1 ? 511 : 255;
}

/* main_data_begin is the first 9 (MPEG-1) or 8 bits of the side information */
static void
fmt_3119_set_mdb(uint8_t *p, const struct mp3_frame *f, int mdb)
{
	uint8_t *s = p + 4 + 2 * f->crc;

	if (f->version == MP3_V1) {
		s[0] = (uint8_t)(mdb >> 1);
		s[1] = (uint8_t)((s[1] & 0x7f) | (mdb & 1) << 7);
	} else
		s[0] = (uint8_t)mdb;
}

/* An empty granule everywhere: part2_3_length 0, main_data_begin 0; decodes to silence. */
static void
fmt_3119_zero_side(uint8_t *p, const struct mp3_frame *f)
{
	memset(p + 4 + 2 * f->crc, 0, (size_t)f->side_len);
}

void
fmt_3119_enc_init(struct fmt_3119_enc *e)
{
	memset(e, 0, sizeof(*e));
}

/* One frame to its ADU in out: header, CRC, side information, then the main_data_len bytes
 * that start main_data_begin bytes back in the main data stream (earlier frames' data areas).
 * A frame whose reservoir is not there (a stream cut mid-reservoir) becomes an empty ADU.
 * Returns the ADU length, -1 when frame is not a layer III frame or out is too small. */
int
fmt_3119_adu(struct fmt_3119_enc *e, const uint8_t *frame, size_t len, uint8_t *out,
    size_t cap)
{
	struct mp3_frame f;
	size_t hs, here, mdl, mdb, back, keep;
	int n;

	if ((n = mp3_frame_parse(frame, len, &f)) < 0 || f.layer != 3)
		return -1;
	hs = (size_t)n - (size_t)f.main_data_here;
	here = (size_t)f.main_data_here;
	mdl = (size_t)f.main_data_len;
	mdb = (size_t)f.main_data_begin;
	if (hs + mdl > cap || hs > cap)
		return -1;
	memcpy(out, frame, hs);
	if (mdb > e->reslen || mdl > mdb + here) {
		fmt_3119_zero_side(out, &f);
		mdl = 0;
		e->dummies++;
	} else {
		back = mdb < mdl ? mdb : mdl;
		memcpy(out + hs, e->res + e->reslen - mdb, back);
		memcpy(out + hs + back, frame + hs, mdl - back);
	}
	/* this frame's data area joins the stream; 511 bytes back is all anyone needs */
	if (e->reslen + here > sizeof(e->res)) {
		keep = sizeof(e->res) - here;
		if (keep > e->reslen)
			keep = e->reslen;
		memmove(e->res, e->res + e->reslen - keep, keep);
		e->reslen = keep;
	}
	memcpy(e->res + e->reslen, frame + hs, here);
	e->reslen += here;
	return (int)(hs + mdl);
}

/* An ADU's header and side information: returns the length the ADU must have (header, CRC,
 * side information, main data), -2 when len does not reach the end of the side information,
 * -1 when it is not a layer III header. */
int
fmt_3119_adu_parse(const uint8_t *p, size_t len, struct mp3_frame *f)
{
	uint8_t h[4];
	int hs;

	if (len < 4)
		return -2;
	/* an interleaved ADU has index and cycle count where the sync word was */
	h[0] = 0xff;
	h[1] = p[1] | 0xe0;
	h[2] = p[2];
	h[3] = p[3];
	if ((hs = mp3_header_parse(h, 4, f)) < 0)
		return hs;
	if (f->layer != 3)
		return -1;
	if ((hs = mp3_side_parse(p, len, f)) < 0)
		return hs;
	f->main_data_here = 0;
	return hs + f->main_data_len;
}

/* RFC 5219 section 4.3: C (continuation), T (size field is 14 bits, 2 bytes), size. Returns
 * the descriptor's length, -2 when incomplete. */
int
fmt_3119_desc_parse(const uint8_t *p, size_t len, int *cont, size_t *size)
{
	if (len < 1)
		return -2;
	*cont = p[0] >> 7;
	if (!(p[0] & 0x40)) {
		*size = p[0] & 0x3f;
		return 1;
	}
	if (len < 2)
		return -2;
	*size = (size_t)(p[0] & 0x3f) << 8 | p[1];
	return 2;
}

static size_t
fmt_3119_desc_put(uint8_t *out, size_t size, int cont, int two)
{
	if (!two && size < 64) {
		out[0] = (uint8_t)((cont ? 0x80 : 0) | size);
		return 1;
	}
	out[0] = (uint8_t)((cont ? 0x80 : 0) | 0x40 | ((size >> 8) & 0x3f));
	out[1] = (uint8_t)size;
	return 2;
}

/* One payload from ADUs a[0..n): descriptor + ADU while they fit in space, or, when a[0]
 * alone does not, its next fragment from *off (2-byte descriptor with the whole ADU's size,
 * C set on all but the first). Same contract as fmt_2250_pack. */
size_t
fmt_3119_pack(const struct fmt_frame *a, size_t n, size_t *off, uint8_t *out, size_t space,
    size_t *nused)
{
	size_t len = 0, i, piece, d;

	*nused = 0;
	if (n == 0 || space < 3 || a[0].len >= 16384)
		return 0;
	if (*off == 0 && (a[0].len < 64 ? 1 : 2) + a[0].len <= space) {
		for (i = 0; i < n; i++) {
			d = a[i].len < 64 ? 1 : 2;
			if (a[i].len >= 16384 || len + d + a[i].len > space)
				break;
			len += fmt_3119_desc_put(out + len, a[i].len, 0, 0);
			memcpy(out + len, a[i].p, a[i].len);
			len += a[i].len;
		}
		*nused = i;
		return len;
	}
	piece = a[0].len - *off;
	if (piece > space - 2)
		piece = space - 2;
	len = fmt_3119_desc_put(out, a[0].len, *off != 0, 1);
	memcpy(out + len, a[0].p + *off, piece);
	*off += piece;
	if (*off == a[0].len) {
		*off = 0;
		*nused = 1;
	}
	return len + piece;
}

void
fmt_3119_depack_init(struct fmt_3119_depack *d)
{
	memset(d, 0, sizeof(*d));
}

/* Walks a payload of whole ADUs: each descriptor (C clear) and an ADU of its size whose own
 * length (from its side information) is no more than that. poc-3119 (rtp.c,
 * rtp_rfc3119_pkt_pack) writes a 2-byte descriptor's high 6 bits from the size and its low
 * byte from size + 1, without the carry: in poc mode the size is the high bits and the low
 * byte less one (0x100 is 0x1ff, not 0xff).
 * With cb, delivers; returns ADUs, -1 when the payload does not parse so. */
static int
fmt_3119_walk(const uint8_t *pl, size_t len, int poc, uint32_t ts, fmt_frame_cb *cb,
    void *arg, int *index)
{
	struct mp3_frame f;
	size_t size, pos;
	int cont, k, n, nf = 0;
	uint64_t acc = 0;

	for (pos = 0; pos < len; pos += size) {
		if ((k = fmt_3119_desc_parse(pl + pos, len - pos, &cont, &size)) < 0 || cont)
			return -1;
		if (poc && k == 2)
			size = (size & 0x3f00) | ((size - 1) & 0xff);
		pos += (size_t)k;
		if (size == 0 || size > len - pos)
			return -1;
		n = fmt_3119_adu_parse(pl + pos, size, &f);
		if (n < 0 || (size_t)n > size)
			return -1;
		if (cb != NULL) {
			*index = nf;
			cb(arg, pl + pos, (size_t)n, ts + (uint32_t)(acc / (uint64_t)f.rate));
			acc += (uint64_t)f.samples * RTP_CLOCK_MPA;
		}
		nf++;
	}
	return nf;
}

/* ADUs of one payload, packets in sequence order (gaps allowed): whole ADUs to cb with
 * timestamps advanced by each ADU's duration; a fragmented ADU when its last fragment is in.
 * A payload that parses only with poc-3119's descriptor sizes is taken as such (counted).
 * Returns ADUs delivered, -1 when the payload is malformed (nothing of it delivered). */
int
fmt_3119_depack(struct fmt_3119_depack *d, const uint8_t *pl, size_t len, uint16_t seq,
    uint32_t ts, fmt_frame_cb *cb, void *arg)
{
	struct mp3_frame f;
	size_t size;
	int cont, k, n, poc;

	if ((k = fmt_3119_desc_parse(pl, len, &cont, &size)) < 0 || size == 0)
		goto bad;
	if (cont) {
		size_t piece = len - (size_t)k;
		if (d->need == 0 || size != d->need || seq != d->next_seq || ts != d->ts ||
		    piece == 0 || piece > d->need - d->got) {
			if (d->need != 0)
				d->fragments_dropped++;
			d->need = 0;
			d->fragments_dropped++;
			return 0;
		}
		memcpy(d->buf + d->got, pl + k, piece);
		d->got += piece;
		d->next_seq = (uint16_t)(seq + 1);
		if (d->got < d->need)
			return 0;
		d->need = 0;
		n = fmt_3119_adu_parse(d->buf, d->got, &f);
		if (n < 0 || (size_t)n > d->got)
			goto bad;
		d->adus++;
		d->index = 0;
		cb(arg, d->buf, (size_t)n, ts);
		return 1;
	}
	if (d->need != 0) {
		d->fragments_dropped++;
		d->need = 0;
	}
	for (poc = 0; poc < 2; poc++)
		if (fmt_3119_walk(pl, len, poc, ts, NULL, NULL, NULL) > 0) {
			n = fmt_3119_walk(pl, len, poc, ts, cb, arg, &d->index);
			d->adus += (uint64_t)n;
			if (poc)
				d->poc_offbyone += (uint64_t)n;
			return n;
		}
	/* the first fragment of an ADU larger than a packet, alone in it */
	n = fmt_3119_adu_parse(pl + k, len - (size_t)k, &f);
	if (k != 2 || size <= len - (size_t)k || size > FMT_3119_MAXADU || n < 0 ||
	    (size_t)n > size)
		goto bad;
	memcpy(d->buf, pl + k, len - (size_t)k);
	d->got = len - (size_t)k;
	d->need = size;
	d->ts = ts;
	d->next_seq = (uint16_t)(seq + 1);
	return 0;
bad:
	d->malformed++;
	return -1;
}

void
fmt_3119_deframe_init(struct fmt_3119_deframe *r, fmt_3119_frame_cb *cb, void *arg)
{
	memset(r, 0, sizeof(*r));
	r->cb = cb;
	r->arg = arg;
}

static void
fmt_3119_emit(struct fmt_3119_deframe *r)
{
	struct fmt_3119_pend *e = &r->q[r->head];
	int64_t end = e->start + (int64_t)(e->len - e->hs);

	if (end > r->floor)
		r->floor = end;
	r->head = (r->head + 1) % FMT_3119_PENDING;
	r->n--;
	if (e->dummy)
		r->dummies++;
	else
		r->frames++;
	r->cb(r->arg, e->buf, e->len, e->ts, e->dummy);
}

void
fmt_3119_deframe_flush(struct fmt_3119_deframe *r)
{
	while (r->n > 0)
		fmt_3119_emit(r);
}

/* Copies main data to stream position at, over the pending frames' data areas. */
static void
fmt_3119_write(struct fmt_3119_deframe *r, int64_t at, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < r->n && len > 0; i++) {
		struct fmt_3119_pend *e = &r->q[(r->head + i) % FMT_3119_PENDING];
		int64_t s = e->start, t = e->start + (int64_t)(e->len - e->hs), a, b;
		a = at > s ? at : s;
		b = at + (int64_t)len < t ? at + (int64_t)len : t;
		if (a < b)
			memcpy(e->buf + e->hs + (a - s), p + (a - at), (size_t)(b - a));
	}
}

/* A new frame from an ADU (or a dummy from adu's header with dummy set): its data goes
 * where main_data_begin says, or as early as the stream allows and main_data_begin is
 * rewritten; an ADU that cannot fit becomes a dummy. Frames that no later ADU can reach
 * go out. */
static void
fmt_3119_place(struct fmt_3119_deframe *r, const uint8_t *adu, size_t len, uint32_t ts,
    int dummy)
{
	struct fmt_3119_pend *e;
	struct mp3_frame f;
	int64_t start, pos, reach;
	size_t hs, mdl;
	int mdbmax;

	fmt_3119_adu_parse(adu, len, &f);
	hs = 4 + 2 * (size_t)f.crc + (size_t)f.side_len;
	mdl = len - hs;
	mdbmax = fmt_3119_mdb_max(&f);
	if (r->n == FMT_3119_PENDING)
		fmt_3119_emit(r);
	e = &r->q[(r->head + r->n) % FMT_3119_PENDING];
	r->n++;
	memcpy(e->buf, adu, hs);
	memset(e->buf + hs, 0, (size_t)f.len - hs);
	e->len = (size_t)f.len;
	e->hs = hs;
	e->ts = ts;
	e->dummy = dummy;
	e->start = start = r->next_start;
	r->next_start += (int64_t)(e->len - hs);
	pos = start - f.main_data_begin;
	if (pos < r->floor)
		pos = r->floor;
	if (!dummy && (start - pos > mdbmax || pos > start ||
	    pos + (int64_t)mdl > start + (int64_t)(e->len - hs))) {
		e->dummy = dummy = 1;
		r->dropped++;
	}
	if (dummy) {
		fmt_3119_zero_side(e->buf, &f);
	} else {
		fmt_3119_set_mdb(e->buf, &f, (int)(start - pos));
		fmt_3119_write(r, pos, adu + hs, mdl);
		r->floor = pos + (int64_t)mdl;
	}
	reach = r->next_start - mdbmax;
	if (r->floor > reach)
		reach = r->floor;
	while (r->n > 0) {
		struct fmt_3119_pend *h = &r->q[r->head];
		if (h->start + (int64_t)(h->len - h->hs) > reach)
			break;
		fmt_3119_emit(r);
	}
}

/* One ADU in media order. A gap in the timestamps (lost ADUs) is filled with dummy frames
 * made from the last ADU's header, up to FMT_3119_PENDING of them; a longer gap or a new
 * format starts the stream over. Returns 0, -1 when adu is not an ADU (dropped; interleaved
 * ones go through fmt_3119_deint first). */
int
fmt_3119_deframe_put(struct fmt_3119_deframe *r, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct mp3_frame f, l;
	int64_t dt, unit, nfr, j;
	int n;

	if (fmt_3119_interleaved(adu, len) || (n = fmt_3119_adu_parse(adu, len, &f)) < 0 ||
	    (size_t)n != len ||
	    (size_t)f.len > MP3_MAX_FRAME || n - f.main_data_len > f.len) {
		r->dropped++;
		return -1;
	}
	if (r->have_last) {
		fmt_3119_adu_parse(r->last_hdr, r->last_hs, &l);
		if (l.rate != f.rate || l.channels != f.channels || l.samples != f.samples ||
		    l.version != f.version) {
			fmt_3119_deframe_flush(r);
			r->have_last = 0;
		}
	}
	if (r->have_last) {
		dt = rtp_ts_diff(ts, r->last_ts);
		unit = (int64_t)f.samples * RTP_CLOCK_MPA;
		nfr = dt > 0 ? (2 * dt * f.rate + unit) / (2 * unit) : 0;
		if (nfr <= 0) {
			r->dropped++; /* a duplicate or out of order: too late to use */
			return 0;
		}
		if (nfr - 1 > FMT_3119_PENDING) {
			fmt_3119_deframe_flush(r);
			r->have_last = 0;
		} else
			for (j = 1; j < nfr; j++)
				fmt_3119_place(r, r->last_hdr, r->last_hs,
				    r->last_ts + (uint32_t)(dt * j / nfr), 1);
	}
	if (!r->have_last) {
		r->next_start = 0;
		r->floor = 0;
	}
	fmt_3119_place(r, adu, len, ts, 0);
	r->have_last = 1;
	r->last_hs = len - (size_t)f.main_data_len;
	memcpy(r->last_hdr, adu, r->last_hs);
	r->last_ts = ts;
	return 0;
}

int
fmt_3119_interleaved(const uint8_t *adu, size_t len)
{
	return len >= 2 && (adu[0] != 0xff || (adu[1] & 0xe0) != 0xe0);
}

/* Reorders ADUs a[0..n) (media order, ts[] their timestamps) into cycles of cycle ADUs, each
 * sent odd indices first, then even, with index and cycle count in each header; adus_out
 * (as large as all the ADUs) receives the rewritten ADUs, a[] and ts[] the new order. */
void
fmt_3119_interleave(struct fmt_frame *a, size_t n, size_t cycle, uint8_t *adus_out,
    uint32_t *ts)
{
	struct fmt_frame c[FMT_3119_MAXCYCLE];
	uint32_t t[FMT_3119_MAXCYCLE];
	size_t ord[FMT_3119_MAXCYCLE], base, i, k, m, at = 0;
	unsigned icc = 0;

	if (cycle < 2)
		return;
	if (cycle > FMT_3119_MAXCYCLE - 1)
		cycle = FMT_3119_MAXCYCLE - 1; /* index 255 is reserved */
	for (base = 0; base < n; base += cycle, icc = (icc + 1) & 7) {
		m = n - base < cycle ? n - base : cycle;
		memcpy(c, a + base, m * sizeof(c[0]));
		memcpy(t, ts + base, m * sizeof(t[0]));
		k = 0;
		for (i = 1; i < m; i += 2)
			ord[k++] = i;
		for (i = 0; i < m; i += 2)
			ord[k++] = i;
		for (k = 0; k < m; k++) {
			i = ord[k];
			memcpy(adus_out + at, c[i].p, c[i].len);
			adus_out[at] = (uint8_t)i;
			adus_out[at + 1] = (uint8_t)((icc << 5) | (c[i].p[1] & 0x1f));
			a[base + k].p = adus_out + at;
			a[base + k].len = c[i].len;
			a[base + k].ts = c[i].ts;
			ts[base + k] = t[i];
			at += c[i].len;
		}
	}
}

void
fmt_3119_deint_init(struct fmt_3119_deint *r, fmt_frame_cb *cb, void *arg)
{
	memset(r->len, 0, sizeof(r->len));
	r->active = r->have_base = r->have_end = 0;
	r->maxii = -1;
	r->cb = cb;
	r->arg = arg;
	r->adus = r->late = r->duplicates = 0;
}

static uint32_t
fmt_3119_dur(const uint8_t *adu, int count)
{
	struct mp3_frame f;

	if (fmt_3119_adu_parse(adu, 4 + 2 + 32, &f) == -1 || f.rate == 0)
		return 0;
	return (uint32_t)((uint64_t)count * (uint64_t)f.samples * RTP_CLOCK_MPA /
	    (uint64_t)f.rate);
}

/* The cycle in media order, with the sync word back; timestamps from the cycle's base
 * (the first ADU of some packet of it tells it) or, failing that, the previous cycle's end. */
void
fmt_3119_deint_flush(struct fmt_3119_deint *r)
{
	uint32_t base = r->have_base ? r->base : r->end;
	int i, last = -1;

	if (!r->active)
		return;
	if (r->have_base || r->have_end) {
		for (i = 0; i <= r->maxii; i++) {
			if (r->len[i] == 0)
				continue;
			r->adus++;
			r->cb(r->arg, r->buf[i], r->len[i], base + fmt_3119_dur(r->buf[i], i));
			last = i;
		}
		if (last >= 0) {
			r->end = base + fmt_3119_dur(r->buf[last], r->maxii + 1);
			r->have_end = 1;
		}
	}
	memset(r->len, 0, sizeof(r->len));
	r->active = r->have_base = 0;
	r->maxii = -1;
}

/* One interleaved ADU (first: the first ADU of its packet, whose timestamp is its own).
 * Returns 0, -1 when it is not an interleaved ADU or too late (its cycle is out). */
int
fmt_3119_deint_put(struct fmt_3119_deint *r, const uint8_t *adu, size_t len, uint32_t ts,
    int first)
{
	struct mp3_frame f;
	int ii, icc;

	if (len > FMT_3119_MAXADU || !fmt_3119_interleaved(adu, len) ||
	    fmt_3119_adu_parse(adu, len, &f) < 0)
		return -1;
	ii = adu[0];
	icc = adu[1] >> 5;
	if (ii == 255)
		return -1;
	if (r->active && icc != r->icc) {
		if (icc == ((r->icc + 7) & 7)) {
			r->late++;
			return -1;
		}
		fmt_3119_deint_flush(r);
	}
	if (!r->active) {
		r->active = 1;
		r->icc = icc;
	}
	if (r->len[ii] != 0) {
		r->duplicates++;
		return 0;
	}
	memcpy(r->buf[ii], adu, len);
	r->buf[ii][0] = 0xff;
	r->buf[ii][1] |= 0xe0;
	r->len[ii] = len;
	if (ii > r->maxii)
		r->maxii = ii;
	if (first && !r->have_base) {
		r->base = ts - fmt_3119_dur(r->buf[ii], ii);
		r->have_base = 1;
	}
	return 0;
}

/* The player's receiver (fmt.h): depacketized ADUs, deinterleaved when they say so, then
 * frames rebuilt from them (dummies for the lost ones) */
struct fmt_3119_rx {
	struct fmt_3119_depack d;
	struct fmt_3119_deframe df;
	struct fmt_3119_deint di;
	fmt_out_cb *cb;
	void *arg;
};

static void
fmt_3119_rx_frame(void *arg, const uint8_t *frame, size_t len, uint32_t ts, int dummy)
{
	struct fmt_3119_rx *r = arg;

	r->cb(r->arg, frame, len, ts, dummy);
}

static void
fmt_3119_rx_deint(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct fmt_3119_rx *r = arg;

	fmt_3119_deframe_put(&r->df, adu, len, ts);
}

static void
fmt_3119_rx_adu(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct fmt_3119_rx *r = arg;

	if (fmt_3119_interleaved(adu, len)) {
		fmt_3119_deint_put(&r->di, adu, len, ts, r->d.index == 0);
		return;
	}
	fmt_3119_deint_flush(&r->di);
	fmt_3119_deframe_put(&r->df, adu, len, ts);
}

static void
fmt_3119_rx_reset(void *rx)
{
	struct fmt_3119_rx *r = rx;

	fmt_3119_depack_init(&r->d);
	fmt_3119_deframe_init(&r->df, fmt_3119_rx_frame, r);
	fmt_3119_deint_init(&r->di, fmt_3119_rx_deint, r);
}

static void *
fmt_3119_rx_new(fmt_out_cb *cb, void *arg)
{
	struct fmt_3119_rx *r;

	if ((r = malloc(sizeof(*r))) == NULL)
		return NULL;
	r->cb = cb;
	r->arg = arg;
	fmt_3119_rx_reset(r);
	return r;
}

static int
fmt_3119_rx_put(void *rx, const uint8_t *pl, size_t len, uint16_t seq, uint32_t ts)
{
	struct fmt_3119_rx *r = rx;

	return fmt_3119_depack(&r->d, pl, len, seq, ts, fmt_3119_rx_adu, r) < 0 ? -1 : 0;
}

static void
fmt_3119_rx_flush(void *rx)
{
	struct fmt_3119_rx *r = rx;

	fmt_3119_deint_flush(&r->di);
	fmt_3119_deframe_flush(&r->df);
}

static void
fmt_3119_rx_counts(const void *rx, struct fmt_rx_counts *c)
{
	const struct fmt_3119_rx *r = rx;

	memset(c, 0, sizeof(*c));
	c->malformed = r->d.malformed;
	c->fragments_dropped = r->d.fragments_dropped;
	c->dummies = r->df.dummies;
	c->poc = r->d.poc_offbyone;
	c->late = r->di.late;
}

static void
fmt_3119_report(const struct fmt_rx_counts *c, char *buf, size_t size)
{
	snprintf(buf, size, "3119: %llu dummy frames for lost ADUs, %llu poc-3119 descriptors, "
	    "%llu ADUs too late to deinterleave\n", (unsigned long long)c->dummies,
	    (unsigned long long)c->poc, (unsigned long long)c->late);
}

const struct rtpaudio_fmt fmt_3119_fmt = {
	.name = "3119",
	.alias = "5219",
	.pt = FMT_3119_PT,
	.clock = RTP_CLOCK_MPA,
	.min_mtu = RTP_HDR + 2 + 40, /* a first fragment holds the ADU's header and side info */
	.adus = 1,
	.interleave = 1,
	.sdp_name = "mpa-robust",
	.pack = fmt_3119_pack,
	.rx_new = fmt_3119_rx_new,
	.rx_put = fmt_3119_rx_put,
	.rx_flush = fmt_3119_rx_flush,
	.rx_reset = fmt_3119_rx_reset,
	.rx_counts = fmt_3119_rx_counts,
	.rx_free = free,
	.report = fmt_3119_report,
};
