/*
 * correlate.h - one block measured two ways and one retirement model fitted to
 * both, as a library call (`t32 correlate`, `t32 learn`, `t32 study` and `t32
 * bench correlate` call it in process): the step curve of k = 0..K copies of the block's unit between
 * lfences (t32_sweep), where timer interrupts land in it run as a loop
 * (t32_sampling_take), and the model (analysis/correlate.h) fitted to both at
 * once, or predicted from the learned model of this CPU.
 */
#ifndef T32_SAMPLE_CORRELATE_H
#define T32_SAMPLE_CORRELATE_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/correlate.h"
#include "t32/core/block.h"
#include "t32/spec.h"

#define T32_CORR_MAX_SETS 64	/* --set options */
#define T32_CORR_MAX_KMAX 1000	/* copies in the step curve */

/* What to correlate, and how (t32 correlate's options). */
struct t32_correlate_req {
	const char *uarch;
	const char *sets[T32_CORR_MAX_SETS];
	size_t nsets;
	char fit[T32_CORR_MAX_PARAMS][48];
	size_t nfit;		/* 0: the default set */
	int fit_asked;		/* --fit given (a list or auto): fit beside a learned prediction */
	int fit_none;		/* --fit none: fit nothing */
	const char *learned;	/* --learned FILE|none, NULL: this CPU's when there is one */
	uint64_t kmax;
	uint64_t samples;
	double seconds;
	double row_budget;	/* the step curve's seconds a row, at most (0: 0.25) */
	const char *backend;
	int cpu;		/* --cpu N, or -1: the default */
	const char *init[T32_MAX_INIT];	/* --init R=V,... as given */
	size_t ninit;
	int no_measure;		/* --no-measure: the shipped table alone */
	int unit_loop;		/* --unit-loop: model the samples as the unit alone looping */
	int allow_unstable;	/* --allow-unstable: fit samples whose parts differ */
	int one_sweep;		/* no second sweep of a curve the first mostly did not trust
				   (t32 learn: its budget is shared) */
	int keep_unstable;	/* sample such a run once more, then keep the second as it
				   is, flagged in its files (t32 learn judges it itself) */
	const char *from;	/* --from DIR: the sample.tsv and sweep.tsv of an earlier -o DIR */
	const char *cache_dir;	/* --cache DIR, or NULL for the default */
	enum t32_format format;
	const char *outdir;
	char block_file[PATH_MAX];	/* "" when the block came as INSN arguments */
	int body_argc;
	char **body_argv;
};

/* The defaults of `t32 correlate`: K 16, 2000 samples or 3 s, the default CPU, a table. */
void t32_correlate_req_init(struct t32_correlate_req *q);

/* What a run gave, for a caller that judges it (NaN where there is no number). */
struct t32_correlate_res {
	double tvd;			/* measured against predicted shares */
	double cycles_error_percent;	/* predicted cycles per iteration against the curve's slope */
	double retire_width;		/* NaN when the fit left it undetermined */
	double retire_group;
};

/*
 * Correlate the block q names (q->body_argv: a block file or INSN words), print
 * the result to out as q->format asks (out NULL: nothing printed, only -o DIR's
 * files written), and fill *res when it is not NULL.  argc/argv: the command
 * line the provenance of what is written names.  The exit code `t32 correlate`
 * gives (0, 7 when the samples are too few to trust, ...).
 */
int t32_correlate(struct t32_correlate_req *q, int argc, char **argv, FILE *out,
		  struct t32_correlate_res *res);

#endif
