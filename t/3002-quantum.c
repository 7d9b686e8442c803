/*
 * 3002-quantum - the TSC's step found in the deltas themselves.
 */
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/stats.h"
#include "t/tap.h"

#define N 20000

/*
 * Deltas of a block of true duration d ticks (plus a shared offset c), read with a
 * TSC of step q at a random phase, a little noise on top.
 */
static void simulate(gsl_rng *r, uint64_t *out, size_t n, double d, uint64_t q, uint64_t c)
{
	for (size_t i = 0; i < n; i++) {
		double t0 = gsl_rng_uniform(r) * q;
		double e = gsl_rng_uniform(r) < 0.2 ? gsl_ran_exponential(r, 1.5 * q) : 0;
		uint64_t a = (uint64_t)(t0 / q), b = (uint64_t)((t0 + d + e) / q);
		out[i] = (b - a) * q + c;
	}
}

int main(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	uint64_t *x = malloc(N * sizeof(*x));
	uint64_t q, off;
	double share;

	if (!r || !x)
		bail("out of memory");
	gsl_rng_set(r, 3002);
	plan(22);

	/* Bare metal: a step of one tick, deltas spread over neighbouring integers. */
	simulate(r, x, N, 153.4, 1, 0);
	is_int(1, t32_quantum(x, N, &off, &share), "q = 1 on deltas of every integer");

	/* This VM: multiples of 21 plus an offset. */
	simulate(r, x, N, 100.3, 21, 5);
	q = t32_quantum(x, N, &off, &share);
	is_int(21, q, "q = 21");
	is_int(5, off, "offset 5 of the 21-lattice");
	is_double(1, share, 0, "all samples on the lattice");

	/* Outliers seen once do not break the gcd. */
	x[10] = 100003;
	x[20] = 77;
	x[30] = 1234567;
	q = t32_quantum(x, N, &off, &share);
	is_int(21, q, "q = 21 with three lone outliers");
	is_int(5, off, "offset with outliers");
	ok(share < 1 && share > 0.999, "share counts the outliers out (%.5f)", share);

	/* An outlier seen a few times does not break it either while 21 explains >= 99%. */
	x[40] = x[41] = x[42] = 999;
	is_int(21, t32_quantum(x, N, NULL, NULL), "q = 21 with an outlier seen three times");

	/* A step of 24 with offset 0 (a TSC at another ratio). */
	simulate(r, x, N, 250.9, 24, 0);
	x[7] = 13;
	q = t32_quantum(x, N, &off, &share);
	is_int(24, q, "q = 24");
	is_int(0, off, "offset 0");

	/* A step of 24 with offset 11, on a larger block. */
	simulate(r, x, N, 2500.2, 24, 11);
	q = t32_quantum(x, N, &off, NULL);
	is_int(24, q, "q = 24 at offset 11");
	is_int(11, off, "offset 11");

	/* When a quarter of the samples are off the lattice, no step explains 99%. */
	simulate(r, x, N, 100.3, 21, 5);
	for (size_t i = 0; i < N / 4; i++)
		x[i] = 200 + i % 7;
	is_int(1, t32_quantum(x, N, &off, &share), "q = 1 when a quarter of the samples disagree");

	/* One value only: no evidence of a step. */
	for (size_t i = 0; i < N; i++)
		x[i] = 168;
	is_int(1, t32_quantum(x, N, NULL, NULL), "q = 1 from a single level");
	x[5] = 189;
	is_int(1, t32_quantum(x, N, NULL, NULL), "q = 1 when the second level is seen once");
	x[6] = 189;
	is_int(21, t32_quantum(x, N, &off, NULL), "q = 21 once the second level repeats");
	is_int(0, off, "168 = 8 * 21");

	/* The two lowest levels need not be the closest: 42 apart and then 21. */
	for (size_t i = 0; i < N; i++)
		x[i] = i % 10 < 6 ? 105 : i % 10 < 9 ? 147 : 126;
	is_int(21, t32_quantum(x, N, NULL, NULL), "q = 21 from levels 105, 147 and a rarer 126");

	/* A share of 99% is enough: 0.5% off the lattice are ignored. */
	for (size_t i = 0; i < N; i++)
		x[i] = i % 2 ? 105 : 126;
	for (size_t i = 0; i < N / 200; i++)
		x[i * 200] = 130 + i % 3;
	q = t32_quantum(x, N, &off, &share);
	is_int(21, q, "q = 21 with 0.5%% of repeated values off the lattice");
	ok(share > 0.99 && share < 1, "their share is reported (%.4f)", share);

	is_int(1, t32_quantum(x, 0, &off, &share), "no samples: q = 1");
	is_int(0, off, "no samples: offset 0");

	free(x);
	gsl_rng_free(r);
	return done_testing();
}
