/* test_sess.c: httpload's sessions against a scripted server over usrsctp: which stream each
 * request goes on (the draft's round-robin cursor), its PPID, and replies that break the
 * draft (wrong stream, wrong PPID) ending the session with the reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ev.h"
#include "load.h"
#include "tp.h"

#define NCALLS 10
#define NSTREAMS 4

static struct ev_loop *loop;

/* The server: every request answered at once, on the stream and PPID the test says. */
static struct tp_listener *srv;
static struct tp_conn *srv_conn;
static int srv_reqs;
static uint16_t srv_stream[64];
static uint32_t srv_ppid[64];
static int reply_shift; /* answer on (request's stream + shift) % NSTREAMS */
static uint32_t reply_ppid;

/* The client's view. */
static struct sess *sess;
static int calls_done, ended;
static uint16_t call_stream[64];
static enum load_err end_err;
static char end_why[TP_ERRLEN];

static const char req[] = "GET /x HTTP/1.1\r\nHost: t\r\n\r\n";
static const char rep[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

static void
opts_init(struct tp_opts *o)
{
	const char *p = getenv("TEST_UDP_PORT");

	tp_opts_init(o);
	o->streams = NSTREAMS;
	if (p != NULL)
		o->udp_port = o->udp_remote_port = (uint16_t)atoi(p);
}

static void
srv_ev(struct tp_conn *c, unsigned events, void *arg)
{
	char buf[4096];
	struct tp_msginfo mi, out;
	size_t got, sent;
	int rc;

	(void)events;
	(void)arg;
	while ((rc = tp_recv(c, buf, sizeof(buf), &mi, &got)) == TP_OK) {
		if (got == 0)
			continue;
		assert_true(mi.flags & TP_F_EOR);
		assert_true(srv_reqs < 64);
		assert_int_equal(got, sizeof(req) - 1);
		assert_memory_equal(buf, req, got);
		srv_stream[srv_reqs] = mi.stream;
		srv_ppid[srv_reqs] = mi.ppid;
		srv_reqs++;
		memset(&out, 0, sizeof(out));
		out.stream = (uint16_t)((mi.stream + reply_shift) % NSTREAMS);
		out.ppid = reply_ppid;
		assert_int_equal(tp_send(c, rep, sizeof(rep) - 1, &out, &sent), TP_OK);
	}
}

static void
srv_accept(struct tp_listener *l, void *arg)
{
	struct tp_conn *c;

	(void)arg;
	while (tp_accept(l, &c) == TP_OK) {
		assert_null(srv_conn);
		srv_conn = c;
		assert_int_equal(tp_watch(c, loop, EV_READ, srv_ev, NULL), TP_OK);
	}
}

static void
cb_up(struct sess *s, void *arg)
{
	(void)arg;
	assert_int_equal(sess_streams(s), NSTREAMS);
	assert_non_null(sess_issue(s, req, sizeof(req) - 1, 0, 0));
}

/* One call at a time: each is issued when the one before is done. */
static void
cb_done(struct sess *s, struct sess_call *k, void *arg)
{
	(void)arg;
	assert_int_equal(k->status, 200);
	assert_int_equal(k->data_bytes, 2);
	call_stream[calls_done++] = k->stream;
	if (calls_done < NCALLS)
		assert_non_null(sess_issue(s, req, sizeof(req) - 1, 0, 0));
	else
		sess_finish(s);
}

static void
cb_end(struct sess *s, enum load_err e, const char *why, unsigned abandoned, void *arg)
{
	(void)s;
	(void)abandoned;
	(void)arg;
	ended = 1;
	end_err = e;
	snprintf(end_why, sizeof(end_why), "%s", why);
}

/* Listen, run one session of NCALLS sequential calls to its end (or 20 s). */
static void
run_session(void)
{
	static const struct sess_cbs cbs = { .up = cb_up, .done = cb_done, .end = cb_end };
	struct sess_opts so;
	struct tp_opts o;
	char err[TP_ERRLEN];
	enum load_err e;
	uint64_t end = ev_clock_us() + 20000000;

	srv_reqs = calls_done = ended = 0;
	end_why[0] = '\0';
	opts_init(&o);
	srv = tp_listen("usrsctp", "127.0.0.1:0", &o, err, sizeof(err));
	if (srv == NULL)
		fail_msg("listen: %s", err);
	assert_int_equal(tp_listener_watch(srv, loop, srv_accept, NULL), TP_OK);
	memset(&so, 0, sizeof(so));
	so.proto = "usrsctp";
	so.addr = srv->local;
	so.tp = o;
	so.max_piped = 1;
	so.timeout_us = 10000000;
	sess = sess_new(loop, &so, &cbs, NULL, &e, err, sizeof(err));
	if (sess == NULL)
		fail_msg("session: %s", err);
	while (!ended && ev_clock_us() < end)
		ev_run_once(loop, 50);
	assert_true(ended);
	sess_free(sess);
	sess = NULL;
	tp_conn_free(srv_conn);
	srv_conn = NULL;
	tp_listener_free(srv);
	srv = NULL;
}

/* Sequential calls go round the streams: 0, 1, 2, 3, 0, ...; PPID 63 on every request; each
 * reply on the stream of its request completes that call. */
static void
test_stream_cursor(void **state)
{
	int i;

	(void)state;
	reply_shift = 0;
	reply_ppid = LOAD_PPID_HTTP;
	run_session();
	assert_int_equal(end_err, LOAD_OK);
	assert_int_equal(calls_done, NCALLS);
	assert_int_equal(srv_reqs, NCALLS);
	for (i = 0; i < NCALLS; i++) {
		assert_int_equal(srv_stream[i], i % NSTREAMS);
		assert_int_equal(call_stream[i], i % NSTREAMS);
		assert_int_equal(srv_ppid[i], 63);
	}
}

/* A reply on another stream than its request's: the session ends, saying where it came. */
static void
test_reply_wrong_stream(void **state)
{
	(void)state;
	reply_shift = 1;
	reply_ppid = LOAD_PPID_HTTP;
	run_session();
	print_message("# %s\n", end_why);
	assert_int_equal(end_err, LOAD_E_OTHER);
	assert_int_equal(calls_done, 0);
	assert_non_null(strstr(end_why, "data on stream 1 with no request outstanding"));
}

/* A reply with another PPID than HTTP's (63): refused the same way. */
static void
test_reply_wrong_ppid(void **state)
{
	(void)state;
	reply_shift = 0;
	reply_ppid = 64;
	run_session();
	print_message("# %s\n", end_why);
	assert_int_equal(end_err, LOAD_E_OTHER);
	assert_int_equal(calls_done, 0);
	assert_non_null(strstr(end_why, "PPID 64 on stream 0"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_cursor),
		cmocka_unit_test(test_reply_wrong_stream),
		cmocka_unit_test(test_reply_wrong_ppid),
	};
	char err[TP_ERRLEN];

	if ((loop = ev_new(err, sizeof(err))) == NULL) {
		fprintf(stderr, "test_sess: %s\n", err);
		return 2;
	}
	return cmocka_run_group_tests_name("httpload_sess", tests, NULL, NULL);
}
