/* match.c: thttpd's URL patterns: alternatives split by '|', '?' one byte, '*' within one path
 * segment, '**' across segments; matched against the path without its leading '/'. */
#include <string.h>

#include "match.h"

static int
match_one(const char *p, size_t plen, const char *s)
{
	size_t i, span;

	for (i = 0; i < plen; i++, s++) {
		if (p[i] == '*') {
			const char *rest;
			if (i + 1 < plen && p[i + 1] == '*') {
				i++;
				span = strlen(s);
			} else {
				span = strcspn(s, "/");
			}
			rest = p + i + 1;
			/* Longest first, as thttpd: the outcome is the same, a match is a match. */
			for (;;) {
				if (match_one(rest, plen - i - 1, s + span))
					return 1;
				if (span-- == 0)
					return 0;
			}
		}
		if (p[i] == '?' && *s != '\0')
			continue;
		if (p[i] != *s)
			return 0;
	}
	return *s == '\0';
}

int
match_pattern(const char *pattern, const char *path)
{
	const char *p = pattern, *bar;

	while (*path == '/')
		path++;
	for (;;) {
		while (*p == '/')
			p++; /* a leading slash means nothing: paths are root-relative */
		bar = strchr(p, '|');
		if (match_one(p, bar != NULL ? (size_t)(bar - p) : strlen(p), path))
			return 1;
		if (bar == NULL)
			return 0;
		p = bar + 1;
	}
}
