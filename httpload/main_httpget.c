/* main_httpget.c: httpget: fetch URLs over TCP or SCTP, several at once on one association. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ev.h"
#include "load.h"
#include "tls.h"
#include "tp_cli.h"

static const char usage_head[] =
"usage: httpget [options] URL...     fetch http[s]://HOST[:PORT]/PATH over TCP or SCTP\n"
"  -o FILE          write the next URL's body to FILE (give one per URL, in order)\n"
"  -O DIR           write each body to DIR/<last path segment>\n"
"  -i               include the response head in the output\n"
"  -I               HEAD requests: print the heads only\n"
"  -f, --fail       exit 22 when a status is 400 or more (and write nothing for it)\n"
"  -s, --silent     no progress bar\n"
"  -m, --timeout S  give up after S seconds without progress (default 30)\n"
"  -v, --verbose    say what happens on stderr\n"
"  --json           at the end, one JSON line on stderr: bytes, and the transfer time from\n"
"                   the first request byte to the last body byte (not process lifetime)\n"
"  --proto tcp|sctp|sctp1m|usrsctp|auto   (default tcp); auto: TCP, or the SCTP\n"
"                   alternative an earlier TCP response advertised (Alt-Svc http/1.1+sctp),\n"
"                   raced against TCP happy-eyeballs style, what worked tried first\n"
"  --alt-cache FILE auto: the cache of alternatives and of what worked (default\n"
"                   $XDG_CACHE_HOME/httpget/alt-svc or ~/.cache/httpget/alt-svc)\n"
"  --streams N      SCTP streams to ask for (default: one per URL)\n"
"  --cacert FILE    https: trust the CAs in FILE (PEM), not the system's\n"
"  --insecure, -k   https: no certificate verification at all (tests only)\n";
static const char usage_tail[] =
"                   (--udp-port alone still names the server's port, with a warning)\n"
"  --accept-ppid0   SCTP: take data with PPID 0 as HTTP too (generic servers), not only 63\n"
"  -h, --help  -V, --version\n"
"Several URLs must name one server: they go on one connection or association, one per\n"
"stream on SCTP, one after the other on TCP.\n"
"https: TLS 1.3, one TLS connection per SCTP stream (RFC 3436), ALPN \"" TLS_ALPN_SCTP "\" on SCTP,\n"
"\"" TLS_ALPN_TCP "\" on TCP; the certificate must name the URL's host (or address).\n"
"exit status (as curl): 0 ok, 2 usage, 7 connect failed, 8 malformed reply, 18 body cut\n"
"short, 22 HTTP error with --fail, 23 write error, 28 timeout, 35 TLS handshake failed,\n"
"56 connection lost, 60 the server's certificate refused\n";

static void
get_usage(FILE *f)
{
	fputs(usage_head, f);
	fputs(tp_cli_help, f);
	fputs(usage_tail, f);
}

struct get_item {
	const char *url;
	char *req;
	size_t req_len;
	const char *out;         /* NULL: standard output */
	FILE *f;
	int status, done, issued, failed_write;
	uint64_t bytes;
	int64_t length;
};

static struct {
	struct get_item *it;
	int n, next, include, head, fail, silent, verbose, json, rc, tty;
	uint64_t t_first, t_last, t_last_epoch; /* request's first byte, last body byte (us) */
	struct ev_loop *loop;
	uint64_t total_bytes, total_length, last_bar;
	const char *outdir;
	int autop;               /* --proto auto */
	const char *alt_cache;   /* its cache file */
	const char *origin;      /* host:port */
	int https;
} g;

static void
get_die(int code, const char *fmt, const char *arg)
{
	fprintf(stderr, "httpget: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(code);
}

static void
get_progress(int final)
{
	uint64_t now = ev_clock_us();
	int pct, i, w = 40;

	if (!g.tty || g.silent || g.total_length < (1u << 20))
		return;
	if (!final && now - g.last_bar < 100000)
		return;
	g.last_bar = now;
	pct = (int)(100.0 * (double)g.total_bytes / (double)g.total_length);
	if (pct > 100)
		pct = 100;
	fputs("\r[", stderr);
	for (i = 0; i < w; i++)
		fputc(i < pct * w / 100 ? '#' : ' ', stderr);
	fprintf(stderr, "] %3d%% %.1f MB", pct, (double)g.total_bytes / 1e6);
	if (final)
		fputc('\n', stderr);
}

/* The time of the latest body byte (and of a head, for HEAD and empty bodies). */
static void
get_mark_last(void)
{
	struct timespec ts;

	g.t_last = ev_clock_us();
	clock_gettime(CLOCK_REALTIME, &ts);
	g.t_last_epoch = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static struct sess_tls_stats get_tls; /* https: the session's handshakes, kept at its end */

static void
get_json(void)
{
	double secs = g.t_last > g.t_first ? (double)(g.t_last - g.t_first) / 1e6 : 0;
	const struct sess_tls_stats *t = &get_tls;

	fprintf(stderr, "{\"urls\": %d, \"bytes\": %llu, \"transfer_s\": %.6f, "
	    "\"bytes_per_s\": %.0f, \"last_byte_epoch_s\": %.6f, ", g.n,
	    (unsigned long long)g.total_bytes, secs, secs > 0 ? (double)g.total_bytes / secs : 0,
	    (double)g.t_last_epoch / 1e6);
	if (g.https)
		fprintf(stderr, "\"tls_handshakes\": %u, \"tls_resumed\": %u, "
		    "\"tls_handshake_mean_s\": %.6f, \"tls_handshake_max_s\": %.6f, "
		    "\"tls_alpn\": \"%s\", ", t->handshakes, t->resumed,
		    t->handshakes ? (double)t->hs_us_sum / t->handshakes / 1e6 : 0,
		    (double)t->hs_us_max / 1e6, t->alpn);
	fprintf(stderr, "\"exit\": %d}\n", g.rc);
}

static void
get_set_rc(int rc)
{
	if (g.rc == 0)
		g.rc = rc;
}

static FILE *
get_open(struct get_item *it)
{
	if (it->f != NULL)
		return it->f;
	if (it->out == NULL)
		it->f = stdout;
	else if ((it->f = fopen(it->out, "wb")) == NULL) {
		fprintf(stderr, "httpget: %s: %s\n", it->out, strerror(errno));
		it->failed_write = 1;
		get_set_rc(23);
	}
	return it->f;
}

static void
get_write(struct get_item *it, const char *p, size_t n)
{
	FILE *f;

	if (it->failed_write || (g.fail && it->status >= 400))
		return;
	if ((f = get_open(it)) == NULL)
		return;
	if (fwrite(p, 1, n, f) != n) {
		it->failed_write = 1;
		get_set_rc(23);
	}
}

static void
get_fill(struct sess *s)
{
	struct sess_call *k;
	struct get_item *it;

	while (g.next < g.n && sess_slots(s) > 0) {
		it = &g.it[g.next];
		if (g.t_first == 0)
			g.t_first = ev_clock_us();
		if ((k = sess_issue(s, it->req, it->req_len, g.head, 0)) == NULL)
			break;
		k->arg = it;
		it->issued = 1;
		if (g.verbose)
			fprintf(stderr, "httpget: %s on stream %u\n", it->url, k->stream);
		g.next++;
	}
	if (g.next == g.n)
		sess_finish(s);
}

static void
get_up(struct sess *s, void *arg)
{
	(void)arg;
	if (g.verbose)
		fprintf(stderr, "httpget: connected to %s, %u stream%s\n", sess_conn(s)->peer,
		    sess_streams(s), sess_streams(s) == 1 ? "" : "s");
	get_fill(s);
}

static void
get_head(struct sess *s, struct sess_call *k, const char *raw, size_t len,
    const struct http_response *res, void *arg)
{
	struct get_item *it = k->arg;

	(void)arg;
	it->status = res->status;
	it->length = k->content_length;
	if (k->content_length > 0)
		g.total_length += (uint64_t)k->content_length;
	get_mark_last();
	if (g.include || g.head)
		get_write(it, raw, len);
	if (g.autop && !(tp_caps(sess_conn(s)) & TP_CAP_STREAMS))
		happy_learn(g.alt_cache, g.origin, raw, len, g.verbose);
}

static void
get_body(struct sess *s, struct sess_call *k, const char *p, size_t n, void *arg)
{
	struct get_item *it = k->arg;

	(void)s;
	(void)arg;
	it->bytes += n;
	g.total_bytes += n;
	get_mark_last();
	get_write(it, p, n);
	get_progress(0);
}

static void
get_done(struct sess *s, struct sess_call *k, void *arg)
{
	struct get_item *it = k->arg;

	(void)arg;
	it->done = 1;
	if (g.verbose)
		fprintf(stderr, "httpget: %s: %d, %llu bytes\n", it->url, it->status,
		    (unsigned long long)it->bytes);
	if (g.fail && it->status >= 400) {
		fprintf(stderr, "httpget: %s: the server answered %d\n", it->url, it->status);
		get_set_rc(22);
	} else if (!it->failed_write) {
		get_open(it); /* an empty body still makes its file */
	}
	get_fill(s);
}

static void
get_end(struct sess *s, enum load_err e, const char *why, unsigned abandoned, void *arg)
{
	int i;

	(void)arg;
	if (sess_tls(s) != NULL) {
		get_tls = *sess_tls(s);
		if (g.verbose)
			fprintf(stderr, "httpget: TLS 1.3, ALPN \"%s\": %u handshakes (%u resumed), "
			    "mean %.3f ms, longest %.3f ms\n", get_tls.alpn, get_tls.handshakes,
			    get_tls.resumed, get_tls.handshakes ? (double)get_tls.hs_us_sum /
			    get_tls.handshakes / 1e3 : 0, (double)get_tls.hs_us_max / 1e3);
	}
	if (e != LOAD_OK || abandoned > 0) {
		fprintf(stderr, "httpget: %s\n", why);
		if (sess_tls_refused(s))
			get_set_rc(TLS_EXIT_CERT);
		else if (strncmp(why, "TLS ", 4) == 0)
			get_set_rc(35);
		for (i = 0; i < g.n; i++)
			if (g.it[i].issued && !g.it[i].done && g.it[i].status != 0)
				get_set_rc(18);
		switch (e) {
		case LOAD_E_CLIENT_TIMO:
		case LOAD_E_SOCK_TIMO: get_set_rc(28); break;
		case LOAD_E_OTHER: get_set_rc(8); break;
		default: get_set_rc(sess_is_up(s) ? 56 : 7); break;
		}
	}
	for (i = 0; i < g.n; i++)
		if (!g.it[i].done && g.rc == 0) {
			fprintf(stderr, "httpget: %s: no reply\n", g.it[i].url);
			get_set_rc(56);
		}
	get_progress(1);
	sess_free(s);
	ev_stop(g.loop);
}

static const struct sess_cbs get_cbs = {
	.up = get_up, .head = get_head, .body = get_body, .done = get_done, .end = get_end,
};

/* --proto auto: the transport the Alt-Svc cache and the race choose; on an alternative, each
 * request names it in Alt-Used (RFC 7838 section 5). */
static int
get_auto(struct sess_opts *so, const char *origin, char *cache, size_t cap)
{
	char err[TP_ERRLEN], used[300];
	int i;

	g.origin = origin;
	g.alt_cache = happy_cache_path(g.alt_cache, cache, cap);
	if (happy_connect(g.loop, g.alt_cache, origin, &so->tp, so->timeout_us, g.verbose,
	    &so->proto, &so->conn, used, sizeof(used), err, sizeof(err)) == -1) {
		fprintf(stderr, "httpget: %s\n", err);
		return -1;
	}
	for (i = 0; used[0] != '\0' && i < g.n; i++) {
		struct get_item *it = &g.it[i];
		size_t n = it->req_len + strlen(used) + 16;
		char *r = malloc(n);
		if (r == NULL)
			get_die(2, "%s", "out of memory");
		/* before the empty line that ends the head */
		it->req_len = (size_t)snprintf(r, n, "%.*sAlt-Used: %s\r\n\r\n",
		    (int)(it->req_len - 2), it->req, used);
		free(it->req);
		it->req = r;
	}
	return 0;
}

/* http[s]://HOST[:PORT][/PATH]: the authority (with the port) and the request target;
 * returns 0 for http, 1 for https, -1. */
static int
get_parse_url(const char *url, char *auth, size_t authlen, const char **path)
{
	const char *p, *slash;
	size_t n;
	int tls = strncmp(url, "https://", 8) == 0;

	if (!tls && strncmp(url, "http://", 7) != 0)
		return -1;
	p = url + (tls ? 8 : 7);
	slash = strchr(p, '/');
	n = slash ? (size_t)(slash - p) : strlen(p);
	if (n == 0 || n >= authlen)
		return -1;
	memcpy(auth, p, n);
	auth[n] = '\0';
	*path = slash ? slash : "/";
	return tls;
}

/* The host the certificate must name: the authority without port and brackets. */
static void
get_host(const char *auth, char *host, size_t cap)
{
	const char *end;
	size_t n;

	if (auth[0] == '[') {
		end = strchr(auth, ']');
		n = end != NULL ? (size_t)(end - auth - 1) : strlen(auth + 1);
		auth++;
	} else {
		end = strrchr(auth, ':');
		n = end != NULL ? (size_t)(end - auth) : strlen(auth);
	}
	snprintf(host, cap, "%.*s", (int)n, auth);
}

int
main(int argc, char **argv)
{
	enum { O_PROTO = 256, O_STREAMS, O_PPID0, O_JSON, O_ALTCACHE, O_CACERT };
	static const struct option lopts[] = {
		{ "fail", no_argument, NULL, 'f' },
		{ "silent", no_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, O_JSON },
		{ "include", no_argument, NULL, 'i' },
		{ "head", no_argument, NULL, 'I' },
		{ "output", required_argument, NULL, 'o' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "proto", required_argument, NULL, O_PROTO },
		{ "streams", required_argument, NULL, O_STREAMS },
		TP_CLI_LONGOPTS,
		{ "accept-ppid0", no_argument, NULL, O_PPID0 },
		{ "alt-cache", required_argument, NULL, O_ALTCACHE },
		{ "cacert", required_argument, NULL, O_CACERT },
		{ "insecure", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *outs[256], *path, *base, *cacert = NULL;
	char auth[300], first[300], addr[320], err[TP_ERRLEN], cache[512], host[300], *end;
	struct sess_opts so;
	struct tp_cli cl = { 0 };
	struct sess *s;
	enum load_err e;
	struct rlimit rl;
	double timeout = 30;
	long streams = 0, v;
	int ch, nouts = 0, i, n, insecure = 0, tls;

	memset(&so, 0, sizeof(so));
	tp_opts_init(&so.tp);
	so.proto = "tcp";
	while ((ch = getopt_long(argc, argv, "o:O:iIfsm:vhVk", lopts, NULL)) != -1) {
		switch (tp_cli_opt(&so.tp, &cl, ch, optarg, err, sizeof(err))) {
		case -1:
			get_die(2, "%s", err);
			break;
		case 2:
			fprintf(stderr, "httpget: %s\n", err);
			continue;
		case 1:
			continue;
		}
		switch (ch) {
		case 'o':
			if (nouts == (int)(sizeof(outs) / sizeof(outs[0])))
				get_die(2, "%s", "too many -o");
			outs[nouts++] = optarg;
			break;
		case 'O': g.outdir = optarg; break;
		case 'i': g.include = 1; break;
		case 'I': g.head = 1; break;
		case 'f': g.fail = 1; break;
		case 's': g.silent = 1; break;
		case 'm':
			timeout = strtod(optarg, &end);
			if (*end != '\0' || timeout < 0)
				get_die(2, "bad timeout '%s'", optarg);
			break;
		case 'v': g.verbose = 1; break;
		case O_JSON: g.json = 1; break;
		case O_PROTO: so.proto = optarg; break;
		case O_PPID0: so.accept_ppid0 = 1; break;
		case O_ALTCACHE: g.alt_cache = optarg; break;
		case O_CACERT: cacert = optarg; break;
		case 'k': insecure = 1; break;
		case O_STREAMS:
			v = strtol(optarg, &end, 10);
			if (*end != '\0' || v < 1 || v > 65535)
				get_die(2, "bad number '%s'", optarg);
			streams = v;
			break;
		case 'h': get_usage(stdout); return 0;
		case 'V': printf("httpget %s\n", PACKAGE_VERSION); return 0;
		default: get_usage(stderr); return 2;
		}
	}
	g.n = argc - optind;
	if (g.n < 1) {
		get_usage(stderr);
		return 2;
	}
	g.autop = strcmp(so.proto, "auto") == 0;
	/* --udp-port named the server's port before issue 21: so it does, alone (not with auto,
	 * where Alt-Svc names the server's, and --udp-port was of no use in the old meaning). */
	if (!g.autop && tp_cli_compat_peer_port(&so.tp, &cl, err, sizeof(err)))
		fprintf(stderr, "httpget: %s\n", err);
	if (!g.autop && tp_type_find(so.proto) == NULL)
		get_die(2, "unknown transport '%s'", so.proto);
	if (nouts > g.n)
		get_die(2, "%s", "more -o than URLs");
	if (g.n > 1 && nouts < g.n && g.outdir == NULL)
		get_die(2, "%s", "several URLs: give -o FILE for each, or -O DIR");
	if ((g.it = calloc((size_t)g.n, sizeof(*g.it))) == NULL)
		get_die(2, "%s", "out of memory");
	for (i = 0; i < g.n; i++) {
		struct get_item *it = &g.it[i];
		char *o;
		it->url = argv[optind + i];
		if ((tls = get_parse_url(it->url, auth, sizeof(auth), &path)) == -1)
			get_die(2, "not an http:// or https:// URL: %s", it->url);
		if (i == 0)
			snprintf(first, sizeof(first), "%s", auth);
		else if (strcmp(first, auth) != 0 || tls != g.https)
			get_die(2, "all URLs must name one server: %s", it->url);
		g.https = tls;
		n = snprintf(NULL, 0, "%s %s HTTP/1.1\r\nUser-Agent: httpget/%s\r\nHost: %s\r\n\r\n",
		    g.head ? "HEAD" : "GET", path, PACKAGE_VERSION, auth);
		if ((it->req = malloc((size_t)n + 1)) == NULL)
			get_die(2, "%s", "out of memory");
		snprintf(it->req, (size_t)n + 1, "%s %s HTTP/1.1\r\nUser-Agent: httpget/%s\r\n"
		    "Host: %s\r\n\r\n", g.head ? "HEAD" : "GET", path, PACKAGE_VERSION, auth);
		it->req_len = (size_t)n;
		it->length = -1;
		if (i < nouts) {
			it->out = strcmp(outs[i], "-") == 0 ? NULL : outs[i];
		} else if (g.outdir != NULL) {
			base = strrchr(path, '/') + 1;
			n = (int)strcspn(base, "?#");
			if (n == 0) {
				base = "index.html";
				n = (int)strlen(base);
			}
			if ((o = malloc(strlen(g.outdir) + (size_t)n + 2)) == NULL)
				get_die(2, "%s", "out of memory");
			sprintf(o, "%s/%.*s", g.outdir, n, base);
			it->out = o;
		}
	}
	/* The authority: host[:port] with port 80 by default; [v6] stays bracketed. */
	end = strrchr(first, ':');
	if (end != NULL && strchr(end, ']') == NULL)
		snprintf(addr, sizeof(addr), "%s", first);
	else
		snprintf(addr, sizeof(addr), "%s:%d", first, g.https ? 443 : 80);
	so.addr = addr;
	if (g.https && g.autop)
		get_die(2, "%s", "https with --proto auto: not yet (give --proto)");
	if (g.https) {
		get_host(first, host, sizeof(host));
		if ((so.tls = tls_ctx_client(cacert, insecure, host, err, sizeof(err))) == NULL)
			get_die(2, "%s", err);
	}
	if (streams == 0)
		streams = g.n < 65535 ? g.n : 65535;
	so.tp.streams = (uint16_t)streams;
	so.max_piped = 1;
	so.timeout_us = (uint64_t)(timeout * 1e6);
	g.tty = isatty(2);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((g.loop = ev_new(err, sizeof(err))) == NULL)
		get_die(2, "%s", err);
	if (g.autop && get_auto(&so, addr, cache, sizeof(cache)) == -1)
		return 7;
	/* The options were checked above: whatever keeps the connection from being made (a
	 * kernel without SCTP included) is a connect failure, not a usage error. */
	if ((s = sess_new(g.loop, &so, &get_cbs, NULL, &e, err, sizeof(err))) == NULL) {
		fprintf(stderr, "httpget: %s\n", err);
		return 7; /* as curl's: could not connect */
	}
	if (ev_run(g.loop) == -1)
		get_die(2, "event loop: %s", strerror(errno));
	for (i = 0; i < g.n; i++) {
		if (g.it[i].f != NULL && g.it[i].f != stdout && fclose(g.it[i].f) != 0)
			get_set_rc(23);
		free(g.it[i].req);
		if (i >= nouts && g.outdir != NULL)
			free((char *)g.it[i].out);
	}
	if (fflush(stdout) != 0)
		get_set_rc(23);
	free(g.it);
	ev_free(g.loop);
	tls_ctx_free(so.tls);
	if (g.json)
		get_json();
	return g.rc;
}
