/*
 * 3013-steps-tsc - the steps of the study's minimum-based curve under TSCs of any
 * step, and no steps in straight lines.
 *
 * The model.  n copies of a 1-cycle instruction after b cycles of barrier take
 * b + n core cycles, (b + n) / r TSC ticks at r core cycles per tick.  A TSC that
 * advances q ticks at a time reads a block of T ticks, started at a uniform phase,
 * as q floor(T / q) or one step more, so the minimum of many runs is q floor(T / q).
 * The study's (min - min) / n, times n and in cycles, is then
 *
 *	y(n) = r q (floor((b + n) / (r q)) - floor(b / (r q)))
 *
 * flat for r q copies at a time, then one step (q ticks, r q cycles) higher.  A
 * step is a jump of at least six times what the slope adds from one n to the
 * next (fit.h); here the slope is 1 cycle per n and a step r q cycles, so where
 * r q is under six the staircase is the rounding of that line (r q = 1 is the
 * line exactly) and no steps are expected.  The grid keeps clear of six: q = 2
 * gives at most 4.6, q = 21 at least 21.  Noisy curves carry Gaussian noise of 2%
 * of a step (the measured curve below has about 1%), and three outliers of two to
 * four steps up or down.
 */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/fit.h"
#include "t/rng.h"
#include "t/tap.h"

#define NPTS 100
#define MAXJ 100

/* The minimum-based cost in core cycles of n copies (see the top of this file). */
static double min_curve(double n, double q, double r, double b)
{
	return r * q * (floor((b + n) / (r * q)) - floor(b / (r * q)));
}

/* The n of the first point after each jump of y over x = 1..NPTS; their count. */
static size_t true_jumps(const double *x, const double *y, double *at)
{
	size_t nj = 0;

	for (size_t i = 1; i < NPTS; i++)
		if (y[i] > y[i - 1])
			at[nj++] = x[i];
	return nj;
}

/* The found steps as "x(+height) ..." into buf, for a diagnostic. */
static const char *list_steps(const struct t32_steps *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t j = 0; j < s->nsteps && off < len; j++)
		off += (size_t)snprintf(buf + off, len - off, "%s%g(%+.3g)", j ? " " : "",
					s->steps[j].x, s->steps[j].height);
	return buf;
}

/* One test: no steps in y over x (n points), those found diag'd; the plateaus' count. */
static size_t no_steps(const double *x, const double *y, size_t n, const char *name)
{
	struct t32_steps s;
	char buf[2048];
	size_t plateaus;

	if (t32_steps_find(x, y, n, NULL, &s) != 0)
		bail("t32_steps_find failed");
	if (!is_int(0, s.nsteps, "%s: no steps", name))
		diag("found: %s", list_steps(&s, buf, sizeof(buf)));
	plateaus = s.nplateaus;
	t32_steps_free(&s);
	return plateaus;
}

/* Every found step within one n of a true jump, one to one, and as many. */
static int steps_at(const struct t32_steps *s, const double *at, size_t nj)
{
	if (s->nsteps != nj)
		return 0;
	for (size_t j = 0; j < nj; j++)
		if (fabs(s->steps[j].x - at[j]) > 1)
			return 0;
	return 1;
}

/* Every found step height within 10% of one TSC step. */
static int heights_are(const struct t32_steps *s, double h)
{
	for (size_t j = 0; j < s->nsteps; j++)
		if (fabs(s->steps[j].height - h) > 0.1 * h)
			return 0;
	return 1;
}

/*
 * Three outliers of two to four steps up or down, apart from each other and from
 * the ends (a lone point at either end cannot be told from a step there).
 */
static void add_outliers(gsl_rng *rng, double *y, double h)
{
	size_t at[3];

	for (int k = 0; k < 3; k++) {
	again:
		at[k] = 2 + gsl_rng_uniform_int(rng, NPTS - 4);
		for (int j = 0; j < k; j++)
			if (at[k] + 4 > at[j] && at[j] + 4 > at[k])
				goto again;
		double o = (2 + 2 * gsl_rng_uniform(rng)) * h;
		y[at[k]] += gsl_rng_uniform(rng) < 0.5 ? o : -o;
	}
}

/* The minimum-based curve of inc eax, n = 1..100, measured on an AMD EPYC VM: q = 26, r = 1.51. */
static const double measured[NPTS] = {
	0.000, 0.000, 0.000, 0.000, 39.082, 39.214, 39.415, 39.458, 39.043, 39.390,
	39.341, 39.440, 39.363, 39.348, 39.267, 39.219, 39.221, 39.231, 39.317, 39.396,
	38.800, 38.023, 38.631, 38.784, 38.570, 38.561, 38.786, 39.152, 38.706, 39.000,
	38.471, 39.098, 39.095, 38.821, 38.559, 38.606, 38.972, 39.383, 38.934, 39.044,
	38.843, 39.022, 39.250, 78.373, 78.642, 77.970, 77.409, 78.096, 78.385, 78.450,
	77.928, 79.196, 78.981, 78.413, 78.595, 78.103, 78.455, 78.022, 77.148, 78.312,
	78.306, 77.853, 77.912, 78.234, 79.319, 78.969, 78.356, 78.499, 79.226, 79.429,
	79.925, 79.891, 79.767, 80.090, 77.707, 78.903, 77.824, 77.891, 77.570, 77.344,
	77.849, 116.743, 116.333, 116.668, 118.575, 119.179, 118.764, 118.853, 118.681, 117.927,
	116.981, 116.895, 117.236, 115.742, 117.905, 118.013, 116.526, 116.620, 114.701, 113.890,
};

/* Straight lines a + b n, Gaussian noise of sd, three outliers of 2 or none. */
static const struct line {
	double a, b, sd;
	int outliers;
	const char *name;
} lines[] = {
	{ 3, 1, 0, 0, "y = 3 + n, n = 1..100" },
	{ 72, 1, 0.3, 0, "1 cycle/insn with noise of 0.3" },
	{ 5, 3, 1, 0, "3 cycles/insn with noise of 1" },
	{ 10, 0.5, 0.05, 1, "0.5 cycles/insn, small noise and three outliers" },
};

int main(void)
{
	static const double qs[] = { 1, 2, 21, 26, 37, 64 };
	static const double rs[] = { 1.0, 1.4, 1.76, 2.3 };
	static const char *const kinds[] = { "exact", "noisy", "noisy with outliers" };
	const size_t nq = sizeof(qs) / sizeof(qs[0]), nr = sizeof(rs) / sizeof(rs[0]);
	gsl_rng *rng = test_rng(3013);
	double x[NPTS], y[NPTS], at[MAXJ];
	char buf[2048], name[128];
	struct t32_steps s;

	plan((int)(nq * nr * 3 * 2) + 10);

	for (int i = 0; i < NPTS; i++)
		x[i] = i + 1;

	/* Staircases of every TSC step and clock ratio, exact, noisy, with outliers. */
	for (size_t iq = 0; iq < nq; iq++) {
		for (size_t ir = 0; ir < nr; ir++) {
			double q = qs[iq], r = rs[ir], h = q * r;
			for (int kind = 0; kind < 3; kind++) {
				/* the barrier's cycles: lfence's 72 and a phase of its own */
				double b = 72 + gsl_rng_uniform(rng) * h;
				for (int i = 0; i < NPTS; i++)
					y[i] = min_curve(x[i], q, r, b);
				size_t nj = h >= 6 ? true_jumps(x, y, at) : 0;
				if (kind >= 1)
					for (int i = 0; i < NPTS; i++)
						y[i] += gsl_ran_gaussian(rng, 0.02 * h);
				if (kind == 2)
					add_outliers(rng, y, h);
				if (h < 6) {
					snprintf(name, sizeof(name), "q = %g, %g cycles/tick, %s: %s",
						 q, r, kinds[kind], "treads under 6 n, a line");
					is_int(1, no_steps(x, y, NPTS, name), "  one plateau");
					continue;
				}
				if (t32_steps_find(x, y, NPTS, NULL, &s) != 0)
					bail("t32_steps_find failed");
				if (!ok(steps_at(&s, at, nj),
					"q = %g, %g cycles/tick, %s: %zu steps at the jumps",
					q, r, kinds[kind], nj)) {
					for (size_t j = 0; j < nj; j++)
						diag("jump at n = %g", at[j]);
					diag("found: %s", list_steps(&s, buf, sizeof(buf)));
				}
				if (!ok(heights_are(&s, h), "  each %g cycles high (one step)", h))
					diag("found: %s", list_steps(&s, buf, sizeof(buf)));
				t32_steps_free(&s);
			}
		}
	}

	/* The measured curve: three steps of 26 ticks (39 cycles), none in the wobble after. */
	t32_steps_find(x, measured, NPTS, NULL, &s);
	if (!ok(s.nsteps == 3 && s.steps[0].x == 5 && s.steps[1].x == 44 && s.steps[2].x == 82,
		"measured curve: steps at n = 5, 44, 82"))
		diag("found: %s", list_steps(&s, buf, sizeof(buf)));
	ok(heights_are(&s, 39.3), "  each about 39.3 cycles high");
	t32_steps_free(&s);

	/*
	 * The same staircase (q = 26, r = 1.51) through the sweep's min_est column: the
	 * per-instruction value rounded to 4 decimals, times n.  The rounding grows with
	 * n while the plateaus are otherwise exact.
	 */
	for (int i = 0; i < NPTS; i++)
		y[i] = min_curve(x[i], 26, 1.51, 70);
	true_jumps(x, y, at);
	for (int i = 0; i < NPTS; i++)
		y[i] = round(1e4 * y[i] / x[i]) / 1e4 * x[i];
	t32_steps_find(x, y, NPTS, NULL, &s);
	if (!ok(steps_at(&s, at, 3), "rounded min_est times n: the 3 steps only"))
		diag("found: %s", list_steps(&s, buf, sizeof(buf)));
	t32_steps_free(&s);

	/* Straight lines: a rise of the same size at every n is a slope, not steps. */
	for (size_t k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
		const struct line *l = &lines[k];
		size_t plateaus;

		for (int i = 0; i < NPTS; i++)
			y[i] = l->a + l->b * x[i] + (l->sd ? gsl_ran_gaussian(rng, l->sd) : 0);
		if (l->outliers)
			add_outliers(rng, y, 2);
		plateaus = no_steps(x, y, NPTS, l->name);
		if (!l->sd)	/* an exact line is one plateau */
			is_int(1, plateaus, "  one plateau");
	}

	/* n = 1..1e5 at 20 points a decade: the rise between points grows with their distance. */
	size_t m = 0;
	for (double e = 0; e <= 5 + 1e-9 && m < NPTS; e += 0.05)
		x[m] = round(pow(10, e)), y[m] = 40 + 1.5 * x[m], m++;
	no_steps(x, y, m, "a line at log-spaced n");

	/* The same line, one step of 2000 at n = 1000 (ten times the rise between points there). */
	for (size_t i = 0; i < m; i++)
		y[i] += x[i] >= 1000 ? 2000 : 0;
	t32_steps_find(x, y, m, NULL, &s);
	ok(s.nsteps == 1 && s.steps[0].x == 1000, "log-spaced n: the one step at n = 1000");
	t32_steps_free(&s);

	gsl_rng_free(rng);
	return done_testing();
}
