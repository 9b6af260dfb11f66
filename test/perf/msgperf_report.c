/* msgperf_report.c: print results as the paper's table (rows: protocols, columns: sizes) or CSV. */
#include <stdio.h>
#include <string.h>

#include "msgperf.h"

const char *
mp_test_name(enum mp_test t)
{
	return t == MP_THROUGHPUT ? "throughput" : t == MP_ONEWAY ? "oneway" : "latency";
}

void
mp_report_begin(const struct mp_cfg *cfg)
{
	if (cfg->csv)
		printf("test,protocol,size,value,unit,messages,p50_us,p99_us,error\n");
}

void
mp_report_result(const struct mp_cfg *cfg, const struct mp_result *r)
{
	if (cfg->csv) {
		printf("%s,%s,%zu,%.1f,%s,%llu,%.1f,%.1f,%s\n", mp_test_name(r->test), r->type,
		    r->size, r->test != MP_LATENCY ? r->kbps : r->lat_mean_us,
		    r->test != MP_LATENCY ? "kbit/s" : "us", (unsigned long long)r->messages,
		    r->lat_p50_us, r->lat_p99_us, r->err);
		fflush(stdout);
	} else if (!cfg->quiet) {
		if (r->err[0])
			fprintf(stderr, "msgperf: %s %zu B %s: %s\n", r->type, r->size,
			    mp_test_name(r->test), r->err);
	}
}

static const struct mp_result *
mp_find(const struct mp_result *rs, int n, const char *type, size_t size, enum mp_test t)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(rs[i].type, type) == 0 && rs[i].size == size && rs[i].test == t)
			return &rs[i];
	return NULL;
}

static void
mp_table(const struct mp_cfg *cfg, const struct mp_result *rs, int n, enum mp_test t)
{
	int i, j;

	printf("%s\n", t == MP_THROUGHPUT ?
	    "Throughput (kbit/s per direction, both directions loaded):" : t == MP_ONEWAY ?
	    "One-way throughput (kbit/s, server to client):" :
	    "Latency (us, request/response round trip, mean):");
	printf("| protocol |");
	for (j = 0; j < cfg->nsizes; j++)
		printf(" %zu |", cfg->sizes[j]);
	printf("\n|---|");
	for (j = 0; j < cfg->nsizes; j++)
		printf("---|");
	printf("\n");
	for (i = 0; i < cfg->ntypes; i++) {
		int any = 0;
		for (j = 0; j < cfg->nsizes; j++)
			any |= mp_find(rs, n, cfg->types[i], cfg->sizes[j], t) != NULL;
		if (!any)
			continue;
		printf("| %s |", cfg->types[i]);
		for (j = 0; j < cfg->nsizes; j++) {
			const struct mp_result *r = mp_find(rs, n, cfg->types[i], cfg->sizes[j], t);
			if (r == NULL || r->err[0])
				printf(" - |");
			else if (t != MP_LATENCY)
				printf(" %.0f |", r->kbps);
			else
				printf(" %.1f |", r->lat_mean_us);
		}
		printf("\n");
	}
}

void
mp_report_end(const struct mp_cfg *cfg, const struct mp_result *rs, int n)
{
	static const enum mp_test order[] = { MP_THROUGHPUT, MP_LATENCY, MP_ONEWAY };
	int i, printed = 0;

	if (cfg->csv)
		return;
	for (i = 0; i < 3; i++) {
		if (!(cfg->tests & order[i]))
			continue;
		if (printed++)
			printf("\n");
		mp_table(cfg, rs, n, order[i]);
	}
	fflush(stdout);
}
