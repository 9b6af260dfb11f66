/* tp_cli.c: the shared transport options (tp_cli.h): their values, checks and help text. */
#include <errno.h>
#include <stdlib.h>

#include "tp_cli.h"

const char tp_cli_help[] =
"  --udp-port N             usrsctp: the local UDP encapsulation port (default 9899)\n"
"  --udp-remote-port N      usrsctp: the peer's UDP encapsulation port (default 9899)\n"
"  --sctp-udp-remote-port N sctp, sctp1m: kernel SCTP in UDP (RFC 6951) to the peer's\n"
"                           UDP port N (local: sysctl net.sctp.udp_port; Linux >= 5.11)\n"
"  --sctp-sack-delay MS     SCTP (kernel, usrsctp): delayed SACK timer, 1 to 500 ms\n"
"                           (default: the stack's, usrsctp 200; TCP's delayed ACK is 40)\n"
"  --sctp-init-cwnd N       usrsctp: initial congestion window, N MTUs, 1 to 64 (default\n"
"                           the stack's, 3; TCP's initial window is 10)\n";

/* --NAME's value, a whole number from lo to hi, into *v; -1 and err said otherwise */
static int
tp_cli_num(const char *name, const char *arg, long lo, long hi, uint32_t *v, char *err,
    size_t errlen)
{
	char *end;
	long n;

	errno = 0;
	n = arg != NULL && *arg != '\0' ? strtol(arg, &end, 10) : 0;
	if (arg == NULL || *arg == '\0' || errno != 0 || *end != '\0' || n < lo || n > hi) {
		tp_seterr(err, errlen, "--%s: bad value '%s' (%ld to %ld)", name,
		    arg != NULL ? arg : "", lo, hi);
		return -1;
	}
	*v = (uint32_t)n;
	return 0;
}

static int
tp_cli_port(const char *name, const char *arg, uint16_t *port, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = arg != NULL && *arg != '\0' ? strtol(arg, &end, 10) : 0;
	if (arg == NULL || *arg == '\0' || errno != 0 || *end != '\0' || v < 1 || v > 65535) {
		tp_seterr(err, errlen, "--%s: bad UDP port '%s' (1 to 65535)", name,
		    arg != NULL ? arg : "");
		return -1;
	}
	*port = (uint16_t)v;
	return 0;
}

int
tp_cli_opt(struct tp_opts *o, struct tp_cli *cl, int opt, const char *arg, char *err,
    size_t errlen)
{
	struct tp_cli dummy;
	int rc = 1;

	if (cl == NULL)
		cl = &dummy;

	switch (opt) {
	case TP_CLI_UDP_PORT:
		if (tp_cli_port("udp-port", arg, &o->udp_port, err, errlen) == -1)
			return -1;
		cl->udp_port = o->udp_port;
		break;
	case TP_CLI_UDP_REMOTE_PORT:
		if (tp_cli_port("udp-remote-port", arg, &o->udp_remote_port, err, errlen) == -1)
			return -1;
		break;
	case TP_CLI_SCTP_UDP_REMOTE_PORT:
		if (tp_cli_port("sctp-udp-remote-port", arg, &o->encap_port, err, errlen) == -1)
			return -1;
		break;
	case TP_CLI_UDP_ENCAPS_PORT:
		if (tp_cli_port("udp-encaps-port", arg, &o->udp_port, err, errlen) == -1)
			return -1;
		cl->encaps_port = o->udp_port;
		tp_seterr(err, errlen, "--udp-encaps-port is now spelt --udp-port (the local UDP "
		    "port): taken as --udp-port this time");
		rc = 2;
		break;
	case TP_CLI_SACK_DELAY:
		if (tp_cli_num("sctp-sack-delay", arg, 1, 500, &o->sack_delay_ms, err, errlen) == -1)
			return -1;
		break;
	case TP_CLI_INIT_CWND:
		if (tp_cli_num("sctp-init-cwnd", arg, 1, 64, &o->init_cwnd_mtus, err, errlen) == -1)
			return -1;
		break;
	default:
		return 0;
	}
	cl->seen |= TP_CLI_SEEN(opt);
	return rc;
}

int
tp_cli_compat_peer_port(struct tp_opts *o, const struct tp_cli *cl, char *warn, size_t warnlen)
{
	if (!(cl->seen & TP_CLI_SEEN(TP_CLI_UDP_PORT)) ||
	    (cl->seen & TP_CLI_SEEN(TP_CLI_UDP_REMOTE_PORT)))
		return 0;
	o->udp_remote_port = cl->udp_port;
	o->udp_port = cl->encaps_port; /* 0 (the default) without one */
	tp_seterr(warn, warnlen, "--udp-port now names the local UDP port; the server's is "
	    "--udp-remote-port: taken as --udp-remote-port %u this time",
	    (unsigned)o->udp_remote_port);
	return 1;
}
