/* merge.c: httpload merge: several clients' --json reports (httpload --client I/N on several
 * hosts at once) as one report: counters and histograms added bucket by bucket, so the merged
 * percentiles are those of all the calls together, not an average of the clients'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

static const char merge_usage[] =
"usage: httpload merge [--json | --csv] FILE...\n"
"Merge httpload --json reports (one per file, '-': standard input) into one report, as if\n"
"one client had made every call: counts, bytes, statuses and errors summed, latency and\n"
"connection-time histograms merged bucket by bucket (percentiles of all the calls), the\n"
"duration the longest client's, CPU time summed; the rates are the totals over that\n"
"duration, and the sum of the clients' own rates is given beside them.\n"
"  --json | --csv   a machine-readable report (--json's can be merged again)\n"
"exit status: 0 no error counted, 1 some error counted, 2 bad usage or a bad report\n";

/* The file's text, NUL-terminated (NULL: see errno) */
static char *
merge_slurp(const char *name)
{
	FILE *f = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			if ((nb = realloc(buf, cap)) == NULL) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0) {
			if (ferror(f)) {
				free(buf);
				buf = NULL;
			} else {
				buf[len] = '\0';
			}
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	return buf;
}

/* One client's report into TOTAL; -1 with ERR on bad input. */
static int
merge_one(struct load_stats *total, const char *name, char *err, size_t errlen)
{
	struct load_stats one;
	char *text = NULL;
	double d;
	int rc = -1;

	if (report_stats_init(&one) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((text = merge_slurp(name)) == NULL) {
		snprintf(err, errlen, "cannot read it");
		goto out;
	}
	if (report_raw_read(text, &one, err, errlen) == -1)
		goto out;
	report_stats_merge(total, &one);
	if (one.duration > total->duration)
		total->duration = one.duration;
	total->user += one.user;
	total->sys += one.sys;
	if (one.clients > 0) {
		total->clients += one.clients;
		total->client_rates[0] += one.client_rates[0];
		total->client_rates[1] += one.client_rates[1];
		total->client_rates[2] += one.client_rates[2];
	} else {
		d = one.duration > 0 ? one.duration : 1e-9;
		total->clients++;
		total->client_rates[0] += (double)one.conns_issued / d;
		total->client_rates[1] += (double)one.sent / d;
		total->client_rates[2] += (double)(one.status[1] + one.status[2] + one.status[3] +
		    one.status[4] + one.status[5]) / d;
	}
	rc = 0;
out:
	free(text);
	report_stats_free(&one);
	return rc;
}

int
merge_main(int argc, char **argv)
{
	struct load_stats total;
	char err[256];
	int i, json = 0, csv = 0, nfiles = 0, rc = 2;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--csv") == 0)
			csv = 1;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return fputs(merge_usage, stdout), 0;
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			return fprintf(stderr, "httpload merge: unknown option %s\n%s", argv[i],
			    merge_usage), 2;
		else
			nfiles++;
	}
	if (nfiles == 0 || (json && csv)) {
		fputs(merge_usage, stderr);
		return 2;
	}
	if (report_stats_init(&total) == -1) {
		fprintf(stderr, "httpload merge: out of memory\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1] != '\0')
			continue;
		if (merge_one(&total, argv[i], err, sizeof(err)) == -1) {
			fprintf(stderr, "httpload merge: %s: %s\n", argv[i], err);
			goto out;
		}
	}
	if (json) {
		report_json(stdout, &total);
	} else if (csv) {
		report_csv(stdout, &total, 1);
	} else {
		printf("Merged: %llu clients; the sum of their own rates: conn %.1f/s "
		    "request %.1f/s reply %.1f/s\n", (unsigned long long)total.clients,
		    total.client_rates[0], total.client_rates[1], total.client_rates[2]);
		printf("Maximum connect burst length: %llu\n", (unsigned long long)total.max_burst);
		report_httperf(stdout, &total, 1);
		if (total.sess_ok + total.sess_failed > 0)
			report_sessions(stdout, &total);
		report_latency(stdout, &total);
	}
	rc = report_errors_total(&total) > 0 ? 1 : 0;
out:
	report_stats_free(&total);
	return rc;
}
