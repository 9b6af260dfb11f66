/* fuzz_adu.c: libFuzzer harness for ADU reassembly on its own: ADUs (RFC 5219) in any order
 * and with any timestamps into the de-interleaver and the frame rebuilder (bit reservoir,
 * dummies, the pending queue). Input: records (fuzz.h); each is 4 bytes of timestamp, a
 * flag byte (bit 0: first of its packet, bit 1: straight to the rebuilder), then the ADU. */
#include <string.h>

#include "rtpaudio.h"
#include "fuzz.h"

struct rx {
	struct fmt_3119_deframe df;
	struct fmt_3119_deint di;
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
deint(void *arg, const uint8_t *p, size_t len, uint32_t ts)
{
	struct rx *x = arg;

	FUZZ_CHECK(len <= FMT_3119_MAXADU);
	(void)fuzz_touch(p, len);
	fmt_3119_deframe_put(&x->df, p, len, ts);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rx x;
	struct fuzz_rec r = { data, data + size };
	struct mp3_frame f;
	const uint8_t *rec;
	size_t len;
	uint32_t ts;

	fmt_3119_deframe_init(&x.df, frame, &x);
	fmt_3119_deint_init(&x.di, deint, &x);
	while (fuzz_next(&r, &rec, &len)) {
		if (len < 5)
			continue;
		ts = (uint32_t)rec[0] << 24 | (uint32_t)rec[1] << 16 | (uint32_t)rec[2] << 8 | rec[3];
		if (fmt_3119_adu_parse(rec + 5, len - 5, &f) > 0)
			FUZZ_CHECK(f.layer == 3);
		if (!(rec[4] & 2) && fmt_3119_interleaved(rec + 5, len - 5)) {
			fmt_3119_deint_put(&x.di, rec + 5, len - 5, ts, rec[4] & 1);
		} else {
			fmt_3119_deint_flush(&x.di);
			fmt_3119_deframe_put(&x.df, rec + 5, len - 5, ts);
		}
	}
	fmt_3119_deint_flush(&x.di);
	fmt_3119_deframe_flush(&x.df);
	return 0;
}
