/* server_file.c: the document root: opening files beneath it, MIME types, directory listings. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "httpd.h"
#include "server_file.h"

static int file_rootfd = -1;
static int file_have_openat2 = 1;
static char file_root_real[PATH_MAX];

int
file_root_open(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	file_root_close();
	if (realpath(dir, file_root_real) == NULL) {
		snprintf(err, errlen, "document root %s: %s", dir, strerror(errno));
		return -1;
	}
	if ((file_rootfd = open(file_root_real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    fstat(file_rootfd, &st) == -1) {
		snprintf(err, errlen, "document root %s: %s", dir, strerror(errno));
		file_root_close();
		return -1;
	}
	return 0;
}

/* After chroot(2) the root is "/" for exec and for the fallback's checks. */
void
file_root_chrooted(void)
{
	snprintf(file_root_real, sizeof(file_root_real), "/");
}

int
file_abs_path(const char *path, char *out, size_t cap)
{
	size_t n = strlen(file_root_real);
	int k;

	if (n == 1)
		n = 0; /* "/" + "/x" */
	k = snprintf(out, cap, "%.*s%s%s", (int)n, file_root_real, path[0] == '/' ? "" : "/", path);
	return k < 0 || (size_t)k >= cap ? -1 : 0;
}

void
file_root_close(void)
{
	if (file_rootfd != -1)
		close(file_rootfd);
	file_rootfd = -1;
}

/*
 * Without openat2 (Linux < 5.6): open by name, then check that what was opened lies beneath
 * base (whose real path is base_real) once every symlink is resolved. Racy against someone
 * renaming inside the docroot, which openat2's RESOLVE_BENEATH is not; kept only as the
 * fallback.
 */
static int
file_open_fallback(int base, const char *base_real, const char *rel, int flags)
{
	char real[PATH_MAX];
	size_t n = strlen(base_real);
	int fd;

	if (chdir(base_real) == -1 || (fd = openat(base, rel, flags)) == -1)
		return -1;
	if (realpath(rel[0] == '\0' ? "." : rel, real) == NULL)
		goto bad;
	if (strncmp(real, base_real, n) != 0 ||
	    (real[n] != '\0' && real[n] != '/' && !(n == 1 && base_real[0] == '/'))) {
		errno = EXDEV;
		goto bad;
	}
	return fd;
bad:
	close(fd);
	return -1;
}

/* rel beneath directory base: a descriptor, or -1 with errno (EXDEV: it would leave base). */
static int
file_open_beneath(int base, const char *base_real, const char *rel, int flags)
{
	int fd = -1;

	if (file_have_openat2) {
		struct open_how how;
		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)flags;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
		fd = (int)syscall(SYS_openat2, base, rel, &how, sizeof(how));
		if (fd == -1 && errno == ENOSYS)
			file_have_openat2 = 0;
	}
	if (!file_have_openat2)
		fd = file_open_fallback(base, base_real, rel, flags);
	return fd;
}

/*
 * -v: the first segment of rel is the host's directory, and the rest is resolved beneath it,
 * not beneath the root: a symlink in one host's tree cannot reach another host's files.
 */
static int
file_open_vhost(const char *rel, int flags)
{
	char host[NAME_MAX + 1], host_abs[PATH_MAX], host_real[PATH_MAX];
	const char *slash = strchr(rel, '/');
	size_t n = slash != NULL ? (size_t)(slash - rel) : strlen(rel);
	int hfd, fd, e;

	if (n == 0 || n > NAME_MAX || strcmp(rel, ".") == 0) {
		errno = ENOENT;
		return -1;
	}
	memcpy(host, rel, n);
	host[n] = '\0';
	rel = slash != NULL && slash[1] != '\0' ? slash + 1 : ".";
	if ((hfd = file_open_beneath(file_rootfd, file_root_real, host,
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if (!file_have_openat2 && (file_abs_path(host, host_abs, sizeof(host_abs)) == -1 ||
	    realpath(host_abs, host_real) == NULL)) {
		close(hfd);
		errno = ENOENT;
		return -1;
	}
	fd = file_open_beneath(hfd, host_real, rel, flags);
	e = errno;
	close(hfd);
	errno = e;
	return fd;
}

/*
 * path is a cleaned request path ("/a/b"), with -v "/HOST/a/b". RESOLVE_BENEATH refuses
 * (EXDEV) any resolution that leaves the root (with -v: the host's directory), through ".."
 * or a symlink, absolute or relative; magic links (/proc/self/fd/...) are refused too.
 * O_NONBLOCK: opening a FIFO must not hang the server.
 */
int
file_open(const char *path, int *fdp, struct stat *st)
{
	const char *rel = path[0] == '/' ? path + 1 : path;
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	int fd;

	*fdp = -1;
	if (rel[0] == '\0')
		rel = ".";
	if (httpd_config()->vhost)
		fd = file_open_vhost(rel, flags);
	else
		fd = file_open_beneath(file_rootfd, file_root_real, rel, flags);
	if (fd == -1) {
		switch (errno) {
		case ENOENT:
		case ENOTDIR:
		case ENAMETOOLONG:
			return 404;
		case EXDEV:
		case ELOOP:
		case EACCES:
		case EPERM:
			return 403;
		case EMFILE:
		case ENFILE:
			return 503;
		default:
			return 500;
		}
	}
	if (fstat(fd, st) == -1) {
		close(fd);
		return 500;
	}
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) {
		close(fd);
		return 403;
	}
	*fdp = fd;
	return 0;
}

static const struct {
	const char *ext;
	const char *type;
} file_types[] = {
	{ "html", "text/html; charset=utf-8" }, { "htm", "text/html; charset=utf-8" },
	{ "css", "text/css" }, { "js", "text/javascript" }, { "mjs", "text/javascript" },
	{ "json", "application/json" }, { "txt", "text/plain; charset=utf-8" },
	{ "md", "text/markdown; charset=utf-8" }, { "csv", "text/csv" },
	{ "xml", "application/xml" }, { "svg", "image/svg+xml" }, { "png", "image/png" },
	{ "jpg", "image/jpeg" }, { "jpeg", "image/jpeg" }, { "gif", "image/gif" },
	{ "webp", "image/webp" }, { "avif", "image/avif" }, { "ico", "image/x-icon" },
	{ "bmp", "image/bmp" }, { "pdf", "application/pdf" }, { "wasm", "application/wasm" },
	{ "zip", "application/zip" }, { "gz", "application/gzip" }, { "tgz", "application/gzip" },
	{ "bz2", "application/x-bzip2" }, { "xz", "application/x-xz" },
	{ "zst", "application/zstd" }, { "tar", "application/x-tar" },
	{ "mp3", "audio/mpeg" }, { "ogg", "audio/ogg" }, { "opus", "audio/opus" },
	{ "wav", "audio/wav" }, { "flac", "audio/flac" }, { "mp4", "video/mp4" },
	{ "webm", "video/webm" }, { "mkv", "video/x-matroska" }, { "woff", "font/woff" },
	{ "woff2", "font/woff2" }, { "ttf", "font/ttf" }, { "otf", "font/otf" },
	{ "c", "text/plain; charset=utf-8" }, { "h", "text/plain; charset=utf-8" },
	{ "sh", "text/plain; charset=utf-8" }, { "diff", "text/plain; charset=utf-8" },
	{ "patch", "text/plain; charset=utf-8" },
};
#define FILE_NTYPES (sizeof(file_types) / sizeof(file_types[0]))

/* text/ types carry -T's charset, as in thttpd (UTF-8 unless told otherwise). */
static const char *
file_charset(const char *type)
{
	static char buf[FILE_NTYPES][128];
	static char last[64];
	static int ready;
	const char *cs = httpd_config()->charset;
	size_t i, n;

	if (strncmp(type, "text/", 5) != 0 || cs == NULL)
		return type;
	if (!ready || strcmp(last, cs) != 0) {
		snprintf(last, sizeof(last), "%s", cs);
		for (i = 0; i < FILE_NTYPES; i++) {
			n = strcspn(file_types[i].type, ";");
			snprintf(buf[i], sizeof(buf[i]), "%.*s; charset=%s", (int)n,
			    file_types[i].type, cs);
		}
		ready = 1;
	}
	for (i = 0; i < FILE_NTYPES; i++)
		if (file_types[i].type == type)
			return buf[i];
	return type;
}

const char *
file_mime(const char *path)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	size_t i;

	if (dot == NULL || (slash != NULL && dot < slash) || dot[1] == '\0')
		return "application/octet-stream";
	for (i = 0; i < FILE_NTYPES; i++)
		if (strcasecmp(dot + 1, file_types[i].ext) == 0)
			return file_charset(file_types[i].type);
	return "application/octet-stream";
}

/* HTML text or attribute: the five characters that matter. Returns the length written. */
size_t
file_html_escape(const char *s, size_t n, char *out, size_t cap)
{
	size_t i, o = 0;

	if (cap == 0)
		return 0;
	for (i = 0; i < n; i++) {
		const char *rep = NULL;
		size_t rl;
		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		}
		rl = rep ? strlen(rep) : 1;
		if (o + rl >= cap)
			break;
		if (rep)
			memcpy(out + o, rep, rl);
		else
			out[o] = s[i];
		o += rl;
	}
	out[o] = '\0';
	return o;
}

/*
 * Percent-encode s: everything but unreserved characters and those in keep. The length
 * written (NUL-terminated), or -1 when it does not fit (out then holds a prefix).
 */
ssize_t
file_url_encode(const char *s, const char *keep, char *out, size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	if (cap == 0)
		return -1;
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~' ||
		    (keep != NULL && strchr(keep, c) != NULL);
		if (o + (plain ? 1 : 3) >= cap) {
			out[o] = '\0';
			return -1;
		}
		if (plain) {
			out[o++] = (char)c;
		} else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	out[o] = '\0';
	return (ssize_t)o;
}

struct file_buf {
	char *p;
	size_t len, cap;
	int bad;
};

static void
file_put(struct file_buf *b, const char *s, size_t n)
{
	if (b->bad)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *np;
		while (b->len + n + 1 > cap)
			cap *= 2;
		if ((np = realloc(b->p, cap)) == NULL) {
			b->bad = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
file_puts(struct file_buf *b, const char *s)
{
	file_put(b, s, strlen(s));
}

static int
file_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * An HTML index of directory fd (consumed: closed here). 0 with *body (malloc'ed), or an HTTP
 * status. At most --listing-max entries are read, sorted and looked at: the work of one
 * request is bounded, however large the directory (the event loop waits meanwhile).
 */
int
file_listing(int fd, const char *urlpath, char **body, size_t *len)
{
	struct file_buf b = { 0 };
	char **names = NULL, esc[4 * PATH_MAX], url[3 * NAME_MAX + 8], line[256];
	size_t n = 0, cap = 0, i, max = httpd_config()->listing_max;
	struct dirent *de;
	DIR *d;
	int status = 500, more = 0;

	*body = NULL;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 500;
	}
	while ((de = readdir(d)) != NULL) {
		char **nn;
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (n == max) {
			more = 1;
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if ((nn = realloc(names, cap * sizeof(*names))) == NULL)
				goto bad;
			names = nn;
		}
		if ((names[n] = strdup(de->d_name)) == NULL)
			goto bad;
		n++;
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), file_cmp);
	file_html_escape(urlpath, strlen(urlpath), esc, sizeof(esc));
	file_puts(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Index of ");
	file_puts(&b, esc);
	file_puts(&b, "</title></head>\n<body><h1>Index of ");
	file_puts(&b, esc);
	file_puts(&b, "</h1>\n<pre>\n");
	if (strcmp(urlpath, "/") != 0)
		file_puts(&b, "<a href=\"../\">../</a>\n");
	for (i = 0; i < n; i++) {
		struct stat st;
		int isdir = 0;
		if (fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			isdir = S_ISDIR(st.st_mode);
		else
			memset(&st, 0, sizeof(st));
		file_url_encode(names[i], NULL, url, sizeof(url)); /* a name always fits */
		file_puts(&b, "<a href=\"");
		file_puts(&b, url);
		file_puts(&b, isdir ? "/\">" : "\">");
		file_html_escape(names[i], strlen(names[i]), esc, sizeof(esc));
		file_puts(&b, esc);
		file_puts(&b, isdir ? "/</a>" : "</a>");
		if (isdir)
			snprintf(line, sizeof(line), "\n");
		else
			snprintf(line, sizeof(line), "  %lld\n", (long long)st.st_size);
		file_puts(&b, line);
	}
	if (more) {
		snprintf(line, sizeof(line), "</pre>\n<p>Only %zu entries are listed (the server's "
		    "--listing-max).</p>\n", n);
		file_puts(&b, line);
	} else {
		file_puts(&b, "</pre>\n");
	}
	file_puts(&b, "</body></html>\n");
	if (b.bad)
		goto bad;
	*body = b.p;
	*len = b.len;
	b.p = NULL;
	status = 0;
bad:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(b.p);
	closedir(d);
	return status;
}
