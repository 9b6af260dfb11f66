/* http.h: allocation-free incremental HTTP/1.1: heads, header semantics, dates, paths, chunked. */
#ifndef SCTPAPPS_HTTP_H
#define SCTPAPPS_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/*
 * Conventions (DESIGN.md): parsers return bytes consumed, -2 when the input is incomplete
 * (call again with the same bytes plus more), -1 on error; nothing allocates, every pointer
 * out points into the caller's buffer (or to a string constant where noted).
 * Heads are parsed from the start on every call (picohttpparser style): keep the bytes and
 * call again when more arrive; a prefix of a valid head always gives -2, and once a prefix
 * gives -1 every longer one gives the same -1 and the same error.
 * Each line is found first and judged once complete, so a line past its limit is a 414/431
 * whatever it holds, and a bad byte is a 400 once its line end has arrived.
 * Line ends: CRLF, and a bare LF is accepted too (RFC 9112 §2.2 MAY); a CR not followed by
 * LF is an error (400), never a line end.
 * Versions: HTTP/1.0 and HTTP/1.1; a higher HTTP/1.x is taken as HTTP/1.1 (minor_version 1,
 * RFC 9110 §2.5); any other well-formed HTTP/x.y is HTTP_ERR_VERSION (505), anything else 400.
 */

#define HTTP_MAX_LINE_DEFAULT 8192  /* request/status line bytes, line end not counted */
#define HTTP_MAX_HEAD_DEFAULT 16384 /* header section bytes, line ends and the empty line counted */

/* Why a head was refused; http_error_status() maps it to the answer a server sends. */
enum http_error {
	HTTP_ERR_NONE = 0,
	HTTP_ERR_MALFORMED,        /* 400: syntax, CTL/NUL, obs-fold, space before ':', bare CR */
	HTTP_ERR_LINE_TOO_LONG,    /* 414: request line longer than max_line */
	HTTP_ERR_HEAD_TOO_LARGE,   /* 431: header section longer than max_head */
	HTTP_ERR_TOO_MANY_HEADERS, /* 431: more header lines than max_headers */
	HTTP_ERR_VERSION,          /* 505: well-formed HTTP/x.y with a major version other than 1 */
};

enum http_method {
	HTTP_METHOD_OTHER = 0, /* a valid token we do not know: the server answers 501 */
	HTTP_METHOD_GET, HTTP_METHOD_HEAD, HTTP_METHOD_POST, HTTP_METHOD_PUT, HTTP_METHOD_DELETE,
	HTTP_METHOD_OPTIONS, HTTP_METHOD_TRACE, HTTP_METHOD_CONNECT, HTTP_METHOD_PATCH,
};

/* The four request-target forms (RFC 9112 §3.2). */
enum http_target {
	HTTP_TARGET_ORIGIN = 0, /* /path?query */
	HTTP_TARGET_ABSOLUTE,   /* scheme://authority/path?query */
	HTTP_TARGET_AUTHORITY,  /* host:port, CONNECT only */
	HTTP_TARGET_ASTERISK,   /* *, OPTIONS only */
};

/* One header field; OWS around the value is already trimmed. Not NUL-terminated. */
struct http_header {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
};

struct http_request {
	/* In: set by the caller before the first call; the parser only reads them. */
	struct http_header *headers; /* room for max_headers entries */
	size_t max_line;             /* 0: HTTP_MAX_LINE_DEFAULT; counts leading empty lines too */
	size_t max_head;             /* 0: HTTP_MAX_HEAD_DEFAULT */
	/* Out: valid after a return >= 0; error is also set on -1 (HTTP_ERR_NONE on -2). */
	enum http_error error;
	const char *method;
	size_t method_len;
	enum http_method method_id;
	const char *target;          /* the whole request-target, as sent */
	size_t target_len;
	enum http_target form;
	const char *authority;       /* absolute- and authority-form; NULL otherwise */
	size_t authority_len;
	const char *path;            /* still percent-encoded; absolute-form with an empty path
	                                gives the constant "/"; NULL for authority/asterisk forms */
	size_t path_len;
	const char *query;           /* after '?', NULL when there is no '?' */
	size_t query_len;
	int minor_version;           /* 0 or 1: HTTP/1.0, or HTTP/1.1 (and any higher 1.x) */
	size_t num_headers;
};

struct http_response {
	/* In: as for requests (max_line bounds the status line). */
	struct http_header *headers;
	size_t max_line;
	size_t max_head;
	/* Out. */
	enum http_error error;
	int minor_version;           /* 0 or 1 */
	int status;                  /* 100..999 */
	const char *reason;          /* may be empty */
	size_t reason_len;
	size_t num_headers;
};

/* How the body of a message is delimited (RFC 9112 §6.3). */
enum http_body {
	HTTP_BODY_NONE = 0, /* no body (also Content-Length: 0) */
	HTTP_BODY_LENGTH,   /* exactly fr->length bytes */
	HTTP_BODY_CHUNKED,  /* chunked: feed it to http_chunked_decode */
	HTTP_BODY_CLOSE,    /* responses only: the body runs until the connection closes */
};

/* Why framing was refused: each means 400 and closing, but TE_UNSUPPORTED means 501. */
enum http_frame_error {
	HTTP_FR_OK = 0,
	HTTP_FR_BAD_LENGTH,      /* Content-Length not 1*DIGIT, or above INT64_MAX */
	HTTP_FR_LENGTH_CONFLICT, /* several Content-Length values that differ */
	HTTP_FR_SMUGGLING,       /* both Content-Length and Transfer-Encoding: refuse, close */
	HTTP_FR_BAD_TE,          /* chunked not last or twice, no coding, or TE in HTTP/1.0 */
	HTTP_FR_TE_UNSUPPORTED,  /* a request transfer coding other than chunked: 501 */
};

struct http_framing {
	enum http_body body;
	uint64_t length;         /* HTTP_BODY_LENGTH only */
	enum http_frame_error error;
	int smuggling;           /* 1 when error is HTTP_FR_SMUGGLING, for a quick check */
};

/* Connection tokens (http_connection). */
#define HTTP_CONN_CLOSE     0x1u
#define HTTP_CONN_KEEPALIVE 0x2u
#define HTTP_CONN_UPGRADE   0x4u

/* Range (http_range_parse). */
enum http_range_result {
	HTTP_RANGE_IGNORE = 0,    /* absent, not bytes=, or invalid: ignore it, answer 200 */
	HTTP_RANGE_OK,            /* one satisfiable range first..last (inclusive): answer 206 */
	HTTP_RANGE_MULTI,         /* several ranges: not supported, answer 200 with everything */
	HTTP_RANGE_UNSATISFIABLE, /* answer 416 with an unsatisfied-range Content-Range */
};

struct http_range {
	uint64_t first, last;    /* inclusive, both < size, when HTTP_RANGE_OK */
};

/* Chunked decoder state; zero it (or http_chunked_init) before the first call. */
struct http_chunked {
	uint64_t left;           /* data bytes left in the current chunk, or the size being read */
	unsigned state;
	size_t linelen;          /* bytes of the current size or trailer line, bounded */
	size_t trailer_bytes;    /* bytes of the trailer section, bounded */
};

#define HTTP_CHUNK_LINE_MAX 4096   /* chunk-size line with extensions, line end not counted */
#define HTTP_TRAILER_MAX    16384  /* trailer section */

#define HTTP_DATE_LEN 29 /* "Sun, 06 Nov 1994 08:49:37 GMT" */
#define HTTP_ETAG_MAX 40 /* http_etag_format: quotes and NUL included */

/* The verdict of a request's preconditions (http_preconditions). */
enum http_cond {
	HTTP_COND_OK = 0,          /* go on: serve it */
	HTTP_COND_NOT_MODIFIED,    /* 304 */
	HTTP_COND_FAILED,          /* 412 */
};

/* http_parse.c */
/* Heads: bytes consumed (the body, if any, starts there), -2 incomplete, -1 with ->error. */
int http_parse_request(const char *buf, size_t len, struct http_request *req, size_t max_headers);
int http_parse_response(const char *buf, size_t len, struct http_response *res, size_t max_headers);
int http_error_status(enum http_error err);        /* 400, 414, 431, 505 */
const char *http_error_str(enum http_error err);
int http_is_tchar(unsigned char c);                /* RFC 9110 §5.6.2 token character */

/* http_header.c */
/* The first field called name (ASCII case-insensitive) after after (NULL: from the start). */
const struct http_header *http_header_find(const struct http_header *h, size_t n, const char *name,
    const struct http_header *after);
int http_token_eq(const char *s, size_t len, const char *lit); /* case-insensitive */
/* Next element of a #list, OWS trimmed, empty ones skipped: 1, or 0 at the end. */
int http_list_next(const char **pos, const char *end, const char **elem, size_t *elem_len);
/* 1 with *length, 0 when absent, -1 when invalid or several differing values. */
int http_content_length(const struct http_header *h, size_t n, uint64_t *length);
/* Body framing: 0 with fr->body/length, -1 with fr->error (and fr->smuggling). */
int http_request_framing(const struct http_request *req, struct http_framing *fr);
int http_response_framing(const struct http_response *res, int head_request,
    struct http_framing *fr);
unsigned http_connection(const struct http_header *h, size_t n);  /* HTTP_CONN_* */
int http_keep_alive(int minor_version, const struct http_header *h, size_t n); /* 1 persists */
/* 0 with the host (port left off; NULL for HTTP/1.0 without Host), -1: answer 400. */
int http_request_host(const struct http_request *req, const char **host, size_t *host_len);
/* 1 with *t when the server must compare (else ignore the field). */
int http_if_modified_since(const struct http_request *req, time_t *t);

/* http_range.c */
enum http_range_result http_range_parse(const char *value, size_t len, uint64_t size,
    struct http_range *r);
enum http_range_result http_ranges_parse(const char *value, size_t len, uint64_t size,
    struct http_range *r, size_t max, size_t *n);
/* The request's Range: GET only, one Range field only, else IGNORE. */
enum http_range_result http_request_range(const struct http_request *req, uint64_t size,
    struct http_range *r);

/* http_cond.c */
size_t http_etag_format(time_t mtime, uint64_t size, char *buf, size_t cap); /* length, or 0 */
int http_etag_match(const char *value, size_t len, const char *etag, size_t etag_len,
    int strong);
enum http_cond http_preconditions(const struct http_request *req, const char *etag,
    size_t etag_len, time_t mtime);
int http_if_range(const struct http_request *req, const char *etag, size_t etag_len,
    time_t mtime);

/* http_date.c */
int http_date_parse(const char *s, size_t len, time_t *t);  /* 0 with *t, or -1 */
size_t http_date_format(time_t t, char *buf, size_t size);  /* HTTP_DATE_LEN, or 0 */

/* http_path.c */
/* Percent-decode into dst (NUL-terminated; dst may be src): length, or -1 (bad %, NUL, %2F). */
ssize_t http_path_decode(const char *src, size_t len, char *dst, size_t size);
/* Resolve "." ".." "//" in place: new length, or -1 when above the root or not "/...". */
ssize_t http_path_normalize(char *path, size_t len);
/* Both: the path the server maps under its root, or -1 (answer 400). */
ssize_t http_path_clean(const char *src, size_t len, char *dst, size_t size);

/* http_chunked.c */
void http_chunked_init(struct http_chunked *st);
/* In place: -2 more needed, -1 malformed, >= 0 done: bytes after the body, at buf + *len. */
ssize_t http_chunked_decode(struct http_chunked *st, char *buf, size_t *len);
int http_chunked_done(const struct http_chunked *st);

#endif
