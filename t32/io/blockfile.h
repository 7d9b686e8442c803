/*
 * blockfile.h - block files: one block, a statement a line, found by name in
 * the data directory or by path, read into a spec.
 */
#ifndef T32_BLOCKFILE_H
#define T32_BLOCKFILE_H

#include <stddef.h>
#include <stdint.h>

#include "t32/spec.h"

/*
 * Block files (data/blocks/NAME.blk) hold one block, a statement a line:
 *	# NAME - what the block shows          '#' starts a comment line
 *	# source: where the block comes from
 *	init REG=VALUE[,REG=VALUE]...          start values, as --init
 *	barrier LETTERS                        barriers around the body each iteration
 *	unroll K                               body copies per loop iteration
 *	[N] INSN[; INSN]...                    a body item: N copies of the statements
 */
struct t32_blockfile {
	uint64_t unroll;	/* from `unroll K`; 0 when absent */
	int has_barrier;	/* a `barrier` line set the spec's barrier */
	int unreadable;		/* the file could not be read (not a syntax error) */
};
/* Does arg name a block: FILE.blk, or NAME with DATADIR/blocks/NAME.blk?  1 with its path. */
int t32_blockfile_find(const char *arg, const char *datadir, char *path, size_t len);
/* Parse the file at path into s and bf.  0, or -1 with `PATH:LINE: what` in err. */
int t32_blockfile_load(const char *path, struct t32_spec *s, struct t32_blockfile *bf,
		       char *err, size_t len);

#endif
