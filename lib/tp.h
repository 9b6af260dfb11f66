/* tp.h: one transport interface (tcp, unix, sctp, sctp1m, usrsctp, framed) over one event loop. */
#ifndef SCTPAPPS_TP_H
#define SCTPAPPS_TP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct ev_loop;

/* Result of every I/O call. errno is not part of the API: the reason is in conn->err. */
#define TP_OK     0
#define TP_RETRY  1   /* would block: wait for the event and call again */
#define TP_EOF    2   /* orderly end of the peer's data (FIN, SHUTDOWN) */
#define TP_ERROR (-1) /* fatal for this connection; conn->err says why */

#define TP_ERRLEN 256
#define TP_MAXADDRS 8

/* Capabilities of a transport type. */
#define TP_CAP_MSG       0x01u /* message boundaries are kept */
#define TP_CAP_STREAMS   0x02u /* several streams per association */
#define TP_CAP_UNORDERED 0x04u /* unordered delivery per message */
#define TP_CAP_PRSCTP    0x08u /* timed reliability per message */
#define TP_CAP_MULTIHOME 0x10u /* several local/remote addresses */
#define TP_CAP_PPID      0x20u /* payload protocol identifier per message */
#define TP_CAP_FORK      0x40u /* a listener works in several processes (inherited, SO_REUSEPORT) */
#define TP_CAP_UDP       0x80u /* carried in UDP on a port of the process's own (tp_opts.udp_port) */

/* Per-message flags. */
#define TP_F_UNORDERED 0x1u /* send: deliver unordered; recv: was sent unordered */
#define TP_F_EOR       0x2u /* recv: this piece ends the message (always set on stream types) */

/* What travels with one message (or piece of one). Ignored where the type lacks the capability. */
struct tp_msginfo {
	uint16_t stream;      /* stream id, 0 .. streams_out-1 */
	uint32_t ppid;        /* payload protocol id, host byte order (HTTP/SCTP is 63) */
	uint32_t lifetime_ms; /* send: PR-SCTP timed reliability, 0 = fully reliable (usrsctp: the
	                       * send buffer then follows the rate, see tp_usrsctp_timed) */
	unsigned flags;       /* TP_F_* */
};

/* Options for listen and connect. Zero means "stack default" everywhere. */
struct tp_opts {
	uint16_t streams;          /* outbound streams asked for, and max inbound (default 10) */
	int nodelay;               /* TCP_NODELAY / SCTP_NODELAY */
	uint32_t rto_min_ms, rto_initial_ms, rto_max_ms;
	int path_max_retrans;      /* -1 or 0 = default */
	int sndbuf, rcvbuf;        /* socket buffer sizes in bytes */
	int backlog;               /* listen backlog (default 511) */
	uint16_t udp_port;         /* usrsctp: local UDP encapsulation port (default 9899) */
	uint16_t udp_remote_port;  /* usrsctp: peer's UDP encapsulation port (default 9899) */
	uint16_t encap_port;       /* kernel sctp: peer's UDP encapsulation port (RFC 6951; the
	                            * local one is sysctl net.sctp.udp_port); 0 = plain SCTP */
	int frame_hdr;             /* framed types: length prefix size, 2 (RFC 4571) or 4 (default) */
	const char *local;         /* connect: local address(es) to bind first, "a,b" (NULL = any) */
	int reuseport;             /* listen: SO_REUSEPORT, several processes on one port (tcp, sctp) */
	int sctp_interleave;       /* kernel SCTP: I-DATA (RFC 8260), round-robin stream scheduler */
};

/* A list of addresses of one family sharing one port ("h1,h2:port", "[v6]:port", "/path"). */
struct tp_addrs {
	int n;
	struct sockaddr_storage a[TP_MAXADDRS];
	socklen_t len[TP_MAXADDRS];
};

/* Association status, where the type has it (SCTP); fields are 0 where unknown. */
struct tp_status {
	uint16_t streams_in, streams_out;
	uint32_t srtt_ms, rto_ms, cwnd, unacked, naddrs;
	char primary[64]; /* primary path address as text */
};

struct tp_conn;
struct tp_listener;
typedef void tp_conn_cb(struct tp_conn *c, unsigned events, void *arg);
typedef void tp_listener_cb(struct tp_listener *l, void *arg);
/* Events the stack reports besides data (SCTP notifications): text for logs and experiments. */
typedef void tp_notify_cb(struct tp_conn *c, const char *what, void *arg);

struct tp_type {
	const char *name;
	const char *help;  /* one line for --help */
	unsigned caps;
	int (*listen)(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o);
	int (*accept)(struct tp_listener *l, struct tp_conn *c);
	int (*lwatch)(struct tp_listener *l, struct ev_loop *loop, int on);
	void (*lclose)(struct tp_listener *l);
	/* connect starts (non-blocking); the connection reports EV_WRITE once established or failed,
	 * then finish returns TP_OK, TP_RETRY (still connecting) or TP_ERROR. */
	int (*connect)(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o);
	int (*finish)(struct tp_conn *c);
	/* send: message types take the whole message or nothing (TP_RETRY); stream types may take
	 * part of it (*sent < len). recv: a message longer than cap comes in pieces, the last one
	 * flagged TP_F_EOR. */
	int (*send)(struct tp_conn *c, const void *buf, size_t len, const struct tp_msginfo *mi,
	    size_t *sent);
	int (*recv)(struct tp_conn *c, void *buf, size_t cap, struct tp_msginfo *mi, size_t *got);
	/* watch: level-triggered; events 0 stops watching. The type calls tp_fire() when its fd
	 * (or whatever it waits on) is ready. */
	int (*watch)(struct tp_conn *c, struct ev_loop *loop, unsigned events);
	/* pending (may be NULL): events ready now without waiting (data already buffered by the
	 * type); tp.c re-fires them from a deferred call, which keeps the level-triggered promise. */
	unsigned (*pending)(struct tp_conn *c);
	int (*status)(struct tp_conn *c, struct tp_status *st);
	void (*close)(struct tp_conn *c);
	/* sendfile (may be NULL: not supported): up to len bytes of file fd from *off, which
	 * advances; a stream type may take part (*sent < len). Byte-stream kernel types only. */
	int (*sendfile)(struct tp_conn *c, int fd, off_t *off, size_t len, size_t *sent);
	/* reset_stream (may be NULL): RFC 6525 reset of one stream, both directions, to abort
	 * what is in flight on it; data queued before the request still goes out first.
	 * TP_RETRY: a request is outstanding (or the stack wants the stream drained): later. */
	int (*reset_stream)(struct tp_conn *c, uint16_t stream);
	/* abort (may be NULL: SO_LINGER 0 on c->fd): the next close ends the association or
	 * connection at once (SCTP ABORT, TCP RST) instead of waiting for an unresponsive peer. */
	void (*abort)(struct tp_conn *c);
	/* stats (may be NULL): the type's stack counters as "name=value ..." into buf (its length;
	 * 0: nothing to tell), for diagnostics: why a transfer waited (retransmission timeouts) */
	size_t (*stats)(char *buf, size_t len);
};

struct tp_conn {
	const struct tp_type *ops;
	int fd;                    /* -1 where the type has no fd of its own */
	void *impl;                /* type-private state */
	uint16_t streams_asked;    /* what tp_opts.streams asked for */
	uint16_t streams_in, streams_out; /* negotiated (1 and 1 for non-SCTP types) */
	struct tp_listener *from;  /* listener it was accepted on, or NULL */
	tp_conn_cb *cb;            /* watch callback */
	void *cb_arg;
	tp_notify_cb *notify;
	void *notify_arg;
	struct ev_loop *loop;      /* loop it is watched in, or NULL */
	unsigned want;             /* events asked for */
	int firing;                /* inside its callback: freeing is delayed until it returns */
	int dead;                  /* freed while firing */
	char peer[64];             /* peer address as text */
	char err[TP_ERRLEN];
};

struct tp_listener {
	const struct tp_type *ops;
	int fd;
	void *impl;
	struct tp_opts opts;
	tp_listener_cb *cb;
	void *cb_arg;
	struct ev_loop *loop;
	char local[64];            /* bound address as text (with the real port) */
	char err[TP_ERRLEN];
};

/* tp.c: registry and dispatch */
const struct tp_type *tp_type_find(const char *name);
const struct tp_type *const *tp_types(void);
size_t tp_stats(char *buf, size_t len);
void tp_opts_init(struct tp_opts *o);
#define TP_RTO_INITIAL_MS 3000 /* RFC 4960's, both stacks' default */
uint32_t tp_rto_initial_ms(const struct tp_opts *o);
struct tp_listener *tp_listen(const char *type, const char *addr, const struct tp_opts *o,
    char *err, size_t errlen);
int tp_accept(struct tp_listener *l, struct tp_conn **out);
int tp_listener_watch(struct tp_listener *l, struct ev_loop *loop, tp_listener_cb *cb, void *arg);
void tp_listener_free(struct tp_listener *l);
struct tp_conn *tp_connect(const char *type, const char *addr, const struct tp_opts *o,
    char *err, size_t errlen);
int tp_finish(struct tp_conn *c);
int tp_connect_wait(struct tp_conn *c, int timeout_ms);
int tp_send(struct tp_conn *c, const void *buf, size_t len, const struct tp_msginfo *mi,
    size_t *sent);
int tp_recv(struct tp_conn *c, void *buf, size_t cap, struct tp_msginfo *mi, size_t *got);
/* File bytes straight to the connection (TCP): TP_ERROR "not supported" where the type lacks it. */
int tp_sendfile(struct tp_conn *c, int fd, off_t *off, size_t len, size_t *sent);
/* Stream reset (RFC 6525): TP_ERROR "not supported" where the type or the association lacks it. */
int tp_reset_stream(struct tp_conn *c, uint16_t stream);
/* The peer stopped responding: free c with an ABORT (RST), not a graceful shutdown. */
void tp_conn_abort(struct tp_conn *c);
void tp_note_reset(struct tp_conn *c, unsigned flags, const uint16_t *list, size_t n);
int tp_watch(struct tp_conn *c, struct ev_loop *loop, unsigned events, tp_conn_cb *cb, void *arg);
int tp_rewatch(struct tp_conn *c, unsigned events);
int tp_wait(struct tp_conn *c, unsigned events, int timeout_ms);
int tp_status(struct tp_conn *c, struct tp_status *st);
void tp_set_notify(struct tp_conn *c, tp_notify_cb *cb, void *arg);
void tp_conn_free(struct tp_conn *c);
struct tp_conn *tp_conn_new(const struct tp_type *t);
void tp_seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tp_fire(struct tp_conn *c, unsigned events); /* 1 if c is gone: touch it no more */
void tp_lfire(struct tp_listener *l);
void tp_note(struct tp_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tp_addr.c: address parsing and printing */
int tp_addrs_parse(const char *spec, int family_hint, struct tp_addrs *out, char *err,
    size_t errlen);
void tp_addr_str(const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen);
uint16_t tp_addr_port(const struct sockaddr *sa);

/* tp_sock.c: socket helpers shared by the kernel types */
int tp_sock_nonblock(int fd);
int tp_sock_bufs(int fd, const struct tp_opts *o, char *err, size_t errlen);
int tp_sock_fd_watch(struct tp_conn *c, struct ev_loop *loop, unsigned events);
int tp_sock_lwatch(struct tp_listener *l, struct ev_loop *loop, int on);
int tp_sock_accept(struct tp_listener *l, struct tp_conn *c, int *family);
int tp_sock_finish(struct tp_conn *c);
void tp_sock_close(struct tp_conn *c);
void tp_sock_lclose(struct tp_listener *l);
int tp_sock_reuseport(int fd, const struct tp_opts *o, char *err, size_t errlen);
int tp_sock_listen_fd(int fd, const struct tp_addrs *a, int backlog, char *err, size_t errlen,
    char *local, size_t locallen);
int tp_sock_errno(char *err, size_t errlen, const char *what);

/* Type tables, registered in tp_registry.c (Makefile.am picks the backend files). */
extern const struct tp_type tp_type_tcp, tp_type_unix, tp_type_tcpm, tp_type_unixm;
extern const struct tp_type tp_type_sctp, tp_type_sctp1m, tp_type_usrsctp;

#endif
