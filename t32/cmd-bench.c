/*
 * cmd-bench.c - `t32 bench` (make bench): the measured claims, each printed with its
 * target beside it and a verdict.  Figures, not assertions: a miss is reported and
 * counted, and the exit code says whether any target was missed (7).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t32/block.h"
#include "t32/cmd.h"
#include "t32/measure.h"

static int misses;
static int figures;

/* One line: what, the figure, the target, the verdict. */
static void report(const char *what, const char *figure, const char *target, int ok)
{
	figures++;
	misses += !ok;
	printf("%-44s %-34s %-22s %s\n", what, figure, target, ok ? "ok" : "MISS");
	fflush(stdout);
}

/* Measure a chain `reps x insn` against a base (NULL: the empty block). */
static int chain(const char *insn, uint64_t reps, uint64_t base_reps, int use_base,
		 double precision, double budget, struct t32_measurement *m)
{
	struct t32_spec s = { 0 }, base = { 0 };
	struct t32_block_opts o;
	struct t32_measure_opts mo;
	char err[64];
	int rc;

	t32_block_opts_init(&o);
	o.run.cpu = t32_default_cpu();
	t32_measure_opts_init(&mo);
	mo.precision = precision;
	mo.budget = budget;
	mo.max_runs = 50000000;
	t32_spec_set_barrier(&s, "l", err, sizeof(err));
	s.store = 'm';
	t32_spec_add_item(&s, reps, insn);
	if (use_base) {
		t32_spec_set_barrier(&base, "l", err, sizeof(err));
		base.store = 'm';
		t32_spec_add_item(&base, base_reps, insn);
		mo.base = &base;
	}
	rc = t32_measure(&s, &o, &mo, NULL, m);
	t32_spec_free(&s);
	t32_spec_free(&base);
	return rc;
}

static void bench_resolution(void)
{
	static const uint64_t ns[] = { 100, 200, 500 };

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct t32_measurement m;
		char what[80], fig[80];

		if (chain("add eax, 1", ns[i] + 1, ns[i], 1, 0.03, 5, &m))
			continue;
		snprintf(what, sizeof(what), "resolution: %llu vs %llu add eax, 1",
			 (unsigned long long)ns[i] + 1, (unsigned long long)ns[i]);
		snprintf(fig, sizeof(fig), "%.3f +- %.3f cycles (%.1f s)", m.value, m.halfwidth,
			 m.seconds);
		report(what, fig, "1.00 +- 0.10 cycles", fabs(m.value - 1) <= 0.10);
	}
}

static const struct latency {
	const char *insn;
	double expect;		/* cycles, published Zen 5 latency */
} latencies[] = {
	{ "add eax, 1", 1 },
	{ "imul rax, rax", 3 },
	{ "popcnt rax, rax", 1 },
	{ "crc32 eax, eax", 3 },
	{ "vfmadd231ps xmm0, xmm1, xmm2", 4 },
};

static void bench_accuracy(void)
{
	for (size_t i = 0; i < sizeof(latencies) / sizeof(latencies[0]); i++) {
		struct t32_measurement m;
		double t0 = t32_now(), took;
		char what[80], fig[80];

		if (chain(latencies[i].insn, 1000, 0, 0, 0.005, 0.45, &m))
			continue;
		took = t32_now() - t0;
		snprintf(what, sizeof(what), "accuracy: %s (expect %g)", latencies[i].insn,
			 latencies[i].expect);
		snprintf(fig, sizeof(fig), "%.4f +- %.4f cycles in %.2f s", m.value, m.halfwidth,
			 took);
		report(what, fig, "within 0.02, < 0.5 s",
		       fabs(m.value - latencies[i].expect) <= 0.02 && took < 0.5);
	}
}

static void bench_repeatability(void)
{
	double lo = INFINITY, hi = -INFINITY;
	char fig[80];
	int got = 0;

	for (int r = 0; r < 5; r++) {
		struct t32_measurement m;

		if (chain("imul rax, rax", 1000, 0, 0, 0.005, 0.45, &m))
			continue;
		lo = fmin(lo, m.value);
		hi = fmax(hi, m.value);
		got++;
	}
	snprintf(fig, sizeof(fig), "%d repeats in [%.4f, %.4f]: %.4f", got, lo, hi, hi - lo);
	report("repeatability: imul rax, rax latency x5", fig, "spread <= 0.02 cycles",
	       got == 5 && hi - lo <= 0.02);
}

/* The empty block: a fixed 1,000,000-run minimum against the adaptive estimate. */
static void bench_convergence(void)
{
	struct t32_spec s = { 0 };
	struct t32_block_opts o;
	struct t32_session ss;
	const struct t32_spec *specs[1] = { &s };
	const uint64_t big = 1000000;
	uint64_t *d = malloc(big * sizeof(uint64_t)), min = UINT64_MAX, used = 0;
	struct t32_estimate ref, e = { 0 };
	struct t32_hist h = { 0 };
	double t0, t_min, t_est;
	char err[64], fig[120];

	t32_block_opts_init(&o);
	o.run.cpu = t32_default_cpu();
	t32_spec_set_barrier(&s, "l", err, sizeof(err));
	s.store = 'm';
	if (!d || t32_session_open(&ss, specs, 1, &o)) {
		free(d);
		return;
	}
	t0 = t32_now();
	if (t32_session_run(&ss, 0, big, d))
		goto out;
	for (uint64_t i = 0; i < big; i++)
		min = d[i] < min ? d[i] : min;
	t_min = t32_now() - t0;
	t32_estimate(d, big, 0, &ref);

	/* adaptive: batches of 2000 until the 95% interval is within +-0.25 tick */
	t0 = t32_now();
	do {
		if (t32_session_run(&ss, 0, 2000, d) || t32_hist_add(&h, d, 2000))
			goto out;
		used += 2000;
		t32_estimate_hist(&h, ref.q, &e);
	} while (t32_halfwidth(e.value, e.lo, e.hi) > 0.25 && t32_now() - t0 < 0.1);
	t_est = t32_now() - t0;
	printf("%-44s 1,000,000-run minimum %llu ticks in %.3f s; its estimate %.3f ticks\n",
	       "convergence: empty block (barrier l)", (unsigned long long)min, t_min, ref.value);
	snprintf(fig, sizeof(fig), "%.3f +- %.3f ticks, %llu runs, %.3f s", e.value,
		 t32_halfwidth(e.value, e.lo, e.hi), (unsigned long long)used, t_est);
	report("convergence: adaptive estimate", fig, "= 1M-run value, < 0.1 s",
	       fabs(e.value - ref.value) <= fmax(0.25, t32_halfwidth(e.value, e.lo, e.hi)) &&
	       t_est < 0.1);
out:
	t32_hist_free(&h);
	t32_session_close(&ss);
	free(d);
}

static const struct bench {
	const char *name;
	void (*fn)(void);
	const char *summary;
} benches[] = {
	{ "resolution", bench_resolution, "one add more, below the TSC step" },
	{ "accuracy", bench_accuracy, "latencies of dependent chains against published values" },
	{ "repeatability", bench_repeatability, "five repeats of the imul latency" },
	{ "convergence", bench_convergence, "adaptive estimate against a 1,000,000-run minimum" },
	{ NULL, NULL, NULL }
};

int cmd_bench(int argc, char **argv)
{
	struct t32_cpu c;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf("usage: t32 bench [NAME]...\n\n");
		for (const struct bench *b = benches; b->name; b++)
			printf("  %-14s %s\n", b->name, b->summary);
		return t32_close_stdout();
	}
	t32_cpu_identify(&c);
	printf("# t32 %s bench on %s (cpu %d)\n", T32_VERSION, c.brand, t32_default_cpu());
	printf("%-44s %-34s %-22s %s\n", "figure", "measured", "target", "verdict");
	for (const struct bench *b = benches; b->name; b++) {
		int want = argc <= 1;

		for (int i = 1; i < argc; i++)
			want |= strcmp(argv[i], b->name) == 0;
		if (want)
			b->fn();
	}
	printf("# %d figures, %d missed their target\n", figures, misses);
	if (t32_close_stdout())
		return T32_EXIT_ERROR;
	return misses ? T32_EXIT_UNTRUSTED : 0;
}
