/* main.c: rtpaudio's subcommands: send, play, compare. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "rtpaudio.h"

static void
main_usage(FILE *fp)
{
	fprintf(fp,
"usage: rtpaudio send [OPTIONS] FILE.mp3... DEST   stream MP3 over RTP (RFC 2250)\n"
"       rtpaudio play [OPTIONS] LISTEN             receive, play out to WAV, report loss\n"
"       rtpaudio compare [OPTIONS] REF.wav OUT.wav align and compare two decodes\n"
"       rtpaudio compare --quality REF OUT.wav     a decode's quality figure\n"
"       rtpaudio SUBCOMMAND --help                 the options of each\n"
"Transports: udp, sctp and prsctp (kernel or usrsctp, every message unordered), tcp\n"
"(RFC 4571 framing). See rtpaudio(1).\n");
}

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

int
main(int argc, char **argv)
{
	if (argc < 2) {
		main_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "send") == 0)
		return send_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "play") == 0)
		return play_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "compare") == 0)
		return compare_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		main_usage(stdout);
		return 0;
	}
	fprintf(stderr, "rtpaudio: unknown subcommand '%s'\n", argv[1]);
	main_usage(stderr);
	return 2;
}
