/* multi.c: `rtpaudio send --streams N`: one process paces N streams of the same file on one
 * event loop (UDP; RFC 2250 or RFC 5219 without interleaving), each with its own SSRC,
 * sequence and clocks, their starts spread over one frame; measures how late each packet
 * left against its due time. For the benchmark (test/perf/rtpaudio-bench.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ev.h"
#include "rtpaudio.h"

#define MULTI_HIST 7
static const uint32_t multi_edge_us[MULTI_HIST] = { 100, 500, 1000, 2000, 5000, 10000, 20000 };

struct multi_stream {
	struct multi *m;
	struct ev_timer t;
	uint64_t start_us, media_us, us_rem, ts_rem;
	uint32_t ts, ssrc;
	uint16_t seq;
	size_t next;
	int first;
};

struct multi {
	const struct multi_src *src;
	struct ev_loop *loop;
	int fd, pt, active;
	uint64_t packets, errors, late_hist[MULTI_HIST + 1], late_max_us, late_sum_us;
};

static void
multi_tick(struct ev_loop *loop, void *arg)
{
	struct multi_stream *st = arg;
	struct multi *m = st->m;
	const struct multi_src *src = m->src;
	uint8_t pkt[JITTER_PKT + RTP_HDR];
	size_t off = 0, used, len, i;
	uint64_t now = ev_clock_us(), due = st->start_us + st->media_us, late;
	int h;

	late = now > due ? now - due : 0;
	while (st->next < src->nfr && st->start_us + st->media_us <= now) {
		do {
			struct rtp_hdr hd = { 0 };
			len = src->pack(&src->fr[st->next], src->nfr - st->next, &off,
			    pkt + RTP_HDR, src->mtu - RTP_HDR, &used);
			hd.marker = st->first;
			hd.pt = m->pt;
			hd.seq = st->seq++;
			hd.ts = st->ts;
			hd.ssrc = st->ssrc;
			st->first = 0;
			rtp_pack(pkt, &hd);
			if (send(m->fd, pkt, RTP_HDR + len, 0) == -1)
				m->errors++;
			m->packets++;
			for (h = 0; h < MULTI_HIST && late >= multi_edge_us[h]; h++)
				;
			m->late_hist[h]++;
			m->late_sum_us += late;
			if (late > m->late_max_us)
				m->late_max_us = late;
		} while (used == 0 && off != 0);
		for (i = 0; i < used; i++, st->next++) {
			uint64_t num = st->ts_rem + (uint64_t)src->fr_samples[st->next] * RTP_CLOCK_MPA;
			st->ts += (uint32_t)(num / src->fr_rate[st->next]);
			st->ts_rem = num % src->fr_rate[st->next];
			num = st->us_rem + (uint64_t)src->fr_samples[st->next] * 1000000u;
			st->media_us += num / src->fr_rate[st->next];
			st->us_rem = num % src->fr_rate[st->next];
		}
	}
	if (st->next == src->nfr) {
		if (--m->active == 0)
			ev_stop(loop);
		return;
	}
	ev_timer_start(loop, &st->t, st->start_us + st->media_us - now, multi_tick, st);
}

int
multi_run(const struct multi_src *src, int fd, int pt, int nstreams, uint32_t seed, FILE *out)
{
	struct multi m;
	struct multi_stream *st;
	char err[128];
	uint64_t t0, frame_us;
	double cpu0 = rtpaudio_cpu_s(), wall;
	int i, h;

	memset(&m, 0, sizeof(m));
	m.src = src;
	m.fd = fd;
	m.pt = pt;
	if ((st = calloc((size_t)nstreams, sizeof(*st))) == NULL)
		return -1;
	if ((m.loop = ev_new(err, sizeof(err))) == NULL) {
		free(st);
		return -1;
	}
	frame_us = src->nfr > 0 ? (uint64_t)src->fr_samples[0] * 1000000u / src->fr_rate[0] : 0;
	t0 = ev_clock_us() + 10000;
	for (i = 0; i < nstreams; i++) {
		st[i].m = &m;
		st[i].ssrc = seed * 2654435761u + (uint32_t)i * 40503u;
		st[i].seq = (uint16_t)(st[i].ssrc >> 9);
		st[i].ts = st[i].ssrc * 69069u;
		st[i].first = 1;
		/* the starts spread evenly over one frame: listeners join at any time */
		st[i].start_us = t0 + frame_us * (uint64_t)i / (uint64_t)nstreams;
		ev_timer_start(m.loop, &st[i].t, st[i].start_us - ev_clock_us() + 0, multi_tick,
		    &st[i]);
		m.active++;
	}
	if (m.active > 0 && ev_run(m.loop) == -1) {
		ev_free(m.loop);
		free(st);
		return -1;
	}
	wall = (double)(ev_clock_us() - t0) / 1e6;
	fprintf(out, "streams=%d packets=%llu send_errors=%llu wall_s=%.2f cpu_s=%.2f "
	    "cpu_pct=%.1f late_mean_us=%.1f late_max_ms=%.2f", nstreams,
	    (unsigned long long)m.packets, (unsigned long long)m.errors, wall,
	    rtpaudio_cpu_s() - cpu0, wall > 0 ? 100.0 * (rtpaudio_cpu_s() - cpu0) / wall : 0,
	    m.packets ? (double)m.late_sum_us / (double)m.packets : 0,
	    (double)m.late_max_us / 1000.0);
	for (h = 0; h <= MULTI_HIST; h++) {
		uint64_t above = 0;
		int k;
		if (h == 0)
			continue;
		for (k = h; k <= MULTI_HIST; k++)
			above += m.late_hist[k];
		fprintf(out, " late_over_%uus_pct=%.3f", multi_edge_us[h - 1],
		    m.packets ? 100.0 * (double)above / (double)m.packets : 0);
	}
	fprintf(out, "\n");
	ev_free(m.loop);
	free(st);
	return 0;
}
