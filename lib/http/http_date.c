/* http_date.c: HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, RFC 850, asctime in; IMF-fixdate out. */
#include <stdio.h>
#include <string.h>

#include "http.h"

static const char wkday[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char *const weekday[7] = {
	"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"
};
static const char month[12][4] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};

/*
 * Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms):
 * our own arithmetic, so neither TZ nor timegm() is involved.
 */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* Exactly n digits. */
static int
digits(const char *s, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

static int
find_name(const char *s, size_t len, const char *const *names, size_t nnames)
{
	size_t i;

	for (i = 0; i < nnames; i++)
		if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return (int)i;
	return -1;
}

static int
find_short(const char *s, const char (*names)[4], int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (memcmp(names[i], s, 3) == 0)
			return i;
	return -1;
}

/* "HH:MM:SS"; a leap second (60) is allowed by the grammar and rolls into the next minute. */
static int
parse_time(const char *s, int *h, int *mi, int *sec)
{
	if (digits(s, 2, h) == -1 || s[2] != ':' || digits(s + 3, 2, mi) == -1 || s[5] != ':' ||
	    digits(s + 6, 2, sec) == -1)
		return -1;
	return *h > 23 || *mi > 59 || *sec > 60 ? -1 : 0;
}

static int
days_in_month(int64_t y, int m)
{
	static const int dm[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 1 && leap ? 29 : dm[m];
}

static int
make_time(int64_t y, int mon, int d, int h, int mi, int sec, time_t *t)
{
	int64_t v;

	if (mon < 0 || d < 1 || d > days_in_month(y, mon))
		return -1;
	v = days_from_civil(y, (unsigned)mon + 1, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec;
	if ((int64_t)(time_t)v != v)
		return -1; /* a 32-bit time_t */
	*t = (time_t)v;
	return 0;
}

/*
 * A two-digit year is the one nearest now that is not more than 50 years ahead
 * (RFC 9110 §5.6.7).
 */
static int64_t
full_year(int yy)
{
	int64_t cy, y;
	unsigned m, d;

	civil_from_days((int64_t)time(NULL) / 86400, &cy, &m, &d);
	y = cy - cy % 100 + yy;
	if (y > cy + 50)
		y -= 100;
	else if (y <= cy - 50)
		y += 100;
	return y;
}

/*
 * Each format exactly as the grammar has it, case included ("HTTP-date is case sensitive");
 * the day name must be a day name but need not match the date. 0 with *t, or -1.
 */
int
http_date_parse(const char *s, size_t len, time_t *t)
{
	const char *comma;
	int d, mon, y, h, mi, sec;

	if (len == 29 && s[3] == ',') {
		/* IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" */
		if (find_short(s, wkday, 7) < 0 || s[4] != ' ' || digits(s + 5, 2, &d) == -1 ||
		    s[7] != ' ' || (mon = find_short(s + 8, month, 12)) < 0 || s[11] != ' ' ||
		    digits(s + 12, 4, &y) == -1 || s[16] != ' ' ||
		    parse_time(s + 17, &h, &mi, &sec) == -1 || memcmp(s + 25, " GMT", 4) != 0)
			return -1;
		return make_time(y, mon, d, h, mi, sec, t);
	}
	if (len == 24 && s[3] == ' ') {
		/* asctime: "Sun Nov  6 08:49:37 1994" */
		if (find_short(s, wkday, 7) < 0 || (mon = find_short(s + 4, month, 12)) < 0 ||
		    s[7] != ' ' || parse_time(s + 11, &h, &mi, &sec) == -1 || s[10] != ' ' ||
		    s[19] != ' ' || digits(s + 20, 4, &y) == -1)
			return -1;
		if (s[8] == ' ') {
			if (digits(s + 9, 1, &d) == -1)
				return -1;
		} else if (digits(s + 8, 2, &d) == -1) {
			return -1;
		}
		return make_time(y, mon, d, h, mi, sec, t);
	}
	/* rfc850-date: "Sunday, 06-Nov-94 08:49:37 GMT" */
	if ((comma = memchr(s, ',', len)) == NULL || s + len - comma != 24 ||
	    find_name(s, (size_t)(comma - s), weekday, 7) < 0)
		return -1;
	s = comma;
	if (s[1] != ' ' || digits(s + 2, 2, &d) == -1 || s[4] != '-' ||
	    (mon = find_short(s + 5, month, 12)) < 0 || s[8] != '-' || digits(s + 9, 2, &y) == -1 ||
	    s[11] != ' ' || parse_time(s + 12, &h, &mi, &sec) == -1 ||
	    memcmp(s + 20, " GMT", 4) != 0)
		return -1;
	return make_time(full_year(y), mon, d, h, mi, sec, t);
}

/* The last dates formatted, per thread: a server formats the same few seconds again and again
 * (Date, a file's Last-Modified, Expires), and snprintf took about 3,000 instructions a call, 2 %
 * of a request's on an association of its own (docs/usrsctp-costs.md). */
#define HTTP_DATE_CACHE 4
static _Thread_local struct {
	time_t t;
	int ok;
	char s[HTTP_DATE_LEN + 1];
} http_date_cache[HTTP_DATE_CACHE];
static _Thread_local unsigned http_date_next;

/* IMF-fixdate of t into buf (29 bytes and a NUL): 29, or 0 when buf is short or the year
 * does not have four digits. */
size_t
http_date_format(time_t t, char *buf, size_t size)
{
	int64_t v = (int64_t)t, days, secs, y;
	unsigned m, d, i;
	int wd;

	if (size < HTTP_DATE_LEN + 1)
		return 0;
	for (i = 0; i < HTTP_DATE_CACHE; i++)
		if (http_date_cache[i].ok && http_date_cache[i].t == t) {
			memcpy(buf, http_date_cache[i].s, HTTP_DATE_LEN + 1);
			return HTTP_DATE_LEN;
		}
	days = v / 86400;
	secs = v % 86400;
	if (secs < 0) {
		secs += 86400;
		days--;
	}
	civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999)
		return 0;
	wd = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday */
	snprintf(buf, size, "%s, %02u %s %04d %02d:%02d:%02d GMT", wkday[wd], d, month[m - 1],
	    (int)y, (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
	i = http_date_next++ % HTTP_DATE_CACHE;
	http_date_cache[i].t = t;
	http_date_cache[i].ok = 1;
	memcpy(http_date_cache[i].s, buf, HTTP_DATE_LEN + 1);
	return HTTP_DATE_LEN;
}
