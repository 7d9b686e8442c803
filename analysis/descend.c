/*
 * descend.c - integer coordinate descent (see descend.h).
 */
#include "analysis/descend.h"

#include <math.h>
#include <string.h>

int t32_descend_better(double a, double b)
{
	if (!isfinite(b))
		return isfinite(a);
	return a < b - T32_DESCEND_TIE * (1 + fabs(b));
}

#define DESCEND_BATCH 32	/* points asked of d->many at once, at most */

/*
 * The objective along parameter j at v for the next values from *x on, up to
 * hi but the value `but` (which the caller knows): their values into xs, the
 * objective into f, their count returned (0 past hi) and *x moved past them.
 * A batch runs at once where d runs many.
 */
static size_t descend_batch(const struct t32_descent *d, const unsigned long *v, size_t j,
			    unsigned long *x, unsigned long hi, unsigned long but,
			    unsigned long *xs, double *f)
{
	unsigned long vs[DESCEND_BATCH * T32_DESCEND_MAX_PARAMS];
	size_t count = 0;

	for (; *x <= hi && count < DESCEND_BATCH; ++*x) {
		if (*x == but)
			continue;
		memcpy(&vs[count * d->np], v, d->np * sizeof(*v));
		vs[count * d->np + j] = *x;
		xs[count++] = *x;
	}
	if (count && d->many) {
		d->many(d->ctx, vs, count, f);
	} else {
		for (size_t k = 0; k < count; k++)
			f[k] = d->f(d->ctx, &vs[k * d->np]);
	}
	return count;
}

double t32_descend(const struct t32_descent *d, unsigned long *v, long skip)
{
	double best = d->f(d->ctx, v), f[DESCEND_BATCH];
	unsigned long xs[DESCEND_BATCH];

	for (int pass = 0; pass < d->passes; pass++) {
		int moved = 0;

		for (size_t j = 0; j < d->np; j++) {
			unsigned long keep = v[j], bestv = v[j], x = d->p[j].lo;
			double fkeep = best, fbest = best;
			size_t count;

			if ((long)j == skip)
				continue;
			/* in order of value, so a tie goes to the lowest as it always has */
			while ((count = descend_batch(d, v, j, &x, d->p[j].hi, keep, xs, f)))
				for (size_t k = 0; k < count; k++)
					if (t32_descend_better(f[k], fbest)) {
						fbest = f[k];
						bestv = xs[k];
					}
			if (!(fbest < fkeep - T32_DESCEND_SIGNIF))
				bestv = keep;
			else
				best = fbest;
			v[j] = bestv;
			moved |= bestv != keep;
		}
		if (!moved)
			break;
	}
	return best;
}

double t32_descend_start_again(const struct t32_descent *d, unsigned long *best_v, double best,
			       const unsigned long *start)
{
	unsigned long t[T32_DESCEND_MAX_PARAMS];
	double floor = best;	/* the least objective seen */

	for (size_t j = 0; j < d->np; j++) {
		double f;

		if (best_v[j] == start[j])
			continue;
		memcpy(t, best_v, d->np * sizeof(*t));
		t[j] = start[j];
		f = t32_descend(d, t, (long)j);
		/*
		 * back at its start unless that is clearly worse than the least seen: a
		 * parameter leaves its starting value only where the data ask (two
		 * delays that move together can fit the probes alike at 0 and at 2)
		 */
		if (f > floor + T32_DESCEND_SIGNIF)
			continue;
		if (f < floor)
			floor = f;
		best = f;
		memcpy(best_v, t, d->np * sizeof(*t));
	}
	return best;
}

void t32_descend_profile(const struct t32_descent *d, const unsigned long *v, size_t j,
			 unsigned long lo, unsigned long hi, double *prof)
{
	double f[DESCEND_BATCH];
	unsigned long xs[DESCEND_BATCH], x = lo;
	size_t count;

	/* one past hi: no value left out */
	while ((count = descend_batch(d, v, j, &x, hi, hi + 1, xs, f)))
		for (size_t k = 0; k < count; k++)
			prof[xs[k] - lo] = f[k];
}

double t32_descend_group_starts(const struct t32_descent *d, unsigned long *best_v, double best)
{
	unsigned long t[T32_DESCEND_MAX_PARAMS];

	for (size_t g = 0; g < d->np; g++) {
		if (strcmp(d->p[g].key, "retire_group") != 0)
			continue;
		for (unsigned long x = d->p[g].lo; x <= d->p[g].hi; x++) {
			double f;

			if (x == best_v[g])
				continue;
			memcpy(t, best_v, d->np * sizeof(*t));
			t[g] = x;
			f = t32_descend(d, t, (long)g);
			if (f < best - T32_DESCEND_SIGNIF) {
				best = f;
				memcpy(best_v, t, d->np * sizeof(*t));
			}
		}
	}
	return best;
}
