/* tp_usrsctp.c: SCTP over UDP (RFC 6951) on the userspace stack usrsctp, bridged into ev: the
 * types usrsctp (the stack's own threads and encapsulation) and usrsctp-nt (threadless, in the
 * program's loop: tp_usrsctp_nt.c), one set of socket calls for both. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ev.h"
#include "tp_usrsctp.h"

/* Readiness: see tp_usrsctp_wake.c for how usrsctp's threads wake the loop, tp_usrsctp_nt.c
 * for the threadless stack. */

#define TP_USRSCTP_STREAMS  10
#define TP_USRSCTP_TICK_US  1000000
#define TP_USRSCTP_READS    64      /* notifications consumed per recv call at most */
#define TP_USRSCTP_TIMED_US 1000000 /* timed sends: the send rate's window */
/* usrsctp-nt: the path MTU given to the stack, which on an AF_CONN path counts neither IP nor
 * UDP header, nor SCTP's 12-byte common header (measured: MTU 1200 gave 1212-byte packets):
 * 1440 makes a 1452-byte SCTP packet, a 1500-byte IPv6 packet in UDP on an Ethernet link. */
#define TP_USRSCTP_CONN_MTU 1440


/* Notifications may be read in pieces: they are put together here. */
union tp_usrsctp_nbuf {
	union sctp_notification n;
	unsigned char b[1024];
};

struct tp_usrsctp_conn {
	const struct tp_usrsctp_mode *m;
	struct socket *so;
	uintptr_t id;
	int up;          /* established: finish said TP_OK, or accepted */
	int failed;      /* the association is gone with an error, told in c->err */
	int vague;       /* ... told before the stack said why (so_error comes just after) */
	int shut;        /* the peer shut down (SHUTDOWN seen) */
	int wblocked;    /* the last send would have blocked: no EV_WRITE until the stack moves */
	int noted;       /* the stream counts have been reported */
	uint64_t gone_us; /* when finish first found no association, nor why */
	/* timed-reliability sends (tp_usrsctp_timed): the send buffer is the caller's (asked
	 * with tp_opts.sndbuf) or ours; the bytes sent in the rate's window since its start,
	 * and their sum weighted by their lifetimes; the size set (0: the stack's default) */
	int sndbuf_fixed;
	/* Nagle, where the caller left it on (tp_opts.nodelay 0): off (SCTP_NODELAY set) while
	 * the messages sent may not fit one packet (tp_usrsctp_nagle) */
	int nagle, nodelay_now;
	uint64_t timed_bytes, timed_byte_ms, timed_t0_us;
	int timed_sndbuf;
	struct ev_timer tick;
	size_t nlen;
	union tp_usrsctp_nbuf nbuf;
};

struct tp_usrsctp_listener {
	const struct tp_usrsctp_mode *m;
	struct socket *so;
	uintptr_t id;
	struct ev_loop *loop; /* the loop that watches it */
};

/* Error texts. */
static int
tp_usrsctp_errno(char *err, size_t errlen, const char *what)
{
	tp_seterr(err, errlen, "%s: %s", what, strerror(errno));
	return -1;
}

static const char *
tp_usrsctp_reason(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return "connection refused (the peer answered INIT with ABORT)";
	case ECONNRESET:
		return "association aborted by peer";
	case ETIMEDOUT:
		return "connection timed out (no answer to INIT)";
	case ECONNABORTED:
		return "association lost: peer unreachable (retransmissions exhausted)";
	case -1:
		return "the association could not be started (refused, or no answer)";
	case EPIPE:
		return "the association is shut down";
	case ENOTCONN:
		return "not connected (the association is closed)";
	case 0:
		return "association lost";
	default:
		return strerror(e);
	}
}

static int
tp_usrsctp_soerror(struct socket *so)
{
	socklen_t len = sizeof(int);
	int e = 0;

	if (usrsctp_getsockopt(so, SOL_SOCKET, SO_ERROR, &e, &len) == -1)
		return 0;
	return e;
}

/* The association is gone: e is an errno, 0 or -1 where the stack has not said why yet. */
static int
tp_usrsctp_fail(struct tp_conn *c, int e)
{
	struct tp_usrsctp_conn *u = c->impl;

	if (u->failed && u->vague && e > 0)
		u->failed = 0;
	if (!u->failed) {
		tp_seterr(c->err, sizeof(c->err), "%s", tp_usrsctp_reason(e));
		u->vague = e <= 0;
	}
	u->failed = 1;
	return TP_ERROR;
}

/* Once failed, every call says so; with the stack's reason as soon as it has one. */
static int
tp_usrsctp_failed(struct tp_conn *c)
{
	struct tp_usrsctp_conn *u = c->impl;
	int e;

	if (u->vague && (e = tp_usrsctp_soerror(u->so)) != 0)
		tp_usrsctp_fail(c, e);
	return TP_ERROR;
}

/* Socket options. */
static int
tp_usrsctp_setopt(struct socket *so, int level, int name, const void *val, socklen_t len,
    const char *what, char *err, size_t errlen)
{
	if (usrsctp_setsockopt(so, level, name, val, len) == -1)
		return tp_usrsctp_errno(err, errlen, what);
	return 0;
}

/* What an association keeps of its socket: for connecting, listening and accepted sockets. */
static int
tp_usrsctp_connopts(struct socket *so, const struct tp_opts *o, char *err, size_t errlen)
{
	static const uint16_t evs[] = {
		SCTP_ASSOC_CHANGE, SCTP_PEER_ADDR_CHANGE, SCTP_SEND_FAILED_EVENT, SCTP_SHUTDOWN_EVENT,
		SCTP_STREAM_RESET_EVENT
	};
	struct sctp_assoc_value av;
	struct sctp_event ev;
	int one = 1;
	size_t i;

	if (usrsctp_set_non_blocking(so, 1) == -1)
		return tp_usrsctp_errno(err, errlen, "non-blocking");
	if (tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_RECVRCVINFO, &one, sizeof(one),
	    "SCTP_RECVRCVINFO", err, errlen) == -1)
		return -1;
	memset(&ev, 0, sizeof(ev));
	ev.se_assoc_id = SCTP_FUTURE_ASSOC;
	ev.se_on = 1;
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		ev.se_type = evs[i];
		if (tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof(ev), "SCTP_EVENT",
		    err, errlen) == -1)
			return -1;
	}
	/* A peer's stream reset (RFC 6525) is denied unless this is set: take them. */
	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	av.assoc_value = o->deny_resets ? 0 : SCTP_ENABLE_RESET_STREAM_REQ;
	if (tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &av, sizeof(av),
	    "SCTP_ENABLE_STREAM_RESET", err, errlen) == -1)
		return -1;
	if (o->nodelay && tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_NODELAY, &one, sizeof(one),
	    "SCTP_NODELAY", err, errlen) == -1)
		return -1;
	if (o->sndbuf > 0 && tp_usrsctp_setopt(so, SOL_SOCKET, SO_SNDBUF, &o->sndbuf,
	    sizeof(o->sndbuf), "SO_SNDBUF", err, errlen) == -1)
		return -1;
	if (o->rcvbuf > 0 && tp_usrsctp_setopt(so, SOL_SOCKET, SO_RCVBUF, &o->rcvbuf,
	    sizeof(o->rcvbuf), "SO_RCVBUF", err, errlen) == -1)
		return -1;
	return 0;
}

/* What an association is set up with: before connect and listen. */
static int
tp_usrsctp_sockopts(struct socket *so, int family, const struct tp_opts *o, char *err,
    size_t errlen)
{
	struct sctp_paddrparams mtu;
	uint16_t streams = o->streams ? o->streams : TP_USRSCTP_STREAMS;
	struct sctp_initmsg im;
	struct sctp_rtoinfo rto;
	struct sctp_paddrparams pp;
	struct sctp_udpencaps ue;
	struct sctp_sack_info si;

	if (tp_usrsctp_connopts(so, o, err, errlen) == -1)
		return -1;
	memset(&im, 0, sizeof(im));
	im.sinit_num_ostreams = streams;
	im.sinit_max_instreams = streams;
	if (tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof(im), "SCTP_INITMSG",
	    err, errlen) == -1)
		return -1;
	if (o->rto_min_ms || o->rto_initial_ms || o->rto_max_ms) {
		memset(&rto, 0, sizeof(rto)); /* 0 keeps the stack's value */
		rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
		rto.srto_min = o->rto_min_ms;
		rto.srto_initial = tp_rto_initial_ms(o); /* usrsctp: min <= initial <= max */
		rto.srto_max = o->rto_max_ms;
		if (tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof(rto),
		    "SCTP_RTOINFO", err, errlen) == -1)
			return -1;
	}
	memset(&si, 0, sizeof(si)); /* delay 0 keeps the stack's; every packet SACKed at once */
	si.sack_assoc_id = SCTP_FUTURE_ASSOC;
	si.sack_freq = 1;
	if (o->sack_now && tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_DELAYED_SACK, &si, sizeof(si),
	    "SCTP_DELAYED_SACK", err, errlen) == -1)
		return -1;
	if (o->path_max_retrans > 0) {
		memset(&pp, 0, sizeof(pp));
		pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
		pp.spp_pathmaxrxt = (uint16_t)o->path_max_retrans;
		if (tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp),
		    "SCTP_PEER_ADDR_PARAMS", err, errlen) == -1)
			return -1;
	}
	if (tp_usrsctp_tuning(so, o, err, errlen) == -1)
		return -1;
	if (family == AF_CONN) {
		/* keep a datagram whole on a 1500-byte link (TP_USRSCTP_CONN_MTU) */
		memset(&mtu, 0, sizeof(mtu));
		mtu.spp_assoc_id = SCTP_FUTURE_ASSOC;
		mtu.spp_flags = SPP_PMTUD_DISABLE;
		mtu.spp_pathmtu = TP_USRSCTP_CONN_MTU;
		return tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &mtu, sizeof(mtu),
		    "SCTP_PEER_ADDR_PARAMS", err, errlen);
	}
	memset(&ue, 0, sizeof(ue));
	ue.sue_address.ss_family = (sa_family_t)family;
	ue.sue_assoc_id = SCTP_FUTURE_ASSOC;
	ue.sue_port = htons(o->udp_remote_port ? o->udp_remote_port : TP_USRSCTP_PORT);
	return tp_usrsctp_setopt(so, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &ue, sizeof(ue),
	    "SCTP_REMOTE_UDP_ENCAPS_PORT", err, errlen);
}

static int
tp_usrsctp_family(const struct tp_addrs *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->a[i].ss_family == AF_INET6)
			return AF_INET6;
	return AF_INET;
}

/* An address the stack gave (AF_CONN: a peer handle) as text. */
static void
tp_usrsctp_addr_str(const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen)
{
	if (sa->sa_family == AF_CONN)
		tp_usrsctp_peer_str((const struct sockaddr_conn *)sa, buf, buflen);
	else
		tp_addr_str(sa, len, buf, buflen);
}

/* The first address with bind, the others added with bindx. */
static int
tp_usrsctp_bind(struct socket *so, const struct tp_addrs *a, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	char s[64];
	int i, rc;

	for (i = 0; i < a->n; i++) {
		ss = a->a[i];
		if (i == 0)
			rc = usrsctp_bind(so, (struct sockaddr *)&ss, a->len[i]);
		else
			rc = usrsctp_bindx(so, (struct sockaddr *)&ss, 1, SCTP_BINDX_ADD_ADDR);
		if (rc == 0)
			continue;
		tp_addr_str((struct sockaddr *)&ss, a->len[i], s, sizeof(s));
		if (errno == EADDRINUSE)
			tp_seterr(err, errlen, "%s: address already in use", s);
		else if (errno == EADDRNOTAVAIL)
			tp_seterr(err, errlen, "%s: address not available on this host", s);
		else
			tp_seterr(err, errlen, "bind %s: %s", s, strerror(errno));
		return -1;
	}
	return 0;
}

static int
tp_usrsctp_sstatus(struct socket *so, struct sctp_status *st)
{
	socklen_t len = sizeof(*st);

	memset(st, 0, sizeof(*st));
	return usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_STATUS, st, &len);
}

/* Fewer outbound streams than asked is the peer's right; say so once. */
static void
tp_usrsctp_streams_note(struct tp_conn *c)
{
	struct tp_usrsctp_conn *u = c->impl;
	uint16_t asked = c->streams_asked ? c->streams_asked : TP_USRSCTP_STREAMS;

	if (u->noted)
		return;
	u->noted = 1;
	if (c->streams_out < asked)
		tp_note(c, "peer granted %u of the %u outbound streams asked for", c->streams_out,
		    asked);
}

/* Established. Accepted connections have no notify callback yet: COMM_UP tells them later. */
static void
tp_usrsctp_up(struct tp_conn *c, const struct sctp_status *st, int tell)
{
	struct tp_usrsctp_conn *u = c->impl;

	u->up = 1;
	if (st->sstat_outstrms > 0)
		c->streams_out = st->sstat_outstrms;
	if (st->sstat_instrms > 0)
		c->streams_in = st->sstat_instrms;
	if (tell)
		tp_usrsctp_streams_note(c);
}

/* Notifications: consumed here, told through tp_note(), never returned as data. */
static const char *
tp_usrsctp_paddr_state(uint32_t state)
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
	default:
		return "changed";
	}
}

static void
tp_usrsctp_assoc_change(struct tp_conn *c, const struct sctp_assoc_change *ac)
{
	struct tp_usrsctp_conn *u = c->impl;
	int e;

	switch (ac->sac_state) {
	case SCTP_COMM_UP:
	case SCTP_RESTART:
		if (ac->sac_outbound_streams > 0)
			c->streams_out = ac->sac_outbound_streams;
		if (ac->sac_inbound_streams > 0)
			c->streams_in = ac->sac_inbound_streams;
		tp_note(c, "association %s: %u inbound, %u outbound streams",
		    ac->sac_state == SCTP_COMM_UP ? "up" : "restarted", c->streams_in,
		    c->streams_out);
		tp_usrsctp_streams_note(c);
		break;
	case SCTP_COMM_LOST:
		tp_note(c, "association lost (cause %u)", ac->sac_error);
		tp_usrsctp_fail(c, tp_usrsctp_soerror(u->so));
		break;
	case SCTP_CANT_STR_ASSOC:
		tp_note(c, "association could not be started (cause %u)", ac->sac_error);
		e = tp_usrsctp_soerror(u->so);
		tp_usrsctp_fail(c, e ? e : -1);
		break;
	case SCTP_SHUTDOWN_COMP:
		tp_note(c, "shutdown complete");
		u->shut = 1;
		break;
	default:
		tp_note(c, "association change %u", ac->sac_state);
		break;
	}
}

static void
tp_usrsctp_notification(struct tp_conn *c, const union sctp_notification *n, size_t len)
{
	struct tp_usrsctp_conn *u = c->impl;
	char addr[64];

	switch (n->sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE:
		if (len >= sizeof(n->sn_assoc_change))
			tp_usrsctp_assoc_change(c, &n->sn_assoc_change);
		break;
	case SCTP_PEER_ADDR_CHANGE:
		if (len < sizeof(n->sn_paddr_change))
			break;
		tp_usrsctp_addr_str((const struct sockaddr *)&n->sn_paddr_change.spc_aaddr,
		    sizeof(n->sn_paddr_change.spc_aaddr), addr, sizeof(addr));
		tp_note(c, "peer address %s %s", addr,
		    tp_usrsctp_paddr_state(n->sn_paddr_change.spc_state));
		break;
	case SCTP_SEND_FAILED_EVENT:
		if (len < sizeof(n->sn_send_failed_event))
			break;
		tp_note(c, "send failed: %u bytes on stream %u %s (error %u)",
		    (unsigned)(n->sn_send_failed_event.ssfe_length -
		    sizeof(n->sn_send_failed_event)), n->sn_send_failed_event.ssfe_info.snd_sid,
		    (n->sn_send_failed_event.ssfe_flags & SCTP_DATA_SENT) ? "were sent, not acked" :
		    "were never sent", n->sn_send_failed_event.ssfe_error);
		break;
	case SCTP_SHUTDOWN_EVENT:
		tp_note(c, "peer shut down the association");
		u->shut = 1;
		break;
	case SCTP_STREAM_RESET_EVENT:
		if (len >= sizeof(n->sn_strreset_event))
			tp_note_reset(c, n->sn_strreset_event.strreset_flags,
			    n->sn_strreset_event.strreset_stream_list,
			    (len - sizeof(n->sn_strreset_event)) / sizeof(uint16_t));
		break;
	default:
		break;
	}
}

static void
tp_usrsctp_note_piece(struct tp_conn *c, const void *p, size_t n, int flags)
{
	struct tp_usrsctp_conn *u = c->impl;
	size_t room = sizeof(u->nbuf) - u->nlen;

	memcpy(u->nbuf.b + u->nlen, p, n < room ? n : room);
	u->nlen += n < room ? n : room;
	if (!(flags & MSG_EOR))
		return;
	if (u->nlen >= sizeof(u->nbuf.n.sn_header))
		tp_usrsctp_notification(c, &u->nbuf.n, u->nlen);
	u->nlen = 0;
}

/* Consume the notifications at the head of the receive queue; stop before data. */
static void
tp_usrsctp_notes(struct tp_conn *c, int tell)
{
	struct tp_usrsctp_conn *u = c->impl;
	unsigned char buf[512];
	struct sctp_rcvinfo rcv;
	unsigned int infotype;
	socklen_t infolen;
	ssize_t n;
	int i, flags;

	for (i = 0; i < TP_USRSCTP_READS; i++) {
		infolen = sizeof(rcv);
		infotype = 0;
		flags = MSG_PEEK;
		n = usrsctp_recvv(u->so, buf, sizeof(buf), NULL, NULL, &rcv, &infolen, &infotype,
		    &flags);
		if (n <= 0 || !(flags & MSG_NOTIFICATION))
			return;
		infolen = sizeof(rcv);
		flags = 0;
		n = usrsctp_recvv(u->so, buf, sizeof(buf), NULL, NULL, &rcv, &infolen, &infotype,
		    &flags);
		if (n <= 0 || !(flags & MSG_NOTIFICATION))
			return;
		if (tell)
			tp_usrsctp_note_piece(c, buf, (size_t)n, flags);
	}
}

/* Readiness, from the stack's own view of the socket. */
static unsigned
tp_usrsctp_ready(struct tp_conn *c)
{
	struct tp_usrsctp_conn *u = c->impl;
	unsigned r = 0;
	int e;

	if ((e = usrsctp_get_events(u->so)) < 0)
		return EV_ERROR | EV_READ | EV_WRITE;
	if ((e & SCTP_EVENT_READ) || u->shut)
		r |= EV_READ; /* shut: recv says the end (above) */
	if ((e & SCTP_EVENT_WRITE) && !u->wblocked)
		r |= EV_WRITE;
	if (e & SCTP_EVENT_ERROR)
		r |= EV_ERROR | EV_READ | EV_WRITE;
	return r;
}

static unsigned
tp_usrsctp_pending(struct tp_conn *c)
{
	return tp_usrsctp_ready(c);
}

static void
tp_usrsctp_wake(void *arg)
{
	struct tp_conn *c = arg;
	struct tp_usrsctp_conn *u = c->impl;
	unsigned ev;

	u->wblocked = 0; /* the stack moved: a send may fit now */
	if ((ev = tp_usrsctp_ready(c) & (c->want | EV_ERROR)) != 0)
		tp_fire(c, ev);
}

static void
tp_usrsctp_tick(struct ev_loop *loop, void *arg)
{
	struct tp_conn *c = arg;
	struct tp_usrsctp_conn *u = c->impl;
	unsigned ev;

	ev_timer_start(loop, &u->tick, TP_USRSCTP_TICK_US, tp_usrsctp_tick, c);
	u->wblocked = 0;
	if ((ev = tp_usrsctp_ready(c) & (c->want | EV_ERROR)) != 0)
		tp_fire(c, ev); /* may free c: nothing after this */
}

static int
tp_usrsctp_watch(struct tp_conn *c, struct ev_loop *loop, unsigned events)
{
	struct tp_usrsctp_conn *u = c->impl;

	if (events == 0) {
		u->m->wake_watch(u->id, NULL, NULL, NULL);
		ev_timer_stop(loop, &u->tick);
		return TP_OK;
	}
	if (u->m->wake_watch(u->id, loop, tp_usrsctp_wake, c) == -1) {
		tp_seterr(c->err, sizeof(c->err), "event loop: %s", strerror(errno));
		return TP_ERROR;
	}
	if (!ev_timer_armed(&u->tick))
		ev_timer_start(loop, &u->tick, TP_USRSCTP_TICK_US, tp_usrsctp_tick, c);
	return TP_OK;
}

/* Connections. */
static int
tp_usrsctp_conn_new(struct tp_conn *c, struct socket *so, const struct tp_usrsctp_mode *m,
    const struct tp_opts *o, char *err, size_t errlen)
{
	struct tp_usrsctp_conn *u;

	if ((u = calloc(1, sizeof(*u))) == NULL) {
		tp_seterr(err, errlen, "out of memory");
		return -1;
	}
	u->m = m;
	u->so = so;
	u->sndbuf_fixed = o->sndbuf > 0;
	u->nagle = !o->nodelay;
	if ((u->id = m->wake_new(so, err, errlen)) == 0) {
		free(u);
		return -1;
	}
	c->impl = u;
	return 0;
}

static void
tp_usrsctp_close(struct tp_conn *c)
{
	struct tp_usrsctp_conn *u = c->impl;

	if (u == NULL)
		return;
	/* Unread notifications would count as unread data and turn the close into an ABORT. */
	tp_usrsctp_notes(c, 0);
	u->m->wake_free(u->so, u->id);
	free(u);
	c->impl = NULL;
}

/* Local addresses to connect from: "a,b:port", or "a,b" for any port. */
static int
tp_usrsctp_locals(const char *spec, struct tp_addrs *out, char *err, size_t errlen)
{
	char buf[512];

	if (tp_addrs_parse(spec, AF_UNSPEC, out, err, errlen) == 0)
		return 0;
	if (snprintf(buf, sizeof(buf), "%s:0", spec) >= (int)sizeof(buf))
		return -1;
	return tp_addrs_parse(buf, AF_UNSPEC, out, err, errlen);
}

/* The process's stack, started for this use (a listener's addresses, or NULL), in mode m. The
 * threadless one has one path: one address each side. */
static int
tp_usrsctp_start(const struct tp_usrsctp_mode *m, const struct tp_opts *o,
    const struct tp_addrs *remote, const struct tp_addrs *bind_to, char *err, size_t errlen)
{
	const struct tp_addrs *a = remote != NULL ? remote : bind_to;

	if (!m->conn)
		return tp_usrsctp_stack(o, err, errlen);
	if (a->n > 1 || (remote != NULL && o->local != NULL)) {
		tp_seterr(err, errlen, "usrsctp-nt has one path per association (%s): the type "
		    "usrsctp has multihoming", a->n > 1 ? "several addresses given" :
		    "a local address given");
		return -1;
	}
	return tp_usrsctp_nt_stack(o, bind_to, err, errlen);
}

/* usrsctp-nt: the socket on SCTP port (0: one the stack has free), on every peer. */
static int
tp_usrsctp_conn_bind(struct socket *so, uint16_t *port, char *err, size_t errlen)
{
	struct sockaddr_conn sc;
	unsigned tries;
	uint16_t p = *port;

	for (tries = 0; tries < 64; tries++) {
		if (*port == 0) /* the stack's pick is not told back for AF_CONN: pick one */
			p = (uint16_t)(49152 + (unsigned)(ev_clock_us() * 2654435761u + tries) % 16384);
		memset(&sc, 0, sizeof(sc));
		sc.sconn_family = AF_CONN;
		sc.sconn_port = htons(p);
		if (usrsctp_bind(so, (struct sockaddr *)&sc, sizeof(sc)) == 0) {
			*port = p;
			return 0;
		}
		if (errno != EADDRINUSE || *port != 0)
			break;
	}
	if (errno == EADDRINUSE)
		tp_seterr(err, errlen, "SCTP port %u: address already in use", p);
	else
		tp_seterr(err, errlen, "bind SCTP port %u: %s", p, strerror(errno));
	return -1;
}

static int
tp_usrsctp_connect_m(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o,
    const struct tp_usrsctp_mode *m)
{
	unsigned char packed[TP_MAXADDRS * sizeof(struct sockaddr_storage)];
	int family = m->conn ? AF_CONN : tp_usrsctp_family(a), i, rc;
	struct sockaddr_storage ss;
	struct socket *so = NULL;
	struct tp_addrs local;
	socklen_t sslen = a->len[0];
	size_t plen = 0;

	if (tp_usrsctp_start(m, o, a, NULL, c->err, sizeof(c->err)) == -1)
		return TP_ERROR;
	tp_addr_str((const struct sockaddr *)&a->a[0], a->len[0], c->peer, sizeof(c->peer));
	if (tp_addr_port((const struct sockaddr *)&a->a[0]) == 0) {
		tp_seterr(c->err, sizeof(c->err), "port 0: nothing to connect to");
		return TP_ERROR;
	}
	ss = a->a[0];
	if (m->conn) {
		if (tp_usrsctp_peer_conn_addr(&a->a[0], o->udp_remote_port ? o->udp_remote_port :
		    TP_USRSCTP_PORT, (struct sockaddr_conn *)&ss, c->err, sizeof(c->err)) == -1)
			return TP_ERROR;
		sslen = sizeof(struct sockaddr_conn);
	}
	if ((so = usrsctp_socket(family, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL)) == NULL) {
		tp_usrsctp_errno(c->err, sizeof(c->err), "usrsctp socket");
		return TP_ERROR;
	}
	if (tp_usrsctp_sockopts(so, family, o, c->err, sizeof(c->err)) == -1)
		goto bad;
	if (o->local != NULL && (tp_usrsctp_locals(o->local, &local, c->err,
	    sizeof(c->err)) == -1 || tp_usrsctp_bind(so, &local, c->err, sizeof(c->err)) == -1))
		goto bad;
	if (tp_usrsctp_conn_new(c, so, m, o, c->err, sizeof(c->err)) == -1)
		goto bad;
	if (a->n == 1) {
		rc = usrsctp_connect(so, (struct sockaddr *)&ss, sslen);
	} else {
		for (i = 0; i < a->n; i++) {
			memcpy(packed + plen, &a->a[i], a->len[i]);
			plen += a->len[i];
		}
		rc = usrsctp_connectx(so, (struct sockaddr *)packed, a->n, NULL);
	}
	/* Non-blocking, yet an answer as quick as an ABORT from this very stack is told here. */
	if (rc == -1 && errno != EINPROGRESS) {
		tp_seterr(c->err, sizeof(c->err), "%s", tp_usrsctp_reason(errno));
		goto bad;
	}
	return TP_OK;
bad:
	if (c->impl != NULL)
		tp_usrsctp_close(c);
	else
		usrsctp_close(so);
	return TP_ERROR;
}

static int
tp_usrsctp_connect(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o)
{
	return tp_usrsctp_connect_m(c, a, o, &tp_usrsctp_threads);
}

static int
tp_usrsctp_nt_connect(struct tp_conn *c, const struct tp_addrs *a, const struct tp_opts *o)
{
	return tp_usrsctp_connect_m(c, a, o, &tp_usrsctp_nothreads);
}

static int
tp_usrsctp_finish(struct tp_conn *c)
{
	struct tp_usrsctp_conn *u = c->impl;
	struct sctp_status st;
	int e;

	if (u->failed)
		return tp_usrsctp_failed(c);
	if (u->up)
		return TP_OK;
	tp_usrsctp_notes(c, 1); /* COMM_UP or CANT_STR_ASSOC may be waiting */
	if (u->failed)
		return tp_usrsctp_failed(c);
	if ((e = tp_usrsctp_soerror(u->so)) != 0)
		return tp_usrsctp_fail(c, e);
	if (tp_usrsctp_sstatus(u->so, &st) == -1 || st.sstat_state == SCTP_CLOSED) {
		/* Torn down this very moment: why (notification, so_error) follows at once. */
		uint64_t now = ev_clock_us();
		if (u->gone_us == 0)
			u->gone_us = now;
		if (now - u->gone_us < 500000)
			return TP_RETRY;
		return tp_usrsctp_fail(c, -1);
	}
	switch (st.sstat_state) {
	case SCTP_COOKIE_WAIT:
	case SCTP_COOKIE_ECHOED:
		return TP_RETRY;
	default:
		tp_usrsctp_up(c, &st, 1);
		return TP_OK;
	}
}

/* Give the send buffer room for a message larger than it: a message is taken whole. The
 * size is recorded for tp_usrsctp_timed, which sets its own again at its next window. */
static int
tp_usrsctp_grow(struct tp_usrsctp_conn *u, size_t len)
{
	int size = len > INT_MAX / 2 ? INT_MAX : (int)(2 * len);

	if (usrsctp_setsockopt(u->so, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) == -1)
		return -1;
	u->timed_sndbuf = size;
	return 0;
}

/* Timed reliability (PR-SCTP's lifetime). The kernel abandons an expired message before it
 * would send it; usrsctp only when it needs room in the send buffer for a new one, so with
 * its deep default buffer a stream that the path cannot carry queues seconds of expired
 * messages and sends them late. So a connection that sends with a lifetime gets a send
 * buffer of about what it sends in a lifetime and a round trip (in flight counts too),
 * three messages at least, from the messages taken over TP_USRSCTP_TIMED_US; unless its
 * caller chose the size. */
static void
tp_usrsctp_timed(struct tp_usrsctp_conn *u, size_t len, uint32_t lifetime_ms)
{
	uint64_t now = ev_clock_us(), b;
	struct sctp_status st;
	int size;

	if (u->sndbuf_fixed)
		return;
	if (u->timed_t0_us == 0)
		u->timed_t0_us = now;
	u->timed_bytes += len;
	u->timed_byte_ms += (uint64_t)len * lifetime_ms;
	if (now - u->timed_t0_us < TP_USRSCTP_TIMED_US)
		return;
	/* each message's bytes for its lifetime and a round trip, over the window: a
	 * report with a long lifetime beside the stream counts for its own bytes only */
	b = (u->timed_byte_ms + u->timed_bytes * (tp_usrsctp_sstatus(u->so, &st) == 0 ?
	    st.sstat_primary.spinfo_srtt : 0)) * 1000 / (now - u->timed_t0_us);
	if (b < 3 * len)
		b = 3 * len;
	size = b > (1u << 24) ? 1 << 24 : (int)b;
	u->timed_bytes = u->timed_byte_ms = 0;
	u->timed_t0_us = now;
	/* set again only when it changed by an eighth or more */
	if (u->timed_sndbuf != 0 && size > u->timed_sndbuf - u->timed_sndbuf / 8 &&
	    size < u->timed_sndbuf + u->timed_sndbuf / 8)
		return;
	if (usrsctp_setsockopt(u->so, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) == 0)
		u->timed_sndbuf = size;
}

/* A message that may need more than one packet is not held back by Nagle, as Linux's SCTP does
 * for a fragmented message: usrsctp holds its last fragment while the first is unacknowledged,
 * and the receiver delays that SACK (200 ms), so a 1500-2900 byte request/response exchange
 * took 350 ms a round trip instead of 0.2 ms. Small messages keep Nagle's bundling; the option
 * is set only when the size class changes. */
#define TP_USRSCTP_NAGLE_MAX 1200 /* fits one packet at IPv6's minimum MTU, over UDP */

static void
tp_usrsctp_nagle(struct tp_usrsctp_conn *u, size_t len)
{
	int want = len > TP_USRSCTP_NAGLE_MAX;

	if (!u->nagle || want == u->nodelay_now)
		return;
	if (usrsctp_setsockopt(u->so, IPPROTO_SCTP, SCTP_NODELAY, &want, sizeof(want)) == 0)
		u->nodelay_now = want;
}

static int
tp_usrsctp_send(struct tp_conn *c, const void *buf, size_t len, const struct tp_msginfo *mi,
    size_t *sent)
{
	struct tp_usrsctp_conn *u = c->impl;
	struct sctp_sendv_spa spa;
	ssize_t n;
	int rc, tries, e;

	*sent = 0;
	if (u->failed)
		return tp_usrsctp_failed(c);
	if (!u->up && (rc = tp_usrsctp_finish(c)) != TP_OK)
		return rc;
	if (mi->stream >= c->streams_out) {
		tp_seterr(c->err, sizeof(c->err), "stream %u out of range: the association has %u "
		    "outbound stream%s", mi->stream, c->streams_out, c->streams_out == 1 ? "" : "s");
		return TP_ERROR;
	}
	if (len == 0)
		return TP_OK; /* SCTP has no empty messages */
	memset(&spa, 0, sizeof(spa));
	spa.sendv_flags = SCTP_SEND_SNDINFO_VALID | SCTP_SEND_PRINFO_VALID;
	spa.sendv_sndinfo.snd_sid = mi->stream;
	spa.sendv_sndinfo.snd_flags = (mi->flags & TP_F_UNORDERED) ? SCTP_UNORDERED : 0;
	spa.sendv_sndinfo.snd_ppid = htonl(mi->ppid);
	spa.sendv_prinfo.pr_policy = mi->lifetime_ms > 0 ? SCTP_PR_SCTP_TTL : SCTP_PR_SCTP_NONE;
	spa.sendv_prinfo.pr_value = mi->lifetime_ms;
	tp_usrsctp_nagle(u, len);
	for (tries = 0;; tries++) {
		n = usrsctp_sendv(u->so, buf, len, NULL, 0, &spa, sizeof(spa), SCTP_SENDV_SPA, 0);
		if (n >= 0) {
			*sent = (size_t)n;
			if (mi->lifetime_ms > 0)
				tp_usrsctp_timed(u, (size_t)n, mi->lifetime_ms);
			return TP_OK;
		}
		e = errno;
		if (e == EWOULDBLOCK || e == EAGAIN) {
			u->wblocked = 1;
			return TP_RETRY;
		}
		if (e == EMSGSIZE && tries == 0 && tp_usrsctp_grow(u, len) == 0)
			continue;
		break;
	}
	tp_usrsctp_notes(c, 1); /* a COMM_LOST waiting there tells why */
	if (u->failed)
		return tp_usrsctp_failed(c);
	switch (e) {
	case ENOENT: /* no association any more */
	case ECONNRESET:
	case ECONNABORTED:
	case ETIMEDOUT:
	case ECONNREFUSED:
		if ((rc = tp_usrsctp_soerror(u->so)) != 0)
			e = rc;
		return tp_usrsctp_fail(c, e == ENOENT ? 0 : e);
	case EPIPE:
	case ENOTCONN:
		tp_seterr(c->err, sizeof(c->err), "send: %s", u->shut ?
		    "the peer shut down the association" : tp_usrsctp_reason(e));
		return TP_ERROR;
	default:
		tp_seterr(c->err, sizeof(c->err), "send of %zu bytes on stream %u: %s", len,
		    mi->stream, strerror(e));
		return TP_ERROR;
	}
}

static int
tp_usrsctp_recv(struct tp_conn *c, void *buf, size_t cap, struct tp_msginfo *mi, size_t *got)
{
	struct tp_usrsctp_conn *u = c->impl;
	struct sockaddr_storage from;
	struct sctp_rcvinfo rcv;
	unsigned int infotype;
	socklen_t infolen, fromlen;
	ssize_t n;
	int i, flags, e;

	if (u->failed)
		return tp_usrsctp_failed(c);
	if (cap == 0)
		return TP_OK;
	for (i = 0; i < TP_USRSCTP_READS; i++) {
		memset(&rcv, 0, sizeof(rcv));
		infolen = sizeof(rcv);
		fromlen = sizeof(from);
		infotype = 0;
		flags = 0;
		n = usrsctp_recvv(u->so, buf, cap, (struct sockaddr *)&from, &fromlen, &rcv,
		    &infolen, &infotype, &flags);
		if (n > 0 && (flags & MSG_NOTIFICATION)) {
			tp_usrsctp_note_piece(c, buf, (size_t)n, flags);
			if (u->failed)
				return tp_usrsctp_failed(c);
			continue;
		}
		if (n > 0) {
			*got = (size_t)n;
			if (infotype == SCTP_RECVV_RCVINFO) {
				mi->stream = rcv.rcv_sid;
				mi->ppid = ntohl(rcv.rcv_ppid);
				if (rcv.rcv_flags & SCTP_UNORDERED)
					mi->flags |= TP_F_UNORDERED;
			}
			if (flags & MSG_EOR)
				mi->flags |= TP_F_EOR;
			return TP_OK;
		}
		if (n == 0)
			return TP_EOF;
		e = errno;
		switch (e) {
		case EWOULDBLOCK:
#if EAGAIN != EWOULDBLOCK
		case EAGAIN:
#endif
		case EINTR:
			/* The peer's SHUTDOWN came after all its data (it waits for their SACK), and
			 * SCTP has no half-close: once it is read and nothing is left, that is the
			 * end, as kernel SCTP says it, without waiting for SHUTDOWN-COMPLETE. */
			return u->shut ? TP_EOF : TP_RETRY;
		case ENOTCONN:
			return TP_EOF; /* closed without an abort */
		case ECONNRESET:
		case ECONNABORTED:
		case ETIMEDOUT:
		case ECONNREFUSED:
			return tp_usrsctp_fail(c, e);
		default:
			tp_seterr(c->err, sizeof(c->err), "recv: %s", strerror(e));
			return TP_ERROR;
		}
	}
	return TP_RETRY; /* a run of notifications: pending() brings us back */
}

/* RFC 6525, both directions of one stream. usrsctp sends the request itself once what is
 * queued on the stream has gone; one request may be outstanding at a time (TP_RETRY). */
static int
tp_usrsctp_reset_stream(struct tp_conn *c, uint16_t stream)
{
	struct tp_usrsctp_conn *u = c->impl;
	struct sctp_assoc_value av;
	uint32_t buf[(sizeof(struct sctp_reset_streams) + sizeof(uint16_t) + 3) / 4];
	struct sctp_reset_streams *srs = (struct sctp_reset_streams *)buf;

	memset(&av, 0, sizeof(av));
	av.assoc_value = SCTP_ENABLE_RESET_STREAM_REQ;
	if (usrsctp_setsockopt(u->so, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &av,
	    sizeof(av)) == -1) {
		tp_usrsctp_errno(c->err, sizeof(c->err), "SCTP_ENABLE_STREAM_RESET");
		return TP_ERROR;
	}
	memset(buf, 0, sizeof(buf));
	srs->srs_flags = SCTP_STREAM_RESET_INCOMING | SCTP_STREAM_RESET_OUTGOING;
	srs->srs_number_streams = 1;
	srs->srs_stream_list[0] = stream;
	if (usrsctp_setsockopt(u->so, IPPROTO_SCTP, SCTP_RESET_STREAMS, srs,
	    (socklen_t)(sizeof(*srs) + sizeof(uint16_t))) == -1) {
		if (errno == EALREADY || errno == EBUSY || errno == EAGAIN || errno == EINPROGRESS)
			return TP_RETRY;
		tp_usrsctp_errno(c->err, sizeof(c->err), "SCTP_RESET_STREAMS");
		return TP_ERROR;
	}
	return TP_OK;
}

/* The ABORT goes now, with the socket still ours (SCTP_ABORT on a send), and the close that
 * follows has no association left. An ABORT sent by usrsctp_close itself (SO_LINGER 0) races
 * with the stack's receive thread: a packet of the association processed during the close
 * takes and drops a reference to the socket being freed, and the socket is freed twice
 * (usrsctp issues 676 and 709; seen under ASan). SO_LINGER 0 stays for when the send fails. */
static void
tp_usrsctp_abort(struct tp_conn *c)
{
	struct tp_usrsctp_conn *u = c->impl;
	struct linger l = { 1, 0 };
	struct sctp_sndinfo si;

	if (u == NULL)
		return;
	memset(&si, 0, sizeof(si));
	si.snd_flags = SCTP_ABORT;
	if (usrsctp_sendv(u->so, "", 0, NULL, 0, &si, sizeof(si), SCTP_SENDV_SNDINFO, 0) == -1)
		(void)usrsctp_setsockopt(u->so, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
}

static int
tp_usrsctp_status(struct tp_conn *c, struct tp_status *st)
{
	struct tp_usrsctp_conn *u = c->impl;
	struct sockaddr *addrs;
	struct sctp_status ss;
	int n;

	if (tp_usrsctp_sstatus(u->so, &ss) == -1) {
		if (!u->failed) /* else c->err says why already */
			tp_seterr(c->err, sizeof(c->err), "SCTP_STATUS: no association");
		return TP_ERROR;
	}
	st->streams_in = ss.sstat_instrms;
	st->streams_out = ss.sstat_outstrms;
	st->srtt_ms = ss.sstat_primary.spinfo_srtt;
	st->rto_ms = ss.sstat_primary.spinfo_rto;
	st->cwnd = ss.sstat_primary.spinfo_cwnd;
	st->unacked = ss.sstat_unackdata;
	if ((n = usrsctp_getpaddrs(u->so, 0, &addrs)) > 0) {
		st->naddrs = (uint32_t)n;
		usrsctp_freepaddrs(addrs);
	}
	tp_usrsctp_addr_str((const struct sockaddr *)&ss.sstat_primary.spinfo_address,
	    sizeof(ss.sstat_primary.spinfo_address), st->primary, sizeof(st->primary));
	return TP_OK;
}

/* Listeners. */
static void
tp_usrsctp_lclose(struct tp_listener *l)
{
	struct tp_usrsctp_listener *u = l->impl;

	if (u == NULL)
		return;
	u->m->wake_free(u->so, u->id);
	free(u);
	l->impl = NULL;
}

/* The bound address as text, with the port the stack chose for port 0. */
static void
tp_usrsctp_local(struct tp_listener *l, struct socket *so, const struct tp_addrs *a, int conn,
    uint16_t conn_port)
{
	struct sockaddr_storage ss = a->a[0];
	struct sockaddr *addrs;
	uint16_t port = htons(conn_port);
	int n;

	if (!conn && (n = usrsctp_getladdrs(so, 0, &addrs)) > 0) {
		port = htons(tp_addr_port(addrs));
		usrsctp_freeladdrs(addrs);
	} else if (!conn) {
		port = htons(tp_addr_port((const struct sockaddr *)&ss));
	}
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = port;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = port;
	tp_addr_str((struct sockaddr *)&ss, a->len[0], l->local, sizeof(l->local));
}

static int
tp_usrsctp_listen_m(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o,
    const struct tp_usrsctp_mode *m)
{
	int family = m->conn ? AF_CONN : tp_usrsctp_family(a);
	struct tp_usrsctp_listener *u = NULL;
	uint16_t port = tp_addr_port((const struct sockaddr *)&a->a[0]);
	struct socket *so;

	if (tp_usrsctp_start(m, o, NULL, a, l->err, sizeof(l->err)) == -1)
		return TP_ERROR;
	if ((so = usrsctp_socket(family, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL)) == NULL) {
		tp_usrsctp_errno(l->err, sizeof(l->err), "usrsctp socket");
		return TP_ERROR;
	}
	if ((u = calloc(1, sizeof(*u))) == NULL) {
		tp_seterr(l->err, sizeof(l->err), "out of memory");
		goto bad;
	}
	u->m = m;
	u->so = so;
	if (tp_usrsctp_sockopts(so, family, o, l->err, sizeof(l->err)) == -1 ||
	    (m->conn ? tp_usrsctp_conn_bind(so, &port, l->err, sizeof(l->err)) :
	    tp_usrsctp_bind(so, a, l->err, sizeof(l->err))) == -1)
		goto bad;
	if (usrsctp_listen(so, o->backlog > 0 ? o->backlog : 511) == -1) {
		tp_usrsctp_errno(l->err, sizeof(l->err), "listen");
		goto bad;
	}
	if ((u->id = m->wake_new(so, l->err, sizeof(l->err))) == 0)
		goto bad;
	l->impl = u;
	tp_usrsctp_local(l, so, a, m->conn, port);
	return TP_OK;
bad:
	usrsctp_close(so);
	free(u);
	return TP_ERROR;
}

static int
tp_usrsctp_listen(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o)
{
	return tp_usrsctp_listen_m(l, a, o, &tp_usrsctp_threads);
}

static int
tp_usrsctp_nt_listen(struct tp_listener *l, const struct tp_addrs *a, const struct tp_opts *o)
{
	return tp_usrsctp_listen_m(l, a, o, &tp_usrsctp_nothreads);
}

static int
tp_usrsctp_accept(struct tp_listener *l, struct tp_conn *c)
{
	struct tp_usrsctp_listener *lu = l->impl;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct sctp_status st;
	struct socket *so;

	memset(&ss, 0, sizeof(ss));
	if ((so = usrsctp_accept(lu->so, (struct sockaddr *)&ss, &len)) == NULL) {
		if (errno == EWOULDBLOCK || errno == EAGAIN || errno == EINTR ||
		    errno == ECONNABORTED)
			return TP_RETRY;
		tp_usrsctp_errno(l->err, sizeof(l->err), "accept");
		return TP_ERROR;
	}
	if (tp_usrsctp_connopts(so, &l->opts, l->err, sizeof(l->err)) == -1 ||
	    tp_usrsctp_conn_new(c, so, lu->m, &l->opts, l->err, sizeof(l->err)) == -1) {
		usrsctp_close(so);
		return TP_ERROR;
	}
	if (len > 0 && ss.ss_family != 0)
		tp_usrsctp_addr_str((struct sockaddr *)&ss, len, c->peer, sizeof(c->peer));
	if (tp_usrsctp_sstatus(so, &st) == -1)
		memset(&st, 0, sizeof(st)); /* gone already: recv will tell */
	tp_usrsctp_up(c, &st, 0);
	return TP_OK;
}

/* A listener is level-triggered too: while connections wait, look again on the next turn. */
static void
tp_usrsctp_lcheck(struct ev_loop *loop, void *arg)
{
	struct tp_listener *l = arg;
	struct tp_usrsctp_listener *u = l->impl;
	int e = usrsctp_get_events(u->so);

	if (e < 0 || (e & (SCTP_EVENT_READ | SCTP_EVENT_ERROR))) {
		ev_defer(loop, tp_usrsctp_lcheck, l); /* undone by lwatch off if l goes away */
		tp_lfire(l);
	}
}

static void
tp_usrsctp_lwake(void *arg)
{
	struct tp_listener *l = arg;
	struct tp_usrsctp_listener *u = l->impl;

	tp_usrsctp_lcheck(u->loop, l);
}

static int
tp_usrsctp_lwatch(struct tp_listener *l, struct ev_loop *loop, int on)
{
	struct tp_usrsctp_listener *u = l->impl;

	if (!on) {
		u->m->wake_watch(u->id, NULL, NULL, NULL);
		ev_undefer(loop, tp_usrsctp_lcheck, l);
		return TP_OK;
	}
	u->loop = loop;
	if (u->m->wake_watch(u->id, loop, tp_usrsctp_lwake, l) == -1) {
		tp_seterr(l->err, sizeof(l->err), "event loop: %s", strerror(errno));
		return TP_ERROR;
	}
	ev_defer(loop, tp_usrsctp_lcheck, l); /* connections that came before the watch */
	return TP_OK;
}

const struct tp_type tp_type_usrsctp = {
	.name = "usrsctp",
	.help = "SCTP over UDP (RFC 6951), userspace stack (usrsctp)",
	.caps = TP_CAP_UDP | TP_CAP_MSG | TP_CAP_STREAMS | TP_CAP_UNORDERED | TP_CAP_PRSCTP |
	    TP_CAP_MULTIHOME | TP_CAP_PPID,
	.listen = tp_usrsctp_listen,
	.accept = tp_usrsctp_accept,
	.lwatch = tp_usrsctp_lwatch,
	.lclose = tp_usrsctp_lclose,
	.connect = tp_usrsctp_connect,
	.finish = tp_usrsctp_finish,
	.send = tp_usrsctp_send,
	.recv = tp_usrsctp_recv,
	.watch = tp_usrsctp_watch,
	.pending = tp_usrsctp_pending,
	.status = tp_usrsctp_status,
	.close = tp_usrsctp_close,
	.reset_stream = tp_usrsctp_reset_stream,
	.abort = tp_usrsctp_abort,
	.stats = tp_usrsctp_stats,
};

const struct tp_type tp_type_usrsctp_nt = {
	.name = "usrsctp-nt",
	.help = "SCTP over UDP, usrsctp without its threads, in the program's loop (one path)",
	.caps = TP_CAP_UDP | TP_CAP_MSG | TP_CAP_STREAMS | TP_CAP_UNORDERED | TP_CAP_PRSCTP |
	    TP_CAP_PPID,
	.listen = tp_usrsctp_nt_listen,
	.accept = tp_usrsctp_accept,
	.lwatch = tp_usrsctp_lwatch,
	.lclose = tp_usrsctp_lclose,
	.connect = tp_usrsctp_nt_connect,
	.finish = tp_usrsctp_finish,
	.send = tp_usrsctp_send,
	.recv = tp_usrsctp_recv,
	.watch = tp_usrsctp_watch,
	.pending = tp_usrsctp_pending,
	.status = tp_usrsctp_status,
	.close = tp_usrsctp_close,
	.reset_stream = tp_usrsctp_reset_stream,
	.abort = tp_usrsctp_abort,
	.stats = tp_usrsctp_nt_stats,
};
