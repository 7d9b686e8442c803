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

/* Ascending doubles, for qsort. */
static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[0..n), reordering v. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median y of points [first, last]. */
static double run_level(const struct pt *p, size_t first, size_t last, double *tmp)
{
	size_t m = last - first + 1;

	for (size_t i = 0; i < m; i++)
		tmp[i] = p[first + i].y;
	return median(tmp, m);
}

/*
 * The sd of the difference of two neighbouring points, from the differences
 * themselves: the smaller of the MAD about their median (right when jumps are
 * rare, also on a slope) and the lower quartile of their sizes (right when up to
 * three quarters of them are jumps, as on a staircase of period 2).
 */
static double diff_noise(const double *d, size_t m, double *tmp)
{
	if (m == 0)
		return 0;
	memcpy(tmp, d, m * sizeof(*d));
	double med = median(tmp, m);
	for (size_t i = 0; i < m; i++)
		tmp[i] = fabs(d[i] - med);
	double s1 = 1.4826 * median(tmp, m);
	for (size_t i = 0; i < m; i++)
		tmp[i] = fabs(d[i]);
	qsort(tmp, m, sizeof(*tmp), dbl_cmp);
	double s2 = tmp[m / 4] / 0.3186;
	return fmin(s1, s2);
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
	s->periodic = m >= 3 && s->regular >= 0.8;
}

/* Jumps, plateaus and rhythm of a curve (rules in fit.h). */
int t32_steps_find(const double *x, const double *y, size_t n, const struct t32_steps_opts *o,
		   struct t32_steps *s)
{
	struct t32_steps_opts def = { 0 };
	struct pt *p = NULL;
	double *d = NULL, *tmp = NULL;
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
	d = malloc(n * sizeof(*d));
	tmp = malloc(n * sizeof(*tmp));
	start = malloc((n + 1) * sizeof(*start));
	if (!p || !d || !tmp || !start)
		goto fail;
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pt){ x[i], y[i], i };
	qsort(p, n, sizeof(*p), pt_cmp);

	double ymax = 0;
	for (size_t i = 0; i < n; i++)
		ymax = fmax(ymax, fabs(p[i].y));
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = p[i + 1].y - p[i].y;
	double sd_d = diff_noise(d, n - 1, tmp);
	double k = o->k > 0 ? o->k : 5;
	double floor_jump = o->min_jump > 0 ? o->min_jump : 1e-9 * ymax;
	s->noise = sd_d / sqrt(2);
	s->threshold = fmax(k * sd_d, floor_jump);

	/* Runs between jumps: start[r] is the first point of run r; start[np] = n. */
	start[np++] = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (fabs(d[i]) > s->threshold)
			start[np++] = i + 1;
	start[np] = n;

	/*
	 * A lone point off two neighbours that agree is a spike: fold it into them.
	 * Then merge neighbours whose levels are closer than the threshold, until none.
	 */
	for (size_t r = 1; r + 1 < np; r++) {
		if (start[r + 1] - start[r] != 1)
			continue;
		double before = p[start[r] - 1].y, after = p[start[r] + 1].y;
		if (fabs(after - before) > s->threshold)
			continue;
		memmove(&start[r], &start[r + 2], (np + 1 - (r + 2)) * sizeof(*start));
		np -= 2;
		r--;
	}
	for (int merged = 1; merged;) {
		merged = 0;
		for (size_t r = 0; r + 1 < np; r++) {
			double a = run_level(p, start[r], start[r + 1] - 1, tmp);
			double b = run_level(p, start[r + 1], start[r + 2] - 1, tmp);
			if (fabs(b - a) > s->threshold)
				continue;
			memmove(&start[r + 1], &start[r + 2], (np - (r + 1)) * sizeof(*start));
			np--;
			merged = 1;
			break;
		}
	}

	s->plateaus = calloc(np, sizeof(*s->plateaus));
	s->steps = np > 1 ? calloc(np - 1, sizeof(*s->steps)) : NULL;
	if (!s->plateaus || (np > 1 && !s->steps))
		goto fail;
	s->nplateaus = np;
	for (size_t r = 0; r < np; r++) {
		struct t32_plateau *pl = &s->plateaus[r];
		pl->first = start[r];
		pl->last = start[r + 1] - 1;
		pl->x0 = p[pl->first].x;
		pl->x1 = p[pl->last].x;
		pl->points = pl->last - pl->first + 1;
		pl->level = run_level(p, pl->first, pl->last, tmp);
		if (r > 0) {
			struct t32_step *st = &s->steps[s->nsteps++];
			st->x = pl->x0;
			st->x_before = s->plateaus[r - 1].x1;
			st->height = pl->level - s->plateaus[r - 1].level;
		}
	}
	steps_rhythm(s, tmp);
	free(p);
	free(d);
	free(tmp);
	free(start);
	return 0;
fail:
	free(p);
	free(d);
	free(tmp);
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
