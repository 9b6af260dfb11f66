/* httpd.c: sctphttpd's process-wide state: the configuration, the event loop and its clock, the
 * graceful stop. main.c sets it up; the modules read it without calling up into main.c. */
#include <stddef.h>

#include "ev.h"
#include "httpd.h"

static struct {
	struct config cf;
	struct ev_loop *loop;
	int stopping;
} httpd;

struct config *
httpd_config(void)
{
	return &httpd.cf;
}

struct ev_loop *
httpd_loop(void)
{
	return httpd.loop;
}

void
httpd_set_loop(struct ev_loop *loop)
{
	httpd.loop = loop;
}

uint64_t
httpd_now_us(void)
{
	return httpd.loop != NULL ? ev_now_us(httpd.loop) : ev_clock_us();
}

int
httpd_stopping(void)
{
	return httpd.stopping;
}

void
httpd_set_stopping(void)
{
	httpd.stopping = 1;
}
