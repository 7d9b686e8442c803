/*
 * cmd-bench.c - `t32 bench` (make bench): the measured claims, each printed with its
 * target beside it and a verdict.  Figures, not assertions: a miss is reported and
 * counted, and the exit code says whether any target was missed (7).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/correlate.h"
#include "analysis/uarch.h"
#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/sample/correlate.h"
#include "t32/sample/sampling.h"
#include "t32/core/measure.h"
#include "t32/cmd/options.h"
#include "t32/io/table.h"
#include "t32/core/tablegen.h"
#include "t32/core/tscsim.h"
#include "t32/io/tsv.h"

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

/* A reference build to time against (--reference), or NULL; the CPU asked for, or "". */
static const char *reference;
static uint64_t pairs = 5;	/* --pairs: runs of each build per paired figure */
static char bench_cpu[16];

/*
 * Run a sweep (prog: a t32 binary, NULL for this one) as a child with args into
 * path; wall seconds, or -1.  A fresh process on purpose: the time is that of
 * the command a user runs, start-up included, and a reference build can only
 * run that way.  The rows are then read back for their intervals.
 */
static double sweep_child(const char *prog, char *const *args, const char *path)
{
	char self[PATH_MAX], *argv[40];
	struct t32_child_output res;
	double t0;
	int k = 0;

	if (t32_self_path(self, sizeof(self)))
		return -1;
	argv[k++] = prog ? (char *)prog : self;
	argv[k++] = "sweep";
	argv[k++] = "-o";
	argv[k++] = (char *)path;
	if (bench_cpu[0]) {
		argv[k++] = "--cpu";
		argv[k++] = bench_cpu;
	}
	while (*args && k < 39)
		argv[k++] = *args++;
	argv[k] = NULL;
	t0 = t32_now();
	/* exit 5: every row written, some not ok; the bench reads their statuses */
	if (t32_run_program(argv, &res) || (res.status && res.status != T32_EXIT_ROWS)) {
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
	long form, n, per_insn, lo, hi, status, expected, seconds;
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
	c->seconds = t32_tsv_column(h, n, "seconds");
	return c->form < 0 || c->n < 0 || c->per_insn < 0 || c->lo < 0 || c->hi < 0 ||
	       c->status < 0 ? -1 : 0;
}

/*
 * The next row of the sweep being read in t, split into its fields, the header's
 * columns read into c on the way (comments passed over; *header 0 before the
 * first call).  1, or 0 at the end or when a column the benches need is missing.
 */
static int sweep_next(struct t32_tsv *t, struct sweep_cols *c, int *header)
{
	while (t32_tsv_next(t) > 0) {
		if (t->line[0] == '#')
			continue;
		t32_tsv_split(t);
		if (*header)
			return 1;
		if (sweep_header(t, c))
			return 0;
		*header = 1;
	}
	return 0;
}

/* What the benches read from a sweep's rows. */
struct sweep_sums {
	size_t ok;			/* rows whose status is ok */
	double max_hw, max_block_hw;	/* over those: the largest half-width per
					   instruction, and on the block */
	size_t rows;			/* rows written, whatever their status */
	double measuring;		/* the sum of their seconds: the measuring time
					   (without a seconds column, 0 and rows 0) */
};

static void sweep_sum(const char *path, struct sweep_sums *sum)
{
	struct t32_tsv t;
	struct sweep_cols c;
	int header = 0;

	memset(sum, 0, sizeof(*sum));
	if (t32_tsv_open(&t, path))
		return;
	while (sweep_next(&t, &c, &header)) {
		double hw;

		if (c.seconds >= 0) {
			if ((size_t)c.seconds < t.nfields)
				sum->measuring += strtod(t.fields[c.seconds], NULL);
			sum->rows++;
		}
		if ((size_t)c.status >= t.nfields || strcmp(t.fields[c.status], "ok") != 0)
			continue;
		hw = (strtod(t.fields[c.hi], NULL) - strtod(t.fields[c.lo], NULL)) / 2;
		sum->max_hw = fmax(sum->max_hw, hw);
		sum->max_block_hw = fmax(sum->max_block_hw, hw * strtod(t.fields[c.n], NULL));
		sum->ok++;
	}
	t32_tsv_close(&t);
}

/*
 * A sweep's wall time over its measuring time (the sum of its rows' seconds),
 * beside its rows per second: what is not measuring (assembling, starting
 * processes, looking around) shows as the ratio above 1.
 */
static void report_overhead(const char *what, double took, double measuring, size_t rows)
{
	char name[120], fig[160];

	snprintf(name, sizeof(name), "%s: wall over measuring", what);
	snprintf(fig, sizeof(fig), "%.2fx (%.1f s over %.1f s; %.1f rows/s)",
		 measuring > 0 ? took / measuring : 0, took, measuring,
		 took > 0 ? (double)rows / took : 0);
	report(name, fig, "<= 1.5x", took > 0 && measuring > 0 && took <= 1.5 * measuring);
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
	struct sweep_sums sum;
	double took;

	if (fd < 0)
		return;
	close(fd);
	snprintf(tbl, sizeof(tbl), "%s/coursework.tbl", t32_datadir());
	took = sweep_child(NULL, args, path);
	sweep_sum(path, &sum);
	unlink(path);
	snprintf(fig, sizeof(fig), "%zu rows in %.1f s, worst +-%.4f tick/insn", sum.ok, took,
		 sum.max_hw);
	report("table: 24 forms x n = 100..100,000", fig, "96 rows, +-0.005, < 10 s",
	       took > 0 && sum.ok == 96 && sum.max_hw <= 0.005 && took < 10);
	snprintf(fig, sizeof(fig), "%.1f rows/s", took > 0 ? (double)sum.ok / took : 0);
	report("sweep throughput (the table)", fig, "(figure only)", took > 0);
	report_overhead("table", took, sum.measuring, sum.rows);
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
		struct sweep_sums sum;
		double took;

		if (fd < 0)
			return;
		close(fd);
		took = sweep_child(NULL, args, path);
		sweep_sum(path, &sum);
		unlink(path);
		snprintf(what, sizeof(what), "step curve: n = 1..100 x %s", insns[i]);
		snprintf(fig, sizeof(fig), "%zu n in %.2f s, worst block +-%.2f ticks", sum.ok, took,
			 sum.max_block_hw);
		report(what, fig, "+-1 tick, < 2 s",
		       took > 0 && sum.ok == 100 && sum.max_block_hw <= 1 && took < 2);
		if (i == 0) {
			snprintf(fig, sizeof(fig), "%.1f rows/s", took > 0 ? (double)sum.ok / took : 0);
			report("sweep throughput (a step curve)", fig, "(figure only)", took > 0);
			report_overhead("step curve", took, sum.measuring, sum.rows);
		}
	}
}

/* Doubles in ascending order, for qsort. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The same sweep by this build and the reference build, in pairs whose order
 * alternates (so drift of the machine falls on both alike): the median of this
 * build's time over the reference's, its range, and the median seconds of each.
 */
static void paired_sweep(const char *what, char *const *args)
{
	double ratio[50], mine[50], theirs[50];
	char path[] = "/tmp/t32-bench-paired-XXXXXX", fig[160];
	int fd = mkstemp(path), n = 0;

	if (fd < 0)
		return;
	close(fd);
	for (int p = 0; p < (int)pairs; p++) {
		double a, b;

		if (p % 2) {
			b = sweep_child(reference, args, path);
			a = sweep_child(NULL, args, path);
		} else {
			a = sweep_child(NULL, args, path);
			b = sweep_child(reference, args, path);
		}
		if (a <= 0 || b <= 0)
			continue;
		mine[n] = a;
		theirs[n] = b;
		ratio[n++] = a / b;
	}
	unlink(path);
	if (!n) {
		report(what, "a sweep failed (this build or the reference)", "<= 1.00x reference", 0);
		return;
	}
	qsort(ratio, (size_t)n, sizeof(double), cmp_double);
	qsort(mine, (size_t)n, sizeof(double), cmp_double);
	qsort(theirs, (size_t)n, sizeof(double), cmp_double);
	snprintf(fig, sizeof(fig), "%.2fx (%.2f-%.2f, %d pairs; %.2f s vs %.2f s)", ratio[n / 2],
		 ratio[0], ratio[n - 1], n, mine[n / 2], theirs[n / 2]);
	report(what, fig, "<= 1.00x reference", ratio[n / 2] <= 1.0);
}

/*
 * The step curve and the coursework table, each timed against a reference build
 * (--reference T32, say one built at an older commit) doing the same work at the
 * same precision on this machine, as a ratio: seconds differ between machines,
 * the ratio of two builds on one machine much less.
 */
static void bench_paired(void)
{
	char tbl[PATH_MAX];
	char *steps[] = { "--n", "1..100", "--unit", "ticks", "--precision", "0",
			  "--block-precision", "0.8", "--budget", "0.5", "l", "m", "inc eax", NULL };
	char *table[] = { "--n", "100,1000,10000,100000", "--mode", "latency", "--unit", "ticks",
			  "--precision", "0.004", "--budget", "1", tbl, NULL };

	if (!reference) {
		report("paired: against a reference build", "skipped (t32 bench --reference T32)",
		       "<= 1.00x reference", 1);
		return;
	}
	snprintf(tbl, sizeof(tbl), "%s/coursework.tbl", t32_datadir());
	paired_sweep("paired: step curve n = 1..100 x inc eax", steps);
	paired_sweep("paired: coursework table, latency", table);
}

/*
 * Samples per second of wall time and the loop's slowdown, for each sampling
 * backend, sampling the block load-nop10 for 2 s in this process (the loop in
 * its measuring child).
 */
static void bench_sampling(void)
{
	static const char *const backends[][2] = {
		{ "perf", "task-clock" }, { "signal", "cpu-clock" }, { "precise", "task-clock" },
	};

	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		struct t32_sampling_req q;
		struct t32_sampling out;
		struct t32_spec s = { 0 };
		char what[80], fig[120], why[512];
		double t0, took, slow;
		int rc;

		snprintf(what, sizeof(what), "sampling: %s (%s), load-nop10", backends[i][0],
			 backends[i][1]);
		t32_sampling_req_init(&q);
		q.backend = t32_sample_backend_find(backends[i][0]);
		q.clock = t32_sample_clock_find(backends[i][1]);
		q.seconds = 2;
		if (!q.backend || q.backend->probe(why, sizeof(why))) {
			report(what, "unavailable here (exit 3)", "(figure only)", 1);
			continue;
		}
		if (t32_spec_set_barrier(&s, "n", why, sizeof(why)) ||
		    t32_spec_set_store(&s, "m", why, sizeof(why)) ||
		    !t32_blockfile_find("load-nop10", t32_datadir(), q.block_file,
					sizeof(q.block_file)) ||
		    t32_sampling_load_block(&q, &s)) {
			report(what, "cannot load the block load-nop10", "(figure only)", 0);
			t32_spec_free(&s);
			continue;
		}
		t0 = t32_now();
		rc = t32_sampling_take(&q, &s, NULL, &out);
		took = t32_now() - t0;
		if (rc == T32_EXIT_UNAVAILABLE) {
			report(what, "unavailable here (exit 3)", "(figure only)", 1);
		} else {
			slow = out.r.ns_alone > 0 ? (out.r.ns_sampled / out.r.ns_alone - 1) * 100 : NAN;
			snprintf(fig, sizeof(fig), "%.0f samples/s of wall time, slowdown %.1f%%",
				 took > 0 && !rc ? (double)out.r.samples / took : 0, slow);
			report(what, fig, "(figure only)", !rc && out.r.samples > 0 &&
			       t32_sampling_doubt(&out) == T32_SAMPLING_TRUSTED);
		}
		t32_sampling_free(&out);
		t32_spec_free(&s);
	}
}

/*
 * t32_correlate on every block file in data/blocks, with the TVD of the fitted
 * shares (target <= 0.10), the retire width and group chosen, the error of the
 * predicted cycles per iteration (target <= 5%) and the time taken.  Called in
 * this process as study calls it (the sampled loop and the sweep's blocks run in
 * their measuring children): the figures are its typed result, not its text.
 */
static void bench_correlate(void)
{
	char dir[PATH_MAX];
	struct dirent **names = NULL;
	int count;

	snprintf(dir, sizeof(dir), "%.3000s/blocks", t32_datadir());
	count = scandir(dir, &names, NULL, alphasort);
	if (count < 0) {
		report("correlate: the blocks", "no data/blocks folder", "(figure only)", 0);
		return;
	}
	for (int i = 0; i < count; i++) {
		const char *nm = names[i]->d_name;
		size_t l = strlen(nm);
		char path[PATH_MAX], what[128], fig[160], wt[16], gt[16];
		char *body[] = { path, NULL };
		struct t32_correlate_req q;
		struct t32_correlate_res res;
		double t0, took;
		int rc;

		if (l <= 4 || strcmp(nm + l - 4, ".blk") != 0) {
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%.3000s/%s", dir, nm);
		snprintf(what, sizeof(what), "correlate: %.*s", (int)(l - 4), nm);
		t32_correlate_req_init(&q);
		q.samples = 2000;
		q.seconds = 3;
		q.cpu = t32_default_cpu();
		q.body_argc = 1;
		q.body_argv = body;
		t0 = t32_now();
		rc = t32_correlate(&q, 0, NULL, NULL, &res);
		took = t32_now() - t0;
		if (rc == T32_EXIT_UNAVAILABLE) {
			report(what, "no sampling backend (exit 3)", "(figure only)", 1);
		} else if (rc != 0 && (rc != T32_EXIT_UNTRUSTED || !isfinite(res.tvd))) {
			/* exit 7 before any fit (samples that did not stay put): no figures */
			snprintf(fig, sizeof(fig), "failed (exit %d)", rc);
			report(what, fig, "TVD <= 0.10, err <= 5%", 0);
		} else {
			/* an undetermined width or group is NaN: shown as '?' */
			snprintf(fig, sizeof(fig), "TVD %.3f, W %s/G%s, cpi %+.1f%%, %.1f s", res.tvd,
				 isfinite(res.retire_width) ?
				 (snprintf(wt, sizeof(wt), "%.0f", res.retire_width), wt) : "?",
				 isfinite(res.retire_group) ?
				 (snprintf(gt, sizeof(gt), "%.0f", res.retire_group), gt) : "?",
				 res.cycles_error_percent, took);
			report(what, fig, "TVD <= 0.10, err <= 5%",
			       t32_corr_meets_target(res.tvd, res.cycles_error_percent) && rc == 0);
		}
		free(names[i]);
	}
	free(names);
}

/* Each recorded machine learned from its probes, its blocks predicted (cmd-learn.c). */
static void bench_learn(void)
{
	t32_bench_learn(report);
}

/* Wake latency beside cyclictest, and the spin method's gap (benchwake.c). */
static void bench_wake(void)
{
	t32_bench_wake(report);
}

/* Where bench coverage keeps its recordings (--record DIR), or NULL. */
static const char *record_dir;

/* One form's result from `t32 time --format=json` as a user runs it. */
struct timed {
	int status;		/* exit status of the command */
	double value, lo, hi;	/* per_insn and its interval, NaN when absent */
	int flagged;		/* untrusted: the result said it cannot be trusted */
	double seconds;
	char flags[64], why[256];
};

/* The number after `"key": ` in json, NaN when absent or null. */
static double json_number(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	if (!p || strncmp(p + strlen(pat), "null", 4) == 0)
		return NAN;
	return strtod(p + strlen(pat), NULL);
}

/* The string after `"key": "` in json into buf ("" when absent or null). */
static void json_text(const char *json, const char *key, char *buf, size_t len)
{
	char pat[64];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\": \"", key);
	buf[0] = 0;
	p = strstr(json, pat);
	if (!p)
		return;
	for (p += strlen(pat); *p && *p != '"' && n + 1 < len; p++)
		buf[n++] = *p == '\\' && p[1] ? *++p : *p;
	buf[n] = 0;
}

/*
 * Run `t32 time --format=json [--init I] l m auto 500 INSN` as a child, the path
 * users take (a fresh process, the default estimate), recording into rec if set.
 */
static int time_child(const struct t32_form *f, const char *rec, struct timed *t)
{
	char self[PATH_MAX], *argv[16];
	struct t32_child_output res;
	const char *json;
	int k = 0;

	memset(t, 0, sizeof(*t));
	t->value = t->lo = t->hi = NAN;
	if (t32_self_path(self, sizeof(self)))
		return -1;
	argv[k++] = self;
	argv[k++] = "time";
	argv[k++] = "--format=json";
	if (bench_cpu[0]) {
		argv[k++] = "--cpu";
		argv[k++] = bench_cpu;
	}
	if (f->init) {
		argv[k++] = "--init";
		argv[k++] = f->init;
	}
	if (rec) {
		argv[k++] = "--record";
		argv[k++] = (char *)rec;
	}
	argv[k++] = "l";
	argv[k++] = "m";
	argv[k++] = "auto";
	argv[k++] = "500";
	argv[k++] = f->insn;
	argv[k] = NULL;
	if (t32_run_program(argv, &res)) {
		t32_child_output_free(&res);
		return -1;
	}
	t->status = res.status;
	json = res.text ? strstr(res.text, "{\"provenance\"") : NULL;
	if (json) {
		t->value = json_number(json, "per_insn");
		t->seconds = json_number(json, "seconds");
		if (strstr(json, "\"ci\": [") && !strstr(json, "\"ci\": [null")) {
			char *end;

			t->lo = strtod(strstr(json, "\"ci\": [") + 7, &end);
			t->hi = strtod(end + 1, NULL);
		}
		json_text(json, "flags", t->flags, sizeof(t->flags));
		json_text(json, "untrusted", t->why, sizeof(t->why));
		t->flagged = t->why[0] != 0;
	}
	t32_child_output_free(&res);
	return json ? 0 : -1;
}

/* A child spinning on a CPU other than `cpu` (the first allowed), or -1 when there is none. */
static pid_t spin_beside(int cpu)
{
	cpu_set_t allowed, one;
	int other = -1;
	pid_t pid;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -1;
	for (int c = 0; c < CPU_SETSIZE && other < 0; c++)
		if (c != cpu && CPU_ISSET(c, &allowed))
			other = c;
	if (other < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		CPU_ZERO(&one);
		CPU_SET(other, &one);
		sched_setaffinity(0, sizeof(one), &one);
		for (volatile unsigned long x = 0;; x++)
			;
	}
	return pid;
}

/* Which half a form is in: development (0) or held back from every decision (1). */
static int held_back(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return (int)(h >> 63);
}

/* What one pass over the forms gave, per half. */
struct coverage {
	unsigned forms, held, near_or_flagged, flagged;
	unsigned trusted_held;	/* held by a result not flagged */
	double err[512];	/* signed relative errors, for the median */
	unsigned nerr;
	double hw[512], trusted_hw[512];	/* relative half-widths: all, and the trusted */
	unsigned nhw, ntrusted_hw;
	double seconds;
};

/* The median of v[0..n) (sorted in place); NAN for none. */
static double median_of(double *v, unsigned n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * One pass's figures for one half of the forms: intervals holding, near or
 * flagged, error, and what the holding costs in width.
 */
static void coverage_report(const char *pass, const char *half, struct coverage *h)
{
	char what[96], fig[128];
	double med = median_of(h->err, h->nerr);

	snprintf(what, sizeof(what), "coverage %s, %s: interval holds", pass, half);
	snprintf(fig, sizeof(fig), "%u of %u (%.1f%%)", h->held, h->forms,
		 100.0 * h->held / (h->forms ? h->forms : 1));
	report(what, fig, ">= 95%", h->forms && h->held >= 0.95 * h->forms);
	snprintf(what, sizeof(what), "coverage %s, %s: within 0.02", pass, half);
	snprintf(fig, sizeof(fig), "%u of %u or flagged (%u flagged)", h->near_or_flagged, h->forms,
		 h->flagged);
	report(what, fig, "all", h->forms && h->near_or_flagged == h->forms);
	/* how much of the coverage the trusted results give alone */
	snprintf(what, sizeof(what), "coverage %s, %s: trusted holds", pass, half);
	snprintf(fig, sizeof(fig), "%u of %u trusted", h->trusted_held, h->forms - h->flagged);
	report(what, fig, "(figure only)", 1);
	snprintf(what, sizeof(what), "coverage %s, %s: median error", pass, half);
	if (h->nerr)
		snprintf(fig, sizeof(fig), "%+.3f%% (%u unflagged)", 100 * med, h->nerr);
	else
		snprintf(fig, sizeof(fig), "none: every result flagged");
	report(what, fig, "(figure only)", 1);
	/* an interval holds more easily the wider it is: the price, beside the coverage */
	snprintf(what, sizeof(what), "coverage %s, %s: median half-width", pass, half);
	if (h->ntrusted_hw)
		snprintf(fig, sizeof(fig), "+-%.2f%% (trusted +-%.2f%%)",
			 100 * median_of(h->hw, h->nhw),
			 100 * median_of(h->trusted_hw, h->ntrusted_hw));
	else
		snprintf(fig, sizeof(fig), "+-%.2f%% (none trusted)", 100 * median_of(h->hw, h->nhw));
	report(what, fig, "(figure only)", 1);
}

/*
 * Coverage: every form of the core's published reference table (data/ref/CORE.tbl,
 * whole-number latencies on which two sources agree), each timed as a user times it
 * (a fresh `t32 time --format=json l m auto 500 INSN`), once on a quiet machine and
 * once with a busy loop on another CPU.  The interval must hold the published value
 * in >= 95% of forms, and each value must lie within 0.02 cycles of it or be flagged
 * (untrusted, exit 7).  The forms are split by a hash of their names: the held-back
 * half takes part in no decision about the estimator and is reported apart.
 */
static void bench_coverage(void)
{
	struct t32_cpu cpu;
	struct t32_uarch_choice c;
	struct t32_table tab;
	char path[PATH_MAX], err[256];
	static const char *const passes[] = { "quiet", "busy" };
	static const char *const halves[] = { "development", "held back" };
	FILE *manifest = NULL;

	t32_cpu_identify(&cpu);
	t32_uarch_choose(NULL, cpu.vendor, cpu.family, cpu.model, cpu.core_type, &c);
	snprintf(path, sizeof(path), "%s/ref/%s.tbl", t32_datadir(), c.data);
	if (c.how != T32_UARCH_DETECTED || t32_table_load(path, &tab, err, sizeof(err))) {
		report("coverage: published latencies", "no reference table for this core",
		       "(figure only)", 1);
		printf("#   %s\n", c.how != T32_UARCH_DETECTED ? "the core is not known here" : err);
		return;
	}
	if (record_dir && mkdir(record_dir, 0777) && errno != EEXIST) {
		report("coverage: recordings", "cannot create the folder", "-", 0);
		printf("#   %s: %s\n", record_dir, strerror(errno));
		t32_table_free(&tab);
		return;
	}
	if (record_dir) {
		/* what each recording is of, and what it gave: replays are checked against it */
		snprintf(path, sizeof(path), "%s/coverage.tsv", record_dir);
		if ((manifest = t32_fopen_out(path))) {
			t32_provenance(manifest, 0, NULL);
			fprintf(manifest, "# reference: data/ref/%s.tbl\n"
				"pass\tform\thalf\tlat\tper_insn\tci_lo\tci_hi\tflagged\trecording\n",
				c.data);
		}
		snprintf(path, sizeof(path), "%s/ref/%s.tbl", t32_datadir(), c.data);
	}
	for (int pass = 0; pass < 2; pass++) {
		struct coverage cov[2];
		pid_t spinner = -1;
		double t0 = t32_now();

		memset(cov, 0, sizeof(cov));
		if (pass == 1 && (spinner = spin_beside(t32_default_cpu())) < 0) {
			report("coverage: busy loop on another CPU", "one CPU only", "(figure only)", 1);
			break;
		}
		for (size_t i = 0; i < tab.n; i++) {
			const struct t32_form *f = &tab.forms[i];
			struct coverage *h = &cov[held_back(f->name)];
			char rec[PATH_MAX];
			struct timed t;
			int held, near;

			if (isnan(f->lat) || f->lat != floor(f->lat) || f->lat < 1 || f->lat > 20)
				continue;
			if (record_dir)
				snprintf(rec, sizeof(rec), "%s/%s-%s.rec", record_dir, passes[pass],
					 f->name);
			if (time_child(f, record_dir ? rec : NULL, &t)) {
				printf("#   %-10s %-40s could not be run\n", passes[pass], f->insn);
				continue;
			}
			held = t.lo <= f->lat && f->lat <= t.hi;
			near = fabs(t.value - f->lat) <= 0.02;
			h->forms++;
			h->held += held;
			h->trusted_held += held && !t.flagged;
			h->flagged += t.flagged;
			h->near_or_flagged += near || t.flagged;
			if (!t.flagged && h->nerr < 512)
				h->err[h->nerr++] = (t.value - f->lat) / f->lat;
			if (h->nhw < 512)
				h->hw[h->nhw++] = (t.hi - t.lo) / 2 / f->lat;
			if (!t.flagged && h->ntrusted_hw < 512)
				h->trusted_hw[h->ntrusted_hw++] = (t.hi - t.lo) / 2 / f->lat;
			if (manifest)
				fprintf(manifest, "%s\t%s\t%s\t%g\t%.4f\t%.4f\t%.4f\t%d\t%s-%s.rec\n",
					passes[pass], f->name, held_back(f->name) ? "held" : "dev", f->lat,
					t.value, t.lo, t.hi, t.flagged, passes[pass], f->name);
			printf("#   %-5s %-30s %8.4f [%.4f, %.4f] lat %-3g %-9s%s%s%s\n", passes[pass],
			       f->name, t.value, t.lo, t.hi, f->lat, held ? "held" : "MISSED",
			       t.flagged ? " flagged: " : "", t.flagged ? t.why : "",
			       !held && !t.flagged ? " (trusted)" : "");
		}
		if (spinner > 0) {
			kill(spinner, SIGKILL);
			waitpid(spinner, NULL, 0);
		}
		for (int hf = 0; hf < 2; hf++)
			coverage_report(passes[pass], halves[hf], &cov[hf]);
		printf("#   %s pass: %.0f s for %u forms (%s)\n", passes[pass], t32_now() - t0,
		       cov[0].forms + cov[1].forms, path);
	}
	if (manifest && t32_fclose_out(manifest))
		report("coverage: recordings", "cannot write coverage.tsv", "-", 0);
	t32_table_free(&tab);
}

/*
 * The estimator, calibration and stopping rule on simulated machines of every TSC
 * step 1..64, ratio and noise (t32/core/tscsim.c): the share of intervals holding the
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
	while (sweep_next(&t, &k, &header) && k.expected >= 0) {
		double est, lo, hi, exp;
		const char *status, *form;

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
	struct sweep_sums sum;
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
	took = sweep_child(NULL, args, out);
	count_fulltable(out, &c);
	sweep_sum(out, &sum);
	unlink(tbl);
	unlink(out);
	snprintf(fig, sizeof(fig), "%zu forms, %zu unsupported rows", c.forms_measured, c.unsupported);
	report("full table: forms measured here", fig, ">= 1,500", c.forms_measured >= 1500);
	snprintf(fig, sizeof(fig), "%.0f s for %zu rows (lat + tp)", took, c.rows);
	report("full table: wall time of the sweep", fig, "<= 900 s", took > 0 && took <= 900);
	snprintf(fig, sizeof(fig), "%.1f rows/s", took > 0 ? (double)c.rows / took : 0);
	report("full table: rows per second", fig, "(figure only)", took > 0);
	report_overhead("full table", took, sum.measuring, sum.rows);
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
	{ "coverage", bench_coverage,
	  "published latencies of the core, each timed by `t32 time` in a fresh process, "
	  "quiet and beside a busy CPU", 240 },
	{ "simulated", bench_simulated, "the estimator on simulated TSCs of every step 1..64", 4 },
	{ "accuracy", bench_accuracy, "latencies of dependent chains against published values", 4 },
	{ "repeatability", bench_repeatability, "five repeats of the imul latency", 3 },
	{ "convergence", bench_convergence, "adaptive estimate against a 1,000,000-run minimum", 3 },
	{ "table", bench_table, "the coursework's 24-form table at the study's precision", 10 },
	{ "steps", bench_steps, "step curves of n = 1..100 to +-1 tick", 8 },
	{ "sampling", bench_sampling, "samples per second and the loop's slowdown, per backend", 8 },
	{ "correlate", bench_correlate, "model fitted to step curves and samples of the study's blocks", 30 },
	{ "learn", bench_learn, "t32 learn here, timed; each recorded machine learned from its probes, its blocks predicted", 300 },
	{ "wake", bench_wake, "wake latency beside cyclictest (median within 10% or 2 us)", 25 },
	{ "paired", bench_paired, "step curve and coursework table against --reference T32, as ratios", 120 },
	{ "fulltable", bench_fulltable, "the generated full table swept at +-0.02 (takes about 12 minutes)", 720 },
	{ NULL, NULL, NULL, 0 }
};

/* The options: --record DIR, --reference T32, --cpu N; -1 to go on, else an exit code. */
static int bench_options(int argc, char **argv, int *first)
{
	struct t32_block_opts bo;
	struct t32_block_optset shared;
	char outro[4096] = "\n";
	size_t used = 1;
	int rc;

	t32_block_optset_for(&shared, &bo, "bench", T32_OPT_CPU, 0);
	for (const struct bench *b = benches; b->name && used < sizeof(outro); b++)
		used += (size_t)snprintf(outro + used, sizeof(outro) - used, "  %-14s %s\n", b->name,
					 b->summary);
	{
		const struct t32_option opts[] = {
			T32_OPT_STRING("record", 0, "DIR", &record_dir, "keep coverage's readings in DIR, one recording a form"),
			T32_OPT_STRING("reference", 0, "T32", &reference, "a reference build for the paired figures (its binary)"),
			T32_OPT_U64("pairs", "N", &pairs, 1, 50, "pair count", "runs of each build in a paired figure (default 5)"),
			T32_OPT_SET(shared.rows),
			T32_OPT_END
		};

		rc = t32_options_parse("bench", "t32 bench [--record DIR] [--reference T32 [--pairs N]] "
				       "[--cpu N] [NAME]...", NULL, outro, opts, argc, argv, first);
	}
	if (rc < 0 && bo.run.cpu >= 0)
		snprintf(bench_cpu, sizeof(bench_cpu), "%d", bo.run.cpu);
	return rc;
}

int cmd_bench(int argc, char **argv)
{
	struct t32_cpu c;
	double t0 = t32_now(), planned = 0, done = 0;
	int progress = isatty(2), first, rc = bench_options(argc, argv, &first);

	if (rc >= 0)
		return rc;
	/* the names follow; argv[0] stands in for the command's name */
	argc -= first - 1;
	argv += first - 1;
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
