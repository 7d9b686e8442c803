/*
 * 5103-learn-fit - one parameter set learned from several probes at once
 * (analysis/learn.c): probes the model itself generated on a known machine
 * (multinomial noise on the counts, Gaussian noise on the curves) give back its
 * retire width and the load's retire delay, each with an interval holding the
 * truth; a held probe takes no part in the learning; the prediction of a probe
 * by the true machine matches it and by the starting one does not; the
 * parameters worth learning follow the classes the probes hold; the gain test
 * of a per-block fit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/learn.h"
#include "t/modelkit.h"
#include "t/tap.h"

#define KMAX 12

/* mov rax, [rax]; twelve nops: where the nops' bursts end shows the width */
static const unsigned char LOAD_NOPS[] = {
	0x48, 0x8b, 0x00, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
	0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
};
/* mov rax, [rax]; add ecx, 1; add edx, 1; add esi, 1: the load's hold shows in the curve */
static const unsigned char LOAD_ADDS[] = {
	0x48, 0x8b, 0x00, 0x83, 0xc1, 0x01, 0x83, 0xc2, 0x01, 0x83, 0xc6, 0x01,
};

struct probe_data {
	struct t32_insn *in;
	size_t n;
	uint64_t counts[32];
	double curve[KMAX + 1], hw[KMAX + 1];
};

/* Draw a probe's counts and curve from machine u. */
static void synth(const struct t32_uarch *u, struct probe_data *p, gsl_rng *rng, unsigned N,
		  double sd, double stray)
{
	struct t32_model_insn *b = calloc(p->n, sizeof(*b));
	struct t32_model_result res;
	unsigned k[32];

	t32_model_prepare(u, NULL, p->in, p->n, b);
	if (t32_model_steady(u, b, p->n, 1, &res) || t32_model_curve(u, b, p->n, KMAX, p->curve))
		bail("the model does not run on a probe");
	for (size_t i = 0; i < p->n; i++)
		res.share[i] = (0.995 - stray) * res.share[i] + (0.005 + stray) / (double)p->n;
	gsl_ran_multinomial(rng, p->n, N, res.share, k);
	for (size_t i = 0; i < p->n; i++)
		p->counts[i] = k[i];
	for (size_t j = 0; j <= KMAX; j++) {
		p->curve[j] += gsl_ran_gaussian(rng, sd);
		p->hw[j] = 1.96 * sd;
	}
	t32_model_result_free(&res);
	free(b);
}

static void decode(const unsigned char *code, size_t len, struct probe_data *p)
{
	char err[256];

	if (t32_deps_decode(code, len, &p->in, &p->n, err, sizeof(err)))
		bail("cannot decode a probe: %s", err);
}

static void as_probe(struct probe_data *p, const char *name, struct t32_learn_probe *lp)
{
	memset(lp, 0, sizeof(*lp));
	lp->name = name;
	lp->insns = p->in;
	lp->n = p->n;
	lp->d.counts = p->counts;
	lp->d.curve = p->curve;
	lp->d.curve_hw = p->hw;
	lp->d.kmax = KMAX;
	lp->d.skid = 1;
}

static int has_key(char keys[][48], size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(keys[i], key) == 0)
			return 1;
	return 0;
}

int main(void)
{
	struct probe_data pd[3];
	struct t32_learn_probe pr[3];
	struct t32_uarch truth, start, narrow;
	struct t32_learn_result r, r2;
	struct t32_corr_opts o;
	struct t32_corr_result cr;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	const char *keys[] = { "retire_width", "retire_delay.load" };
	char err[256], dk[T32_LEARN_MAX_PARAMS][48];
	double tvd_true, tvd_start;
	size_t nd;
	int rc;

	plan(27);
	kit_uarch(&truth, "test", 6, 224, 5);
	truth.retire_delay[T32_CLASS_LOAD] = 3;
	start = truth;
	start.retire_width = 4;
	start.retire_delay[T32_CLASS_LOAD] = 0;
	narrow = truth;
	narrow.retire_width = 2;
	decode(LOAD_NOPS, sizeof(LOAD_NOPS), &pd[0]);
	decode(LOAD_ADDS, sizeof(LOAD_ADDS), &pd[1]);
	decode(LOAD_NOPS, sizeof(LOAD_NOPS), &pd[2]);
	gsl_rng_set(rng, 5103);
	synth(&truth, &pd[0], rng, 2000, 0.3, 0);
	synth(&truth, &pd[1], rng, 2000, 0.3, 0);
	synth(&narrow, &pd[2], rng, 2000, 0.3, 0);	/* another machine's: must not count when held */
	as_probe(&pd[0], "load-nops", &pr[0]);
	as_probe(&pd[1], "load-adds", &pr[1]);
	as_probe(&pd[2], "other-machine", &pr[2]);
	pr[2].held = 1;
	t32_corr_opts_init(&o);
	o.fit_offset = 0;	/* the synthetic curves have no barrier offset */

	rc = t32_learn_fit(&start, pr, 3, keys, 2, &o, &r, err, sizeof(err));
	ok(rc == 0, "learning from two probes runs (%s)", rc ? err : "ok");
	if (rc)
		bail("no learning");
	is_int(2, (long long)r.probes, "the held probe is not counted");
	is_int(6, (long long)r.p[0].value, "retire width learned");
	is_int(3, (long long)r.p[1].value, "the load's retire delay learned");
	is_int(4, (long long)r.p[0].start, "the width started at the starting machine's");
	ok(r.p[0].determined && r.p[0].ci_lo <= 6 && r.p[0].ci_hi >= 6,
	   "the width is determined, its interval [%lu, %lu] holds 6", r.p[0].ci_lo, r.p[0].ci_hi);
	ok(r.p[1].determined && r.p[1].ci_lo <= 3 && r.p[1].ci_hi >= 3,
	   "the delay is determined, its interval [%lu, %lu] holds 3", r.p[1].ci_lo, r.p[1].ci_hi);
	ok(r.p[1].ci_hi - r.p[1].ci_lo <= 2, "and is narrow (%lu..%lu)", r.p[1].ci_lo, r.p[1].ci_hi);
	is_int(6, (long long)r.u.retire_width, "the learned machine carries the width");
	is_int(3, (long long)r.u.retire_delay[T32_CLASS_LOAD], "and the delay");
	ok(r.evals > 0, "model runs counted (%zu)", r.evals);

	/* the held probe, let in, pulls the width away: holding it out mattered */
	pr[2].held = 0;
	rc = t32_learn_fit(&start, pr, 3, keys, 2, &o, &r2, err, sizeof(err));
	ok(rc == 0 && (r2.p[0].value != 6 || r2.objective > r.objective + 10),
	   "a probe of another machine, let in, changes the learning (width %lu, objective %.1f "
	   "against %.1f)", rc ? 0 : r2.p[0].value, rc ? 0 : r2.objective, r.objective);
	pr[2].held = 1;

	/* every probe held: nothing to learn from */
	pr[0].held = pr[1].held = 1;
	rc = t32_learn_fit(&start, pr, 3, keys, 2, &o, &r2, err, sizeof(err));
	ok(rc != 0 && strstr(err, "no probe"), "no probe to learn from is an error (%s)", err);
	pr[0].held = pr[1].held = 0;
	rc = t32_learn_fit(&start, pr, 3, (const char *[]){ "retire_width", "no_such_key" }, 2, &o,
			   &r2, err, sizeof(err));
	ok(rc != 0 && strstr(err, "unknown parameter"), "an unknown key is refused (%s)", err);

	/* predictions */
	ok(t32_learn_predict(&truth, &pr[0], &cr, err, sizeof(err)) == 0, "the true machine predicts");
	tvd_true = cr.gof.tvd;
	t32_corr_result_free(&cr);
	ok(t32_learn_predict(&start, &pr[0], &cr, err, sizeof(err)) == 0, "the starting one too");
	tvd_start = cr.gof.tvd;
	t32_corr_result_free(&cr);
	ok(tvd_true < 0.05, "the true machine's prediction matches its probe (TVD %.3f)", tvd_true);
	ok(tvd_start > tvd_true + 0.1, "the starting machine's does not (TVD %.3f)", tvd_start);

	/* a sampler that spreads 10% of its samples evenly: sample_stray learned */
	pr[2].held = 1;
	synth(&truth, &pd[0], rng, 4000, 0.3, 0.10);
	synth(&truth, &pd[1], rng, 4000, 0.3, 0.10);
	rc = t32_learn_fit(&start, pr, 3, (const char *[]){ "retire_width", "sample_stray" }, 2, &o,
			   &r2, err, sizeof(err));
	ok(rc == 0 && r2.p[1].value >= 8 && r2.p[1].value <= 12 && r2.p[0].value == 6,
	   "10%% stray samples learned as %lu%%, the width still %lu", rc ? 0 : r2.p[1].value,
	   rc ? 0 : r2.p[0].value);
	rc = t32_learn_predict(&r2.u, &pr[0], &cr, err, sizeof(err));
	ok(rc == 0 && cr.gof.tvd < 0.05, "the prediction with the stray share matches (TVD %.3f)",
	   rc ? 1 : cr.gof.tvd);
	{
		double lo = 1, sum = 0;

		for (size_t i = 0; i < pr[0].n; i++) {
			sum += cr.pred_share[i];
			lo = cr.pred_share[i] < lo ? cr.pred_share[i] : lo;
		}
		ok(fabs(sum - 1) < 1e-9 && lo >= r2.u.sample_stray / 100.0 / (double)pr[0].n - 1e-12,
		   "predicted shares sum to 1 (%g), none below the stray share (%g)", sum, lo);
	}
	t32_corr_result_free(&cr);

	/* the parameters worth learning */
	nd = t32_learn_default_params(&start, pr, 2, dk, T32_LEARN_MAX_PARAMS);
	ok(has_key(dk, nd, "retire_width") && has_key(dk, nd, "retire_group") &&
	   has_key(dk, nd, "retire_delay.load") && has_key(dk, nd, "retire_delay.alu") &&
	   has_key(dk, nd, "retire_delay.branch") && has_key(dk, nd, "ports.alu") &&
	   has_key(dk, nd, "sample_stray"),
	   "width, group, the present classes' delays, the branch's and the ALUs learned (%zu)", nd);
	ok(!has_key(dk, nd, "retire_delay.div") && !has_key(dk, nd, "lock_early") &&
	   !has_key(dk, nd, "retire_delay.nop"),
	   "classes no probe holds, and nops, are not");

	/* the gain test of a per-block fit */
	is_double(1, t32_learn_gain_p(100, 100, 1, 1), 0, "no gain: p = 1");
	ok(t32_learn_gain_p(100, 50, 1, 1) < 1e-6, "a drop of 50 on one parameter is significant");
	ok(t32_learn_gain_p(100, 50, 20, 1) > 0.05,
	   "but not where the samples scatter 20 times more than counting (p = %g)",
	   t32_learn_gain_p(100, 50, 20, 1));
	is_double(t32_learn_gain_p(100, 90, 1, 2), t32_learn_gain_p(100, 90, 0.3, 2), 1e-12,
		  "a dispersion below 1 counts as 1");

	for (int i = 0; i < 3; i++)
		free(pd[i].in);
	gsl_rng_free(rng);
	return done_testing();
}
