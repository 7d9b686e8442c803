/*
 * cmd-sweep.c - `t32 sweep`: many blocks over many n, one TSV row per (form, mode,
 * n).  Rows are numbered, written whole with one write() each, and skipped on
 * --resume, so Ctrl-C or a crash loses at most the row being measured; --shard K/N
 * splits the rows across machines and --merge joins the pieces after checking
 * that they belong to one sweep and cover it exactly once.
 */
#include <errno.h>
#include <limits.h>
#include <float.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/core/measure.h"
#include "t32/cmd/options.h"
#include "t32/core/record.h"
#include "t32/io/sweepfile.h"
#include "t32/io/table.h"
#include "t32/core/sweep.h"
#include "t32/io/tsv.h"

static const char sweep_usage[] =
	"t32 sweep [OPTIONS] --n LIST (TABLE.tbl | BARRIER STORE [N] INSN...)\n"
	"       t32 sweep --merge -o OUT FILE...\n"
	"       t32 sweep --replay FILE";


/* Parse `K/N` (1 <= K <= N). */
static int parse_shard(const char *arg, unsigned *k, unsigned *n)
{
	char *slash = strchr(arg, '/'), left[32];
	uint64_t a, b;

	if (!slash || (size_t)(slash - arg) >= sizeof(left))
		return -1;
	memcpy(left, arg, (size_t)(slash - arg));
	left[slash - arg] = 0;
	if (t32_parse_u64(left, 1, 100000, &a) || t32_parse_u64(slash + 1, 1, 100000, &b) || a > b)
		return -1;
	*k = (unsigned)a;
	*n = (unsigned)b;
	return 0;
}


/* --shard K/N into the request. */
static int opt_shard(const struct t32_option *row, const char *arg)
{
	struct t32_sweep_req *w = row->ctx;

	if (parse_shard(arg, &w->shard, &w->shards)) {
		t32_error("bad shard '%s' (K/N, 1 <= K <= N)", arg);
		return -1;
	}
	return 0;
}

/* --k-list K,...: copy counts 1 to 64. */
static int opt_klist(const struct t32_option *row, const char *arg)
{
	struct t32_sweep_req *w = row->ctx;
	char *copy = strdup(arg), *save = NULL, *tok;
	uint64_t v;

	w->nk = 0;
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		if (w->nk == 64 || t32_parse_u64(tok, 1, 64, &v)) {
			w->nk = 0;
			break;
		}
		w->klist[w->nk++] = (unsigned)v;
	}
	free(copy);
	if (!w->nk) {
		t32_error("bad k list '%s' (counts 1 to 64, comma-separated)", arg);
		return -1;
	}
	return 0;
}

/* --replay FILE beside other options (t32_replay_or_run takes it alone). */
static int opt_replay(const struct t32_option *row, const char *arg)
{
	(void)row;
	t32_error("--replay takes only --format beside it '%s'", arg);
	return -1;
}

/*
 * The command, measuring or replaying (rec): its options into a request, the
 * merge or the sweep run.  Its length is its option table, one row an option.
 */
static int sweep_main(int argc, char **argv, struct t32_rec *rec, const char *format)
{
	struct t32_sweep_req w;
	struct t32_spec spec = { 0 };
	struct t32_block_optset shared;
	const char *barrier = "l", *store = "m", *nlist = NULL, *modelist = NULL, *record = NULL;
	int rc = 0, do_merge = 0, optind_ = 0;
	char err[512];
	static char table_path[PATH_MAX];
	uint64_t *ns = NULL;

	t32_sweep_req_init(&w);
	t32_block_optset_init(&shared, &w.bo, &spec);
	{
		const struct t32_option opts[] = {
			T32_OPT_STRING("n", 0, "LIST", &nlist, "100,1000  0..100  1..1e5/log:20 (joined by commas)"),
			T32_OPT_STRING("mode", 0, "M,...", &modelist, "raw, latency, throughput (tables: latency,throughput)"),
			T32_OPT_STRING("output", 'o', "FILE", &w.out_path, "write rows here (default stdout)"),
			T32_OPT_FLAG("resume", 0, &w.resume, "skip rows FILE already holds; finish the rest"),
			T32_OPT_FN("shard", "K/N", opt_shard, &w, "measure only rows with row % N == K - 1"),
			T32_OPT_FLAG("merge", 0, &do_merge, "join shards (--merge -o OUT FILE...), checking they\n" "form one whole sweep"),
			T32_OPT_FLAG("allow-mixed-cpus", 0, &w.allow_mixed, "merge shards, or resume a file, measured on another CPU"),
			T32_OPT_REAL("precision", "P", &w.mo.precision, 0, DBL_MAX, "precision", "stop a row at +-P unit per instruction (default 0.01)"),
			T32_OPT_REAL("block-precision", "P", &w.mo.block_precision, 0, DBL_MAX, "precision", "... or at +-P unit on the whole block (default 0.5)"),
			T32_OPT_REAL("budget", "S", &w.mo.budget, 0, DBL_MAX, "budget", "seconds per measurement at most (default 1)"),
			T32_OPT_U64("max-runs", "N", &w.mo.max_runs, 1, UINT32_MAX, "run count", "runs per measurement at most (default 1000000)"),
			T32_OPT_FN("unit", "U", t32_opt_unit, &w.mo.unit, "cycles, ticks or ns"),
			T32_OPT_UINT("max-k", "K", &w.max_k, 1, 64, "max-k", "throughput copies to try, 1..K (default 12)"),
			T32_OPT_UINT("retry", "N", &w.retry, 0, 10, "retry count", "measure a row the clock drifted under again, up to N\n" "times, keeping the first trusted reading (default 0)"),
			T32_OPT_FN("k-list", "K,...", opt_klist, &w, "try these copy counts only (a count above what the\n" "template's registers allow tries the largest they do)"),
			T32_OPT_STRING("barrier", 0, "B", &barrier, "barrier letters, for tables (default l)"),
			T32_OPT_STRING("store", 0, "S", &store, "store letter, for tables (default m)"),
			T32_OPT_FLAG("whole", 0, &w.whole, "latency and throughput rows as block minus empty over\n" "n (fixed cost included), not the marginal cost"),
			T32_OPT_STRING("record", 0, "FILE", &record, "keep every reading behind the rows in FILE"),
			T32_OPT_FN("replay", "FILE", opt_replay, NULL, "recompute a recorded sweep's rows from FILE, offline"),
			T32_OPT_FLAG("ignore-busy", 0, &w.mo.ignore_busy, "count readings taken while other CPUs were busy"),
			T32_OPT_SET(shared.rows),
			T32_OPT_END
		};

		rc = t32_options_parse("sweep", sweep_usage, "One TSV row per (form, mode, n); a spec "
				       "sweeps the repeat count of its last item.\n", NULL, opts, argc,
				       argv, &optind_);
		if (rc >= 0)
			return rc;
		rc = 0;
		optind = optind_;
	}
	if (format && t32_block_option(0x105, format, &w.bo, &spec))
		return T32_EXIT_USAGE;
	if (do_merge) {
		if (!w.out_path || optind >= argc)
			return t32_usage("t32 sweep --merge -o OUT FILE...");
		rc = t32_sweep_merge(w.out_path, argc - optind, argv + optind, w.allow_mixed);
		return t32_close_stdout() && !rc ? T32_EXIT_ERROR : rc;
	}
	if (optind >= argc || !nlist)
		return t32_usage(sweep_usage);
	if (t32_parse_nlist(nlist, &ns, &w.nn, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_USAGE;
	}
	w.ns = ns;
	w.spec = &spec;
	/* a table, or a spec: BARRIER STORE [N] INSN... */
	if (argc - optind == 1) {
		/* a table by name from anywhere: coursework.tbl is data/coursework.tbl */
		w.table = t32_table_locate(argv[optind], table_path, sizeof(table_path));
		if (t32_block_parse_head(&spec, barrier, store))
			rc = T32_EXIT_USAGE;
	} else if (argc - optind < 3) {
		rc = t32_usage(sweep_usage);
	} else if (t32_block_parse_head(&spec, argv[optind], argv[optind + 1])) {
		rc = T32_EXIT_USAGE;
	} else if (t32_spec_parse_body(&spec, argc - optind - 2, argv + optind + 2, err,
				       sizeof(err))) {
		t32_error("%s", err);
		rc = T32_EXIT_USAGE;
	}
	if (!rc && modelist && t32_sweep_parse_modes(modelist, &w.modes)) {
		t32_error("unknown mode in '%s' (raw, latency, throughput)", modelist);
		rc = T32_EXIT_USAGE;
	}
	if (!rc && record && !(w.mo.rec = rec = t32_rec_create(record, argc, argv)))
		rc = T32_EXIT_ERROR;
	else if (!rc)
		w.mo.rec = rec;
	w.progress = 1;
	w.rows_exit = 1;
	if (!rc)
		rc = t32_sweep(&w);
	/* the readings behind the rows written stay */
	if (record && rec &&
	    t32_rec_close(rec, rc == 0 || rc == T32_EXIT_ROWS || rc == T32_EXIT_INTERRUPTED) &&
	    (!rc || rc == T32_EXIT_ROWS))
		rc = T32_EXIT_ERROR;
	t32_spec_free(&spec);
	free(ns);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	return t32_replay_or_run(argc, argv, sweep_usage, sweep_main);
}
