/* seed.c: writes the packet harnesses' seed inputs from an MP3 file, with rtpaudio's own
 * packetizers: seed MP3 DIR writes DIR/{rtp2250,rtp3119,fec,adu}/NAME (records, fuzz.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rtpaudio.h"

#define NFR 12 /* frames per seed: small inputs fuzz faster */

struct out {
	FILE *f;
};

static FILE *
seed_open(const char *dir, const char *sub, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(path, 0755) == -1 && errno != EEXIST)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	if ((f = fopen(path, "wb")) == NULL)
		fprintf(stderr, "seed: %s: %s\n", path, strerror(errno));
	return f;
}

static void
rec(FILE *f, const uint8_t *p, size_t len)
{
	uint8_t h[2] = { (uint8_t)(len >> 8), (uint8_t)len };

	fwrite(h, 1, 2, f);
	fwrite(p, 1, len, f);
}

/* RTP packets of frames a[0..n) with the format's packer; drop: leave out every drop-th,
 * swap: send pairs in reverse order. */
static void
packets(FILE *f, int fmt, struct fmt_frame *a, size_t n, size_t space, int drop, int swap)
{
	uint8_t pl[2048], pkt[2][2048 + RTP_HDR];
	size_t off = 0, used, len, plen[2];
	struct rtp_hdr h = { 0, fmt == 3119 ? FMT_3119_PT : RTP_PT_MPA, 65530, 0, 0x1234, NULL, 0 };
	int k = 0, held = 0;

	while (n > 0) {
		if (fmt == 3119)
			len = fmt_3119_pack(a, n, &off, pl, space, &used);
		else
			len = fmt_2250_pack(a, n, &off, pl, space, &used);
		if (len == 0)
			break;
		h.ts = a[0].ts;
		h.seq++;
		k++;
		if (drop == 0 || k % drop != 0) {
			rtp_pack(pkt[held], &h);
			memcpy(pkt[held] + RTP_HDR, pl, len);
			plen[held] = RTP_HDR + len;
			if (swap && held == 0) {
				held = 1;
			} else {
				if (held)
					rec(f, pkt[1], plen[1]);
				rec(f, pkt[0], plen[0]);
				held = 0;
			}
		}
		a += used;
		n -= used;
	}
	if (held)
		rec(f, pkt[0], plen[0]);
}

int
main(int argc, char **argv)
{
	static uint8_t adubuf[NFR * (MP3_MAX_FRAME + 512)], iadu[NFR * (MP3_MAX_FRAME + 512)];
	static uint8_t fecbuf[FEC_MAXN][FMT_FEC_HDR + FMT_FEC_MAXLEN];
	struct fmt_frame fr[NFR], adu[NFR];
	struct fmt_3119_enc enc;
	struct mp3_file *m;
	struct fec *code;
	size_t n, i, at = 0, olen[FEC_MAXN];
	uint32_t ts = 0, its[NFR];
	char err[256];
	FILE *f;
	int len;

	if (argc != 3) {
		fprintf(stderr, "usage: seed MP3 DIR\n");
		return 2;
	}
	if ((m = mp3_file_new(argv[1], err, sizeof(err))) == NULL) {
		fprintf(stderr, "seed: %s: %s\n", argv[1], err);
		return 1;
	}
	n = m->nframes < NFR ? m->nframes : NFR;
	fmt_3119_enc_init(&enc);
	for (i = 0; i < n; i++) {
		struct mp3_frame fm;
		fr[i].p = m->data + m->off[i];
		mp3_frame_parse(fr[i].p, m->len - m->off[i], &fm);
		fr[i].len = (size_t)fm.len;
		fr[i].ts = ts;
		ts += mp3_frame_ts90k(&fm);
		len = fmt_3119_adu(&enc, fr[i].p, fr[i].len, adubuf + at, sizeof(adubuf) - at);
		if (len < 0) {
			fprintf(stderr, "seed: frame %zu is not layer III\n", i);
			return 1;
		}
		adu[i].p = adubuf + at;
		adu[i].len = (size_t)len;
		adu[i].ts = fr[i].ts;
		its[i] = fr[i].ts;
		at += (size_t)len;
	}
#define SEED(sub, name, body) do { \
	if ((f = seed_open(argv[2], sub, name)) == NULL) \
		return 1; \
	body; \
	fclose(f); \
} while (0)
	SEED("rtp2250", "plain", packets(f, 2250, fr, n, 1400, 0, 0));
	SEED("rtp2250", "fragments", packets(f, 2250, fr, n, 200, 0, 0));
	SEED("rtp2250", "lossy", packets(f, 2250, fr, n, 200, 3, 0));
	SEED("rtp2250", "reordered", packets(f, 2250, fr, n, 1400, 0, 1));
	SEED("rtp3119", "plain", packets(f, 3119, adu, n, 1400, 0, 0));
	SEED("rtp3119", "fragments", packets(f, 3119, adu, n, 150, 0, 0));
	SEED("rtp3119", "lossy", packets(f, 3119, adu, n, 400, 3, 1));
	{
		struct fmt_frame ia[NFR];
		memcpy(ia, adu, sizeof(ia));
		fmt_3119_interleave(ia, n, 4, iadu, its);
		for (i = 0; i < n; i++)
			ia[i].ts = its[i];
		SEED("rtp3119", "interleaved", packets(f, 3119, ia, n, 1400, 0, 0));
		SEED("adu", "interleaved", {
			for (i = 0; i < n; i++) {
				uint8_t r[5 + MP3_MAX_FRAME + 512];
				r[0] = (uint8_t)(its[i] >> 24); r[1] = (uint8_t)(its[i] >> 16);
				r[2] = (uint8_t)(its[i] >> 8); r[3] = (uint8_t)its[i];
				r[4] = 1;
				memcpy(r + 5, ia[i].p, ia[i].len);
				rec(f, r, 5 + ia[i].len);
			}
		});
	}
	SEED("adu", "plain", {
		for (i = 0; i < n; i++) {
			uint8_t r[5 + MP3_MAX_FRAME + 512];
			if (i == 5)
				continue; /* one lost: a dummy */
			r[0] = (uint8_t)(adu[i].ts >> 24); r[1] = (uint8_t)(adu[i].ts >> 16);
			r[2] = (uint8_t)(adu[i].ts >> 8); r[3] = (uint8_t)adu[i].ts;
			r[4] = 3;
			memcpy(r + 5, adu[i].p, adu[i].len);
			rec(f, r, 5 + adu[i].len);
		}
	});
	/* poc-fec: groups of 4 ADUs in 6 packets, one group whole, one with two lost */
	if ((code = fec_new(4, 6)) == NULL)
		return 1;
	SEED("fec", "groups", {
		int g;
		for (g = 0; g < 2 && 4 * (size_t)g + 4 <= n; g++) {
			int k;
			if (fmt_fec_group(code, adu + 4 * g, g, 26122 * (unsigned)(g + 1), fecbuf,
			    olen) == -1)
				return 1;
			for (k = 0; k < 6; k++)
				if (g == 0 || (k != 1 && k != 2))
					rec(f, fecbuf[k], olen[k]);
		}
	});
	fec_free(code);
	mp3_file_free(m);
	return 0;
}
