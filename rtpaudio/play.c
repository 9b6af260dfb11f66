/* play.c: `rtpaudio play`: receive, playout buffer, depacketize, decode, conceal, report. */
#include <errno.h>
#include <getopt.h>
#include <mpg123.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ev.h"
#include "rtpaudio.h"
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
	struct fmt_2250_depack dp;
	int format, pt;            /* 2250 or 3119 and its payload type */
	struct fmt_3119_depack *dp3;
	struct fmt_3119_deframe *df;
	struct fmt_3119_deint *di;
	struct fmt_fec_rx *fx;
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
	int longest_run;
	int eos, rc;
	char err[TP_ERRLEN];
};

static void
play_usage(FILE *fp)
{
	fprintf(fp,
"usage: rtpaudio play [OPTIONS] LISTEN\n"
"  Receives MP3 over RTP (RFC 2250, RFC 5219) or poc-fec on LISTEN (HOST:PORT; a\n"
"  multicast group joins it),\n"
"  plays it out through a jitter buffer into a WAV file and reports what was lost.\n"
"  -t, --transport T      udp (default), sctp, prsctp, tcp (RFC 4571)\n"
"  -f, --format F         2250 (default, PT 14), 3119 (RFC 5219 mpa-robust, PT 96) or\n"
"                         fec (poc-fec: Reed-Solomon groups of ADUs, no RTP)\n"
"  -s, --stack S          kernel (default) or usrsctp, for sctp and prsctp\n"
"  -o, --output FILE      decoded PCM as WAV (default: none; - for standard output)\n"
"      --raw              raw 16-bit PCM instead of WAV\n"
"      --driver NAME      play through libout123's driver NAME: a sound device (pulse,\n"
"                         alsa, oss, jack; default: the first of them that opens) or a\n"
"                         file writer (wav, raw, au: to -o FILE); an error that says so\n"
"                         when the machine has no sound device\n"
"      --reference FILE.mp3  the segmental SNR of the played audio against a clean\n"
"                         decode of FILE, aligned by cross-correlation\n"
"  -d, --playout-delay MS jitter buffer depth (default 200)\n"
"      --idle MS          udp: end of stream after MS without packets (default 3000);\n"
"                         given without -D, it bounds the wait for the first packet too\n"
"  -D, --duration SEC     stop after SEC seconds (default: at the end of the stream)\n"
"      --udp-port P       usrsctp: local UDP encapsulation port (default 9899)\n"
"      --udp-remote-port P   usrsctp: the sender's encapsulation port (default 9900)\n"
"      --rtcp-interval MS receiver reports every MS (default 1000; 0: none)\n"
"      --stats-interval MS  statistics so far on standard error every MS\n"
"  -j, --json             statistics as one JSON object\n"
"  -v, --verbose\n"
"  -h, --help\n"
"  RTCP: receiver reports (RFC 3550) and an APP packet with the playout delay go to the\n"
"  sender: on udp to where its sender reports come from (PORT+1), on sctp and prsctp on the\n"
"  association with PPID 0x52544350, on tcp in the RFC 4571 framing (RFC 5761 demux).\n"
"  The stream ends with an RTCP BYE (udp, PORT+1), the sender closing (sctp, tcp), the\n"
"  idle timeout or --duration. Sources are validated as RFC 3550 A.1 (probation, jumps);\n"
"  a new source (a restarted sender) is followed after %d packets in sequence with none\n"
"  of the current one's between, or once the current one has been silent for %d ms.\n"
"  Every packet and frame is accounted for (rtpaudio(1), STATISTICS). Verdict:\n"
"  satisfactory when residual loss <= %.0f%% and the longest gap <= %.0f ms.\n",
	    PLAY_SWITCH_PKTS, PLAY_SWITCH_MS, PLAY_OK_LOSS_PCT, PLAY_OK_GAP_MS);
}

static int
play_decoder_open(struct play *p)
{
	const long *rates;
	size_t nrates, i;

	if (p->mh == NULL) {
		int e;
		if ((p->mh = mpg123_new(NULL, &e)) == NULL) {
			snprintf(p->err, sizeof(p->err), "mpg123: %s", mpg123_plain_strerror(e));
			return -1;
		}
		/* We hand it whole, checked frames: no read-ahead (output from the first frame
		 * on), no resync guessing, no gapless trimming (frames map 1:1 to PCM). */
		mpg123_param(p->mh, MPG123_FLAGS, MPG123_QUIET | MPG123_NO_READAHEAD |
		    MPG123_NO_RESYNC | MPG123_IGNORE_INFOFRAME, 0);
		mpg123_format_none(p->mh);
		mpg123_rates(&rates, &nrates);
		for (i = 0; i < nrates; i++)
			mpg123_format(p->mh, rates[i], MPG123_MONO | MPG123_STEREO,
			    MPG123_ENC_SIGNED_16);
	}
	if (mpg123_open_feed(p->mh) != MPG123_OK) {
		snprintf(p->err, sizeof(p->err), "mpg123: %s", mpg123_strerror(p->mh));
		return -1;
	}
	p->reservoir = 0;
	return 0;
}

static void
play_output(struct play *p, const int16_t *pcm, size_t n)
{
	if (p->out.fp != NULL && wav_write(&p->out, pcm, n, p->rate, p->channels) == -1 &&
	    p->rc == 0) {
		snprintf(p->err, sizeof(p->err), "%s: write failed", p->out_path);
		p->rc = 1;
	}
	if (p->driver != NULL && aout_play(&p->ao, pcm, n, p->rate, p->channels) == -1 &&
	    p->rc == 0) {
		snprintf(p->err, sizeof(p->err), "libout123 %s: playing failed", p->ao.name);
		p->rc = 1;
	}
	if (p->ref_path != NULL) {
		if (p->pcm_n + n > p->pcm_cap) {
			size_t cap = (p->pcm_n + n) * 2;
			int16_t *np = realloc(p->pcm, cap * sizeof(*np));
			if (np == NULL)
				return;
			p->pcm = np;
			p->pcm_cap = cap;
		}
		memcpy(p->pcm + p->pcm_n, pcm, n * sizeof(*pcm));
		p->pcm_n += n;
	}
}

/* --reference: segmental SNR of what was played against a clean decode of the file, aligned
 * by cross-correlation. */
static int
play_reference(struct play *p)
{
	int16_t *ref;
	size_t nref;
	int rate, ch;
	char err[200];

	if ((ref = ref_decode(p->ref_path, &nref, &rate, &ch, err, sizeof(err))) == NULL) {
		snprintf(p->err, sizeof(p->err), "--reference %s", err);
		return -1;
	}
	if (p->pcm_n == 0 || rate != p->rate || ch != p->channels) {
		snprintf(p->err, sizeof(p->err), "--reference %s: %d Hz %d channels, played %d Hz "
		    "%d channels (%zu samples)", p->ref_path, rate, ch, p->rate, p->channels,
		    p->pcm_n);
		free(ref);
		return -1;
	}
	p->ref_offset = compare_offset(ref, nref / (size_t)ch, p->pcm, p->pcm_n / (size_t)ch, ch,
	    8192);
	p->snr_db = compare_segsnr(ref, nref / (size_t)ch, p->pcm, p->pcm_n / (size_t)ch, ch, rate,
	    p->ref_offset, &p->snr_segs, &p->intact_pct);
	p->have_snr = 1;
	free(ref);
	return 0;
}

/* One frame of substitute audio: the last good frame at half level the first time (hides a
 * single loss), silence after that (repeating longer sounds worse than a gap). */
static void
play_conceal(struct play *p, int64_t count)
{
	int16_t pcm[PLAY_MAXPCM];
	size_t n = (size_t)p->samples * (size_t)p->channels, i;

	if (n > PLAY_MAXPCM)
		n = PLAY_MAXPCM;
	while (count-- > 0) {
		if (p->run == 0 && p->last_n == n)
			for (i = 0; i < n; i++)
				pcm[i] = (int16_t)(p->last[i] / 2);
		else
			memset(pcm, 0, n * sizeof(pcm[0]));
		play_output(p, pcm, n);
		p->frames_concealed++;
		p->run++;
		if (p->run > p->longest_run)
			p->longest_run = p->run;
	}
}

/* Decodes one frame into exactly one frame of PCM, or conceals it. */
static void
play_decode(struct play *p, const uint8_t *frame, size_t len, const struct mp3_frame *f,
    int dummy)
{
	unsigned char *audio;
	size_t bytes = 0, got = 0;
	off_t num;
	int r, usable = 1, err = 0;
	int16_t pcm[PLAY_MAXPCM];

	/* Layer III borrows main_data_begin bytes from earlier frames: after a loss those are
	 * gone, and decoding would turn whatever the decoder holds into noise. */
	if (f->layer == 3 && f->main_data_begin > p->reservoir)
		usable = 0;
	if (mpg123_feed(p->mh, frame, len) != MPG123_OK)
		err = 1;
	while (!err) {
		r = mpg123_decode_frame(p->mh, &num, &audio, &bytes);
		if (r == MPG123_NEW_FORMAT)
			continue;
		if (r == MPG123_NEED_MORE)
			break;
		if (r != MPG123_OK) {
			err = 1;
			break;
		}
		if (bytes > 0 && got + bytes / 2 <= PLAY_MAXPCM) {
			memcpy(pcm + got, audio, bytes);
			got += bytes / 2;
		}
	}
	if (f->layer == 3)
		p->reservoir += f->main_data_here;
	if (err) {
		/* start over clean: the next frames are judged against an empty reservoir */
		p->decoder_resets++;
		play_decoder_open(p);
	}
	if (dummy) {
		/* 3119: an empty frame for a lost ADU keeps the reservoir in step; what it
		 * decodes to is not audio */
		p->frames_dummy++;
		play_conceal(p, 1);
		return;
	}
	if (!usable || err || got != (size_t)f->samples * (size_t)f->channels) {
		p->frames_undecodable++;
		play_conceal(p, 1);
		return;
	}
	play_output(p, pcm, got);
	memcpy(p->last, pcm, got * sizeof(pcm[0]));
	p->last_n = got;
	p->frames_played++;
	p->run = 0;
}

/* A timestamp's frame index from the first frame: in frame durations, rounded (the sender's
 * 90 kHz clock is exact only on average); -1 before the first. */
static int64_t
play_frame_index(const struct play *p, uint32_t ts, int rate, int samples)
{
	int64_t dt = rtp_ts_diff(ts, p->fts0), unit = (int64_t)samples * RTP_CLOCK_MPA;

	return p->fts0_n + (dt >= 0 ? (2 * dt * rate + unit) / (2 * unit) :
	    -((-2 * dt * rate + unit) / (2 * unit)));
}

/* How far ahead of the timeline a frame may be: the frames the wall clock has had time for
 * since the timeline (re)started, and the playout delay and PLAY_ROOM_MS more; a sender's
 * timestamps further ahead jumped (the gap would be longer than the time that passed). */
static int64_t
play_room(const struct play *p)
{
	int64_t frame_us = (int64_t)p->samples * 1000000 / p->rate;
	int64_t wall = (int64_t)(ev_clock_us() - p->ft0_us) + ((int64_t)p->delay_ms +
	    PLAY_ROOM_MS) * 1000;

	return p->ft0_n - p->next_n + wall / frame_us;
}

/* The timeline goes on from frame next_n at timestamp ts, now. */
static void
play_timeline_start(struct play *p, uint32_t ts)
{
	p->fts0 = ts;
	p->fts0_n = p->ft0_n = p->next_n;
	p->ft0_us = ev_clock_us();
}

/* A frame from the depacketizer, in sequence order: place it on the media timeline by its
 * timestamp, conceal what is missing before it. */
static void
play_frame_x(struct play *p, const uint8_t *frame, size_t len, uint32_t ts, int dummy)
{
	struct mp3_frame f;
	int64_t n;

	p->frames_in++;
	if (mp3_frame_parse(frame, len, &f) != (int)len) {
		p->frames_malformed++;
		return;
	}
	/* Some senders (GStreamer's mpegaudioparse ! rtpmpapay) pass the Xing/Info frame on:
	 * at the start it is metadata, not a frame of audio. Further on (files joined with cat)
	 * it has its place on the timeline and is decoded, as mpg123 does (a silent frame). */
	if (!p->have_first && mp3_is_info(frame, len, &f)) {
		p->info_frames++;
		return;
	}
	if (!p->have_first) {
		p->have_first = 1;
		p->next_n = 0;
		play_timeline_start(p, ts);
	}
	if (f.rate != p->rate || f.channels != p->channels || f.samples != p->samples) {
		if (p->rate != 0)
			play_decoder_open(p); /* a new stream (another file): no reservoir across */
		p->rate = f.rate;
		p->channels = f.channels;
		p->samples = f.samples;
		p->last_n = 0;
		p->next_n = 0;
		play_timeline_start(p, ts);
	}
	n = play_frame_index(p, ts, f.rate, f.samples);
	if (n > p->next_n + play_room(p) || n < p->next_n - PLAY_STALE_MAX) {
		/* a timestamp jump: a gap longer than the time that passed, or far back; the
		 * timeline is spliced at this frame */
		p->ts_splices++;
		play_timeline_start(p, ts);
		n = p->next_n;
	}
	if (n < p->next_n) {
		p->frames_stale++;
		return;
	}
	if (n > p->next_n) {
		p->frames_gap += (uint64_t)(n - p->next_n);
		play_conceal(p, n - p->next_n);
		play_decoder_open(p);
	}
	play_decode(p, frame, len, &f, dummy);
	p->next_n = n + 1;
}

static void
play_frame(void *arg, const uint8_t *frame, size_t len, uint32_t ts)
{
	play_frame_x(arg, frame, len, ts, 0);
}

/* 3119: frames rebuilt from ADUs, dummies for the lost ones */
static void
play_frame3119(void *arg, const uint8_t *frame, size_t len, uint32_t ts, int dummy)
{
	play_frame_x(arg, frame, len, ts, dummy);
}

static void
play_adu(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct play *p = arg;

	if (fmt_3119_interleaved(adu, len)) {
		fmt_3119_deint_put(p->di, adu, len, ts, p->dp3->index == 0);
		return;
	}
	fmt_3119_deint_flush(p->di);
	fmt_3119_deframe_put(p->df, adu, len, ts);
}

/* poc-fec: the ADUs of a group, recovered or received, in order */
static void
play_adu_fec(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct play *p = arg;

	fmt_3119_deframe_put(p->df, adu, len, ts);
}

static void
play_deint(void *arg, const uint8_t *adu, size_t len, uint32_t ts)
{
	struct play *p = arg;

	fmt_3119_deframe_put(p->df, adu, len, ts);
}

static void play_schedule(struct play *p);
static void play_late_report(struct play *p);

/* The end of a source: what its packets announced but came too late to play was silence
 * on a sound device, and is concealed here so that the statistics count it (a stream that
 * stalls to its end would otherwise look complete). Bounded by the wall clock: only the
 * frames whose play-out time has passed. */
static void
play_tail(struct play *p)
{
	int64_t n, dt, frame_us, wall;
	uint64_t t0;

	if (!p->have_first || p->samples <= 0 || p->rate <= 0)
		return;
	if (p->format == FMT_FEC) {
		if (!p->fec_have_end || !p->fec_have_t0)
			return;
		/* the group's end: the frames before it */
		dt = rtp_ts_diff((uint32_t)((uint64_t)p->fec_end * 9 / 100), p->fts0);
		n = dt >= 0 ? p->fts0_n + dt * p->rate / ((int64_t)p->samples * RTP_CLOCK_MPA) :
		    -1;
		t0 = p->fec_t0_us;
	} else {
		if (p->jb == NULL || !p->jb->have_ts_max)
			return;
		/* the last packet's first frame */
		n = play_frame_index(p, p->jb->ts_max, p->rate, p->samples);
		n++;
		t0 = p->jb->t0_us;
	}
	frame_us = (int64_t)p->samples * 1000000 / p->rate;
	wall = (int64_t)(ev_clock_us() - t0) - (int64_t)p->delay_ms * 1000;
	wall = wall > 0 ? wall / frame_us : 0;
	if (n > wall)
		n = wall;
	if (n > p->next_n) {
		p->frames_tail += (uint64_t)(n - p->next_n);
		play_conceal(p, n - p->next_n);
		p->next_n = n;
	}
}

static void
play_due(struct ev_loop *loop, void *arg)
{
	(void)loop;
	play_schedule(arg);
}

/* Releases what is due and sleeps until the next packet is. */
static void
play_schedule(struct play *p)
{
	const struct jitter_pkt *k;
	uint64_t now = ev_clock_us(), next;

	while ((k = jitter_get(p->jb, now, p->eos, &next)) != NULL) {
		if (p->format == 3119)
			fmt_3119_depack(p->dp3, k->data, k->len, k->seq, k->ts, play_adu, p);
		else
			fmt_2250_depack(&p->dp, k->data, k->len, k->seq, k->ts, play_frame, p);
		jitter_release(p->jb);
	}
	ev_timer_stop(p->loop, &p->play_t);
	if (next != 0)
		ev_timer_start(p->loop, &p->play_t, next > now ? next - now : 0, play_due, p);
}

static void
play_end(struct play *p)
{
	if (p->eos)
		return;
	p->eos = 1;
	/* what is still held never became valid, or its source was never followed */
	p->pk_unvalidated += p->hold.n;
	p->other_ssrc += p->cand.n;
	p->hold.n = p->cand.n = 0;
	play_schedule(p);
	if (p->fx != NULL)
		fmt_fec_rx_flush(p->fx);
	if (p->df != NULL) {
		fmt_3119_deint_flush(p->di);
		fmt_3119_deframe_flush(p->df);
	}
	play_tail(p);
	ev_stop(p->loop);
}

static void
play_idle(struct ev_loop *loop, void *arg)
{
	struct play *p = arg;
	uint64_t now = ev_clock_us();

	if (now - p->last_rx_us >= (uint64_t)p->idle_ms * 1000) {
		play_end(p);
		return;
	}
	ev_timer_start(loop, &p->idle_t, p->last_rx_us + p->idle_ms * 1000ull - now, play_idle, p);
}

/* --idle given, no --duration: the wait for the first packet (or connection) is bounded
 * too. After one,
 * the idle rule of the stream takes over (udp) or the connection's end does. */
static void
play_idle_first(struct ev_loop *loop, void *arg)
{
	struct play *p = arg;

	if (p->pk_datagrams == 0 && p->c == NULL)
		play_end(p);
	else if (p->fd != -1 && p->pk_datagrams > 0)
		play_idle(loop, p);
}

static void
play_stop(struct ev_loop *loop, void *arg)
{
	(void)loop;
	play_end(arg);
}

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
	if (p->df != NULL) {
		fmt_3119_deint_flush(p->di);
		fmt_3119_deframe_flush(p->df);
		fmt_3119_depack_init(p->dp3);
		fmt_3119_deframe_init(p->df, play_frame3119, p);
		fmt_3119_deint_init(p->di, play_deint, p);
	}
	play_tail(p);
	fmt_2250_depack_init(&p->dp);
	play_retire(p);
	jitter_free(p->jb);
	p->jb = jb;
	p->have_first = 0;
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
static void
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
	p->span_done += rtcp_rx_span(&p->rx);
	p->sr_packets_done += p->sr_packets;
	p->sr_packets = 0;
	p->sources++;
	p->ssrc = p->cand_ssrc;
	rtcp_rx_init(&p->rx, RTP_CLOCK_MPA); /* a new source */
	p->have_cand = 0;
	for (i = 0; i < p->cand.n; i++)
		play_current(p, p->cand.pkt[i].seq, p->cand.pkt[i].ts, p->cand.pkt[i].data,
		    p->cand.pkt[i].len, p->cand.pkt[i].at);
	p->cand.n = 0;
}

/* A packet of another SSRC than the current source's: held; followed when PLAY_SWITCH_PKTS
 * of them came in sequence with none of the current source between, or at once when the
 * current source has been silent for PLAY_SWITCH_MS. Else counted as another source's. */
static void
play_candidate(struct play *p, const struct rtp_hdr *h, uint64_t now)
{
	if (p->have_cand && (p->cand_ssrc != h->ssrc ||
	    p->cand.pkt[p->cand.n - 1].seq != (uint16_t)(h->seq - 1))) {
		p->other_ssrc += p->cand.n;
		p->cand.n = 0;
		p->have_cand = 0;
	}
	p->have_cand = 1;
	p->cand_ssrc = h->ssrc;
	play_hold_put(&p->cand, h->seq, h->ts, h->payload, h->plen, now);
	if (p->cand.n >= PLAY_SWITCH_PKTS ||
	    now - p->last_rx_us >= PLAY_SWITCH_MS * 1000ull) {
		p->last_rx_us = now;
		play_switch(p);
	}
}

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

static void
play_rr_tick(struct ev_loop *loop, void *arg)
{
	struct play *p = arg;

	play_send_rr(p);
	ev_timer_start(loop, &p->rr_t, p->rtcp_ms * 1000ull, play_rr_tick, p);
}

static void
play_stats_tick(struct ev_loop *loop, void *arg)
{
	struct play *p = arg;
	double fdur = p->rate ? (double)p->samples * 1000.0 / p->rate : 0;
	uint64_t now = ev_clock_us();

	fprintf(stderr, "rtpaudio play: t=%.1f received=%llu lost=%llu late=%llu "
	    "played=%llu concealed=%llu longest_gap_ms=%.1f jitter_ms=%.1f rr_sent=%llu\n",
	    (double)(now - p->start_us) / 1e6,
	    (unsigned long long)(p->fx != NULL ? p->rx_packets : p->jb->received),
	    (unsigned long long)p->jb->lost, (unsigned long long)(p->jb->late + p->fec_late),
	    (unsigned long long)p->frames_played, (unsigned long long)p->frames_concealed,
	    p->longest_run * fdur, rtcp_rx_jitter_ms(&p->rx), (unsigned long long)p->rr_sent);
	ev_timer_start(loop, &p->stats_t, p->stats_ms * 1000ull, play_stats_tick, p);
}

static void play_udp(struct ev_loop *loop, int fd, unsigned events, void *arg);

/* An RTCP packet from the sender: SRs (for LSR/DLSR) and the BYE that ends a UDP stream. */
static void
play_rtcp_msg(struct play *p, const uint8_t *buf, size_t len)
{
	struct rtcp_info ri;

	if (rtcp_parse(buf, len, &ri) <= 0)
		return;
	if (ri.sr && (!p->locked || ri.ssrc == p->ssrc || p->format == FMT_FEC)) {
		p->sr_received++;
		p->sr_packets = ri.packets;
		p->have_sr_packets = 1;
		rtcp_rx_sr(&p->rx, ri.ntp, ev_clock_us());
	}
	if (ri.bye && p->locked && p->c == NULL && (ri.ssrc == p->ssrc || p->format == FMT_FEC)) {
		/* The BYE comes on its own socket: after a stall, one wakeup may hand it over
		 * before the media socket's last packets, which were sent before it. */
		if (p->fd != -1)
			play_udp(p->loop, p->fd, 0, p);
		play_end(p);
	}
}

/* A packet came after its play-out time: the sender hears of it now (an early report, as
 * RFC 4585's early feedback; one per PLAY_EARLY_RR_MS at most), not at the next regular
 * one, so that --lifetime auto cuts its lifetime before more come late. */
static void
play_late_report(struct play *p)
{
	if (p->rtcp_ms > 0 && p->locked &&
	    ev_clock_us() - p->rr_last_us >= PLAY_EARLY_RR_MS * 1000ull)
		play_send_rr(p);
}

static void
play_locked(struct play *p)
{
	p->locked = 1;
	if (p->idle_ms > 0 && p->fd != -1)
		ev_timer_start(p->loop, &p->idle_t, p->idle_ms * 1000ull, play_idle, p);
	if (p->rtcp_ms > 0 && !ev_timer_armed(&p->rr_t))
		ev_timer_start(p->loop, &p->rr_t, p->rtcp_ms * 1000ull, play_rr_tick, p);
}

static void
play_packet(struct play *p, const uint8_t *buf, size_t len)
{
	struct rtp_hdr h;
	uint64_t now;

	p->pk_datagrams++;
	if (p->format == FMT_FEC) {
		/* no RTP: a group is decoded when the next one begins; the reports number
		 * the packets group * n + index, timed in the groups' microseconds */
		struct fmt_fec_hdr fh;
		if (!p->locked)
			play_locked(p);
		p->last_rx_us = ev_clock_us();
		if (fmt_fec_hdr_parse(buf, len, &fh) > 0) {
			/* the group number has 8 bits: extend it (a step back of up to 16 groups
			 * is reordering, anything else goes forward) */
			int d = (fh.gseq - p->fec_glast) & 0xff;
			if (p->rx.init && d < 240)
				p->fec_gext += d;
			else if (p->rx.init)
				p->fec_gext -= 256 - d;
			p->fec_glast = fh.gseq;
			rtcp_rx_packet(&p->rx, (uint16_t)(p->fec_gext * fh.n + fh.pseq), fh.tstamp,
			    p->last_rx_us);
		}
		/* Its playout deadline: a group is played once decoded, so FEC adds a group's
		 * duration to the latency. The first packet (the first group's start) arrived
		 * at t0; a group's packets must be there by t0 + its end (tstamp, from the
		 * first group's) + the playout delay; a later packet is an erasure. The
		 * group's duration: our sender's times start at 0 (the first tstamp is the
		 * first group's end), others' come from the first step between groups. */
		if (fmt_fec_hdr_parse(buf, len, &fh) > 0) {
			if (!p->fec_have_t0) {
				p->fec_have_t0 = 1;
				p->fec_t0_us = p->last_rx_us;
				p->fec_tst0 = fh.tstamp;
				p->fec_gdur_us = fh.tstamp < 10000000u ? fh.tstamp : 0;
			} else if (p->fec_gdur_us == 0 && (int32_t)(fh.tstamp - p->fec_tst0) > 0) {
				p->fec_gdur_us = fh.tstamp - p->fec_tst0;
			}
			if (!p->fec_have_end || (int32_t)(fh.tstamp - p->fec_end) > 0)
				p->fec_end = fh.tstamp;
			p->fec_have_end = 1;
			int64_t slack = (int64_t)p->fec_t0_us + (int32_t)(fh.tstamp - p->fec_tst0) +
			    (int64_t)p->fec_gdur_us + (int64_t)p->delay_ms * 1000 -
			    (int64_t)p->last_rx_us;
			if (p->fec_gdur_us > 0 && (!p->fec_have_slack || slack < p->fec_slack_min_us)) {
				p->fec_slack_min_us = slack;
				p->fec_have_slack = 1;
			}
			if (p->fec_gdur_us > 0 && slack < 0) {
				p->rx_packets++;
				p->fec_late++;
				play_late_report(p);
				return;
			}
		}
		if (fmt_fec_rx_put(p->fx, buf, len) == 0) {
			p->rx_packets++;
			p->fec_ok++;
		} else
			p->bad_packets++;
		return;
	}
	if (rtp_parse(buf, len, &h) < 0) {
		p->bad_packets++;
		return;
	}
	if (h.pt != p->pt) {
		p->pk_wrong_pt++;
		return;
	}
	if (h.plen > JITTER_PKT) {
		p->pk_oversized++;
		return;
	}
	now = ev_clock_us();
	/* the first source heard, validated; another one is followed when the current one
	 * has stopped (play_candidate) */
	if (!p->locked) {
		p->ssrc = h.ssrc;
		p->sources = 1;
		play_locked(p);
	}
	if (h.ssrc != p->ssrc) {
		play_candidate(p, &h, now);
	} else {
		if (p->have_cand) {
			p->other_ssrc += p->cand.n; /* the current source goes on */
			p->cand.n = 0;
			p->have_cand = 0;
		}
		p->last_rx_us = now;
		play_current(p, h.seq, h.ts, h.payload, h.plen, now);
	}
	play_schedule(p);
}

static void
play_udp(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct play *p = arg;
	uint8_t buf[65536];
	ssize_t n;

	(void)loop;
	(void)events;
	while (!p->eos && (n = recv(fd, buf, sizeof(buf), 0)) >= 0)
		play_packet(p, buf, (size_t)n);
}

static void
play_rtcp(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct play *p = arg;
	struct sockaddr_storage from;
	socklen_t fromlen;
	uint8_t buf[2048];
	ssize_t n;

	(void)loop;
	(void)events;
	for (;;) {
		fromlen = sizeof(from);
		if (p->eos || (n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		    &fromlen)) < 0)
			break;
		if (n >= 8 && buf[1] == RTCP_SR) {
			p->rtcp_peer = from;
			p->rtcp_peerlen = fromlen;
		}
		play_rtcp_msg(p, buf, (size_t)n);
	}
}

/* RTCP on a connection: its PPID on SCTP; on tcp RFC 5761's packet types 200..204. */
static int
play_is_rtcp(const struct play *p, const uint8_t *buf, size_t len, const struct tp_msginfo *mi)
{
	return rtpaudio_net_is_rtcp(&p->net, buf, len, mi->ppid);
}

static void
play_conn(struct tp_conn *c, unsigned events, void *arg)
{
	struct play *p = arg;
	struct tp_msginfo mi;
	size_t got;
	int rc;

	(void)events;
	while (!p->eos) {
		rc = tp_recv(c, p->msg + p->msglen, sizeof(p->msg) - p->msglen, &mi, &got);
		if (rc == TP_RETRY)
			return;
		if (rc != TP_OK) {
			if (rc == TP_ERROR && p->verbose)
				fprintf(stderr, "rtpaudio play: %s\n", c->err);
			play_end(p);
			return;
		}
		p->msglen += got;
		if (!(mi.flags & TP_F_EOR)) {
			if (p->msglen == sizeof(p->msg))
				p->msglen = 0; /* larger than any packet we take: drop it */
			continue;
		}
		if (play_is_rtcp(p, p->msg, p->msglen, &mi))
			play_rtcp_msg(p, p->msg, p->msglen);
		else
			play_packet(p, p->msg, p->msglen);
		p->msglen = 0;
	}
}

static void
play_accept(struct tp_listener *l, void *arg)
{
	struct play *p = arg;
	struct tp_conn *c;

	if (tp_accept(l, &c) != TP_OK)
		return;
	if (p->c != NULL) {
		tp_conn_free(c); /* one sender at a time */
		return;
	}
	p->c = c;
	if (tp_watch(c, p->loop, EV_READ, play_conn, p) != TP_OK)
		play_end(p);
}

/* The accounting: every datagram on the media path has one fate, every frame of the
 * timeline is played or concealed (doc/rtpaudio.1, STATISTICS AND VERDICT). */
struct play_tally {
	uint64_t received, played, late, duplicates, malformed, wrong_pt, other, unvalidated,
	    oversized, lost;
	uint64_t timeline, concealed_sum, frames_sum;
	int64_t sender;             /* packets the senders' last SRs counted; -1: no SR */
	uint64_t covered, short_pk, short_frames;
	int adds_up;
};

static void
play_tally(const struct play *p, struct play_tally *t)
{
	const struct jitter *j = p->jb;

	memset(t, 0, sizeof(*t));
	t->received = p->pk_datagrams;
	t->played = p->fx != NULL ? p->fec_ok : p->acc.played + j->received;
	t->late = p->acc.late + j->late + p->fec_late;
	t->duplicates = p->acc.duplicates + j->duplicates + p->pk_duplicates;
	t->malformed = p->bad_packets;
	t->wrong_pt = p->pk_wrong_pt;
	t->other = p->other_ssrc;
	t->unvalidated = p->pk_unvalidated;
	t->oversized = p->pk_oversized + p->acc.too_big + j->too_big;
	t->lost = p->acc.lost + j->lost;
	t->timeline = p->frames_played + p->frames_concealed;
	t->concealed_sum = p->frames_gap + p->frames_undecodable + p->frames_dummy +
	    p->frames_tail;
	t->frames_sum = p->frames_played + p->frames_undecodable + p->frames_dummy +
	    p->frames_stale + p->info_frames + p->frames_malformed;
	t->adds_up = t->received == t->played + t->late + t->duplicates + t->malformed +
	    t->wrong_pt + t->other + t->unvalidated + t->oversized &&
	    t->concealed_sum == p->frames_concealed && t->frames_sum == p->frames_in;
	/* what the sender says it sent beyond what the timeline covers: frames short at an
	 * end, in the timeline's frames per packet */
	t->sender = -1;
	t->covered = p->span_done + rtcp_rx_span(&p->rx);
	if (p->fx == NULL && p->have_sr_packets) {
		t->sender = (int64_t)(p->sr_packets_done + p->sr_packets);
		if ((uint64_t)t->sender > t->covered)
			t->short_pk = (uint64_t)t->sender - t->covered;
		if (t->short_pk > 0)
			t->short_frames = t->covered > 0 ?
			    (t->short_pk * t->timeline + t->covered - 1) / t->covered : t->short_pk;
	}
}

static void
play_report(struct play *p)
{
	double fdur = p->rate ? (double)p->samples * 1000.0 / p->rate : 0;
	struct play_tally t;
	uint64_t frames;
	double loss, gap;
	int ok;
	char snr[400] = "";
	uint64_t bad, dummies = 0, poc = 0, late = 0;

	play_tally(p, &t);
	/* the verdict counts the frames the sender sent beyond the timeline, and the frames
	 * that came but had no place on it (stale), as concealed */
	frames = t.timeline + t.short_frames + p->frames_stale;
	loss = frames ? 100.0 * (double)(p->frames_concealed + t.short_frames +
	    p->frames_stale) / (double)frames : 100.0;
	gap = p->longest_run * fdur;
	if (t.short_frames * fdur > gap)
		gap = t.short_frames * fdur;
	/* and the packets that were not played (RTP formats: FEC makes up for lost ones) of
	 * what the sender sent, or else of the sequence numbers covered */
	if (p->fx == NULL) {
		uint64_t all = t.covered > (uint64_t)(t.sender > 0 ? t.sender : 0) ? t.covered :
		    (uint64_t)t.sender;
		if (all > 0 && all > t.played && 100.0 * (double)(all - t.played) / (double)all > loss)
			loss = 100.0 * (double)(all - t.played) / (double)all;
	}
	ok = t.timeline > 0 && loss <= PLAY_OK_LOSS_PCT && gap <= PLAY_OK_GAP_MS;
	bad = p->bad_packets + p->pk_wrong_pt + p->dp.malformed;
	if (p->format != 2250) {
		bad += p->dp3->malformed;
		dummies = p->df->dummies;
		poc = p->dp3->poc_offbyone;
		late = p->di->late;
	}

	if (p->have_snr && p->json)
		snprintf(snr, sizeof(snr), "\"segsnr_db\":%.2f,\"ref_offset\":%ld,"
		    "\"snr_segments\":%zu,\"intact_segments_pct\":%.2f,", p->snr_db, p->ref_offset,
		    p->snr_segs, p->intact_pct);
	else if (p->have_snr)
		snprintf(snr, sizeof(snr), "segmental SNR: %.2f dB against %s (offset %ld sample "
		    "frames, %zu segments of 20 ms)\nintact segments: %.2f %% (20 ms segments at "
		    "%.0f dB SNR or better)\n", p->snr_db, p->ref_path, p->ref_offset, p->snr_segs,
		    p->intact_pct, COMPARE_INTACT_DB);
	if (p->json) {
		printf("{\"packets_received\":%llu,\"packets_lost\":%llu,\"packets_late\":%llu,"
		    "\"packets_duplicate\":%llu,\"packets_bad\":%llu,\"frames_played\":%llu,"
		    "\"frames_concealed\":%llu,\"frames_undecodable\":%llu,"
		    "\"fragments_dropped\":%llu,\"longest_gap_ms\":%.1f,"
		    "\"residual_frame_loss_pct\":%.3f,\"duration_s\":%.3f,\"format\":\"%s\","
		    "\"adu_dummies\":%llu,\"poc_descriptors\":%llu,\"deinterleave_late\":%llu,"
		    "\"fec_groups\":%llu,\"fec_recovered\":%llu,\"fec_unrecoverable\":%llu,"
		    "\"rtcp_rr_sent\":%llu,\"rtcp_sr_received\":%llu,\"jitter_ms\":%.2f,"
		    "\"cpu_s\":%.3f,",
		    (unsigned long long)t.received, (unsigned long long)t.lost,
		    (unsigned long long)t.late, (unsigned long long)t.duplicates,
		    (unsigned long long)bad,
		    (unsigned long long)p->frames_played, (unsigned long long)p->frames_concealed,
		    (unsigned long long)p->frames_undecodable,
		    (unsigned long long)(p->dp.fragments_dropped +
		    (p->dp3 != NULL ? p->dp3->fragments_dropped : 0)), gap, loss,
		    (double)t.timeline * fdur / 1000.0,
		    p->format == FMT_FEC ? "fec" : p->format == 3119 ? "3119" : "2250",
		    (unsigned long long)dummies,
		    (unsigned long long)poc, (unsigned long long)late,
		    (unsigned long long)(p->fx ? p->fx->groups : 0),
		    (unsigned long long)(p->fx ? p->fx->recovered : 0),
		    (unsigned long long)(p->fx ? p->fx->unrecoverable : 0),
		    (unsigned long long)p->rr_sent, (unsigned long long)p->sr_received,
		    rtcp_rx_jitter_ms(&p->rx), rtpaudio_cpu_s());
		printf("\"packets_played\":%llu,\"packets_malformed\":%llu,"
		    "\"packets_wrong_pt\":%llu,\"packets_other_source\":%llu,"
		    "\"packets_unvalidated\":%llu,\"packets_oversized\":%llu,"
		    "\"sources\":%llu,\"sequence_restarts\":%llu,\"frames_timeline\":%llu,"
		    "\"frames_gap\":%llu,\"frames_dummy\":%llu,\"frames_end\":%llu,"
		    "\"frames_in\":%llu,\"frames_stale\":%llu,\"frames_info\":%llu,"
		    "\"frames_malformed\":%llu,\"sender_packets\":%lld,\"sender_packets_missing\":%llu,"
		    "\"frames_missing\":%llu,\"timestamp_splices\":%llu,\"schedule_jumps\":%llu,"
		    "\"accounting_adds_up\":%s,",
		    (unsigned long long)t.played, (unsigned long long)t.malformed,
		    (unsigned long long)t.wrong_pt, (unsigned long long)t.other,
		    (unsigned long long)t.unvalidated, (unsigned long long)t.oversized,
		    (unsigned long long)p->sources, (unsigned long long)p->restarts,
		    (unsigned long long)t.timeline, (unsigned long long)p->frames_gap,
		    (unsigned long long)p->frames_dummy, (unsigned long long)p->frames_tail,
		    (unsigned long long)p->frames_in, (unsigned long long)p->frames_stale,
		    (unsigned long long)p->info_frames, (unsigned long long)p->frames_malformed,
		    (long long)t.sender, (unsigned long long)t.short_pk,
		    (unsigned long long)t.short_frames, (unsigned long long)p->ts_splices,
		    (unsigned long long)(p->acc.rebases + p->jb->rebases),
		    t.adds_up ? "true" : "false");
		printf("%s\"satisfactory\":%s}\n", snr, ok ? "true" : "false");
	} else {
		char extra[160] = "", sender[160] = "no RTCP SR with a packet count";
		if (p->fx != NULL)
			snprintf(extra, sizeof(extra), "fec: %llu groups, %llu ADUs recovered by FEC, "
			    "%llu groups unrecoverable, %llu dummy frames\n",
			    (unsigned long long)p->fx->groups, (unsigned long long)p->fx->recovered,
			    (unsigned long long)p->fx->unrecoverable, (unsigned long long)dummies);
		else if (p->format == 3119)
			snprintf(extra, sizeof(extra), "3119: %llu dummy frames for lost ADUs, "
			    "%llu poc-3119 descriptors, %llu ADUs too late to deinterleave\n",
			    (unsigned long long)dummies, (unsigned long long)poc,
			    (unsigned long long)late);
		if (t.sender >= 0)
			snprintf(sender, sizeof(sender), "%lld packets in its RTCP SRs, %llu beyond "
			    "the sequence numbers received (%llu frames missing)", (long long)t.sender,
			    (unsigned long long)t.short_pk, (unsigned long long)t.short_frames);
		printf("packets: %llu received, %llu lost, %llu late, %llu duplicated, %llu bad\n"
		    "frames: %llu played, %llu concealed (%llu undecodable after a loss)\n"
		    "longest gap: %.1f ms\nresidual frame loss: %.3f %%\naudio: %.3f s\n"
		    "rtcp: %llu receiver reports sent, %llu sender reports received, jitter %.2f ms\n"
		    "%s%s",
		    (unsigned long long)t.received, (unsigned long long)t.lost,
		    (unsigned long long)t.late, (unsigned long long)t.duplicates,
		    (unsigned long long)bad,
		    (unsigned long long)p->frames_played, (unsigned long long)p->frames_concealed,
		    (unsigned long long)p->frames_undecodable, gap, loss,
		    (double)t.timeline * fdur / 1000.0, (unsigned long long)p->rr_sent,
		    (unsigned long long)p->sr_received, rtcp_rx_jitter_ms(&p->rx), snr, extra);
		printf("accounting: %llu received = %llu played + %llu late + %llu duplicate + "
		    "%llu malformed + %llu wrong payload type + %llu other source + "
		    "%llu unvalidated + %llu oversized (%s)\n"
		    "timeline: %llu frames = %llu played + %llu concealed (%llu gaps, "
		    "%llu undecodable, %llu dummies, %llu at the end)\n"
		    "sources: %llu, %llu sequence restarts, %llu timestamp jumps spliced; "
		    "sender: %s\n"
		    "verdict: %s\n",
		    (unsigned long long)t.received, (unsigned long long)t.played,
		    (unsigned long long)t.late, (unsigned long long)t.duplicates,
		    (unsigned long long)t.malformed, (unsigned long long)t.wrong_pt,
		    (unsigned long long)t.other, (unsigned long long)t.unvalidated,
		    (unsigned long long)t.oversized, t.adds_up ? "adds up" : "DOES NOT ADD UP",
		    (unsigned long long)t.timeline, (unsigned long long)p->frames_played,
		    (unsigned long long)p->frames_concealed, (unsigned long long)p->frames_gap,
		    (unsigned long long)p->frames_undecodable, (unsigned long long)p->frames_dummy,
		    (unsigned long long)p->frames_tail, (unsigned long long)p->sources,
		    (unsigned long long)p->restarts, (unsigned long long)p->ts_splices, sender,
		    ok ? "satisfactory" : "not satisfactory");
	}
	fflush(stdout);
}

int
play_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "transport", required_argument, NULL, 't' },
		{ "stack", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "raw", no_argument, NULL, 'r' },
		{ "playout-delay", required_argument, NULL, 'd' },
		{ "idle", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'D' },
		{ "udp-port", required_argument, NULL, 'u' },
		{ "udp-remote-port", required_argument, NULL, 'U' },
		{ "rtcp-interval", required_argument, NULL, 'R' },
		{ "stats-interval", required_argument, NULL, 'P' },
		{ "driver", required_argument, NULL, 'A' },
		{ "reference", required_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct play p;
	int ch;

	memset(&p, 0, sizeof(p));
	p.fd = p.rtcp_fd = -1;
	p.rc = 0;
	p.delay_ms = 200;
	p.idle_ms = 3000;
	p.format = 2250;
	p.rtcp_ms = 1000;
	rtpaudio_net_init(&p.net, 0);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:s:f:o:d:D:jvh", lo, NULL)) != -1) {
		switch (ch) {
		case 't': p.net.transport = optarg; break;
		case 's': p.net.stack = optarg; break;
		case 'o': p.out_path = optarg; break;
		case 'f':
			if (strcmp(optarg, "2250") == 0)
				p.format = 2250;
			else if (strcmp(optarg, "3119") == 0 || strcmp(optarg, "5219") == 0)
				p.format = 3119;
			else if (strcmp(optarg, "fec") == 0)
				p.format = FMT_FEC;
			else {
				fprintf(stderr, "rtpaudio play: unknown format %s\n", optarg);
				return 2;
			}
			break;
		case 'r': p.raw = 1; break;
		case 'd': p.delay_ms = (uint32_t)rtpaudio_num(optarg, "playout delay", 0, 60000); break;
		case 'i':
			p.idle_ms = (uint32_t)rtpaudio_num(optarg, "idle", 0, 3600000);
			p.idle_given = 1;
			break;
		case 'D': p.duration_ms = (uint32_t)(rtpaudio_num(optarg, "duration", 1, 86400) * 1000);
			break;
		case 'u': p.net.udp_port = (uint16_t)rtpaudio_num(optarg, "UDP port", 1, 65535); break;
		case 'U': p.net.udp_remote_port = (uint16_t)rtpaudio_num(optarg, "UDP port", 1,
		    65535); break;
		case 'R': p.rtcp_ms = (uint32_t)rtpaudio_num(optarg, "RTCP interval", 0, 600000);
			break;
		case 'P': p.stats_ms = (uint32_t)rtpaudio_num(optarg, "stats interval", 0, 3600000);
			break;
		case 'A': p.driver = optarg; break;
		case 'F': p.ref_path = optarg; break;
		case 'j': p.json = 1; break;
		case 'v': p.verbose = 1; break;
		case 'h': play_usage(stdout); return 0;
		default: play_usage(stderr); return 2;
		}
	}
	if (argc - optind != 1) {
		play_usage(stderr);
		return 2;
	}
	p.rc = 1;
	p.listen = argv[optind];
	if (rtpaudio_net_check(&p.net, p.err, sizeof(p.err)) == -1)
		goto bad;
	fmt_2250_depack_init(&p.dp);
	rtcp_rx_init(&p.rx, p.format == FMT_FEC ? 1000000 : RTP_CLOCK_MPA);
	{
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		p.my_ssrc = (uint32_t)(t.tv_nsec ^ (t.tv_sec << 12) ^ (getpid() << 8));
	}
	p.pt = p.format == 3119 ? FMT_3119_PT : RTP_PT_MPA;
	if (p.format != 2250) {
		if ((p.dp3 = malloc(sizeof(*p.dp3))) == NULL ||
		    (p.df = malloc(sizeof(*p.df))) == NULL ||
		    (p.di = malloc(sizeof(*p.di))) == NULL) {
			snprintf(p.err, sizeof(p.err), "out of memory");
			goto bad;
		}
		fmt_3119_depack_init(p.dp3);
		fmt_3119_deframe_init(p.df, play_frame3119, &p);
		fmt_3119_deint_init(p.di, play_deint, &p);
	}
	if (p.format == FMT_FEC) {
		if ((p.fx = malloc(sizeof(*p.fx))) == NULL) {
			snprintf(p.err, sizeof(p.err), "out of memory");
			goto bad;
		}
		fmt_fec_rx_init(p.fx, play_adu_fec, &p);
	}
	if ((p.jb = jitter_new(p.delay_ms)) == NULL) {
		snprintf(p.err, sizeof(p.err), "out of memory");
		goto bad;
	}
	if (mpg123_init() != MPG123_OK || play_decoder_open(&p) == -1)
		goto bad;
	if (p.driver != NULL) {
		if (aout_open(&p.ao, p.driver, p.out_path, p.err, sizeof(p.err)) == -1)
			goto bad;
		if (p.ao.dummy)
			fprintf(stderr, "rtpaudio play: no sound device on this machine: libout123 "
			    "opened its '%s' driver, the audio is discarded\n", p.ao.name);
		else if (p.verbose)
			fprintf(stderr, "rtpaudio play: libout123 driver %s\n", p.ao.name);
	} else if (p.out_path != NULL &&
	    wav_open(&p.out, p.out_path, p.raw, p.err, sizeof(p.err)) == -1) {
		goto bad;
	}
	if ((p.loop = ev_new(p.err, sizeof(p.err))) == NULL)
		goto bad;
	if (p.net.caps.datagram) {
		if ((p.fd = rtpaudio_udp_listen(&p.net, p.listen, 0, p.err, sizeof(p.err))) == -1 ||
		    (p.rtcp_fd = rtpaudio_udp_listen(&p.net, p.listen, 1, p.err, sizeof(p.err))) == -1)
			goto bad;
		if (ev_fd_set(p.loop, p.fd, EV_READ, play_udp, &p) == -1 ||
		    ev_fd_set(p.loop, p.rtcp_fd, EV_READ, play_rtcp, &p) == -1) {
			snprintf(p.err, sizeof(p.err), "event loop: %s", strerror(errno));
			goto bad;
		}
	} else {
		if ((p.l = rtpaudio_tp_listen(&p.net, p.listen, p.err, sizeof(p.err))) == NULL)
			goto bad;
		if (tp_listener_watch(p.l, p.loop, play_accept, &p) != TP_OK) {
			snprintf(p.err, sizeof(p.err), "%s", p.l->err);
			goto bad;
		}
	}
	if (p.verbose)
		fprintf(stderr, "rtpaudio play: listening on %s (%s)\n", p.listen, p.net.transport);
	if (p.duration_ms > 0)
		ev_timer_start(p.loop, &p.dur_t, p.duration_ms * 1000ull, play_stop, &p);
	p.start_us = ev_clock_us();
	if (p.idle_given && p.idle_ms > 0 && p.duration_ms == 0)
		ev_timer_start(p.loop, &p.idle_t, p.idle_ms * 1000ull, play_idle_first, &p);
	if (p.stats_ms > 0)
		ev_timer_start(p.loop, &p.stats_t, p.stats_ms * 1000ull, play_stats_tick, &p);
	if (ev_run(p.loop) == -1) {
		snprintf(p.err, sizeof(p.err), "event loop: %s", strerror(errno));
		goto bad;
	}
	play_end(&p);
	if (wav_close(&p.out) == -1) {
		snprintf(p.err, sizeof(p.err), "%s: write failed", p.out_path);
		goto bad;
	}
	aout_close(&p.ao);
	if (p.frames_played + p.frames_concealed == 0) {
		/* no audio: the report says why, the output (empty, not a WAV) goes */
		play_report(&p);
		if (p.out_path != NULL && strcmp(p.out_path, "-") != 0)
			unlink(p.out_path);
		if (p.pk_datagrams == 0)
			snprintf(p.err, sizeof(p.err), "nothing received on %s (%s)", p.listen,
			    p.net.transport);
		else
			snprintf(p.err, sizeof(p.err), "no audio: %llu packets received, none of "
			    "them played (see the accounting)", (unsigned long long)p.pk_datagrams);
		goto bad;
	}
	if (p.ref_path != NULL && play_reference(&p) == -1)
		goto bad;
	play_report(&p);
	p.rc = 0;
bad:
	if (p.rc != 0 && p.err[0])
		fprintf(stderr, "rtpaudio play: %s\n", p.err);
	if (p.loop != NULL) {
		ev_timer_stop(p.loop, &p.play_t);
		ev_timer_stop(p.loop, &p.idle_t);
		ev_timer_stop(p.loop, &p.dur_t);
		ev_timer_stop(p.loop, &p.rr_t);
		ev_timer_stop(p.loop, &p.stats_t);
		if (p.fd != -1)
			ev_fd_del(p.loop, p.fd);
		if (p.rtcp_fd != -1)
			ev_fd_del(p.loop, p.rtcp_fd);
	}
	tp_conn_free(p.c);
	tp_listener_free(p.l);
	if (p.fd != -1)
		close(p.fd);
	if (p.rtcp_fd != -1)
		close(p.rtcp_fd);
	wav_close(&p.out);
	aout_close(&p.ao);
	free(p.pcm);
	if (p.mh != NULL)
		mpg123_delete(p.mh);
	jitter_free(p.jb);
	free(p.dp3);
	free(p.df);
	free(p.di);
	if (p.fx != NULL)
		fmt_fec_rx_free(p.fx);
	free(p.fx);
	if (p.loop != NULL)
		ev_free(p.loop);
	return p.rc;
}
