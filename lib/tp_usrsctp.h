/* tp_usrsctp.h: what the usrsctp type shares with its stack and thread bridge (usrsctp.h side). */
#ifndef SCTPAPPS_TP_USRSCTP_H
#define SCTPAPPS_TP_USRSCTP_H

#include <stddef.h>
#include <stdint.h>

#include <usrsctp.h>

#include "tp_impl.h"

#define TP_USRSCTP_PORT 9899 /* default local and remote UDP encapsulation port */

struct ev_loop;

/* tp_usrsctp_stack.c */
int tp_usrsctp_stack(const struct tp_opts *o, char *err, size_t errlen);
int tp_usrsctp_running(void);

/* tp_usrsctp_wake.c */
typedef void tp_usrsctp_wake_cb(void *arg);
uintptr_t tp_usrsctp_wake_new(struct socket *so, char *err, size_t errlen);
int tp_usrsctp_wake_watch(uintptr_t id, struct ev_loop *loop, tp_usrsctp_wake_cb *cb, void *arg);
void tp_usrsctp_wake_free(struct socket *so, uintptr_t id);
size_t tp_usrsctp_wake_count(void);

/* tp_usrsctp_sched.c */
int tp_usrsctp_sched_begin(void);
void tp_usrsctp_sched_end(void);

/* tp_usrsctp_udp.c */
void tp_usrsctp_udp_setup(uint16_t port);

/* tp_usrsctp_stats.c */
size_t tp_usrsctp_stats(char *buf, size_t len);

/* tp_usrsctp_linger.c */
void tp_usrsctp_linger_close(struct socket *so);
int tp_usrsctp_linger_finish(int ms);

#endif
