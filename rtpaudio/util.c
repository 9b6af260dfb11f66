/* util.c: what every subcommand shares: a number from the command line, the CPU time used. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "rtpaudio.h"

/* A number from the command line within [min, max], or exit with a message. */
long
rtpaudio_num(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "rtpaudio: bad %s '%s' (%ld..%ld)\n", what, s, min, max);
		exit(2);
	}
	return v;
}

/* CPU seconds (user + system) this process has used: the experiments check with it that
 * the machine, not the network, was never the bottleneck. */
double
rtpaudio_cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1)
		return -1;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
