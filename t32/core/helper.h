/*
 * helper.h - run a helper program (nasm, ld) on a short leash: by argv, stdin from
 * /dev/null, in its own process group, killed when its time is up, when t32 is
 * interrupted (SIGINT, SIGTERM, SIGHUP) and when t32 dies (a parent-death signal),
 * its memory and the files it writes capped at 2 GiB, its output kept to a bound.
 * Text from a table someone else wrote reaches nasm, so nasm must never outlive
 * t32, hold it forever or take the machine's memory or disk.
 */
#ifndef T32_HELPER_H
#define T32_HELPER_H

#include <stddef.h>

#include "t32/util.h"

#define T32_HELPER_SECONDS 10.0	/* default time limit: --timeout's default */
#define T32_HELPER_OUTPUT 65536	/* bytes of a helper's output kept */
#define T32_HELPER_MEMORY (2ull << 30)	/* address space and file size a helper may use */

/* How a leashed run ended. */
enum t32_helper_end {
	T32_HELPER_EXITED = 0,		/* it ran and exited: out->status */
	T32_HELPER_CANNOT = -1,		/* it could not be started: out->error */
	T32_HELPER_TIMEOUT = -2,	/* killed when its time was up */
	T32_HELPER_INTERRUPTED = -3,	/* killed because t32 was interrupted */
};

/* The time limit of helper programs, seconds (--timeout sets it; default 10). */
void t32_helper_set_limit(double seconds);
double t32_helper_limit(void);

/*
 * Run argv with stdout and stderr into out->text.  keep[0..nkeep) are descriptors
 * the program inherits (everything else opened close-on-exec stays closed).  A
 * signal that interrupted it is raised again once the helper is gone, so the
 * caller's own handling (a flag, or the default death) follows.  Returns an enum
 * t32_helper_end.
 */
int t32_run_helper(char *const argv[], const int *keep, size_t nkeep,
		   struct t32_child_output *out);
/*
 * The same with `seconds` as its time limit and the files it writes capped at
 * fsize bytes (a larger write ends it by SIGXFSZ); 0 for either: the default.
 */
int t32_run_helper_bounded(char *const argv[], const int *keep, size_t nkeep,
			   struct t32_child_output *out, double seconds, unsigned long long fsize);

#endif
