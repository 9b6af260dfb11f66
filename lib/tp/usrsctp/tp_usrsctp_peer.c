/* tp_usrsctp_peer.c: the threadless usrsctp stack's peers (tp_usrsctp_nt.c): remote UDP
 * addresses and the handles the stack knows them by, as AF_CONN addresses. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ev.h"
#include "tp_usrsctp.h"

/*
 * A handle is a generation and a slot number, never a pointer: a handle the stack still holds
 * after its peer went (silent for PE_IDLE_US either way, or the longest silent evicted when the
 * table is full) finds nothing, and the packet sent to it is dropped as a lost one. Addresses
 * are kept in the UDP socket's family (IPv4 as v4-mapped on a dual-stack socket).
 */

#define PE_SLOTBITS 16            /* handle = generation << PE_SLOTBITS | (slot + 1) */
#define PE_MAX 4096
#define PE_BUCKETS 1024
#define PE_IDLE_US (600 * 1000000ull) /* no datagram either way: forgotten */

struct pe_peer {
	struct sockaddr_storage sa;
	socklen_t len;
	uintptr_t gen;
	int used;
	uint64_t last_us;
	size_t hnext;             /* hash chain or free list; SIZE_MAX ends it */
};

static int pe_family = AF_INET6;   /* the UDP socket's */
static struct pe_peer *pe_peers;
static size_t pe_npeers, pe_nused, pe_free = SIZE_MAX;
static size_t pe_bucket[PE_BUCKETS];
static unsigned long pe_evicted;
static uint64_t pe_gc_us;

/* The UDP socket's family, before any peer is made. */
void
tp_usrsctp_peer_family(int family)
{
	pe_family = family;
	memset(pe_bucket, 0xff, sizeof(pe_bucket));
}

static void
pe_canon(const struct sockaddr *sa, socklen_t len, struct sockaddr_storage *out, socklen_t *olen)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)out;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET && pe_family == AF_INET6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = s4->sin_port;
		s6->sin6_addr.s6_addr[10] = 0xff;
		s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&s6->sin6_addr.s6_addr[12], &s4->sin_addr, 4);
		*olen = sizeof(*s6);
		return;
	}
	memcpy(out, sa, len < sizeof(*out) ? len : sizeof(*out));
	*olen = len;
	if (out->ss_family == AF_INET6) {
		s6->sin6_flowinfo = 0;
		*olen = sizeof(*s6);
	} else {
		*olen = sizeof(struct sockaddr_in);
	}
}

static size_t
pe_hash(const struct sockaddr_storage *sa)
{
	const unsigned char *p;
	size_t n, i, h = 2166136261u;
	uint16_t port;

	if (sa->ss_family == AF_INET6) {
		p = (const unsigned char *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
		n = 16;
		port = ((const struct sockaddr_in6 *)sa)->sin6_port;
	} else {
		p = (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr;
		n = 4;
		port = ((const struct sockaddr_in *)sa)->sin_port;
	}
	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	h = (h ^ (port & 0xff)) * 16777619u;
	h = (h ^ (port >> 8)) * 16777619u;
	return h % PE_BUCKETS;
}

static int
pe_same(const struct pe_peer *p, const struct sockaddr_storage *sa, socklen_t len)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)&p->sa;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)sa;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)&p->sa;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)sa;

	if (p->len != len || p->sa.ss_family != sa->ss_family)
		return 0;
	if (sa->ss_family == AF_INET6)
		return a6->sin6_port == b6->sin6_port && a6->sin6_scope_id == b6->sin6_scope_id &&
		    memcmp(&a6->sin6_addr, &b6->sin6_addr, 16) == 0;
	return a4->sin_port == b4->sin_port && a4->sin_addr.s_addr == b4->sin_addr.s_addr;
}

static uintptr_t
pe_handle(size_t i)
{
	return pe_peers[i].gen << PE_SLOTBITS | (uintptr_t)(i + 1);
}

static struct pe_peer *
pe_of(uintptr_t h)
{
	size_t i = (size_t)(h & ((1u << PE_SLOTBITS) - 1));

	if (i == 0 || i > pe_npeers || !pe_peers[i - 1].used ||
	    pe_peers[i - 1].gen != h >> PE_SLOTBITS)
		return NULL;
	return &pe_peers[i - 1];
}

static void
pe_drop(size_t i)
{
	struct pe_peer *p = &pe_peers[i];
	size_t *link = &pe_bucket[pe_hash(&p->sa)];

	while (*link != SIZE_MAX && *link != i)
		link = &pe_peers[*link].hnext;
	if (*link == i)
		*link = p->hnext;
	usrsctp_deregister_address((void *)pe_handle(i));
	p->used = 0;
	p->hnext = pe_free;
	pe_free = i;
	pe_nused--;
}

/* A slot for a new peer: a free one, a new one, or the one idle longest. */
static int
pe_slot(void)
{
	struct pe_peer *p;
	size_t i, n, old = SIZE_MAX;

	if (pe_free == SIZE_MAX && pe_npeers < PE_MAX) {
		n = pe_npeers ? 2 * pe_npeers : 16;
		if (n > PE_MAX)
			n = PE_MAX;
		if ((p = realloc(pe_peers, n * sizeof(*p))) == NULL)
			return -1;
		pe_peers = p;
		for (i = n; i-- > pe_npeers;) {
			memset(&p[i], 0, sizeof(p[i]));
			p[i].hnext = pe_free;
			pe_free = i;
		}
		pe_npeers = n;
	}
	if (pe_free == SIZE_MAX) {
		for (i = 0; i < pe_npeers; i++)
			if (old == SIZE_MAX || pe_peers[i].last_us < pe_peers[old].last_us)
				old = i;
		pe_drop(old);
		pe_evicted++;
	}
	return 0;
}

/* The handle of a remote UDP address, made if new (0: out of memory). */
uintptr_t
tp_usrsctp_peer_get(const struct sockaddr *sa, socklen_t len, uint64_t now)
{
	struct sockaddr_storage ss;
	struct pe_peer *p;
	socklen_t sl;
	size_t b, i;

	pe_canon(sa, len, &ss, &sl);
	b = pe_hash(&ss);
	for (i = pe_bucket[b]; i != SIZE_MAX; i = pe_peers[i].hnext)
		if (pe_same(&pe_peers[i], &ss, sl)) {
			pe_peers[i].last_us = now;
			return pe_handle(i);
		}
	if (pe_slot() == -1)
		return 0;
	i = pe_free;
	p = &pe_peers[i];
	pe_free = p->hnext;
	p->sa = ss;
	p->len = sl;
	p->gen = (p->gen + 1) & (UINTPTR_MAX >> PE_SLOTBITS);
	if (p->gen == 0)
		p->gen = 1;
	p->used = 1;
	p->last_us = now;
	p->hnext = pe_bucket[b];
	pe_bucket[b] = i;
	pe_nused++;
	usrsctp_register_address((void *)pe_handle(i));
	return pe_handle(i);
}

/* Peers silent for PE_IDLE_US either way are forgotten (looked at once a second). */
void
tp_usrsctp_peer_gc(uint64_t now)
{
	size_t i;

	if (now < pe_gc_us + 1000000)
		return;
	pe_gc_us = now;
	for (i = 0; i < pe_npeers; i++)
		if (pe_peers[i].used && pe_peers[i].last_us < now &&
		    now - pe_peers[i].last_us > PE_IDLE_US) /* a packet sent meanwhile: later */
			pe_drop(i);
}

/* An address (IP and SCTP port) as the stack's: the handle of the peer at that IP and the
 * remote UDP port, with the SCTP port. */
int
tp_usrsctp_peer_conn_addr(const struct sockaddr_storage *ip, uint16_t udp_port,
    struct sockaddr_conn *out, char *err, size_t errlen)
{
	struct sockaddr_storage ss = *ip;
	uint16_t sctp_port = htons(tp_addr_port((const struct sockaddr *)ip));
	socklen_t len;

	if (ss.ss_family == AF_INET6 && pe_family == AF_INET) {
		tp_seterr(err, errlen, "IPv6 address, and this host's UDP socket is IPv4 only");
		return -1;
	}
	if (ss.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(udp_port);
		len = sizeof(struct sockaddr_in6);
	} else {
		((struct sockaddr_in *)&ss)->sin_port = htons(udp_port);
		len = sizeof(struct sockaddr_in);
	}
	memset(out, 0, sizeof(*out));
	out->sconn_family = AF_CONN;
	out->sconn_port = sctp_port;
	if ((out->sconn_addr = (void *)tp_usrsctp_peer_get((struct sockaddr *)&ss, len, ev_clock_us())) ==
	    NULL) {
		tp_seterr(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* An AF_CONN address as text: the peer's IP, the SCTP port ("?" for a peer forgotten). */
void
tp_usrsctp_peer_str(const struct sockaddr_conn *sc, char *buf, size_t len)
{
	struct pe_peer *p = pe_of((uintptr_t)sc->sconn_addr);
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	const uint8_t *a;

	if (p == NULL) {
		snprintf(buf, len, "?:%u", ntohs(sc->sconn_port));
		return;
	}
	ss = p->sa;
	a = s6->sin6_addr.s6_addr;
	if (ss.ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memset(s4, 0, sizeof(*s4));
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, a + 12, 4); /* a + 12 lies past the 16 bytes cleared */
	}
	if (ss.ss_family == AF_INET6) {
		s6->sin6_port = sc->sconn_port;
		tp_addr_str((struct sockaddr *)&ss, sizeof(*s6), buf, len);
	} else {
		s4->sin_port = sc->sconn_port;
		tp_addr_str((struct sockaddr *)&ss, sizeof(*s4), buf, len);
	}
}

/* A peer's address for a packet to it, its use noted (NULL: gone). */
const struct sockaddr *
tp_usrsctp_peer_addr(uintptr_t h, socklen_t *len, uint64_t now)
{
	struct pe_peer *p = pe_of(h);

	if (p == NULL)
		return NULL;
	p->last_us = now;
	*len = p->len;
	return (const struct sockaddr *)&p->sa;
}

void
tp_usrsctp_peer_counts(size_t *used, unsigned long *evicted)
{
	*used = pe_nused;
	*evicted = pe_evicted;
}
