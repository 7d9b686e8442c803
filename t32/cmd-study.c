/*
 * cmd-study.c - `t32 study`: the coursework's experiments as named recipes, each
 * writing a TSV and a figure into a directory, and an index page that shows them
 * with the machine they were measured on (`make report`).
 *
 * Each step runs this very binary as a child (argv, never a shell string), so a
 * faulting block or a full disk in one recipe is reported and the others go on.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/fit.h"
#include "analysis/stats.h"
#include "t32/cmd.h"
#include "t32/measure.h"
#include "t32/util.h"

static const char study_usage[] =
	"t32 study [--profile quick|full] [-o DIR] [--barrier B] [--no-plots] [RECIPE...]";

struct profile {
	const char *name;
	unsigned scatter_runs;		/* recipe 1: measurements of 100,000 inc eax */
	unsigned min_counts_max;	/* recipe 2: largest count */
	const char *table_budget;	/* recipe 3: seconds per row */
	const char *table_block_precision;	/* ticks on the whole block */
	const char *steps_budget;	/* recipe 4: seconds per n */
	const char *steps_block_precision;	/* cycles on the whole block */
	const char *combo_budget;	/* recipe 5 */
	const char *interrupt_seconds;	/* recipe 6: sampling time per block */
};

static const struct profile profiles[] = {
	{ "quick", 1000, 1000000, "0.15", "1", "0.1", "0.5", "0.3", "2" },
	{ "full", 1000, 1000000, "3", "0.2", "2", "0.1", "3", "10" },
	{ NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL }
};

struct study {
	const struct profile *p;
	const char *dir;
	const char *barrier;
	int plots;
	char self[PATH_MAX];	/* this binary */
	char plotdir[PATH_MAX];
	char machine[160];	/* figure titles */
	int failures;
};

/* dir/name into buf (a name too long for it is cut, and then not found). */
static const char *path_in(const struct study *st, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%.2000s/", st->dir);

	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%.1000s", name);
	return buf;
}

/* Run argv; its stdout into `out` (a path) when given.  0 when it exits 0. */
static int run(const struct study *st, const char *out, char *const argv[])
{
	struct t32_child_output res;
	int rc;

	(void)st;
	rc = t32_run_program(argv, &res);
	if (rc) {
		t32_error("cannot run '%s' (%s)", argv[0], res.error);
		t32_child_output_free(&res);
		return -1;
	}
	if (out && res.text && t32_write_file(out, res.text, strlen(res.text))) {
		t32_error("cannot write '%s' (%s)", out, strerror(errno));
		rc = -1;
	}
	if (res.status != 0) {
		/* pass on what the child said */
		if (res.text)
			fputs(res.text, stderr);
		rc = -1;
	}
	t32_child_output_free(&res);
	return rc;
}

/* Draw a figure with plots/NAME.gp as SVG and PNG. */
static void plot(struct study *st, const char *script, const char *tsv, const char *base,
		 const char *extra)
{
	char gp[PATH_MAX], in[PATH_MAX], out[PATH_MAX], outname[256];
	const char *exts[] = { "svg", "png" };

	if (!st->plots)
		return;
	snprintf(gp, sizeof(gp), "%.3000s/%.200s.gp", st->plotdir, script);
	path_in(st, tsv, in, sizeof(in));
	for (int i = 0; i < 2; i++) {
		char *argv[] = { "gnuplot", "-c", gp, in, out, st->machine, (char *)extra, NULL };

		snprintf(outname, sizeof(outname), "%s.%s", base, exts[i]);
		path_in(st, outname, out, sizeof(out));
		if (!extra)
			argv[6] = NULL;
		if (run(st, NULL, argv)) {
			t32_error("cannot draw '%s'", out);
			st->failures++;
		}
	}
}

/* Recipe 1: every one of 1,000 measurements of 100,000 inc eax. */
static int recipe_scatter(struct study *st)
{
	char out[PATH_MAX], count[32], raw[PATH_MAX];
	FILE *in, *o;
	unsigned long long v, i = 0;

	snprintf(count, sizeof(count), "%u", st->p->scatter_runs);
	path_in(st, "scatter.raw", raw, sizeof(raw));
	{
		char *argv[] = { st->self, (char *)st->barrier, "m", count, "100000", "inc eax", NULL };

		if (run(st, raw, argv))
			return -1;
	}
	in = fopen(raw, "r");
	o = t32_fopen_out(path_in(st, "scatter.tsv", out, sizeof(out)));
	if (!in || !o) {
		if (!in)
			t32_error("cannot read '%s' (%s)", raw, strerror(errno));
		if (in)
			fclose(in);
		if (o)
			t32_fabort_out(o);
		return -1;
	}
	fprintf(o, "# recipe: scatter, %s m %s 100000 'inc eax'\n# unit: TSC ticks\ni\tticks\n",
		st->barrier, count);
	while (fscanf(in, "%llu", &v) == 1)
		fprintf(o, "%llu\t%llu\n", i++, v);
	fclose(in);
	unlink(raw);
	if (t32_fclose_out(o))
		return -1;
	plot(st, "scatter", "scatter.tsv", "scatter", NULL);
	return 0;
}

/*
 * Recipe 2: the empty block's minimum over the first COUNT measurements, with the
 * sub-quantum estimate over the same measurements beside it.
 */
static int recipe_min_vs_count(struct study *st)
{
	char out[PATH_MAX], count[32], raw[PATH_MAX];
	unsigned long long v;
	uint64_t *d, n = 0, max = st->p->min_counts_max, min = UINT64_MAX;
	FILE *in, *o;

	snprintf(count, sizeof(count), "%llu", (unsigned long long)max);
	path_in(st, "min-vs-count.raw", raw, sizeof(raw));
	{
		char *argv[] = { st->self, (char *)st->barrier, "m", count, "0", "nop", NULL };

		if (run(st, raw, argv))
			return -1;
	}
	d = malloc(max * sizeof(uint64_t));
	in = fopen(raw, "r");
	if (!d || !in) {
		free(d);
		if (in)
			fclose(in);
		return -1;
	}
	while (n < max && fscanf(in, "%llu", &v) == 1)
		d[n++] = v;
	fclose(in);
	unlink(raw);
	o = t32_fopen_out(path_in(st, "min-vs-count.tsv", out, sizeof(out)));
	if (!o) {
		free(d);
		return -1;
	}
	fprintf(o, "# recipe: min-vs-count, empty block (barrier %s), one run of %s measurements\n"
		   "# unit: TSC ticks\ncount\tmin_ticks\test_ticks\test_lo\test_hi\n",
		st->barrier, count);
	{
		/* the study's counts, 1, 2, 5 a decade */
		static const uint64_t counts[] = { 1000, 2000, 5000, 10000, 20000, 50000, 100000,
						   200000, 500000, 1000000 };
		uint64_t i = 0;

		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]) && counts[k] <= n; k++) {
			struct t32_estimate e;

			for (; i < counts[k]; i++)
				min = d[i] < min ? d[i] : min;
			t32_estimate(d, counts[k], t32_machine_tsc_step(NULL), &e);
			fprintf(o, "%llu\t%llu\t%.3f\t%.3f\t%.3f\n", (unsigned long long)counts[k],
				(unsigned long long)min, e.value, e.lo, e.hi);
		}
	}
	free(d);
	if (t32_fclose_out(o))
		return -1;
	plot(st, "min-vs-count", "min-vs-count.tsv", "min-vs-count", NULL);
	return 0;
}

/* Recipe 3: the 24-form table at n = 100 .. 100,000, and its heat map. */
static int recipe_table(struct study *st)
{
	char out[PATH_MAX], heat[PATH_MAX], tbl[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	FILE *in, *o;

	snprintf(tbl, sizeof(tbl), "%s/coursework.tbl", t32_datadir());
	path_in(st, "table.tsv", out, sizeof(out));
	{
		char *argv[] = { st->self, "sweep", "--n", "100,1000,10000,100000", "--mode", "latency",
				 "--unit", "ticks", "--barrier", (char *)st->barrier,
				 "--budget", (char *)st->p->table_budget,
				 "--block-precision", (char *)st->p->table_block_precision,
				 "-o", out, tbl, NULL };

		if (run(st, NULL, argv))
			return -1;
	}
	/* the heat map wants form, n, per_insn */
	in = fopen(out, "r");
	o = t32_fopen_out(path_in(st, "table-heatmap.tsv", heat, sizeof(heat)));
	if (!in || !o) {
		if (in)
			fclose(in);
		if (o)
			t32_fabort_out(o);
		return -1;
	}
	fprintf(o, "# from table.tsv: (t - bar) / n, sub-quantum estimate\nform\tn\tper_insn\n");
	while (getline(&line, &cap, in) > 0) {
		char *f[8], *save = NULL, *tok = strtok_r(line, "\t\n", &save);
		int k = 0;

		if (!tok || line[0] == '#' || strcmp(tok, "row") == 0)
			continue;
		/* row form mode n k unit estimate */
		for (; tok && k < 7; tok = strtok_r(NULL, "\t\n", &save))
			f[k++] = tok;
		if (k == 7)
			fprintf(o, "%s\t%s\t%s\n", f[1], f[3], f[6]);
	}
	free(line);
	fclose(in);
	if (t32_fclose_out(o))
		return -1;
	plot(st, "heatmap", "table-heatmap.tsv", "table-heatmap", NULL);
	return 0;
}

/* Recipe 4: step curves of inc eax and add eax, 1 for n = 1..100, with fit and steps. */
static int recipe_steps(struct study *st)
{
	static const struct { const char *insn, *base; } curves[] = {
		{ "inc eax", "steps-inc" },
		{ "add eax, 1", "steps-add" },
	};
	int rc = 0;

	for (size_t c = 0; c < sizeof(curves) / sizeof(curves[0]); c++) {
		char sw[PATH_MAX], out[PATH_MAX], steps[PATH_MAX], name[64];
		double x[128], y[128], lo[128], hi[128], mn[128], *res;
		size_t n = 0;
		char *line = NULL;
		size_t cap = 0;
		struct t32_linfit lf;
		struct t32_steps s = { 0 };
		struct t32_steps_opts so = { 0 };
		FILE *in, *o;

		snprintf(name, sizeof(name), "%s.sweep.tsv", curves[c].base);
		path_in(st, name, sw, sizeof(sw));
		{
			char *argv[] = { st->self, "sweep", "--n", "1..100",
					 "--budget", (char *)st->p->steps_budget,
					 "--block-precision", (char *)st->p->steps_block_precision,
					 "-o", sw, (char *)st->barrier, "m", (char *)curves[c].insn, NULL };

			if (run(st, NULL, argv)) {
				rc = -1;
				continue;
			}
		}
		in = fopen(sw, "r");
		if (!in) {
			rc = -1;
			continue;
		}
		while (getline(&line, &cap, in) > 0 && n < 128) {
			char *f[12], *save = NULL, *tok = strtok_r(line, "\t\n", &save);
			int k = 0;

			if (!tok || line[0] == '#' || strcmp(tok, "row") == 0)
				continue;
			for (; tok && k < 12; tok = strtok_r(NULL, "\t\n", &save))
				f[k++] = tok;
			if (k < 12)
				continue;
			/* row form mode n k unit estimate ci_lo ci_hi total min_est median */
			x[n] = strtod(f[3], NULL);
			y[n] = strtod(f[9], NULL);
			lo[n] = strtod(f[7], NULL) * x[n];
			hi[n] = strtod(f[8], NULL) * x[n];
			mn[n] = strtod(f[10], NULL) * x[n];
			n++;
		}
		free(line);
		fclose(in);
		res = calloc(n ? n : 1, sizeof(double));
		if (!res || n < 3 || t32_linfit(x, y, n, res, &lf) ||
		    t32_steps_find(x, mn, n, &so, &s)) {
			free(res);
			rc = -1;
			continue;
		}
		snprintf(name, sizeof(name), "%s.tsv", curves[c].base);
		o = t32_fopen_out(path_in(st, name, out, sizeof(out)));
		snprintf(name, sizeof(name), "%s.steps.tsv", curves[c].base);
		FILE *so_f = t32_fopen_out(path_in(st, name, steps, sizeof(steps)));

		if (!o || !so_f) {
			if (o)
				t32_fabort_out(o);
			if (so_f)
				t32_fabort_out(so_f);
			free(res);
			t32_steps_free(&s);
			rc = -1;
			continue;
		}
		fprintf(o, "# recipe: steps, %s m n x '%s'\n"
			   "# fit: cycles = %.3f + %.4f n (robust; se %.3f, %.4f)\n"
			   "# steps in the study's minimum curve: %zu, period %.2f%s\n"
			   "# unit: core cycles per block\n"
			   "n\tcycles\tcycles_lo\tcycles_hi\tmin_cycles\tfit\tstep\n",
			st->barrier, curves[c].insn, lf.a, lf.b, lf.se_a, lf.se_b, s.nsteps,
			s.period, s.periodic ? " (periodic)" : "");
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
		free(res);
		t32_steps_free(&s);
		if (t32_fclose_out(o) | t32_fclose_out(so_f)) {
			rc = -1;
			continue;
		}
		snprintf(name, sizeof(name), "%s.tsv", curves[c].base);
		plot(st, "step-curve", name, curves[c].base, steps);
	}
	return rc;
}

/* Recipe 5: C1 n C2 with C1 = inc ebx, C2 = inc eax (the study's 43 n 40). */
static int recipe_combos(struct study *st)
{
	char sw[PATH_MAX], single[PATH_MAX];

	path_in(st, "combos.tsv", sw, sizeof(sw));
	{
		char *argv[] = { st->self, "sweep", "--n", "0,1,2,3,10,100",
				 "--budget", (char *)st->p->combo_budget, "--block-precision", "0.3",
				 "-o", sw, (char *)st->barrier, "m", "inc ebx", "inc eax", NULL };

		if (run(st, NULL, argv))
			return -1;
	}
	path_in(st, "combos-single.tsv", single, sizeof(single));
	{
		char *argv[] = { st->self, "sweep", "--n", "1",
				 "--budget", (char *)st->p->combo_budget, "--block-precision", "0.3",
				 "-o", single, (char *)st->barrier, "m", "inc eax", NULL };

		if (run(st, NULL, argv))
			return -1;
	}
	return 0;
}

/* The value of `# key: value` in text, into buf ("" when absent). */
static void summary_value(const char *text, const char *key, char *buf, size_t len)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "# %s: ", key);
	buf[0] = 0;
	if (!text || !(p = strstr(text, pat)))
		return;
	p += strlen(pat);
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Recipe 6 ("Where do interrupts happen?"): every block of data/blocks sampled,
 * swept and fitted with `t32 correlate`; a summary table and each block's
 * measured and predicted shares.
 */
static int recipe_interrupts(struct study *st)
{
	char dir[PATH_MAX], blocks[PATH_MAX], out[PATH_MAX], *names[64];
	size_t n = 0;
	DIR *d;
	struct dirent *e;
	FILE *o;
	int rc = 0;

	snprintf(blocks, sizeof(blocks), "%s/blocks", t32_datadir());
	path_in(st, "interrupts", dir, sizeof(dir));
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	d = opendir(blocks);
	if (!d) {
		t32_error("cannot read '%s' (%s)", blocks, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) && n < 64) {
		size_t l = strlen(e->d_name);

		if (l > 4 && strcmp(e->d_name + l - 4, ".blk") == 0)
			names[n++] = strndup(e->d_name, l - 4);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), by_name);
	o = t32_fopen_out(path_in(st, "interrupts.tsv", out, sizeof(out)));
	if (!o)
		return -1;
	fprintf(o, "# recipe: interrupts, t32 correlate on each block of data/blocks\n"
		   "block\tsamples\ttvd\tchi2_p\tretire_width\tretire_group\tcycles_measured\t"
		   "cycles_predicted\tcycles_error_percent\tcurve_r\n");
	for (size_t i = 0; i < n; i++) {
		char sub[PATH_MAX], rel[PATH_MAX], *argv[] = { st->self, "correlate", "--format=tsv",
			"--seconds", (char *)st->p->interrupt_seconds, "-o", sub, names[i], NULL };
		struct t32_child_output res;
		char v[9][64];
		static const char *const keys[] = { "samples", "tvd", "chi2_p", "retire_width",
			"retire_group",
			"cycles_per_iter_measured", "cycles_per_iter_predicted",
			"cycles_error_percent", "curve_r" };

		snprintf(rel, sizeof(rel), "interrupts/%s", names[i]);
		path_in(st, rel, sub, sizeof(sub));
		fprintf(stderr, "t32 study: interrupts: %s\n", names[i]);
		if (t32_run_program(argv, &res) || res.status) {
			t32_error("correlate failed on '%s'%s%s", names[i], res.text ? ": " : "",
				  res.text ? res.text : "");
			t32_child_output_free(&res);
			rc = -1;
			continue;
		}
		for (size_t k = 0; k < 9; k++)
			summary_value(res.text, keys[k], v[k], sizeof(v[k]));
		fprintf(o, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", names[i], v[0], v[1],
			v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
		t32_child_output_free(&res);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return t32_fclose_out(o) || rc ? -1 : 0;
}

/*
 * Recipe 7, "all forms" (the full profile, or named): the generated full table
 * (t32 table gen) swept at +-0.02 cycles, resumable, and the forms whose latency
 * or throughput lies off the table's published value, with both (t32 compare
 * --differing, in allforms/).
 */
static int recipe_allforms(struct study *st)
{
	char tbl[PATH_MAX], tsv[PATH_MAX], dir[PATH_MAX];
	char *gen[] = { st->self, "table", "gen", "--quiet", "-o", tbl, NULL };
	char *sweep[] = { st->self, "sweep", "--n", "840", "--k-list", "12", "--precision", "0.02",
			  "--resume", "-o", tsv, tbl, NULL };
	char *cmp[] = { st->self, "compare", "--differing", "-o", dir, tsv, NULL };

	path_in(st, "allforms.tbl", tbl, sizeof(tbl));
	path_in(st, "allforms.tsv", tsv, sizeof(tsv));
	path_in(st, "allforms", dir, sizeof(dir));
	return run(st, NULL, gen) || run(st, NULL, sweep) || run(st, NULL, cmp) ? -1 : 0;
}

static const struct recipe {
	const char *name;
	int (*fn)(struct study *st);
	const char *summary;
} recipes[] = {
	{ "scatter", recipe_scatter, "1,000 measurements of 100,000 inc eax, one by one" },
	{ "min-vs-count", recipe_min_vs_count, "the empty block's minimum against the number of measurements" },
	{ "table", recipe_table, "the 24-form table of (t - bar) / n at n = 100 .. 100,000" },
	{ "steps", recipe_steps, "step curves of inc eax and add eax, 1 for n = 1..100" },
	{ "combos", recipe_combos, "C1 n C2 (inc ebx, n x inc eax) for n = 0, 1, 2, 3, 10, 100" },
	{ "interrupts", recipe_interrupts, "where interrupts land in the study's blocks, measured and modelled" },
	{ "allforms", recipe_allforms, "the generated full table; forms off their published values (full profile)" },
	{ NULL, NULL, NULL }
};

/* Copy a TSV's data rows into the page as an HTML table. */
static void html_table(FILE *h, const char *path, int maxcols)
{
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int header = 1;

	if (!in)
		return;
	fprintf(h, "<table>\n");
	while (getline(&line, &cap, in) > 0) {
		char *save = NULL, *tok;
		int k = 0;

		if (line[0] == '#')
			continue;
		fprintf(h, "<tr>");
		for (tok = strtok_r(line, "\t\n", &save); tok && k < maxcols;
		     tok = strtok_r(NULL, "\t\n", &save), k++) {
			fprintf(h, header ? "<th>" : "<td>");
			for (char *p = tok; *p; p++)
				fputs(*p == '<' ? "&lt;" : *p == '&' ? "&amp;" : (char[]){ *p, 0 }, h);
			fprintf(h, header ? "</th>" : "</td>");
		}
		fprintf(h, "</tr>\n");
		header = 0;
	}
	fprintf(h, "</table>\n");
	free(line);
	fclose(in);
}

/* The index page: the machine, then each recipe's figure and data. */
static int write_index(struct study *st, unsigned done)
{
	char path[PATH_MAX], env[PATH_MAX];
	FILE *h;

	path_in(st, "env.json", env, sizeof(env));
	{
		char *argv[] = { st->self, "env", "--format=json", NULL };

		run(st, env, argv);
	}
	h = t32_fopen_out(path_in(st, "index.html", path, sizeof(path)));
	if (!h)
		return -1;
	fprintf(h, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>t32 study: %s</title>\n"
		   "<style>body{font-family:sans-serif;max-width:72em;margin:auto}"
		   "table{border-collapse:collapse;font-size:90%%}td,th{border:1px solid #ccc;padding:2px 6px}"
		   "img{max-width:100%%}</style></head><body>\n", st->machine);
	fprintf(h, "<h1>The t32 coursework study, reproduced</h1>\n<p>Machine: <b>%s</b>; profile "
		   "<b>%s</b>; barrier <b>%s</b>. The machine's clock, barrier costs and sampling "
		   "facilities are in <a href=\"env.json\">env.json</a>.</p>\n",
		st->machine, st->p->name, st->barrier);
	{
		FILE *e = fopen(env, "r");
		char buf[4096];
		size_t n;

		if (e) {
			n = fread(buf, 1, sizeof(buf) - 1, e);
			buf[n] = 0;
			fclose(e);
			fprintf(h, "<pre>%s</pre>\n", buf);
		}
	}
	if (done & 1)
		fprintf(h, "<h2>1. Every measurement</h2><p>1,000 measurements of 100,000 "
			   "<code>inc eax</code>, with the minimum.</p><img src=\"scatter.svg\">"
			   "<p><a href=\"scatter.tsv\">scatter.tsv</a></p>\n");
	if (done & 2) {
		fprintf(h, "<h2>2. How many measurements are enough</h2><p>The empty block's minimum "
			   "over the first COUNT measurements (the study's 452 &rarr; 376 ticks), and "
			   "t32's sub-quantum estimate over the same measurements.</p>"
			   "<img src=\"min-vs-count.svg\">\n");
		html_table(h, path_in(st, "min-vs-count.tsv", path, sizeof(path)), 5);
	}
	if (done & 4) {
		fprintf(h, "<h2>3. The 24-form table</h2><p>(t &minus; bar) / n in TSC ticks at "
			   "n = 100 &hellip; 100,000 (<a href=\"table.tsv\">table.tsv</a>: intervals, "
			   "minimum-based values, runs).</p><img src=\"table-heatmap.svg\">\n");
	}
	if (done & 8)
		fprintf(h, "<h2>4. Step curves</h2><p>Core cycles of n = 1&hellip;100 copies, the "
			   "robust line fit, and the steps found in the study's minimum-based curve "
			   "(<a href=\"steps-inc.tsv\">steps-inc.tsv</a>, "
			   "<a href=\"steps-add.tsv\">steps-add.tsv</a>).</p>"
			   "<img src=\"steps-inc.svg\"><img src=\"steps-add.svg\">\n");
	if (done & 16) {
		fprintf(h, "<h2>5. Combinations C1 n C2</h2><p>C1 = <code>inc ebx</code>, "
			   "C2 = <code>inc eax</code>; <code>total</code> is the block's cost over the "
			   "barrier, in core cycles.</p>\n");
		html_table(h, path_in(st, "combos.tsv", path, sizeof(path)), 12);
		fprintf(h, "<p>C2 alone:</p>\n");
		html_table(h, path_in(st, "combos-single.tsv", path, sizeof(path)), 12);
	}
	if (done & 32) {
		fprintf(h, "<h2>6. Where do interrupts happen?</h2><p>Each block of "
			   "<code>data/blocks</code> run as a loop under timer interrupts, and the "
			   "retirement model fitted to its samples and its step curve together "
			   "(<code>t32 correlate</code>). A timer interrupt's sample lands on the "
			   "instruction after the one that held retirement up. <code>tvd</code> is the "
			   "total variation distance between measured and predicted shares.</p>\n");
		html_table(h, path_in(st, "interrupts.tsv", path, sizeof(path)), 10);
		{
			FILE *t = fopen(path, "r");
			char *line = NULL;
			size_t cap = 0;

			while (t && getline(&line, &cap, t) > 0) {
				char name[128];

				if (line[0] == '#' || strncmp(line, "block\t", 6) == 0)
					continue;
				snprintf(name, sizeof(name), "%.*s", (int)strcspn(line, "\t"), line);
				fprintf(h, "<h3>%s</h3><img src=\"interrupts/%s/shares.svg\">"
					   "<img src=\"interrupts/%s/model-overlay.svg\">\n", name, name,
					name);
			}
			free(line);
			if (t)
				fclose(t);
		}
	}
	if (done & 64) {
		FILE *t = fopen(path_in(st, "allforms/compare.tsv", path, sizeof(path)), "r");
		char line[1024];

		fprintf(h, "<h2>7. All forms</h2><p>Every form of the generated table "
			   "(<a href=\"allforms.tbl\">allforms.tbl</a>, <code>t32 table gen</code>) "
			   "in latency and throughput mode (<a href=\"allforms.tsv\">allforms.tsv</a>); "
			   "the forms whose value lies off the table's published value, with both: "
			   "<a href=\"allforms/index.html\">allforms/index.html</a>.</p>\n");
		while (t && fgets(line, sizeof(line), t) && line[0] == '#')
			if (!strncmp(line, "# machine m1:", 13) && strstr(line, " published value"))
				fprintf(h, "<p>%s</p>\n", strrchr(line, '|') ? strrchr(line, '|') + 2 : line);
		if (t)
			fclose(t);
	}
	fprintf(h, "</body></html>\n");
	return t32_fclose_out(h);
}

/* plots/: $T32_PLOTDIR, beside data/ in the tree, or data/plots when installed. */
static void find_plotdir(char *buf, size_t len)
{
	const char *env = getenv("T32_PLOTDIR");
	struct stat st;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	snprintf(buf, len, "%s/../plots", t32_datadir());
	if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
		return;
	snprintf(buf, len, "%s/plots", t32_datadir());
}

int cmd_study(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "profile", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "barrier", required_argument, NULL, 'b' },
		{ "no-plots", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 }
	};
	struct study st = { .p = &profiles[0], .dir = "report", .barrier = "l", .plots = 1 };
	struct t32_cpu cpu;
	unsigned done = 0;
	ssize_t n;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			printf("usage: %s\n\nRecipes (all when none is named):\n", study_usage);
			for (const struct recipe *r = recipes; r->name; r++)
				printf("  %-14s %s\n", r->name, r->summary);
			printf("\nProfiles: quick (default, a few minutes) and full (the study's precision).\n"
			       "Writes DIR/NAME.tsv, DIR/NAME.svg and .png, and DIR/index.html.\n");
			return t32_close_stdout();
		case 'p':
			st.p = NULL;
			for (const struct profile *p = profiles; p->name; p++)
				if (strcmp(optarg, p->name) == 0)
					st.p = p;
			if (!st.p) {
				t32_error("unknown profile '%s' (quick, full)", optarg);
				return T32_EXIT_USAGE;
			}
			break;
		case 'o':
			st.dir = optarg;
			break;
		case 'b':
			st.barrier = optarg;
			break;
		case 'n':
			st.plots = 0;
			break;
		default:
			return t32_usage(study_usage);
		}
	}
	for (int i = optind; i < argc; i++) {
		const struct recipe *r = recipes;

		while (r->name && strcmp(r->name, argv[i]))
			r++;
		if (!r->name) {
			t32_error("unknown recipe '%s'", argv[i]);
			return T32_EXIT_USAGE;
		}
	}
	n = readlink("/proc/self/exe", st.self, sizeof(st.self) - 1);
	if (n <= 0) {
		t32_error("cannot find this program '%s'", "/proc/self/exe");
		return T32_EXIT_ERROR;
	}
	st.self[n] = 0;
	find_plotdir(st.plotdir, sizeof(st.plotdir));
	t32_cpu_identify(&cpu);
	snprintf(st.machine, sizeof(st.machine), "%s", cpu.brand);
	if (mkdir(st.dir, 0755) && errno != EEXIST) {
		t32_error("cannot make '%s' (%s)", st.dir, strerror(errno));
		return T32_EXIT_ERROR;
	}
	for (const struct recipe *r = recipes; r->name; r++) {
		int want = optind >= argc;
		double t0 = t32_now();

		/* all forms takes minutes: the full profile's, or when named */
		if (r->fn == recipe_allforms && strcmp(st.p->name, "full"))
			want = 0;
		for (int i = optind; i < argc; i++)
			want |= strcmp(argv[i], r->name) == 0;
		if (!want)
			continue;
		fprintf(stderr, "t32 study: %s ...\n", r->name);
		if (r->fn(&st)) {
			t32_error("recipe failed '%s'", r->name);
			st.failures++;
		} else {
			done |= 1u << (r - recipes);
			fprintf(stderr, "t32 study: %s done in %.1f s\n", r->name, t32_now() - t0);
		}
	}
	if (write_index(&st, done)) {
		t32_error("cannot write the index '%s/index.html'", st.dir);
		st.failures++;
	}
	printf("%s/index.html\n", st.dir);
	if (t32_close_stdout())
		return T32_EXIT_ERROR;
	return st.failures ? T32_EXIT_ERROR : 0;
}
