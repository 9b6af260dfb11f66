/* test_rtp.c: RTP/RTCP headers, the RFC 2250 packetizer and depacketizer, the payload format
 * table, the jitter buffer, and random or mutated packets into every parser (run under ASan
 * in CI). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fmt.h"

/* NFR MPEG-1 layer II frames (no side information to fake), 128 kbit/s 44.1 kHz: 417 or
 * 418 bytes, each filled with its index so the receiver can tell them apart. */
#define NFR 40
static uint8_t frames[NFR][MP3_MAX_FRAME];
static struct fmt_frame fr[NFR];

static void
make_frames(int bri)
{
	struct mp3_frame f;
	int i;

	for (i = 0; i < NFR; i++) {
		uint8_t *p = frames[i];
		memset(p, i + 1, MP3_MAX_FRAME);
		p[0] = 0xff;
		p[1] = 0xfd; /* MPEG-1 layer II, no CRC */
		p[2] = (uint8_t)(bri << 4 | (i % 3 == 0) << 1);
		p[3] = 0x00;
		fr[i].p = p;
		fr[i].len = (size_t)mp3_header_parse(p, 4, &f);
		fr[i].ts = (uint32_t)((uint64_t)i * 1152 * 90000 / 44100);
	}
}

struct sink {
	int n;
	int idx[4 * NFR];
	uint32_t ts[4 * NFR];
};

static void
sink_cb(void *arg, const uint8_t *frame, size_t len, uint32_t ts)
{
	struct sink *s = arg;
	int i = frame[4] - 1;

	assert_true(i >= 0 && i < NFR);
	assert_int_equal(len, fr[i].len);
	assert_memory_equal(frame, fr[i].p, len);
	s->idx[s->n] = i;
	s->ts[s->n++] = ts;
}

static void
test_rtp_header(void **state)
{
	struct rtp_hdr h = { 1, 14, 65535, 0xdeadbeef, 0x01020304, NULL, 0 }, g;
	uint8_t p[64];

	(void)state;
	memset(p, 0xaa, sizeof(p));
	assert_int_equal(rtp_pack(p, &h), 12);
	assert_int_equal(rtp_parse(p, 20, &g), 12);
	assert_int_equal(g.marker, 1);
	assert_int_equal(g.pt, 14);
	assert_int_equal(g.seq, 65535);
	assert_int_equal(g.ts, 0xdeadbeef);
	assert_int_equal(g.ssrc, 0x01020304);
	assert_int_equal(g.plen, 8);
	assert_ptr_equal(g.payload, p + 12);
	/* two CSRCs and a one-word extension */
	p[0] = 0x92;
	p[20 + 2] = 0;
	p[20 + 3] = 1;
	assert_int_equal(rtp_parse(p, 40, &g), 12 + 8 + 4 + 4);
	assert_int_equal(g.plen, 40 - 28);
	assert_int_equal(rtp_parse(p, 27, &g), -1);
	/* padding: the last byte counts it */
	p[0] = 0xa0;
	p[19] = 3;
	assert_int_equal(rtp_parse(p, 20, &g), 12);
	assert_int_equal(g.plen, 5);
	p[19] = 9;
	assert_int_equal(rtp_parse(p, 20, &g), -1);
	p[19] = 0;
	assert_int_equal(rtp_parse(p, 20, &g), -1);
	p[0] = 0x40; /* version 1 */
	assert_int_equal(rtp_parse(p, 20, &g), -1);
	assert_int_equal(rtp_parse(p, 11, &g), -1);
	p[0] = 0x80;
	p[1] = 0xc8; /* an RTCP SR on the RTP port */
	assert_int_equal(rtp_parse(p, 20, &g), -1);
	assert_int_equal(rtp_seq_diff(2, 65534), 4);
	assert_int_equal(rtp_seq_diff(65534, 2), -4);
	assert_int_equal(rtp_ts_diff(5, 0xfffffffb), 10);
}

static void
test_rtcp(void **state)
{
	uint8_t p[256];
	struct rtcp_info ri;
	size_t n;

	(void)state;
	n = rtcp_sr_pack(p, sizeof(p), 0x11223344, 0x0102030405060708ull, 777, 10, 1000, 0);
	assert_true(n > 28 && n % 4 == 0);
	assert_int_equal(rtcp_parse(p, n, &ri), (int)n);
	assert_true(ri.sr && !ri.bye);
	assert_int_equal(ri.ssrc, 0x11223344);
	assert_true(ri.ntp == 0x0102030405060708ull);
	assert_int_equal(ri.rtp_ts, 777);
	assert_int_equal(ri.packets, 10);
	assert_int_equal(ri.octets, 1000);
	n = rtcp_sr_pack(p, sizeof(p), 5, 0, 0, 0, 0, 1);
	assert_int_equal(rtcp_parse(p, n, &ri), (int)n);
	assert_true(ri.bye);
	assert_int_equal(rtcp_parse(p, n - 1, &ri), -1);
	assert_int_equal(rtcp_sr_pack(p, 20, 5, 0, 0, 0, 0, 1), 0);
	{
		struct rtcp_block b = { 2, 25, -3, 70000, 12, 0x12345678, 0x10000 };
		struct rtcp_app app = { 350, 7, -42 };
		n = rtcp_rr_pack(p, sizeof(p), 1, &b, &app);
	}
	assert_int_equal(rtcp_parse(p, n, &ri), (int)n);
	assert_true(ri.rr && ri.block);
	assert_int_equal(ri.fraction_lost, 25);
	assert_int_equal(ri.cum_lost, -3);
	assert_int_equal(ri.ext_seq, 70000);
	assert_int_equal(ri.jitter, 12);
	assert_int_equal(ri.lsr, 0x12345678);
	assert_int_equal(ri.dlsr, 0x10000);
	assert_int_equal(ri.playout_ms, 350);
	assert_int_equal(ri.app_ssrc, 1);
	assert_true(ri.app_slack);
	assert_int_equal(ri.late, 7);
	assert_int_equal(ri.slack_ms, -42);
	/* the APP packet's first version: the playout delay only (length 3) */
	{
		static const uint8_t v1[] = { 0x80, RTCP_RR, 0, 1, 0, 0, 0, 9,
		    0x80, RTCP_APP, 0, 3, 0, 0, 0, 9, 'R', 'T', 'P', 'A', 0, 0, 1, 0x2c };
		assert_int_equal(rtcp_parse(v1, sizeof(v1), &ri), (int)sizeof(v1));
		assert_int_equal(ri.playout_ms, 300);
		assert_false(ri.app_slack);
		assert_int_equal(ri.late, 0);
	}
	n = rtcp_rr_pack(p, sizeof(p), 1, NULL, NULL);
	assert_int_equal(rtcp_parse(p, n, &ri), (int)n);
	assert_true(ri.rr && !ri.block && ri.playout_ms == 0 && !ri.app_slack);
	assert_int_equal(rtcp_rr_pack(p, 40, 1, NULL, NULL), 0);
	assert_int_equal(rtcp_parse(p, 3, &ri), -1);
}

/* RFC 3550 A.1/A.3/A.8 and the RTT of section 6.4.1 */
static void
test_rtcp_rx(void **state)
{
	struct rtcp_rx r;
	struct rtcp_block b;
	uint64_t ntp = (uint64_t)3900000000u << 32, t = 1000000;
	uint16_t s;
	int i;

	(void)state;
	rtcp_rx_init(&r, 90000);
	/* 100 packets from 65500 on (wrapping), every 10th lost, 20 ms apart, no jitter */
	for (i = 0; i < 100; i++) {
		s = (uint16_t)(65500 + i);
		if (i % 10 != 5)
			rtcp_rx_packet(&r, s, (uint32_t)(1800 * i), t + 20000u * (uint64_t)i);
	}
	rtcp_rx_packet(&r, 65510, 1800 * 10, t + 20000u * 10 + 5000); /* a duplicate, 5 ms on */
	rtcp_rx_sr(&r, ntp, t);
	rtcp_rx_block(&r, 7, t + 250000, &b);
	assert_int_equal(b.src, 7);
	assert_int_equal(b.ext_seq, 65599); /* one wrap: 65536 + 63 */
	assert_int_equal(b.lost, 10 - 1);
	assert_int_equal(b.fraction, (9 << 8) / 100);
	assert_true(b.jitter < 1800 / 16 + 2);
	assert_int_equal(b.lsr, (uint32_t)(ntp >> 16));
	assert_int_equal(b.dlsr, 0x4000); /* 0.25 s */
	/* the next interval: nothing new, nothing lost */
	rtcp_rx_block(&r, 7, t + 500000, &b);
	assert_int_equal(b.fraction, 0);
	/* the one after: 8 more, 2 of them lost: the fraction is of this interval's own
	 * (received_prior moved on at each block), 2/8 = 64/256 */
	for (i = 100; i < 108; i++)
		if (i != 102 && i != 105)
			rtcp_rx_packet(&r, (uint16_t)(65500 + i), (uint32_t)(1800 * i),
			    t + 20000u * (uint64_t)i);
	rtcp_rx_block(&r, 7, t + 750000, &b);
	assert_int_equal(b.fraction, 64);
	assert_int_equal(b.lost, 10 - 1 + 2);
	assert_int_equal(b.ext_seq, 65536 + 71);
	/* RTT: the report came back 0.25 s after the SR left + 40 ms on the way */
	{
		int64_t rtt = rtcp_rtt_us(ntp + ((uint64_t)29 << 32) / 100, b.lsr, 0x4000);
		assert_true(rtt > 39900 && rtt <= 40000);
	}
	assert_int_equal(rtcp_rtt_us(ntp, 0, 0), -1);
	/* steady 1 ms of jitter either way converges near 90 ticks */
	rtcp_rx_init(&r, 90000);
	for (i = 0; i < 400; i++)
		rtcp_rx_packet(&r, (uint16_t)i, (uint32_t)(1800 * i),
		    t + 20000u * (uint64_t)i + (i % 2 ? 1000u : 0));
	assert_true(r.jitter > 80 && r.jitter < 95);
	assert_true(rtcp_rx_jitter_ms(&r) > 0.85 && rtcp_rx_jitter_ms(&r) < 1.1);
}

/* RFC 3550 A.1 source validation, at its exact boundaries */
static void
test_rtcp_seq(void **state)
{
	struct rtcp_rx r;
	uint64_t t = 1000000;
	int i;

	(void)state;
	/* probation: exactly RTCP_MIN_SEQUENTIAL (2) packets in sequence */
	assert_int_equal(RTCP_MIN_SEQUENTIAL, 2);
	rtcp_rx_init(&r, 90000);
	assert_int_equal(rtcp_rx_packet(&r, 100, 0, t), RTCP_SEQ_PROBATION);
	assert_int_equal(rtcp_rx_span(&r), 0);
	assert_int_equal(rtcp_rx_packet(&r, 101, 0, t), RTCP_SEQ_VALIDATED);
	assert_int_equal(r.received, 2);
	assert_int_equal(rtcp_rx_span(&r), 2);
	/* a duplicate is not the next in sequence: it does not validate the source */
	rtcp_rx_init(&r, 90000);
	assert_int_equal(rtcp_rx_packet(&r, 100, 0, t), RTCP_SEQ_PROBATION);
	assert_int_equal(rtcp_rx_packet(&r, 100, 0, t), RTCP_SEQ_PROBATION_AGAIN);
	assert_int_equal(r.received, 0);
	assert_int_equal(rtcp_rx_span(&r), 0);
	assert_int_equal(rtcp_rx_packet(&r, 101, 0, t), RTCP_SEQ_VALIDATED);
	/* a stray packet before the stream does not capture it */
	rtcp_rx_init(&r, 90000);
	assert_int_equal(rtcp_rx_packet(&r, 20100, 0, t), RTCP_SEQ_PROBATION);
	assert_int_equal(rtcp_rx_packet(&r, 100, 0, t), RTCP_SEQ_PROBATION_AGAIN);
	assert_int_equal(rtcp_rx_packet(&r, 102, 0, t), RTCP_SEQ_PROBATION_AGAIN);
	assert_int_equal(rtcp_rx_packet(&r, 103, 0, t), RTCP_SEQ_VALIDATED);
	assert_int_equal(rtcp_rx_span(&r), 2);
	/* validated across the wrap: 65535 then 0 */
	rtcp_rx_init(&r, 90000);
	assert_int_equal(rtcp_rx_packet(&r, 65535, 0, t), RTCP_SEQ_PROBATION);
	assert_int_equal(rtcp_rx_packet(&r, 0, 0, t), RTCP_SEQ_VALIDATED);
	assert_int_equal(rtcp_rx_span(&r), 2);
	assert_int_equal(rtcp_rx_packet(&r, 1, 0, t), RTCP_SEQ_OK);
	assert_int_equal(rtcp_rx_span(&r), 3);
	/* MAX_DROPOUT: a step of 2999 is a loss, 3000 a jump */
	assert_int_equal(RTCP_MAX_DROPOUT, 3000);
	assert_int_equal(rtcp_rx_packet(&r, 1 + 2999, 0, t), RTCP_SEQ_OK);
	assert_int_equal(rtcp_rx_span(&r), 3002);
	assert_int_equal(rtcp_rx_packet(&r, 3000 + 3000, 0, t), RTCP_SEQ_JUMP);
	assert_int_equal(rtcp_rx_span(&r), 3002);
	/* a jump not followed is nothing; the stream goes on */
	assert_int_equal(rtcp_rx_packet(&r, 3001, 0, t), RTCP_SEQ_OK);
	/* MAX_MISORDER: 100 back is a reordered packet, 101 back a jump */
	assert_int_equal(RTCP_MAX_MISORDER, 100);
	assert_int_equal(rtcp_rx_packet(&r, 3001 - 99, 0, t), RTCP_SEQ_OK);
	assert_int_equal(rtcp_rx_packet(&r, 3001 - 100, 0, t), RTCP_SEQ_JUMP);
	assert_int_equal(rtcp_rx_span(&r), 3003);
	/* a jump followed by the next packet in sequence restarts there: both count */
	assert_int_equal(rtcp_rx_packet(&r, 33001, 0, t), RTCP_SEQ_JUMP);
	assert_int_equal(rtcp_rx_packet(&r, 33002, 0, t), RTCP_SEQ_RESTART);
	assert_int_equal(r.restarts, 1);
	assert_int_equal(r.received, 2);
	assert_int_equal(rtcp_rx_span(&r), 3003 + 2);
	for (i = 3; i < 10; i++)
		assert_int_equal(rtcp_rx_packet(&r, (uint16_t)(33000 + i), 0, t), RTCP_SEQ_OK);
	assert_int_equal(rtcp_rx_span(&r), 3003 + 9);
}

/* Two packets' timestamps 2^31 apart in one arrival tick: the transit difference is
 * INT32_MIN, whose abs() is undefined (it was; the jitter went negative). */
static void
test_rtcp_jitter_extreme(void **state)
{
	struct rtcp_rx r;

	(void)state;
	rtcp_rx_init(&r, 90000);
	assert_int_equal(rtcp_rx_packet(&r, 1, 0, 1000000), RTCP_SEQ_PROBATION);
	assert_int_equal(rtcp_rx_packet(&r, 2, 0, 1000000), RTCP_SEQ_VALIDATED);
	assert_int_equal(rtcp_rx_packet(&r, 3, 0x80000000u, 1000000), RTCP_SEQ_OK);
	assert_true(r.jitter == 2147483648.0 / 16);
	assert_true(rtcp_rx_jitter_ms(&r) > 0);
	assert_int_equal(rtcp_rx_packet(&r, 4, 0, 1000000), RTCP_SEQ_OK);
	assert_true(r.jitter > 2147483648.0 / 16);
}

/* Packetize all frames with payload space `space`, depacketize in order dropping packet
 * `drop` (-1: none); returns packets made. */
static int
roundtrip(size_t space, int drop, struct sink *s, int *perpkt)
{
	static uint8_t pkts[8 * NFR][MP3_MAX_FRAME + 8];
	size_t len[8 * NFR], off = 0, used, k = 0;
	uint32_t ts[8 * NFR];
	struct fmt_2250_depack d;
	int np = 0, i;

	while (k < NFR) {
		ts[np] = fr[k].ts;
		len[np] = fmt_2250_pack(&fr[k], NFR - k, &off, pkts[np], space, &used);
		assert_true(len[np] > FMT_2250_HDR && len[np] <= space);
		if (perpkt != NULL)
			perpkt[np] = (int)used;
		k += used;
		np++;
		assert_true(np < 8 * NFR);
	}
	fmt_2250_depack_init(&d);
	memset(s, 0, sizeof(*s));
	for (i = 0; i < np; i++)
		if (i != drop)
			assert_true(fmt_2250_depack(&d, pkts[i], len[i], (uint16_t)(60000 + i), ts[i],
			    sink_cb, s) >= 0);
	return np;
}

static void
test_2250_whole(void **state)
{
	struct sink s;
	int per[8 * NFR], np, i;

	(void)state;
	make_frames(8);
	/* default MTU: three 417/418-byte frames fit in 1400 - 12 - 4 */
	np = roundtrip(1400 - RTP_HDR, -1, &s, per);
	assert_int_equal(s.n, NFR);
	assert_int_equal(per[0], 3);
	assert_int_equal(np, (NFR + 2) / 3);
	for (i = 0; i < NFR; i++) {
		assert_int_equal(s.idx[i], i);
		/* frames after the first get the packet's timestamp + their durations, within one
		 * tick of the sender's exact clock */
		assert_true(abs(rtp_ts_diff(s.ts[i], fr[i].ts)) <= 1);
	}
	/* one frame per packet exactly when only one fits */
	np = roundtrip(FMT_2250_HDR + 418, -1, &s, per);
	assert_int_equal(np, NFR);
	assert_int_equal(s.n, NFR);
	/* a lost packet takes its whole frames with it, nothing else */
	roundtrip(1400 - RTP_HDR, 2, &s, NULL);
	assert_int_equal(s.n, NFR - 3);
	assert_int_equal(s.idx[6], 9);
}

static void
test_2250_fragments(void **state)
{
	struct fmt_2250_depack d;
	struct sink s;
	uint8_t pkt[600];
	size_t off = 0, used, len;
	int np, i;

	(void)state;
	make_frames(14); /* 384 kbit/s: 1044/1045-byte frames */
	np = roundtrip(300, -1, &s, NULL);
	assert_int_equal(s.n, NFR);
	assert_true(np >= 4 * NFR - 4);
	for (i = 0; i < NFR; i++)
		assert_int_equal(s.idx[i], i);
	/* a lost middle piece drops that frame only; the next frame comes through */
	roundtrip(300, 5, &s, NULL);
	assert_int_equal(s.n, NFR - 1);
	assert_int_equal(s.idx[0], 0);
	assert_int_equal(s.idx[1], 2);
	/* lost first piece: the continuations are dropped */
	roundtrip(300, 4, &s, NULL);
	assert_int_equal(s.n, NFR - 1);
	assert_int_equal(s.idx[1], 2);
	/* lost last piece, then a new frame starts: the partial one is dropped */
	roundtrip(300, 3, &s, NULL);
	assert_int_equal(s.n, NFR - 1);
	assert_int_equal(s.idx[0], 1);
	/* offsets in the payload header */
	len = fmt_2250_pack(&fr[0], NFR, &off, pkt, 300, &used);
	assert_int_equal(len, 300);
	assert_int_equal(used, 0);
	assert_int_equal(off, 296);
	len = fmt_2250_pack(&fr[0], NFR, &off, pkt, 300, &used);
	assert_int_equal(pkt[2] << 8 | pkt[3], 296);
	/* a continuation with the wrong timestamp or offset is not glued on */
	fmt_2250_depack_init(&d);
	memset(&s, 0, sizeof(s));
	off = 0;
	len = fmt_2250_pack(&fr[0], NFR, &off, pkt, 300, &used);
	assert_int_equal(fmt_2250_depack(&d, pkt, len, 1, 100, sink_cb, &s), 0);
	len = fmt_2250_pack(&fr[0], NFR, &off, pkt, 300, &used);
	assert_int_equal(fmt_2250_depack(&d, pkt, len, 2, 101, sink_cb, &s), 0);
	assert_int_equal(s.n, 0);
	assert_true(d.fragments_dropped > 0);
	/* in sequence, same timestamp, but its offset is not where the frame stands: dropped */
	fmt_2250_depack_init(&d);
	off = 0;
	len = fmt_2250_pack(&fr[0], NFR, &off, pkt, 300, &used);
	assert_int_equal(fmt_2250_depack(&d, pkt, len, 10, 200, sink_cb, &s), 0);
	len = fmt_2250_pack(&fr[0], NFR, &off, pkt, 300, &used);
	pkt[3] ^= 1;
	assert_int_equal(d.fragments_dropped, 0);
	fmt_2250_depack(&d, pkt, len, 11, 200, sink_cb, &s);
	assert_true(d.fragments_dropped > 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(fmt_2250_pack(&fr[0], NFR, &off, pkt, FMT_2250_HDR, &used), 0);
}

static void
test_2250_malformed(void **state)
{
	struct fmt_2250_depack d;
	struct sink s;
	uint8_t p[2000];

	(void)state;
	make_frames(8);
	fmt_2250_depack_init(&d);
	memset(&s, 0, sizeof(s));
	memset(p, 0, sizeof(p));
	memcpy(p + 4, fr[0].p, fr[0].len);
	memcpy(p + 4 + fr[0].len, fr[1].p, fr[1].len);
	assert_int_equal(fmt_2250_depack(&d, p, 4 + fr[0].len + fr[1].len, 0, 0, sink_cb, &s), 2);
	p[0] = 1; /* MBZ set */
	assert_int_equal(fmt_2250_depack(&d, p, 4 + fr[0].len, 1, 0, sink_cb, &s), -1);
	p[0] = 0;
	/* trailing garbage after a whole frame: nothing of the packet is delivered */
	assert_int_equal(fmt_2250_depack(&d, p, 4 + fr[0].len + 10, 2, 0, sink_cb, &s), -1);
	assert_int_equal(fmt_2250_depack(&d, p, 3, 3, 0, sink_cb, &s), -1);
	p[4] = 0x12; /* not a frame */
	assert_int_equal(fmt_2250_depack(&d, p, 4 + fr[0].len, 4, 0, sink_cb, &s), -1);
	assert_int_equal(s.n, 2);
	assert_int_equal(d.malformed, 4);
}

static int fmt_out_n, fmt_out_dummy;

static void
fmt_out(void *arg, const uint8_t *frame, size_t len, uint32_t ts, int dummy)
{
	(void)arg;
	(void)ts;
	assert_true(len > 4 && frame[4] == (uint8_t)(fmt_out_n + 1));
	fmt_out_n++;
	fmt_out_dummy += dummy;
}

/* The format table: names and aliases, the default, every entry complete; the 2250 entry's
 * packer and receiver as fmt_2250_pack and fmt_2250_depack. */
static void
test_fmt_table(void **state)
{
	static const char *const names[] = { "2250", "3119", "5219", "fec" };
	const struct rtpaudio_fmt *f;
	struct fmt_rx_counts c;
	uint8_t pl[1400], bad[8] = { 0 };
	size_t off = 0, used, len, next = 0, i;
	uint16_t seq = 0;
	void *rx;

	(void)state;
	assert_string_equal(rtpaudio_fmt_find(NULL)->name, "2250");
	assert_ptr_equal(rtpaudio_fmt_find("5219"), rtpaudio_fmt_find("3119"));
	assert_null(rtpaudio_fmt_find("2251"));
	assert_null(rtpaudio_fmt_find(""));
	assert_null(rtpaudio_fmt_find("FEC"));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_non_null(f = rtpaudio_fmt_find(names[i]));
		assert_true(f->clock > 0);
		assert_true((f->pack == NULL) == (f->groups != 0));
		assert_true((f->pt < 0) == (f->groups != 0));
		assert_true(f->sdp_name != NULL || f->no_sdp != NULL);
		assert_true(f->rx_new && f->rx_put && f->rx_flush && f->rx_reset && f->rx_counts &&
		    f->rx_free);
		assert_non_null(rx = f->rx_new(fmt_out, NULL));
		f->rx_counts(rx, &c);
		assert_int_equal(c.malformed + c.dummies + c.groups, 0);
		f->rx_free(rx);
	}
	f = rtpaudio_fmt_find("2250");
	assert_int_equal(f->pt, RTP_PT_MPA);
	make_frames(8);
	fmt_out_n = fmt_out_dummy = 0;
	assert_non_null(rx = f->rx_new(fmt_out, NULL));
	while (next < NFR) {
		len = f->pack(&fr[next], NFR - next, &off, pl, 1400 - RTP_HDR, &used);
		assert_int_equal(f->rx_put(rx, pl, len, seq++, fr[next].ts), 0);
		next += used;
	}
	assert_int_equal(fmt_out_n, NFR);
	assert_int_equal(fmt_out_dummy, 0);
	assert_int_equal(f->rx_put(rx, bad, sizeof(bad), seq++, 0), -1);
	f->rx_counts(rx, &c);
	assert_int_equal(c.malformed, 1);
	f->rx_flush(rx);
	f->rx_reset(rx);   /* a new sequence starts its counts over */
	f->rx_counts(rx, &c);
	assert_int_equal(c.malformed, 0);
	f->rx_free(rx);
}

static void
test_jitter(void **state)
{
	struct jitter *j = jitter_new(100);
	const struct jitter_pkt *k;
	uint64_t next;
	uint8_t b[4] = { 1, 2, 3, 4 };
	uint16_t order[] = { 65534, 0, 65535, 1, 3 }; /* 2 never comes; wraps */
	int i;

	(void)state;
	assert_non_null(j);
	/* packets 20 ms apart in media time, arriving out of order at t = 1 s */
	for (i = 0; i < 5; i++) {
		uint16_t s = order[i];
		uint32_t ts = (uint32_t)(rtp_seq_diff(s, 65534) * 1800);
		assert_int_equal(jitter_put(j, s, ts, b, 4, 1000000), 0);
	}
	assert_int_equal(jitter_put(j, 0, 1800 * 2, b, 4, 1000000), 1); /* duplicate */
	assert_int_equal(j->duplicates, 1);
	/* 65534 arrived second (ts 0 is before the first one's 2*1800): still played first */
	assert_null(jitter_get(j, 1000000, 0, &next));
	assert_true(next > 1000000 && next <= 1100000);
	k = jitter_get(j, 1100000, 0, &next);
	assert_non_null(k);
	assert_int_equal(k->seq, 65534);
	jitter_release(j);
	k = jitter_get(j, 2000000, 0, &next);
	assert_int_equal(k->seq, 65535);
	jitter_release(j);
	k = jitter_get(j, 2000000, 0, &next);
	assert_int_equal(k->seq, 0);
	jitter_release(j);
	k = jitter_get(j, 2000000, 0, &next);
	assert_int_equal(k->seq, 1);
	jitter_release(j);
	k = jitter_get(j, 2000000, 0, &next); /* 2 is skipped as lost */
	assert_int_equal(k->seq, 3);
	assert_int_equal(j->lost, 1);
	jitter_release(j);
	assert_null(jitter_get(j, 2000000, 1, &next));
	assert_int_equal(next, 0);
	/* 2 turns up after its turn: late; 1 again: duplicate */
	assert_int_equal(jitter_put(j, 2, 4 * 1800, b, 4, 2000000), 1);
	assert_int_equal(j->late, 1);
	assert_true(j->have_slack);
	assert_true(j->slack_min_us < -700000 && j->slack_min_us > -1000000); /* due at ~1.2 s */
	assert_int_equal(jitter_put(j, 1, 3 * 1800, b, 4, 2000000), 1);
	assert_int_equal(j->duplicates, 2);
	assert_int_equal(j->received, 5);
	/* far outside the window, and too big */
	assert_int_equal(jitter_put(j, 3000, 0, b, 4, 2000000), 1);
	assert_int_equal(jitter_put(j, 5, 0, b, JITTER_PKT + 1, 2000000), 1);
	/* flush releases what is not due yet (4 is due at 1 s + 100 ms + 100 ms) */
	j->have_slack = 0;
	assert_int_equal(jitter_put(j, 4, 5 * 1800, b, 4, 1100000), 0);
	assert_true(j->have_slack);
	assert_int_equal(j->slack_min_us, 100000); /* 100 ms to spare */
	assert_null(jitter_get(j, 1100000, 0, &next));
	k = jitter_get(j, 1100000, 1, &next);
	assert_int_equal(k->seq, 4);
	jitter_release(j);
	/* in its turn but after its play-out time (a stalled reliable transport): late, and
	 * the hole it leaves is not counted lost again; its media time is still announced */
	j->have_slack = 0;
	assert_int_equal(jitter_put(j, 5, 6 * 1800, b, 4, 1220001), 1);
	assert_int_equal(j->late, 2);
	assert_int_equal(j->slack_min_us, -1); /* how late: 1 us after its play-out time */
	assert_int_equal(j->ts_max, 6 * 1800);
	assert_int_equal(jitter_put(j, 6, 7 * 1800, b, 4, 1230000), 0);
	k = jitter_get(j, 1240000, 0, &next);
	assert_int_equal(k->seq, 6);
	assert_int_equal(j->lost, 1);
	jitter_release(j);
	assert_int_equal(jitter_put(j, 5, 6 * 1800, b, 4, 1240000), 1);
	assert_int_equal(j->duplicates, 3);
	assert_int_equal(j->ts_max, 7 * 1800);
	jitter_free(j);
	jitter_free(NULL);
}

/* The window's edge: next + SLOTS - 1 is kept, next + SLOTS (the slot of next, being played)
 * is refused; neither disturbs the packet in its turn. */
static void
test_jitter_window(void **state)
{
	struct jitter *j = jitter_new(100);
	const struct jitter_pkt *k;
	uint64_t next;
	uint8_t a[4] = { 1, 2, 3, 4 }, b[4] = { 9, 9, 9, 9 };
	uint16_t first = 65000, edge = (uint16_t)(first + JITTER_SLOTS - 1);

	(void)state;
	assert_non_null(j);
	assert_int_equal(jitter_put(j, first, 0, a, 4, 1000000), 0);
	assert_int_equal(jitter_put(j, edge, 1800u * (JITTER_SLOTS - 1), b, 4, 1000000), 0);
	assert_int_equal(jitter_put(j, (uint16_t)(edge + 1), 1800u * JITTER_SLOTS, b, 4, 1000000),
	    1);
	assert_int_equal(j->too_big, 1);
	assert_int_equal(j->received, 2);
	k = jitter_get(j, 1100000, 0, &next);
	assert_non_null(k);
	assert_int_equal(k->seq, first);
	assert_int_equal(k->len, 4);
	assert_memory_equal(k->data, a, 4);
	jitter_release(j);
	/* one step on, the edge moves by one */
	assert_int_equal(jitter_put(j, (uint16_t)(edge + 1), 1800u * JITTER_SLOTS, b, 4, 1100000),
	    0);
	assert_int_equal(jitter_put(j, (uint16_t)(edge + 2), 1800u * (JITTER_SLOTS + 1), b, 4,
	    1100000), 1);
	assert_int_equal(j->too_big, 2);
	jitter_free(j);
}

static void
fuzz_cb(void *arg, const uint8_t *frame, size_t len, uint32_t ts)
{
	struct mp3_frame f;

	(void)ts;
	*(int *)arg += 1;
	assert_true(len >= 4 && len <= MP3_MAX_FRAME);
	assert_int_equal(mp3_frame_parse(frame, len, &f), (int)len);
}

/* Random bytes and mutations of good packets: every parser returns, nothing overruns. */
static void
test_fuzz(void **state)
{
	static uint8_t good[2][1500];
	size_t glen[2], off = 0, used;
	struct fmt_2250_depack d;
	struct jitter *j = jitter_new(0);
	struct rtp_hdr h;
	struct rtcp_info ri;
	uint64_t next;
	int i, k, nf = 0;

	(void)state;
	make_frames(8);
	glen[0] = fmt_2250_pack(fr, NFR, &off, good[0], 1400, &used);
	make_frames(14);
	off = 0;
	glen[1] = fmt_2250_pack(fr, NFR, &off, good[1], 500, &used);
	fmt_2250_depack_init(&d);
	srand(7);
	for (i = 0; i < 50000; i++) {
		int g = i & 1;
		size_t n = i % 3 == 0 ? (size_t)(rand() % 1500) : glen[g];
		uint8_t *p = malloc(n ? n : 1);
		if (i % 3 == 0) {
			for (k = 0; k < (int)n; k++)
				p[k] = (uint8_t)rand();
		} else {
			memcpy(p, good[g], n);
			for (k = rand() % 8; k >= 0 && n > 0; k--)
				p[rand() % n] ^= (uint8_t)(1u << (rand() % 8));
			if (rand() % 4 == 0)
				n = (size_t)rand() % (n + 1);
		}
		fmt_2250_depack(&d, p, n, (uint16_t)rand(), (uint32_t)rand(), fuzz_cb, &nf);
		rtp_parse(p, n, &h);
		rtcp_parse(p, n, &ri);
		jitter_put(j, (uint16_t)(rand() % 2048), (uint32_t)rand(), p, n, (uint64_t)i);
		if (i % 16 == 0)
			while (jitter_get(j, (uint64_t)i + 1000000000u, i % 64 == 0, &next) != NULL)
				jitter_release(j);
		free(p);
	}
	assert_true(nf > 0);
	jitter_free(j);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rtp_header),
		cmocka_unit_test(test_rtcp),
		cmocka_unit_test(test_rtcp_rx),
		cmocka_unit_test(test_rtcp_seq),
		cmocka_unit_test(test_rtcp_jitter_extreme),
		cmocka_unit_test(test_2250_whole),
		cmocka_unit_test(test_2250_fragments),
		cmocka_unit_test(test_2250_malformed),
		cmocka_unit_test(test_fmt_table),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_jitter_window),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
