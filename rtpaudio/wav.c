/* wav.c: 16-bit PCM WAV/raw output and WAV input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtpaudio.h"

static void
wav_le(uint8_t *p, uint32_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int
wav_header(struct wav *w)
{
	uint8_t h[44];
	uint32_t data = (uint32_t)(w->frames * 2u * (unsigned)w->channels);

	memcpy(h, "RIFF", 4);
	wav_le(h + 4, 36 + data, 4);
	memcpy(h + 8, "WAVEfmt ", 8);
	wav_le(h + 16, 16, 4);
	wav_le(h + 20, 1, 2); /* PCM */
	wav_le(h + 22, (uint32_t)w->channels, 2);
	wav_le(h + 24, (uint32_t)w->rate, 4);
	wav_le(h + 28, (uint32_t)(w->rate * w->channels * 2), 4);
	wav_le(h + 32, (uint32_t)(w->channels * 2), 2);
	wav_le(h + 34, 16, 2);
	memcpy(h + 36, "data", 4);
	wav_le(h + 40, data, 4);
	return fwrite(h, 1, sizeof(h), w->fp) == sizeof(h) ? 0 : -1;
}

/* path "-" is standard output (raw is then the only sensible choice for a pipe, but a WAV
 * header with unknown sizes is written all the same when asked). */
int
wav_open(struct wav *w, const char *path, int raw, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->raw = raw;
	w->fp = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
	if (w->fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Interleaved native-endian samples (the host is little-endian, as WAV is). The format is
 * fixed by the first write; later writes in another format are refused. Each write is
 * flushed: w->frames is what the file holds, and a write error shows at the frame it hits
 * (whose bytes wav_close cuts off). */
int
wav_write(struct wav *w, const int16_t *pcm, size_t nsamples, int rate, int channels)
{
	if (!w->header_written) {
		w->rate = rate;
		w->channels = channels;
		w->header_written = 1;
		if (!w->raw && wav_header(w) == -1)
			return -1;
	}
	if (rate != w->rate || channels != w->channels)
		return -1;
	if (fwrite(pcm, 2, nsamples, w->fp) != nsamples || fflush(w->fp) != 0) {
		w->failed = 1;
		return -1;
	}
	w->frames += nsamples / (size_t)channels;
	return 0;
}

int
wav_close(struct wav *w)
{
	int rc = 0;

	if (w->fp == NULL)
		return 0;
	if (w->failed) { /* what a failed write left: cut off, in a file (a device stays) */
		clearerr(w->fp);
		if (ftruncate(fileno(w->fp), (off_t)((w->raw ? 0 : 44) + w->frames * 2u *
		    (unsigned)w->channels)) == -1)
			rc = -1;
	}
	if (!w->raw && w->header_written && fseek(w->fp, 0, SEEK_SET) == 0)
		rc |= wav_header(w);
	if (w->fp != stdout)
		rc |= fclose(w->fp) == 0 ? 0 : -1;
	else
		rc |= fflush(w->fp) == 0 ? 0 : -1;
	w->fp = NULL;
	return rc;
}

static uint32_t
wav_get(const uint8_t *p, int n)
{
	uint32_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* 16-bit PCM WAV (any chunk order; a streaming writer's bogus data size is accepted and
 * trimmed to what the file holds). Returns interleaved samples, malloc'ed. */
int16_t *
wav_read(const char *path, size_t *nsamples, int *rate, int *channels, char *err,
    size_t errlen)
{
	FILE *fp;
	uint8_t h[12], ck[8], fmt[16];
	int16_t *pcm = NULL;
	int have_fmt = 0;
	long size;

	if ((fp = fopen(path, "rb")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fread(h, 1, 12, fp) != 12 || memcmp(h, "RIFF", 4) || memcmp(h + 8, "WAVE", 4)) {
		snprintf(err, errlen, "%s: not a WAV file", path);
		goto bad;
	}
	while (fread(ck, 1, 8, fp) == 8) {
		uint32_t len = wav_get(ck + 4, 4);
		if (memcmp(ck, "fmt ", 4) == 0) {
			if (len < 16 || fread(fmt, 1, 16, fp) != 16)
				break;
			fseek(fp, (long)(len - 16 + (len & 1)), SEEK_CUR);
			if (wav_get(fmt, 2) != 1 && wav_get(fmt, 2) != 0xfffe)
				break;
			if (wav_get(fmt + 14, 2) != 16)
				break;
			*channels = (int)wav_get(fmt + 2, 2);
			*rate = (int)wav_get(fmt + 4, 4);
			have_fmt = 1;
		} else if (memcmp(ck, "data", 4) == 0 && have_fmt) {
			long here = ftell(fp);
			fseek(fp, 0, SEEK_END);
			size = ftell(fp) - here;
			fseek(fp, here, SEEK_SET);
			if (len < (uint32_t)size && len != 0 && len != 0xffffffffu)
				size = (long)len;
			size &= ~1L;
			if ((pcm = malloc(size ? (size_t)size : 2)) == NULL ||
			    fread(pcm, 1, (size_t)size, fp) != (size_t)size) {
				free(pcm);
				pcm = NULL;
				break;
			}
			*nsamples = (size_t)size / 2;
			fclose(fp);
			return pcm;
		} else {
			fseek(fp, (long)(len + (len & 1)), SEEK_CUR);
		}
	}
	snprintf(err, errlen, "%s: not a 16-bit PCM WAV file", path);
bad:
	fclose(fp);
	return NULL;
}
