/* tp_crc32c_none.c: no CRC32c instruction in this build (not x86-64): the table code only. */
#include <stddef.h>
#include <stdint.h>

#include "tp_crc32c.h"

int
tp_crc32c_hw(uint32_t *c, const void *p, size_t n)
{
	(void)c;
	(void)p;
	(void)n;
	return 0;
}
