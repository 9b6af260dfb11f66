/* verify.c: body checks for --verify: CRC-32 (as zlib and cksum -o 3) and the manifest. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

static uint32_t verify_table[256];
static int verify_table_done;

static void
verify_table_init(void)
{
	uint32_t c, i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		verify_table[i] = c;
	}
	verify_table_done = 1;
}

uint32_t
verify_crc32(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;

	if (!verify_table_done)
		verify_table_init();
	crc = ~crc;
	while (n-- > 0)
		crc = verify_table[(crc ^ *b++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}

/* Lines "PATH SIZE CRC32" (CRC in hex, with or without 0x); '#' starts a comment. */
int
verify_manifest_load(struct verify_manifest *m, const char *file, char *err, size_t errlen)
{
	char line[4096], path[4096];
	unsigned long long size;
	unsigned long crc;
	struct verify_entry *e;
	FILE *f = NULL;
	int lineno = 0;

	memset(m, 0, sizeof(*m));
	if ((f = fopen(file, "r")) == NULL) {
		tp_seterr(err, errlen, "%s: %s", file, strerror(errno));
		goto bad;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (sscanf(line, "%4095s %llu %lx", path, &size, &crc) != 3) {
			tp_seterr(err, errlen, "%s:%d: expected \"PATH SIZE CRC32\"", file, lineno);
			goto bad;
		}
		if ((e = realloc(m->e, (m->n + 1) * sizeof(*e))) == NULL)
			goto oom;
		m->e = e;
		e = &m->e[m->n];
		if ((e->path = strdup(path)) == NULL)
			goto oom;
		m->n++;
		e->size = size;
		e->crc = (uint32_t)crc;
	}
	fclose(f);
	return 0;
oom:
	tp_seterr(err, errlen, "out of memory");
bad:
	if (f != NULL)
		fclose(f);
	verify_manifest_free(m);
	return -1;
}

void
verify_manifest_free(struct verify_manifest *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		free(m->e[i].path);
	free(m->e);
	m->e = NULL;
	m->n = 0;
}

/* The entry for a request path (the query is not part of it). */
const struct verify_entry *
verify_manifest_find(const struct verify_manifest *m, const char *path, size_t len)
{
	const char *q = memchr(path, '?', len);
	size_t i;

	if (q != NULL)
		len = (size_t)(q - path);
	for (i = 0; i < m->n; i++)
		if (strlen(m->e[i].path) == len && memcmp(m->e[i].path, path, len) == 0)
			return &m->e[i];
	return NULL;
}
