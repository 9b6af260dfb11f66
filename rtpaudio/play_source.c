/* play_source.c: `rtpaudio play`'s source validation (RFC 3550 A.1: probation, jumps, a new
 * SSRC) in front of the jitter buffer. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>

#include "play.h"

/* The counters of the jitter buffer about to go. */
static void
play_retire(struct play *p)
{
	p->acc.played += p->jb->received;
	p->acc.late += p->jb->late;
	p->acc.duplicates += p->jb->duplicates;
	p->acc.too_big += p->jb->too_big;
	p->acc.lost += p->jb->lost;
	p->acc.rebases += p->jb->rebases;
}

/* The sequence starts over (a jump confirmed, RFC 3550 A.1, or a new source): play out what
 * the old sequence left, then start a new jitter buffer; the timeline is spliced (the next
 * frame follows the last one, whatever its timestamp). 0, or -1 (out of memory: the old
 * sequence stays). */
static int
play_restart(struct play *p)
{
	struct jitter *jb;

	if ((jb = jitter_new(p->delay_ms)) == NULL)
		return -1;
	p->eos = 1; /* flush */
	play_schedule(p);
	p->eos = 0;
	p->fmt->rx_flush(p->frx);
	p->fmt->rx_reset(p->frx);
	play_tail(p);
	play_retire(p);
	jitter_free(p->jb);
	p->jb = jb;
	p->have_first = 0;
	p->pk_have_prev = 0;
	return 0;
}

/* A packet of the current source into the jitter buffer */
static void
play_put(struct play *p, uint16_t seq, uint32_t ts, const uint8_t *pl, size_t len, uint64_t at)
{
	uint64_t late = p->jb->late;

	jitter_put(p->jb, seq, ts, pl, len, at);
	if (p->jb->late != late)
		play_late_report(p);
}

static void
play_hold_put(struct play_hold *h, uint16_t seq, uint32_t ts, const uint8_t *pl, size_t len,
    uint64_t at)
{
	struct play_held *k = &h->pkt[h->n++];

	k->seq = seq;
	k->ts = ts;
	k->at = at;
	k->len = len;
	memcpy(k->data, pl, len);
}

/* The held packets of the current source, now valid, into the jitter buffer */
static void
play_hold_release(struct play *p)
{
	size_t i;

	for (i = 0; i < p->hold.n; i++)
		play_put(p, p->hold.pkt[i].seq, p->hold.pkt[i].ts, p->hold.pkt[i].data,
		    p->hold.pkt[i].len, p->hold.pkt[i].at);
	p->hold.n = 0;
}

/* A packet of the current source: validated as RFC 3550 A.1 does (a stray packet or a
 * jump does not capture the sequence; a jump followed by the next packet restarts it). */
void
play_current(struct play *p, uint16_t seq, uint32_t ts, const uint8_t *pl, size_t len,
    uint64_t at)
{
	switch (rtcp_rx_packet(&p->rx, seq, ts, at)) {
	case RTCP_SEQ_OK:
		p->pk_unvalidated += p->hold.n; /* a jump not followed */
		p->hold.n = 0;
		play_put(p, seq, ts, pl, len, at);
		break;
	case RTCP_SEQ_VALIDATED:
		play_hold_release(p);
		play_put(p, seq, ts, pl, len, at);
		break;
	case RTCP_SEQ_PROBATION:
		if (p->hold.n == PLAY_HOLD) {
			p->pk_unvalidated++;
			break;
		}
		play_hold_put(&p->hold, seq, ts, pl, len, at);
		break;
	case RTCP_SEQ_PROBATION_AGAIN:
		if (p->hold.n == 1 && p->hold.pkt[0].seq == seq) {
			p->pk_duplicates++; /* the held one again: the probation is where it was */
			break;
		}
		/* FALLTHROUGH */
	case RTCP_SEQ_JUMP:
		p->pk_unvalidated += p->hold.n;
		p->hold.n = 0;
		play_hold_put(&p->hold, seq, ts, pl, len, at);
		break;
	case RTCP_SEQ_RESTART:
		p->restarts++;
		if (p->verbose)
			fprintf(stderr, "rtpaudio play: SSRC %08x: sequence restarted at %u\n",
			    (unsigned)p->ssrc, (unsigned)(uint16_t)(seq - 1));
		if (play_restart(p) == -1) {
			p->pk_unvalidated += p->hold.n + 1;
			p->hold.n = 0;
			break;
		}
		play_hold_release(p);
		play_put(p, seq, ts, pl, len, at);
		break;
	}
}

/* A sender that restarted comes back with a new SSRC, sequence numbers and timestamps
 * (RFC 3550 section 8): play out what the old source left, then go on with the new one, its
 * held packets first; the timeline is spliced. */
static void
play_switch(struct play *p)
{
	uint64_t supported = play_sr_supported(p); /* before the jitter buffer goes */
	size_t i;

	if (play_restart(p) == -1) {
		p->other_ssrc += p->cand.n;
		p->cand.n = 0;
		p->have_cand = 0;
		return;
	}
	if (p->verbose)
		fprintf(stderr, "rtpaudio play: new source: SSRC %08x after %08x\n",
		    (unsigned)p->cand_ssrc, (unsigned)p->ssrc);
	p->pk_unvalidated += p->hold.n;
	p->hold.n = 0;
	p->sr_packets_done += supported;
	p->sr_claimed_done += p->sr_packets;
	p->span_done += rtcp_rx_span(&p->rx);
	p->sr_packets = 0;
	p->src_addr = p->cand_from;
	p->src_addrlen = p->cand_fromlen;
	p->sources++;
	p->ssrc = p->cand_ssrc;
	rtcp_rx_init(&p->rx, RTP_CLOCK_MPA); /* a new source */
	p->have_cand = 0;
	for (i = 0; i < p->cand.n; i++)
		play_current(p, p->cand.pkt[i].seq, p->cand.pkt[i].ts, p->cand.pkt[i].data,
		    p->cand.pkt[i].len, p->cand.pkt[i].at);
	p->cand.n = 0;
}

/* udp: the datagram came from the current source's address (RFC 3550 8.2: a source is
 * its SSRC and its transport address); on a connection, always. */
int
play_same_addr(const struct play *p)
{
	const struct sockaddr_storage *a = &p->src_addr, *b = &p->pk_from;

	if (p->pk_fromlen == 0 || p->src_addrlen == 0)
		return 1;
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
		return x->sin6_port == y->sin6_port &&
		    memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
	}
	return p->src_addrlen == p->pk_fromlen && memcmp(a, b, p->src_addrlen) == 0;
}

/* A packet of another SSRC than the current source's: held; followed when PLAY_SWITCH_PKTS
 * of them came in sequence from the current source's address with none of the current
 * source between (a sender restarted, RFC 3550 8), or, from anywhere, at once when the
 * current source has been silent for PLAY_SWITCH_MS. Else counted as another source's: a
 * burst from another address does not take over a source that goes on. */
void
play_candidate(struct play *p, const struct rtp_hdr *h, uint64_t now)
{
	int same = play_same_addr(p);

	if (p->have_cand && (p->cand_ssrc != h->ssrc ||
	    p->cand.pkt[p->cand.n - 1].seq != (uint16_t)(h->seq - 1))) {
		p->other_ssrc += p->cand.n;
		p->cand.n = 0;
		p->have_cand = 0;
	}
	if (p->cand.n == PLAY_HOLD) { /* the oldest held goes */
		p->other_ssrc++;
		memmove(&p->cand.pkt[0], &p->cand.pkt[1], (PLAY_HOLD - 1) * sizeof(p->cand.pkt[0]));
		p->cand.n--;
	}
	p->have_cand = 1;
	p->cand_ssrc = h->ssrc;
	p->cand_from = p->pk_from;
	p->cand_fromlen = p->pk_fromlen;
	play_hold_put(&p->cand, h->seq, h->ts, h->payload, h->plen, now);
	if ((same && p->cand.n >= PLAY_SWITCH_PKTS) ||
	    now - p->last_rx_us >= PLAY_SWITCH_MS * 1000ull) {
		p->last_rx_us = now;
		play_switch(p);
	}
}
