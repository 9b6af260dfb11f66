/* fuzz_rtcp.c: libFuzzer harness for the receiver's statistics: RFC 3550 A.1 source
 * validation (probation, jumps, restarts), A.8 interarrival jitter and the report blocks of
 * rtcp.c, the RTCP parser, and the jitter buffer's accounting, with hostile arrival times.
 * Input: records (fuzz.h), each one datagram after one byte of arrival step (0: the same
 * clock tick as the previous one; n: n * n * 100 microseconds later). */
#include <string.h>

#include "rtpaudio.h"
#include "fuzz.h"

/* what the jitter buffer was handed is kept, lost to a duplicate, late or refused */
static void
check_jitter(const struct jitter *j, uint64_t puts)
{
	FUZZ_CHECK(j->received + j->duplicates + j->late + j->too_big == puts);
}

static void
drain(struct jitter *j, uint64_t now, int flush, uint64_t *released)
{
	const struct jitter_pkt *k;
	uint64_t next;

	while ((k = jitter_get(j, now, flush, &next)) != NULL) {
		FUZZ_CHECK(k->len <= JITTER_PKT);
		(void)fuzz_touch(k->data, k->len);
		jitter_release(j);
		(*released)++;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_rec r = { data, data + size };
	struct rtcp_rx rx;
	struct rtcp_block b;
	struct rtcp_info ri;
	struct rtp_hdr h;
	struct jitter *j;
	const uint8_t *rec;
	uint64_t now = 1000000, puts = 0, released = 0, span = 0;
	size_t len;
	enum rtcp_seq v;

	if ((j = jitter_new(100)) == NULL)
		return 0;
	rtcp_rx_init(&rx, RTP_CLOCK_MPA);
	while (fuzz_next(&r, &rec, &len)) {
		if (len == 0)
			continue;
		now += (uint64_t)rec[0] * rec[0] * 100;
		rec++;
		len--;
		if (rtcp_parse(rec, len, &ri) > 0) {
			if (ri.sr)
				rtcp_rx_sr(&rx, ri.ntp, now);
			(void)rtcp_rtt_us(rtp_ntp_now(), ri.lsr, ri.dlsr);
			rtcp_rx_block(&rx, ri.ssrc, now, &b);
			FUZZ_CHECK(b.jitter == (uint32_t)rx.jitter);
			continue;
		}
		if (rtp_parse(rec, len, &h) < 0)
			continue;
		v = rtcp_rx_packet(&rx, h.seq, h.ts, now);
		FUZZ_CHECK(v >= RTCP_SEQ_OK && v <= RTCP_SEQ_RESTART);
		FUZZ_CHECK(rx.jitter >= 0 && rx.jitter <= 2147483648.0);
		FUZZ_CHECK(rtcp_rx_jitter_ms(&rx) >= 0);
		/* the span only grows while the sequence goes on (a restart keeps what was
		 * covered) */
		if (v == RTCP_SEQ_OK || v == RTCP_SEQ_RESTART)
			FUZZ_CHECK(rtcp_rx_span(&rx) >= span);
		if (v == RTCP_SEQ_VALIDATED)
			FUZZ_CHECK(rtcp_rx_span(&rx) == (uint64_t)RTCP_MIN_SEQUENTIAL);
		span = rtcp_rx_span(&rx);
		if (v != RTCP_SEQ_OK && v != RTCP_SEQ_VALIDATED && v != RTCP_SEQ_RESTART)
			continue;
		(void)jitter_put(j, h.seq, h.ts, h.payload, h.plen, now);
		puts++;
		check_jitter(j, puts);
		drain(j, now, 0, &released);
		if (rec[len - 1] & 1)
			rtcp_rx_block(&rx, h.ssrc, now, &b);
	}
	drain(j, now, 1, &released);
	check_jitter(j, puts);
	FUZZ_CHECK(released == j->received);
	FUZZ_CHECK(j->count == 0);
	jitter_free(j);
	return 0;
}
