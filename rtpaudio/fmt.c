/* fmt.c: the payload formats rtpaudio knows (fmt.h), looked up by --format's value. Adding a
 * format: its fmt_NAME.c with its `struct rtpaudio_fmt`, a line here, its file in
 * Makefile.am. */
#include <string.h>

#include "fmt.h"

static const struct rtpaudio_fmt *const fmt_table[] = {
	&fmt_2250_fmt,   /* the default */
	&fmt_3119_fmt,
	&fmt_fec_fmt,
};

const struct rtpaudio_fmt *
rtpaudio_fmt_find(const char *name)
{
	size_t i;

	if (name == NULL)
		return fmt_table[0];
	for (i = 0; i < sizeof(fmt_table) / sizeof(fmt_table[0]); i++) {
		if (strcmp(name, fmt_table[i]->name) == 0 ||
		    (fmt_table[i]->alias != NULL && strcmp(name, fmt_table[i]->alias) == 0))
			return fmt_table[i];
	}
	return NULL;
}
