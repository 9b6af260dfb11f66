/* conn.h: connections and associations (conn.c): accepting them, their timers and the LRU of
 * idle ones, reading, and writing their responses (TCP byte stream or SCTP messages). */
#ifndef SCTPHTTPD_CONN_H
#define SCTPHTTPD_CONN_H

#include <stddef.h>

struct tp_listener;

/* The listeners, watched from now on and freed by conn_stop_accepting; -1 (err says why). */
int conn_listen(struct tp_listener **ls, size_t n, char *err, size_t errlen);
void conn_set_max(long max);              /* connections at once (then idle ones are evicted) */
void conn_accept_resume(void);            /* below the limit again: accept (the tick) */
void conn_stop_accepting(void);
void conn_graceful(void);                 /* SIGUSR1: drain every connection, then stop */
void conn_close_all(void);                /* at exit: what is still owed will never go */
long conn_count(void);

#endif
