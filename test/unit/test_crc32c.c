/* test_crc32c.c: CRC32c (lib/tp/usrsctp/tp_crc32c.c) against RFC 3720's vectors, and SCTP packets' checksums
 * set and checked; run with and without SCTPAPPS_CRC32C_SW (test/unit/crc32c.sh), so that the
 * CPU's instruction and the table code both pass, and agree at every length and alignment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../lib/tp/usrsctp/tp_crc32c.h"

/* RFC 3720 B.4 and the usual check value of "123456789". */
static void
test_vectors(void **state)
{
	unsigned char b[32];
	int i;

	(void)state;
	memset(b, 0, sizeof(b));
	assert_int_equal(tp_crc32c(b, 32), 0x8a9136aa);
	memset(b, 0xff, sizeof(b));
	assert_int_equal(tp_crc32c(b, 32), 0x62a8ab43);
	for (i = 0; i < 32; i++)
		b[i] = (unsigned char)i;
	assert_int_equal(tp_crc32c(b, 32), 0x46dd794e);
	for (i = 0; i < 32; i++)
		b[i] = (unsigned char)(31 - i);
	assert_int_equal(tp_crc32c(b, 32), 0x113fdb5c);
	assert_int_equal(tp_crc32c("123456789", 9), 0xe3069283);
	assert_int_equal(tp_crc32c("", 0), 0);
}

/* Every length from 0 to 300 and every start in an 8-byte word gives the bitwise CRC's value. */
static uint32_t
crc_bitwise(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (n-- > 0) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1) ? 0x82f63b78u : 0);
	}
	return ~c;
}

static void
test_lengths_alignments(void **state)
{
	unsigned char b[320];
	size_t n, off;

	(void)state;
	srand(7);
	for (n = 0; n < sizeof(b); n++)
		b[n] = (unsigned char)rand();
	for (off = 0; off < 8; off++)
		for (n = 0; n + off <= 300; n++)
			assert_int_equal(tp_crc32c(b + off, n), crc_bitwise(b + off, n));
}

/* An SCTP packet: the checksum over the packet with its field zero, low byte first; any bit
 * flipped anywhere is caught; a packet shorter than the common header is refused. */
static void
test_sctp_packet(void **state)
{
	unsigned char p[100], q[100];
	uint32_t c;
	size_t i;
	int bit;

	(void)state;
	for (i = 0; i < sizeof(p); i++)
		p[i] = (unsigned char)(i * 7 + 3);
	tp_crc32c_sctp_set(p, sizeof(p));
	memcpy(q, p, sizeof(q));
	memset(q + 8, 0, 4);
	c = tp_crc32c(q, sizeof(q));
	assert_int_equal(p[8], c & 0xff);
	assert_int_equal(p[11], c >> 24);
	assert_true(tp_crc32c_sctp_ok(p, sizeof(p)));
	for (i = 0; i < sizeof(p); i++)
		for (bit = 0; bit < 8; bit++) {
			p[i] ^= (unsigned char)(1 << bit);
			assert_false(tp_crc32c_sctp_ok(p, sizeof(p)));
			p[i] ^= (unsigned char)(1 << bit);
		}
	assert_true(tp_crc32c_sctp_ok(p, sizeof(p)));
	assert_false(tp_crc32c_sctp_ok(p, 11));
	tp_crc32c_sctp_set(p, 11); /* too short: left as it is */
	assert_true(tp_crc32c_sctp_ok(p, sizeof(p)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_lengths_alignments),
		cmocka_unit_test(test_sctp_packet),
	};

	return cmocka_run_group_tests_name(getenv("SCTPAPPS_CRC32C_SW") ? "crc32c_table" :
	    "crc32c", tests, NULL, NULL);
}
