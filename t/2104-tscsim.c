/*
 * 2104-tscsim - the real measuring loop (t32_measure_source) on simulated
 * machines: the TSC's step found from raw readings for steps of 1 to 64 ticks, a
 * block whose readings sit on one level, and a fast grid of steps, ratios and
 * noise whose intervals must hold the truth and whose trusted results are never a
 * whole step off.  make bench runs the thorough grid.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "t/tap.h"
#include "t32/tscsim.h"

/* One measurement of blocks b on machine mc. */
static int measure(const struct t32_sim_machine *mc, const struct t32_sim_blocks *b,
		   double precision, struct t32_measurement *m, uint64_t *q)
{
	struct t32_sim *s = t32_sim_new(mc, b);
	struct t32_measure_opts mo;
	struct t32_source src;
	int rc;

	if (!s)
		bail("out of memory");
	t32_sim_source(s, &src);
	*q = src.q;
	t32_measure_opts_init(&mo);
	mo.precision = precision;
	mo.max_runs = 400000;
	mo.budget = 30;
	rc = t32_measure_source(&src, b->n, b->twin_insns, &mo, NULL, m);
	t32_sim_free(s);
	return rc;
}

int main(void)
{
	struct t32_measurement m;
	uint64_t q;
	int found = 0, tried = 0;

	plan(13);

	/* The step from raw readings, for every step 1 .. 64. */
	for (uint64_t step = 1; step <= 64; step++) {
		struct t32_sim_machine mc = { .q = step, .ratio = 1.5, .tsc_hz = 2.5e9, .seed = step };
		struct t32_sim_blocks b = { 60, 1, 10, 0, 1000, 4, 0 };
		struct t32_sim *s = t32_sim_new(&mc, &b);
		struct t32_source src;

		if (!s)
			bail("out of memory");
		t32_sim_source(s, &src);
		found += src.q == step;
		tried++;
		if (src.q != step)
			diag("step %llu read as %llu", (unsigned long long)step,
			     (unsigned long long)src.q);
		t32_sim_free(s);
	}
	is_int(tried, found, "the TSC's step found from raw readings for steps 1..64");

	/* Readings too alike to tell (no spin between them) say so. */
	{
		uint64_t r[1000];
		for (int i = 0; i < 1000; i++)
			r[i] = 1000 + 26 * (uint64_t)i;
		is_int(0, t32_tsc_step(r, 1000, NULL), "differences all alike: cannot tell");
	}

	/*
	 * A block of a whole number of steps against a base one step shorter: each
	 * reads one level only.  Guessing q from such deltas gave exactly one step
	 * per instruction; with the machine's q the added instruction reads its cost.
	 */
	{
		struct t32_sim_machine mc = { .q = 26, .ratio = 1.0, .tsc_hz = 2.6e9, .seed = 7 };
		struct t32_sim_blocks b = { 26 * 4, 26, 11, 10, 1000, 4, 0 };

		is_int(0, measure(&mc, &b, 0.5, &m, &q), "one level: measured");
		is_int(26, q, "one level: the machine's step");
		ok(fabs(m.value - 26) <= m.halfwidth + 0.05 && m.halfwidth < 1,
		   "one level: 26 cycles read as %.3f +- %.3f", m.value, m.halfwidth);
	}

	/* The one-add-more case on a step of 26: within 0.1 cycles, or not trusted. */
	{
		struct t32_sim_machine mc = { .q = 26, .ratio = 1.42, .tsc_hz = 2.6e9, .seed = 11,
					      .jitter = 0.3, .placement = 0.2 };
		struct t32_sim_blocks b = { 60, 1, 101, 100, 1000, 4, 8 };

		is_int(0, measure(&mc, &b, 0.1, &m, &q), "one add more: measured");
		ok(m.untrusted[0] || fabs(m.value - 1) <= 0.1 + m.halfwidth,
		   "one add more: %.3f +- %.3f (%s)", m.value, m.halfwidth,
		   m.untrusted[0] ? m.untrusted : "trusted");
		ok(m.value - m.halfwidth <= 1 && 1 <= m.value + m.halfwidth,
		   "one add more: the interval holds 1");
	}

	/*
	 * Calibration chains slowed by a fifth in most runs, the block not: the
	 * ratio disagrees with the chains' fastest runs, and the result is not trusted.
	 */
	{
		struct t32_sim_machine mc = { .q = 26, .ratio = 1.42, .tsc_hz = 2.6e9, .seed = 5,
					      .cal_slow = 0.2 };
		struct t32_sim_blocks b = { 60, 3, 100, 50, 1000, 4, 8 };

		is_int(0, measure(&mc, &b, 0.02, &m, &q), "disturbed calibration: measured");
		ok(strstr(m.untrusted, "fastest runs") != NULL,
		   "disturbed calibration: %.3f +- %.3f not trusted (%s)", m.value, m.halfwidth,
		   m.untrusted[0] ? m.untrusted : "trusted");
	}

	/* The fast grid. */
	{
		struct t32_sim_grid g;

		if (t32_sim_run_grid(0, &g))
			bail("out of memory");
		ok(g.cases > 50, "grid: %u cases", g.cases);
		ok(g.covered >= 0.9 * g.cases, "grid: the interval holds the truth in %u of %u",
		   g.covered, g.cases);
		ok(g.wrong_trusted == 0 && g.worst_steps < 1,
		   "grid: no trusted result a whole step off (worst %.3f steps: %s)", g.worst_steps,
		   g.worst[0] ? g.worst : "-");
	}
	return done_testing();
}
