/* resp.h: a queued response: its head (and a small body) from memory, then the rest of its body
 * pulled from a source (a file, the mmap cache, a CGI program; a throttle wraps one). */
#ifndef SCTPHTTPD_RESP_H
#define SCTPHTTPD_RESP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tp_conn;
struct resp;

/* What resp_pull and a source's pull return. */
enum resp_rc {
	RESP_MORE,   /* bytes moved, more to come (or the sink is full) */
	RESP_END,    /* the response is complete: its last byte went with this pull */
	RESP_WAIT,   /* nothing now: the source wakes its response, or a throttle set wait_us */
	RESP_ABORT,  /* it cannot be completed (a file shrank, a program died after its head) */
	RESP_RETRY,  /* the transport takes nothing now */
	RESP_ERROR   /* the transport failed */
};

/*
 * Where pulled bytes go. A stream transport (tc set): sent at once, one send per pull, as much
 * as the transport takes. A message being built (tc NULL): copied to buf[len..cap).
 */
struct resp_sink {
	struct tp_conn *tc;
	int sendfile;             /* tc takes tp_sendfile */
	char *scratch;            /* tc: file bytes are read here before they are sent */
	size_t scratch_cap;
	char *buf;                /* the message */
	size_t len, cap;
	size_t moved;             /* out: bytes this pull moved */
	uint64_t wait_us;         /* out: a throttle holds the body back this long, 0 = none */
};

/* A body source: the one operation is pull; to add one, fill these and set r->src. */
struct resp_src;
struct resp_src_ops {
	/* At most max body bytes to k (k->moved counts them; a source that counts its body for
	 * the log adds to r->body_sent). Returns an enum resp_rc. */
	int (*pull)(struct resp_src *src, struct resp *r, struct resp_sink *k, size_t max);
	uint64_t (*left)(const struct resp_src *src); /* bytes still to come, UINT64_MAX unknown */
	void (*free)(struct resp_src *src);
};
struct resp_src {
	const struct resp_src_ops *ops;
};

typedef void resp_wake_cb(struct resp *r, void *arg);

struct resp {
	struct resp *next;            /* the queue of its stream */
	char *buf;                    /* head, and the body when it is inline */
	size_t len, off;
	struct resp_src *src;         /* the rest of the body, or NULL */
	uint64_t body_sent;           /* for the log */
	int status;
	int close;                    /* "Connection: close" went out with it */
	int program;                  /* a CGI program's answer (server_http_ctx.programs) */
	char *redirect;               /* its program's local redirect: the request to answer in
	                               * its place (strm_head), or NULL */
	unsigned redirects;           /* local redirects that led to it */
	char *log;                    /* preformatted access log line parts, or NULL */
	size_t log_split;             /* bytes goes between log[..split] and log[split..] */
	resp_wake_cb *wake;           /* its source has more, or ended (set by its queue) */
	void *wake_arg;
};

struct resp *resp_new(void);
void resp_free(struct resp *r);
int resp_pull(struct resp *r, struct resp_sink *k);
void resp_wake(struct resp *r);
/* A file's bytes [off, end) by sendfile or pread; it owns fd. NULL: out of memory. */
struct resp_src *resp_file_src(int fd, off_t off, off_t end);

/* For sources: bytes from memory to k (*n moved): TP_OK, TP_RETRY or TP_ERROR. */
int resp_sink_put(struct resp_sink *k, const void *p, size_t len, size_t *n);
/* For sources that copy: room for up to *want bytes, then resp_sink_commit the ones put there. */
char *resp_sink_space(struct resp_sink *k, size_t *want);
int resp_sink_commit(struct resp_sink *k, size_t got, size_t *n);

#endif
