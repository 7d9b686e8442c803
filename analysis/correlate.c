/*
 * correlate.c - the retirement model fitted to sample counts and a step curve at
 * once (see correlate.h).  The model is a function of integers, so there is no
 * gradient to follow and a simplex would stall on its plateaus: the fit scans.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/correlate.h"
#include "analysis/descend.h"
#include "analysis/fit.h"
#include "analysis/stats.h"
#include "t32/util.h"

_Static_assert(T32_CORR_MAX_PARAMS <= T32_DESCEND_MAX_PARAMS, "the descent holds every fitted parameter");

#define CORR_MAX_PASSES 8	/* coordinate-descent passes over the parameters */
#define CORR_WIDTH_MAX 16	/* retire widths scanned: 1..max(this, 2 x start) */
#define CORR_CPI_PENALTY 1e6	/* added to the objective of an inadmissible model */

/* The defaults: half a percent of stray samples, half-cycle curve floor, offset and balancing on. */
void t32_corr_opts_init(struct t32_corr_opts *o)
{
	o->share_mix = 0.005;
	o->curve_sigma_min = 0.5;
	o->fit_offset = 1;
	o->span_min = 48;
	o->balance = 1;
}

/* Everything one model run needs, and its scratch space. */
struct corr_ctx {
	const struct t32_uarch *u0;
	const struct t32_lattab *tab;
	const struct t32_insn *insns;
	size_t n;
	const struct t32_corr_data *d;
	const struct t32_corr_opts *o;
	size_t np;
	struct t32_corr_param *p;
	long insn_of[T32_CORR_MAX_PARAMS];	/* instruction of a latency@I parameter, else -1 */
	uint64_t total;				/* samples */
	struct t32_model_insn *block;
	struct t32_model_insn *loop;		/* the loop as sampled (d->loop), or NULL */
	const struct t32_lat_entry *const *found, *const *loop_found;	/* t32_model_find of each */
	const struct t32_lat_entry **own;	/* what this fit looked up itself (n + loop_n) */
	struct t32_model_result loop_res;	/* its steady state */
	double *share;				/* predicted shares on the unit, n */
	double *curve;				/* model curve, kmax + 1 */
	struct t32_uarch u;			/* after the last run */
	struct t32_model_result res;		/* after the last run */
	double deviance, chi2, offset;		/* of the last run */
	double w_share, w_curve;		/* weights of the two terms in the objective */
	double slope;				/* cycles per copy of the measured curve, or NAN */
	double penalty;				/* corr_cpi_penalty of the last run */
	size_t evals;
	struct corr_memo *memo;			/* runs already made, by parameter values */
};

/*
 * What one model run gave, by its parameter values: a coordinate descent comes
 * back to the same values pass after pass, and a sampled loop makes every run
 * dear.  The parts are kept, not the objective, so new weights reuse them.
 */
#define CORR_MEMO_SLOTS 4096	/* a power of 2 */
struct corr_memo {
	int used;
	unsigned long v[T32_CORR_MAX_PARAMS];
	double deviance, chi2, penalty;
};

/* Multinomial deviance of the counts against shares mixed with a little uniform. */
static double corr_deviance(const struct corr_ctx *c, const double *share)
{
	double dev = 0, a = c->o->share_mix;

	if (!c->d->counts || c->total == 0)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		double q = (1 - a) * share[i] + a / (double)c->n;
		double k = (double)c->d->counts[i];

		if (k > 0)
			dev += 2 * k * log(k / ((double)c->total * (q > 1e-300 ? q : 1e-300)));
	}
	return dev;
}

/*
 * Weight of curve point k: 1 / sd^2 with the sd from the half-width, at least
 * sigma_min; 0 for a point that does not count (t32_corr_point_counts: all is
 * whether the curve is mostly untrusted, worked out once a curve).
 */
static double corr_weight(const struct t32_corr_data *d, const struct t32_corr_opts *o, size_t k,
			  int all)
{
	double sd = d->curve_hw ? d->curve_hw[k] / 1.96 : 0;

	if (d->curve_ok && !d->curve_ok[k] && !all)
		return 0;	/* a step the sweep did not trust, among enough it did */
	if (!(sd >= o->curve_sigma_min))
		sd = o->curve_sigma_min;
	return 1 / (sd * sd);
}

/* Chi-square of the measured curve against the model's, the offset solved in closed form. */
static double corr_curve_chi2(const struct corr_ctx *c, const double *model, double *offset)
{
	const struct t32_corr_data *d = c->d;
	double sw = 0, swr = 0, chi2 = 0, off = 0;
	int all;

	*offset = 0;
	if (!d->curve)
		return 0;
	all = t32_corr_curve_mostly_untrusted(d->curve_ok, d->kmax);
	if (c->o->fit_offset) {
		for (size_t k = 1; k <= d->kmax; k++) {
			double w = corr_weight(d, c->o, k, all);

			sw += w;
			swr += w * (d->curve[k] - model[k]);
		}
		off = sw > 0 ? swr / sw : 0;
		/*
		 * A curve of cycles is never below zero: the offset may not pull the
		 * model under it at any k (the weighted least-squares offset, clamped
		 * at that bound, is the constrained optimum).
		 */
		for (size_t k = 1; k <= d->kmax; k++)
			if (model[k] + off < 0)
				off = -model[k];
	}
	for (size_t k = 0; k <= d->kmax; k++) {
		double e = d->curve[k] - model[k] - (k ? off : 0);

		chi2 += corr_weight(d, c->o, k, all) * e * e;
	}
	*offset = off;
	return chi2;
}

/*
 * The predicted shares on the unit: the unit's own steady state, or the loop's
 * (d->loop) folded onto the unit, with the loop's own instructions left out and
 * the rest scaled to sum to 1.  0, or -1 when the model cannot run.
 */
static int corr_loop_shares(struct corr_ctx *c, const unsigned long *v)
{
	const struct t32_corr_data *d = c->d;
	double sum = 0;

	if (!d->loop) {
		memcpy(c->share, c->res.share, c->n * sizeof(double));
		return 0;
	}
	t32_model_prepare_found(&c->u, c->loop_found, d->loop, d->loop_n, c->loop);
	for (size_t j = 0; j < c->np; j++)
		if (c->insn_of[j] >= 0)
			for (size_t k = 0; k < d->loop_copies; k++) {
				struct t32_model_insn *m = &c->loop[k * c->n + (size_t)c->insn_of[j]];

				m->latency = (unsigned)v[j];
				m->quarters = 0;
			}
	t32_model_result_free(&c->loop_res);
	if (t32_model_steady(&c->u, c->loop, d->loop_n, d->skid, &c->loop_res))
		return -1;
	memset(c->share, 0, c->n * sizeof(double));
	for (size_t i = 0; i < d->loop_copies * c->n; i++)
		c->share[i % c->n] += c->loop_res.share[i];
	for (size_t i = 0; i < c->n; i++)
		sum += c->share[i];
	for (size_t i = 0; i < c->n; i++)
		c->share[i] = sum > 0 ? c->share[i] / sum : 1.0 / (double)c->n;
	return 0;
}

/*
 * Cycles per iteration are the best-measured figure (the curve's slope, to a
 * fraction of a percent): a model further from them than the target is not
 * admissible, whatever its shares, so its objective is raised past every
 * admissible one (and more the further it is).  Balancing the two data sets
 * cannot then buy shares with a machine that runs at the wrong speed.
 */
static double corr_cpi_penalty(const struct corr_ctx *c)
{
	double err, excess;

	if (!isfinite(c->slope) || !(c->slope > 0))
		return 0;
	err = fabs(c->res.cycles_per_iter - c->slope) / c->slope;
	excess = err - T32_CORR_CPI_TARGET / 100;
	return excess > 0 ? CORR_CPI_PENALTY * (1 + excess * excess) : 0;
}

/* Run the model with the parameters at v; the objective, or INFINITY if v is not allowed. */
static double corr_eval(struct corr_ctx *c, const unsigned long *v)
{
	c->u = *c->u0;
	for (size_t j = 0; j < c->np; j++)
		if (c->insn_of[j] < 0 && t32_uarch_set_value(&c->u, c->p[j].key, v[j]))
			return INFINITY;
	t32_model_prepare_found(&c->u, c->found, c->insns, c->n, c->block);
	for (size_t j = 0; j < c->np; j++)
		if (c->insn_of[j] >= 0) {
			c->block[c->insn_of[j]].latency = (unsigned)v[j];
			c->block[c->insn_of[j]].quarters = 0;
		}
	t32_model_result_free(&c->res);
	c->evals++;
	if (t32_model_steady(&c->u, c->block, c->n, c->d->skid, &c->res))
		return INFINITY;
	if (corr_loop_shares(c, v))
		return INFINITY;
	if (c->u.sample_stray) {
		/* the sampler's own share spread evenly over the unit (a skid that varies) */
		double s = c->u.sample_stray / 100.0;

		for (size_t i = 0; i < c->n; i++)
			c->share[i] = (1 - s) * c->share[i] + s / (double)c->n;
	}
	if (c->d->curve && t32_model_curve(&c->u, c->block, c->n, c->d->kmax, c->curve))
		return INFINITY;
	c->deviance = corr_deviance(c, c->share);
	c->chi2 = corr_curve_chi2(c, c->curve, &c->offset);
	c->penalty = corr_cpi_penalty(c);
	return c->w_share * c->deviance + c->w_curve * c->chi2 + c->penalty;
}

/* The memo slot of values v: the one holding them, or the empty one they go to; NULL if full. */
static struct corr_memo *corr_memo_slot(const struct corr_ctx *c, const unsigned long *v)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t j = 0; j < c->np; j++)
		h = (h ^ v[j]) * 1099511628211ull;
	for (size_t k = 0; k < CORR_MEMO_SLOTS; k++) {
		struct corr_memo *m = &c->memo[(h + k) & (CORR_MEMO_SLOTS - 1)];

		if (!m->used || memcmp(m->v, v, c->np * sizeof(*v)) == 0)
			return m;
	}
	return NULL;
}

/*
 * corr_eval's objective, from the memo where these values ran before.  Only the
 * parts of the objective are then current, not the run's shares, curve or
 * model: what is reported comes from corr_eval itself.
 */
static double corr_eval_memo(struct corr_ctx *c, const unsigned long *v)
{
	struct corr_memo *m = c->memo ? corr_memo_slot(c, v) : NULL;
	double f;

	if (m && m->used) {
		c->deviance = m->deviance;
		c->chi2 = m->chi2;
		c->penalty = m->penalty;
		return c->w_share * c->deviance + c->w_curve * c->chi2 + c->penalty;
	}
	f = corr_eval(c, v);
	if (m && isfinite(f)) {
		m->used = 1;
		memcpy(m->v, v, c->np * sizeof(*v));
		m->deviance = c->deviance;
		m->chi2 = c->chi2;
		m->penalty = c->penalty;
	}
	return f;
}

static double corr_objective(void *c, const unsigned long *v)
{
	return corr_eval_memo(c, v);
}

/* The descent over the block's parameters: one point at a time (one context runs the model). */
static struct t32_descent corr_descent(struct corr_ctx *c)
{
	return (struct t32_descent){ c->p, c->np, CORR_MAX_PASSES, corr_objective, c, NULL };
}

/* t32_descend over the block's parameters (skip: -1, or one held). */
static double corr_descend(struct corr_ctx *c, unsigned long *v, long skip)
{
	struct t32_descent d = corr_descent(c);

	return t32_descend(&d, v, skip);
}

/* t32_descend_group_starts over the block's parameters. */
static double corr_group_starts(struct corr_ctx *c, unsigned long *best_v, double best)
{
	struct t32_descent d = corr_descent(c);

	return t32_descend_group_starts(&d, best_v, best);
}

/*
 * The whole search from the start values v: every retire width (parameter wj,
 * -1 when it is not fitted) with the others descended, or one descent.  The best
 * values go to best_v, the best objective at each width to wobj.  Returns it.
 */
static double corr_search(struct corr_ctx *c, long wj, const unsigned long *v,
			  unsigned long *best_v, double *wobj)
{
	double best = INFINITY;

	unsigned long t[T32_CORR_MAX_PARAMS], x0 = c->p[wj < 0 ? 0 : wj].start;
	double f0 = INFINITY;

	memcpy(best_v, v, c->np * sizeof(*v));
	if (wj < 0)
		return corr_group_starts(c, best_v, corr_descend(c, best_v, -1));
	/*
	 * The width first, the rest at their start values (ties go to the width
	 * nearest the micro-architecture's); then everything descended from that
	 * width and from the micro-architecture's own, the better kept.  Two
	 * descents, not one a width: a sampled loop makes every model run dear.
	 */
	memcpy(t, v, c->np * sizeof(*v));
	t[wj] = c->p[wj].start;
	f0 = corr_eval_memo(c, t);
	for (unsigned long x = c->p[wj].lo; x <= c->p[wj].hi; x++) {
		double f;

		t[wj] = x;
		f = corr_eval_memo(c, t);
		if (f < f0 - T32_DESCEND_SIGNIF ||
		    (x0 != c->p[wj].start && t32_descend_better(f, f0))) {
			f0 = f;
			x0 = x;
		}
	}
	for (int from = 0; from < 2; from++) {
		double f;

		memcpy(t, v, c->np * sizeof(*v));
		t[wj] = from ? c->p[wj].start : x0;
		if (from && x0 == c->p[wj].start)
			break;
		f = corr_descend(c, t, -1);
		/* the descent from the uarch's width wins unless clearly worse */
		if (!isfinite(best) || (from ? f <= best + T32_DESCEND_SIGNIF : t32_descend_better(f, best))) {
			best = f;
			memcpy(best_v, t, c->np * sizeof(*t));
		}
	}
	best = corr_group_starts(c, best_v, best);
	/* the width's profile, the others at their best */
	memcpy(t, best_v, c->np * sizeof(*t));
	for (unsigned long x = c->p[wj].lo; x <= c->p[wj].hi; x++) {
		t[wj] = x;
		wobj[x - c->p[wj].lo] = corr_eval_memo(c, t);
	}
	return best;
}

/* Resolve a key into a range and a start value; -1 with err for an unknown key. */
static int corr_param_init(void *ctx, size_t j, const char *key, char *err, size_t errlen)
{
	struct corr_ctx *c = ctx;
	struct t32_corr_param *p = &c->p[j];
	unsigned long start = 0, kmin = 0, kmax = 0;

	snprintf(p->key, sizeof(p->key), "%s", key);
	c->insn_of[j] = -1;
	if (strncmp(key, "latency@", 8) == 0) {
		char *end;
		unsigned long long i = strtoull(key + 8, &end, 10);

		if (end == key + 8 || *end || i >= c->n) {
			snprintf(err, errlen, "no such instruction in the block '%s'", key);
			return -1;
		}
		c->insn_of[j] = (long)i;
		start = c->block[i].latency;
		kmin = 0;
		kmax = 100000;
	} else {
		const struct t32_uarch_key *k = t32_uarch_key_find(key);

		if (!k || t32_uarch_get(c->u0, key, &start)) {
			snprintf(err, errlen, "unknown parameter '%s'", key);
			return -1;
		}
		kmin = k->min;
		kmax = k->max;
	}
	p->start = start;
	p->lo = kmin;
	if (strcmp(key, "retire_width") == 0 || strcmp(key, "alloc_width") == 0)
		p->hi = start * 2 > CORR_WIDTH_MAX ? start * 2 : CORR_WIDTH_MAX;
	else
		p->hi = start * 2 > c->o->span_min ? start * 2 : c->o->span_min;
	/* pairs are what a measured core has shown; wider groups only when asked for */
	if (strcmp(key, "retire_group") == 0)
		p->hi = start > 2 ? start : 2;
	if (p->hi > kmax)
		p->hi = kmax;
	if (p->lo < 1 && strstr(key, "width"))
		p->lo = 1;
	if (start < p->lo || start > p->hi)
		start = p->start = p->lo;
	return 0;
}

/*
 * Curvature and interval of parameter j around its best value from the
 * objective f[] over its range (f[x - lo]): the parabola through the best
 * value's neighbours, its sd scaled by s, and the run of values within s^2.
 */
static void corr_uncertainty(struct t32_corr_param *p, const double *f, double s)
{
	size_t m = p->hi - p->lo + 1, b = p->value - p->lo;
	double f0 = f[b], fl = b > 0 ? f[b - 1] : NAN, fr = b + 1 < m ? f[b + 1] : NAN;
	double a = NAN, g = 0;

	/* a side where the objective does not rise leaves the value undetermined */
	if (isfinite(fl) && isfinite(fr)) {
		if (fl - f0 > T32_DESCEND_TIE * (1 + fabs(f0)) && fr - f0 > T32_DESCEND_TIE * (1 + fabs(f0))) {
			a = (fl + fr - 2 * f0) / 2;
			g = (fr - fl) / 2;
		}
	} else if (isfinite(fl)) {
		a = fl - f0;
	} else if (isfinite(fr)) {
		a = fr - f0;
	}
	p->est = (double)p->value;
	p->sd = INFINITY;
	p->determined = 0;
	/* a rise within the tie margin on the one side there is is flat too */
	if (a > T32_DESCEND_TIE * (1 + fabs(f0))) {
		double shift = -g / (2 * a);

		if (shift > 0.5)
			shift = 0.5;
		if (shift < -0.5)
			shift = -0.5;
		p->est += shift;
		p->sd = s / sqrt(a);
		p->determined = 1;
	}
	t32_corr_ci(p, f, s);
}

void t32_corr_ci(struct t32_corr_param *p, const double *f, double s)
{
	double f0 = f[p->value - p->lo];

	p->ci_lo = p->ci_hi = p->value;
	while (p->ci_lo > p->lo && f[p->ci_lo - 1 - p->lo] - f0 <= s * s)
		p->ci_lo--;
	while (p->ci_hi < p->hi && f[p->ci_hi + 1 - p->lo] - f0 <= s * s)
		p->ci_hi++;
}

int t32_corr_key_again(const char *const *keys, size_t j, char *err, size_t errlen)
{
	for (size_t i = 0; i < j; i++)
		if (strcmp(keys[i], keys[j]) == 0) {
			snprintf(err, errlen, "parameter named twice '%s'", keys[j]);
			return -1;
		}
	return 0;
}

double *t32_corr_profile_buf(const struct t32_corr_param *p, size_t np, char *err,
			     size_t errlen)
{
	size_t m = 1;
	double *buf;

	for (size_t j = 0; j < np; j++)
		if (p[j].hi - p[j].lo + 1 > m)
			m = p[j].hi - p[j].lo + 1;
	buf = malloc(m * sizeof(*buf));
	if (!buf)
		snprintf(err, errlen, "out of memory");
	return buf;
}

int t32_corr_params_init(const char *const *keys, size_t np, const struct t32_corr_param *p,
			 unsigned long *v, t32_corr_param_init_fn *init, void *ctx, char *err,
			 size_t errlen)
{
	for (size_t j = 0; j < np; j++) {
		if (t32_corr_key_again(keys, j, err, errlen) || init(ctx, j, keys[j], err, errlen))
			return -1;
		v[j] = p[j].start;
	}
	return 0;
}

int t32_corr_curve_mostly_untrusted(const unsigned char *ok, size_t kmax)
{
	size_t n = 0;

	if (!ok)
		return 0;
	for (size_t j = 1; j <= kmax; j++)
		n += ok[j] != 0;
	return !(n >= 3 && 2 * n >= kmax);
}

int t32_corr_point_counts(const unsigned char *ok, size_t kmax, size_t k)
{
	return !ok || ok[k] || t32_corr_curve_mostly_untrusted(ok, kmax);
}

/* Points a curve needs before a floor at its start is looked for, and its least height. */
#define CURVE_FLOOR_MIN 8
#define CURVE_FLOOR_CYCLES 1.0

int t32_corr_curve_line(const double *curve, const unsigned char *ok, size_t kmax,
			struct t32_linfit *f)
{
	double *kx, *y;
	size_t n = 0;
	int rc = -1;

	if (!curve || kmax < 2)
		return -1;
	kx = malloc(kmax * sizeof(*kx));
	y = malloc(kmax * sizeof(*y));
	if (kx && y) {
		size_t head = 0;

		for (size_t k = 1; k <= kmax; k++)
			if (t32_corr_point_counts(ok, kmax, k)) {
				kx[n] = (double)k;
				y[n++] = curve[k];
			}
		if (n >= CURVE_FLOOR_MIN) {
			/*
			 * A floor at the start (a store's drain, which the fence closing
			 * each timed run waits for, costs the first copies alike): the
			 * leading points above the line of the upper half by more than
			 * CURVE_FLOOR_CYCLES (or three of its rms) are no part of the
			 * cost a copy adds.  Elsewhere one disturbed step is the
			 * robust fit's to weigh down.
			 */
			struct t32_linfit g;
			size_t h = n / 2;

			if (!t32_linfit(kx + h, y + h, n - h, NULL, &g)) {
				double tol = fmax(3 * g.rms, CURVE_FLOOR_CYCLES);

				while (head < h && y[head] - (g.a + g.b * kx[head]) > tol)
					head++;
			}
		}
		rc = n - head >= 2 ? t32_linfit(kx + head, y + head, n - head, NULL, f) : -1;
	}
	free(kx);
	free(y);
	return rc;
}

static int corr_curve_line(const struct t32_corr_data *d, struct t32_linfit *f)
{
	return t32_corr_curve_line(d->curve, d->curve_ok, d->kmax, f);
}

double t32_corr_curve_slope(const struct t32_corr_data *d)
{
	struct t32_linfit f;

	return corr_curve_line(d, &f) ? NAN : f.b;
}

size_t t32_corr_slope_kmax(const struct t32_uarch *u, size_t n, size_t kmax)
{
	size_t k = n && u->opcache_ops ? u->opcache_ops / n : kmax;

	return t32_model_decoded(u, kmax * n) && k >= 2 && k < kmax ? k : kmax;
}

struct t32_corr_data t32_corr_fast(const struct t32_uarch *u, size_t n, const struct t32_corr_data *d)
{
	struct t32_corr_data fast = *d;

	fast.kmax = t32_corr_slope_kmax(u, n, d->kmax);
	return fast;
}

double t32_corr_curve_slope_hw(const struct t32_corr_data *d)
{
	struct t32_linfit f;

	return corr_curve_line(d, &f) || !isfinite(f.se_b) ? NAN : 1.96 * f.se_b;
}

/* The scratch space of the context and the arrays of the result, for n instructions. */
static int corr_alloc(struct corr_ctx *c, struct t32_corr_result *r, char *err, size_t errlen)
{
	const struct t32_corr_data *d = c->d;
	size_t n = c->n;

	c->block = calloc(n, sizeof(*c->block));
	c->share = calloc(n, sizeof(double));
	/* none: every run made anew (and a fit of nothing, unbalanced, runs once) */
	c->memo = c->np || c->o->balance ? calloc(CORR_MEMO_SLOTS, sizeof(*c->memo)) : NULL;
	c->found = d->found;
	c->loop_found = d->loop ? d->loop_found : NULL;
	if (!c->found || (d->loop && !c->loop_found)) {
		c->own = calloc(n + (d->loop ? d->loop_n : 0), sizeof(*c->own));
		if (!c->own) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		t32_model_find(c->tab, c->insns, n, c->own);
		c->found = c->own;
		if (d->loop) {
			t32_model_find(c->tab, d->loop, d->loop_n, c->own + n);
			c->loop_found = c->own + n;
		}
	}
	c->loop = d->loop ? calloc(d->loop_n, sizeof(*c->loop)) : NULL;
	c->curve = calloc(d->kmax + 1, sizeof(double));
	r->latency = calloc(n, sizeof(double));
	r->pred_share = calloc(n, sizeof(double));
	r->meas_share = calloc(n, sizeof(double));
	r->pred_curve = calloc(d->kmax + 1, sizeof(double));
	if (!c->block || !c->share || (d->loop && !c->loop) || !c->curve || !r->latency ||
	    !r->pred_share || !r->meas_share || !r->pred_curve) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * Each parameter named once, its range set and its start put in v[]; *wj is
 * the index of retire_width, or -1.
 */
static int corr_params_init(struct corr_ctx *c, struct t32_corr_result *r,
			    const char *const *params, size_t np, unsigned long *v, long *wj,
			    char *err, size_t errlen)
{
	r->np = np;
	if (t32_corr_params_init(params, np, r->p, v, corr_param_init, c, err, errlen))
		return -1;
	for (size_t j = 0; j < np; j++)
		if (strcmp(params[j], "retire_width") == 0)
			*wj = (long)j;
	return 0;
}

/*
 * The search from v[], its best values into best_v[] and its objective into
 * *best; searched once more with the two data sets balanced when asked for.
 */
static int corr_search_balanced(struct corr_ctx *c, long wj, unsigned long *v,
				unsigned long *best_v, double *best, struct t32_corr_result *r,
				const char *const *params, size_t cells, char *err, size_t errlen)
{
	const struct t32_corr_data *d = c->d;
	const struct t32_corr_opts *o = c->o;
	size_t np = c->np;

	c->w_share = c->w_curve = 1;
	for (int round = 0; round < 2; round++) {
		*best = corr_search(c, wj, v, best_v, r->width_objective);
		if (!isfinite(*best)) {
			snprintf(err, errlen, "the model cannot run with any value tried '%s'",
				 np ? params[0] : "(none)");
			return -1;
		}
		if (!o->balance || c->total == 0 || !d->curve || round == 1)
			break;
		/*
		 * Balance the two data sets: each term divided by its own misfit per
		 * degree of freedom (at least 1), so a model that cannot shape the
		 * shares exactly does not let thousands of samples drown the curve.
		 */
		corr_eval(c, best_v);
		{
			double ds = cells > 1 ? (double)(cells - 1) : 1;
			double dc = (double)d->kmax + (o->fit_offset ? 0 : 1);
			double ss = c->deviance / ds, sc = c->chi2 / dc;

			c->w_share = ss > 1 ? 1 / ss : 1;
			c->w_curve = sc > 1 ? 1 / sc : 1;
		}
		if (c->w_share == 1 && c->w_curve == 1)
			break;
	}
	return 0;
}

/*
 * The scale of the misfit and each parameter's interval from its profile of
 * the objective around the best values.
 */
static int corr_intervals(struct corr_ctx *c, struct t32_corr_result *r, long wj,
			  const unsigned long *best_v, double best, size_t cells,
			  char *err, size_t errlen)
{
	const struct t32_corr_data *d = c->d;
	const struct t32_corr_opts *o = c->o;
	size_t np = c->np, dof;
	double *prof, misfit;
	struct t32_descent dd = corr_descent(c);

	/* the intervals: a poor fit (objective above its degrees of freedom) widens them */
	dof = (cells > 1 ? cells - 1 : 0) + (d->curve ? d->kmax + 1 - (o->fit_offset ? 1 : 0) : 0);
	dof = dof > np ? dof - np : 1;
	/* the misfit of the data, without what an inadmissible best model pays */
	if (np)	/* with nothing fitted the one run made is the best's */
		corr_eval(c, best_v);
	misfit = (best - c->penalty) / (double)dof;
	r->scale = sqrt(misfit > 1 ? misfit : 1);
	r->admissible = c->penalty == 0;
	prof = t32_corr_profile_buf(r->p, np, err, errlen);
	if (!prof)
		return -1;
	for (size_t j = 0; j < np; j++) {
		struct t32_corr_param *p = &r->p[j];

		if ((long)j == wj)
			memcpy(prof, r->width_objective, (p->hi - p->lo + 1) * sizeof(double));
		else
			t32_descend_profile(&dd, best_v, j, p->lo, p->hi, prof);
		corr_uncertainty(p, prof, r->scale);
	}
	free(prof);
	return 0;
}

/* The model at the best values: its predictions and figures, and how they meet the data. */
static int corr_results(struct corr_ctx *c, struct t32_corr_result *r,
			const unsigned long *best_v, double best, char *err, size_t errlen)
{
	const struct t32_corr_data *d = c->d;
	const struct t32_corr_opts *o = c->o;
	size_t n = c->n;

	r->objective = c->np ? corr_eval(c, best_v) : best;
	r->u = c->u;
	r->n = n;
	r->deviance = c->deviance;
	r->curve_chi2 = c->chi2;
	r->offset = c->offset;
	r->cycles_per_iter = c->res.cycles_per_iter;
	r->samples = c->total;
	for (size_t i = 0; i < n; i++) {
		r->latency[i] = t32_model_latency(&c->block[i]);
		r->pred_share[i] = c->share[i];
		r->meas_share[i] = c->total ? (double)d->counts[i] / (double)c->total : 0;
	}
	if (c->total) {
		/* tested against the likelihood the fit used: shares plus the stray background */
		double *mix = calloc(n, sizeof(double));

		if (!mix) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			mix[i] = (1 - o->share_mix) * r->pred_share[i] + o->share_mix / (double)n;
		/* integers picked from a few values take no degree of freedom as a continuous fit would */
		t32_gof_test(d->counts, mix, n, 0, &r->gof);
		r->gof.tvd = t32_tvd(r->meas_share, r->pred_share, n);
		free(mix);
	}
	if (d->curve) {
		for (size_t k = 0; k <= d->kmax; k++)
			r->pred_curve[k] = c->curve[k] + (k ? c->offset : 0);
		t32_curve_compare(d->curve, d->curve_hw, r->pred_curve, d->kmax + 1,
				  o->curve_sigma_min, &r->cmp);
	}
	r->evals = c->evals;
	return 0;
}

int t32_corr_fit(const struct t32_uarch *u, const struct t32_lattab *tab,
		 const struct t32_insn *insns, size_t n, const struct t32_corr_data *d,
		 const char *const *params, size_t np, const struct t32_corr_opts *o,
		 struct t32_corr_result *r, char *err, size_t errlen)
{
	struct t32_corr_opts defaults;
	struct corr_ctx c;
	unsigned long v[T32_CORR_MAX_PARAMS] = { 0 }, best_v[T32_CORR_MAX_PARAMS] = { 0 };
	double best = INFINITY;
	long wj = -1;
	size_t cells = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	memset(&c, 0, sizeof(c));
	if (!o) {
		t32_corr_opts_init(&defaults);
		o = &defaults;
	}
	if (n == 0 || np > T32_CORR_MAX_PARAMS) {
		snprintf(err, errlen, "bad fit request '%zu instructions, %zu parameters'", n, np);
		return -1;
	}
	c.u0 = u;
	c.tab = tab;
	if (d->slope) {
		c.slope = *d->slope;
	} else {
		struct t32_corr_data fast = t32_corr_fast(u, n, d);

		c.slope = t32_corr_curve_slope(&fast);
	}
	c.insns = insns;
	c.n = n;
	c.d = d;
	c.o = o;
	c.np = np;
	c.p = r->p;
	for (size_t i = 0; d->counts && i < n; i++) {
		c.total += d->counts[i];
		cells += d->counts[i] > 0;
	}
	if (c.total == 0 && !d->curve) {
		snprintf(err, errlen, "nothing to fit to '%s'", "no samples and no curve");
		return -1;
	}
	if (d->loop && (d->loop_copies == 0 || d->loop_n < d->loop_copies * n)) {
		snprintf(err, errlen, "bad loop for the fit '%zu instructions, %zu copies of %zu'",
			 d->loop_n, d->loop_copies, n);
		return -1;
	}
	if (corr_alloc(&c, r, err, errlen))
		goto out;
	t32_model_prepare_found(u, c.found, insns, n, c.block);
	if (corr_params_init(&c, r, params, np, v, &wj, err, errlen))
		goto out;

	r->width_objective = wj >= 0 ? calloc(r->p[wj].hi - r->p[wj].lo + 1, sizeof(double)) : NULL;
	if (wj >= 0 && !r->width_objective) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (corr_search_balanced(&c, wj, v, best_v, &best, r, params, cells, err, errlen))
		goto out;
	r->share_weight = c.w_share;
	r->curve_weight = c.w_curve;
	for (size_t j = 0; j < np; j++)
		r->p[j].value = best_v[j];
	if (corr_intervals(&c, r, wj, best_v, best, cells, err, errlen) ||
	    corr_results(&c, r, best_v, best, err, errlen))
		goto out;
	rc = 0;
out:
	t32_free_all(c.memo, c.block, c.share, c.loop, c.curve, c.own);
	t32_model_result_free(&c.res);
	t32_model_result_free(&c.loop_res);
	if (rc)
		t32_corr_result_free(r);
	return rc;
}

void t32_corr_result_free(struct t32_corr_result *r)
{
	t32_free_all(r->latency, r->pred_share, r->meas_share, r->pred_curve, r->width_objective);
	r->latency = NULL;
	r->pred_share = r->meas_share = r->pred_curve = r->width_objective = NULL;
}

/* Is key (or "key=value") among the pinned ones? */
static int corr_pinned(const char *key, const char *const *pinned, size_t npinned)
{
	size_t l = strlen(key);

	for (size_t i = 0; i < npinned; i++)
		if (strncmp(pinned[i], key, l) == 0 && (pinned[i][l] == 0 || pinned[i][l] == '='))
			return 1;
	return 0;
}

size_t t32_corr_default_params(const struct t32_model_insn *b, size_t n, int loop,
			       const char *const *pinned, size_t npinned,
			       char keys[][48], size_t max)
{
	int present[T32_NCLASS] = { 0 }, untabled[T32_NCLASS] = { 0 }, loads = 0;
	size_t m = 0;

	/*
	 * A load whose whole chain was measured here pins load latency plus its
	 * own: fitting load_latency too could only trade one against the other.
	 */
	for (size_t i = 0; i < n; i++) {
		present[b[i].cls] = 1;
		untabled[b[i].cls] |= b[i].src == T32_LAT_CLASS;
		loads |= (b[i].d.flags & T32_INSN_LOAD) && b[i].src != T32_LAT_MEASURED;
	}
	if (m < max && !corr_pinned("retire_width", pinned, npinned))
		snprintf(keys[m++], 48, "retire_width");
	if (m < max && !corr_pinned("retire_group", pinned, npinned))
		snprintf(keys[m++], 48, "retire_group");
	for (int c = 0; c < T32_NCLASS; c++) {
		char key[48];

		if (!untabled[c] || c == T32_CLASS_NOP || c == T32_CLASS_SERIAL)
			continue;
		snprintf(key, sizeof(key), "latency.%s", t32_classes[c].name);
		if (m < max && !corr_pinned(key, pinned, npinned))
			snprintf(keys[m++], 48, "%s", key);
	}
	if (loads && m < max && !corr_pinned("load_latency", pinned, npinned))
		snprintf(keys[m++], 48, "load_latency");
	for (int c = 0; c < T32_NCLASS; c++) {
		char key[48];

		if (!(present[c] || (loop && c == T32_CLASS_BRANCH)) || c == T32_CLASS_NOP ||
		    c == T32_CLASS_SERIAL)
			continue;
		snprintf(key, sizeof(key), "retire_delay.%s", t32_classes[c].name);
		if (m < max && !corr_pinned(key, pinned, npinned))
			snprintf(keys[m++], 48, "%s", key);
	}
	return m;
}

double t32_tvd(const double *p, const double *q, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += fabs(p[i] - q[i]);
	return s / 2;
}

int t32_gof_test(const uint64_t *k, const double *p, size_t n, unsigned nfit, struct t32_gof *g)
{
	uint64_t total = 0;
	double pool_e = 0, pool_o = 0, chi2 = 0, psum = 0;
	unsigned bins = 0;
	int pooled = 0;

	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < n; i++) {
		total += k[i];
		psum += p[i];
	}
	if (total == 0 || !(psum > 0))
		return -1;
	for (size_t i = 0; i < n; i++) {
		double e = (double)total * p[i] / psum, obs = (double)k[i];

		g->tvd += fabs(obs / (double)total - p[i] / psum) / 2;
		if (e >= 5) {
			chi2 += (obs - e) * (obs - e) / e;
			bins++;
		} else {
			pool_e += e;
			pool_o += obs;
			pooled = 1;
		}
	}
	if (pooled && (pool_e > 0 || pool_o > 0)) {
		bins++;
		chi2 += pool_e > 0 ? (pool_o - pool_e) * (pool_o - pool_e) / pool_e : INFINITY;
	}
	g->chi2 = chi2;
	g->bins = bins;
	g->df = bins > 1 + nfit ? bins - 1 - nfit : 1;
	g->p = isfinite(chi2) ? gsl_cdf_chisq_Q(chi2, g->df) : 0;
	return 0;
}

void t32_curve_compare(const double *meas, const double *hw, const double *pred, size_t n,
		       double sigma_min, struct t32_curve_cmp *c)
{
	double ss = 0;

	memset(c, 0, sizeof(*c));
	c->r = NAN;
	if (n == 0)
		return;
	if (n >= 3 && gsl_stats_variance(meas, 1, n) > 0 && gsl_stats_variance(pred, 1, n) > 0)
		c->r = gsl_stats_correlation(meas, 1, pred, 1, n);
	c->part_sigmas = -1;
	for (size_t k = 0; k < n; k++) {
		double e = meas[k] - pred[k], s = hw && hw[k] > sigma_min ? hw[k] : sigma_min;
		double z = s > 0 ? fabs(e) / s : fabs(e);

		ss += e * e;
		if (z > c->part_sigmas) {
			c->part_sigmas = z;
			c->part_k = k;
			c->part_diff = e;
		}
	}
	c->rms = sqrt(ss / (double)n);
}

int t32_insitu_latency(uint64_t k_test, uint64_t k_ref, double ref_cycles, int nested, double z,
		       struct t32_insitu *r)
{
	double lo, hi, f;

	memset(r, 0, sizeof(*r));
	if (nested) {
		if (k_ref == 0 || k_test > k_ref)
			return -1;
		f = (double)k_test / (double)k_ref;
		t32_wilson(k_test, k_ref, z, &lo, &hi);
		r->fraction = f;
		r->cycles = f * ref_cycles;
		r->lo = lo * ref_cycles;
		r->hi = hi * ref_cycles;
		return 0;
	}
	if (k_ref == 0)
		return -1;
	/* theta = k_test / (k_test + k_ref) is binomial; the ratio is theta / (1 - theta) */
	f = (double)k_test / (double)(k_test + k_ref);
	t32_wilson(k_test, k_test + k_ref, z, &lo, &hi);
	r->fraction = f;
	r->cycles = ref_cycles * (double)k_test / (double)k_ref;
	r->lo = ref_cycles * lo / (1 - lo);
	r->hi = hi < 1 ? ref_cycles * hi / (1 - hi) : INFINITY;
	return 0;
}
