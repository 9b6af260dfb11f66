/* send_cli.c: `rtpaudio send`'s command line: the options into struct send, checked, and
 * --help. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "send.h"
#include "tp_cli.h" /* TP_CLI_LONGOPTS */

static void
send_cli_usage(FILE *fp)
{
	fprintf(fp,
"usage: rtpaudio send [OPTIONS] FILE.mp3... DEST\n"
"  Streams the files' MPEG audio frames in real time as RTP (RFC 2250, PT 14, or RFC 5219,\n"
"  PT 96) to DEST\n"
"  (HOST:PORT; for udp a multicast group works too). The files are of one format (sample\n"
"  rate, channels, frame length): another is refused before anything is sent.\n"
"  -t, --transport T    udp (default), sctp (every message unordered), prsctp (unordered,\n"
"                       timed reliability), tcp (RFC 4571 framing)\n"
"  -s, --stack S        kernel (default), usrsctp or usrsctp-nt (no threads), for sctp\n"
"                       and prsctp\n"
"  -l, --lifetime MS    prsctp: a message not delivered within MS is abandoned (default 200)\n"
"      --lifetime auto  prsctp: the playout delay less half the growth of the RTT (the\n"
"                       smaller of RTCP's and the SCTP SRTT's) over its smallest value,\n"
"                       twice the reported jitter (beyond what the stream's own timing,\n"
"                       e.g. interleaving, makes) and what the player's reports of late\n"
"                       packets took off, within [10, playout delay] ms, re-evaluated at\n"
"                       each receiver report\n"
"      --playout-delay MS  the player's, until its RTCP says (default 200)\n"
"      --rto-min MS, --rto-max MS  sctp, prsctp: the association's retransmission\n"
"                       timeout bounds (default the stack's, 1000 and 60000 on Linux;\n"
"                       prsctp without either: L/4 to 2L, L the lifetime or for auto the\n"
"                       playout delay, at most 1000 and 60000, so that a timeout's repair\n"
"                       comes in time)\n"
"      --rtcp-interval MS  sender reports every MS (default 1000)\n"
"      --stats-interval MS  progress and RTCP figures on standard error every MS\n"
"  -m, --mtu BYTES      largest RTP packet, header included (default 1400)\n"
"  -f, --format F       2250 (default: RFC 2250, PT 14) or 3119 (RFC 5219 mpa-robust ADUs,\n"
"                       PT 96; layer III only)\n"
"      --interleave N   3119: interleave cycles of N ADUs (RFC 5219 section 7, 2..255)\n"
"  -f fec -k K -n N     poc-fec: groups of K ADUs as N packets of a Reed-Solomon code,\n"
"                       any K of which recover the group (default 20 and 25)\n"
"      --sdp FILE       write an SDP description of the stream (udp) for other players\n"
"      --start-delay MS  wait MS after writing the SDP file before the first packet\n"
"      --ttl N          multicast TTL (default 1)\n"
"      --udp-port P     usrsctp: local UDP encapsulation port (default 9900)\n"
"      --udp-remote-port P   usrsctp: the player's encapsulation port (default 9899)\n"
"      --sctp-udp-remote-port P  kernel SCTP in UDP (RFC 6951): the player's UDP port\n"
"      --drop-every N   test aid: do not send every Nth packet (simulated loss)\n"
"      --streams N      benchmark: pace N streams of the file at once on one event loop\n"
"                       (udp, 2250 or 3119 without interleaving), starts spread over a\n"
"                       frame; prints how late the packets left (no RTCP)\n"
"  -v, --verbose        progress on standard error\n"
"  -h, --help\n"
"  RTCP sender reports go on PORT+1 (udp, with a BYE at the end) or on the connection\n"
"  (sctp, prsctp: PPID 0x52544350); the player's receiver reports give the RTT.\n");
}

static const struct option send_cli_lo[] = {
	{ "transport", required_argument, NULL, 't' },
	{ "stack", required_argument, NULL, 's' },
	{ "lifetime", required_argument, NULL, 'l' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "format", required_argument, NULL, 'f' },
	{ "interleave", required_argument, NULL, 'I' },
	{ "sdp", required_argument, NULL, 'S' },
	{ "ttl", required_argument, NULL, 'T' },
	{ "start-delay", required_argument, NULL, 'W' },
	{ "drop-every", required_argument, NULL, 'X' },
	TP_CLI_LONGOPTS, /* --udp-port, --udp-remote-port, --sctp-udp-remote-port (lib/tp/tp_cli.c) */
	{ "playout-delay", required_argument, NULL, 'd' },
	{ "streams", required_argument, NULL, 'N' },
	{ "rtcp-interval", required_argument, NULL, 'R' },
	{ "stats-interval", required_argument, NULL, 'P' },
	{ "rto-min", required_argument, NULL, 'r' },
	{ "rto-max", required_argument, NULL, 'x' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The transport's options, in one place (the shared ones parsed by lib/tp/tp_cli.c): 1 when
 * ch was one. */
static int
send_cli_net(struct rtpaudio_net *n, int ch, const char *arg)
{
	if (rtpaudio_net_opt(n, "rtpaudio send", ch, arg))
		return 1;
	switch (ch) {
	case 'r': n->rto_min_ms = (uint32_t)rtpaudio_num(arg, "RTO min", 1, 60000); break;
	case 'x': n->rto_max_ms = (uint32_t)rtpaudio_num(arg, "RTO max", 1, 600000); break;
	case 'T': n->ttl = (int)rtpaudio_num(arg, "ttl", 0, 255); break;
	default: return 0;
	}
	return 1;
}

/* prsctp without --rto-min and --rto-max: the RTO bounded by the lifetime L (the playout
 * delay for --lifetime auto, the longest it can be): L / 4 to 2 L (1 s and 60 s at most).
 * The minimum lets a retransmission by timeout leave while the message still lives, and a
 * second one (the timeout doubled) too where the RTT is short: L/4 + L/2 < L. The maximum
 * ends the doubling after a burst of losses (uncapped, an nt sender's end waited 8 s more on a
 * loaded host) yet stays above the RTT of any path on which a message can arrive in time (one
 * way at most L): bounded by L instead, the timeout fell under the RTT of a link whose queue
 * held more than L, fired before each SACK could come and cut the window to one packet each
 * time. The stacks' own minimum, 1 s, abandoned every message in flight at a timeout (issue
 * 35: 15-65 % of the frames at 5 % loss against UDP's 5-8 %). Either option given: both as
 * given. */
static void
send_cli_rto(struct send *s)
{
	uint32_t l = s->lifetime_auto ? s->playout_ms : s->lifetime_ms;
	struct rtpaudio_net *n = &s->net;

	if (!n->caps.lifetime || n->rto_min_ms || n->rto_max_ms)
		return;
	n->rto_min_ms = l / 4 < 1 ? 1 : l / 4 > 1000 ? 1000 : l / 4;
	n->rto_max_ms = l > 30000 ? 60000 : 2 * l;
}

/* What the options ask of the format and the transport, together; 0, or -1 with s->err. */
static int
send_cli_check(struct send *s)
{
	const struct rtpaudio_fmt *f = s->fmt;

	if (f->groups) {
		if (s->fec_k == 0)
			s->fec_k = 20;
		if (s->fec_n == 0)
			s->fec_n = s->fec_k + 5;
		if (s->fec_n < s->fec_k) {
			snprintf(s->err, sizeof(s->err), "--format %s: -n at least -k", f->name);
			return -1;
		}
	}
	if (s->interleave == 1 || (s->interleave > 0 && !f->interleave)) {
		snprintf(s->err, sizeof(s->err), "--interleave needs --format 3119 and 2 or more");
		return -1;
	}
	if (s->mtu < f->min_mtu) {
		snprintf(s->err, sizeof(s->err), "--format %s needs --mtu %zu or more", f->name,
		    f->min_mtu);
		return -1;
	}
	if (rtpaudio_net_check(&s->net, s->err, sizeof(s->err)) == -1)
		return -1;
	send_cli_rto(s);
	if (s->streams > 1 && (!s->net.caps.datagram || f->groups || s->interleave > 0)) {
		snprintf(s->err, sizeof(s->err), "--streams: udp, 2250 or 3119 without interleaving");
		return -1;
	}
	return 0;
}

/* The defaults, then the options; SEND_CLI_RUN, or the exit status (0: --help; 2: a usage
 * error, said on standard error; 1: options that do not go together, in s->err). */
int
send_cli(struct send *s, int argc, char **argv)
{
	int ch;

	s->mtu = 1400;
	s->lifetime_ms = 200;
	s->playout_ms = 200;
	s->rtcp_ms = 1000;
	s->fmt = rtpaudio_fmt_find(NULL);
	rtpaudio_net_init(&s->net, 1);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:s:l:m:f:k:n:vh", send_cli_lo, NULL)) != -1) {
		if (send_cli_net(&s->net, ch, optarg))
			continue;
		switch (ch) {
		case 'l':
			if (strcmp(optarg, "auto") == 0)
				s->lifetime_auto = 1;
			else
				s->lifetime_ms = (uint32_t)rtpaudio_num(optarg, "lifetime", 1, 600000);
			break;
		case 'N': s->streams = (int)rtpaudio_num(optarg, "streams", 1, 100000); break;
		case 'd': s->playout_ms = (uint32_t)rtpaudio_num(optarg, "playout delay", 1, 60000);
			break;
		case 'R': s->rtcp_ms = (uint32_t)rtpaudio_num(optarg, "RTCP interval", 10, 600000);
			break;
		case 'P': s->stats_ms = (uint32_t)rtpaudio_num(optarg, "stats interval", 0, 3600000);
			break;
		case 'm': s->mtu = (size_t)rtpaudio_num(optarg, "mtu", RTP_HDR + FMT_2250_HDR + 16,
		    JITTER_PKT); break;
		case 'S': s->sdp = optarg; break;
		case 'k': s->fec_k = (int)rtpaudio_num(optarg, "k", 1, FEC_MAXN); break;
		case 'n': s->fec_n = (int)rtpaudio_num(optarg, "n", 1, FEC_MAXN); break;
		case 'I': s->interleave = (size_t)rtpaudio_num(optarg, "interleave", 0, 255); break;
		case 'f':
			if ((s->fmt = rtpaudio_fmt_find(optarg)) == NULL) {
				fprintf(stderr, "rtpaudio send: unknown format %s\n", optarg);
				return 2;
			}
			break;
		case 'W': s->start_delay_ms = (uint32_t)rtpaudio_num(optarg, "start delay", 0,
		    600000); break;
		case 'X': s->drop_every = (uint32_t)rtpaudio_num(optarg, "drop-every", 0, 1000000);
			break;
		case 'v': s->verbose = 1; break;
		case 'h': send_cli_usage(stdout); return 0;
		default: send_cli_usage(stderr); return 2;
		}
	}
	if (argc - optind < 2) {
		send_cli_usage(stderr);
		return 2;
	}
	s->paths = argv + optind;
	s->npaths = argc - optind - 1;
	s->dest = argv[argc - 1];
	s->pt = s->fmt->pt;
	return send_cli_check(s) == 0 ? SEND_CLI_RUN : 1;
}
