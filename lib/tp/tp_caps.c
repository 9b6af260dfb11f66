/* tp_caps.c: what applications may ask of a transport type: its name, help line, capabilities. */
#include "tp_impl.h"

const char *
tp_type_name(const struct tp_type *t)
{
	return t->name;
}

const char *
tp_type_help(const struct tp_type *t)
{
	return t->help;
}

/* The table's capabilities, and those that follow from what the type implements. */
unsigned
tp_type_caps(const struct tp_type *t)
{
	return t->caps | (t->sendfile != NULL ? TP_CAP_SENDFILE : 0) |
	    (t->reset_stream != NULL ? TP_CAP_RESET : 0);
}

const struct tp_type *
tp_conn_type(const struct tp_conn *c)
{
	return c->ops;
}

const struct tp_type *
tp_listener_type(const struct tp_listener *l)
{
	return l->ops;
}

const struct tp_type *
tp_type_with(unsigned want, unsigned without)
{
	const struct tp_type *const *t;

	for (t = tp_types(); *t != NULL; t++)
		if ((tp_type_caps(*t) & want) == want && !(tp_type_caps(*t) & without))
			return *t;
	return NULL;
}

unsigned
tp_caps(const struct tp_conn *c)
{
	return tp_type_caps(c->ops);
}
