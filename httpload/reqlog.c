/* reqlog.c: httpload --log FILE: one line per completed call, so that a run's latency
 * distribution can be read whole (the histogram keeps only its quantiles). */
#include <stdio.h>
#include <string.h>

#include "load.h"

/* The request target: the request line's second word (empty when it has none). */
static size_t
reqlog_target(const struct sess_call *k, const char **t)
{
	const char *u, *end;

	*t = "";
	if ((u = memchr(k->req, ' ', k->req_len)) == NULL)
		return 0;
	u++;
	if ((end = memchr(u, ' ', k->req_len - (size_t)(u - k->req))) == NULL)
		return 0;
	*t = u;
	return (size_t)(end - u);
}

/* One stdio call per line: stdio locks the stream, so threads' lines do not mix. */
void
reqlog_call(FILE *f, const struct sess_call *k, uint64_t t0)
{
	const char *t;
	size_t n = reqlog_target(k, &t);

	fprintf(f, "%llu\t%d\t%llu\t%u\t%llu\t%.*s\n",
	    (unsigned long long)(k->t_sched >= t0 ? k->t_sched - t0 : 0), k->status,
	    (unsigned long long)(k->t_done - k->t_sched), (unsigned)k->stream,
	    (unsigned long long)k->data_bytes, (int)n, t);
}
