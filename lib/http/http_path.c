/* http_path.c: request path to file path: percent-decoding, then "." and ".." kept below the root. */
#include <string.h>

#include "http.h"

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Percent-decode src (a path, without the query) into dst of size bytes, NUL-terminated;
 * dst may be src (decoding only shrinks). Returns the decoded length, or -1 for a bad escape,
 * a NUL (raw or %00: it would cut the file name short), an encoded "/" (%2F: it would make a
 * separator the client did not send, slipping past checks done per segment; Apache refuses
 * it too), or no room. "+" stays "+": it means space only in form queries.
 */
ssize_t
http_path_decode(const char *src, size_t len, char *dst, size_t size)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c == '%') {
			int hi, lo;

			if (len - i < 3 || (hi = hexval((unsigned char)src[i + 1])) < 0 ||
			    (lo = hexval((unsigned char)src[i + 2])) < 0)
				return -1;
			c = (unsigned char)(hi << 4 | lo);
			if (c == '/')
				return -1;
			i += 2;
		}
		if (c == '\0' || o + 1 >= size)
			return -1;
		dst[o++] = (char)c;
	}
	if (size == 0)
		return -1;
	dst[o] = '\0';
	return (ssize_t)o;
}

/*
 * Resolve "." and ".." segments and collapse "//" in a decoded path, in place; path must
 * start with "/" and have room for a NUL after len bytes (as http_path_decode leaves it).
 * A trailing "/" stays ("/a/." gives "/a/"). Returns the new length, or -1 when the path does
 * not start with "/" or a ".." would climb above the root: the server refuses that request
 * rather than serving the root, since only an attack sends it.
 */
ssize_t
http_path_normalize(char *path, size_t len)
{
	size_t i = 1, o = 1, s, seg, slash;

	if (len == 0 || path[0] != '/')
		return -1;
	/* Invariant: path[0..o) is the result so far and ends with "/". */
	while (i < len) {
		for (s = i; i < len && path[i] != '/'; i++)
			;
		seg = i - s;
		slash = i < len;
		i += slash;
		if (seg == 0 || (seg == 1 && path[s] == '.'))
			continue;
		if (seg == 2 && path[s] == '.' && path[s + 1] == '.') {
			if (o == 1)
				return -1;
			for (o--; path[o - 1] != '/'; o--)
				;
			continue;
		}
		memmove(path + o, path + s, seg);
		o += seg;
		if (slash)
			path[o++] = '/';
	}
	path[o] = '\0';
	return (ssize_t)o;
}

/* Decode then normalize: the "." and ".." are judged after decoding, so "%2e%2e" is "..". */
ssize_t
http_path_clean(const char *src, size_t len, char *dst, size_t size)
{
	ssize_t n = http_path_decode(src, len, dst, size);

	if (n == -1)
		return -1;
	return http_path_normalize(dst, (size_t)n);
}
