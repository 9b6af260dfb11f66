/* play.c: `rtpaudio play`: receive (UDP sockets, RTCP's among them, or a connection), the
 * run. The command line is in play_cli.c, the playout schedule and the stream's end in
 * play_sched.c, the frames' decoding and timeline in play_decode.c, the source validation in
 * play_source.c, RTCP's messages in play_rtcp.c, the report in play_report.c; the payload
 * format's own work in its fmt_NAME.c (fmt.h). The calls go one way, down: play.c ->
 * play_source.c -> play_rtcp.c -> play_sched.c -> play_decode.c (rtpaudio-structure.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "play.h"

static void
play_idle(struct ev_loop *loop, void *arg)
{
	struct play *p = arg;
	uint64_t now = ev_clock_us();

	if (now - p->last_rx_us >= (uint64_t)p->idle_ms * 1000) {
		play_end(p, PLAY_END_IDLE);
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
		play_end(p, PLAY_END_IDLE);
	else if (p->fd != -1 && p->pk_datagrams > 0)
		play_idle(loop, p);
}

static void
play_stop(struct ev_loop *loop, void *arg)
{
	(void)loop;
	play_end(arg, PLAY_END_DURATION);
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
	    (unsigned long long)(p->fmt->groups ? p->rx_packets : p->jb->received),
	    (unsigned long long)p->jb->lost, (unsigned long long)(p->jb->late + p->fec_late),
	    (unsigned long long)p->frames_played, (unsigned long long)p->frames_concealed,
	    p->longest_run * fdur, rtcp_rx_jitter_ms(&p->rx), (unsigned long long)p->rr_sent);
	ev_timer_start(loop, &p->stats_t, p->stats_ms * 1000ull, play_stats_tick, p);
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
	if (p->fmt->groups) {
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
		switch (p->fmt->rx_put(p->frx, buf, len, 0, 0)) {
		case FMT_FEC_TAKEN:
			p->rx_packets++;
			p->fec_ok++;
			break;
		case FMT_FEC_DUP:
			p->pk_duplicates++;
			break;
		case FMT_FEC_LATE: /* its group was played out without it */
			p->rx_packets++;
			p->fec_late++;
			break;
		default:
			p->bad_packets++;
		}
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
		p->src_addr = p->pk_from;
		p->src_addrlen = p->pk_fromlen;
		play_locked(p);
	}
	if (h.ssrc == p->ssrc && !play_same_addr(p)) {
		p->other_ssrc++; /* RFC 3550 8.2: a collision or a loop; the first address keeps it */
	} else if (h.ssrc != p->ssrc) {
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

void
play_udp(struct ev_loop *loop, int fd, unsigned events, void *arg)
{
	struct play *p = arg;
	uint8_t buf[65536];
	ssize_t n;

	(void)loop;
	(void)events;
	for (;;) {
		p->pk_fromlen = sizeof(p->pk_from);
		if (p->eos || (n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&p->pk_from,
		    &p->pk_fromlen)) < 0)
			break;
		play_packet(p, buf, (size_t)n);
	}
	p->pk_fromlen = 0;
}

/* The sender's BYE ends the stream. It comes on a socket of its own on UDP: after a stall,
 * one wakeup may hand it over before the media socket's last packets, which were sent before
 * it, so those are read first. */
static void
play_bye(struct play *p)
{
	if (p->fd != -1)
		play_udp(p->loop, p->fd, 0, p);
	play_end(p, PLAY_END_BYE);
}

/* UDP's RTCP socket */
static void
play_rtcp_udp(struct ev_loop *loop, int fd, unsigned events, void *arg)
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
		if (play_rtcp_msg(p, buf, (size_t)n))
			play_bye(p);
	}
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
			/* the sender's end on a connection: its close, orderly or reset (a
			 * close with our RTCP unread is a reset) */
			play_end(p, rc == TP_EOF ? PLAY_END_CLOSED : PLAY_END_RESET);
			return;
		}
		p->msglen += got;
		if (!(mi.flags & TP_F_EOR)) {
			if (p->msglen == sizeof(p->msg))
				p->msglen = 0; /* larger than any packet we take: drop it */
			continue;
		}
		if (play_is_rtcp(p, p->msg, p->msglen, &mi)) {
			if (play_rtcp_msg(p, p->msg, p->msglen))
				play_bye(p);
		} else
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
		play_end(p, PLAY_END_RESET);
}

int
play_main(int argc, char **argv)
{
	struct play p;
	int rc;

	memset(&p, 0, sizeof(p));
	p.fd = p.rtcp_fd = -1;
	if ((rc = play_cli(&p, argc, argv)) != PLAY_CLI_RUN)
		return rc;
	p.rc = 1;
	if (rtpaudio_net_check(&p.net, p.err, sizeof(p.err)) == -1)
		goto bad;
	rtcp_rx_init(&p.rx, p.fmt->clock);
	{
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		p.my_ssrc = (uint32_t)(t.tv_nsec ^ (t.tv_sec << 12) ^ (getpid() << 8));
	}
	p.pt = p.fmt->pt;
	if ((p.frx = p.fmt->rx_new(play_frame, &p)) == NULL) {
		snprintf(p.err, sizeof(p.err), "out of memory");
		goto bad;
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
		    ev_fd_set(p.loop, p.rtcp_fd, EV_READ, play_rtcp_udp, &p) == -1) {
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
	play_end(&p, PLAY_END_NONE);
	if (wav_close(&p.out) == -1 && !p.out_failed) {
		snprintf(p.err, sizeof(p.err), "%s: write failed", p.out_path);
		p.out_failed = 1;
	}
	aout_close(&p.ao);
	if (p.frames_played + p.frames_concealed == 0) {
		/* no audio: the report says why, the output (empty, not a WAV) goes; only a
		 * regular file (-o /dev/full, a device, a FIFO stay) */
		struct stat st;
		play_report(&p);
		if (p.out_path != NULL && strcmp(p.out_path, "-") != 0 &&
		    stat(p.out_path, &st) == 0 && S_ISREG(st.st_mode))
			unlink(p.out_path);
		if (p.out_failed)
			; /* the output's error is the reason */
		else if (p.pk_datagrams == 0)
			snprintf(p.err, sizeof(p.err), "nothing received on %s (%s)", p.listen,
			    p.net.transport);
		else
			snprintf(p.err, sizeof(p.err), "no audio: %llu packets received, none of "
			    "them played (see the accounting)", (unsigned long long)p.pk_datagrams);
		goto bad;
	}
	/* the report comes whatever failed; then what was played is what the output holds,
	 * or the run failed (the report says so too) */
	rc = p.ref_path != NULL && !p.out_failed ? play_reference(&p) : 0;
	play_report(&p);
	if (rc == -1 || p.out_failed)
		goto bad;
	if (p.out_path != NULL || p.driver != NULL || p.ref_path != NULL) {
		int64_t w = play_frames_written(&p);
		if (w != (int64_t)(p.frames_played + p.frames_concealed)) {
			snprintf(p.err, sizeof(p.err), "the output holds %lld frames, the timeline "
			    "%llu", (long long)w,
			    (unsigned long long)(p.frames_played + p.frames_concealed));
			goto bad;
		}
	}
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
	if (p.frx != NULL)
		p.fmt->rx_free(p.frx);
	if (p.loop != NULL)
		ev_free(p.loop);
	return p.rc;
}
