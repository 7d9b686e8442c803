/*
 * compare.c - the work of `t32 compare A.tsv B.tsv ...`: sweeps of one table from several
 * machines (or one machine on several days) side by side.  One row per form,
 * mode and n; a column group per machine with its interval; each machine's
 * difference from the first with the interval of the difference and whether it
 * is significant; the table's published `expected` value beside them.  Machines
 * are named from their provenance lines.  -o DIR adds a heat map (gnuplot, SVG
 * and PNG) and an HTML page.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/uarch.h"
#include "t32/core/compare.h"
#include "t32/spec.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

#define MAX_MACHINES 32

/* One sweep file: the machine it names and its rows. */
struct machine {
	const char *path;
	char name[200];		/* for people: "zen4 AMD EPYC on vm" */
	char cpu[256];		/* the `# cpu:` line's text */
	char core[32];		/* micro-architecture from the CPU identity, "unknown" */
	char host[128];
	char date[64];
	char unit[16];
	size_t rows, ok;	/* rows read; of which ok or untrusted */
	size_t with_expected, within;	/* rows with a published value; within tolerance */
};

/* One value: a machine's estimate of one (form, mode, n). */
struct cell {
	int have;
	double est, lo, hi;
	char status[16];
};

struct row {
	char *form, *mode;
	unsigned long long n;
	double expected;	/* NaN when the table has none */
	size_t order;		/* first appearance: file, then line */
	struct cell c[MAX_MACHINES];
};

struct compare {
	struct machine m[MAX_MACHINES];
	int nm;
	struct row *rows;
	size_t nrows, cap;
	int hostname;
	double tolerance;	/* cycles: "within" the published value */
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->form, y->form);

	if (!c)
		c = strcmp(x->mode, y->mode);
	if (!c)
		c = x->n < y->n ? -1 : x->n > y->n;
	return c;
}

static int order_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* Name machine m from its provenance lines. */
static void name_machine(struct compare *cmp, struct machine *m)
{
	char vendor[32] = "", brand[256] = "";
	unsigned family = 0, model = 0;
	const char *p = strstr(m->cpu, " (");
	const struct t32_uarch_id *id;

	snprintf(brand, sizeof(brand), "%.*s", p ? (int)(p - m->cpu) : (int)strlen(m->cpu), m->cpu);
	if (p)
		sscanf(p, " (%31s family %x model %x", vendor, &family, &model);
	/* on a hybrid part the line names the core type inside the parentheses */
	id = t32_uarch_identify(vendor, family, model, p ? t32_core_type_parse(p) : T32_CORE_NONE);
	snprintf(m->core, sizeof(m->core), "%s", id ? id->name : "unknown");
	{
		char name[sizeof(m->name)];

		snprintf(name, sizeof(name), "%.31s %.80s%s%.80s", m->core,
			 brand[0] ? brand : "unknown CPU", cmp->hostname && m->host[0] ? " on " : "",
			 cmp->hostname ? m->host : "");
		memcpy(m->name, name, sizeof(name));
	}
}

/* Read one sweep file as machine k.  0, or -1 after a message. */
static int read_sweep(struct compare *cmp, int k, const char *path)
{
	struct machine *m = &cmp->m[k];
	struct t32_tsv t;
	int col[8] = { -1, -1, -1, -1, -1, -1, -1, -1 }, got, rc = 0;
	static const char *const want[8] = { "form", "mode", "n", "per_insn", "ci_lo", "ci_hi",
					     "status", "expected" };
	int unitcol = -1;

	memset(m, 0, sizeof(*m));
	m->path = path;
	if (t32_tsv_open(&t, path))
		return -1;
	while (!rc && (got = t32_tsv_next(&t)) > 0) {
		struct row *r;
		size_t nf;

		if (t.line[0] == '#') {
			if (!strncmp(t.line, "# cpu: ", 7) && !m->cpu[0])
				snprintf(m->cpu, sizeof(m->cpu), "%s", t.line + 7);
			else if (!strncmp(t.line, "# host: ", 8) && !m->host[0])
				snprintf(m->host, sizeof(m->host), "%s", t.line + 8);
			else if (!strncmp(t.line, "# date: ", 8) && !m->date[0])
				snprintf(m->date, sizeof(m->date), "%s", t.line + 8);
			continue;
		}
		nf = t32_tsv_split(&t);
		if (col[0] < 0) {
			/* the one column lookup: an older sweep's `estimate` is per_insn */
			for (int w = 0; w < 8; w++)
				col[w] = (int)t32_tsv_column(t.fields, nf, want[w]);
			unitcol = (int)t32_tsv_column(t.fields, nf, "unit");
			for (int w = 0; w < 8; w++)
				if (col[w] < 0) {
					t32_error("not a t32 sweep '%s' (no column '%s')", path, want[w]);
					rc = -1;
					break;
				}
			continue;
		}
		for (int w = 0; w < 8; w++)
			if ((size_t)col[w] >= nf) {
				t32_error("a row cut short in '%s' (line %zu)", path, t.lineno);
				rc = -1;
			}
		if (rc)
			break;
		if (cmp->nrows == cmp->cap) {
			size_t ncap = cmp->cap ? 2 * cmp->cap : 4096;
			struct row *g = realloc(cmp->rows, ncap * sizeof(*g));

			if (!g) {
				t32_error("out of memory reading '%s'", path);
				rc = -1;
				break;
			}
			cmp->rows = g;
			cmp->cap = ncap;
		}
		r = &cmp->rows[cmp->nrows];
		memset(r, 0, sizeof(*r));
		r->form = strdup(t.fields[col[0]]);
		r->mode = strdup(t.fields[col[1]]);
		if (!r->form || !r->mode || t32_parse_u64(t.fields[col[2]], 0, UINT64_MAX,
							  (uint64_t *)&r->n)) {
			free(r->form);
			free(r->mode);
			t32_error("bad row in '%s' (line %zu)", path, t.lineno);
			rc = -1;
			break;
		}
		r->expected = NAN;
		if (*t.fields[col[7]])
			t32_parse_real(t.fields[col[7]], 0, 1e9, &r->expected);
		r->order = ((size_t)k << 40) | t.lineno;
		r->c[k].have = 1;
		snprintf(r->c[k].status, sizeof(r->c[k].status), "%s", t.fields[col[6]]);
		r->c[k].est = r->c[k].lo = r->c[k].hi = NAN;
		if (*t.fields[col[3]]) {
			t32_parse_real(t.fields[col[3]], -1e12, 1e12, &r->c[k].est);
			t32_parse_real(t.fields[col[4]], -1e12, 1e12, &r->c[k].lo);
			t32_parse_real(t.fields[col[5]], -1e12, 1e12, &r->c[k].hi);
		}
		if (unitcol >= 0 && (size_t)unitcol < nf && !m->unit[0])
			snprintf(m->unit, sizeof(m->unit), "%s", t.fields[unitcol]);
		m->rows++;
		cmp->nrows++;
	}
	if (!rc && got < 0)
		rc = -1;
	if (!rc && col[0] < 0) {
		t32_error("not a t32 sweep '%s' (no header row)", path);
		rc = -1;
	}
	t32_tsv_close(&t);
	name_machine(cmp, m);
	return rc;
}

/* Fold rows with the same (form, mode, n) from different files into one. */
static void fold_rows(struct compare *cmp)
{
	size_t out = 0;

	qsort(cmp->rows, cmp->nrows, sizeof(*cmp->rows), row_cmp);
	for (size_t i = 0; i < cmp->nrows; i++) {
		struct row *r = &cmp->rows[i];

		if (out && row_cmp(&cmp->rows[out - 1], r) == 0) {
			struct row *into = &cmp->rows[out - 1];

			for (int k = 0; k < cmp->nm; k++)
				if (r->c[k].have && !into->c[k].have)
					into->c[k] = r->c[k];
			if (isnan(into->expected))
				into->expected = r->expected;
			if (r->order < into->order)
				into->order = r->order;
			free(r->form);
			free(r->mode);
			continue;
		}
		cmp->rows[out++] = *r;
	}
	cmp->nrows = out;
	qsort(cmp->rows, cmp->nrows, sizeof(*cmp->rows), order_cmp);
}

/* A value to compare: measured (ok or untrusted) with a finite interval. */
static int usable(const struct cell *c)
{
	return c->have && (!strcmp(c->status, "ok") || !strcmp(c->status, "untrusted")) &&
	       isfinite(c->est) && isfinite(c->lo) && isfinite(c->hi);
}

/* Machine k against the first: difference, its 95% half-width, significance (-1 unknown). */
static int diff_of(const struct row *r, int k, double *d, double *hw)
{
	const struct cell *a = &r->c[0], *b = &r->c[k];
	double ha, hb;

	*d = *hw = NAN;
	if (!usable(a) || !usable(b))
		return -1;
	ha = (a->hi - a->lo) / 2;
	hb = (b->hi - b->lo) / 2;
	*d = b->est - a->est;
	*hw = sqrt(ha * ha + hb * hb);
	return fabs(*d) > *hw;
}

/* Does machine k's value lie off the published one (beyond tolerance and its interval)? */
static int off_expected(const struct compare *cmp, const struct row *r, int k)
{
	const struct cell *c = &r->c[k];

	if (isnan(r->expected) || !usable(c))
		return -1;
	return fabs(c->est - r->expected) > fmax(cmp->tolerance, (c->hi - c->lo) / 2);
}

/* Does the row show a difference worth a look (--differing)? */
static int differing(const struct compare *cmp, const struct row *r)
{
	double d, hw;

	for (int k = 0; k < cmp->nm; k++) {
		if (k && diff_of(r, k, &d, &hw) == 1)
			return 1;
		if (off_expected(cmp, r, k) == 1)
			return 1;
	}
	return 0;
}

static void count_expected(struct compare *cmp)
{
	for (size_t i = 0; i < cmp->nrows; i++)
		for (int k = 0; k < cmp->nm; k++) {
			const struct row *r = &cmp->rows[i];

			if (usable(&r->c[k]))
				cmp->m[k].ok++;
			if (isnan(r->expected) || !usable(&r->c[k]))
				continue;
			cmp->m[k].with_expected++;
			cmp->m[k].within += fabs(r->c[k].est - r->expected) <= cmp->tolerance;
		}
}

static void put_num(FILE *f, double v, const char *fmt)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
}

/* The TSV: provenance and machine lines, a header, a row per (form, mode, n). */
static void write_tsv(FILE *f, const struct compare *cmp, int argc, char **argv, int only_diff)
{
	t32_provenance(f, argc, argv);
	for (int k = 0; k < cmp->nm; k++) {
		const struct machine *m = &cmp->m[k];

		fprintf(f, "# machine m%d: ", k + 1);
		t32_fputs_visible(m->name, f);
		fprintf(f, " | cpu ");
		t32_fputs_visible(m->cpu, f);
		fprintf(f, " | core %s | date ", m->core);
		t32_fputs_visible(m->date, f);
		fputs(" | file ", f);
		t32_fputs_visible(m->path, f);
		fprintf(f, " | %zu rows, %zu measured", m->rows, m->ok);
		if (m->with_expected)
			fprintf(f, ", %zu of %zu with a published value within %g %s", m->within,
				m->with_expected, cmp->tolerance, m->unit[0] ? m->unit : "cycles");
		fputc('\n', f);
	}
	fprintf(f, "# m2_minus_m1 etc.: difference from m1 with the half-width of its 95%% interval "
		   "(the two intervals combined); significant when the difference exceeds it\n");
	fputs("form\tmode\tn\texpected", f);
	for (int k = 0; k < cmp->nm; k++)
		fprintf(f, "\tm%d_per_insn\tm%d_ci_lo\tm%d_ci_hi\tm%d_status", k + 1, k + 1, k + 1, k + 1);
	for (int k = 1; k < cmp->nm; k++)
		fprintf(f, "\tm%d_minus_m1\tm%d_minus_m1_hw\tm%d_significant", k + 1, k + 1, k + 1);
	fputc('\n', f);
	for (size_t i = 0; i < cmp->nrows; i++) {
		const struct row *r = &cmp->rows[i];

		if (only_diff && !differing(cmp, r))
			continue;
		t32_tsv_fputs(r->form, f);
		fputc('\t', f);
		t32_tsv_fputs(r->mode, f);
		fprintf(f, "\t%llu\t", r->n);
		put_num(f, r->expected, "%g");
		for (int k = 0; k < cmp->nm; k++) {
			const struct cell *c = &r->c[k];

			fputc('\t', f);
			put_num(f, c->est, "%.4f");
			fputc('\t', f);
			put_num(f, c->lo, "%.4f");
			fputc('\t', f);
			put_num(f, c->hi, "%.4f");
			fputc('\t', f);
			t32_tsv_fputs(c->have ? c->status : "absent", f);
		}
		for (int k = 1; k < cmp->nm; k++) {
			double d, hw;
			int s = diff_of(r, k, &d, &hw);

			fputc('\t', f);
			put_num(f, d, "%.4f");
			fputc('\t', f);
			put_num(f, hw, "%.4f");
			fprintf(f, "\t%s", s < 0 ? "-" : s ? "yes" : "no");
		}
		fputc('\n', f);
	}
}

/* For people: one line per row, estimate +- half-width per machine. */
static void write_table(FILE *f, const struct compare *cmp, int only_diff)
{
	for (int k = 0; k < cmp->nm; k++) {
		fprintf(f, "m%d: ", k + 1);
		t32_fputs_visible(cmp->m[k].name, f);
		fprintf(f, " (%s", cmp->m[k].path);
		if (cmp->m[k].with_expected)
			fprintf(f, "; %zu of %zu within %g of the published value", cmp->m[k].within,
				cmp->m[k].with_expected, cmp->tolerance);
		fputs(")\n", f);
	}
	fprintf(f, "\n%-32s %-10s %8s %8s", "form", "mode", "n", "expected");
	for (int k = 0; k < cmp->nm; k++)
		fprintf(f, " %17s", (char[8]){ 'm', (char)('1' + k % 10), 0 });
	for (int k = 1; k < cmp->nm; k++)
		fprintf(f, "  m%d-m1            ", k + 1);
	fputc('\n', f);
	for (size_t i = 0; i < cmp->nrows; i++) {
		const struct row *r = &cmp->rows[i];
		char buf[64];

		if (only_diff && !differing(cmp, r))
			continue;
		fprintf(f, "%-32.32s %-10.10s %8llu ", r->form, r->mode, r->n);
		if (isnan(r->expected))
			fprintf(f, "%8s", "-");
		else
			fprintf(f, "%8g", r->expected);
		for (int k = 0; k < cmp->nm; k++) {
			const struct cell *c = &r->c[k];

			if (usable(c))
				snprintf(buf, sizeof(buf), "%.3f +- %.3f", c->est, (c->hi - c->lo) / 2);
			else
				snprintf(buf, sizeof(buf), "%s", c->have ? c->status : "absent");
			fprintf(f, " %17.17s", buf);
		}
		for (int k = 1; k < cmp->nm; k++) {
			double d, hw;
			int s = diff_of(r, k, &d, &hw);

			if (s < 0)
				fprintf(f, "  %-18s", "-");
			else
				fprintf(f, "  %+.3f +- %.3f%s", d, hw, s ? " *" : "  ");
		}
		fputc('\n', f);
	}
}

static void write_json(FILE *f, const struct compare *cmp, int only_diff)
{
	int first = 1;

	fputs("{\"machines\": [", f);
	for (int k = 0; k < cmp->nm; k++) {
		const struct machine *m = &cmp->m[k];
		const char *const key[] = { "name", "cpu", "core", "host", "file" };
		const char *const val[] = { m->name, m->cpu, m->core, cmp->hostname ? m->host : "",
					    m->path };

		fprintf(f, "%s{\"id\": \"m%d\"", k ? ", " : "", k + 1);
		for (size_t j = 0; j < sizeof(key) / sizeof(key[0]); j++) {
			fprintf(f, ", \"%s\": ", key[j]);
			t32_json_string(f, val[j]);
		}
		fprintf(f, ", \"rows\": %zu, \"measured\": %zu, \"with_expected\": %zu, "
			   "\"within_tolerance\": %zu}", m->rows, m->ok, m->with_expected, m->within);
	}
	fprintf(f, "], \"tolerance\": %g, \"rows\": [", cmp->tolerance);
	for (size_t i = 0; i < cmp->nrows; i++) {
		const struct row *r = &cmp->rows[i];

		if (only_diff && !differing(cmp, r))
			continue;
		fputs(first ? "\n{\"form\": " : ",\n{\"form\": ", f);
		first = 0;
		t32_json_string(f, r->form);
		fputs(", \"mode\": ", f);
		t32_json_string(f, r->mode);
		fprintf(f, ", \"n\": %llu, \"expected\": ", r->n);
		if (isnan(r->expected))
			fputs("null", f);
		else
			fprintf(f, "%g", r->expected);
		fputs(", \"values\": [", f);
		for (int k = 0; k < cmp->nm; k++) {
			const struct cell *c = &r->c[k];

			fprintf(f, "%s{\"status\": ", k ? ", " : "");
			t32_json_string(f, c->have ? c->status : "absent");
			if (usable(c))
				fprintf(f, ", \"per_insn\": %.4f, \"ci_lo\": %.4f, \"ci_hi\": %.4f", c->est,
					c->lo, c->hi);
			if (k) {
				double d, hw;
				int s = diff_of(r, k, &d, &hw);

				if (s >= 0)
					fprintf(f, ", \"minus_m1\": %.4f, \"minus_m1_hw\": %.4f, "
						   "\"significant\": %s", d, hw, s ? "true" : "false");
			}
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("\n]}\n", f);
}

/* How far a row stands out, for choosing the heat map's rows. */
static double spread(const struct compare *cmp, const struct row *r)
{
	double lo = INFINITY, hi = -INFINITY;

	for (int k = 0; k < cmp->nm; k++)
		if (usable(&r->c[k])) {
			lo = fmin(lo, r->c[k].est);
			hi = fmax(hi, r->c[k].est);
		}
	if (!isnan(r->expected) && isfinite(lo)) {
		lo = fmin(lo, r->expected);
		hi = fmax(hi, r->expected);
	}
	return isfinite(lo) && hi > 0 ? (hi - lo) / fmax(hi, 0.25) : 0;
}

static int spread_cmp(const void *a, const void *b)
{
	double x = ((const double *)a)[0], y = ((const double *)b)[0];

	return x < y ? 1 : x > y ? -1 : (((const double *)a)[1] > ((const double *)b)[1]) -
					 (((const double *)a)[1] < ((const double *)b)[1]);
}

#define HEAT_ROWS 40

/*
 * The heat map's data: the rows that differ most (relative spread across the
 * machines and the published value), one line per row and column.
 */
static int write_heat(const char *path, const struct compare *cmp, size_t *nshown)
{
	double (*sp)[2] = calloc(cmp->nrows ? cmp->nrows : 1, sizeof(*sp));
	FILE *f;
	size_t n = 0;

	if (!sp)
		return -1;
	for (size_t i = 0; i < cmp->nrows; i++) {
		sp[i][0] = spread(cmp, &cmp->rows[i]);
		sp[i][1] = (double)i;
	}
	qsort(sp, cmp->nrows, sizeof(*sp), spread_cmp);
	f = t32_fopen_out(path);
	if (!f) {
		free(sp);
		return -1;
	}
	fputs("# the rows of compare.tsv whose values differ most (relative spread)\n"
	      "row\tmachine\tcycles\n", f);
	for (size_t j = 0; j < cmp->nrows && n < HEAT_ROWS; j++) {
		const struct row *r = &cmp->rows[(size_t)sp[j][1]];
		char label[160];

		if (sp[j][0] < 0.01)	/* under 1%: nothing to see */
			break;
		snprintf(label, sizeof(label), "%s %s %llu", r->form, r->mode[0] == 'l' ? "lat" : "tp",
			 r->n);
		for (int k = 0; k < cmp->nm; k++)
			if (usable(&r->c[k])) {
				t32_tsv_fputs(label, f);
				fprintf(f, "\tm%d\t%.4f\n", k + 1, r->c[k].est);
			}
		if (!isnan(r->expected)) {
			t32_tsv_fputs(label, f);
			fprintf(f, "\texpected\t%g\n", r->expected);
		}
		n++;
	}
	free(sp);
	*nshown = n;
	return t32_fclose_out(f) ? -1 : 0;
}

static void html_text(FILE *h, const char *s)
{
	for (; *s; s++)
		fputs(*s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" : *s == '"' ? "&quot;"
										    : (char[]){ *s, 0 },
		      h);
}

#define HTML_ROWS 500

static int write_html(const char *path, const struct compare *cmp, size_t nheat, int figure)
{
	FILE *h = t32_fopen_out(path);
	size_t shown = 0, ndiff = 0;

	if (!h)
		return -1;
	for (size_t i = 0; i < cmp->nrows; i++)
		ndiff += differing(cmp, &cmp->rows[i]);
	fputs("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>t32 compare</title>\n"
	      "<style>body{font-family:sans-serif;max-width:80em;margin:auto}"
	      "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:2px 6px}"
	      "td.sig{background:#fdd}img{max-width:100%}</style></head><body>\n"
	      "<h1>One table, several machines</h1>\n<table><tr><th>id</th><th>machine</th><th>CPU</th>"
	      "<th>date</th><th>file</th><th>rows</th><th>measured</th>"
	      "<th>within tolerance of the published value</th></tr>\n", h);
	for (int k = 0; k < cmp->nm; k++) {
		const struct machine *m = &cmp->m[k];
		const char *const cell[] = { m->name, m->cpu, m->date, m->path };

		fprintf(h, "<tr><td>m%d", k + 1);
		for (size_t j = 0; j < sizeof(cell) / sizeof(cell[0]); j++) {
			fputs("</td><td>", h);
			html_text(h, cell[j]);
		}
		fprintf(h, "</td><td>%zu</td><td>%zu</td><td>", m->rows, m->ok);
		if (m->with_expected)
			fprintf(h, "%zu of %zu (%.1f%%)", m->within, m->with_expected,
				100.0 * (double)m->within / (double)m->with_expected);
		else
			fputs("-", h);
		fputs("</td></tr>\n", h);
	}
	fprintf(h, "</table>\n<p>%zu rows (form, mode, n); %zu differ: a machine's value differs "
		   "significantly from m1's (the difference exceeds the half-width of its 95%% "
		   "interval), or lies off the published value by more than %g cycles and its own "
		   "interval. All rows: <a href=\"compare.tsv\">compare.tsv</a>.</p>\n",
		cmp->nrows, ndiff, cmp->tolerance);
	if (figure && nheat)
		fprintf(h, "<h2>The %zu rows that differ most</h2><img src=\"compare.svg\">\n", nheat);
	fputs("<h2>Rows that differ</h2>\n<table><tr><th>form</th><th>mode</th><th>n</th>"
	      "<th>expected</th>", h);
	for (int k = 0; k < cmp->nm; k++)
		fprintf(h, "<th>m%d</th>", k + 1);
	for (int k = 1; k < cmp->nm; k++)
		fprintf(h, "<th>m%d &minus; m1</th>", k + 1);
	fputs("</tr>\n", h);
	for (size_t i = 0; i < cmp->nrows && shown < HTML_ROWS; i++) {
		const struct row *r = &cmp->rows[i];

		if (!differing(cmp, r))
			continue;
		shown++;
		fputs("<tr><td>", h);
		html_text(h, r->form);
		fputs("</td><td>", h);
		html_text(h, r->mode);
		fprintf(h, "</td><td>%llu</td><td>", r->n);
		if (!isnan(r->expected))
			fprintf(h, "%g", r->expected);
		fputs("</td>", h);
		for (int k = 0; k < cmp->nm; k++) {
			const struct cell *c = &r->c[k];

			fprintf(h, "<td%s>", off_expected(cmp, r, k) == 1 ? " class=\"sig\"" : "");
			if (usable(c))
				fprintf(h, "%.3f &plusmn; %.3f", c->est, (c->hi - c->lo) / 2);
			else
				html_text(h, c->have ? c->status : "absent");
			fputs("</td>", h);
		}
		for (int k = 1; k < cmp->nm; k++) {
			double d, hw;
			int s = diff_of(r, k, &d, &hw);

			if (s < 0)
				fputs("<td>-</td>", h);
			else
				fprintf(h, "<td%s>%+.3f &plusmn; %.3f</td>", s ? " class=\"sig\"" : "", d, hw);
		}
		fputs("</tr>\n", h);
	}
	fputs("</table>\n", h);
	if (shown == HTML_ROWS)
		fprintf(h, "<p>The first %d shown; compare.tsv has them all.</p>\n", HTML_ROWS);
	fputs("</body></html>\n", h);
	return t32_fclose_out(h);
}

/* -o DIR: compare.tsv, compare-heat.tsv, compare.svg/.png, index.html.  0 or exit code. */
static int write_dir(const char *dir, const struct compare *cmp, int argc, char **argv,
		     int only_diff)
{
	char path[PATH_MAX], heat[PATH_MAX], gp[PATH_MAX], out[PATH_MAX];
	FILE *f;
	size_t nheat = 0;
	int figure = 1;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		t32_error("cannot make '%s' (%s)", dir, strerror(errno));
		return T32_EXIT_ERROR;
	}
	snprintf(path, sizeof(path), "%.3000s/compare.tsv", dir);
	f = t32_fopen_out(path);
	if (!f)
		return T32_EXIT_ERROR;
	write_tsv(f, cmp, argc, argv, only_diff);
	if (t32_fclose_out(f))
		return T32_EXIT_ERROR;
	snprintf(heat, sizeof(heat), "%.3000s/compare-heat.tsv", dir);
	if (write_heat(heat, cmp, &nheat))
		return T32_EXIT_ERROR;
	snprintf(gp, sizeof(gp), "%.3000s/compare-heatmap.gp", t32_plotdir());
	for (int i = 0; i < 2 && nheat; i++) {
		char title[64];
		char *av[] = { "gnuplot", "-c", gp, heat, out, title, NULL };
		struct t32_child_output res;

		snprintf(title, sizeof(title), "%d machines", cmp->nm);
		snprintf(out, sizeof(out), "%.3000s/compare.%s", dir, i ? "png" : "svg");
		if (t32_run_program(av, &res) || res.status) {
			t32_error("cannot draw '%s' (%s)", out,
				  res.error[0] ? res.error : res.text ? res.text : "gnuplot failed");
			figure = 0;
		}
		t32_child_output_free(&res);
	}
	snprintf(path, sizeof(path), "%.3000s/index.html", dir);
	if (write_html(path, cmp, nheat, figure))
		return T32_EXIT_ERROR;
	return figure ? 0 : T32_EXIT_ERROR;
}

int t32_compare(const struct t32_compare_req *q)
{
	struct compare *cmp;
	int rc = 0;

	if (q->npaths > MAX_MACHINES) {
		t32_error("too many sweeps '%d' (at most %d)", q->npaths, MAX_MACHINES);
		return T32_EXIT_USAGE;
	}
	cmp = calloc(1, sizeof(*cmp));
	if (!cmp) {
		t32_error("out of memory for '%s'", "compare");
		return T32_EXIT_ERROR;
	}
	cmp->hostname = q->hostname;
	cmp->tolerance = q->tolerance;
	for (int i = 0; i < q->npaths && !rc; i++) {
		if (read_sweep(cmp, cmp->nm, q->paths[i]))
			rc = T32_EXIT_ERROR;
		cmp->nm++;
	}
	if (!rc) {
		/* the same name twice (one machine on two days): the date tells them apart */
		for (int k = 1; k < cmp->nm; k++)
			for (int j = 0; j < k; j++)
				if (!strcmp(cmp->m[k].name, cmp->m[j].name)) {
					size_t l = strlen(cmp->m[k].name);
					char tag[128];

					/* written apart first: the date may not overlap the name it lengthens */
					snprintf(tag, sizeof(tag), " (m%d, %.64s)", k + 1, cmp->m[k].date);
					snprintf(cmp->m[k].name + l, sizeof(cmp->m[k].name) - l, "%s", tag);
					break;
				}
		fold_rows(cmp);
		count_expected(cmp);
		if (q->dir)
			rc = write_dir(q->dir, cmp, q->argc, q->argv, q->only_diff);
		else if (q->format == T32_FMT_TSV)
			write_tsv(stdout, cmp, q->argc, q->argv, q->only_diff);
		else if (q->format == T32_FMT_JSON)
			write_json(stdout, cmp, q->only_diff);
		else
			write_table(stdout, cmp, q->only_diff);
	}
	for (size_t i = 0; i < cmp->nrows; i++) {
		free(cmp->rows[i].form);
		free(cmp->rows[i].mode);
	}
	free(cmp->rows);
	free(cmp);
	return rc;
}
