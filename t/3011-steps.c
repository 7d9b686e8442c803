/*
 * 3011-steps - change points, plateaus and the period of a staircase.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/fit.h"
#include "t/rng.h"
#include "t/tap.h"

#define N 300

int main(void)
{
	gsl_rng *r = test_rng(3011);
	double x[N], y[N], xs[N], ys[N];
	struct t32_steps s, s2;

	plan(39);

	/* The minimum of n = 1..100 under a TSC of step 21 at 37 n per step: exact data. */
	for (int i = 0; i < 100; i++) {
		x[i] = i + 1;
		y[i] = 105 + 21 * floor((x[i] + 5) / 37);
	}
	ok(t32_steps_find(x, y, 100, NULL, &s) == 0, "exact staircase");
	is_int(2, s.nsteps, "two steps");
	ok(s.nsteps == 2 && s.steps[0].x == 32 && s.steps[1].x == 69,
	   "at n = 32 and 69");
	ok(s.nsteps == 2 && s.steps[0].x_before == 31, "the point before the first step");
	is_double(21, s.height_mean, 1e-12, "each 21 high");
	ok(s.nplateaus == 3 && s.plateaus[0].points == 31 && s.plateaus[1].points == 37 &&
	   s.plateaus[2].points == 32, "plateaus of 31, 37, 32 points");
	ok(s.nplateaus == 3 && s.plateaus[1].level == 126 && s.plateaus[1].x0 == 32 &&
	   s.plateaus[1].x1 == 68, "middle plateau: level 126 from 32 to 68");
	is_double(37, s.period, 1e-12, "two steps: the period is their distance");
	is_int(0, s.periodic, "two steps are not yet a rhythm");
	t32_steps_free(&s);

	/*
	 * The same staircase with a point caught part-way up each jump, as a block
	 * that straddles a TSC step reads: n = 31 a quarter of the way up joins the
	 * plateau below (the step stays at 32), n = 68 most of the way up joins the
	 * plateau above (the step comes one n early, at 68).
	 */
	y[30] = 110;
	y[67] = 143;
	ok(t32_steps_find(x, y, 100, NULL, &s) == 0 && s.nsteps == 2, "part-way points: two steps");
	ok(s.nsteps == 2 && s.steps[0].x == 32 && s.steps[0].x_before == 31,
	   "a point a quarter of the way up stays on the plateau below: step at 32 (%g)",
	   s.nsteps ? s.steps[0].x : 0);
	ok(s.nsteps == 2 && s.steps[1].x == 68 && s.steps[1].x_before == 67,
	   "a point most of the way up joins the plateau above: step at 68 (%g)",
	   s.nsteps == 2 ? s.steps[1].x : 0);
	t32_steps_free(&s);

	/* A long noisy staircase: period 25, height 3, noise sd 0.2. */
	for (int i = 0; i < N; i++) {
		x[i] = i + 1;
		y[i] = 40 + 3 * floor((x[i] - 7) / 25) + gsl_ran_gaussian(r, 0.2);
	}
	ok(t32_steps_find(x, y, N, NULL, &s) == 0, "noisy staircase");
	is_int(12, s.nsteps, "12 steps in 300 points");
	is_double(25, s.period, 0.01, "period 25");
	ok(s.periodic && s.regular == 1, "periodic, every step on the grid");
	is_double(3, s.height_mean, 0.1, "mean height 3");
	ok(s.height_sd < 0.2, "heights alike (sd %.3f)", s.height_sd);
	is_double(0.2, s.noise, 0.06, "noise estimated from the data");
	ok(s.nsteps == 12 && s.steps[0].x == 7 && s.steps[11].x == 282,
	   "steps at 7 ... 282 (%g ... %g)", s.steps[0].x, s.steps[s.nsteps - 1].x);

	/* The same points shuffled give the same answer. */
	for (int i = 0; i < N; i++) {
		xs[i] = x[(i * 7) % N];
		ys[i] = y[(i * 7) % N];
	}
	ok(t32_steps_find(xs, ys, N, NULL, &s2) == 0 && s2.nsteps == s.nsteps &&
	   s2.period == s.period, "order of the points does not matter");
	t32_steps_free(&s2);

	/* A spike is not two steps. */
	y[100] += 10;
	y[200] -= 10;
	ok(t32_steps_find(x, y, N, NULL, &s2) == 0 && s2.nsteps == 12, "spikes up and down ignored");
	t32_steps_free(&s2);
	t32_steps_free(&s);

	/* A period that is not a whole number of points: 37.5. */
	for (int i = 0; i < N; i++) {
		x[i] = i + 1;
		y[i] = 10 + floor(x[i] / 37.5) + gsl_ran_gaussian(r, 0.03);
	}
	t32_steps_find(x, y, N, NULL, &s);
	is_int(8, s.nsteps, "8 steps of period 37.5");
	is_double(37.5, s.period, 0.05, "period 37.5 from steps 37 and 38 apart");
	ok(s.periodic, "periodic");
	t32_steps_free(&s);

	/* Up and down again at regular distances: jumps on a grid, but no staircase's rhythm. */
	for (int i = 0; i < 119; i++) {
		x[i] = i + 1;
		y[i] = 10 + (x[i] >= 20 && ((int)(x[i] - 20) / 25) % 2 == 0 ? 3 : 0) +
		       gsl_ran_gaussian(r, 0.03);
	}
	t32_steps_find(x, y, 119, NULL, &s);
	ok(s.nsteps == 4 && s.regular == 1, "four jumps, 25 apart (%zu)", s.nsteps);
	is_int(0, s.periodic, "rises and falls are not periodic");
	t32_steps_free(&s);

	/*
	 * Period 2: each jump only twice what the slope adds per point, the rounding of
	 * a line of slope 1/2, not steps.  Period 8: steps.
	 */
	for (int i = 0; i < 60; i++) {
		x[i] = i;
		y[i] = 5 + floor(x[i] / 2) + gsl_ran_gaussian(r, 0.02);
	}
	t32_steps_find(x, y, 60, NULL, &s);
	is_int(0, s.nsteps, "period 2: a line, no steps");
	t32_steps_free(&s);
	for (int i = 0; i < 60; i++)
		y[i] = 5 + floor(x[i] / 8) + gsl_ran_gaussian(r, 0.02);
	t32_steps_find(x, y, 60, NULL, &s);
	is_int(7, s.nsteps, "period 8: 7 steps in 60 points");
	is_double(8, s.period, 1e-9, "period 8");
	t32_steps_free(&s);

	/* Flat and noisy: one plateau. */
	for (int i = 0; i < 100; i++)
		y[i] = 50 + gsl_ran_gaussian(r, 0.5);
	t32_steps_find(x, y, 100, NULL, &s);
	ok(s.nsteps == 0 && s.nplateaus == 1 && s.plateaus[0].points == 100, "noise alone: no step");
	is_double(0, s.period, 0, "no steps: no period");
	t32_steps_free(&s);

	/*
	 * Jumps of 0.4 in noise of sd 0.1 (under three sds of a difference): noise at
	 * the default k of 5, steps when k is 2.
	 */
	gsl_rng_set(r, 3011);
	for (int i = 0; i < 200; i++) {
		x[i] = i;
		y[i] = 50 + 0.4 * floor(i / 40.0) + gsl_ran_gaussian(r, 0.1);
	}
	t32_steps_find(x, y, 200, NULL, &s);
	is_int(0, s.nsteps, "jumps under three noise sds: no steps at the default k");
	t32_steps_free(&s);
	{
		struct t32_steps_opts k2 = { .k = 2 };

		t32_steps_find(x, y, 200, &k2, &s);
		ok(s.nsteps > 0, "but steps with k = 2 (%zu)", s.nsteps);
		t32_steps_free(&s);
	}

	/* Irregular steps: no rhythm. */
	for (int i = 0; i < 100; i++) {
		x[i] = i;
		y[i] = 10 + (i >= 10) + (i >= 20) + (i >= 55) + (i >= 60) + (i >= 90);
	}
	t32_steps_find(x, y, 100, NULL, &s);
	is_int(5, s.nsteps, "five irregular steps");
	is_int(0, s.periodic, "irregular steps are not periodic");
	t32_steps_free(&s);

	/* min_jump: jumps below it are not steps. */
	struct t32_steps_opts o = { 1.5, 0 };
	t32_steps_find(x, y, 100, &o, &s);
	is_int(0, s.nsteps, "jumps of 1 below a min_jump of 1.5");
	t32_steps_free(&s);

	/* One point; none. */
	ok(t32_steps_find(x, y, 1, NULL, &s) == 0 && s.nplateaus == 1 && s.nsteps == 0,
	   "one point: one plateau");
	t32_steps_free(&s);
	ok(t32_steps_find(x, y, 0, NULL, &s) == -1, "no points: error");

	gsl_rng_free(r);
	return done_testing();
}
