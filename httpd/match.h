/* match.h: thttpd's URL patterns (match.c). */
#ifndef SCTPHTTPD_MATCH_H
#define SCTPHTTPD_MATCH_H


int match_pattern(const char *pattern, const char *path);

#endif
