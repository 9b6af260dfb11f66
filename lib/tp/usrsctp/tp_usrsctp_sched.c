/* tp_usrsctp_sched.c: usrsctp's threads yield to the event loop instead of preempting it. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "tp_usrsctp.h"

/*
 * usrsctp receives every packet in a thread of its own, blocked in recvmsg on its UDP socket.
 * Where that thread shares a core with the event loop (a server given one core), each datagram
 * woke it at once and it preempted the loop, handled that one packet, told the loop and slept
 * again: two context switches a request at 10 associations (measured: 0.8 voluntary switches a
 * request in the receive thread, 0.78 forced ones in the loop). SCHED_BATCH threads are never
 * let preempt on wake-up: they run when the loop waits or its slice ends, and then take every
 * datagram queued meanwhile in one go, the batching a kernel stack gets from its softirq. They
 * keep their fair share of the core, so a busy loop delays a packet by a scheduling slice at
 * most (a few ms), not until it idles.
 *
 * usrsctp_init starts the threads with default attributes, so they inherit the policy of the
 * thread that calls it: that thread becomes a batch thread for the call, and is given its own
 * policy back afterwards (only from SCHED_OTHER: a real-time caller is left alone).
 * SCTPAPPS_USRSCTP_SCHED=normal in the environment leaves the threads as they are.
 */

/* Before usrsctp_init: returns 1 if the caller must call tp_usrsctp_sched_end after it. */
int
tp_usrsctp_sched_begin(void)
{
	const char *mode = getenv("SCTPAPPS_USRSCTP_SCHED");
	struct sched_param sp = { 0 };

	if (mode != NULL && strcmp(mode, "normal") == 0)
		return 0;
	if (sched_getscheduler(0) != SCHED_OTHER)
		return 0;
	return sched_setscheduler(0, SCHED_BATCH, &sp) == 0;
}

void
tp_usrsctp_sched_end(void)
{
	struct sched_param sp = { 0 };

	(void)sched_setscheduler(0, SCHED_OTHER, &sp);
}
