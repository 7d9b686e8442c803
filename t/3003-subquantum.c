/*
 * 3003-subquantum - the duration of a block recovered below the TSC's step from
 * the random phase of its start, with and without noise.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/stats.h"
#include "t/tap.h"

#define N 20000
#define Q 21
#define C 7		/* offset every reading shares */
#define BASE 210.0	/* a whole number of steps */
#define STEPS 50	/* durations tried across one step */

/* The kinds of noise added on top of the phase. */
enum noise { CLEAN, OUTLIERS, SMALL, WIDE, SPREAD, HEAVY, SPARSE };

/*
 * Deltas of a block of true duration d ticks read with a TSC of step q from a
 * uniformly random phase, plus offset c and noise e (>= 0 except for SPREAD).
 */
static void simulate(gsl_rng *r, uint64_t *out, size_t n, double d, uint64_t q, uint64_t c,
		     enum noise kind)
{
	for (size_t i = 0; i < n; i++) {
		double t0 = gsl_rng_uniform(r) * q, e = 0;
		switch (kind) {
		case CLEAN:
			break;
		case OUTLIERS:	/* 3% of the runs hit by an interrupt or a miss */
			if (gsl_rng_uniform(r) < 0.03)
				e = q * (3 + 50 * gsl_rng_uniform(r));
			break;
		case SMALL:	/* every run a little late: mean 0.05 q */
			e = gsl_ran_exponential(r, 0.05 * q);
			break;
		case WIDE:	/* noise comparable to the step */
			e = gsl_rng_uniform(r) * 2.5 * q;
			break;
		case SPREAD:	/* a duration that itself varies, evenly about d, over 3 q */
			e = (gsl_rng_uniform(r) - 0.5) * 3 * q;
			break;
		case HEAVY:	/* a fifth of the runs hit far above */
			if (gsl_rng_uniform(r) < 0.2)
				e = q * (3 + 50 * gsl_rng_uniform(r));
			break;
		case SPARSE:	/* nearly every run hit, over a wide range: 3% left whole */
			if (gsl_rng_uniform(r) < 0.97)
				e = q * (3 + 200 * gsl_rng_uniform(r));
			break;
		}
		uint64_t a = (uint64_t)(t0 / q), b = (uint64_t)((t0 + d + e) / q);
		out[i] = (b - a) * q + c;
	}
}

int main(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	uint64_t *x = malloc(N * sizeof(*x));
	struct t32_estimate e, e2;
	double worst, worst_min, lo_err, hi_err;
	int covered, flagged;

	if (!r || !x)
		bail("out of memory");
	gsl_rng_set(r, 3003);
	plan(41);

	/* Clean: across a whole step the estimate is within 5% of q, the minimum is not. */
	worst = worst_min = 0;
	covered = flagged = 0;
	for (int s = 0; s < STEPS; s++) {
		double d = BASE + Q * (s + 0.5) / STEPS;
		simulate(r, x, N, d, Q, C, CLEAN);
		t32_estimate(x, N, Q, &e);
		worst = fmax(worst, fabs(e.value - (d + C)));
		worst_min = fmax(worst_min, fabs((double)e.bottom - (d + C)));
		covered += e.lo <= d + C && d + C <= e.hi;
		flagged += e.flags != 0;
	}
	ok(worst < 0.05 * Q, "clean: estimate within 5%% of q over a step (worst %.3f ticks)", worst);
	ok(worst_min > 0.5 * Q, "clean: the plain minimum is off by more than q/2 (%.2f ticks)",
	   worst_min);
	ok(covered >= 0.85 * STEPS, "clean: the 95%% interval holds the truth %d times of %d",
	   covered, STEPS);
	is_int(0, flagged, "clean: no flags");

	/* Rare large noise lands above L + q and is left out: still unbiased. */
	worst = 0;
	flagged = 0;
	for (int s = 0; s < 10; s++) {
		double d = BASE + Q * (s + 0.3) / 10;
		simulate(r, x, N, d, Q, C, OUTLIERS);
		t32_estimate(x, N, Q, &e);
		worst = fmax(worst, fabs(e.value - (d + C)));
		flagged += e.flags != 0;
	}
	ok(worst < 0.05 * Q, "3%% large outliers: estimate within 5%% of q (worst %.3f)", worst);
	is_int(0, flagged, "large outliers: no flags");

	/* Small noise biases up by about its mean; the truth stays between min and estimate. */
	lo_err = INFINITY;
	hi_err = -INFINITY;
	int between = 0;
	flagged = 0;
	for (int s = 0; s < 10; s++) {
		double d = BASE + Q * (s + 0.3) / 10;
		simulate(r, x, N, d, Q, C, SMALL);
		t32_estimate(x, N, Q, &e);
		flagged += (e.flags & ~T32_EST_LEVELS) != 0;
		lo_err = fmin(lo_err, e.value - (d + C));
		hi_err = fmax(hi_err, e.value - (d + C));
		between += e.bottom <= d + C + 0.03 * Q && d + C - 0.03 * Q <= e.value;
	}
	ok(lo_err > -0.05 * Q, "small noise: estimate not below the truth (lowest %+.3f)", lo_err);
	ok(hi_err < 0.05 * Q + 0.05 * Q * 1.5, "small noise: bias up within its mean (highest %+.3f)",
	   hi_err);
	is_int(10, between, "small noise: min <= truth <= estimate");
	is_int(0, flagged, "small noise: no flags but levels (the duration varies)");

	/* Noise as wide as the step: the two-level model is flagged, wherever D lies. */
	flagged = 0;
	for (int s = 0; s < 10; s++) {
		simulate(r, x, N, BASE + Q * (s + 0.5) / 10, Q, C, WIDE);
		t32_estimate(x, N, Q, &e);
		flagged += (e.flags & T32_EST_LEVELS) != 0;
	}
	is_int(10, flagged, "noise comparable to q: levels flag");

	/*
	 * A duration that varies by more than a step (a wobbling clock): the mean of
	 * the bulk's levels, and a 95% interval that holds the truth about 95% of
	 * the time.  Fewer than a binomial count at p = 0.95 makes likely with
	 * probability 1e-4 is an interval too narrow.
	 */
	{
		enum { REPS = 400, PER = 2000 };
		int least = 0;

		gsl_rng_set(r, 30030);
		covered = flagged = 0;
		for (int rep = 0; rep < REPS; rep++) {
			double d = BASE + Q * (rep % 10 + 0.5) / 10;

			simulate(r, x, PER, d, Q, C, SPREAD);
			t32_estimate(x, PER, Q, &e);
			covered += e.lo <= d + C && d + C <= e.hi;
			flagged += (e.flags & T32_EST_LEVELS) != 0;
		}
		while (least < REPS && gsl_cdf_binomial_P((unsigned)least, 0.95, REPS) <= 1e-4)
			least++;
		is_int(REPS, flagged, "a varying duration: levels flag");
		ok(covered >= least, "a varying duration: the 95%% interval holds the truth %d times "
		   "of %d (at least %d)", covered, REPS, least);
	}

	/*
	 * Outliers that are no longer rare: the bottom two levels holding under 90%
	 * of the readings is flagged `levels`; a bulk of under 5% of them, however
	 * many readings that is, `few`.
	 */
	simulate(r, x, N, BASE + 9, Q, C, HEAVY);
	t32_estimate(x, N, Q, &e);
	ok((e.flags & T32_EST_LEVELS) && !(e.flags & T32_EST_FEW),
	   "a fifth of the runs hit: levels, not few (%u)", e.flags);
	simulate(r, x, N, BASE + 9, Q, C, SPARSE);
	t32_estimate(x, N, Q, &e);
	ok((e.flags & T32_EST_FEW) && e.window >= 300,
	   "3%% of the runs whole: few, though %llu readings are in the bulk",
	   (unsigned long long)e.window);

	/* Few samples. */
	simulate(r, x, 20, BASE + 9, Q, C, CLEAN);
	t32_estimate(x, 20, Q, &e);
	ok(e.flags & T32_EST_FEW, "20 samples: few flag");
	ok(!(e.flags & T32_EST_FALLBACK), "20 samples: still a proportion");
	ok(e.lo <= e.value && e.value <= e.hi && e.hi - e.lo > 0.2 * Q,
	   "20 samples: a wide interval [%.2f, %.2f]", e.lo, e.hi);
	simulate(r, x, 5, BASE + 9, Q, C, CLEAN);
	t32_estimate(x, 5, Q, &e);
	ok((e.flags & T32_EST_FALLBACK) && (e.flags & T32_EST_FEW), "5 samples: fallback and few");
	is_double((double)e.bottom, e.value, 0, "fallback: the value is the minimum");
	ok(e.lo == e.bottom && e.hi == e.bottom + Q, "fallback: the interval is one step");

	/* Bare metal: a step of one tick, and the same estimate below it. */
	simulate(r, x, N, 153.4, 1, 0, OUTLIERS);
	t32_estimate(x, N, 0, &e);
	is_int(1, e.q, "q detected as 1");
	ok(e.flags == T32_EST_NOQUANT, "noquant flag alone");
	is_double(153.4, e.value, 0.05, "noquant: the value below the tick, not the minimum");
	ok(e.lo < 153.4 && 153.4 < e.hi && e.hi - e.lo < 0.1, "noquant: a narrow interval [%.3f, %.3f]",
	   e.lo, e.hi);

	/* q detected from the deltas when not given. */
	simulate(r, x, N, BASE + 13.2, Q, C, CLEAN);
	t32_estimate(x, N, 0, &e);
	is_int(Q, e.q, "q detected as 21");
	is_int((uint64_t)BASE + C, e.bottom, "bottom level");
	is_double(BASE + 13.2 + C, e.value, 0.05 * Q, "estimate with q detected");
	is_int(N, e.k0 + e.k1, "clean: every sample in the bottom two levels");

	/* Lone readings below the bottom (a glitch, a reordered rdtsc) are set aside. */
	simulate(r, x, N, BASE + 13.2, Q, C, CLEAN);
	t32_estimate(x, N, Q, &e2);
	x[3] = C;
	x[4] = C + 5 * Q;
	x[5] = x[6] = C + 8 * Q;
	t32_estimate(x, N, Q, &e);
	ok(fabs(e.value - e2.value) < 0.01 && e.bottom == e2.bottom, "isolated low readings do not move the "
	   "estimate (%.3f, bottom %llu)", e.value, (unsigned long long)e.bottom);
	is_int(4, e.below, "and are counted as set aside");

	/* A whole number of steps: one level, the estimate is the bottom exactly. */
	simulate(r, x, N, BASE, Q, C, CLEAN);
	t32_estimate(x, N, Q, &e);
	is_int(0, e.k1, "whole steps: nothing at L + q");
	is_double(BASE + C, e.value, 0, "whole steps: the bottom level");
	ok(e.lo < e.value && e.hi > e.value && e.hi - e.lo < 0.01 * Q,
	   "whole steps: a narrow interval both ways [%.3f, %.3f]", e.lo, e.hi);

	/* Batches through a histogram give the same estimate. */
	simulate(r, x, N, BASE + 4.4, Q, C, OUTLIERS);
	t32_estimate(x, N, Q, &e);
	struct t32_hist h = { 0 };
	for (size_t i = 0; i < N; i += 1000)
		t32_hist_add(&h, x + i, 1000);
	t32_estimate_hist(&h, Q, &e2);
	ok(e.value == e2.value && e.lo == e2.lo && e.hi == e2.hi && e.n == e2.n,
	   "estimate from batches equals estimate from the array");
	t32_hist_free(&h);

	/* Block minus empty, per instruction: value and interval over repeated runs. */
	struct t32_estimate blk, emp;
	struct t32_cost c;
	double db = 500.3, de = 120.8, truth = (db - de) / 100;
	worst = 0;
	covered = 0;
	for (int rep = 0; rep < 40; rep++) {
		simulate(r, x, N, db, Q, C, OUTLIERS);
		t32_estimate(x, N, Q, &blk);
		simulate(r, x, N, de, Q, C, OUTLIERS);
		t32_estimate(x, N, Q, &emp);
		if (t32_estimate_diff(&blk, &emp, 100, &c) < 0)
			break;
		worst = fmax(worst, fabs(c.value - truth));
		covered += c.lo <= truth && truth <= c.hi;
	}
	ok(worst < 0.02 * Q / 100, "per instruction: (block - empty) / n within 2%% of q / n "
	   "(worst %.5f)", worst);
	ok(covered >= 34, "per instruction: the interval holds the truth %d times of 40", covered);
	is_double(hypot(blk.hi - blk.value, emp.value - emp.lo) / 100, c.hi - c.value, 1e-12,
		  "upper half-width adds in quadrature");
	is_double(hypot(blk.value - blk.lo, emp.hi - emp.value) / 100, c.value - c.lo, 1e-12,
		  "lower half-width adds in quadrature");
	ok(t32_estimate_diff(&blk, &emp, 0, &c) == -1, "n = 0 is an error");
	blk.flags = T32_EST_FEW;
	emp.flags = T32_EST_LEVELS;
	t32_estimate_diff(&blk, &emp, 1, &c);
	is_int(T32_EST_FEW | T32_EST_LEVELS, c.flags, "flags of both carry over");

	free(x);
	gsl_rng_free(r);
	return done_testing();
}
