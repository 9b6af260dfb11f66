/* test_tp_addr.c: address parsing and printing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "tp.h"

static void
roundtrip(const char *spec, int family, int n, const char *first)
{
	struct tp_addrs a;
	char err[TP_ERRLEN], buf[128];

	assert_int_equal(tp_addrs_parse(spec, family, &a, err, sizeof(err)), 0);
	assert_int_equal(a.n, n);
	tp_addr_str((struct sockaddr *)&a.a[0], a.len[0], buf, sizeof(buf));
	assert_string_equal(buf, first);
}

static void
bad(const char *spec, const char *why)
{
	struct tp_addrs a;
	char err[TP_ERRLEN];

	assert_int_equal(tp_addrs_parse(spec, AF_UNSPEC, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, why));
}

static void
test_good(void **state)
{
	(void)state;
	roundtrip("127.0.0.1:80", AF_UNSPEC, 1, "127.0.0.1:80");
	roundtrip("[::1]:8080", AF_UNSPEC, 1, "[::1]:8080");
	roundtrip(":9000", AF_UNSPEC, 1, "0.0.0.0:9000");
	roundtrip("127.0.0.1,127.0.0.2,127.0.0.3:5000", AF_UNSPEC, 3, "127.0.0.1:5000");
	roundtrip("[::1],[::2]:1", AF_UNSPEC, 2, "[::1]:1");
	roundtrip("/tmp/x.sock", AF_UNIX, 1, "/tmp/x.sock");
	roundtrip("@abstract", AF_UNIX, 1, "@abstract");
}

static void
test_bad(void **state)
{
	(void)state;
	bad("127.0.0.1", "expected HOST:PORT");
	bad("127.0.0.1:99999", "bad port");
	bad("127.0.0.1:http", "bad port");
	bad("[::1:80", "bad");
	bad("999.1.1.1:80", "bad address");
	bad("1,2,3,4,5,6,7,8,9:1", "more than");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
