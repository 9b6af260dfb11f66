/* fuzz_mp3.c: libFuzzer harness for the MP3 frame header, layer III side information, ID3v2,
 * Xing/Info and the resynchronising frame walk over a whole file in memory. */
#include <string.h>

#include "rtpaudio.h"
#include "fuzz.h"

static void
frame_sane(const struct mp3_frame *f, size_t len)
{
	FUZZ_CHECK(f->layer >= 1 && f->layer <= 3);
	FUZZ_CHECK(f->version == MP3_V1 || f->version == MP3_V2 || f->version == MP3_V25);
	FUZZ_CHECK(f->len > 4 && f->len <= MP3_MAX_FRAME && (size_t)f->len <= len);
	FUZZ_CHECK(f->channels == 1 || f->channels == 2);
	FUZZ_CHECK(f->rate >= 8000 && f->rate <= 48000);
	if (f->layer == 3) {
		FUZZ_CHECK(f->side_len > 0 && 4 + 2 * f->crc + f->side_len <= f->len);
		FUZZ_CHECK(f->main_data_here >= 0 && f->main_data_begin >= 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mp3_frame f, g, prev;
	struct mp3_file *m;
	size_t skipped, pos = 0, i;
	char err[256];
	long n, id3;
	int r;

	r = mp3_frame_parse(data, size, &f);
	FUZZ_CHECK(r >= -2 && r <= (int)size);
	if (r > 0) {
		frame_sane(&f, size);
		FUZZ_CHECK(mp3_header_parse(data, size, &g) == r);
		(void)mp3_is_info(data, (size_t)r, &f);
		FUZZ_CHECK(mp3_frame_ts90k(&f) > 0);
		/* a frame cut short is incomplete, never another frame */
		FUZZ_CHECK(mp3_frame_parse(data, (size_t)r - 1, &g) == -2);
	}
	r = mp3_header_parse(data, size, &f);
	if (r > 0 && f.layer == 3)
		(void)mp3_side_parse(data, size, &f);
	id3 = mp3_id3v2_len(data, size);
	FUZZ_CHECK(id3 >= -2);
	/* the walk rtpaudio send makes over a file */
	memset(&prev, 0, sizeof(prev));
	while (pos < size) {
		n = mp3_sync(data + pos, size - pos, pos ? &prev : NULL, &f, &skipped);
		if (n < 0)
			break;
		FUZZ_CHECK((size_t)n + (size_t)f.len <= size - pos);
		pos += (size_t)n + (size_t)f.len;
		prev = f;
	}
	m = mp3_file_from_mem(data, size, err, sizeof(err));
	if (m == NULL) {
		FUZZ_CHECK(err[0] != '\0');
		return 0;
	}
	for (i = 0; i < m->nframes; i++) {
		FUZZ_CHECK(m->off[i] < m->len);
		r = mp3_frame_parse(m->data + m->off[i], m->len - m->off[i], &f);
		FUZZ_CHECK(r > 0 && m->off[i] + (size_t)r <= m->len);
		frame_sane(&f, m->len - m->off[i]);
	}
	mp3_file_free(m);
	return 0;
}
