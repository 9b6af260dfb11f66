/* resp.c: the response object: its head from memory, then its body by one pull operation from
 * its source, into a stream transport or a message being built; the file source. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resp.h"
#include "tp.h"

#define RESP_STREAM_MAX (1u << 20) /* bytes per pull to a stream transport (one sendfile) */

struct resp *
resp_new(void)
{
	return calloc(1, sizeof(struct resp));
}

void
resp_free(struct resp *r)
{
	if (r == NULL)
		return;
	if (r->src != NULL)
		r->src->ops->free(r->src);
	free(r->buf);
	free(r->log);
	free(r->redirect);
	free(r);
}

void
resp_wake(struct resp *r)
{
	if (r->wake != NULL)
		r->wake(r, r->wake_arg);
}

int
resp_sink_put(struct resp_sink *k, const void *p, size_t len, size_t *n)
{
	if (k->tc != NULL)
		return tp_send(k->tc, p, len, NULL, n);
	*n = len < k->cap - k->len ? len : k->cap - k->len;
	memcpy(k->buf + k->len, p, *n);
	k->len += *n;
	return TP_OK;
}

char *
resp_sink_space(struct resp_sink *k, size_t *want)
{
	size_t room = k->tc != NULL ? k->scratch_cap : k->cap - k->len;

	if (*want > room)
		*want = room;
	return k->tc != NULL ? k->scratch : k->buf + k->len;
}

int
resp_sink_commit(struct resp_sink *k, size_t got, size_t *n)
{
	if (k->tc != NULL)
		return tp_send(k->tc, k->scratch, got, NULL, n);
	k->len += got;
	*n = got;
	return TP_OK;
}

/*
 * The next bytes of r to k: the rest of its head, then its body. To a stream transport one send
 * a pull; a message takes what fits. Bytes gathered before a source fails still go: the
 * failure is told by the next pull.
 */
int
resp_pull(struct resp *r, struct resp_sink *k)
{
	size_t n = 0, max;
	int rc;

	k->moved = 0;
	k->wait_us = 0;
	if (r->off < r->len) {
		rc = resp_sink_put(k, r->buf + r->off, r->len - r->off, &n);
		if (rc != TP_OK)
			return rc == TP_RETRY ? RESP_RETRY : RESP_ERROR;
		r->off += n;
		k->moved += n;
		if (k->tc != NULL || r->off < r->len)
			return r->off == r->len && r->src == NULL ? RESP_END : RESP_MORE;
	}
	if (r->src == NULL)
		return RESP_END;
	max = k->tc != NULL ? RESP_STREAM_MAX : k->cap - k->len;
	if (max == 0)
		return RESP_MORE;
	rc = r->src->ops->pull(r->src, r, k, max);
	if (rc == RESP_ABORT && k->moved > 0)
		return RESP_MORE;
	return rc;
}

/* --- the file source ---------------------------------------------------------------------- */

struct resp_file {
	struct resp_src src;
	int fd;
	off_t off, end;
};

static int
resp_file_pull(struct resp_src *src, struct resp *r, struct resp_sink *k, size_t max)
{
	struct resp_file *f = (struct resp_file *)src;
	size_t want = max, n = 0;
	ssize_t got;
	int rc;

	if (f->off >= f->end)
		return RESP_END;
	if ((off_t)want > f->end - f->off)
		want = (size_t)(f->end - f->off);
	if (k->tc != NULL && k->sendfile) {
		rc = tp_sendfile(k->tc, f->fd, &f->off, want, &n);
		if (rc == TP_OK && n == 0)
			return RESP_ABORT; /* the file shrank: the promised length cannot be kept */
	} else {
		char *p = resp_sink_space(k, &want);
		if ((got = pread(f->fd, p, want, f->off)) <= 0)
			return RESP_ABORT;
		rc = resp_sink_commit(k, (size_t)got, &n);
		f->off += (off_t)n;
	}
	if (rc != TP_OK)
		return rc == TP_RETRY ? RESP_RETRY : RESP_ERROR;
	k->moved += n;
	r->body_sent += n;
	return f->off >= f->end ? RESP_END : RESP_MORE;
}

static uint64_t
resp_file_left(const struct resp_src *src)
{
	const struct resp_file *f = (const struct resp_file *)src;

	return (uint64_t)(f->end - f->off);
}

static void
resp_file_free(struct resp_src *src)
{
	struct resp_file *f = (struct resp_file *)src;

	close(f->fd);
	free(f);
}

static const struct resp_src_ops resp_file_ops = {
	.pull = resp_file_pull, .left = resp_file_left, .free = resp_file_free,
};

struct resp_src *
resp_file_src(int fd, off_t off, off_t end)
{
	struct resp_file *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	f->src.ops = &resp_file_ops;
	f->fd = fd;
	f->off = off;
	f->end = end;
	return &f->src;
}
