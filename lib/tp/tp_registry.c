/* tp_registry.c: the transport types this build has (configure decides which backends exist). */
#include <stddef.h>
#include <stdio.h>

#include "tp_impl.h"

static const struct tp_type *const tp_all[] = {
	&tp_type_tcp,
	&tp_type_tcpm,
	&tp_type_unix,
	&tp_type_unixm,
#ifdef HAVE_LKSCTP
	&tp_type_sctp,
	&tp_type_sctp1m,
#endif
#ifdef HAVE_USRSCTP
	&tp_type_usrsctp,
	&tp_type_usrsctp_nt,
#endif
	NULL
};

const struct tp_type *const *
tp_types(void)
{
	return tp_all;
}

/* "TYPE: counters; TYPE: counters" of the types that have any (tp_type.stats), into buf. */
size_t
tp_stats(char *buf, size_t len)
{
	size_t i, n = 0, w;
	int h;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	for (i = 0; tp_all[i] != NULL; i++) {
		if (tp_all[i]->stats == NULL)
			continue;
		h = snprintf(buf + n, len - n, "%s%s: ", n ? "; " : "", tp_all[i]->name);
		if (h < 0 || (size_t)h >= len - n)
			break;
		if ((w = tp_all[i]->stats(buf + n + (size_t)h, len - n - (size_t)h)) == 0) {
			buf[n] = '\0';
			continue;
		}
		n += (size_t)h + w;
	}
	return n;
}
