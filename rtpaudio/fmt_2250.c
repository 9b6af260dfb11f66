/* fmt_2250.c: RFC 2250 section 3.5 MPEG audio payload: whole frames, or one frame in pieces. */
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

/* One payload from frames f[0..n): whole frames while they fit in space (payload header
 * included), or, when f[0] alone does not fit, its next piece from *off. The packet's
 * timestamp is f[0].ts in both cases. *nused frames are done (the caller drops them);
 * *off is how much of f[0] is already out. Returns the payload length (0: space too small). */
size_t
fmt_2250_pack(const struct fmt_frame *f, size_t n, size_t *off, uint8_t *out, size_t space,
    size_t *nused)
{
	size_t len = FMT_2250_HDR, i, piece;

	*nused = 0;
	if (n == 0 || space <= FMT_2250_HDR)
		return 0;
	out[0] = out[1] = 0; /* MBZ */
	if (*off == 0 && FMT_2250_HDR + f[0].len <= space) {
		out[2] = out[3] = 0;
		for (i = 0; i < n && len + f[i].len <= space; i++) {
			memcpy(out + len, f[i].p, f[i].len);
			len += f[i].len;
		}
		*nused = i;
		return len;
	}
	/* A fragment: the offset field says where in the frame this piece starts. */
	piece = f[0].len - *off;
	if (piece > space - FMT_2250_HDR)
		piece = space - FMT_2250_HDR;
	out[2] = (uint8_t)(*off >> 8);
	out[3] = (uint8_t)*off;
	memcpy(out + FMT_2250_HDR, f[0].p + *off, piece);
	*off += piece;
	if (*off == f[0].len) {
		*off = 0;
		*nused = 1;
	}
	return FMT_2250_HDR + piece;
}

void
fmt_2250_depack_init(struct fmt_2250_depack *d)
{
	memset(d, 0, sizeof(*d));
}

/* Frames of one payload, packets taken in sequence order (gaps allowed). Whole frames go to
 * cb with timestamps advanced by each frame's duration; a fragmented frame is kept until its
 * last piece and dropped when a piece is missing. Returns frames delivered, -1 when the
 * payload is malformed (nothing of it delivered). */
int
fmt_2250_depack(struct fmt_2250_depack *d, const uint8_t *pl, size_t len, uint16_t seq,
    uint32_t ts, fmt_frame_cb *cb, void *arg)
{
	struct mp3_frame f;
	size_t off, pos;
	int n, nf = 0;
	uint64_t acc = 0; /* samples * 90000 since the first frame of this packet */

	if (len < FMT_2250_HDR + 4 || pl[0] != 0 || pl[1] != 0) {
		d->malformed++;
		return -1;
	}
	off = (size_t)pl[2] << 8 | pl[3];
	pl += FMT_2250_HDR;
	len -= FMT_2250_HDR;
	if (off > 0) {
		/* a continuation: only the next piece of the frame being collected will do */
		if (d->need == 0 || seq != d->next_seq || ts != d->ts || off != d->got) {
			if (d->need != 0)
				d->fragments_dropped++;
			d->need = 0;
			d->fragments_dropped++;
			return 0;
		}
		if (len > d->need - d->got) {
			d->need = 0;
			d->malformed++;
			return -1;
		}
		memcpy(d->buf + d->got, pl, len);
		d->got += len;
		d->next_seq = (uint16_t)(seq + 1);
		if (d->got < d->need)
			return 0;
		d->need = 0;
		if (mp3_frame_parse(d->buf, d->got, &f) != (int)d->got) {
			d->malformed++;
			return -1;
		}
		d->frames++;
		cb(arg, d->buf, d->got, ts);
		return 1;
	}
	if (d->need != 0) {
		d->fragments_dropped++; /* a new frame began before the last one was complete */
		d->need = 0;
	}
	/* Check the whole payload first so a bad packet delivers nothing at all. */
	for (pos = 0; pos < len; pos += (size_t)n) {
		n = mp3_frame_parse(pl + pos, len - pos, &f);
		if (n == -2 && pos == 0 && mp3_header_parse(pl, len, &f) > 0 &&
		    (size_t)f.len <= MP3_MAX_FRAME) {
			/* first piece of a fragmented frame */
			memcpy(d->buf, pl, len);
			d->got = len;
			d->need = (size_t)f.len;
			d->ts = ts;
			d->next_seq = (uint16_t)(seq + 1);
			return 0;
		}
		if (n < 0) {
			d->malformed++;
			return -1;
		}
	}
	for (pos = 0; pos < len; pos += (size_t)n) {
		n = mp3_frame_parse(pl + pos, len - pos, &f);
		d->frames++;
		nf++;
		cb(arg, pl + pos, (size_t)n, ts + (uint32_t)(acc / (uint64_t)f.rate));
		acc += (uint64_t)f.samples * RTP_CLOCK_MPA;
	}
	return nf;
}

/* The player's receiver (fmt.h): the depacketizer, its frames on to the player */
struct fmt_2250_rx {
	struct fmt_2250_depack d;
	fmt_out_cb *cb;
	void *arg;
};

static void
fmt_2250_rx_frame(void *arg, const uint8_t *frame, size_t len, uint32_t ts)
{
	struct fmt_2250_rx *r = arg;

	r->cb(r->arg, frame, len, ts, 0);
}

static void *
fmt_2250_rx_new(fmt_out_cb *cb, void *arg)
{
	struct fmt_2250_rx *r;

	if ((r = malloc(sizeof(*r))) == NULL)
		return NULL;
	fmt_2250_depack_init(&r->d);
	r->cb = cb;
	r->arg = arg;
	return r;
}

static int
fmt_2250_rx_put(void *rx, const uint8_t *pl, size_t len, uint16_t seq, uint32_t ts)
{
	struct fmt_2250_rx *r = rx;

	return fmt_2250_depack(&r->d, pl, len, seq, ts, fmt_2250_rx_frame, r) < 0 ? -1 : 0;
}

/* nothing is held but a frame's first pieces, which a new sequence drops */
static void
fmt_2250_rx_flush(void *rx)
{
	(void)rx;
}

static void
fmt_2250_rx_reset(void *rx)
{
	struct fmt_2250_rx *r = rx;

	fmt_2250_depack_init(&r->d);
}

static void
fmt_2250_rx_counts(const void *rx, struct fmt_rx_counts *c)
{
	const struct fmt_2250_rx *r = rx;

	memset(c, 0, sizeof(*c));
	c->malformed = r->d.malformed;
	c->fragments_dropped = r->d.fragments_dropped;
}

const struct rtpaudio_fmt fmt_2250_fmt = {
	.name = "2250",
	.pt = RTP_PT_MPA,
	.clock = RTP_CLOCK_MPA,
	.sdp_name = "MPA",
	.pack = fmt_2250_pack,
	.rx_new = fmt_2250_rx_new,
	.rx_put = fmt_2250_rx_put,
	.rx_flush = fmt_2250_rx_flush,
	.rx_reset = fmt_2250_rx_reset,
	.rx_counts = fmt_2250_rx_counts,
	.rx_free = free,
};
