/* compare.c: how close a decode is to a clean one: alignment (by correlation, or in whole
 * frames), segmental SNR and intact segments, and `rtpaudio compare`. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtpaudio.h"

/* Correlation of a and b over n interleaved samples. */
static double
compare_corr(const int16_t *a, const int16_t *b, size_t n)
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
compare_align_window(const int16_t *a, const int16_t *b, size_t fb, int ca, size_t w0, size_t win,
    long maxoff, double *cp)
{
	long o, best = 0;
	double c;

	*cp = -2;
	for (o = -maxoff; o <= maxoff; o++) {
		if ((long)w0 + o < 0 || (long)w0 + o + (long)win > (long)fb)
			continue;
		c = compare_corr(a + w0 * (size_t)ca, b + (size_t)((long)w0 + o) * (size_t)ca,
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
compare_align(const int16_t *a, size_t fa, const int16_t *b, size_t fb, int ca, long maxoff)
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
		off[n] = compare_align_window(a, b, fb, ca, w0, win, maxoff, &corr[n]);
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
compare_offset(const int16_t *a, size_t fa, const int16_t *b, size_t fb, int ca, long maxoff)
{
	return compare_align(a, fa, b, fb, ca, maxoff);
}

/* Segmental SNR of out against ref (out[k + offset] is ref[k]) in dB: the mean over 20 ms
 * segments of 10 log10(signal / error), each clamped to [-10, 60] dB (a concealed segment
 * counts -10 at worst, an identical one 60); segments where the reference is silent (below
 * -60 dBFS) are left out, as is what lies outside the overlap. *nseg: segments counted. */
double
compare_segsnr(const int16_t *ref, size_t fref, const int16_t *out, size_t fout, int ch, int rate,
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
		if (k + seg <= ov && snr >= COMPARE_INTACT_DB)
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

/* The offset of out against ref in whole frames of `frame` sample frames (within
 * +-maxk frames): the one with the most identical samples over the overlap, or the least
 * mean squared difference where no offset has any. A player's output and a clean decode of
 * the file line up on a frame boundary, so a few dozen candidates do what a sample-granular
 * correlation search does with millions (too slow under emulation). */
long
compare_frame_offset(const int16_t *ref, size_t fref, const int16_t *out, size_t fout, int ch,
    long frame, long maxk)
{
	long k, best = 0;
	size_t bestsame = 0;
	double bestmse = -1;

	for (k = 0; k <= 2 * maxk; k++) {
		/* 0, -1, 1, -2, 2, ...: ties go to the smallest offset */
		long o = (k % 2 ? -(k + 1) / 2 : k / 2) * frame;
		size_t as = o < 0 ? (size_t)-o : 0, bs = o > 0 ? (size_t)o : 0, ov, i, same = 0;
		double sse = 0, mse;

		if (fref <= as || fout <= bs)
			continue;
		ov = fref - as < fout - bs ? fref - as : fout - bs;
		for (i = 0; i < ov * (size_t)ch; i++) {
			double d = (double)ref[as * (size_t)ch + i] - out[bs * (size_t)ch + i];
			same += d == 0;
			sse += d * d;
		}
		mse = sse / (double)(ov * (size_t)ch);
		if (same > bestsame || (bestsame == 0 && (bestmse < 0 || mse < bestmse))) {
			bestsame = same;
			bestmse = mse;
			best = o;
		}
	}
	return best;
}

/* compare --quality: the quality figures of OUT against REF at the frame offset. */
static void
compare_quality(const int16_t *a, size_t fa, const int16_t *b, size_t fb, int ca, int rate,
    long frame, long maxk)
{
	long off = compare_frame_offset(a, fa, b, fb, ca, frame, maxk);
	size_t nseg;
	double intact, snr = compare_segsnr(a, fa, b, fb, ca, rate, off, &nseg, &intact);

	printf("intact_segments_pct %.2f segsnr_db %.2f segments %zu offset %ld\n", intact, snr,
	    nseg, off);
}

/* REF: a WAV file, or an MP3 file decoded cleanly (libmpg123, no gapless trimming). */
static int16_t *
compare_read_ref(const char *path, size_t *n, int *rate, int *ch, char *err, size_t errlen)
{
	char magic[4] = "";
	FILE *fp = fopen(path, "rb");

	if (fp != NULL) {
		if (fread(magic, 1, 4, fp) != 4)
			memset(magic, 0, sizeof(magic));
		fclose(fp);
	}
	if (fp == NULL || memcmp(magic, "RIFF", 4) == 0)
		return wav_read(path, n, rate, ch, err, errlen);
	return ref_decode(path, n, rate, ch, err, errlen);
}

static void
compare_usage(FILE *fp)
{
	fprintf(fp, "usage: rtpaudio compare [--max-offset FRAMES] [--exact] [--min-corr C] "
	    "[--count-tolerance FRAMES] REF.wav OUT.wav\n"
	    "       rtpaudio compare --quality [--frame SAMPLES] [--max-frames K] REF OUT.wav\n"
	    "  Finds the offset of OUT against REF (in sample frames; positive: OUT starts later),\n"
	    "  prints counts, identical samples and correlation over the overlap, and exits 0\n"
	    "  when the criteria hold (--exact: offset 0, same length, every sample equal).\n"
	    "  --quality: REF is a WAV or MP3 file (decoded cleanly); OUT is aligned on it in\n"
	    "  whole MPEG frames (--frame, default 1152 samples; within --max-frames, default\n"
	    "  40) and the line printed holds intact_segments_pct (the share of REF's 20 ms\n"
	    "  segments OUT reproduces at 20 dB SNR or better), segsnr_db, segments, offset.\n"
	    "  See rtpaudio(1), play --reference.\n");
}

int
compare_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "max-offset", required_argument, NULL, 'm' },
		{ "exact", no_argument, NULL, 'x' },
		{ "min-corr", required_argument, NULL, 'c' },
		{ "count-tolerance", required_argument, NULL, 't' },
		{ "quality", no_argument, NULL, 'q' },
		{ "frame", required_argument, NULL, 'f' },
		{ "max-frames", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int16_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, fa, fb, ov, i, same = 0;
	int ra, rb, ca, cb, ch, exact = 0, quality = 0, rc = 2, maxd = 0;
	long maxoff = 8192, best = 0, tol = 1152, count_diff, frame = 1152, maxk = 40;
	double minc = 0.9, c;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (ch) {
		case 'm': maxoff = atol(optarg); break;
		case 'x': exact = 1; break;
		case 'c': minc = atof(optarg); break;
		case 't': tol = atol(optarg); break;
		case 'q': quality = 1; break;
		case 'f': frame = rtpaudio_num(optarg, "--frame", 1, 4608); break;
		case 'k': maxk = rtpaudio_num(optarg, "--max-frames", 0, 10000); break;
		case 'h': compare_usage(stdout); return 0;
		default: compare_usage(stderr); return 2;
		}
	}
	if (argc - optind != 2) {
		compare_usage(stderr);
		return 2;
	}
	if ((a = compare_read_ref(argv[optind], &na, &ra, &ca, err, sizeof(err))) == NULL ||
	    (b = wav_read(argv[optind + 1], &nb, &rb, &cb, err, sizeof(err))) == NULL) {
		fprintf(stderr, "rtpaudio compare: %s\n", err);
		goto done;
	}
	if (ra != rb || ca != cb || ca < 1) {
		fprintf(stderr, "rtpaudio compare: formats differ (%d Hz %d ch vs %d Hz %d ch)\n",
		    ra, ca, rb, cb);
		rc = 1;
		goto done;
	}
	fa = na / (size_t)ca;
	fb = nb / (size_t)ca;
	if (quality) {
		compare_quality(a, fa, b, fb, ca, ra, frame, maxk);
		rc = 0;
		goto done;
	}
	/* Align on several windows spread over the reference and take the offset most of them
	 * agree on: one window may fall on a concealed stretch and match anywhere. */
	best = compare_align(a, fa, b, fb, ca, maxoff);
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
		c = ov ? compare_corr(a + as * (size_t)ca, b + bs * (size_t)ca, ov * (size_t)ca) : 0;
	}
	count_diff = (long)fb - (long)fa;
	printf("ref_frames %zu out_frames %zu offset %ld overlap %zu identical %zu/%zu "
	    "max_diff %d corr %.6f\n", fa, fb, best, ov, same, ov * (size_t)ca, maxd, c);
	if (exact)
		rc = best == 0 && fa == fb && same == ov * (size_t)ca ? 0 : 1;
	else
		rc = c >= minc && labs(count_diff) <= tol + labs(best) ? 0 : 1;
done:
	free(a);
	free(b);
	return rc;
}
