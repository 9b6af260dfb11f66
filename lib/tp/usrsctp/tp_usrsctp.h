/* tp_usrsctp.h: what the usrsctp type shares with its stack and thread bridge (usrsctp.h side). */
#ifndef SCTPAPPS_TP_USRSCTP_H
#define SCTPAPPS_TP_USRSCTP_H

#include <stddef.h>
#include <stdint.h>

#include <usrsctp.h>

#include "tp_impl.h"

#define TP_USRSCTP_PORT 9899 /* default local and remote UDP encapsulation port */

struct ev_loop;
typedef void tp_usrsctp_wake_cb(void *arg);

/* How the process's one stack runs (tp_usrsctp.c has a type for each): usrsctp's own threads
 * and UDP encapsulation (tp_usrsctp_stack.c, tp_usrsctp_wake.c), or threadless in the
 * program's loops, AF_CONN addresses for remote UDP addresses (tp_usrsctp_nt.c). */
struct tp_usrsctp_mode {
	int conn; /* AF_CONN: one UDP path per association, addresses mapped to peer handles */
	uintptr_t (*wake_new)(struct socket *so, char *err, size_t errlen);
	int (*wake_watch)(uintptr_t id, struct ev_loop *loop, tp_usrsctp_wake_cb *cb, void *arg);
	void (*wake_free)(struct socket *so, uintptr_t id);
};
extern const struct tp_usrsctp_mode tp_usrsctp_threads, tp_usrsctp_nothreads;

/* tp_usrsctp_stack.c */
int tp_usrsctp_stack(const struct tp_opts *o, char *err, size_t errlen);

/* tp_usrsctp_nt.c */
int tp_usrsctp_nt_stack(const struct tp_opts *o, const struct tp_addrs *bind_to, char *err,
    size_t errlen);
size_t tp_usrsctp_nt_stats(char *buf, size_t len);

/* tp_usrsctp_run.c: which way the stack runs, below both ways (each sets it when it starts) */
#define TP_USRSCTP_RUN_THREADS 1
#define TP_USRSCTP_RUN_NOTHREADS 2
void tp_usrsctp_run_set(int way);
int tp_usrsctp_running(void);
int tp_usrsctp_nt_running(void);

/* tp_usrsctp_out.c: the threadless stack's packets out, a loop turn's in one sendmmsg */
void tp_usrsctp_out_fd(int fd);
int tp_usrsctp_out_add(const struct sockaddr *to, socklen_t tolen, const void *buf, size_t len);
void tp_usrsctp_out_flush(void);
size_t tp_usrsctp_out_queued(void);
void tp_usrsctp_out_counts(unsigned long *sent, unsigned long *err, unsigned long *calls,
    unsigned long *gso);

/* tp_usrsctp_peer.c: the threadless stack's peers, remote UDP addresses as handles */
void tp_usrsctp_peer_family(int family);
uintptr_t tp_usrsctp_peer_get(const struct sockaddr *sa, socklen_t len, uint64_t now);
const struct sockaddr *tp_usrsctp_peer_addr(uintptr_t h, socklen_t *len, uint64_t now);
void tp_usrsctp_peer_gc(uint64_t now);
void tp_usrsctp_peer_counts(size_t *used, unsigned long *evicted);
int tp_usrsctp_peer_conn_addr(const struct sockaddr_storage *ip, uint16_t udp_port,
    struct sockaddr_conn *out, char *err, size_t errlen);
void tp_usrsctp_peer_str(const struct sockaddr_conn *sc, char *buf, size_t len);

/* tp_usrsctp_wake.c */
uintptr_t tp_usrsctp_wake_new(struct socket *so, char *err, size_t errlen);
int tp_usrsctp_wake_watch(uintptr_t id, struct ev_loop *loop, tp_usrsctp_wake_cb *cb, void *arg);
void tp_usrsctp_wake_free(struct socket *so, uintptr_t id);
size_t tp_usrsctp_wake_count(void);

/* tp_usrsctp_sched.c */
int tp_usrsctp_sched_begin(void);
void tp_usrsctp_sched_end(void);

/* tp_usrsctp_udp.c */
void tp_usrsctp_udp_setup(uint16_t port);
int tp_usrsctp_udp_size(int fd);
void tp_usrsctp_udp_window(int granted);

/* tp_usrsctp_tune.c: the delayed SACK timer and the initial window (tp_opts), applied to a
 * socket before connect or listen (-1: err says why); "rto_min=.. sack_delay=.. initial_cwnd=.."
 * as the stack holds them (read back from the last socket set up), into buf */
int tp_usrsctp_tuning(struct socket *so, const struct tp_opts *o, char *err, size_t errlen);
size_t tp_usrsctp_tuning_fill(char *buf, size_t len);

/* tp_usrsctp_stats.c */
size_t tp_usrsctp_stats(char *buf, size_t len);
size_t tp_usrsctp_stats_fill(char *buf, size_t len);
void tp_usrsctp_stats_file(size_t (*stats)(char *buf, size_t len)); /* at exit */

/* tp_usrsctp_linger.c */
void tp_usrsctp_linger_close(struct socket *so);
int tp_usrsctp_linger_finish(int ms, void (*wait)(void));
void tp_usrsctp_linger_threadless(void);
void tp_usrsctp_linger_tick(void);
size_t tp_usrsctp_linger_count(void);

#endif
