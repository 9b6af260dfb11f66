/* fuzz_fec.c: libFuzzer harness for poc-fec packets as rtpaudio play receives them: the
 * 14-byte header, groups, Reed-Solomon recovery of lost ADUs, then frames rebuilt from ADUs.
 * Input: records (fuzz.h), each one UDP datagram. */
#include <string.h>

#include "rtpaudio.h"
#include "fuzz.h"

struct rx {
	struct fmt_fec_rx fx;
	struct fmt_3119_deframe df;
};

static void
frame(void *arg, const uint8_t *p, size_t len, uint32_t ts, int dummy)
{
	(void)arg;
	(void)ts;
	(void)dummy;
	FUZZ_CHECK(len > 0 && len <= MP3_MAX_FRAME);
	(void)fuzz_touch(p, len);
}

static void
adu(void *arg, const uint8_t *p, size_t len, uint32_t ts)
{
	struct rx *x = arg;

	FUZZ_CHECK(len <= FMT_FEC_MAXLEN);
	(void)fuzz_touch(p, len);
	fmt_3119_deframe_put(&x->df, p, len, ts);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rx x; /* 255 packets of 2 KB */
	struct fuzz_rec r = { data, data + size };
	struct fmt_fec_hdr h;
	const uint8_t *pkt;
	size_t len;

	fmt_fec_rx_init(&x.fx, adu, &x);
	fmt_3119_deframe_init(&x.df, frame, &x);
	while (fuzz_next(&r, &pkt, &len)) {
		if (fmt_fec_hdr_parse(pkt, len, &h) == FMT_FEC_HDR) {
			FUZZ_CHECK(h.k >= 1 && h.k <= h.n && h.n <= FEC_MAXN);
			FUZZ_CHECK(h.pseq >= 0 && h.pseq < h.n);
			FUZZ_CHECK(h.len <= h.fec_len && h.fec_len <= FMT_FEC_MAXLEN);
			FUZZ_CHECK(FMT_FEC_HDR + h.len <= len);
		}
		(void)fmt_fec_rx_put(&x.fx, pkt, len);
	}
	fmt_fec_rx_flush(&x.fx);
	fmt_3119_deframe_flush(&x.df);
	fmt_fec_rx_free(&x.fx);
	return 0;
}
