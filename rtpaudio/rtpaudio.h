/* rtpaudio.h: MP3 over RTP (RFC 2250) on UDP, SCTP (unordered, PR-SCTP) and TCP (RFC 4571). */
#ifndef RTPAUDIO_H
#define RTPAUDIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tp.h"

/* mp3.c: MPEG-1/2/2.5 layer I/II/III frames over a buffer; never allocates (but mp3_file). */
#define MP3_MAX_FRAME 2884  /* MPEG-2.5 layer II, 160 kbit/s at 8 kHz, padded */
#define MP3_V1  3           /* the header's version bits */
#define MP3_V2  2
#define MP3_V25 0

struct mp3_frame {
	int version;         /* MP3_V1, MP3_V2, MP3_V25 */
	int layer;           /* 1, 2, 3 */
	int crc;             /* a 16-bit CRC follows the header */
	int bitrate;         /* kbit/s */
	int rate;            /* samples per second */
	int padding;
	int mode;            /* 0 stereo, 1 joint stereo, 2 dual channel, 3 mono */
	int channels;
	int samples;         /* per channel per frame: 384, 1152 or 576 */
	int len;             /* whole frame, header included */
	/* layer III only (mp3_frame_parse with the whole frame): */
	int side_len;        /* bytes of side information */
	int main_data_begin; /* bytes of main data taken from earlier frames (bit reservoir) */
	int main_data_len;   /* bytes of main data this frame's granules use */
	int main_data_here;  /* bytes after the side information in this frame */
};

int mp3_header_parse(const uint8_t *p, size_t len, struct mp3_frame *f);
int mp3_frame_parse(const uint8_t *p, size_t len, struct mp3_frame *f);
int mp3_side_parse(const uint8_t *p, size_t len, struct mp3_frame *f);
long mp3_id3v2_len(const uint8_t *p, size_t len);
int mp3_is_info(const uint8_t *p, size_t len, const struct mp3_frame *f);
long mp3_sync(const uint8_t *p, size_t len, const struct mp3_frame *prev, struct mp3_frame *f,
    size_t *skipped);
uint32_t mp3_frame_ts90k(const struct mp3_frame *f); /* nominal, for comparisons only */

/* A whole file in memory and its audio frames (ID3v2, Xing/Info and junk left out). */
struct mp3_file {
	uint8_t *data;
	size_t len;
	size_t nframes;
	size_t *off;          /* frame i starts at data + off[i] */
	struct mp3_frame first;
	size_t skipped;       /* bytes of junk between frames (resyncs) */
	int info_frame;       /* a Xing/Info/VBRI frame was left out */
	int id3v2;            /* an ID3v2 tag was left out */
	int vbr;              /* frame bit rates differ */
	uint64_t samples;     /* per channel */
};

struct mp3_file *mp3_file_new(const char *path, char *err, size_t errlen);
struct mp3_file *mp3_file_from_mem(const uint8_t *p, size_t len, char *err, size_t errlen);
void mp3_file_free(struct mp3_file *m);

/* rtp.c: RTP fixed header (RFC 3550), RTCP SR/RR/BYE, sequence arithmetic. */
#define RTP_HDR 12
#define RTP_PT_MPA 14
#define RTP_CLOCK_MPA 90000

struct rtp_hdr {
	int marker, pt;
	uint16_t seq;
	uint32_t ts, ssrc;
	const uint8_t *payload;
	size_t plen;
};

size_t rtp_pack(uint8_t *out, const struct rtp_hdr *h);
int rtp_parse(const uint8_t *p, size_t len, struct rtp_hdr *h);
int16_t rtp_seq_diff(uint16_t a, uint16_t b);
int32_t rtp_ts_diff(uint32_t a, uint32_t b);

#define RTCP_SR  200
#define RTCP_RR  201
#define RTCP_BYE 203
#define RTCP_APP 204
#define RTCP_APP_NAME "RTPA" /* ours: the player's playout delay and lateness, for --lifetime auto */
#define RTPAUDIO_PPID_RTCP 0x52544350u /* "RTCP": RTCP's messages on SCTP (RTP's carry 0) */
struct rtcp_info {
	int sr, rr, bye;        /* what the compound packet held */
	uint32_t ssrc;
	uint64_t ntp;           /* SR */
	uint32_t rtp_ts, packets, octets;
	int block;              /* RR: a first report block was there */
	uint8_t fraction_lost;
	int32_t cum_lost;
	uint32_t ext_seq, jitter, lsr, dlsr;
	uint32_t app_ssrc, playout_ms; /* APP "RTPA"; playout_ms 0 = none */
	int app_slack;          /* the APP packet had the late and slack words too */
	uint32_t late;          /* packets late so far */
	int32_t slack_ms;       /* the least time to spare since the last report (RTCP_NO_SLACK) */
};
/* what the player's APP "RTPA" packet says (rtcp_rr_pack) */
struct rtcp_app {
	uint32_t playout_ms;    /* the playout delay (0: no APP packet) */
	uint32_t late;          /* packets that came after their play-out time, so far */
	int32_t slack_ms;       /* of the packets since the previous report, the least time that
	                         * was left to its play-out time when it came (negative: late by
	                         * that much); RTCP_NO_SLACK when none came */
};
#define RTCP_NO_SLACK INT32_MAX
struct rtcp_block {
	uint32_t src;
	uint8_t fraction;
	int32_t lost;
	uint32_t ext_seq, jitter, lsr, dlsr;
};
size_t rtcp_sr_pack(uint8_t *out, size_t cap, uint32_t ssrc, uint64_t ntp, uint32_t ts,
    uint32_t packets, uint32_t octets, int bye);
size_t rtcp_rr_pack(uint8_t *out, size_t cap, uint32_t ssrc, const struct rtcp_block *b,
    const struct rtcp_app *app);
int rtcp_parse(const uint8_t *p, size_t len, struct rtcp_info *ri);
int64_t rtcp_rtt_us(uint64_t ntp_now, uint32_t lsr, uint32_t dlsr);
uint64_t rtp_ntp_now(void);

/* rtcp.c: a receiver's statistics of one source (RFC 3550 appendix A.1, A.3, A.8) and its
 * report block. Source validation as A.1: a source is valid after RTCP_MIN_SEQUENTIAL packets
 * in sequence (probation); a step forward of RTCP_MAX_DROPOUT or more, or back by more than
 * RTCP_MAX_MISORDER, is a jump, taken as a restart of the sequence only when the next packet
 * follows it. */
#define RTCP_MAX_DROPOUT   3000
#define RTCP_MAX_MISORDER  100
#define RTCP_MIN_SEQUENTIAL 2
enum rtcp_seq {
	RTCP_SEQ_OK,              /* valid (in order, reordered or a duplicate) */
	RTCP_SEQ_VALIDATED,       /* ends the probation: the RTCP_MIN_SEQUENTIAL - 1 packets
	                           * before it (held by the caller) are valid too */
	RTCP_SEQ_PROBATION,       /* on probation, in sequence with the ones before it */
	RTCP_SEQ_PROBATION_AGAIN, /* on probation, not in sequence: the ones before are void */
	RTCP_SEQ_JUMP,            /* not valid unless the next packet follows it */
	RTCP_SEQ_RESTART,         /* it followed a jump: the sequence restarts at the packet
	                           * before it (held by the caller), both valid */
};
struct rtcp_rx {
	int init;
	int probation;          /* packets still to come in sequence */
	uint16_t max_seq;
	uint32_t bad_seq;       /* the packet that would confirm a jump (65537: none) */
	uint32_t cycles, base_seq, clock;
	uint64_t received, expected_prior, received_prior;
	uint64_t span_done;     /* sequence numbers covered before the restarts */
	uint64_t restarts;
	double jitter;          /* timestamp units */
	int have_transit;
	int64_t transit;
	uint32_t lsr;           /* middle 32 bits of the last SR's NTP time; 0: none yet */
	uint64_t lsr_at_us;     /* its arrival */
};
void rtcp_rx_init(struct rtcp_rx *r, uint32_t clock);
enum rtcp_seq rtcp_rx_packet(struct rtcp_rx *r, uint16_t seq, uint32_t ts, uint64_t now_us);
uint64_t rtcp_rx_span(const struct rtcp_rx *r);
void rtcp_rx_sr(struct rtcp_rx *r, uint64_t ntp, uint64_t now_us);
void rtcp_rx_block(struct rtcp_rx *r, uint32_t src, uint64_t now_us, struct rtcp_block *b);
double rtcp_rx_jitter_ms(const struct rtcp_rx *r);

/* fmt_2250.c: RFC 2250 MPEG audio payload (4-byte header: MBZ, fragment offset). */
#define FMT_2250_HDR 4

struct fmt_frame {
	const uint8_t *p;
	size_t len;
	uint32_t ts;  /* 90 kHz */
};

/* a payload packer: one RTP payload from frames f[0..n) (fmt_2250_pack says how) */
typedef size_t fmt_pack_fn(const struct fmt_frame *f, size_t n, size_t *off, uint8_t *out,
    size_t space, size_t *nused);
fmt_pack_fn fmt_2250_pack;

typedef void fmt_frame_cb(void *arg, const uint8_t *frame, size_t len, uint32_t ts);

struct fmt_2250_depack {
	uint8_t buf[MP3_MAX_FRAME];
	size_t got, need;     /* reassembly of a fragmented frame; need 0 = none */
	uint32_t ts;
	uint16_t next_seq;
	/* counters */
	uint64_t frames, fragments_dropped, malformed;
};

void fmt_2250_depack_init(struct fmt_2250_depack *d);
int fmt_2250_depack(struct fmt_2250_depack *d, const uint8_t *pl, size_t len, uint16_t seq,
    uint32_t ts, fmt_frame_cb *cb, void *arg);

/* fmt_3119.c: RFC 5219 (RFC 3119) "mpa-robust": layer III frames as ADUs (header, side
 * information and the frame's own main data), ADU descriptors, and frames rebuilt from ADUs. */
#define FMT_3119_PT 96
#define FMT_3119_MAXADU 4096  /* > header + side info + 511 + the largest frame's data */
#define FMT_3119_PENDING 16   /* frames a rebuilt reservoir can span (255 or 511 bytes) */

struct fmt_3119_enc {
	uint8_t res[FMT_3119_MAXADU]; /* the main data stream's latest bytes */
	size_t reslen;
	uint64_t dummies;             /* frames whose reservoir was not there (stream start) */
};
void fmt_3119_enc_init(struct fmt_3119_enc *e);
int fmt_3119_adu(struct fmt_3119_enc *e, const uint8_t *frame, size_t len, uint8_t *out,
    size_t cap);
int fmt_3119_adu_parse(const uint8_t *p, size_t len, struct mp3_frame *f);
int fmt_3119_desc_parse(const uint8_t *p, size_t len, int *cont, size_t *size);
fmt_pack_fn fmt_3119_pack;

struct fmt_3119_depack {
	uint8_t buf[FMT_3119_MAXADU];
	size_t got, need;     /* reassembly of a fragmented ADU; need 0 = none */
	uint32_t ts;
	uint16_t next_seq;
	uint64_t adus, fragments_dropped, malformed, poc_offbyone;
	int index;            /* for the callback: the ADU's place in its packet */
};
void fmt_3119_depack_init(struct fmt_3119_depack *d);
int fmt_3119_depack(struct fmt_3119_depack *d, const uint8_t *pl, size_t len, uint16_t seq,
    uint32_t ts, fmt_frame_cb *cb, void *arg);

/* Frames from ADUs: dummy (silent, empty) frames stand in for lost ADUs so the reservoir
 * positions stay right; dummy says so to the callback. */
typedef void fmt_3119_frame_cb(void *arg, const uint8_t *frame, size_t len, uint32_t ts,
    int dummy);
struct fmt_3119_pend {
	uint8_t buf[MP3_MAX_FRAME];
	size_t len, hs;
	int64_t start;        /* the data area's place in the main data stream */
	uint32_t ts;
	int dummy;
};
struct fmt_3119_deframe {
	struct fmt_3119_pend q[FMT_3119_PENDING];
	size_t head, n;
	int64_t next_start;   /* where the next frame's data area begins */
	int64_t floor;        /* main data may not be placed before this */
	int have_last;
	uint8_t last_hdr[64]; /* header + side info of the latest ADU, for dummies */
	size_t last_hs;
	uint32_t last_ts;
	fmt_3119_frame_cb *cb;
	void *arg;
	uint64_t frames, dummies, dropped;
};
void fmt_3119_deframe_init(struct fmt_3119_deframe *r, fmt_3119_frame_cb *cb, void *arg);
int fmt_3119_deframe_put(struct fmt_3119_deframe *r, const uint8_t *adu, size_t len,
    uint32_t ts);
void fmt_3119_deframe_flush(struct fmt_3119_deframe *r);

/* RFC 5219 section 7: interleaving. The first 11 header bits (the sync word) carry an 8-bit
 * interleave index (the ADU's place in its cycle, in media order) and a 3-bit cycle count.
 * The sender's order within a cycle: the odd indices, then the even ones. */
#define FMT_3119_MAXCYCLE 256
int fmt_3119_interleaved(const uint8_t *adu, size_t len);
void fmt_3119_interleave(struct fmt_frame *a, size_t n, size_t cycle, uint8_t *adus_out,
    uint32_t *ts);
struct fmt_3119_deint {
	uint8_t buf[FMT_3119_MAXCYCLE][FMT_3119_MAXADU];
	size_t len[FMT_3119_MAXCYCLE];
	int active, icc, maxii, have_base, have_end;
	uint32_t base, end;   /* the cycle's first ADU's timestamp; the next cycle's */
	fmt_frame_cb *cb;
	void *arg;
	uint64_t adus, late, duplicates;
};
void fmt_3119_deint_init(struct fmt_3119_deint *r, fmt_frame_cb *cb, void *arg);
int fmt_3119_deint_put(struct fmt_3119_deint *r, const uint8_t *adu, size_t len, uint32_t ts,
    int first);
void fmt_3119_deint_flush(struct fmt_3119_deint *r);

/* fec.c: systematic Vandermonde Reed-Solomon over GF(2^8), polynomial 0x11D (as Rizzo's
 * fec.c): k source packets encode into n (the first k are the sources); any k decode. */
#define FEC_MAXN 255
struct fec {
	int k, n;
	uint8_t *enc;  /* n x k */
};
struct fec *fec_new(int k, int n);
void fec_free(struct fec *c);
void fec_encode(const struct fec *c, const uint8_t *const *src, uint8_t *dst, int index,
    size_t sz);
int fec_decode(const struct fec *c, const uint8_t *const *in, const int *idx, uint8_t **out,
    size_t sz);

/* fmt_fec.c: poc-fec (poc 0.4.2): a 14-byte header, then an ADU (packets 0..k-1) or parity;
 * plain UDP, no RTP. */
#define FMT_FEC_HDR 14
#define FMT_FEC_MAGIC 0xfe
#define FMT_FEC_MAXLEN 2048
struct fmt_fec_hdr {
	int gseq, pseq, k, n;
	size_t fec_len, len;
	uint32_t tstamp;  /* microseconds, the group's end */
};
int fmt_fec_hdr_parse(const uint8_t *p, size_t len, struct fmt_fec_hdr *h);
size_t fmt_fec_hdr_pack(uint8_t *out, const struct fmt_fec_hdr *h);
int fmt_fec_group(struct fec *code, const struct fmt_frame *a, int gseq, uint32_t end,
    uint8_t (*out)[FMT_FEC_HDR + FMT_FEC_MAXLEN], size_t *olen);
/* The receiver takes FMT_FEC_WIN groups at once, so that packets reordered across a
 * group's end still count; a group is played out (decoded, its ADUs handed on, in group
 * order) once it has k packets, or when a packet FMT_FEC_WIN groups ahead of it comes, or
 * at the end. The last FMT_FEC_DONE groups played out are remembered: a packet of theirs
 * again is a duplicate; one new to an incomplete group came too late to help (late), to a
 * complete one it was not needed (taken). */
#define FMT_FEC_WIN 4
#define FMT_FEC_DONE 16
enum { FMT_FEC_TAKEN = 0, FMT_FEC_DUP = 1, FMT_FEC_LATE = 2 };
struct fmt_fec_grp {
	int active, got;
	struct fmt_fec_hdr g;
	uint8_t buf[FEC_MAXN][FMT_FEC_MAXLEN];
	size_t len[FEC_MAXN];
	int have[FEC_MAXN];
};
struct fmt_fec_done {
	int used, gseq, complete;
	uint8_t seen[(FEC_MAXN + 7) / 8];
};
struct fmt_fec_rx {
	struct fec *code;
	struct fmt_fec_grp win[FMT_FEC_WIN]; /* group base + i is win[(head + i) % WIN] */
	int have_base, base, head;
	struct fmt_fec_done done[FMT_FEC_DONE]; /* by gseq % FMT_FEC_DONE */
	fmt_frame_cb *cb;
	void *arg;
	uint64_t groups, recovered, unrecoverable, lost, malformed, duplicates, late;
};
void fmt_fec_rx_init(struct fmt_fec_rx *r, fmt_frame_cb *cb, void *arg);
void fmt_fec_rx_free(struct fmt_fec_rx *r);
int fmt_fec_rx_put(struct fmt_fec_rx *r, const uint8_t *p, size_t len);
void fmt_fec_rx_flush(struct fmt_fec_rx *r);

/* jitter.c: reorder by sequence number, release at arrival of the first + playout delay. */
#define JITTER_SLOTS 1024
#define JITTER_PKT 2048

struct jitter_pkt {
	int used;
	uint16_t seq;
	uint32_t ts;
	size_t len;
	uint8_t data[JITTER_PKT]; /* RTP payload */
};

struct jitter {
	struct jitter_pkt *slot;  /* JITTER_SLOTS */
	uint8_t *seen;            /* bitmap over the sequence space, for duplicates */
	int started, released;
	uint16_t next;            /* next sequence number to release */
	uint16_t highest;
	uint32_t ts0;             /* RTP ts of the first packet */
	uint64_t t0_us;           /* its arrival */
	uint32_t delay_us;
	uint32_t ts_max;          /* the latest RTP ts seen, late packets included */
	int have_ts_max;
	size_t count;
	uint64_t received, duplicates, late, lost, too_big;
	/* the least time to spare of the packets since the caller cleared have_slack: play-out
	 * time - arrival (negative: late), for RTCP's reports */
	int64_t slack_min_us;
	int have_slack;
	/* a timestamp jump: JITTER_JUMP_RUN packets in sequence, each off its schedule by more
	 * than JITTER_JUMP_US (early or late) and by the same amount within JITTER_JUMP_TOL_US,
	 * move the schedule (the ones before in the run were early or late as they came) */
	int jump_run;
	uint16_t jump_seq;
	int64_t jump_off_us;
	uint64_t rebases;
};
#define JITTER_JUMP_RUN 8
#define JITTER_JUMP_US 1000000
#define JITTER_JUMP_TOL_US 50000

struct jitter *jitter_new(uint32_t delay_ms);
void jitter_free(struct jitter *j);
int jitter_put(struct jitter *j, uint16_t seq, uint32_t ts, const uint8_t *p, size_t len,
    uint64_t now_us);
const struct jitter_pkt *jitter_get(struct jitter *j, uint64_t now_us, int flush,
    uint64_t *next_us);
void jitter_release(struct jitter *j);

/* wav.c: PCM files */
struct wav {
	FILE *fp;
	int raw, rate, channels;
	uint64_t frames;  /* sample frames written */
	int header_written, failed;
};
int wav_open(struct wav *w, const char *path, int raw, char *err, size_t errlen);
int wav_write(struct wav *w, const int16_t *pcm, size_t nsamples, int rate, int channels);
int wav_close(struct wav *w);
int16_t *wav_read(const char *path, size_t *nsamples, int *rate, int *channels, char *err,
    size_t errlen);

/* compare.c: a decode against a clean one (play --reference, rtpaudio compare) */
int compare_main(int argc, char **argv);
long compare_offset(const int16_t *a, size_t fa, const int16_t *b, size_t fb, int ca,
    long maxoff);
long compare_frame_offset(const int16_t *ref, size_t fref, const int16_t *out, size_t fout,
    int ch, long frame, long maxk);
/* The segmental SNR (mean over 20 ms segments, each clamped to [-10, 60] dB) and the share
 * of the reference's segments the output reproduces at COMPARE_INTACT_DB or better (%). */
#define COMPARE_INTACT_DB 20.0
double compare_segsnr(const int16_t *ref, size_t fref, const int16_t *out, size_t fout, int ch,
    int rate, long offset, size_t *nseg, double *intact_pct);

/* out.c: audio through libout123, and a reference file's clean decode */
struct out123_struct;
struct aout {
	struct out123_struct *ao;
	int started, rate, channels, dummy;
	uint64_t samples; /* taken by libout123, all channels */
	char name[32];   /* the driver libout123 opened */
};
int aout_open(struct aout *a, const char *driver, const char *file, char *err, size_t errlen);
int aout_play(struct aout *a, const int16_t *pcm, size_t nsamples, int rate, int channels);
void aout_close(struct aout *a);
int16_t *ref_decode(const char *path, size_t *nsamples, int *rate, int *channels, char *err,
    size_t errlen);

/* net.c: the transports by their rtpaudio names (udp, sctp, prsctp, tcp). The name is
 * parsed once, by rtpaudio_net_check, into what the transport can do: nothing outside
 * net.c compares it. */
struct tp_conn;
struct tp_listener;
struct tp_msginfo;
struct rtpaudio_caps {
	int datagram;    /* udp: rtpaudio's own sockets, RTCP on port + 1, BYE, idle end */
	int unordered;   /* a connection whose messages go unordered (sctp, prsctp) */
	int lifetime;    /* PR-SCTP timed reliability: a message expires (--lifetime) */
	int rtcp_inband; /* RTCP told from RTP by its packet type (RFC 5761), not by PPID */
	int assoc;       /* an SCTP association: its RTO bounds can be set */
};
struct rtpaudio_net {
	const char *transport;      /* udp, sctp, prsctp, tcp */
	struct rtpaudio_caps caps;  /* from transport, by rtpaudio_net_check */
	const char *stack;          /* kernel, usrsctp, usrsctp-nt */
	int udp;                    /* from stack, by rtpaudio_net_check: SCTP in UDP, in userspace */
	const char *sctp_type;      /* ... and the tp type of sctp and prsctp on it */
	struct tp_opts tpo;         /* the options every program shares (lib/tp/tp_cli.c): UDP ports */
	int ttl;
	uint32_t rto_min_ms, rto_max_ms; /* sctp, prsctp: the association's RTO bounds; 0: default */
};
void rtpaudio_net_init(struct rtpaudio_net *n, int sender);
int rtpaudio_net_opt(struct rtpaudio_net *n, const char *prog, int ch, const char *arg);
int rtpaudio_net_check(struct rtpaudio_net *n, char *err, size_t errlen);
void rtpaudio_net_rtcp_info(const struct rtpaudio_net *n, uint32_t interval_ms,
    struct tp_msginfo *mi);
int rtpaudio_net_is_rtcp(const struct rtpaudio_net *n, const uint8_t *buf, size_t len,
    uint32_t ppid);
int rtpaudio_udp_connect(const struct rtpaudio_net *n, const char *dest, int rtcp, char *err,
    size_t errlen);
int rtpaudio_udp_listen(const struct rtpaudio_net *n, const char *addr, int rtcp, char *err,
    size_t errlen);
struct tp_conn *rtpaudio_tp_connect(const struct rtpaudio_net *n, const char *dest, char *err,
    size_t errlen);
struct tp_listener *rtpaudio_tp_listen(const struct rtpaudio_net *n, const char *addr,
    char *err, size_t errlen);

/* util.c */
long rtpaudio_num(const char *s, const char *what, long min, long max);
double rtpaudio_cpu_s(void);

/* multi.c: one process pacing many streams of one file (send --streams) */
struct multi_src {
	const struct fmt_frame *fr;   /* frames (3119: ADUs) */
	const uint32_t *fr_samples, *fr_rate;
	size_t nfr, mtu;
	fmt_pack_fn *pack;            /* the format's packer */
};
int multi_run(const struct multi_src *src, int fd, int pt, int nstreams, uint32_t seed,
    FILE *out);

/* send.c, play.c: the subcommands */
int send_main(int argc, char **argv);
int play_main(int argc, char **argv);

#endif
