/*
 * study.h - what the recipes of `t32 study` share (cmd-study.c holds the
 * recipes, study-page.c these helpers): the report directory and the machine it
 * describes, reading a TSV back by column name, drawing a figure, and writing
 * the parts of index.html.
 */
#ifndef T32_STUDY_H
#define T32_STUDY_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "t32/core/env.h"

struct profile {
	const char *name;
	unsigned scatter_runs;		/* scatter: measurements of 100,000 inc eax */
	unsigned min_counts_max;	/* min-vs-count: largest count */
	double table_budget;		/* table: seconds per row */
	double table_block_precision;	/* cycles on the whole block */
	double steps_budget;		/* steps: seconds per n */
	double steps_block_precision;	/* cycles on the whole block */
	double combo_budget;		/* combos: seconds per n */
	double interrupt_seconds;	/* interrupts: sampling time per block */
	double scale;			/* time taken against quick's */
};

struct study {
	const struct profile *p;
	const char *dir;
	const char *barrier;
	int plots;
	char plotdir[PATH_MAX];
	char machine[160];	/* figure titles */
	struct t32_env env;	/* the machine, measured as the study starts */
	double ratio;		/* core cycles per TSC tick (env), 0 when not calibrated */
	int failures;
	int interrupted;	/* Ctrl-C: stop after the recipe running */
	/* progress on a terminal: what is done of what was asked, in quick-profile seconds */
	int progress;
	double t0, planned, done_weight;
	double weight;		/* the recipe under way's share of planned */
};

/* dir/name into buf. */
const char *study_path(const struct study *st, const char *name, char *buf, size_t len);
/* A file in the report directory exists (and is not empty). */
int study_has(const struct study *st, const char *name);

/* Draw plots/SCRIPT.gp from DIR/TSV into DIR/BASE.svg and .png; extra args may be NULL. */
void study_plot(struct study *st, const char *script, const char *tsv, const char *base,
		const char *title, const char *extra1, const char *extra2);

/* `# ` provenance lines for a TSV the study writes itself, with the TSC and calibration. */
void study_provenance(const struct study *st, FILE *f, const char *recipe, const char *what);

/* A TSV read whole: its # lines, header and rows, fields unescaped. */
struct tab {
	char **comments;	/* without the '#' and the blank after it */
	size_t ncomments;
	char **head;
	size_t nhead;
	char ***rows;
	size_t nrows;
};
/* Read path; 0, or -1 (message printed unless quiet). */
int tab_load(struct tab *t, const char *path, int quiet);
void tab_free(struct tab *t);
/* Row r's value of column name ("" when absent; renamed columns found by the new name). */
const char *tab_get(const struct tab *t, size_t r, const char *name);
/* The same as a number, NAN when absent or not a number. */
double tab_num(const struct tab *t, size_t r, const char *name);
/* The value of a `# key: value` line, or "". */
const char *tab_comment(const struct tab *t, const char *key);

/* HTML: text escaped; printf-like into the page with %s arguments escaped by the caller. */
void html_text(FILE *h, const char *s);
/* A figure: DIR/BASE.svg shown, with links to the SVG, the PNG and the data. */
void html_figure(const struct study *st, FILE *h, const char *base, const char *data,
		 const char *caption);
/* "measured DATE (file)" under a section heading, from a TSV's # date: line. */
void html_dated(FILE *h, const struct tab *t);
/* The page's head and its header table (the machine, the run, the units). */
void html_head(struct study *st, FILE *h, int argc, char **argv);
/* Every file of the report directory, linked, with its size (SVG, PNG, TSV, JSON...). */
void html_files(const struct study *st, FILE *h);

/*
 * Recipe NAME's section of index.html written on h from the files in st->dir
 * (what `t32 study` writes for it): 1, 0 when its files are not there, -1 for
 * an unknown recipe.  The page's sentences are computed here, so a test can
 * give it any data.
 */
int study_section(struct study *st, const char *name, FILE *h);

/* n formatted with thousands separators into buf (1,000,000). */
const char *study_thousands(double n, char *buf, size_t len);

#endif
