/*
 * 3004-stopping - Wilson intervals for shares and the rule that stops sampling.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/stats.h"
#include "t/tap.h"

int main(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	double lo, hi, lo2, hi2, z = 1.959963984540054;

	if (!r)
		bail("out of memory");
	gsl_rng_set(r, 3004);
	plan(30);

	is_double(z, t32_z(0.95), 1e-9, "z for 95%%");
	is_double(2.5758293035489, t32_z(0.99), 1e-9, "z for 99%%");

	t32_wilson(0, 0, z, &lo, &hi);
	ok(lo == 0 && hi == 1, "no trials: [0, 1]");
	t32_wilson(0, 100, z, &lo, &hi);
	is_double(0, lo, 0, "k = 0: lower bound 0");
	is_double(z * z / (100 + z * z), hi, 1e-12, "k = 0: upper bound z^2 / (n + z^2)");
	t32_wilson(100, 100, z, &lo, &hi);
	is_double(1, hi, 0, "k = n: upper bound 1");
	is_double(100 / (100 + z * z), lo, 1e-12, "k = n: lower bound n / (n + z^2)");

	int inside = 1, mirror = 1;
	for (uint64_t n = 1; n <= 200; n += 7)
		for (uint64_t k = 0; k <= n; k++) {
			t32_wilson(k, n, z, &lo, &hi);
			t32_wilson(n - k, n, z, &lo2, &hi2);
			double p = (double)k / n;
			inside &= 0 <= lo && lo <= p && p <= hi && hi <= 1;
			mirror &= fabs(lo - (1 - hi2)) < 1e-12;
		}
	ok(inside, "0 <= lo <= k/n <= hi <= 1 for every k, n");
	ok(mirror, "k and n - k give mirrored intervals");

	t32_wilson(30, 100, z, &lo, &hi);
	t32_wilson(300, 1000, z, &lo2, &hi2);
	ok(hi2 - lo2 < (hi - lo) / 3, "ten times the trials, about a third of the width");
	t32_wilson(5000, 10000, z, &lo, &hi);
	is_double(0.5 - z * 0.005, lo, 1e-4, "large n: close to the normal interval (lo)");
	is_double(0.5 + z * 0.005, hi, 1e-4, "large n: close to the normal interval (hi)");
	t32_wilson(30, 100, 2.5758293035489, &lo2, &hi2);
	t32_wilson(30, 100, z, &lo, &hi);
	ok(lo2 < lo && hi2 > hi, "99%% is wider than 95%%");

	/* Coverage: a 95% interval holds the true share about 95% of the time. */
	int cover = 0, small = 0;
	for (int i = 0; i < 4000; i++) {
		unsigned k = gsl_ran_binomial(r, 0.3, 100);
		t32_wilson(k, 100, z, &lo, &hi);
		cover += lo <= 0.3 && 0.3 <= hi;
		k = gsl_ran_binomial(r, 0.02, 50);
		t32_wilson(k, 50, z, &lo, &hi);
		small += lo <= 0.02 && 0.02 <= hi;
	}
	ok(cover >= 0.92 * 4000 && cover <= 0.98 * 4000, "coverage at p = 0.3, n = 100: %.3f",
	   cover / 4000.0);
	ok(small >= 0.88 * 4000, "coverage at p = 0.02, n = 50 (where the normal one fails): %.3f",
	   small / 4000.0);

	is_double(2, t32_halfwidth(10, 8, 11), 0, "half-width is the larger side");

	/* The stopping rule. */
	struct t32_stop_rule rule = { 0.1, 1000, 100000 };
	is_int(T32_GO_ON, t32_stop_check(&rule, 0.2, 5000), "wider than the target: go on");
	is_int(T32_STOP_PRECISE, t32_stop_check(&rule, 0.1, 5000), "at the target: stop");
	is_int(T32_GO_ON, t32_stop_check(&rule, 0.01, 500), "precise but before min_n: go on");
	is_int(T32_STOP_LIMIT, t32_stop_check(&rule, 0.2, 100000), "at max_n: stop at the limit");
	is_int(T32_STOP_PRECISE, t32_stop_check(&rule, 0.05, 100000),
	       "precise at max_n: precise wins");
	is_int(T32_GO_ON, t32_stop_check(&rule, NAN, 5000), "unknown half-width: go on");
	struct t32_stop_rule limit_only = { 0, 0, 300 };
	is_int(T32_GO_ON, t32_stop_check(&limit_only, 0, 299), "no target: go on below max_n");
	is_int(T32_STOP_LIMIT, t32_stop_check(&limit_only, 0, 300), "no target: stop at max_n");

	is_int(4400, t32_stop_next(&rule, 0.2, 1000), "twice the target: four times n, 10%% spare");
	is_int(2000, t32_stop_next(&rule, NAN, 1000), "unknown half-width: twice n");
	is_int(100000, t32_stop_next(&rule, 1.0, 10000), "never beyond max_n");
	is_int(1000, t32_stop_next(&rule, NAN, 0), "first batch: min_n");

	/* The rule driving the estimator: batches until 0.1 tick, on simulated deltas. */
	struct t32_hist h = { 0 };
	struct t32_estimate e;
	uint64_t batch[100000];
	double d = 333.3;
	enum t32_stop st = T32_GO_ON;
	uint64_t want = t32_stop_next(&rule, NAN, 0);
	int rounds = 0;
	while (st == T32_GO_ON && rounds++ < 50) {
		size_t m = want - h.n;
		for (size_t i = 0; i < m; i++) {
			double t0 = gsl_rng_uniform(r) * 21;
			batch[i] = 21 * ((uint64_t)((t0 + d) / 21) - (uint64_t)(t0 / 21));
		}
		if (t32_hist_add(&h, batch, m) < 0)
			bail("out of memory");
		t32_estimate_hist(&h, 21, &e);
		double hw = t32_halfwidth(e.value, e.lo, e.hi);
		st = t32_stop_check(&rule, hw, h.n);
		want = t32_stop_next(&rule, hw, h.n);
	}
	is_int(T32_STOP_PRECISE, st, "adaptive sampling stops on precision (after %llu samples)",
	       (unsigned long long)h.n);
	ok(fabs(e.value - d) < 0.3 && h.n < 100000,
	   "and the estimate is within 3 targets of the truth (%.3f)", e.value);
	t32_hist_free(&h);

	gsl_rng_free(r);
	return done_testing();
}
