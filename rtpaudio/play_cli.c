/* play_cli.c: `rtpaudio play`'s command line: the options into struct play, --help. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "play.h"
#include "tp_cli.h" /* TP_CLI_LONGOPTS */

static void
play_cli_usage(FILE *fp)
{
	fprintf(fp,
"usage: rtpaudio play [OPTIONS] LISTEN\n"
"  Receives MP3 over RTP (RFC 2250, RFC 5219) or poc-fec on LISTEN (HOST:PORT; a\n"
"  multicast group joins it),\n"
"  plays it out through a jitter buffer into a WAV file and reports what was lost.\n"
"  The report is what the output holds: an output error, or a format change mid-stream\n"
"  (refused), ends the run with exit status 1 after the report.\n"
"  -t, --transport T      udp (default), sctp, prsctp, tcp (RFC 4571)\n"
"  -f, --format F         2250 (default, PT 14), 3119 (RFC 5219 mpa-robust, PT 96) or\n"
"                         fec (poc-fec: Reed-Solomon groups of ADUs, no RTP)\n"
"  -s, --stack S          kernel (default), usrsctp or usrsctp-nt (no threads), for\n"
"                         sctp and prsctp\n"
"  -o, --output FILE      decoded PCM as WAV (default: none; - for standard output)\n"
"      --raw              raw 16-bit PCM instead of WAV\n"
"      --driver NAME      play through libout123's driver NAME: a sound device (pulse,\n"
"                         alsa, oss, jack; default: the first of them that opens) or a\n"
"                         file writer (wav, raw, au: to -o FILE); an error that says so\n"
"                         when the machine has no sound device\n"
"      --reference FILE.mp3  the segmental SNR of the played audio against a clean\n"
"                         decode of FILE, aligned by cross-correlation\n"
"  -d, --playout-delay MS jitter buffer depth (default 200)\n"
"      --idle MS          udp: end of stream after MS without packets (default 3000);\n"
"                         given without -D, it bounds the wait for the first packet too\n"
"  -D, --duration SEC     stop after SEC seconds (default: at the end of the stream)\n"
"      --udp-port P       usrsctp: local UDP encapsulation port (default 9899)\n"
"      --udp-remote-port P   usrsctp: the sender's encapsulation port (default 9900)\n"
"      --sctp-udp-remote-port P  kernel SCTP in UDP (RFC 6951): the sender's UDP port\n"
"      --rtcp-interval MS receiver reports every MS (default 1000; 0: none)\n"
"      --stats-interval MS  statistics so far on standard error every MS\n"
"  -j, --json             statistics as one JSON object\n"
"  -v, --verbose\n"
"  -h, --help\n"
"  RTCP: receiver reports (RFC 3550) and an APP packet with the playout delay go to the\n"
"  sender: on udp to where its sender reports come from (PORT+1), on sctp and prsctp on the\n"
"  association with PPID 0x52544350, on tcp in the RFC 4571 framing (RFC 5761 demux).\n"
"  The stream ends with an RTCP BYE (udp, PORT+1), the sender closing (sctp, tcp), the\n"
"  idle timeout or --duration. Sources are validated as RFC 3550 A.1 (probation, jumps);\n"
"  a new source (a restarted sender) is followed after %d packets in sequence with none\n"
"  of the current one's between, or once the current one has been silent for %d ms.\n"
"  Every packet and frame is accounted for (rtpaudio(1), STATISTICS). Verdict:\n"
"  satisfactory when residual loss <= %.0f%% and the longest gap <= %.0f ms.\n",
	    PLAY_SWITCH_PKTS, PLAY_SWITCH_MS, PLAY_OK_LOSS_PCT, PLAY_OK_GAP_MS);
}

static const struct option play_cli_lo[] = {
	{ "transport", required_argument, NULL, 't' },
	{ "stack", required_argument, NULL, 's' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "raw", no_argument, NULL, 'r' },
	{ "playout-delay", required_argument, NULL, 'd' },
	{ "idle", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'D' },
	TP_CLI_LONGOPTS, /* --udp-port, --udp-remote-port, --sctp-udp-remote-port (lib/tp/tp_cli.c) */
	{ "rtcp-interval", required_argument, NULL, 'R' },
	{ "stats-interval", required_argument, NULL, 'P' },
	{ "driver", required_argument, NULL, 'A' },
	{ "reference", required_argument, NULL, 'F' },
	{ "json", no_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The transport's options, in one place (the shared ones parsed by lib/tp/tp_cli.c): 1 when
 * ch was one. */
static int
play_cli_net(struct rtpaudio_net *n, int ch, const char *arg)
{
	return rtpaudio_net_opt(n, "rtpaudio play", ch, arg);
}

/* The defaults, then the options; PLAY_CLI_RUN, or the exit status (0: --help; 2: a usage
 * error, said on standard error). */
int
play_cli(struct play *p, int argc, char **argv)
{
	int ch;

	p->delay_ms = 200;
	p->idle_ms = 3000;
	p->fmt = rtpaudio_fmt_find(NULL);
	p->rtcp_ms = 1000;
	rtpaudio_net_init(&p->net, 0);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:s:f:o:d:D:jvh", play_cli_lo, NULL)) != -1) {
		if (play_cli_net(&p->net, ch, optarg))
			continue;
		switch (ch) {
		case 'o': p->out_path = optarg; break;
		case 'f':
			if ((p->fmt = rtpaudio_fmt_find(optarg)) == NULL) {
				fprintf(stderr, "rtpaudio play: unknown format %s\n", optarg);
				return 2;
			}
			break;
		case 'r': p->raw = 1; break;
		case 'd': p->delay_ms = (uint32_t)rtpaudio_num(optarg, "playout delay", 0, 60000);
			break;
		case 'i':
			p->idle_ms = (uint32_t)rtpaudio_num(optarg, "idle", 0, 3600000);
			p->idle_given = 1;
			break;
		case 'D': p->duration_ms = (uint32_t)(rtpaudio_num(optarg, "duration", 1, 86400) *
		    1000); break;
		case 'R': p->rtcp_ms = (uint32_t)rtpaudio_num(optarg, "RTCP interval", 0, 600000);
			break;
		case 'P': p->stats_ms = (uint32_t)rtpaudio_num(optarg, "stats interval", 0, 3600000);
			break;
		case 'A': p->driver = optarg; break;
		case 'F': p->ref_path = optarg; break;
		case 'j': p->json = 1; break;
		case 'v': p->verbose = 1; break;
		case 'h': play_cli_usage(stdout); return 0;
		default: play_cli_usage(stderr); return 2;
		}
	}
	if (argc - optind != 1) {
		play_cli_usage(stderr);
		return 2;
	}
	p->listen = argv[optind];
	return PLAY_CLI_RUN;
}
