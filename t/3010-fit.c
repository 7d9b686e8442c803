/*
 * 3010-fit - the robust line fit: known slope and intercept, outliers, edge cases.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_fit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/fit.h"
#include "t/rng.h"
#include "t/tap.h"

#define N 100

int main(void)
{
	gsl_rng *r = test_rng(3010);
	double x[N], y[N], res[N];
	struct t32_linfit f;

	plan(26);

	/* An exact line. */
	for (int i = 0; i < 20; i++) {
		x[i] = i + 1;
		y[i] = 7 + 2.5 * x[i];
	}
	ok(t32_linfit(x, y, 20, res, &f) == 0, "exact line fits");
	is_double(7, f.a, 1e-9, "exact: intercept");
	is_double(2.5, f.b, 1e-9, "exact: slope");
	is_double(1, f.r2, 1e-9, "exact: r2 = 1");
	ok(f.robust == 1 && f.n == 20, "20 points: robust fit");
	ok(fabs(res[0]) < 1e-9 && fabs(res[19]) < 1e-9 && f.rms < 1e-9, "exact: no residuals");

	/* A sweep: cost = 12.5 + 3.25 n with noise, and 10 points hit by interrupts. */
	double a = 12.5, b = 3.25, sd = 0.5;
	for (int i = 0; i < N; i++) {
		x[i] = i + 1;
		y[i] = a + b * x[i] + gsl_ran_gaussian(r, sd);
		if (i % 10 == 3)
			y[i] += 40 + 20 * gsl_rng_uniform(r);
	}
	ok(t32_linfit(x, y, N, res, &f) == 0, "noisy sweep with outliers fits");
	ok(f.robust, "robust fit used");
	is_double(b, f.b, 4 * f.se_b + 1e-3, "robust slope %.4f +- %.4f", f.b, f.se_b);
	is_double(a, f.a, 4 * f.se_a + 1e-3, "robust intercept %.3f +- %.3f", f.a, f.se_a);
	is_double(sd / sqrt(83325.0), f.se_b, 0.5 * sd / sqrt(83325.0),
		  "slope's standard error from the inliers' noise, not the outliers'");
	ok(f.rejected >= 8 && f.rejected <= 12, "the outliers are rejected (%zu)", f.rejected);
	is_double(y[50] - f.a - f.b * x[50], res[50], 1e-12, "residuals are y - a - b x");
	double c0, c1, c00, c01, c11, ss;
	gsl_fit_linear(x, 1, y, 1, N, &c0, &c1, &c00, &c01, &c11, &ss);
	ok(fabs(c0 - a) > 5 * fabs(f.a - a), "least squares is pulled by the outliers "
	   "(intercept %.2f against %.2f)", c0, f.a);

	/* Without outliers the standard error matches sd / sqrt(Sxx). */
	double sxx = 0;
	for (int i = 0; i < N; i++) {
		y[i] = a + b * x[i] + gsl_ran_gaussian(r, sd);
		sxx += (x[i] - 50.5) * (x[i] - 50.5);
	}
	t32_linfit(x, y, N, NULL, &f);
	is_double(sd / sqrt(sxx), f.se_b, 0.3 * sd / sqrt(sxx), "slope se near sd / sqrt(Sxx)");
	is_double(sd, f.rms, 0.15 * sd, "rms near the noise sd");
	ok(f.r2 > 0.999, "r2 of a clean line (%.5f)", f.r2);

	/* Few points: ordinary least squares. */
	double x5[] = { 1, 2, 3, 4, 5 }, y5[] = { 3, 5, 7, 9, 11.5 };
	ok(t32_linfit(x5, y5, 5, NULL, &f) == 0 && f.robust == 0, "5 points: least squares");
	gsl_fit_linear(x5, 1, y5, 1, 5, &c0, &c1, &c00, &c01, &c11, &ss);
	ok(f.a == c0 && f.b == c1 && f.se_b == sqrt(c11), "5 points: the least-squares line");

	/* Two points: a line, no error. */
	double x2[] = { 1, 3 }, y2[] = { 10, 16 };
	ok(t32_linfit(x2, y2, 2, NULL, &f) == 0, "2 points fit");
	is_double(3, f.b, 1e-12, "2 points: slope");
	ok(isnan(f.se_a) && isnan(f.se_b), "2 points: no standard errors");

	/* What cannot be fitted. */
	ok(t32_linfit(x2, y2, 1, NULL, &f) == -1, "1 point: error");
	double same[] = { 4, 4, 4 }, yy[] = { 1, 2, 3 };
	ok(t32_linfit(same, yy, 3, NULL, &f) == -1, "all x equal: error");
	yy[1] = NAN;
	ok(t32_linfit(yy, yy, 3, NULL, &f) == -1, "NaN: error");

	/* A flat line: slope 0, r2 defined. */
	for (int i = 0; i < 10; i++)
		y[i] = 42;
	ok(t32_linfit(x, y, 10, NULL, &f) == 0 && fabs(f.b) < 1e-12 && fabs(f.a - 42) < 1e-9,
	   "flat line: slope 0");

	gsl_rng_free(r);
	return done_testing();
}
