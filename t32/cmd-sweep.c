/*
 * cmd-sweep.c - `t32 sweep`: many blocks over many n, one TSV row per (form, mode,
 * n).  Rows are numbered, written whole with one write() each, and skipped on
 * --resume, so Ctrl-C or a crash loses at most the row being measured; --shard K/N
 * splits the rows across machines and --merge joins the pieces after checking
 * that they belong to one sweep and cover it exactly once.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t32/block.h"
#include "t32/cmd.h"
#include "t32/measure.h"
#include "t32/record.h"
#include "t32/sweepfile.h"
#include "t32/table.h"
#include "t32/sweep.h"
#include "t32/tsv.h"

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


/*
 * The command, measuring or replaying (rec).  Its length is its option table and
 * the steps of a sweep in order (table or spec, rows, header, the rows measured).
 */
static int sweep_main(int argc, char **argv, struct t32_rec *rec, const char *format)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "n", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "resume", no_argument, NULL, 'R' },
		{ "shard", required_argument, NULL, 'S' },
		{ "merge", no_argument, NULL, 'M' },
		{ "allow-mixed-cpus", no_argument, NULL, 'A' },
		{ "precision", required_argument, NULL, 'p' },
		{ "block-precision", required_argument, NULL, 'P' },
		{ "budget", required_argument, NULL, 'b' },
		{ "max-runs", required_argument, NULL, 'x' },
		{ "unit", required_argument, NULL, 'u' },
		{ "max-k", required_argument, NULL, 'k' },
		{ "k-list", required_argument, NULL, 'K' },
		{ "barrier", required_argument, NULL, 'B' },
		{ "store", required_argument, NULL, 's' },
		{ "record", required_argument, NULL, 'r' },
		{ "replay", required_argument, NULL, 'y' },
		{ "ignore-busy", no_argument, NULL, 'I' },
		{ "whole", no_argument, NULL, 'W' },
		T32_BLOCK_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct t32_sweep_req w;
	struct t32_spec spec = { 0 };
	const char *barrier = "l", *store = "m", *nlist = NULL, *modelist = NULL, *record = NULL;
	int opt, rc = 0, do_merge = 0, allow_mixed = 0;
	char err[512], *end;
	uint64_t v, *ns = NULL;

	t32_sweep_req_init(&w);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			printf("usage: %s\n\n"
			       "One TSV row per (form, mode, n); a spec sweeps the repeat count of its last item.\n"
			       "  --n LIST            100,1000  0..100  1..1e5/log:20 (joined by commas)\n"
			       "  --mode M,...        raw, latency, throughput (tables: latency,throughput)\n"
			       "  -o, --output FILE   write rows here (default stdout)\n"
			       "  --resume            skip rows FILE already holds; finish the rest\n"
			       "  --shard K/N         measure only rows with row %% N == K - 1\n"
			       "  --merge -o OUT F... join shards, checking they form one whole sweep\n"
			       "  --allow-mixed-cpus  merge shards, or resume a file, measured on another CPU\n"
			       "  --precision P       stop a row at +-P unit per instruction (default 0.01)\n"
			       "  --block-precision P ... or at +-P unit on the whole block (default 0.5)\n"
			       "  --budget S          seconds per measurement at most (default 1)\n"
			       "  --max-runs N        runs per measurement at most (default 1000000)\n"
			       "  --unit U            cycles, ticks or ns\n"
			       "  --max-k K           throughput copies to try, 1..K (default 12)\n"
			       "  --k-list K,...      try these copy counts only (a count above what the\n"
			       "                      template's registers allow tries the largest they do)\n"
			       "  --barrier B --store S  for tables (default l m)\n"
			       "  --whole             latency and throughput rows as block minus empty over\n"
			       "                      n (fixed cost included), not the marginal cost\n"
			       "  --record FILE       keep every reading behind the rows in FILE\n"
			       "  --replay FILE       recompute a recorded sweep's rows from FILE, offline\n"
			       "  --ignore-busy       count readings taken while other CPUs were busy\n",
			       sweep_usage);
			t32_block_opts_help(stdout, &w.bo);
			return t32_close_stdout();
		case 'n':
			nlist = optarg;
			continue;
		case 'm':
			modelist = optarg;
			continue;
		case 'o':
			w.out_path = optarg;
			continue;
		case 'R':
			w.resume = 1;
			continue;
		case 'S':
			if (parse_shard(optarg, &w.shard, &w.shards)) {
				t32_error("bad shard '%s' (K/N, 1 <= K <= N)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		case 'M':
			do_merge = 1;
			continue;
		case 'A':
			allow_mixed = w.allow_mixed = 1;
			continue;
		case 'p':
		case 'P':
		case 'b': {
			double d = strtod(optarg, &end);

			if (end == optarg || *end || !(d >= 0)) {
				t32_error("bad number '%s'", optarg);
				return T32_EXIT_USAGE;
			}
			if (opt == 'p')
				w.mo.precision = d;
			else if (opt == 'P')
				w.mo.block_precision = d;
			else
				w.mo.budget = d;
			continue;
		}
		case 'x':
			if (t32_parse_u64(optarg, 1, UINT32_MAX, &v)) {
				t32_error("bad run count '%s'", optarg);
				return T32_EXIT_USAGE;
			}
			w.mo.max_runs = v;
			continue;
		case 'u':
			if (t32_parse_unit(optarg, &w.mo.unit)) {
				t32_error("unknown unit '%s' (cycles, ticks, ns)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		case 'k':
			if (t32_parse_u64(optarg, 1, 64, &v)) {
				t32_error("bad max-k '%s' (1 to 64)", optarg);
				return T32_EXIT_USAGE;
			}
			w.max_k = (unsigned)v;
			continue;
		case 'K': {
			char *copy = strdup(optarg), *save = NULL, *tok;

			w.nk = 0;
			for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (w.nk == 64 || t32_parse_u64(tok, 1, 64, &v)) {
					t32_error("bad k list '%s' (counts 1 to 64, comma-separated)", optarg);
					free(copy);
					return T32_EXIT_USAGE;
				}
				w.klist[w.nk++] = (unsigned)v;
			}
			free(copy);
			if (!w.nk) {
				t32_error("bad k list '%s' (counts 1 to 64, comma-separated)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		}
		case 'B':
			barrier = optarg;
			continue;
		case 's':
			store = optarg;
			continue;
		case 'r':
			record = optarg;
			continue;
		case 'y':
			t32_error("--replay takes only --format beside it '%s'", optarg);
			return T32_EXIT_USAGE;
		case 'I':
			w.mo.ignore_busy = 1;
			continue;
		case 'W':
			w.whole = 1;
			continue;
		}
		rc = t32_block_option(opt, optarg, &w.bo, &spec);
		if (rc < 0)
			return T32_EXIT_USAGE;
		if (rc > 0)
			return t32_usage(sweep_usage);
	}
	if (format && t32_block_option(0x105, format, &w.bo, &spec))
		return T32_EXIT_USAGE;
	if (do_merge) {
		if (!w.out_path || optind >= argc)
			return t32_usage("t32 sweep --merge -o OUT FILE...");
		rc = t32_sweep_merge(w.out_path, argc - optind, argv + optind, allow_mixed);
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
		w.table = argv[optind];
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
	if (!rc)
		rc = t32_sweep(&w);
	/* the readings behind the rows written stay */
	if (record && rec && t32_rec_close(rec, rc == 0 || rc == T32_EXIT_INTERRUPTED) && !rc)
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
