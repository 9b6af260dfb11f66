/* test_httpd_streams.c: HTTP requests on several streams of one association, answers checked. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ev.h"
#include "http.h"
#include "tp.h"

/*
 * For the sctphttpd scripts: sends every request at once, each on its stream with PPID 63,
 * then reads until all responses are complete. One line per response, in completion order:
 *   done N stream=S status=C len=L ppid=63 match|MISMATCH|nofile PATH
 * and "bad ppid=P stream=S" for any piece without PPID 63. Exit 0 when everything came
 * back on its own stream, in order per stream, with PPID 63 and the file's bytes, or was
 * aborted by a stream reset ("reset stream=S PATH"; SCTP notifications print as "note: ...").
 *
 * --idle N instead opens N associations (a batch at a time, so that the INITs are not lost in
 * a burst), prints "open N" and holds them, sending nothing, for --timeout seconds. Several
 * such processes must differ in --local address: their stacks pick SCTP ports independently.
 */

#define MAXREQ 1024

struct req {
	unsigned stream;
	const char *path;
	int done;
};

struct sbuf {
	char *p;
	size_t len, cap;
	unsigned next;      /* index into reqs of the next response expected on this stream */
};

static struct req reqs[MAXREQ];
static unsigned nreqs;
static const char *dir = ".";
static const char *retry_path;  /* --retry: asked again on a stream the server reset */
static unsigned nresets, nreset_events, expect_resets;

static void send_req(struct tp_conn *c, unsigned i);

static void
die(const char *what, const char *why)
{
	fprintf(stderr, "test_httpd_streams: %s: %s\n", what, why);
	exit(2);
}

static unsigned
next_req(unsigned stream, unsigned from)
{
	unsigned i;

	for (i = from; i < nreqs; i++)
		if (reqs[i].stream == stream && !reqs[i].done)
			return i;
	return nreqs;
}

static int
body_matches(const char *path, const char *body, size_t len)
{
	char fn[4096];
	struct stat st;
	FILE *f;
	char *want;
	int same;

	snprintf(fn, sizeof(fn), "%s/%s", dir, path[0] == '/' ? path + 1 : path);
	if (stat(fn, &st) == -1 || !S_ISREG(st.st_mode))
		return -1;
	if ((size_t)st.st_size != len)
		return 0;
	if ((f = fopen(fn, "rb")) == NULL || (want = malloc(len + 1)) == NULL)
		return -1;
	same = fread(want, 1, len, f) == len && memcmp(want, body, len) == 0;
	fclose(f);
	free(want);
	return same;
}

#define IDLE_BATCH 50

/* Open n idle associations, say so, hold them for hold_s seconds; exit status. */
static int
idle_hold(const char *type, const char *addr, const struct tp_opts *o, unsigned n, int hold_s)
{
	struct tp_conn **cs;
	char err[TP_ERRLEN];
	unsigned i, j, up = 0;

	if ((cs = calloc(n, sizeof(*cs))) == NULL)
		die("calloc", strerror(errno));
	for (i = 0; i < n; i += IDLE_BATCH) {
		unsigned end = i + IDLE_BATCH < n ? i + IDLE_BATCH : n;
		for (j = i; j < end; j++)
			if ((cs[j] = tp_connect(type, addr, o, err, sizeof(err))) == NULL) {
				printf("connect %u: %s\n", j, err);
				goto out;
			}
		for (j = i; j < end; j++) {
			/* a server busy accepting may refuse an INIT (ABORT): try again, as a
			 * client would, twice after a second */
			int tries = 0;
			while (tp_connect_wait(cs[j], 60000) != TP_OK) {
				if (++tries == 3) {
					printf("connect %u: %s\n", j, cs[j]->err);
					goto out;
				}
				tp_conn_free(cs[j]);
				sleep(1);
				if ((cs[j] = tp_connect(type, addr, o, err, sizeof(err))) == NULL) {
					printf("connect %u: %s\n", j, err);
					goto out;
				}
			}
			up++;
		}
	}
out:
	printf("open %u\n", up);
	fflush(stdout);
	if (up == n)
		sleep((unsigned)hold_s);
	for (i = 0; i < n; i++)
		tp_conn_free(cs[i]);
	free(cs);
	return up == n ? 0 : 1;
}

static void
send_req(struct tp_conn *c, unsigned i)
{
	struct tp_msginfo mi = { 0 };
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", reqs[i].path);
	int rc;

	mi.stream = (uint16_t)reqs[i].stream;
	mi.ppid = 63;
	while ((rc = tp_send(c, buf, (size_t)n, &mi, NULL)) == TP_RETRY)
		tp_wait(c, EV_WRITE, 1000);
	if (rc != TP_OK)
		die("send", c->err);
}

static struct sbuf *streams_sb;

/*
 * "stream reset incoming: S...": the server aborted the transaction on S (RFC 6525). Its
 * request is over ("reset stream=S PATH"), what came of its response is dropped, and with
 * --retry a new request goes on the same stream once (the stream is usable again).
 */
static void
on_note(struct tp_conn *c, const char *what, void *arg)
{
	unsigned *left = arg;
	const char *p;
	char *end;

	printf("note: %s\n", what);
	if (strncmp(what, "stream reset incoming", 21) != 0 || strstr(what, "denied") != NULL ||
	    strstr(what, "failed") != NULL || (p = strchr(what, ':')) == NULL)
		return;
	nreset_events++;
	for (p++; *p != '\0'; p = end) {
		unsigned long sid = strtoul(p, &end, 10);
		struct sbuf *s;
		if (end == p || sid > 65535)
			break;
		s = &streams_sb[sid];
		if (s->next >= nreqs) /* after its answers: a stream error's reset */
			printf("reset stream=%lu idle\n", sid);
		/* The reset ends every transaction outstanding on the stream. */
		while (s->next < nreqs) {
			printf("reset stream=%lu %s\n", sid, reqs[s->next].path);
			reqs[s->next].done = 1;
			s->next = next_req((unsigned)sid, s->next + 1);
			(*left)--;
			nresets++;
		}
		s->len = 0;
		if (retry_path != NULL && nreqs < MAXREQ) {
			reqs[nreqs].stream = (unsigned)sid;
			reqs[nreqs].path = retry_path;
			send_req(c, nreqs);
			s->next = nreqs++;
			(*left)++;
			retry_path = NULL;
		}
	}
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "retry", required_argument, NULL, 'r' },
		{ "expect-resets", required_argument, NULL, 'e' },
		{ "udp-port", required_argument, NULL, 'u' },
		{ "udp-remote-port", required_argument, NULL, 'U' },
		{ "sctp-udp-remote-port", required_argument, NULL, 'E' },
		{ "streams", required_argument, NULL, 'S' },
		{ "dir", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "idle", required_argument, NULL, 'i' },
		{ "local", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	struct sbuf *sb;
	struct tp_opts o;
	struct tp_conn *c;
	char err[TP_ERRLEN], buf[65536];
	unsigned left, i, order = 0, bad = 0;
	int ch, timeout_s = 30;
	unsigned idle = 0;
	uint64_t deadline;

	tp_opts_init(&o);
	o.streams = 100;
	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case 'u': o.udp_port = (uint16_t)atoi(optarg); break;
		case 'U': o.udp_remote_port = (uint16_t)atoi(optarg); break;
		case 'E': o.encap_port = (uint16_t)atoi(optarg); break;
		case 'S': o.streams = (uint16_t)atoi(optarg); break;
		case 'd': dir = optarg; break;
		case 't': timeout_s = atoi(optarg); break;
		case 'i': idle = (unsigned)atoi(optarg); break;
		case 'l': o.local = optarg; break;
		case 'r': retry_path = optarg; break;
		case 'e': expect_resets = (unsigned)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: test_httpd_streams [--udp-port N] [--udp-remote-port N] "
			    "[--sctp-udp-remote-port N] [--streams N] [--local ADDR] [--dir DIR] [--timeout S] [--retry PATH] [--expect-resets N] TYPE ADDR STREAM:PATH...\n"
			    "       test_httpd_streams [--udp-port N] [--udp-remote-port N] --idle N "
			    "[--local ADDR] [--timeout S] TYPE ADDR\n");
			return 2;
		}
	}
	if (idle > 0 && argc - optind == 2)
		return idle_hold(argv[optind], argv[optind + 1], &o, idle, timeout_s);
	if (argc - optind < 3)
		die("usage", "TYPE ADDR STREAM:PATH...");
	for (i = (unsigned)optind + 2; i < (unsigned)argc && nreqs < MAXREQ; i++) {
		char *colon = strchr(argv[i], ':');
		if (colon == NULL)
			die(argv[i], "want STREAM:PATH");
		reqs[nreqs].stream = (unsigned)atoi(argv[i]);
		reqs[nreqs].path = colon + 1;
		nreqs++;
	}
	deadline = ev_clock_us() + (uint64_t)timeout_s * 1000000;
	if ((c = tp_connect(argv[optind], argv[optind + 1], &o, err, sizeof(err))) == NULL)
		die("connect", err);
	if (tp_connect_wait(c, timeout_s * 1000) != TP_OK)
		die("connect", c->err);
	printf("connected streams in=%u out=%u\n", c->streams_in, c->streams_out);
	if ((sb = calloc(65536, sizeof(*sb))) == NULL)
		die("calloc", strerror(errno));
	for (i = 0; i < nreqs; i++)
		send_req(c, i);
	for (i = 0; i < 65536; i++)
		sb[i].next = next_req(i, 0);
	streams_sb = sb;
	tp_set_notify(c, on_note, &left);
	left = nreqs;
	/* --expect-resets N: a stream error's reset may come after the last answer. */
	while (left > 0 || nreset_events < expect_resets) {
		struct tp_msginfo mi;
		struct sbuf *s;
		size_t got = 0;
		int rc = tp_recv(c, buf, sizeof(buf), &mi, &got);

		if (rc == TP_RETRY) {
			if (ev_clock_us() > deadline)
				die("recv", "timed out");
			tp_wait(c, EV_READ, 1000);
			continue;
		}
		if (rc != TP_OK)
			die("recv", rc == TP_EOF ? "the server closed early" : c->err);
		if (mi.ppid != 63) {
			printf("bad ppid=%u stream=%u\n", mi.ppid, mi.stream);
			bad++;
		}
		s = &sb[mi.stream];
		if (s->len + got > s->cap) {
			s->cap = (s->len + got) * 2;
			if ((s->p = realloc(s->p, s->cap)) == NULL)
				die("realloc", strerror(errno));
		}
		memcpy(s->p + s->len, buf, got);
		s->len += got;
		for (;;) {
			struct http_header h[64];
			struct http_response res = { 0 };
			uint64_t clen = 0;
			int hl, m;
			res.headers = h;
			hl = http_parse_response(s->p, s->len, &res, 64);
			if (hl == -2)
				break;
			if (hl < 0)
				die("response", "unparsable");
			/* Without Content-Length (a chunked CGI answer) only a reset ends it here. */
			if (http_content_length(h, res.num_headers, &clen) != 1)
				break;
			if (s->len - (size_t)hl < clen)
				break;
			if (s->next >= nreqs) {
				printf("unexpected response on stream %u\n", mi.stream);
				return 1;
			}
			m = body_matches(reqs[s->next].path, s->p + hl, (size_t)clen);
			printf("done %u stream=%u status=%d len=%llu ppid=%u %s %s\n", order++,
			    mi.stream, res.status, (unsigned long long)clen, mi.ppid,
			    m == 1 ? "match" : m == 0 ? "MISMATCH" : "nofile", reqs[s->next].path);
			if (m == 0)
				bad++;
			reqs[s->next].done = 1;
			s->next = next_req(mi.stream, s->next + 1);
			memmove(s->p, s->p + hl + clen, s->len - (size_t)hl - clen);
			s->len -= (size_t)hl + clen;
			left--;
		}
	}
	fflush(stdout);
	tp_conn_free(c);
	for (i = 0; i < 65536; i++)
		free(sb[i].p);
	free(sb);
	if (nresets > 0)
		printf("resets %u\n", nresets);
	return bad ? 1 : 0;
}
