/* send.c: `rtpaudio send`: MP3 frames to RTP packets, paced by absolute media time. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ev.h"
#include "rtpaudio.h"
#include "send.h"
#include "tp.h"

static void send_tick(struct ev_loop *loop, void *arg);

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

static void
send_stats_tick(struct ev_loop *loop, void *arg)
{
	struct send *s = arg;

	send_lifetime_eval(s);
	send_stats_line(s, "stats");
	ev_timer_start(loop, &s->stats, s->stats_ms * 1000ull, send_stats_tick, s);
}

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

	if (s->fmt->groups && s->fec_sent < s->fec_total)
		due = s->start_us + s->fec_g0_us +
		    s->fec_dur_us * (uint64_t)s->fec_sent / (uint64_t)s->fec_total;
	if (now > due && s->ticks++ > 0) {
		if (now - due > s->late_max_us)
			s->late_max_us = now - due;
		if (now - due > SEND_LATE_US)
			s->late_sends++;
	}

	while (s->fmt->groups) {
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
	while (!s->fmt->groups && s->next < s->nfr && s->start_us + s->media_us <= now) {
		uint32_t ts = s->rel_ts != NULL ? s->ts0 + s->rel_ts[s->next] : s->ts;
		do {
			len = s->fmt->pack(&s->fr[s->next], s->nfr - s->next, &off, payload, space,
			    &used);
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
	if (!s->fmt->groups)
		due = s->start_us + s->media_us;
	ev_timer_start(loop, &s->tick, due > now ? due - now : 0, send_tick, s);
	return;
bad:
	s->rc = 1;
	ev_stop(loop);
}

/* A pause of US microseconds. On a connection it is the event loop's, not a sleep: a stack
 * that runs in the loop (usrsctp-nt) reads its acknowledgements and keeps its timers
 * meanwhile (a sleep froze it: the drain below waited its whole 5 s for nothing). */
static void
send_pause(struct send *s, uint64_t us)
{
	uint64_t now = ev_clock_us(), end = now + us;

	if (s->c == NULL) {
		usleep((useconds_t)us);
		return;
	}
	for (; now < end; now = ev_clock_us())
		if (ev_run_once(s->loop, (int)((end - now + 999) / 1000)) == -1) {
			usleep((useconds_t)(end - now));
			return;
		}
}

/* Fully reliable transports: wait (bounded: 5 s) until the peer has acknowledged everything,
 * so closing does not throw the tail away. */
static void
send_drain(struct send *s)
{
	struct tp_status st;
	uint64_t end = ev_clock_us() + 5000000;

	while (s->qlen > 0 && s->c != NULL) {
		if (tp_wait(s->c, EV_WRITE, 2000) != TP_OK || send_flush(s) == -1)
			break;
	}
	while (s->c != NULL && ev_clock_us() < end) {
		if (tp_status(s->c, &st) != TP_OK || st.unacked == 0)
			break;
		send_pause(s, 10000);
	}
}

int
send_main(int argc, char **argv)
{
	struct send s;
	int i;

	memset(&s, 0, sizeof(s));
	s.fd = s.rtcp_fd = -1;
	s.rr_rtt_us = -1;
	s.rr_rtt_min_us = -1;
	s.first = 1;
	if ((s.rc = send_cli(&s, argc, argv)) != SEND_CLI_RUN)
		goto bad;
	s.rc = 1;
	if (s.fmt->groups && ((s.code = fec_new(s.fec_k, s.fec_n)) == NULL ||
	    (s.fecbuf = malloc(FEC_MAXN * sizeof(*s.fecbuf))) == NULL)) {
		snprintf(s.err, sizeof(s.err), "out of memory");
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
	rtcp_rx_init(&s.self_rx, s.fmt->clock);
	if (send_load(&s, s.paths, s.npaths) == -1)
		goto bad;
	if ((s.q = calloc(SEND_QUEUE, sizeof(*s.q))) == NULL ||
	    (s.loop = ev_new(s.err, sizeof(s.err))) == NULL)
		goto bad;
	if (s.sdp != NULL && s.fmt->sdp_name == NULL) {
		/* an SDP of another format would send players astray */
		snprintf(s.err, sizeof(s.err), "--sdp: %s", s.fmt->no_sdp);
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
		struct multi_src ms = { s.fr, s.fr_samples, s.fr_rate, s.nfr, s.mtu, s.fmt->pack };
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
			send_pause(&s, s.start_us + s.media_us - now);
	}
	/* BYE twice: it is the player's end of stream on UDP, and UDP may lose one */
	send_rtcp(&s, 1);
	send_pause(&s, 20000);
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
