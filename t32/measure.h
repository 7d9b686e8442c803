/*
 * measure.h - one block measured to a precision: the block, its empty twin and a
 * calibration chain of 1-cycle adds run round by round in one warm runner, the
 * deltas pooled into histograms for the sub-quantum estimate, the interval taken
 * from the spread of per-round estimates (so clock drift widens it honestly), and
 * runs added until the interval is narrow enough or the time budget is spent.
 */
#ifndef T32_MEASURE_H
#define T32_MEASURE_H

#include <stdint.h>

#include "analysis/stats.h"
#include "t32/block.h"

enum t32_unit { T32_UNIT_CYCLES, T32_UNIT_TICKS, T32_UNIT_NS };
extern const char *const t32_unit_names[];	/* "cycles", "ticks", "ns" */
int t32_parse_unit(const char *arg, enum t32_unit *u);

struct t32_measure_opts {
	enum t32_unit unit;
	double precision;	/* wanted 95% half-width, unit per instruction; <= 0: run max_runs */
	double block_precision;	/* or this half-width on the whole block, unit; <= 0: none */
	double budget;		/* seconds of measuring at most */
	uint64_t min_runs;	/* per block */
	uint64_t max_runs;	/* per block */
	uint64_t batch;		/* runs per block per round */
	uint64_t cal_len;	/* adds in the calibration chain */
	double drift_limit;	/* relative change of the clock ratio that makes a result untrustworthy */
	const char *raw_path;	/* write every delta here (tsv), or NULL */
	const struct t32_spec *base;	/* compare with this block instead of the empty one */
};
void t32_measure_opts_init(struct t32_measure_opts *o);

/* What a measurement found.  Ticks are TSC ticks; "unit" is opts.unit. */
struct t32_measurement {
	uint64_t insns;		/* n of (t - bar) / n */
	uint64_t runs;		/* per block */
	unsigned rounds;
	unsigned segments;	/* measuring processes used, each placing the code afresh */
	double seconds;		/* wall time measuring */
	uint64_t q;		/* ticks: the TSC step seen */
	struct t32_estimate block, empty;	/* sub-quantum estimates, ticks */
	struct t32_summary sblock, sempty;	/* min, median, MAD, trimmed mean, ticks */
	double ratio;		/* core cycles per tick (calibration), 0 if not calibrated */
	double ratio_hw;	/* its 95% half-width */
	double ratio_first, ratio_last;	/* from the first and last third of the rounds */
	double tsc_ghz;		/* TSC frequency */
	double value;		/* per instruction, unit */
	double halfwidth;	/* 95%, unit per instruction */
	double min_value;	/* the study's (min - min) / n, unit per instruction */
	double block_value, empty_value;	/* whole blocks, unit */
	unsigned flags;		/* T32_EST_* of the estimates */
	int stopped_precise;	/* the interval reached the precision target */
	int drifted;		/* the clock ratio moved more than drift_limit (compensated) */
	char untrusted[256];	/* why the result is not trustworthy, or "" */
};

/*
 * Measure spec against its empty twin (and the calibration chain when the unit is
 * cycles or ns... cycles only).  Returns an exit code; messages printed.  On Ctrl-C
 * (the caller sets *stop) it finishes the round and reports what it has.
 */
int t32_measure(const struct t32_spec *spec, const struct t32_block_opts *bo,
		const struct t32_measure_opts *mo, volatile int *stop, struct t32_measurement *m);

/*
 * The cost of copies of one text: reps copies between lfences (store m) against
 * base_reps copies (0: the empty block), so the pipeline's fill cancels, on the
 * default CPU, with the start registers of init (may be NULL), to precision
 * (cycles per instruction) within budget seconds.  quiet: a text that is not
 * instructions or that nasm refuses returns -1 without a message.  Otherwise
 * t32_measure's exit code.
 */
int t32_measure_copies(const char *text, uint64_t reps, uint64_t base_reps,
		       const struct t32_spec *init, double precision, double budget, int quiet,
		       struct t32_measurement *m);

/*
 * Where deltas come from: the warm measuring process, or a simulated machine.
 * run() runs blocks 0..nb-1 in turn, per runs each after skip unrecorded ones,
 * reps times, into out laid out [rep][block][run]; block 0 is the block, 1 its
 * empty twin (or base), 2 and 3 the calibration chains of cal_len and cal_len / 2
 * `add eax, 1`.  respawn() (may be NULL) starts a fresh process: new placement.
 * Budgets and segments are timed on now(), so a simulation keeps its own time.
 * Both return an exit code, the message printed.
 */
struct t32_source {
	int (*run)(void *ctx, size_t nb, uint64_t per, uint64_t skip, uint64_t reps,
		   uint64_t *out);
	int (*respawn)(void *ctx);
	double (*now)(void *ctx);	/* seconds on the source's clock; NULL: the wall clock */
	void *ctx;
	double tsc_hz;		/* the TSC's rate */
	uint64_t q;		/* ticks: the TSC's step (t32_machine_tsc_step) */
};

/* The measuring loop of t32_measure on any source of deltas; n instructions per block. */
int t32_measure_source(const struct t32_source *src, uint64_t insns,
		       const struct t32_measure_opts *mo, volatile int *stop,
		       struct t32_measurement *m);

/*
 * Say in m->untrusted why a result cannot be trusted, if it cannot: not finite,
 * an impossible calibration, too few readings in a bulk, a cost below zero by more
 * than its interval, an interval that never reached the precision asked for.
 */
void t32_measure_check(struct t32_measurement *m, const struct t32_measure_opts *mo,
		       int interrupted);
#define T32_RATIO_MIN 0.05	/* core cycles per tick outside this are not a clock */
#define T32_RATIO_MAX 20.0

/*
 * The machine's TSC step in ticks, found once per process from raw readings
 * (t32_tsc_step; 1 when they never tell).  *share (may be NULL): how much of the
 * readings' differences it explains.
 */
uint64_t t32_machine_tsc_step(double *share);

/* TSC frequency in Hz, measured against CLOCK_MONOTONIC_RAW over about `seconds`. */
double t32_tsc_hz(double seconds);
/* The same, measured once per process (over 20 ms) and kept. */
double t32_machine_tsc_hz(void);

#endif
