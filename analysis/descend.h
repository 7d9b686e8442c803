/*
 * descend.h - integer coordinate descent, shared by the per-block fit
 * (correlate.c) and the per-machine fit (learn.c).  The retirement model is a
 * function of integers with plateaus, so each parameter is scanned over its
 * whole range in turn; a value leaves its start only for a significant drop.
 */
#ifndef T32_DESCEND_H
#define T32_DESCEND_H

#include <stddef.h>

#include "analysis/correlate.h"

/*
 * A parameter leaves the value it has (the micro-architecture's, to begin with)
 * only for one that lowers the objective by more than this: the 95% point of
 * chi-square on one degree of freedom.  A difference the data cannot tell from
 * noise does not move a documented value.
 */
#define T32_DESCEND_SIGNIF 3.84
#define T32_DESCEND_TIE 1e-9	/* relative: objectives closer than this are equal */
#define T32_DESCEND_MAX_PARAMS 24	/* parameters at most */

/* The objective at v, INFINITY where the model cannot run at v. */
typedef double (*t32_objective_fn)(void *ctx, const unsigned long *v);
/*
 * The objective at count points at once (vs holds np values a point), into
 * out: what a caller gives that can run them side by side.
 */
typedef void (*t32_objective_many_fn)(void *ctx, const unsigned long *vs, size_t count,
				      double *out);

struct t32_descent {
	const struct t32_corr_param *p;	/* np parameters: their ranges lo..hi and keys */
	size_t np;			/* at most T32_DESCEND_MAX_PARAMS */
	int passes;			/* passes over the parameters at most */
	t32_objective_fn f;
	void *ctx;
	/*
	 * NULL, or f at many points at once: a scan along one parameter asks for
	 * all its values together.  It must give what f gives at each point.
	 */
	t32_objective_many_fn many;
};

/* Is a better than b by more than the tie tolerance (a finite a beats an infinite b)? */
int t32_descend_better(double a, double b);
/*
 * Descent over every parameter but skip (-1: none) from v: each scanned over its
 * range, the best kept only for a significant drop, until a pass changes nothing.
 * Returns the objective at v, v the values reached.
 */
double t32_descend(const struct t32_descent *d, unsigned long *v, long skip);
/*
 * The descent again from every other retire group (held there while the rest
 * descend): a group and the delays that line it up only help together.  One
 * wins only where it is clearly better than best (the objective at best_v).
 * Returns the best objective, best_v its values.
 */
double t32_descend_group_starts(const struct t32_descent *d, unsigned long *best_v, double best);
/*
 * The descent again from the starting value (start[j]) of every parameter the
 * descent moved from it, held there while the rest descend: a documented value
 * the first moves left behind gets its say once the others have settled (a
 * width and the delays that line up with it only help together, as a group
 * does).  One wins only where it is clearly better than best (the objective at
 * best_v).  Returns the best objective, best_v its values.
 */
double t32_descend_start_again(const struct t32_descent *d, unsigned long *best_v, double best,
			       const unsigned long *start);
/*
 * The objective along parameter j of d at v (the others held at v), over
 * lo..hi into prof[0..hi - lo]: the profile an interval is read from.
 */
void t32_descend_profile(const struct t32_descent *d, const unsigned long *v, size_t j,
			 unsigned long lo, unsigned long hi, double *prof);

#endif
