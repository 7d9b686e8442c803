/*
 * learn.h - one retirement model for a whole machine: a parameter set fitted to
 * many probe blocks at once (each with its sample counts and step curve, as
 * t32_corr_fit takes them for one block), so that it predicts blocks nobody
 * fitted.  The objective is the sum over the probes of each probe's own
 * (deviance of the counts plus chi-square of the curve, each balanced by the
 * probe's misfit, plus the penalty of a model that runs the probe at the wrong
 * speed); the search is the integer coordinate descent of correlate.c over the
 * joint objective, and every parameter gets the interval of values whose joint
 * objective stays within the (misfit-scaled) one-sd rise, or "undetermined"
 * where the probes do not pick a value.
 */
#ifndef T32_LEARN_H
#define T32_LEARN_H

#include <stddef.h>

#include "analysis/correlate.h"
#include "analysis/uarch.h"

#define T32_LEARN_MAX_PARAMS 24	/* parameters learned at once */

/* One probe: a block measured on the machine, as t32_corr_fit takes it. */
struct t32_learn_probe {
	const char *name;
	const struct t32_lattab *tab;	/* latencies: the block's measured ones before the shipped table */
	const struct t32_insn *insns;	/* the unit, decoded */
	size_t n;
	struct t32_corr_data d;		/* counts, curve, loop as sampled */
	int held;			/* 1: left out of the fit (predicted only) */
};

struct t32_learn_result {
	struct t32_uarch u;		/* the learned micro-architecture */
	size_t np;
	struct t32_corr_param p[T32_LEARN_MAX_PARAMS];	/* as t32_corr_fit reports them */
	double objective;		/* joint, at the learned values */
	double scale;			/* sqrt(max(1, objective / dof)): widens the intervals */
	size_t probes;			/* probes fitted (not held) */
	size_t evals;			/* model runs (one probe each) */
};

/*
 * The parameters worth learning from these probes: retire_width and
 * retire_group, retire_group_any, then retire_delay.CLASS for every class that
 * executes in some probe (the branch always: every sampled loop ends in one),
 * lock_early when a probe holds an execute-at-retire instruction, ports.mul when
 * one multiplies, store_drain when one stores, the op cache's size and the
 * decoders' width when one outgrows it, then the front's keys.  Classes are
 * those u and each probe's table give.  Returns the count (at most max).
 */
size_t t32_learn_default_params(const struct t32_uarch *u, const struct t32_learn_probe *pr,
				size_t npr, char keys[][48], size_t max);

/*
 * Learn keys[0..nk) from the probes not held: start at u0's values, move a
 * value only where the joint objective drops significantly.  o as for
 * t32_corr_fit (NULL: defaults).  0, or -1 with err.
 */
int t32_learn_fit(const struct t32_uarch *u0, const struct t32_learn_probe *pr, size_t npr,
		  const char *const *keys, size_t nk, const struct t32_corr_opts *o,
		  struct t32_learn_result *r, char *err, size_t errlen);

/*
 * Does probe p test the front end (its step curve runs more than 2048
 * instructions)?  Such a probe counts by its curve alone: its samples, spread
 * over hundreds of instructions, place no interrupt.
 */
int t32_learn_front(const struct t32_learn_probe *p);
/*
 * The prediction of one probe (or any block) by u, nothing fitted: shares, TVD,
 * curve and cycles in r (free with t32_corr_result_free).  0, or -1 with err.
 */
int t32_learn_predict(const struct t32_uarch *u, const struct t32_learn_probe *p,
		      struct t32_corr_result *r, char *err, size_t errlen);

/*
 * Is a per-block fit's gain over the prediction significant?  The likelihood
 * ratio: the drop of the deviance of the counts, dev_pred - dev_fit, divided by
 * the dispersion (the fit's own deviance per degree of freedom, at least 1: the
 * samples of a loop are not independent draws, and a regime switch moves them
 * together), against chi-square on df degrees of freedom (the parameters the fit
 * moved, at least 1).  The p-value, or 1 when nothing was gained.
 */
double t32_learn_gain_p(double dev_pred, double dev_fit, double dispersion, unsigned df);

#endif
