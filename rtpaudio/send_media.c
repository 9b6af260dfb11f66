/* send_media.c: `rtpaudio send`'s media: the files' frames (3119: their ADUs, interleaved)
 * and the SDP that describes the stream. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "send.h"

/* RFC 5219: each frame becomes its ADU (its own main data gathered from the reservoir), one
 * encoder per file: no reservoir crosses files. An ADU is at most its frame + 511 bytes. */
static int
send_adus(struct send *s)
{
	struct fmt_3119_enc *e;
	size_t k = 0, i, total = 0, at = 0;
	int f, n;

	for (i = 0; i < s->nfr; i++)
		total += s->fr[i].len + 512;
	if ((s->adu = malloc(total)) == NULL || (e = malloc(sizeof(*e))) == NULL) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return -1;
	}
	for (f = 0; f < s->nfiles; f++) {
		fmt_3119_enc_init(e);
		for (i = 0; i < s->files[f]->nframes; i++, k++) {
			n = fmt_3119_adu(e, s->fr[k].p, s->fr[k].len, s->adu + at, total - at);
			if (n < 0) {
				struct mp3_frame hf;
				snprintf(s->err, sizeof(s->err), "--format %s: frame %zu of file %d "
				    "is MPEG layer %d, not layer III: its ADUs need layer III",
				    s->fmt->name, i, f + 1,
				    mp3_header_parse(s->fr[k].p, s->fr[k].len, &hf) > 0 ? hf.layer : 0);
				free(e);
				return -1;
			}
			s->fr[k].p = s->adu + at;
			s->fr[k].len = (size_t)n;
			at += (size_t)n;
		}
	}
	free(e);
	if (s->interleave > 0) {
		/* the timestamps as the clocks will run, in media order, then the new order */
		uint64_t rem = 0, num;
		uint32_t t = 0;
		if ((s->rel_ts = calloc(s->nfr, sizeof(*s->rel_ts))) == NULL ||
		    (s->iadu = malloc(at ? at : 1)) == NULL) {
			snprintf(s->err, sizeof(s->err), "out of memory");
			return -1;
		}
		for (k = 0; k < s->nfr; k++) {
			s->rel_ts[k] = t;
			num = rem + (uint64_t)s->fr_samples[k] * RTP_CLOCK_MPA;
			t += (uint32_t)(num / s->fr_rate[k]);
			rem = num % s->fr_rate[k];
		}
		fmt_3119_interleave(s->fr, s->nfr, s->interleave, s->iadu, s->rel_ts);
	}
	return 0;
}

/* One stream, one format: a player's output (a WAV) holds one, so a frame of another rate,
 * channel count or frame length than the first file's first is refused before anything is
 * sent. */
static int
send_format_check(struct send *s, char **paths, int f, size_t i, const struct mp3_frame *b)
{
	const struct mp3_frame *a = &s->files[0]->first;

	if (a->rate == b->rate && a->channels == b->channels && a->samples == b->samples)
		return 0;
	snprintf(s->err, sizeof(s->err), "%s: frame %zu is %d Hz, %d channel%s, %d samples; "
	    "%s begins with %d Hz, %d channel%s, %d samples: one stream has one format (send "
	    "them as two streams)", paths[f], i, b->rate, b->channels, b->channels > 1 ? "s" : "",
	    b->samples, paths[0], a->rate, a->channels, a->channels > 1 ? "s" : "", a->samples);
	return -1;
}

int
send_load(struct send *s, char **paths, int n)
{
	size_t i, k = 0, total = 0;
	int f;

	if ((s->files = calloc((size_t)n, sizeof(*s->files))) == NULL)
		return -1;
	for (f = 0; f < n; f++) {
		if ((s->files[f] = mp3_file_new(paths[f], s->err, sizeof(s->err))) == NULL)
			return -1;
		s->nfiles++;
		total += s->files[f]->nframes;
	}
	s->fr = calloc(total, sizeof(*s->fr));
	s->fr_samples = calloc(total, sizeof(*s->fr_samples));
	s->fr_rate = calloc(total, sizeof(*s->fr_rate));
	if (s->fr == NULL || s->fr_samples == NULL || s->fr_rate == NULL) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return -1;
	}
	for (f = 0; f < n; f++) {
		struct mp3_file *m = s->files[f];
		for (i = 0; i < m->nframes; i++, k++) {
			struct mp3_frame fm;
			const uint8_t *p = m->data + m->off[i];
			mp3_header_parse(p, m->len - m->off[i], &fm);
			if (send_format_check(s, paths, f, i, &fm) == -1)
				return -1;
			s->fr[k].p = p;
			s->fr[k].len = (size_t)fm.len;
			s->fr_samples[k] = (uint32_t)fm.samples;
			s->fr_rate[k] = (uint32_t)fm.rate;
		}
	}
	s->nfr = total;
	return s->fmt->adus ? send_adus(s) : 0;
}

int
send_sdp(struct send *s)
{
	struct tp_addrs a;
	char host[64];
	const char *ip4;
	FILE *fp;
	int port;

	if (tp_addrs_parse(s->dest, AF_UNSPEC, &a, s->err, sizeof(s->err)) == -1)
		return -1;
	tp_addr_str((struct sockaddr *)&a.a[0], a.len[0], host, sizeof(host));
	if (a.a[0].ss_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&a.a[0];
		port = ntohs(sin6->sin6_port);
		ip4 = "IP6";
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&a.a[0];
		port = ntohs(sin->sin_port);
		ip4 = "IP4";
	}
	/* tp_addr_str prints "host:port" or "[v6]:port": keep the host part */
	{
		char *c = strrchr(host, ':');
		if (c != NULL)
			*c = '\0';
		if (host[0] == '[') {
			memmove(host, host + 1, strlen(host));
			host[strlen(host) - 1] = '\0';
		}
	}
	if ((fp = fopen(s->sdp, "w")) == NULL) {
		snprintf(s->err, sizeof(s->err), "%s: %s", s->sdp, strerror(errno));
		return -1;
	}
	fprintf(fp, "v=0\r\no=- %u 1 IN %s %s\r\ns=rtpaudio\r\nc=IN %s %s\r\nt=0 0\r\n"
	    "m=audio %d RTP/AVP %d\r\na=rtpmap:%d %s/%d\r\n",
	    s->ssrc, ip4, host, ip4, host, port, s->pt, s->pt,
	    s->fmt->sdp_name, RTP_CLOCK_MPA);
	return fclose(fp) == 0 ? 0 : -1;
}
