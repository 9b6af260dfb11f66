/* tp_sctp_encap.c: kernel SCTP over UDP (RFC 6951, Linux 5.11 and later), so that a kernel
 * endpoint and a usrsctp one share an association. The local UDP port is the network
 * namespace's (sysctl net.sctp.udp_port, read when a socket is created); the peer's port is
 * asked per socket with SCTP_REMOTE_UDP_ENCAPS_PORT. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_sctp.h"

#define TP_SCTP_ENCAP_SYSCTL "/proc/sys/net/sctp/udp_port"

/* net.sctp.udp_port, or -1 where it cannot be read (no such sysctl: kernel before 5.11). */
int
tp_sctp_encap_local_port(void)
{
	FILE *f = fopen(TP_SCTP_ENCAP_SYSCTL, "r");
	int port = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%d", &port) != 1)
		port = -1;
	fclose(f);
	return port;
}

/* Encapsulate every association of socket fd toward the peer's UDP port o->encap_port (none
 * when 0). A listener's associations inherit it; a peer that encapsulates toward us is answered
 * in UDP by the kernel whatever the socket says. */
int
tp_sctp_encap(int fd, const struct tp_opts *o, char *err, size_t errlen)
{
	struct sctp_udpencaps ue;
	int local;

	if (o->encap_port == 0)
		return TP_OK;
	local = tp_sctp_encap_local_port();
	if (local == -1) {
		tp_seterr(err, errlen, "UDP encapsulation to port %u: this kernel has none "
		    "(no %s: Linux 5.11 or later; or use transport 'usrsctp')", o->encap_port,
		    TP_SCTP_ENCAP_SYSCTL);
		return TP_ERROR;
	}
	if (local == 0) {
		tp_seterr(err, errlen, "UDP encapsulation to port %u: the kernel's own UDP port is "
		    "off (sysctl net.sctp.udp_port=0); set it first, e.g. "
		    "sysctl -w net.sctp.udp_port=9899", o->encap_port);
		return TP_ERROR;
	}
	memset(&ue, 0, sizeof(ue)); /* any address, every future association */
	ue.sue_assoc_id = SCTP_FUTURE_ASSOC;
	ue.sue_port = htons(o->encap_port);
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &ue, sizeof(ue)) == -1) {
		tp_seterr(err, errlen, "SCTP_REMOTE_UDP_ENCAPS_PORT %u: %s", o->encap_port,
		    strerror(errno));
		return TP_ERROR;
	}
	return TP_OK;
}
