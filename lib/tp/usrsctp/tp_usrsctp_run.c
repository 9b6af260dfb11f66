/* tp_usrsctp_run.c: which of its two ways the process's one usrsctp stack runs, below both:
 * with its threads (tp_usrsctp_stack.c) or threadless (tp_usrsctp_nt.c). Each refuses to start
 * beside the other by asking here, and each says here that it runs, so that neither calls the
 * other (nor the counters, tp_usrsctp_stats.c, up into the stack). */
#include "tp_usrsctp.h"

static int tp_usrsctp_run_way; /* 0 until a stack runs, then TP_USRSCTP_RUN_* */

void
tp_usrsctp_run_set(int way)
{
	tp_usrsctp_run_way = way;
}

/* 1 once the stack runs with its threads (its counters mean something). */
int
tp_usrsctp_running(void)
{
	return tp_usrsctp_run_way == TP_USRSCTP_RUN_THREADS;
}

/* 1 once the stack runs threadless (its UDP socket is open). */
int
tp_usrsctp_nt_running(void)
{
	return tp_usrsctp_run_way == TP_USRSCTP_RUN_NOTHREADS;
}
