/*
 * correlate.h - one retirement model fitted to two measurements of the same block:
 * the interrupt-sample counts per instruction (a multinomial) and the step curve
 * (cycles of k = 0..K barrier-wrapped copies).  The model's parameters are
 * integers (widths, latencies, class delays), so the fit scans them: every retire
 * width in its range, the other parameters by integer coordinate descent on one
 * objective, the multinomial deviance of the counts plus the chi-square of the
 * curve (each, by default, scaled by its own misfit so that neither drowns the
 * other).  Uncertainties come from the objective's curvature around the minimum.
 *
 * Also here: the goodness-of-fit figures (total variation distance, a pooled
 * Pearson chi-square test, curve correlation and where the curves part) and the
 * blog's in-situ latency, the cycles an instruction holds retirement up estimated
 * from its sample count against a reference of known cycles.
 */
#ifndef T32_CORRELATE_H
#define T32_CORRELATE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/deps.h"
#include "analysis/model.h"
#include "analysis/uarch.h"

#define T32_CORR_MAX_PARAMS 8	/* parameters fitted at once */

/* What was measured on the block (one unit of it: the instructions the model runs). */
struct t32_corr_data {
	const uint64_t *counts;	/* samples per instruction (sampled position), n of them; may be NULL */
	const double *curve;	/* cycles of k copies, k = 0..kmax; may be NULL */
	const double *curve_hw;	/* cycles, 95% half-width of each curve point; may be NULL */
	size_t kmax;		/* last k of the curve */
	int skid;		/* 1: a sample lands after the selected instruction; 0: on it */
	/*
	 * The loop the samples came from, as it ran: loop_copies copies of the
	 * unit, then the loop's own instructions, loop_n in all.  Its shares are
	 * folded onto the unit (the loop's own instructions left out, as the
	 * sampler leaves them out), so the phase that the loop's overhead gives
	 * each copy is the model's too.  NULL: the unit itself is the loop.
	 */
	const struct t32_insn *loop;
	size_t loop_n, loop_copies;
	/* the curve's slope (t32_corr_curve_slope) where the caller has it; NULL: worked out */
	const double *slope;
	const unsigned char *curve_ok;	/* per point, 1 where the sweep trusted it; NULL: all */
	/*
	 * The table's entries for the unit's n instructions and the loop's loop_n
	 * (t32_model_find) where the caller has them, as a learn does, running
	 * one probe thousands of times; NULL: looked up at each fit.
	 */
	const struct t32_lat_entry *const *found, *const *loop_found;
};

/* Tuning of the fit; t32_corr_opts_init gives the defaults. */
struct t32_corr_opts {
	double share_mix;	/* share of samples spread evenly (stray samples), 0..0.5 */
	double curve_sigma_min;	/* cycles: a curve point's sd is at least this (the model counts whole cycles) */
	int fit_offset;		/* 1: the curve from k = 1 on may sit a constant number of cycles off
				   the model (what the barriers add around a body); k = 0 is 0 */
	unsigned span_min;	/* a latency or delay is scanned over 0..max(span_min, 2 x start) */
	int balance;		/* 1: refit with each term divided by its own misfit per degree of
				   freedom, so neither data set drowns the other */
};
void t32_corr_opts_init(struct t32_corr_opts *o);

/* One fitted parameter. */
/*
 * What a fit must reach to count as explaining a block (make bench and the
 * report judge alike): shares within this total variation distance, and cycles
 * per iteration within this many percent.
 */
#define T32_CORR_TVD_TARGET 0.10
#define T32_CORR_CPI_TARGET 5.0
static inline int t32_corr_meets_target(double tvd, double cpi_error_percent)
{
	return tvd <= T32_CORR_TVD_TARGET && cpi_error_percent <= T32_CORR_CPI_TARGET &&
	       cpi_error_percent >= -T32_CORR_CPI_TARGET;
}

struct t32_corr_param {
	char key[48];		/* a t32_uarch key ("retire_width", "latency.atretire") or "latency@I" */
	unsigned long lo, hi;	/* range scanned, in the parameter's unit */
	unsigned long start;	/* value before the fit */
	unsigned long value;	/* fitted (the best integer) */
	double est;		/* refined by the parabola through the neighbours, in [value - 0.5, value + 0.5] */
	double sd;		/* its standard error from the curvature (scaled); INFINITY if flat */
	unsigned long ci_lo, ci_hi;	/* integers whose objective is within the scaled 1-sd rise */
	int determined;		/* 0: the objective is flat on a side of the value, so the data
				   do not pick it: report ci_lo..ci_hi, not value (the model
				   ran at value, one of them) */
};

/* The goodness of fit of shares: pooled Pearson chi-square. */
struct t32_gof {
	double tvd;		/* total variation distance, 0..1 */
	double chi2;		/* Pearson statistic over the pooled bins */
	unsigned df;		/* degrees of freedom: bins - 1 - nfit, at least 1 */
	unsigned bins;		/* cells with expected >= 5, plus one pooled bin of the rest */
	double p;		/* P(chi-square >= chi2) */
};

/* Measured against predicted curve. */
struct t32_curve_cmp {
	double r;		/* Pearson correlation (NaN with fewer than 3 points or no spread) */
	double rms;		/* cycles, root mean square of measured - predicted */
	size_t part_k;		/* k where |measured - predicted| is the most intervals */
	double part_diff;	/* cycles, measured - predicted there */
	double part_sigmas;	/* |diff| in 95% half-widths (or curve_sigma_min) */
};

/* Result of a fit.  Arrays are malloc'd; free with t32_corr_result_free. */
struct t32_corr_result {
	struct t32_uarch u;	/* the micro-architecture with the fitted values */
	int admissible;		/* 1: its cycles per iteration are within T32_CORR_CPI_TARGET
				   of the curve's slope (0: no value tried reached that) */
	size_t n;		/* instructions */
	double *latency;	/* per instruction after the fit, cycles (quarters of one measured) */
	size_t np;
	struct t32_corr_param p[T32_CORR_MAX_PARAMS];
	double objective;	/* share_weight x deviance + curve_weight x curve chi-square */
	double share_weight, curve_weight;	/* 1, or below 1 after balancing */
	double deviance;	/* multinomial deviance of the counts */
	double curve_chi2;	/* chi-square of the curve */
	double scale;		/* sqrt(max(1, objective / dof)): widens the intervals of a poor fit */
	double *pred_share;	/* per instruction, predicted share of samples */
	double *meas_share;	/* per instruction, measured share (0 without counts) */
	uint64_t samples;	/* sum of the counts */
	double *pred_curve;	/* cycles, k = 0..kmax, with the offset added from k = 1 on */
	double offset;		/* cycles added to the model curve for k >= 1 (0 unless fit_offset) */
	double cycles_per_iter;	/* cycles, the model's steady state */
	double *width_objective;	/* objective of the best fit at each retire width lo..hi (if fitted) */
	struct t32_gof gof;	/* shares: TVD against the model's shares, the chi-square
				   against them mixed with the stray background the fit assumes */
	struct t32_curve_cmp cmp;	/* curve: filled when there was a curve */
	size_t evals;		/* model runs */
};

/*
 * Fit params (keys as in t32_corr_param.key; "latency@I" is the latency of
 * instruction I) to the data.  u and tab as for t32_model_prepare; insns are
 * the n decoded instructions the counts refer to.  0, or -1 with the reason in
 * err (unknown key, no data, out of memory).
 */
int t32_corr_fit(const struct t32_uarch *u, const struct t32_lattab *tab,
		 const struct t32_insn *insns, size_t n, const struct t32_corr_data *d,
		 const char *const *params, size_t np, const struct t32_corr_opts *o,
		 struct t32_corr_result *r, char *err, size_t errlen);
void t32_corr_result_free(struct t32_corr_result *r);

/*
 * The parameters worth fitting on this block, written as keys into keys[max]:
 * retire_width, then latency.CLASS for each class present that executes and has
 * an instruction without a latency-table entry, load_latency when an instruction
 * reads memory, then retire_delay.CLASS for each class present that executes
 * (the delay between completing and retiring is what the table never gives),
 * and with loop set (the samples came from the loop as sampled, its counter and
 * branch modelled) retire_delay.branch too: it stands for how long the loop's
 * counter and branch hold retirement, which no fixed rule predicts (zen4.uarch).
 * Keys named in pinned (npinned of them, "key" or "key=value") are left out.
 * Returns the count.
 */
size_t t32_corr_default_params(const struct t32_model_insn *b, size_t n, int loop,
			       const char *const *pinned, size_t npinned,
			       char keys[][48], size_t max);

/* Total variation distance between two distributions over n cells: 0.5 sum |p - q|. */
double t32_tvd(const double *p, const double *q, size_t n);

/*
 * Pearson chi-square of counts k against predicted shares p (n cells; p sums to
 * 1), cells expected below 5 pooled into one bin, nfit parameters taken off the
 * degrees of freedom.  Fills g (tvd too).  0, or -1 when there are no counts.
 */
int t32_gof_test(const uint64_t *k, const double *p, size_t n, unsigned nfit, struct t32_gof *g);

/* Compare a measured curve (hw: 95% half-widths, may be NULL) with a prediction. */
void t32_curve_compare(const double *meas, const double *hw, const double *pred, size_t n,
		       double sigma_min, struct t32_curve_cmp *c);

/* In-situ latency: the cycles an instruction holds retirement up, with an interval. */
struct t32_insitu {
	double cycles;		/* estimate */
	double lo, hi;		/* cycles, the interval (Wilson on the sample fraction) */
	double fraction;	/* k_test / (k_test + k_ref), or k_test / k_ref when nested */
};

/*
 * From k_test samples selecting the instruction under test and k_ref samples of
 * a reference that holds retirement up ref_cycles (a chain of known latency, or
 * the whole block per iteration), estimate the instruction's cycles:
 * ref_cycles x k_test / k_ref.  nested = 1 when the reference counts include the
 * test's (the whole block: k_ref = all samples).  z: 1.96 for 95%.  0, or -1
 * when there is nothing to divide by.
 */
int t32_insitu_latency(uint64_t k_test, uint64_t k_ref, double ref_cycles, int nested, double z,
		       struct t32_insitu *r);

/*
 * p's interval [ci_lo, ci_hi]: the run of values around p->value whose objective
 * f[x - lo] is within s^2 of the best.
 */
void t32_corr_ci(struct t32_corr_param *p, const double *f, double s);
/* -1 with err when keys[j] is one of keys[0..j), else 0. */
int t32_corr_key_again(const char *const *keys, size_t j, char *err, size_t errlen);
/* Give parameter j, called key, its range and start (in the caller's p[j]); -1 with err. */
typedef int t32_corr_param_init_fn(void *ctx, size_t j, const char *key, char *err, size_t errlen);
/*
 * The np parameters keys[]: each named once and set up by init(ctx, j, keys[j]),
 * then v[j] = p[j].start; -1 with err at the first that fails.
 */
int t32_corr_params_init(const char *const *keys, size_t np, const struct t32_corr_param *p,
			 unsigned long *v, t32_corr_param_init_fn *init, void *ctx, char *err,
			 size_t errlen);
/* A buffer for the profile of any of the np parameters p[] (free it); NULL with err. */
double *t32_corr_profile_buf(const struct t32_corr_param *p, size_t np, char *err,
			     size_t errlen);
/*
 * Whether point k of a curve of kmax + 1 counts, ok[] saying which the sweep
 * trusted (NULL: all): every point does unless the sweep trusted at least half
 * of k = 1..kmax, and three, when those it did not (measured beside a thread on
 * the same core, while the clock drifted...) are left out of the line and the
 * fit.  A curve mostly untrusted keeps them all: there is nothing better.
 */
int t32_corr_point_counts(const unsigned char *ok, size_t kmax, size_t k);
/* Whether the sweep trusted fewer than that (half of k = 1..kmax, and three): 1 or 0. */
int t32_corr_curve_mostly_untrusted(const unsigned char *ok, size_t kmax);
/*
 * The line through a step curve's points k = 1..kmax (k = 0, the empty block,
 * has none of the fill every copy count pays) that count (ok, as above), fitted
 * robustly (t32_linfit: one disturbed step weighs little), into *f; 0, or -1
 * with fewer than two points.
 */
struct t32_linfit;
int t32_corr_curve_line(const double *curve, const unsigned char *ok, size_t kmax,
			struct t32_linfit *f);
/*
 * The measured cycles per iteration: that line's slope, the figure `t32
 * correlate` prints and the fit, `t32 learn` and `make bench` judge; NAN
 * without a curve.
 */
double t32_corr_curve_slope(const struct t32_corr_data *d);
/*
 * The copies of a unit of n instructions a step curve's speed is read over,
 * of its kmax: those whose run the op cache of u holds, where that is some
 * and at least two (the unit's own loop runs from it; copies past it are the
 * decoders' speed, which the curve's points, not its slope, compare).
 */
size_t t32_corr_slope_kmax(const struct t32_uarch *u, size_t n, size_t kmax);
/* d with its curve cut to those copies (t32_corr_slope_kmax), for the speed read from it. */
struct t32_corr_data t32_corr_fast(const struct t32_uarch *u, size_t n, const struct t32_corr_data *d);
/*
 * Its 95% half-width (1.96 standard errors, as correlate prints it), or NAN
 * without one: how far the measured cycles per iteration may be from the truth.
 */
double t32_corr_curve_slope_hw(const struct t32_corr_data *d);

#endif
