/*
 * tablecheck.c - a swept table read row by row (tablecheck.h).
 */
#include "t32/core/tablecheck.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "t32/core/chainjudge.h"
#include "t32/io/sweepfile.h"
#include "t32/io/table.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

/* One row of the sweep. */
struct row {
	size_t row;
	char *form;
	int latency;		/* mode latency (else throughput or raw) */
	int throughput;
	int cycles;		/* unit cycles: the floor applies */
	unsigned long long n, k;
	struct t32_rate rate;	/* have: status ok */
	char status[24];
	char expected[24];
};

/* One line of a reference table: its chain and published latency, the sources' figures. */
struct ref {
	char *name, *chain, *note;
	double lat;
};

/* A chain's text as compared: lower case, no size words, no spaces. */
static void norm_chain(const char *in, char *out, size_t len)
{
	static const char *const sizes[] = { "byte", "word", "dword", "qword", "tword", "oword",
					     "yword", "zword", "ptr", NULL };
	size_t o = 0;

	while (*in && o + 1 < len) {
		if (isalpha((unsigned char)*in) && (o == 0 || !isalnum((unsigned char)out[o - 1]))) {
			size_t w = 0;
			int drop = 0;

			while (isalnum((unsigned char)in[w]))
				w++;
			for (int i = 0; sizes[i]; i++)
				if (strlen(sizes[i]) == w && strncasecmp(in, sizes[i], w) == 0)
					drop = 1;
			if (drop) {
				in += w;
				continue;
			}
		}
		if (!isspace((unsigned char)*in))
			out[o++] = (char)tolower((unsigned char)*in);
		else if (o && isalnum((unsigned char)out[o - 1]) && isalnum((unsigned char)in[1]))
			out[o++] = ' ';
		in++;
	}
	out[o] = 0;
}

/*
 * Read reference table path: its forms (name | chain | lat=N  # figures) and its
 * `# source:` lines printed to out.  0, or an exit code after a message.
 */
static int load_refs(const char *path, struct ref **refs, size_t *nrefs, FILE *out)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t lineno = 0, cap = 0;
	int in_source = 0;

	if (!f) {
		t32_error("cannot read '%s' (%s)", path, strerror(errno));
		return T32_EXIT_ERROR;
	}
	fprintf(out, "# reference %s\n", path);
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *p = line, *fields[8], *lat = NULL;
		int nf = 0;

		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (hash == line) {
			/* the sources, kept beside the figures compared with them */
			if (!strncmp(line, "# source:", 9))
				in_source = 1;
			else if (strncmp(line, "#   ", 4))
				in_source = 0;
			if (in_source)
				fprintf(out, "#   %s\n", t32_trim(line + 1));
			continue;
		}
		in_source = 0;
		if (hash)
			*hash = 0;
		if (!*t32_trim(line))
			continue;
		while (nf < 8 && p) {
			char *bar = strchr(p, '|');

			if (bar)
				*bar = 0;
			fields[nf++] = t32_trim(p);
			p = bar ? bar + 1 : NULL;
		}
		for (int i = 2; i < nf && !lat; i++)
			lat = strstr(fields[i], "lat=");
		if (nf < 3 || !lat) {
			fclose(f);
			t32_error("bad line %zu in '%s' (a reference line is name | chain | lat=N)",
				  lineno, path);
			return T32_EXIT_USAGE;
		}
		if (*nrefs == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct ref *g = realloc(*refs, ncap * sizeof(*g));

			if (!g) {
				fclose(f);
				t32_error("out of memory for '%s'", path);
				return T32_EXIT_ERROR;
			}
			*refs = g;
			cap = ncap;
		}
		{
			struct ref *r = &(*refs)[*nrefs];
			char norm[512];

			norm_chain(fields[1], norm, sizeof(norm));
			r->name = strdup(fields[0]);
			r->chain = strdup(norm);
			r->note = strdup(hash ? t32_trim(hash + 1) : "");
			r->lat = strtod(lat + 4, NULL);
			if (!r->name || !r->chain || !r->note) {
				fclose(f);
				t32_error("out of memory for '%s'", path);
				return T32_EXIT_ERROR;
			}
			(*nrefs)++;
		}
	}
	fclose(f);
	if (!*nrefs) {
		t32_error("no reference latencies in '%s'", path);
		return T32_EXIT_USAGE;
	}
	return 0;
}

static void free_refs(struct ref *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].chain);
		free(r[i].note);
	}
	free(r);
}

/* Rows by form, n, then latency before throughput. */
static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->form, y->form);

	if (c)
		return c;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return y->latency - x->latency;
}

/* Read the sweep's rows; its barrier and store from the `# sweep:` line. 0 or an exit code. */
static int read_sweep(const char *path, struct row **rows, size_t *nrows, char *barrier,
		      size_t blen, char *store, size_t slen, char *forms, size_t flen, char *of,
		      size_t olen, int untrusted)
{
	struct t32_tsv t;
	long col[11] = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	static const char *const names[11] = { "row", "form", "mode", "n", "k", "per_insn",
					       "ci_lo", "ci_hi", "status", "expected", "unit" };
	size_t cap = 0;
	int header = 0, rc = 0;

	if (t32_tsv_open(&t, path))
		return T32_EXIT_ERROR;
	snprintf(barrier, blen, "l");
	snprintf(store, slen, "m");
	while ((rc = t32_tsv_next(&t)) > 0) {
		struct row *r;

		if (t.line[0] == '#') {
			if (!strncmp(t.line, "# sweep:", 8)) {
				t32_sweep_sig_value(t.line, "barrier", barrier, blen);
				t32_sweep_sig_value(t.line, "store", store, slen);
				t32_sweep_sig_value(t.line, "forms", forms, flen);
				t32_sweep_sig_value(t.line, "of", of, olen);
				/* the sweep writes forms= right after the table's path */
				if (strstr(of, " forms="))
					*strstr(of, " forms=") = 0;
			}
			continue;
		}
		t32_tsv_split(&t);
		if (!header) {
			for (int i = 0; i < 11; i++)
				if ((col[i] = t32_tsv_column(t.fields, t.nfields, names[i])) < 0) {
					t32_error("not a sweep '%s' (no column '%s')", path, names[i]);
					t32_tsv_close(&t);
					return T32_EXIT_USAGE;
				}
			header = 1;
			continue;
		}
		if (t.nfields <= (size_t)col[9] || t.nfields <= (size_t)col[10])
			continue;	/* a row cut short: a sweep still running, or killed */
		if (*nrows == cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			struct row *g = realloc(*rows, ncap * sizeof(*g));

			if (!g) {
				t32_tsv_close(&t);
				t32_error("out of memory for '%s'", path);
				return T32_EXIT_ERROR;
			}
			*rows = g;
			cap = ncap;
		}
		r = &(*rows)[*nrows];
		memset(r, 0, sizeof(*r));
		r->row = strtoull(t.fields[col[0]], NULL, 10);
		r->form = strdup(t.fields[col[1]]);
		if (!r->form) {
			t32_tsv_close(&t);
			return T32_EXIT_ERROR;
		}
		r->latency = !strcmp(t.fields[col[2]], "latency");
		r->throughput = !strcmp(t.fields[col[2]], "throughput");
		r->n = strtoull(t.fields[col[3]], NULL, 10);
		r->cycles = !strcmp(t.fields[col[10]], "cycles");
		r->k = strtoull(t.fields[col[4]], NULL, 10);
		snprintf(r->status, sizeof(r->status), "%s", t.fields[col[8]]);
		snprintf(r->expected, sizeof(r->expected), "%s", t.fields[col[9]]);
		r->rate.have = (!strcmp(r->status, "ok") ||
				(untrusted && !strcmp(r->status, "untrusted"))) && *t.fields[col[5]];
		r->rate.value = strtod(t.fields[col[5]], NULL);
		r->rate.lo = strtod(t.fields[col[6]], NULL);
		r->rate.hi = strtod(t.fields[col[7]], NULL);
		(*nrows)++;
	}
	t32_tsv_close(&t);
	if (rc < 0)
		return T32_EXIT_ERROR;
	if (!header) {
		t32_error("not a sweep '%s' (no header row)", path);
		return T32_EXIT_USAGE;
	}
	return 0;
}

/* Text quoted for a shell: 'text' with each ' written '\''. */
static void put_quoted(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	fputc('\'', out);
}

/*
 * The command that measures row r again as the sweep measured it: the marginal
 * cost of n copies against n/2 (latency: the chain; throughput: n/k copies of k
 * rotated copies of the template).
 */
static void put_command(FILE *out, const struct row *r, const struct t32_form *f,
			const char *barrier, const char *store)
{
	fputs("t32 time", out);
	if (f->init) {
		fputs(" --init ", out);
		put_quoted(out, f->init);
	}
	fprintf(out, " %s %s auto", barrier, store);
	if (r->latency) {
		fprintf(out, " %llu ", r->n);
		put_quoted(out, f->insn);
		return;
	}
	{
		char unit[8192], one[1024];
		size_t used = 0;

		unit[0] = 0;
		for (unsigned long long c = 0; c < r->k && used + 2 < sizeof(unit); c++) {
			if (t32_form_tp_expand(f, c, one, sizeof(one)))
				break;
			used += (size_t)snprintf(unit + used, sizeof(unit) - used, "%s%s", c ? "; " : "",
						 one);
		}
		fprintf(out, " %llu ", r->k ? r->n / r->k : r->n);
		put_quoted(out, unit);
	}
}

/*
 * The table the sweep measured: o->table, else the one its sweep line names (of=)
 * where it still is with the same forms hash.  *have 1 when one is loaded into
 * tab.  0, or an exit code after a message.
 */
static int find_table(const struct t32_tablecheck_opts *o, const struct row *rows, size_t nrows,
		      const char *forms, const char *of, struct t32_table *tab, int *have)
{
	const char *table = o->table;
	char err[1024], mine[32];
	int rc;

	if (!table && of[0] && t32_table_load(of, tab, err, sizeof(err)) == 0) {
		snprintf(mine, sizeof(mine), "%016llx", (unsigned long long)t32_table_hash(tab));
		if (!strcmp(mine, forms))
			table = of;
		t32_table_free(tab);
		memset(tab, 0, sizeof(*tab));
	}
	if (!table && (o->rows || o->nrefs)) {
		t32_error("no chains for '%s' (the table it swept is not at '%s' as it was: give it)",
			  o->sweep, of[0] ? of : "?");
		return T32_EXIT_USAGE;
	}
	if (!table)
		return 0;
	rc = t32_table_load(table, tab, err, sizeof(err));
	if (rc) {
		t32_error("%s", err);
		return rc == -2 ? T32_EXIT_USAGE : T32_EXIT_ERROR;
	}
	*have = 1;
	for (size_t i = 0; i < nrows; i++)
		if (!t32_table_find(tab, rows[i].form)) {
			t32_error("not the table swept '%s' (it has no form '%s')", table, rows[i].form);
			return T32_EXIT_USAGE;
		}
	/* the chains shown are the table's: say so when it is not the one swept */
	snprintf(mine, sizeof(mine), "%016llx", (unsigned long long)t32_table_hash(tab));
	if (strcmp(mine, forms))
		t32_warn("'%s' is not the table '%s' swept (forms %s, the sweep's %s): the chains "
			 "shown are this table's", table, o->sweep, mine, forms[0] ? forms : "unknown");
	return 0;
}

/* Each row's command to measure it again, in file order. */
static void print_commands(FILE *out, const struct row *rows, size_t nrows,
			   const struct t32_table *tab, const char *barrier, const char *store)
{
	fputs("row\tform\tmode\tn\tstatus\tcommand\n", out);
	for (size_t i = 0; i < nrows; i++) {
		const struct t32_form *f = t32_table_find(tab, rows[i].form);

		if (!rows[i].latency && !rows[i].throughput)
			continue;
		fprintf(out, "%zu\t%s\t%s\t%llu\t%s\t", rows[i].row, rows[i].form,
			rows[i].latency ? "latency" : "throughput", rows[i].n, rows[i].status);
		if ((rows[i].latency && f->nochain) || (rows[i].throughput && !f->tp))
			fputs("-", out);
		else
			put_command(out, &rows[i], f, barrier, store);
		fputc('\n', out);
	}
}

/* Every ok latency row (sorted beside its throughput row) judged again, the impossible listed. */
static void judge_rows(const struct t32_tablecheck_opts *o, FILE *out, const struct row *rows,
		       size_t nrows, const struct t32_table *tab, struct t32_tablecheck_result *res)
{
	fprintf(out, "# impossible ok latency rows (below %.1f cycles, or below the form's own "
		"throughput by more than both intervals and %.0f%%)\n", T32_CHAIN_FLOOR_CYCLES,
		100 * T32_CHAIN_TP_MARGIN);
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i], *tp = NULL;
		const struct t32_form *f = tab ? t32_table_find(tab, r->form) : NULL;
		enum t32_chain_verdict v;
		char why[512];

		if (!r->latency)
			continue;
		res->latency_rows++;
		res->nochain += !strcmp(r->status, T32_CHAIN_STATUS);
		if (!r->rate.have)
			continue;
		res->latency_ok++;
		if (i + 1 < nrows && rows[i + 1].throughput && rows[i + 1].n == r->n &&
		    !strcmp(rows[i + 1].form, r->form))
			tp = &rows[i + 1];
		v = t32_chain_judge(f ? f->insn : NULL, r->cycles, &r->rate, tp ? &tp->rate : NULL,
				    why, sizeof(why));
		if (v == T32_CHAIN_OK)
			continue;
		res->impossible++;
		res->below_floor += v == T32_CHAIN_BELOW_FLOOR;
		res->below_tp += v == T32_CHAIN_BELOW_TP;
		fprintf(out, "%s\tn=%llu\t%.4f [%.4f, %.4f]\t%s\t%s\n", r->form, r->n, r->rate.value,
			r->rate.lo, r->rate.hi, f ? f->insn : "-", why);
	}
	fprintf(out, "impossible: %zu of %zu %s latency rows (%zu below %.1f cycles, %zu below their "
		"throughput); %zu latency rows flagged %s by the sweep; %zu latency rows\n",
		res->impossible, res->latency_ok, o->untrusted ? "ok or untrusted" : "ok",
		res->below_floor, T32_CHAIN_FLOOR_CYCLES, res->below_tp, res->nochain,
		T32_CHAIN_STATUS, res->latency_rows);
}

/*
 * Like with like: reference ref's latency beside each row whose chain is its chain;
 * where the table's lat= says otherwise, both shown and the form left out of the
 * agreement.  0, or an exit code after a message.
 */
static int compare_ref(const struct t32_tablecheck_opts *o, const char *ref, FILE *out,
		       const struct row *rows, size_t nrows, const struct t32_table *tab,
		       struct t32_tablecheck_result *res)
{
	struct ref *refs = NULL;
	size_t nrefs = 0, compared = 0, disagree = 0, within = 0, other = 0;
	int rc = load_refs(ref, &refs, &nrefs, out);

	for (size_t i = 0; !rc && i < nrows; i++) {
		const struct row *r = &rows[i];
		const struct t32_form *f = t32_table_find(tab, r->form);
		const struct ref *match = NULL;
		char norm[512];
		int agree;

		if (!r->latency || f->nochain)
			continue;
		norm_chain(f->insn, norm, sizeof(norm));
		for (size_t j = 0; j < nrefs && !match; j++)
			if (!strcmp(refs[j].chain, norm))
				match = &refs[j];
		if (!match) {
			other += *r->expected != 0;
			continue;
		}
		if (!r->rate.have) {
			fprintf(out, "%s\t%s\t-\tref %g\t%s\tnot compared: the row is %s\n", r->form,
				f->insn, match->lat, match->note, r->status);
			continue;
		}
		if (*r->expected && fabs(strtod(r->expected, NULL) - match->lat) > 1e-9) {
			disagree++;
			fprintf(out, "%s\t%s\t%.4f\tref %g\t%s\tsources disagree: the table's lat=%s, "
				"the reference %g\n", r->form, f->insn, r->rate.value, match->lat,
				match->note, r->expected, match->lat);
			continue;
		}
		compared++;
		agree = fabs(r->rate.value - match->lat) <= o->tolerance;
		within += agree;
		fprintf(out, "%s\t%s\t%.4f\tref %g\t%s\t%s\n", r->form, f->insn, r->rate.value,
			match->lat, match->note, agree ? "within" : "OFF");
	}
	if (!rc)
		fprintf(out, "reference %s: %zu of %zu forms with its chain within %.2f cycles (%.1f%%); "
			"%zu where its sources and the table's lat= disagree (each shown); %zu rows "
			"with lat= whose chain is not a reference chain, not compared\n", ref, within,
			compared, o->tolerance,
			compared ? 100.0 * (double)within / (double)compared : 0.0, disagree, other);
	res->compared += compared;
	res->disagree += disagree;
	res->within += within;
	free_refs(refs, nrefs);
	return rc;
}

int t32_table_check(const struct t32_tablecheck_opts *o, FILE *out,
		    struct t32_tablecheck_result *res)
{
	struct row *rows = NULL;
	size_t nrows = 0;
	struct t32_table tab = { 0 };
	int have_tab = 0, rc;
	char barrier[32], store[8], forms[32] = "", of[4096] = "";

	memset(res, 0, sizeof(*res));
	rc = read_sweep(o->sweep, &rows, &nrows, barrier, sizeof(barrier), store, sizeof(store),
			forms, sizeof(forms), of, sizeof(of), o->untrusted);
	if (!rc)
		rc = find_table(o, rows, nrows, forms, of, &tab, &have_tab);
	if (rc)
		goto out;
	if (o->rows && have_tab)
		print_commands(out, rows, nrows, &tab, barrier, store);
	qsort(rows, nrows, sizeof(*rows), row_cmp);
	judge_rows(o, out, rows, nrows, have_tab ? &tab : NULL, res);
	for (size_t k = 0; k < o->nrefs && !rc; k++)
		rc = compare_ref(o, o->refs[k], out, rows, nrows, &tab, res);
	if (!rc)
		rc = res->impossible ? T32_EXIT_UNTRUSTED : 0;
out:
	for (size_t i = 0; i < nrows; i++)
		free(rows[i].form);
	free(rows);
	if (have_tab)
		t32_table_free(&tab);
	return rc;
}
