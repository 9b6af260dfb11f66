/* mmc.h: the mmap cache, --mmap-cache (mmc.c). */
#ifndef SCTPHTTPD_MMC_H
#define SCTPHTTPD_MMC_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct resp_src;

void mmc_init(uint64_t max);
/* The file's bytes [off, end) from its shared mapping, owning fd; NULL: not mapped, read it. */
struct resp_src *mmc_src(int fd, const struct stat *st, off_t off, off_t end);
void mmc_expire(uint64_t age_us);
void mmc_stats(uint64_t *bytes, unsigned *files);
void mmc_free_all(void);

#endif
