/* config.c: command-line flags and the -C config file (the same names, one "name=value" a line). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "http.h"
#include "tp_cli.h"

enum {
	OPT_LOGFMT = 256, OPT_REQTO, OPT_MAXCONNS, OPT_STREAMS, OPT_MSGSIZE,
	OPT_PPID0, OPT_NOSENDFILE, OPT_DAEMON, OPT_HELP, OPT_MAXLINE, OPT_MAXHEAD, OPT_PIPELINE,
	OPT_LINGER, OPT_IDLE, OPT_CGITO, OPT_CGIBODY, OPT_CGIMAX, OPT_ALTSVC, OPT_NOLIST, OPT_LISTMAX, OPT_WORKERS, OPT_MMAP,
	OPT_INTL, OPT_RTOMIN, OPT_TLSCERT, OPT_TLSKEY, OPT_TLSMAX,
};

static const struct option config_longopts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "host", required_argument, NULL, 'h' },
	{ "listen", required_argument, NULL, 'L' },
	{ "dir", required_argument, NULL, 'd' },
	{ "vhost", no_argument, NULL, 'v' },
	{ "logfile", required_argument, NULL, 'l' },
	{ "log-format", required_argument, NULL, OPT_LOGFMT },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE },
	{ "charset", required_argument, NULL, 'T' },
	{ "max-age", required_argument, NULL, 'M' },
	{ "throttles", required_argument, NULL, 't' },
	{ "cgi", required_argument, NULL, 'c' },
	{ "cgi-timeout", required_argument, NULL, OPT_CGITO },
	{ "cgi-max-body", required_argument, NULL, OPT_CGIBODY },
	{ "cgi-max", required_argument, NULL, OPT_CGIMAX },
	{ "alt-svc", required_argument, NULL, OPT_ALTSVC },
	{ "no-listings", no_argument, NULL, OPT_NOLIST },
	{ "listing-max", required_argument, NULL, OPT_LISTMAX },
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "mmap-cache", required_argument, NULL, OPT_MMAP },
	{ "tls-cert", required_argument, NULL, OPT_TLSCERT },
	{ "tls-key", required_argument, NULL, OPT_TLSKEY },
	{ "tls-max", required_argument, NULL, OPT_TLSMAX },
	{ "request-timeout", required_argument, NULL, OPT_REQTO },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "max-conns", required_argument, NULL, OPT_MAXCONNS },
	{ "sctp-streams", required_argument, NULL, OPT_STREAMS },
	{ "sctp-msg-size", required_argument, NULL, OPT_MSGSIZE },
	{ "sctp-interleave", no_argument, NULL, OPT_INTL },
	{ "rto-min", required_argument, NULL, OPT_RTOMIN },
	TP_CLI_LONGOPTS,
	{ "accept-ppid0", no_argument, NULL, OPT_PPID0 },
	{ "no-sendfile", no_argument, NULL, OPT_NOSENDFILE },
	{ "max-line", required_argument, NULL, OPT_MAXLINE },
	{ "max-head", required_argument, NULL, OPT_MAXHEAD },
	{ "pipeline", required_argument, NULL, OPT_PIPELINE },
	{ "foreground", no_argument, NULL, 'D' },
	{ "daemon", no_argument, NULL, OPT_DAEMON },
	{ "pidfile", required_argument, NULL, 'i' },
	{ "user", required_argument, NULL, 'u' },
	{ "chroot", no_argument, NULL, 'r' },
	{ "config", required_argument, NULL, 'C' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 }
};
static const char config_shortopts[] = "p:h:L:d:vl:T:M:t:c:Di:u:rC:V";

void
config_usage(FILE *f)
{
	fprintf(f,
	    "usage: sctphttpd [options]\n"
	    "Listening (any mix, all at once):\n"
	    "  -p, --port PORT          TCP port (default 80 when no -L is given)\n"
	    "  -h, --host ADDR          TCP bind address for -p (default: all, IPv6 and IPv4)\n"
	    "  -L, --listen TYPE:ADDR   also listen on a transport: tcp, sctp, sctp1m, usrsctp, ...\n"
	    "                           e.g. sctp:127.0.0.1,127.0.0.2:80  usrsctp:[::1]:8080\n");
	fputs(tp_cli_help, f);
	fprintf(f,
	    "  --sctp-streams L         streams per association, in and out (default %d)\n"
	    "  --sctp-msg-size BYTES    HTTP data per SCTP user message (default %d, max %d)\n"
	    "  --sctp-interleave        kernel SCTP: I-DATA (RFC 8260) and the round-robin stream\n"
	    "                           scheduler (needs sysctl net.sctp.intl_enable=1)\n"
	    "  --rto-min MS             SCTP (kernel, usrsctp): RTO min of every association,\n"
	    "                           10 to 60000 ms (default: the stack's, 1000; TCP's is 200)\n"
	    "  --accept-ppid0           take PPID 0 as HTTP too (testing with generic tools)\n"
	    "  --alt-svc MA             advertise the SCTP listeners on TCP responses (Alt-Svc:\n"
	    "                           http%%2F1.1+sctp=\":PORT\"; ma=MA[; sctp-udp=UDP])\n"
	    "Content:\n"
	    "  -d, --dir DIR            document root (default .)\n"
	    "  -v, --vhost              virtual hosts: files under DIR/HOST/ (Host, lowercased)\n"
	    "  -T, --charset CHARSET    charset of text/ types (default utf-8)\n"
	    "  -M, --max-age SECONDS    Cache-Control: max-age (and Expires) on files\n"
	    "  -c, --cgi PATTERN        CGI/1.1 programs: paths matching PATTERN (thttpd's: **.cgi,\n"
	    "                           cgi-bin/*; '*' within a segment, '**' across, '|' or)\n"
	    "  --cgi-timeout S          a CGI program is killed after S (default 30; then 504)\n"
	    "  --cgi-max-body BYTES     request content for a CGI program (default 1048576; 413)\n"
	    "  --cgi-max N              CGI programs running at once (default 32; beyond: 503)\n"
	    "  --no-listings            no directory listings: 403 without an index.html\n"
	    "  --listing-max N          entries listed at most per directory (default 10000)\n"
	    "  -t, --throttles FILE     thttpd throttle file: \"PATTERN MAX\" or \"PATTERN MIN-MAX\"\n"
	    "                           (bytes/s, shared by all responses matching PATTERN)\n"
	    "  --no-sendfile            read file bodies instead of sendfile(2) on TCP\n"
	    "  --mmap-cache BYTES       SCTP bodies from shared file mappings, at most BYTES mapped\n"
	    "                           (default 268435456; 0: read each piece with pread)\n"
	    "TLS 1.3 (https on every listener; SCTP: one TLS connection per stream, RFC 3436):\n"
	    "  --tls-cert FILE          certificate chain (PEM); with --tls-key\n"
	    "  --tls-key FILE           its private key (PEM)\n"
	    "  --tls-max N              TLS handshakes in progress at once (default 256; beyond:\n"
	    "                           the stream is reset, on TCP the connection closed)\n"
	    "Limits:\n"
	    "  --idle-timeout S         close idle connections and stalled ones (default 60)\n"
	    "  --request-timeout S      a request head must arrive within S (default 20)\n"
	    "  --linger S               after Connection: close, wait S for the peer (default 2)\n"
	    "  --max-conns N            connections and associations (default: from ulimit -n)\n"
	    "  --max-line BYTES         request line (default %d; longer: 414)\n"
	    "  --max-head BYTES         header section (default %d; larger: 431)\n"
	    "  --pipeline N             responses queued per stream before reading waits (default 32)\n"
	    "Logging and process:\n"
	    "  -l, --logfile FILE       access log (\"-\": standard output)\n"
	    "  --log-format common|combined\n"
	    "  -D, --foreground         stay in the foreground (the default)\n"
	    "  --daemon                 fork into the background\n"
	    "  --workers N              N processes, a SO_REUSEPORT socket each, on the TCP and\n"
	    "                           kernel SCTP one-to-one ports (default 1; usrsctp, sctp1m: 1)\n"
	    "  -i, --pidfile FILE       write the process id\n"
	    "  -u, --user USER          drop privileges to USER after binding\n"
	    "  -r, --chroot             chroot into the document root after binding\n"
	    "  -C, --config FILE        read options from FILE (name=value, long option names or\n"
	    "                           thttpd.conf's: cgipat, throttles, max_age, charset, ...)\n"
	    "  -V, --version            print the version\n"
	    "  --help                   this text\n"
	    "Signals: TERM/INT stop, USR1 finishes what is in flight and exits, HUP reopens the log,\n"
	    "USR2 prints statistics. A response that cannot be completed on SCTP resets its stream.\n",
	    SERVER_STREAMS, SERVER_MSG_SIZE, SERVER_MSG_SIZE_MAX, HTTP_MAX_LINE_DEFAULT,
	    HTTP_MAX_HEAD_DEFAULT);
}

void
config_init(struct config *cf)
{
	memset(cf, 0, sizeof(*cf));
	cf->port = -1;
	cf->idle_timeout_s = 60;
	cf->request_timeout_s = 20;
	cf->linger_s = 2;
	cf->streams = SERVER_STREAMS;
	cf->msg_size = SERVER_MSG_SIZE;
	cf->pipeline_max = 32;
	cf->sendfile = 1;
	cf->max_line = HTTP_MAX_LINE_DEFAULT;
	cf->max_head = HTTP_MAX_HEAD_DEFAULT;
	cf->cgi_timeout_s = 30;
	cf->cgi_max_body = 1048576;
	cf->cgi_max = 32;
	cf->alt_svc_ma = -1;
	cf->listings = 1;
	cf->listing_max = 10000;
	cf->max_age = -1;
	cf->workers = 1;
	cf->mmap_max = 256u << 20;
	cf->tls_max = 256;
}

void
config_free(struct config *cf)
{
	size_t i;

	if (cf == NULL)
		return;
	for (i = 0; i < cf->nlistens; i++) {
		free(cf->listens[i].type);
		free(cf->listens[i].addr);
	}
	free(cf->listens);
	free(cf->dir);
	free(cf->host);
	free(cf->logfile);
	free(cf->pidfile);
	free(cf->user);
	free(cf->throttles);
	free(cf->cgi_pattern);
	free(cf->charset);
	free(cf->tls_cert);
	free(cf->tls_key);
	memset(cf, 0, sizeof(*cf));
}

static int
config_num(const char *s, unsigned long min, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	if (*s == '-' || *s == '\0')
		return -1;
	*v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || *v < min || *v > max)
		return -1;
	return 0;
}

static int
config_str(char **dst, const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		return -1;
	free(*dst);
	*dst = d;
	return 0;
}

static int
config_add_listen(struct config *cf, const char *spec, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	struct config_listen *nl;

	if (colon == NULL || colon == spec || colon[1] == '\0') {
		snprintf(err, errlen, "-L %s: want TYPE:ADDR (e.g. sctp:127.0.0.1:80)", spec);
		return -1;
	}
	nl = realloc(cf->listens, (cf->nlistens + 1) * sizeof(*nl));
	if (nl == NULL)
		goto oom;
	cf->listens = nl;
	nl += cf->nlistens;
	nl->type = strndup(spec, (size_t)(colon - spec));
	nl->addr = strdup(colon + 1);
	cf->nlistens++;
	if (nl->type == NULL || nl->addr == NULL)
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* One option, from the command line or the file. */
static int
config_opt(struct config *cf, int ch, const char *arg, char *err, size_t errlen)
{
	unsigned long v;

	switch (tp_cli_opt(&cf->tp, NULL, ch, arg, err, errlen)) {
	case -1:
		return -1;
	case 2: /* an old spelling, taken */
		fprintf(stderr, "sctphttpd: %s\n", err);
		return 0;
	case 1:
		return 0;
	}
	switch (ch) {
	case 'p':
		if (config_num(arg, 0, 65535, &v) == -1)
			goto badnum;
		cf->port = (int)v;
		return 0;
	case 'h':
		return config_str(&cf->host, arg);
	case 'L':
		return config_add_listen(cf, arg, err, errlen);
	case 'd':
		return config_str(&cf->dir, arg);
	case 'v':
		cf->vhost = 1;
		return 0;
	case 'l':
		return config_str(&cf->logfile, arg);
	case OPT_LOGFMT:
		if (strcmp(arg, "common") == 0 || strcmp(arg, "clf") == 0)
			cf->log_combined = 0;
		else if (strcmp(arg, "combined") == 0)
			cf->log_combined = 1;
		else {
			snprintf(err, errlen, "--log-format %s: want common or combined", arg);
			return -1;
		}
		return 0;
	case OPT_IDLE:
		if (config_num(arg, 1, 86400, &v) == -1)
			goto badnum;
		cf->idle_timeout_s = (unsigned)v;
		return 0;
	case 'T':
		/* thttpd's -T; ours was the idle timeout once: a number is a mistake. */
		if (arg[strspn(arg, "0123456789")] == '\0' ||
		    arg[strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:")] != '\0') {
			snprintf(err, errlen, "-T %s: want a charset name such as utf-8 "
			    "(the idle timeout is --idle-timeout)", arg);
			return -1;
		}
		return config_str(&cf->charset, arg);
	case 'M':
		if (config_num(arg, 0, 100000000, &v) == -1)
			goto badnum;
		cf->max_age = (long)v;
		return 0;
	case 't':
		return config_str(&cf->throttles, arg);
	case 'c':
		if (*arg == '\0') {
			snprintf(err, errlen, "-c: empty pattern");
			return -1;
		}
		return config_str(&cf->cgi_pattern, arg);
	case OPT_CGITO:
		if (config_num(arg, 1, 86400, &v) == -1)
			goto badnum;
		cf->cgi_timeout_s = (unsigned)v;
		return 0;
	case OPT_CGIBODY:
		if (config_num(arg, 0, 1ul << 30, &v) == -1)
			goto badnum;
		cf->cgi_max_body = v;
		return 0;
	case OPT_ALTSVC:
		if (config_num(arg, 0, 2147483647L, &v) == -1)
			goto badnum;
		cf->alt_svc_ma = (long)v;
		return 0;
	case OPT_CGIMAX:
		if (config_num(arg, 1, 100000, &v) == -1)
			goto badnum;
		cf->cgi_max = (unsigned)v;
		return 0;
	case OPT_NOLIST:
		cf->listings = 0;
		return 0;
	case OPT_LISTMAX:
		if (config_num(arg, 1, 10000000, &v) == -1)
			goto badnum;
		cf->listing_max = (size_t)v;
		return 0;
	case OPT_WORKERS:
		if (config_num(arg, 1, 64, &v) == -1)
			goto badnum;
		cf->workers = (unsigned)v;
		return 0;
	case OPT_MMAP:
		if (config_num(arg, 0, 1ul << 40, &v) == -1)
			goto badnum;
		cf->mmap_max = v;
		return 0;
	case OPT_TLSCERT:
		return config_str(&cf->tls_cert, arg);
	case OPT_TLSKEY:
		return config_str(&cf->tls_key, arg);
	case OPT_TLSMAX:
		if (config_num(arg, 1, 1000000, &v) == -1)
			goto badnum;
		cf->tls_max = (unsigned)v;
		return 0;
	case OPT_REQTO:
		if (config_num(arg, 1, 86400, &v) == -1)
			goto badnum;
		cf->request_timeout_s = (unsigned)v;
		return 0;
	case OPT_LINGER:
		if (config_num(arg, 0, 3600, &v) == -1)
			goto badnum;
		cf->linger_s = (unsigned)v;
		return 0;
	case OPT_MAXCONNS:
		if (config_num(arg, 1, 10000000, &v) == -1)
			goto badnum;
		cf->max_conns = (long)v;
		return 0;
	case OPT_STREAMS:
		if (config_num(arg, 1, 65535, &v) == -1)
			goto badnum;
		cf->streams = (unsigned)v;
		return 0;
	case OPT_MSGSIZE:
		if (config_num(arg, 512, SERVER_MSG_SIZE_MAX, &v) == -1)
			goto badnum;
		cf->msg_size = v;
		return 0;
	case OPT_PPID0:
		cf->ppid0 = 1;
		return 0;
	case OPT_INTL:
		cf->interleave = 1;
		return 0;
	case OPT_RTOMIN:
		if (config_num(arg, 10, 60000, &v) == -1)
			goto badnum;
		cf->tp.rto_min_ms = (uint32_t)v;
		return 0;
	case OPT_NOSENDFILE:
		cf->sendfile = 0;
		return 0;
	case OPT_MAXLINE:
		if (config_num(arg, 64, 1 << 20, &v) == -1)
			goto badnum;
		cf->max_line = v;
		return 0;
	case OPT_MAXHEAD:
		if (config_num(arg, 64, 1 << 20, &v) == -1)
			goto badnum;
		cf->max_head = v;
		return 0;
	case OPT_PIPELINE:
		if (config_num(arg, 1, 1024, &v) == -1)
			goto badnum;
		cf->pipeline_max = (unsigned)v;
		return 0;
	case 'D':
		cf->daemon = 0;
		return 0;
	case OPT_DAEMON:
		cf->daemon = 1;
		return 0;
	case 'i':
		return config_str(&cf->pidfile, arg);
	case 'u':
		return config_str(&cf->user, arg);
	case 'r':
		cf->chroot = 1;
		return 0;
	}
	snprintf(err, errlen, "unknown option");
	return -1;
badnum:
	snprintf(err, errlen, "bad number '%s'", arg);
	return -1;
}

/* thttpd.conf's names for the same things, so that its config files work here too. */
static const struct {
	const char *thttpd, *ours;
} config_aliases[] = {
	{ "cgipat", "cgi" }, { "throttles", "throttles" }, { "max_age", "max-age" },
	{ "charset", "charset" }, { "logfile", "logfile" }, { "pidfile", "pidfile" },
	{ "data_dir", "dir" }, { "debug", "foreground" }, { "cgilimit", "cgi-max" },
};

static const struct option *
config_find(const char *name)
{
	const struct option *o;
	size_t i;

	for (i = 0; i < sizeof(config_aliases) / sizeof(config_aliases[0]); i++)
		if (strcmp(name, config_aliases[i].thttpd) == 0)
			name = config_aliases[i].ours;

	for (o = config_longopts; o->name != NULL; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

/* The file: "name=value", "name value" or "name" (flags); '#' starts a comment. */
static int
config_file(struct config *cf, const char *path, char *err, size_t errlen)
{
	char line[1024], e[200];
	unsigned lineno = 0;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *name, *val, *end;
		const struct option *o;

		lineno++;
		if ((end = strchr(p, '#')) != NULL)
			*end = '\0';
		end = p + strlen(p);
		while (end > p && isspace((unsigned char)end[-1]))
			*--end = '\0';
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			continue;
		name = p;
		while (*p != '\0' && *p != '=' && !isspace((unsigned char)*p))
			p++;
		val = p;
		if (*p != '\0') {
			*p++ = '\0';
			while (isspace((unsigned char)*p) || *p == '=')
				p++;
			val = p;
		}
		if ((o = config_find(name)) == NULL || o->val == 'C' || o->val == 'V' ||
		    o->val == OPT_HELP) {
			snprintf(err, errlen, "%s:%u: unknown option '%s'", path, lineno, name);
			goto bad;
		}
		if ((o->has_arg == required_argument) != (*val != '\0')) {
			snprintf(err, errlen, "%s:%u: '%s' %s", path, lineno, name,
			    o->has_arg == required_argument ? "needs a value" : "takes no value");
			goto bad;
		}
		if (config_opt(cf, o->val, val, e, sizeof(e)) == -1) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, e);
			goto bad;
		}
	}
	fclose(f);
	return 0;
bad:
	fclose(f);
	return -1;
}

int
config_parse(struct config *cf, int argc, char **argv, char *err, size_t errlen)
{
	char e[200];
	int ch, i;

	/* The file first, so that flags given beside -C override it. */
	for (i = 1; i < argc; i++) {
		const char *file = NULL;
		if (strcmp(argv[i], "--") == 0)
			break;
		if ((strcmp(argv[i], "-C") == 0 || strcmp(argv[i], "--config") == 0) && i + 1 < argc)
			file = argv[++i];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			file = argv[i] + 9;
		else if (strncmp(argv[i], "-C", 2) == 0)
			file = argv[i] + 2;
		if (file != NULL && config_file(cf, file, err, errlen) == -1)
			return -1;
	}
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, config_shortopts, config_longopts, NULL)) != -1) {
		switch (ch) {
		case 'C':
			continue;
		case 'V':
			return 2;
		case OPT_HELP:
			return 1;
		case '?':
			if (optopt != 0 && optopt < 256)
				snprintf(err, errlen, "option -%c: unknown or missing its value",
				    optopt);
			else
				snprintf(err, errlen, "unknown option or missing value: %s",
				    argv[optind - 1]);
			return -1;
		}
		if (config_opt(cf, ch, optarg, e, sizeof(e)) == -1) {
			snprintf(err, errlen, "%s", e);
			return -1;
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (cf->dir == NULL && config_str(&cf->dir, ".") == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((cf->tls_cert == NULL) != (cf->tls_key == NULL)) {
		snprintf(err, errlen, "--tls-cert and --tls-key go together");
		return -1;
	}
	if (cf->port == -1 && cf->nlistens == 0)
		cf->port = cf->tls_cert != NULL ? 443 : 80;
	return 0;
}
