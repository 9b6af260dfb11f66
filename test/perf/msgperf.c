/* msgperf.c: command line of the raw message benchmark: a local table, or a server and a client. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msgperf.h"
#include "tp_cli.h"

static void
mp_usage(FILE *f)
{
	const struct tp_type *const *t;

	fprintf(f,
"usage: msgperf [OPTIONS]                       measure every type x size on this host\n"
"       msgperf server -t TYPE -a ADDR [OPTIONS]  serve measurements from another host\n"
"       msgperf client -t TYPE -a ADDR [OPTIONS]  measure against a msgperf server\n"
"\n"
"Full-duplex throughput (both sides send messages of SIZE bytes as fast as they can; the\n"
"rate is what the client receives, in kbit/s, 1 kbit = 1000 bit) and latency (the mean\n"
"round trip of a SIZE-byte request echoed back, in microseconds), by message size.\n"
"\n"
"  -t, --types LIST       transports, comma-separated (default: all this build has;\n"
"                         kernel SCTP types are left out where the kernel lacks SCTP)\n"
"  -s, --sizes LIST       message sizes in bytes (default 10,100,1000,10000)\n"
"  -T, --tests LIST       throughput,latency,oneway (default throughput,latency;\n"
"                         oneway: the server sends, the client only receives)\n"
"  -d, --duration SEC     seconds per measurement (default 2)\n"
"  -a, --addr ADDR        server address (server/client modes; HOST:PORT or a unix path)\n"
"      --streams N        SCTP streams asked per association (default 10)\n"
"      --use-streams N    send messages round-robin over N streams (default 1)\n"
"      --unordered        send every message unordered (SCTP)\n"
"      --nodelay          disable Nagle (TCP_NODELAY / SCTP_NODELAY)\n"
"      --rto-min MS, --rto-initial MS, --rto-max MS   SCTP retransmission timeouts\n"
"      --path-max-retrans N  SCTP: retransmissions before a path counts as failed\n"
"      --series FILE      throughput tests: append the rate of each interval to FILE\n"
"                         (CSV: protocol,size,t_s,epoch_s,kbit_s)\n"
"      --interval SEC     seconds per --series sample (default 0.5)\n"
"      --sndbuf BYTES, --rcvbuf BYTES                 socket buffer sizes\n");
	fputs(tp_cli_help, f);
	fprintf(f,
"                           (the local table: the server takes --udp-port, the client +1)\n"
"      --csv              one CSV line per measurement instead of the tables\n"
"  -q, --quiet            no progress on stderr\n"
"  -h, --help             this help;  -V, --version  the version\n"
"\nTransport types in this build:\n");
	for (t = tp_types(); *t != NULL; t++)
		fprintf(f, "  %-8s %s\n", tp_type_name(*t), tp_type_help(*t));
}

static int
mp_parse_list(char *s, const char **out, int max)
{
	int n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return -1;
		out[n++] = tok;
	}
	return n;
}

static long
mp_num(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "msgperf: bad %s '%s' (%ld to %ld)\n", what, s, lo, hi);
		exit(2);
	}
	return v;
}

/* Start a server for one type in a child process; its address comes back through a pipe. */
static pid_t
mp_spawn(const struct mp_cfg *cfg, const char *type, char *addr, size_t addrlen, char *err,
    size_t errlen)
{
	char line[256] = "", listen_at[128];
	struct tp_opts o = cfg->opts;
	int p[2];
	pid_t pid;
	ssize_t n;
	size_t len = 0;

	if (tp_type_caps(tp_type_find(type)) & TP_CAP_PATH) {
		/* Ours: a killed server child leaves it behind. */
		snprintf(listen_at, sizeof(listen_at), "/tmp/msgperf.%ld.sock", (long)getpid());
		unlink(listen_at);
	} else
		snprintf(listen_at, sizeof(listen_at), "127.0.0.1:0");
	if (pipe(p) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		char e[TP_ERRLEN];
		close(p[0]);
		if (mp_server(type, listen_at, &o, p[1], e, sizeof(e)) == -1) {
			dprintf(p[1], "ERR %s\n", e);
			_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	while (len < sizeof(line) - 1 && (n = read(p[0], line + len, sizeof(line) - 1 - len)) > 0)
		len += (size_t)n;
	close(p[0]);
	line[len] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (len == 0 || strncmp(line, "ERR ", 4) == 0) {
		snprintf(err, errlen, "%s", len ? line + 4 : "server died");
		waitpid(pid, NULL, 0);
		return -1;
	}
	snprintf(addr, addrlen, "%s", line);
	return pid;
}

/* Measure in a child process too: a userspace stack (usrsctp) and its threads must not be set
 * up in the process that forks the next servers. */
static int
mp_measure(const struct mp_cfg *cfg, const char *type, const char *addr, size_t size,
    enum mp_test test, struct mp_result *r)
{
	int p[2], st = 0;
	ssize_t n;
	size_t len = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->type = type;
	r->size = size;
	r->test = test;
	if (pipe(p) == -1 || (pid = fork()) == -1) {
		snprintf(r->err, sizeof(r->err), "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		(void)mp_client(cfg, type, addr, size, test, r);
		if (write(p[1], r, sizeof(*r)) != (ssize_t)sizeof(*r))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	while (len < sizeof(*r) && (n = read(p[0], (char *)r + len, sizeof(*r) - len)) > 0)
		len += (size_t)n;
	close(p[0]);
	waitpid(pid, &st, 0);
	r->type = type; /* the child's pointer means nothing here */
	if (len != sizeof(*r)) {
		memset(r, 0, sizeof(*r));
		r->type = type;
		r->size = size;
		r->test = test;
		snprintf(r->err, sizeof(r->err), "measuring process died (status %d)", st);
		return -1;
	}
	return r->err[0] ? -1 : 0;
}

static void
mp_reap(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

static int
mp_local_table(struct mp_cfg *cfg, int explicit_types)
{
	static struct mp_result rs[MP_MAXTYPES * MP_MAXSIZES * 3];
	uint16_t base_port = cfg->opts.udp_port ? cfg->opts.udp_port : 9899;
	int n = 0, i, j, k, failures = 0;

	mp_report_begin(cfg);
	for (i = 0; i < cfg->ntypes; i++) {
		const char *type = cfg->types[i];
		for (j = 0; j < cfg->nsizes; j++) {
			for (k = MP_THROUGHPUT; k <= MP_ONEWAY; k <<= 1) {
				char addr[128], err[TP_ERRLEN];
				struct mp_result *r = &rs[n];
				pid_t pid;

				if (!(cfg->tests & (unsigned)k))
					continue;
				/* usrsctp: the server child and we each need a UDP port of our own. */
				cfg->opts.udp_port = base_port;
				if ((pid = mp_spawn(cfg, type, addr, sizeof(addr), err, sizeof(err))) ==
				    -1) {
					if (!explicit_types && strstr(err, "no SCTP") != NULL) {
						if (!cfg->quiet)
							fprintf(stderr, "msgperf: leaving out %s: %s\n",
							    type, err);
						goto next_type;
					}
					fprintf(stderr, "msgperf: %s server: %s\n", type, err);
					return -1;
				}
				cfg->opts.udp_port = (uint16_t)(base_port + 1);
				cfg->opts.udp_remote_port = base_port;
				if (!cfg->quiet && !cfg->csv)
					fprintf(stderr, "msgperf: %s %zu B %s ...\n", type,
					    cfg->sizes[j], mp_test_name((enum mp_test)k));
				if (mp_measure(cfg, type, addr, cfg->sizes[j], (enum mp_test)k, r) == -1)
					failures++;
				mp_reap(pid);
				mp_report_result(cfg, r);
				n++;
			}
		}
next_type:
		;
	}
	cfg->opts.udp_port = base_port;
	mp_report_end(cfg, rs, n);
	return failures ? -1 : 0;
}

int
main(int argc, char **argv)
{
	enum { O_STREAMS = 256, O_USE, O_UNORD, O_NODELAY, O_RTOMIN, O_RTOINIT, O_RTOMAX,
	    O_SNDBUF, O_RCVBUF, O_CSV, O_PMR, O_SERIES, O_INTERVAL };
	static const struct option lopts[] = {
		{ "types", required_argument, NULL, 't' },
		{ "sizes", required_argument, NULL, 's' },
		{ "tests", required_argument, NULL, 'T' },
		{ "duration", required_argument, NULL, 'd' },
		{ "addr", required_argument, NULL, 'a' },
		{ "streams", required_argument, NULL, O_STREAMS },
		{ "use-streams", required_argument, NULL, O_USE },
		{ "unordered", no_argument, NULL, O_UNORD },
		{ "nodelay", no_argument, NULL, O_NODELAY },
		{ "rto-min", required_argument, NULL, O_RTOMIN },
		{ "rto-initial", required_argument, NULL, O_RTOINIT },
		{ "rto-max", required_argument, NULL, O_RTOMAX },
		{ "sndbuf", required_argument, NULL, O_SNDBUF },
		{ "rcvbuf", required_argument, NULL, O_RCVBUF },
		TP_CLI_LONGOPTS,
		{ "csv", no_argument, NULL, O_CSV },
		{ "path-max-retrans", required_argument, NULL, O_PMR },
		{ "series", required_argument, NULL, O_SERIES },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct mp_cfg cfg;
	const char *sizes[MP_MAXSIZES], *tests[3];
	const struct tp_type *const *tt;
	const char *mode = "table";
	char err[TP_ERRLEN];
	int ch, i, n, explicit_types = 0;

	memset(&cfg, 0, sizeof(cfg));
	tp_opts_init(&cfg.opts);
	cfg.tests = MP_THROUGHPUT | MP_LATENCY;
	cfg.duration = 2;
	cfg.streams_used = 1;
	cfg.interval = 0.5;
	cfg.opts.sndbuf = cfg.opts.rcvbuf = 0;
	cfg.sizes[0] = 10, cfg.sizes[1] = 100, cfg.sizes[2] = 1000, cfg.sizes[3] = 10000;
	cfg.nsizes = 4;
	while ((ch = getopt_long(argc, argv, "t:s:T:d:a:qhV", lopts, NULL)) != -1) {
		switch (tp_cli_opt(&cfg.opts, NULL, ch, optarg, err, sizeof(err))) {
		case -1:
			fprintf(stderr, "msgperf: %s\n", err);
			return 2;
		case 2:
			fprintf(stderr, "msgperf: %s\n", err);
			continue;
		case 1:
			continue;
		}
		switch (ch) {
		case 't':
			if ((cfg.ntypes = mp_parse_list(optarg, cfg.types, MP_MAXTYPES)) <= 0)
				goto usage;
			explicit_types = 1;
			break;
		case 's':
			if ((n = mp_parse_list(optarg, sizes, MP_MAXSIZES)) <= 0)
				goto usage;
			for (i = 0; i < n; i++)
				cfg.sizes[i] = (size_t)mp_num(sizes[i], "size", 1, 16 << 20);
			cfg.nsizes = n;
			break;
		case 'T':
			if ((n = mp_parse_list(optarg, tests, 3)) <= 0)
				goto usage;
			cfg.tests = 0;
			for (i = 0; i < n; i++) {
				if (strcmp(tests[i], "throughput") == 0)
					cfg.tests |= MP_THROUGHPUT;
				else if (strcmp(tests[i], "latency") == 0)
					cfg.tests |= MP_LATENCY;
				else if (strcmp(tests[i], "oneway") == 0)
					cfg.tests |= MP_ONEWAY;
				else {
					fprintf(stderr, "msgperf: unknown test '%s' (throughput, "
					    "latency, oneway)\n", tests[i]);
					return 2;
				}
			}
			break;
		case 'd':
			cfg.duration = atof(optarg);
			if (cfg.duration <= 0 || cfg.duration > 3600) {
				fprintf(stderr, "msgperf: bad duration '%s' (seconds, > 0)\n", optarg);
				return 2;
			}
			break;
		case 'a': cfg.addr = optarg; break;
		case O_STREAMS: cfg.opts.streams = (uint16_t)mp_num(optarg, "stream count", 1, 65535); break;
		case O_USE: cfg.streams_used = (uint16_t)mp_num(optarg, "stream count", 1, 65535); break;
		case O_UNORD: cfg.unordered = 1; break;
		case O_NODELAY: cfg.opts.nodelay = 1; break;
		case O_RTOMIN: cfg.opts.rto_min_ms = (uint32_t)mp_num(optarg, "RTO", 1, 600000); break;
		case O_RTOINIT: cfg.opts.rto_initial_ms = (uint32_t)mp_num(optarg, "RTO", 1, 600000); break;
		case O_RTOMAX: cfg.opts.rto_max_ms = (uint32_t)mp_num(optarg, "RTO", 1, 600000); break;
		case O_SNDBUF: cfg.opts.sndbuf = (int)mp_num(optarg, "buffer size", 1024, 1 << 30); break;
		case O_RCVBUF: cfg.opts.rcvbuf = (int)mp_num(optarg, "buffer size", 1024, 1 << 30); break;
		case O_CSV: cfg.csv = 1; break;
		case O_PMR: cfg.opts.path_max_retrans = (int)mp_num(optarg, "path_max_retrans", 1, 65535); break;
		case O_SERIES: cfg.series = optarg; break;
		case O_INTERVAL:
			cfg.interval = atof(optarg);
			if (cfg.interval < 0.01 || cfg.interval > 3600) {
				fprintf(stderr, "msgperf: bad interval '%s' (seconds, >= 0.01)\n", optarg);
				return 2;
			}
			break;
		case 'q': cfg.quiet = 1; break;
		case 'h': mp_usage(stdout); return 0;
		case 'V': printf("msgperf (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION); return 0;
		default: goto usage;
		}
	}
	if (optind < argc)
		mode = argv[optind++];
	if (optind < argc)
		goto usage;
	if (cfg.streams_used > cfg.opts.streams)
		cfg.opts.streams = cfg.streams_used;
	if (cfg.ntypes == 0)
		for (tt = tp_types(); *tt != NULL && cfg.ntypes < MP_MAXTYPES; tt++)
			cfg.types[cfg.ntypes++] = tp_type_name(*tt);
	for (i = 0; i < cfg.ntypes; i++) {
		if (tp_type_find(cfg.types[i]) == NULL) {
			fprintf(stderr, "msgperf: unknown transport '%s' (see --help)\n",
			    cfg.types[i]);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(mode, "table") == 0)
		return mp_local_table(&cfg, explicit_types) == 0 ? 0 : 1;
	if (strcmp(mode, "server") != 0 && strcmp(mode, "client") != 0) {
		fprintf(stderr, "msgperf: unknown mode '%s' (table, server, client)\n", mode);
		return 2;
	}
	if (cfg.ntypes != 1 || cfg.addr == NULL) {
		fprintf(stderr, "msgperf: %s mode needs one type (-t) and an address (-a)\n", mode);
		return 2;
	}
	if (strcmp(mode, "server") == 0) {
		if (mp_server(cfg.types[0], cfg.addr, &cfg.opts, -1, err, sizeof(err)) == -1) {
			fprintf(stderr, "msgperf: %s\n", err);
			return 1;
		}
		return 0;
	} else {
		static struct mp_result rs[MP_MAXSIZES * 3];
		int k, failed = 0;
		n = 0;
		mp_report_begin(&cfg);
		for (i = 0; i < cfg.nsizes; i++)
			for (k = MP_THROUGHPUT; k <= MP_ONEWAY; k <<= 1) {
				if (!(cfg.tests & (unsigned)k))
					continue;
				if (mp_client(&cfg, cfg.types[0], cfg.addr, cfg.sizes[i],
				    (enum mp_test)k, &rs[n]) == -1)
					failed = 1;
				mp_report_result(&cfg, &rs[n]);
				n++;
			}
		mp_report_end(&cfg, rs, n);
		return failed;
	}
usage:
	mp_usage(stderr);
	return 2;
}
