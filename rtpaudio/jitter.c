/* jitter.c: playout buffer: reorders by RTP sequence number, releases each packet at the
 * first packet's arrival + its media time + the playout delay, skips holes whose successor
 * is due (the hole counts as lost) and refuses what comes after its turn or after its
 * play-out time (late: a sound device has played on without it). */
#include <stdlib.h>
#include <string.h>

#include "rtpaudio.h"

#define JITTER_SEEN(j, s) ((j)->seen[(s) >> 3] & (1u << ((s) & 7)))

static void
jitter_seen_set(struct jitter *j, uint16_t s, int on)
{
	if (on)
		j->seen[s >> 3] |= (uint8_t)(1u << (s & 7));
	else
		j->seen[s >> 3] &= (uint8_t)~(1u << (s & 7));
}

struct jitter *
jitter_new(uint32_t delay_ms)
{
	struct jitter *j;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		return NULL;
	if ((j->slot = calloc(JITTER_SLOTS, sizeof(*j->slot))) == NULL ||
	    (j->seen = calloc(65536 / 8, 1)) == NULL) {
		jitter_free(j);
		return NULL;
	}
	j->delay_us = delay_ms * 1000u;
	return j;
}

void
jitter_free(struct jitter *j)
{
	if (j == NULL)
		return;
	free(j->slot);
	free(j->seen);
	free(j);
}

/* When a packet of timestamp ts is to be played. */
static uint64_t
jitter_due_ts(const struct jitter *j, uint32_t ts)
{
	int32_t dt = rtp_ts_diff(ts, j->ts0);
	int64_t us = (int64_t)dt * 1000000 / RTP_CLOCK_MPA;

	if (us < 0)
		us = 0;
	return j->t0_us + (uint64_t)us + j->delay_us;
}

/* the latest media time announced, by packets on time or late */
static void
jitter_ts_seen(struct jitter *j, uint32_t ts)
{
	if (!j->have_ts_max || rtp_ts_diff(ts, j->ts_max) > 0)
		j->ts_max = ts;
	j->have_ts_max = 1;
}

/* The time a packet had to spare: its play-out time - now (negative: late), the least kept. */
static void
jitter_slack(struct jitter *j, uint32_t ts, uint64_t now_us, int late)
{
	int64_t slack = (int64_t)jitter_due_ts(j, ts) - (int64_t)now_us;

	if (late && slack > 0)
		slack = 0; /* its turn has passed (a hole skipped) */
	if (!j->have_slack || slack < j->slack_min_us)
		j->slack_min_us = slack;
	j->have_slack = 1;
}

/* A packet after its play-out time: counted, and how late it came kept. */
static void
jitter_late(struct jitter *j, uint32_t ts, uint64_t now_us)
{
	j->late++;
	jitter_slack(j, ts, now_us, 1);
}

/* A timestamp jump (jitter.h): the schedule moves so that this packet is on time. */
static void
jitter_jump(struct jitter *j, uint16_t seq, uint32_t ts, uint64_t now_us)
{
	int64_t off = (int64_t)rtp_ts_diff(ts, j->ts0) * 1000000 / RTP_CLOCK_MPA +
	    (int64_t)j->t0_us - (int64_t)now_us;
	int64_t dev = off - j->jump_off_us;

	if (off <= JITTER_JUMP_US && off >= -JITTER_JUMP_US) {
		j->jump_run = 0;
		return;
	}
	if (j->jump_run > 0 && seq == (uint16_t)(j->jump_seq + 1) && dev <= JITTER_JUMP_TOL_US &&
	    dev >= -JITTER_JUMP_TOL_US) {
		j->jump_run++;
	} else {
		j->jump_run = 1;
		j->jump_off_us = off;
	}
	j->jump_seq = seq;
	if (j->jump_run >= JITTER_JUMP_RUN) {
		j->ts0 = ts;
		j->t0_us = now_us;
		j->jump_run = 0;
		j->rebases++;
	}
}

/* Returns 0 when kept, 1 when refused (duplicate, late, outside the window, too big). */
int
jitter_put(struct jitter *j, uint16_t seq, uint32_t ts, const uint8_t *p, size_t len,
    uint64_t now_us)
{
	struct jitter_pkt *s;
	int d;

	if (len > JITTER_PKT) {
		j->too_big++;
		return 1;
	}
	if (!j->started) {
		j->started = 1;
		j->next = j->highest = seq;
		j->ts0 = ts;
		j->t0_us = now_us;
	}
	jitter_jump(j, seq, ts, now_us);
	d = rtp_seq_diff(seq, j->next);
	if (d < 0 && !j->released && -d < JITTER_SLOTS / 2 &&
	    rtp_seq_diff(j->highest, seq) < JITTER_SLOTS) {
		/* Nothing played yet: an earlier packet overtaken by the first one (unordered
		 * delivery) still has its turn. */
		j->next = seq;
		d = 0;
	}
	if (d < 0) {
		if (JITTER_SEEN(j, seq))
			j->duplicates++;
		else
			jitter_late(j, ts, now_us);
		return 1;
	}
	if (rtp_seq_diff(seq, j->next) >= JITTER_SLOTS) {
		j->too_big++;
		return 1;
	}
	s = &j->slot[seq % JITTER_SLOTS];
	if (JITTER_SEEN(j, seq) || (s->used && s->seq == seq)) {
		j->duplicates++;
		return 1;
	}
	jitter_ts_seen(j, ts);
	if (now_us > jitter_due_ts(j, ts)) {
		/* its time has passed: the hole it leaves is not lost, it came late */
		jitter_seen_set(j, seq, 1);
		jitter_late(j, ts, now_us);
		return 1;
	}
	jitter_slack(j, ts, now_us, 0);
	s->used = 1;
	s->seq = seq;
	s->ts = ts;
	s->len = len;
	memcpy(s->data, p, len);
	jitter_seen_set(j, seq, 1);
	j->received++;
	j->count++;
	if (rtp_seq_diff(seq, j->highest) > 0)
		j->highest = seq;
	return 0;
}

/* The packet to play now, in sequence order, or NULL with *next_us the time the next one is
 * due (0: the buffer is empty). flush releases everything at once (end of stream). The
 * caller hands the packet back with jitter_release before the next call. */
const struct jitter_pkt *
jitter_get(struct jitter *j, uint64_t now_us, int flush, uint64_t *next_us)
{
	struct jitter_pkt *s;
	int i;

	*next_us = 0;
	if (j->count == 0)
		return NULL;
	for (i = 0; i < JITTER_SLOTS; i++) {
		uint16_t seq = (uint16_t)(j->next + i);
		s = &j->slot[seq % JITTER_SLOTS];
		if (!s->used || s->seq != seq)
			continue;
		if (!flush && jitter_due_ts(j, s->ts) > now_us) {
			*next_us = jitter_due_ts(j, s->ts);
			return NULL;
		}
		/* the hole before it will not be filled in time */
		for (; j->next != seq; j->next++) {
			if (!JITTER_SEEN(j, j->next))
				j->lost++; /* (a late one was counted when it came) */
			jitter_seen_set(j, (uint16_t)(j->next + 32768), 0);
		}
		return s;
	}
	return NULL;
}

void
jitter_release(struct jitter *j)
{
	struct jitter_pkt *s = &j->slot[j->next % JITTER_SLOTS];

	if (s->used && s->seq == j->next) {
		s->used = 0;
		j->count--;
	}
	j->released = 1;
	/* keep the duplicate window half the sequence space wide */
	jitter_seen_set(j, (uint16_t)(j->next + 32768), 0);
	j->next++;
}
