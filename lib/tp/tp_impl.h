/* tp_impl.h: the backends' side of lib/tp/tp.h: the type vtable, firing events, the socket helpers
 * the kernel types share, the type tables. Only lib/ includes it. To add a transport: a tp_NAME.c
 * with its struct tp_type, a line in tp_registry.c, its file in Makefile.am (docs/design.md). */
#ifndef SCTPAPPS_TP_IMPL_H
#define SCTPAPPS_TP_IMPL_H

#include "tp.h"

/* The private fields of struct tp_conn (tp.h):
 *   ops         its type;  fd: -1 where the type has no fd of its own;  impl: type-private state
 *   cb, cb_arg  watch callback;  notify, notify_arg: stack events (tp_set_notify)
 *   loop        loop it is watched in, or NULL;  want: events asked for
 *   firing      inside its callback: freeing is delayed until it returns;  dead: freed while firing
 * and of struct tp_listener: ops, fd, impl, cb, cb_arg, loop alike. */

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
	 * type); tp_base.c re-fires them from a deferred call, which keeps the level-triggered
	 * promise. */
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

struct tp_conn *tp_conn_new(const struct tp_type *t);
/* tp_base.c: below tp.c, so that a type calls down, never back into tp.c */
int tp_fire(struct tp_conn *c, unsigned events); /* 1 if c is gone: touch it no more */
void tp_lfire(struct tp_listener *l);
void tp_note(struct tp_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tp_note_reset(struct tp_conn *c, unsigned flags, const uint16_t *list, size_t n);

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
extern const struct tp_type tp_type_sctp, tp_type_sctp1m, tp_type_usrsctp, tp_type_usrsctp_nt;

#endif
