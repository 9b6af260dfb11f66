/* tp_sctp_common.c: kernel SCTP (lksctp-tools) helpers shared by the sctp and sctp1m types. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ev.h"
#include "tp_sctp.h"

#define TP_SCTP_RTO_INITIAL_MS 3000 /* RFC 4960's RTO.Initial, Linux's default */

/* Addresses and sockets. */
int
tp_sctp_family(const struct tp_addrs *a, const struct tp_addrs *b)
{
	int i;

	for (i = 0; a != NULL && i < a->n; i++)
		if (a->a[i].ss_family == AF_INET6)
			return AF_INET6;
	for (i = 0; b != NULL && i < b->n; i++)
		if (b->a[i].ss_family == AF_INET6)
			return AF_INET6;
	return AF_INET;
}

/* sctp_bindx and sctp_connectx take the addresses packed one after the other. */
static size_t
tp_sctp_pack(const struct tp_addrs *a, unsigned char *buf)
{
	size_t off = 0;
	int i;

	for (i = 0; i < a->n; i++) {
		memcpy(buf + off, &a->a[i], a->len[i]);
		off += a->len[i];
	}
	return off;
}

static void
tp_sctp_setport(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static int
tp_sctp_setopt(int fd, int name, const void *val, socklen_t len, const char *what, char *err,
    size_t errlen)
{
	if (setsockopt(fd, IPPROTO_SCTP, name, val, len) == -1)
		return tp_sock_errno(err, errlen, what);
	return TP_OK;
}

/* Buffer sizes as asked: above net.core.[rw]mem_max only with CAP_NET_ADMIN (FORCE). */
static void
tp_sctp_buf_force(int fd, int name, int force, int want)
{
	socklen_t len = sizeof(int);
	int got = 0;

	if (want <= 0 || getsockopt(fd, SOL_SOCKET, name, &got, &len) == -1)
		return;
	if (got / 2 < want)
		(void)setsockopt(fd, SOL_SOCKET, force, &want, sizeof(want));
}

/* Notifications we consume; SCTP_EVENT (Linux 5.0+) or the older SCTP_EVENTS. */
static int
tp_sctp_events(int fd, char *err, size_t errlen)
{
	static const uint16_t types[] = {
		SCTP_ASSOC_CHANGE, SCTP_PEER_ADDR_CHANGE, SCTP_SHUTDOWN_EVENT, SCTP_SEND_FAILED_EVENT
	};
	struct sctp_event_subscribe es;
	struct sctp_assoc_value av;
	struct sctp_event ev;
	int one = 1, rcvinfo;
	size_t i;

	rcvinfo = setsockopt(fd, IPPROTO_SCTP, SCTP_RECVRCVINFO, &one, sizeof(one)) == 0;
	memset(&ev, 0, sizeof(ev));
	ev.se_assoc_id = SCTP_FUTURE_ASSOC;
	ev.se_on = 1;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		ev.se_type = types[i];
		if (setsockopt(fd, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof(ev)) == 0)
			continue;
		if (types[i] == SCTP_SEND_FAILED_EVENT) {
			/* Kernels before SCTP_SEND_FAILED_EVENT have the older SCTP_SEND_FAILED. */
			ev.se_type = SCTP_SEND_FAILED;
			if (setsockopt(fd, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof(ev)) == 0)
				continue;
		}
		break;
	}
	/* Stream reset (4.11+): its events, and a peer's requests taken rather than denied
	 * (RE-CONFIG itself needs net.sctp.reconf_enable=1). Nothing depends on either. */
	ev.se_type = SCTP_STREAM_RESET_EVENT;
	(void)setsockopt(fd, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof(ev));
	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	av.assoc_value = SCTP_ENABLE_RESET_STREAM_REQ;
	(void)setsockopt(fd, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &av, sizeof(av));
	if (rcvinfo && i == sizeof(types) / sizeof(types[0]))
		return TP_OK;
	memset(&es, 0, sizeof(es));
	es.sctp_data_io_event = !rcvinfo; /* SCTP_SNDRCV cmsgs instead of SCTP_RCVINFO */
	es.sctp_association_event = 1;
	es.sctp_address_event = 1;
	es.sctp_send_failure_event = 1;
	es.sctp_shutdown_event = 1;
	return tp_sctp_setopt(fd, SCTP_EVENTS, &es, sizeof(es), "SCTP_EVENTS", err, errlen);
}

static int
tp_sctp_sockopts(int fd, const struct tp_opts *o, char *err, size_t errlen)
{
	uint16_t streams = o->streams ? o->streams : TP_SCTP_STREAMS;
	struct sctp_assoc_value av;
	struct sctp_paddrparams pp;
	struct sctp_rtoinfo rto;
	struct sctp_initmsg im;
	struct sctp_sack_info si;
	int one = 1;

	memset(&im, 0, sizeof(im));
	im.sinit_num_ostreams = streams;
	im.sinit_max_instreams = streams;
	im.sinit_max_init_timeo = (uint16_t)(o->rto_max_ms < 65535 ? o->rto_max_ms : 65535);
	if (tp_sctp_setopt(fd, SCTP_INITMSG, &im, sizeof(im), "SCTP_INITMSG", err, errlen) != TP_OK)
		return TP_ERROR;
	if (o->nodelay && tp_sctp_setopt(fd, SCTP_NODELAY, &one, sizeof(one), "SCTP_NODELAY", err,
	    errlen) != TP_OK)
		return TP_ERROR;
	if (o->rto_min_ms || o->rto_initial_ms || o->rto_max_ms) {
		memset(&rto, 0, sizeof(rto)); /* 0 keeps the stack's value */
		rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
		rto.srto_initial = tp_rto_initial_ms(o);
		rto.srto_min = o->rto_min_ms;
		rto.srto_max = o->rto_max_ms;
		if (setsockopt(fd, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof(rto)) == -1) {
			tp_seterr(err, errlen, "SCTP_RTOINFO (min %u, initial %u, max %u ms): %s",
			    o->rto_min_ms, rto.srto_initial, o->rto_max_ms, strerror(errno));
			return TP_ERROR;
		}
	}
	memset(&si, 0, sizeof(si));
	si.sack_assoc_id = SCTP_FUTURE_ASSOC;
	si.sack_freq = 1;
	if (o->sack_now && tp_sctp_setopt(fd, SCTP_DELAYED_SACK, &si, sizeof(si),
	    "SCTP_DELAYED_SACK", err, errlen) != TP_OK)
		return TP_ERROR;
	if (o->path_max_retrans > 0) {
		memset(&pp, 0, sizeof(pp));
		pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
		pp.spp_pathmaxrxt = (uint16_t)o->path_max_retrans;
		if (tp_sctp_setopt(fd, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp),
		    "SCTP_PEER_ADDR_PARAMS", err, errlen) != TP_OK)
			return TP_ERROR;
	}
	if (o->init_cwnd_mtus) {
		tp_seterr(err, errlen, "an initial window of %u MTUs: usrsctp only (Linux SCTP has "
		    "no such option)", o->init_cwnd_mtus);
		return TP_ERROR;
	}
	if (o->sack_delay_ms) {
		memset(&si, 0, sizeof(si));
		si.sack_assoc_id = SCTP_FUTURE_ASSOC;
		si.sack_delay = o->sack_delay_ms;
		if (tp_sctp_setopt(fd, SCTP_DELAYED_SACK, &si, sizeof(si), "SCTP_DELAYED_SACK", err,
		    errlen) != TP_OK)
			return TP_ERROR;
	}
	/* PR-SCTP is on by default (net.sctp.prsctp_enable); ask anyway, where it exists. */
	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	av.assoc_value = 1;
	(void)setsockopt(fd, IPPROTO_SCTP, SCTP_PR_SUPPORTED, &av, sizeof(av));
	if (tp_sctp_intl_set(fd, o, err, errlen) != TP_OK)
		return TP_ERROR;
	if (tp_sock_bufs(fd, o, err, errlen) != TP_OK)
		return TP_ERROR;
	tp_sctp_buf_force(fd, SO_SNDBUF, SO_SNDBUFFORCE, o->sndbuf);
	tp_sctp_buf_force(fd, SO_RCVBUF, SO_RCVBUFFORCE, o->rcvbuf);
	if (tp_sctp_encap(fd, o, err, errlen) != TP_OK)
		return TP_ERROR;
	/* SCTP_PARTIAL_DELIVERY_POINT stays the kernel's: a message larger than the receive
	 * window is delivered in pieces anyway. Measured on loopback (MTU 64 KiB) with the default
	 * 208 KiB buffer, 1 MiB takes about 3 s (a retransmission timeout) with or without a point
	 * of a quarter of the buffer; what helps is a larger buffer (8 MiB: 5 to 130 ms). */
	if (tp_sctp_events(fd, err, errlen) != TP_OK)
		return TP_ERROR;
	if (o->deny_resets) { /* after tp_sctp_events, which takes them */
		av.assoc_value = 0;
		return tp_sctp_setopt(fd, SCTP_ENABLE_STREAM_RESET, &av, sizeof(av),
		    "SCTP_ENABLE_STREAM_RESET", err, errlen);
	}
	return TP_OK;
}

int
tp_sctp_socket(int family, int type, const struct tp_opts *o, char *err, size_t errlen)
{
	int fd;

	if ((fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_SCTP)) == -1) {
		if (errno == EPROTONOSUPPORT || errno == ESOCKTNOSUPPORT)
			tp_seterr(err, errlen, "kernel has no SCTP support (protocol not supported); "
			    "use transport 'usrsctp' (SCTP over UDP) instead");
		else
			tp_sock_errno(err, errlen, "socket");
		return -1;
	}
	if (tp_sctp_sockopts(fd, o, err, errlen) != TP_OK) {
		close(fd);
		return -1;
	}
	return fd;
}

/* All addresses at once: with port 0 they all share the port the first one is given. */
int
tp_sctp_bind(int fd, const struct tp_addrs *a, char *err, size_t errlen)
{
	unsigned char packed[TP_MAXADDRS * sizeof(struct sockaddr_storage)];
	char s[64];

	tp_sctp_pack(a, packed);
	if (sctp_bindx(fd, (struct sockaddr *)packed, a->n, SCTP_BINDX_ADD_ADDR) == 0)
		return TP_OK;
	if (errno == EADDRINUSE) {
		tp_seterr(err, errlen, "address already in use");
		return TP_ERROR;
	}
	tp_addr_str((const struct sockaddr *)&a->a[0], a->len[0], s, sizeof(s));
	if (errno == EADDRNOTAVAIL)
		tp_seterr(err, errlen, "bind %s%s: address not available on this host", s,
		    a->n > 1 ? " (or one of the others)" : "");
	else
		tp_seterr(err, errlen, "bind %s: %s", s, strerror(errno));
	return TP_ERROR;
}

/* "h1,h2:port" as tp_addrs_parse reads it, with the port the kernel chose. */
static void
tp_sctp_local_str(int fd, const struct tp_addrs *a, char *buf, size_t buflen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint16_t port;
	char one[64], *colon;
	size_t off = 0;
	int i;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1) {
		tp_seterr(buf, buflen, "?");
		return;
	}
	if (a->n <= 1) {
		tp_addr_str((struct sockaddr *)&ss, len, buf, buflen);
		return;
	}
	port = tp_addr_port((const struct sockaddr *)&ss);
	buf[0] = '\0';
	for (i = 0; i < a->n; i++) {
		ss = a->a[i];
		tp_sctp_setport(&ss, port);
		tp_addr_str((struct sockaddr *)&ss, a->len[i], one, sizeof(one));
		if ((colon = strrchr(one, ':')) != NULL)
			*colon = '\0';
		if (off + strlen(one) + 8 >= buflen)
			break; /* what fits: the first addresses are enough to connect */
		off += (size_t)snprintf(buf + off, buflen - off, "%s%s", i ? "," : "", one);
	}
	snprintf(buf + off, buflen - off, ":%u", port);
}

int
tp_sctp_listen_fd(int fd, const struct tp_addrs *a, int backlog, char *local, size_t locallen,
    char *err, size_t errlen)
{
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (tp_sctp_bind(fd, a, err, errlen) != TP_OK)
		return TP_ERROR;
	if (listen(fd, backlog > 0 ? backlog : 511) == -1)
		return tp_sock_errno(err, errlen, "listen");
	tp_sctp_local_str(fd, a, local, locallen);
	return TP_OK;
}

int
tp_sctp_connectx(int fd, const struct tp_addrs *a, sctp_assoc_t *id, char *err, size_t errlen)
{
	unsigned char packed[TP_MAXADDRS * sizeof(struct sockaddr_storage)];

	*id = 0;
	if (tp_addr_port((const struct sockaddr *)&a->a[0]) == 0) {
		tp_seterr(err, errlen, "port 0: nothing to connect to");
		return TP_ERROR;
	}
	tp_sctp_pack(a, packed);
	if (sctp_connectx(fd, (struct sockaddr *)packed, a->n, id) == -1 && errno != EINPROGRESS) {
		tp_seterr(err, errlen, "%s", tp_sctp_reason(errno));
		return TP_ERROR;
	}
	return TP_OK;
}

const char *
tp_sctp_reason(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return "connection refused";
	case ECONNRESET:
		return "association aborted by peer";
	case ETIMEDOUT:
		return "timed out: peer unreachable";
	case EPIPE:
		return "the association is shut down";
	case ENOTCONN:
		return "not connected";
	default:
		return strerror(e);
	}
}

int
tp_sctp_sockerr(int fd)
{
	socklen_t len = sizeof(int);
	int e = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == -1)
		return 0;
	return e;
}

/* A message larger than the send buffer is refused whole (EMSGSIZE): make room first. */
static int
tp_sctp_fit(int fd, size_t len, char *err, size_t errlen)
{
	socklen_t optlen = sizeof(int);
	int have = 0, want;

	if (len <= 65536)
		return TP_OK; /* below any send buffer the kernel gives */
	if (len > INT32_MAX / 2) {
		tp_seterr(err, errlen, "message of %zu bytes is too large", len);
		return TP_ERROR;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &have, &optlen) == -1)
		return tp_sock_errno(err, errlen, "SO_SNDBUF");
	if ((size_t)have >= len)
		return TP_OK;
	/* The kernel doubles what it is given; room for this message and the one before. */
	want = (int)len;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof(want)) == -1 ||
	    getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &have, &optlen) == -1 || (size_t)have < len)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof(want));
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &have, &optlen) == -1)
		return tp_sock_errno(err, errlen, "SO_SNDBUF");
	if ((size_t)have < len) {
		tp_seterr(err, errlen, "message of %zu bytes exceeds the socket send buffer (%d "
		    "bytes; raise net.core.wmem_max or run with CAP_NET_ADMIN)", len, have);
		return TP_ERROR;
	}
	return TP_OK;
}

/* One message, whole or not at all. */
int
tp_sctp_send_msg(int fd, sctp_assoc_t id, uint16_t streams_out, const void *buf, size_t len,
    const struct tp_msginfo *mi, char *err, size_t errlen)
{
	union {
		struct cmsghdr h;
		unsigned char b[CMSG_SPACE(sizeof(struct sctp_sndinfo)) +
		    CMSG_SPACE(sizeof(struct sctp_prinfo))];
	} cb;
	struct sctp_sndinfo si;
	struct sctp_prinfo pr;
	struct cmsghdr *cm;
	struct msghdr mh;
	struct iovec iov;

	if (len == 0) {
		tp_seterr(err, errlen, "SCTP cannot send an empty message");
		return TP_ERROR;
	}
	if (mi->stream >= streams_out) {
		tp_seterr(err, errlen, "stream %u out of range: the association has %u outbound "
		    "stream%s (0..%u)", mi->stream, streams_out, streams_out == 1 ? "" : "s",
		    streams_out ? streams_out - 1u : 0u);
		return TP_ERROR;
	}
	if (tp_sctp_fit(fd, len, err, errlen) != TP_OK)
		return TP_ERROR;
	memset(&cb, 0, sizeof(cb));
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = (void *)(uintptr_t)buf;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cb.b;
	mh.msg_controllen = CMSG_SPACE(sizeof(si));
	memset(&si, 0, sizeof(si));
	si.snd_sid = mi->stream;
	si.snd_flags = (mi->flags & TP_F_UNORDERED) ? SCTP_UNORDERED : 0;
	si.snd_ppid = htonl(mi->ppid);
	si.snd_assoc_id = id;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = IPPROTO_SCTP;
	cm->cmsg_type = SCTP_SNDINFO;
	cm->cmsg_len = CMSG_LEN(sizeof(si));
	memcpy(CMSG_DATA(cm), &si, sizeof(si));
	if (mi->lifetime_ms > 0) {
		memset(&pr, 0, sizeof(pr));
		pr.pr_policy = SCTP_PR_SCTP_TTL;
		pr.pr_value = mi->lifetime_ms;
		mh.msg_controllen += CMSG_SPACE(sizeof(pr));
		cm = CMSG_NXTHDR(&mh, cm);
		cm->cmsg_level = IPPROTO_SCTP;
		cm->cmsg_type = SCTP_PRINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pr));
		memcpy(CMSG_DATA(cm), &pr, sizeof(pr));
	}
	if (sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0)
		return TP_OK;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return TP_RETRY;
	tp_seterr(err, errlen, "send: %s", tp_sctp_reason(errno));
	return TP_ERROR;
}

/* Graceful (SCTP_EOF) or not (SCTP_ABORT) end of one association of a socket. */
int
tp_sctp_eof(int fd, sctp_assoc_t id, int abort)
{
	union {
		struct cmsghdr h;
		unsigned char b[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
	} cb;
	struct sctp_sndinfo si;
	struct cmsghdr *cm;
	struct msghdr mh;

	memset(&cb, 0, sizeof(cb));
	memset(&mh, 0, sizeof(mh));
	memset(&si, 0, sizeof(si));
	si.snd_flags = abort ? SCTP_ABORT : SCTP_EOF;
	si.snd_assoc_id = id;
	mh.msg_control = cb.b;
	mh.msg_controllen = sizeof(cb.b);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = IPPROTO_SCTP;
	cm->cmsg_type = SCTP_SNDINFO;
	cm->cmsg_len = CMSG_LEN(sizeof(si));
	memcpy(CMSG_DATA(cm), &si, sizeof(si));
	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0 ? 0 : -1;
}

/* One piece of data or of a notification; -1 with errno as recvmsg. */
ssize_t
tp_sctp_recv_piece(int fd, void *buf, size_t cap, int flags, struct tp_sctp_rinfo *ri)
{
	union {
		struct cmsghdr h;
		unsigned char b[CMSG_SPACE(sizeof(struct sctp_rcvinfo)) +
		    CMSG_SPACE(sizeof(struct sctp_sndrcvinfo))];
	} cb;
	struct sctp_sndrcvinfo sr;
	struct sctp_rcvinfo rcv;
	struct cmsghdr *cm;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	memset(ri, 0, sizeof(*ri));
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = buf;
	iov.iov_len = cap;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cb.b;
	mh.msg_controllen = sizeof(cb.b);
	if ((n = recvmsg(fd, &mh, flags | MSG_DONTWAIT)) < 0)
		return -1;
	ri->notification = (mh.msg_flags & MSG_NOTIFICATION) != 0;
	if (mh.msg_flags & MSG_EOR)
		ri->mi.flags |= TP_F_EOR;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != IPPROTO_SCTP)
			continue;
		if (cm->cmsg_type == SCTP_RCVINFO && cm->cmsg_len >= CMSG_LEN(sizeof(rcv))) {
			memcpy(&rcv, CMSG_DATA(cm), sizeof(rcv));
			ri->assoc = rcv.rcv_assoc_id;
			ri->mi.stream = rcv.rcv_sid;
			ri->mi.ppid = ntohl(rcv.rcv_ppid);
			if (rcv.rcv_flags & SCTP_UNORDERED)
				ri->mi.flags |= TP_F_UNORDERED;
		} else if (cm->cmsg_type == SCTP_SNDRCV && cm->cmsg_len >= CMSG_LEN(sizeof(sr))) {
			memcpy(&sr, CMSG_DATA(cm), sizeof(sr));
			ri->assoc = sr.sinfo_assoc_id;
			ri->mi.stream = sr.sinfo_stream;
			ri->mi.ppid = ntohl(sr.sinfo_ppid);
			if (sr.sinfo_flags & SCTP_UNORDERED)
				ri->mi.flags |= TP_F_UNORDERED;
		}
	}
	return n;
}

/* Notifications. */
int
tp_sctp_nbuf_add(struct tp_sctp_nbuf *nb, const void *p, size_t n, int eor)
{
	size_t room = sizeof(nb->u.b) - nb->len;

	if (n > room)
		n = room; /* the head is what we read; a SEND_FAILED's data is dropped */
	memcpy(nb->u.b + nb->len, p, n);
	nb->len += n;
	return eor && nb->len >= sizeof(nb->u.n.sn_header);
}

sctp_assoc_t
tp_sctp_note_assoc(const struct tp_sctp_nbuf *nb)
{
	const union sctp_notification *n = &nb->u.n;

	switch (n->sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE:
		return nb->len >= sizeof(n->sn_assoc_change) ? n->sn_assoc_change.sac_assoc_id : 0;
	case SCTP_PEER_ADDR_CHANGE:
		return nb->len >= sizeof(n->sn_paddr_change) ? n->sn_paddr_change.spc_assoc_id : 0;
	case SCTP_SEND_FAILED:
		return nb->len >= sizeof(n->sn_send_failed) ? n->sn_send_failed.ssf_assoc_id : 0;
	case SCTP_SEND_FAILED_EVENT:
		return nb->len >= sizeof(n->sn_send_failed_event) ?
		    n->sn_send_failed_event.ssf_assoc_id : 0;
	case SCTP_SHUTDOWN_EVENT:
		return nb->len >= sizeof(n->sn_shutdown_event) ?
		    n->sn_shutdown_event.sse_assoc_id : 0;
	case SCTP_PARTIAL_DELIVERY_EVENT:
		return nb->len >= sizeof(n->sn_pdapi_event) ? n->sn_pdapi_event.pdapi_assoc_id : 0;
	case SCTP_ADAPTATION_INDICATION:
		return nb->len >= sizeof(n->sn_adaptation_event) ?
		    n->sn_adaptation_event.sai_assoc_id : 0;
	case SCTP_SENDER_DRY_EVENT:
		return nb->len >= sizeof(n->sn_sender_dry_event) ?
		    n->sn_sender_dry_event.sender_dry_assoc_id : 0;
	default:
		return 0;
	}
}

/* A new association (COMM_UP): 1 with its stream counts. */
int
tp_sctp_note_new(const struct tp_sctp_nbuf *nb, uint16_t *in, uint16_t *out)
{
	const struct sctp_assoc_change *ac = &nb->u.n.sn_assoc_change;

	if (nb->u.n.sn_header.sn_type != SCTP_ASSOC_CHANGE || nb->len < sizeof(*ac) ||
	    ac->sac_state != SCTP_COMM_UP)
		return 0;
	*in = ac->sac_inbound_streams;
	*out = ac->sac_outbound_streams;
	return 1;
}

void
tp_sctp_as_init(struct tp_sctp_as *as, sctp_assoc_t id, uint16_t asked)
{
	memset(as, 0, sizeof(*as));
	as->id = id;
	as->asked = asked ? asked : TP_SCTP_STREAMS;
	as->streams_in = as->streams_out = 1;
	as->rto_initial_ms = TP_SCTP_RTO_INITIAL_MS;
}

int
tp_sctp_as_fail(struct tp_sctp_as *as, const char *fmt, ...)
{
	va_list ap;

	if (!as->failed) {
		va_start(ap, fmt);
		vsnprintf(as->err, sizeof(as->err), fmt, ap);
		va_end(ap);
	}
	as->failed = 1;
	return TP_ERROR;
}

/* Tell the stream counts once, when the connection has someone to tell. */
void
tp_sctp_tell(struct tp_conn *c, struct tp_sctp_as *as)
{
	if (c == NULL || !as->up || as->noted || c->notify == NULL)
		return;
	as->noted = 1;
	tp_note(c, "association up: %u inbound, %u outbound streams", as->streams_in,
	    as->streams_out);
	if (as->streams_out < as->asked)
		tp_note(c, "peer granted %u of the %u outbound streams asked for", as->streams_out,
		    as->asked);
	tp_sctp_intl_tell(c, as);
}

void
tp_sctp_as_up(struct tp_conn *c, struct tp_sctp_as *as, uint16_t in, uint16_t out)
{
	as->up = 1;
	if (in > 0)
		as->streams_in = in;
	if (out > 0)
		as->streams_out = out;
	if (c != NULL) {
		c->streams_in = as->streams_in;
		c->streams_out = as->streams_out;
		if (as->failed)
			tp_seterr(c->err, sizeof(c->err), "%s", as->err);
	}
	tp_sctp_tell(c, as);
}

static const char *
tp_sctp_paddr_state(int state)
{
	switch (state) {
	case SCTP_ADDR_AVAILABLE:
		return "available";
	case SCTP_ADDR_UNREACHABLE:
		return "unreachable";
	case SCTP_ADDR_REMOVED:
		return "removed";
	case SCTP_ADDR_ADDED:
		return "added";
	case SCTP_ADDR_MADE_PRIM:
		return "made primary";
	case SCTP_ADDR_CONFIRMED:
		return "confirmed";
	case SCTP_ADDR_POTENTIALLY_FAILED:
		return "potentially failed";
	default:
		return "changed";
	}
}

/* Why an association failed. errfd: a one-to-one socket, whose SO_ERROR says; -1 where the
 * kernel keeps no error for the association (one-to-many). */
static void
tp_sctp_lost(struct tp_sctp_as *as, const struct sctp_assoc_change *ac, int errfd)
{
	int e = errfd != -1 ? tp_sctp_sockerr(errfd) : 0;
	uint64_t ms;

	if (ac->sac_state == SCTP_CANT_STR_ASSOC) {
		if (e == ECONNREFUSED || e == ETIMEDOUT) {
			tp_sctp_as_fail(as, "%s", e == ECONNREFUSED ? "connection refused" :
			    "connection timed out (no answer to INIT)");
			return;
		}
		/* No SO_ERROR: an ABORT comes back within the first INIT's RTO, a timeout
		 * only after all INIT retransmissions. */
		ms = as->t0_us ? (ev_clock_us() - as->t0_us) / 1000 : 0;
		if (e == 0 && ms < as->rto_initial_ms)
			tp_sctp_as_fail(as, "connection refused");
		else if (e == 0)
			tp_sctp_as_fail(as, "connection timed out (no answer to INIT)");
		else
			tp_sctp_as_fail(as, "connection failed: %s", tp_sctp_reason(e));
		return;
	}
	if (e == ECONNRESET || (e == 0 && (ac->sac_error != 0 || ac->sac_length > sizeof(*ac))))
		tp_sctp_as_fail(as, "association aborted by peer");
	else if (e == ETIMEDOUT || e == 0)
		tp_sctp_as_fail(as, "association lost: peer unreachable (retransmissions exhausted)");
	else
		tp_sctp_as_fail(as, "association lost: %s", tp_sctp_reason(e));
}

/* Apply one notification to its association and tell it (c may be NULL: not accepted). */
void
tp_sctp_note(struct tp_conn *c, struct tp_sctp_as *as, const struct tp_sctp_nbuf *nb, int errfd)
{
	const union sctp_notification *n = &nb->u.n;
	struct sockaddr_storage ss;
	uint16_t sid;
	char addr[64];

	switch (n->sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE:
		if (nb->len < sizeof(n->sn_assoc_change))
			break;
		switch (n->sn_assoc_change.sac_state) {
		case SCTP_COMM_UP:
			tp_sctp_as_up(c, as, n->sn_assoc_change.sac_inbound_streams,
			    n->sn_assoc_change.sac_outbound_streams);
			break;
		case SCTP_RESTART:
			if (c != NULL)
				tp_note(c, "association restarted by the peer");
			tp_sctp_as_up(c, as, n->sn_assoc_change.sac_inbound_streams,
			    n->sn_assoc_change.sac_outbound_streams);
			break;
		case SCTP_COMM_LOST:
		case SCTP_CANT_STR_ASSOC:
			tp_sctp_lost(as, &n->sn_assoc_change, errfd);
			if (c != NULL) {
				tp_seterr(c->err, sizeof(c->err), "%s", as->err);
				/* Linux gives the cause as it was on the wire. */
				tp_note(c, "%s (cause %u)", as->err,
				    ntohs(n->sn_assoc_change.sac_error));
			}
			break;
		case SCTP_SHUTDOWN_COMP:
			as->shut = 1;
			if (c != NULL)
				tp_note(c, "shutdown complete");
			break;
		default:
			break;
		}
		break;
	case SCTP_PEER_ADDR_CHANGE:
		if (c == NULL || nb->len < sizeof(n->sn_paddr_change))
			break;
		memcpy(&ss, (const unsigned char *)n + offsetof(struct sctp_paddr_change, spc_aaddr),
		    sizeof(ss));
		tp_addr_str((struct sockaddr *)&ss, sizeof(ss), addr, sizeof(addr));
		tp_note(c, "peer address %s %s", addr,
		    tp_sctp_paddr_state(n->sn_paddr_change.spc_state));
		break;
	case SCTP_SEND_FAILED_EVENT:
		if (c == NULL || nb->len < sizeof(n->sn_send_failed_event))
			break;
		sid = n->sn_send_failed_event.ssfe_info.snd_sid;
		tp_note(c, "send failed: %u bytes on stream %u %s (error %u)",
		    (unsigned)(n->sn_send_failed_event.ssf_length -
		    sizeof(n->sn_send_failed_event)), sid,
		    (n->sn_send_failed_event.ssf_flags & SCTP_DATA_SENT) ? "were sent, not acked" :
		    "were never sent", n->sn_send_failed_event.ssf_error);
		break;
	case SCTP_SEND_FAILED:
		if (c == NULL || nb->len < sizeof(n->sn_send_failed))
			break;
		tp_note(c, "send failed: %u bytes on stream %u (error %u)",
		    (unsigned)(n->sn_send_failed.ssf_length - sizeof(n->sn_send_failed)),
		    n->sn_send_failed.ssf_info.sinfo_stream, n->sn_send_failed.ssf_error);
		break;
	case SCTP_SHUTDOWN_EVENT:
		as->shut = 1;
		if (c != NULL)
			tp_note(c, "peer shut down the association");
		break;
	case SCTP_STREAM_RESET_EVENT:
		if (c != NULL && nb->len >= sizeof(n->sn_strreset_event))
			tp_note_reset(c, n->sn_strreset_event.strreset_flags,
			    n->sn_strreset_event.strreset_stream_list,
			    (nb->len - sizeof(n->sn_strreset_event)) / sizeof(uint16_t));
		break;
	default:
		break;
	}
	tp_sctp_tell(c, as);
}

/*
 * RFC 6525 reset of stream sid, both directions. Linux needs the sysctl net.sctp.reconf_enable
 * on both ends (RE-CONFIG is negotiated at INIT), and refuses while data is queued on the
 * stream or a request is outstanding: TP_RETRY then.
 */
int
tp_sctp_reset(int fd, sctp_assoc_t id, uint16_t sid, char *err, size_t errlen)
{
	struct sctp_assoc_value av;
	uint32_t buf[(sizeof(struct sctp_reset_streams) + sizeof(uint16_t) + 3) / 4];
	struct sctp_reset_streams *srs = (struct sctp_reset_streams *)buf;

	memset(&av, 0, sizeof(av));
	av.assoc_id = id;
	av.assoc_value = SCTP_ENABLE_RESET_STREAM_REQ;
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &av, sizeof(av)) == -1) {
		tp_sock_errno(err, errlen, "SCTP_ENABLE_STREAM_RESET");
		return TP_ERROR;
	}
	memset(buf, 0, sizeof(buf));
	srs->srs_assoc_id = id;
	srs->srs_flags = SCTP_STREAM_RESET_INCOMING | SCTP_STREAM_RESET_OUTGOING;
	srs->srs_number_streams = 1;
	srs->srs_stream_list[0] = sid;
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_RESET_STREAMS, srs,
	    (socklen_t)(sizeof(*srs) + sizeof(uint16_t))) == -1) {
		if (errno == EAGAIN || errno == EINPROGRESS || errno == EALREADY || errno == EBUSY)
			return TP_RETRY;
		tp_sock_errno(err, errlen, errno == ENOPROTOOPT ?
		    "SCTP_RESET_STREAMS (peer without RE-CONFIG, or net.sctp.reconf_enable=0)" :
		    "SCTP_RESET_STREAMS");
		return TP_ERROR;
	}
	return TP_OK;
}

/* Status. */
int
tp_sctp_sstatus(int fd, sctp_assoc_t id, struct sctp_status *st)
{
	socklen_t len = sizeof(*st);

	memset(st, 0, sizeof(*st));
	st->sstat_assoc_id = id;
	return getsockopt(fd, IPPROTO_SCTP, SCTP_STATUS, st, &len);
}

/* Linux reports spinfo_srtt in jiffies (the raw transport->srtt; spinfo_rto is converted to
 * ms): one jiffy is the coarse clocks' resolution (4 ms at HZ 250, Debian's). Without it, 1. */
static uint32_t
tp_sctp_jiffies_ms(uint32_t j)
{
	struct timespec res;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == -1 || res.tv_sec != 0 ||
	    res.tv_nsec <= 0)
		return j;
	return (uint32_t)(((uint64_t)j * (uint64_t)res.tv_nsec + 500000) / 1000000);
}

int
tp_sctp_get_status(int fd, sctp_assoc_t id, struct tp_status *st, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct sockaddr *addrs = NULL;
	struct sctp_status s;
	int n;

	if (tp_sctp_sstatus(fd, id, &s) == -1)
		return tp_sock_errno(err, errlen, "SCTP_STATUS");
	st->streams_in = s.sstat_instrms;
	st->streams_out = s.sstat_outstrms;
	st->srtt_ms = tp_sctp_jiffies_ms(s.sstat_primary.spinfo_srtt);
	st->rto_ms = s.sstat_primary.spinfo_rto;
	st->cwnd = s.sstat_primary.spinfo_cwnd;
	st->unacked = s.sstat_unackdata;
	if ((n = sctp_getpaddrs(fd, id, &addrs)) > 0) {
		st->naddrs = (uint32_t)n;
		sctp_freepaddrs(addrs);
	}
	memcpy(&ss, (const unsigned char *)&s + offsetof(struct sctp_status, sstat_primary) +
	    offsetof(struct sctp_paddrinfo, spinfo_address), sizeof(ss));
	tp_addr_str((struct sockaddr *)&ss, sizeof(ss), st->primary, sizeof(st->primary));
	return TP_OK;
}

/* The peer's primary address as text (the first of its addresses). */
void
tp_sctp_peer(int fd, sctp_assoc_t id, char *buf, size_t buflen)
{
	struct sockaddr *addrs = NULL;
	struct sockaddr_storage ss;
	size_t len;

	if (sctp_getpaddrs(fd, id, &addrs) <= 0) {
		tp_seterr(buf, buflen, "?");
		return;
	}
	len = addrs->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	    sizeof(struct sockaddr_in);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, addrs, len);
	tp_addr_str((struct sockaddr *)&ss, (socklen_t)len, buf, buflen);
	sctp_freepaddrs(addrs);
}
