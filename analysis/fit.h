/*
 * fit.h - lines and steps in a sweep (cost against n).
 *
 * t32_linfit fits y = a + b x robustly (GSL bisquare), so a few disturbed points
 * of a sweep do not tilt the per-instruction cost b.  t32_steps finds where a
 * curve such as the minimum-based cycles of n = 1..100 copies of `inc eax` jumps
 * by a TSC step, the plateaus between the jumps, and whether the jumps repeat
 * with a period; a curve that rises steadily, however noisy, has none.
 */
#ifndef T32_FIT_H
#define T32_FIT_H

#include <stddef.h>

#define T32_FIT_ROBUST_MIN 8	/* below this many points: ordinary least squares */

/* y = a + b x.  Units: a in y's unit, b in y's unit per x's unit. */
struct t32_linfit {
	double a, b;		/* intercept, slope */
	double se_a, se_b;	/* their standard errors; NaN when n == 2 */
	double r2;		/* coefficient of determination */
	double rms;		/* y unit: root mean square of all residuals */
	double sigma;		/* y unit: scale of the residuals (the robust scale when robust) */
	size_t n;		/* points */
	size_t rejected;	/* points the bisquare weighted 0 (outliers) */
	int robust;		/* 1: bisquare robust fit; 0: ordinary least squares */
};

/*
 * Fit y = a + b x to n points; resid (may be NULL) gets y - a - b x for each.
 * Robust (bisquare) from T32_FIT_ROBUST_MIN points on, ordinary least squares
 * below that or when the robust fit fails.  Returns 0, or -1 when n < 2, all x
 * are equal, a value is not finite, or out of memory.
 */
int t32_linfit(const double *x, const double *y, size_t n, double *resid, struct t32_linfit *f);

/* A run of near-equal values. */
struct t32_plateau {
	size_t first, last;	/* indices into the x-sorted points, inclusive */
	double x0, x1;		/* x of its first and last point */
	double level;		/* y unit: median y over the run (an outlier at its neighbours' value) */
	size_t points;		/* last - first + 1 */
};

/* A jump between two plateaus. */
struct t32_step {
	double x;		/* x of the first point after the jump */
	double x_before;	/* x of the last point before it */
	double height;		/* y unit: level after minus level before (negative: a drop) */
};

struct t32_steps {
	struct t32_plateau *plateaus;
	size_t nplateaus;
	struct t32_step *steps;		/* nplateaus - 1 of them */
	size_t nsteps;
	double noise;		/* y unit: robust sd of one point's y about the local trend */
	double threshold;	/* y unit: the smallest jump counted as a step anywhere (where
				   the neighbours are noisier, more is asked) */
	/* The steps' rhythm, from the steps' x (meaningful when nsteps >= 2). */
	double period;		/* x unit: fitted distance between steps; 0 when nsteps < 2 */
	double period_rms;	/* x unit: rms of step positions around the fitted grid */
	double regular;		/* share of steps within a quarter period of the grid, 0..1 */
	int periodic;		/* 1: >= 3 steps, all rising or all falling, and >= 80% of
				   them on the grid */
	double height_mean;	/* y unit: mean step height */
	double height_sd;	/* y unit: their standard deviation (0 when one step) */
};

/* Tuning of t32_steps_find; { 0 } gives the defaults. */
struct t32_steps_opts {
	double min_jump;	/* y unit: jumps below this are never steps; <= 0: 1e-9 of the
				   largest |y| (rounding) */
	double k;		/* a step is a jump > k noise sds of a difference; <= 0: 5 */
};

/*
 * Find the steps of y against x (n points in any order; they are sorted by x).
 * Each difference of neighbouring points is judged against the 10 differences on
 * either side: the local slope (least squares through them) and, once that is
 * taken out, their median and robust sd (GSL's Qn).  A step is a difference that
 * stands out of that median by more than k sds and min_jump, and across which
 * the levels (the median of three points on either side) differ by more than
 * the slope explains and by at least 6 times what the slope adds from one point
 * to the next.  So a line, however noisy, has no steps, and neither has a
 * staircase whose treads are shorter than 6 points: that is the rounding of a
 * line (a TSC of step q ticks at r core cycles per tick gives a 1-cycle
 * instruction treads of q r points).  A curve needs about ten points for a step
 * to be told from its slope.  An outlier (a point off the line through its
 * neighbours, by more than they lie apart and by the threshold) is first set to
 * what its neighbours say, so it is neither a step nor two; one or two points
 * between jumps of opposite sign are a burst, not steps; a lone point half way
 * up a jump joins the nearer plateau; neighbour plateaus closer than the
 * threshold merge.  A lone point at either end cannot be told from a step.
 * Steps are placed at the first point after the jump, within one point of it
 * beside an outlier.  Fills s (free with t32_steps_free).  Returns 0, or -1 when
 * n == 0, a value is not finite, or out of memory.
 */
int t32_steps_find(const double *x, const double *y, size_t n, const struct t32_steps_opts *o,
		   struct t32_steps *s);
void t32_steps_free(struct t32_steps *s);

#endif
