/* play.h: `rtpaudio play`'s state, shared by play.c (receive, the run), play_cli.c
 * (the command line), play_sched.c, play_decode.c, play_source.c, play_rtcp.c and play_report.c. */
#ifndef RTPAUDIO_PLAY_H
#define RTPAUDIO_PLAY_H

#include <mpg123.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ev.h"
#include "fmt.h"
#include "tp.h"

#define PLAY_MAXPCM (1152 * 2) /* samples of one frame, both channels */

/* The verdict rule (doc/rtpaudio.1): at most this residual frame loss and longest gap. */
#define PLAY_OK_LOSS_PCT 1.0
#define PLAY_OK_GAP_MS   200.0
#define PLAY_SWITCH_MS   1000  /* a new SSRC is followed once the old one is this silent */
#define PLAY_SWITCH_PKTS 4     /* or once it sent this many in sequence, none of the old between */
#define PLAY_HOLD        8     /* packets held until their source is valid */
#define PLAY_ROOM_MS     2000  /* a gap may be this much longer than the time that passed */
#define PLAY_STALE_MAX   16    /* frames a timestamp may go back before it is a jump */

/* Packets held back: of the source on probation or after a jump (RFC 3550 A.1), or of a new
 * SSRC before it is followed. */
struct play_held {
	uint16_t seq;
	uint32_t ts;
	uint64_t at;           /* arrival */
	size_t len;
	uint8_t data[JITTER_PKT];
};
struct play_hold {
	size_t n;
	struct play_held pkt[PLAY_HOLD];
};

/* The counters of the jitter buffers retired at a restart or a new source. */
struct play_acc {
	uint64_t played, late, duplicates, too_big, lost, rebases;
};
#define PLAY_EARLY_RR_MS 100   /* early receiver reports (a packet late) at most this often */

struct play {
	struct ev_loop *loop;
	struct rtpaudio_net net;
	const char *listen, *out_path, *driver, *ref_path;
	struct aout ao;
	int16_t *pcm;           /* --reference: everything played, to compare at the end */
	size_t pcm_n, pcm_cap;
	int have_snr;
	double snr_db, intact_pct;
	long ref_offset;
	size_t snr_segs;
	int raw, json, verbose, idle_given;
	uint32_t delay_ms, idle_ms, duration_ms, rtcp_ms, stats_ms;
	/* network */
	int fd, rtcp_fd;
	struct tp_listener *l;
	struct tp_conn *c;
	uint8_t msg[JITTER_PKT + 64];
	size_t msglen;
	int locked;
	uint32_t ssrc;
	struct play_hold hold;  /* the current source's packets until they are valid */
	struct play_hold cand;  /* a new source's, until it is followed */
	int have_cand;
	uint32_t cand_ssrc;
	struct play_acc acc;
	struct ev_timer play_t, idle_t, dur_t, rr_t, stats_t;
	uint64_t last_rx_us, start_us;
	/* RTCP: what the reports say, and where they go on UDP (where the SRs come from) */
	struct rtcp_rx rx;
	uint32_t my_ssrc;
	struct sockaddr_storage rtcp_peer;
	socklen_t rtcp_peerlen;
	uint64_t rr_sent, sr_received;
	uint64_t rr_last_us;    /* when the last receiver report went */
	int64_t fec_gext;       /* fec: the extended group number, for the reports */
	int fec_glast;
	int fec_have_t0;        /* fec: playout deadlines from the first packet's arrival */
	uint64_t fec_t0_us, fec_late;
	int64_t fec_slack_min_us; /* fec: as jitter's slack_min_us */
	int fec_have_slack;
	uint32_t fec_tst0, fec_gdur_us;
	int fec_have_end;       /* fec: the latest group end announced, late ones included */
	uint32_t fec_end;
	/* pipeline */
	struct jitter *jb;
	const struct rtpaudio_fmt *fmt;
	int pt;                 /* its RTP payload type */
	void *frx;              /* its receiver: packets to frames (fmt.h) */
	mpg123_handle *mh;
	struct wav out;
	/* frames in media order: frame index n counted from the first frame received */
	int have_first;
	uint32_t fts0;
	int64_t next_n;
	int64_t fts0_n;         /* the frame index of fts0 (a splice moves it) */
	uint64_t ft0_us;        /* when the timeline (re)started, at frame ft0_n */
	int64_t ft0_n;
	uint64_t ts_splices;    /* timestamp jumps: the timeline spliced */
	int rate, channels, samples;
	int reservoir;          /* main data bytes the decoder holds since its last reset */
	int16_t last[PLAY_MAXPCM];
	size_t last_n;
	int run;                /* concealed frames in a row now */
	/* statistics */
	uint64_t rx_packets, bad_packets, other_ssrc, frames_played, frames_concealed,
	    frames_undecodable, frames_stale, decoder_resets, info_frames;
	/* the accounting (play_report): every datagram on the media path, and why one was
	 * not played */
	uint64_t pk_datagrams, pk_wrong_pt, pk_unvalidated, pk_oversized, pk_duplicates, fec_ok;
	uint64_t sources, restarts, span_done;
	uint64_t sr_packets_done, sr_packets;  /* the senders' SR packet counts: of the
	                                        * sources before, of the current one */
	int have_sr_packets;
	/* frames: from the depacketizers, and the timeline's concealed ones by cause */
	uint64_t frames_in, frames_dummy, frames_malformed, frames_gap, frames_tail;
	uint64_t frames_refused;  /* came after the output ended (failed, or a format change) */
	uint64_t pk_rejected;     /* played into the depacketizer, which rejected them: malformed */
	int longest_run;
	/* the output: it takes one format; an error or a format change ends the run, the
	 * frames after it are refused. ended: how the stream ended (enum play_ended) */
	int out_failed;
	int ended;
	/* pauses: a timestamp gap with no sequence gap since the frame before (RFC 3551's
	 * silence suppression, a sender paused) is spliced, not concealed */
	uint16_t pk_prev_seq;
	int pk_have_prev;
	uint64_t seq_breaks, seq_breaks_seen, pauses, frames_paused;
	uint32_t sr_ts;          /* the current source's last SR: its RTP timestamp */
	uint64_t sr_claimed_done; /* the SR counts of the sources before, as they said */
	/* udp: where the current source's packets come from, and the datagram's (RFC 3550
	 * 8.2: its SSRC from elsewhere is a collision, a new SSRC from elsewhere is followed
	 * only once the current source is silent) */
	struct sockaddr_storage src_addr, pk_from, cand_from;
	socklen_t src_addrlen, pk_fromlen, cand_fromlen;
	int eos, rc;
	char err[TP_ERRLEN];
};

/* How a stream ended (the report's stream_end): announced (an RTCP BYE, the sender
 * closing or resetting its connection), or not (the idle timeout, --duration, the output
 * failing). */
enum play_ended { PLAY_END_NONE, PLAY_END_BYE, PLAY_END_CLOSED, PLAY_END_RESET, PLAY_END_IDLE,
	PLAY_END_DURATION, PLAY_END_OUTPUT };

/* play_cli.c */
#define PLAY_CLI_RUN (-1)
int play_cli(struct play *p, int argc, char **argv);

/* play.c */
void play_udp(struct ev_loop *loop, int fd, unsigned events, void *arg);

/* play_sched.c */
void play_tail(struct play *p);
void play_schedule(struct play *p);
void play_end(struct play *p, int how);

/* play_decode.c */
int play_decoder_open(struct play *p);
int play_reference(struct play *p);
int64_t play_conceal(struct play *p, int64_t count, uint64_t *cause);
int64_t play_frames_written(const struct play *p);
int64_t play_frame_index(const struct play *p, uint32_t ts, int rate, int samples);
void play_frame(void *arg, const uint8_t *frame, size_t len, uint32_t ts, int dummy);

/* play_source.c */
void play_current(struct play *p, uint16_t seq, uint32_t ts, const uint8_t *pl, size_t len,
    uint64_t at);
void play_candidate(struct play *p, const struct rtp_hdr *h, uint64_t now);
int play_same_addr(const struct play *p);

/* play_rtcp.c */
uint64_t play_sr_supported(const struct play *p);
void play_rr_tick(struct ev_loop *loop, void *arg);
int play_rtcp_msg(struct play *p, const uint8_t *buf, size_t len);
void play_late_report(struct play *p);
int play_is_rtcp(const struct play *p, const uint8_t *buf, size_t len,
    const struct tp_msginfo *mi);

/* play_report.c */
void play_report(struct play *p);

#endif
