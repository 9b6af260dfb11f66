/* workers.h: --workers N (workers.c). */
#ifndef SCTPHTTPD_WORKERS_H
#define SCTPHTTPD_WORKERS_H

#include <signal.h>

int workers_run(unsigned n, const sigset_t *sigs, unsigned *index); /* -2: a worker */

#endif
