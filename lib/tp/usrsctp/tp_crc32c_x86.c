/* tp_crc32c_x86.c: CRC32c with SSE 4.2's crc32 instruction, where the CPU has it (x86-64 builds;
 * other builds have tp_crc32c_none.c, Makefile.am chooses). SCTPAPPS_CRC32C_SW in the
 * environment: the table code instead (tests compare the two). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tp_crc32c.h"

__attribute__((target("sse4.2"))) static uint32_t
tp_crc32c_sse42(uint32_t c, const unsigned char *p, size_t n)
{
	uint64_t c64 = c, v;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
	}
	c = (uint32_t)c64;
	for (; n > 0; n--, p++)
		c = __builtin_ia32_crc32qi(c, *p);
	return c;
}

int
tp_crc32c_hw(uint32_t *c, const void *p, size_t n)
{
	static int have = -1;

	if (have == -1)
		have = __builtin_cpu_supports("sse4.2") && getenv("SCTPAPPS_CRC32C_SW") == NULL;
	if (!have)
		return 0;
	*c = tp_crc32c_sse42(*c, p, n);
	return 1;
}
