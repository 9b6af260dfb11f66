/* play_sched.c: `rtpaudio play`'s playout schedule: the jitter buffer released as its packets
 * fall due, the frames a source announced but never brought concealed at its end, and the
 * stream's end. Below play.c, play_source.c and play_rtcp.c, which call it; it calls only
 * play_decode.c and the format's table (no call back up: rtpaudio-structure.sh). */
#include <stdint.h>

#include "play.h"

/* The end of a source: what its packets announced but came too late to play was silence
 * on a sound device, and is concealed here so that the statistics count it (a stream that
 * stalls to its end would otherwise look complete). Bounded by the wall clock: only the
 * frames whose play-out time has passed. */
void
play_tail(struct play *p)
{
	int64_t n, dt, frame_us, wall;
	uint64_t t0;

	if (!p->have_first || p->samples <= 0 || p->rate <= 0 || p->out_failed)
		return;
	if (p->fmt->groups) {
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
		play_conceal(p, n - p->next_n, &p->frames_tail);
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
void
play_schedule(struct play *p)
{
	const struct jitter_pkt *k;
	uint64_t now = ev_clock_us(), next;

	while ((k = jitter_get(p->jb, now, p->eos, &next)) != NULL) {
		/* a sequence break (a loss, a late packet, a restart) since the last frame
		 * tells a loss from a pause (play_frame) */
		if (!p->pk_have_prev || k->seq != (uint16_t)(p->pk_prev_seq + 1))
			p->seq_breaks++;
		p->pk_prev_seq = k->seq;
		p->pk_have_prev = 1;
		/* the depacketizer's rejects were not played: malformed */
		if (p->fmt->rx_put(p->frx, k->data, k->len, k->seq, k->ts) == -1)
			p->pk_rejected++;
		jitter_release(p->jb);
	}
	ev_timer_stop(p->loop, &p->play_t);
	if (next != 0)
		ev_timer_start(p->loop, &p->play_t, next > now ? next - now : 0, play_due, p);
}

/* The stream's end, and how it came (enum play_ended): the first end is the one */
void
play_end(struct play *p, int how)
{
	if (p->eos)
		return;
	p->eos = 1;
	if (p->ended == PLAY_END_NONE)
		p->ended = how;
	/* what is still held never became valid, or its source was never followed */
	p->pk_unvalidated += p->hold.n;
	p->other_ssrc += p->cand.n;
	p->hold.n = p->cand.n = 0;
	play_schedule(p);
	p->fmt->rx_flush(p->frx);
	play_tail(p);
	ev_stop(p->loop);
}
