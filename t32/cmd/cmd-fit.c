/*
 * cmd-fit.c - `t32 fit`: the line and the steps of a sweep, per instruction form.
 *
 * Reads a TSV (# comment lines, a header row of column names), groups its rows
 * by columns (form and mode, those there are), fits y = a + b x robustly and
 * finds the steps of y against x in each group, and prints a table, TSV or JSON.
 * By default y is a sweep's `total` (the block over the barrier) against n, so
 * the slope is the cost per instruction.
 */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit.h"
#include "t32/cmd/cmd.h"
#include "t32/cmd/options.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

#define FIT_USAGE \
	"t32 fit [--format=table|tsv|json] [--x COL] [--y COL] [--by COL] [--min-jump Y] FILE.tsv"

/* The rows of one group, and what was found in them. */
struct fit_group {
	char *name;
	double *x, *y;		/* x and y units are the input columns' */
	size_t n, cap;
	size_t skipped;		/* rows with an empty, "-" or "nan" x or y */
	struct t32_linfit fit;
	int fitted;		/* 1 when fit holds a line */
	struct t32_steps steps;
	int stepped;		/* 1 when steps holds a result */
};

struct fit_input {
	struct fit_group *g;
	size_t ng, cap;
	size_t *slot;		/* hash of group names: index + 1, 0 for empty */
	size_t nslot;		/* a power of two, at least twice ng */
	char **comments;	/* the input's own # lines, without the '#' */
	size_t ncomments;
};

/* A cell that stands for a missing value: the row is skipped, not an error. */
static int fit_missing(const char *s)
{
	static const char *const missing[] = { "", "-", "nan", "NaN", "NA" };

	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++)
		if (strcmp(s, missing[i]) == 0)
			return 1;
	return 0;
}

/* Parse a finite number; 0, or -1 when s is not one. */
static int fit_number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(*v))
		return -1;
	return 0;
}

/* The group called name, created at the end when new; NULL when out of memory. */
/* FNV-1a of a group name. */
static size_t fit_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return (size_t)h;
}

/* Put group i in the hash; -1 when out of memory (growing it). */
static int fit_index(struct fit_input *in, size_t i)
{
	if (2 * (in->ng + 1) > in->nslot) {
		size_t n = in->nslot ? 2 * in->nslot : 64, *t = calloc(n, sizeof(*t));

		if (!t)
			return -1;
		free(in->slot);
		in->slot = t;
		in->nslot = n;
		for (size_t k = 0; k < in->ng; k++)
			if (k != i && fit_index(in, k))
				return -1;
	}
	for (size_t h = fit_hash(in->g[i].name) & (in->nslot - 1);; h = (h + 1) & (in->nslot - 1))
		if (!in->slot[h]) {
			in->slot[h] = i + 1;
			return 0;
		}
}

/*
 * The group called name, created at the end when new; NULL when out of memory.
 * Found through a hash (a search per row is quadratic in a 40,000-form table).
 */
static struct fit_group *fit_group(struct fit_input *in, const char *name)
{
	if (in->ng && strcmp(in->g[in->ng - 1].name, name) == 0)
		return &in->g[in->ng - 1];
	for (size_t h = in->nslot ? fit_hash(name) & (in->nslot - 1) : 0;
	     in->nslot && in->slot[h]; h = (h + 1) & (in->nslot - 1))
		if (strcmp(in->g[in->slot[h] - 1].name, name) == 0)
			return &in->g[in->slot[h] - 1];
	if (in->ng == in->cap) {
		size_t cap = in->cap ? 2 * in->cap : 8;
		struct fit_group *g = realloc(in->g, cap * sizeof(*g));
		if (!g)
			return NULL;
		in->g = g;
		in->cap = cap;
	}
	struct fit_group *g = &in->g[in->ng];
	memset(g, 0, sizeof(*g));
	g->name = strdup(name);
	if (!g->name)
		return NULL;
	if (fit_index(in, in->ng)) {
		free(g->name);
		return NULL;
	}
	in->ng++;
	return g;
}

/* Append a point to a group; -1 when out of memory. */
static int fit_push(struct fit_group *g, double x, double y)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		double *nx = realloc(g->x, cap * sizeof(*nx));
		if (!nx)
			return -1;
		g->x = nx;
		double *ny = realloc(g->y, cap * sizeof(*ny));
		if (!ny)
			return -1;
		g->y = ny;
		g->cap = cap;
	}
	g->x[g->n] = x;
	g->y[g->n] = y;
	g->n++;
	return 0;
}

/* Release the groups and the kept comment lines. */
static void fit_input_free(struct fit_input *in)
{
	for (size_t i = 0; i < in->ng; i++) {
		free(in->g[i].name);
		free(in->g[i].x);
		free(in->g[i].y);
		t32_steps_free(&in->g[i].steps);
	}
	free(in->g);
	free(in->slot);
	t32_free_strings(in->comments, in->ncomments);
	memset(in, 0, sizeof(*in));
}

/*
 * Which columns to read, by name.  by is a comma-separated list of columns whose
 * values together name a group ("form,mode": one fit per form and mode), NULL for
 * one group; by_auto: use those of them the file has.
 */
#define FIT_BY_MAX 4
#define FIT_SEP "\x1f"		/* between the by values in a group's name */
struct fit_cols {
	const char *x, *y, *by;
	int by_auto;
	size_t nby;			/* after reading: the by columns used */
	char by_names[FIT_BY_MAX][64];
};

/* A `#` line kept for the provenance of the output; 0, or -1 after a message. */
static int fit_comment(struct fit_input *in, const char *line, const char *path)
{
	char **nc;

	if (in->ncomments >= 4096) {
		t32_error("more than 4096 comment lines in '%s'", path);
		return -1;
	}
	if (!(nc = realloc(in->comments, (in->ncomments + 1) * sizeof(*nc)))) {
		t32_error("out of memory reading '%s'", path);
		return -1;
	}
	in->comments = nc;
	if (!(nc[in->ncomments] = strdup(line))) {
		t32_error("out of memory reading '%s'", path);
		return -1;
	}
	in->ncomments++;
	return 0;
}

/*
 * The header row (split in t): the x and y columns and the group columns, each
 * named one or, by default, those the file has.  0, or -1 after a message.
 */
static int fit_header(const struct t32_tsv *t, const char *path, struct fit_cols *c, long *xi,
		      long *yi, long *bi)
{
	const char *lack;

	*xi = t32_tsv_column(t->fields, t->nfields, c->x);
	*yi = t32_tsv_column(t->fields, t->nfields, c->y);
	lack = *xi < 0 ? c->x : *yi < 0 ? c->y : NULL;
	if (lack) {
		t32_error("no column '%s' in '%s'%s", lack, path,
			  lack == c->y ? " (--y names the column to fit)" : "");
		return -1;
	}
	c->nby = 0;
	for (const char *p = c->by; p && *p;) {
		size_t l = strcspn(p, ",");
		char name[64];
		long k;

		snprintf(name, sizeof(name), "%.*s", (int)(l < 63 ? l : 63), p);
		p += l + (p[l] == ',');
		if (!name[0])
			continue;
		k = t32_tsv_column(t->fields, t->nfields, name);
		if (k < 0 && !c->by_auto) {
			t32_error("no column '%s' in '%s'", name, path);
			return -1;
		}
		if (k >= 0 && c->nby < FIT_BY_MAX) {
			bi[c->nby] = k;
			snprintf(c->by_names[c->nby++], sizeof(c->by_names[0]), "%s", name);
		}
	}
	return 0;
}

/*
 * One data row (split in t) into its group: skipped when x or y is missing.  0,
 * or -1 after a message (too few columns, not a number, memory).
 */
static int fit_row(const struct t32_tsv *t, const char *path, const struct fit_cols *c,
		   long xi, long yi, const long *bi, struct fit_input *in)
{
	char **f = t->fields, key[4096];
	long need = xi > yi ? xi : yi;
	size_t kl = 0;
	struct fit_group *g;
	double x, y;

	for (size_t k = 0; k < c->nby; k++)
		if (bi[k] > need)
			need = bi[k];
	if ((long)t->nfields <= need) {
		t32_error("too few columns in '%s' (line %zu)", path, t->lineno);
		return -1;
	}
	/* the group's name: its by values, a tab between them (escaped again on output) */
	key[0] = 0;
	for (size_t k = 0; k < c->nby && kl < sizeof(key); k++)
		kl += (size_t)snprintf(key + kl, sizeof(key) - kl, "%s%s", k ? FIT_SEP : "", f[bi[k]]);
	if (!(g = fit_group(in, c->nby ? key : "all"))) {
		t32_error("out of memory reading '%s'", path);
		return -1;
	}
	if (fit_missing(f[xi]) || fit_missing(f[yi])) {
		g->skipped++;
		return 0;
	}
	if (fit_number(f[xi], &x) < 0 || fit_number(f[yi], &y) < 0) {
		t32_error("not a number '%s' in '%s' (line %zu)",
			  fit_number(f[xi], &x) < 0 ? f[xi] : f[yi], path, t->lineno);
		return -1;
	}
	/* n counts copies of the body: a whole number, never below zero */
	if ((strcmp(c->x, "n") == 0 && (x < 0 || x != floor(x))) ||
	    (strcmp(c->y, "n") == 0 && (y < 0 || y != floor(y)))) {
		t32_error("not a count of copies '%s' in '%s' (line %zu, column n)",
			  strcmp(c->x, "n") == 0 ? f[xi] : f[yi], path, t->lineno);
		return -1;
	}
	if (fit_push(g, x, y) < 0) {
		t32_error("out of memory reading '%s'", path);
		return -1;
	}
	return 0;
}

/*
 * Read path ("-": stdin) into groups.  Returns 0, or 1 after an error message.
 * *by_used is set to whether rows were grouped.
 */
static int fit_read(const char *path, struct fit_cols *c, struct fit_input *in, int *by_used)
{
	struct t32_tsv t;
	size_t rows = 0;
	long xi = -1, yi = -1, bi[FIT_BY_MAX];
	int ret = T32_EXIT_ERROR, got, head = 0;

	/* one bounded reader for t32's TSV: fields unescaped, endless lines refused */
	if (t32_tsv_open(&t, path))
		return T32_EXIT_ERROR;
	while ((got = t32_tsv_next(&t)) > 0) {
		if (t.line[0] == '#') {
			if (fit_comment(in, t.line + 1, path))
				goto out;
			continue;
		}
		if (t.line[strspn(t.line, " \t")] == '\0')
			continue;
		t32_tsv_split(&t);
		if (!head) {
			if (fit_header(&t, path, c, &xi, &yi, bi))
				goto out;
			head = 1;
			continue;
		}
		if (++rows > T32_TSV_ROWS_MAX) {
			/* an endless stream of rows stops here, not at the end of memory */
			t32_error("more than %u rows in '%s' (line %zu)", T32_TSV_ROWS_MAX, path,
				  t.lineno);
			goto out;
		}
		if (fit_row(&t, path, c, xi, yi, bi, in))
			goto out;
	}
	if (got < 0)
		goto out;
	if (!head) {
		t32_error("no header row in '%s'", path);
		goto out;
	}
	if (in->ng == 0) {
		t32_error("no data rows in '%s'", path);
		goto out;
	}
	*by_used = c->nby > 0;
	ret = 0;
out:
	t32_tsv_close(&t);
	return ret;
}

/* Fit the line and find the steps of every group. */
static void fit_groups(struct fit_input *in, const struct t32_steps_opts *o)
{
	for (size_t i = 0; i < in->ng; i++) {
		struct fit_group *g = &in->g[i];
		g->fitted = t32_linfit(g->x, g->y, g->n, NULL, &g->fit) == 0;
		g->stepped = g->n && t32_steps_find(g->x, g->y, g->n, o, &g->steps) == 0;
	}
}

/* The # lines on top of TSV output: what made it, from what, and the input's own. */
static void fit_provenance(int argc, char **argv, const char *path, const struct fit_cols *c,
			   const struct fit_input *in, int by_used)
{
	t32_provenance(stdout, argc, argv);
	printf("# input: %s\n", path);
	printf("# fit: y = intercept + slope * x, x = '%s', y = '%s', grouped by ", c->x, c->y);
	for (size_t k = 0; k < c->nby; k++)
		printf("%s'%s'", k ? " and " : "", c->by_names[k]);
	printf("%s\n", by_used ? "" : "nothing");
	printf("# units: intercept, rms, noise, step heights in y's unit; slope in y's unit per x's unit;"
	       " period, step x in x's unit\n");
	for (size_t i = 0; i < in->ncomments; i++)
		printf("# >%s\n", in->comments[i]);
}

/* A number for TSV, "-" when there is none. */
static void fit_tsv_num(double v)
{
	if (isfinite(v))
		printf("\t%.6g", v);
	else
		printf("\t-");
}

/* One TSV row per group: fit, steps and rhythm, "-" where there is none. */
/* A group's name as TSV fields: each by value escaped, a tab between them. */
static void fit_tsv_name(const char *name)
{
	char *copy = strdup(name), *save = NULL;

	if (!copy)
		return;
	for (char *p = strtok_r(copy, FIT_SEP, &save), *first = p; p; p = strtok_r(NULL, FIT_SEP, &save)) {
		if (p != first)
			putchar('\t');
		t32_tsv_fputs(p, stdout);
	}
	free(copy);
}

/* A group's name for people: the by values, a space between them. */
static void fit_human_name(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s", name);
	for (char *p = buf; (p = strstr(p, FIT_SEP)); p++)
		*p = ' ';
}

static void fit_print_tsv(const struct fit_input *in, const struct fit_cols *c)
{
	if (c->nby)
		for (size_t k = 0; k < c->nby; k++)
			printf("%s%s", k ? "\t" : "", c->by_names[k]);
	else
		printf("group");
	printf("\tpoints\tskipped\tintercept\tintercept_se\tslope\tslope_se\tr2\trms\tfit\trejected"
	       "\tplateaus\tsteps\tstep_x\tstep_height\tperiod\tperiod_rms\tregular\tperiodic"
	       "\theight_mean\theight_sd\tnoise\n");
	for (size_t i = 0; i < in->ng; i++) {
		const struct fit_group *g = &in->g[i];
		const struct t32_linfit *f = &g->fit;
		const struct t32_steps *s = &g->steps;
		fit_tsv_name(g->name);	/* escaped as the input was */
		printf("\t%zu\t%zu", g->n, g->skipped);
		if (g->fitted) {
			const double col[] = { f->a, f->se_a, f->b, f->se_b, f->r2, f->rms };

			for (size_t j = 0; j < sizeof(col) / sizeof(col[0]); j++)
				fit_tsv_num(col[j]);
			printf("\t%s\t%zu", f->robust ? "robust" : "ols", f->rejected);
		} else {
			printf("\t-\t-\t-\t-\t-\t-\t-\t-");
		}
		if (!g->stepped) {
			printf("\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\n");
			continue;
		}
		printf("\t%zu\t%zu\t", s->nplateaus, s->nsteps);
		for (size_t j = 0; j < s->nsteps; j++)
			printf("%s%.6g", j ? "," : "", s->steps[j].x);
		printf("%s\t", s->nsteps ? "" : "-");
		for (size_t j = 0; j < s->nsteps; j++)
			printf("%s%.6g", j ? "," : "", s->steps[j].height);
		printf("%s", s->nsteps ? "" : "-");
		if (s->nsteps >= 2) {
			fit_tsv_num(s->period);
			fit_tsv_num(s->period_rms);
			fit_tsv_num(s->regular);
		} else {
			printf("\t-\t-\t-");
		}
		printf("\t%d", s->periodic);
		if (s->nsteps) {
			fit_tsv_num(s->height_mean);
			fit_tsv_num(s->height_sd);
		} else {
			printf("\t-\t-");
		}
		fit_tsv_num(s->noise);
		printf("\n");
	}
}

/* value±se into buf, or "-". */
static const char *fit_pm(char *buf, size_t len, int have, double v, double se)
{
	if (!have || !isfinite(v))
		snprintf(buf, len, "-");
	else if (isfinite(se))
		snprintf(buf, len, "%.4g±%.2g", v, se);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

/* A table for people: one line per group, then the steps of each. */
static void fit_print_table(const struct fit_input *in, const struct fit_cols *c)
{
	char a[64], b[64], per[32], h[32], by[256] = "", name[4096];
	int w;

	for (size_t k = 0; k < c->nby; k++)
		snprintf(by + strlen(by), sizeof(by) - strlen(by), "%s%s", k ? " " : "",
			 c->by_names[k]);
	if (!c->nby)
		snprintf(by, sizeof(by), "group");
	w = (int)strlen(by);
	for (size_t i = 0; i < in->ng; i++)
		if ((int)strlen(in->g[i].name) > w)
			w = (int)strlen(in->g[i].name);
	printf("%s = intercept + slope * %s\n\n", c->y, c->x);
	printf("%-*s  %6s  %-18s  %-18s  %6s  %8s  %-6s  %5s  %8s  %7s  %8s\n", w, by, "points",
	       "intercept", "slope", "r2", "rms", "fit", "steps", "period", "regular", "height");
	for (size_t i = 0; i < in->ng; i++) {
		const struct fit_group *g = &in->g[i];
		const struct t32_steps *s = &g->steps;
		snprintf(per, sizeof(per), "-");
		snprintf(h, sizeof(h), "-");
		if (g->stepped && s->nsteps >= 2)
			snprintf(per, sizeof(per), "%.4g", s->period);
		if (g->stepped && s->nsteps)
			snprintf(h, sizeof(h), "%.4g", s->height_mean);
		/* ± is two bytes but one column: widen by one to keep columns straight. */
		fit_pm(a, sizeof(a), g->fitted, g->fit.a, g->fit.se_a);
		fit_pm(b, sizeof(b), g->fitted, g->fit.b, g->fit.se_b);
		fit_human_name(g->name, name, sizeof(name));
		printf("%-*s  %6zu  %-*s  %-*s  ", w, name, g->n,
		       strstr(a, "±") ? 19 : 18, a, strstr(b, "±") ? 19 : 18, b);
		if (g->fitted)
			printf("%6.4f  %8.4g  %-6s", g->fit.r2, g->fit.rms, g->fit.robust ? "robust" : "ols");
		else
			printf("%6s  %8s  %-6s", "-", "-", "-");
		if (g->stepped && s->nsteps >= 2)
			printf("  %5zu  %8s  %7.2f  %8s\n", s->nsteps, per, s->regular, h);
		else
			printf("  %5zu  %8s  %7s  %8s\n", g->stepped ? s->nsteps : 0, per, "-", h);
	}
	for (size_t i = 0; i < in->ng; i++) {
		const struct fit_group *g = &in->g[i];
		const struct t32_steps *s = &g->steps;
		if (!g->stepped || s->nsteps == 0)
			continue;
		fit_human_name(g->name, name, sizeof(name));
		printf("\n%s: steps at %s =", name, c->x);
		for (size_t j = 0; j < s->nsteps; j++)
			printf("%s %.6g (%+.4g)", j ? "," : "", s->steps[j].x, s->steps[j].height);
		if (s->periodic)
			printf("; periodic, every %.4g %s", s->period, c->x);
		printf("\n");
	}
	for (size_t i = 0; i < in->ng; i++)
		if (in->g[i].skipped) {
			fit_human_name(in->g[i].name, name, sizeof(name));
			printf("\n%s: %zu rows without a value skipped\n", name, in->g[i].skipped);
		}
}

/* A JSON number, null when there is none. */
static void fit_json_num(double v)
{
	if (isfinite(v))
		printf("%.10g", v);
	else
		printf("null");
}

/* `"key": number` for each of keys[0..n), comma-separated, null where there is no number. */
static void fit_json_nums(const char *const *keys, const double *v, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		printf("%s\"%s\": ", k ? ", " : "", keys[k]);
		fit_json_num(v[k]);
	}
}

/* JSON for programs: the same fields as the TSV, steps and plateaus as arrays. */
static void fit_print_json(const struct fit_input *in, const char *path, const struct fit_cols *c,
			   int by_used)
{
	const char *const head[][2] = { { "input", path }, { "x", c->x }, { "y", c->y } };

	t32_json_open(stdout, 0, NULL, head, 3);
	printf(", \"by\": ");
	if (by_used) {
		printf("[");
		for (size_t k = 0; k < c->nby; k++) {
			printf("%s", k ? ", " : "");
			t32_json_string(stdout, c->by_names[k]);
		}
		printf("]");
	} else {
		printf("null");
	}
	printf(", \"groups\": [");
	for (size_t i = 0; i < in->ng; i++) {
		const struct fit_group *g = &in->g[i];
		const struct t32_linfit *f = &g->fit;
		const struct t32_steps *s = &g->steps;
		char name[4096];

		fit_human_name(g->name, name, sizeof(name));
		printf("%s\n  {\"name\": ", i ? "," : "");
		t32_json_string(stdout, name);
		printf(", \"points\": %zu, \"skipped\": %zu, \"fit\": ", g->n, g->skipped);
		if (g->fitted) {
			static const char *const keys[] = { "intercept", "intercept_se", "slope",
							    "slope_se", "r2", "rms" };
			const double v[] = { f->a, f->se_a, f->b, f->se_b, f->r2, f->rms };

			printf("{");
			fit_json_nums(keys, v, 6);
			printf(", \"robust\": %s, \"rejected\": %zu}", f->robust ? "true" : "false",
			       f->rejected);
		} else {
			printf("null");
		}
		printf(", \"steps\": ");
		if (!g->stepped) {
			printf("null}");
			continue;
		}
		{
			/* the period's figures need two steps, the heights one */
			static const char *const keys[] = { "noise", "threshold", "period",
							    "period_rms", "regular" };
			static const char *const height[] = { "height_mean", "height_sd" };
			const double v[] = { s->noise, s->threshold,
					     s->nsteps >= 2 ? s->period : NAN,
					     s->nsteps >= 2 ? s->period_rms : NAN,
					     s->nsteps >= 2 ? s->regular : NAN };
			const double h[] = { s->nsteps ? s->height_mean : NAN,
					     s->nsteps ? s->height_sd : NAN };

			printf("{");
			fit_json_nums(keys, v, 5);
			printf(", \"periodic\": %s, ", s->periodic ? "true" : "false");
			fit_json_nums(height, h, 2);
		}
		printf(", \"at\": [");
		for (size_t j = 0; j < s->nsteps; j++) {
			static const char *const keys[] = { "x", "x_before", "height" };
			const double v[] = { s->steps[j].x, s->steps[j].x_before, s->steps[j].height };

			printf("%s{", j ? ", " : "");
			fit_json_nums(keys, v, 3);
			printf("}");
		}
		printf("], \"plateaus\": [");
		for (size_t j = 0; j < s->nplateaus; j++) {
			printf("%s{\"x0\": ", j ? ", " : "");
			fit_json_num(s->plateaus[j].x0);
			printf(", \"x1\": ");
			fit_json_num(s->plateaus[j].x1);
			printf(", \"points\": %zu, \"level\": ", s->plateaus[j].points);
			fit_json_num(s->plateaus[j].level);
			printf("}");
		}
		printf("]}}");
	}
	printf("\n]}\n");
}

/* --by COL[,COL]: the groups named, no longer the default's */
static int opt_by(const struct t32_option *row, const char *arg)
{
	struct fit_cols *c = row->ctx;

	c->by = arg;
	c->by_auto = 0;
	return 0;
}

/* The options into c, so and fmt; -1 to go on, else an exit code. */
static int fit_options(int argc, char **argv, struct fit_cols *c, struct t32_steps_opts *so,
		       enum t32_format *fmt, int *first)
{
	{
		const struct t32_option opts[] = {
			T32_OPT_FN("format", "F", t32_opt_format, fmt, "table for people (default), tsv with # provenance lines, json"),
			T32_OPT_STRING("x", 0, "COL", &c->x, "the x column (default n)"),
			T32_OPT_STRING("y", 0, "COL", &c->y, "the y column (default total: a sweep's whole block over the\n" "barrier, so the slope is the cost per instruction)"),
			T32_OPT_FN("by", "COL[,COL]", opt_by, c, "one fit per value of these columns (default form,mode, those\n" "present)"),
			T32_OPT_REAL("min-jump", "Y", &so->min_jump, DBL_MIN, DBL_MAX, "min-jump", "the smallest jump of y counted as a step (default: from the noise)"),
			T32_OPT_END
		};

		return t32_options_parse("fit", FIT_USAGE, "Fit a line y = intercept + slope * x to a "
				       "sweep and find its steps, per group.\n\n",
				       "\nFILE.tsv has # comment lines, then a header row of column names, "
				       "then rows;\n'-' reads standard input.  Rows with an empty, '-' or "
				       "'nan' value are skipped.\n", opts, argc, argv, first);
	}
}

/* `t32 fit`: see the top of this file.  Exit 0 ok, 1 error, 2 usage. */
int cmd_fit(int argc, char **argv)
{
	/* the block's cost against n: the slope is the cost per instruction */
	struct fit_cols c = { .x = "n", .y = "total", .by = "form,mode", .by_auto = 1 };
	struct t32_steps_opts so = { 0 };
	enum t32_format fmt = T32_FMT_TABLE;
	int rc = fit_options(argc, argv, &c, &so, &fmt, &optind);

	if (rc >= 0)
		return rc;
	if (argc - optind != 1)
		goto usage;

	const char *path = argv[optind];
	struct fit_input in = { 0 };
	int by_used = 0;
	if (fit_read(path, &c, &in, &by_used) != 0) {
		fit_input_free(&in);
		return T32_EXIT_ERROR;
	}
	fit_groups(&in, &so);
	switch (fmt) {
	case T32_FMT_TSV:
		fit_provenance(argc, argv, path, &c, &in, by_used);
		fit_print_tsv(&in, &c);
		break;
	case T32_FMT_JSON:
		fit_print_json(&in, path, &c, by_used);
		break;
	case T32_FMT_TABLE:
		fit_print_table(&in, &c);
		break;
	}
	fit_input_free(&in);
	return t32_close_stdout();
usage:
	return t32_usage(FIT_USAGE);
}
