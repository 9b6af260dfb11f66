/* main.c: rtpaudio's subcommands: send, play, compare. */
#include <stdio.h>
#include <string.h>

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
"Transports: udp, sctp and prsctp (kernel, usrsctp or usrsctp-nt, every message\n"
"unordered), tcp (RFC 4571 framing). See rtpaudio(1).\n");
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
