/*
 * confine.h - the one policy every process that runs a body runs under (the
 * measuring process, the sampling process, any other): it keeps no descriptor
 * but its own pipes (0, 1 and 2 on /dev/null), its environment is wiped, it
 * writes no core file, it cannot gain privileges (no_new_privs), and a seccomp
 * filter lets through only what the harness itself needs once the body runs:
 * read and write on its own pipes, exit, the return from its own signal
 * handlers, a signal to itself, reading the clock, (sampling) switching its
 * own sampler on and off, and (a measuring process that takes new blocks)
 * changing the protection of pages of its own code window between
 * read+write and read+exec, never both writable and executable.  Any system
 * call made from the loaded code itself (or its window) is refused, whatever
 * its arguments.  A refused call raises SIGSYS, which the
 * harness reports as the system call it was.
 */
#ifndef T32_CONFINE_H
#define T32_CONFINE_H

#include <stddef.h>
#include <stdint.h>

#define T32_CONFINE_FDS 4	/* descriptors of each kind a process may keep */
#define T32_CONFINE_CODE 8	/* ranges of loaded code */

struct t32_confine {
	int rd[T32_CONFINE_FDS];	/* descriptors it may read: its request pipe */
	size_t nrd;
	int wr[T32_CONFINE_FDS];	/* descriptors it may write: its answer pipe */
	size_t nwr;
	int hold[T32_CONFINE_FDS];	/* descriptors kept open, neither read nor written */
	size_t nhold;
	int perf_fd;		/* a perf event it may enable and disable (ioctl), or -1 */
	int timer;		/* a POSIX timer it may arm and disarm (timer_settime), or -1 */
	uint64_t code[T32_CONFINE_CODE][2];	/* [start, end) of the loaded code */
	size_t ncode;
	uint64_t window[2];	/* [start, end) where code is loaded later, or 0, 0 */
};

/* Nothing allowed yet: no descriptors, no sampler, no code. */
void t32_confine_init(struct t32_confine *c);
/* What a kept descriptor may be used for. */
enum t32_confine_use { T32_CONFINE_READ, T32_CONFINE_WRITE, T32_CONFINE_HOLD };
/* Keep fd for that use; -1 when full. */
int t32_confine_fd(struct t32_confine *c, int fd, enum t32_confine_use use);
/* Add a range of loaded code; -1 when full. */
int t32_confine_code(struct t32_confine *c, const void *start, size_t len);
/*
 * The code window: len bytes at start where code is loaded after confinement.
 * Its pages may be made read+write or read+exec (mprotect, from outside it),
 * nothing else; no system call is made from it.  len is a power of two up to
 * 2 GiB and start a multiple of it.  -1 (EINVAL) otherwise.
 */
int t32_confine_window(struct t32_confine *c, const void *start, size_t len);

/*
 * Confine the calling process (single-threaded, a child about to run a body):
 * close every descriptor c does not name, put /dev/null on 0, 1 and 2, wipe
 * the environment strings, forbid core files, set no_new_privs and install
 * the filter.  0, or -1 with errno (the process must not run the body then).
 */
int t32_confine(const struct t32_confine *c);

#endif
