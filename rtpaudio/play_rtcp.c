/* play_rtcp.c: `rtpaudio play`'s RTCP: receiver reports (RR, SDES, APP with the playout delay
 * and the lateness), early ones for a late packet, the sender's reports in. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "play.h"

/* One compound RR (+ SDES + APP with the playout delay and the lateness) to the sender. */
static void
play_send_rr(struct play *p)
{
	struct rtcp_block b;
	struct rtcp_app app;
	int64_t slack = p->fec_have_slack ? p->fec_slack_min_us : p->jb->slack_min_us;
	uint8_t buf[128];
	size_t n, sent;

	p->rr_last_us = ev_clock_us();
	rtcp_rx_block(&p->rx, p->ssrc, p->rr_last_us, &b);
	app.playout_ms = p->delay_ms > 0 ? p->delay_ms : 1;
	app.late = (uint32_t)(p->jb->late + p->fec_late);
	app.slack_ms = RTCP_NO_SLACK;
	if (p->jb->have_slack || p->fec_have_slack) /* rounded down: late by 0.1 ms is late */
		app.slack_ms = slack >= 0 ? (int32_t)(slack / 1000) : -(int32_t)((999 - slack) / 1000);
	p->jb->have_slack = p->fec_have_slack = 0;
	n = rtcp_rr_pack(buf, sizeof(buf), p->my_ssrc, p->rx.init ? &b : NULL, &app);
	if (n == 0)
		return;
	if (p->c != NULL) {
		struct tp_msginfo mi;
		rtpaudio_net_rtcp_info(&p->net, p->rtcp_ms, &mi);
		/* advisory: a full buffer skips this one */
		int rc = tp_send(p->c, buf, n, &mi, &sent);
		if (rc == TP_OK)
			p->rr_sent++;
		else if (p->verbose)
			fprintf(stderr, "rtpaudio play: RTCP: %s\n", rc == TP_RETRY ? "would block" :
			    p->c->err);
	} else if (p->rtcp_fd != -1 && p->rtcp_peerlen > 0) {
		if (sendto(p->rtcp_fd, buf, n, 0, (struct sockaddr *)&p->rtcp_peer,
		    p->rtcp_peerlen) >= 0)
			p->rr_sent++;
	}
}

void
play_rr_tick(struct ev_loop *loop, void *arg)
{
	struct play *p = arg;

	play_send_rr(p);
	ev_timer_start(loop, &p->rr_t, p->rtcp_ms * 1000ull, play_rr_tick, p);
}

/* An RTCP packet from the sender: SRs (for LSR/DLSR) and the BYE that ends a UDP stream: 1
 * when it is that BYE (the caller ends the stream: play.c), else 0. */
int
play_rtcp_msg(struct play *p, const uint8_t *buf, size_t len)
{
	struct rtcp_info ri;

	if (rtcp_parse(buf, len, &ri) <= 0)
		return 0; /* malformed: no BYE */
	if (ri.sr && (!p->locked || ri.ssrc == p->ssrc || p->fmt->groups)) {
		p->sr_received++;
		p->sr_packets = ri.packets;
		p->sr_ts = ri.rtp_ts;
		p->have_sr_packets = 1;
		rtcp_rx_sr(&p->rx, ri.ntp, ev_clock_us());
	}
	return ri.bye && p->locked && p->c == NULL && (ri.ssrc == p->ssrc || p->fmt->groups);
}

/* The current source's SR packet count, as far as its sequence numbers and timestamps
 * support it: the sequence numbers covered, and beyond them no more packets than the
 * frames between the latest timestamp received and the SR's own (its media time when it
 * was sent), at the packets per frame seen so far (fragments) or one. An SR claiming more
 * (a lie, a counter gone wrong) is not believed: the report shows both. */
uint64_t
play_sr_supported(const struct play *p)
{
	uint64_t covered = rtcp_rx_span(&p->rx), frames = p->frames_played + p->frames_concealed;
	uint64_t ppf, extra = 0;
	int32_t d;

	if (p->sr_packets <= covered)
		return p->sr_packets;
	if (p->rate > 0 && p->samples > 0 && p->jb != NULL && p->jb->have_ts_max &&
	    (d = rtp_ts_diff(p->sr_ts, p->jb->ts_max)) > 0) {
		ppf = frames > 0 && covered > frames ? (covered + frames - 1) / frames : 1;
		uint64_t unit = (uint64_t)p->samples * RTP_CLOCK_MPA; /* rounded: 90 kHz is */
		extra = (2 * (uint64_t)d * (uint64_t)p->rate + unit) / (2 * unit) * ppf; /* exact
		                                                                 * on average */
	}
	return covered + extra < p->sr_packets ? covered + extra : p->sr_packets;
}

/* A packet came after its play-out time: the sender hears of it now (an early report, as
 * RFC 4585's early feedback; one per PLAY_EARLY_RR_MS at most), not at the next regular
 * one, so that --lifetime auto cuts its lifetime before more come late. */
void
play_late_report(struct play *p)
{
	if (p->rtcp_ms > 0 && p->locked &&
	    ev_clock_us() - p->rr_last_us >= PLAY_EARLY_RR_MS * 1000ull)
		play_send_rr(p);
}

/* RTCP on a connection: its PPID on SCTP; on tcp RFC 5761's packet types 200..204. */
int
play_is_rtcp(const struct play *p, const uint8_t *buf, size_t len, const struct tp_msginfo *mi)
{
	return rtpaudio_net_is_rtcp(&p->net, buf, len, mi->ppid);
}
