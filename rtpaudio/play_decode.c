/* play_decode.c: `rtpaudio play`'s frames to PCM: the decoder, the media timeline (a frame's
 * place by its timestamp), concealment, the output and --reference. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "play.h"

int
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

/* The output failed: the run ends (the frames after this are refused), and fails. */
static void
play_output_failed(struct play *p)
{
	p->out_failed = 1;
	if (p->ended == PLAY_END_NONE)
		p->ended = PLAY_END_OUTPUT;
	ev_stop(p->loop);
}

/* One frame of PCM to every output: 0, or -1 when one failed (p->err says why) */
static int
play_output(struct play *p, const int16_t *pcm, size_t n)
{
	if (p->out_failed)
		return -1;
	errno = 0;
	if (p->out.fp != NULL && wav_write(&p->out, pcm, n, p->rate, p->channels) == -1) {
		snprintf(p->err, sizeof(p->err), "%s: write failed: %s", p->out_path,
		    errno ? strerror(errno) : "format");
		goto bad;
	}
	if (p->driver != NULL && aout_play(&p->ao, pcm, n, p->rate, p->channels) == -1) {
		snprintf(p->err, sizeof(p->err), "libout123 %s: playing failed", p->ao.name);
		goto bad;
	}
	if (p->ref_path != NULL) {
		if (p->pcm_n + n > p->pcm_cap) {
			size_t cap = (p->pcm_n + n) * 2;
			int16_t *np = realloc(p->pcm, cap * sizeof(*np));
			if (np == NULL) {
				snprintf(p->err, sizeof(p->err), "--reference: out of memory");
				goto bad;
			}
			p->pcm = np;
			p->pcm_cap = cap;
		}
		memcpy(p->pcm + p->pcm_n, pcm, n * sizeof(*pcm));
		p->pcm_n += n;
	}
	return 0;
bad:
	play_output_failed(p);
	return -1;
}

/* The frames the outputs hold, each counted by its own samples over the frame's length
 * (one format: a change is refused), the fewest of them; -1: no output. */
int64_t
play_frames_written(const struct play *p)
{
	int64_t w = -1, len = (int64_t)p->samples * p->channels, n;

	if (len <= 0)
		return p->out_path != NULL || p->driver != NULL || p->ref_path != NULL ? 0 : -1;
	if (p->out_path != NULL && p->driver == NULL)
		w = (int64_t)p->out.frames * p->channels / len;
	if (p->driver != NULL) {
		n = (int64_t)p->ao.samples / len;
		w = w < 0 || n < w ? n : w;
	}
	if (p->ref_path != NULL) {
		n = (int64_t)p->pcm_n / len;
		w = w < 0 || n < w ? n : w;
	}
	return w;
}

/* --reference: segmental SNR of what was played against a clean decode of the file, aligned
 * by cross-correlation. */
int
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
 * single loss), silence after that (repeating longer sounds worse than a gap). Each frame
 * concealed (written) counts in *cause too; returns how many (fewer: the output failed). */
int64_t
play_conceal(struct play *p, int64_t count, uint64_t *cause)
{
	int64_t done = 0;
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
		if (play_output(p, pcm, n) == -1)
			break;
		p->frames_concealed++;
		(*cause)++;
		done++;
		p->run++;
		if (p->run > p->longest_run)
			p->longest_run = p->run;
	}
	return done;
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
		if (play_conceal(p, 1, &p->frames_dummy) == 0)
			p->frames_refused++;
		return;
	}
	if (!usable || err || got != (size_t)f->samples * (size_t)f->channels) {
		if (play_conceal(p, 1, &p->frames_undecodable) == 0)
			p->frames_refused++;
		return;
	}
	if (play_output(p, pcm, got) == -1) {
		p->frames_refused++;
		return;
	}
	memcpy(p->last, pcm, got * sizeof(pcm[0]));
	p->last_n = got;
	p->frames_played++;
	p->run = 0;
}

/* A timestamp's frame index from the first frame: in frame durations, rounded (the sender's
 * 90 kHz clock is exact only on average); -1 before the first. */
int64_t
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

/* A frame from the format's receiver, in sequence order (dummy: RFC 5219's stand-in for a
 * lost ADU): place it on the media timeline by its timestamp, conceal what is missing before
 * it. */
void
play_frame(void *arg, const uint8_t *frame, size_t len, uint32_t ts, int dummy)
{
	struct play *p = arg;
	struct mp3_frame f;
	int64_t n;

	p->frames_in++;
	if (p->out_failed) {
		p->frames_refused++;
		return;
	}
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
		if (p->rate != 0) {
			/* An output holds one format: a change is refused before its first frame,
			 * and ends the run (exit 1: the rest of the stream is not in the output) */
			snprintf(p->err, sizeof(p->err), "the stream changed format after %llu "
			    "frames, from %d Hz %d channel%s to %d Hz %d channel%s: an output holds one "
			    "format, the rest of the stream is refused",
			    (unsigned long long)(p->frames_played + p->frames_concealed), p->rate,
			    p->channels, p->channels > 1 ? "s" : "", f.rate, f.channels,
			    f.channels > 1 ? "s" : "");
			p->frames_refused++;
			play_output_failed(p);
			return;
		}
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
	if (n > p->next_n && !p->fmt->groups && p->seq_breaks == p->seq_breaks_seen) {
		/* no sequence number missing since the frame before: the sender paused (the
		 * timestamps went on, RFC 3551 4.1), nothing was lost; spliced */
		p->pauses++;
		p->frames_paused += (uint64_t)(n - p->next_n);
		play_timeline_start(p, ts);
		n = p->next_n;
	}
	if (n > p->next_n) {
		play_conceal(p, n - p->next_n, &p->frames_gap);
		play_decoder_open(p);
	}
	play_decode(p, frame, len, &f, dummy);
	p->next_n = n + 1;
	p->seq_breaks_seen = p->seq_breaks;
}
