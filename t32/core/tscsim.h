/*
 * tscsim.h - a simulated machine whose TSC feeds the real measuring loop: blocks
 * of known length in core cycles read through a TSC of any step, any core/TSC
 * ratio, a uniform or biased start phase, jitter, interrupt outliers, clock drift
 * and wobble, and a placement offset that changes with each measuring process.
 * t32_measure_source runs on it exactly as on the machine, so the estimator, the
 * calibration and the stopping rule are tested against a known truth.
 */
#ifndef T32_TSCSIM_H
#define T32_TSCSIM_H

#include <stdint.h>

#include "t32/core/measure.h"

struct t32_sim_machine {
	uint64_t q;		/* ticks: the TSC's step, 1 to 64 */
	double ratio;		/* core cycles per tick */
	double tsc_hz;
	double phase_bias;	/* 0: uniform start phase; b > 0: the phase falls in the
				   first (1 - b) of the step only */
	double jitter;		/* cycles: mean of exponential noise added to every run */
	double outlier_p;	/* share of runs hit by an interrupt */
	double outlier_ticks;	/* ticks: the least an interrupt adds (up to 10 times it) */
	double drift;		/* relative change of the ratio over drift_runs runs */
	double drift_runs;
	double wobble;		/* relative sd of the ratio from one turn to the next */
	double placement;	/* cycles: sd of a per-process offset of the block */
	double cal_slow;	/* relative slowdown of the add chains in 90% of their runs
				   (a thread sharing the core's ALUs: not the block, not
				   the sensors) */
	double cal_slow_share;	/* share of measuring processes where they are (0: all) */
	double block_slow;	/* relative slowdown of the block and its twin in the same
				   runs (the thread takes some of the block's units too) */
	double taint_p;		/* share of measuring processes that other work runs beside */
	double taint_slow;	/* relative slowdown of every block in such a process */
	double stall_seconds;	/* the host stalls the guest for this long at the start: */
	double stall_factor;	/* each run then takes this many times as long in wall
				   time, outside what it reads (steal) */
	double call_seconds;	/* wall time a call to the measuring process costs
				   beside its runs (the round trip of a request) */
	uint64_t seed;
};

/* The blocks t32_measure_source asks for, in core cycles. */
struct t32_sim_blocks {
	double barrier;		/* cycles of the empty block */
	double insn;		/* cycles per instruction of the block (the truth) */
	uint64_t n;		/* instructions in the block */
	uint64_t twin_insns;	/* instructions of its twin (0: none) */
	uint64_t cal_len;	/* adds in the long calibration chain (1 cycle each) */
	double fill;		/* cycles a chain takes beyond its length (pipeline fill) */
	double block_fill;	/* cycles the block and its twin take beyond n x insn */
};

struct t32_sim;

/* A simulated machine running these blocks; NULL when out of memory. */
struct t32_sim *t32_sim_new(const struct t32_sim_machine *mc, const struct t32_sim_blocks *b);
void t32_sim_free(struct t32_sim *s);

/*
 * The source for t32_measure_source.  Its q is found by t32_tsc_step from the
 * simulated TSC's raw readings, as on a real machine (1 when they never tell).
 */
void t32_sim_source(struct t32_sim *s, struct t32_source *src);
/* Seconds of simulated time the longest call to run() took. */
double t32_sim_longest_call(const struct t32_sim *s);
/* Calls to run() so far. */
unsigned t32_sim_calls(const struct t32_sim *s);

/* n raw readings of the simulated TSC with a random spin between them. */
void t32_sim_readings(struct t32_sim *s, uint64_t *out, size_t n);

#endif

/* What a grid of simulated machines gave. */
struct t32_sim_grid {
	unsigned cases;		/* measurements made */
	unsigned covered;	/* whose 95% interval held the true cost */
	unsigned trusted;	/* reported as trustworthy */
	unsigned wrong_trusted;	/* trusted, yet off by a whole step of the TSC or more */
	double worst_steps;	/* the largest error of a trusted result on the block, in TSC
				   steps (or in the precision asked, where that is coarser) */
	char worst[160];	/* the case that gave it */
	unsigned biased, biased_trusted_wrong;	/* cases with a locked phase, and wrong-but-trusted ones */
	double biased_worst_steps;
};

/*
 * Measure through t32_measure_source on a grid of machines (steps 1 to 64 ticks,
 * ratios, noise of each kind) and blocks (1- and 3-cycle instructions, n = 100 and
 * 1000, one instruction against a base), and compare with the truth.  thorough
 * widens the grid.  Returns 0, -1 when out of memory.
 */
int t32_sim_run_grid(int thorough, struct t32_sim_grid *g);
