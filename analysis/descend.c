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

double t32_descend(const struct t32_descent *d, unsigned long *v, long skip)
{
	double best = d->f(d->ctx, v);

	for (int pass = 0; pass < d->passes; pass++) {
		int moved = 0;

		for (size_t j = 0; j < d->np; j++) {
			unsigned long keep = v[j], bestv = v[j];
			double fkeep = best, fbest = best;

			if ((long)j == skip)
				continue;
			for (unsigned long x = d->p[j].lo; x <= d->p[j].hi; x++) {
				double f;

				if (x == keep)
					continue;
				v[j] = x;
				f = d->f(d->ctx, v);
				if (t32_descend_better(f, fbest)) {
					fbest = f;
					bestv = x;
				}
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

	for (size_t j = 0; j < d->np; j++) {
		double f;

		if (best_v[j] == start[j])
			continue;
		memcpy(t, best_v, d->np * sizeof(*t));
		t[j] = start[j];
		f = t32_descend(d, t, (long)j);
		if (!(f < best - T32_DESCEND_SIGNIF))
			continue;	/* not clearly better */
		best = f;
		memcpy(best_v, t, d->np * sizeof(*t));
	}
	return best;
}

void t32_descend_profile(t32_objective_fn f, void *ctx, const unsigned long *v, size_t np,
			 size_t j, unsigned long lo, unsigned long hi, double *prof)
{
	unsigned long t[T32_DESCEND_MAX_PARAMS];

	memcpy(t, v, np * sizeof(*t));
	for (unsigned long x = lo; x <= hi; x++) {
		t[j] = x;
		prof[x - lo] = f(ctx, t);
	}
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
