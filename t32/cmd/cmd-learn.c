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
#include "t32/core/recorded.h"
#include "t32/sample/correlate.h"
#include "t32/util.h"

#define LEARN_MAX_PROBES 256

static const char learn_usage[] =
	"t32 learn [--from DIR] [--probes DIR] [-o DIR] [--uarch NAME|FILE] [--cache DIR] "
	"[--store FILE] [--no-store] [--measure-only] [--set KEY=VALUE]... [--keys K,...|none] "
	"[--samples N] [--seconds S] [--allow-unstable] [--cpu N] "
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
	int cpu;		/* --cpu N, or -1: the default */
	enum t32_format format;
};

/* The probes read from a folder of recorded blocks. */
struct learn_set {
	struct t32_recorded *rec;
	struct t32_learn_probe *pr;
	size_t n;
	size_t unstable, unreadable;	/* left out */
};

static void learn_set_free(struct learn_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		t32_recorded_free(&s->rec[i]);
	free(s->rec);
	free(s->pr);
	memset(s, 0, sizeof(*s));
}

/* The core the first recorded block of dir names ("zen5"), into core; "" when none. */
static void learn_recorded_core(const char *dir, char *core, size_t len)
{
	char **names, path[PATH_MAX], line[512];
	long n = t32_recorded_list(dir, &names);
	FILE *f;

	core[0] = 0;
	if (n > 0) {
		snprintf(path, sizeof(path), "%.3000s/%.200s/shares.tsv", dir, names[0]);
		if ((f = fopen(path, "r"))) {
			while (fgets(line, sizeof(line), f) && line[0] == '#')
				if (strncmp(line, "# core: ", 8) == 0) {
					sscanf(line + 8, "%31s", core);
					break;
				}
			fclose(f);
		}
	}
	t32_recorded_names_free(names, n > 0 ? n : 0);
	(void)len;
}

/*
 * Read every recorded block under dir (its NAME/ folders) and append it to s;
 * unstable ones are left out unless allow_unstable, unreadable ones left out with
 * a warning (quiet: without).  0, or -1 when dir cannot be read.
 */
static int learn_read(const char *dir, const struct t32_lattab *shipped, const struct t32_uarch *u,
		      int allow_unstable, int quiet, struct learn_set *s)
{
	char **names, path[PATH_MAX], err[1024];
	long n = t32_recorded_list(dir, &names);
	size_t before = s->n;

	if (n < 0)
		return -1;
	for (long i = 0; i < n; i++) {
		struct t32_recorded r;

		snprintf(path, sizeof(path), "%.3000s/%.200s", dir, names[i]);
		if (t32_recorded_read(path, shipped, u, &r, err, sizeof(err))) {
			if (!quiet)
				t32_warn("left out: %s", err);
			s->unreadable++;
			continue;
		}
		if (r.unstable && !allow_unstable) {
			if (!quiet)
				t32_warn("left out, its samples did not stay put '%s' (%s)", path,
					 r.stability);
			s->unstable++;
			t32_recorded_free(&r);
			continue;
		}
		{
			struct t32_recorded *nr = realloc(s->rec, (s->n + 1) * sizeof(*nr));
			struct t32_learn_probe *np = nr ? realloc(s->pr, (s->n + 1) * sizeof(*np)) : NULL;

			if (nr)
				s->rec = nr;
			if (!np) {
				t32_recorded_free(&r);
				break;
			}
			s->pr = np;
		}
		s->rec[s->n] = r;
		s->n++;
	}
	/* the probes point into rec, which moved as it grew: set them now, held kept */
	for (size_t i = 0; i < s->n; i++) {
		int h = i < before ? s->pr[i].held : 0;

		t32_recorded_probe(&s->rec[i], &s->pr[i]);
		s->pr[i].held = h;
	}
	t32_recorded_names_free(names, n);
	return 0;
}

/* Mark the probes from index `from` on as held (predicted only). */
static void learn_hold_from(struct learn_set *s, size_t from)
{
	for (size_t i = from; i < s->n; i++)
		s->pr[i].held = 1;
}

/* Load the shipped latency table; 0, or -1 with err. */
static int learn_shipped(struct t32_lattab *tab, char *err, size_t errlen)
{
	char path[PATH_MAX];

	tab->e = NULL;
	tab->n = 0;
	snprintf(path, sizeof(path), "%.4000s/uarch/latency.lat", t32_datadir());
	if (access(path, F_OK) == 0 && t32_lattab_load(tab, path, err, errlen))
		return -1;
	return 0;
}

/*
 * Learn from every probe of s not held: the keys of list (comma-separated,
 * "none" for none), or by default those the probes touch, less the pinned ones
 * (npinned "key=value" texts).
 */
static int learn_fit_keys(const struct t32_uarch *u, struct learn_set *s, const char *list,
			  const char *const *pinned, size_t npinned, struct t32_learn_result *r,
			  char *err, size_t errlen)
{
	char keys[T32_LEARN_MAX_PARAMS][48];
	const char *params[T32_LEARN_MAX_PARAMS];
	size_t nk = 0, m = 0;

	if (list && strcmp(list, "none") != 0) {
		while (*list && nk < T32_LEARN_MAX_PARAMS) {
			size_t l = strcspn(list, ",");

			snprintf(keys[nk++], 48, "%.*s", (int)(l < 47 ? l : 47), list);
			list += l + (list[l] == ',');
		}
	} else if (!list) {
		nk = t32_learn_default_params(u, s->pr, s->n, keys, T32_LEARN_MAX_PARAMS);
	}
	for (size_t j = 0; j < nk; j++) {
		size_t l = strlen(keys[j]), p;

		for (p = 0; p < npinned; p++)
			if (strncmp(pinned[p], keys[j], l) == 0 && pinned[p][l] == '=')
				break;
		if (p == npinned)
			params[m++] = keys[j];
	}
	return t32_learn_fit(u, s->pr, s->n, params, m, NULL, r, err, errlen);
}

/* Learn from every probe of s not held, with the default parameters. */
static int learn_fit(const struct t32_uarch *u, struct learn_set *s, struct t32_learn_result *r,
		     char *err, size_t errlen)
{
	return learn_fit_keys(u, s, NULL, NULL, 0, r, err, errlen);
}

/* The prediction of probe i by u: TVD and cycles error (percent); -1 when it cannot run. */
static int learn_figures(const struct t32_uarch *u, const struct t32_learn_probe *p, double *tvd,
			 double *cpi, double *dev, double *chi2)
{
	struct t32_corr_result r;
	char err[256];
	double slope = NAN;

	if (t32_learn_predict(u, p, &r, err, sizeof(err)))
		return -1;
	if (p->d.curve && p->d.kmax >= 2) {
		double sk = 0, sy = 0, skk = 0, sky = 0, m = (double)p->d.kmax;

		for (size_t k = 1; k <= p->d.kmax; k++) {
			sk += (double)k;
			sy += p->d.curve[k];
			skk += (double)k * (double)k;
			sky += (double)k * p->d.curve[k];
		}
		slope = (m * sky - sk * sy) / (m * skk - sk * sk);
	}
	*tvd = r.samples ? r.gof.tvd : NAN;
	if (dev)
		*dev = r.deviance;
	if (chi2)
		*chi2 = r.curve_chi2;
	*cpi = slope > 0 ? 100 * (r.cycles_per_iter - slope) / slope : NAN;
	t32_corr_result_free(&r);
	return 0;
}

/*
 * Measure each probe block of dir into outdir/NAME as `t32 correlate -o` does,
 * in this process; the count measured, -3 when there is no sampling backend,
 * -4 when Ctrl-C stopped it (what was measured stays in outdir).
 */
static long learn_measure(const struct learn_args *a, const char *dir, const char *outdir)
{
	char path[PATH_MAX], out[PATH_MAX];
	struct dirent **names = NULL;
	int count = scandir(dir, &names, NULL, alphasort);
	long done = 0;

	if (count < 0) {
		t32_error("cannot read the probes (%s) '%s'", strerror(errno), dir);
		return -1;
	}
	for (int i = 0; i < count; i++) {
		const char *nm = names[i]->d_name;
		size_t nl = strlen(nm);

		if (nl > 4 && strcmp(nm + nl - 4, ".blk") == 0) {
			struct t32_correlate_req q;
			char *body[] = { path, NULL };
			int rc;

			snprintf(path, sizeof(path), "%.3000s/%s", dir, nm);
			snprintf(out, sizeof(out), "%.3000s/%.*s", outdir, (int)(nl - 4), nm);
			t32_correlate_req_init(&q);
			q.learned = "none";
			q.fit_none = 1;
			q.samples = a->samples;
			q.seconds = a->seconds;
			q.cpu = a->cpu;
			q.uarch = a->uarch;
			q.cache_dir = a->cache;
			/* kept and flagged either way: whether to learn from it is decided below */
			q.allow_unstable = 1;
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
		}
		free(names[i]);
	}
	free(names);
	return done;
}

/* --set KEY=VALUE: kept, applied to the data learning starts from */
static int learn_opt_set(const struct t32_option *row, const char *arg)
{
	struct learn_args *a = row->ctx;

	if (a->nsets >= sizeof(a->sets) / sizeof(a->sets[0])) {
		t32_error("too many --set options '%s'", arg);
		return -1;
	}
	a->sets[a->nsets++] = arg;
	return 0;
}

static int learn_parse(int argc, char **argv, struct learn_args *a)
{
	struct t32_block_opts bo;
	struct t32_block_optset shared;

	t32_block_opts_init(&bo);
	bo.cmd = "learn";
	bo.accept = T32_OPT_CPU | T32_OPT_FORMAT;
	bo.formats = T32_FMT_BIT(T32_FMT_TABLE) | T32_FMT_BIT(T32_FMT_TSV);
	t32_block_optset_init(&shared, &bo, NULL);
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
		T32_OPT_FN("set", "KEY=VALUE", learn_opt_set, a,
			   "pin a parameter (not learned): an experiment on the probes"),
		T32_OPT_STRING("keys", 0, "K,...|none", &a->keys,
			       "the parameters to learn (default: those the probes touch);\n"
			       "none: learn nothing, only predict the probes"),
		T32_OPT_FLAG("measure-only", 0, &a->measure_only,
			     "measure the blocks of --probes DIR into -o DIR and stop\n"
			     "(how a machine's other blocks are recorded beside its probes)"),
		T32_OPT_U64("samples", "N", &a->samples, 100, 10000000, "sample count",
			    "per probe, as t32 correlate (default 2000)"),
		T32_OPT_REAL("seconds", "S", &a->seconds, 0.1, 3600, "seconds",
			     "per probe, as t32 correlate (default 2)"),
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
			const struct learn_set *s, const char *source, double seconds)
{
	char text[256];
	int tsv = a->format == T32_FMT_TSV;

	if (tsv) {
		fprintf(out, "# uarch: %s\n# source: %s\n# probes: %zu\n# left_out_unstable: %zu\n"
			"# objective: %.3f\n# scale: %.3f\n# model_runs: %zu\n# seconds: %.2f\n",
			r->u.name, source, r->probes, s->unstable, r->objective, r->scale, r->evals,
			seconds);
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

		if (learn_figures(&r->u, &s->pr[i], &tvd, &cpi, &dev, &chi2))
			continue;
		if (tsv)
			fprintf(out, "%s\t%.4f\t%.2f\t%.1f\t%.1f\n", s->pr[i].name, tvd, cpi, dev,
				chi2);
		else
			fprintf(out, "  %-24s %7.3f %+8.1f%%  %s\n", s->pr[i].name, tvd, cpi,
				t32_corr_meets_target(tvd, cpi) ? "within both targets" : "");
	}
}

/*
 * The folder of probes into dir: --from's, or one measured now into -o DIR or
 * the cache (key names this CPU's).  -1 to go on, or an exit code (with
 * --measure-only, the one of having measured).
 */
static int learn_probes_dir(const struct learn_args *a, const char *key, char *dir,
			    size_t dirlen)
{
	char probes[PATH_MAX], cache[PATH_MAX];
	long got;

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
	got = learn_measure(a, probes, dir);
	if (got == -3)
		return T32_EXIT_UNAVAILABLE;
	if (got == -4)
		return T32_EXIT_INTERRUPTED;
	if (got < 0)
		return T32_EXIT_ERROR;
	if (a->measure_only) {
		printf("measured   %ld blocks of %s into %s\n", got, probes, dir);
		return t32_close_stdout() ? T32_EXIT_ERROR : got ? 0 : T32_EXIT_UNTRUSTED;
	}
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

	core[0] = 0;
	if (!a->uarch && a->from)
		learn_recorded_core(dir, core, sizeof(core));
	if (core[0]) {
		snprintf(choice->data, sizeof(choice->data), "%s", core);
	} else {
		t32_block_uarch(a->uarch, choice);
	}
	if (t32_uarch_load(u, choice->data, t32_datadir(), err, sizeof(err)) ||
	    learn_shipped(tab, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_ERROR;
	}
	for (size_t k = 0; k < a->nsets; k++)
		if (t32_uarch_set(u, a->sets[k], err, sizeof(err))) {
			t32_error("%s", err);
			return T32_EXIT_USAGE;
		}
	return 0;
}

/*
 * The learned model kept: in --store FILE, or this CPU's cache file when the
 * probes are this CPU's (here names it).  0, or -1.
 */
static int learn_keep(const struct learn_args *a, const struct learn_set *s,
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
	struct learn_args a = { .samples = 2000, .seconds = 2, .cpu = -1, .format = T32_FMT_TABLE };
	struct learn_set s = { 0 };
	struct t32_lattab tab = { NULL, 0 };
	struct t32_learn_result r;
	struct t32_uarch u;
	struct t32_uarch_choice choice;
	char err[1024], dir[PATH_MAX], key[128];
	char here[256];
	double t0 = t32_now(), t1;
	int rc = learn_parse(argc, argv, &a);

	if (rc >= 0)
		return rc;
	t32_latcache_cpu(key, sizeof(key), here, sizeof(here));
	rc = learn_probes_dir(&a, key, dir, sizeof(dir));
	if (rc >= 0)
		return rc;
	/* the data to start from: asked, the recording's, or this CPU's */
	rc = learn_start(&a, dir, &u, &choice, &tab);
	if (rc)
		goto out;
	rc = T32_EXIT_ERROR;
	if (learn_read(dir, &tab, &u, a.allow_unstable, 0, &s)) {
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
	if (learn_fit_keys(&u, &s, a.keys, a.sets, a.nsets, &r, err, sizeof(err))) {
		t32_error("%s", err);
		if (strstr(err, "unknown parameter") || strstr(err, "named twice"))
			rc = T32_EXIT_USAGE;
		goto out;
	}
	learn_print(stdout, &a, &r, &s, dir, t32_now() - t1);
	/* where it is kept: asked, or this CPU's cache file when the probes are this CPU's */
	if (learn_keep(&a, &s, &r, here, choice.data, dir))
		goto out;
	if (a.format != T32_FMT_TSV)
		printf("took       %.1f s\n", t32_now() - t0);
	rc = t32_close_stdout() ? T32_EXIT_ERROR : 0;
out:
	learn_set_free(&s);
	t32_lattab_free(&tab);
	return rc;
}

/* One block's prediction as a bench figure; returns 1 when within both targets. */
static int learn_bench_block(void (*report)(const char *, const char *, const char *, int),
			     const char *machine, const char *group, const struct t32_uarch *u,
			     const struct t32_learn_probe *p, const char *how)
{
	char what[600], fig[160];
	double tvd, cpi;
	int ok;

	snprintf(what, sizeof(what), "learn %s: %s/%s", machine, group, p->name);
	if (learn_figures(u, p, &tvd, &cpi, NULL, NULL)) {
		report(what, "the model cannot run it", "TVD <= 0.10, err <= 5%", 0);
		return 0;
	}
	ok = t32_corr_meets_target(tvd, cpi);
	snprintf(fig, sizeof(fig), "TVD %.3f, cpi %+.1f%%%s", tvd, cpi, how);
	report(what, fig, "TVD <= 0.10, err <= 5%", ok);
	return ok;
}

/* The groups of a recorded machine's blocks: the study's, others', ours to decide on, ours held back. */
static const struct {
	const char *dir;
	int held;		/* never used to learn or decide */
	const char *target;	/* of the group's share within both targets */
	double share;
} learn_groups[] = {
	{ "study", 0, "9 of 9", 1.0 },
	{ "more", 0, "(figure only)", 0 },
	{ "decide", 0, "(figure only)", 0 },
	{ "held", 1, ">= 80%", 0.8 },
	{ NULL, 0, NULL, 0 },
};

/*
 * Each group's blocks of machine name predicted by the model learned (r), or
 * without probes by the one learned from the others, and how many of each
 * group are within both targets, as bench figures.
 */
static void learn_bench_groups(void (*report)(const char *, const char *, const char *, int),
			       const char *name, const struct t32_uarch *u, struct learn_set *all,
			       const size_t *first, int ng, int have_probes,
			       const struct t32_learn_result *r)
{
	char err[1024], what[512], fig[200];

	for (int g = 0; g < ng; g++) {
		size_t within = 0, count = first[g + 1] - first[g];

		for (size_t i = first[g]; i < first[g + 1]; i++) {
			const struct t32_uarch *pu = &r->u;
			struct t32_learn_result lo;
			const char *how = "";
			int lo_ok = 0;

			/* without probes, a block not held is predicted by the others alone */
			if (!have_probes && !all->pr[i].held) {
				all->pr[i].held = 1;
				lo_ok = learn_fit(u, all, &lo, err, sizeof(err)) == 0;
				all->pr[i].held = 0;
				if (!lo_ok)
					continue;
				pu = &lo.u;
				how = ", learned without it";
			}
			within += (size_t)learn_bench_block(report, name, learn_groups[g].dir, pu,
							    &all->pr[i], how);
		}
		if (!count)
			continue;
		snprintf(what, sizeof(what), "learn %s: %s blocks within both", name,
			 learn_groups[g].dir);
		snprintf(fig, sizeof(fig), "%zu of %zu", within, count);
		report(what, fig, learn_groups[g].target,
		       learn_groups[g].share == 0 ||
		       (double)within >= learn_groups[g].share * (double)count - 1e-9);
	}
}

/*
 * One recorded machine (root/name) as bench figures: its blocks read group by
 * group, the model learned from its probes or its blocks, and each block predicted.
 */
static void learn_bench_machine(void (*report)(const char *, const char *, const char *, int),
				const char *root, const char *name, const struct t32_lattab *tab)
{
	char path[PATH_MAX], probes[PATH_MAX], core[32], what[512], fig[200], err[1024];
	struct learn_set all = { 0 }, pset = { 0 };
	size_t first[8], nheld = 0, nfit = 0;
	struct t32_uarch u;
	struct t32_learn_result r;
	int have_probes, ng = 0;
	double t0, took;

	snprintf(path, sizeof(path), "%.3000s/%.200s/study", root, name);
	if (name[0] == '.' || access(path, R_OK))
		return;
	learn_recorded_core(path, core, sizeof(core));
	if (t32_uarch_load(&u, core[0] ? core : T32_UARCH_GENERIC, t32_datadir(), err,
			   sizeof(err))) {
		snprintf(what, sizeof(what), "learn %s", name);
		report(what, err, "(figure only)", 0);
		return;
	}
	/* every block, group by group; held ones marked */
	for (int g = 0; learn_groups[g].dir; g++) {
		snprintf(path, sizeof(path), "%.3000s/%.200s/%s", root, name, learn_groups[g].dir);
		first[g] = all.n;
		ng = g + 1;
		if (learn_read(path, tab, &u, 0, 1, &all) == 0 && learn_groups[g].held)
			learn_hold_from(&all, first[g]);
	}
	first[ng] = all.n;
	for (size_t i = 0; i < all.n; i++) {
		nheld += all.pr[i].held;
		nfit += !all.pr[i].held;
	}
	snprintf(probes, sizeof(probes), "%.3000s/%.200s/probes", root, name);
	have_probes = access(probes, R_OK) == 0 &&
		      learn_read(probes, tab, &u, 0, 1, &pset) == 0 && pset.n > 0;
	if (all.unstable + all.unreadable + pset.unstable + pset.unreadable) {
		snprintf(what, sizeof(what), "learn %s: left out", name);
		snprintf(fig, sizeof(fig), "%zu blocks whose samples did not stay put, %zu "
			 "unreadable", all.unstable + pset.unstable,
			 all.unreadable + pset.unreadable);
		report(what, fig, "(figure only)", 1);
	}
	t0 = t32_now();
	if (have_probes ? learn_fit(&u, &pset, &r, err, sizeof(err)) :
			  learn_fit(&u, &all, &r, err, sizeof(err))) {
		snprintf(what, sizeof(what), "learn %s", name);
		report(what, err, "<= 60 s", 0);
		goto next;
	}
	took = t32_now() - t0;
	snprintf(what, sizeof(what), "learn %s: time to learn", name);
	snprintf(fig, sizeof(fig), "%.1f s from %zu %s, %zu model runs", took, r.probes,
		 have_probes ? "probes" : "blocks", r.evals);
	report(what, fig, "<= 60 s", took <= 60);
	for (size_t j = 0; j < r.np; j++) {
		char text[256];

		t32_learned_param_text(&r.p[j], text, sizeof(text));
		snprintf(what, sizeof(what), "learn %s: parameter", name);
		report(what, text, "(figure only)", 1);
	}
	learn_bench_groups(report, name, &u, &all, first, ng, have_probes, &r);
	(void)nheld;
	(void)nfit;
next:
	learn_set_free(&all);
	learn_set_free(&pset);
}

/*
 * make bench: every machine recorded in t/data/recorded (a folder with study/
 * and, where they were recorded, probes/): learned from its probes and each
 * block predicted.  A machine without probes is learned from its blocks, each
 * block predicted by the model learned from all the others (leave one out), so
 * no block is predicted by a model that saw it; the held-back blocks never
 * enter any learning.
 */
void t32_bench_learn(void (*report)(const char *what, const char *figure, const char *target,
				    int ok))
{
	char root[PATH_MAX], err[1024];
	struct dirent **mach = NULL;
	struct t32_lattab tab = { NULL, 0 };
	int nm;
	const char *env = getenv("T32_RECORDED_DIR");

	snprintf(root, sizeof(root), "%.4000s", env && *env ? env : "");
	if (!root[0])
		snprintf(root, sizeof(root), "%.4000s/../t/data/recorded", t32_datadir());
	if (learn_shipped(&tab, err, sizeof(err))) {
		report("learn: the latency table", err, "(figure only)", 0);
		return;
	}
	nm = scandir(root, &mach, NULL, alphasort);
	if (nm < 0) {
		report("learn: recorded machines", "no t/data/recorded folder", "(figure only)", 0);
		t32_lattab_free(&tab);
		return;
	}
	for (int m = 0; m < nm; m++) {
		learn_bench_machine(report, root, mach[m]->d_name, &tab);
		free(mach[m]);
	}
	free(mach);
	t32_lattab_free(&tab);
}
