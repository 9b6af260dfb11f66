/* main_httpload.c: httpload's command line (httperf's options and more) and its report. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ev.h"
#include "load.h"
#include "tls.h"
#include "tp_cli.h"

static const char usage_head[] =
"usage: httpload [options]      an HTTP load generator over TCP and SCTP (httperf's options)\n"
"       httpload merge [--json|--csv] FILE...   several clients' --json reports as one\n"
"httperf's options:\n"
"  --server HOST[,HOST2...]   server (several addresses: one multihomed SCTP peer)\n"
"  --port N                   port (default 80)\n"
"  --uri PATH                 request target (default /)\n"
"  --rate R                   open loop: R connections per second (0: one after another)\n"
"  --period [d|u|e]T1[,T2]    interarrival: fixed T1, uniform T1..T2, exponential mean T1 s\n"
"  --num-conns N              connections in all (default 1)\n"
"  --num-calls N              calls per connection (default 1)\n"
"  --timeout S                no progress for S seconds: the connection fails (client-timo)\n"
"  --max-connections N        at most N connections open at once\n"
"  --max-piped-calls N        outstanding calls per stream (default 1: no pipelining)\n"
"  --method M                 request method (default GET)\n"
"  --add-header 'N: V\\n'      extra header line(s), \\n ends each\n"
"  --http-version 1.0|1.1     (default 1.1)\n"
"  --print-reply[=header|body]   --print-request[=header|body]\n"
"  --send-buffer N --recv-buffer N   socket buffer sizes\n"
"  --client I/N               this is client I of N (seeds the --period randomness)\n"
"  --hog                      accepted (the kernel picks ports from its whole range anyway)\n"
"  --verbose, -v              reply-rate samples, each connection error on stderr\n"
"  --wsess N,C,T              N sessions (one connection each) of C calls, T s think time\n"
"  --burst-length L           --wsess: calls per burst (default 1), issued back to back\n"
"  --think-timeout S          the first reply of a burst may take S s beyond --timeout\n"
"  --wsesslog N,X,F           N sessions from file F (httperf's format), X s think time\n"
"  --wset N,X                 URIs from a working set of N files under --uri, a new one every\n"
"                             1/X calls (PREFIX/0/1/2.html for file 12 of 1000)\n"
"  --wlog y|n,F               the URIs of file F in turn (each ended by a NUL); y: wrap around,\n"
"                             n: stop after the last one\n"
"  --ssl                      https: TLS 1.3 (a TLS connection per SCTP stream), the server's\n"
"                             certificate verified for --server; --cacert FILE: its CAs,\n"
"                             --insecure: no verification (tests)\n"
"transports:\n"
"  --proto tcp|sctp|sctp1m|usrsctp   (default tcp)\n"
"  --streams N                SCTP streams per association (default 1); calls spread over them\n"
"  --rto-min MS --nodelay     SCTP/TCP tuning; also --rto-initial MS --rto-max MS\n"
"  --sctp-interleave          kernel SCTP: I-DATA (RFC 8260), round-robin stream scheduler\n"
"  --path-max-retrans N       SCTP: retransmissions before a path counts as failed\n"
"  --local ADDR[,ADDR2]       bind to these local addresses first (SCTP: several)\n";
static const char usage_tail[] =
"                             (--udp-port alone still names the server's port, with a warning)\n"
"  --accept-ppid0             SCTP: take data with PPID 0 as HTTP too, not only PPID 63\n"
"beyond httperf:\n"
"  --concurrency N, -c N      closed loop: keep N connections busy (like wrk -c)\n"
"  --duration S, -d S         run S seconds (calls per connection then unlimited)\n"
"  --json | --csv             a machine-readable summary instead of the report\n"
"  --log FILE                 a line per completed call: start (us since the run's start),\n"
"                             status, latency (us), stream, content bytes, request target\n"
"  --verify                   check each body's length; --verify-manifest FILE: and checksum\n"
"                             (lines \"PATH SIZE CRC32hex\"); bad bodies count as corrupt\n"
"  --threads N                N independent event loops, one merged report\n"
"  --progress | --no-progress a line on stderr every 5 s (default: when stderr is a terminal)\n"
"  --help, -h   --version, -V\n"
"SIGINT ends the run early; the report covers what was done until then.\n"
"exit status: 0 all calls answered, 1 some error counted, 2 bad usage or set-up failure\n";

static void
load_usage(FILE *f)
{
	fputs(usage_head, f);
	fputs(tp_cli_help, f);
	fputs(usage_tail, f);
}

struct load_thread {
	struct load_opts o;
	struct load_stats st;
	pthread_t tid;
	int rc;
	char err[TP_ERRLEN];
};

static void
load_die(const char *msg, const char *arg)
{
	fprintf(stderr, "httpload: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	fprintf(stderr, "try 'httpload --help'\n");
	exit(2);
}

static double
load_num(const char *s, double min, double max, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "httpload: bad %s '%s' (%g to %g)\n", what, s, min, max);
		exit(2);
	}
	return v;
}

static unsigned
load_print_arg(const char *a)
{
	if (a == NULL)
		return LOAD_PRINT_HEADER | LOAD_PRINT_BODY;
	if (strcmp(a, "header") == 0)
		return LOAD_PRINT_HEADER;
	if (strcmp(a, "body") == 0)
		return LOAD_PRINT_BODY;
	load_die("--print-reply/--print-request take header or body", a);
	return 0;
}

/* httperf: "\n" in --add-header ends a header line; the wire wants CRLF. */
static void
load_add_header(struct load_opts *o, const char *a)
{
	size_t have = o->headers ? strlen(o->headers) : 0, n = strlen(a), i, j = have;
	char *h;

	if ((h = realloc(o->headers, have + 2 * n + 3)) == NULL)
		load_die("out of memory", NULL);
	for (i = 0; i < n; i++) {
		if (a[i] == '\\' && a[i + 1] == 'n') {
			h[j++] = '\r';
			h[j++] = '\n';
			i++;
		} else if (a[i] == '\n' && (j == 0 || h[j - 1] != '\r')) {
			h[j++] = '\r';
			h[j++] = '\n';
		} else {
			h[j++] = a[i];
		}
	}
	if (j > have && (j < 2 || h[j - 1] != '\n')) {
		h[j++] = '\r';
		h[j++] = '\n';
	}
	h[j] = '\0';
	o->headers = h;
}

static void
load_period(struct load_opts *o, const char *a)
{
	char kind = 'd';
	char *comma;

	if (*a == 'd' || *a == 'u' || *a == 'e')
		kind = *a++;
	o->period = kind == 'u' ? LOAD_PERIOD_U : kind == 'e' ? LOAD_PERIOD_E : LOAD_PERIOD_D;
	if (kind == 'u') {
		if ((comma = strchr(a, ',')) == NULL)
			load_die("--period u needs T1,T2", a);
		*comma = '\0';
		o->period_a = load_num(a, 0, 1e6, "period");
		o->period_b = load_num(comma + 1, o->period_a, 1e6, "period");
		*comma = ',';
	} else {
		o->period_a = load_num(a, 1e-7, 1e6, "period");
		o->period_b = o->period_a;
	}
	o->rate = 2.0 / (o->period_a + o->period_b);
}

/* httperf's first line: the options in canonical form, for the logs. */
static void
load_print_cmdline(const struct load_opts *o)
{
	printf("httpload");
	if (o->hog)
		printf(" --hog");
	if (o->verbose)
		printf(" --verbose");
	if (o->print_reply)
		printf(" --print-reply");
	if (o->print_request)
		printf(" --print-request");
	if (o->timeout > 0)
		printf(" --timeout=%g", o->timeout);
	printf(" --client=%u/%u --server=%s --port=%u --uri=%s", o->client_id, o->client_n,
	    o->server, o->port, o->uri);
	if (o->rate > 0)
		printf(" --rate=%g", o->rate);
	printf(" --send-buffer=%d --recv-buffer=%d", o->sndbuf ? o->sndbuf : 4096,
	    o->rcvbuf ? o->rcvbuf : 16384);
	if (o->max_conns)
		printf(" --max-connections=%u", o->max_conns);
	if (o->max_piped > 1)
		printf(" --max-piped-calls=%u", o->max_piped);
	if (strcmp(o->method, "GET") != 0)
		printf(" --method=%s", o->method);
	if (o->concurrency)
		printf(" --concurrency=%u", o->concurrency);
	if (o->duration > 0)
		printf(" --duration=%g", o->duration);
	if (o->num_conns != UINT64_MAX)
		printf(" --num-conns=%llu", (unsigned long long)o->num_conns);
	if (o->num_calls)
		printf(" --num-calls=%llu", (unsigned long long)o->num_calls);
	if (tp_type_find(o->proto) != tp_type_find(LOAD_DEFAULT_PROTO))
		printf(" --proto=%s --streams=%u", o->proto, o->streams);
	if (o->threads > 1)
		printf(" --threads=%u", o->threads);
	if (o->uris != NULL && o->uris->kind == URI_WSET)
		printf(" --wset=%llu,%g", (unsigned long long)o->uris->nfiles, o->uris->rate);
	if (o->uris != NULL && o->uris->kind == URI_WLOG)
		printf(" --wlog=%c,%s", o->uris->loop ? 'y' : 'n', o->uris->file);
	putchar('\n');
}

static void *
load_thread_main(void *arg)
{
	struct load_thread *t = arg;

	t->rc = load_run(&t->o, &t->st, t->err, sizeof(t->err));
	return NULL;
}

/* --wsess N,C,T: N sessions of C calls each, T seconds of think time between bursts. */
static void
load_wsess(struct load_opts *o, const char *a)
{
	double n, c, t;
	char extra;

	if (sscanf(a, "%lf,%lf,%lf%c", &n, &c, &t, &extra) != 3 || n < 1 || n > 1e15 || c < 1 ||
	    c > 1e15 || t < 0 || t > 1e6)
		load_die("--wsess takes N,C,T: sessions, calls per session, think time (s)", a);
	o->wsess = 1;
	o->num_conns = (uint64_t)n;
	o->num_calls = (uint64_t)c;
	o->think = t;
}

/* --wsesslog N,X,F: N sessions from file F (in turn), X s of think time by default. */
static void
load_wsesslog(struct load_opts *o, const char *a)
{
	double n, x;
	int off = 0;

	if (sscanf(a, "%lf,%lf,%n", &n, &x, &off) != 2 || off == 0 || a[off] == '\0' || n < 1 ||
	    n > 1e15 || x < 0 || x > 1e6)
		load_die("--wsesslog takes N,X,F: sessions, default think time (s), file", a);
	o->wsess = 1;
	o->num_conns = (uint64_t)n;
	o->num_calls = 1; /* each session: its own count */
	o->think = x;
	o->wsesslog = a + off;
}

/* --wset N,X and --wlog B,F: the URI generators (one of them; not with --wsesslog). */
static void
load_uris(struct load_opts *o, struct uri_gen *g, const char *wset, const char *wlog)
{
	char err[TP_ERRLEN], extra;
	double n, x;

	if (wset != NULL && wlog != NULL)
		load_die("--wset and --wlog do not mix", NULL);
	if (o->wsesslog != NULL)
		load_die("--wsesslog names its own URIs: no --wset or --wlog with it", NULL);
	if (wset != NULL) {
		if (sscanf(wset, "%lf,%lf%c", &n, &x, &extra) != 2 || n < 1 || n > UINT32_MAX ||
		    n != floor(n) || x < 0 || x > 1)
			load_die("--wset takes N,X: files in the working set (1 to 4294967295), "
			    "the rate of new ones (0 to 1)", wset);
		if (uri_wset_init(g, o->uri, (uint64_t)n, x, o->client_id, o->client_n,
		    0x5eed ^ o->client_id, err, sizeof(err)) == -1)
			load_die(err, NULL);
	} else {
		if ((wlog[0] != 'y' && wlog[0] != 'n') || wlog[1] != ',' || wlog[2] == '\0')
			load_die("--wlog takes y,FILE or n,FILE (wrap around at its end or stop)",
			    wlog);
		if (uri_wlog_load(g, wlog + 2, wlog[0] == 'y', err, sizeof(err)) == -1)
			load_die(err, NULL);
	}
	o->uris = g;
}

static void
load_on_sigint(int sig)
{
	(void)sig;
	load_interrupt();
}

/* SIGINT ends the run early with the report, as httperf's does; a second one kills. */
static void
load_catch_sigint(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = load_on_sigint;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
}

/* No limit on connections but the process's: raise the soft limit to the hard one. */
static void
load_raise_nofile(void)
{
	struct rlimit rl;
	FILE *f;
	unsigned long nr_open = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	/* Root may go past the hard limit, up to the kernel's nr_open. */
	if ((f = fopen("/proc/sys/fs/nr_open", "r")) != NULL) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (nr_open > rl.rlim_max) {
		struct rlimit up = { nr_open, nr_open };
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			return;
	}
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int
main(int argc, char **argv)
{
	enum {
		O_SERVER = 256, O_PORT, O_URI, O_RATE, O_PERIOD, O_NCONNS, O_NCALLS, O_TIMEOUT,
		O_MAXCONN, O_PIPED, O_METHOD, O_ADDHDR, O_HTTPV, O_PREPLY, O_PREQ, O_HOG, O_SNDBUF,
		O_RCVBUF, O_CLIENT, O_PROTO, O_STREAMS, O_RTOMIN, O_NODELAY, O_PPID0,
		O_JSON, O_CSV, O_VERIFY, O_MANIFEST, O_THREADS, O_UNSUP,
		O_BURST, O_THINKTO, O_WSESS, O_WSESSLOG, O_WSET, O_WLOG, O_RTOINIT, O_RTOMAX, O_PMR,
		O_LOCAL, O_PROGRESS, O_NOPROGRESS, O_LOG, O_INTL, O_SSL, O_CACERT, O_INSECURE,
	};
	static const struct option lopts[] = {
		{ "server", required_argument, NULL, O_SERVER },
		{ "port", required_argument, NULL, O_PORT },
		{ "uri", required_argument, NULL, O_URI },
		{ "rate", required_argument, NULL, O_RATE },
		{ "period", required_argument, NULL, O_PERIOD },
		{ "num-conns", required_argument, NULL, O_NCONNS },
		{ "num-calls", required_argument, NULL, O_NCALLS },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "max-connections", required_argument, NULL, O_MAXCONN },
		{ "max-piped-calls", required_argument, NULL, O_PIPED },
		{ "method", required_argument, NULL, O_METHOD },
		{ "add-header", required_argument, NULL, O_ADDHDR },
		{ "http-version", required_argument, NULL, O_HTTPV },
		{ "print-reply", optional_argument, NULL, O_PREPLY },
		{ "print-request", optional_argument, NULL, O_PREQ },
		{ "hog", no_argument, NULL, O_HOG },
		{ "send-buffer", required_argument, NULL, O_SNDBUF },
		{ "recv-buffer", required_argument, NULL, O_RCVBUF },
		{ "client", required_argument, NULL, O_CLIENT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "proto", required_argument, NULL, O_PROTO },
		{ "streams", required_argument, NULL, O_STREAMS },
		{ "rto-min", required_argument, NULL, O_RTOMIN },
		{ "nodelay", no_argument, NULL, O_NODELAY },
		{ "sctp-interleave", no_argument, NULL, O_INTL },
		{ "rto-initial", required_argument, NULL, O_RTOINIT },
		{ "rto-max", required_argument, NULL, O_RTOMAX },
		{ "path-max-retrans", required_argument, NULL, O_PMR },
		{ "local", required_argument, NULL, O_LOCAL },
		{ "progress", no_argument, NULL, O_PROGRESS },
		{ "no-progress", no_argument, NULL, O_NOPROGRESS },
		TP_CLI_LONGOPTS,
		{ "accept-ppid0", no_argument, NULL, O_PPID0 },
		{ "concurrency", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, O_JSON },
		{ "log", required_argument, NULL, O_LOG },
		{ "csv", no_argument, NULL, O_CSV },
		{ "verify", no_argument, NULL, O_VERIFY },
		{ "verify-manifest", required_argument, NULL, O_MANIFEST },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "burst-length", required_argument, NULL, O_BURST },
		{ "think-timeout", required_argument, NULL, O_THINKTO },
		{ "wsess", required_argument, NULL, O_WSESS },
		{ "wsesslog", required_argument, NULL, O_WSESSLOG },
		{ "wlog", required_argument, NULL, O_WLOG },
		{ "wset", required_argument, NULL, O_WSET },
		{ "ssl", no_argument, NULL, O_SSL },
		{ "cacert", required_argument, NULL, O_CACERT },
		{ "insecure", no_argument, NULL, O_INSECURE },
		{ "ssl-ciphers", required_argument, NULL, O_UNSUP },
		{ "ssl-no-reuse", no_argument, NULL, O_UNSUP },
		{ "session-cookie", no_argument, NULL, O_UNSUP },
		{ "no-host-hdr", no_argument, NULL, O_UNSUP },
		{ "retry-on-failure", no_argument, NULL, O_UNSUP },
		{ "close-with-reset", no_argument, NULL, O_UNSUP },
		{ "failure-status", required_argument, NULL, O_UNSUP },
		{ "debug", required_argument, NULL, O_UNSUP },
		{ NULL, 0, NULL, 0 }
	};
	struct load_opts o;
	struct load_stats st;
	struct load_thread *th = NULL;
	struct uri_gen uris;
	const char *wset = NULL, *wlog = NULL, *log_path = NULL, *cacert = NULL;
	char err[TP_ERRLEN], *slash;
	struct tp_cli cl = { 0 };
	struct tp_opts tpo;
	unsigned i;
	int ch, idx, hostport, rc = 2, nconns_set = 0, ssl = 0, insecure = 0;

	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return merge_main(argc - 1, argv + 1);
	memset(&o, 0, sizeof(o));
	o.server = "localhost";
	o.port = 80;
	o.uri = "/";
	o.method = "GET";
	o.http_minor = 1;
	o.num_conns = 1;
	o.num_calls = 1;
	o.max_piped = 1;
	o.burst_len = 1;
	o.client_n = 1;
	o.proto = LOAD_DEFAULT_PROTO;
	o.streams = 1;
	o.threads = 1;
	o.progress = isatty(2);
	tp_opts_init(&tpo);
	while ((ch = getopt_long(argc, argv, "vhVc:d:", lopts, &idx)) != -1) {
		switch (tp_cli_opt(&tpo, &cl, ch, optarg, err, sizeof(err))) {
		case -1:
			load_die(err, NULL);
			break;
		case 2:
			fprintf(stderr, "httpload: %s\n", err);
			continue;
		case 1:
			continue;
		}
		switch (ch) {
		case O_SERVER: o.server = optarg; break;
		case O_PORT: o.port = (unsigned)load_num(optarg, 1, 65535, "port"); break;
		case O_URI: o.uri = optarg; break;
		case O_RATE: o.rate = load_num(optarg, 0, 1e7, "rate");
			o.period = LOAD_PERIOD_D;
			o.period_a = o.period_b = o.rate > 0 ? 1.0 / o.rate : 0;
			break;
		case O_PERIOD: load_period(&o, optarg); break;
		case O_NCONNS: o.num_conns = (uint64_t)load_num(optarg, 1, 1e15, "connection count");
			nconns_set = 1;
			break;
		case O_NCALLS: o.num_calls = (uint64_t)load_num(optarg, 1, 1e15, "call count");
			o.num_calls_set = 1;
			break;
		case O_TIMEOUT: o.timeout = load_num(optarg, 0, 1e6, "timeout"); break;
		case O_MAXCONN: o.max_conns = (unsigned)load_num(optarg, 1, 1e8, "connection limit");
			break;
		case O_PIPED: o.max_piped = (unsigned)load_num(optarg, 1, 1e6, "pipeline depth");
			break;
		case O_METHOD: o.method = optarg; break;
		case O_ADDHDR: load_add_header(&o, optarg); break;
		case O_HTTPV:
			if (strcmp(optarg, "1.0") == 0)
				o.http_minor = 0;
			else if (strcmp(optarg, "1.1") == 0)
				o.http_minor = 1;
			else
				load_die("--http-version takes 1.0 or 1.1", optarg);
			break;
		case O_PREPLY: o.print_reply = load_print_arg(optarg); break;
		case O_PREQ: o.print_request = load_print_arg(optarg); break;
		case O_HOG: o.hog = 1; break;
		case O_SNDBUF: o.sndbuf = (int)load_num(optarg, 1, 1 << 30, "buffer size"); break;
		case O_RCVBUF: o.rcvbuf = (int)load_num(optarg, 1, 1 << 30, "buffer size"); break;
		case O_CLIENT:
			if ((slash = strchr(optarg, '/')) == NULL)
				load_die("--client takes I/N", optarg);
			*slash = '\0';
			o.client_n = (unsigned)load_num(slash + 1, 1, 1e6, "client count");
			o.client_id = (unsigned)load_num(optarg, 0, o.client_n - 1, "client id");
			*slash = '/';
			break;
		case 'v': o.verbose++; break;
		case O_PROTO: o.proto = optarg; break;
		case O_STREAMS: o.streams = (unsigned)load_num(optarg, 1, 65535, "stream count");
			break;
		case O_RTOMIN: o.rto_min = (unsigned)load_num(optarg, 1, 1e7, "RTO"); break;
		case O_NODELAY: o.nodelay = 1; break;
		case O_INTL: o.interleave = 1; break;
		case O_RTOINIT: o.rto_initial = (unsigned)load_num(optarg, 1, 1e7, "RTO"); break;
		case O_RTOMAX: o.rto_max = (unsigned)load_num(optarg, 1, 1e7, "RTO"); break;
		case O_PMR: o.path_max_retrans = (int)load_num(optarg, 1, 1000, "retransmission count");
			break;
		case O_LOCAL: o.local = optarg; break;
		case O_PROGRESS: o.progress = 1; break;
		case O_NOPROGRESS: o.progress = 0; break;
		case O_PPID0: o.accept_ppid0 = 1; break;
		case 'c': o.concurrency = (unsigned)load_num(optarg, 1, 1e7, "concurrency"); break;
		case 'd': o.duration = load_num(optarg, 0.001, 1e7, "duration"); break;
		case O_JSON: o.json = 1; break;
		case O_LOG: log_path = optarg; break;
		case O_CSV: o.csv = 1; break;
		case O_VERIFY: o.verify = 1; break;
		case O_MANIFEST: o.manifest = optarg; o.verify = 1; break;
		case O_THREADS: o.threads = (unsigned)load_num(optarg, 1, 1024, "thread count");
			break;
		case O_BURST: o.burst_len = (unsigned)load_num(optarg, 1, 1e6, "burst length");
			break;
		case O_THINKTO: o.think_timeout = load_num(optarg, 0, 1e6, "think timeout"); break;
		case O_WSESS: load_wsess(&o, optarg);
			nconns_set = o.num_calls_set = 1;
			break;
		case O_WSESSLOG: load_wsesslog(&o, optarg);
			nconns_set = o.num_calls_set = 1;
			break;
		case O_WSET: wset = optarg; break;
		case O_WLOG: wlog = optarg; break;
		case O_SSL: ssl = 1; break;
		case O_CACERT: cacert = optarg; break;
		case O_INSECURE: insecure = 1; break;
		case O_UNSUP:
			fprintf(stderr, "httpload: --%s is an httperf option httpload does not "
			    "support (yet)\n", lopts[idx].name);
			return 2;
		case 'h': load_usage(stdout); return 0;
		case 'V': printf("httpload %s\n", PACKAGE_VERSION); return 0;
		default:
			load_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		load_die("unexpected argument", argv[optind]);
	/* --udp-port named the server's port before issue 21: so it does, alone. */
	if (tp_cli_compat_peer_port(&tpo, &cl, err, sizeof(err)))
		fprintf(stderr, "httpload: %s\n", err);
	o.udp_port = tpo.udp_port;
	o.udp_remote_port = tpo.udp_remote_port;
	o.encap_port = tpo.encap_port;
	o.sack_delay = tpo.sack_delay_ms;
	o.init_cwnd = tpo.init_cwnd_mtus;
	if (tp_type_find(o.proto) == NULL)
		load_die("unknown transport (tcp, sctp, sctp1m, usrsctp where built)", o.proto);
	if (o.interleave && !(tp_type_caps(tp_type_find(o.proto)) & TP_CAP_INTERLEAVE))
		load_die("--sctp-interleave needs kernel SCTP (--proto sctp or sctp1m)", o.proto);
	if (o.streams > 1 && !(tp_type_caps(tp_type_find(o.proto)) & TP_CAP_STREAMS))
		load_die("--streams needs an SCTP transport", o.proto);
	/* Closed loop and timed runs go on until stopped, unless told how much. */
	if (o.duration > 0 && !nconns_set)
		o.num_conns = UINT64_MAX;
	if (o.concurrency > 0 && !o.num_calls_set)
		o.num_calls = 0;
	if (o.concurrency > 0 && !nconns_set && o.duration <= 0)
		load_die("--concurrency needs --duration or --num-conns", NULL);
	if (o.threads > 1 && (tp_type_caps(tp_type_find(o.proto)) & TP_CAP_UDP))
		load_die("--threads: this transport runs one stack per process", o.proto);
	if (o.threads > 1 && (o.print_reply || o.print_request))
		load_die("--threads and --print-* do not mix", NULL);
	memset(&uris, 0, sizeof(uris));
	if (wset != NULL || wlog != NULL)
		load_uris(&o, &uris, wset, wlog);
	hostport = strchr(o.server, ':') != NULL && strchr(o.server, '[') == NULL;
	snprintf(o.addr, sizeof(o.addr), hostport ? "[%s]:%u" : "%s:%u", o.server, o.port);
	/* --ssl: https, a TLS 1.3 connection per stream (sess_tls.c), the certificate verified
	 * against the first --server name (one context for all threads: GnuTLS shares it). */
	if (ssl) {
		char host[256];
		snprintf(host, sizeof(host), "%.*s", (int)strcspn(o.server, ","), o.server);
		if ((o.tls = tls_ctx_client(cacert, insecure, host, err, sizeof(err))) == NULL)
			load_die(err, NULL);
	}
	if (log_path != NULL && (o.log = fopen(log_path, "w")) == NULL)
		load_die("--log: cannot write the file", log_path);
	load_raise_nofile();
	verify_crc32(0, NULL, 0); /* the table, before any thread */
	if (!o.json && !o.csv)
		load_print_cmdline(&o);
	fflush(stdout);
	if (report_stats_init(&st) == -1)
		load_die("out of memory", NULL);
	load_catch_sigint();
	if (o.threads <= 1) {
		if (load_run(&o, &st, err, sizeof(err)) == -1) {
			fprintf(stderr, "httpload: %s\n", err);
			goto out;
		}
	} else {
		if ((th = calloc(o.threads, sizeof(*th))) == NULL)
			load_die("out of memory", NULL);
		for (i = 0; i < o.threads; i++) {
			/* Each thread a share of the load; the first takes the remainders. */
			th[i].o = o;
			th[i].o.client_id = o.client_id * o.threads + i;
			th[i].o.progress = o.progress && i == 0;
			th[i].o.rate = o.rate / o.threads;
			th[i].o.period_a = o.period_a * o.threads;
			th[i].o.period_b = o.period_b * o.threads;
			if (o.num_conns != UINT64_MAX)
				th[i].o.num_conns = o.num_conns / o.threads +
				    (i == 0 ? o.num_conns % o.threads : 0);
			if (o.concurrency)
				th[i].o.concurrency = o.concurrency / o.threads +
				    (i < o.concurrency % o.threads);
			if (report_stats_init(&th[i].st) == -1)
				load_die("out of memory", NULL);
			if (th[i].o.num_conns == 0 || (o.concurrency && th[i].o.concurrency == 0))
				continue;
			if (pthread_create(&th[i].tid, NULL, load_thread_main, &th[i]) != 0)
				load_die("cannot start a thread", NULL);
		}
		for (i = 0; i < o.threads; i++) {
			if (th[i].o.num_conns == 0 || (o.concurrency && th[i].o.concurrency == 0))
				continue;
			pthread_join(th[i].tid, NULL);
			if (th[i].rc == -1) {
				fprintf(stderr, "httpload: %s\n", th[i].err);
				goto out;
			}
			report_stats_merge(&st, &th[i].st);
			if (th[i].st.duration > st.duration)
				st.duration = th[i].st.duration;
			/* CPU is the process's: every thread measured all of it. */
			if (th[i].st.user + th[i].st.sys > st.user + st.sys) {
				st.user = th[i].st.user;
				st.sys = th[i].st.sys;
			}
		}
	}
	if (o.json) {
		report_json(stdout, &st);
	} else if (o.csv) {
		report_csv(stdout, &st, 1);
	} else {
		printf("Maximum connect burst length: %llu\n", (unsigned long long)st.max_burst);
		report_httperf(stdout, &st, o.verify);
		if (o.wsess)
			report_sessions(stdout, &st);
		report_latency(stdout, &st);
	}
	/* Calls dropped by a --duration stop are not errors: the closed loop always has some. */
	rc = report_errors_total(&st) > 0 ? 1 : 0;
out:
	for (i = 0; th != NULL && i < o.threads; i++)
		report_stats_free(&th[i].st);
	free(th);
	report_stats_free(&st);
	uri_free(&uris);
	free(o.headers);
	tls_ctx_free(o.tls);
	if (o.log != NULL && fclose(o.log) != 0 && rc == 0) {
		fprintf(stderr, "httpload: --log %s: %s\n", log_path, strerror(errno));
		rc = 2;
	}
	return rc;
}
