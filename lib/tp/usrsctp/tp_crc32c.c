/* tp_crc32c.c: CRC32c (Castagnoli, RFC 9260 appendix A) for SCTP packets: the CPU's instruction
 * where it has one (tp_crc32c_hw), else tables, 8 bytes a step. */
#include <stddef.h>
#include <stdint.h>

#include "tp_crc32c.h"

#define TP_CRC32C_POLY 0x82f63b78u /* reflected */

static uint32_t tp_crc32c_tab[8][256];
static int tp_crc32c_ready;

static void
tp_crc32c_init(void)
{
	uint32_t c;
	int i, j;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ ((c & 1) ? TP_CRC32C_POLY : 0);
		tp_crc32c_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			tp_crc32c_tab[j][i] = (tp_crc32c_tab[j - 1][i] >> 8) ^
			    tp_crc32c_tab[0][tp_crc32c_tab[j - 1][i] & 0xff];
	tp_crc32c_ready = 1;
}

static uint32_t
tp_crc32c_update(uint32_t c, const unsigned char *p, size_t n)
{
	uint32_t lo, hi;

	if (tp_crc32c_hw(&c, p, n))
		return c;
	for (; n >= 8; n -= 8, p += 8) {
		lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		    (uint32_t)p[3] << 24);
		hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
		    (uint32_t)p[7] << 24;
		c = tp_crc32c_tab[7][lo & 0xff] ^ tp_crc32c_tab[6][(lo >> 8) & 0xff] ^
		    tp_crc32c_tab[5][(lo >> 16) & 0xff] ^ tp_crc32c_tab[4][lo >> 24] ^
		    tp_crc32c_tab[3][hi & 0xff] ^ tp_crc32c_tab[2][(hi >> 8) & 0xff] ^
		    tp_crc32c_tab[1][(hi >> 16) & 0xff] ^ tp_crc32c_tab[0][hi >> 24];
	}
	for (; n > 0; n--, p++)
		c = (c >> 8) ^ tp_crc32c_tab[0][(c ^ *p) & 0xff];
	return c;
}

uint32_t
tp_crc32c(const void *buf, size_t len)
{
	if (!tp_crc32c_ready)
		tp_crc32c_init();
	return ~tp_crc32c_update(0xffffffffu, buf, len);
}

/* An SCTP packet's checksum: over the packet with its checksum field (bytes 8-11) as zero. */
static uint32_t
tp_crc32c_packet(const unsigned char *p, size_t len)
{
	static const unsigned char zero[4];
	uint32_t c;

	if (!tp_crc32c_ready)
		tp_crc32c_init();
	c = tp_crc32c_update(0xffffffffu, p, 8);
	c = tp_crc32c_update(c, zero, 4);
	return ~tp_crc32c_update(c, p + 12, len - 12);
}

void
tp_crc32c_sctp_set(void *pkt, size_t len)
{
	unsigned char *p = pkt;
	uint32_t c;

	if (len < 12)
		return;
	c = tp_crc32c_packet(p, len);
	p[8] = (unsigned char)c; /* the CRC's low byte first (RFC 9260 appendix A) */
	p[9] = (unsigned char)(c >> 8);
	p[10] = (unsigned char)(c >> 16);
	p[11] = (unsigned char)(c >> 24);
}

int
tp_crc32c_sctp_ok(const void *pkt, size_t len)
{
	const unsigned char *p = pkt;
	uint32_t c;

	if (len < 12)
		return 0;
	c = tp_crc32c_packet(p, len);
	return p[8] == (unsigned char)c && p[9] == (unsigned char)(c >> 8) &&
	    p[10] == (unsigned char)(c >> 16) && p[11] == (unsigned char)(c >> 24);
}
