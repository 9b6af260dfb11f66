/* tls_peer.c: a hostile https client for the tests (test/integration/https.sh): on one
 * association, a garbage or truncated TLS record on some streams, stalled handshakes (a
 * ClientHello, then nothing) on others, and on the rest a real TLS 1.3 handshake and one GET
 * each; it prints what each stream got: "stream I: 200 BYTES", "stream I: alert N" (the
 * server's TLS alert in clear), "stream I: reset", "stream I: nothing". Then, with --again, the
 * failed streams try a real request once more after their reset. Exit 0 unless the
 * connection failed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ev.h"
#include "tls.h"
#include "tp.h"
#include "tp_cli.h"

#define MAXS 64
enum { GOOD, GARBAGE, TRUNC, STALL };

static struct {
	struct tp_conn *c;
	struct tls_ctx *x;
	int kind[MAXS], reset[MAXS], alert[MAXS], status[MAXS], again;
	struct tls_sess *t[MAXS];
	char *in[MAXS];
	size_t inlen[MAXS], body[MAXS];
	unsigned n;
	const char *path, *host;
} P;

static void
note(struct tp_conn *c, const char *what, void *arg)
{
	const char *p;
	char *end;
	unsigned long id;

	(void)c;
	(void)arg;
	if (strncmp(what, "stream reset", 12) != 0 || (p = strchr(what, ':')) == NULL)
		return;
	for (p++; (id = strtoul(p, &end, 10)), end != p; p = end)
		if (id < MAXS)
			P.reset[id] = 1;
}

static void
send_on(unsigned i, const void *p, size_t n)
{
	struct tp_msginfo mi = { .stream = (uint16_t)i, .ppid = 63 };

	while (tp_send(P.c, p, n, &mi, NULL) == TP_RETRY)
		tp_wait(P.c, EV_WRITE, 1000);
}

static void
flush(unsigned i)
{
	const void *p;
	size_t n;

	p = tls_out(P.t[i], &n);
	if (n > 0) {
		send_on(i, p, n);
		tls_out_done(P.t[i], n);
	}
}

static void
start(unsigned i)
{
	char err[512], req[512];
	int n;

	if ((P.t[i] = tls_sess_new(P.x, TLS_ALPN_SCTP, err, sizeof(err))) == NULL) {
		fprintf(stderr, "tls_peer: %s\n", err);
		exit(1);
	}
	tls_start(P.t[i]);
	if (P.kind[i] == GOOD) {
		n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", P.path, P.host);
		tls_write(P.t[i], req, (size_t)n);
	}
	flush(i);
	P.status[i] = 0;
	P.body[i] = 0;
	P.inlen[i] = 0;
}

/* Stream i's plaintext so far: its status, and whether its body is complete. */
static void
parse(unsigned i)
{
	char *e, *cl;
	size_t head;

	if (P.inlen[i] < 12 || (e = strstr(P.in[i], "\r\n\r\n")) == NULL)
		return;
	head = (size_t)(e - P.in[i]) + 4;
	P.status[i] = atoi(P.in[i] + 9);
	cl = strstr(P.in[i], "Content-Length: ");
	if (cl != NULL && cl < e && P.inlen[i] - head >= (size_t)atol(cl + 16))
		P.body[i] = (size_t)atol(cl + 16) + 1; /* +1: done, even when empty */
}

static void
input(unsigned i, const char *p, size_t n)
{
	char buf[16384];
	size_t got;

	if (P.t[i] == NULL || P.kind[i] == STALL)
		return; /* a stalled handshake never answers */
	if (!tls_done(P.t[i]) && n >= 7 && (unsigned char)p[0] == 21)
		P.alert[i] = (unsigned char)p[6]; /* an alert before the keys: in clear */
	if (tls_input(P.t[i], p, n) == TLS_ERROR)
		return;
	flush(i);
	while (tls_read(P.t[i], buf, sizeof(buf), &got) == TLS_OK) {
		P.in[i] = realloc(P.in[i], P.inlen[i] + got + 1);
		memcpy(P.in[i] + P.inlen[i], buf, got);
		P.inlen[i] += got;
		P.in[i][P.inlen[i]] = '\0';
	}
	flush(i);
	parse(i);
}

static void
run(int ms)
{
	static char buf[65536];
	uint64_t until = ev_clock_us() + (uint64_t)ms * 1000;
	struct tp_msginfo mi;
	size_t got;
	int rc;

	while (ev_clock_us() < until) {
		rc = tp_recv(P.c, buf, sizeof(buf), &mi, &got);
		if (rc == TP_RETRY) {
			tp_wait(P.c, EV_READ, 50);
			continue;
		}
		if (rc != TP_OK) {
			fprintf(stderr, "tls_peer: %s\n", rc == TP_EOF ? "closed by the server" : P.c->err);
			return;
		}
		if (mi.stream < P.n)
			input(mi.stream, buf, got);
	}
}

static void
report(const char *when)
{
	unsigned i;

	for (i = 0; i < P.n; i++) {
		printf("stream %u%s: ", i, when);
		if (P.body[i] > 0)
			printf("%d %zu\n", P.status[i], P.body[i] - 1);
		else if (P.alert[i])
			printf("alert %d%s\n", P.alert[i], P.reset[i] ? " reset" : "");
		else if (P.reset[i])
			printf("reset\n");
		else
			printf("nothing\n");
	}
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = { TP_CLI_LONGOPTS, { NULL, 0, NULL, 0 } };
	static const char junk[] = "\x17\x03\x03\x00\x20garbage-garbage-garbage-garbage!";
	char err[512];
	struct tp_opts o;
	unsigned i;
	int ch, wait_ms;

	tp_opts_init(&o);
	while ((ch = getopt_long(argc, argv, "+", lopts, NULL)) != -1)
		if (tp_cli_opt(&o, NULL, ch, optarg, err, sizeof(err)) != 1) {
			fprintf(stderr, "tls_peer: %s\n", err);
			return 2;
		}
	if (argc - optind != 7) {
		fprintf(stderr, "usage: tls_peer [transport options] TYPE ADDR CAFILE HOST PATH "
		    "KINDS WAIT_MS\n  KINDS: one letter a stream, g good, x garbage record, t "
		    "truncated record, s stalled handshake; a trailing + asks again after resets\n");
		return 2;
	}
	P.host = argv[optind + 3];
	P.path = argv[optind + 4];
	for (i = 0; argv[optind + 5][i] != '\0' && P.n < MAXS; i++) {
		switch (argv[optind + 5][i]) {
		case 'g': P.kind[P.n++] = GOOD; break;
		case 'x': P.kind[P.n++] = GARBAGE; break;
		case 't': P.kind[P.n++] = TRUNC; break;
		case 's': P.kind[P.n++] = STALL; break;
		case '+': P.again = 1; break;
		default: fprintf(stderr, "tls_peer: bad kind\n"); return 2;
		}
	}
	wait_ms = atoi(argv[optind + 6]);
	o.streams = (uint16_t)P.n;
	if ((P.x = tls_ctx_client(argv[optind + 2], 0, P.host, err, sizeof(err))) == NULL ||
	    (P.c = tp_connect(argv[optind], argv[optind + 1], &o, err, sizeof(err))) == NULL) {
		fprintf(stderr, "tls_peer: %s\n", err);
		return 1;
	}
	tp_set_notify(P.c, note, NULL);
	if (tp_connect_wait(P.c, 5000) != TP_OK) {
		fprintf(stderr, "tls_peer: %s\n", P.c->err);
		return 1;
	}
	for (i = 0; i < P.n; i++) {
		if (P.kind[i] == GARBAGE) {
			P.t[i] = tls_sess_new(P.x, TLS_ALPN_SCTP, err, sizeof(err));
			send_on(i, junk, sizeof(junk) - 1);
		} else if (P.kind[i] == TRUNC) {
			P.t[i] = tls_sess_new(P.x, TLS_ALPN_SCTP, err, sizeof(err));
			send_on(i, junk, 9); /* a header that promises 32 bytes, and 4 of them */
		} else {
			start(i);
		}
	}
	run(wait_ms);
	report("");
	if (P.again) {
		for (i = 0; i < P.n; i++)
			if (P.kind[i] != GOOD && P.reset[i]) {
				tls_sess_free(P.t[i]);
				P.kind[i] = GOOD;
				P.alert[i] = P.reset[i] = 0;
				start(i);
			}
		run(wait_ms);
		report(" again");
	}
	for (i = 0; i < P.n; i++) {
		tls_sess_free(P.t[i]);
		free(P.in[i]);
	}
	tp_conn_free(P.c);
	tls_ctx_free(P.x);
	return 0;
}
