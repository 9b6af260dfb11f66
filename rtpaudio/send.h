/* send.h: `rtpaudio send`'s state, shared by send.c (packets, pacing, the run), send_cli.c
 * (the command line), send_media.c (the files' frames, the SDP) and send_rtcp.c (RTCP and the
 * lifetime rule). */
#ifndef RTPAUDIO_SEND_H
#define RTPAUDIO_SEND_H

#include "ev.h"
#include "fmt.h"
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
	char **paths;           /* the files */
	int npaths;
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
	const struct rtpaudio_fmt *fmt;
	int pt;                /* its RTP payload type */
	uint8_t *adu;          /* fmt->adus: every frame's ADU, fr[] points here */
	size_t interleave;     /* ADUs a cycle (0: none) */
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

/* send_cli.c */
#define SEND_CLI_RUN (-1)
int send_cli(struct send *s, int argc, char **argv);

/* send_rtcp.c */
void send_rtcp(struct send *s, int bye);
void send_rtcp_tick(struct ev_loop *loop, void *arg);
void send_rtcp_udp(struct ev_loop *loop, int fd, unsigned events, void *arg);
void send_rtcp_in(struct send *s, const uint8_t *buf, size_t len);
void send_lifetime_eval(struct send *s);
void send_stats_line(struct send *s, const char *what);

/* send_media.c */
int send_load(struct send *s, char **paths, int n);
int send_sdp(struct send *s);

#endif
