/*
 * blobcache.h - blocks assembled ahead and kept by their source text.  A sweep
 * names the blocks of its next rows; they are assembled together, in one nasm
 * run, each item's machine code assembled once and repeated into its place, and
 * kept here until a measurement asks for its block by the text it generated.
 */
#ifndef T32_BLOBCACHE_H
#define T32_BLOBCACHE_H

#include <stddef.h>

#include "t32/core/run.h"
#include "t32/spec.h"

/* The blob kept for text, copied into out: 0, or -1 when none is kept. */
int t32_blobs_get(const char *text, struct t32_blob *out);
/* Keep a copy of b under text (the least recently used give way beyond a bound). */
void t32_blobs_put(const char *text, const struct t32_blob *b);
/* Forget every blob kept. */
void t32_blobs_clear(void);

/*
 * Assemble ahead the timed blocks of specs[0..n) (dithered or not) that are not
 * kept yet, and keep them: every item text assembled once (twice over, at two
 * places, so that code whose bytes depend on where it lies is left whole), the
 * blocks with their bodies' places in one nasm run, the items' code copied into
 * those places.  A block with an item nasm refuses alone or twice in a row (an
 * error, a label, a symbol of the harness's) is left out, and so is one nasm
 * refuses in the batch: assembled alone when it is asked for, its message then
 * given as ever; so is everything under --raw-nasm.  Returns how many of the
 * blocks are kept now.
 */
size_t t32_blobs_prepare(const struct t32_spec *const *specs, size_t n, int dither);

/*
 * T32_ONE_BY_ONE set (not "0"): nothing assembled ahead or kept, each block
 * assembled alone when it is asked for, and each placement in a new measuring
 * process (block.c), as t32 once worked; for comparing a sweep's time and rows
 * with and without what it shares.
 */
int t32_one_by_one(void);

/* What t32_blobs_prepare did so far, for tests and benches. */
struct t32_blobs_stats {
	unsigned long blocks;	/* blocks assembled ahead */
	unsigned long spliced;	/* ... of them with their items' code copied in */
	unsigned long left_out;	/* blocks nasm refused in a batch */
	unsigned long batches;	/* nasm runs of blocks */
	unsigned long item_runs;	/* nasm runs of item texts */
};
void t32_blobs_stats(struct t32_blobs_stats *st);

#endif
