/* net.c: rtpaudio's transports: its own UDP sockets (RTP/RTCP, unicast or multicast) and the
 * tp types for the others (sctp/usrsctp unordered, tcpm with RFC 4571 framing). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rtpaudio.h"
#include "tp.h"
#include "tp_cli.h"

/* The one place a transport's name is read, and the stack's: usrsctp is SCTP in UDP, with
 * usrsctp's threads or without them (usrsctp-nt, in the program's loop). */
static const struct {
	const char *name;
	const char *tp_type; /* the tp type of sctp and prsctp on this stack */
	int udp;
} rtpaudio_stacks[] = {
	{ "kernel", "sctp", 0 },
	{ "usrsctp", "usrsctp", 1 },
	{ "usrsctp-nt", "usrsctp-nt", 1 },
};
static const struct {
	const char *name;
	struct rtpaudio_caps caps;
} rtpaudio_transports[] = {
	{ "udp", { .datagram = 1 } },
	{ "sctp", { .unordered = 1, .assoc = 1 } },
	{ "prsctp", { .unordered = 1, .lifetime = 1, .assoc = 1 } },
	{ "tcp", { .rtcp_inband = 1 } },
};

void
rtpaudio_net_init(struct rtpaudio_net *n, int sender)
{
	memset(n, 0, sizeof(*n));
	n->transport = "udp";
	n->stack = "kernel";
	/* two usrsctp stacks on one host need two encapsulation ports */
	tp_opts_init(&n->tpo);
	n->tpo.udp_port = sender ? 9900 : 9899;
	n->tpo.udp_remote_port = sender ? 9899 : 9900;
	n->ttl = 1;
}

/* One option of the transport's, as getopt_long gave it (-t, -s, and the ones every program
 * shares, parsed by lib/tp/tp_cli.c): 1 when ch was one; a bad value is said on standard error,
 * after prog, and ends the process with status 2, as rtpaudio_num does. */
int
rtpaudio_net_opt(struct rtpaudio_net *n, const char *prog, int ch, const char *arg)
{
	char err[256];

	switch (tp_cli_opt(&n->tpo, NULL, ch, arg, err, sizeof(err))) {
	case -1:
		fprintf(stderr, "%s: %s\n", prog, err);
		exit(2);
	case 2: /* an old spelling, taken: its warning */
		fprintf(stderr, "%s: %s\n", prog, err);
		return 1;
	case 1:
		return 1;
	}
	switch (ch) {
	case 't': n->transport = arg; break;
	case 's': n->stack = arg; break;
	default: return 0;
	}
	return 1;
}

int
rtpaudio_net_check(struct rtpaudio_net *n, char *err, size_t errlen)
{
	size_t i, nt = sizeof(rtpaudio_transports) / sizeof(rtpaudio_transports[0]);
	size_t ns = sizeof(rtpaudio_stacks) / sizeof(rtpaudio_stacks[0]);

	for (i = 0; i < nt && strcmp(n->transport, rtpaudio_transports[i].name) != 0; i++)
		;
	if (i == nt) {
		tp_seterr(err, errlen, "unknown transport '%s' (udp, sctp, prsctp, tcp)",
		    n->transport);
		return -1;
	}
	n->caps = rtpaudio_transports[i].caps;
	for (i = 0; i < ns && strcmp(n->stack, rtpaudio_stacks[i].name) != 0; i++)
		;
	if (i == ns) {
		tp_seterr(err, errlen, "unknown stack '%s' (kernel, usrsctp, usrsctp-nt)", n->stack);
		return -1;
	}
	n->udp = rtpaudio_stacks[i].udp;
	n->sctp_type = rtpaudio_stacks[i].tp_type;
	if ((n->rto_min_ms || n->rto_max_ms) && !n->caps.assoc) {
		tp_seterr(err, errlen, "--rto-min and --rto-max need sctp or prsctp");
		return -1;
	}
	if (n->rto_min_ms && n->rto_max_ms && n->rto_max_ms < n->rto_min_ms) {
		tp_seterr(err, errlen, "--rto-max %u is below --rto-min %u", n->rto_max_ms,
		    n->rto_min_ms);
		return -1;
	}
	return 0;
}

/* How an RTCP packet goes on a connection: beside the media with its own PPID, unordered
 * where the media is, on prsctp for one report interval at most. */
void
rtpaudio_net_rtcp_info(const struct rtpaudio_net *n, uint32_t interval_ms,
    struct tp_msginfo *mi)
{
	memset(mi, 0, sizeof(*mi));
	mi->ppid = RTPAUDIO_PPID_RTCP;
	if (n->caps.unordered)
		mi->flags = TP_F_UNORDERED;
	if (n->caps.lifetime)
		mi->lifetime_ms = interval_ms;
}

/* Whether a message from a connection is RTCP: by its PPID, or on tcp by its packet type
 * (RFC 5761: 200 to 204, where RTP's would be a payload type with the marker bit). */
int
rtpaudio_net_is_rtcp(const struct rtpaudio_net *n, const uint8_t *buf, size_t len,
    uint32_t ppid)
{
	if (ppid == RTPAUDIO_PPID_RTCP)
		return 1;
	return n->caps.rtcp_inband && len >= 8 && (buf[0] >> 6) == 2 && buf[1] >= RTCP_SR &&
	    buf[1] <= RTCP_APP;
}

static const char *
rtpaudio_tp_type(const struct rtpaudio_net *n)
{
	if (n->caps.rtcp_inband)
		return "tcpm";
	return n->sctp_type;
}

static void
rtpaudio_tp_opts(const struct rtpaudio_net *n, struct tp_opts *o)
{
	*o = n->tpo; /* the UDP ports, kernel SCTP's UDP encapsulation */
	o->streams = 1;
	o->nodelay = 1;      /* each packet is due now: no Nagle, no SCTP bundling delay */
	o->sack_now = 1;     /* a packet every 26-80 ms: a delayed SACK (2 packets or 200 ms)
	                      * was most of the SRTT, and the RTO reached the lifetime (issue 35) */
	o->frame_hdr = 2;    /* RFC 4571 */
	o->rto_min_ms = n->rto_min_ms;
	o->rto_max_ms = n->rto_max_ms;
}

static int
rtpaudio_addr(const char *spec, int rtcp, struct sockaddr_storage *ss, socklen_t *len,
    char *err, size_t errlen)
{
	struct tp_addrs a;

	if (tp_addrs_parse(spec, AF_UNSPEC, &a, err, errlen) == -1)
		return -1;
	*ss = a.a[0];
	*len = a.len[0];
	if (rtcp && ss->ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		s6->sin6_port = htons((uint16_t)(ntohs(s6->sin6_port) + 1));
	} else if (rtcp) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
		s4->sin_port = htons((uint16_t)(ntohs(s4->sin_port) + 1));
	}
	return 0;
}

static int
rtpaudio_is_mcast(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)ss)->sin6_addr);
	return IN_MULTICAST(ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr));
}

/* A connected UDP socket to DEST (rtcp: to PORT+1). */
int
rtpaudio_udp_connect(const struct rtpaudio_net *n, const char *dest, int rtcp, char *err,
    size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = -1;

	if (rtpaudio_addr(dest, rtcp, &ss, &len, err, errlen) == -1)
		goto bad;
	if ((fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		goto sys;
	if (rtpaudio_is_mcast(&ss)) {
		int ttl = n->ttl, loop = 1;
		if (ss.ss_family == AF_INET6) {
			setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &ttl, sizeof(ttl));
			setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &loop, sizeof(loop));
		} else {
			setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl));
			setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof(loop));
		}
	}
	if (connect(fd, (struct sockaddr *)&ss, len) == -1)
		goto sys;
	return fd;
sys:
	tp_seterr(err, errlen, "udp %s: %s", dest, strerror(errno));
bad:
	if (fd != -1)
		close(fd);
	return -1;
}

/* A non-blocking UDP socket bound to ADDR (rtcp: PORT+1), joined to the group when ADDR is
 * a multicast address. */
int
rtpaudio_udp_listen(const struct rtpaudio_net *n, const char *addr, int rtcp, char *err,
    size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = -1, one = 1;

	(void)n;
	if (rtpaudio_addr(addr, rtcp, &ss, &len, err, errlen) == -1)
		goto bad;
	if ((fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		goto sys;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	{
		int rcv = 1 << 20; /* a burst of a second of audio must not overflow */
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	}
	if (bind(fd, (struct sockaddr *)&ss, len) == -1)
		goto sys;
	if (rtpaudio_is_mcast(&ss)) {
		if (ss.ss_family == AF_INET6) {
			struct ipv6_mreq m = { 0 };
			m.ipv6mr_multiaddr = ((struct sockaddr_in6 *)&ss)->sin6_addr;
			if (setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof(m)) == -1)
				goto sys;
		} else {
			struct ip_mreq m = { 0 };
			m.imr_multiaddr = ((struct sockaddr_in *)&ss)->sin_addr;
			m.imr_interface.s_addr = htonl(INADDR_ANY);
			if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)) == -1)
				goto sys;
		}
	}
	return fd;
sys:
	tp_seterr(err, errlen, "udp %s: %s", addr, strerror(errno));
bad:
	if (fd != -1)
		close(fd);
	return -1;
}

struct tp_conn *
rtpaudio_tp_connect(const struct rtpaudio_net *n, const char *dest, char *err, size_t errlen)
{
	struct tp_conn *c;
	struct tp_opts o;

	rtpaudio_tp_opts(n, &o);
	if ((c = tp_connect(rtpaudio_tp_type(n), dest, &o, err, errlen)) == NULL)
		return NULL;
	if (tp_connect_wait(c, 5000) != TP_OK) {
		tp_seterr(err, errlen, "connect to %s: %s", dest, c->err);
		tp_conn_free(c);
		return NULL;
	}
	return c;
}

struct tp_listener *
rtpaudio_tp_listen(const struct rtpaudio_net *n, const char *addr, char *err, size_t errlen)
{
	struct tp_opts o;

	rtpaudio_tp_opts(n, &o);
	return tp_listen(rtpaudio_tp_type(n), addr, &o, err, errlen);
}
