/* happy.c: httpget --proto auto (the draft's Discovery and Fallback sections). An origin's
 * "http/1.1+sctp" alternative, learnt from an Alt-Svc field (RFC 7838) on a TCP response, is
 * kept in a small cache file with what worked last; the next connection races the transports
 * happy-eyeballs style (RFC 8305): native SCTP, then SCTP in UDP (usrsctp) when the alternative
 * names "sctp-udp", then TCP, each started 250 ms after the one before or at once when it
 * fails, the first one up taken and the others closed. The cache file, one line per origin:
 *   ORIGIN ALT_PORT UDP_PORT ALT_UNTIL USED USED_UNTIL
 * (ports 0 and USED "-" where none; times in seconds since the epoch). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ev.h"
#include "load.h"

#define HAPPY_DELAY_US 250000   /* the draft's (RFC 8305's) connection attempt delay */
#define HAPPY_USED_S 600        /* what worked is tried first for 10 minutes */
#define HAPPY_MA_DEFAULT 86400  /* RFC 7838: ma defaults to 24 hours */
#define HAPPY_LINES 256
#define HAPPY_MA_MAX 2147483648LL /* RFC 9111 1.2.2: a larger delta-seconds is taken as 2^31 */

struct happy_entry {
	char origin[280];
	unsigned alt_port, udp_port;
	long long alt_until, used_until;
	char used[16];
};

static struct happy_entry happy_tab[HAPPY_LINES];
static int happy_n;

/* The cache file's name: --alt-cache, else $XDG_CACHE_HOME/httpget/alt-svc, else
 * ~/.cache/httpget/alt-svc (made when first written). */
const char *
happy_cache_path(const char *given, char *buf, size_t cap)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (given != NULL)
		return given;
	if (x != NULL && *x == '/')
		snprintf(buf, cap, "%s/httpget/alt-svc", x);
	else if (home != NULL && *home != '\0')
		snprintf(buf, cap, "%s/.cache/httpget/alt-svc", home);
	else
		return NULL;
	return buf;
}

static void
happy_load(const char *path)
{
	char line[512];
	FILE *f;

	happy_n = 0;
	if (path == NULL || (f = fopen(path, "r")) == NULL)
		return;
	while (happy_n < HAPPY_LINES && fgets(line, sizeof(line), f) != NULL) {
		struct happy_entry *e = &happy_tab[happy_n];
		if (sscanf(line, "%279s %u %u %lld %15s %lld", e->origin, &e->alt_port, &e->udp_port,
		    &e->alt_until, e->used, &e->used_until) == 6 && e->alt_port < 65536 &&
		    e->udp_port < 65536)
			happy_n++;
	}
	fclose(f);
}

/* mkdir -p of the file's directory, one level at a time. */
static void
happy_mkdirs(const char *path)
{
	char d[512], *p;

	snprintf(d, sizeof(d), "%s", path);
	for (p = strchr(d + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
		*p = '\0';
		(void)mkdir(d, 0700);
		*p = '/';
	}
}

static void
happy_save(const char *path)
{
	char tmp[600];
	FILE *f;
	int i;

	if (path == NULL)
		return;
	happy_mkdirs(path);
	snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	if ((f = fopen(tmp, "w")) == NULL) {
		fprintf(stderr, "httpget: alt-svc cache %s: %s\n", tmp, strerror(errno));
		return;
	}
	for (i = 0; i < happy_n; i++) {
		const struct happy_entry *e = &happy_tab[i];
		fprintf(f, "%s %u %u %lld %s %lld\n", e->origin, e->alt_port, e->udp_port,
		    e->alt_until, e->used, e->used_until);
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "httpget: alt-svc cache %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
}

static struct happy_entry *
happy_find(const char *origin, int make)
{
	struct happy_entry *e;
	int i;

	for (i = 0; i < happy_n; i++)
		if (strcmp(happy_tab[i].origin, origin) == 0)
			return &happy_tab[i];
	if (!make)
		return NULL;
	if (happy_n == HAPPY_LINES) /* full: the oldest line goes */
		memmove(happy_tab, happy_tab + 1, --happy_n * sizeof(happy_tab[0]));
	e = &happy_tab[happy_n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->origin, sizeof(e->origin), "%s", origin);
	strcpy(e->used, "-");
	return e;
}

/* "host:port" of the origin: its host part (brackets kept) and port. */
static void
happy_split(const char *origin, char *host, size_t cap, unsigned *port)
{
	const char *c = strrchr(origin, ':');
	size_t n = c != NULL ? (size_t)(c - origin) : strlen(origin);

	if (n >= cap)
		n = cap - 1;
	memcpy(host, origin, n);
	host[n] = '\0';
	*port = c != NULL ? (unsigned)atoi(c + 1) : 80;
}

/* ---- learning: the Alt-Svc field of a response over TCP ---- */

/* A number a peer sent, digits only up to end or a delimiter (';', ',', '"', blank, CR): its
 * value saturated at max, or -1 when there is no digit or something else follows them. */
static long long
happy_num(const char *p, const char *end, long long max)
{
	long long v = 0;
	const char *s = p;

	for (; p < end && *p >= '0' && *p <= '9'; p++)
		v = v > (max - (*p - '0')) / 10 ? max : v * 10 + (*p - '0');
	if (p == s || (p < end && (*p == '\0' || strchr(";,\" \t\r", *p) == NULL)))
		return -1;
	return v;
}

/* One alternative "PROTO=\"AUTH\"; p=v; ..." of the field value (up to end): 0 and the
 * entry updated when it is an acceptable http/1.1+sctp one, else -1. */
static int
happy_alt(struct happy_entry *e, const char *p, const char *end, long long now)
{
	char host[280], ohost[280];
	unsigned oport, udp = 0;
	long long ma = HAPPY_MA_DEFAULT, port, v;
	const char *q, *hc;
	size_t n;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	n = strlen("http%2F1.1+sctp=\"");
	if ((size_t)(end - p) < n || strncasecmp(p, "http%2F1.1+sctp=\"", n) != 0)
		return -1;
	p += n;
	if ((q = memchr(p, '"', (size_t)(end - p))) == NULL || q - p >= (long)sizeof(host))
		return -1;
	if ((hc = memrchr(p, ':', (size_t)(q - p))) == NULL)
		return -1;
	memcpy(host, p, (size_t)(hc - p));
	host[hc - p] = '\0';
	port = happy_num(hc + 1, q, 65536);
	happy_split(e->origin, ohost, sizeof(ohost), &oport);
	/* the draft: only the transport may change, never the host; and no port >= 1024 for an
	 * origin below 1024 (RFC 7838 section 9.1) */
	if (port <= 0 || port > 65535 || (host[0] != '\0' && strcasecmp(host, ohost) != 0) ||
	    (oport < 1024 && port >= 1024))
		return -1;
	for (p = q + 1; p < end; p++) {
		if (*p != ';')
			continue;
		for (p++; p < end && (*p == ' ' || *p == '\t'); p++)
			;
		/* bounded: a peer's 99999999999999999999 must not overflow the expiry */
		if (end - p > 3 && strncasecmp(p, "ma=", 3) == 0) {
			if ((ma = happy_num(p + 3, end, HAPPY_MA_MAX)) < 0)
				return -1;
		} else if (end - p > 9 && strncasecmp(p, "sctp-udp=", 9) == 0) {
			v = happy_num(p + 9, end, 65536);
			udp = v > 0 && v <= 65535 ? (unsigned)v : 0;
		}
	}
	e->alt_port = (unsigned)port;
	e->udp_port = udp;
	e->alt_until = now + ma;
	return 0;
}

/* A response's head over TCP: its Alt-Svc fields into the cache (or "clear" out of it). */
void
happy_learn(const char *cache, const char *origin, const char *head, size_t len, int verbose)
{
	const char *p = head, *end = head + len, *eol, *v, *a;
	long long now = (long long)time(NULL);
	struct happy_entry *e;
	int changed = 0;

	happy_load(cache);
	for (; p < end; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		if (eol - p < 8 || strncasecmp(p, "Alt-Svc:", 8) != 0)
			continue;
		v = p + 8;
		while (v < eol && (*v == ' ' || *v == '\t'))
			v++;
		e = happy_find(origin, 1);
		if (eol - v >= 5 && strncasecmp(v, "clear", 5) == 0) {
			e->alt_port = e->udp_port = 0;
			e->alt_until = 0;
			changed = 1;
			continue;
		}
		for (a = v; a < eol; a = p + 1) { /* alternatives, comma-separated */
			p = memchr(a, ',', (size_t)(eol - a));
			if (p == NULL)
				p = eol;
			if (happy_alt(e, a, p, now) == 0) {
				changed = 1;
				if (verbose)
					fprintf(stderr, "httpget: %s offers http/1.1 over SCTP on port %u"
					    "%s%.0u for %lld s\n", origin, e->alt_port,
					    e->udp_port ? ", in UDP on " : "", e->udp_port,
					    e->alt_until - now);
				break;
			}
		}
		p = eol;
	}
	if (changed)
		happy_save(cache);
}

/* ---- the race ---- */

struct happy_try {
	const struct tp_type *type;
	const char *proto;
	char addr[300];
	struct tp_opts o;
	struct tp_conn *c;
};

static struct {
	struct ev_loop *loop;
	struct happy_try t[3];
	int n, next, active, winner, verbose;
	struct ev_timer delay, limit;
} hr;

static void happy_start_next(void);

static void
happy_fail(struct happy_try *t, const char *why)
{
	if (hr.verbose)
		fprintf(stderr, "httpget: auto: %s %s failed: %s\n", t->proto, t->addr, why);
}

static void
happy_cb(struct tp_conn *c, unsigned events, void *arg)
{
	struct happy_try *t = arg;
	int rc = tp_finish(c);

	(void)events;
	if (rc == TP_RETRY)
		return;
	tp_watch(c, hr.loop, 0, NULL, NULL);
	if (rc == TP_OK) {
		hr.winner = (int)(t - hr.t);
		ev_stop(hr.loop);
		return;
	}
	happy_fail(t, c->err);
	tp_conn_free(c);
	t->c = NULL;
	hr.active--;
	happy_start_next(); /* a failure starts the next candidate at once */
	if (hr.active == 0)
		ev_stop(hr.loop);
}

static void
happy_delay(struct ev_loop *loop, void *arg)
{
	(void)loop;
	(void)arg;
	happy_start_next();
}

static void
happy_limit(struct ev_loop *loop, void *arg)
{
	(void)arg;
	ev_stop(loop);
}

static void
happy_start_next(void)
{
	char err[TP_ERRLEN];

	while (hr.next < hr.n) {
		struct happy_try *t = &hr.t[hr.next++];
		if ((t->c = tp_connect(t->proto, t->addr, &t->o, err, sizeof(err))) == NULL) {
			happy_fail(t, err);
			continue;
		}
		if (tp_watch(t->c, hr.loop, EV_WRITE, happy_cb, t) != TP_OK) {
			happy_fail(t, t->c->err);
			tp_conn_free(t->c);
			t->c = NULL;
			continue;
		}
		if (hr.verbose)
			fprintf(stderr, "httpget: auto: trying %s %s\n", t->proto, t->addr);
		hr.active++;
		ev_timer_stop(hr.loop, &hr.delay);
		if (hr.next < hr.n)
			ev_timer_start(hr.loop, &hr.delay, HAPPY_DELAY_US, happy_delay, NULL);
		return;
	}
}

static void
happy_add(const struct tp_type *type, const char *host, unsigned port, const struct tp_opts *o)
{
	struct happy_try *t = &hr.t[hr.n];

	if (type == NULL) /* not in this build */
		return;
	t->type = type;
	t->proto = tp_type_name(type);
	snprintf(t->addr, sizeof(t->addr), "%s:%u", host, port);
	t->o = *o;
	hr.n++;
}

/* Connect to origin ("host:port") the way the cache says: a fresh alternative races SCTP
 * against TCP, what worked last going first; without one, TCP. On success *proto and *conn
 * are the winner's, alt_used its "host:port" when it is the alternative (else ""). */
int
happy_connect(struct ev_loop *loop, const char *cache, const char *origin,
    const struct tp_opts *o, uint64_t timeout_us, int verbose, const char **proto,
    struct tp_conn **conn, char *alt_used, size_t alt_cap, char *err, size_t errlen)
{
	long long now = (long long)time(NULL);
	struct happy_entry *e;
	/* The three the draft races, by capability: native SCTP, SCTP in UDP, TCP. */
	const struct tp_type *sctp = tp_type_with(TP_CAP_STREAMS, TP_CAP_UDP);
	const struct tp_type *udp = tp_type_with(TP_CAP_STREAMS | TP_CAP_UDP, 0);
	const struct tp_type *tcp = tp_type_with(0, TP_CAP_MSG | TP_CAP_PATH);
	const struct tp_type *used;
	struct tp_opts uo;
	char host[280];
	unsigned oport;
	int i, rc = -1;

	memset(&hr, 0, sizeof(hr));
	hr.loop = loop;
	hr.winner = -1;
	hr.verbose = verbose;
	happy_load(cache);
	happy_split(origin, host, sizeof(host), &oport);
	e = happy_find(origin, 0);
	if (e != NULL && e->alt_port != 0 && e->alt_until > now) {
		used = e->used_until > now ? tp_type_find(e->used) : NULL;
		uo = *o;
		uo.udp_remote_port = (uint16_t)e->udp_port;
		/* what worked, first; then native SCTP, SCTP in UDP, TCP */
		if (used != NULL && used == udp && e->udp_port)
			happy_add(udp, host, e->alt_port, &uo);
		if (used != NULL && used == tcp)
			happy_add(tcp, host, oport, o);
		if (hr.n == 0 || hr.t[0].type != sctp)
			happy_add(sctp, host, e->alt_port, o);
		if (e->udp_port && (hr.n == 0 || hr.t[0].type != udp))
			happy_add(udp, host, e->alt_port, &uo);
		if (hr.n == 0 || hr.t[0].type != tcp)
			happy_add(tcp, host, oport, o);
	} else {
		happy_add(tcp, host, oport, o);
	}
	happy_start_next();
	if (hr.active > 0) {
		if (timeout_us > 0)
			ev_timer_start(loop, &hr.limit, timeout_us, happy_limit, NULL);
		if (ev_run(loop) == -1)
			tp_seterr(err, errlen, "event loop: %s", strerror(errno));
	}
	ev_timer_stop(loop, &hr.delay);
	ev_timer_stop(loop, &hr.limit);
	for (i = 0; i < hr.n; i++) {
		if (hr.t[i].c == NULL || i == hr.winner)
			continue;
		tp_watch(hr.t[i].c, loop, 0, NULL, NULL);
		tp_conn_free(hr.t[i].c); /* a later one is closed gracefully */
	}
	if (hr.winner < 0) {
		tp_seterr(err, errlen, "auto: no transport to %s came up", origin);
		goto out;
	}
	*proto = hr.t[hr.winner].proto;
	*conn = hr.t[hr.winner].c;
	alt_used[0] = '\0';
	if (hr.t[hr.winner].type != tcp)
		snprintf(alt_used, alt_cap, "%s", hr.t[hr.winner].addr);
	if (verbose)
		fprintf(stderr, "httpget: auto: %s %s came up first\n", *proto, hr.t[hr.winner].addr);
	if (e != NULL || hr.t[hr.winner].type != tcp) {
		happy_load(cache); /* as it is now: another httpget may have written it */
		e = happy_find(origin, 1);
		if (tp_type_find(e->used) != hr.t[hr.winner].type || e->used_until <= now) {
			/* kept, not extended, while it holds: SCTP is tried again after it */
			snprintf(e->used, sizeof(e->used), "%s", *proto);
			e->used_until = now + HAPPY_USED_S;
			happy_save(cache);
		}
	}
	rc = 0;
out:
	return rc;
}
