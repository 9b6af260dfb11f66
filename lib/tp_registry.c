/* tp_registry.c: the transport types this build has (configure decides which backends exist). */
#include <stddef.h>

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
#endif
	NULL
};

const struct tp_type *const *
tp_types(void)
{
	return tp_all;
}
