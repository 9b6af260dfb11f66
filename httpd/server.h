/* server.h: sctphttpd, a single-process non-blocking static web server over TCP and SCTP streams. */
#ifndef SCTPHTTPD_SERVER_H
#define SCTPHTTPD_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "ev.h"
#include "http.h"
#include "tp.h"

#define SERVER_SOFTWARE "sctphttpd/" PACKAGE_VERSION
#define SERVER_PPID_HTTP 63          /* draft-sctpapps-http-over-sctp: PPID of HTTP data */
#define SERVER_MSG_SIZE 16384        /* default SCTP user message size (the draft's 16 KiB) */
#define SERVER_MSG_SIZE_MAX 65536    /* the draft's SHOULD NOT exceed */
#define SERVER_STREAMS 100           /* default stream limit L per association */
#define SERVER_INLINE_BODY 16384     /* file bodies up to this size go out with their head */
#define SERVER_MAX_HEADERS 100
#define SERVER_MAX_RANGES 16         /* a Range with more is answered with the whole file */
#define SERVER_MULTIPART_MAX (1u << 20) /* multipart/byteranges bodies built in memory */

/* One -L TYPE:ADDR (or -p/-h turned into one). */
struct config_listen {
	char *type;
	char *addr;
};

struct config {
	char *dir;                    /* document root (-d) */
	int vhost;                    /* -v: files under dir/HOST/ by the Host header */
	char *host;                   /* -h: TCP bind address for -p */
	int port;                     /* -p: TCP port (0: any free one), -1 = none */
	struct config_listen *listens;
	size_t nlistens;
	char *logfile;                /* -l: access log, "-" = stdout, NULL = none */
	int log_combined;             /* --log-format combined */
	unsigned idle_timeout_s;      /* -T */
	unsigned request_timeout_s;   /* --request-timeout: header section must be complete */
	unsigned linger_s;            /* after Connection: close on TCP, wait for the peer's FIN */
	long max_conns;               /* --max-conns, 0 = from RLIMIT_NOFILE */
	unsigned streams;             /* --sctp-streams L */
	size_t msg_size;              /* --sctp-msg-size */
	unsigned pipeline_max;        /* responses queued per stream before reading pauses */
	uint16_t udp_port, udp_remote_port; /* usrsctp encapsulation */
	int ppid0;                    /* --accept-ppid0: PPID 0 counts as HTTP too (testing only) */
	int interleave;               /* --sctp-interleave: I-DATA, round-robin scheduler */
	int sendfile;                 /* 0 with --no-sendfile */
	int daemon;                   /* --daemon; -D keeps the default, foreground */
	char *pidfile;                /* -i */
	char *user;                   /* -u */
	int chroot;                   /* -r */
	size_t max_line, max_head;    /* request line and header section limits (414, 431) */
	char *throttles;              /* -t: thttpd throttle file */
	char *cgi_pattern;            /* -c: thttpd URL pattern of CGI programs */
	unsigned cgi_timeout_s;       /* --cgi-timeout: a script is killed after it */
	uint64_t cgi_max_body;        /* --cgi-max-body: request content for a script (413) */
	unsigned cgi_max;             /* --cgi-max: scripts running at once (503 beyond) */
	int listings;                 /* 0 with --no-listings */
	size_t listing_max;           /* --listing-max: entries read per listing at most */
	long max_age;                 /* -M: Cache-Control max-age of files, -1 = none */
	char *charset;                /* -T: charset of text types (thttpd's default UTF-8) */
	unsigned workers;             /* --workers */
	uint64_t mmap_max;            /* --mmap-cache: bytes mapped at most, 0 = off */
};

#define RESP_THROTTLES 4

struct cgi;
struct mmc_ent;

/* A queued response: head (with small bodies inline) then an optional file range; or a CGI
 * program's output, which grows in buf while the program runs. */
struct resp {
	struct resp *next;
	char *buf;                    /* head, and the body when it is inline */
	size_t len, off, cap;
	int fd;                       /* file body, -1 when none */
	off_t foff, fend;
	uint64_t body_sent;           /* for the log */
	int status;
	int close;                    /* "Connection: close" went out with it */
	char *log;                    /* preformatted access log line parts, or NULL */
	size_t log_split;             /* bytes goes between log[..split] and log[split..] */
	unsigned char thr[RESP_THROTTLES]; /* throttles it counts against */
	unsigned nthr;
	double thr_tokens;            /* its bucket, filled at its share of the throttle */
	uint64_t thr_last;
	struct cgi *cgi;              /* the program producing it, or NULL */
	struct mmc_ent *mm;           /* SCTP: the body from the shared mapping, or NULL */
};

struct conn;

/* One HTTP byte stream: the TCP connection, or one stream of an association. */
struct strm {
	struct conn *cn;
	uint16_t id;
	char *in;                     /* input not parsed yet */
	size_t in_len, in_cap;
	uint64_t head_since;          /* us: an incomplete head is waiting since then, 0 = none */
	uint64_t body_skip;           /* request content still to discard */
	int chunked;                  /* the request content is chunked: decoded by chunk */
	struct http_chunked chunk;
	uint64_t chunk_total;         /* content decoded so far, bounded by --cgi-max-body */
	struct resp *rq, **rq_tail;   /* responses in request order */
	unsigned nresp;
	struct strm *out_next;        /* ring of streams with output (message transports) */
	int in_ring;
	int dead;                     /* no more requests are read from it */
	struct cgi *body_cgi;         /* request content being read goes to this program */
	int reset_pending;            /* an aborted transaction: the stream reset is to be asked */
	int reset_after;              /* a stream error: reset once its error response is sent */
	int reset_wait;               /* reset asked: dead until our incoming direction is reset */
};

/* server.c: what server_http.c needs from the connection layer */
struct config *server_config(void);
void server_enqueue(struct strm *s, struct resp *r);
const char *server_peer(const struct strm *s);
int server_is_msg(const struct strm *s);
int server_draining(const struct strm *s);   /* responses must say Connection: close */
void server_close_after(struct strm *s, int request_asked); /* Connection: close received */
uint64_t server_now_us(void);
struct ev_loop *server_loop(void);
const char *server_local(const struct strm *s);  /* the listener's address:port */
uint16_t server_stream_id(const struct strm *s);
void server_resp_wake(struct strm *s);          /* a response has more to send, or is done */

/* server_http.c: requests to responses */
void http_handle(struct strm *s, const struct http_request *req, const struct http_framing *fr);
void http_send_error(struct strm *s, int status, int minor_version, int close, const char *raw,
    size_t rawlen, const char *note);
struct resp *resp_new(void);
void resp_free(struct resp *r);
const char *http_date_now(void);
const char *http_status_text(int status);
int http_error_resp(struct resp *r, int status, int minor_version, int close);

/* server_ranges.c: Range and multipart/byteranges */
enum http_range_result range_request(const struct http_request *req, uint64_t size,
    struct http_range *r, size_t max, size_t *n);
char *range_multipart(int fd, uint64_t size, const char *ctype, const struct http_range *rg,
    size_t n, char *ctype_out, size_t ctype_cap, size_t *blen);

/* server_file.c: the document root */
int file_root_open(const char *dir, char *err, size_t errlen);
void file_root_close(void);
int file_open(const char *path, int *fdp, struct stat *st);  /* 0, or an HTTP status */
const char *file_mime(const char *path);
int file_listing(int fd, const char *urlpath, char **body, size_t *len);
size_t file_html_escape(const char *s, size_t n, char *out, size_t cap);
ssize_t file_url_encode(const char *s, const char *keep, char *out, size_t cap);

int file_abs_path(const char *path, char *out, size_t cap);  /* root + path, for exec */
void file_root_chrooted(void);

/* match.c: thttpd's URL patterns */
int match_pattern(const char *pattern, const char *path);

/* throttle.c: -t FILE */
int throttle_load(const char *path, char *err, size_t errlen);
void throttle_free_all(void);
int throttle_attach(struct resp *r, const char *path);   /* -1: below a MIN, answer 503 */
void throttle_detach(struct resp *r);
size_t throttle_allow(struct resp *r, size_t want, uint64_t now, uint64_t *wait_us);
void throttle_take(struct resp *r, size_t n);

/* cgi.c: -c PATTERN */
#define CGI_LEN_CHUNKED UINT64_MAX    /* clen of chunked content: until cgi_body_end */
int cgi_start(struct strm *s, const struct http_request *req, const char *path,
    const char *script_name, const struct stat *st, uint64_t clen, struct resp *r, int conn_close);
void cgi_body(struct cgi *c, const char *data, size_t n);
void cgi_body_end(struct cgi *c);
void cgi_refuse(struct cgi *c, int status);
void cgi_drained(struct cgi *c);
int cgi_finished(const struct cgi *c);
int cgi_aborted(const struct cgi *c);
void cgi_free(struct cgi *c);
void cgi_reap(void);

/* mmc.c: the mmap cache (--mmap-cache) */
void mmc_init(uint64_t max);
struct mmc_ent *mmc_get(int fd, const struct stat *st);
void mmc_put(struct mmc_ent *e);
int mmc_copy(struct mmc_ent *e, void *dst, off_t off, size_t len);
void mmc_expire(uint64_t age_us);
void mmc_stats(uint64_t *bytes, unsigned *files);
void mmc_free_all(void);

/* workers.c: --workers N */
int workers_run(unsigned n, const sigset_t *sigs, unsigned *index); /* -2: a worker */

/* config.c: flags and -C FILE */
void config_init(struct config *cf);
/* 0 run, 1 --help, 2 -V, -1 bad (err says why) */
int config_parse(struct config *cf, int argc, char **argv, char *err, size_t errlen);
void config_free(struct config *cf);
void config_usage(FILE *f);

/* log.c: access log (Common or Combined Log Format) */
int log_open(const char *path, int combined, char *err, size_t errlen);
int log_reopen(void);
int log_enabled(void);
char *log_prepare(const char *peer, const struct http_request *req, const char *raw_line,
    size_t raw_len, int status, size_t *split);
void log_shared(void);
void log_set_status(struct resp *r, int status);
void log_done(struct resp *r);
void log_flush(void);
void log_close(void);
size_t log_escape(const char *s, size_t n, char *out, size_t cap);

#endif
