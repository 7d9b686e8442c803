/*
 * attrib.h - attribution of interrupt samples to the instructions of a loaded
 * block: the body is disassembled (capstone) into instructions with image offsets,
 * each sampled IP (minus the code base) is mapped to the instruction containing
 * it, and samples in the loop's own overhead (counter, branch, barriers) or
 * elsewhere are counted apart.  When the body is one unit repeated k times
 * (%rep, --unroll) the k copies can be folded into one.  t32_sample_block does
 * the whole measurement: generate the LOOP shape, run it sampled in an isolated
 * child, attribute.
 */
#ifndef T32_ATTRIB_H
#define T32_ATTRIB_H

#include <stddef.h>
#include <stdint.h>

#include "t32/io/blockfile.h"
#include "t32/core/run.h"
#include "t32/sample/sample.h"

/* One body instruction and the samples that landed on it. */
struct t32_attr_insn {
	uint64_t off;		/* bytes from the start of the image */
	uint8_t size;		/* bytes */
	uint8_t bytes[16];	/* its encoding (for finding the repeated unit) */
	char text[200];		/* Intel-syntax disassembly */
	long item;		/* body item (spec) it came from, -1 unknown */
	uint64_t samples;	/* samples whose IP falls in this instruction */
	uint64_t cycles_n;	/* samples with IBS cycle counts */
	uint64_t tag_to_ret;	/* core cycles, summed over cycles_n samples */
	uint64_t comp_to_ret;	/* core cycles, summed over cycles_n samples */
};

struct t32_attrib {
	struct t32_attr_insn *insn;	/* the body in order */
	size_t ninsn;
	size_t copies;		/* folded: copies summed into each instruction (1 unfolded) */
	uint64_t total;		/* samples added */
	uint64_t body;		/* ... of which in the body */
	uint64_t overhead;	/* ... in the loop around the body (counter, branch, barriers) */
	uint64_t image;		/* ... elsewhere in the block's image (set-up, return) */
	uint64_t outside;	/* ... outside the image (C code between chunks, libc) */
	uint64_t inexact;	/* body samples not on an instruction boundary */
	/* image offsets from the blob header */
	uint64_t body_off, body_end, loop_off, loop_end, image_end;
};

/* Disassemble blob's body.  Returns 0, or -1 with err filled in. */
int t32_attrib_init(struct t32_attrib *a, const struct t32_blob *blob, char *err, size_t len);
/* Count n samples taken while the image was loaded at code_base. */
void t32_attrib_add(struct t32_attrib *a, uint64_t code_base, const struct t32_sample *s,
		    size_t n);
/*
 * The n samples split in time order into `parts` consecutive parts of (nearly)
 * equal size, counted per body instruction: counts[part * (ninsn + 1) + i], with
 * column ninsn the loop's overhead (samples elsewhere are not counted).
 */
void t32_attrib_parts(const struct t32_attrib *a, uint64_t code_base, const struct t32_sample *s,
		      size_t n, size_t parts, uint64_t *counts);
/* Index of the body instruction containing image offset off, or -1. */
long t32_attrib_find(const struct t32_attrib *a, uint64_t off);
/*
 * Instructions in the smallest unit the body repeats (byte for byte) to make up
 * the whole; ninsn when it does not repeat.
 */
size_t t32_attrib_unit(const struct t32_attrib *a);
/* Fold a into `out` by unit (which must divide a->ninsn): copy j of each unit summed. */
int t32_attrib_fold(const struct t32_attrib *a, size_t unit, struct t32_attrib *out);
void t32_attrib_free(struct t32_attrib *a);


/* What t32_sample_block samples, and how. */
struct t32_sample_request {
	const struct t32_sample_backend *backend;	/* one whose probe succeeded */
	const struct t32_sample_clock *clock;	/* NULL: task-clock */
	uint64_t period_ns;	/* ns of the clock between samples */
	uint64_t max_samples;	/* stop once this many were taken */
	double seconds;		/* or after this many seconds of sampling */
	uint64_t unroll;	/* body copies per loop iteration (0 = 1) */
	int loop_barrier;	/* the spec's barrier before and after the body each iteration */
	struct t32_run_opts run;	/* CPU to pin to, time limit */
};

/* What it found. */
struct t32_sample_result {
	struct t32_attrib at;	/* samples per body instruction, unfolded */
	const struct t32_sample_backend *backend;
	char event[64];		/* what was opened: "task-clock", "ibs_op", "cycles:ppp" */
	char unit[16];		/* of the period: "ns", "ops", "cycles" */
	uint64_t period;	/* in unit */
	uint64_t samples;	/* taken (all of them in at.total) */
	uint64_t lost;		/* the kernel lost (ring overflow) */
	uint64_t dropped;	/* did not fit in the sample array */
	double seconds;		/* wall seconds of the sampled chunks of the loop */
	uint64_t iterations;	/* loop iterations run while sampled */
	double ns_alone;	/* ns per iteration with the sampler paused (median of chunks) */
	double ns_sampled;	/* ns per iteration while sampled (median of chunks) */
	uint64_t *parts;	/* the samples in T32_SAMPLE_PARTS parts of the run, as
				   t32_attrib_parts counts them (NULL when none were taken) */
	char err[512];		/* why, when the call returned 1 or 3 without a fault */
};
/* Parts a run's samples are split into, in time order, to test that it was stable. */
#define T32_SAMPLE_PARTS 4

/*
 * Generate s in the LOOP shape, assemble it, run it in a forked pinned child
 * (t32_isolated) in chunks of about 10 ms with the sampler on (one chunk in four
 * paused, to time the loop alike with and without sampling), and attribute the
 * samples.  Returns 0; 3 when the sampler would not start (out->err says why);
 * 1 on failure: f->kind != T32_OK for a fault (assembly, signal, time limit),
 * else out->err.  Free out with t32_sample_result_free whatever it returned.
 */
int t32_sample_block(const struct t32_spec *s, const struct t32_sample_request *rq,
		     struct t32_sample_result *out, struct t32_fault *f);
void t32_sample_result_free(struct t32_sample_result *r);

#endif
