/* altsvc.c: --alt-svc: sctphttpd advertises its SCTP listeners on TCP responses with an
 * Alt-Svc field (RFC 7838) naming the draft's "http/1.1+sctp" protocol, so that a client
 * may move to SCTP (the draft's Discovery section):
 *   Alt-Svc: http%2F1.1+sctp=":8081"; ma=86400, http%2F1.1+sctp=":8082"; ma=86400; sctp-udp=9899
 * The host is left out: an alternative is only ever the origin's own host. A usrsctp listener
 * also names its UDP port (sctp-udp); a kernel one does where net.sctp.udp_port is set. */
#include <stdio.h>
#include <string.h>

#include "altsvc.h"
#include "httpd.h"
#include "tp.h"

#define ALTSVC_MAX 8
#define ALTSVC_LEN 512

static struct {
	unsigned n;
	uint16_t port[ALTSVC_MAX], udp[ALTSVC_MAX];
	char line[ALTSVC_LEN]; /* "Alt-Svc: ...\r\n", or "" when not advertising */
} altsvc;

/* The kernel's own UDP port for SCTP (RFC 6951), 0 where off or unknown. */
static uint16_t
altsvc_kernel_udp(void)
{
	FILE *f = fopen("/proc/sys/net/sctp/udp_port", "r");
	unsigned v = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%u", &v) != 1 || v > 65535)
		v = 0;
	fclose(f);
	return (uint16_t)v;
}

static void
altsvc_build(unsigned ma)
{
	size_t off;
	unsigned i;
	int n;

	altsvc.line[0] = '\0';
	if (altsvc.n == 0)
		return;
	off = (size_t)snprintf(altsvc.line, sizeof(altsvc.line), "Alt-Svc: ");
	for (i = 0; i < altsvc.n && off < sizeof(altsvc.line); i++) {
		n = snprintf(altsvc.line + off, sizeof(altsvc.line) - off,
		    "%shttp%%2F1.1+sctp=\":%u\"; ma=%u", i ? ", " : "", altsvc.port[i], ma);
		if (n > 0)
			off += (size_t)n;
		if (altsvc.udp[i] != 0 && off < sizeof(altsvc.line)) {
			n = snprintf(altsvc.line + off, sizeof(altsvc.line) - off, "; sctp-udp=%u",
			    altsvc.udp[i]);
			if (n > 0)
				off += (size_t)n;
		}
	}
	if (off + 3 > sizeof(altsvc.line)) {
		altsvc.line[0] = '\0'; /* cannot happen with ALTSVC_MAX entries */
		return;
	}
	memcpy(altsvc.line + off, "\r\n", 3);
}

/* A listener is up: TYPE and its bound address ("a,b:port", "[v6]:port"). */
void
altsvc_listener(const char *type, const char *local)
{
	const struct config *cf = httpd_config();
	const struct tp_type *t = tp_type_find(type);
	const char *colon = strrchr(local, ':');
	unsigned port, i;
	uint16_t udp;

	if (cf->alt_svc_ma < 0 || colon == NULL || sscanf(colon + 1, "%u", &port) != 1 ||
	    port == 0 || port > 65535)
		return;
	if (t == NULL || !(tp_type_caps(t) & TP_CAP_STREAMS))
		return; /* not SCTP */
	if (tp_type_caps(t) & TP_CAP_UDP)
		udp = cf->tp.udp_port ? cf->tp.udp_port : 9899;
	else
		udp = altsvc_kernel_udp();
	for (i = 0; i < altsvc.n; i++)
		if (altsvc.port[i] == port)
			return;
	if (altsvc.n == ALTSVC_MAX)
		return;
	altsvc.port[altsvc.n] = (uint16_t)port;
	altsvc.udp[altsvc.n++] = udp;
	altsvc_build((unsigned)cf->alt_svc_ma);
}

/* The head of a response on s, hl bytes ending in the empty line, in a buffer of cap: the
 * Alt-Svc line inserted before that empty line on TCP. Returns the new length (hl when
 * nothing is added or it does not fit). */
int
altsvc_head(int msg, char *head, int hl, size_t cap)
{
	size_t n = strlen(altsvc.line);

	if (n == 0 || hl < 4 || msg || (size_t)hl + n > cap ||
	    memcmp(head + hl - 4, "\r\n\r\n", 4) != 0)
		return hl;
	memcpy(head + hl - 2, altsvc.line, n);
	memcpy(head + hl - 2 + n, "\r\n", 2);
	return hl + (int)n;
}
