/* mmc.c: thttpd's mmap cache for bodies sent in SCTP messages: each file mapped once and shared
 * by every response, unused mappings kept in LRU order within a byte bound, a changed file
 * (size or mtime) mapped afresh; a file truncated under a mapping is caught (SIGBUS). */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "httpd.h"
#include "mmc.h"
#include "resp.h"
#include "tp.h"

#define MMC_BUCKETS 1024

struct mmc_ent {
	struct mmc_ent *hnext;          /* hash chain (not when stale) */
	struct mmc_ent *prev, *next;    /* the unused ones, least recently used first */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *addr;
	unsigned refs;
	int hashed;
	uint64_t unused_since;          /* us, when refs fell to 0 */
};

static struct {
	struct mmc_ent *hash[MMC_BUCKETS];
	struct mmc_ent *lru_head, *lru_tail;
	uint64_t mapped, max;
	int sigbus_set;
} mmc;

static sigjmp_buf mmc_jmp;
static volatile sig_atomic_t mmc_copying;

static size_t
mmc_bucket(dev_t dev, ino_t ino)
{
	return (size_t)(((uint64_t)ino * 2654435761u) ^ (uint64_t)dev) % MMC_BUCKETS;
}

static void
mmc_lru_unlink(struct mmc_ent *e)
{
	if (e->prev != NULL)
		e->prev->next = e->next;
	else if (mmc.lru_head == e)
		mmc.lru_head = e->next;
	if (e->next != NULL)
		e->next->prev = e->prev;
	else if (mmc.lru_tail == e)
		mmc.lru_tail = e->prev;
	e->prev = e->next = NULL;
}

static void
mmc_unhash(struct mmc_ent *e)
{
	struct mmc_ent **pp;

	if (!e->hashed)
		return;
	for (pp = &mmc.hash[mmc_bucket(e->dev, e->ino)]; *pp != NULL; pp = &(*pp)->hnext)
		if (*pp == e) {
			*pp = e->hnext;
			break;
		}
	e->hashed = 0;
}

static void
mmc_unmap(struct mmc_ent *e)
{
	mmc_unhash(e);
	mmc_lru_unlink(e);
	munmap(e->addr, (size_t)e->size);
	mmc.mapped -= (uint64_t)e->size;
	free(e);
}

/* Room for need more bytes: unused mappings go, least recently used first. */
static int
mmc_room(uint64_t need)
{
	while (mmc.mapped + need > mmc.max && mmc.lru_head != NULL)
		mmc_unmap(mmc.lru_head);
	return mmc.mapped + need <= mmc.max ? 0 : -1;
}

static void
mmc_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (mmc_copying)
		siglongjmp(mmc_jmp, 1);
	signal(sig, SIG_DFL); /* not ours: die of it as before */
	raise(sig);
}

void
mmc_init(uint64_t max)
{
	struct sigaction sa;

	mmc.max = max;
	if (max == 0 || mmc.sigbus_set)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = mmc_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	mmc.sigbus_set = 1;
}

/* The mapping of the file fd/st is, taking a reference; NULL: read it instead. */
static struct mmc_ent *
mmc_get(int fd, const struct stat *st)
{
	struct mmc_ent *e;
	size_t b = mmc_bucket(st->st_dev, st->st_ino);
	void *addr;

	if (mmc.max == 0 || st->st_size <= 0 || (uint64_t)st->st_size > mmc.max / 2)
		return NULL;
	for (e = mmc.hash[b]; e != NULL; e = e->hnext)
		if (e->dev == st->st_dev && e->ino == st->st_ino)
			break;
	if (e != NULL && (e->size != st->st_size || e->mtime.tv_sec != st->st_mtim.tv_sec ||
	    e->mtime.tv_nsec != st->st_mtim.tv_nsec)) {
		/* Changed on disk: the new content gets a mapping of its own; responses still
		 * sending from the old one keep it until they are done. */
		mmc_unhash(e);
		if (e->refs == 0)
			mmc_unmap(e);
		e = NULL;
	}
	if (e != NULL) {
		if (e->refs++ == 0)
			mmc_lru_unlink(e);
		return e;
	}
	if (mmc_room((uint64_t)st->st_size) == -1)
		return NULL;
	addr = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		return NULL;
	if ((e = calloc(1, sizeof(*e))) == NULL) {
		munmap(addr, (size_t)st->st_size);
		return NULL;
	}
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->size = st->st_size;
	e->mtime = st->st_mtim;
	e->addr = addr;
	e->refs = 1;
	e->hashed = 1;
	e->hnext = mmc.hash[b];
	mmc.hash[b] = e;
	mmc.mapped += (uint64_t)e->size;
	return e;
}

static void
mmc_put(struct mmc_ent *e)
{
	if (e == NULL || --e->refs > 0)
		return;
	if (!e->hashed || mmc.mapped > mmc.max) {
		mmc_unmap(e);
		return;
	}
	e->unused_since = httpd_now_us();
	e->prev = mmc.lru_tail;
	e->next = NULL;
	if (mmc.lru_tail != NULL)
		mmc.lru_tail->next = e;
	else
		mmc.lru_head = e;
	mmc.lru_tail = e;
}

/* len bytes at off into dst; -1 when the file was truncated under the mapping (SIGBUS). */
static int
mmc_copy(struct mmc_ent *e, void *dst, off_t off, size_t len)
{
	if (off < 0 || (uint64_t)off + len > (uint64_t)e->size)
		return -1;
	if (sigsetjmp(mmc_jmp, 1) != 0) {
		mmc_copying = 0;
		mmc_unhash(e); /* no new response takes it; the next one maps the file afresh */
		return -1;
	}
	mmc_copying = 1;
	memcpy(dst, e->addr + off, len);
	mmc_copying = 0;
	return 0;
}

/* The body source: bytes of the file from its mapping, copied into the message (or, to a stream
 * transport, into its scratch buffer first). */
struct mmc_src {
	struct resp_src src;
	struct mmc_ent *e;
	int fd;
	off_t off, end;
};

static int
mmc_pull(struct resp_src *src, struct resp *r, struct resp_sink *k, size_t max)
{
	struct mmc_src *m = (struct mmc_src *)src;
	size_t want = max, n = 0;
	char *p;
	int rc;

	if (m->off >= m->end)
		return RESP_END;
	if ((off_t)want > m->end - m->off)
		want = (size_t)(m->end - m->off);
	p = resp_sink_space(k, &want);
	if (mmc_copy(m->e, p, m->off, want) == -1)
		return RESP_ABORT; /* the file shrank: the promised length cannot be kept */
	if ((rc = resp_sink_commit(k, want, &n)) != TP_OK)
		return rc == TP_RETRY ? RESP_RETRY : RESP_ERROR;
	m->off += (off_t)n;
	k->moved += n;
	r->body_sent += n;
	return m->off >= m->end ? RESP_END : RESP_MORE;
}

static uint64_t
mmc_left(const struct resp_src *src)
{
	const struct mmc_src *m = (const struct mmc_src *)src;

	return (uint64_t)(m->end - m->off);
}

static void
mmc_src_free(struct resp_src *src)
{
	struct mmc_src *m = (struct mmc_src *)src;

	mmc_put(m->e);
	close(m->fd);
	free(m);
}

static const struct resp_src_ops mmc_ops = {
	.pull = mmc_pull, .left = mmc_left, .free = mmc_src_free,
};

struct resp_src *
mmc_src(int fd, const struct stat *st, off_t off, off_t end)
{
	struct mmc_src *m;
	struct mmc_ent *e = mmc_get(fd, st);

	if (e == NULL)
		return NULL;
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		mmc_put(e);
		return NULL;
	}
	m->src.ops = &mmc_ops;
	m->e = e;
	m->fd = fd;
	m->off = off;
	m->end = end;
	return &m->src;
}

/* Unused mappings older than age_us go (0: all of them): a file deleted or replaced on disk
 * must not keep its space, nor its old content, mapped for ever. */
void
mmc_expire(uint64_t age_us)
{
	uint64_t now = httpd_now_us();

	while (mmc.lru_head != NULL && now - mmc.lru_head->unused_since >= age_us)
		mmc_unmap(mmc.lru_head);
}

void
mmc_stats(uint64_t *bytes, unsigned *files)
{
	struct mmc_ent *e;
	size_t i;

	*bytes = mmc.mapped;
	*files = 0;
	for (i = 0; i < MMC_BUCKETS; i++)
		for (e = mmc.hash[i]; e != NULL; e = e->hnext)
			(*files)++;
}

void
mmc_free_all(void)
{
	size_t i;

	while (mmc.lru_head != NULL)
		mmc_unmap(mmc.lru_head);
	for (i = 0; i < MMC_BUCKETS; i++)
		while (mmc.hash[i] != NULL) {
			struct mmc_ent *e = mmc.hash[i];
			if (e->refs > 0) {
				mmc_unhash(e); /* freed by its last mmc_put */
				continue;
			}
			mmc_unmap(e);
		}
}
