/* send.c: `rtpaudio send`: MP3 frames to RTP packets, paced by absolute media time. */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ev.h"
#include "rtpaudio.h"
#include "tp.h"

#define SEND_QUEUE 256
#define SEND_LATE_US 5000 /* a send this much after its time counts as late */
#define SEND_SLACK_MARGIN_MS 10 /* --lifetime auto: cut beyond a lateness reported */

struct send_pkt {
	size_t len;
	uint64_t t_us;         /* when it was due: prsctp's lifetime counts from here */
	uint8_t data[JITTER_PKT + RTP_HDR];
};

struct send {
	struct ev_loop *loop;
	struct rtpaudio_net net;
	const char *dest, *sdp;
	size_t mtu;
	uint32_t lifetime_ms, start_delay_ms, drop_every;
	/* --lifetime auto (doc/rtpaudio.1): from the RTT (RTCP's, else SCTP's SRTT), the player's
	 * playout delay (its RTCP APP packet; --playout-delay until then) and the reported jitter */
	int lifetime_auto;
	uint32_t playout_ms, srtt_ms, srtt_min_ms, rto_ms, rtcp_ms, stats_ms;
	int64_t rr_rtt_min_us;  /* the smallest RTT the reports gave; -1: none yet */
	/* the latest receiver report */
	uint64_t rr_count;
	int peer_rtcp;              /* an RTCP packet came from the player */
	int64_t rr_rtt_us;     /* -1: none yet */
	/* the last three report RTTs (rr_nrtt of them, the next goes to rr_rtt_next):
	 * --lifetime auto takes their median, so that one report held up at either end (a
	 * busy process) does not cut the lifetime */
	int64_t rr_rtts[3];
	unsigned rr_nrtt, rr_rtt_next;
	double rr_jitter_ms, rr_fraction;
	/* the jitter a receiver would report over a network without any: the RFC 3550 figure
	 * of the packets' timestamps against their send times (interleaving, FEC's spread
	 * groups, pacing); --lifetime auto takes only the reported jitter beyond it */
	struct rtcp_rx self_rx;
	/* --lifetime auto: what the player's time to spare (its APP packets) took off the
	 * lifetime the RTT gives, that cut before its latest raise, and until when lateness
	 * reports may still be of packets sent before that raise; the packets late the
	 * player has reported so far */
	uint32_t slack_cut_ms, slack_cut_base_ms, app_late;
	uint64_t slack_hold_us;
	int32_t rr_cum_lost;
	uint8_t rbuf[2048];
	size_t rlen;
	unsigned watching;     /* events asked of the connection */
	int verbose, streams;
	int format, pt;        /* 2250 or 3119; the RTP payload type */
	uint8_t *adu;          /* 3119: every frame's ADU, fr[] points here */
	size_t interleave;     /* 3119: ADUs a cycle (0: none) */
	uint8_t *iadu;         /* the interleaved ADUs */
	uint32_t *rel_ts;      /* interleaved: each ADU's timestamp from the first */
	uint32_t ts0;
	int fec_k, fec_n, gseq;  /* fec: the code, the group sequence number */
	int fec_total, fec_sent; /* fec: the current group's packets, and those sent */
	uint64_t fec_g0_us, fec_dur_us; /* its media time and duration */
	size_t fec_olen[FEC_MAXN];
	struct fec *code;
	uint8_t (*fecbuf)[FMT_FEC_HDR + FMT_FEC_MAXLEN];
	/* the media: every file's frames in order */
	struct mp3_file **files;
	int nfiles;
	struct fmt_frame *fr;
	uint32_t *fr_samples, *fr_rate;
	size_t nfr, next;      /* frames; the next one to packetize */
	/* clocks: RTP 90 kHz and wall microseconds, both as exact sums of frame durations */
	uint32_t ts;
	uint64_t ts_rem, us_rem, media_us;
	uint64_t start_us;
	struct ev_timer tick, rtcp, stats;
	/* connection */
	int fd, rtcp_fd;
	struct tp_conn *c;
	struct send_pkt *q;    /* packets waiting for the transport (SEND_QUEUE) */
	size_t qhead, qlen;
	/* RTP */
	uint16_t seq;
	uint32_t ssrc;
	int first;
	uint64_t packets, octets, dropped, fragments;
	/* pacing: how late the timer let us send what was due (the host's, not the net's) */
	uint64_t late_max_us, late_sends, ticks;
	int done, rc;
	char err[TP_ERRLEN];
};

static void
send_usage(FILE *fp)
{
	fprintf(fp,
"usage: rtpaudio send [OPTIONS] FILE.mp3... DEST\n"
"  Streams the files' MPEG audio frames in real time as RTP (RFC 2250, PT 14, or RFC 5219,\n"
"  PT 96) to DEST\n"
"  (HOST:PORT; for udp a multicast group works too).\n"
"  -t, --transport T    udp (default), sctp (every message unordered), prsctp (unordered,\n"
"                       timed reliability), tcp (RFC 4571 framing)\n"
"  -s, --stack S        kernel (default) or usrsctp, for sctp and prsctp\n"
"  -l, --lifetime MS    prsctp: a message not delivered within MS is abandoned (default 200)\n"
"      --lifetime auto  prsctp: the playout delay less half the growth of the RTT (the\n"
"                       smaller of RTCP's and the SCTP SRTT's) over its smallest value,\n"
"                       twice the reported jitter (beyond what the stream's own timing,\n"
"                       e.g. interleaving, makes) and what the player's reports of late\n"
"                       packets took off, within [10, playout delay] ms, re-evaluated at\n"
"                       each receiver report\n"
"      --playout-delay MS  the player's, until its RTCP says (default 200)\n"
"      --rto-min MS, --rto-max MS  sctp, prsctp: the association's retransmission\n"
"                       timeout bounds (default the stack's, 1000 and 60000 on Linux); a\n"
"                       timeout longer than the playout delay only brings audio too late\n"
"      --rtcp-interval MS  sender reports every MS (default 1000)\n"
"      --stats-interval MS  progress and RTCP figures on standard error every MS\n"
"  -m, --mtu BYTES      largest RTP packet, header included (default 1400)\n"
"  -f, --format F       2250 (default: RFC 2250, PT 14) or 3119 (RFC 5219 mpa-robust ADUs,\n"
"                       PT 96; layer III only)\n"
"      --interleave N   3119: interleave cycles of N ADUs (RFC 5219 section 7, 2..255)\n"
"  -f fec -k K -n N     poc-fec: groups of K ADUs as N packets of a Reed-Solomon code,\n"
"                       any K of which recover the group (default 20 and 25)\n"
"      --sdp FILE       write an SDP description of the stream (udp) for other players\n"
"      --start-delay MS  wait MS after writing the SDP file before the first packet\n"
"      --ttl N          multicast TTL (default 1)\n"
"      --udp-port P     usrsctp: local UDP encapsulation port (default 9900)\n"
"      --udp-remote-port P   usrsctp: the player's encapsulation port (default 9899)\n"
"      --drop-every N   test aid: do not send every Nth packet (simulated loss)\n"
"      --streams N      benchmark: pace N streams of the file at once on one event loop\n"
"                       (udp, 2250 or 3119 without interleaving), starts spread over a\n"
"                       frame; prints how late the packets left (no RTCP)\n"
"  -v, --verbose        progress on standard error\n"
"  -h, --help\n"
"  RTCP sender reports go on PORT+1 (udp, with a BYE at the end) or on the connection\n"
"  (sctp, prsctp: PPID 0x52544350); the player's receiver reports give the RTT.\n");
}

static void send_tick(struct ev_loop *loop, void *arg);

/* RFC 5219: each frame becomes its ADU (its own main data gathered from the reservoir), one
 * encoder per file: no reservoir crosses files. An ADU is at most its frame + 511 bytes. */
static int
send_adus(struct send *s)
{
	struct fmt_3119_enc *e;
	size_t k = 0, i, total = 0, at = 0;
	int f, n;

	for (i = 0; i < s->nfr; i++)
		total += s->fr[i].len + 512;
	if ((s->adu = malloc(total)) == NULL || (e = malloc(sizeof(*e))) == NULL) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return -1;
	}
	for (f = 0; f < s->nfiles; f++) {
		fmt_3119_enc_init(e);
		for (i = 0; i < s->files[f]->nframes; i++, k++) {
			n = fmt_3119_adu(e, s->fr[k].p, s->fr[k].len, s->adu + at, total - at);
			if (n < 0) {
				struct mp3_frame hf;
				snprintf(s->err, sizeof(s->err), "--format %s: frame %zu of file %d "
				    "is MPEG layer %d, not layer III: its ADUs need layer III",
				    s->format == FMT_FEC ? "fec" : "3119", i, f + 1,
				    mp3_header_parse(s->fr[k].p, s->fr[k].len, &hf) > 0 ? hf.layer : 0);
				free(e);
				return -1;
			}
			s->fr[k].p = s->adu + at;
			s->fr[k].len = (size_t)n;
			at += (size_t)n;
		}
	}
	free(e);
	if (s->interleave > 0) {
		/* the timestamps as the clocks will run, in media order, then the new order */
		uint64_t rem = 0, num;
		uint32_t t = 0;
		if ((s->rel_ts = calloc(s->nfr, sizeof(*s->rel_ts))) == NULL ||
		    (s->iadu = malloc(at ? at : 1)) == NULL) {
			snprintf(s->err, sizeof(s->err), "out of memory");
			return -1;
		}
		for (k = 0; k < s->nfr; k++) {
			s->rel_ts[k] = t;
			num = rem + (uint64_t)s->fr_samples[k] * RTP_CLOCK_MPA;
			t += (uint32_t)(num / s->fr_rate[k]);
			rem = num % s->fr_rate[k];
		}
		fmt_3119_interleave(s->fr, s->nfr, s->interleave, s->iadu, s->rel_ts);
	}
	return 0;
}

static int
send_load(struct send *s, char **paths, int n)
{
	size_t i, k = 0, total = 0;
	int f;

	if ((s->files = calloc((size_t)n, sizeof(*s->files))) == NULL)
		return -1;
	for (f = 0; f < n; f++) {
		if ((s->files[f] = mp3_file_new(paths[f], s->err, sizeof(s->err))) == NULL)
			return -1;
		s->nfiles++;
		total += s->files[f]->nframes;
	}
	s->fr = calloc(total, sizeof(*s->fr));
	s->fr_samples = calloc(total, sizeof(*s->fr_samples));
	s->fr_rate = calloc(total, sizeof(*s->fr_rate));
	if (s->fr == NULL || s->fr_samples == NULL || s->fr_rate == NULL) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return -1;
	}
	for (f = 0; f < n; f++) {
		struct mp3_file *m = s->files[f];
		for (i = 0; i < m->nframes; i++, k++) {
			struct mp3_frame fm;
			const uint8_t *p = m->data + m->off[i];
			mp3_header_parse(p, m->len - m->off[i], &fm);
			s->fr[k].p = p;
			s->fr[k].len = (size_t)fm.len;
			s->fr_samples[k] = (uint32_t)fm.samples;
			s->fr_rate[k] = (uint32_t)fm.rate;
		}
	}
	s->nfr = total;
	return s->format != 2250 ? send_adus(s) : 0;
}

/* Advance both clocks by frame k: integer sums with remainders, so 1152 samples at 44.1 kHz
 * (2351.02 ticks, 26122.45 us) never drift however long the stream. */
static void
send_advance(struct send *s, size_t k)
{
	uint64_t num;

	num = s->ts_rem + (uint64_t)s->fr_samples[k] * RTP_CLOCK_MPA;
	s->ts += (uint32_t)(num / s->fr_rate[k]);
	s->ts_rem = num % s->fr_rate[k];
	num = s->us_rem + (uint64_t)s->fr_samples[k] * 1000000u;
	s->media_us += num / s->fr_rate[k];
	s->us_rem = num % s->fr_rate[k];
}

static int
send_raw(struct send *s, const uint8_t *p, size_t len, uint32_t lifetime_ms)
{
	struct tp_msginfo mi = { 0 };
	size_t sent;
	int rc;

	if (s->c == NULL) {
		if (send(s->fd, p, len, 0) == -1) {
			/* a full socket buffer or a receiver not there yet (ICMP): real-time media
			 * goes on without the packet */
			s->dropped++;
		}
		return TP_OK;
	}
	if (s->net.caps.unordered)
		mi.flags = TP_F_UNORDERED;
	mi.lifetime_ms = lifetime_ms;
	rc = tp_send(s->c, p, len, &mi, &sent);
	if (rc == TP_ERROR)
		snprintf(s->err, sizeof(s->err), "send: %.200s", s->c->err);
	return rc;
}

static void send_conn(struct tp_conn *c, unsigned events, void *arg);
static void send_conn_read(struct send *s);

/* The connection is watched for the player's RTCP always, and for EV_WRITE while packets
 * wait; tp_watch only when that changes. */
static int
send_watch(struct send *s, unsigned events)
{
	if (s->watching & 0x100)
		events &= ~(unsigned)EV_READ;
	if ((s->watching & 0xff) == events)
		return 0;
	if (tp_watch(s->c, s->loop, events, events ? send_conn : NULL, s) != TP_OK)
		return -1;
	s->watching = (s->watching & 0x100) | events;
	return 0;
}

/* Queued packets first, in order; what the transport will not take now waits for EV_WRITE.
 * prsctp: a packet's lifetime runs from its due time, the wait here included; one that
 * expired here is dropped, the rest go to the stack with what is left of it. */
static int
send_flush(struct send *s)
{
	int pr = s->net.caps.lifetime;

	while (s->qlen > 0) {
		struct send_pkt *p = &s->q[s->qhead];
		uint64_t age = pr ? (ev_clock_us() - p->t_us) / 1000 : 0;
		int rc;

		if (pr && age >= s->lifetime_ms) {
			s->dropped++;
			s->qhead = (s->qhead + 1) % SEND_QUEUE;
			s->qlen--;
			continue;
		}
		rc = send_raw(s, p->data, p->len, pr ? s->lifetime_ms - (uint32_t)age : 0);
		if (rc == TP_ERROR)
			return -1;
		if (rc == TP_RETRY)
			return send_watch(s, EV_READ | EV_WRITE);
		s->qhead = (s->qhead + 1) % SEND_QUEUE;
		s->qlen--;
	}
	if (s->c != NULL)
		return send_watch(s, EV_READ);
	return 0;
}

static void
send_conn(struct tp_conn *c, unsigned events, void *arg)
{
	struct send *s = arg;

	(void)c;
	if (events & EV_READ)
		send_conn_read(s);
	if (send_flush(s) == -1) {
		s->rc = 1;
		ev_stop(s->loop);
	}
}

static int
send_packet(struct send *s, const uint8_t *payload, size_t plen, uint32_t ts)
{
	struct rtp_hdr h = { 0 };
	struct send_pkt *p;

	if (s->qlen == SEND_QUEUE) {
		s->dropped++; /* the transport is far behind real time */
		return 0;
	}
	p = &s->q[(s->qhead + s->qlen) % SEND_QUEUE];
	h.marker = s->first;
	h.pt = s->pt;
	h.seq = s->seq++;
	h.ts = ts;
	h.ssrc = s->ssrc;
	s->first = 0;
	s->packets++;
	s->octets += plen;
	if (s->drop_every > 0 && s->packets % s->drop_every == 0)
		return 0; /* numbered and counted, never sent: a loss the player must see */
	rtp_pack(p->data, &h);
	memcpy(p->data + RTP_HDR, payload, plen);
	p->len = RTP_HDR + plen;
	p->t_us = ev_clock_us();
	rtcp_rx_packet(&s->self_rx, h.seq, ts, p->t_us);
	s->qlen++;
	return send_flush(s);
}

/* poc-fec: no RTP, the packet as it is */
static int
send_raw_packet(struct send *s, const uint8_t *data, size_t len)
{
	struct send_pkt *p;

	if (s->qlen == SEND_QUEUE) {
		s->dropped++;
		return 0;
	}
	s->packets++;
	s->octets += len;
	if (s->drop_every > 0 && s->packets % s->drop_every == 0)
		return 0;
	p = &s->q[(s->qhead + s->qlen) % SEND_QUEUE];
	memcpy(p->data, data, len);
	p->len = len;
	p->t_us = ev_clock_us();
	/* every packet of a group carries the media time of its end (send_fec_group) */
	rtcp_rx_packet(&s->self_rx, (uint16_t)s->packets, (uint32_t)(s->fec_g0_us + s->fec_dur_us),
	    p->t_us);
	s->qlen++;
	return send_flush(s);
}

/* One FEC group from the next frames (the last one may be shorter: k of them, plus n - k
 * parity packets still), encoded at the time of its first frame; send_tick spreads its n
 * packets evenly over the group's duration (a burst of n packets at once would need n
 * packets' worth of spare bandwidth to arrive in time). */
static int
send_fec_group(struct send *s)
{
	size_t k = s->nfr - s->next < (size_t)s->fec_k ? s->nfr - s->next : (size_t)s->fec_k, i;
	struct fec *code = s->code;
	int n = (int)k + s->fec_n - s->fec_k, rc = -1;

	if ((int)k != s->fec_k && (code = fec_new((int)k, n)) == NULL) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return -1;
	}
	s->fec_g0_us = s->media_us;
	for (i = 0; i < k; i++)
		send_advance(s, s->next + i);
	s->fec_dur_us = s->media_us - s->fec_g0_us;
	if (fmt_fec_group(code, &s->fr[s->next], s->gseq++, (uint32_t)s->media_us, s->fecbuf,
	    s->fec_olen) == -1) {
		snprintf(s->err, sizeof(s->err), "fec: an ADU larger than %d bytes", FMT_FEC_MAXLEN);
		goto bad;
	}
	s->next += k;
	s->fec_total = n;
	s->fec_sent = 0;
	rc = 0;
bad:
	if (code != s->code)
		fec_free(code);
	return rc;
}

/* The SR, on UDP's RTCP port or on the connection beside the media (no BYE there: the
 * association's end is the stream's, and an unordered BYE could overtake the last packets). */
static void
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

static void
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
static void
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

static void
send_stats_line(struct send *s, const char *what)
{
	fprintf(stderr, "rtpaudio send: %s t=%.1f frames=%zu packets=%llu dropped=%llu "
	    "lifetime_ms=%u srtt_ms=%u srtt_min_ms=%u rto_ms=%u playout_ms=%u rtcp_rtt_ms=%.1f "
	    "rr=%llu rr_fraction_lost=%.3f rr_cum_lost=%d rr_jitter_ms=%.2f self_jitter_ms=%.2f "
	    "player_late=%u slack_cut_ms=%u cpu_s=%.3f late_max_ms=%.1f late_sends=%llu\n", what,
	    (double)(ev_clock_us() - s->start_us) / 1e6, s->next,
	    (unsigned long long)s->packets, (unsigned long long)s->dropped,
	    s->net.caps.lifetime ? s->lifetime_ms : 0, s->srtt_ms,
	    s->srtt_min_ms, s->rto_ms, s->playout_ms,
	    s->rr_rtt_us >= 0 ? (double)s->rr_rtt_us / 1000.0 : -1.0,
	    (unsigned long long)s->rr_count, s->rr_fraction, (int)s->rr_cum_lost, s->rr_jitter_ms,
	    rtcp_rx_jitter_ms(&s->self_rx), s->app_late, s->slack_cut_ms,
	    rtpaudio_cpu_s(), (double)s->late_max_us / 1000.0, (unsigned long long)s->late_sends);
}

static void
send_stats_tick(struct ev_loop *loop, void *arg)
{
	struct send *s = arg;

	send_lifetime_eval(s);
	send_stats_line(s, "stats");
	ev_timer_start(loop, &s->stats, s->stats_ms * 1000ull, send_stats_tick, s);
}

/* A receiver report (and the player's APP packet with its playout delay). */
static void
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
		    (s->format == FMT_FEC ? 1000000.0 : RTP_CLOCK_MPA);
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

static void
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
static void
send_conn_read(struct send *s)
{
	struct tp_msginfo mi;
	size_t got;
	int rc;

	for (;;) {
		rc = tp_recv(s->c, s->rbuf + s->rlen, sizeof(s->rbuf) - s->rlen, &mi, &got);
		if (rc != TP_OK) {
			if (rc != TP_RETRY)
				s->watching |= 0x100; /* EOF or error: stop reading */
			return;
		}
		s->rlen += got;
		if (!(mi.flags & TP_F_EOR)) {
			if (s->rlen == sizeof(s->rbuf))
				s->rlen = 0;
			continue;
		}
		if (rtpaudio_net_is_rtcp(&s->net, s->rbuf, s->rlen, mi.ppid))
			send_rtcp_in(s, s->rbuf, s->rlen);
		s->rlen = 0;
	}
}

/* Sends every frame whose media time has come: one packet of several whole frames, or all
 * the pieces of a frame too large for one packet; then sleeps until the next frame's
 * absolute time (start + the exact sum of durations), which keeps the rate from drifting. */
static void
send_tick(struct ev_loop *loop, void *arg)
{
	struct send *s = arg;
	uint8_t payload[JITTER_PKT];
	size_t space = s->mtu - RTP_HDR, used, off = 0, len, i;
	uint64_t now = ev_clock_us(), due = s->start_us + s->media_us;

	if (s->format == FMT_FEC && s->fec_sent < s->fec_total)
		due = s->start_us + s->fec_g0_us +
		    s->fec_dur_us * (uint64_t)s->fec_sent / (uint64_t)s->fec_total;
	if (now > due && s->ticks++ > 0) {
		if (now - due > s->late_max_us)
			s->late_max_us = now - due;
		if (now - due > SEND_LATE_US)
			s->late_sends++;
	}

	while (s->format == FMT_FEC) {
		if (s->fec_sent < s->fec_total) {
			due = s->start_us + s->fec_g0_us +
			    s->fec_dur_us * (uint64_t)s->fec_sent / (uint64_t)s->fec_total;
			if (due > now)
				break;
			if (send_raw_packet(s, s->fecbuf[s->fec_sent],
			    s->fec_olen[s->fec_sent]) == -1)
				goto bad;
			s->fec_sent++;
			continue;
		}
		due = s->start_us + s->media_us;
		if (s->next == s->nfr || due > now)
			break;
		if (send_fec_group(s) == -1)
			goto bad;
	}
	while (s->format != FMT_FEC && s->next < s->nfr && s->start_us + s->media_us <= now) {
		uint32_t ts = s->rel_ts != NULL ? s->ts0 + s->rel_ts[s->next] : s->ts;
		do {
			if (s->format == 3119)
				len = fmt_3119_pack(&s->fr[s->next], s->nfr - s->next, &off, payload,
				    space, &used);
			else
				len = fmt_2250_pack(&s->fr[s->next], s->nfr - s->next, &off, payload,
				    space, &used);
			if (used == 0 && off != 0)
				s->fragments++;
			if (send_packet(s, payload, len, ts) == -1)
				goto bad;
		} while (used == 0 && off != 0);
		for (i = 0; i < used; i++)
			send_advance(s, s->next++);
	}
	if (s->verbose && s->next % 40 == 0)
		fprintf(stderr, "rtpaudio send: %zu/%zu frames, %llu packets\n", s->next, s->nfr,
		    (unsigned long long)s->packets);
	if (s->next == s->nfr && s->fec_sent == s->fec_total) {
		s->done = 1;
		ev_stop(loop);
		return;
	}
	if (s->format != FMT_FEC)
		due = s->start_us + s->media_us;
	ev_timer_start(loop, &s->tick, due > now ? due - now : 0, send_tick, s);
	return;
bad:
	s->rc = 1;
	ev_stop(loop);
}

static int
send_sdp(struct send *s)
{
	struct tp_addrs a;
	char host[64];
	const char *ip4;
	FILE *fp;
	int port;

	if (tp_addrs_parse(s->dest, AF_UNSPEC, &a, s->err, sizeof(s->err)) == -1)
		return -1;
	tp_addr_str((struct sockaddr *)&a.a[0], a.len[0], host, sizeof(host));
	if (a.a[0].ss_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&a.a[0];
		port = ntohs(sin6->sin6_port);
		ip4 = "IP6";
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&a.a[0];
		port = ntohs(sin->sin_port);
		ip4 = "IP4";
	}
	/* tp_addr_str prints "host:port" or "[v6]:port": keep the host part */
	{
		char *c = strrchr(host, ':');
		if (c != NULL)
			*c = '\0';
		if (host[0] == '[') {
			memmove(host, host + 1, strlen(host));
			host[strlen(host) - 1] = '\0';
		}
	}
	if ((fp = fopen(s->sdp, "w")) == NULL) {
		snprintf(s->err, sizeof(s->err), "%s: %s", s->sdp, strerror(errno));
		return -1;
	}
	fprintf(fp, "v=0\r\no=- %u 1 IN %s %s\r\ns=rtpaudio\r\nc=IN %s %s\r\nt=0 0\r\n"
	    "m=audio %d RTP/AVP %d\r\na=rtpmap:%d %s/%d\r\n",
	    s->ssrc, ip4, host, ip4, host, port, s->pt, s->pt,
	    s->format == 3119 ? "mpa-robust" : "MPA", RTP_CLOCK_MPA);
	return fclose(fp) == 0 ? 0 : -1;
}

/* Fully reliable transports: wait (bounded) until the peer has acknowledged everything, so
 * closing does not throw the tail away. */
static void
send_drain(struct send *s)
{
	struct tp_status st;
	int i;

	while (s->qlen > 0 && s->c != NULL) {
		if (tp_wait(s->c, EV_WRITE, 2000) != TP_OK || send_flush(s) == -1)
			break;
	}
	for (i = 0; i < 500 && s->c != NULL; i++) {
		if (tp_status(s->c, &st) != TP_OK || st.unacked == 0)
			break;
		usleep(10000);
	}
}

int
send_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "transport", required_argument, NULL, 't' },
		{ "stack", required_argument, NULL, 's' },
		{ "lifetime", required_argument, NULL, 'l' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "interleave", required_argument, NULL, 'I' },
		{ "sdp", required_argument, NULL, 'S' },
		{ "ttl", required_argument, NULL, 'T' },
		{ "start-delay", required_argument, NULL, 'W' },
		{ "drop-every", required_argument, NULL, 'X' },
		{ "udp-port", required_argument, NULL, 'u' },
		{ "udp-remote-port", required_argument, NULL, 'U' },
		{ "playout-delay", required_argument, NULL, 'd' },
		{ "streams", required_argument, NULL, 'N' },
		{ "rtcp-interval", required_argument, NULL, 'R' },
		{ "stats-interval", required_argument, NULL, 'P' },
		{ "rto-min", required_argument, NULL, 'r' },
		{ "rto-max", required_argument, NULL, 'x' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct send s;
	int ch, i;

	memset(&s, 0, sizeof(s));
	s.fd = s.rtcp_fd = -1;
	s.rc = 1;
	s.mtu = 1400;
	s.lifetime_ms = 200;
	s.playout_ms = 200;
	s.rtcp_ms = 1000;
	s.rr_rtt_us = -1;
	s.rr_rtt_min_us = -1;
	s.first = 1;
	s.format = 2250;
	rtpaudio_net_init(&s.net, 1);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:s:l:m:f:k:n:vh", lo, NULL)) != -1) {
		switch (ch) {
		case 't': s.net.transport = optarg; break;
		case 's': s.net.stack = optarg; break;
		case 'l':
			if (strcmp(optarg, "auto") == 0)
				s.lifetime_auto = 1;
			else
				s.lifetime_ms = (uint32_t)rtpaudio_num(optarg, "lifetime", 1, 600000);
			break;
		case 'r': s.net.rto_min_ms = (uint32_t)rtpaudio_num(optarg, "RTO min", 1, 60000);
			break;
		case 'x': s.net.rto_max_ms = (uint32_t)rtpaudio_num(optarg, "RTO max", 1, 600000);
			break;
		case 'N': s.streams = (int)rtpaudio_num(optarg, "streams", 1, 100000); break;
		case 'd': s.playout_ms = (uint32_t)rtpaudio_num(optarg, "playout delay", 1, 60000);
			break;
		case 'R': s.rtcp_ms = (uint32_t)rtpaudio_num(optarg, "RTCP interval", 10, 600000);
			break;
		case 'P': s.stats_ms = (uint32_t)rtpaudio_num(optarg, "stats interval", 0, 3600000);
			break;
		case 'm': s.mtu = (size_t)rtpaudio_num(optarg, "mtu", RTP_HDR + FMT_2250_HDR + 16,
		    JITTER_PKT); break;
		case 'S': s.sdp = optarg; break;
		case 'k': s.fec_k = (int)rtpaudio_num(optarg, "k", 1, FEC_MAXN); break;
		case 'n': s.fec_n = (int)rtpaudio_num(optarg, "n", 1, FEC_MAXN); break;
		case 'I': s.interleave = (size_t)rtpaudio_num(optarg, "interleave", 0, 255); break;
		case 'f':
			if (strcmp(optarg, "2250") == 0)
				s.format = 2250;
			else if (strcmp(optarg, "3119") == 0 || strcmp(optarg, "5219") == 0)
				s.format = 3119;
			else if (strcmp(optarg, "fec") == 0)
				s.format = FMT_FEC;
			else {
				fprintf(stderr, "rtpaudio send: unknown format %s\n", optarg);
				return 2;
			}
			break;
		case 'W': s.start_delay_ms = (uint32_t)rtpaudio_num(optarg, "start delay", 0, 600000);
			break;
		case 'X': s.drop_every = (uint32_t)rtpaudio_num(optarg, "drop-every", 0, 1000000);
			break;
		case 'T': s.net.ttl = (int)rtpaudio_num(optarg, "ttl", 0, 255); break;
		case 'u': s.net.udp_port = (uint16_t)rtpaudio_num(optarg, "UDP port", 1, 65535); break;
		case 'U': s.net.udp_remote_port = (uint16_t)rtpaudio_num(optarg, "UDP port", 1,
		    65535); break;
		case 'v': s.verbose = 1; break;
		case 'h': send_usage(stdout); return 0;
		default: send_usage(stderr); return 2;
		}
	}
	if (argc - optind < 2) {
		send_usage(stderr);
		return 2;
	}
	s.dest = argv[argc - 1];
	s.pt = s.format == 3119 ? FMT_3119_PT : RTP_PT_MPA;
	if (s.format == FMT_FEC) {
		if (s.fec_k == 0)
			s.fec_k = 20;
		if (s.fec_n == 0)
			s.fec_n = s.fec_k + 5;
		if (s.fec_n < s.fec_k) {
			snprintf(s.err, sizeof(s.err), "--format fec: -n at least -k");
			goto bad;
		}
		if ((s.code = fec_new(s.fec_k, s.fec_n)) == NULL ||
		    (s.fecbuf = malloc(FEC_MAXN * sizeof(*s.fecbuf))) == NULL) {
			snprintf(s.err, sizeof(s.err), "out of memory");
			goto bad;
		}
	}
	if (s.interleave == 1 || (s.interleave > 0 && s.format != 3119)) {
		snprintf(s.err, sizeof(s.err), "--interleave needs --format 3119 and 2 or more");
		goto bad;
	}
	if (s.format == 3119 && s.mtu < RTP_HDR + 2 + 40) {
		/* a first fragment must hold the ADU's header and side information */
		snprintf(s.err, sizeof(s.err), "--format 3119 needs --mtu %d or more", RTP_HDR + 42);
		goto bad;
	}
	if (rtpaudio_net_check(&s.net, s.err, sizeof(s.err)) == -1)
		goto bad;
	if (s.streams > 1 && (!s.net.caps.datagram || s.format == FMT_FEC ||
	    s.interleave > 0)) {
		snprintf(s.err, sizeof(s.err), "--streams: udp, 2250 or 3119 without interleaving");
		goto bad;
	}
	{
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		s.ssrc = (uint32_t)(t.tv_nsec ^ (t.tv_sec << 10) ^ (getpid() << 16));
		s.seq = (uint16_t)(s.ssrc >> 7);
		s.ts = s.ssrc * 2654435761u; /* RFC 3550: random initial values */
		s.ts0 = s.ts;
	}
	rtcp_rx_init(&s.self_rx, s.format == FMT_FEC ? 1000000 : RTP_CLOCK_MPA);
	if (send_load(&s, argv + optind, argc - optind - 1) == -1)
		goto bad;
	if ((s.q = calloc(SEND_QUEUE, sizeof(*s.q))) == NULL ||
	    (s.loop = ev_new(s.err, sizeof(s.err))) == NULL)
		goto bad;
	if (s.sdp != NULL && s.format == FMT_FEC) {
		/* no RTP payload format describes poc-fec: an SDP would send players astray */
		snprintf(s.err, sizeof(s.err), "--sdp: --format fec is poc-fec over plain UDP, not "
		    "RTP; no SDP can describe it (use --format 2250 or 3119)");
		goto bad;
	}
	if (s.sdp != NULL && send_sdp(&s) == -1)
		goto bad;
	if (s.net.caps.datagram) {
		if ((s.fd = rtpaudio_udp_connect(&s.net, s.dest, 0, s.err, sizeof(s.err))) == -1)
			goto bad;
		s.rtcp_fd = rtpaudio_udp_connect(&s.net, s.dest, 1, s.err, sizeof(s.err));
		if (s.rtcp_fd != -1 && ev_fd_set(s.loop, s.rtcp_fd, EV_READ, send_rtcp_udp, &s) == -1)
			goto bad;
	} else {
		if ((s.c = rtpaudio_tp_connect(&s.net, s.dest, s.err, sizeof(s.err))) == NULL)
			goto bad;
		if (send_watch(&s, EV_READ) == -1) {
			snprintf(s.err, sizeof(s.err), "%s", s.c->err);
			goto bad;
		}
	}
	send_lifetime_eval(&s);
	if (s.streams > 1) {
		struct multi_src ms = { s.fr, s.fr_samples, s.fr_rate, s.nfr, s.mtu };
		{
			int sb = 8 << 20; /* a burst of every stream's packet at once */
			setsockopt(s.fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
		}
		if (multi_run(&ms, s.fd, s.pt, s.streams, s.ssrc, stdout) == -1) {
			snprintf(s.err, sizeof(s.err), "--streams: out of memory or event loop");
			goto bad;
		}
		s.rc = 0;
		goto bad;
	}
	if (s.start_delay_ms > 0)
		usleep(s.start_delay_ms * 1000u);
	s.start_us = ev_clock_us();
	send_rtcp(&s, 0);
	ev_timer_start(s.loop, &s.rtcp, s.rtcp_ms * 1000ull, send_rtcp_tick, &s);
	if (s.stats_ms > 0)
		ev_timer_start(s.loop, &s.stats, s.stats_ms * 1000ull, send_stats_tick, &s);
	send_tick(s.loop, &s);
	if (!s.done && ev_run(s.loop) == -1)
		snprintf(s.err, sizeof(s.err), "event loop: %s", strerror(errno));
	ev_timer_stop(s.loop, &s.tick);
	ev_timer_stop(s.loop, &s.rtcp);
	ev_timer_stop(s.loop, &s.stats);
	if (!s.done)
		goto bad;
	if (s.c != NULL) {
		tp_watch(s.c, s.loop, 0, NULL, NULL);
		s.watching = 0;
		send_drain(&s);
	}
	/* The last packet's audio lasts until the end of its frames: a BYE before then makes
	 * some players (ffmpeg) end without playing it. */
	{
		uint64_t now = ev_clock_us();
		if (s.start_us + s.media_us > now)
			usleep((useconds_t)(s.start_us + s.media_us - now));
	}
	/* BYE twice: it is the player's end of stream on UDP, and UDP may lose one */
	send_rtcp(&s, 1);
	usleep(20000);
	send_rtcp(&s, 1);
	if (s.verbose || s.stats_ms > 0) {
		fprintf(stderr, "rtpaudio send: %zu frames in %llu packets (%llu dropped)\n", s.nfr,
		    (unsigned long long)s.packets, (unsigned long long)s.dropped);
		send_stats_line(&s, "end");
	}
	s.rc = 0;
bad:
	if (s.rc != 0 && s.err[0])
		fprintf(stderr, "rtpaudio send: %s\n", s.err);
	tp_conn_free(s.c);
	if (s.fd != -1)
		close(s.fd);
	if (s.rtcp_fd != -1) {
		if (s.loop != NULL)
			ev_fd_del(s.loop, s.rtcp_fd);
		close(s.rtcp_fd);
	}
	for (i = 0; i < s.nfiles; i++)
		mp3_file_free(s.files[i]);
	free(s.files);
	free(s.fr);
	free(s.adu);
	free(s.iadu);
	fec_free(s.code);
	free(s.fecbuf);
	free(s.rel_ts);
	free(s.fr_samples);
	free(s.fr_rate);
	free(s.q);
	if (s.loop != NULL)
		ev_free(s.loop);
	return s.rc;
}
