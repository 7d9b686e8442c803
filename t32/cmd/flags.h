/*
 * flags.h - every flag and status of t32's results with its meaning and what to
 * do about it (`t32 help flags`, `t32 --list flags`, the manual page).
 */
#ifndef T32_FLAGS_H
#define T32_FLAGS_H

#include <stdio.h>

struct t32_flag_help {
	const char *name;	/* as it appears in a flags or status column */
	const char *kind;	/* flag, status, wake, sample */
	const char *meaning;
	const char *todo;	/* what the user should do */
};
extern const struct t32_flag_help t32_flag_help[];	/* ends with a NULL name */

/* The entry of name, or NULL. */
const struct t32_flag_help *t32_flag_find(const char *name);
/* `t32 help flags`: every entry by kind, folded to 79 columns. */
void t32_flags_help(FILE *out);
/* `t32 --list flags`: name, kind, meaning, what to do, tab-separated, one a line. */
void t32_flags_list(FILE *out);

#endif
