/* fuzz_rtp3119.c: libFuzzer harness for a received RFC 5219 (3119) packet's way through
 * rtpaudio play: RTP header, jitter buffer, ADU descriptors and fragments, de-interleaving,
 * and frames rebuilt from ADUs (the bit reservoir, dummies for lost ones).
 * Input: records (fuzz.h), each one RTP packet, 20 ms apart. */
#include <string.h>

#include "rtpaudio.h"
#include "fuzz.h"

struct rx {
	struct fmt_3119_depack dp;
	struct fmt_3119_deframe df;
	struct fmt_3119_deint di;
	uint64_t frames;
};

static void
frame(void *arg, const uint8_t *p, size_t len, uint32_t ts, int dummy)
{
	struct rx *x = arg;

	(void)ts;
	(void)dummy;
	FUZZ_CHECK(len > 0 && len <= MP3_MAX_FRAME);
	(void)fuzz_touch(p, len);
	x->frames++;
}

static void
deint(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct rx *x = arg;

	FUZZ_CHECK(len <= FMT_3119_MAXADU);
	fmt_3119_deframe_put(&x->df, adu, len, ts);
}

/* as play_adu */
static void
adu(void *arg, const uint8_t *p, size_t len, uint32_t ts)
{
	struct rx *x = arg;

	FUZZ_CHECK(len <= FMT_3119_MAXADU);
	(void)fuzz_touch(p, len);
	if (fmt_3119_interleaved(p, len)) {
		fmt_3119_deint_put(&x->di, p, len, ts, x->dp.index == 0);
		return;
	}
	fmt_3119_deint_flush(&x->di);
	fmt_3119_deframe_put(&x->df, p, len, ts);
}

static void
drain(struct jitter *j, struct rx *x, uint64_t now, int flush)
{
	const struct jitter_pkt *k;
	uint64_t next;

	while ((k = jitter_get(j, now, flush, &next)) != NULL) {
		(void)fmt_3119_depack(&x->dp, k->data, k->len, k->seq, k->ts, adu, x);
		jitter_release(j);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rx x; /* the de-interleaver is 1 MB: not on the stack */
	struct fuzz_rec r = { data, data + size };
	struct rtp_hdr h;
	struct jitter *j;
	const uint8_t *pkt;
	uint64_t now = 1000000;
	size_t len;

	if ((j = jitter_new(60)) == NULL)
		return 0;
	fmt_3119_depack_init(&x.dp);
	fmt_3119_deframe_init(&x.df, frame, &x);
	fmt_3119_deint_init(&x.di, deint, &x);
	while (fuzz_next(&r, &pkt, &len)) {
		now += 20000;
		if (rtp_parse(pkt, len, &h) < 0)
			continue;
		(void)jitter_put(j, h.seq, h.ts, h.payload, h.plen, now);
		drain(j, &x, now, 0);
	}
	drain(j, &x, now, 1);
	fmt_3119_deint_flush(&x.di);
	fmt_3119_deframe_flush(&x.df);
	jitter_free(j);
	return 0;
}
