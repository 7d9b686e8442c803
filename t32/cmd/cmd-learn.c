/*
 * cmd-learn.c - `t32 learn`: the retirement model of this machine, learned once
 * from a suite of probe blocks (data/probes, each built to isolate one
 * parameter: how wide retirement is and how it groups, how long a load, a
 * store, a read-modify-write, a locked operation, a divide, a multiply, a
 * vector operation and the loop's own counter and branch hold it up) and kept
 * per CPU and microcode beside the latency cache, so `t32 correlate` predicts a
 * block from it instead of fitting the block.  Each probe is measured as
 * `t32 correlate -o` measures a block, in this process (t32_correlate: its
 * step curve and its samples); `--from DIR` learns again from probes measured before, on this
 * machine or another.  Also `make bench`'s `learn`: every recorded machine
 * learned from its probes and its blocks predicted.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/correlate.h"
#include "analysis/learn.h"
#include "analysis/uarch.h"
#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/core/latcache.h"
#include "t32/core/learned.h"
#include "t32/cmd/options.h"
#include "t32/core/probeset.h"
#include "t32/core/recorded.h"
#include "t32/sample/correlate.h"
#include "t32/sample/sample.h"
#include "t32/util.h"

#define LEARN_MAX_PROBES 256

static const char learn_usage[] =
	"t32 learn [--from DIR] [--probes DIR] [-o DIR] [--uarch NAME|FILE] [--cache DIR] "
	"[--store FILE] [--no-store] [--measure-only] [--set KEY=VALUE]... [--keys K,...|none] "
	"[--samples N] [--seconds S] [--budget S] [--allow-unstable] [--cpu N] "
	"[--format=table|tsv]";

static const char learn_intro[] =
	"Learn this machine's retirement model once: measure every probe block (the\n"
	"step curve and the interrupt samples, as t32 correlate -o does), fit one\n"
	"parameter set to all of them at once, and keep it per CPU and microcode\n"
	"beside the latency cache, where t32 correlate finds it.\n\n";

static const char learn_outro[] =
	"\n"
	"Every parameter comes with the interval of values that fit the probes as well\n"
	"(the one-sd rise of the joint objective, widened by the misfit), or as\n"
	"undetermined with the range the probes cannot tell apart.  Exit 7 when no\n"
	"probe could be learned from.\n";

struct learn_args {
	const char *from, *probes, *outdir, *uarch, *cache, *store;
	int no_store, allow_unstable, measure_only;
	const char *sets[32];
	size_t nsets;
	const char *keys;	/* --keys, NULL: the default set */
	uint64_t samples;
	double seconds;
	double budget;		/* --budget S: seconds for measuring every probe */
	double step_seconds;	/* --step-seconds S: a step's bound, or 0: the budget's share */
	int cpu;		/* --cpu N, or -1: the default */
	enum t32_format format;
};

/* What measuring the probes took, when they were measured here (blocks -1: not). */
struct learn_measured {
	long blocks;
	double seconds;
};

/* Is the name a probe block's (NAME.blk)? */
static int is_probe(const char *nm)
{
	size_t nl = strlen(nm);

	return nl > 4 && strcmp(nm + nl - 4, ".blk") == 0;
}

/*
 * Measure each probe block of dir into outdir/NAME as `t32 correlate -o` does,
 * in this process, within --budget (t32_learn_allowance); the count measured,
 * -3 when there is no sampling backend, -4 when Ctrl-C stopped it (what was
 * measured stays in outdir).
 */
static long learn_measure(const struct learn_args *a, const char *dir, const char *outdir)
{
	char path[PATH_MAX], out[PATH_MAX];
	struct dirent **names = NULL;
	int count = scandir(dir, &names, NULL, alphasort);
	long done = 0;
	size_t probes = 0, measured = 0;
	double t0 = t32_now();

	if (count < 0) {
		t32_error("cannot read the probes (%s) '%s'", strerror(errno), dir);
		return -1;
	}
	for (int i = 0; i < count; i++)
		probes += is_probe(names[i]->d_name);
	{
		struct t32_correlate_req d;
		double least;

		t32_correlate_req_init(&d);
		least = (double)probes * t32_learn_least(d.kmax + 1, a->seconds);
		if (least > a->budget)
			t32_warn("%zu probes take at least %.1f s, more than the budget of %g s "
				 "(--budget)", probes, least, a->budget);
	}
	for (int i = 0; i < count; i++) {
		const char *nm = names[i]->d_name;
		size_t nl = strlen(nm);

		if (is_probe(nm)) {
			struct t32_correlate_req q;
			char *body[] = { path, NULL };
			double expect, left, pace;
			int rc;

			snprintf(path, sizeof(path), "%.3000s/%s", dir, nm);
			snprintf(out, sizeof(out), "%.3000s/%.*s", outdir, (int)(nl - 4), nm);
			t32_correlate_req_init(&q);
			q.learned = "none";
			q.fit_none = 1;
			q.samples = a->samples;
			/* the sample count ends the sampling after about this (a quarter
			 * more for the interrupts' own cost and a CPU shared) */
			expect = 1.25 * (double)a->samples * T32_SAMPLE_PERIOD_NS / 1e9;
			left = a->budget - (t32_now() - t0);
			t32_learn_allowance(left, probes, q.kmax + 1, a->seconds, expect, &q.seconds,
					    &q.row_budget);
			if (a->step_seconds > 0)
				q.row_budget = a->step_seconds;
			/*
			 * a curve the sweep mostly did not trust is swept once more, as
			 * correlate does, while the budget has room for that sweep beside
			 * the pace of the probes so far (before any, the least a probe
			 * takes) for each probe left
			 */
			pace = measured ? (t32_now() - t0) / (double)measured :
					  t32_learn_least(q.kmax + 1, a->seconds);
			q.one_sweep = !t32_learn_resweep(left, probes, pace, q.kmax + 1, q.row_budget);
			probes--;
			q.cpu = a->cpu;
			q.uarch = a->uarch;
			q.cache_dir = a->cache;
			/*
			 * sampled once more when its parts differ, as correlate does, then
			 * kept and flagged either way: whether to learn from it is decided below
			 */
			q.keep_unstable = 1;
			q.outdir = out;
			q.body_argc = 1;
			q.body_argv = body;
			if (isatty(2))
				fprintf(stderr, "t32 learn: probe %.*s\n", (int)(nl - 4), nm);
			/* the files' provenance names the learn command that made them */
			rc = t32_correlate(&q, 0, NULL, NULL, NULL);
			if (rc == T32_EXIT_UNAVAILABLE || rc == T32_EXIT_INTERRUPTED) {
				for (int k = i; k < count; k++)
					free(names[k]);
				free(names);
				if (rc == T32_EXIT_UNAVAILABLE)
					t32_error("no sampling backend here '%s'", path);
				return rc == T32_EXIT_UNAVAILABLE ? -3 : -4;
			} else if (rc) {
				t32_warn("probe %.*s: correlate exited %d (its reason above)",
					 (int)(nl - 4), nm, rc);
				done += rc == T32_EXIT_UNTRUSTED;
			} else {
				done++;
			}
			measured++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

static int learn_parse(int argc, char **argv, struct learn_args *a)
{
	struct t32_block_opts bo;
	struct t32_block_optset shared;

	t32_block_optset_for(&shared, &bo, "learn", T32_OPT_CPU | T32_OPT_FORMAT,
			     T32_FMT_BIT(T32_FMT_TABLE) | T32_FMT_BIT(T32_FMT_TSV));
	t32_block_optset_help(&shared, T32_OPT_CPU, "measure the probes on CPU N (default: the last\n"
			      "allowed CPU, a P-core on a hybrid part)");
	t32_block_optset_help(&shared, T32_OPT_FORMAT,
			      "table (default) or tsv: `#` lines and a parameter table");

	const struct t32_option opts[] = {
		T32_OPT_STRING("probes", 0, "DIR", &a->probes,
			       "the probe blocks (default: data/probes, *.blk)"),
		T32_OPT_STRING("output", 'o', "DIR", &a->outdir,
			       "keep each probe's measurements in DIR/NAME (default: the\n"
			       "cache's probes-CPU folder)"),
		T32_OPT_STRING("from", 0, "DIR", &a->from,
			       "measure nothing: learn from DIR/NAME folders an earlier\n"
			       "learn or t32 correlate -o wrote (any machine's)"),
		T32_OPT_STRING("uarch", 0, "NAME|FILE", &a->uarch,
			       "the data to start from (default: this CPU's; with --from,\n"
			       "the one the probes were recorded with)"),
		T32_OPT_STRING("cache", 0, "DIR", &a->cache,
			       "the cache folder (default as for the latency cache)"),
		T32_OPT_STRING("store", 0, "FILE", &a->store,
			       "write the learned model to FILE (with --from, it is kept in\n"
			       "the cache only when the probes were recorded on this CPU)"),
		T32_OPT_FLAG("no-store", 0, &a->no_store, "print the learned model only"),
		/* kept, applied to the data learning starts from */
		T32_OPT_LIST("set", "KEY=VALUE", a->sets, &a->nsets, sizeof(a->sets) / sizeof(a->sets[0]),
			     "changes", "pin a parameter (not learned): an experiment on the probes"),
		T32_OPT_STRING("keys", 0, "K,...|none", &a->keys,
			       "the parameters to learn, at most 24 (default: those the probes\n"
			       "touch); none: learn nothing, only predict the probes"),
		T32_OPT_FLAG("measure-only", 0, &a->measure_only,
			     "measure the blocks of --probes DIR into -o DIR and stop\n"
			     "(how a machine's other blocks are recorded beside its probes)"),
		T32_OPT_U64("samples", "N", &a->samples, 100, 10000000, "sample count",
			    "per probe, as t32 correlate (default 2000)"),
		T32_OPT_REAL("seconds", "S", &a->seconds, 0.1, 3600, "seconds",
			     "sampling per probe at most, as t32 correlate (default 2)"),
		T32_OPT_REAL("budget", "S", &a->budget, 1, 86400, "seconds",
			     "for measuring every probe (default 40): each probe's\n"
			     "step curve and sampling are sized to what is left, so a\n"
			     "busy machine learns in a minute too"),
		T32_OPT_REAL("step-seconds", "S", &a->step_seconds, 0.00001, 60, "seconds",
			     "bound each step of a probe's curve to S (default: its\n"
			     "share of the budget, at most 0.25)"),
		T32_OPT_FLAG("allow-unstable", 0, &a->allow_unstable,
			     "learn from probes the sampler found unstable\n"
			     "(left out by default, and said so)"),
		T32_OPT_SET(shared.rows),
		T32_OPT_END
	};
	int first, rc = t32_options_parse("learn", learn_usage, learn_intro, learn_outro, opts, argc,
					  argv, &first);

	if (rc >= 0)
		return rc;
	a->cpu = bo.run.cpu;
	a->format = bo.format;
	if (first < argc) {
		t32_error("learn takes no operands '%s'", argv[first]);
		return t32_usage(learn_usage);
	}
	if (a->from && a->outdir) {
		t32_error("--from and -o together '%s' (--from measures nothing)", a->outdir);
		return T32_EXIT_USAGE;
	}
	if (a->measure_only && (a->from || !a->outdir)) {
		t32_error("--measure-only takes -o DIR and no --from '%s'", a->from ? a->from : "-o");
		return T32_EXIT_USAGE;
	}
	if (a->store && a->no_store) {
		t32_error("--store and --no-store together '%s'", a->store);
		return T32_EXIT_USAGE;
	}
	return -1;
}

/* The learned parameters and each probe's prediction, for people or programs. */
static void learn_print(FILE *out, const struct learn_args *a, const struct t32_learn_result *r,
			const struct t32_probe_set *s, const char *source,
			const struct learn_measured *m, double seconds)
{
	char text[256];
	int tsv = a->format == T32_FMT_TSV;
	size_t doubt = 0;

	/* probes whose step curve the sweep mostly did not trust (slowed, or only blurred) */
	for (size_t i = 0; i < s->n; i++)
		doubt += !s->pr[i].held &&
			 t32_corr_curve_mostly_untrusted(s->pr[i].d.curve_ok, s->pr[i].d.kmax);
	if (tsv) {
		fprintf(out, "# uarch: %s\n# source: %s\n# probes: %zu\n# left_out_unstable: %zu\n"
			"# curves_mostly_untrusted: %zu\n"
			"# objective: %.3f\n# scale: %.3f\n# model_runs: %zu\n# seconds: %.2f\n",
			r->u.name, source, r->probes, s->unstable, doubt, r->objective, r->scale,
			r->evals, seconds);
		if (m->blocks >= 0)
			fprintf(out, "# measured_blocks: %ld\n# measured_seconds: %.2f\n", m->blocks,
				m->seconds);
		fprintf(out, "key\tvalue\tlo\thi\tdetermined\n");
		for (size_t j = 0; j < r->np; j++)
			fprintf(out, "%s\t%lu\t%lu\t%lu\t%d\n", r->p[j].key, r->p[j].value, r->p[j].ci_lo,
				r->p[j].ci_hi, r->p[j].determined);
		fprintf(out, "\n\nprobe\ttvd\tcycles_error_percent\tdeviance\tcurve_chi2\n");
	} else {
		fprintf(out, "learned    %s from %zu probes in %s (%.1f s, %zu model runs)\n", r->u.name,
			r->probes, source, seconds, r->evals);
		if (s->unstable)
			fprintf(out, "left out   %zu probes whose samples did not stay put "
				"(--allow-unstable)\n", s->unstable);
		if (doubt)
			fprintf(out, "doubt      %zu of %zu probes have step curves their sweep mostly "
				"did not trust (each row's reason is in the probe's sweep.tsv: a "
				"thread on the same core or other work slows a curve, an interval "
				"that never narrowed only blurs it): the widths and ports learned "
				"from them are less sure; learn again on a quiet machine\n", doubt,
				r->probes);
		fprintf(out, "\nparameters (objective %.1f over the probes at once; intervals widened "
			"x%.2f)\n", r->objective, r->scale);
		for (size_t j = 0; j < r->np; j++) {
			t32_learned_param_text(&r->p[j], text, sizeof(text));
			fprintf(out, "  %s\n", text);
		}
		fprintf(out, "\n  %-24s %7s %9s  %s\n", "probe", "TVD", "cycles", "");
	}
	for (size_t i = 0; i < s->n; i++) {
		double tvd, cpi, dev, chi2;

		if (t32_probe_figures(&r->u, &s->pr[i], &tvd, &cpi, &dev, &chi2))
			continue;
		if (t32_learn_front(&s->pr[i])) {	/* its samples count for nothing */
			if (tsv)
				fprintf(out, "%s\t-\t%.2f\t-\t%.1f\n", s->pr[i].name, cpi, chi2);
			else
				fprintf(out, "  %-24s %7s %+8.1f%%  curve only%s\n", s->pr[i].name, "-",
					cpi, t32_corr_meets_target(0, cpi) ? ", within its target" : "");
		} else if (tsv) {
			fprintf(out, "%s\t%.4f\t%.2f\t%.1f\t%.1f\n", s->pr[i].name, tvd, cpi, dev,
				chi2);
		} else {
			fprintf(out, "  %-24s %7.3f %+8.1f%%  %s\n", s->pr[i].name, tvd, cpi,
				t32_corr_meets_target(tvd, cpi) ? "within both targets" : "");
		}
	}
}

/*
 * The folder of probes into dir: --from's, or one measured now into -o DIR or
 * the cache (key names this CPU's).  -1 to go on, or an exit code (with
 * --measure-only, the one of having measured).
 */
static int learn_probes_dir(const struct learn_args *a, const char *key, char *dir,
			    size_t dirlen, struct learn_measured *m)
{
	char probes[PATH_MAX], cache[PATH_MAX];
	long got;
	double t0;

	if (a->from) {
		snprintf(dir, dirlen, "%s", a->from);
		return -1;
	}
	snprintf(probes, sizeof(probes), "%.4000s", a->probes ? a->probes :
		 (snprintf(dir, dirlen, "%.4000s/probes", t32_datadir()), dir));
	if (a->outdir) {
		snprintf(dir, dirlen, "%s", a->outdir);
	} else {
		t32_latcache_dir(a->cache, cache, sizeof(cache));
		if (!cache[0]) {
			t32_error("no cache folder to keep the probes in (-o DIR) '%s'", "$HOME");
			return T32_EXIT_USAGE;
		}
		if (mkdir(cache, 0777) && errno != EEXIST) {
			t32_error("cannot create the cache folder (%s) '%s'", strerror(errno),
				  cache);
			return T32_EXIT_ERROR;
		}
		snprintf(dir, dirlen, "%.3000s/probes-%s", cache, key);
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		t32_error("cannot create the probes folder (%s) '%s'", strerror(errno), dir);
		return T32_EXIT_ERROR;
	}
	t0 = t32_now();
	got = learn_measure(a, probes, dir);
	if (got == -3)
		return T32_EXIT_UNAVAILABLE;
	if (got == -4)
		return T32_EXIT_INTERRUPTED;
	if (got < 0)
		return T32_EXIT_ERROR;
	m->blocks = got;
	m->seconds = t32_now() - t0;
	if (a->measure_only || a->format != T32_FMT_TSV)
		printf("measured   %ld blocks of %s into %s in %.1f s (budget %g s)\n", got, probes,
		       dir, m->seconds, a->budget);
	if (a->measure_only)
		return t32_close_stdout() ? T32_EXIT_ERROR : got ? 0 : T32_EXIT_UNTRUSTED;
	return -1;
}

/*
 * The model to start from into u and choice (asked, the recording's in dir,
 * or this CPU's), with --set's values, and the shipped latency table into tab.
 * 0, or an exit code said.
 */
static int learn_start(const struct learn_args *a, const char *dir, struct t32_uarch *u,
		       struct t32_uarch_choice *choice, struct t32_lattab *tab)
{
	char err[1024], core[32];
	int rc;

	core[0] = 0;
	if (!a->uarch && a->from)
		t32_probe_set_core(dir, core, sizeof(core));
	if (core[0]) {
		snprintf(choice->data, sizeof(choice->data), "%s", core);
	} else {
		t32_block_uarch(a->uarch, choice);
	}
	rc = t32_block_uarch_load(u, choice->data, t32_datadir(), a->sets, a->nsets);
	if (rc)
		return rc;
	if (t32_shipped_lattab(tab, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_ERROR;
	}
	return 0;
}

/*
 * The learned model kept: in --store FILE, or this CPU's cache file when the
 * probes are this CPU's (here names it).  0, or -1.
 */
static int learn_keep(const struct learn_args *a, const struct t32_probe_set *s,
		      const struct t32_learn_result *r, const char *here, const char *uarch,
		      const char *dir)
{
	char store[PATH_MAX], cpu[256];
	const char *names[LEARN_MAX_PROBES];

	snprintf(cpu, sizeof(cpu), "%s", s->rec[0].cpu[0] ? s->rec[0].cpu : here);
	store[0] = 0;
	if (a->store) {
		snprintf(store, sizeof(store), "%s", a->store);
	} else if (!a->no_store) {
		char mine[256], theirs[256], line[300];

		snprintf(line, sizeof(line), "# cpu: %s", s->rec[0].cpu);
		t32_provenance_cpu_line(mine, sizeof(mine));
		if (!a->from || (t32_cpu_line_identity(line, theirs, sizeof(theirs)) == 0 &&
				 t32_cpu_line_identity(mine, line, sizeof(line)) == 0 &&
				 strcmp(theirs, line) == 0))
		{
			char cache[PATH_MAX];

			t32_latcache_dir(a->cache, cache, sizeof(cache));
			if (cache[0] && mkdir(cache, 0777) && errno != EEXIST)
				t32_warn("cannot create the cache folder (%s) '%s'",
					 strerror(errno), cache);
			t32_learned_path(a->cache, store, sizeof(store));
		}
		else if (a->format != T32_FMT_TSV)
			printf("\nnot stored: the probes were recorded on another CPU "
			       "(--store FILE keeps it)\n");
	}
	if (store[0]) {
		size_t np = s->n < LEARN_MAX_PROBES ? s->n : LEARN_MAX_PROBES;

		for (size_t i = 0; i < np; i++)
			names[i] = s->pr[i].name;
		if (t32_learned_write(store, r, cpu, uarch, dir, names, np))
			return -1;
		if (a->format != T32_FMT_TSV)
			printf("\nstored     %s\n", store);
	}
	return 0;
}

/* `t32 learn` (see the top of this file). */
int cmd_learn(int argc, char **argv)
{
	struct learn_args a = { .samples = 2000, .seconds = 2, .budget = 40, .cpu = -1,
				.format = T32_FMT_TABLE };
	struct t32_probe_set s = { 0 };
	struct t32_lattab tab = { NULL, 0 };
	struct t32_learn_result r;
	struct learn_measured measured = { -1, 0 };
	struct t32_uarch u;
	struct t32_uarch_choice choice;
	char err[1024], dir[PATH_MAX], key[128];
	char here[256];
	double t0 = t32_now(), t1;
	int rc = learn_parse(argc, argv, &a);

	if (rc >= 0)
		return rc;
	t32_latcache_cpu(key, sizeof(key), here, sizeof(here));
	rc = learn_probes_dir(&a, key, dir, sizeof(dir), &measured);
	if (rc >= 0)
		return rc;
	/* the data to start from: asked, the recording's, or this CPU's */
	rc = learn_start(&a, dir, &u, &choice, &tab);
	if (rc)
		goto out;
	rc = T32_EXIT_ERROR;
	if (t32_probe_set_read(dir, &tab, &u, a.allow_unstable, 0, &s)) {
		t32_error("cannot read the probes (%s) '%s'", strerror(errno), dir);
		goto out;
	}
	if (s.n == 0) {
		t32_error("no probe to learn from in '%s' (%zu unstable, %zu unreadable)", dir,
			  s.unstable, s.unreadable);
		rc = T32_EXIT_UNTRUSTED;
		goto out;
	}
	t1 = t32_now();
	if (t32_probe_set_fit_keys(&u, &s, a.keys, a.sets, a.nsets, &r, err, sizeof(err))) {
		t32_error("%s", err);
		if (strstr(err, "unknown parameter") || strstr(err, "named twice") ||
		    strstr(err, "keys to learn at once"))
			rc = T32_EXIT_USAGE;
		goto out;
	}
	learn_print(stdout, &a, &r, &s, dir, &measured, t32_now() - t1);
	/* where it is kept: asked, or this CPU's cache file when the probes are this CPU's */
	if (learn_keep(&a, &s, &r, here, choice.data, dir))
		goto out;
	if (a.format != T32_FMT_TSV)
		printf("took       %.1f s\n", t32_now() - t0);
	rc = t32_close_stdout() ? T32_EXIT_ERROR : 0;
out:
	t32_probe_set_free(&s);
	t32_lattab_free(&tab);
	return rc;
}
