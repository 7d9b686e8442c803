/*
 * latcache.c - instruction forms measured in place for the model (see latcache.h).
 */
#include "t32/core/latcache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/model.h"
#include "t32/core/block.h"
#include "t32/core/measure.h"
#include "t32/core/run.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

#define LAT_CHAIN 40		/* copies in the timed chain ... */
#define LAT_BASE 20		/* ... against this many: the fill of the pipeline cancels */
/*
 * A form with no register chain (a locked add, a fence, a store) is timed as
 * it meets other instructions in a block: each copy after a nop, 100 against
 * 50 such pairs.  Back to back, right after an lfence, the first few dozen
 * locked adds of a Zen 4 run faster than the rest (40 against 20 read 6.38
 * cycles each, 100 against 50 read 6.96, 200 against 100 7.55), while after a
 * nop they cost the same from 50 pairs on (7.50, 7.50, 7.51), and so they do
 * in a loop (the vpmulld2-lock study block runs 7.48 cycles an iteration).
 */
#define LAT_SPACED 100
#define LAT_SPACED_BASE 50
#define LAT_PRECISION 0.02	/* cycles per instruction */
#define LAT_BUDGET 0.5		/* seconds per form at most */
#define LAT_MAX_FORMS 1024	/* forms one cache file holds */
#define LAT_ACCEPT_HW 0.15	/* cycles per instruction: a wider interval is no measurement */
#define LAT_OFF_WHOLE 0.1	/* cycles: a cost further than this off a whole cycle is timed again */

/* One measured form, as the cache file keeps it. */
struct lat_row {
	char form[64];		/* "imul r64, r64" (deps' form) */
	char text[200];		/* the NASM timed: "imul rax, rax" */
	char how[16];		/* "chain" or "spaced" */
	double cycles;		/* per instruction */
	double halfwidth;	/* 95%, cycles per instruction */
	char date[16];
	int shared;		/* measured on a CPU another task used: not kept */
};

void t32_latcache_dir(const char *dir, char *buf, size_t len)
{
	const char *env;

	if (dir && *dir)
		snprintf(buf, len, "%s", dir);
	else if ((env = getenv("T32_CACHE_DIR")) && *env)
		snprintf(buf, len, "%s", env);
	else if ((env = getenv("XDG_CACHE_HOME")) && *env)
		snprintf(buf, len, "%s/t32", env);
	else if ((env = getenv("HOME")) && *env)
		snprintf(buf, len, "%s/.cache/t32", env);
	else
		buf[0] = 0;
}

void t32_latcache_cpu(char *key, size_t len, char *cpu_text, size_t cl)
{
	struct t32_cpu c;
	char core[16] = "";

	t32_cpu_identify(&c);
	if (c.core_type == T32_CORE_CORE || c.core_type == T32_CORE_ATOM)
		snprintf(core, sizeof(core), "-%ccore", c.core_type == T32_CORE_CORE ? 'p' : 'e');
	else if (c.core_type == T32_CORE_UNKNOWN)
		snprintf(core, sizeof(core), "-coreunknown");
	else if (c.core_type)
		snprintf(core, sizeof(core), "-core%#x", c.core_type);
	snprintf(key, len, "%s-%x-%x-%x%s%s%s", c.vendor, c.family, c.model, c.stepping, core,
		 c.microcode[0] ? "-" : "", c.microcode);
	snprintf(cpu_text, cl, "%s family %#x model %#x stepping %u microcode %s%s%s (%s)",
		 c.vendor, c.family, c.model, c.stepping, c.microcode[0] ? c.microcode : "unknown",
		 c.core_text[0] ? ", " : "", c.core_text, c.brand);
}

/*
 * The cache file of the measuring CPU in dir:
 * lat-VENDOR-FAMILY-MODEL-STEPPING[-CORE][-MICROCODE].tsv, CORE on a hybrid
 * part only ("pcore", "ecore", "core0x30", "coreunknown"), so that one core
 * type's timings never mix with another's.
 */
static void cache_path(const char *dir, char *buf, size_t len, char *cpu_text, size_t cl)
{
	char key[128];

	t32_latcache_cpu(key, sizeof(key), cpu_text, cl);
	snprintf(buf, len, "%.3900s/lat-%s.tsv", dir, key);
}

/*
 * Could t32 have measured and kept row?  Its way of timing is one t32 uses,
 * its cost a finite number of cycles no solve would refuse, its interval one
 * a measurement was accepted with, its text NASM of one line.  NULL, or what
 * is wrong.
 */
static const char *row_wrong(const struct lat_row *r)
{
	int spaced = strcmp(r->how, "spaced") == 0;

	if (!spaced && strcmp(r->how, "chain"))
		return "not timed as a chain or spaced";
	if (!isfinite(r->cycles) || r->cycles < 0 || r->cycles > 4 * T32_SOLVE_MAX)
		return "its cycles are no cost a form can have";
	if (!isfinite(r->halfwidth) || r->halfwidth < 0 ||
	    r->halfwidth > LAT_ACCEPT_HW * (spaced ? 2 : 1))
		return "its interval is none a measurement was kept with";
	if (!r->form[0] || !r->text[0] || strpbrk(r->text, "\t\n\r"))
		return "no form or text";
	return NULL;
}

/*
 * Read the cache file into rows (at most max); the count, 0 when there is
 * none.  A row t32 could not have kept, or a form given twice, is left out
 * with a warning: it is measured again and the file rewritten.
 */
static size_t cache_read(const char *path, struct lat_row *rows, size_t max, int *dropped)
{
	struct t32_tsv t;
	size_t n = 0;
	FILE *f = fopen(path, "r");

	*dropped = 0;
	if (!f)
		return 0;
	if (t32_tsv_from(&t, f, path)) {
		fclose(f);
		return 0;
	}
	while (n < max && t32_tsv_next(&t) == 1) {
		struct lat_row *r = &rows[n];
		const char *wrong = NULL;
		char *end, *end2;

		if (t.line[0] == '#' || strncmp(t.line, "form\t", 5) == 0)
			continue;
		memset(r, 0, sizeof(*r));
		if (t32_tsv_split(&t) < 6) {
			wrong = "fewer than 6 fields";
		} else {
			snprintf(r->form, sizeof(r->form), "%s", t.fields[0]);
			snprintf(r->text, sizeof(r->text), "%s", t.fields[1]);
			snprintf(r->how, sizeof(r->how), "%s", t.fields[2]);
			snprintf(r->date, sizeof(r->date), "%s", t.fields[5]);
			r->cycles = strtod(t.fields[3], &end);
			r->halfwidth = strtod(t.fields[4], &end2);
			if (*end || end == t.fields[3] || *end2 || end2 == t.fields[4])
				wrong = "not numbers";
			else
				wrong = row_wrong(r);
			for (size_t k = 0; !wrong && k < n; k++)
				if (strcmp(rows[k].form, r->form) == 0)
					wrong = "its form is given twice";
		}
		if (wrong) {
			t32_warn("line %zu of the latency cache '%s' is no measurement t32 kept (%s): "
				 "its form is timed again", t.lineno, path, wrong);
			(*dropped)++;
			continue;
		}
		n++;
	}
	t32_tsv_close(&t);
	fclose(f);
	return n;
}

/*
 * A cost the form's class rules out: a chain of multiplies, divides or loads
 * costs at least a cycle a copy (only moves and zeroing idioms are eliminated).
 */
static int cost_impossible(enum t32_class cls, const char *how, double cycles)
{
	return strcmp(how, "chain") == 0 && cycles < 1 &&
	       (cls == T32_CLASS_MUL || cls == T32_CLASS_DIV || cls == T32_CLASS_LOAD);
}

/* Write rows to the cache file, whole, beside and then over the old one. */
static int cache_write(const char *path, const char *cpu_text, const struct lat_row *rows,
		       size_t n)
{
	FILE *f = t32_fopen_out(path);

	if (!f)
		return -1;
	fprintf(f, "# t32 %s latency cache: instruction forms timed on this CPU as a chain of\n"
		"# themselves, %d against %d copies between lfences, or (spaced) each after a\n"
		"# nop, %d against %d pairs; cycles are per copy of the form\n",
		T32_VERSION, LAT_CHAIN, LAT_BASE, LAT_SPACED, LAT_SPACED_BASE);
	fprintf(f, "# cpu: %s\n", cpu_text);
	fprintf(f, "form\ttext\thow\tcycles\thalfwidth\tdate\n");
	for (size_t i = 0; i < n; i++) {
		t32_tsv_fputs(rows[i].form, f);
		fputc('\t', f);
		t32_tsv_fputs(rows[i].text, f);
		fprintf(f, "\t%s\t%.4f\t%.4f\t%s\n", rows[i].how, rows[i].cycles, rows[i].halfwidth,
			rows[i].date);
	}
	return t32_fclose_out(f) ? -1 : 0;
}

/*
 * How a form can be timed on its own: "chain" when it writes a register it reads
 * (its own output feeds the next copy), "spaced" (copies one after a nop each)
 * for fences, atomics, read-modify-writes and serialising forms, NULL when
 * neither (no chain to time: a move of an immediate, a branch, a nop,
 * rip-relative memory that would land elsewhere, a pure store: nothing reads what
 * it writes, and after a nop it costs its throughput at every latency up to the
 * one that fills the ROB, which the nearest cost then picks: 154 cycles for
 * Zen 4's `mov qword [rbx+16], rcx` timed at 0.5255 +- 0.0197).
 */
static const char *timing_kind(const struct t32_insn *d, enum t32_class cls)
{
	if (cls == T32_CLASS_NOP || cls == T32_CLASS_BRANCH || cls == T32_CLASS_STORE ||
	    strstr(d->text, "rip"))
		return NULL;
	for (unsigned w = 0; w < d->nwrites; w++) {
		unsigned r = d->writes[w];

		if (r >= T32_RES_CF)
			continue;
		if (t32_insn_reads(d, r))
			return "chain";
	}
	if (cls == T32_CLASS_FENCE || cls == T32_CLASS_ATRETIRE || cls == T32_CLASS_SERIAL ||
	    (d->flags & (T32_INSN_STORE | T32_INSN_LOCK)))
		return "spaced";
	return NULL;
}

/* Capstone's Intel syntax as NASM: sizes without "ptr", vector sizes by NASM's names. */
static void nasm_text(const char *cs, char *out, size_t len)
{
	static const struct {
		const char *from, *to;
	} words[] = {
		{ "xmmword ptr ", "oword " }, { "ymmword ptr ", "yword " },
		{ "zmmword ptr ", "zword " }, { "tbyte ptr ", "tword " }, { " ptr ", " " },
	};
	size_t at = 0;

	while (*cs && at + 1 < len) {
		size_t w;

		for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
			size_t l = strlen(words[w].from);

			if (strncmp(cs, words[w].from, l) == 0) {
				at += (size_t)snprintf(out + at, len - at, "%s", words[w].to);
				cs += l;
				break;
			}
		}
		if (w == sizeof(words) / sizeof(words[0]))
			out[at++] = *cs++;
		if (at >= len)
			at = len - 1;
	}
	out[at] = 0;
}

int t32_latcache_judge(struct t32_measurement *m, char *why, size_t wl, int *shared)
{
	struct t32_measure_opts mo;

	/*
	 * Judged again without the precision target: on a busy machine the interval
	 * may stay wider than asked, and a latency is rounded to a quarter cycle anyway.
	 */
	t32_measure_opts_init(&mo);
	m->untrusted[0] = 0;
	t32_measure_check(m, &mo, 0);
	/*
	 * A core another thread shared and nothing else: the interval is already
	 * widened by how far the sensors disagree, and it is a better latency than
	 * a class's default, so it serves this run, as one on a shared CPU does,
	 * and is not kept.
	 */
	if (m->untrusted[0] && m->contended) {
		struct t32_measurement alone = *m;

		alone.contended = 0;
		alone.untrusted[0] = 0;
		t32_measure_check(&alone, &mo, 0);
		if (!alone.untrusted[0]) {
			m->untrusted[0] = 0;
			m->flags |= T32_EST_SHARED;
		}
	}
	if (m->untrusted[0] || !isfinite(m->value) || m->halfwidth > LAT_ACCEPT_HW) {
		if (m->untrusted[0])
			snprintf(why, wl, "timed, not trusted: %s", m->untrusted);
		else
			snprintf(why, wl, "timed, interval +-%.3g wider than %.2g", m->halfwidth,
				 LAT_ACCEPT_HW);
		return -1;
	}
	*shared = (m->flags & T32_EST_SHARED) != 0;
	return 0;
}

/*
 * Time text as `how` says (a chain: LAT_CHAIN against LAT_BASE copies; spaced:
 * LAT_SPACED against LAT_SPACED_BASE pairs of a nop and it); 0 with the cost per
 * copy, -1 when it cannot, with why into why[0..wl).
 */
static int time_form(const char *text, const char *how, const struct t32_spec *init,
		     double *cycles, double *hw, int *shared, char *why, size_t wl)
{
	struct t32_measurement m;
	int spaced = strcmp(how, "spaced") == 0;
	char unit[220];

	/* figures are per instruction: a spaced copy of the form is two of them */
	snprintf(unit, sizeof(unit), "%s%s", spaced ? "nop; " : "", text);
	if (t32_measure_copies(unit, spaced ? LAT_SPACED : LAT_CHAIN,
			       spaced ? LAT_SPACED_BASE : LAT_BASE, init,
			       spaced ? LAT_PRECISION / 2 : LAT_PRECISION, LAT_BUDGET, 1, &m)) {
		snprintf(why, wl, "could not be timed");
		return -1;
	}
	if (t32_latcache_judge(&m, why, wl, shared))
		return -1;
	*cycles = (m.value < 0 ? 0 : m.value) * (spaced ? 2 : 1);
	*hw = m.halfwidth * (spaced ? 2 : 1);
	return 0;
}

int t32_latcache_off_whole(double cycles, double hw)
{
	double off = fabs(cycles - nearbyint(cycles));

	return off > hw && off > LAT_OFF_WHOLE;
}

/* One measured latency into the table the model reads. */
static void add_entry(struct t32_lattab *out, const char *form, int cls, unsigned lat,
		      unsigned quarters)
{
	struct t32_lat_entry *e = &out->e[out->n++];

	memset(e, 0, sizeof(*e));
	snprintf(e->form, sizeof(e->form), "%s", form);
	e->cls = cls;
	e->nlat = 1;
	e->lat[0].cycles = lat;
	e->quarters = quarters;
	e->measured = 1;
}

/*
 * The cache written back when it gained, changed or lost rows (old: how many it
 * had), leaving out rows measured on a shared CPU: they served this run only.
 */
static void save_rows(const char *d, const char *path, const char *cpu_text, struct lat_row *rows,
		      size_t nrows, size_t old, int changed)
{
	size_t kept = 0;

	for (size_t j = 0; j < nrows; j++)
		if (!rows[j].shared)
			rows[kept++] = rows[j];
	nrows = kept;
	if ((nrows > old || changed) && path[0]) {
		/* the cache is a convenience: one that cannot be written costs a warning */
		if (mkdir(d, 0777) && errno != EEXIST)
			t32_warn("cannot create the latency cache '%s' (%s)", d, strerror(errno));
		else
			cache_write(path, cpu_text, rows, nrows);
	}
}

/* The latency of m from a row's cost and its half-width; 0, or -1 when the model cannot reproduce it. */
static int solve_row(const struct t32_uarch *u, const struct t32_model_insn *m,
		     const struct lat_row *r, unsigned *lat, unsigned *quarters)
{
	return t32_model_solve_latency(u, m, r->cycles, r->halfwidth, lat, quarters, NULL);
}

/* One more form left to the table, and why, when it is the first. */
static void left(struct t32_latcache *info, const char *form, const char *why)
{
	if (!info->unmeasurable++)
		snprintf(info->why, sizeof(info->why), "%s %s", form, why);
}

int t32_latcache_fill(const struct t32_uarch *u, const struct t32_lattab *tab,
		      const struct t32_insn *in, size_t n, const struct t32_spec *init,
		      const char *dir, struct t32_lattab *out, struct t32_latcache *info,
		      char *err, size_t errlen)
{
	struct lat_row *rows = calloc(LAT_MAX_FORMS, sizeof(*rows));
	struct t32_model_insn *mi = calloc(n ? n : 1, sizeof(*mi));
	char d[PATH_MAX], cpu_text[256];
	size_t nrows, old, replaced = 0;
	double t0 = t32_now();
	int rc = -1, dropped = 0;

	memset(info, 0, sizeof(*info));
	out->e = NULL;
	out->n = 0;
	if (!rows || !mi) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	t32_latcache_dir(dir, d, sizeof(d));
	if (d[0]) {
		cache_path(d, info->path, sizeof(info->path), cpu_text, sizeof(cpu_text));
	} else {
		struct t32_cpu c;

		t32_cpu_identify(&c);
		snprintf(cpu_text, sizeof(cpu_text), "%s", c.brand);
	}
	nrows = old = info->path[0] ? cache_read(info->path, rows, LAT_MAX_FORMS, &dropped) : 0;
	t32_model_prepare(u, tab, in, n, mi);
	out->e = calloc(n ? n : 1, sizeof(*out->e));
	if (!out->e) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		const char *how = timing_kind(&in[i], mi[i].cls);
		struct lat_row *r = NULL;
		unsigned lat, quarters;
		int seen = 0;
		char text[200];

		for (size_t k = 0; k < out->n; k++)
			seen |= strcmp(out->e[k].form, in[i].form) == 0;
		if (seen || !how)
			continue;
		for (size_t k = 0; k < nrows; k++)
			if (strcmp(rows[k].form, in[i].form) == 0)
				r = &rows[k];
		nasm_text(in[i].text, text, sizeof(text));
		/*
		 * A kept row is used only when it is this form timed this way, at a cost
		 * its class allows and the model can reproduce; else it is timed again.
		 */
		if (r && strcmp(r->how, how) == 0 && strcmp(r->text, text) == 0 &&
		    !cost_impossible(mi[i].cls, how, r->cycles) &&
		    !solve_row(u, &mi[i], r, &lat, &quarters)) {
			info->reused++;
		} else if (r || nrows < LAT_MAX_FORMS) {
			double cycles, hw;
			int shared = 0;
			time_t now = time(NULL);
			char why[256] = "";

			/* a CPU shared with another task reads long: once more, then not kept */
			if (time_form(text, how, init, &cycles, &hw, &shared, why, sizeof(why)) ||
			    (shared &&
			     time_form(text, how, init, &cycles, &hw, &shared, why, sizeof(why))) ||
			    cost_impossible(mi[i].cls, how, cycles)) {
				if (!why[0])
					snprintf(why, sizeof(why), "timed at %.3f cycles, which its "
						 "class rules out", cycles);
				left(info, in[i].form, why);
				continue;
			}
			/* off a whole cycle: once more, the lower kept (t32_latcache_off_whole) */
			if (t32_latcache_off_whole(cycles, hw)) {
				double c2, hw2;
				int shared2 = 0;
				char why2[256];

				if (!time_form(text, how, init, &c2, &hw2, &shared2, why2, sizeof(why2)) &&
				    !cost_impossible(mi[i].cls, how, c2) && c2 < cycles) {
					cycles = c2;
					hw = hw2;
					shared = shared2;
				}
				info->retimed++;
			}
			/* a row timed another way, or not to be trusted, is timed again and replaced */
			if (!r)
				r = &rows[nrows++];
			else if (!shared)
				replaced++;
			snprintf(r->form, sizeof(r->form), "%s", in[i].form);
			snprintf(r->text, sizeof(r->text), "%s", text);
			snprintf(r->how, sizeof(r->how), "%s", how);
			r->cycles = cycles;
			r->halfwidth = hw;
			r->shared = shared;
			strftime(r->date, sizeof(r->date), "%Y-%m-%d", gmtime(&now));
			info->measured++;
			info->unkept += shared != 0;
			if (solve_row(u, &mi[i], r, &lat, &quarters)) {
				snprintf(why, sizeof(why), "timed at %.3f cycles, which the model "
					 "cannot reproduce", r->cycles);
				left(info, in[i].form, why);
				continue;
			}
		} else {
			continue;
		}
		add_entry(out, in[i].form, (int)mi[i].cls, lat, quarters);
	}
	save_rows(d, info->path, cpu_text, rows, nrows, old, replaced || dropped);
	info->seconds = t32_now() - t0;
	rc = 0;
done:
	free(rows);
	free(mi);
	return rc;
}

void t32_latcache_text(const struct t32_latcache *c, char *buf, size_t len)
{
	char notes[160] = "", unkept[170] = "";

	/* one parenthesis for both remarks: readers match the line by it */
	if (c->unkept)
		snprintf(notes, sizeof(notes), "%zu not kept: timed on a shared CPU or core",
			 c->unkept);
	if (c->retimed)
		snprintf(notes + strlen(notes), sizeof(notes) - strlen(notes),
			 "%s%zu timed twice, off a whole cycle the first time: the lower kept",
			 notes[0] ? "; " : "", c->retimed);
	if (notes[0])
		snprintf(unkept, sizeof(unkept), " (%s)", notes);
	snprintf(buf, len, "%zu form%s measured here%s, %zu from the cache%s%s, %zu left to the "
		 "table (%.1f s)%s%s", c->measured, c->measured == 1 ? "" : "s", unkept, c->reused,
		 c->path[0] ? " " : "", c->path, c->unmeasurable, c->seconds,
		 c->why[0] ? "; " : "", c->why);
}
