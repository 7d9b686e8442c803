/*
 * cmd-study.c - `t32 study`: the coursework's experiments as named recipes, each
 * writing its TSVs and figures into a directory, and an index page that reads as
 * a report: the machine, then per recipe what was measured and what it shows,
 * said from the data (`make report`).
 *
 * A recipe is one row of the table at the bottom: its name, a summary, about
 * how long it takes, a function that measures (run) and one that writes its
 * section of the page from the files in the directory (section).  The page is
 * written from whatever files are there, so running one recipe into an
 * existing report keeps the others.  Measuring runs in-process (the sweep's
 * code, the measuring sessions, t32_correlate; each block in its own forked
 * measuring child); only `t32 wake` (its real-time state) and gnuplot run as
 * programs.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/correlate.h"
#include "analysis/deps.h"
#include "analysis/fit.h"
#include "analysis/model.h"
#include "analysis/stats.h"
#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/core/compare.h"
#include "t32/core/measure.h"
#include "t32/cmd/options.h"
#include "t32/core/run.h"
#include "t32/cmd/study.h"
#include "t32/core/sweep.h"
#include "t32/io/table.h"
#include "t32/core/tablegen.h"
#include "t32/io/tsv.h"
#include "t32/sample/correlate.h"
#include "t32/util.h"
#include "t32/core/wake.h"

static const char study_usage[] =
	"t32 study [--profile quick|full] [-o DIR] [--barrier B] [--cpu N] [--no-plots] [RECIPE...]";

static const struct profile profiles[] = {
	{ "quick", 1000, 1000000, 0.15, 1.5, 0.1, 0.7, 0.3, 2, 1 },
	{ "full", 1000, 1000000, 3, 0.3, 2, 0.15, 3, 10, 6 },
	{ NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static volatile int stop;	/* Ctrl-C while the study measures on its own */

static void on_interrupt(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * A sweep into the report directory, in this process: n over nlist, the spec
 * BARRIER m BODY... (body words) or the table q->table, the rows into out.  Its
 * `# command:` line is the sweep as one would run it alone; its warnings stay in
 * its rows' flags.  Its exit code; 130 (Ctrl-C) stops the study.
 */
static int study_sweep(struct study *st, struct t32_sweep_req *q, const char *nlist,
		       const char *out, int nbody, char **body)
{
	struct t32_spec s = { 0 };
	uint64_t *ns = NULL;
	char err[512], cmd[8192];
	int rc = T32_EXIT_ERROR;

	if (t32_parse_nlist(nlist, &ns, &q->nn, err, sizeof(err)) ||
	    t32_block_parse_head(&s, st->barrier, "m") ||
	    (nbody && t32_spec_parse_body(&s, nbody, body, err, sizeof(err)))) {
		t32_error("cannot build the sweep '%s' (%s)", out, err);
		goto out;
	}
	q->ns = ns;
	q->spec = &s;
	q->out_path = out;
	q->quiet = 1;
	q->command = t32_sweep_command(q, cmd, sizeof(cmd));
	fflush(stdout);
	rc = t32_sweep(q);
	if (rc == T32_EXIT_INTERRUPTED)
		st->interrupted = 1;
out:
	t32_spec_free(&s);
	free(ns);
	return rc;
}

/* A paragraph "What this shows", its text composed by the caller (HTML). */
static void shows(FILE *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void shows(FILE *h, const char *fmt, ...)
{
	va_list ap;

	fprintf(h, "<div class=\"shows\"><p><b>What this shows.</b> ");
	va_start(ap, fmt);
	vfprintf(h, fmt, ap);
	va_end(ap);
	fprintf(h, "</p></div>\n");
}

/* Progress on a terminal: the recipe (and step) under way and the time left. */
static void progress(struct study *st, const char *what, double share_of_recipe)
{
	double done = st->done_weight + share_of_recipe * st->weight, el = t32_now() - st->t0;

	if (!st->progress)
		return;
	fprintf(stderr, "\r\033[Kt32 study: %s", what);
	if (done > 0 && el > 2)
		fprintf(stderr, ", about %.0f s left", el / done * (st->planned - done));
	else
		fprintf(stderr, ", about %.0f s left", st->planned - done);
	fprintf(stderr, "\n");
}

/* count raw deltas of BARRIER m, reps x insn, into out (the classic form, in-process). */
static int deltas(struct study *st, const char *insn, uint64_t reps, uint64_t count,
		  uint64_t *out)
{
	struct t32_block_opts o;
	struct t32_spec s = { 0 };
	struct t32_session ss;
	const struct t32_spec *specs[1] = { &s };
	char err[256];
	int rc;

	t32_block_opts_init(&o);
	o.run.cpu = st->env.pinned;
	if (t32_spec_set_barrier(&s, st->barrier, err, sizeof(err)) ||
	    t32_spec_add_item(&s, reps, insn)) {
		t32_error("%s", err);
		t32_spec_free(&s);
		return T32_EXIT_USAGE;
	}
	s.store = 'm';
	rc = t32_session_open(&ss, specs, 1, &o);
	for (uint64_t done = 0; !rc && done < count && !stop; done += 1u << 16) {
		uint64_t k = count - done < (1u << 16) ? count - done : (1u << 16);

		rc = t32_session_run(&ss, 0, k, out + done);
	}
	t32_session_close(&ss);
	t32_spec_free(&s);
	if (!rc && stop) {
		st->interrupted = 1;
		rc = T32_EXIT_INTERRUPTED;
	}
	return rc;
}

/*
 * A recipe made of n raw measurements of reps x insn: the measurements into *d
 * (malloc'd) and its file NAME.tsv opened into *o with the provenance (`t32
 * BARRIER m N ` and run, the rest of the command and what is kept of it).  0,
 * or an exit code with nothing left open.
 */
static int deltas_open(struct study *st, const char *insn, uint64_t reps, uint64_t n,
		       const char *name, const char *run, uint64_t **d, FILE **o)
{
	char path[PATH_MAX], file[64], what[256];
	int rc;

	*o = NULL;
	*d = malloc(n * sizeof(uint64_t));
	if (!*d)
		return T32_EXIT_ERROR;
	rc = deltas(st, insn, reps, n, *d);
	snprintf(file, sizeof(file), "%s.tsv", name);
	if (!rc && !(*o = t32_fopen_out(study_path(st, file, path, sizeof(path)))))
		rc = T32_EXIT_ERROR;
	if (rc) {
		free(*d);
		return rc;
	}
	snprintf(what, sizeof(what), "t32 %s m %llu %s", st->barrier, (unsigned long long)n, run);
	study_provenance(st, *o, name, what);
	return 0;
}

/* The end of deltas_open's recipe: d freed, NAME.tsv put in place and plotted. */
static int deltas_close(struct study *st, const char *name, uint64_t *d, FILE *o)
{
	char file[64];

	free(d);
	if (t32_fclose_out(o))
		return T32_EXIT_ERROR;
	snprintf(file, sizeof(file), "%s.tsv", name);
	study_plot(st, name, file, name, NULL, NULL, NULL);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ----- scatter: every measurement of 100,000 inc eax ----------------------- */

static int run_scatter(struct study *st)
{
	uint64_t n = st->p->scatter_runs, *d;
	FILE *o;
	int rc = deltas_open(st, "inc eax", 100000, n, "scatter",
			     "100000 'inc eax', every measurement in the order taken", &d, &o);

	if (rc)
		return rc;
	fprintf(o, "i\tticks\tcycles\n");
	for (uint64_t i = 0; i < n; i++) {
		fprintf(o, "%llu\t%llu\t", (unsigned long long)i, (unsigned long long)d[i]);
		if (st->ratio > 0)
			fprintf(o, "%.0f", (double)d[i] * st->ratio);
		fprintf(o, "\n");
	}
	return deltas_close(st, "scatter", d, o);
}

/* The median of v[0..n) (copied, not changed). */
static double median_of(const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(double)), m;

	if (!c || !n) {
		free(c);
		return NAN;
	}
	memcpy(c, v, n * sizeof(double));
	qsort(c, n, sizeof(double), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

/*
 * The clock a file's figures were converted with: its `# calibration:` ratio
 * and `# tsc:` step (a recipe run alone into an older report keeps the files
 * of the others, converted as they were measured), else the study's own.
 */
static void file_clock(const struct study *st, const struct tab *t, double *ratio, uint64_t *q)
{
	const char *c = tab_comment(t, "calibration"), *k = strstr(tab_comment(t, "tsc"), "step ");
	double r = *c ? strtod(c, NULL) : 0;
	unsigned long long step = 0;

	*ratio = r > 0 ? r : st->ratio;
	*q = k && sscanf(k, "step %llu", &step) == 1 && step ? step : st->env.q;
}

/*
 * What the scatter shows: the minimum per instruction judged against what a
 * dependent chain can do (one a cycle at best: below it the conversion, not
 * the chain, is wrong), how the readings gather near it, and whether the bulk
 * moved over the run (the median of the first tenth of the readings in the
 * order taken against the last tenth).
 */
static void scatter_shows(FILE *h, const double *inorder, size_t n, const char *col,
			  double ratio, uint64_t q)
{
	double *v = malloc(n * sizeof(double)), k, first, last, drift, tick;
	size_t near = 0, far = 0, levels = 0, tenth = n / 10 ? n / 10 : 1;
	int cyc = !strcmp(col, "cycles");
	char a[32], per[768], dr[512];

	if (!v)
		return;
	memcpy(v, inorder, n * sizeof(double));
	qsort(v, n, sizeof(double), cmp_double);
	for (size_t i = 0; i < n; i++) {
		near += v[i] <= v[0] * 1.001;
		levels += v[i] <= v[0] * 1.001 && (i == 0 || v[i] != v[i - 1]);
	}
	/* far above the bulk where it stood then: 5% over the median of its own tenth */
	for (size_t k = 0; k < 10; k++) {
		size_t from = k * tenth, to = k == 9 ? n : (k + 1) * tenth;
		double m = median_of(inorder + from, to - from);

		for (size_t i = from; i < to; i++)
			far += inorder[i] > m * 1.05;
	}
	k = v[0] / 100000;
	if (!cyc)
		snprintf(per, sizeof(per), "%.4f ticks per <code>inc eax</code> (no core/TSC ratio "
			 "was measured, so it cannot be set against the one cycle an increment "
			 "takes)", k);
	else if (k < 1)
		snprintf(per, sizeof(per), "%.4f cycles per <code>inc eax</code>, <b>below one a "
			 "cycle, which a chain of dependent increments cannot run</b> (each waits for "
			 "the one before, and one takes a cycle). The figure is one reading, the "
			 "fastest, converted with one core/TSC ratio (%.4f cycles a tick, measured "
			 "as the study began): a core clock faster during that reading than when "
			 "the ratio was measured gives it, so it says how far the clock moved, at "
			 "least %.1f%%, not what the chain costs", k, ratio, 100 * (1 / k - 1));
	else if (k <= 1.05)
		snprintf(per, sizeof(per), "%.4f cycles per <code>inc eax</code>: one a cycle, as a "
			 "chain of dependent increments must run (the barrier adds %.4f at most). "
			 "It is one reading, the fastest, converted with one core/TSC ratio", k,
			 k - 1);
	else
		snprintf(per, sizeof(per), "%.4f cycles per <code>inc eax</code>, %.0f%% more than "
			 "the one cycle an increment of a chain takes even at its fastest reading: "
			 "the core ran slower than the core/TSC ratio measured as the study began "
			 "(%.4f cycles a tick) says, or something took the CPU in every reading",
			 k, 100 * (k - 1), ratio);
	/* the bulk over the run: the median of each tenth of the readings, in the order taken */
	first = INFINITY;
	last = -INFINITY;
	for (size_t k = 0; k < 10 && n >= 10; k++) {
		double m = median_of(inorder + k * tenth, k == 9 ? n - 9 * tenth : tenth);

		first = fmin(first, m);
		last = fmax(last, m);
	}
	drift = first > 0 ? 100 * (last / first - 1) : 0;
	tick = cyc ? (double)(q ? q : 1) * ratio
		   : (double)(q ? q : 1);
	if (last - first > tick && drift >= 0.1)
		snprintf(dr, sizeof(dr), " Over the run the bulk moved: the medians of the ten "
			 "successive tenths of the readings range from %.0f to %.0f %s, %.1f%% apart, "
			 "more than one step of the TSC, so the block's cost (or the core clock) "
			 "changed while it was measured; a figure from one reading depends on when "
			 "it was taken.", first, last, col, drift);
	else
		snprintf(dr, sizeof(dr), " The bulk stayed put over the run: the medians of the "
			 "ten successive tenths of the readings (%.0f to %.0f %s) differ by no more "
			 "than one step of the TSC.", first, last, col);
	shows(h, "The minimum is %s %s, %s. %.1f%% of the measurements lie within 0.1%% of the "
		 "minimum, on %zu distinct value%s%s; the median is %.3f%% above it. %zu (%.1f%%) lie "
		 "more than 5%% above the bulk where it stood when they were taken (the median of "
		 "their tenth of the run), the largest %.1f times the minimum: an interrupt or the "
		 "hypervisor took the CPU in the middle of those. The scale shows the bulk; those "
		 "far above it are counted on the top edge.%s Taking the minimum of many "
		 "measurements, as the coursework does, removes the slow ones; so does the mean of "
		 "the bulk that t32 uses.",
	      study_thousands(v[0], a, sizeof(a)), col, per, 100.0 * near / n, levels,
	      levels == 1 ? "" : "s",
	      levels > 1 && q > 1 ? " (the readings come in whole steps of the TSC)" : "",
	      100.0 * (v[n / 2] / v[0] - 1), far, 100.0 * far / n, v[n - 1] / v[0], dr);
	free(v);
}

static int section_scatter(struct study *st, FILE *h)
{
	char path[PATH_MAX], a[32];
	struct tab t;
	double *v;
	size_t n;
	const char *col;

	if (tab_load(&t, study_path(st, "scatter.tsv", path, sizeof(path)), 1))
		return 0;
	n = t.nrows;
	col = n && *tab_get(&t, 0, "cycles") ? "cycles" : "ticks";
	v = malloc((n ? n : 1) * sizeof(double));
	fprintf(h, "<h2 id=\"scatter\">1. Every measurement</h2>\n");
	html_dated(h, &t);
	fprintf(h, "<p>%s measurements of a block of 100,000 <code>inc eax</code> between "
		   "<code>%s</code> barriers, one by one in the order taken (the coursework's "
		   "first figure), with the minimum.</p>\n", study_thousands((double)n, a, sizeof(a)),
		st->barrier);
	html_figure(st, h, "scatter", "scatter.tsv",
		    "Each measurement of the block, and a histogram of them on the same scale");
	if (v && n >= 10) {
		for (size_t i = 0; i < n; i++)
			v[i] = tab_num(&t, i, col);
		double ratio;
		uint64_t q;

		file_clock(st, &t, &ratio, &q);
		scatter_shows(h, v, n, col, ratio, q);
	}
	free(v);
	tab_free(&t);
	return 1;
}

/* ----- min-vs-count: the empty block's minimum against the count ---------- */

static int run_min_vs_count(struct study *st)
{
	static const uint64_t counts[] = { 1000, 2000, 5000, 10000, 20000, 50000, 100000,
					   200000, 500000, 1000000 };
	uint64_t max = st->p->min_counts_max, *d, min = UINT64_MAX;
	double t0 = t32_now(), r = st->ratio;
	FILE *o;
	int rc = deltas_open(st, "nop", 0, max, "min-vs-count", "0 nop (the empty block), the "
			     "minimum and t32's estimate over the first COUNT measurements", &d, &o);

	if (rc)
		return rc;
	fprintf(o, "# seconds: %.2f (all %llu measurements)\n", t32_now() - t0,
		(unsigned long long)max);
	fprintf(o, "count\tmin_ticks\tmin_cycles\test_ticks\test_lo\test_hi\test_cycles\t"
		   "est_lo_cycles\test_hi_cycles\n");
	for (size_t k = 0, i = 0; k < sizeof(counts) / sizeof(counts[0]) && counts[k] <= max; k++) {
		struct t32_estimate e;

		for (; i < counts[k]; i++)
			min = d[i] < min ? d[i] : min;
		t32_estimate(d, counts[k], t32_machine_tsc_step(NULL), &e);
		fprintf(o, "%llu\t%llu\t", (unsigned long long)counts[k], (unsigned long long)min);
		if (r > 0)
			fprintf(o, "%.2f", (double)min * r);
		fprintf(o, "\t%.3f\t%.3f\t%.3f\t", e.value, e.lo, e.hi);
		if (r > 0)
			fprintf(o, "%.3f\t%.3f\t%.3f", e.value * r, e.lo * r, e.hi * r);
		else
			fprintf(o, "\t\t");
		fprintf(o, "\n");
	}
	return deltas_close(st, "min-vs-count", d, o);
}

/*
 * What the estimate's intervals say over the counts: whether successive ones
 * overlap, and if not where they first part and why, into est.
 */
static void estimate_line(const struct tab *t, int cyc, char *est, size_t len)
{
	size_t n = t->nrows, apart = 0, first_apart = 0;
	char a[32], b[32], took[64] = "a while";	/* took: the `# seconds:` line's number */

	for (size_t i = 1; i < n; i++) {
		char lo[64], hi[64];

		snprintf(lo, sizeof(lo), cyc ? "est_lo_cycles" : "est_lo");
		snprintf(hi, sizeof(hi), cyc ? "est_hi_cycles" : "est_hi");
		if (tab_num(t, i, lo) > tab_num(t, i - 1, hi) ||
		    tab_num(t, i, hi) < tab_num(t, i - 1, lo)) {
			if (!apart)
				first_apart = i;
			apart++;
		}
	}
	if (*tab_comment(t, "seconds") && isfinite(strtod(tab_comment(t, "seconds"), NULL)))
		snprintf(took, sizeof(took), "%.2f s",
			 strtod(tab_comment(t, "seconds"), NULL));
	if (apart)
		snprintf(est, len,
			 "%zu pair%s of successive intervals do not overlap (first between %s and "
			 "%s measurements): an interval is the estimate's statistical uncertainty "
			 "for a block of fixed length, and the whole run took %s; over that time "
			 "the empty block's own cost moved a little (the core clock, the "
			 "hypervisor, the caches), which no interval of one span includes.",
			 apart, apart == 1 ? "" : "s",
			 study_thousands(tab_num(t, first_apart - 1, "count"), a, sizeof(a)),
			 study_thousands(tab_num(t, first_apart, "count"), b, sizeof(b)),
			 took);
	else
		snprintf(est, len,
			 "Successive intervals overlap: the estimate is stable from the first "
			 "1,000 measurements on, and only narrows as more come.");
}

static int section_min_vs_count(struct study *st, FILE *h)
{
	char path[PATH_MAX], a[32], b[32];
	struct tab t;
	size_t n, settled = 0;
	int cyc;
	const char *u;

	if (tab_load(&t, study_path(st, "min-vs-count.tsv", path, sizeof(path)), 1))
		return 0;
	n = t.nrows;
	cyc = n && !isnan(tab_num(&t, 0, "min_cycles"));
	u = cyc ? "cycles" : "ticks";
	fprintf(h, "<h2 id=\"min-vs-count\">2. How many measurements are enough</h2>\n");
	html_dated(h, &t);
	fprintf(h, "<p>The empty block (the barriers alone) measured %s times in one run; for "
		   "each COUNT, the minimum over the first COUNT measurements, and t32's estimate "
		   "over the same ones with its 95%% interval. The coursework's minimum fell from "
		   "452 to 376 ticks between 1,000 and 100,000 measurements on its machine.</p>\n",
		   n ? study_thousands(tab_num(&t, n - 1, "count"), a, sizeof(a)) : "no");
	html_figure(st, h, "min-vs-count", "min-vs-count.tsv",
		    "The minimum and t32's estimate against the number of measurements");
	if (n < 2) {
		tab_free(&t);
		return 1;
	}
	{
		char mn[64], mx[64];

		snprintf(mn, sizeof(mn), "min_%s", u);
		snprintf(mx, sizeof(mx), "est_%s", u);
		for (size_t i = 0; i < n; i++)
			if (tab_num(&t, i, mn) != tab_num(&t, n - 1, mn))
				settled = i + 1;
		char est[512], c[64];	/* c: a third number's own buffer in one call */

		estimate_line(&t, cyc, est, sizeof(est));
		{
			double lo = tab_num(&t, n - 1, cyc ? "est_lo_cycles" : "est_lo");
			double hi = tab_num(&t, n - 1, cyc ? "est_hi_cycles" : "est_hi");
			double mnv = tab_num(&t, n - 1, mn);
			char res[256];

			double fr;
			uint64_t fq;

			file_clock(st, &t, &fr, &fq);
			if (fq > 1)
				snprintf(res, sizeof(res), "comes in whole steps of the TSC (%llu ticks "
					 "here), so it cannot resolve the barrier's cost", (unsigned long long)fq);
			else
				snprintf(res, sizeof(res), "is the luckiest of them, not a typical one");
			shows(h, "Here the minimum was %s %s (%s ticks) %s. The minimum is a property of "
				 "the fastest reading, which %s; t32's estimate, the mean of the bulk of "
				 "the readings, is %.2f %s [%.2f, %.2f] over all %s. %s %s",
			      study_thousands(mnv, a, sizeof(a)), u,
			      study_thousands(tab_num(&t, n - 1, "min_ticks"), b, sizeof(b)),
			      settled == 0 ? "from the first 1,000 measurements on: it needed no more"
			      : settled >= n - 1 ? "and was still falling at the last count: more "
						   "measurements might find a lower one"
						 : "and stopped falling before the last count",
			      res, tab_num(&t, n - 1, mx), u, lo, hi,
			      study_thousands(tab_num(&t, n - 1, "count"), c, sizeof(c)),
			      lo > mnv ? "Its whole interval lies above the minimum: it is a typical "
					 "run, not the luckiest."
			      : hi < mnv ? "<b>Its whole interval lies below the minimum, which no "
					   "mean of readings at or above the minimum can do: the file "
					   "contradicts itself.</b>"
					 : "Its interval reaches down to the minimum: the bulk of the "
					   "readings sits on it.", est);
		}
		if (settled > 0 && settled < n)
			fprintf(h, "<p>The minimum reached its final value after %s measurements.</p>\n",
				study_thousands(tab_num(&t, settled, "count"), a, sizeof(a)));
	}
	tab_free(&t);
	return 1;
}

/* ----- table: the coursework's 24 forms ------------------------------------ */

/* The retirement model's cycles per iteration of a body (the micro-architecture data). */
static int model_cycles(const struct t32_uarch *u, const struct t32_lattab *tab, const char *body,
			double *cycles)
{
	struct t32_spec s = { 0 };
	unsigned char *code = NULL;
	struct t32_insn *insns = NULL;
	struct t32_model_insn *b = NULL;
	struct t32_model_result r = { 0 };
	size_t len = 0, n = 0;
	char err[512];
	int rc = -1;

	if (!t32_spec_add_item(&s, 1, body) && !t32_assemble_body(&s, &code, &len, err, sizeof(err)) &&
	    !t32_deps_decode(code, len, &insns, &n, err, sizeof(err)) && n &&
	    (b = calloc(n, sizeof(*b)))) {
		t32_model_prepare(u, tab, insns, n, b);
		if (!t32_model_steady(u, b, n, 1, &r)) {
			*cycles = r.cycles_per_iter;
			rc = 0;
		}
	}
	t32_model_result_free(&r);
	free(b);
	free(insns);
	free(code);
	t32_spec_free(&s);
	return rc;
}

/* One value of the heat map: form, column label, cost per instruction. */
static void heat(FILE *o, const char *form, const char *col, double v)
{
	if (isfinite(v))
		fprintf(o, "%s\t%s\t%.4f\n", form, col, v);
}

/* The table's throughput rows try k = 1 .. TABLE_MAX_K independent copies. */
#define TABLE_MAX_K 6

/*
 * One form of the table: its cells of the heat map (o) and its summary row
 * (sum) from the latency rows tl and the throughput rows tt, with the model's
 * predictions beside them when there is a model (u, lt; else u is NULL).
 */
static void table_form(const struct study *st, FILE *o, FILE *sum, const struct t32_form *form,
		       const struct tab *tl, const struct tab *tt, const struct t32_uarch *u,
		       const struct t32_lattab *lt)
{
	double l[8], tput = NAN, lm = NAN, tm = NAN, k = NAN;
	size_t nl = 0;

	for (size_t r = 0; r < tl->nrows; r++) {
		/* nochain: the coursework times nop and mov eax, 0 repeated too */
		if (strcmp(tab_get(tl, r, "form"), form->name) ||
		    (strcmp(tab_get(tl, r, "status"), "ok") &&
		     strcmp(tab_get(tl, r, "status"), "untrusted") &&
		     strcmp(tab_get(tl, r, "status"), "nochain")))
			continue;
		heat(o, form->name, tab_get(tl, r, "n"), tab_num(tl, r, "per_insn"));
		if (tab_num(tl, r, "n") >= 1000 && nl < 8)
			l[nl++] = tab_num(tl, r, "per_insn");
	}
	for (size_t r = 0; r < tt->nrows; r++)
		if (!strcmp(tab_get(tt, r, "form"), form->name) &&
		    (!strcmp(tab_get(tt, r, "status"), "ok") ||
		     !strcmp(tab_get(tt, r, "status"), "untrusted"))) {
			tput = tab_num(tt, r, "per_insn");
			k = tab_num(tt, r, "k");
		}
	if (u && st->ratio > 0) {
		char unitbody[4096] = "", copy[512];
		unsigned kk = form->tp_period ? (form->tp_period < TABLE_MAX_K ? form->tp_period
									: TABLE_MAX_K) : 0;

		if (model_cycles(u, lt, form->insn, &lm))
			lm = NAN;
		for (unsigned c = 0; c < kk; c++)
			if (!t32_form_tp_expand(form, c, copy, sizeof(copy)))
				snprintf(unitbody + strlen(unitbody), sizeof(unitbody) - strlen(unitbody),
					 "%s%s", c ? "; " : "", copy);
		if (!kk || model_cycles(u, lt, unitbody, &tm))
			tm = NAN;
		else
			tm /= kk;
	}
	heat(o, form->name, "model", lm);
	heat(o, form->name, "tp", tput);
	heat(o, form->name, "tp model", tm);
	heat(o, form->name, "manual", form->rtp);
	/* the median of the chains from n = 1000 on: the pipeline's fill no longer counts */
	for (size_t i = 1; i < nl; i++)
		for (size_t j = i; j > 0 && l[j] < l[j - 1]; j--) {
			double x = l[j];

			l[j] = l[j - 1];
			l[j - 1] = x;
		}
	fprintf(sum, "%s\t", form->name);
	fprintf(sum, nl ? "%.4f\t" : "\t", nl ? l[nl / 2] : 0.0);
	fprintf(sum, isfinite(lm) ? "%.4f\t" : "\t", lm);
	fprintf(sum, isfinite(tput) ? "%.4f\t" : "\t", tput);
	fprintf(sum, isfinite(k) ? "%.0f\t" : "\t", k);
	fprintf(sum, isfinite(tm) ? "%.4f\t" : "\t", tm);
	fprintf(sum, isfinite(form->rtp) ? "%g\n" : "\n", form->rtp);
}

static int run_table(struct study *st)
{
	char tbl[PATH_MAX], lat[PATH_MAX], tp[PATH_MAX], path[PATH_MAX], err[512], text[512];
	const char *unit = st->ratio > 0 ? "cycles" : "ticks";
	struct t32_table table = { 0 };
	struct t32_uarch u;
	struct t32_uarch_choice choice;
	struct t32_lattab lt = { NULL, 0 };
	struct tab tl, tt;
	FILE *o, *sum;
	int rc, have_model;

	snprintf(tbl, sizeof(tbl), "%s/coursework.tbl", t32_datadir());
	study_path(st, "table.tsv", lat, sizeof(lat));
	study_path(st, "table-throughput.tsv", tp, sizeof(tp));
	{
		struct t32_sweep_req q;

		t32_sweep_req_init(&q);
		q.table = tbl;
		q.modes = T32_SWEEP_BIT(T32_SWEEP_LATENCY);
		q.mo.unit = st->ratio > 0 ? T32_UNIT_CYCLES : T32_UNIT_TICKS;
		q.mo.budget = st->p->table_budget;
		q.mo.block_precision = st->p->table_block_precision;
		progress(st, "table: the 24 forms in latency mode (dependent chains)", 0);
		if ((rc = study_sweep(st, &q, "100,1000,10000,100000", lat, 0, NULL)))
			return rc;
		/* k independent copies: Zen and the Cores retire up to 4 to 6 ALU operations a cycle */
		q.modes = T32_SWEEP_BIT(T32_SWEEP_THROUGHPUT);
		q.max_k = TABLE_MAX_K;
		progress(st, "table: the 24 forms in throughput mode (independent copies)", 0.6);
		if ((rc = study_sweep(st, &q, "1200", tp, 0, NULL)))
			return rc;
	}
	if (t32_table_load(tbl, &table, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_ERROR;
	}
	t32_block_uarch(NULL, &choice);
	snprintf(path, sizeof(path), "%s/uarch/latency.lat", t32_datadir());
	have_model = !t32_uarch_load(&u, choice.data, t32_datadir(), err, sizeof(err)) &&
		     !t32_lattab_load(&lt, path, err, sizeof(err));
	t32_uarch_choice_text(&choice, choice.data, text, sizeof(text));
	if (tab_load(&tl, lat, 0) || tab_load(&tt, tp, 0)) {
		t32_lattab_free(&lt);
		t32_table_free(&table);
		return T32_EXIT_ERROR;
	}
	o = t32_fopen_out(study_path(st, "table-heatmap.tsv", path, sizeof(path)));
	sum = o ? t32_fopen_out(study_path(st, "table-summary.tsv", path, sizeof(path))) : NULL;
	if (!o || !sum) {
		if (o)
			t32_fabort_out(o);
		tab_free(&tl);
		tab_free(&tt);
		t32_lattab_free(&lt);
		t32_table_free(&table);
		return T32_EXIT_ERROR;
	}
	study_provenance(st, o, "table", "cost per instruction of each form: measured chains at "
			 "each n (table.tsv), the model's, measured throughput at n = 1200 "
			 "(table-throughput.tsv), the model's, and the manual's value the coursework quoted");
	fprintf(o, "# model: %s\n# unit: %s per instruction\nform\tn\tper_insn\n",
		have_model ? text : "unavailable", unit);
	study_provenance(st, sum, "table", "per form: latency (median over n >= 1000 of the chain), "
			 "throughput (best k of independent copies at n = 1200), what the model "
			 "predicts for each, and the manual's reciprocal throughput the coursework quoted");
	fprintf(sum, "# model: %s\n# unit: %s per instruction\n", have_model ? text : "unavailable",
		unit);
	/* what the throughput paragraph judges the measured rate against */
	fprintf(sum, "# max_k: %d (the most independent copies tried)\n", TABLE_MAX_K);
	if (have_model && u.ports[T32_CLASS_ALU])
		fprintf(sum, "# alus: %u (ports.alu of the model's %s data)\n", u.ports[T32_CLASS_ALU],
			u.name);
	fprintf(sum, "form\tlatency\tlatency_model\tthroughput\tthroughput_k\tthroughput_model\t"
		     "manual_rtp\n");
	for (size_t f = 0; f < table.n; f++)
		table_form(st, o, sum, &table.forms[f], &tl, &tt, have_model ? &u : NULL, &lt);
	tab_free(&tl);
	tab_free(&tt);
	t32_lattab_free(&lt);
	t32_table_free(&table);
	if (t32_fclose_out(o) | t32_fclose_out(sum))
		return T32_EXIT_ERROR;
	study_plot(st, "heatmap", "table-heatmap.tsv", "table-heatmap", NULL,
		   st->ratio > 0 ? "core cycles" : "TSC ticks", NULL);
	return 0;
}

/* Append name to a list of names in buf ("a, b and c" is made by list_end). */
static void list_add(char *buf, size_t len, size_t *n, const char *name)
{
	snprintf(buf + strlen(buf), len - strlen(buf), "%s<code>%s</code>", *n ? ", " : "", name);
	(*n)++;
}

/*
 * The throughput paragraph of the table: the forms whose best rate gathers
 * around the median, that rate against the model's ALU count, and whether the
 * number of copies tried, not the core, may have set it (the best k the
 * largest tried: the rate was still rising with k).
 */
static void table_throughput_shows(const struct tab *t, FILE *h, const char *u)
{
	double tps[64], med, kmax = strtod(tab_comment(t, "max_k"), NULL);
	double alus = strtod(tab_comment(t, "alus"), NULL), rate;
	size_t ntp = 0, near = 0, atmax = 0;
	char alu[512], lim[512];

	for (size_t r = 0; r < t->nrows && ntp < 64; r++)
		if (isfinite(tab_num(t, r, "throughput")))
			tps[ntp++] = tab_num(t, r, "throughput");
	if (!ntp)
		return;
	qsort(tps, ntp, sizeof(double), cmp_double);
	med = tps[ntp / 2];
	if (!(kmax > 0))	/* an older summary: the largest k seen */
		for (size_t r = 0; r < t->nrows; r++)
			kmax = fmax(kmax, tab_num(t, r, "throughput_k"));
	for (size_t r = 0; r < t->nrows; r++) {
		double tp = tab_num(t, r, "throughput");

		if (!isfinite(tp) || fabs(tp - med) > 0.1 * med)
			continue;
		near++;
		atmax += tab_num(t, r, "throughput_k") >= kmax;
	}
	rate = med > 0 ? 1 / med : 0;
	if (atmax * 2 > near)
		snprintf(lim, sizeof(lim), " %zu of these %zu were fastest with %.0f copies, the most "
			 "tried: their rate was still rising with the number of copies, so it is a "
			 "lower bound on what the core does, set by the copies as much as by the core "
			 "(<code>t32 sweep --max-k</code> or <code>--k-list</code> with more copies "
			 "measures past it).", atmax, near, kmax);
	else
		snprintf(lim, sizeof(lim), " %zu of these %zu were fastest with fewer copies than "
			 "the most tried (%.0f): their rate had stopped rising with the number of "
			 "copies.", near - atmax, near, kmax);
	if (!(alus > 0))
		snprintf(alu, sizeof(alu), " The model's data give no ALU count for this core to "
			 "set it against.");
	else if (fabs(rate - alus) <= 0.5)
		snprintf(alu, sizeof(alu), " That is as many instructions a cycle as the core has ALUs in the "
			 "model's data (%.0f).", alus);
	else if (rate < alus)
		snprintf(alu, sizeof(alu), " That is fewer instructions a cycle than the core has ALUs in the "
			 "model's data (%.0f): something other than the ALUs held these blocks back%s.",
			 alus, atmax * 2 > near ? " (above: the number of copies)" : "");
	else
		snprintf(alu, sizeof(alu), " That is more instructions a cycle than the core has ALUs in the "
			 "model's data (%.0f): either these forms need no ALU (eliminated at rename) "
			 "or the model's ALU count is wrong for this core.", alus);
	fprintf(h, "<p>With independent copies (throughput), %zu of %zu forms cost about %.2f %s "
		   "each: %.1f a cycle.%s%s The manual values the coursework quoted (0.33 for add, "
		   "sub, inc, dec and xor) are Sandy Bridge's, which has three ALUs. A "
		   "<code>nop</code> needs no execution unit at all; its figures, a fraction of a "
		   "cycle against a barrier that costs tens, are the least certain of the table."
		   "</p>\n", near, ntp, med, u, rate, alu, lim);
}

/*
 * Forms whose chain costs differently at different n beyond the intervals
 * (table.tsv, n >= 1000, where the pipeline's fill no longer counts): the
 * summary's one value (their median) does not describe them.
 */
static void table_n_shows(const struct study *st, FILE *h, const char *u)
{
	char path[PATH_MAX], list[4096] = "";
	struct tab t;
	size_t nlist = 0;

	if (tab_load(&t, study_path(st, "table.tsv", path, sizeof(path)), 1))
		return;
	for (size_t r = 0; r < t.nrows; r++) {
		const char *f = tab_get(&t, r, "form");
		size_t lo = SIZE_MAX, hi = SIZE_MAX;
		int seen = 0;

		for (size_t q = 0; q < r; q++)
			seen |= !strcmp(tab_get(&t, q, "form"), f);
		if (seen)
			continue;
		for (size_t q = r; q < t.nrows; q++) {
			const char *stat = tab_get(&t, q, "status");
			double v = tab_num(&t, q, "per_insn");

			if (strcmp(tab_get(&t, q, "form"), f) || tab_num(&t, q, "n") < 1000 ||
			    (strcmp(stat, "ok") && strcmp(stat, "untrusted")) || !isfinite(v))
				continue;
			if (lo == SIZE_MAX || v < tab_num(&t, lo, "per_insn"))
				lo = q;
			if (hi == SIZE_MAX || v > tab_num(&t, hi, "per_insn"))
				hi = q;
		}
		if (lo == SIZE_MAX || lo == hi || tab_num(&t, hi, "ci_lo") <= tab_num(&t, lo, "ci_hi") ||
		    tab_num(&t, hi, "per_insn") < 1.2 * tab_num(&t, lo, "per_insn"))
			continue;
		{
			char one[512], a[32], b[32];

			snprintf(one, sizeof(one), "%s<code>%s</code> (%.3f [%.3f, %.3f] at n = %s, "
				 "%.3f [%.3f, %.3f] at n = %s)", nlist ? "; " : "", f,
				 tab_num(&t, lo, "per_insn"), tab_num(&t, lo, "ci_lo"),
				 tab_num(&t, lo, "ci_hi"), study_thousands(tab_num(&t, lo, "n"), a, sizeof(a)),
				 tab_num(&t, hi, "per_insn"), tab_num(&t, hi, "ci_lo"),
				 tab_num(&t, hi, "ci_hi"), study_thousands(tab_num(&t, hi, "n"), b, sizeof(b)));
			if (strlen(list) + strlen(one) < sizeof(list))
				strcat(list, one);
			nlist++;
		}
	}
	if (nlist)
		fprintf(h, "<p>%zu form%s cost%s differently at different <i>n</i>, with intervals "
			   "that do not overlap, by more than a fifth: %s, %s per instruction. The "
			   "summary's one value (the median over <i>n</i> &ge; 1,000) does not describe "
			   "%s: a block of that many copies runs at another rate, and these data do "
			   "not say why.</p>\n", nlist, nlist == 1 ? "" : "s", nlist == 1 ? "s" : "",
			list, u, nlist == 1 ? "it" : "them");
	tab_free(&t);
}

static int section_table(struct study *st, FILE *h)
{
	char path[PATH_MAX], one[4096] = "", cheap[4096] = "", other[4096] = "";
	char agree[64] = "", model[512];
	struct tab t;
	size_t none = 0, ncheap = 0, nother = 0, nmodel = 0, nagree = 0, ntp = 0, nmov = 0;
	const char *u;

	if (tab_load(&t, study_path(st, "table-summary.tsv", path, sizeof(path)), 1))
		return 0;
	u = strstr(tab_comment(&t, "unit"), "ticks") ? "ticks" : "cycles";
	snprintf(model, sizeof(model), "%s", tab_comment(&t, "model"));
	fprintf(h, "<h2 id=\"table\">3. The 24-form table</h2>\n");
	html_dated(h, &t);
	fprintf(h, "<p>Each form of the coursework's table repeated <i>n</i> = 100 &hellip; "
		   "100,000 times as written, (t &minus; bar) / <i>n</i> in %s per instruction "
		   "(the coursework's measurement: a form repeated as written is a dependent chain, "
		   "so it shows the <b>latency</b>). Beside it, in the named columns: what the "
		   "retirement model predicts for the chain (<i>model</i>, from the "
		   "micro-architecture data: %s); the <b>throughput</b>, measured on <i>k</i> "
		   "independent copies over rotating registers at <i>n</i> = 1200, the best "
		   "<i>k</i> up to 6 kept (<i>tp</i>) and the model's (<i>tp model</i>); and "
		   "the reciprocal throughput the coursework quoted from Intel's manual for Sandy "
		   "Bridge (<i>manual</i>, six forms).</p>\n", u, model[0] ? model : "none");
	html_figure(st, h, "table-heatmap", "table-heatmap.tsv",
		    "Cost per instruction of each form: latency at each n, the model, throughput");
	fprintf(h, "<p>Data: <a href=\"table.tsv\">table.tsv</a> (the chains: intervals, the "
		   "coursework's minimum-based values, runs, flags), <a href=\"table-throughput.tsv\">"
		   "table-throughput.tsv</a>, <a href=\"table-summary.tsv\">table-summary.tsv</a> "
		   "(one row a form).</p>\n");
	for (size_t r = 0; r < t.nrows; r++) {
		const char *f = tab_get(&t, r, "form");
		double l = tab_num(&t, r, "latency"), lm = tab_num(&t, r, "latency_model");
		double tp = tab_num(&t, r, "throughput");

		if (isnan(l))
			continue;
		if (fabs(l - 1) <= 0.1) {
			list_add(one, sizeof(one), &none, f);
			nmov += !strncmp(f, "mov-", 4);
		} else if (l < 0.6) {
			list_add(cheap, sizeof(cheap), &ncheap, f);
		} else {
			size_t used = strlen(other);

			/* neither one a copy nor a throughput: its value and the model's, said */
			snprintf(other + used, sizeof(other) - used,
				 isfinite(lm) ? "%s<code>%s</code> %.2f (the model %.2f)"
					      : "%s<code>%s</code> %.2f",
				 nother ? ", " : "", f, l, lm);
			nother++;
		}
		if (isfinite(lm)) {
			nmodel++;
			nagree += fabs(l - lm) <= 0.15 * (lm > 1 ? lm : 1);
		}
		ntp += isfinite(tp);
	}
	if (nmodel)
		snprintf(agree, sizeof(agree), "%zu of %zu", nagree, nmodel);
	shows(h, "%zu form%s cost one %s per instruction in a chain (%s): each copy waits for the "
		 "one before, and an add, sub, inc, dec or xor takes one cycle%s. "
		 "%zu cost well under one (%s): their copies depend on nothing (a move of a constant "
		 "into a whole register, a nop, a zero idiom such as <code>xor eax, eax</code> that "
		 "the core recognises at rename), so they overlap and retire several a cycle: what "
		 "the coursework's table shows for them is a throughput, not a latency. "
		 "%s%s%s"
		 "%s%s%s",
	      none, none == 1 ? "" : "s", u[0] == 'c' ? "cycle" : "tick", none ? one : "none",
	      nmov ? "; a move of a constant into a 16-bit register (<code>mov ax, 0</code>) does "
		     "too, since it merges into the register's old value and so depends on it" : "",
	      ncheap, ncheap ? cheap : "none",
	      nother ? "Neither one a copy nor well under it, in " : "", nother ? other : "",
	      nother ? (u[0] == 'c' ? " cycles a copy. " : " ticks a copy. ") : "",
	      nmodel ? "The model, from the micro-architecture data alone, is within 15% of the "
		       "measured chain for " : "",
	      nmodel ? agree : "", nmodel ? " forms." : "");
	if (ntp)
		table_throughput_shows(&t, h, u);
	table_n_shows(st, h, u);
	tab_free(&t);
	return 1;
}

/* ----- steps: step curves for n = 1..100 ----------------------------------- */

static const struct {
	const char *insn, *base;
} curves[] = {
	{ "inc eax", "steps-inc" },
	{ "add eax, 1", "steps-add" },
};

static int run_steps(struct study *st)
{
	int rc = 0;

	for (size_t c = 0; c < sizeof(curves) / sizeof(curves[0]) && !st->interrupted; c++) {
		char sw[PATH_MAX], out[PATH_MAX], steps[PATH_MAX], name[128], what[256];
		double x[128], y[128], lo[128], hi[128], mn[128];
		size_t n = 0;
		struct t32_linfit lf;
		struct t32_steps s = { 0 };
		struct t32_steps_opts so = { 0 };
		struct tab t;
		FILE *o, *so_f;
		size_t rising = 0;
		double habs = 0;

		snprintf(name, sizeof(name), "%s.sweep.tsv", curves[c].base);
		study_path(st, name, sw, sizeof(sw));
		{
			struct t32_sweep_req q;
			char *body = (char *)curves[c].insn;

			t32_sweep_req_init(&q);
			q.mo.budget = st->p->steps_budget;
			q.mo.block_precision = st->p->steps_block_precision;
			snprintf(what, sizeof(what), "steps: n x '%s', n = 1..100", curves[c].insn);
			progress(st, what, 0.5 * c);
			if ((rc = study_sweep(st, &q, "1..100", sw, 1, &body)))
				return rc;
		}
		if (tab_load(&t, sw, 0))
			return T32_EXIT_ERROR;
		for (size_t r = 0; r < t.nrows && n < 128; r++) {
			double pi = tab_num(&t, r, "per_insn");

			x[n] = tab_num(&t, r, "n");
			y[n] = tab_num(&t, r, "total");
			lo[n] = tab_num(&t, r, "ci_lo") * x[n];
			hi[n] = tab_num(&t, r, "ci_hi") * x[n];
			mn[n] = tab_num(&t, r, "min_per_insn") * x[n];
			(void)pi;
			if (isfinite(x[n]) && isfinite(y[n]))
				n++;
		}
		tab_free(&t);
		if (n < 3 || t32_linfit(x, y, n, NULL, &lf) || t32_steps_find(x, mn, n, &so, &s))
			return T32_EXIT_ERROR;
		snprintf(name, sizeof(name), "%s.tsv", curves[c].base);
		o = t32_fopen_out(study_path(st, name, out, sizeof(out)));
		snprintf(name, sizeof(name), "%s.steps.tsv", curves[c].base);
		so_f = o ? t32_fopen_out(study_path(st, name, steps, sizeof(steps))) : NULL;
		if (!o || !so_f) {
			if (o)
				t32_fabort_out(o);
			t32_steps_free(&s);
			return T32_EXIT_ERROR;
		}
		for (size_t k = 0; k < s.nsteps; k++) {
			rising += s.steps[k].height > 0;
			habs += fabs(s.steps[k].height);
		}
		snprintf(what, sizeof(what), "%s m n x '%s', n = 1..100 (from %s.sweep.tsv)",
			 st->barrier, curves[c].insn, curves[c].base);
		study_provenance(st, o, "steps", what);
		fprintf(o, "# fit: cycles = %.3f + %.4f n (robust; se %.3f, %.4f)\n"
			   "# jumps in the coursework's minimum curve: %zu (%zu rising, %zu falling), "
			   "period %.2f%s, mean absolute height %.2f\n"
			   "# unit: core cycles per block\n"
			   "n\tcycles\tcycles_lo\tcycles_hi\tmin_cycles\tfit\tstep\n",
			lf.a, lf.b, lf.se_a, lf.se_b, s.nsteps, rising, s.nsteps - rising, s.period,
			s.periodic ? " (periodic)" : "", s.nsteps ? habs / s.nsteps : 0.0);
		study_provenance(st, so_f, "steps", what);
		fprintf(so_f, "n\tn_before\theight\n");
		for (size_t i = 0; i < n; i++) {
			int step = 0;

			for (size_t k = 0; k < s.nsteps; k++)
				step |= fabs(s.steps[k].x - x[i]) < 0.5;
			fprintf(o, "%g\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\n", x[i], y[i], lo[i], hi[i],
				mn[i], lf.a + lf.b * x[i], step);
		}
		for (size_t k = 0; k < s.nsteps; k++)
			fprintf(so_f, "%g\t%g\t%.3f\n", s.steps[k].x, s.steps[k].x_before,
				s.steps[k].height);
		t32_steps_free(&s);
		if (t32_fclose_out(o) | t32_fclose_out(so_f))
			return T32_EXIT_ERROR;
		snprintf(name, sizeof(name), "%s.tsv", curves[c].base);
		{
			char title[256];

			snprintf(title, sizeof(title), "%s - %s", curves[c].insn, st->machine);
			study_plot(st, "step-curve", name, curves[c].base, title, steps, NULL);
		}
	}
	return rc;
}

/*
 * The spikes of a minimum-based curve (x[], mn[], n points; sc cycles a TSC
 * step) written into spikes as "n = " values: runs of up to five points above
 * the points on either side by more than the threshold.  Returns how many.
 */
static size_t steps_spikes(const struct study *st, const double *x, const double *mn, size_t n,
			   double sc, char *spikes, size_t size)
{
	size_t nspikes = 0;
	double spike_t;

	/*
	 * The threshold of a spike: half a TSC step, and at least five typical
	 * differences of neighbouring points (a noisy curve's wobble is no spike).
	 */
	{
		double *d = malloc((n ? n : 1) * sizeof(double));

		for (size_t i = 1; d && i < n; i++)
			d[i - 1] = fabs(mn[i] - mn[i - 1]);
		spike_t = d && n > 2 ? 5 * median_of(d, n - 1) : INFINITY;
		if (sc > 0 && st->env.q > 1)
			spike_t = fmax(spike_t, sc / 2);
		free(d);
	}
	for (size_t i = 1; i + 1 < n; i++)
		for (size_t len = 1; len <= 5 && i + len < n; len++) {
			double before = mn[i - 1], after = mn[i + len], floor = fmax(before, after);
			int above = 1;

			for (size_t k = i; k < i + len; k++)
				above &= mn[k] > floor + spike_t;
			if (!above || fabs(after - before) > spike_t)
				continue;
			snprintf(spikes + strlen(spikes), size - strlen(spikes), "%s%.0f",
				 nspikes ? ", " : "", x[i]);
			if (len > 1)
				snprintf(spikes + strlen(spikes), size - strlen(spikes),
					 "&ndash;%.0f", x[i + len - 1]);
			nspikes++;
			i += len - 1;
			break;
		}
	return nspikes;
}

/* The sentence on a slope b (sd se) whose interval leaves out one cycle, into slope, or nothing. */
static void steps_slope_note(double b, double se, char *slope, size_t size)
{
	/*
	 * a chain of one-cycle instructions costs one cycle a copy: an interval
	 * without 1 says so
	 */
	if (isfinite(b) && isfinite(se) && b + 1.96 * se < 1)
		snprintf(slope, size, " <b>Its interval lies below one cycle, which a chain of "
			 "dependent one-cycle instructions cannot run</b>: the conversion of "
			 "ticks to cycles (one ratio, measured as the study began) is at least "
			 "%.1f%% off for these blocks, not the chain.",
			 100 * (1 - (b + 1.96 * se)));
	else if (isfinite(b) && isfinite(se) && b - 1.96 * se > 1)
		snprintf(slope, size, " Its interval lies above the one cycle a dependent "
			 "one-cycle instruction takes, by at least %.1f%%: the core ran slower "
			 "than the ratio measured as the study began, or something else held the "
			 "chain.", 100 * ((b - 1.96 * se) - 1));
}

/*
 * What a step curve shows, from its files: the line's slope, and the jumps
 * found in the minimum-based curve as they are, each with its absolute height,
 * rises and falls apart, and the spikes (runs of up to five points above the
 * points on either side by more than half a TSC step) named.  It is called a
 * staircase only when every jump rises by about one TSC step (within a
 * quarter) at regular distances; otherwise it is "not a staircase", with why.
 */
static void steps_shows(const struct study *st, FILE *h, const char *insn, const char *base,
			const double *x, const double *mn, size_t n, const double *sx,
			const double *sh, size_t ns, double b, double se, double worst,
			double worst_n)
{
	double sc = st->ratio > 0 ? (double)st->env.q * st->ratio : 0, lo = INFINITY, hi = 0;
	double gap_lo = INFINITY, gap_hi = 0, gap_sum = 0, last_rise = NAN;
	size_t rises = 0, falls = 0, gaps = 0, nspikes = 0;
	char jumps[2048] = "", fallat[512] = "", spikes[1024] = "", tail[512] = "", why[1024] = "";
	char slope[512] = "";
	int stair;

	nspikes = steps_spikes(st, x, mn, n, sc, spikes, sizeof(spikes));
	for (size_t k = 0; k < ns; k++) {
		snprintf(jumps + strlen(jumps), sizeof(jumps) - strlen(jumps), "%s%.0f (%s%.1f)",
			 k ? ", " : "", sx[k], sh[k] < 0 ? "&minus;" : "+", fabs(sh[k]));
		if (sh[k] < 0) {
			snprintf(fallat + strlen(fallat), sizeof(fallat) - strlen(fallat), "%s%.0f",
				 falls ? ", " : "", sx[k]);
			falls++;
			continue;
		}
		rises++;
		lo = fmin(lo, sh[k]);
		hi = fmax(hi, sh[k]);
		if (isfinite(last_rise)) {
			gap_lo = fmin(gap_lo, sx[k] - last_rise);
			gap_hi = fmax(gap_hi, sx[k] - last_rise);
			gap_sum += sx[k] - last_rise;
			gaps++;
		}
		last_rise = sx[k];
	}
	steps_slope_note(b, se, slope, sizeof(slope));
	if (worst > 3)
		snprintf(tail, sizeof(tail), " The estimate's largest departure from the line, %.1f "
			 "cycles at n = %.0f, is one block a neighbour disturbed (see its interval and "
			 "flags in %s.sweep.tsv).", worst, worst_n, base);
	if (!ns) {
		shows(h, "The line's slope is %.3f &plusmn; %.3f cycles per <code>%s</code>: the cost "
			 "of one more instruction in a chain.%s No jump of the minimum-based curve stands "
			 "out of its noise%s.%s%s%s%s",
		      b, 1.96 * se, insn, slope,
		      st->env.q > 1 ? ", though the TSC counts in steps" : ": the TSC counts single ticks",
		      nspikes ? " Spikes (points above both neighbours by more than " : "",
		      nspikes ? "half a TSC step and five typical differences) at n = " : "",
		      nspikes ? spikes : "", nspikes ? "." : "");
		if (tail[0])
			fprintf(h, "<p>%s</p>\n", tail + 1);
		return;
	}
	/* a staircase: rises only, each one TSC step within a quarter, at regular distances */
	stair = !falls && rises >= 2 && sc > 0 && lo >= 0.75 * sc && hi <= 1.25 * sc &&
		gaps && gap_hi - gap_lo <= 0.5 * gap_sum / gaps;
	if (!stair) {
		if (falls)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%zu of the %zu jumps "
				 "fall (n = %s)", why[0] ? "; " : "", falls, ns, fallat);
		if (rises && sc > 0 && (lo < 0.75 * sc || hi > 1.25 * sc))
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sthe rises are %.1f "
				 "to %.1f cycles, not one TSC step (%.1f)", why[0] ? "; " : "", lo, hi, sc);
		if (gaps && gap_hi - gap_lo > 0.5 * gap_sum / gaps)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sthe rises are %.0f "
				 "to %.0f instructions apart, not evenly", why[0] ? "; " : "", gap_lo,
				 gap_hi);
		if (rises < 2)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s", why[0] ? "; " : "",
				 rises ? "it rises once" : "it never rises");
		if (sc <= 0)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sno TSC step in cycles "
				 "is known to set the jumps against", why[0] ? "; " : "");
	}
	shows(h, "The line's slope is %.3f &plusmn; %.3f cycles per <code>%s</code>: the cost of "
		 "one more instruction in a chain.%s The minimum-based curve jumps at n = %s cycles "
		 "(%zu rise%s, %zu fall%s); one TSC step is %llu ticks = %.1f cycles. %s%s%s",
	      b, 1.96 * se, insn, slope, jumps, rises, rises == 1 ? "" : "s", falls, falls == 1 ? "" : "s",
	      (unsigned long long)st->env.q, sc,
	      stair ? "" : "<b>Not a staircase</b>: ", stair ? "" : why, stair ? "" : ".");
	if (stair)
		fprintf(h, "<p>A staircase: every jump rises by %.1f to %.1f cycles, one TSC step, "
			   "%.0f instructions apart on average (%.0f to %.0f); a line of slope %.3f "
			   "crosses one step every %.1f instructions. Its treads are the clock's "
			   "resolution, not the processor's.</p>\n", lo, hi, gap_sum / gaps, gap_lo,
			gap_hi, b, b > 0 ? sc / b : 0.0);
	if (nspikes)
		fprintf(h, "<p>Spikes, points above both neighbours by more than half a TSC step "
			   "and five typical differences: n = %s. A minimum so far above its "
			   "neighbours is a block whose every run was disturbed, not a step.</p>\n",
			spikes);
	if (tail[0])
		fprintf(h, "<p>%s</p>\n", tail + 1);
}

static int section_steps(struct study *st, FILE *h)
{
	int any = 0;

	for (size_t c = 0; c < sizeof(curves) / sizeof(curves[0]); c++) {
		char path[PATH_MAX], name[128], caption[256];
		struct tab t, s;
		double a, b, se, worst = 0, worst_n = 0, *x, *mn, sx[256], sh[256];
		size_t n, ns = 0;

		snprintf(name, sizeof(name), "%s.tsv", curves[c].base);
		if (tab_load(&t, study_path(st, name, path, sizeof(path)), 1))
			continue;
		if (!any++) {
			fprintf(h, "<h2 id=\"steps\">4. Step curves</h2>\n");
			html_dated(h, &t);
			fprintf(h, "<p>Blocks of <i>n</i> = 1 &hellip; 100 copies of an instruction, "
				   "each block's cost over the barrier in core cycles: t32's estimate with "
				   "its 95%% interval, the robust line through it, and the coursework's "
				   "minimum-based curve ((min &minus; min), the block's minimum less the "
				   "empty block's) with the jumps found in it marked where they are.</p>\n");
		}
		snprintf(name, sizeof(name), "%s.steps.tsv", curves[c].base);
		if (!tab_load(&s, study_path(st, name, path, sizeof(path)), 1)) {
			for (size_t i = 0; i < s.nrows && ns < 256; i++) {
				sx[ns] = tab_num(&s, i, "n");
				sh[ns++] = tab_num(&s, i, "height");
			}
			tab_free(&s);
		}
		n = t.nrows;
		if (sscanf(tab_comment(&t, "fit"), "cycles = %lf + %lf n (robust; se %*f, %lf)", &a, &b,
			   &se) != 3)
			a = b = se = NAN;
		x = malloc((n ? n : 1) * sizeof(double));
		mn = malloc((n ? n : 1) * sizeof(double));
		for (size_t i = 0; i < n; i++) {
			double d = fabs(tab_num(&t, i, "cycles") - tab_num(&t, i, "fit"));

			if (d > worst) {
				worst = d;
				worst_n = tab_num(&t, i, "n");
			}
			if (x && mn) {
				x[i] = tab_num(&t, i, "n");
				mn[i] = tab_num(&t, i, "min_cycles");
			}
		}
		snprintf(caption, sizeof(caption), "n copies of %s: the estimate, the line, the "
			 "minimum-based curve and its jumps", curves[c].insn);
		fprintf(h, "<h3><code>%s</code></h3>\n", curves[c].insn);
		snprintf(name, sizeof(name), "%s.tsv", curves[c].base);
		html_figure(st, h, curves[c].base, name, caption);
		if (x && mn) {
			/* the clock this file was converted with, which a later run may not share */
			struct study as_measured = *st;

			file_clock(st, &t, &as_measured.ratio, &as_measured.env.q);
			steps_shows(&as_measured, h, curves[c].insn, curves[c].base, x, mn, n, sx, sh,
				    ns, b, se, worst, worst_n);
		}
		free(x);
		free(mn);
		tab_free(&t);
	}
	return any;
}

/* ----- combos: C1 n C2 ----------------------------------------------------- */

static int run_combos(struct study *st)
{
	char sw[PATH_MAX], alone[PATH_MAX], path[PATH_MAX];
	struct tab a, b;
	FILE *o;
	int rc;

	study_path(st, "combos.sweep.tsv", sw, sizeof(sw));
	study_path(st, "combos-alone.sweep.tsv", alone, sizeof(alone));
	{
		struct t32_sweep_req q;
		char *both[] = { "inc ebx", "inc eax" };

		t32_sweep_req_init(&q);
		q.mo.budget = st->p->combo_budget;
		q.mo.block_precision = 0.3;
		if ((rc = study_sweep(st, &q, "0,1,2,3,10,100", sw, 2, both)))
			return rc;
		if ((rc = study_sweep(st, &q, "1,2,3,10,100", alone, 1, both + 1)))
			return rc;
	}
	if (tab_load(&a, sw, 0))
		return T32_EXIT_ERROR;
	if (tab_load(&b, alone, 0)) {
		tab_free(&a);
		return T32_EXIT_ERROR;
	}
	if (!(o = t32_fopen_out(study_path(st, "combos.tsv", path, sizeof(path))))) {
		tab_free(&a);
		tab_free(&b);
		return T32_EXIT_ERROR;
	}
	study_provenance(st, o, "combos", "C1 n C2 with C1 = inc ebx, C2 = inc eax, against n C2 "
			 "alone (combos.sweep.tsv, combos-alone.sweep.tsv); whole blocks over the "
			 "barrier, core cycles, 95% intervals");
	fprintf(o, "n\tc1_n_c2\tc1_n_c2_lo\tc1_n_c2_hi\tn_c2\tn_c2_lo\tn_c2_hi\tc1_adds\n");
	for (size_t r = 0; r < a.nrows; r++) {
		double n = tab_num(&a, r, "n"), tot = tab_num(&a, r, "total");
		double pi = tab_num(&a, r, "per_insn"), hw = (tab_num(&a, r, "ci_hi") - tab_num(&a, r, "ci_lo")) / 2;
		double insns = n + 1, t2 = NAN, hw2 = NAN;

		(void)pi;
		for (size_t q = 0; q < b.nrows; q++)
			if (tab_num(&b, q, "n") == n) {
				t2 = tab_num(&b, q, "total");
				hw2 = (tab_num(&b, q, "ci_hi") - tab_num(&b, q, "ci_lo")) / 2 * n;
			}
		if (n == 0) {
			t2 = 0;
			hw2 = 0;
		}
		fprintf(o, "%.0f\t%.3f\t%.3f\t%.3f\t", n, tot, tot - hw * insns, tot + hw * insns);
		if (isfinite(t2))
			fprintf(o, "%.3f\t%.3f\t%.3f\t%.3f\n", t2, t2 - hw2, t2 + hw2, tot - t2);
		else
			fprintf(o, "\t\t\t\n");
	}
	tab_free(&a);
	tab_free(&b);
	return t32_fclose_out(o) ? T32_EXIT_ERROR : 0;
}

/*
 * What the combinations show: at each n whether C1 changes the block, judged by
 * the difference's 95% interval (the two intervals' half-widths combined, as
 * t32 compare judges), the n where it does named with both intervals; and n C2
 * alone as a line a + b n through its rows, so the block's constant is said.
 */
static void combos_shows(const struct tab *t, FILE *h, double alone)
{
	char sig[2048] = "", same[256] = "", line[512] = "", al[512];
	size_t nsig = 0, nsame = 0, m = 0;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, alone_lo = NAN, alone_hi = NAN;

	for (size_t r = 0; r < t->nrows; r++) {
		double n = tab_num(t, r, "n"), c = tab_num(t, r, "c1_n_c2");
		double lo = tab_num(t, r, "c1_n_c2_lo"), hi = tab_num(t, r, "c1_n_c2_hi");
		double a = tab_num(t, r, "n_c2"), alo = tab_num(t, r, "n_c2_lo");
		double ahi = tab_num(t, r, "n_c2_hi"), d = c - a, hw;

		if (n == 0) {
			alone_lo = lo;
			alone_hi = hi;
		}
		if (!(n >= 1) || !isfinite(a) || !isfinite(c))
			continue;
		sx += n;
		sy += a;
		sxx += n * n;
		sxy += n * a;
		m++;
		hw = sqrt(pow((hi - lo) / 2, 2) + pow((ahi - alo) / 2, 2));
		if (fabs(d) > hw) {
			snprintf(sig + strlen(sig), sizeof(sig) - strlen(sig), "%sat n = %.0f C1 %s "
				 "%.2f &plusmn; %.2f cycles (C1 n C2 [%.2f, %.2f] against n C2 alone "
				 "[%.2f, %.2f])", nsig ? "; " : "", n, d > 0 ? "adds" : "takes away",
				 fabs(d), hw, lo, hi, alo, ahi);
			nsig++;
		} else {
			snprintf(same + strlen(same), sizeof(same) - strlen(same), "%s%.0f",
				 nsame ? ", " : "", n);
			nsame++;
		}
	}
	if (m >= 2 && m * sxx - sx * sx > 0) {
		double b = (m * sxy - sx * sy) / (m * sxx - sx * sx), a = (sy - b * sx) / m;

		snprintf(line, sizeof(line), " Alone, n C2 costs about %.2f %+.2f n cycles (a line "
			 "through its %zu rows): %.2f a copy, the chain's one cycle an increment%s, and "
			 "%s of %.1f cycles the block pays whatever n is.", a, b, m, b,
			 fabs(b - 1) <= 0.1 ? "" : " only roughly", a >= 0 ? "a constant" : "a constant "
			 "(negative: the empty block it is measured against costs more than the "
			 "block's own fill)", fabs(a));
	}
	if (alone_hi < 0)
		snprintf(al, sizeof(al), "<b>costs less than the barrier alone</b>, %.2f [%.2f, %.2f] "
			 "cycles, its whole interval below zero: no block takes less time than its "
			 "barriers, so the empty block, measured apart, is not the constant it is "
			 "taken for here, and every figure of this section carries that offset", alone,
			 alone_lo, alone_hi);
	else
		snprintf(al, sizeof(al), "costs %.2f [%.2f, %.2f] cycles over the barrier", alone,
			 alone_lo, alone_hi);
	shows(h, "Alone (n = 0), <code>inc ebx</code> %s. In front "
		 "of a chain of <code>inc eax</code>, judged at each n by the 95%% interval of the "
		 "difference (both intervals combined): %s%s%s%s%s.%s",
	      al, nsig ? sig : "", nsig && nsame ? "; " : "",
	      nsame ? (nsig ? "at n = " : "at every n (") : "", nsame ? same : "",
	      nsame ? (nsig ? " the difference is within its interval"
			    : ") the difference is within its interval: C1 adds nothing these "
			      "intervals can tell; it runs beside the chain, as it depends on "
			      "nothing in it") : "",
	      line);
}

static int section_combos(struct study *st, FILE *h)
{
	char path[PATH_MAX];
	struct tab t;
	double alone = NAN;

	if (tab_load(&t, study_path(st, "combos.tsv", path, sizeof(path)), 1))
		return 0;
	fprintf(h, "<h2 id=\"combos\">5. Combinations C1 n C2</h2>\n");
	html_dated(h, &t);
	fprintf(h, "<p>The coursework's &ldquo;C1 n C2&rdquo;: one <code>inc ebx</code> (C1) "
		   "followed by <i>n</i> <code>inc eax</code> (C2), against the <i>n</i> "
		   "<code>inc eax</code> alone; whole blocks over the barrier, in core cycles, "
		   "with 95%% intervals (<a href=\"combos.tsv\">combos.tsv</a>, from "
		   "<a href=\"combos.sweep.tsv\">combos.sweep.tsv</a> and "
		   "<a href=\"combos-alone.sweep.tsv\">combos-alone.sweep.tsv</a>).</p>\n");
	fprintf(h, "<div class=\"wide\"><table><thead><tr><th><i>n</i></th><th>C1 n C2, cycles</th>"
		   "<th>n C2 alone, cycles</th><th>what C1 adds, cycles</th></tr></thead>\n");
	for (size_t r = 0; r < t.nrows; r++) {
		double n = tab_num(&t, r, "n"), c = tab_num(&t, r, "c1_n_c2");
		double lo = tab_num(&t, r, "c1_n_c2_lo"), hi = tab_num(&t, r, "c1_n_c2_hi");
		double a = tab_num(&t, r, "n_c2"), alo = tab_num(&t, r, "n_c2_lo");
		double ahi = tab_num(&t, r, "n_c2_hi"), d = tab_num(&t, r, "c1_adds");

		fprintf(h, "<tr><td class=\"n\">%.0f</td><td class=\"n\">%.2f [%.2f, %.2f]</td>", n, c,
			lo, hi);
		if (isfinite(a))
			fprintf(h, "<td class=\"n\">%.2f [%.2f, %.2f]</td><td class=\"n\">%+.2f</td></tr>\n",
				a, alo, ahi, d);
		else
			fprintf(h, "<td>&ndash;</td><td>&ndash;</td></tr>\n");
		if (n == 0)
			alone = c;
	}
	fprintf(h, "</table></div>\n");
	combos_shows(&t, h, alone);
	tab_free(&t);
	return 1;
}

/* ----- interrupts: where interrupts land, measured and modelled ------------ */

/* A fitted parameter of a `# fit:` line as people read it: "retire_width 8 (5-16)". */
static void param_text(const char *line, char *buf, size_t len)
{
	char key[64] = "", val[32] = "", sd[32] = "";
	unsigned long lo = 0, hi = 0;
	const char *ci = strstr(line, " ci "), *s = strstr(line, " sd ");
	int have_ci = ci && sscanf(ci, " ci %lu..%lu", &lo, &hi) == 2;

	if (sscanf(line, "%63s = %31s", key, val) != 2) {
		snprintf(buf, len, "%s", line);
		return;
	}
	if (s)
		sscanf(s, " sd %31s", sd);
	/* undetermined: said so (issue 11's form), or a curvature the data left flat */
	if (!strcmp(val, "undetermined") || !strcmp(val, "null") || !strcmp(sd, "inf")) {
		if (have_ci)
			snprintf(buf, len, "%s undetermined (%lu\u2013%lu)", key, lo, hi);
		else
			snprintf(buf, len, "%s undetermined", key);
	} else if (have_ci && lo != hi) {
		snprintf(buf, len, "%s %s (%lu\u2013%lu)", key, val, lo, hi);
	} else {
		snprintf(buf, len, "%s %s", key, val);
	}
}

static int run_interrupts(struct study *st)
{
	char dir[PATH_MAX], out[PATH_MAX], **names;
	size_t n = t32_block_names(&names);
	FILE *o;
	int rc = 0;

	study_path(st, "interrupts", dir, sizeof(dir));
	if (mkdir(dir, 0755) && errno != EEXIST) {
		t32_error("cannot make '%s' (%s)", dir, strerror(errno));
		t32_block_names_free(names, n);
		return T32_EXIT_ERROR;
	}
	if (!n) {
		t32_error("no blocks in '%s/blocks'", t32_datadir());
		return T32_EXIT_ERROR;
	}
	for (size_t i = 0; i < n && !stop; i++) {
		char sub[PATH_MAX], rel[256], what[512], title[256];
		struct t32_correlate_req q;
		char *body[] = { names[i], NULL };
		int crc;

		snprintf(rel, sizeof(rel), "interrupts/%.200s", names[i]);
		study_path(st, rel, sub, sizeof(sub));
		snprintf(what, sizeof(what), "interrupts: %.100s (%zu of %zu)", names[i], i + 1, n);
		progress(st, what, (double)i / n);
		/* correlated in this process: the sampled loop and the sweep's blocks in children */
		t32_correlate_req_init(&q);
		q.seconds = st->p->interrupt_seconds;
		q.cpu = st->env.pinned;
		q.outdir = sub;
		q.body_argc = 1;
		q.body_argv = body;
		/* the files' provenance names the study command that made them */
		crc = t32_correlate(&q, 0, NULL, NULL, NULL);
		if (crc == T32_EXIT_INTERRUPTED) {
			stop = 1;
			break;
		}
		if (crc) {
			t32_error("correlate failed on '%s' (exit %d, its reason above)", names[i], crc);
			rc = T32_EXIT_ERROR;
			continue;
		}
		/* the figures again, SVG and PNG, titled by the block rather than its whole text */
		snprintf(title, sizeof(title), "%.100s - %.100s", names[i], st->machine);
		snprintf(what, sizeof(what), "%s/shares.tsv", rel);
		snprintf(sub, sizeof(sub), "%s/shares", rel);
		study_plot(st, "shares", what, sub, title, NULL, NULL);
		snprintf(what, sizeof(what), "%s/curve.tsv", rel);
		snprintf(sub, sizeof(sub), "%s/model-overlay", rel);
		study_plot(st, "model-overlay", what, sub, title, NULL, NULL);
	}
	if (stop)
		st->interrupted = 1;
	/* one line a block, from the files correlate wrote */
	if (!(o = t32_fopen_out(study_path(st, "interrupts.tsv", out, sizeof(out))))) {
		t32_block_names_free(names, n);
		return T32_EXIT_ERROR;
	}
	study_provenance(st, o, "interrupts", "t32 correlate on each block of data/blocks; a fit "
			 "meets the target when tvd <= 0.10 and cycles per iteration are within 5% "
			 "(t32_corr_meets_target, as make bench judges)");
	fprintf(o, "block\tsamples\ttvd\tchi2_p\tcycles_measured\tcycles_predicted\t"
		   "cycles_error_percent\tcurve_r\ttarget\tparameters\n");
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], rel[PATH_MAX], params[2048] = "", one[256];
		struct tab t;
		double tvd, err;

		snprintf(rel, sizeof(rel), "interrupts/%.200s/shares.tsv", names[i]);
		if (tab_load(&t, study_path(st, rel, path, sizeof(path)), 1))
			continue;
		for (size_t c = 0; c < t.ncomments; c++)
			if (!strncmp(t.comments[c], "fit: ", 5)) {
				param_text(t.comments[c] + 5, one, sizeof(one));
				snprintf(params + strlen(params), sizeof(params) - strlen(params), "%s%s",
					 params[0] ? "; " : "", one);
			}
		tvd = strtod(tab_comment(&t, "tvd"), NULL);
		err = strtod(tab_comment(&t, "cycles_error_percent"), NULL);
		fprintf(o, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t", names[i], tab_comment(&t, "samples"),
			tab_comment(&t, "tvd"), tab_comment(&t, "chi2_p"),
			tab_comment(&t, "cycles_per_iter_measured"),
			tab_comment(&t, "cycles_per_iter_predicted"),
			tab_comment(&t, "cycles_error_percent"), tab_comment(&t, "curve_r"),
			*tab_comment(&t, "tvd") && *tab_comment(&t, "cycles_error_percent")
				? (t32_corr_meets_target(tvd, err) ? "met" : "missed") : "-");
		t32_tsv_fputs(params, o);
		fprintf(o, "\n");
		tab_free(&t);
	}
	t32_block_names_free(names, n);
	if (t32_fclose_out(o))
		return T32_EXIT_ERROR;
	return st->interrupted ? T32_EXIT_INTERRUPTED : rc;
}

/*
 * Recipe wake: wake and interrupt latency with `t32 wake`, sleep and spin, each
 * run as a program (it asks for SCHED_FIFO and locks its memory: not the
 * study's own state to change), its statistics kept beside its raw rows.
 */
static int run_wake(struct study *st)
{
	static const char *const methods[] = { "sleep", "spin" };
	const char *count = strcmp(st->p->name, "full") ? "2000" : "20000";
	char self[PATH_MAX];
	int rc = 0;

	/* wake runs as a program: its real-time state is its own process's */
	if (t32_self_path(self, sizeof(self))) {
		t32_error("cannot find this program '%s' (%s)", "/proc/self/exe", strerror(errno));
		return T32_EXIT_ERROR;
	}
	for (size_t i = 0; i < 2 && !stop; i++) {
		char raw[PATH_MAX], stats[PATH_MAX], name[64], base[64], what[64], cpu[16];
		char *argv[] = { self, "wake", "--method", (char *)methods[i], "--count",
				 (char *)count, "--cpu", cpu, "--format=tsv", "-o", raw, NULL };
		struct t32_child_output res;

		snprintf(cpu, sizeof(cpu), "%d", st->env.pinned);
		snprintf(name, sizeof(name), "wake-%s.tsv", methods[i]);
		study_path(st, name, raw, sizeof(raw));
		snprintf(what, sizeof(what), "wake: %s", methods[i]);
		progress(st, what, i / 2.0);
		if (t32_run_program(argv, &res) < 0 || (res.status && res.status != T32_EXIT_UNTRUSTED)) {
			t32_error("t32 wake failed (%s) '%s'", res.error[0] ? res.error :
				  res.text ? res.text : "no output", methods[i]);
			t32_child_output_free(&res);
			rc = T32_EXIT_ERROR;
			continue;
		}
		snprintf(name, sizeof(name), "wake-%s.stats.tsv", methods[i]);
		if (t32_write_file(study_path(st, name, stats, sizeof(stats)), res.text ? res.text : "",
				   res.text ? strlen(res.text) : 0))
			rc = T32_EXIT_ERROR;
		t32_child_output_free(&res);
		snprintf(name, sizeof(name), "wake-%s.tsv", methods[i]);
		snprintf(base, sizeof(base), "wake-%s-hist", methods[i]);
		study_plot(st, "wake-hist", name, base, NULL, NULL, NULL);
		snprintf(base, sizeof(base), "wake-%s-cdf", methods[i]);
		study_plot(st, "wake-cdf", name, base, NULL, NULL, NULL);
		snprintf(base, sizeof(base), "wake-%s-ldist", methods[i]);
		study_plot(st, "wake-ldist", name, base, NULL, NULL, NULL);
	}
	if (stop)
		st->interrupted = 1;
	return st->interrupted ? T32_EXIT_INTERRUPTED : rc;
}

/* The wake section: per method a paragraph written from its data, and its figures. */
static int section_wake(struct study *st, FILE *h)
{
	static const char *const methods[] = { "sleep", "spin" };
	int any = 0;

	for (size_t i = 0; i < 2; i++) {
		char path[PATH_MAX], name[64], base[64], cap[160];
		struct t32_wake_data d;

		snprintf(name, sizeof(name), "wake-%s.tsv", methods[i]);
		if (!study_has(st, name) || t32_wake_load(study_path(st, name, path, sizeof(path)), &d))
			continue;
		if (!any++)
			fprintf(h, "<h2 id=\"wake\">7. Wake and interrupt latency</h2><p>wult's "
				   "delayed-timer method in user space (<code>t32 wake</code>): a timer "
				   "armed a random 20 &micro;s to 4 ms ahead; <b>sleep</b> times the "
				   "return from <code>clock_nanosleep</code> to the deadline, <b>spin</b> "
				   "the timer's signal handler while the thread spins, and the gap the "
				   "interrupt left in the spin loop. Intervals are 95%%, "
				   "distribution-free.</p>\n");
		fprintf(h, "<h3>%s</h3>\n", methods[i]);
		fprintf(h, "<div class=\"shows\"><p><b>What this shows.</b> ");
		t32_wake_describe(h, &d, 1);
		fprintf(h, "</p></div>\n");
		snprintf(base, sizeof(base), "wake-%s-hist", methods[i]);
		snprintf(cap, sizeof(cap), "%s: histogram of the kept events' latency", methods[i]);
		html_figure(st, h, base, name, cap);
		snprintf(base, sizeof(base), "wake-%s-cdf", methods[i]);
		snprintf(cap, sizeof(cap), "%s: share of events slower than each latency (log scale)",
			 methods[i]);
		html_figure(st, h, base, name, cap);
		snprintf(base, sizeof(base), "wake-%s-ldist", methods[i]);
		snprintf(cap, sizeof(cap), "%s: latency against launch distance", methods[i]);
		html_figure(st, h, base, name, cap);
		fprintf(h, "<p class=\"dated\">Also: <a href=\"wake-%s.stats.tsv\">statistics</a>.</p>\n",
			methods[i]);
		t32_wake_data_free(&d);
	}
	return any > 0;
}

/* The blocks of data/blocks with no result here: said, not left out silently. */
static void interrupts_absent(FILE *h, const struct tab *t)
{
	char **names, absent[2048] = "";
	size_t nb = t32_block_names(&names), nabsent = 0;

	for (size_t i = 0; i < nb; i++) {
		size_t r = 0;

		while (r < t->nrows && strcmp(tab_get(t, r, "block"), names[i]))
			r++;
		if (r < t->nrows)
			continue;
		snprintf(absent + strlen(absent), sizeof(absent) - strlen(absent), "%s<code>",
			 nabsent++ ? ", " : "");
		{
			char *e = NULL;
			size_t el = 0;
			FILE *m = open_memstream(&e, &el);

			if (m) {
				html_text(m, names[i]);
				fclose(m);
				snprintf(absent + strlen(absent), sizeof(absent) - strlen(absent),
					 "%s", e);
			}
			free(e);
		}
		snprintf(absent + strlen(absent), sizeof(absent) - strlen(absent), "</code>");
	}
	if (nabsent)
		fprintf(h, "<p><b>%zu of the %zu blocks have no result here</b> (%s): their "
			   "runs failed (the study's messages say why; a block whose samples did "
			   "not stay put is not fitted). The figures below are the other %zu.</p>\n",
			nabsent, nb, absent, nb - nabsent);
	t32_block_names_free(names, nb);
}

/* One block's subsection: its unit and samples, the shares and the step curve. */
static void interrupts_block(struct study *st, FILE *h, const char *b)
{
	char path[PATH_MAX], rel[PATH_MAX], base[PATH_MAX], data[PATH_MAX], cap[512];
	struct tab s;

	fprintf(h, "<h3 id=\"block-");
	html_text(h, b);
	fprintf(h, "\">");
	html_text(h, b);
	fprintf(h, "</h3>\n");
	snprintf(rel, sizeof(rel), "interrupts/%.200s/shares.tsv", b);
	if (!tab_load(&s, study_path(st, rel, path, sizeof(path)), 1)) {
		fprintf(h, "<p>Unit: <code>");
		html_text(h, tab_comment(&s, "unit"));
		fprintf(h, "</code>; %s samples (%s backend).</p>\n", tab_comment(&s, "samples"),
			tab_comment(&s, "backend"));
		tab_free(&s);
	}
	snprintf(base, sizeof(base), "interrupts/%.200s/shares", b);
	snprintf(data, sizeof(data), "interrupts/%.200s/shares.tsv", b);
	snprintf(cap, sizeof(cap), "%.200s: measured and predicted share of samples per "
		 "instruction", b);
	html_figure(st, h, base, data, cap);
	snprintf(base, sizeof(base), "interrupts/%.200s/model-overlay", b);
	snprintf(data, sizeof(data), "interrupts/%.200s/curve.tsv", b);
	snprintf(cap, sizeof(cap), "%.200s: measured and modelled cycles of k copies", b);
	html_figure(st, h, base, data, cap);
	fprintf(h, "<p class=\"dated\">Also: <a href=\"interrupts/");
	html_text(h, b);
	fprintf(h, "/sample.tsv\">sample.tsv</a> (every sample), <a href=\"interrupts/");
	html_text(h, b);
	fprintf(h, "/sweep.tsv\">sweep.tsv</a> (the step curve).</p>\n");
}

static int section_interrupts(struct study *st, FILE *h)
{
	char path[PATH_MAX], missed[2048] = "";
	struct tab t;
	size_t met = 0, miss = 0, judged = 0, undet = 0, tested = 0, rejected = 0;
	double pmin = INFINITY, pmax = 0;

	if (tab_load(&t, study_path(st, "interrupts.tsv", path, sizeof(path)), 1))
		return 0;
	fprintf(h, "<h2 id=\"interrupts\">6. Where do interrupts happen?</h2>\n");
	html_dated(h, &t);
	fprintf(h, "<p>Each block of <code>data/blocks</code> (the blocks of &ldquo;Where do "
		   "interrupts happen?&rdquo;) runs as a loop under a timer interrupt, and t32 "
		   "counts where the samples land: a timer interrupt's sample lands on the "
		   "instruction <i>after</i> the one that held retirement up. The same block's "
		   "step curve (k = 0 &hellip; 16 copies between barriers) is measured too, and "
		   "one retirement model is fitted to both (<code>t32 correlate</code>). "
		   "<i>TVD</i> is the total variation distance between measured and predicted "
		   "shares (0 is perfect); a fit <b>meets the target</b> when TVD &le; %.2f and "
		   "the cycles per iteration are within %.0f%%, the rule <code>make bench</code> "
		   "applies. A parameter the data do not pin down is shown as "
		   "<i>undetermined</i> with the range that fits (<a href=\"interrupts.tsv\">"
		   "interrupts.tsv</a>).</p>\n", T32_CORR_TVD_TARGET, T32_CORR_CPI_TARGET);
	fprintf(h, "<div class=\"wide\"><table><thead><tr><th>block</th><th>samples</th><th>TVD</th>"
		   "<th>cycles / iteration measured</th><th>predicted</th><th>error</th>"
		   "<th>fitted parameters</th><th>target</th></tr></thead>\n");
	for (size_t r = 0; r < t.nrows; r++) {
		const char *b = tab_get(&t, r, "block"), *target = tab_get(&t, r, "target");
		double p = tab_num(&t, r, "chi2_p");

		fprintf(h, "<tr><td><a href=\"#block-");
		html_text(h, b);
		fprintf(h, "\">");
		html_text(h, b);
		fprintf(h, "</a></td><td class=\"n\">%s</td><td class=\"n\">%.3f</td><td class=\"n\">"
			   "%.2f</td><td class=\"n\">%.2f</td><td class=\"n\">%+.1f%%</td><td>",
			tab_get(&t, r, "samples"), tab_num(&t, r, "tvd"),
			tab_num(&t, r, "cycles_measured"), tab_num(&t, r, "cycles_predicted"),
			tab_num(&t, r, "cycles_error_percent"));
		{
			/* plain text in the TSV (a file of before wrote the dash as an entity) */
			char par[2048], *e;

			snprintf(par, sizeof(par), "%s", tab_get(&t, r, "parameters"));
			while ((e = strstr(par, "&ndash;"))) {
				memcpy(e, "\u2013", strlen("\u2013"));
				memmove(e + strlen("\u2013"), e + 7, strlen(e + 7) + 1);
			}
			html_text(h, par);
		}
		fprintf(h, "</td><td class=\"%s\">%s</td></tr>\n",
			!strcmp(target, "met") ? "met" : "miss",
			!strcmp(target, "met") ? "met" : !strcmp(target, "missed") ? "missed" : "&ndash;");
		if (!strcmp(target, "met"))
			met++;
		if (!strcmp(target, "missed")) {
			miss++;
			snprintf(missed + strlen(missed), sizeof(missed) - strlen(missed), "%s<code>%s</code>",
				 missed[0] ? ", " : "", b);
		}
		judged += *target && strcmp(target, "-");
		undet += strstr(tab_get(&t, r, "parameters"), "undetermined") != NULL;
		if (isfinite(p)) {
			tested++;
			rejected += p < 0.05;
			pmin = p < pmin ? p : pmin;
			pmax = p > pmax ? p : pmax;
		}
	}
	fprintf(h, "</table></div>\n");
	interrupts_absent(h, &t);
	shows(h, "%zu of %zu blocks meet the target%s%s. %s"
		 "The chi-square test of the shares rejects %zu of %zu fits at the 5%% level (p from "
		 "%.2g to %.2g): with hundreds of samples it sees departures smaller than the model "
		 "tries to explain (it steps in whole cycles, a measured latency to a quarter "
		 "of one, and knows nothing of the hypervisor's timer), so TVD is the measure "
		 "to read. %s",
	      met, judged, miss ? "; these miss it: " : "", miss ? missed : "",
	      undet ? "Some parameters are undetermined: the block does not exercise them (a "
		      "load latency in a block whose loads overlap, a retire width the chain never "
		      "reaches), and any value in the range fits as well. " : "",
	      rejected, tested, isfinite(pmin) ? pmin : 0.0, pmax,
	      met == judged && judged ? "The model explains where the samples land in every block."
				      : "Where a fit misses, the measured shares (blue, with their "
					"95% intervals) and the predicted (orange) part on the "
					"instructions below.");
	for (size_t r = 0; r < t.nrows; r++)
		interrupts_block(st, h, tab_get(&t, r, "block"));
	tab_free(&t);
	return 1;
}

/* allforms.tbl: the generated full table (t32 table gen), quietly.  0 or an exit code. */
static int allforms_table(const char *tbl)
{
	struct t32_tablegen_opts go = { 0 };
	struct t32_tablegen_stats gs;

	return t32_tablegen_file(tbl, &go, &gs);
}

/*
 * Recipe allforms (the full profile, or named): the generated full table (t32
 * table gen) swept at +-0.02 cycles, resumable, and the forms whose latency or
 * throughput lies off the table's published value, with both (t32 compare
 * --differing, into allforms/).  All three are calls in this process.
 */
static int run_allforms(struct study *st)
{
	char tbl[PATH_MAX], tsv[PATH_MAX], dir[PATH_MAX];
	/* the command line compare.tsv's provenance names, as if typed */
	char *cmp[] = { "t32", "compare", "--differing", "-o", dir, tsv, NULL };
	struct t32_compare_req cq = { .paths = &cmp[5], .npaths = 1, .dir = dir, .only_diff = 1,
				      .hostname = 1, .tolerance = 0.05, .argc = 6, .argv = cmp };
	struct t32_sweep_req q;
	int rc;

	study_path(st, "allforms.tbl", tbl, sizeof(tbl));
	study_path(st, "allforms.tsv", tsv, sizeof(tsv));
	study_path(st, "allforms", dir, sizeof(dir));
	progress(st, "allforms: table gen", 0);
	if (allforms_table(tbl)) {
		t32_error("%s failed '%s'", "allforms: table gen", tbl);
		return T32_EXIT_ERROR;
	}
	if (stop)
		return T32_EXIT_INTERRUPTED;
	progress(st, "allforms: the sweep", 1 / 3.0);
	t32_sweep_req_init(&q);
	q.table = tbl;
	q.klist[q.nk++] = 12;
	q.mo.precision = 0.02;
	q.resume = 1;
	if ((rc = study_sweep(st, &q, "840", tsv, 0, NULL)))
		return rc == T32_EXIT_INTERRUPTED ? rc : T32_EXIT_ERROR;
	if (stop)
		return T32_EXIT_INTERRUPTED;
	progress(st, "allforms: compare", 2 / 3.0);
	if (t32_compare(&cq)) {
		t32_error("%s failed '%s'", "allforms: compare", tsv);
		return T32_EXIT_ERROR;
	}
	return stop ? T32_EXIT_INTERRUPTED : 0;
}

/* The all-forms section: the files, and compare's own line on the forms off their values. */
static int section_allforms(struct study *st, FILE *h)
{
	char path[PATH_MAX];
	struct tab t;

	if (!study_has(st, "allforms/compare.tsv") ||
	    tab_load(&t, study_path(st, "allforms/compare.tsv", path, sizeof(path)), 1))
		return 0;
	fprintf(h, "<h2 id=\"allforms\">8. All forms</h2><p>Every form of the generated table "
		   "(<a href=\"allforms.tbl\">allforms.tbl</a>, <code>t32 table gen</code>) in "
		   "latency and throughput mode (<a href=\"allforms.tsv\">allforms.tsv</a>); the "
		   "forms whose value lies off the table's published value, with both: "
		   "<a href=\"allforms/index.html\">allforms/index.html</a>.</p>\n");
	for (size_t c = 0; c < t.ncomments; c++)
		if (!strncmp(t.comments[c], "machine m1:", 11) && strstr(t.comments[c], " published value")) {
			const char *bar = strrchr(t.comments[c], '|');

			fprintf(h, "<div class=\"shows\"><p><b>What this shows.</b> ");
			html_text(h, bar ? bar + 2 : t.comments[c]);
			fprintf(h, "</p></div>\n");
		}
	tab_free(&t);
	return 1;
}

/* ----- the recipes ---------------------------------------------------------- */

static const struct recipe {
	const char *name;
	const char *summary;
	double seconds;		/* about how long it takes in the quick profile, here */
	int (*run)(struct study *st);	/* measure: its TSVs and figures into the directory */
	int (*section)(struct study *st, FILE *h);	/* its part of index.html, from them: 1, or
							   0 when they are not there */
} recipes[] = {
	{ "scatter", "1,000 measurements of 100,000 inc eax, one by one", 1, run_scatter,
	  section_scatter },
	{ "min-vs-count", "the empty block's minimum against the number of measurements", 1,
	  run_min_vs_count, section_min_vs_count },
	{ "table", "the 24-form table at n = 100 .. 100,000, throughput and the model beside it", 25,
	  run_table, section_table },
	{ "steps", "step curves of inc eax and add eax, 1 for n = 1..100", 6, run_steps,
	  section_steps },
	{ "combos", "C1 n C2 (inc ebx, n x inc eax) for n = 0, 1, 2, 3, 10, 100", 2, run_combos,
	  section_combos },
	{ "interrupts", "where interrupts land in the study's blocks, measured and modelled", 55,
	  run_interrupts, section_interrupts },
	{ "wake", "wake and interrupt latency from user space (t32 wake, both methods)", 3,
	  run_wake, section_wake },
	{ "allforms", "the generated full table; forms off their published values (full profile)",
	  720, run_allforms, section_allforms },
	{ NULL, NULL, 0, NULL, NULL }
};

int study_section(struct study *st, const char *name, FILE *h)
{
	for (const struct recipe *r = recipes; r->name; r++)
		if (!strcmp(r->name, name))
			return r->section(st, h);
	return -1;
}

/* Is r among the recipes a study without names runs?  All forms takes minutes: full only. */
static int recipe_in_all(const struct recipe *r, const struct study *st)
{
	return r->run != run_allforms || !strcmp(st->p->name, "full");
}

/* The index page: the machine, then the section of every recipe whose files are there. */
static int write_index(struct study *st, int argc, char **argv, size_t *sections)
{
	char path[PATH_MAX];
	FILE *h = t32_fopen_out(study_path(st, "index.html", path, sizeof(path)));

	if (!h)
		return -1;
	html_head(st, h, argc, argv);
	*sections = 0;
	/*
	 * The sections first, into memory: the navigation links those written, and
	 * a recipe outside this profile (allforms in the quick one) with no files
	 * leaves no trace on a page meant for handing in.
	 */
	{
		char *body = NULL;
		size_t blen = 0;
		FILE *m = open_memstream(&body, &blen);
		int shown[sizeof(recipes) / sizeof(recipes[0])] = { 0 };

		if (!m) {
			t32_fabort_out(h);
			return -1;
		}
		for (const struct recipe *r = recipes; r->name; r++) {
			size_t i = (size_t)(r - recipes);

			if (r->section(st, m)) {
				(*sections)++;
				shown[i] = 1;
			} else if (recipe_in_all(r, st)) {
				fprintf(m, "<h2 id=\"%s\">%s</h2><p>Not measured yet: <code>t32 study -o "
					   "%s %s</code> adds it.</p>\n", r->name, r->name, st->dir, r->name);
				shown[i] = 1;
			}
		}
		fclose(m);
		int links = 0;

		fprintf(h, "<nav><p>Sections:");
		for (const struct recipe *r = recipes; r->name; r++)
			if (shown[r - recipes])
				fprintf(h, "%s<a href=\"#%s\">%s</a>", links++ ? " &middot; " : " ",
					r->name, r->name);
		fprintf(h, " &middot; <a href=\"#files\">files</a></p></nav>\n");
		fwrite(body, 1, blen, h);
		free(body);
	}
	html_files(st, h);
	fprintf(h, "</body></html>\n");
	return t32_fclose_out(h);
}

/* plots/: $T32_PLOTDIR, beside data/ in the tree, or data/plots when installed. */
static void find_plotdir(char *buf, size_t len)
{
	snprintf(buf, len, "%s", t32_plotdir());
}

/* RECIPE words: each a known recipe, else a usage error naming the known ones. */
static int check_recipes(int argc, char **argv)
{
	const char *names[16];
	char known[512] = "";
	size_t n = 0;

	for (const struct recipe *r = recipes; r->name && n < 16; r++) {
		names[n++] = r->name;
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
			 r == recipes ? "" : ", ", r->name);
	}
	for (int i = optind; i < argc; i++) {
		const char *near;
		size_t k = 0;

		while (k < n && strcmp(names[k], argv[i]))
			k++;
		if (k < n)
			continue;
		near = t32_nearest(argv[i], names, n, 3);
		if (near)
			t32_error("unknown recipe '%s' (did you mean %s? known: %s)", argv[i], near, known);
		else
			t32_error("unknown recipe '%s' (known: %s)", argv[i], known);
		return -1;
	}
	return 0;
}

/* --profile P */
static int opt_profile(const struct t32_option *row, const char *arg)
{
	const struct profile **p = row->ctx;

	*p = NULL;
	for (const struct profile *q = profiles; q->name; q++)
		if (strcmp(arg, q->name) == 0)
			*p = q;
	if (!*p) {
		t32_error("unknown profile '%s' (quick, full)", arg);
		return -1;
	}
	return 0;
}

/* --barrier B: letters of the classic form. */
static int opt_barrier(const struct t32_option *row, const char *arg)
{
	struct t32_spec unused = { 0 };
	char err[256];

	if (t32_spec_set_barrier(&unused, arg, err, sizeof(err))) {
		t32_error("%s", err);
		return -1;
	}
	*(const char **)row->ctx = arg;
	return 0;
}

/* The options into st and bo (the CPU); -1 to go on, else an exit code. */
static int study_options(int argc, char **argv, struct study *st, struct t32_block_opts *bo,
			 int *first)
{
	struct t32_block_optset shared;
	int no_plots = 0, rc;
	char intro[4096];
	size_t used;

	t32_block_optset_for(&shared, bo, "study", T32_OPT_CPU, 0);
	used = (size_t)snprintf(intro, sizeof(intro), "Recipes (all when none is named; one named "
				"is run into the directory and the page keeps the others):\n");
	for (const struct recipe *r = recipes; r->name && used < sizeof(intro); r++)
		used += (size_t)snprintf(intro + used, sizeof(intro) - used, "  %-14s %s\n", r->name,
					 r->summary);
	snprintf(intro + used, sizeof(intro) - used, "\n");
	{
		const struct t32_option opts[] = {
			T32_OPT_FN("profile", "P", opt_profile, &st->p, "quick (default, about two minutes) or full (the\n" "coursework's precision)"),
			T32_OPT_STRING("output", 'o', "DIR", &st->dir, "the report directory (default report)"),
			T32_OPT_FN("barrier", "B", opt_barrier, &st->barrier, "barrier letters of the classic form (default l)"),
			T32_OPT_FLAG("no-plots", 0, &no_plots, "no figures (no gnuplot)"),
			T32_OPT_SET(shared.rows),
			T32_OPT_END
		};

		rc = t32_options_parse("study", study_usage, intro,
				       "\nWrites DIR/NAME.tsv, DIR/NAME.svg and .png, DIR/env.json and "
				       "DIR/index.html.\n", opts, argc, argv, first);
	}
	st->plots = !no_plots;
	return rc;
}

int cmd_study(int argc, char **argv)
{
	struct study st = { .p = &profiles[0], .dir = "report", .barrier = "l", .plots = 1 };
	struct t32_block_opts bo;
	struct t32_cpu cpu;
	struct sigaction sa = { .sa_handler = on_interrupt }, old_int, old_term, old_hup;
	size_t sections = 0, ran = 0;
	double t0 = t32_now();
	int all, rc = 0, first;

	rc = study_options(argc, argv, &st, &bo, &first);
	if (rc >= 0)
		return rc;
	rc = 0;
	optind = first;
	if (check_recipes(argc, argv))
		return T32_EXIT_USAGE;
	find_plotdir(st.plotdir, sizeof(st.plotdir));
	t32_cpu_identify(&cpu);
	snprintf(st.machine, sizeof(st.machine), "%s", cpu.brand);
	if (mkdir(st.dir, 0755) && errno != EEXIST) {
		t32_error("cannot make '%s' (%s)", st.dir, strerror(errno));
		return T32_EXIT_ERROR;
	}
	st.progress = isatty(2);
	st.t0 = t0;
	all = first >= argc;
	for (const struct recipe *r = recipes; r->name; r++) {
		int want = all && recipe_in_all(r, &st);

		for (int i = first; i < argc; i++)
			want |= strcmp(argv[i], r->name) == 0;
		st.planned += want ? r->seconds * st.p->scale : 0;
	}
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);

	/* the machine first: its clock converts every tick the recipes read */
	if (bo.run.cpu < 0)
		bo.run.cpu = t32_default_cpu();
	progress(&st, "the machine (t32 env)", 0);
	t32_warn_quiet = 1;
	t32_env_gather(&st.env, &bo);
	t32_warn_quiet = 0;
	st.ratio = st.env.ratio;
	{
		char path[PATH_MAX];
		FILE *e = t32_fopen_out(study_path(&st, "env.json", path, sizeof(path)));

		if (e) {
			t32_env_json(e, &st.env);
			if (t32_fclose_out(e))
				st.failures++;
		} else {
			st.failures++;
		}
	}
	for (const struct recipe *r = recipes; r->name && !st.interrupted && !stop; r++) {
		int want = all && recipe_in_all(r, &st);
		double r0 = t32_now();

		for (int i = first; i < argc; i++)
			want |= strcmp(argv[i], r->name) == 0;
		if (!want)
			continue;
		st.weight = r->seconds * st.p->scale;
		progress(&st, r->name, 0);
		rc = r->run(&st);
		st.done_weight += r->seconds * st.p->scale;
		if (rc == T32_EXIT_INTERRUPTED || stop) {
			st.interrupted = 1;
		} else if (rc) {
			t32_error("recipe failed '%s' (the others go on)", r->name);
			st.failures++;
		} else {
			ran++;
			if (st.progress)
				fprintf(stderr, "t32 study: %s done in %.1f s\n", r->name, t32_now() - r0);
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (t32_warn_held)
		t32_warn("%lu warnings while measuring, the last: %s (the rows carry the flags)",
			 t32_warn_held, t32_warn_last);
	if (write_index(&st, argc, argv, &sections)) {
		t32_error("cannot write the index '%s/index.html'", st.dir);
		st.failures++;
	}
	/* one line: what was written where */
	printf("t32 study: %s/index.html: %zu of %zu sections (%zu recipe%s run now%s) in %.0f s\n",
	       st.dir, sections, sizeof(recipes) / sizeof(recipes[0]) - 1, ran, ran == 1 ? "" : "s",
	       st.interrupted ? ", interrupted" : st.failures ? ", with failures" : "",
	       t32_now() - t0);
	if (t32_close_stdout())
		return T32_EXIT_ERROR;
	return st.interrupted ? T32_EXIT_INTERRUPTED : st.failures ? T32_EXIT_ERROR : 0;
}
