/*
 * cmd-bench.c - `t32 bench` (make bench): the measured claims, each printed with its
 * target beside it and a verdict.  Figures, not assertions: a miss is reported and
 * counted, and the exit code says whether any target was missed (7).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/uarch.h"
#include "t32/block.h"
#include "t32/cmd.h"
#include "t32/measure.h"
#include "t32/tablegen.h"
#include "t32/tscsim.h"
#include "t32/tsv.h"

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

static void bench_resolution(void)
{
	static const uint64_t ns[] = { 100, 200, 500 };

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct t32_measurement m;
		char what[80], fig[80];

		double t0 = t32_now(), took;

		if (t32_measure_copies("add eax, 1", ns[i] + 1, ns[i], NULL, 0.04, 8, 0, &m))
			continue;
		took = t32_now() - t0;
		snprintf(what, sizeof(what), "resolution: %llu vs %llu add eax, 1",
			 (unsigned long long)ns[i] + 1, (unsigned long long)ns[i]);
		snprintf(fig, sizeof(fig), "%.3f +- %.3f cycles (%.1f s)", m.value, m.halfwidth,
			 took);
		report(what, fig, "1.00 +- 0.10 cycles, <= 10 s",
		       fabs(m.value - 1) <= 0.10 && m.halfwidth <= 0.10 && took <= 10);
	}
}

static const struct latency {
	const char *insn;
	double expect;		/* cycles, the published latency (the same on every core t32 knows) */
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

		if (t32_measure_copies(latencies[i].insn, 1000, 0, NULL, 0.005, 0.45, 0, &m))
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

		if (t32_measure_copies("imul rax, rax", 1000, 0, NULL, 0.005, 0.45, 0, &m))
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
	t32_estimate(d, big, t32_machine_tsc_step(NULL), &ref);

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

/*
 * Run this binary's sweep as a child (argv) into path; wall seconds, or -1.
 * The rows are then read back for their intervals.
 */
static double sweep_child(char *const *args, const char *path)
{
	char self[PATH_MAX], *argv[40];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct t32_child_output res;
	double t0;
	int k = 0;

	if (n <= 0)
		return -1;
	self[n] = 0;
	argv[k++] = self;
	argv[k++] = "sweep";
	argv[k++] = "-o";
	argv[k++] = (char *)path;
	while (*args && k < 39)
		argv[k++] = *args++;
	argv[k] = NULL;
	t0 = t32_now();
	if (t32_run_program(argv, &res) || res.status) {
		if (res.text)
			fputs(res.text, stderr);
		t32_child_output_free(&res);
		return -1;
	}
	t32_child_output_free(&res);
	return t32_now() - t0;
}

/* A sweep's columns the benches read, found by name in its header (-1: absent). */
struct sweep_cols {
	long form, n, per_insn, lo, hi, status, expected;
};

/* Read the header of a sweep into c; 0, or -1 when a column the benches need is missing. */
static int sweep_header(const struct t32_tsv *t, struct sweep_cols *c)
{
	char *const *h = t->fields;
	size_t n = t->nfields;

	c->form = t32_tsv_column(h, n, "form");
	c->n = t32_tsv_column(h, n, "n");
	c->per_insn = t32_tsv_column(h, n, "per_insn");
	c->lo = t32_tsv_column(h, n, "ci_lo");
	c->hi = t32_tsv_column(h, n, "ci_hi");
	c->status = t32_tsv_column(h, n, "status");
	c->expected = t32_tsv_column(h, n, "expected");
	return c->form < 0 || c->n < 0 || c->per_insn < 0 || c->lo < 0 || c->hi < 0 ||
	       c->status < 0 ? -1 : 0;
}

/* Over a sweep's ok rows: the largest half-width per instruction and on the block. */
static size_t sweep_rows(const char *path, double *max_hw, double *max_block_hw)
{
	struct t32_tsv t;
	struct sweep_cols c;
	size_t rows = 0;
	int header = 0;

	*max_hw = *max_block_hw = 0;
	if (t32_tsv_open(&t, path))
		return 0;
	while (t32_tsv_next(&t) > 0) {
		double hw;

		if (t.line[0] == '#')
			continue;
		t32_tsv_split(&t);
		if (!header) {
			if (sweep_header(&t, &c))
				break;
			header = 1;
			continue;
		}
		if ((size_t)c.status >= t.nfields || strcmp(t.fields[c.status], "ok") != 0)
			continue;
		hw = (strtod(t.fields[c.hi], NULL) - strtod(t.fields[c.lo], NULL)) / 2;
		*max_hw = fmax(*max_hw, hw);
		*max_block_hw = fmax(*max_block_hw, hw * strtod(t.fields[c.n], NULL));
		rows++;
	}
	t32_tsv_close(&t);
	return rows;
}

/*
 * The coursework's 24-form table at n = 100 .. 100,000, to the precision the study
 * printed it with: (t - bar) / n in ticks to two decimals, so +-0.005 tick per
 * instruction on every row.
 */
static void bench_table(void)
{
	char path[] = "/tmp/t32-bench-table-XXXXXX", tbl[PATH_MAX], fig[120];
	int fd = mkstemp(path);
	char *args[] = { "--n", "100,1000,10000,100000", "--mode", "latency", "--unit", "ticks",
			 "--precision", "0.004", "--block-precision", "0", "--budget", "1", tbl, NULL };
	double took, hw, bhw;
	size_t rows;

	if (fd < 0)
		return;
	close(fd);
	snprintf(tbl, sizeof(tbl), "%s/coursework.tbl", t32_datadir());
	took = sweep_child(args, path);
	rows = sweep_rows(path, &hw, &bhw);
	unlink(path);
	snprintf(fig, sizeof(fig), "%zu rows in %.1f s, worst +-%.4f tick/insn", rows, took, hw);
	report("table: 24 forms x n = 100..100,000", fig, "96 rows, +-0.005, < 10 s",
	       took > 0 && rows == 96 && hw <= 0.005 && took < 10);
	snprintf(fig, sizeof(fig), "%.1f rows/s", took > 0 ? (double)rows / took : 0);
	report("sweep throughput (the table)", fig, "(figure only)", took > 0);
}

/*
 * A step curve, n = 1..100, each block known to +-1 tick: finer than the one-step
 * resolution a 1,000,000-run minimum gives (one TSC step; 21 ticks on a VM).
 */
static void bench_steps(void)
{
	static const char *const insns[] = { "inc eax", "add eax, 1" };

	for (size_t i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		char path[] = "/tmp/t32-bench-steps-XXXXXX", what[80], fig[120];
		int fd = mkstemp(path);
		char *args[] = { "--n", "1..100", "--unit", "ticks", "--precision", "0",
				 "--block-precision", "0.8", "--budget", "0.5", "l", "m",
				 (char *)insns[i], NULL };
		double took, hw, bhw;
		size_t rows;

		if (fd < 0)
			return;
		close(fd);
		took = sweep_child(args, path);
		rows = sweep_rows(path, &hw, &bhw);
		unlink(path);
		snprintf(what, sizeof(what), "step curve: n = 1..100 x %s", insns[i]);
		snprintf(fig, sizeof(fig), "%zu n in %.2f s, worst block +-%.2f ticks", rows, took,
			 bhw);
		report(what, fig, "+-1 tick, < 2 s", took > 0 && rows == 100 && bhw <= 1 && took < 2);
		if (i == 0) {
			snprintf(fig, sizeof(fig), "%.1f rows/s", took > 0 ? (double)rows / took : 0);
			report("sweep throughput (a step curve)", fig, "(figure only)", took > 0);
		}
	}
}

/* Samples per second of wall time and the loop's slowdown, for each sampling backend. */
static void bench_sampling(void)
{
	static const char *const backends[][2] = {
		{ "perf", "task-clock" }, { "signal", "cpu-clock" }, { "precise", "task-clock" },
	};
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return;
	self[n] = 0;
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		char *argv[] = { self, "sample", "--format=tsv", "--backend", (char *)backends[i][0],
				 "--clock", (char *)backends[i][1], "--seconds", "2", "load-nop10", NULL };
		struct t32_child_output res;
		char what[80], fig[120];
		unsigned long long got = 0;
		double secs = 0, slow = NAN;
		double t0 = t32_now(), took;
		const char *p;

		snprintf(what, sizeof(what), "sampling: %s (%s), load-nop10", backends[i][0],
			 backends[i][1]);
		if (t32_run_program(argv, &res)) {
			t32_child_output_free(&res);
			continue;
		}
		took = t32_now() - t0;
		if (res.status == T32_EXIT_UNAVAILABLE) {
			report(what, "unavailable here (exit 3)", "(figure only)", 1);
			t32_child_output_free(&res);
			continue;
		}
		if (res.text && (p = strstr(res.text, "# samples: ")))
			sscanf(p, "# samples: %llu in %lf s", &got, &secs);
		if (res.text && (p = strstr(res.text, "# slowdown_percent: ")))
			sscanf(p, "# slowdown_percent: %lf", &slow);
		snprintf(fig, sizeof(fig), "%.0f samples/s of wall time, slowdown %.1f%%",
			 took > 0 ? (double)got / took : 0, slow);
		report(what, fig, "(figure only)", res.status == 0 && got > 0);
		t32_child_output_free(&res);
	}
}

/* The retirement model fitted to the study's blocks (cmd-correlate.c). */
static void bench_correlate(void)
{
	t32_bench_correlate(report);
}

/* Wake latency beside cyclictest, and the spin method's gap (cmd-wake.c). */
static void bench_wake(void)
{
	t32_bench_wake(report);
}

/*
 * Chains of whole-cycle latency on every x86-64 core t32 knows, in cycles per
 * instruction (an item of several dependent instructions: imul then add is 4
 * cycles for 2 instructions).
 */
static const struct latency coverage_chains[] = {
	{ "add eax, 1", 1 },
	{ "lea rax, [rax + 1]", 1 },
	{ "sub rax, 1", 1 },
	{ "add eax, 1; xor eax, 3", 1 },
	{ "imul rax, rax", 3 },
	{ "crc32 eax, eax", 3 },
	{ "imul rax, rax; add rax, 1", 2 },
	{ "vfmadd231ps xmm0, xmm0, xmm0", 4 },
	{ "imul rax, rax; imul rax, rax; add rax, 1; add rax, 1", 2 },
	{ "crc32 eax, eax; add eax, 1", 2 },
};

/*
 * Coverage: 20 chains, each in a fresh measuring process (new placement), at
 * t32 time's `auto` precision, 1000 against 500 (`--base 500`, so the few cycles
 * of pipeline fill that (t - bar) / n counts cancel): every estimate within 0.02 of its whole number,
 * and the interval holding it in 19 of 20.
 */
static void bench_coverage(void)
{
	enum { NC = sizeof(coverage_chains) / sizeof(coverage_chains[0]) };
	struct latency chains[NC + 1];
	size_t nc = NC;
	unsigned held = 0, near = 0, done = 0;
	double worst = 0;
	char fig[96], worst_what[96] = "-";

	memcpy(chains, coverage_chains, sizeof(coverage_chains));
	/*
	 * A load chase where the core is known: its load-to-use latency is the
	 * core's (4 on Zen and Skylake, 5 on Golden Cove), from its data file.
	 */
	{
		struct t32_cpu cpu;
		struct t32_uarch_choice c;
		struct t32_uarch u;
		char err[256];

		t32_cpu_identify(&cpu);
		t32_uarch_choose(NULL, cpu.vendor, cpu.family, cpu.model, cpu.core_type, &c);
		if (c.how == T32_UARCH_DETECTED &&
		    !t32_uarch_load(&u, c.data, t32_datadir(), err, sizeof(err))) {
			chains[nc].insn = "mov rax, [rax]";
			chains[nc++].expect = u.load_latency_chase ? u.load_latency_chase
								   : u.load_latency;
		} else {
			printf("#   no load chase: the core's load latency is not known here\n");
		}
	}
	for (size_t i = 0; i < 20; i++) {
		const struct latency *l = &chains[i % nc];
		struct t32_measurement m;
		double err;

		/* against half the chain: the pipeline fill cancels, the latency stays */
		if (t32_measure_copies(l->insn, 1000, 500, NULL, 0.01, 2, 0, &m))
			continue;
		done++;
		err = fabs(m.value - l->expect);
		printf("#   %-52s %.4f +- %.4f (expect %g)\n", l->insn, m.value, m.halfwidth,
		       l->expect);
		near += err <= 0.02;
		held += m.value - m.halfwidth <= l->expect && l->expect <= m.value + m.halfwidth;
		if (err > worst) {
			worst = err;
			snprintf(worst_what, sizeof(worst_what), "%s %.4f +- %.4f", l->insn, m.value,
				 m.halfwidth);
		}
	}
	snprintf(fig, sizeof(fig), "%u of %u within 0.02", near, done);
	report("coverage: 20 chains of 1-4 cycles, fresh processes", fig, "20 of 20", near == 20);
	snprintf(fig, sizeof(fig), "%u of %u", held, done);
	report("coverage: interval holds the whole number", fig, ">= 19 of 20", held >= 19);
	printf("#   worst: %s\n", worst_what);
}

/*
 * The estimator, calibration and stopping rule on simulated machines of every TSC
 * step 1..64, ratio and noise (t32/tscsim.c): the share of intervals holding the
 * truth and the worst error of a trusted result, in TSC steps on the block (or
 * in the precision asked, where that is coarser than a step).
 */
static void bench_simulated(void)
{
	struct t32_sim_grid g;
	char fig[96];

	if (t32_sim_run_grid(1, &g)) {
		report("simulated TSC", "out of memory", "-", 0);
		return;
	}
	snprintf(fig, sizeof(fig), "%u of %u (%.1f%%)", g.covered, g.cases,
		 100.0 * g.covered / (g.cases ? g.cases : 1));
	report("simulated TSC: interval holds the truth", fig, ">= 95%",
	       g.covered >= 0.95 * g.cases);
	snprintf(fig, sizeof(fig), "%.3f steps (%u trusted)", g.worst_steps, g.trusted);
	report("simulated TSC: worst error of a trusted result", fig, "< 1 step", g.worst_steps < 1);
	printf("#   worst: %s\n", g.worst[0] ? g.worst : "-");
	snprintf(fig, sizeof(fig), "worst %.3f steps, %u of %u wrong", g.biased_worst_steps,
		 g.biased_trusted_wrong, g.biased);
	report("simulated TSC, dither locked to the step", fig, "(figure only)", 1);
}

/* What a full-table sweep holds, counted from its rows. */
struct fulltable_counts {
	size_t rows, measured, precise, unsupported, faulted, skipped;
	size_t forms, forms_measured, with_expected, within;
};

static void count_fulltable(const char *path, struct fulltable_counts *c)
{
	struct t32_tsv t;
	struct sweep_cols k;
	char last[256] = "";
	int last_measured = 0, header = 0;

	memset(c, 0, sizeof(*c));
	if (t32_tsv_open(&t, path))
		return;
	while (t32_tsv_next(&t) > 0) {
		double est, lo, hi, exp;
		const char *status, *form;

		if (t.line[0] == '#')
			continue;
		t32_tsv_split(&t);
		if (!header) {
			if (sweep_header(&t, &k) || k.expected < 0)
				break;
			header = 1;
			continue;
		}
		if ((size_t)k.status >= t.nfields || (size_t)k.expected >= t.nfields)
			continue;
		status = t.fields[k.status];
		form = t.fields[k.form];
		if (strcmp(form, last)) {
			snprintf(last, sizeof(last), "%s", form);
			c->forms++;
			last_measured = 0;
		}
		c->rows++;
		if (!strcmp(status, "unsupported"))
			c->unsupported++;
		else if (!strcmp(status, "fault") || !strcmp(status, "error"))
			c->faulted++;
		else if (!strcmp(status, "skipped"))
			c->skipped++;
		if (strcmp(status, "ok") && strcmp(status, "untrusted"))
			continue;
		c->measured++;
		if (!last_measured)
			c->forms_measured++;
		last_measured = 1;
		est = strtod(t.fields[k.per_insn], NULL);
		lo = strtod(t.fields[k.lo], NULL);
		hi = strtod(t.fields[k.hi], NULL);
		c->precise += (hi - lo) / 2 <= 0.02;
		if (*t.fields[k.expected]) {
			exp = strtod(t.fields[k.expected], NULL);
			c->with_expected++;
			c->within += fabs(est - exp) <= 0.05;
		}
	}
	t32_tsv_close(&t);
}

/*
 * The generated full table (t32 table gen) swept in latency and throughput mode
 * at +-0.02 cycles, as a user would: forms generated and measured, the wall time
 * and rows per second, and the share of forms with a published latency for this
 * core that land within 0.05 cycles of it.  Takes minutes (about 12 on a 2-core
 * Zen 4 VM), longer on a busy machine.
 */
static void bench_fulltable(void)
{
	char tbl[] = "/tmp/t32-bench-full-XXXXXX", out[] = "/tmp/t32-bench-fullsweep-XXXXXX";
	char fig[160];
	char *args[] = { "--n", "840", "--k-list", "12", "--precision", "0.02", tbl, NULL };
	struct t32_tablegen_opts o = { 0 };
	struct t32_tablegen_stats st;
	struct fulltable_counts c;
	int fd = mkstemp(tbl), fd2 = mkstemp(out);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	double took;

	if (!f || fd2 < 0) {
		report("full table", "cannot make temporary files", "-", 0);
		if (f)
			fclose(f);
		if (fd2 >= 0)
			close(fd2);
		return;
	}
	close(fd2);
	if (t32_tablegen(f, &o, &st) || fclose(f)) {
		report("full table: forms generated", "t32 table gen failed", ">= 1,500", 0);
		unlink(tbl);
		unlink(out);
		return;
	}
	snprintf(fig, sizeof(fig), "%zu forms in %.1f s", st.forms, st.seconds);
	report("full table: forms generated (table gen)", fig, ">= 1,500", st.forms >= 1500);
	took = sweep_child(args, out);
	count_fulltable(out, &c);
	unlink(tbl);
	unlink(out);
	snprintf(fig, sizeof(fig), "%zu forms, %zu unsupported rows", c.forms_measured, c.unsupported);
	report("full table: forms measured here", fig, ">= 1,500", c.forms_measured >= 1500);
	snprintf(fig, sizeof(fig), "%.0f s for %zu rows (lat + tp)", took, c.rows);
	report("full table: wall time of the sweep", fig, "<= 900 s", took > 0 && took <= 900);
	snprintf(fig, sizeof(fig), "%.1f rows/s", took > 0 ? (double)c.rows / took : 0);
	report("full table: rows per second", fig, "(figure only)", took > 0);
	snprintf(fig, sizeof(fig), "%zu of %zu (%.1f%%)", c.precise, c.measured,
		 100.0 * (double)c.precise / (double)(c.measured ? c.measured : 1));
	report("full table: measured rows at +-0.02 cycles", fig, "(figure only)", c.measured > 0);
	snprintf(fig, sizeof(fig), "%zu of %zu (%.1f%%, %.40s)", c.within, c.with_expected,
		 100.0 * (double)c.within / (double)(c.with_expected ? c.with_expected : 1),
		 st.core[0] ? st.core : "no core");
	report("full table: within 0.05 of published latency", fig, ">= 95%",
	       c.with_expected && c.within >= 0.95 * (double)c.with_expected);
}

static const struct bench {
	const char *name;
	void (*fn)(void);
	const char *summary;
	double seconds;		/* about how long it takes here, for the time left */
} benches[] = {
	{ "resolution", bench_resolution, "one add more, below the TSC step", 4 },
	{ "coverage", bench_coverage, "20 chains of known latency, each in a fresh process", 6 },
	{ "simulated", bench_simulated, "the estimator on simulated TSCs of every step 1..64", 4 },
	{ "accuracy", bench_accuracy, "latencies of dependent chains against published values", 4 },
	{ "repeatability", bench_repeatability, "five repeats of the imul latency", 3 },
	{ "convergence", bench_convergence, "adaptive estimate against a 1,000,000-run minimum", 3 },
	{ "table", bench_table, "the coursework's 24-form table at the study's precision", 10 },
	{ "steps", bench_steps, "step curves of n = 1..100 to +-1 tick", 8 },
	{ "sampling", bench_sampling, "samples per second and the loop's slowdown, per backend", 8 },
	{ "correlate", bench_correlate, "model fitted to step curves and samples of the study's blocks", 30 },
	{ "wake", bench_wake, "wake latency beside cyclictest (median within 10% or 2 us)", 25 },
	{ "fulltable", bench_fulltable, "the generated full table swept at +-0.02 (takes about 12 minutes)", 720 },
	{ NULL, NULL, NULL, 0 }
};

int cmd_bench(int argc, char **argv)
{
	struct t32_cpu c;
	double t0 = t32_now(), planned = 0, done = 0;
	int progress = isatty(2);

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf("usage: t32 bench [NAME]...\n\n");
		for (const struct bench *b = benches; b->name; b++)
			printf("  %-14s %s\n", b->name, b->summary);
		return t32_close_stdout();
	}
	for (int i = 1; i < argc; i++) {
		const struct bench *b = benches;

		while (b->name && strcmp(argv[i], b->name))
			b++;
		if (!b->name) {
			char known[512] = "";

			for (b = benches; b->name; b++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
					 b == benches ? "" : ", ", b->name);
			t32_error("unknown bench '%s' (known: %s)", argv[i], known);
			return T32_EXIT_USAGE;
		}
	}
	t32_cpu_identify(&c);
	printf("# t32 %s (commit %s) bench on %s (cpu %d)\n", T32_VERSION, t32_commit(), c.brand,
	       t32_default_cpu());
	printf("%-44s %-34s %-22s %s\n", "figure", "measured", "target", "verdict");
	for (const struct bench *b = benches; b->name; b++) {
		int want = argc <= 1;

		for (int i = 1; i < argc; i++)
			want |= strcmp(argv[i], b->name) == 0;
		planned += want ? b->seconds : 0;
	}
	for (const struct bench *b = benches; b->name; b++) {
		int want = argc <= 1;

		for (int i = 1; i < argc; i++)
			want |= strcmp(argv[i], b->name) == 0;
		if (!want)
			continue;
		if (progress) {
			/* the time left: what is planned, scaled by how the done part went */
			double el = t32_now() - t0, left = planned - done;

			fflush(stdout);
			fprintf(stderr, "t32 bench: %s, about %.0f s left\n", b->name,
				done > 0 && el > 1 ? left * el / done : left);
		}
		b->fn();
		done += b->seconds;
	}
	printf("# %d figures, %d missed their target\n", figures, misses);
	if (t32_close_stdout())
		return T32_EXIT_ERROR;
	return misses ? T32_EXIT_UNTRUSTED : 0;
}
