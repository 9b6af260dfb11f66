/* rtp.c: RTP fixed header (RFC 3550 section 5), RTCP SR/RR/BYE (section 6), wrap-safe maths. */
#include <string.h>
#include <time.h>

#include "rtpaudio.h"

static void
rtp_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
rtp_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint16_t
rtp_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
rtp_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Writes the 12-byte header (no CSRC, no extension); the payload follows at out + 12. */
size_t
rtp_pack(uint8_t *out, const struct rtp_hdr *h)
{
	out[0] = 0x80;
	out[1] = (uint8_t)((h->marker ? 0x80 : 0) | (h->pt & 0x7f));
	rtp_put16(out + 2, h->seq);
	rtp_put32(out + 4, h->ts);
	rtp_put32(out + 8, h->ssrc);
	return RTP_HDR;
}

/* Returns the header length (CSRCs and extension included), -1 when it is not RTP version 2
 * or the lengths do not add up. h->payload points into p, padding removed. */
int
rtp_parse(const uint8_t *p, size_t len, struct rtp_hdr *h)
{
	size_t hl, pad = 0;

	if (len < RTP_HDR || (p[0] >> 6) != 2)
		return -1;
	/* RTCP shares the port under RFC 5761 multiplexing: PT 72..76 with M set is RTCP */
	if ((p[1] & 0x7f) >= 72 && (p[1] & 0x7f) <= 76)
		return -1;
	hl = RTP_HDR + 4u * (p[0] & 0x0f);
	if (hl > len)
		return -1;
	if (p[0] & 0x10) {
		if (hl + 4 > len)
			return -1;
		hl += 4 + 4u * rtp_get16(p + hl + 2);
		if (hl > len)
			return -1;
	}
	if (p[0] & 0x20) {
		pad = p[len - 1];
		if (pad == 0 || pad > len - hl)
			return -1;
	}
	h->marker = p[1] >> 7;
	h->pt = p[1] & 0x7f;
	h->seq = rtp_get16(p + 2);
	h->ts = rtp_get32(p + 4);
	h->ssrc = rtp_get32(p + 8);
	h->payload = p + hl;
	h->plen = len - hl - pad;
	return (int)hl;
}

int16_t
rtp_seq_diff(uint16_t a, uint16_t b)
{
	return (int16_t)(uint16_t)(a - b);
}

int32_t
rtp_ts_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

/* NTP format time of day (RFC 3550 section 4): seconds since 1900 and a binary fraction. */
uint64_t
rtp_ntp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec + 2208988800u) << 32 |
	    (uint64_t)(((uint64_t)ts.tv_nsec << 32) / 1000000000u);
}

/* SDES CNAME "rtpaudio" (every compound packet has one): 20 bytes. */
static size_t
rtcp_sdes_pack(uint8_t *out, uint32_t ssrc)
{
	static const char cname[] = "rtpaudio";
	size_t sdes = (4 + 4 + 2 + (sizeof(cname) - 1) + 1 + 3) & ~(size_t)3;

	memset(out, 0, sdes);
	out[0] = 0x81;
	out[1] = 202;
	rtp_put16(out + 2, (uint16_t)(sdes / 4 - 1));
	rtp_put32(out + 4, ssrc);
	out[8] = 1;
	out[9] = sizeof(cname) - 1;
	memcpy(out + 10, cname, sizeof(cname) - 1);
	return sdes;
}

/* SR without report blocks, then SDES CNAME (required in every compound packet), then BYE
 * when asked. Returns the length, 0 when cap is too small. */
size_t
rtcp_sr_pack(uint8_t *out, size_t cap, uint32_t ssrc, uint64_t ntp, uint32_t ts,
    uint32_t packets, uint32_t octets, int bye)
{
	size_t n = 0;

	if (cap < 28 + 20 + 8)
		return 0;
	out[0] = 0x80;
	out[1] = RTCP_SR;
	rtp_put16(out + 2, 6);
	rtp_put32(out + 4, ssrc);
	rtp_put32(out + 8, (uint32_t)(ntp >> 32));
	rtp_put32(out + 12, (uint32_t)ntp);
	rtp_put32(out + 16, ts);
	rtp_put32(out + 20, packets);
	rtp_put32(out + 24, octets);
	n = 28;
	n += rtcp_sdes_pack(out + n, ssrc);
	if (bye) {
		out[n] = 0x81;
		out[n + 1] = RTCP_BYE;
		rtp_put16(out + n + 2, 1);
		rtp_put32(out + n + 4, ssrc);
		n += 8;
	}
	return n;
}

/* RR with one report block (or none when b is NULL), SDES CNAME, and when app is given with
 * a playout delay an APP packet (name "RTPA", subtype 0) telling the sender, for --lifetime
 * auto, three 32-bit words: the player's playout delay in milliseconds, the packets that came
 * after their play-out time so far, and the least time to spare of the packets since the
 * previous report (ms, two's complement, negative: late; RTCP_NO_SLACK: none came). (A first
 * version had the playout delay only: a reader takes what the length holds.) Returns the
 * length, 0 when cap is too small. */
size_t
rtcp_rr_pack(uint8_t *out, size_t cap, uint32_t ssrc, const struct rtcp_block *b,
    const struct rtcp_app *app)
{
	size_t n;

	if (cap < 32 + 20 + 24)
		return 0;
	out[0] = (uint8_t)(0x80 | (b != NULL));
	out[1] = RTCP_RR;
	rtp_put16(out + 2, b != NULL ? 7 : 1);
	rtp_put32(out + 4, ssrc);
	n = 8;
	if (b != NULL) {
		int32_t lost = b->lost > 0x7fffff ? 0x7fffff : b->lost < -0x800000 ? -0x800000 :
		    b->lost;
		rtp_put32(out + 8, b->src);
		rtp_put32(out + 12, (uint32_t)b->fraction << 24 | ((uint32_t)lost & 0xffffff));
		rtp_put32(out + 16, b->ext_seq);
		rtp_put32(out + 20, b->jitter);
		rtp_put32(out + 24, b->lsr);
		rtp_put32(out + 28, b->dlsr);
		n = 32;
	}
	n += rtcp_sdes_pack(out + n, ssrc);
	if (app != NULL && app->playout_ms != 0) {
		out[n] = 0x80;
		out[n + 1] = RTCP_APP;
		rtp_put16(out + n + 2, 5);
		rtp_put32(out + n + 4, ssrc);
		memcpy(out + n + 8, RTCP_APP_NAME, 4);
		rtp_put32(out + n + 12, app->playout_ms);
		rtp_put32(out + n + 16, app->late);
		rtp_put32(out + n + 20, (uint32_t)app->slack_ms);
		n += 24;
	}
	return n;
}

/* RTT from a report block (RFC 3550 section 6.4.1): now - LSR - DLSR, in microseconds; -1
 * when the block reflects no SR. */
int64_t
rtcp_rtt_us(uint64_t ntp_now, uint32_t lsr, uint32_t dlsr)
{
	uint32_t mid = (uint32_t)(ntp_now >> 16), d;

	if (lsr == 0)
		return -1;
	d = mid - lsr - dlsr;
	if ((int32_t)d < 0)
		return 0;
	return (int64_t)(((uint64_t)d * 1000000u) >> 16);
}

/* A compound RTCP packet: returns len when every part was well formed, -1 otherwise. */
int
rtcp_parse(const uint8_t *p, size_t len, struct rtcp_info *ri)
{
	size_t off = 0;

	memset(ri, 0, sizeof(*ri));
	if (len < 4)
		return -1;
	while (off + 4 <= len) {
		const uint8_t *q = p + off;
		size_t plen = 4 * ((size_t)rtp_get16(q + 2) + 1);
		int count = q[0] & 0x1f;

		if ((q[0] >> 6) != 2 || plen > len - off)
			return -1;
		switch (q[1]) {
		case RTCP_SR:
			if (plen < 28)
				return -1;
			ri->sr = 1;
			ri->ssrc = rtp_get32(q + 4);
			ri->ntp = (uint64_t)rtp_get32(q + 8) << 32 | rtp_get32(q + 12);
			ri->rtp_ts = rtp_get32(q + 16);
			ri->packets = rtp_get32(q + 20);
			ri->octets = rtp_get32(q + 24);
			break;
		case RTCP_RR:
			if (plen < 8)
				return -1;
			ri->rr = 1;
			ri->ssrc = rtp_get32(q + 4);
			if (count > 0 && plen >= 32) {
				uint32_t w = rtp_get32(q + 12);
				ri->fraction_lost = (uint8_t)(w >> 24);
				ri->cum_lost = (int32_t)(w << 8) >> 8;
				ri->ext_seq = rtp_get32(q + 16);
				ri->jitter = rtp_get32(q + 20);
				ri->lsr = rtp_get32(q + 24);
				ri->dlsr = rtp_get32(q + 28);
				ri->block = 1;
			}
			break;
		case RTCP_APP:
			if (plen >= 16 && memcmp(q + 8, RTCP_APP_NAME, 4) == 0 && count == 0) {
				ri->app_ssrc = rtp_get32(q + 4);
				ri->playout_ms = rtp_get32(q + 12);
				if (plen >= 24) {
					ri->app_slack = 1;
					ri->late = rtp_get32(q + 16);
					ri->slack_ms = (int32_t)rtp_get32(q + 20);
				}
			}
			break;
		case RTCP_BYE:
			ri->bye = 1;
			break;
		default:
			break;
		}
		off += plen;
	}
	return off == len ? (int)len : -1;
}
