/*
 * run.h - assemble generated NASM, load it W^X, and run it in a forked child
 * pinned to one CPU, so a fault, a privileged instruction or an endless loop is an
 * error message for that block, never a dead process.
 */
#ifndef T32_RUN_H
#define T32_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/gen.h"
#include "t32/cpu.h"

/* A flat binary as nasm wrote it, with its header decoded. */
struct t32_blob {
	unsigned char *image;	/* malloc'd copy of the binary */
	size_t size;
	struct t32_blob_header hdr;
	uint64_t *item_off;	/* nitems + 1 offsets */
};

/* What went wrong, for a message: fills in as much as is known. */
enum t32_fail {
	T32_OK = 0,
	T32_FAIL_ASSEMBLE,	/* nasm refused: item = the item, msg = nasm's words */
	T32_FAIL_SIGNAL,	/* the child died by a signal while running the block */
	T32_FAIL_PRIVILEGED,	/* #GP on a privileged instruction */
	T32_FAIL_UNSUPPORTED,	/* #UD on an instruction this CPU lacks (exit 4) */
	T32_FAIL_TIMEOUT,	/* no answer within the time limit */
	T32_FAIL_SYSTEM,	/* fork, mmap, pipe... msg says which */
	T32_FAIL_INTERRUPTED,	/* t32 was interrupted while nasm ran (exit 130) */
};
struct t32_fault {
	enum t32_fail kind;
	int signo;		/* signal that ended the child */
	int code;		/* its si_code */
	uint64_t addr;		/* si_addr */
	int64_t rip_off;	/* offset of the faulting instruction in the image, -1 unknown */
	long item;		/* body item it belongs to, -1 outside the body */
	char insn[192];		/* disassembly of the faulting instruction (capstone) */
	int outside;		/* the signal came outside the loaded code: 1 in t32's own
				 * code (named in where), 2 where there is no code */
	char where[64];
	char msg[512];
};

struct t32_run_opts {
	int cpu;		/* CPU to pin to; -1 = default (t32_default_cpu) */
	double timeout;		/* seconds a single request may take */
};

/*
 * The block's code at most: nasm's output is capped there (`resb 1<<30` stops
 * at once, never 1 GiB in $TMPDIR).  100,000,000 copies of a 2-byte instruction
 * fit.
 */
#define T32_IMAGE_MAX (256ull << 20)
/*
 * nasm's time limit grows with the body: --timeout's S (default 10), and S
 * again for every T32_NASM_INSNS instructions of the body.
 */
#define T32_NASM_INSNS 10000000.0
/*
 * Assemble src (the text g describes) into a loaded-ready blob.  0, or -1 with
 * f filled in.
 */
int t32_assemble(const char *src, const struct t32_gen *g, struct t32_blob *out,
		 struct t32_fault *f);
void t32_blob_free(struct t32_blob *b);
/*
 * Assemble n generated blocks (srcs[i], described by gens[i]; gens may be NULL)
 * in one nasm run into out[0..n), each the image it would be alone.  0; or -1
 * with f filled in (f->item the item of block *bad) and *bad the block nasm
 * refused (n when it named none, or the fault is not nasm's).
 */
int t32_assemble_batch(const char *const *srcs, const struct t32_gen *const *gens, size_t n,
		       struct t32_blob *out, struct t32_fault *f, size_t *bad);
/* nasm by its absolute path, found once (T32_NASM or PATH); each call counts a run. */
const char *t32_nasm_path(void);
/* nasm runs started by this process so far. */
unsigned long t32_nasm_runs(void);
/*
 * The machine code of a spec's body alone (as the timed block holds it), for the
 * retirement model's decoder.  *code is malloc'd.  0, or -1 with a message in err
 * ("cannot assemble 'ITEM' (nasm: ...)").
 */
int t32_assemble_body(const struct t32_spec *s, unsigned char **code, size_t *len, char *err,
		      size_t errlen);
/*
 * Assemble src, whole NASM text, for its listing only (nasm -l; no image kept):
 * *listing gets the listing (lines `LINE ADDR HEX  SOURCE`, errors marked
 * `******`; empty when nasm stopped in its first pass), *diag what nasm said,
 * both malloc'd.  Returns nasm's exit status, or -1 with f filled in when nasm
 * could not run (and nothing to free).
 */
int t32_nasm_listing(const char *src, char **listing, char **diag, struct t32_fault *f);
/* Assemble src as elf64 (with symbols) and link it statically into path. */
int t32_build_elf(const char *src, const struct t32_gen *g, const char *path, struct t32_fault *f);


/*
 * A runner is a forked child holding loaded blocks, answering run requests.  The
 * child stays warm (and pinned) between requests, so adaptive stopping can ask for
 * batch after batch; it takes new blocks through its pipe (t32_runner_load), so
 * one process serves block after block.  t32_runner_start: a child with blobs
 * loaded.
 */
struct t32_runner;
struct t32_runner *t32_runner_start(const struct t32_blob *const *blobs, size_t nblobs,
				    const struct t32_run_opts *o, struct t32_fault *f);
/*
 * Load other blocks into a running runner (the blobs must outlive their use):
 * their code and the arena are placed afresh, at new addresses, as a new
 * process would place them; the process stays warm and pinned.  0, or -1 with
 * f filled in (the runner is then gone when its process died).
 */
int t32_runner_load(struct t32_runner *r, const struct t32_blob *const *blobs, size_t nblobs,
		    struct t32_fault *f);
/*
 * The blocks loaded now placed afresh (code and arena at new addresses) by the
 * next request that runs blocks, in one round trip with it: copied inside the
 * process into its window's free half and warmed there (t32_runner_warm), then
 * run; when the half cannot hold them, they are loaded again through the pipe,
 * warmed, and the run is asked again.  0, or 1 nothing loaded (nothing done).
 */
int t32_runner_move_later(struct t32_runner *r, uint64_t warm, uint64_t slow);
/*
 * Warm the blocks loaded in one request: a run of each in turn, then warm - 1
 * more of each (2 more when a block's first run took over slow ticks: it has
 * fetched all the code any run can keep).  0, or -1 with f filled in.
 */
int t32_runner_warm(struct t32_runner *r, uint64_t warm, uint64_t slow, struct t32_fault *f);
/* Where the child placed block i last (0: nothing there). */
uint64_t t32_runner_base(const struct t32_runner *r, size_t i);
/* r is alive, on o's CPU and time limit, and its code window holds the blobs. */
int t32_runner_fits(const struct t32_runner *r, const struct t32_blob *const *blobs,
		    size_t nblobs, const struct t32_run_opts *o);
/* Placements r has made (its first load included). */
unsigned t32_runner_loads(const struct t32_runner *r);
/* Those of them whose blocks came through the pipe (loads, not moves). */
unsigned t32_runner_piped(const struct t32_runner *r);
/* Run blob `which` (TIMED shape) count times; deltas (ticks) into out[0..count). */
int t32_runner_timed(struct t32_runner *r, size_t which, uint64_t count, uint64_t *out,
		     struct t32_fault *f);
/*
 * Blocks 0..nblocks-1 in turn, per runs each after skip unrecorded ones, reps
 * times, in one request: blocks measured microseconds apart see the same core
 * clock.  out gets reps * nblocks * per deltas, laid out [rep][block][run];
 * at most T32_RUNNER_CHUNK in all.
 */
int t32_runner_interleaved(struct t32_runner *r, size_t nblocks, uint64_t per, uint64_t skip,
			   uint64_t reps, uint64_t *out, struct t32_fault *f);
#define T32_RUNNER_CHUNK (1u << 18)
#define T32_RUNNER_BLOBS 12	/* blocks a measuring process holds at once: a block, its
				   empty block and twin, the calibration and sensor chains */
void t32_runner_stop(struct t32_runner *r);

/*
 * Run fn(arg) once in a forked, pinned child under the same fault handling and
 * the same confinement (t32_confine) as the measuring process.  arg should point
 * into MAP_SHARED memory if the parent needs results.  The image of `blob` (if
 * not NULL) is loaded in the child first and its base passed as `code`; then
 * prepare (if not NULL) runs before the child is confined, adding to c what fn
 * will need (a sampler's event or timer); a value other than 0 ends the child
 * with it.  Returns the child's exit value (0..255) or -1 with f filled in.
 */
struct t32_confine;
int t32_isolated(const struct t32_blob *blob,
		 int (*prepare)(void *code, void *arg, struct t32_confine *c),
		 int (*fn)(void *code, void *arg), void *arg, const struct t32_run_opts *o,
		 struct t32_fault *f);

/* The arena the registers point into: T32_ARENA_SIZE bytes whose qwords point to themselves. */
#define T32_ARENA_SIZE (1u << 20)
void *t32_arena_new(void);

/* Describe f as the one-line error text (without the "t32: " prefix). */
void t32_fault_describe(const struct t32_fault *f, const struct t32_spec *s, char *buf,
			size_t len);

#endif
