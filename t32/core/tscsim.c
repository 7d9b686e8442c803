/*
 * tscsim.c - deltas of a simulated machine for t32_measure_source.  See tscsim.h.
 */
#include "t32/core/tscsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/stats.h"

struct t32_sim {
	struct t32_sim_machine mc;
	struct t32_sim_blocks b;
	gsl_rng *rng;
	double t;		/* ticks: the simulated time, continuous */
	double offset;		/* ticks: where the TSC's steps fall */
	double runs;		/* runs so far, for the drift */
	double place, place_twin;	/* cycles: this process's placement offsets */
	int tainted;		/* other work runs beside this process */
	int cal_slowed;		/* a thread shares the core's ALUs in this process */
	double longest;		/* ticks: the longest call to run() */
	unsigned calls;		/* calls to run() */
};

struct t32_sim *t32_sim_new(const struct t32_sim_machine *mc, const struct t32_sim_blocks *b)
{
	struct t32_sim *s = calloc(1, sizeof(*s));

	if (!s || !(s->rng = gsl_rng_alloc(gsl_rng_mt19937))) {
		free(s);
		return NULL;
	}
	s->mc = *mc;
	s->b = *b;
	if (s->mc.q < 1)
		s->mc.q = 1;
	gsl_rng_set(s->rng, mc->seed);
	s->t = 1e6 + gsl_rng_uniform(s->rng) * 1e6;
	s->offset = gsl_rng_uniform(s->rng) * s->mc.q;
	s->place = gsl_ran_gaussian(s->rng, s->mc.placement);
	s->place_twin = gsl_ran_gaussian(s->rng, s->mc.placement);
	s->tainted = gsl_rng_uniform(s->rng) < s->mc.taint_p;
	s->cal_slowed = !(s->mc.cal_slow_share > 0) || gsl_rng_uniform(s->rng) < s->mc.cal_slow_share;
	return s;
}

void t32_sim_free(struct t32_sim *s)
{
	if (!s)
		return;
	gsl_rng_free(s->rng);
	free(s);
}

/* What the TSC reads at time t: the last step boundary at or before it. */
static uint64_t reading(const struct t32_sim *s, double t)
{
	double q = (double)s->mc.q;

	return (uint64_t)(floor((t - s->offset) / q) * q + s->offset + 0.5);
}

/* Cycles of the block in role b. */
static double block_cycles(const struct t32_sim *s, enum t32_role b)
{
	const struct t32_sim_blocks *k = &s->b;

	switch (b) {
	case T32_ROLE_BLOCK:
		return k->barrier + k->block_fill + k->insn * (double)k->n + s->place;
	case T32_ROLE_EMPTY:
		return k->barrier;
	case T32_ROLE_TWIN:
		return k->barrier + k->block_fill + k->insn * (double)k->twin_insns + s->place_twin;
	case T32_ROLE_MUL:
	case T32_ROLE_MULBASE:	/* the multiplier: 3 cycles an instruction */
		return k->barrier + k->fill + 3.0 * (double)t32_chain_len(b, k->cal_len);
	default:		/* the adds and the vector chain: 1 cycle */
		return k->barrier + k->fill + (double)t32_chain_len(b, k->cal_len);
	}
}

/* One run of a block at the clock ratio r: its delta in ticks. */
static uint64_t one_run(struct t32_sim *s, enum t32_role b, double r)
{
	const struct t32_sim_machine *mc = &s->mc;
	double q = (double)mc->q, d, t0, t1, t_start = s->t, t_spin;

	/* the dither: a spin of random length puts the start at a random phase */
	s->t += 50 * q + gsl_rng_uniform(s->rng) * 20 * q;
	t0 = s->t;
	t_spin = t0 - t_start;
	if (mc->phase_bias > 0) {
		/* a dither locked to the step: the start lands early in a step only */
		double base = floor((t0 - s->offset) / q) * q + s->offset;
		t0 = base + gsl_rng_uniform(s->rng) * q * (1 - mc->phase_bias);
	}
	d = block_cycles(s, b);
	if (mc->cal_slow > 0 && s->cal_slowed && gsl_rng_uniform(s->rng) < 0.9) {
		if (b == T32_ROLE_CAL || b == T32_ROLE_CALBASE)
			d *= 1 + mc->cal_slow;
		else if (b == T32_ROLE_BLOCK || b == T32_ROLE_TWIN)
			d *= 1 + mc->block_slow;
	}
	if (s->tainted)
		d *= 1 + mc->taint_slow;
	if (mc->jitter > 0)
		d += gsl_ran_exponential(s->rng, mc->jitter);
	d /= r;
	if (mc->outlier_p > 0 && gsl_rng_uniform(s->rng) < mc->outlier_p)
		d += mc->outlier_ticks * (1 + 9 * gsl_rng_uniform(s->rng));
	t1 = t0 + d;
	s->t = t1;
	/* a stalled guest: the run's wall time stretched, between the readings */
	if (mc->stall_factor > 1 && t_start / mc->tsc_hz < mc->stall_seconds)
		s->t += (mc->stall_factor - 1) * (t_spin + d);
	s->runs++;
	return reading(s, t1) - reading(s, t0);
}

/* t32_source.run: blocks in turn, as the measuring process runs them. */
static int sim_run(void *ctx, size_t nb, const enum t32_role *roles, uint64_t per, uint64_t skip,
		   uint64_t reps, uint64_t rounds, uint64_t *out)
{
	struct t32_sim *s = ctx;
	const struct t32_sim_machine *mc = &s->mc;

	const double t0 = s->t;

	reps *= rounds;
	s->calls++;
	s->t += mc->call_seconds * mc->tsc_hz;
	for (uint64_t j = 0; j < reps; j++) {
		/* the clock of this turn: drift over the whole run, wobble per turn */
		double r = mc->ratio;

		if (mc->drift_runs > 0)
			r *= 1 + mc->drift * fmin(1, s->runs / mc->drift_runs);
		if (mc->wobble > 0)
			r *= 1 + gsl_ran_gaussian(s->rng, mc->wobble);
		for (size_t b = 0; b < nb; b++) {
			for (uint64_t i = 0; i < skip; i++)
				one_run(s, roles[b], r);
			for (uint64_t i = 0; i < per; i++)
				*out++ = one_run(s, roles[b], r);
		}
	}
	if (s->t - t0 > s->longest)
		s->longest = s->t - t0;
	return 0;
}

double t32_sim_longest_call(const struct t32_sim *s)
{
	return s->longest / s->mc.tsc_hz;
}

unsigned t32_sim_calls(const struct t32_sim *s)
{
	return s->calls;
}

/* t32_source.now: seconds of simulated time. */
static double sim_now(void *ctx)
{
	struct t32_sim *s = ctx;

	return s->t / s->mc.tsc_hz;
}

/* t32_source.respawn: a fresh process places the block anew. */
static int sim_respawn(void *ctx)
{
	struct t32_sim *s = ctx;

	s->place = gsl_ran_gaussian(s->rng, s->mc.placement);
	s->place_twin = gsl_ran_gaussian(s->rng, s->mc.placement);
	s->tainted = gsl_rng_uniform(s->rng) < s->mc.taint_p;
	s->cal_slowed = !(s->mc.cal_slow_share > 0) || gsl_rng_uniform(s->rng) < s->mc.cal_slow_share;
	return 0;
}

/* t32_source.look: whether other work ran beside this process. */
static unsigned sim_look(void *ctx)
{
	struct t32_sim *s = ctx;

	return s->tainted ? T32_TAINT_BUSY : 0;
}

void t32_sim_readings(struct t32_sim *s, uint64_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		s->t += 10 + gsl_rng_uniform(s->rng) * 200;
		out[i] = reading(s, s->t);
	}
}

void t32_sim_source(struct t32_sim *s, struct t32_source *src)
{
	enum { READINGS = 20000 };
	uint64_t *r = malloc(READINGS * sizeof(*r)), q = 0;

	if (r) {
		t32_sim_readings(s, r, READINGS);
		q = t32_tsc_step(r, READINGS, NULL);
		free(r);
	}
	*src = (struct t32_source){ sim_run, sim_respawn, sim_now, sim_look, NULL, s, s->mc.tsc_hz,
				    q ? q : 1, T32_PLACEMENTS_HALF, 1, T32_FUTILITY_CONFIRMED, 1,
				    T32_ROUNDS_PLANNED };
}

/* One simulated measurement against the truth, added to g. */
static int grid_case(const struct t32_sim_machine *mc, const struct t32_sim_blocks *b,
		     const char *noise, int biased, struct t32_sim_grid *g)
{
	struct t32_sim *s = t32_sim_new(mc, b);
	struct t32_measure_opts mo;
	struct t32_measurement m;
	struct t32_source src;
	uint64_t n = b->twin_insns ? b->n - b->twin_insns : b->n;
	int rc;

	if (!s)
		return -1;
	t32_sim_source(s, &src);
	t32_measure_opts_init(&mo);
	mo.precision = n == 1 ? 0.1 : 0.02;
	mo.budget = 30;
	mo.max_runs = 400000;
	mo.cal_len = b->cal_len;
	rc = t32_measure_source(&src, b->n, b->twin_insns, &mo, NULL, &m);
	t32_sim_free(s);
	if (rc)
		return -1;
	/*
	 * Error on the whole block in TSC steps, or in the precision asked where that
	 * is coarser than a step (a result is not wrong for being as precise as asked).
	 */
	double unit = fmax((double)mc->q, mo.precision * (double)n / mc->ratio);
	double err = fabs(m.value - b->insn) * (double)n / mc->ratio / unit;
	int trusted = !m.untrusted[0];

	if (biased) {
		g->biased++;
		if (trusted && err >= 1)
			g->biased_trusted_wrong++;
		if (trusted && err > g->biased_worst_steps)
			g->biased_worst_steps = err;
		return 0;
	}
	g->cases++;
	g->covered += m.value - m.halfwidth <= b->insn && b->insn <= m.value + m.halfwidth;
	if (!trusted)
		return 0;
	g->trusted++;
	if (err >= 1)
		g->wrong_trusted++;
	if (err > g->worst_steps) {
		g->worst_steps = err;
		snprintf(g->worst, sizeof(g->worst),
			 "q %llu, ratio %.2f, %s, n %llu of %.0f cycles: %.4f +- %.4f",
			 (unsigned long long)mc->q, mc->ratio, noise, (unsigned long long)n, b->insn,
			 m.value, m.halfwidth);
	}
	return 0;
}

int t32_sim_run_grid(int thorough, struct t32_sim_grid *g)
{
	static const uint64_t qs_fast[] = { 1, 7, 21, 26, 64 };
	static const uint64_t qs_full[] = { 1, 2, 3, 5, 8, 13, 16, 21, 26, 32, 37, 48, 64 };
	static const double ratios_fast[] = { 1.0, 1.76 };
	static const double ratios_full[] = { 0.8, 1.0, 1.4, 1.76, 2.3 };
	static const char *const noises[] = { "clean", "jitter", "outliers", "drift", "wobble",
					      "placement", "busy beside" };
	enum { NOISES = sizeof(noises) / sizeof(noises[0]) };
	const uint64_t *qs = thorough ? qs_full : qs_fast;
	const double *ratios = thorough ? ratios_full : ratios_fast;
	size_t nq = thorough ? sizeof(qs_full) / sizeof(*qs_full) : sizeof(qs_fast) / sizeof(*qs_fast);
	size_t nr = thorough ? 5 : 2;
	uint64_t seed = 1;

	memset(g, 0, sizeof(*g));
	for (size_t iq = 0; iq < nq; iq++)
		for (size_t ir = 0; ir < nr; ir++)
			for (size_t in = 0; in < NOISES; in++) {
				if (!thorough && (iq + ir + in) % 2)
					continue;
				struct t32_sim_machine mc = {
					.q = qs[iq], .ratio = ratios[ir], .tsc_hz = 2.5e9,
					.placement = 0.2, .seed = seed++,
				};
				switch (in) {
				case 1: mc.jitter = 0.5; break;
				case 2: mc.outlier_p = 0.01; mc.outlier_ticks = 5000; break;
				case 3: mc.drift = 0.02; mc.drift_runs = 200000; break;
				case 4: mc.wobble = 0.01; break;
				case 5: mc.placement = 3; break;
				case 6: mc.taint_p = 0.3; mc.taint_slow = 0.03; break;
				}
				/*
				 * A 3-cycle chain of 100 against 50, a 1-cycle chain of 1000
				 * against 500, one add more; each block and twin take 8 cycles
				 * more than their instructions (fill and drain).
				 */
				struct t32_sim_blocks bl[3] = {
					{ 60, 3, 100, 50, 1000, 4, 8 },
					{ 60, 1, 1000, 500, 1000, 4, 8 },
					{ 60, 1, 101, 100, 1000, 4, 8 },
				};
				for (int k = 0; k < 3; k++)
					if (grid_case(&mc, &bl[k], noises[in], 0, g))
						return -1;
				/* the same machine with a dither locked to the step */
				if (in == 0) {
					mc.phase_bias = 0.5;
					if (grid_case(&mc, &bl[0], "locked phase", 1, g))
						return -1;
				}
			}
	return 0;
}
