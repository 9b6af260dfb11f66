/* wsesslog.c: httperf's --wsesslog session file: sessions of bursts of requests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

/* The value after name= at *pp: quoted ('...' or "...", with \n and \<newline>) or up to the
 * next blank; the line ends at end. A malloc'ed string, NULL on error. */
static char *
wlog_value(const char **pp, const char *end, size_t *lenp)
{
	const char *p = *pp;
	char q = 0, *v, *o;

	if ((v = malloc((size_t)(end - p) + 1)) == NULL)
		return NULL;
	o = v;
	if (p < end && (*p == '\'' || *p == '"'))
		q = *p++;
	while (p < end) {
		if (q != 0 && *p == q) {
			p++;
			q = 0;
			break;
		}
		if (q == 0 && (*p == ' ' || *p == '\t'))
			break;
		if (*p == '\\' && p + 1 < end && p[1] == 'n') {
			*o++ = '\n';
			p += 2;
			continue;
		}
		if (*p == '\\' && p + 1 < end && p[1] == '\n') {
			*o++ = '\n';
			p += 2;
			continue;
		}
		*o++ = *p++;
	}
	if (q != 0) {
		free(v);
		return NULL;
	}
	*o = '\0';
	*lenp = (size_t)(o - v);
	*pp = p;
	return v;
}

static void *
wlog_grow(void *a, size_t n, size_t size)
{
	/* Doubling at powers of two: n elements in use, one more wanted. */
	if (n != 0 && (n & (n - 1)) != 0)
		return a;
	return realloc(a, (n ? 2 * n : 1) * size);
}

/* One request line (the leading blank, if any, already told whether it starts a burst). */
static int
wlog_line(struct wlog *w, const char *p, const char *end, int lead, char *err, size_t errlen,
    unsigned lineno)
{
	struct wlog_sess *s;
	struct wlog_burst *b;
	struct wlog_req *r;
	const char *u;
	void *g;

	if (w->n == 0 || w->s[w->n - 1].n == 0)
		lead = 1; /* an indented first line still starts the session's first burst */
	s = &w->s[w->n - 1];
	if (lead) {
		if ((g = wlog_grow(s->b, s->n, sizeof(*s->b))) == NULL)
			goto nomem;
		s->b = g;
		b = &s->b[s->n++];
		memset(b, 0, sizeof(*b));
		b->think = -1;
	}
	b = &s->b[s->n - 1];
	if ((g = wlog_grow(b->r, b->n, sizeof(*b->r))) == NULL)
		goto nomem;
	b->r = g;
	r = &b->r[b->n++];
	memset(r, 0, sizeof(*r));
	s->calls++;
	u = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	if ((r->uri = strndup(u, (size_t)(p - u))) == NULL)
		goto nomem;
	for (;;) {
		char *v;
		size_t vl;
		const char *name;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		name = p;
		while (p < end && *p != '=' && *p != ' ' && *p != '\t')
			p++;
		if (p >= end || *p != '=') {
			tp_seterr(err, errlen, "line %u: expected name=value", lineno);
			return -1;
		}
		p++;
		if ((v = wlog_value(&p, end, &vl)) == NULL) {
			tp_seterr(err, errlen, "line %u: unterminated quote", lineno);
			return -1;
		}
		if (strncmp(name, "method=", 7) == 0) {
			free(r->method);
			r->method = v;
		} else if (strncmp(name, "contents=", 9) == 0) {
			free(r->contents);
			r->contents = v;
			r->contents_len = vl;
		} else if (strncmp(name, "think=", 6) == 0) {
			char *e;

			errno = 0;
			b->think = strtod(v, &e);
			if (errno != 0 || *e != '\0' || b->think < 0) {
				tp_seterr(err, errlen, "line %u: bad think time '%s'", lineno, v);
				free(v);
				return -1;
			}
			free(v);
		} else {
			tp_seterr(err, errlen, "line %u: unknown attribute '%.*s'", lineno,
			    (int)(strchr(name, '=') - name), name);
			free(v);
			return -1;
		}
	}
	return 0;
nomem:
	tp_seterr(err, errlen, "out of memory");
	return -1;
}

int
wlog_load(struct wlog *w, const char *file, char *err, size_t errlen)
{
	FILE *f;
	char *text = NULL, *line, *next, *end;
	size_t len = 0, cap = 0, n;
	unsigned lineno = 0;
	int blank = 1;
	void *g;

	memset(w, 0, sizeof(*w));
	if ((f = fopen(file, "r")) == NULL) {
		tp_seterr(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	do {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			if ((g = realloc(text, cap)) == NULL) {
				fclose(f);
				free(text);
				tp_seterr(err, errlen, "out of memory");
				return -1;
			}
			text = g;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	text[len] = '\0';
	/* A backslash before a newline continues the line (inside contents='...'). */
	for (line = text; line < text + len; line = next) {
		for (end = line; end < text + len && (*end != '\n' || (end > line && end[-1] == '\\'));
		    end++)
			;
		next = end < text + len ? end + 1 : end;
		lineno++;
		if (end > line && end[-1] == '\r')
			end--;
		if (*line == '#')
			continue;
		{
			const char *p = line;

			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p == end) {
				blank = 1;
				continue;
			}
			if (blank) {
				if ((g = wlog_grow(w->s, w->n, sizeof(*w->s))) == NULL)
					goto nomem;
				w->s = g;
				memset(&w->s[w->n++], 0, sizeof(*w->s));
				blank = 0;
			}
			if (wlog_line(w, p, end, p == line, err, errlen, lineno) == -1)
				goto bad;
		}
	}
	free(text);
	if (w->n == 0) {
		tp_seterr(err, errlen, "%s: no sessions", file);
		return -1;
	}
	return 0;
nomem:
	tp_seterr(err, errlen, "out of memory");
bad:
	free(text);
	wlog_free(w);
	return -1;
}

void
wlog_free(struct wlog *w)
{
	size_t i, j, k;

	if (w == NULL)
		return;
	for (i = 0; i < w->n; i++) {
		for (j = 0; j < w->s[i].n; j++) {
			for (k = 0; k < w->s[i].b[j].n; k++) {
				struct wlog_req *r = &w->s[i].b[j].r[k];

				free(r->uri);
				free(r->method);
				free(r->contents);
				free(r->req);
			}
			free(w->s[i].b[j].r);
		}
		free(w->s[i].b);
	}
	free(w->s);
	memset(w, 0, sizeof(*w));
}
