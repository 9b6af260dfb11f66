/* tp_addr.c: parse "host[,host...]:port", "[v6]:port", ":port" and unix paths; print addresses. */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "tp.h"

static int
tp_addr_one(const char *host, const char *port, struct tp_addrs *out, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL;
	int rc;

	if (out->n == TP_MAXADDRS) {
		tp_seterr(err, errlen, "more than %d addresses", TP_MAXADDRS);
		return -1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (*host == '\0' ? AI_PASSIVE : 0);
	if ((rc = getaddrinfo(*host ? host : "0.0.0.0", port, &hints, &res)) != 0) {
		tp_seterr(err, errlen, "bad address '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	memcpy(&out->a[out->n], res->ai_addr, res->ai_addrlen);
	out->len[out->n] = res->ai_addrlen;
	out->n++;
	freeaddrinfo(res);
	return 0;
}

static int
tp_addrs_unix(const char *spec, struct tp_addrs *out, char *err, size_t errlen)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&out->a[0];
	size_t n = strlen(spec);

	if (n == 0 || n >= sizeof(sun->sun_path)) {
		tp_seterr(err, errlen, "bad unix socket path '%s' (1 to %zu bytes)", spec,
		    sizeof(sun->sun_path) - 1);
		return -1;
	}
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, spec, n + 1);
	/* "@name" is the abstract namespace: no file to clean up. */
	if (spec[0] == '@')
		sun->sun_path[0] = '\0';
	out->len[0] = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (spec[0] != '@'));
	out->n = 1;
	return 0;
}

int
tp_addrs_parse(const char *spec, int family_hint, struct tp_addrs *out, char *err, size_t errlen)
{
	char buf[512], *colon, *port, *host, *next;
	char *end;
	long pn;

	memset(out, 0, sizeof(*out));
	if (spec == NULL) {
		tp_seterr(err, errlen, "no address given");
		return -1;
	}
	if (family_hint == AF_UNIX)
		return tp_addrs_unix(spec, out, err, errlen);
	if (strlen(spec) >= sizeof(buf)) {
		tp_seterr(err, errlen, "address too long");
		return -1;
	}
	strcpy(buf, spec);
	/* The port follows the last colon that is not inside brackets. */
	colon = strrchr(buf, ':');
	if (colon == NULL || (strchr(colon, ']') != NULL)) {
		tp_seterr(err, errlen, "bad address '%s': expected HOST:PORT, [V6]:PORT or :PORT", spec);
		return -1;
	}
	*colon = '\0';
	port = colon + 1;
	pn = strtol(port, &end, 10);
	if (*port == '\0' || *end != '\0' || pn < 0 || pn > 65535) {
		tp_seterr(err, errlen, "bad port '%s' in '%s' (0 to 65535)", port, spec);
		return -1;
	}
	if (buf[0] == '\0')
		return tp_addr_one("", port, out, err, errlen);
	for (host = buf; host != NULL; host = next) {
		next = strchr(host, ',');
		if (host[0] == '[') {
			char *rb = strchr(host, ']');
			if (rb == NULL) {
				tp_seterr(err, errlen, "bad address '%s': missing ']'", spec);
				return -1;
			}
			*rb = '\0';
			next = strchr(rb + 1, ',');
			host++;
		}
		if (next != NULL)
			*next++ = '\0';
		if (tp_addr_one(host, port, out, err, errlen) == -1)
			return -1;
	}
	return 0;
}

void
tp_addr_str(const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen)
{
	char host[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(buf, buflen, "%s:%u", host, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, buflen, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else if (sa->sa_family == AF_UNIX) {
		const struct sockaddr_un *sun = (const struct sockaddr_un *)sa;
		size_t n = len > offsetof(struct sockaddr_un, sun_path) ?
		    len - offsetof(struct sockaddr_un, sun_path) : 0;
		if (n == 0)
			snprintf(buf, buflen, "unix:(unnamed)");
		else if (sun->sun_path[0] == '\0')
			snprintf(buf, buflen, "@%.*s", (int)(n - 1), sun->sun_path + 1);
		else
			snprintf(buf, buflen, "%.*s", (int)strnlen(sun->sun_path, n), sun->sun_path);
	} else {
		snprintf(buf, buflen, "(family %d)", sa->sa_family);
	}
}

/* The port of an IPv4 or IPv6 address, host order; 0 for other families. */
uint16_t
tp_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}
