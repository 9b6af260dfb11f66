/* tp.h: the applications' transport API (tcp, unix, sctp, sctp1m, usrsctp, framed) over one event
 * loop: connections, capabilities, errors. The backends' side (struct tp_type, tp_fire, the socket
 * helpers) is lib/tp/tp_impl.h, which no file outside lib/ includes (test/unit/tp-structure.sh). */
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
#define TP_CAP_UDP       0x80u /* carried in UDP on a port of the process's own (tp_opts.udp_port):
                               * one stack per process, so one thread's loop */
#define TP_CAP_PATH      0x100u /* addresses are file-system paths (AF_UNIX), not host:port */
#define TP_CAP_INTERLEAVE 0x200u /* kernel SCTP: I-DATA on request (tp_opts.sctp_interleave) */
/* Derived from what the type implements (tp_type_caps adds them): */
#define TP_CAP_SENDFILE  0x400u /* tp_sendfile works */
#define TP_CAP_RESET     0x800u /* tp_reset_stream may work (RFC 6525, if the peer has it) */

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
	int sack_now;              /* SCTP: acknowledge every packet at once (SCTP_DELAYED_SACK,
	                            * sack_freq 1): a sparse stream's RTT without the SACK delay */
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
	int deny_resets;           /* SCTP: deny the peer's stream resets, as a socket that never
	                            * enabled them (socat, ncat): tests of the draft's fallback */
	uint32_t sack_delay_ms;    /* SCTP: the delayed SACK timer (SCTP_DELAYED_SACK, 1..500;
	                            * 0 = the stack's: usrsctp 200 ms, Linux net.sctp.sack_timeout) */
	uint32_t init_cwnd_mtus;   /* usrsctp: initial congestion window in MTUs (its sysctl
	                            * sctp_initial_cwnd, for the whole stack of the process;
	                            * 0 = its default, 3); kernel SCTP has no such knob: refused */
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

/* A transport type: opaque here (its name, help and capabilities are asked through the
 * functions below); the backends define it in tp_impl.h. */
struct tp_type;

/* A connection (or association). Applications read the first fields; the rest are the
 * library's (tp_impl.h says what they mean), never touched outside lib/ (tp-structure.sh). */
struct tp_conn {
	uint16_t streams_asked;    /* what tp_opts.streams asked for */
	uint16_t streams_in, streams_out; /* negotiated (1 and 1 for non-SCTP types) */
	struct tp_listener *from;  /* listener it was accepted on, or NULL */
	char peer[64];             /* peer address as text */
	char err[TP_ERRLEN];
	/* private */
	const struct tp_type *ops;
	int fd;
	void *impl;
	tp_conn_cb *cb;
	void *cb_arg;
	tp_notify_cb *notify;
	void *notify_arg;
	struct ev_loop *loop;
	unsigned want;
	int firing;
	int dead;
};

/* A listener. Applications read the first fields; the rest are the library's. */
struct tp_listener {
	struct tp_opts opts;       /* as given to tp_listen */
	char local[64];            /* bound address as text (with the real port) */
	char err[TP_ERRLEN];
	/* private */
	const struct tp_type *ops;
	int fd;
	void *impl;
	tp_listener_cb *cb;
	void *cb_arg;
	struct ev_loop *loop;
};

/* tp.c: registry and dispatch; tp_base.c (below it: what the types call back into) has
 * tp_rto_initial_ms, tp_watch, tp_rewatch, tp_set_notify, tp_conn_free, tp_seterr */
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
int tp_watch(struct tp_conn *c, struct ev_loop *loop, unsigned events, tp_conn_cb *cb, void *arg);
int tp_rewatch(struct tp_conn *c, unsigned events);
int tp_wait(struct tp_conn *c, unsigned events, int timeout_ms);
int tp_status(struct tp_conn *c, struct tp_status *st);
void tp_set_notify(struct tp_conn *c, tp_notify_cb *cb, void *arg);
void tp_conn_free(struct tp_conn *c);
/* End our direction of a byte stream (TCP FIN), reading on: TP_ERROR "not supported" where
 * the type has no such half close (message types: close, or reset a stream). */
int tp_shutdown_write(struct tp_conn *c);
void tp_seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* tp_caps.c: what a type or connection is (by capability, never by name) */
const char *tp_type_name(const struct tp_type *t);
const char *tp_type_help(const struct tp_type *t); /* one line for --help */
unsigned tp_type_caps(const struct tp_type *t);    /* TP_CAP_* */
const struct tp_type *tp_conn_type(const struct tp_conn *c);
const struct tp_type *tp_listener_type(const struct tp_listener *l);
unsigned tp_caps(const struct tp_conn *c);         /* tp_type_caps(tp_conn_type(c)) */
/* The first type of this build (tp_types' order) with all of want and none of without, or NULL. */
const struct tp_type *tp_type_with(unsigned want, unsigned without);

/* tp_addr.c: address parsing and printing */
int tp_addrs_parse(const char *spec, int family_hint, struct tp_addrs *out, char *err,
    size_t errlen);
void tp_addr_str(const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen);
uint16_t tp_addr_port(const struct sockaddr *sa);

#endif
