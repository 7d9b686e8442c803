/*
 * 5101-correlate-fit - the joint fit of analysis/correlate.c recovers the retire
 * width and one instruction's latency from shares and a step curve the model
 * itself generated (multinomial noise on the counts, half a percent of them
 * strays spread evenly, Gaussian noise on the curve); total variation distance and the chi-square test on identical and on
 * different distributions; the curve comparison; the in-situ latency on
 * synthetic counts (the blog's lock add: 38-40% of a 40-cycle block).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/correlate.h"
#include "analysis/fit.h"
#include "t/modelkit.h"
#include "t/tap.h"

/* mov rax, [rax]; 4 nops; add rax, 0; 5 nops: a load-add chain with nops to retire */
static const unsigned char CODE[] = {
	0x48, 0x8b, 0x00, 0x90, 0x90, 0x90, 0x90, 0x48, 0x83, 0xc0, 0x00,
	0x90, 0x90, 0x90, 0x90, 0x90,
};
#define ADD_INDEX 5	/* the add's position in CODE */
#define KMAX 12		/* curve: k = 0..KMAX copies */

/* A Skylake-like machine (the blog's), built in place so the test needs no data file. */
static void test_uarch(struct t32_uarch *u)
{
	kit_uarch(u, "test", 4, 224, 5);
	u->store_forward_latency = 4;
	u->latency[T32_CLASS_MUL] = 3;
	u->latency[T32_CLASS_DIV] = 26;
	u->latency[T32_CLASS_VECTOR] = 1;
	u->latency[T32_CLASS_BRANCH] = 1;
	u->latency[T32_CLASS_FENCE] = 4;
	u->latency[T32_CLASS_ATRETIRE] = 18;
	u->latency[T32_CLASS_SERIAL] = 100;
}

/*
 * Data from the model with retire width 4 and the add's latency 3: counts drawn
 * from the predicted shares (N samples), the curve with N(0, sd) noise.
 */
static void synth(const struct t32_uarch *u0, const struct t32_insn *in, size_t n, gsl_rng *rng,
		  unsigned N, double sd, uint64_t *counts, double *curve, double *hw)
{
	struct t32_uarch u = *u0;
	struct t32_model_insn *b = calloc(n, sizeof(*b));
	struct t32_model_result res;
	unsigned *k = calloc(n, sizeof(unsigned));

	u.retire_width = 4;
	t32_model_prepare(&u, NULL, in, n, b);
	b[ADD_INDEX].latency = 3;
	if (t32_model_steady(&u, b, n, 1, &res) || t32_model_curve(&u, b, n, KMAX, curve))
		bail("the model does not run on the test block");
	/* the stray samples the fit expects: half a percent spread evenly */
	for (size_t i = 0; i < n; i++)
		res.share[i] = 0.995 * res.share[i] + 0.005 / (double)n;
	gsl_ran_multinomial(rng, n, N, res.share, k);
	for (size_t i = 0; i < n; i++)
		counts[i] = k[i];
	for (size_t j = 0; j <= KMAX; j++) {
		curve[j] += gsl_ran_gaussian(rng, sd);
		hw[j] = 1.96 * sd;
	}
	t32_model_result_free(&res);
	free(b);
	free(k);
}

int main(void)
{
	struct t32_insn *in;
	struct t32_uarch u;
	size_t n;
	char err[256];
	uint64_t counts[32];
	double curve[KMAX + 1], hw[KMAX + 1];
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct t32_corr_result r;
	struct t32_corr_data d = { counts, curve, hw, KMAX, 1, NULL, 0, 0, NULL, NULL, NULL, NULL };
	struct t32_corr_opts o;
	const char *params[] = { "retire_width", "latency@5" };
	int fit_ok, recovered = 0;

	plan(51);
	if (t32_deps_decode(CODE, sizeof(CODE), &in, &n, err, sizeof(err)) || n != 11)
		bail("cannot decode the test block: %s", err);
	test_uarch(&u);
	u.retire_width = 8;	/* the fit starts away from the truth */
	t32_corr_opts_init(&o);
	o.fit_offset = 0;

	/* one fit in detail */
	gsl_rng_set(rng, 5101);
	synth(&u, in, n, rng, 2000, 0.3, counts, curve, hw);
	fit_ok = t32_corr_fit(&u, NULL, in, n, &d, params, 2, &o, &r, err, sizeof(err)) == 0;
	ok(fit_ok, "the fit runs (%s)", fit_ok ? "ok" : err);
	if (!fit_ok)
		bail("no fit");
	is_int(4, (long long)r.p[0].value, "retire width recovered");
	is_int(3, (long long)r.p[1].value, "the add's latency recovered");
	is_int(8, (long long)r.p[0].start, "the width started at the uarch's value");
	ok(r.p[0].lo == 1 && r.p[0].hi == 16, "widths 1..16 scanned (%lu..%lu)", r.p[0].lo, r.p[0].hi);
	ok(r.p[1].ci_lo <= 3 && r.p[1].ci_hi >= 3, "the latency's interval [%lu, %lu] holds 3",
	   r.p[1].ci_lo, r.p[1].ci_hi);
	ok(r.p[1].sd > 0 && r.p[1].sd < 1, "the latency's sd from the curvature is below a cycle (%g)",
	   r.p[1].sd);
	ok(fabs(r.p[1].est - 3) <= 0.5, "the refined latency is within half a cycle (%g)", r.p[1].est);
	is_double(8, r.cycles_per_iter, 1e-9, "cycles per iteration: load 5 + add 3");
	ok(r.gof.tvd < 0.05, "TVD of a right model against its own noisy draw is small (%g)", r.gof.tvd);
	ok(r.gof.p > 0.001, "the chi-square test does not reject the true model (p = %g)", r.gof.p);
	ok(r.cmp.r > 0.99, "the curves correlate (r = %g)", r.cmp.r);
	ok(r.cmp.part_sigmas < 4, "and do not part (%g half-widths at k = %zu)", r.cmp.part_sigmas,
	   r.cmp.part_k);
	is_int(2000, (long long)r.samples, "samples counted");
	ok(r.width_objective[3] < r.width_objective[7], "width 4 explains the data better than 8");
	is_int(3, r.latency[ADD_INDEX], "per-instruction latency reports the fitted one");
	is_int(4, (long long)r.u.retire_width, "the fitted uarch carries the width");
	{
		/* the fitted model against the same curve, its upper half taken on a shared core */
		struct t32_uarch fu = r.u;
		struct t32_corr_result a, b, c;
		double chi2_clean, kept[KMAX + 1];
		unsigned char okk[KMAX + 1];

		t32_corr_result_free(&r);
		memcpy(kept, curve, sizeof(kept));
		memset(okk, 1, sizeof(okk));
		t32_corr_fit(&fu, NULL, in, n, &d, NULL, 0, &o, &a, err, sizeof(err));
		chi2_clean = a.curve_chi2;
		for (size_t k = KMAX / 2 + 1; k <= KMAX; k++) {
			curve[k] += 50;
			okk[k] = 0;
		}
		t32_corr_fit(&fu, NULL, in, n, &d, NULL, 0, &o, &b, err, sizeof(err));
		d.curve_ok = okk;
		t32_corr_fit(&fu, NULL, in, n, &d, NULL, 0, &o, &c, err, sizeof(err));
		ok(b.curve_chi2 > 5 * chi2_clean && c.curve_chi2 < chi2_clean,
		   "untrusted steps among enough trusted ones weigh nothing in the fit (chi-square "
		   "%.1f clean, %.1f with them, %.1f without)", chi2_clean, b.curve_chi2, c.curve_chi2);
		d.curve_ok = NULL;
		memcpy(curve, kept, sizeof(kept));
		t32_corr_result_free(&a);
		t32_corr_result_free(&b);
		t32_corr_result_free(&c);
	}

	/* repeat with other draws, and with the curve offset free */
	o.fit_offset = 1;
	for (int rep = 0; rep < 4; rep++) {
		gsl_rng_set(rng, 100 + rep);
		synth(&u, in, n, rng, 1500, 0.4, counts, curve, hw);
		for (size_t j = 0; j <= KMAX; j++)
			curve[j] += 7;	/* the barriers' share that the model does not see */
		if (t32_corr_fit(&u, NULL, in, n, &d, params, 2, &o, &r, err, sizeof(err)) == 0) {
			recovered += r.p[0].value == 4 && r.p[1].value == 3 && fabs(r.offset - 7) < 1;
			t32_corr_result_free(&r);
		}
	}
	is_int(4, recovered, "4 of 4 noisy draws recover width 4, latency 3 and the offset");

	/* shares alone, curve alone */
	gsl_rng_set(rng, 7);
	synth(&u, in, n, rng, 3000, 0.3, counts, curve, hw);
	d.curve = NULL;
	ok(t32_corr_fit(&u, NULL, in, n, &d, params, 2, &o, &r, err, sizeof(err)) == 0 &&
	   r.p[0].value == 4, "shares alone fix the width");
	t32_corr_result_free(&r);
	d.curve = curve;
	d.counts = NULL;
	ok(t32_corr_fit(&u, NULL, in, n, &d, params + 1, 1, &o, &r, err, sizeof(err)) == 0 &&
	   r.p[0].value == 3, "the curve alone fixes the latency");
	t32_corr_result_free(&r);
	d.curve = NULL;
	ok(t32_corr_fit(&u, NULL, in, n, &d, params, 1, &o, &r, err, sizeof(err)) != 0,
	   "no data: an error (%s)", err);
	d.counts = counts;
	d.curve = curve;
	{
		const char *bad[] = { "retire_girth" };

		ok(t32_corr_fit(&u, NULL, in, n, &d, bad, 1, &o, &r, err, sizeof(err)) != 0 &&
		   strstr(err, "retire_girth"), "an unknown parameter is named (%s)", err);
	}

	/* TVD and the chi-square test */
	{
		double p[] = { 0.5, 0.3, 0.2 }, q[] = { 0.9, 0.1, 0.0 };
		uint64_t same[] = { 500, 300, 200 }, other[] = { 900, 100, 0 };
		struct t32_gof g;
		int rc;

		is_double(0, t32_tvd(p, p, 3), 1e-12, "TVD of a distribution with itself");
		is_double(0.4, t32_tvd(p, q, 3), 1e-12, "TVD of two different ones");
		rc = t32_gof_test(same, p, 3, 0, &g);
		ok(rc == 0 && g.chi2 < 1e-12 && g.p > 0.999 && g.df == 2,
		   "exact counts: chi-square 0, p 1, 2 df (%g, %g, %u)", g.chi2, g.p, g.df);
		rc = t32_gof_test(other, p, 3, 0, &g);
		ok(rc == 0 && g.p < 1e-6 && fabs(g.tvd - 0.4) < 1e-12,
		   "other counts: rejected (p = %g), TVD 0.4", g.p);
		rc = t32_gof_test(same, q, 3, 0, &g);
		ok(rc == 0 && g.p == 0, "samples where the model expects none: p 0");
		{
			double p4[] = { 0.6, 0.38, 0.01, 0.01 };
			uint64_t k4[] = { 60, 38, 1, 1 };

			rc = t32_gof_test(k4, p4, 4, 0, &g);
			ok(rc == 0 && g.bins == 3 && g.df == 2,
			   "two bins expecting one sample each are pooled: 3 bins, 2 df (%u, %u)",
			   g.bins, g.df);
		}
	}

	/* curve comparison */
	{
		double m[] = { 0, 5, 9, 14, 18 }, pr[] = { 0, 5, 9, 10, 18 };
		struct t32_curve_cmp c;

		t32_curve_compare(m, NULL, pr, 5, 0.5, &c);
		ok(c.part_k == 3 && c.part_diff == 4 && c.part_sigmas == 8,
		   "the curves part at k = 3 by 4 cycles, 8 half-widths");
		ok(c.r > 0.9 && c.r < 1, "correlation below 1 (%g)", c.r);
	}

	/* in-situ latency: the blog's lock add, 39% of the samples of a 40-cycle block */
	{
		struct t32_insitu s;
		int rc = t32_insitu_latency(390, 1000, 40, 1, 1.96, &s);

		ok(rc == 0, "in-situ, nested reference");
		is_double(15.6, s.cycles, 1e-9, "39%% of 40 cycles");
		ok(s.lo < 15.6 && s.hi > 15.6 && s.lo > 14 && s.hi < 17.5,
		   "with a Wilson interval [%g, %g]", s.lo, s.hi);
		rc = t32_insitu_latency(500, 400, 4, 0, 1.96, &s);
		ok(rc == 0 && fabs(s.cycles - 5) < 1e-9 && s.lo < 5 && s.hi > 5 && s.lo > 4 && s.hi < 6.3,
		   "against a 4-cycle chain: 5:4 samples is 5 cycles [%g, %g]", s.lo, s.hi);
		ok(t32_insitu_latency(3, 0, 4, 0, 1.96, &s) != 0, "no reference samples: an error");
	}

	/* the default parameter set */
	{
		struct t32_model_insn b[11];
		char keys[8][48];
		const char *pinned[] = { "latency.alu=1" };
		size_t m;

		t32_model_prepare(&u, NULL, in, n, b);
		m = t32_corr_default_params(b, n, 0, pinned, 1, keys, 8);
		ok(m >= 1 && strcmp(keys[0], "retire_width") == 0, "retire_width first (%zu keys)", m);
	}

	/* the curve's slope and how well its points know it */
	{
		double line[17], three[4] = { 0, 1, 3, 2 };
		struct t32_corr_data c = { NULL, line, NULL, 16, 1, NULL, 0, 0, NULL, NULL, NULL, NULL };

		for (int k = 0; k <= 16; k++)
			line[k] = 3 * k + 0.5;
		is_double(3.0, t32_corr_curve_slope(&c), 1e-12, "slope of a straight curve");
		is_double(0.0, t32_corr_curve_slope_hw(&c), 1e-9, "a straight curve knows its slope exactly");
		for (int k = 1; k <= 16; k++)
			line[k] += k % 2 ? -1 : 1;
		ok(fabs(t32_corr_curve_slope(&c) - 3) < 0.03 && t32_corr_curve_slope_hw(&c) > 0.05 &&
		   t32_corr_curve_slope_hw(&c) < 0.2,
		   "a curve alternating +-1 about the line: slope %.4f +- %.4f",
		   t32_corr_curve_slope(&c), t32_corr_curve_slope_hw(&c));
		for (int k = 0; k <= 16; k++)
			line[k] = 3 * k + 0.5;
		line[16] += 20;
		ok(fabs(t32_corr_curve_slope(&c) - 3) < 0.02,
		   "a step taken on a shared core, 20 cycles off, does not tilt it (%.4f; a plain "
		   "line through every point: 3.44)", t32_corr_curve_slope(&c));
		c.curve = three;
		c.kmax = 3;
		is_double(0.5, t32_corr_curve_slope(&c), 1e-9,
			  "k = 1..3: the least-squares line (k = 0 has no fill)");
		is_double(1.96 * sqrt(1.5 / 2), t32_corr_curve_slope_hw(&c), 1e-9,
			  "its half-width from their scatter (1 df)");
		c.kmax = 2;
		ok(t32_corr_curve_slope(&c) == 2 && isnan(t32_corr_curve_slope_hw(&c)),
		   "two points: a slope, and no scatter to judge it by");
		c.kmax = 1;
		ok(isnan(t32_corr_curve_slope(&c)), "one point is not a curve");
	}

	/*
	 * A floor at the start: `add rax, rax; mov [rbx+8], rax; nop` as a Zen 4 guest
	 * swept it (the fence closing each run waits for the store to drain, about 4
	 * cycles whatever the copies before it).  `t32 time l r auto 60` timed its
	 * marginal cost there at 1.002 cycles a copy; a line through every point
	 * reads 0.89.
	 */
	{
		double store[17] = { 0, 3.986, 3.997, 4.400, 5.081, 5.077, 6.160, 6.526, 8.286,
				     9.065, 9.985, 10.961, 12.113, 13.009, 13.817, 15.484, 16.914 };
		struct t32_corr_data c = { NULL, store, NULL, 16, 1, NULL, 0, 0, NULL, NULL, NULL, NULL };
		struct t32_linfit all;
		double kk[16];

		for (int k = 1; k <= 16; k++)
			kk[k - 1] = k;
		t32_linfit(kk, store + 1, 16, NULL, &all);
		ok(fabs(t32_corr_curve_slope(&c) - 1.0) < 0.08 && all.b < 0.92,
		   "a floor of the first copies left out: %.3f cycles a copy (every point: %.3f)",
		   t32_corr_curve_slope(&c), all.b);
	}

	/* steps the sweep did not trust, among enough it did, are left out */
	{
		double line[17], every;
		unsigned char okk[17];
		struct t32_corr_data c = { NULL, line, NULL, 16, 1, NULL, 0, 0, NULL, NULL, NULL, NULL };

		memset(okk, 1, sizeof(okk));
		ok(t32_corr_point_counts(NULL, 16, 5) && t32_corr_point_counts(okk, 16, 5),
		   "every point counts without a mask, and a trusted one with it");
		/* a throughput-bound block slowed by a thread on its core from k = 9 on */
		for (int k = 0; k <= 16; k++) {
			line[k] = 2 * k + (k > 8 ? 0.8 * (k - 8) : 0);
			okk[k] = k <= 8;
		}
		every = t32_corr_curve_slope(&c);
		c.curve_ok = okk;
		ok(!t32_corr_point_counts(okk, 16, 12) && t32_corr_point_counts(okk, 16, 4),
		   "8 of 16 trusted: the untrusted ones do not count");
		is_double(2.0, t32_corr_curve_slope(&c), 1e-9,
			  "the slope from the trusted steps alone (every step: %.3f)", every);
		okk[8] = 0;
		ok(t32_corr_point_counts(okk, 16, 12),
		   "7 of 16 trusted: every step counts, there is nothing better");
		ok(t32_corr_curve_slope(&c) > 2.2, "and the slope is every step's (%.3f)",
		   t32_corr_curve_slope(&c));
	}

	free(in);
	gsl_rng_free(rng);
	return done_testing();
}
