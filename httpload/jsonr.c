/* jsonr.c: a small JSON reader (RFC 8259's grammar, numbers handed over as text), enough for
 * httpload merge to read httpload's own --json reports back; bad input: an error, no crash. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "load.h"

#define JSONR_PATH 256
#define JSONR_DEPTH 32

struct jsonr {
	const char *p;
	jsonr_cb cb;
	void *ctx;
	char path[JSONR_PATH];
	size_t idx[JSONR_MAX_IDX], nidx;
	unsigned depth;
	char *err;
	size_t errlen;
};

static int jsonr_value(struct jsonr *j);

static void
jsonr_ws(struct jsonr *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static int
jsonr_fail(struct jsonr *j, const char *what)
{
	snprintf(j->err, j->errlen, "JSON: %s at '%.20s'", what, j->p);
	return -1;
}

/* A string; its text (escapes kept as they are) into BUF when BUF is not NULL. */
static int
jsonr_string(struct jsonr *j, char *buf, size_t cap)
{
	size_t n = 0;

	if (*j->p != '"')
		return jsonr_fail(j, "string expected");
	for (j->p++; *j->p != '"'; j->p++) {
		if (*j->p == '\0' || (unsigned char)*j->p < 0x20)
			return jsonr_fail(j, "unterminated string");
		if (*j->p == '\\' && j->p[1] != '\0') {
			if (buf != NULL && n + 1 < cap)
				buf[n++] = *j->p;
			j->p++;
		}
		if (buf != NULL && n + 1 < cap)
			buf[n++] = *j->p;
	}
	j->p++;
	if (buf != NULL)
		buf[n] = '\0';
	return 0;
}

static int
jsonr_number(struct jsonr *j)
{
	char tok[64];
	size_t n = strspn(j->p, "0123456789+-.eE");

	if (n == 0 || n >= sizeof(tok) || !(isdigit((unsigned char)*j->p) || *j->p == '-'))
		return jsonr_fail(j, "bad value");
	memcpy(tok, j->p, n);
	tok[n] = '\0';
	j->p += n;
	return j->cb(j->ctx, j->path, j->idx, j->nidx, tok, j->err, j->errlen);
}

static int
jsonr_object(struct jsonr *j)
{
	char key[64];
	size_t len = strlen(j->path);

	j->p++;
	jsonr_ws(j);
	if (*j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		jsonr_ws(j);
		if (jsonr_string(j, key, sizeof(key)) == -1)
			return -1;
		jsonr_ws(j);
		if (*j->p != ':')
			return jsonr_fail(j, "':' expected");
		j->p++;
		if (len + 1 + strlen(key) >= sizeof(j->path))
			return jsonr_fail(j, "keys nested too deep");
		snprintf(j->path + len, sizeof(j->path) - len, "%s%s", len ? "." : "", key);
		if (jsonr_value(j) == -1)
			return -1;
		j->path[len] = '\0';
		jsonr_ws(j);
		if (*j->p == '}') {
			j->p++;
			return 0;
		}
		if (*j->p != ',')
			return jsonr_fail(j, "',' or '}' expected");
		j->p++;
	}
}

static int
jsonr_array(struct jsonr *j)
{
	size_t k = j->nidx;

	if (k >= JSONR_MAX_IDX)
		return jsonr_fail(j, "arrays nested too deep");
	j->p++;
	jsonr_ws(j);
	if (*j->p == ']') {
		j->p++;
		return 0;
	}
	j->nidx = k + 1;
	for (j->idx[k] = 0;; j->idx[k]++) {
		if (jsonr_value(j) == -1)
			return -1;
		jsonr_ws(j);
		if (*j->p == ']')
			break;
		if (*j->p != ',')
			return jsonr_fail(j, "',' or ']' expected");
		j->p++;
	}
	j->p++;
	j->nidx = k;
	return 0;
}

static int
jsonr_value(struct jsonr *j)
{
	int rc;

	jsonr_ws(j);
	if (j->depth >= JSONR_DEPTH)
		return jsonr_fail(j, "nested too deep");
	j->depth++;
	if (*j->p == '{')
		rc = jsonr_object(j);
	else if (*j->p == '[')
		rc = jsonr_array(j);
	else if (*j->p == '"')
		rc = jsonr_string(j, NULL, 0);
	else if (strncmp(j->p, "true", 4) == 0 || strncmp(j->p, "null", 4) == 0)
		rc = (j->p += 4, 0);
	else if (strncmp(j->p, "false", 5) == 0)
		rc = (j->p += 5, 0);
	else
		rc = jsonr_number(j);
	j->depth--;
	return rc;
}

int
jsonr_walk(const char *text, jsonr_cb cb, void *ctx, char *err, size_t errlen)
{
	struct jsonr j;

	memset(&j, 0, sizeof(j));
	j.p = text;
	j.cb = cb;
	j.ctx = ctx;
	j.err = err;
	j.errlen = errlen;
	jsonr_ws(&j);
	if (*j.p != '{')
		return jsonr_fail(&j, "not a JSON object");
	if (jsonr_value(&j) == -1)
		return -1;
	jsonr_ws(&j);
	if (*j.p != '\0')
		return jsonr_fail(&j, "text after the object");
	return 0;
}
