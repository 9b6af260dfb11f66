/* fmt_fec.c: poc-fec's wire format (poc 0.4.2 fec-pkt.h): ADUs in groups of k, sent as n
 * packets of a systematic Reed-Solomon code, each with a 14-byte header, on plain UDP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

/* magic 0xfe, version 1, group seq, packet seq, k, n, fec_len (16), len (16), group time
 * (32, microseconds at the group's end), all big-endian. Returns 14, -2 when shorter, -1
 * when not such a header or len is not the payload's length. */
int
fmt_fec_hdr_parse(const uint8_t *p, size_t len, struct fmt_fec_hdr *h)
{
	if (len < FMT_FEC_HDR)
		return -2;
	if (p[0] != FMT_FEC_MAGIC || p[1] != 1)
		return -1;
	h->gseq = p[2];
	h->pseq = p[3];
	h->k = p[4];
	h->n = p[5];
	h->fec_len = (size_t)p[6] << 8 | p[7];
	h->len = (size_t)p[8] << 8 | p[9];
	h->tstamp = (uint32_t)p[10] << 24 | (uint32_t)p[11] << 16 | (uint32_t)p[12] << 8 | p[13];
	if (h->k == 0 || h->n < h->k || h->pseq >= h->n || h->len > h->fec_len ||
	    h->fec_len > FMT_FEC_MAXLEN || h->len != len - FMT_FEC_HDR)
		return -1;
	return FMT_FEC_HDR;
}

size_t
fmt_fec_hdr_pack(uint8_t *out, const struct fmt_fec_hdr *h)
{
	out[0] = FMT_FEC_MAGIC;
	out[1] = 1;
	out[2] = (uint8_t)h->gseq;
	out[3] = (uint8_t)h->pseq;
	out[4] = (uint8_t)h->k;
	out[5] = (uint8_t)h->n;
	out[6] = (uint8_t)(h->fec_len >> 8);
	out[7] = (uint8_t)h->fec_len;
	out[8] = (uint8_t)(h->len >> 8);
	out[9] = (uint8_t)h->len;
	out[10] = (uint8_t)(h->tstamp >> 24);
	out[11] = (uint8_t)(h->tstamp >> 16);
	out[12] = (uint8_t)(h->tstamp >> 8);
	out[13] = (uint8_t)h->tstamp;
	return FMT_FEC_HDR;
}

void
fmt_fec_rx_init(struct fmt_fec_rx *r, fmt_frame_cb *cb, void *arg)
{
	int i;

	r->code = NULL;
	for (i = 0; i < FMT_FEC_WIN; i++)
		r->win[i].active = 0;
	r->have_base = r->base = r->head = 0;
	memset(r->done, 0, sizeof(r->done));
	r->cb = cb;
	r->arg = arg;
	r->groups = r->recovered = r->unrecoverable = r->lost = r->malformed = 0;
	r->duplicates = r->late = 0;
}

void
fmt_fec_rx_free(struct fmt_fec_rx *r)
{
	fec_free(r->code);
	r->code = NULL;
}

static uint32_t
fmt_fec_dur90(const uint8_t *adu, size_t len)
{
	struct mp3_frame f;

	if (fmt_3119_adu_parse(adu, len, &f) < 0 || f.rate == 0)
		return 0;
	return (uint32_t)((uint64_t)f.samples * RTP_CLOCK_MPA / (uint64_t)f.rate);
}

/* A group is over: missing sources decoded when k packets are in, the ADUs out in order
 * with 90 kHz timestamps counted back from the group's end time; what it received is
 * remembered. */
static void
fmt_fec_grp_out(struct fmt_fec_rx *r, struct fmt_fec_grp *q)
{
	const uint8_t *in[FEC_MAXN];
	uint8_t *out[FEC_MAXN];
	struct mp3_frame f;
	struct fmt_fec_done *d;
	int idx[FEC_MAXN], i, j, k = q->g.k, missing = 0, n;
	uint32_t end, dur = 0;
	size_t len;

	if (!q->active)
		return;
	q->active = 0;
	r->groups++;
	d = &r->done[q->g.gseq % FMT_FEC_DONE];
	d->used = 1;
	d->gseq = q->g.gseq;
	d->complete = q->got >= k;
	memset(d->seen, 0, sizeof(d->seen));
	for (i = 0; i < q->g.n; i++)
		if (q->have[i])
			d->seen[i / 8] |= (uint8_t)(1u << (i % 8));
	for (i = 0; i < k; i++)
		missing += !q->have[i];
	if (missing > 0 && q->got >= k) {
		if (r->code == NULL || r->code->k != k || r->code->n != q->g.n) {
			fec_free(r->code);
			r->code = fec_new(k, q->g.n);
		}
		for (i = 0, j = 0; i < q->g.n && j < k; i++)
			if (q->have[i]) {
				idx[j] = i;
				in[j++] = q->buf[i];
			}
		for (i = 0; i < k; i++)
			out[i] = q->buf[i];
		if (r->code != NULL && fec_decode(r->code, in, idx, out, q->g.fec_len) == 0) {
			for (i = 0; i < k; i++)
				if (!q->have[i]) {
					/* its length: what its side information says */
					n = fmt_3119_adu_parse(q->buf[i], q->g.fec_len, &f);
					if (n > 0 && (size_t)n <= q->g.fec_len) {
						q->len[i] = (size_t)n;
						q->have[i] = 1;
						r->recovered++;
					}
				}
		}
	}
	for (i = 0; i < k; i++)
		if (!q->have[i])
			r->lost++;
	if (missing > 0 && q->got < k)
		r->unrecoverable++;
	for (i = 0; i < k && dur == 0; i++)
		if (q->have[i])
			dur = fmt_fec_dur90(q->buf[i], q->len[i]);
	end = (uint32_t)((uint64_t)q->g.tstamp * 9 / 100);
	for (i = 0; i < k; i++) {
		if (!q->have[i])
			continue;
		len = q->len[i];
		if (fmt_3119_adu_parse(q->buf[i], len, &f) < 0) {
			r->malformed++;
			continue;
		}
		r->cb(r->arg, q->buf[i], len, end - (uint32_t)(k - i) * dur);
	}
}

/* The oldest group is played out, the window moves on by one. */
static void
fmt_fec_advance(struct fmt_fec_rx *r)
{
	fmt_fec_grp_out(r, &r->win[r->head]);
	r->head = (r->head + 1) % FMT_FEC_WIN;
	r->base = (r->base + 1) & 0xff;
}

/* Every group held, played out in order (the end of the stream). */
void
fmt_fec_rx_flush(struct fmt_fec_rx *r)
{
	int i;

	for (i = 0; i < FMT_FEC_WIN; i++)
		fmt_fec_advance(r);
	r->have_base = 0;
}

/* A packet of a group played out already */
static int
fmt_fec_behind(struct fmt_fec_rx *r, const struct fmt_fec_hdr *h)
{
	struct fmt_fec_done *d = &r->done[h->gseq % FMT_FEC_DONE];
	uint8_t bit = (uint8_t)(1u << (h->pseq % 8));

	if (!d->used || d->gseq != h->gseq) {
		r->late++;
		return FMT_FEC_LATE;
	}
	if (d->seen[h->pseq / 8] & bit) {
		r->duplicates++;
		return FMT_FEC_DUP;
	}
	d->seen[h->pseq / 8] |= bit;
	if (d->complete)
		return FMT_FEC_TAKEN;
	r->late++;
	return FMT_FEC_LATE;
}

/* One packet. Returns FMT_FEC_TAKEN, FMT_FEC_DUP (counted in duplicates), FMT_FEC_LATE
 * (its group was played out without it: counted in late), or -1 when it is not a poc-fec
 * packet or disagrees with its group's (counted in malformed). */
int
fmt_fec_rx_put(struct fmt_fec_rx *r, const uint8_t *p, size_t len)
{
	struct fmt_fec_hdr h;
	struct fmt_fec_grp *q;
	int i, d;

	if (fmt_fec_hdr_parse(p, len, &h) != FMT_FEC_HDR) {
		r->malformed++;
		return -1;
	}
	if (!r->have_base) {
		r->have_base = 1;
		r->base = h.gseq;
	}
	d = (h.gseq - r->base) & 0xff;
	if (d >= 128)
		return fmt_fec_behind(r, &h);
	while (d >= FMT_FEC_WIN) {
		fmt_fec_advance(r);
		d--;
	}
	q = &r->win[(r->head + d) % FMT_FEC_WIN];
	if (!q->active) {
		q->active = 1;
		q->g = h;
		q->got = 0;
		for (i = 0; i < h.n; i++)
			q->have[i] = 0;
	} else if (h.k != q->g.k || h.n != q->g.n || h.fec_len != q->g.fec_len ||
	    h.tstamp != q->g.tstamp) {
		r->malformed++;
		return -1;
	}
	if (q->have[h.pseq]) {
		r->duplicates++;
		return FMT_FEC_DUP;
	}
	memcpy(q->buf[h.pseq], p + FMT_FEC_HDR, h.len);
	memset(q->buf[h.pseq] + h.len, 0, h.fec_len - h.len);
	q->len[h.pseq] = h.len;
	q->have[h.pseq] = 1;
	q->got++;
	/* the oldest groups that can be decoded go now: no need to wait */
	while (r->win[r->head].active && r->win[r->head].got >= r->win[r->head].g.k)
		fmt_fec_advance(r);
	return FMT_FEC_TAKEN;
}

/* The n packets of one group of k ADUs a[0..k) (end: the group's end time, microseconds)
 * into out[i] (FMT_FEC_HDR + fec_len bytes each), lengths in olen[]. Returns 0, -1 when an
 * ADU is too large or the code cannot be made. */
int
fmt_fec_group(struct fec *code, const struct fmt_frame *a, int gseq, uint32_t end,
    uint8_t (*out)[FMT_FEC_HDR + FMT_FEC_MAXLEN], size_t *olen)
{
	static uint8_t src[FEC_MAXN][FMT_FEC_MAXLEN];
	const uint8_t *s[FEC_MAXN];
	struct fmt_fec_hdr h;
	size_t max = 0;
	int i;

	for (i = 0; i < code->k; i++)
		if (a[i].len > max)
			max = a[i].len;
	if (max + 2 > FMT_FEC_MAXLEN)
		return -1;
	for (i = 0; i < code->k; i++) {
		memcpy(src[i], a[i].p, a[i].len);
		memset(src[i] + a[i].len, 0, max - a[i].len);
		s[i] = src[i];
	}
	h.gseq = gseq & 0xff;
	h.k = code->k;
	h.n = code->n;
	h.fec_len = max + 2; /* as poc: the receiver decodes 2 zero bytes more */
	h.tstamp = end;
	for (i = 0; i < code->n; i++) {
		h.pseq = i;
		h.len = i < code->k ? a[i].len : max;
		fmt_fec_hdr_pack(out[i], &h);
		fec_encode(code, s, out[i] + FMT_FEC_HDR, i, max);
		olen[i] = FMT_FEC_HDR + h.len;
	}
	return 0;
}

/* The player's receiver (fmt.h): groups decoded (recovered) into their ADUs, frames rebuilt
 * from those as RFC 5219's are */
struct fmt_fec_prx {
	struct fmt_fec_rx fx;
	struct fmt_3119_deframe df;
	fmt_out_cb *cb;
	void *arg;
};

static void
fmt_fec_prx_frame(void *arg, const uint8_t *frame, size_t len, uint32_t ts, int dummy)
{
	struct fmt_fec_prx *r = arg;

	r->cb(r->arg, frame, len, ts, dummy);
}

static void
fmt_fec_prx_adu(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct fmt_fec_prx *r = arg;

	fmt_3119_deframe_put(&r->df, adu, len, ts);
}

static void *
fmt_fec_prx_new(fmt_out_cb *cb, void *arg)
{
	struct fmt_fec_prx *r;

	if ((r = malloc(sizeof(*r))) == NULL)
		return NULL;
	r->cb = cb;
	r->arg = arg;
	fmt_fec_rx_init(&r->fx, fmt_fec_prx_adu, r);
	fmt_3119_deframe_init(&r->df, fmt_fec_prx_frame, r);
	return r;
}

static int
fmt_fec_prx_put(void *rx, const uint8_t *p, size_t len, uint16_t seq, uint32_t ts)
{
	struct fmt_fec_prx *r = rx;

	(void)seq;
	(void)ts;
	return fmt_fec_rx_put(&r->fx, p, len);
}

static void
fmt_fec_prx_flush(void *rx)
{
	struct fmt_fec_prx *r = rx;

	fmt_fec_rx_flush(&r->fx);
	fmt_3119_deframe_flush(&r->df);
}

/* groups have no sequence to restart */
static void
fmt_fec_prx_reset(void *rx)
{
	struct fmt_fec_prx *r = rx;

	fmt_3119_deframe_init(&r->df, fmt_fec_prx_frame, r);
}

static void
fmt_fec_prx_counts(const void *rx, struct fmt_rx_counts *c)
{
	const struct fmt_fec_prx *r = rx;

	memset(c, 0, sizeof(*c));
	c->dummies = r->df.dummies;
	c->groups = r->fx.groups;
	c->recovered = r->fx.recovered;
	c->unrecoverable = r->fx.unrecoverable;
}

static void
fmt_fec_prx_free(void *rx)
{
	struct fmt_fec_prx *r = rx;

	if (r != NULL)
		fmt_fec_rx_free(&r->fx);
	free(r);
}

static void
fmt_fec_report(const struct fmt_rx_counts *c, char *buf, size_t size)
{
	snprintf(buf, size, "fec: %llu groups, %llu ADUs recovered by FEC, %llu groups "
	    "unrecoverable, %llu dummy frames\n", (unsigned long long)c->groups,
	    (unsigned long long)c->recovered, (unsigned long long)c->unrecoverable,
	    (unsigned long long)c->dummies);
}

const struct rtpaudio_fmt fmt_fec_fmt = {
	.name = "fec",
	.pt = -1,
	.clock = 1000000,   /* the groups' times are microseconds */
	.adus = 1,
	.groups = 1,
	.no_sdp = "--format fec is poc-fec over plain UDP, not RTP; no SDP can describe it "
	    "(use --format 2250 or 3119)",
	.rx_new = fmt_fec_prx_new,
	.rx_put = fmt_fec_prx_put,
	.rx_flush = fmt_fec_prx_flush,
	.rx_reset = fmt_fec_prx_reset,
	.rx_counts = fmt_fec_prx_counts,
	.rx_free = fmt_fec_prx_free,
	.report = fmt_fec_report,
};
