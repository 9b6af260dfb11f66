/* fuzz.h: what the libFuzzer harnesses share: a check that aborts, and records in one input. */
#ifndef SCTPAPPS_FUZZ_H
#define SCTPAPPS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a crash libFuzzer records, with the line that failed. */
#define FUZZ_CHECK(c) do { \
	if (!(c)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
		abort(); \
	} \
} while (0)

/* Records of one input, as the packet harnesses read it: a 2-byte big-endian length, then
 * that many bytes (cut short at the end). Returns 1 with the next record, 0 at the end. */
struct fuzz_rec {
	const uint8_t *p, *end;
};

static inline int
fuzz_next(struct fuzz_rec *r, const uint8_t **rec, size_t *len)
{
	size_t n;

	if (r->end - r->p < 2)
		return 0;
	n = (size_t)r->p[0] << 8 | r->p[1];
	r->p += 2;
	if (n > (size_t)(r->end - r->p))
		n = (size_t)(r->end - r->p);
	*rec = r->p;
	*len = n;
	r->p += n;
	return 1;
}

/* Reads every byte so that ASan sees a frame handed out past its buffer. */
static inline unsigned
fuzz_touch(const uint8_t *p, size_t len)
{
	unsigned s = 0;
	size_t i;

	for (i = 0; i < len; i++)
		s += p[i];
	return s;
}

#endif
