/*
 * sampling.h - `t32 sample` as a library call: a block sampled in its counted
 * loop (attrib.h's t32_sample_block), the backend chosen, the body folded onto
 * its unit, and the checks of the samples (did the run's parts agree, did they
 * move since the last run of the same block here); the result as the sample
 * TSV, and the exit code it earns.  `t32 sample` and `t32 correlate` call it.
 */
#ifndef T32_SAMPLING_H
#define T32_SAMPLING_H

#include <signal.h>
#include <stdio.h>

#include "analysis/stats.h"
#include "t32/sample/attrib.h"
#include "t32/sample/sample.h"

#define T32_SAMPLING_MIN_BODY 50	/* fewer samples in the body: untrusted (exit 7) */

/* What to sample, and how. */
struct t32_sampling_req {
	const struct t32_sample_backend *backend;	/* NULL: the first available */
	const struct t32_sample_clock *clock;	/* NULL: task-clock */
	uint64_t period_ns;	/* ns of the clock between samples */
	uint64_t samples;	/* stop once this many were taken */
	double seconds;		/* or after this long sampling */
	uint64_t unroll;	/* body copies per loop iteration */
	int fold;		/* fold a body repeated k times onto one copy */
	int loop_barrier;	/* the spec's barrier around the body each iteration */
	int barrier_set;	/* the barrier and unroll came from the command line */
	int unroll_set;
	char block_file[4096];	/* the .blk the block came from, or "" */
	struct t32_run_opts run;	/* CPU, time limit (0: seconds + 30) */
};
/* The defaults of `t32 sample`: 2000 samples or 10 s, a sample a millisecond. */
void t32_sampling_req_init(struct t32_sampling_req *q);

/*
 * Read q->block_file into s, keeping what the command line set: its barrier
 * (q->barrier_set) and unroll (q->unroll_set) win over the file's, and start
 * values already in s come after the file's (the last assignment to a register
 * wins); q->loop_barrier follows the barrier.  An exit code, messages printed.
 */
int t32_sampling_load_block(struct t32_sampling_req *q, struct t32_spec *s);

/* Whether the run's samples stayed put, and whether they moved since the last run. */
struct t32_sample_check {
	struct t32_homog within;	/* the run's parts against each other */
	int have_within;
	struct t32_homog since;		/* this run against the last of the same block here */
	double minutes;			/* since that run; < 0 when there is none */
};

/* What sampling found. */
struct t32_sampling {
	struct t32_sample_result r;	/* r.at folded onto the unit when asked */
	size_t unit;			/* instructions of the unit the body repeats */
	struct t32_sample_check ck;
};

/*
 * Sample spec as q asks (*stop set by a Ctrl-C handler: the checks against the
 * last run are skipped).  An exit code: 0, 3 no backend here, 1 or the fault's
 * code; messages printed.  Free out with t32_sampling_free whatever it returns.
 */
int t32_sampling_take(const struct t32_sampling_req *q, const struct t32_spec *spec,
		      const volatile sig_atomic_t *stop, struct t32_sampling *out);
void t32_sampling_free(struct t32_sampling *out);

/* The body (and its start values) in the spec language, without barrier and store. */
void t32_sampling_body_text(const struct t32_spec *s, char *buf, size_t len);

/*
 * The result as `t32 sample --format=tsv` writes it: `#` lines (provenance
 * naming `command`, or this process's command line when NULL), then a row a position.
 */
void t32_sampling_tsv(FILE *f, const struct t32_sampling_req *q, const struct t32_spec *spec,
		      const struct t32_sampling *out, const char *command);

/* Why the samples earn exit 7: too few in the body, or the run's parts differ. */
enum t32_sampling_doubt { T32_SAMPLING_TRUSTED, T32_SAMPLING_FEW, T32_SAMPLING_UNSTABLE };
enum t32_sampling_doubt t32_sampling_doubt(const struct t32_sampling *out);

#endif
