/* server_file.h: the document root (server_file.c). */
#ifndef SCTPHTTPD_SERVER_FILE_H
#define SCTPHTTPD_SERVER_FILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

int file_root_open(const char *dir, char *err, size_t errlen);
void file_root_close(void);
int file_open(const char *path, int *fdp, struct stat *st);  /* 0, or an HTTP status */
const char *file_mime(const char *path);
int file_listing(int fd, const char *urlpath, char **body, size_t *len);
size_t file_html_escape(const char *s, size_t n, char *out, size_t cap);
ssize_t file_url_encode(const char *s, const char *keep, char *out, size_t cap);

int file_abs_path(const char *path, char *out, size_t cap);  /* root + path, for exec */
void file_root_chrooted(void);

#endif
