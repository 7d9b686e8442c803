/*
 * correlate.c - one block correlated (see correlate.h): the step curve (k = 0..K
 * copies of the block's unit between lfences, t32_sweep), the interrupt samples
 * (t32_sampling_take, the loop in a measuring child), and the retirement
 * model fitted to both at once (analysis/correlate.h).  Prints the fitted
 * parameters with their uncertainties, measured against predicted shares with
 * the total variation distance and a chi-square test, the in-situ time each
 * instruction holds retirement up, measured against predicted curve with the
 * correlation and where the curves part, and the cycles per iteration of both.
 *
 * The unit is what the model runs as a loop and the sweep repeats: the body's
 * items taken once when they all repeat the same number of times (a block file's
 * `10 INSN; INSN...` is ten copies of one unit), else the whole body.  Samples
 * on the body's copies are folded onto the unit.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/correlate.h"
#include "analysis/deps.h"
#include "analysis/fit.h"
#include "analysis/model.h"
#include "analysis/uarch.h"
#include "gen/gen.h"
#include "t32/sample/attrib.h"
#include "t32/core/block.h"
#include "t32/core/latcache.h"
#include "t32/core/recorded.h"
#include "t32/core/learned.h"
#include "analysis/learn.h"
#include "t32/core/measure.h"
#include "t32/sample/correlate.h"
#include "t32/sample/sampling.h"
#include "t32/spec.h"
#include "t32/core/sweep.h"
#include "t32/core/run.h"
#include "t32/io/sweepfile.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

#define CORR_MAX_INSNS 4096	/* instructions in one unit */
#define CORR_UNIT_TEXT 65536	/* bytes of the unit's NASM text */
#define CORR_HOLD_MIN 0.01	/* the table shows in-situ holds of instructions selected this often */

/* What was measured and fitted: everything the printers need. */
struct corr_run {
	struct t32_spec spec;		/* the block as given */
	char unit_text[CORR_UNIT_TEXT];	/* the unit as one NASM text, ';' between lines */
	struct t32_insn *insns;		/* the unit decoded */
	size_t n;
	struct t32_insn *loop;		/* the sampled loop decoded: copies, then its counter */
	size_t loop_n, loop_copies;
	uint64_t *counts;		/* samples per unit position */
	char backend[64];		/* sampling backend used */
	int skid;
	double sample_seconds;
	enum t32_sampling_doubt sample_untrusted;	/* why the sampler said exit 7, if it did */
	double *curve, *curve_hw;	/* cycles of k copies, their 95% half-width */
	unsigned curve_untrusted;	/* steps the sweep measured but did not trust (kept) */
	char curve_why[160];		/* the first such step and the head of its reason */
	int curve_sweeps;		/* 2: swept again, the curve mostly untrusted the first time */
	unsigned char *curve_ok;	/* per step, 1 where the sweep trusted it */
	size_t kmax;
	struct t32_linfit slope;	/* of the curve: measured cycles per iteration */
	double cpi_error;		/* (predicted - measured) / measured */
	struct t32_corr_result fit;	/* the fit, or the learned model's prediction */
	int predicted;			/* fit is the learned model's prediction, nothing fitted */
	char learned[PATH_MAX + 256];	/* the learned model, for people */
	struct t32_corr_result diag;	/* beside a prediction: the per-block fit (--fit) */
	int have_diag;
	double diag_cpi_error;		/* its (predicted - measured) / measured */
	double gain_p;			/* p-value of its deviance gain over the prediction */
	unsigned moved;			/* parameters it moved from the learned values */
	struct t32_uarch_choice uarch;	/* the data the fit started from, and why */
	struct t32_latcache lat;	/* what was measured here, and the cache */
	int measured;			/* latencies were measured (not --no-measure) */
	int from_recording;		/* they are the recording's (--from), not this machine's */
	size_t recorded;		/* forms the recording measured */
	enum t32_lat_source *src;	/* per instruction: where its latency came from */
	unsigned char *fitted;		/* per instruction: its latency was fitted */
	char sweep_tsv[PATH_MAX], sample_tsv[PATH_MAX];
	double seconds;			/* wall time of the whole command */
};

/* Append text to buf (len bytes) at *at; -1 when it does not fit. */
static int corr_append(char *buf, size_t len, size_t *at, const char *text)
{
	size_t l = strlen(text);

	if (*at + l + 1 > len)
		return -1;
	memcpy(buf + *at, text, l + 1);
	*at += l;
	return 0;
}

/*
 * The unit of the spec as one NASM text: each item once when all repeat the same
 * number of times, else every item as often as it repeats.  -1 if too long.
 */
static int corr_unit(const struct t32_spec *s, char *buf, size_t len)
{
	size_t at = 0;
	int same = 1;

	buf[0] = 0;
	for (size_t i = 1; i < s->nitems; i++)
		same &= s->items[i].reps == s->items[0].reps;
	for (size_t i = 0; i < s->nitems; i++) {
		uint64_t reps = same ? 1 : s->items[i].reps;

		for (uint64_t r = 0; r < reps; r++)
			if ((at && corr_append(buf, len, &at, "; ")) ||
			    corr_append(buf, len, &at, s->items[i].text))
				return -1;
	}
	return 0;
}

/* The unit's machine code: its ';'-separated text as one body item. */
static int corr_assemble(const char *text, unsigned char **code, size_t *len, char *err,
			 size_t errlen)
{
	struct t32_spec s = { 0 };
	int rc;

	if (t32_spec_set_barrier(&s, "n", err, errlen) || t32_spec_add_item(&s, 1, text)) {
		t32_spec_free(&s);
		return -1;
	}
	s.store = 'm';
	rc = t32_assemble_body(&s, code, len, err, errlen);
	t32_spec_free(&s);
	return rc;
}

/*
 * "k = K: REASON" into why (when still empty), the reason cut at its first
 * colon or parenthesis: what the label of an untrusted step curve names.
 */
static void corr_why(char *why, size_t len, unsigned long long k, const char *reason)
{
	if (why[0] || !reason || !reason[0])
		return;
	snprintf(why, len, "k = %llu: %.*s", k, (int)strcspn(reason, ":("), reason);
	while (why[0] && why[strlen(why) - 1] == ' ')
		why[strlen(why) - 1] = 0;
}

/*
 * Read a sweep TSV (`t32 sweep` output) into the curve: for each k the block's
 * cycles and their 95% half-width.  Rows the sweep did not trust are kept,
 * counted in *untrusted, marked 0 in ok[] and the first named in why; a fault
 * or an unsupported row is an error.  Every k = 0..kmax must be there.  0, or -1
 * with err.
 */
static int corr_read_sweep(FILE *f, const char *path, double *curve, double *hw,
			   unsigned char *ok, size_t kmax, unsigned *untrusted, char *why,
			   size_t whylen, char *err, size_t errlen)
{
	struct t32_sweep_step *st = calloc(kmax + 1, sizeof(*st));
	int rc = -1;

	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (t32_sweep_read_steps(f, path, st, kmax, err, errlen))
		goto out;
	for (size_t k = 0; k <= kmax; k++) {
		if (!st[k].seen) {
			snprintf(err, errlen, "the sweep has no row for copies '%zu'", k);
			goto out;
		}
		if (!st[k].ok && strcmp(st[k].status, "untrusted") != 0) {
			snprintf(err, errlen, "a step of the curve was not measured '%zu: %s'", k,
				 st[k].status);
			goto out;
		}
		if (!isfinite(st[k].total)) {
			snprintf(err, errlen, "the sweep has no cycles for copies '%zu'", k);
			goto out;
		}
		if (!st[k].ok) {
			(*untrusted)++;
			corr_why(why, whylen, k, st[k].reason);
		}
		curve[k] = st[k].total;
		hw[k] = st[k].hw;
		ok[k] = st[k].ok;
	}
	rc = 0;
out:
	free(st);
	return rc;
}

/*
 * Read a `t32 sample --format=tsv` output: the backend ('# backend:'), and the
 * samples of each position, folded onto n unit positions (position % n).  The
 * body must hold whole copies of the unit.  0, or -1 with err.
 */
static int corr_read_samples(const char *text, size_t n, uint64_t *counts, char *backend,
			     size_t blen, char *err, size_t errlen)
{
	struct t32_tsv t;
	size_t nh = 0, rows = 0;
	long cp = -1, cs = -1;
	int rc = -1;

	memset(counts, 0, n * sizeof(*counts));
	backend[0] = 0;
	if (t32_tsv_text(&t, text, "t32 sample")) {
		snprintf(err, errlen, "no sample table in the sampler's output '%s'", "t32 sample");
		return -1;
	}
	while (t32_tsv_next(&t) == 1) {
		const char *line = t.line;
		char *end;
		unsigned long long pos, k;

		if (strncmp(line, "# backend: ", 11) == 0) {
			snprintf(backend, blen, "%.*s", (int)strcspn(line + 11, " \t"), line + 11);
			continue;
		}
		if (line[0] == '#' || strncmp(line, "t32: ", 5) == 0)
			continue;
		if (!nh) {
			if (strncmp(line, "position\t", 9) != 0)
				continue;
			nh = t32_tsv_split(&t);
			cp = t32_tsv_column(t.fields, nh, "position");
			cs = t32_tsv_column(t.fields, nh, "samples");
			if (cs < 0) {
				snprintf(err, errlen, "the sample table has no column '%s'", "samples");
				goto out;
			}
			continue;
		}
		if (t32_tsv_split(&t) < nh)
			continue;
		pos = strtoull(t.fields[cp], &end, 10);
		if (*end || end == t.fields[cp])
			continue;
		k = strtoull(t.fields[cs], &end, 10);
		if (*end || end == t.fields[cs])
			continue;
		counts[pos % n] += k;
		rows++;
	}
	if (!nh || rows == 0)
		snprintf(err, errlen, "no sample table in the sampler's output '%s'", "t32 sample");
	else if (rows % n)
		snprintf(err, errlen, "the sampled body is not whole copies of the unit "
			 "'%zu positions, unit of %zu'", rows, n);
	else
		rc = 0;
out:
	t32_tsv_close(&t);
	return rc;
}

/* The step curve as the sweep hands its rows over: k copies of the unit, k = 0..kmax. */
struct corr_curve {
	struct corr_run *run;
	unsigned char *seen;	/* kmax + 1 */
};

/*
 * One row of the step curve: the block's cycles (block minus empty) and their
 * 95% half-width (per instruction, times the instructions).  A row the sweep did
 * not trust is kept and counted; a fault or an unsupported row stops the sweep.
 */
static int corr_curve_row(void *ctx, const struct t32_sweep_row *r)
{
	struct corr_curve *c = ctx;
	struct corr_run *run = c->run;
	double tot, est;

	if (strcmp(r->status, "untrusted") == 0) {
		run->curve_untrusted++;
		corr_why(run->curve_why, sizeof(run->curve_why), (unsigned long long)r->n,
			 r->m ? r->m->untrusted : NULL);
	} else if (strcmp(r->status, "ok") != 0 || !r->m) {
		t32_error("a step of the curve was not measured '%llu: %s'", (unsigned long long)r->n,
			  r->status);
		return T32_EXIT_ERROR;
	}
	if (r->n > run->kmax)
		return 0;
	tot = r->m->block_value - r->m->empty_value;
	est = r->m->value;
	run->curve[r->n] = tot;
	run->curve_hw[r->n] = r->m->halfwidth * (fabs(est) > 1e-9 ? fabs(tot / est) : 1);
	run->curve_ok[r->n] = strcmp(r->status, "ok") == 0;
	c->seen[r->n] = 1;
	return 0;
}

/*
 * The step curve: k = 0..kmax copies of the unit between lfences, swept in this
 * process into run->sweep_tsv (or read from it with --from).  Exit code.
 */
static int corr_sweep(const struct t32_correlate_req *a, struct corr_run *run)
{
	char err[512], cmd[8192];
	struct t32_sweep_req q;
	struct t32_spec s = { 0 };
	struct corr_curve c = { run, NULL };
	uint64_t *ns = NULL;
	char *body = run->unit_text;
	int rc = T32_EXIT_ERROR;
	FILE *f;

	if (a->from)
		goto read;	/* measured before: read it */
	t32_sweep_req_init(&q);
	ns = calloc(a->kmax + 1, sizeof(*ns));
	c.seen = calloc(a->kmax + 1, 1);
	if (!ns || !c.seen) {
		t32_error("out of memory");
		goto out;
	}
	for (uint64_t k = 0; k <= a->kmax; k++)
		ns[k] = k;
	memcpy(s.init, run->spec.init, sizeof(s.init));
	s.ninit = run->spec.ninit;
	if (t32_block_parse_head(&s, "l", "m") ||
	    t32_spec_parse_body(&s, 1, &body, err, sizeof(err))) {
		if (s.barrier[0])
			t32_error("%s", err);
		rc = T32_EXIT_USAGE;
		goto out;
	}
	q.spec = &s;
	q.ns = ns;
	q.nn = a->kmax + 1;
	q.mo.budget = a->row_budget > 0 ? a->row_budget : 0.25;
	q.retry = 1;	/* a step measured while the clock drifted is measured again */
	q.bo.run.cpu = a->cpu;
	q.out_path = run->sweep_tsv;
	q.quiet = 1;
	q.row = corr_curve_row;
	q.ctx = &c;
	q.command = t32_sweep_command(&q, cmd, sizeof(cmd));
	unlink(run->sweep_tsv);
	rc = t32_sweep(&q);
	for (size_t k = 0; k <= a->kmax && !rc; k++)
		if (!c.seen[k]) {
			t32_error("the sweep has no row for copies '%zu'", k);
			rc = T32_EXIT_ERROR;
		}
	if (rc && rc != T32_EXIT_UNAVAILABLE && rc != T32_EXIT_UNSUPPORTED &&
	    rc != T32_EXIT_INTERRUPTED)
		rc = T32_EXIT_ERROR;
	goto out;
read:
	f = fopen(run->sweep_tsv, "r");
	if (!f) {
		t32_error("cannot read the sweep (%s) '%s'", strerror(errno), run->sweep_tsv);
		return T32_EXIT_ERROR;
	}
	rc = corr_read_sweep(f, run->sweep_tsv, run->curve, run->curve_hw, run->curve_ok, run->kmax,
			     &run->curve_untrusted,
			     run->curve_why, sizeof(run->curve_why), err, sizeof(err));
	fclose(f);
	if (rc) {
		t32_error("%s", err);
		return T32_EXIT_ERROR;
	}
	return 0;
out:
	t32_spec_free(&s);
	free(ns);
	free(c.seen);
	return rc;
}

/*
 * The step curve, swept once more when the sweep mostly did not trust it (most
 * often another thread on the core, which comes and goes within seconds), and
 * the sweep with fewer untrusted steps kept, its file too.  Not with --from
 * (nothing is measured) nor for the learn (one_sweep: its budget is shared).
 */
static int corr_sweep_best(const struct t32_correlate_req *a, struct corr_run *run)
{
	size_t nk = a->kmax + 1;
	double *curve = NULL, *hw = NULL;
	unsigned char *ok = NULL;
	unsigned untrusted;
	char why[sizeof(run->curve_why)], first[PATH_MAX + 8];
	int rc = corr_sweep(a, run);

	run->curve_sweeps = 1;
	if (rc || a->from || a->one_sweep || !t32_corr_curve_mostly_untrusted(run->curve_ok, a->kmax))
		return rc;
	curve = malloc(nk * sizeof(*curve));
	hw = malloc(nk * sizeof(*hw));
	ok = malloc(nk);
	snprintf(first, sizeof(first), "%s.first", run->sweep_tsv);
	if (!curve || !hw || !ok || rename(run->sweep_tsv, first)) {
		t32_free_all(curve, hw, ok);
		return 0;	/* the first sweep stands */
	}
	memcpy(curve, run->curve, nk * sizeof(*curve));
	memcpy(hw, run->curve_hw, nk * sizeof(*hw));
	memcpy(ok, run->curve_ok, nk);
	untrusted = run->curve_untrusted;
	snprintf(why, sizeof(why), "%s", run->curve_why);
	run->curve_untrusted = 0;
	run->curve_why[0] = 0;
	rc = corr_sweep(a, run);
	run->curve_sweeps = 2;
	if (!rc && run->curve_untrusted < untrusted) {
		unlink(first);
	} else {
		/* the first was no worse (or the second failed): it stands, file and all */
		memcpy(run->curve, curve, nk * sizeof(*curve));
		memcpy(run->curve_hw, hw, nk * sizeof(*hw));
		memcpy(run->curve_ok, ok, nk);
		run->curve_untrusted = untrusted;
		snprintf(run->curve_why, sizeof(run->curve_why), "%s", why);
		if (rename(first, run->sweep_tsv))
			unlink(first);
		if (rc != T32_EXIT_INTERRUPTED)
			rc = 0;
	}
	t32_free_all(curve, hw, ok);
	return rc;
}

/*
 * A warning when most samples landed on the loop's own counter, not on the
 * block: a loop of few copies of a short unit (an inline body written without a
 * count), whose shares rest on few samples.
 */
static void corr_overhead_note(const char *text, size_t copies)
{
	const char *b = text ? strstr(text, "\n# body_samples: ") : NULL;
	const char *o = text ? strstr(text, "\n# overhead_samples: ") : NULL;
	unsigned long long body, over;

	if (b && o && sscanf(b, "\n# body_samples: %llu", &body) == 1 &&
	    sscanf(o, "\n# overhead_samples: %llu", &over) == 1 && over > body)
		t32_warn("most samples landed on the loop's own counter, not on the block "
			 "'%llu of %llu' (a loop of %zu cop%s of it: a count before the "
			 "instructions, as 10 'INSN; ...', makes more)", over, over + body,
			 copies ? copies : 1, copies > 1 ? "ies" : "y");
}

/*
 * What the sample table says of its stability: a distribution whose parts
 * differed is refused (exit 7) unless asked for (--allow-unstable: fitted with
 * a warning; keep_unstable: kept without one, for t32 learn to judge); one that
 * moved since the last run of the block is fitted with a warning.  0 to go on,
 * or the exit code.
 */
static int corr_stability(const char *text, const struct t32_correlate_req *a, const char *where)
{
	const char *u = text ? strstr(text, "\n# stability: unstable") : NULL;
	const char *m = text ? strstr(text, "\n# since_last: moved") : NULL;

	if (u && !a->allow_unstable && !a->keep_unstable) {
		u += 3;
		t32_error("the samples did not stay put '%s' (%.*s; flag unstable): a model fitted to "
			  "them fits noise; sample again, or --allow-unstable to fit them anyway", where,
			  (int)strcspn(u, "\n"), u);
		return T32_EXIT_UNTRUSTED;
	}
	if (u && a->allow_unstable) {
		u += 3;
		t32_warn("the samples did not stay put '%s' (%.*s): fitted anyway, as asked "
			 "(--allow-unstable)", where, (int)strcspn(u, "\n"), u);
	}
	if (m) {
		m += 3;
		t32_warn("the samples moved since the last run of the block '%s' (%.*s): this "
			 "machine switches between ways interrupts land, and the fit is of one of them",
			 where, (int)strcspn(m, "\n"), m);
	}
	return 0;
}

/*
 * The samples: the block sampled in this process (its loop in a measuring
 * child), the sample table kept in run->sample_tsv (or read from it with
 * --from), and its counts folded onto the unit's positions.  Exit code.
 */
static int corr_sample(const struct t32_correlate_req *a, struct corr_run *run)
{
	struct t32_sampling_req q;
	struct t32_sampling out;
	struct t32_spec s = { 0 };
	char err[512] = "", *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (a->from) {
		ssize_t got;

		if (!(f = fopen(run->sample_tsv, "r"))) {
			t32_error("cannot read the samples (%s) '%s'", strerror(errno), run->sample_tsv);
			return T32_EXIT_ERROR;
		}
		/* one sample table of the loop's positions: bounded by getdelim's own read */
		got = getdelim(&text, &len, '\0', f);
		fclose(f);
		if (got < 0) {
			t32_error("%s", "cannot read the samples");
			free(text);
			return T32_EXIT_ERROR;
		}
		goto fold;
	}
	t32_sampling_req_init(&q);
	memset(&out, 0, sizeof(out));
	q.samples = a->samples;
	q.seconds = a->seconds;
	q.run.cpu = a->cpu;
	if (a->backend && strcmp(a->backend, "auto") &&
	    !(q.backend = t32_sample_backend_find(a->backend))) {
		t32_error("unknown backend '%s' (auto, perf, signal, precise)", a->backend);
		return T32_EXIT_USAGE;
	}
	rc = t32_spec_set_barrier(&s, "n", err, sizeof(err)) ||
	     t32_spec_set_store(&s, "m", err, sizeof(err)) ? T32_EXIT_ERROR : 0;
	for (size_t k = 0; k < a->ninit && !rc; k++)
		if (t32_spec_parse_init(&s, a->init[k], err, sizeof(err)))
			rc = T32_EXIT_USAGE;
	if (rc)
		t32_error("%s", err);
	else if (a->block_file[0]) {
		snprintf(q.block_file, sizeof(q.block_file), "%s", a->block_file);
		rc = t32_sampling_load_block(&q, &s);
	} else if (t32_spec_parse_body(&s, a->body_argc, a->body_argv, err, sizeof(err))) {
		t32_error("%s", err);
		rc = T32_EXIT_USAGE;
	}
	/*
	 * A run whose parts differ caught the machine switching the way interrupts
	 * land (a regime lasts minutes): unless such samples were asked for, the
	 * block is sampled once more, and the second run stands as it is (kept
	 * flagged with keep_unstable, refused without).
	 */
	for (int again = 0; !rc; again++) {
		const char *u;

		rc = t32_sampling_take(&q, &s, NULL, &out);
		if (!rc && (f = open_memstream(&text, &len))) {
			t32_sampling_tsv(f, &q, &s, &out, NULL);
			if (fclose(f))
				rc = T32_EXIT_ERROR;
		} else if (!rc) {
			rc = T32_EXIT_ERROR;
		}
		u = !rc && text ? strstr(text, "\n# stability: unstable") : NULL;
		if (rc || again || a->allow_unstable || !u)
			break;
		u += 3;
		t32_warn("the samples did not stay put (%.*s): sampled again", (int)strcspn(u, "\n"), u);
		free(text);
		text = NULL;
		len = 0;
		t32_sampling_free(&out);
		memset(&out, 0, sizeof(out));
	}
	run->sample_untrusted = rc ? T32_SAMPLING_TRUSTED : t32_sampling_doubt(&out);
	t32_sampling_free(&out);
	t32_spec_free(&s);
	if (rc) {
		free(text);
		return rc == T32_EXIT_UNAVAILABLE || rc == T32_EXIT_USAGE ? rc : T32_EXIT_ERROR;
	}
	if (t32_write_file(run->sample_tsv, text, len)) {
		t32_error("cannot write '%.400s' (%s)", run->sample_tsv, strerror(errno));
		free(text);
		return T32_EXIT_ERROR;
	}
fold:
	corr_overhead_note(text, run->loop_copies);
	rc = corr_stability(text, a, a->from ? run->sample_tsv
				     : a->block_file[0] ? a->block_file
				     : a->body_argc ? a->body_argv[0] : "t32 sample");
	if (!rc && corr_read_samples(text, run->n, run->counts, run->backend,
				     sizeof(run->backend), err, sizeof(err))) {
		t32_error("%s", err);
		rc = T32_EXIT_ERROR;
	}
	free(text);
	/* the precise backend puts the sample on the selected instruction itself */
	run->skid = strcmp(run->backend, "precise") == 0 ? 0 : 1;
	return rc;
}

/* In-situ hold of instruction i: its selected samples (on i + skid) over the block's cycles. */
static int corr_hold(const struct corr_run *run, size_t i, struct t32_insitu *h)
{
	size_t at = (i + (size_t)run->skid) % run->n;

	if (!run->fit.samples || !(run->slope.b > 0))
		return -1;
	return t32_insitu_latency(run->counts[at], run->fit.samples, run->slope.b, 1, 1.96, h);
}

/* Where instruction i's latency came from, in one word for programs. */
static const char *corr_src_word(const struct corr_run *run, size_t i)
{
	static const char *const words[] = { "class", "table", "measured" };

	if (run->fitted && run->fitted[i])
		return "fitted";
	return run->src ? words[run->src[i]] : "table";
}

/*
 * Where each instruction's latency came from: measured here, the shipped table
 * or the class default, and which of them the fit then moved (latency@I, or the
 * latency.CLASS of instructions that had the class default).
 */
static int corr_sources(const struct t32_uarch *u, const struct t32_lattab *tab,
			struct corr_run *run, const char *const *params, size_t np)
{
	struct t32_model_insn *b = calloc(run->n, sizeof(*b));

	run->src = calloc(run->n, sizeof(*run->src));
	run->fitted = calloc(run->n, 1);
	if (!b || !run->src || !run->fitted) {
		free(b);
		return -1;
	}
	t32_model_prepare(u, tab, run->insns, run->n, b);
	for (size_t i = 0; i < run->n; i++) {
		run->src[i] = b[i].src;
		for (size_t j = 0; j < np; j++) {
			char key[48];

			snprintf(key, sizeof(key), "latency@%zu", i);
			if (strcmp(params[j], key) == 0)
				run->fitted[i] = 1;
			snprintf(key, sizeof(key), "latency.%s", t32_classes[b[i].cls].name);
			if (b[i].src == T32_LAT_CLASS && strcmp(params[j], key) == 0)
				run->fitted[i] = 1;
		}
	}
	free(b);
	return 0;
}

/* The parameter line: key = value (est +- sd) [ci]. */
static void corr_print_param(FILE *out, const struct t32_corr_param *p)
{
	if (p->determined)
		fprintf(out, "  %-24s %6lu  (%.2f +- %.2f)  range [%lu, %lu]", p->key, p->value,
			p->est, p->sd, p->ci_lo, p->ci_hi);
	else
		fprintf(out, "  %-24s undetermined: any of %lu..%lu fits as well (model run at %lu)",
			p->key, p->ci_lo, p->ci_hi, p->value);
	fprintf(out, "  of %lu..%lu, started at %lu\n", p->lo, p->hi, p->start);
}

/*
 * The micro-architecture modelled and where the latencies came from: two lines
 * of the report for people, or (file) of the '#' summary.
 */
static void corr_model_lines(FILE *out, const struct corr_run *run, int file)
{
	char text[512];

	t32_uarch_choice_text(&run->uarch, run->fit.u.name, text, sizeof(text));
	fprintf(out, file ? "# uarch: %s\n" : "uarch      %s\n", text);
	if (run->from_recording)
		snprintf(text, sizeof(text), "%zu form%s as measured where it was recorded (the "
			 "recording's shares.tsv), the rest from the table", run->recorded,
			 run->recorded == 1 ? "" : "s");
	else if (run->measured)
		t32_latcache_text(&run->lat, text, sizeof(text));
	else
		snprintf(text, sizeof(text), "%s", file ? "table (--no-measure)"
				: "the shipped table and class defaults (--no-measure)");
	fprintf(out, file ? "# latencies: %s\n" : "latencies  %s\n", text);
}

/* The report for people. */
static void corr_print_table(FILE *out, const struct t32_correlate_req *a, const struct corr_run *run)
{
	const struct t32_corr_result *r = &run->fit;

	fprintf(out, "block      %s\n", a->block_file[0] ? a->block_file : run->unit_text);
	fprintf(out, "unit       %zu instructions: %s\n", run->n, run->unit_text);
	corr_model_lines(out, run, 0);
	fprintf(out, "samples    %llu (%s backend, skid %d)%s\n", (unsigned long long)r->samples,
		run->backend, run->skid,
		run->sample_untrusted == T32_SAMPLING_FEW ? "  too few to trust"
		: run->sample_untrusted == T32_SAMPLING_UNSTABLE ? "  unstable (--allow-unstable)" : "");
	if (run->loop)
		fprintf(out, "loop       modelled as sampled: %zu copies of the unit and the loop's "
			"counter, folded onto the unit\n", run->loop_copies);
	else
		fprintf(out, "loop       modelled as the unit alone\n");
	fprintf(out, "curve      k = 0..%zu copies between lfences", run->kmax);
	if (run->curve_untrusted)
		fprintf(out, " (%u of the steps not trusted by the sweep; the first, %s)",
			run->curve_untrusted, run->curve_why[0] ? run->curve_why : "k = ?: no reason given");
	if (run->curve_sweeps > 1)
		fprintf(out, " (swept twice: the first sweep mostly did not trust it; the one "
			"with fewer untrusted steps kept)");
	fprintf(out, "\n");
	fprintf(out, "\nfitted parameters (%s; objective %.1f = %.3g x deviance %.1f + %.3g x curve "
		"chi-square %.1f; intervals widened x%.2f; %zu model runs)\n", r->u.name, r->objective,
		r->share_weight, r->deviance, r->curve_weight, r->curve_chi2, r->scale, r->evals);
	for (size_t j = 0; j < r->np; j++)
		corr_print_param(out, &r->p[j]);
	if (r->np == 0)
		fprintf(out, "  (none: %s)\n", run->predicted ? "predicted from the learned model, "
			"below" : "every parameter pinned");

	fprintf(out, "\nshares: TVD %.3f, chi-square %.1f on %u df, p = %.3g\n", r->gof.tvd,
		r->gof.chi2, r->gof.df, r->gof.p);
	fprintf(out, "  %3s  %-34s %7s %8s %9s %4s %-8s  %s\n", "idx", "instruction", "samples",
		"measured", "predicted", "exec", "from", "holds retirement (in situ, cycles/iter)");
	for (size_t i = 0; i < run->n; i++) {
		struct t32_insitu h;

		fprintf(out, "  %3zu  %-34.34s %7llu %7.1f%% %8.1f%% %4g %-8s", i, run->insns[i].text,
			(unsigned long long)run->counts[i], 100 * r->meas_share[i],
			100 * r->pred_share[i], r->latency[i], corr_src_word(run, i));
		if (corr_hold(run, i, &h) == 0 && h.fraction >= CORR_HOLD_MIN)
			fprintf(out, "  %.2f [%.2f, %.2f]", h.cycles, h.lo, h.hi);
		fprintf(out, "\n");
	}

	fprintf(out, "\ncurve: r = %.4f, rms %.2f cycles, model offset %+.2f cycles; parts most at "
		"k = %zu (%+.2f cycles, %.1f half-widths)\n", r->cmp.r, r->cmp.rms, r->offset,
		r->cmp.part_k, r->cmp.part_diff, r->cmp.part_sigmas);
	fprintf(out, "  %5s %10s %10s %9s\n", "k", "measured", "predicted", "+-95%");
	for (size_t k = 0; k <= run->kmax; k++)
		fprintf(out, "  %5zu %10.2f %10.2f %9.2f\n", k, run->curve[k], r->pred_curve[k],
			run->curve_hw[k]);
	fprintf(out, "\ncycles per iteration: measured %.3f +- %.3f (slope of the curve), "
		"predicted %.3f, error %+.1f%%\n", run->slope.b, 1.96 * run->slope.se_b,
		r->cycles_per_iter, 100 * run->cpi_error);
	if (t32_corr_curve_mostly_untrusted(run->curve_ok, run->kmax))
		fprintf(out, "  read off a curve the sweep mostly did not trust (%u of %zu steps): "
			"on a quiet machine it may read otherwise\n", run->curve_untrusted,
			run->kmax + 1);
	if (!r->admissible)
		fprintf(out, "  no value tried brings the model within %.0f%% of the measured cycles: "
			"the fit is the nearest, not a match\n", T32_CORR_CPI_TARGET);
	fprintf(out, "took %.2f s\n", run->seconds);
}

/* The fitted parameter named key, or NULL when it was not fitted. */
static const struct t32_corr_param *corr_param(const struct t32_corr_result *r, const char *key)
{
	for (size_t j = 0; j < r->np; j++)
		if (strcmp(r->p[j].key, key) == 0)
			return &r->p[j];
	return NULL;
}

/* `# key: value`, or `# key: undetermined (lo..hi)` when the fit could not pick it. */
static void corr_summary_param(FILE *out, const struct t32_corr_result *r, const char *key,
			       unsigned value)
{
	const struct t32_corr_param *p = corr_param(r, key);

	if (p && !p->determined)
		fprintf(out, "# %s: undetermined (%lu..%lu)\n", key, p->ci_lo, p->ci_hi);
	else
		fprintf(out, "# %s: %u\n", key, value);
}

/* JSON `"key": value` or `"key": null, "key_range": [lo, hi]` when undetermined. */
static void corr_json_param(FILE *out, const struct t32_corr_result *r, const char *key,
			    unsigned value)
{
	const struct t32_corr_param *p = corr_param(r, key);

	if (p && !p->determined)
		fprintf(out, "\"%s\": null, \"%s_range\": [%lu, %lu]", key, key, p->ci_lo, p->ci_hi);
	else
		fprintf(out, "\"%s\": %u", key, value);
}

/* '#' summary lines shared by the TSV form and the files of -o. */
static void corr_print_summary(FILE *out, const struct corr_run *run)
{
	const struct t32_corr_result *r = &run->fit;

	fprintf(out, "# unit: %s\n# unit_insns: %zu\n# backend: %s\n# skid: %d\n# samples: %llu\n",
		run->unit_text, run->n, run->backend, run->skid, (unsigned long long)r->samples);
	fprintf(out, "# curve_sweeps: %d\n", run->curve_sweeps);
	fprintf(out, "# curve_untrusted_steps: %u\n# curve_mostly_untrusted: %d\n",
		run->curve_untrusted, t32_corr_curve_mostly_untrusted(run->curve_ok, run->kmax));
	fprintf(out, "# loop_copies: %zu\n", run->loop ? run->loop_copies : 0);
	corr_model_lines(out, run, 1);
	corr_summary_param(out, r, "retire_width", r->u.retire_width);
	corr_summary_param(out, r, "retire_group", t32_uarch_retire_group(&r->u));
	for (size_t j = 0; j < r->np; j++) {
		if (r->p[j].determined)
			fprintf(out, "# fit: %s = %lu est %.3f sd %.3f", r->p[j].key, r->p[j].value,
				r->p[j].est, r->p[j].sd);
		else
			fprintf(out, "# fit: %s = undetermined", r->p[j].key);
		fprintf(out, " ci %lu..%lu start %lu\n", r->p[j].ci_lo, r->p[j].ci_hi,
			r->p[j].start);
	}
	fprintf(out, "# objective: %.3f\n# deviance: %.3f\n# curve_chi2: %.3f\n# share_weight: %.4g\n"
		"# curve_weight: %.4g\n# scale: %.3f\n", r->objective, r->deviance, r->curve_chi2,
		r->share_weight, r->curve_weight, r->scale);
	fprintf(out, "# tvd: %.4f\n# chi2: %.3f\n# chi2_df: %u\n# chi2_p: %.4g\n", r->gof.tvd,
		r->gof.chi2, r->gof.df, r->gof.p);
	fprintf(out, "# curve_r: %.5f\n# curve_rms_cycles: %.3f\n# curve_offset_cycles: %.3f\n"
		"# curve_part_k: %zu\n# curve_part_cycles: %.3f\n# curve_part_halfwidths: %.2f\n",
		r->cmp.r, r->cmp.rms, r->offset, r->cmp.part_k, r->cmp.part_diff, r->cmp.part_sigmas);
	fprintf(out, "# cycles_per_iter_measured: %.4f\n# cycles_per_iter_measured_hw: %.4f\n"
		"# cycles_per_iter_predicted: %.4f\n# cycles_error_percent: %.2f\n# admissible: %d\n"
		"# seconds: %.2f\n",
		run->slope.b, 1.96 * run->slope.se_b, r->cycles_per_iter, 100 * run->cpi_error,
		r->admissible, run->seconds);
	fprintf(out, "# model: %s\n", run->predicted ? "learned" : "fitted");
	if (run->have_diag)
		fprintf(out, "# fit_tvd: %.4f\n# fit_cycles_error_percent: %.2f\n# fit_moved: %u\n"
			"# fit_gain_p: %.4g\n# fit_significant: %d\n", run->diag.gof.tvd,
			100 * run->diag_cpi_error, run->moved, run->gain_p, run->gain_p < 0.05);
}

/* shares.tsv rows: index insn measured predicted (and the counts, latency, in-situ hold). */
static void corr_print_shares(FILE *out, const struct corr_run *run)
{
	const struct t32_corr_result *r = &run->fit;

	fprintf(out, "index\tinsn\tmeasured\tpredicted\tsamples\tlatency_cycles\tlatency_source\t"
		"holds_cycles\tholds_lo_cycles\tholds_hi_cycles\n");
	for (size_t i = 0; i < run->n; i++) {
		struct t32_insitu h;

		fprintf(out, "%zu\t", i);
		t32_tsv_fputs(run->insns[i].text, out);
		fprintf(out, "\t%.5f\t%.5f\t%llu\t%g\t%s\t", r->meas_share[i], r->pred_share[i],
			(unsigned long long)run->counts[i], r->latency[i], corr_src_word(run, i));
		if (corr_hold(run, i, &h) == 0)
			fprintf(out, "%.3f\t%.3f\t%.3f\n", h.cycles, h.lo, h.hi);
		else
			fprintf(out, "-\t-\t-\n");
	}
}

/* curve.tsv rows: n (instructions) measured predicted, with the copies and interval. */
static void corr_print_curve(FILE *out, const struct corr_run *run)
{
	fprintf(out, "n\tcopies\tmeasured\tpredicted\tmeasured_hw\n");
	for (size_t k = 0; k <= run->kmax; k++)
		fprintf(out, "%zu\t%zu\t%.3f\t%.3f\t%.3f\n", k * run->n, k, run->curve[k],
			run->fit.pred_curve[k], run->curve_hw[k]);
}

/* The JSON form: the summary, the parameters, the shares and the curve. */
static void corr_print_json(FILE *out, const struct corr_run *run)
{
	const struct t32_corr_result *r = &run->fit;

	fprintf(out, "{");
	t32_provenance_json(out, 0, NULL);
	fprintf(out, ", \"unit\": ");
	t32_json_string(out, run->unit_text);
	fprintf(out, ", \"backend\": ");
	t32_json_string(out, run->backend);
	fprintf(out, ", \"skid\": %d, \"samples\": %llu, \"uarch\": ", run->skid,
		(unsigned long long)r->samples);
	t32_json_string(out, r->u.name);
	fprintf(out, ", \"uarch_choice\": ");
	t32_uarch_choice_json(out, &run->uarch);
	fprintf(out, ", \"latencies\": ");
	if (run->from_recording) {
		fprintf(out, "{\"recorded\": %zu}", run->recorded);
	} else if (run->measured) {
		fprintf(out, "{\"measured\": %zu, \"cached\": %zu, \"left_to_table\": %zu, "
			"\"cache\": ", run->lat.measured, run->lat.reused, run->lat.unmeasurable);
		if (run->lat.path[0])
			t32_json_string(out, run->lat.path);
		else
			fprintf(out, "null");
		fprintf(out, ", \"seconds\": %.3f}", run->lat.seconds);
	} else {
		fprintf(out, "\"table\"");
	}
	fprintf(out, ", ");
	corr_json_param(out, r, "retire_width", r->u.retire_width);
	fprintf(out, ", ");
	corr_json_param(out, r, "retire_group", t32_uarch_retire_group(&r->u));
	fprintf(out, ",\n \"params\": [");
	for (size_t j = 0; j < r->np; j++) {
		fprintf(out, "%s{\"key\": ", j ? ", " : "");
		t32_json_string(out, r->p[j].key);
		if (r->p[j].determined)
			fprintf(out, ", \"determined\": true, \"value\": %lu, \"est\": %.4f, "
				"\"sd\": %.4g", r->p[j].value, r->p[j].est, r->p[j].sd);
		else
			fprintf(out, ", \"determined\": false, \"value\": null, \"est\": null, "
				"\"sd\": null");
		fprintf(out, ", \"ci_lo\": %lu, \"ci_hi\": %lu, \"start\": %lu}", r->p[j].ci_lo,
			r->p[j].ci_hi, r->p[j].start);
	}
	fprintf(out, "],\n \"tvd\": %.5f, \"chi2\": %.4f, \"chi2_df\": %u, \"chi2_p\": %.5g, "
		"\"curve_r\": %.5f, \"curve_offset_cycles\": %.4f, \"curve_part_k\": %zu, "
		"\"curve_part_cycles\": %.4f,\n \"cycles_per_iter_measured\": %.4f, "
		"\"cycles_per_iter_predicted\": %.4f, \"cycles_error_percent\": %.3f, "
		"\"admissible\": %s, \"seconds\": %.3f,\n \"shares\": [", r->gof.tvd, r->gof.chi2, r->gof.df, r->gof.p,
		isfinite(r->cmp.r) ? r->cmp.r : 0.0, r->offset, r->cmp.part_k, r->cmp.part_diff,
		run->slope.b, r->cycles_per_iter, 100 * run->cpi_error,
		r->admissible ? "true" : "false", run->seconds);
	for (size_t i = 0; i < run->n; i++) {
		fprintf(out, "%s\n  {\"index\": %zu, \"insn\": ", i ? "," : "", i);
		t32_json_string(out, run->insns[i].text);
		fprintf(out, ", \"samples\": %llu, \"measured\": %.5f, \"predicted\": %.5f, "
			"\"latency_cycles\": %g, \"latency_source\": \"%s\"}",
			(unsigned long long)run->counts[i], r->meas_share[i], r->pred_share[i],
			r->latency[i], corr_src_word(run, i));
	}
	fprintf(out, "],\n \"curve\": [");
	for (size_t k = 0; k <= run->kmax; k++)
		fprintf(out, "%s\n  {\"copies\": %zu, \"measured\": %.3f, \"predicted\": %.3f, "
			"\"measured_hw\": %.3f}", k ? "," : "", k, run->curve[k], r->pred_curve[k],
			run->curve_hw[k]);
	fprintf(out, "],\n \"model\": \"%s\"", run->predicted ? "learned" : "fitted");
	if (run->have_diag)
		fprintf(out, ", \"fit\": {\"tvd\": %.5f, \"cycles_error_percent\": %.3f, "
			"\"moved\": %u, \"gain_p\": %.5g, \"significant\": %s}", run->diag.gof.tvd,
			100 * run->diag_cpi_error, run->moved, run->gain_p,
			run->gain_p < 0.05 ? "true" : "false");
	fprintf(out, "}\n");
}

/* Write one results file with provenance, the summary and rows; 0 or -1 (message printed). */
/* The clock behind the cycles: the TSC, and how the curve's cycles were calibrated. */
static void corr_clock_lines(FILE *f)
{
	fprintf(f, "# tsc: %.4f GHz, step %llu ticks\n", t32_machine_tsc_hz() / 1e9,
		(unsigned long long)t32_machine_tsc_step(NULL));
	fprintf(f, "# calibration: per point of the curve, chains of add beside each block "
		   "(sweep.tsv's cycles_per_tick)\n");
}

static int corr_write(const char *dir, const char *name, int argc, char **argv,
		      const struct corr_run *run, void (*rows)(FILE *, const struct corr_run *))
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%.3000s/%s", dir, name);
	f = t32_fopen_out(path);	/* written whole beside path, then renamed */
	if (!f)
		return -1;
	t32_provenance(f, argc, argv);
	corr_clock_lines(f);
	corr_print_summary(f, run);
	rows(f, run);
	return t32_fclose_out(f) ? -1 : 0;
}

/* Draw plots/NAME.gp from DIR/IN.tsv into DIR/OUT.svg; 0 or -1 (message printed). */
static int corr_plot(const char *dir, const char *script, const char *in, const char *out,
		     const char *title)
{
	char gp[PATH_MAX], pin[PATH_MAX], pout[PATH_MAX];
	struct t32_child_output o;
	int rc;

	snprintf(gp, sizeof(gp), "%.3000s/%s.gp", t32_plotdir(), script);
	snprintf(pin, sizeof(pin), "%.3000s/%s", dir, in);
	snprintf(pout, sizeof(pout), "%.3000s/%s", dir, out);
	{
		char *argv[] = { "gnuplot", "-c", gp, pin, pout, (char *)title, NULL };

		rc = t32_run_program(argv, &o);
	}
	if (rc < 0 || o.status != 0) {
		t32_error("cannot draw (%s) '%s'", rc < 0 ? o.error : "gnuplot failed", pout);
		t32_child_output_free(&o);
		return -1;
	}
	t32_child_output_free(&o);
	return 0;
}

/*
 * The loop as the sampler runs it, decoded for the model: the body (every copy
 * of the unit) and the loop's counter and branch.  A body that is not whole
 * copies of the unit, or too long to model, leaves run->loop NULL (the unit
 * alone is then the loop).  0, or -1 with err.
 */
static int corr_loop(struct corr_run *run, char *err, size_t errlen)
{
	const struct t32_spec *s = &run->spec;
	uint64_t copies = s->nitems ? s->items[0].reps : 0;
	size_t len = 0, cap = 0;
	unsigned char *code = NULL;
	char *text = NULL;
	int rc = 0;

	for (size_t i = 1; i < s->nitems; i++)
		if (s->items[i].reps != copies)
			copies = 1;
	if (!copies || copies * run->n > CORR_MAX_INSNS)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		size_t at = 0;

		for (uint64_t k = 0; k < copies; k++)
			for (size_t i = 0; i < s->nitems; i++) {
				if (pass)
					at += (size_t)snprintf(text + at, cap - at, "%s; ",
							       s->items[i].text);
				else
					at += strlen(s->items[i].text) + 2;
			}
		if (pass)
			snprintf(text + at, cap - at, "%s", T32_GEN_LOOP_TAIL);
		else if (!(text = malloc(cap = at + sizeof(T32_GEN_LOOP_TAIL) + 1)))
			return snprintf(err, errlen, "out of memory"), -1;
	}
	if (corr_assemble(text, &code, &len, err, errlen) ||
	    t32_deps_decode(code, len, &run->loop, &run->loop_n, err, errlen))
		rc = -1;
	else if (run->loop_n != copies * run->n + T32_GEN_LOOP_TAIL_INSNS) {
		/* a body that does not decode as whole copies: the unit is the loop */
		free(run->loop);
		run->loop = NULL;
		run->loop_n = 0;
	} else {
		run->loop_copies = copies;
	}
	free(text);
	free(code);
	return rc;
}

/* Load the block (a file or INSN arguments) into run->spec and its unit text; exit code or -1. */
static int corr_block(struct t32_correlate_req *a, struct corr_run *run)
{
	int rc = t32_block_body(a->body_argc, a->body_argv, &run->spec, a->block_file,
				sizeof(a->block_file));

	if (rc >= 0)
		return rc;
	if (run->spec.nitems == 0) {
		t32_error("the block has no instructions '%s'", a->body_argv[0]);
		return T32_EXIT_USAGE;
	}
	for (size_t k = 0; k < a->ninit; k++) {
		char err[256];

		if (t32_spec_parse_init(&run->spec, a->init[k], err, sizeof(err))) {
			t32_error("%s", err);
			return T32_EXIT_USAGE;
		}
	}
	if (corr_unit(&run->spec, run->unit_text, sizeof(run->unit_text))) {
		t32_error("the block's unit is too long (at most %d bytes of text) '%.100s'",
			  CORR_UNIT_TEXT, run->spec.items[0].text);
		return T32_EXIT_USAGE;
	}
	return -1;
}

/*
 * A fresh empty file $TMPDIR/t32-corr-WHAT-XXXXXX, its name into path; 0, or -1
 * after the message with path "" (nothing to remove at the end).
 */
static int corr_tmpfile(char *path, size_t len, const char *what)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%.3000s/t32-corr-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
	fd = mkstemp(path);
	if (fd < 0) {
		t32_error("cannot create a temporary file (%s) '%s'", strerror(errno), path);
		path[0] = 0;
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * Where the measurements go: the files of --from DIR (read, not measured), of
 * -o DIR, else temporary ones removed at the end.  0, or an exit code.
 */
static int corr_files(const struct t32_correlate_req *a, struct corr_run *run)
{
	if (a->from) {
		snprintf(run->sweep_tsv, sizeof(run->sweep_tsv), "%.3000s/sweep.tsv", a->from);
		snprintf(run->sample_tsv, sizeof(run->sample_tsv), "%.3000s/sample.tsv", a->from);
		if (a->outdir) {
			t32_error("--from and -o together '%s' (the figures of --from DIR are its own)",
				  a->outdir);
			return T32_EXIT_USAGE;
		}
	} else if (a->outdir) {
		if (mkdir(a->outdir, 0777) && errno != EEXIST) {
			t32_error("cannot create the results folder (%s) '%s'", strerror(errno),
				  a->outdir);
			return T32_EXIT_ERROR;
		}
		snprintf(run->sweep_tsv, sizeof(run->sweep_tsv), "%.3000s/sweep.tsv", a->outdir);
		snprintf(run->sample_tsv, sizeof(run->sample_tsv), "%.3000s/sample.tsv", a->outdir);
	} else if (corr_tmpfile(run->sweep_tsv, sizeof(run->sweep_tsv), "sweep") ||
		   corr_tmpfile(run->sample_tsv, sizeof(run->sample_tsv), "sample")) {
		return T32_EXIT_ERROR;
	}
	return 0;
}

/*
 * A recording's latencies (dir's shares.tsv, measured on the machine it was
 * recorded on) before the shipped table tab: 0, or -1 after a warning when dir
 * holds none to read (its latencies are then measured here).
 */
static int corr_recorded_latencies(const char *dir, const struct t32_uarch *u,
				   struct t32_lattab *tab, struct corr_run *run)
{
	struct t32_recorded rec;
	char err[1024];

	if (t32_recorded_read(dir, tab, u, &rec, err, sizeof(err))) {
		t32_warn("the recording's latencies cannot be read (%s): they are measured here", err);
		return -1;
	}
	t32_lattab_free(tab);
	*tab = rec.tab;
	rec.tab = (struct t32_lattab){ NULL, 0 };
	run->recorded = rec.measured;
	run->from_recording = 1;
	t32_recorded_free(&rec);
	return 0;
}

/*
 * The model's side: the micro-architecture (with --set), the latency table, the
 * unit assembled and decoded (and the sampled loop around it), and latencies
 * measured here first, the shipped table the fallback.  0, or an exit code.
 */
static int corr_model_side(const struct t32_correlate_req *a, struct corr_run *run, struct t32_uarch *u,
			   struct t32_lattab *tab)
{
	char err[1024], path[PATH_MAX];
	unsigned char *code = NULL;
	size_t len = 0;
	int rc = T32_EXIT_ERROR;

	t32_block_uarch(a->uarch, &run->uarch);
	if (t32_uarch_load(u, run->uarch.data, t32_datadir(), err, sizeof(err))) {
		t32_error("%s", err);
		goto done;
	}
	/* the learned model of this CPU (or --learned FILE), unless --uarch names other data */
	if (a->learned ? strcmp(a->learned, "none") != 0 : !a->uarch) {
		int lr;

		if (a->learned)
			snprintf(path, sizeof(path), "%s", a->learned);
		else
			t32_learned_path(a->cache_dir, path, sizeof(path));
		lr = path[0] ? t32_learned_load(path, t32_datadir(), u, run->learned,
						sizeof(run->learned), NULL, 0, err, sizeof(err)) : 1;
		if (lr < 0 || (lr == 1 && a->learned)) {
			if (lr == 1)
				t32_error("cannot read the learned model (%s) '%s'", strerror(ENOENT), path);
			else
				t32_error("%s", err);
			return T32_EXIT_USAGE;
		}
		run->predicted = lr == 0;
	}
	for (size_t k = 0; k < a->nsets; k++)
		if (t32_uarch_set(u, a->sets[k], err, sizeof(err))) {
			t32_error("%s", err);
			return T32_EXIT_USAGE;
		}
	snprintf(path, sizeof(path), "%.4000s/uarch/latency.lat", t32_datadir());
	if (access(path, F_OK) == 0 && t32_lattab_load(tab, path, err, sizeof(err))) {
		t32_error("%s", err);
		goto done;
	}
	if (corr_assemble(run->unit_text, &code, &len, err, sizeof(err)) ||
	    t32_deps_decode(code, len, &run->insns, &run->n, err, sizeof(err))) {
		t32_error("%s", err);
		rc = T32_EXIT_USAGE;
		goto done;
	}
	if (run->n == 0 || run->n > CORR_MAX_INSNS) {
		t32_error("the unit must hold 1 to %d instructions '%zu'", CORR_MAX_INSNS, run->n);
		rc = T32_EXIT_USAGE;
		goto done;
	}
	if (!a->unit_loop && corr_loop(run, err, sizeof(err))) {
		t32_error("%s", err);
		goto done;
	}
	/*
	 * latencies measured first, the shipped table the fallback: a recording's
	 * (--from) where it was recorded, else here
	 */
	if (!a->no_measure && !(a->from && corr_recorded_latencies(a->from, u, tab, run) == 0)) {
		struct t32_lattab here;

		if (t32_latcache_fill(u, tab, run->insns, run->n, &run->spec, a->cache_dir, &here,
				      &run->lat, err, sizeof(err)) == 0) {
			if (t32_lattab_prepend(tab, &here)) {
				t32_lattab_free(&here);
				t32_error("out of memory");
				goto done;
			}
			run->measured = 1;
		} else {
			t32_warn("latencies from the table alone: %s", err);
		}
		t32_lattab_free(&here);
	}
	rc = 0;
done:
	free(code);
	return rc;
}

/*
 * The measurements: the samples first (no backend here is exit 3 before the
 * sweep spends its time), then the step curve and the line through it (over
 * the copies u's op cache holds).  0, or an exit code.
 */
static int corr_measure(const struct t32_correlate_req *a, struct corr_run *run,
			const struct t32_uarch *u)
{
	int rc;

	run->kmax = a->kmax;
	run->counts = calloc(run->n, sizeof(uint64_t));
	run->curve = calloc(a->kmax + 1, sizeof(double));
	run->curve_hw = calloc(a->kmax + 1, sizeof(double));
	run->curve_ok = calloc(a->kmax + 1, 1);
	if (!run->counts || !run->curve || !run->curve_hw || !run->curve_ok) {
		t32_error("out of memory");
		return T32_EXIT_ERROR;
	}
	if ((rc = corr_files(a, run)) || (rc = corr_sample(a, run)) || (rc = corr_sweep_best(a, run)))
		return rc;
	/* over the copies the op cache holds, as the unit's own loop runs */
	if (t32_corr_curve_line(run->curve, run->curve_ok, t32_corr_slope_kmax(u, run->n, a->kmax),
				&run->slope)) {
		t32_error("cannot fit a line to the step curve '%s'", run->unit_text);
		rc = T32_EXIT_ERROR;
	}
	return rc;
}

/*
 * Beside a learned model's prediction, the per-block fit as a diagnostic: how
 * far it moves the parameters and whether its gain over the prediction is
 * more than the samples' own scatter (analysis/learn.h).  0, or -1 with err.
 */
static int corr_diagnose(struct corr_run *run, const struct t32_uarch *u,
			 const struct t32_lattab *tab, const struct t32_corr_data *d,
			 const struct t32_corr_opts *co, const char *const *params, size_t np,
			 char *err, size_t errlen)
{
	struct t32_corr_result pred;
	size_t cells = 0;
	double disp;

	if (t32_corr_fit(u, tab, run->insns, run->n, d, params, np, co, &run->diag, err, errlen))
		return -1;
	if (t32_corr_fit(u, tab, run->insns, run->n, d, NULL, 0, co, &pred, err, errlen)) {
		t32_corr_result_free(&run->diag);
		return -1;
	}
	run->have_diag = 1;
	for (size_t j = 0; j < run->diag.np; j++)
		run->moved += run->diag.p[j].value != run->diag.p[j].start;
	for (size_t i = 0; i < run->n; i++)
		cells += run->counts[i] > 0;
	disp = cells > 1 + run->moved ? run->diag.deviance / (double)(cells - 1 - run->moved) : 1;
	run->gain_p = run->moved ? t32_learn_gain_p(pred.deviance, run->diag.deviance, disp,
						    run->moved) : 1;
	run->diag_cpi_error = run->slope.b > 0 ?
		(run->diag.cycles_per_iter - run->slope.b) / run->slope.b : NAN;
	t32_corr_result_free(&pred);
	return 0;
}

/* The learned model's line, and the per-block fit beside the prediction, for people. */
static void corr_print_diag(FILE *out, const struct corr_run *run)
{
	const struct t32_corr_result *f = &run->diag;

	if (!run->predicted) {
		fprintf(out, "\nmodel: fitted to this block (no learned model for this CPU: t32 learn)\n");
		return;
	}
	fprintf(out, "\nmodel: predicted, nothing fitted to this block: %s\n", run->learned);
	if (!run->have_diag)
		return;
	fprintf(out, "per-block fit (diagnostic, --fit): TVD %.3f against the prediction's %.3f, "
		"cycles %+.1f%% against %+.1f%%; %u parameter%s moved, gain %s (p = %.3g)\n",
		f->gof.tvd, run->fit.gof.tvd, 100 * run->diag_cpi_error, 100 * run->cpi_error,
		run->moved, run->moved == 1 ? "" : "s",
		run->gain_p < 0.05 ? "significant" : "not significant", run->gain_p);
	for (size_t j = 0; j < f->np; j++)
		corr_print_param(out, &f->p[j]);
}

/*
 * The result printed to out as asked (out NULL: nothing), and -o DIR's tables
 * and figures; 0, or an exit code.
 */
static int corr_output(const struct t32_correlate_req *a, const struct corr_run *run, int argc,
		       char **argv, FILE *out)
{
	if (!out)
		;
	else if (a->format == T32_FMT_JSON) {
		corr_print_json(out, run);
	} else if (a->format == T32_FMT_TSV) {
		t32_provenance(out, argc, argv);
		corr_clock_lines(out);
		corr_print_summary(out, run);
		corr_print_shares(out, run);
		fprintf(out, "\n\n");
		corr_print_curve(out, run);
	} else {
		corr_print_table(out, a, run);
		corr_print_diag(out, run);
	}
	if (a->outdir &&
	    (corr_write(a->outdir, "shares.tsv", argc, argv, run, corr_print_shares) ||
	     corr_write(a->outdir, "curve.tsv", argc, argv, run, corr_print_curve) ||
	     corr_plot(a->outdir, "shares", "shares.tsv", "shares.svg", run->unit_text) ||
	     corr_plot(a->outdir, "model-overlay", "curve.tsv", "model-overlay.svg",
		       run->unit_text)))
		return T32_EXIT_ERROR;
	return 0;
}

/* Each file --from DIR names is there to read; 0, or -1 said. */
static int corr_check_from(const struct t32_correlate_req *a)
{
	char path[PATH_MAX];

	for (int i = 0; a->from && i < 2; i++) {
		snprintf(path, sizeof(path), "%.4000s/%s", a->from, i ? "sample.tsv" : "sweep.tsv");
		if (access(path, R_OK)) {
			t32_error("cannot read '%s' (%s; --from takes a folder an earlier -o wrote)",
				  path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * The parameters to fit into params[] and *np: those named by --fit, each
 * checked against the model, or the model's open ones (named in keys[]).
 * 0, or an exit code.
 */
static int corr_params(const struct t32_correlate_req *a, const struct corr_run *run,
		       const struct t32_uarch *u, const struct t32_lattab *tab,
		       const char **params, char (*keys)[48], size_t *np)
{
	if (a->nfit) {
		*np = a->nfit;
		for (size_t j = 0; j < *np; j++) {
			unsigned long val;
			char *end;

			params[j] = a->fit[j];
			/* a bad name is a usage error before anything is measured */
			if (strncmp(params[j], "latency@", 8) == 0 ?
			    (strtoull(params[j] + 8, &end, 10) >= run->n || end == params[j] + 8 || *end) :
			    t32_uarch_get(u, params[j], &val) != 0) {
				t32_error("unknown parameter (a uarch key or latency@I, I < %zu) '%s'",
					  run->n, params[j]);
				return T32_EXIT_USAGE;
			}
		}
	} else {
		struct t32_model_insn *b = calloc(run->n, sizeof(*b));

		if (!b) {
			t32_error("out of memory");
			return T32_EXIT_ERROR;
		}
		t32_model_prepare(u, tab, run->insns, run->n, b);
		*np = t32_corr_default_params(b, run->n, !a->unit_loop, a->sets, a->nsets, keys,
					      T32_CORR_MAX_PARAMS);
		free(b);
		for (size_t j = 0; j < *np; j++)
			params[j] = keys[j];
	}
	return 0;
}

/*
 * The fit of the measurements in run (after the diagnostic fit when a learned
 * model predicts), its cycles' error and the sources of the values it moved.
 * 0, or an exit code.
 */
static int corr_fit(const struct t32_correlate_req *a, struct corr_run *run, const struct t32_uarch *u,
		    const struct t32_lattab *tab, const char *const *params, size_t np)
{
	struct t32_corr_data d;
	struct t32_corr_opts co;
	char err[1024];

	d = (struct t32_corr_data){ run->counts, run->curve, run->curve_hw, a->kmax, run->skid,
				    run->loop, run->loop_n, run->loop_copies, &run->slope.b,
				    run->curve_ok, NULL, NULL };
	t32_corr_opts_init(&co);
	if (a->fit_none)
		np = 0;
	if (run->predicted && a->fit_asked && np &&
	    corr_diagnose(run, u, tab, &d, &co, params, np, err, sizeof(err))) {
		t32_error("%s", err);
		return strstr(err, "unknown parameter") || strstr(err, "no such instruction") ||
		       strstr(err, "named twice") ? T32_EXIT_USAGE : T32_EXIT_ERROR;
	}
	if (run->predicted)
		np = 0;	/* the learned model predicts: nothing fitted to this block */
	if (t32_corr_fit(u, tab, run->insns, run->n, &d, params, np, &co, &run->fit, err,
			 sizeof(err))) {
		t32_error("%s", err);
		return strstr(err, "unknown parameter") || strstr(err, "no such instruction") ||
		       strstr(err, "named twice") ? T32_EXIT_USAGE : T32_EXIT_ERROR;
	}
	run->cpi_error = run->slope.b > 0 ? (run->fit.cycles_per_iter - run->slope.b) / run->slope.b
		: NAN;
	if (corr_sources(u, tab, run, params, np)) {
		t32_error("out of memory");
		return T32_EXIT_ERROR;
	}
	return 0;
}

void t32_correlate_req_init(struct t32_correlate_req *q)
{
	memset(q, 0, sizeof(*q));
	q->cpu = -1;
	q->kmax = 16;
	q->samples = 2000;
	q->seconds = 3;
	q->format = T32_FMT_TABLE;
}

/* A fitted parameter's value for a caller: NaN when the fit left it undetermined. */
static double corr_res_param(const struct t32_corr_result *r, const char *key, unsigned value)
{
	const struct t32_corr_param *p = corr_param(r, key);

	return p && !p->determined ? NAN : value;
}

int t32_correlate(struct t32_correlate_req *a, int argc, char **argv, FILE *out,
		  struct t32_correlate_res *res)
{
	struct corr_run *run = calloc(1, sizeof(*run));
	struct t32_uarch u;
	struct t32_lattab tab = { NULL, 0 };
	char keys[T32_CORR_MAX_PARAMS][48];
	const char *params[T32_CORR_MAX_PARAMS];
	double t0 = t32_now();
	size_t np;
	int rc;

	if (res)
		*res = (struct t32_correlate_res){ NAN, NAN, NAN, NAN };
	if (!run) {
		t32_error("out of memory");
		return T32_EXIT_ERROR;
	}
	rc = corr_block(a, run);
	if (rc >= 0)
		goto out_early;
	rc = T32_EXIT_ERROR;
	/* --from DIR's files before anything is measured: a mistyped DIR costs nothing */
	if (corr_check_from(a))
		goto out_early;

	/* the model's side: uarch, latency table, the unit decoded, latencies measured */
	rc = corr_model_side(a, run, &u, &tab);
	if (rc)
		goto out;
	rc = corr_params(a, run, &u, &tab, params, keys, &np);
	if (rc)
		goto out;

	/* the measurements, in files of -o DIR or temporary ones */
	rc = corr_measure(a, run, &u);
	if (rc)
		goto out;

	/* the fit */
	rc = corr_fit(a, run, &u, &tab, params, np);
	if (rc)
		goto out;
	run->seconds = t32_now() - t0;

	rc = corr_output(a, run, argc, argv, out);
	if (!rc && run->sample_untrusted == T32_SAMPLING_FEW) {
		t32_error("too few samples in the body to trust the shares '%llu'",
			  (unsigned long long)run->fit.samples);
		rc = T32_EXIT_UNTRUSTED;
	}
	if (res) {
		res->tvd = run->fit.gof.tvd;
		res->cycles_error_percent = 100 * run->cpi_error;
		res->retire_width = corr_res_param(&run->fit, "retire_width",
						   run->fit.u.retire_width);
		res->retire_group = corr_res_param(&run->fit, "retire_group",
						   t32_uarch_retire_group(&run->fit.u));
	}
out:
	if (!a->outdir && !a->from) {
		if (run->sweep_tsv[0])
			unlink(run->sweep_tsv);
		if (run->sample_tsv[0])
			unlink(run->sample_tsv);
	}
	t32_corr_result_free(&run->fit);
	t32_corr_result_free(&run->diag);
	t32_free_all(run->insns, run->loop, run->counts, run->curve, run->curve_hw, run->curve_ok,
		     run->src, run->fitted);
	t32_lattab_free(&tab);
out_early:
	t32_spec_free(&run->spec);
	free(run);
	return rc;
}
