/* rtcp.c: what a receiver knows of one RTP source for its reports (RFC 3550 appendix A). */
#include <stdlib.h>
#include <string.h>

#include "rtpaudio.h"

void
rtcp_rx_init(struct rtcp_rx *r, uint32_t clock)
{
	memset(r, 0, sizeof(*r));
	r->clock = clock;
}

/* The sequence starts over at seq - back (the packets before it in sequence, held by the
 * caller, count as received): A.1's init_seq, in the extended space so that a start just
 * before a wrap stays ordered. */
static void
rtcp_rx_start(struct rtcp_rx *r, uint16_t seq, unsigned back)
{
	r->cycles = seq < back ? 65536u : 0;
	r->base_seq = r->cycles + seq - back;
	r->max_seq = seq;
	r->bad_seq = 65536u + 1;
	r->received = back + 1u;
	r->expected_prior = r->received_prior = 0;
}

/* A.1's update_seq, its verdicts as enum rtcp_seq. */
static enum rtcp_seq
rtcp_rx_seq(struct rtcp_rx *r, uint16_t seq)
{
	uint16_t udelta = (uint16_t)(seq - r->max_seq);

	if (!r->init) {
		r->init = 1;
		r->probation = RTCP_MIN_SEQUENTIAL;
		r->max_seq = (uint16_t)(seq - 1);
		r->bad_seq = 65536u + 1;
		udelta = 1;
	}
	if (r->probation > 0) {
		r->max_seq = seq;
		if (udelta != 1) {
			r->probation = RTCP_MIN_SEQUENTIAL - 1;
			return RTCP_SEQ_PROBATION_AGAIN;
		}
		if (--r->probation > 0)
			return RTCP_SEQ_PROBATION;
		rtcp_rx_start(r, seq, RTCP_MIN_SEQUENTIAL - 1);
		return RTCP_SEQ_VALIDATED;
	}
	if (udelta < RTCP_MAX_DROPOUT) {
		if (seq < r->max_seq)
			r->cycles += 65536;
		r->max_seq = seq;
	} else if (udelta <= 65536 - RTCP_MAX_MISORDER) {
		if (seq != r->bad_seq) {
			r->bad_seq = (uint16_t)(seq + 1);
			return RTCP_SEQ_JUMP;
		}
		/* two in sequence: the other side restarted without telling us */
		r->span_done += rtcp_rx_span(r);
		r->restarts++;
		rtcp_rx_start(r, seq, 1);
		return RTCP_SEQ_RESTART;
	}
	/* else a duplicate or a packet overtaken by at most RTCP_MAX_MISORDER */
	r->received++;
	return RTCP_SEQ_OK;
}

/* Source validation and sequence numbers (A.1) and, of the valid packets, interarrival
 * jitter (A.8) in timestamp units. Interleaved streams' timestamps jump back and forth,
 * which the jitter shows as it is. The difference of two transit times is taken in 64 bits:
 * two timestamps 2^31 apart in one arrival tick give 2^31, not abs(INT32_MIN). */
enum rtcp_seq
rtcp_rx_packet(struct rtcp_rx *r, uint16_t seq, uint32_t ts, uint64_t now_us)
{
	uint32_t arrival = (uint32_t)(now_us * r->clock / 1000000u), transit = arrival - ts;
	enum rtcp_seq v = rtcp_rx_seq(r, seq);
	int64_t d;

	if (v != RTCP_SEQ_OK && v != RTCP_SEQ_VALIDATED && v != RTCP_SEQ_RESTART)
		return v;
	if (r->have_transit && v == RTCP_SEQ_OK) {
		d = (int32_t)(transit - (uint32_t)r->transit);
		if (d < 0)
			d = -d;
		r->jitter += ((double)d - r->jitter) / 16.0;
	}
	r->have_transit = 1;
	r->transit = transit;
	return v;
}

/* Sequence numbers the valid packets covered (the expected count of A.3), restarts
 * included. */
uint64_t
rtcp_rx_span(const struct rtcp_rx *r)
{
	uint64_t ext = (uint64_t)r->cycles + r->max_seq;

	if (!r->init || r->probation > 0)
		return r->span_done;
	return r->span_done + (ext - r->base_seq + 1);
}

void
rtcp_rx_sr(struct rtcp_rx *r, uint64_t ntp, uint64_t now_us)
{
	r->lsr = (uint32_t)(ntp >> 16);
	r->lsr_at_us = now_us;
}

/* The report block for now; the fraction lost covers the time since the previous block. */
void
rtcp_rx_block(struct rtcp_rx *r, uint32_t src, uint64_t now_us, struct rtcp_block *b)
{
	uint64_t ext = (uint64_t)r->cycles + r->max_seq;
	int64_t expected = r->init && r->probation == 0 ? (int64_t)(ext - r->base_seq + 1) : 0;
	int64_t exp_int = expected - (int64_t)r->expected_prior;
	int64_t rec_int = (int64_t)(r->received - r->received_prior);
	int64_t lost_int = exp_int - rec_int;

	memset(b, 0, sizeof(*b));
	b->src = src;
	b->lost = (int32_t)(expected - (int64_t)r->received);
	b->fraction = exp_int <= 0 || lost_int <= 0 ? 0 : (uint8_t)((lost_int << 8) / exp_int);
	b->ext_seq = (uint32_t)ext;
	b->jitter = (uint32_t)r->jitter;
	b->lsr = r->lsr;
	if (r->lsr != 0)
		b->dlsr = (uint32_t)(((now_us - r->lsr_at_us) << 16) / 1000000u);
	r->expected_prior = (uint64_t)expected;
	r->received_prior = r->received;
}

double
rtcp_rx_jitter_ms(const struct rtcp_rx *r)
{
	return r->clock ? r->jitter * 1000.0 / r->clock : 0;
}
