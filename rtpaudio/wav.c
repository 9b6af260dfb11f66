/* wav.c: 16-bit PCM WAV/raw output, WAV input, and `rtpaudio compare` for the tests. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * fixed by the first write; later writes in another format are refused. */
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
	if (fwrite(pcm, 2, nsamples, w->fp) != nsamples)
		return -1;
	w->frames += nsamples / (size_t)channels;
	return 0;
}

int
wav_close(struct wav *w)
{
	int rc = 0;

	if (w->fp == NULL)
		return 0;
	if (!w->raw && w->header_written && fseek(w->fp, 0, SEEK_SET) == 0)
		rc = wav_header(w);
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

/* Correlation of a and b over n interleaved samples. */
static double
wav_corr(const int16_t *a, const int16_t *b, size_t n)
{
	double sab = 0, saa = 0, sbb = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		sab += (double)a[i] * b[i];
		saa += (double)a[i] * a[i];
		sbb += (double)b[i] * b[i];
	}
	if (saa == 0 || sbb == 0)
		return saa == sbb ? 1.0 : 0.0;
	return sab / sqrt(saa * sbb);
}

/* Best offset of one window of a (frames w0..w0+win) in b, or 0 with *cp -2 if none fits. */
static long
wav_align_window(const int16_t *a, const int16_t *b, size_t fb, int ca, size_t w0, size_t win,
    long maxoff, double *cp)
{
	long o, best = 0;
	double c;

	*cp = -2;
	for (o = -maxoff; o <= maxoff; o++) {
		if ((long)w0 + o < 0 || (long)w0 + o + (long)win > (long)fb)
			continue;
		c = wav_corr(a + w0 * (size_t)ca, b + (size_t)((long)w0 + o) * (size_t)ca,
		    win * (size_t)ca);
		if (c > *cp + 1e-12) {
			*cp = c;
			best = o;
		}
	}
	return best;
}

/* The offset of b against a: the one most windows agree on (ties: higher correlation). */
static long
wav_align(const int16_t *a, size_t fa, const int16_t *b, size_t fb, int ca, long maxoff)
{
	enum { NWIN = 7 };
	long off[NWIN], best = 0;
	double corr[NWIN], bestc = -3;
	size_t win = 4096, w0;
	int i, j, n = 0, votes, bestv = 0;

	if (fa < win)
		win = fa;
	for (i = 0; i < NWIN && win > 0; i++) {
		w0 = (fa - win) * (size_t)(i + 1) / (NWIN + 1);
		off[n] = wav_align_window(a, b, fb, ca, w0, win, maxoff, &corr[n]);
		if (corr[n] > 0.5)
			n++;
	}
	for (i = 0; i < n; i++) {
		for (votes = 0, j = 0; j < n; j++)
			votes += labs(off[j] - off[i]) <= 1;
		if (votes > bestv || (votes == bestv && corr[i] > bestc)) {
			bestv = votes;
			bestc = corr[i];
			best = off[i];
		}
	}
	return best;
}

long
wav_offset(const int16_t *a, size_t fa, const int16_t *b, size_t fb, int ca, long maxoff)
{
	return wav_align(a, fa, b, fb, ca, maxoff);
}

/* Segmental SNR of out against ref (out[k + offset] is ref[k]) in dB: the mean over 20 ms
 * segments of 10 log10(signal / error), each clamped to [-10, 60] dB (a concealed segment
 * counts -10 at worst, an identical one 60); segments where the reference is silent (below
 * -60 dBFS) are left out, as is what lies outside the overlap. *nseg: segments counted. */
double
wav_segsnr(const int16_t *ref, size_t fref, const int16_t *out, size_t fout, int ch, int rate,
    long offset, size_t *nseg, double *intact_pct)
{
	size_t seg = (size_t)(rate > 0 ? rate / 50 : 882), as, bs, ov, k, i, n = 0, all = 0,
	    intact = 0;
	double sum = 0, floor = 32768.0 * 1e-3;

	as = offset < 0 ? (size_t)-offset : 0;
	bs = offset > 0 ? (size_t)offset : 0;
	ov = fref > as && fout > bs ? (fref - as < fout - bs ? fref - as : fout - bs) : 0;
	/* every segment of the reference after the offset: those past the played audio's end
	 * count (not intact) for the intact share, not for the mean */
	for (k = 0; as + k + seg <= fref; k += seg) {
		double sig = 0, err = 0, snr;
		for (i = (as + k) * (size_t)ch; i < (as + k + seg) * (size_t)ch; i++) {
			double r = ref[i], d = k + seg <= ov ?
			    r - out[i - as * (size_t)ch + bs * (size_t)ch] : r;
			sig += r * r;
			err += d * d;
		}
		if (sig / (double)(seg * (size_t)ch) < floor * floor)
			continue;
		snr = err > 0 ? 10 * log10(sig / err) : 60;
		all++;
		if (k + seg <= ov && snr >= WAV_INTACT_DB)
			intact++;
		if (k + seg > ov)
			continue;
		sum += snr < -10 ? -10 : snr > 60 ? 60 : snr;
		n++;
	}
	*nseg = n;
	if (intact_pct != NULL)
		*intact_pct = all ? 100.0 * (double)intact / (double)all : 0;
	return n ? sum / (double)n : 0;
}

static void
wav_usage(FILE *fp)
{
	fprintf(fp, "usage: rtpaudio compare [--max-offset FRAMES] [--exact] [--min-corr C] "
	    "[--count-tolerance FRAMES] REF.wav OUT.wav\n"
	    "  Finds the offset of OUT against REF (in sample frames; positive: OUT starts later),\n"
	    "  prints counts, identical samples and correlation over the overlap, and exits 0\n"
	    "  when the criteria hold (--exact: offset 0, same length, every sample equal).\n");
}

int
wav_compare_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "max-offset", required_argument, NULL, 'm' },
		{ "exact", no_argument, NULL, 'x' },
		{ "min-corr", required_argument, NULL, 'c' },
		{ "count-tolerance", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int16_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, fa, fb, ov, i, same = 0;
	int ra, rb, ca, cb, ch, exact = 0, rc = 2, maxd = 0;
	long maxoff = 8192, best = 0, tol = 1152, count_diff;
	double minc = 0.9, c;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (ch) {
		case 'm': maxoff = atol(optarg); break;
		case 'x': exact = 1; break;
		case 'c': minc = atof(optarg); break;
		case 't': tol = atol(optarg); break;
		case 'h': wav_usage(stdout); return 0;
		default: wav_usage(stderr); return 2;
		}
	}
	if (argc - optind != 2) {
		wav_usage(stderr);
		return 2;
	}
	if ((a = wav_read(argv[optind], &na, &ra, &ca, err, sizeof(err))) == NULL ||
	    (b = wav_read(argv[optind + 1], &nb, &rb, &cb, err, sizeof(err))) == NULL) {
		fprintf(stderr, "rtpaudio compare: %s\n", err);
		goto bad;
	}
	if (ra != rb || ca != cb || ca < 1) {
		fprintf(stderr, "rtpaudio compare: formats differ (%d Hz %d ch vs %d Hz %d ch)\n",
		    ra, ca, rb, cb);
		rc = 1;
		goto bad;
	}
	fa = na / (size_t)ca;
	fb = nb / (size_t)ca;
	/* Align on several windows spread over the reference and take the offset most of them
	 * agree on: one window may fall on a concealed stretch and match anywhere. */
	best = wav_align(a, fa, b, fb, ca, maxoff);
	/* overlap of a[k] and b[k + best] */
	{
		size_t as = best < 0 ? (size_t)-best : 0, bs = best > 0 ? (size_t)best : 0;
		ov = fa - as < fb - bs ? fa - as : fb - bs;
		if (fa < as || fb < bs)
			ov = 0;
		for (i = 0; i < ov * (size_t)ca; i++) {
			int d = a[as * (size_t)ca + i] - b[bs * (size_t)ca + i];
			if (d == 0)
				same++;
			if (abs(d) > maxd)
				maxd = abs(d);
		}
		c = ov ? wav_corr(a + as * (size_t)ca, b + bs * (size_t)ca, ov * (size_t)ca) : 0;
	}
	count_diff = (long)fb - (long)fa;
	printf("ref_frames %zu out_frames %zu offset %ld overlap %zu identical %zu/%zu "
	    "max_diff %d corr %.6f\n", fa, fb, best, ov, same, ov * (size_t)ca, maxd, c);
	if (exact)
		rc = best == 0 && fa == fb && same == ov * (size_t)ca ? 0 : 1;
	else
		rc = c >= minc && labs(count_diff) <= tol + labs(best) ? 0 : 1;
bad:
	free(a);
	free(b);
	return rc;
}
