/* throttle.h: thttpd's throttles, -t FILE (throttle.c). */
#ifndef SCTPHTTPD_THROTTLE_H
#define SCTPHTTPD_THROTTLE_H

#include <stddef.h>

struct resp;

int throttle_load(const char *path, char *err, size_t errlen);
void throttle_free_all(void);
/* r's body source wrapped in the throttles path falls under; -1: below a MIN, answer 503 */
int throttle_attach(struct resp *r, const char *path);

#endif
