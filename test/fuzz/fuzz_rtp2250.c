/* fuzz_rtp2250.c: libFuzzer harness for what a received RFC 2250 packet goes through in
 * rtpaudio play: RTP header, jitter buffer (reordering, duplicates, wrap), the MPEG audio
 * depacketizer with fragment reassembly; and RTCP on the same bytes.
 * Input: records (fuzz.h), each one RTP packet, 20 ms apart. */
#include <string.h>

#include "rtpaudio.h"
#include "fuzz.h"

static void
frame(void *arg, const uint8_t *p, size_t len, uint32_t ts)
{
	struct mp3_frame f;

	(void)arg;
	(void)ts;
	FUZZ_CHECK(len > 0 && len <= MP3_MAX_FRAME);
	FUZZ_CHECK(mp3_frame_parse(p, len, &f) == (int)len);
	(void)fuzz_touch(p, len);
}

static void
drain(struct jitter *j, struct fmt_2250_depack *d, uint64_t now, int flush)
{
	const struct jitter_pkt *k;
	uint64_t next;

	while ((k = jitter_get(j, now, flush, &next)) != NULL) {
		FUZZ_CHECK(k->len <= JITTER_PKT);
		(void)fmt_2250_depack(d, k->data, k->len, k->seq, k->ts, frame, NULL);
		jitter_release(j);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fmt_2250_depack d;
	struct fuzz_rec r = { data, data + size };
	struct rtcp_info ri;
	struct rtp_hdr h;
	struct jitter *j;
	const uint8_t *pkt;
	uint64_t now = 1000000;
	size_t len;

	if ((j = jitter_new(60)) == NULL)
		return 0;
	fmt_2250_depack_init(&d);
	while (fuzz_next(&r, &pkt, &len)) {
		now += 20000;
		(void)rtcp_parse(pkt, len, &ri);
		if (rtp_parse(pkt, len, &h) < 0)
			continue;
		FUZZ_CHECK(h.payload >= pkt && h.payload + h.plen <= pkt + len);
		(void)jitter_put(j, h.seq, h.ts, h.payload, h.plen, now);
		drain(j, &d, now, 0);
	}
	drain(j, &d, now, 1);
	jitter_free(j);
	return 0;
}
