/* http_chunked.c: in-place incremental decoder of the chunked transfer coding (RFC 9112 §7.1).
 * Strict, as the RFC's grammar: every line ends with CRLF (a bare LF is refused, though request
 * heads take one, RFC 9112 §2.2), and blanks after the size only as BWS before ";". Framing
 * is where a server and an intermediary must agree: bare-LF chunk lines and a lenient reading
 * of what follows chunk data are how requests have been smuggled past proxies. */
#include <string.h>

#include "http.h"

enum {
	S_SIZE0 = 0, /* first hex digit of a chunk size */
	S_SIZE,      /* more hex digits */
	S_SIZE_WS,   /* whitespace after the size (BWS): then ";" */
	S_EXT,       /* chunk extensions, skipped up to the line end */
	S_SIZE_LF,   /* CR seen at the end of the size line */
	S_DATA,
	S_DATA_END,  /* CRLF after the data */
	S_DATA_LF,
	S_TRL0,      /* start of a trailer line, or of the final empty line */
	S_TRL_NAME,
	S_TRL_VALUE,
	S_TRL_LF,
	S_END_LF,    /* CR of the final empty line seen */
	S_DONE,
	S_ERROR,
};

void
http_chunked_init(struct http_chunked *st)
{
	memset(st, 0, sizeof(*st));
}

int
http_chunked_done(const struct http_chunked *st)
{
	return st->state == S_DONE;
}

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

static int
is_value_char(unsigned char c)
{
	return (c >= 0x20 && c != 0x7f) || c == '\t';
}

/* The end of a size line: a data chunk, or the last chunk and then the trailer section. */
static unsigned
size_line_done(struct http_chunked *st)
{
	st->linelen = 0;
	return st->left > 0 ? S_DATA : S_TRL0;
}

/* After the size: BWS then extensions, or the line end (RFC 9112 §7.1.1). */
static unsigned
after_size(unsigned char c)
{
	if (c == ' ' || c == '\t')
		return S_SIZE_WS;
	if (c == ';')
		return S_EXT;
	return c == '\r' ? S_SIZE_LF : S_ERROR;
}

/* One byte outside chunk data: the next state, or S_ERROR. */
static unsigned
step(struct http_chunked *st, unsigned char c)
{
	int h;

	/* The size line's bytes, its line end (CR, LF) not counted, as for the request line. */
	if (st->state <= S_EXT && c != '\r' && c != '\n' && ++st->linelen > HTTP_CHUNK_LINE_MAX)
		return S_ERROR;
	if (st->state >= S_TRL0 && ++st->trailer_bytes > HTTP_TRAILER_MAX)
		return S_ERROR;
	switch (st->state) {
	case S_SIZE0:
	case S_SIZE:
		if ((h = hexval(c)) >= 0) {
			/* Hostile sizes: refuse before the shift would lose bits; stay an off_t. */
			if (st->left > (uint64_t)INT64_MAX >> 4)
				return S_ERROR;
			st->left = st->left << 4 | (uint64_t)h;
			return S_SIZE;
		}
		return st->state == S_SIZE0 ? S_ERROR : after_size(c);
	case S_SIZE_WS: /* BWS belongs before a ";" only */
		if (c == ' ' || c == '\t')
			return S_SIZE_WS;
		return c == ';' ? S_EXT : S_ERROR;
	case S_EXT:
		/* chunk-ext names and values (tokens, quoted strings) are not used: skip them,
		 * but no CTL, so a CR can only end the line. */
		if (c == '\r')
			return S_SIZE_LF;
		return is_value_char(c) ? S_EXT : S_ERROR;
	case S_SIZE_LF:
		return c == '\n' ? size_line_done(st) : S_ERROR;
	case S_DATA_END:
		return c == '\r' ? S_DATA_LF : S_ERROR;
	case S_DATA_LF:
		return c == '\n' ? S_SIZE0 : S_ERROR;
	case S_TRL0:
		if (c == '\r')
			return S_END_LF;
		/* obs-fold or junk: refused as in a header section. */
		return http_is_tchar(c) ? S_TRL_NAME : S_ERROR;
	case S_TRL_NAME:
		if (c == ':')
			return S_TRL_VALUE;
		return http_is_tchar(c) ? S_TRL_NAME : S_ERROR;
	case S_TRL_VALUE:
		if (c == '\r')
			return S_TRL_LF;
		return is_value_char(c) ? S_TRL_VALUE : S_ERROR;
	case S_TRL_LF:
		return c == '\n' ? S_TRL0 : S_ERROR;
	case S_END_LF:
		return c == '\n' ? S_DONE : S_ERROR;
	}
	return S_ERROR;
}

/*
 * Decode buf[0..*len) in place, going on from st. Every byte given is used up: the data
 * decoded by this call is left at buf[0..*len). Returns -2 when the body needs more bytes,
 * -1 on a malformed body (for good: later calls fail too), or, once the body has ended
 * (trailers consumed and dropped), the count of bytes that followed it, moved to just after
 * the decoded data at buf + *len (the next pipelined message, say).
 */
ssize_t
http_chunked_decode(struct http_chunked *st, char *buf, size_t *len)
{
	size_t src = 0, dst = 0, n = *len, take;

	*len = 0;
	if (st->state == S_ERROR)
		return -1;
	while (src < n && st->state != S_DONE) {
		if (st->state == S_DATA) {
			take = n - src;
			if (take > st->left)
				take = (size_t)st->left;
			memmove(buf + dst, buf + src, take);
			src += take;
			dst += take;
			st->left -= take;
			if (st->left == 0)
				st->state = S_DATA_END;
			continue;
		}
		st->state = step(st, (unsigned char)buf[src++]);
		if (st->state == S_ERROR)
			return -1;
	}
	*len = dst;
	if (st->state != S_DONE)
		return -2;
	memmove(buf + dst, buf + src, n - src);
	return (ssize_t)(n - src);
}
