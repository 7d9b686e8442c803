/*
 * rng.h - the seeded generator of the C tests that draw noise: Mersenne Twister,
 * seeded so that every run of a test draws the same numbers.
 */
#ifndef T32_T_RNG_H
#define T32_T_RNG_H

#include <gsl/gsl_rng.h>

#include "t/tap.h"

/* A generator seeded with seed (gsl_rng_free it); bails when out of memory. */
static inline gsl_rng *test_rng(unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	if (!r)
		bail("out of memory");
	gsl_rng_set(r, seed);
	return r;
}

#endif
