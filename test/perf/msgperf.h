/* msgperf.h: the raw message benchmark: configuration, results, and its files' prototypes. */
#ifndef SCTPAPPS_MSGPERF_H
#define SCTPAPPS_MSGPERF_H

#include <stddef.h>
#include <stdint.h>

#include "tp.h"

#define MP_MAXTYPES 16
#define MP_MAXSIZES 16
#define MP_HELLO_LEN 16

enum mp_test { MP_THROUGHPUT = 1, MP_LATENCY = 2, MP_ONEWAY = 4 };
#define MP_ALLTESTS (MP_THROUGHPUT | MP_LATENCY | MP_ONEWAY)

struct mp_cfg {
	const char *types[MP_MAXTYPES];
	int ntypes;
	size_t sizes[MP_MAXSIZES];
	int nsizes;
	unsigned tests;          /* MP_THROUGHPUT | MP_LATENCY | MP_ONEWAY */
	double duration;         /* seconds per measurement */
	uint16_t streams_used;   /* messages go round-robin over this many streams */
	int unordered;
	int csv;
	int quiet;
	const char *addr;        /* client/server address; NULL: loopback, ephemeral */
	const char *series;      /* throughput per interval to this CSV file (NULL: none) */
	double interval;         /* seconds per series sample */
	struct tp_opts opts;
};

struct mp_result {
	const char *type;
	size_t size;
	enum mp_test test;
	double kbps;             /* throughput: kbit/s (1 kbit = 1000 bit) received per direction */
	double lat_mean_us, lat_p50_us, lat_p99_us;
	uint64_t messages;
	char err[TP_ERRLEN];     /* empty when the measurement worked */
};

/* msgperf_run.c */
int mp_server(const char *type, const char *addr, const struct tp_opts *o, int ready_fd,
    char *err, size_t errlen);
int mp_client(const struct mp_cfg *cfg, const char *type, const char *addr, size_t size,
    enum mp_test test, struct mp_result *r);

/* msgperf_report.c */
const char *mp_test_name(enum mp_test t);
void mp_report_begin(const struct mp_cfg *cfg);
void mp_report_result(const struct mp_cfg *cfg, const struct mp_result *r);
void mp_report_end(const struct mp_cfg *cfg, const struct mp_result *rs, int n);

#endif
