/* out.c: the player's audio through libout123: a sound device driver (alsa, pulse, ...)
 * when the machine has one, or libout123's file writers (wav, raw, au); and the clean decode
 * of a reference file for --reference. */
#include <mpg123.h>
#include <out123.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtpaudio.h"

#define AOUT_DEVICES "pulse,alsa,oss,jack"

int
aout_open(struct aout *a, const char *driver, const char *file, char *err, size_t errlen)
{
	const char *name = NULL, *dev = NULL;

	memset(a, 0, sizeof(*a));
	if ((a->ao = out123_new()) == NULL) {
		snprintf(err, errlen, "libout123: out of memory");
		return -1;
	}
	out123_param_int(a->ao, OUT123_FLAGS, OUT123_QUIET);
	/* "default": the sound servers and devices, not libout123's own fallbacks (its list
	 * ends in the dummy driver, and openal spins without a device) */
	if (strcmp(driver, "default") == 0)
		driver = AOUT_DEVICES;
	if (out123_open(a->ao, driver, file) != 0) {
		if (strcmp(driver, AOUT_DEVICES) == 0)
			snprintf(err, errlen, "no sound device on this machine: libout123 could not "
			    "open any of %s (%s); use -o FILE.wav, or --driver wav -o FILE",
			    AOUT_DEVICES, out123_strerror(a->ao));
		else
			snprintf(err, errlen, "libout123 could not open driver '%s'%s%s: %s",
			    driver, file ? " for " : "", file ? file : "", out123_strerror(a->ao));
		goto bad;
	}
	if (out123_driver_info(a->ao, (char **)&name, (char **)&dev) == 0 && name != NULL)
		snprintf(a->name, sizeof(a->name), "%s", name);
	/* asked for a device and given the void: say so rather than play into nothing */
	a->dummy = strcmp(a->name, "dummy") == 0 || (strcmp(a->name, "test") == 0 &&
	    strcmp(driver, "test") != 0);
	return 0;
bad:
	out123_del(a->ao);
	a->ao = NULL;
	return -1;
}

int
aout_play(struct aout *a, const int16_t *pcm, size_t nsamples, int rate, int channels)
{
	size_t bytes = nsamples * sizeof(*pcm);

	if (a->ao == NULL)
		return 0;
	if (!a->started) {
		if (out123_start(a->ao, rate, channels, MPG123_ENC_SIGNED_16) != 0)
			return -1;
		a->started = 1;
		a->rate = rate;
		a->channels = channels;
	}
	if (rate != a->rate || channels != a->channels)
		return -1;
	if (out123_play(a->ao, (void *)(uintptr_t)pcm, bytes) != bytes)
		return -1;
	a->samples += nsamples;
	return 0;
}

void
aout_close(struct aout *a)
{
	if (a->ao == NULL)
		return;
	if (a->started)
		out123_drain(a->ao);
	out123_del(a->ao);
	a->ao = NULL;
}

/* Every frame of PATH decoded as the player decodes (no gapless trimming): interleaved
 * 16-bit samples, malloc'ed. */
int16_t *
ref_decode(const char *path, size_t *nsamples, int *rate, int *channels, char *err,
    size_t errlen)
{
	mpg123_handle *mh;
	int16_t *pcm = NULL, *np;
	size_t cap = 0, n = 0, got;
	unsigned char buf[16384];
	long r;
	int ch, enc, e;

	if ((mh = mpg123_new(NULL, &e)) == NULL) {
		snprintf(err, errlen, "mpg123: %s", mpg123_plain_strerror(e));
		return NULL;
	}
	mpg123_param(mh, MPG123_REMOVE_FLAGS, MPG123_GAPLESS, 0);
	mpg123_param(mh, MPG123_ADD_FLAGS, MPG123_QUIET, 0);
	mpg123_format_none(mh);
	mpg123_format(mh, 44100, MPG123_MONO | MPG123_STEREO, MPG123_ENC_SIGNED_16);
	mpg123_format(mh, 48000, MPG123_MONO | MPG123_STEREO, MPG123_ENC_SIGNED_16);
	mpg123_format(mh, 32000, MPG123_MONO | MPG123_STEREO, MPG123_ENC_SIGNED_16);
	if (mpg123_open(mh, path) != MPG123_OK || mpg123_getformat(mh, &r, &ch, &enc) !=
	    MPG123_OK) {
		snprintf(err, errlen, "%s: %s", path, mpg123_strerror(mh));
		goto bad;
	}
	for (;;) {
		e = mpg123_read(mh, buf, sizeof(buf), &got);
		if (got > 0) {
			if (n + got / 2 > cap) {
				cap = (n + got / 2) * 2;
				if ((np = realloc(pcm, cap * sizeof(*pcm))) == NULL) {
					snprintf(err, errlen, "out of memory");
					goto bad;
				}
				pcm = np;
			}
			memcpy(pcm + n, buf, got);
			n += got / 2;
		}
		if (e == MPG123_DONE)
			break;
		if (e != MPG123_OK && e != MPG123_NEW_FORMAT) {
			snprintf(err, errlen, "%s: %s", path, mpg123_strerror(mh));
			goto bad;
		}
	}
	mpg123_delete(mh);
	*nsamples = n;
	*rate = (int)r;
	*channels = ch;
	return pcm;
bad:
	free(pcm);
	mpg123_delete(mh);
	return NULL;
}
