/*
 * fit.c - robust line fit and step detection for sweeps.  See fit.h.
 */
#include "analysis/fit.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* Ordinary least squares, for few points or when the robust fit fails. */
static void linfit_ols(const double *x, const double *y, size_t n, struct t32_linfit *f)
{
	double c0, c1, cov00, cov01, cov11, sumsq, mean = 0, sst = 0;

	gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
	for (size_t i = 0; i < n; i++)
		mean += y[i] / n;
	for (size_t i = 0; i < n; i++)
		sst += (y[i] - mean) * (y[i] - mean);
	f->a = c0;
	f->b = c1;
	f->se_a = n > 2 ? sqrt(cov00) : NAN;
	f->se_b = n > 2 ? sqrt(cov11) : NAN;
	f->r2 = sst > 0 ? 1 - sumsq / sst : 1;
	f->sigma = n > 2 ? sqrt(sumsq / (n - 2)) : NAN;
	f->rejected = 0;
	f->robust = 0;
}

/* Bisquare fit through GSL; returns 0, or -1 so that the caller falls back to OLS. */
static int linfit_robust(const double *x, const double *y, size_t n, struct t32_linfit *f)
{
	gsl_matrix *X = gsl_matrix_alloc(n, 2);
	gsl_vector *yv = gsl_vector_alloc(n), *c = gsl_vector_alloc(2);
	gsl_matrix *cov = gsl_matrix_alloc(2, 2);
	gsl_multifit_robust_workspace *w =
		gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, n, 2);
	int ret = -1;

	if (!X || !yv || !c || !cov || !w)
		goto out;
	for (size_t i = 0; i < n; i++) {
		gsl_matrix_set(X, i, 0, 1.0);
		gsl_matrix_set(X, i, 1, x[i]);
		gsl_vector_set(yv, i, y[i]);
	}
	int st = gsl_multifit_robust(X, yv, c, cov, w);
	if (st != GSL_SUCCESS && st != GSL_EMAXITER)
		goto out;
	gsl_multifit_robust_stats rs = gsl_multifit_robust_statistics(w);
	f->a = gsl_vector_get(c, 0);
	f->b = gsl_vector_get(c, 1);
	/*
	 * GSL scales the covariance by the larger of the robust scale and a blend with
	 * the least-squares one, which the very outliers we reject inflate; the
	 * robust scale alone gives the error of the line the inliers define.
	 */
	double scale = rs.sigma > 0 && isfinite(rs.sigma_rob) ? rs.sigma_rob / rs.sigma : 1;
	f->se_a = sqrt(gsl_matrix_get(cov, 0, 0)) * scale;
	f->se_b = sqrt(gsl_matrix_get(cov, 1, 1)) * scale;
	f->r2 = rs.Rsq;
	f->sigma = rs.sigma_rob;
	f->rejected = 0;
	for (size_t i = 0; i < n; i++)
		if (gsl_vector_get(rs.weights, i) == 0)
			f->rejected++;
	f->robust = 1;
	if (isfinite(f->a) && isfinite(f->b) && isfinite(f->se_a) && isfinite(f->se_b))
		ret = 0;
out:
	if (w)
		gsl_multifit_robust_free(w);
	gsl_matrix_free(cov);
	gsl_vector_free(c);
	gsl_vector_free(yv);
	gsl_matrix_free(X);
	return ret;
}

/* Robust where there are enough points, least squares otherwise; residuals of all points. */
int t32_linfit(const double *x, const double *y, size_t n, double *resid, struct t32_linfit *f)
{
	memset(f, 0, sizeof(*f));
	if (n < 2)
		return -1;
	int spread = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			return -1;
		if (x[i] != x[0])
			spread = 1;
	}
	if (!spread)
		return -1;

	gsl_error_handler_t *old = gsl_set_error_handler_off();
	if (n < T32_FIT_ROBUST_MIN || linfit_robust(x, y, n, f) < 0)
		linfit_ols(x, y, n, f);
	gsl_set_error_handler(old);

	double ss = 0;
	for (size_t i = 0; i < n; i++) {
		double r = y[i] - f->a - f->b * x[i];
		if (resid)
			resid[i] = r;
		ss += r * r;
	}
	f->rms = sqrt(ss / n);
	f->n = n;
	return 0;
}

/* A point, with its place in the caller's arrays for a stable sort. */
struct pt {
	double x, y;
	size_t i;
};

/* By x, then by input order, so equal x keep their order. */
static int pt_cmp(const void *a, const void *b)
{
	const struct pt *p = a, *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

/* Median of v[0..n), reordering v. */
static double median(double *v, size_t n)
{
	return gsl_stats_median(v, 1, n);
}

/* Median y of points [first, last]. */
static double run_level(const struct pt *p, size_t first, size_t last, double *tmp)
{
	size_t m = last - first + 1;

	for (size_t i = 0; i < m; i++)
		tmp[i] = p[first + i].y;
	return median(tmp, m);
}

/* Fit step positions to a grid x0 + period * j: the rhythm of the steps. */
static void steps_rhythm(struct t32_steps *s, double *tmp)
{
	size_t m = s->nsteps;

	if (m == 0)
		return;
	double sum = 0, ss = 0;
	for (size_t j = 0; j < m; j++)
		sum += s->steps[j].height;
	s->height_mean = sum / m;
	for (size_t j = 0; j < m; j++)
		ss += (s->steps[j].height - s->height_mean) * (s->steps[j].height - s->height_mean);
	s->height_sd = m > 1 ? sqrt(ss / (m - 1)) : 0;
	if (m < 2)
		return;

	for (size_t j = 0; j + 1 < m; j++)
		tmp[j] = s->steps[j + 1].x - s->steps[j].x;
	double p0 = median(tmp, m - 1);
	if (!(p0 > 0))
		return;

	/* Grid index of each step, then least squares x = x0 + period * index. */
	double sj = 0, sx = 0, sjj = 0, sjx = 0;
	for (size_t j = 0; j < m; j++) {
		double idx = round((s->steps[j].x - s->steps[0].x) / p0);
		tmp[j] = idx;
		sj += idx;
		sx += s->steps[j].x;
		sjj += idx * idx;
		sjx += idx * s->steps[j].x;
	}
	double den = m * sjj - sj * sj;
	double period = den > 0 ? (m * sjx - sj * sx) / den : p0;
	double x0 = (sx - period * sj) / m;
	double rss = 0;
	size_t on = 0;
	for (size_t j = 0; j < m; j++) {
		double r = s->steps[j].x - (x0 + period * tmp[j]);
		rss += r * r;
		if (fabs(r) <= period / 4)
			on++;
	}
	s->period = period;
	s->period_rms = sqrt(rss / m);
	s->regular = (double)on / m;
	/* a rhythm is of rises, or of falls: a curve that goes up and down again has none */
	size_t up = 0;
	for (size_t j = 0; j < m; j++)
		up += s->steps[j].height > 0;
	s->periodic = m >= 3 && s->regular >= 0.8 && (up == m || up == 0);
}

/*
 * Step finding works on the differences of neighbouring points.  Each difference
 * is judged against a window of STEPS_SIDE differences on either side: the local
 * slope (least squares through the window's points) and the median and spread of
 * the neighbours' differences once that slope is taken out.
 */
#define STEPS_SIDE 10	/* differences on each side of a candidate that judge it */
#define STEPS_SLOPES 6	/* a step rises at least this many times what the local slope adds */

/* The verdicts of one pass over the points, one entry per difference, and scratch room. */
struct steps_diffs {
	double *d;	/* y unit: y[i + 1] - y[i] */
	double *rise;	/* y unit: what the local slope adds over the same x */
	double *e;	/* y unit: d - rise */
	double *pair;	/* y unit: median y of the three points after it less that of the three before */
	double *trend;	/* y unit: what the local slope adds between those two medians */
	double *jump;	/* y unit: e less the median e of the window */
	double *thr;	/* y unit: the smallest jump counted as a step at this difference */
	double sigma;	/* y unit: robust sd of e over the whole curve */
	double *tmp;	/* scratch: n doubles */
	double *work;	/* scratch: 3 n doubles */
	int *iwork;	/* scratch: 5 n ints */
};

/* Median of three. */
static double med3(double a, double b, double c)
{
	return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/* Median y of the points q[a..b), one to three of them; *x: where it stands. */
static double med_y(const struct pt *q, size_t a, size_t b, double *x)
{
	if (b - a >= 3) {
		*x = q[a + 1].x;
		return med3(q[a].y, q[a + 1].y, q[a + 2].y);
	}
	*x = b - a == 2 ? (q[a].x + q[a + 1].x) / 2 : q[a].x;
	return b - a == 2 ? (q[a].y + q[a + 1].y) / 2 : q[a].y;
}

/*
 * Least-squares slope of the points q[lo..hi] of n (y unit per x unit), through
 * GSL, each y the median of itself and its neighbours so that a lone outlier does
 * not tilt it (a line or a staircase is left as it is); 0 when the x do not
 * spread.  xs, ys: room for hi - lo + 1 doubles each.
 */
static double window_slope(const struct pt *q, size_t n, size_t lo, size_t hi, double *xs,
			   double *ys)
{
	size_t m = hi - lo + 1;
	double c0, c1, cov00, cov01, cov11, sumsq;

	for (size_t i = 0; i < m; i++) {
		size_t j = lo + i;
		xs[i] = q[j].x;
		ys[i] = j > 0 && j + 1 < n ? med3(q[j - 1].y, q[j].y, q[j + 1].y) : q[j].y;
	}
	if (xs[m - 1] == xs[0] ||
	    gsl_fit_linear(xs, 1, ys, 1, m, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) != GSL_SUCCESS)
		return 0;
	return c1;
}

/*
 * Robust sd of v[0..c) through GSL's Qn (sorts v): the scale of the pairwise
 * distances, which a mix of flat runs and jumps does not inflate where the
 * median absolute deviation would jump to the distance between the two.
 */
static double robust_sd(double *v, size_t c, struct steps_diffs *D)
{
	if (c < 2)
		return 0;
	gsl_sort(v, 1, c);
	return gsl_stats_Qn_from_sorted_data(v, 1, c, D->work, D->iwork);
}

/* First and last difference of the window that judges difference i of nd (kept inside). */
static void steps_window(size_t i, size_t nd, size_t *lo, size_t *hi)
{
	*lo = i > STEPS_SIDE ? i - STEPS_SIDE : 0;
	*hi = *lo + 2 * STEPS_SIDE;
	if (*hi > nd - 1) {
		*hi = nd - 1;
		*lo = *hi > 2 * STEPS_SIDE ? *hi - 2 * STEPS_SIDE : 0;
	}
}

/* Judge the m - 1 differences of q[0..m) (m >= 2) into D; k, floor_jump: see t32_steps_find. */
static void steps_judge(const struct pt *q, size_t m, double k, double floor_jump,
			struct steps_diffs *D)
{
	size_t nd = m - 1, lo, hi;
	double *tmp = D->tmp;

	for (size_t i = 0; i < nd; i++) {
		steps_window(i, nd, &lo, &hi);
		double slope = window_slope(q, m, lo, hi + 1, tmp, D->work);
		size_t b0 = i >= 2 ? i - 2 : 0, a1 = i + 4 <= m ? i + 4 : m;
		double xb, xa;

		D->d[i] = q[i + 1].y - q[i].y;
		D->rise[i] = slope * (q[i + 1].x - q[i].x);
		D->e[i] = D->d[i] - D->rise[i];
		D->pair[i] = med_y(q, i + 1, a1, &xa) - med_y(q, b0, i + 1, &xb);
		D->trend[i] = slope * (xa - xb);
	}
	memcpy(tmp, D->e, nd * sizeof(*tmp));
	D->sigma = robust_sd(tmp, nd, D);
	for (size_t i = 0; i < nd; i++) {
		size_t c = 0;

		steps_window(i, nd, &lo, &hi);
		for (size_t j = lo; j <= hi; j++)
			tmp[c++] = D->e[j];
		double sigma = robust_sd(tmp, c, D);
		D->jump[i] = D->e[i] - median(tmp, c);
		D->thr[i] = fmax(k * fmax(sigma, D->sigma), floor_jump);
	}
}

/*
 * Difference i is a step: it stands far out of its neighbours' differences, and
 * the levels on either side (the median of three points each, so that neither
 * an outlier beside the jump nor a point caught half way up it decides) differ
 * by more than the slope explains, by the threshold (scaled to a median's
 * noise) and by STEPS_SLOPES times what the slope adds from one point to the
 * next.  A line rises three slopes' worth between the medians, a staircase one
 * step.
 */
static int steps_is_jump(const struct steps_diffs *D, size_t i)
{
	double lift = D->pair[i] - D->trend[i];

	return fabs(D->jump[i]) > D->thr[i] && fabs(lift) > sqrt(0.5) * D->thr[i] &&
	       fabs(D->pair[i]) >= STEPS_SLOPES * fabs(D->rise[i]) &&
	       (D->d[i] > 0) == (D->jump[i] > 0) && (D->pair[i] > 0) == (D->d[i] > 0) &&
	       (lift > 0) == (D->d[i] > 0);
}

/*
 * How far point a of m stands out as an outlier, 0 when it does not (or is no
 * interior point): it must stand out of the line through its two neighbours by
 * more than the threshold (scaled from a difference to a point: sd sqrt(3/4) of a
 * difference's), and by more than the neighbours lie apart.  A point on a real
 * jump lies between its neighbours.  Both measured on the jumps (what the
 * differences add over the window's typical difference).
 */
static double steps_spike(const struct steps_diffs *D, size_t m, size_t a)
{
	if (a == 0 || a >= m - 1)
		return 0;
	double dev = fabs(D->jump[a - 1] - D->jump[a]) / 2;
	double gap = fabs(D->jump[a - 1] + D->jump[a]);

	return dev > sqrt(0.75) * fmax(D->thr[a - 1], D->thr[a]) && dev > gap ? dev : 0;
}

/* Default min_jump: above rounding, so that exact data (no noise) has a threshold. */
static double steps_floor(const struct pt *p, size_t n)
{
	double ymax = 0;

	for (size_t i = 0; i < n; i++)
		ymax = fmax(ymax, fabs(p[i].y));
	return 1e-9 * ymax;
}

/*
 * One pass over the outliers of q[0..n): judge the differences, then set each
 * outlier to what its neighbours say it should be, each going on by the typical
 * difference of its side; where the two disagree by what could be a step (the
 * outlier sits on a jump) to the one nearer it, else to their mean.  Setting
 * rather than dropping keeps the spacing of x, and a jump beside an outlier
 * within one point of where it was.  Of two neighbours only the one that stands
 * out more is set in one pass (a good point beside an outlier stands out of the
 * line through it too).  Returns how many were set.
 */
static size_t steps_clip_spikes(struct pt *q, size_t n, double k, double floor_jump,
				struct steps_diffs *D)
{
	double *to = D->tmp;
	size_t clipped = 0;

	if (n < 3)
		return 0;
	steps_judge(q, n, k, floor_jump, D);
	for (size_t a = 1; a + 1 < n; a++) {
		double v = steps_spike(D, n, a);
		to[a] = q[a].y;
		if (v > 0 && v >= steps_spike(D, n, a - 1) && v > steps_spike(D, n, a + 1)) {
			double left = q[a].y - D->jump[a - 1], right = q[a].y + D->jump[a];
			double apart = fabs(left - right);
			if (apart <= fmax(D->thr[a - 1], D->thr[a]) ||
			    apart < STEPS_SLOPES * fmax(fabs(D->rise[a - 1]), fabs(D->rise[a])))
				to[a] = (left + right) / 2;
			else
				to[a] = fabs(left - q[a].y) < fabs(right - q[a].y) ? left : right;
		}
	}
	for (size_t a = 1; a + 1 < n; a++) {
		clipped += to[a] != q[a].y;
		q[a].y = to[a];
	}
	return clipped;
}

/*
 * The runs between jumps tidied (start[r] is run r's first point, start[np] the
 * end); the new count of runs.
 */
static size_t steps_tidy_runs(size_t *start, size_t np, const struct pt *q,
			      const struct steps_diffs *D, double *tmp)
{
	/*
	 * One or two points between jumps of opposite sign are a burst of outliers,
	 * not two steps: both jumps go.  A lone point between jumps of one sign lies
	 * on the way up (or down) and joins the run whose level it is nearer.
	 */
	for (size_t r = 1; r + 1 < np; r++) {
		size_t a = start[r], b = start[r + 1];
		if (b - a > 2)
			continue;
		if (D->d[a - 1] * D->d[b - 1] < 0) {
			memmove(&start[r], &start[r + 2], (np + 1 - (r + 2)) * sizeof(*start));
			np -= 2;
			r--;
			continue;
		}
		if (b - a != 1)
			continue;
		int to_before = fabs(q[a].y - q[a - 1].y) < fabs(q[a + 1].y - q[a].y);
		size_t drop = to_before ? r : r + 1;
		memmove(&start[drop], &start[drop + 1], (np - drop) * sizeof(*start));
		np--;
	}
	/* Neighbour runs whose levels differ by less than the threshold there are one. */
	for (int merged = 1; merged;) {
		merged = 0;
		for (size_t r = 0; r + 1 < np; r++) {
			double a = run_level(q, start[r], start[r + 1] - 1, tmp);
			double b = run_level(q, start[r + 1], start[r + 2] - 1, tmp);
			if (fabs(b - a) > D->thr[start[r + 1] - 1])
				continue;
			memmove(&start[r + 1], &start[r + 2], (np - (r + 1)) * sizeof(*start));
			np--;
			merged = 1;
			break;
		}
	}
	return np;
}

/* Jumps, plateaus and rhythm of a curve (rules in fit.h). */
int t32_steps_find(const double *x, const double *y, size_t n, const struct t32_steps_opts *o,
		   struct t32_steps *s)
{
	struct t32_steps_opts def = { 0 };
	struct steps_diffs D = { 0 };
	struct pt *p = NULL, *q = NULL;
	double *buf = NULL, *tmp;
	int *ibuf = NULL;
	size_t *start = NULL, np = 0;

	memset(s, 0, sizeof(*s));
	if (!o)
		o = &def;
	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || !isfinite(y[i]))
			return -1;
	p = malloc(n * sizeof(*p));
	q = malloc(n * sizeof(*q));
	buf = malloc(11 * n * sizeof(*buf));
	ibuf = malloc(5 * n * sizeof(*ibuf));
	start = malloc((n + 1) * sizeof(*start));
	if (!p || !q || !buf || !ibuf || !start)
		goto fail;
	D.d = buf;
	D.rise = buf + n;
	D.e = buf + 2 * n;
	D.jump = buf + 3 * n;
	D.thr = buf + 4 * n;
	D.tmp = tmp = buf + 5 * n;
	D.work = buf + 6 * n;
	D.pair = buf + 9 * n;
	D.trend = buf + 10 * n;
	D.iwork = ibuf;
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pt){ x[i], y[i], i };
	qsort(p, n, sizeof(*p), pt_cmp);
	memcpy(q, p, n * sizeof(*q));

	double k = o->k > 0 ? o->k : 5;
	double floor_jump = o->min_jump > 0 ? o->min_jump : steps_floor(p, n);

	/* Outliers first, a few passes (a pair of them shows as one after the other goes). */
	for (int pass = 0; pass < 4; pass++)
		if (!steps_clip_spikes(q, n, k, floor_jump, &D))
			break;

	/* Runs between jumps: start[r] is the first point of run r; start[np] = n. */
	start[np++] = 0;
	if (n >= 2) {
		steps_judge(q, n, k, floor_jump, &D);
		for (size_t i = 0; i + 1 < n; i++)
			if (steps_is_jump(&D, i))
				start[np++] = i + 1;
	}
	start[np] = n;
	s->noise = D.sigma / sqrt(2);
	s->threshold = fmax(k * D.sigma, floor_jump);

	np = steps_tidy_runs(start, np, q, &D, tmp);

	s->plateaus = calloc(np, sizeof(*s->plateaus));
	s->steps = np > 1 ? calloc(np - 1, sizeof(*s->steps)) : NULL;
	if (!s->plateaus || (np > 1 && !s->steps))
		goto fail;
	s->nplateaus = np;
	for (size_t r = 0; r < np; r++) {
		struct t32_plateau *pl = &s->plateaus[r];
		pl->first = start[r];
		pl->last = start[r + 1] - 1;
		pl->x0 = q[pl->first].x;
		pl->x1 = q[pl->last].x;
		pl->points = pl->last - pl->first + 1;
		/* an outlier counts at the value its neighbours set it to */
		pl->level = run_level(q, pl->first, pl->last, tmp);
		if (r > 0) {
			struct t32_step *st = &s->steps[s->nsteps++];
			st->x = pl->x0;
			st->x_before = s->plateaus[r - 1].x1;
			st->height = pl->level - s->plateaus[r - 1].level;
		}
	}
	steps_rhythm(s, tmp);
	free(p);
	free(q);
	free(buf);
	free(ibuf);
	free(start);
	return 0;
fail:
	free(p);
	free(q);
	free(buf);
	free(ibuf);
	free(start);
	t32_steps_free(s);
	return -1;
}

/* Release what t32_steps_find allocated. */
void t32_steps_free(struct t32_steps *s)
{
	free(s->plateaus);
	free(s->steps);
	memset(s, 0, sizeof(*s));
}
