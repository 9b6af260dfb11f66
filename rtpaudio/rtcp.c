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

/* Sequence numbers (A.1, without probation: one source, locked on by the player) and
 * interarrival jitter (A.8) in timestamp units. Interleaved streams' timestamps jump back and
 * forth, which the jitter shows as it is. */
void
rtcp_rx_packet(struct rtcp_rx *r, uint16_t seq, uint32_t ts, uint64_t now_us)
{
	uint32_t arrival = (uint32_t)(now_us * r->clock / 1000000u), transit = arrival - ts;

	if (!r->init) {
		r->init = 1;
		r->base_seq = seq;
		r->max_seq = seq;
	} else {
		uint16_t udelta = (uint16_t)(seq - r->max_seq);
		if (udelta > 0 && udelta < 3000) {
			if (seq < r->max_seq)
				r->cycles += 65536;
			r->max_seq = seq;
		}
	}
	r->received++;
	if (r->have_transit) {
		int32_t d = (int32_t)(transit - (uint32_t)r->transit);
		r->jitter += (abs(d) - r->jitter) / 16.0;
	}
	r->have_transit = 1;
	r->transit = transit;
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
	int64_t expected = r->init ? (int64_t)(ext - r->base_seq + 1) : 0;
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
