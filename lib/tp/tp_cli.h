/* tp_cli.h: the transport options every program shares, parsed in one place, so that each one
 * means the same everywhere (--udp-port: the local UDP port, --udp-remote-port: the peer's). */
#ifndef SCTPAPPS_TP_CLI_H
#define SCTPAPPS_TP_CLI_H

#include <getopt.h>

#include "tp.h"

/* getopt_long values of the shared options: a program keeps its own below TP_CLI_FIRST. */
enum {
	TP_CLI_FIRST = 0x7f00,
	TP_CLI_UDP_PORT = TP_CLI_FIRST, /* --udp-port: usrsctp, the local UDP port */
	TP_CLI_UDP_REMOTE_PORT,         /* --udp-remote-port: usrsctp, the peer's UDP port */
	TP_CLI_SCTP_UDP_REMOTE_PORT,    /* --sctp-udp-remote-port: kernel SCTP in UDP, the peer's */
	TP_CLI_UDP_ENCAPS_PORT,         /* --udp-encaps-port: the old spelling of --udp-port */
	TP_CLI_SACK_DELAY,              /* --sctp-sack-delay MS: SCTP's delayed SACK timer */
	TP_CLI_INIT_CWND,               /* --sctp-init-cwnd N: usrsctp's initial window, MTUs */
	TP_CLI_END
};
#define TP_CLI_SEEN(opt) (1u << ((opt) - TP_CLI_FIRST))

/* What the command line said, beside the values in struct tp_opts: zero it before parsing. */
struct tp_cli {
	unsigned seen;               /* TP_CLI_SEEN bits of the options given */
	uint16_t udp_port, encaps_port; /* --udp-port's and --udp-encaps-port's values */
};

/* The shared rows of a getopt_long table (no terminator): put them in the program's own. */
#define TP_CLI_LONGOPTS \
	{ "udp-port", required_argument, NULL, TP_CLI_UDP_PORT }, \
	{ "udp-remote-port", required_argument, NULL, TP_CLI_UDP_REMOTE_PORT }, \
	{ "sctp-udp-remote-port", required_argument, NULL, TP_CLI_SCTP_UDP_REMOTE_PORT }, \
	{ "udp-encaps-port", required_argument, NULL, TP_CLI_UDP_ENCAPS_PORT }, \
	{ "sctp-sack-delay", required_argument, NULL, TP_CLI_SACK_DELAY }, \
	{ "sctp-init-cwnd", required_argument, NULL, TP_CLI_INIT_CWND }

/* Their --help lines. */
extern const char tp_cli_help[];

/* One option from getopt_long (opt, arg) into *o, noted in *cl (NULL: not kept). 1: taken;
 * 2: taken, err holds a warning for the user (an old spelling); 0: not a shared option (err
 * untouched); -1: a bad value, err says why. */
int tp_cli_opt(struct tp_opts *o, struct tp_cli *cl, int opt, const char *arg, char *err,
    size_t errlen);

/* For the programs whose --udp-port named the peer's port (httpload, httpget before issue 21):
 * given --udp-port without --udp-remote-port, it is taken as the peer's port this time (the
 * local one is then --udp-encaps-port's, or the default) and 1 returned with a warning for
 * the user in warn; else 0, *o unchanged. */
int tp_cli_compat_peer_port(struct tp_opts *o, const struct tp_cli *cl, char *warn,
    size_t warnlen);

#endif
