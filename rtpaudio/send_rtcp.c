/* send_rtcp.c: `rtpaudio send`'s RTCP (sender reports, BYE, the player's receiver reports
 * and APP packets), the lifetime rule (--lifetime auto) they feed, and the stats line. Below
 * send.c: it calls nothing there (rtpaudio-structure.sh). */
#include <sys/socket.h>

#include "send.h"

/* The SR, on UDP's RTCP port or on the connection beside the media (no BYE there: the
 * association's end is the stream's, and an unordered BYE could overtake the last packets). */
void
send_rtcp(struct send *s, int bye)
{
	uint8_t buf[128];
	size_t n, sent;

	n = rtcp_sr_pack(buf, sizeof(buf), s->ssrc, rtp_ntp_now(), s->ts, (uint32_t)s->packets,
	    (uint32_t)s->octets, bye && s->c == NULL);
	if (n == 0)
		return;
	/* RTCP is advisory: nobody listening, or a full buffer, is fine. On a connection the
	 * SRs wait for the player's first RTCP packet: a receiver that does not demultiplex
	 * RTCP there (poc's pob-*) would take an SR for media. */
	if (s->c != NULL && !s->peer_rtcp)
		return;
	if (s->c != NULL) {
		struct tp_msginfo mi;
		rtpaudio_net_rtcp_info(&s->net, s->rtcp_ms, &mi);
		(void)tp_send(s->c, buf, n, &mi, &sent);
	} else if (s->rtcp_fd != -1) {
		(void)!send(s->rtcp_fd, buf, n, 0);
	}
}

void
send_rtcp_tick(struct ev_loop *loop, void *arg)
{
	struct send *s = arg;

	send_rtcp(s, 0);
	ev_timer_start(loop, &s->rtcp, s->rtcp_ms * 1000ull, send_rtcp_tick, s);
}

/* The median of the last three report RTTs; of two, the smaller; of one, that one. */
static int64_t
send_rtt_median_us(const struct send *s)
{
	int64_t a = s->rr_rtts[0], b = s->rr_rtts[1], c = s->rr_rtts[2];

	if (s->rr_nrtt == 1)
		return a;
	if (s->rr_nrtt == 2)
		return a < b ? a : b;
	if ((a <= b && b <= c) || (c <= b && b <= a))
		return b;
	if ((b <= a && a <= c) || (c <= a && a <= b))
		return a;
	return c;
}

/* The path's RTT growth over its smallest value, in ms: the smaller of the receiver
 * reports' (end to end, free of the SRTT's smoothing and delayed SACKs) and the SCTP SRTT's.
 * On a connection the report's RTT also holds the time our SR waited in the association's
 * send queue behind the audio (seconds, when the stream is more than the path carries),
 * which the lifetime counts already; the SRTT is timed from a chunk's transmission, but it
 * lags a change and stands still while chunks are retransmitted (Karn): what it misses, the
 * player's lateness makes up (send_slack_in). */
static int64_t
send_rtt_growth_ms(const struct send *s)
{
	int64_t g = -1;

	if (s->rr_nrtt > 0)
		g = (send_rtt_median_us(s) - s->rr_rtt_min_us) / 1000;
	if (s->srtt_min_ms > 0 && (g < 0 || (int64_t)s->srtt_ms - s->srtt_min_ms < g))
		g = (int64_t)s->srtt_ms - (int64_t)s->srtt_min_ms;
	return g < 0 ? 0 : g;
}

/* The player's time to spare (APP "RTPA"): the least time to its play-out time that the
 * packets since its previous report had left when they came. Late ones (negative) show that
 * the lifetime let through what could not be played: the lifetime is cut by that lateness
 * and SEND_SLACK_MARGIN_MS more at once. The messages already handed to the stack keep the
 * lifetime they had, so for about a round trip (the reports' RTT: it holds our queue too)
 * later reports are of packets sent before the cut: they raise it only as far as their
 * lateness says from where it stood before. Time to spare gives back half of it at a time,
 * so that a cut lasts while the packets that waited longest still come just in time (a
 * queue on the way out that the RTT's half misses, or the SRTT's lag). */
static void
send_slack_in(struct send *s, uint32_t late, int32_t slack_ms)
{
	uint64_t now = ev_clock_us();
	uint32_t want;

	s->app_late = late;
	if (!s->lifetime_auto || slack_ms == RTCP_NO_SLACK)
		return;
	if (slack_ms < 0) {
		if (now >= s->slack_hold_us) {
			s->slack_cut_base_ms = s->slack_cut_ms;
			s->slack_hold_us = now + (s->rr_rtt_us > 0 ? (uint64_t)s->rr_rtt_us :
			    (uint64_t)s->srtt_ms * 1000);
		}
		want = s->slack_cut_base_ms + (uint32_t)-slack_ms + SEND_SLACK_MARGIN_MS;
		if (want > s->slack_cut_ms)
			s->slack_cut_ms = want;
		if (s->slack_cut_ms > s->playout_ms)
			s->slack_cut_ms = s->playout_ms;
	} else {
		s->slack_cut_ms -= (uint32_t)slack_ms / 2 < s->slack_cut_ms ?
		    (uint32_t)slack_ms / 2 : s->slack_cut_ms;
	}
}

/* --lifetime auto. A message sent at t is played at about t + one-way delay at the start +
 * playout delay D (the player counts from its first packet); a retransmission sent at
 * t + L arrives at t + L + one-way delay now. So L may be D less the growth of the one-way
 * delay since then (half the RTT's growth over its smallest value: queues, a longer
 * path), less a margin of twice the interarrival jitter that the network adds (what the
 * player reports less what the send times alone give: an interleaved stream's timestamps
 * jump back and forth by hundreds of ms, which is no network jitter), less what the
 * player's reports of packets late took off (send_slack_in: where the growth is on the way
 * out only, half of it is too little). Later than that a retransmission only takes
 * bandwidth from audio that is still on time. */
void
send_lifetime_eval(struct send *s)
{
	struct tp_status st;
	int64_t l;
	double jitter;

	if (s->c != NULL && tp_status(s->c, &st) == TP_OK) {
		s->rto_ms = st.rto_ms;
		/* the minimum from the stream's second second on: the handshake's RTT has no
		 * delayed SACK in it, data's has (usrsctp on the loopback: 1 ms, then 37 to 47) */
		if (st.srtt_ms > 0) {
			s->srtt_ms = st.srtt_ms;
			if (s->start_us != 0 && ev_clock_us() - s->start_us >= 1000000 &&
			    (s->srtt_min_ms == 0 || st.srtt_ms < s->srtt_min_ms))
				s->srtt_min_ms = st.srtt_ms;
		}
	}
	if (!s->lifetime_auto)
		return;
	jitter = s->rr_jitter_ms - rtcp_rx_jitter_ms(&s->self_rx);
	if (jitter < 0)
		jitter = 0;
	l = (int64_t)s->playout_ms - send_rtt_growth_ms(s) / 2 - (int64_t)(2 * jitter) -
	    s->slack_cut_ms;
	if (l > (int64_t)s->playout_ms)
		l = s->playout_ms;
	if (l < 10)
		l = 10;
	s->lifetime_ms = (uint32_t)l;
}

/* A receiver report (and the player's APP packet with its playout delay). */
void
send_rtcp_in(struct send *s, const uint8_t *buf, size_t len)
{
	struct rtcp_info ri;

	if (rtcp_parse(buf, len, &ri) <= 0)
		return;
	if (!s->peer_rtcp && s->c != NULL) {
		/* the SRs held back on a connection: the first one now, so that the player's
		 * next report already gives the RTT */
		s->peer_rtcp = 1;
		send_rtcp(s, 0);
	}
	s->peer_rtcp = 1;
	if (ri.playout_ms > 0)
		s->playout_ms = ri.playout_ms;
	if (ri.rr && ri.block) {
		s->rr_count++;
		s->rr_fraction = ri.fraction_lost / 256.0;
		s->rr_cum_lost = ri.cum_lost;
		s->rr_jitter_ms = ri.jitter * 1000.0 /
		    (double)s->fmt->clock;
		if (ri.lsr != 0) {
			s->rr_rtt_us = rtcp_rtt_us(rtp_ntp_now(), ri.lsr, ri.dlsr);
			if (s->rr_rtt_min_us < 0 || s->rr_rtt_us < s->rr_rtt_min_us)
				s->rr_rtt_min_us = s->rr_rtt_us;
			s->rr_rtts[s->rr_rtt_next] = s->rr_rtt_us;
			s->rr_rtt_next = (s->rr_rtt_next + 1) % 3;
			if (s->rr_nrtt < 3)
				s->rr_nrtt++;
		}
	}
	if (ri.app_slack)
		send_slack_in(s, ri.late, ri.slack_ms);
	send_lifetime_eval(s);
	if (s->verbose)
		send_stats_line(s, "rr");
}

void
send_rtcp_udp(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct send *s = arg;
	uint8_t buf[2048];
	ssize_t n;

	(void)loop;
	(void)events;
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0)
		send_rtcp_in(s, buf, (size_t)n);
}

/* The player's messages on the connection: RTCP only (its PPID; on tcp RFC 5761's types). */

/* One line of the sender's figures (--stats-interval, a receiver report with -v, the end):
 * here, below send.c, which calls it too. */
void
send_stats_line(struct send *s, const char *what)
{
	fprintf(stderr, "rtpaudio send: %s t=%.1f frames=%zu packets=%llu dropped=%llu "
	    "lifetime_ms=%u srtt_ms=%u srtt_min_ms=%u rto_ms=%u playout_ms=%u rtcp_rtt_ms=%.1f "
	    "rr=%llu rr_fraction_lost=%.3f rr_cum_lost=%d rr_jitter_ms=%.2f self_jitter_ms=%.2f "
	    "player_late=%u slack_cut_ms=%u cpu_s=%.3f late_max_ms=%.1f late_sends=%llu "
	    "rto_min_ms=%u rto_max_ms=%u\n", what,
	    (double)(ev_clock_us() - s->start_us) / 1e6, s->next,
	    (unsigned long long)s->packets, (unsigned long long)s->dropped,
	    s->net.caps.lifetime ? s->lifetime_ms : 0, s->srtt_ms,
	    s->srtt_min_ms, s->rto_ms, s->playout_ms,
	    s->rr_rtt_us >= 0 ? (double)s->rr_rtt_us / 1000.0 : -1.0,
	    (unsigned long long)s->rr_count, s->rr_fraction, (int)s->rr_cum_lost, s->rr_jitter_ms,
	    rtcp_rx_jitter_ms(&s->self_rx), s->app_late, s->slack_cut_ms,
	    rtpaudio_cpu_s(), (double)s->late_max_us / 1000.0, (unsigned long long)s->late_sends,
	    s->net.rto_min_ms, s->net.rto_max_ms);
}
