/*
 * cmd-correlate.c - `t32 correlate`: its options read into a request, the
 * block correlated (t32/sample/correlate.h), the result printed.
 */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "t32/cmd/cmd.h"
#include "t32/cmd/options.h"
#include "t32/sample/correlate.h"
#include "t32/util.h"

static const char correlate_usage[] =
	"t32 correlate [--uarch NAME] [--set KEY=VALUE]... [--fit PARAM,...] [--kmax K] "
	"[--samples N] [--seconds S] [--step-seconds S] [--one-sweep] [--backend B] [--cpu N] "
	"[--init R=V,...] [--no-measure] "
	"[--cache DIR] "
	"[--unit-loop] [--from DIR] [--allow-unstable] [--learned FILE|none] "
	"[--format=table|tsv|json] [-o DIR] "
	"(BLOCK.blk | BLOCK | [N] INSN [[N] INSN]...)";


/* --fit P,...: names of at most T32_CORR_MAX_PARAMS parameters */
static int opt_fit(const struct t32_option *row, const char *v)
{
	struct t32_correlate_req *a = row->ctx;

	a->fit_asked = 1;
	if (strcmp(v, "none") == 0) {
		a->fit_none = 1;
		a->fit_asked = 0;
		return 0;
	}
	if (strcmp(v, "auto") == 0)
		return 0;
	while (*v) {
		size_t l = strcspn(v, ",");

		if (a->nfit >= T32_CORR_MAX_PARAMS || l == 0 || l >= 48) {
			t32_error("bad --fit list '%s' (at most %d names)", v, T32_CORR_MAX_PARAMS);
			return -1;
		}
		snprintf(a->fit[a->nfit++], 48, "%.*s", (int)l, v);
		v += l + (v[l] == ',');
	}
	return 0;
}

/* Parse the command line into a; -1 to go on, else the exit code. */
static int corr_parse(int argc, char **argv, struct t32_correlate_req *a)
{
	struct t32_block_opts bo;
	struct t32_block_optset shared;
	int rc, first;

	t32_block_optset_for(&shared, &bo, "correlate", T32_OPT_CPU | T32_OPT_FORMAT | T32_OPT_RAWNASM, 0);
	t32_block_optset_help(&shared, T32_OPT_FORMAT,
			      "table (default), tsv (shares, two blank lines, curve) or json");
	{
		const struct t32_option opts[] = {
			T32_OPT_IN_ORDER,
			T32_OPT_STRING("uarch", 0, "NAME|FILE", &a->uarch,
				       "micro-architecture to start from (default: the one this\n"
				       "CPU's CPUID names, as t32 env shows; an unknown CPU gets\n"
				       "its vendor's newest, else zen5)"),
			T32_OPT_LIST("set", "KEY=VALUE", a->sets, &a->nsets, T32_CORR_MAX_SETS, "changes",
				     "pin a parameter (not fitted unless named in --fit)"),
			T32_OPT_STRING("learned", 0, "FILE|none", &a->learned,
				       "the learned model to predict from (default: this CPU's,\n"
				       "kept by t32 learn in the cache, unless --uarch is given);\n"
				       "with one, nothing is fitted to the block unless --fit asks\n"
				       "(the fit is then shown beside the prediction, with its gain\n"
				       "and whether that is significant); none: fit as without one"),
			T32_OPT_FN("fit", "P,...|auto|none", opt_fit, a,
				   "parameters to fit: uarch keys (retire_width, latency.alu,\n"
				   "retire_delay.atretire...) or latency@I, the latency of\n"
				   "instruction I of the unit; default: retire_width,\n"
				   "retire_group (1 or 2), the class latencies and delays\n"
				   "the latency table leaves open, and the retire delay of\n"
				   "the sampled loop's branch (unless --unit-loop); auto: that\n"
				   "default set beside a learned model's prediction; none:\n"
				   "fit nothing"),
			T32_OPT_U64("kmax", "K", &a->kmax, 2, T32_CORR_MAX_KMAX, "kmax",
				    "step curve up to K copies (default 16)"),
			/* the sampler's own floor: fewer never give shares to trust */
			T32_OPT_U64("samples", "N", &a->samples, 50, 10000000, "sample count",
				    "stop sampling after N samples, at least 50 (default 2000)"),
			T32_OPT_REAL("seconds", "S", &a->seconds, DBL_MIN, 3600, "seconds",
				     "or after S seconds (default 3)"),
			T32_OPT_REAL("step-seconds", "S", &a->row_budget, DBL_MIN, 3600, "seconds",
				     "the step curve's time a step, at most (default 0.25)"),
			T32_OPT_FLAG("one-sweep", 0, &a->one_sweep,
				     "sweep the step curve once; by default a curve the sweep\n"
				     "mostly did not trust (another thread on the core, most\n"
				     "often) is swept again, and the sweep with fewer untrusted\n"
				     "steps kept"),
			T32_OPT_STRING("backend", 0, "B", &a->backend,
				       "sampling backend (default: the best available)"),
			/* kept as given, read into the block once it is known */
			T32_OPT_LIST("init", "R=V,...", a->init, &a->ninit, T32_MAX_INIT, "register settings",
				     "start register R with V (a block file's init lines do the same)"),
			T32_OPT_FLAG("no-measure", 0, &a->no_measure,
				     "take latencies from the shipped table alone; by default each\n"
				     "instruction form of the block is first timed here as a chain\n"
				     "of itself, cached per CPU in --cache DIR (default\n"
				     "$T32_CACHE_DIR, else ~/.cache/t32) and reused"),
			T32_OPT_STRING("cache", 0, "DIR", &a->cache_dir, "where measured latencies are kept"),
			T32_OPT_STRING("from", 0, "DIR", &a->from,
				       "fit what an earlier `-o DIR` measured (its sample.tsv and\n"
				       "sweep.tsv, and the --kmax it used) instead of measuring: model\n"
				       "variants fitted to the same data"),
			T32_OPT_FLAG("allow-unstable", 0, &a->allow_unstable,
				     "fit samples whose parts differ (t32 sample's flag unstable);\n"
				     "by default such a distribution is refused (exit 7)"),
			T32_OPT_FLAG("unit-loop", 0, &a->unit_loop,
				     "model the samples as the unit alone running as a loop; by\n"
				     "default the model runs the loop as the sampler ran it (every\n"
				     "copy of the unit, then the loop's counter and branch)"),
			T32_OPT_STRING("output", 'o', "DIR", &a->outdir,
				       "write shares.tsv, curve.tsv, the sampler's sample.tsv, the\n"
				       "sweep's sweep.tsv, and shares.svg, model-overlay.svg (gnuplot)"),
			T32_OPT_SET(shared.rows),
			T32_OPT_END
		};

		rc = t32_options_parse("correlate", correlate_usage,
				       "Measure one block two ways and fit one retirement model to both: the step\n"
				       "curve of k = 0..K copies of the block between lfences (t32 sweep), and where\n"
				       "timer interrupts land in it run as a loop (t32 sample).\n\n",
				       "\nExit 3 when no sampling backend is available here.\n", opts, argc,
				       argv, &first);
	}
	if (rc >= 0)
		return rc;
	a->cpu = bo.run.cpu;
	a->format = bo.format;
	if (first >= argc)
		return t32_usage(correlate_usage);
	a->body_argc = argc - first;
	a->body_argv = argv + first;
	return -1;
}

/* `t32 correlate`: sample, sweep, fit and report one block (see t32/sample/correlate.h). */
int cmd_correlate(int argc, char **argv)
{
	struct t32_correlate_req a;
	int rc;

	t32_correlate_req_init(&a);
	rc = corr_parse(argc, argv, &a);
	if (rc >= 0)
		return rc;
	rc = t32_correlate(&a, argc, argv, stdout, NULL);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}
