/*
 * cmd-model.c - `t32 model`: the retirement model on a block, as a cycle chart
 * with the selected instructions, their weights and the predicted sample shares,
 * or (--curve) the predicted cycles of a barrier-wrapped block of k copies.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/deps.h"
#include "analysis/model.h"
#include "analysis/uarch.h"
#include "t32/core/block.h"
#include "t32/core/latcache.h"
#include "t32/cmd/options.h"
#include "t32/core/run.h"
#include "t32/spec.h"
#include "t32/io/table.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

#define MODEL_MAX_INSNS 10000	/* instructions in one block */
#define MODEL_MAX_SETS 64	/* --set options */

static const char model_usage[] =
	"t32 model [--uarch NAME|FILE] [--set KEY=VALUE]... [--skid 0|1] [--lat FILE] "
	"[--measure|--no-measure] [--cache DIR] [--cpu N] "
	"[--format=table|tsv|json] [--curve=KMAX] ([N] INSN [[N] INSN]... | FILE.blk | BLOCK)\n"
	"       t32 model [--uarch NAME] --lat-from SWEEP.tsv";

/* Where a latency came from, one word for programs (enum t32_lat_source order). */
static const char *const src_words[] = { "class", "table", "measured" };

/* The steady state as JSON: parameters, the chart rows of one period, per-instruction figures. */
static void model_print_json(FILE *out, const struct t32_uarch *u,
			     const struct t32_uarch_choice *c, int skid,
			     const struct t32_model_insn *b, size_t n,
			     const struct t32_model_result *r)
{
	fprintf(out, "{");
	t32_provenance_json(out, 0, NULL);
	fprintf(out, ", \"uarch\": ");
	t32_json_string(out, u->name);
	fprintf(out, ", \"uarch_choice\": ");
	t32_uarch_choice_json(out, c);
	fprintf(out, ", \"alloc_width\": %u, \"retire_width\": %u, \"retire_group\": %u, "
		"\"rob_size\": %u, \"skid\": %d,\n"
		" \"cycles_per_iter\": %.6g, \"period_iters\": %zu, \"periodic\": %s,\n \"rows\": [",
		u->alloc_width, u->retire_width, t32_uarch_retire_group(u), u->rob_size,
		skid, r->cycles_per_iter, r->period,
		r->periodic ? "true" : "false");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct t32_model_row *x = &r->rows[i];

		fprintf(out, "%s\n  {\"iter\": %zu, \"idx\": %zu, \"alloc_cycle\": %ld, "
			"\"ready_cycle\": %ld, \"start_cycle\": %ld, \"complete_cycle\": %ld, "
			"\"retire_cycle\": %ld, \"weight_cycles\": %ld, \"share\": %.6g}",
			i ? "," : "", x->iter, x->insn, x->alloc, x->ready, x->start, x->complete,
			x->retire, x->weight, x->share);
	}
	fprintf(out, "],\n \"insns\": [");
	for (size_t k = 0; k < n; k++) {
		fprintf(out, "%s\n  {\"idx\": %zu, \"insn\": ", k ? "," : "", k);
		t32_json_string(out, b[k].d.text);
		fprintf(out, ", \"form\": ");
		t32_json_string(out, b[k].d.form);
		fprintf(out, ", \"class\": \"%s\", \"latency_cycles\": %g, \"latency_source\": \"%s\", "
			"\"weight_cycles\": %.6g, \"share\": %.6g}", t32_classes[b[k].cls].name,
			t32_model_latency(&b[k]), src_words[b[k].src], r->weight[k], r->share[k]);
	}
	fprintf(out, "]}\n");
}

/* Print the steady-state chart: rows of one period, then per-instruction figures. */
static void model_print(FILE *out, enum t32_format fmt, int argc, char **argv,
			const struct t32_uarch *u, const struct t32_uarch_choice *c, int skid,
			const struct t32_model_insn *b, size_t n, const struct t32_model_result *r)
{
	char text[512];

	if (fmt == T32_FMT_JSON) {
		model_print_json(out, u, c, skid, b, n, r);
		return;
	}
	t32_uarch_choice_text(c, u->name, text, sizeof(text));
	if (fmt == T32_FMT_TSV) {
		t32_provenance(out, argc, argv);
		fprintf(out, "# uarch: %s\n# alloc_width: %u\n# retire_width: %u\n"
			"# retire_group: %u\n# rob_size: %u\n# skid: %d\n# cycles_per_iter: %.4f\n"
			"# period_iters: %zu%s\n", text, u->alloc_width, u->retire_width,
			t32_uarch_retire_group(u), u->rob_size, skid,
			r->cycles_per_iter, r->period, r->periodic ? "" : " (no period found)");
		fprintf(out, "iter\tidx\tinsn\tclass\tlatency_cycles\tlatency_source\talloc_cycle\t"
			"ready_cycle\tstart_cycle\tcomplete_cycle\tretire_cycle\tselected\t"
			"weight_cycles\tshare\n");
		for (size_t i = 0; i < r->nrows; i++) {
			const struct t32_model_row *x = &r->rows[i];

			fprintf(out, "%zu\t%zu\t", x->iter, x->insn);
			t32_tsv_fputs(b[x->insn].d.text, out);
			fprintf(out, "\t%s\t%g\t%s\t%ld\t%ld\t%ld\t%ld\t%ld\t%d\t%ld\t%.6f\n",
				t32_classes[b[x->insn].cls].name, t32_model_latency(&b[x->insn]),
				src_words[b[x->insn].src], x->alloc, x->ready, x->start, x->complete,
				x->retire, x->weight > 0, x->weight, x->share);
		}
		return;
	}
	fprintf(out, "# uarch: %s\n", text);
	fprintf(out, "# %s: alloc %u, retire %u (groups of %u), rob %u, load %u/%u/%u cycles; "
		"skid %d; cycles from the previous iteration's last retirement\n", u->name,
		u->alloc_width, u->retire_width, t32_uarch_retire_group(u), u->rob_size,
		u->load_latency, u->load_latency_scaled, u->load_latency_chase, skid);
	fprintf(out, "%s%-32s %-8s %4s %-8s %6s %6s %6s %8s %7s %8s %6s %7s\n",
		r->period > 1 ? "iter  " : "", "instruction", "class", "lat", "from", "alloc", "ready",
		"start", "complete", "retired", "selected", "weight", "share");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct t32_model_row *x = &r->rows[i];

		if (r->period > 1)
			fprintf(out, "%-4zu  ", x->iter);
		fprintf(out, "%-32.32s %-8s %4g %-8s %6ld %6ld %6ld %8ld %7ld %8s %6ld %6.1f%%\n",
			b[x->insn].d.text, t32_classes[b[x->insn].cls].name, t32_model_latency(&b[x->insn]),
			src_words[b[x->insn].src], x->alloc, x->ready, x->start, x->complete,
			x->retire, x->weight > 0 ? "<--" : "", x->weight, 100.0 * x->share);
	}
	if (r->period > 1) {
		fprintf(out, "\nper instruction (mean over %zu iterations)\n", r->period);
		fprintf(out, "%-32s %12s %7s\n", "instruction", "weight/iter", "share");
		for (size_t k = 0; k < n; k++)
			fprintf(out, "%-32.32s %12.2f %6.1f%%\n", b[k].d.text, r->weight[k],
				100.0 * r->share[k]);
	}
	fprintf(out, "cycles per iteration: %.2f%s\n", r->cycles_per_iter,
		r->periodic ? "" : " (no period found: mean of the last window)");
}

/*
 * One latency row of a table's sweep as a model line, where its form is a single
 * instruction that neither loads nor stores; 1 when printed, else 0.
 */
static int lat_row(const struct t32_table *tbl, const char *name, double lat, const char *uarch)
{
	const struct t32_form *form = tbl->n ? t32_table_find(tbl, name) : NULL;
	struct t32_spec s = { 0 };
	unsigned char *code = NULL;
	struct t32_insn *in = NULL;
	size_t len = 0, n = 0;
	char err[512];
	int printed = 0;

	if (form && !t32_spec_add_item(&s, 1, form->insn) && s.items[0].stmts == 1 &&
	    !t32_assemble_body(&s, &code, &len, err, sizeof(err)) &&
	    !t32_deps_decode(code, len, &in, &n, err, sizeof(err)) && n == 1 &&
	    !(in[0].flags & (T32_INSN_LOAD | T32_INSN_STORE))) {
		printf("%-28s | -        | %s=%.0f\t# %s: %.3f\n", in[0].form, uarch,
		       lat < 0 ? 0 : lat, form->name, lat);
		printed = 1;
	}
	t32_spec_free(&s);
	free(code);
	free(in);
	return printed;
}

/*
 * A latency table from a sweep: every latency-mode row measured in cycles, its
 * form looked up in the table the sweep names (`# sweep: ... of=TABLE`),
 * assembled and decoded to the model's form syntax, its estimate rounded to whole
 * cycles for micro-architecture `uarch`.  Forms of several instructions are left
 * out (their latency belongs to the chain, not to one form), and so are forms
 * that touch memory: the table counts their latency after the load, which a
 * chain through memory cannot separate.
 */
static int lat_from_sweep(const char *path, const struct t32_uarch_choice *c)
{
	const char *uarch = c->data;
	char text[512];
	struct t32_tsv t;
	char *line, *of = NULL, err[512];
	size_t kept = 0;
	long cf = -1, cm = -1, cu = -1, cv = -1, cs = -1;
	struct t32_table tbl = { 0 };
	int rc = 0, got;

	/* the bounded reader: a file without newlines is an error, not memory without end */
	if (t32_tsv_open(&t, path))
		return T32_EXIT_ERROR;
	t32_uarch_choice_text(c, uarch, text, sizeof(text));
	printf("# latencies measured by t32 sweep, from %s\n"
	       "# applies to: %s (this machine)\n# uarch: %s\n", path, uarch, text);
	while ((got = t32_tsv_next(&t)) > 0) {
		size_t nf;

		line = t.line;

		if (strncmp(line, "# sweep:", 8) == 0 && !of && !strstr(line, " forms=")) {
			/* a sweep of a spec names no table: of= is its barrier, store and body */
			t32_error("not a sweep of a table '%s' (--lat-from reads the latency rows of a "
				  "table's sweep; this one sweeps a spec)", path);
			rc = T32_EXIT_ERROR;
			break;
		}
		if (strncmp(line, "# sweep:", 8) == 0 && !of) {
			char *p = strstr(line, " of=");

			if (p && (of = strdup(p + 4)))
				of[strcspn(of, " \n")] = 0;
			if (!of || t32_table_load(of, &tbl, err, sizeof(err))) {
				t32_error("%s", of ? err : "no table in the sweep line");
				rc = T32_EXIT_ERROR;
				break;
			}
			continue;
		}
		if (line[0] == '#')
			continue;
		nf = t32_tsv_split(&t);
		if (cf < 0) {
			/* the header: columns by name, whatever their order */
			cf = t32_tsv_column(t.fields, nf, "form");
			cm = t32_tsv_column(t.fields, nf, "mode");
			cu = t32_tsv_column(t.fields, nf, "unit");
			cv = t32_tsv_column(t.fields, nf, "per_insn");
			cs = t32_tsv_column(t.fields, nf, "status");
			if (cf < 0 || cm < 0 || cu < 0 || cv < 0 || cs < 0) {
				t32_error("not a sweep (no form, mode, unit, per_insn and status columns) '%s'",
					  path);
				rc = T32_EXIT_ERROR;
				break;
			}
			continue;
		}
		if ((long)nf <= cf || (long)nf <= cm || (long)nf <= cu || (long)nf <= cv ||
		    (long)nf <= cs || strcmp(t.fields[cm], "latency") || strcmp(t.fields[cu], "cycles") ||
		    strcmp(t.fields[cs], "ok"))
			continue;
		kept += lat_row(&tbl, t.fields[cf], strtod(t.fields[cv], NULL), uarch);
	}
	if (got < 0)
		rc = T32_EXIT_ERROR;
	free(of);
	t32_tsv_close(&t);
	t32_table_free(&tbl);
	if (!rc && !kept) {
		t32_error("no latency rows in cycles of single-instruction forms in '%s'", path);
		rc = T32_EXIT_ERROR;
	}
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}

/* What the command was asked for. */
struct model_args {
	const char *uarch_asked;
	const char *sets[MODEL_MAX_SETS];
	size_t nsets;
	const char *lat_path, *lat_from, *cache_dir;
	int measure;		/* 1 --measure, -1 --no-measure (the last given), 0 as the core needs */
	unsigned skid;		/* 0 or 1 */
	uint64_t curve;		/* --curve KMAX, or UINT64_MAX for none */
	int optind;
};

/* --measure and --no-measure: the last of them given wins. */
static int opt_measure(const struct t32_option *row, const char *arg)
{
	(void)arg;
	*(int *)row->ctx = strcmp(row->name, "measure") == 0 ? 1 : -1;
	return 0;
}

/* The options into m and bo (the CPU, the format); -1 to go on, else an exit code. */
static int model_options(int argc, char **argv, struct model_args *m, struct t32_block_opts *bo)
{
	struct t32_block_optset shared;
	int rc;

	t32_block_optset_for(&shared, bo, "model", T32_OPT_CPU | T32_OPT_FORMAT | T32_OPT_RAWNASM, 0);
	t32_block_optset_help(&shared, T32_OPT_CPU,
			      "model CPU N's core and time forms there (default: the last\n"
			      "allowed CPU, a P-core on a hybrid part; an E-core by its number)");
	{
		const struct t32_option opts[] = {
			T32_OPT_IN_ORDER,	/* options first, then the block */
			T32_OPT_STRING("uarch", 0, "NAME|FILE", &m->uarch_asked, "micro-architecture: data/uarch/NAME.uarch or a file\n" "(default: the one the measuring CPU's CPUID names, as\n" "t32 env shows; a core without data gets generic, and its\n" "forms are timed here, as with --measure)"),
			T32_OPT_LIST("set", "KEY=VALUE", m->sets, &m->nsets, MODEL_MAX_SETS, "changes", "change one parameter, e.g. retire_width=4 (repeatable)"),
			T32_OPT_UINT("skid", "0|1", &m->skid, 0, 1, "skid", "samples land on the selected instruction (0, precise)\n" "or on the next one (1, the default)"),
			T32_OPT_U64("curve", "KMAX", &m->curve, 0, 100000, "curve length", "instead: cycles of k copies between barriers, k = 0..KMAX"),
			T32_OPT_STRING("lat", 0, "FILE", &m->lat_path, "per-form latencies from FILE instead of data/uarch/latency.lat"),
			T32_OPT_FN("measure", NULL, opt_measure, &m->measure, "time each instruction form here first (a chain of itself, or\n" "each copy after a nop), as t32 correlate does; the table is\n" "the fallback"),
			T32_OPT_FN("no-measure", NULL, opt_measure, &m->measure, "not even for a core without data: the table alone"),
			T32_OPT_STRING("cache", 0, "DIR", &m->cache_dir, "keep what --measure timed in DIR (default $T32_CACHE_DIR, else\n" "~/.cache/t32), per CPU and core type, and reuse it"),
			T32_OPT_STRING("lat-from", 0, "SWEEP", &m->lat_from, "print a latency table made from a sweep's latency rows\n" "(t32 sweep TABLE.tbl), for --lat"),
			T32_OPT_SET(shared.rows),
			T32_OPT_END
		};

		rc = t32_options_parse("model", model_usage,
				       "Run the retirement model of \"Where do interrupts happen?\" on a block run as a\n"
				       "loop: when each instruction allocates, is ready, completes and retires; the\n"
				       "instructions where retirement advances (selected by an interrupt) and by how\n"
				       "many cycles; where the samples land; the cycles per iteration.  A block file\n"
				       "(data/blocks/BLOCK.blk) is modelled as its unit: when every line repeats the\n"
				       "same number of times, each once.\n\n",
				       "\nINSN is NASM text, ';' between instructions; N repeats it.  Data files are\n"
				       "found in $T32_DATADIR, else ../data beside the t32 binary, else the install.\n",
				       opts, argc, argv, &m->optind);
	}
	return rc;
}

/*
 * The latencies measured here first (--measure, or a core without data and no
 * --lat), prepended to tab; the line saying where they came from on stderr.  0,
 * or -1 after a message (measuring was asked for and failed, or memory).
 */
static int model_latencies(int measure, const struct t32_uarch_choice *choice,
			   const struct t32_uarch *u, struct t32_lattab *tab,
			   const struct t32_insn *insns, size_t ninsn, const struct t32_spec *spec,
			   const char *cache_dir, const char *lat_path)
{
	struct t32_lattab here;
	struct t32_latcache lc;
	char err[1024], text[512];

	/* a core without data relies on latencies measured here, unless told not to */
	if (!measure && choice->how == T32_UARCH_UNKNOWN && !lat_path)
		measure = 2;
	if (measure <= 0)
		return 0;
	if (t32_latcache_fill(u, tab, insns, ninsn, spec, cache_dir, &here, &lc, err,
			      sizeof(err)) == 0) {
		if (t32_lattab_prepend(tab, &here)) {
			t32_lattab_free(&here);
			t32_error("out of memory");
			return -1;
		}
		t32_lattab_free(&here);
		t32_latcache_text(&lc, text, sizeof(text));
		/* on stderr: the chart's own lines stay as they are for programs */
		fprintf(stderr, "t32: latencies: %s\n", text);
	} else if (measure == 1) {
		t32_error("%s", err);
		return -1;
	} else {
		t32_warn("no data for this core, and its latencies cannot be measured here: "
			 "the generic table alone (%s)", err);
	}
	return 0;
}

/* --curve: cycles of k = 0..curve copies between barriers, as fmt asks; 0 or -1. */
static int model_curve(enum t32_format fmt, int argc, char **argv, const struct t32_uarch *u,
		       const struct t32_uarch_choice *choice, const struct t32_model_insn *block,
		       size_t ninsn, uint64_t curve)
{
	double *cyc = calloc(curve + 1, sizeof(double));
	char text[512];

	if (!cyc || t32_model_curve(u, block, ninsn, curve, cyc)) {
		free(cyc);
		t32_error("out of memory");
		return -1;
	}
	t32_uarch_choice_text(choice, u->name, text, sizeof(text));
	if (fmt == T32_FMT_JSON) {
		printf("{");
		t32_provenance_json(stdout, 0, NULL);
		printf(", \"uarch\": ");
		t32_json_string(stdout, u->name);
		printf(", \"uarch_choice\": ");
		t32_uarch_choice_json(stdout, choice);
		printf(", \"cycles\": [");
		for (uint64_t k = 0; k <= curve; k++)
			printf("%s%.0f", k ? ", " : "", cyc[k]);
		printf("]}\n");
	} else {
		if (fmt == T32_FMT_TSV)
			t32_provenance(stdout, argc, argv);
		printf("# cycles of k copies between barriers, each from an empty machine\n"
		       "# uarch: %s\ncopies\tcycles\n", text);
		for (uint64_t k = 0; k <= curve; k++)
			printf("%llu\t%.0f\n", (unsigned long long)k, cyc[k]);
	}
	free(cyc);
	return 0;
}

/*
 * The machine modelled: the micro-architecture chosen with its --set changes, and
 * the latency table (--lat, else data/uarch/latency.lat where it is).  0 or an
 * exit code after a message.
 */
static int model_machine(const struct model_args *m, const char *dir,
			 const struct t32_uarch_choice *choice, struct t32_uarch *u,
			 struct t32_lattab *tab)
{
	char err[1024], path[PATH_MAX];
	int rc = t32_block_uarch_load(u, choice->data, dir, m->sets, m->nsets);

	if (rc)
		return rc;
	if (m->lat_path)
		snprintf(path, sizeof(path), "%s", m->lat_path);
	else
		snprintf(path, sizeof(path), "%.4000s/uarch/latency.lat", dir);
	if ((m->lat_path || access(path, F_OK) == 0) &&
	    t32_lattab_load(tab, path, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_ERROR;
	}
	return 0;
}

int cmd_model(int argc, char **argv)
{
	struct model_args m = { .skid = 1, .curve = UINT64_MAX };
	struct t32_block_opts bo;
	const char *dir = t32_datadir();
	size_t ninsn = 0, len = 0;
	int i, rc;
	char err[1024], path[PATH_MAX];
	struct t32_spec spec;
	struct t32_uarch u;
	struct t32_uarch_choice choice;
	struct t32_lattab tab = { NULL, 0 };
	unsigned char *code = NULL;
	struct t32_insn *insns = NULL;
	struct t32_model_insn *block = NULL;
	struct t32_model_result res;

	memset(&spec, 0, sizeof(spec));
	memset(&res, 0, sizeof(res));
	rc = model_options(argc, argv, &m, &bo);
	if (rc >= 0)
		return rc;
	if (m.lat_from) {
		t32_block_uarch(m.uarch_asked, &choice);
		return lat_from_sweep(m.lat_from, &choice);
	}
	i = m.optind;
	if (i >= argc)
		return t32_usage(model_usage);
	rc = t32_block_body(argc - i, argv + i, &spec, path, sizeof(path));
	if (rc >= 0) {
		t32_spec_free(&spec);
		return rc;
	}
	rc = T32_EXIT_ERROR;
	if (path[0]) {
		int same = 1;

		/* the unit: a steady state of copies of the whole is one of copies of it */
		for (size_t k = 1; k < spec.nitems; k++)
			same &= spec.items[k].reps == spec.items[0].reps;
		for (size_t k = 0; same && k < spec.nitems; k++)
			spec.items[k].reps = 1;
	}
	if (t32_spec_insns(&spec) == 0 || t32_spec_insns(&spec) > MODEL_MAX_INSNS) {
		t32_error("block must hold 1 to %d instructions '%llu'", MODEL_MAX_INSNS,
			  (unsigned long long)t32_spec_insns(&spec));
		t32_spec_free(&spec);
		return T32_EXIT_USAGE;
	}

	t32_block_uarch(m.uarch_asked, &choice);
	rc = model_machine(&m, dir, &choice, &u, &tab);
	if (rc)
		goto out;
	rc = T32_EXIT_ERROR;
	if (t32_assemble_body(&spec, &code, &len, err, sizeof(err)) ||
	    t32_deps_decode(code, len, &insns, &ninsn, err, sizeof(err))) {
		t32_error("%s", err);
		goto out;
	}
	block = calloc(ninsn, sizeof(*block));
	if (!block) {
		t32_error("out of memory");
		goto out;
	}
	if (model_latencies(m.measure, &choice, &u, &tab, insns, ninsn, &spec, m.cache_dir,
			    m.lat_path))
		goto out;
	t32_model_prepare(&u, &tab, insns, ninsn, block);

	if (m.curve != UINT64_MAX) {
		if (model_curve(bo.format, argc, argv, &u, &choice, block, ninsn, m.curve))
			goto out;
	} else {
		if (t32_model_steady(&u, block, ninsn, (int)m.skid, &res)) {
			t32_error("out of memory");
			goto out;
		}
		model_print(stdout, bo.format, argc, argv, &u, &choice, (int)m.skid, block, ninsn, &res);
	}
	rc = t32_close_stdout();
out:
	t32_model_result_free(&res);
	free(block);
	free(insns);
	free(code);
	t32_lattab_free(&tab);
	t32_spec_free(&spec);
	return rc;
}
