/*
 * cmd-time.c - `t32 time`: one block against its empty twin, summarised for a
 * person (table) or a program (tsv, json): minimum and median of each, and the
 * study's (t - bar) / n per instruction.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t32/block.h"
#include "t32/cmd.h"

static const char time_usage[] =
	"t32 time [OPTIONS] BARRIER STORE COUNT [N] INSN [[N] INSN]...";

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Minimum and median of n deltas (sorts them in place). */
static void min_median(uint64_t *d, uint64_t n, uint64_t *min, double *median)
{
	qsort(d, n, sizeof(*d), cmp_u64);
	*min = d[0];
	*median = n % 2 ? (double)d[n / 2] : ((double)d[n / 2 - 1] + (double)d[n / 2]) / 2;
}

struct timing {
	uint64_t runs;
	uint64_t insns;		/* n of (t - bar) / n */
	uint64_t block_min, empty_min;	/* ticks */
	double block_median, empty_median;	/* ticks */
	double per_insn;	/* ticks per instruction */
	double seconds;		/* wall time measuring */
};

static void print_timing(const struct timing *t, const struct t32_spec *s,
			 const struct t32_block_opts *o, int argc, char **argv)
{
	char desc[4096];

	t32_spec_format(s, desc, sizeof(desc));
	switch (o->format) {
	case T32_FMT_TSV:
		t32_provenance(stdout, argc, argv);
		printf("# unit: TSC ticks\n");
		printf("spec\tn\truns\tblock_min_ticks\tblock_median_ticks\tempty_min_ticks\t"
		       "empty_median_ticks\tper_insn_ticks\n");
		printf("%s\t%llu\t%llu\t%llu\t%.1f\t%llu\t%.1f\t%.4f\n", desc,
		       (unsigned long long)t->insns, (unsigned long long)t->runs,
		       (unsigned long long)t->block_min, t->block_median,
		       (unsigned long long)t->empty_min, t->empty_median, t->per_insn);
		break;
	case T32_FMT_JSON:
		printf("{\"spec\": \"");
		for (const char *p = desc; *p; p++)
			printf(*p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
		printf("\", \"n\": %llu, \"runs\": %llu, \"block_min_ticks\": %llu, "
		       "\"block_median_ticks\": %.1f, \"empty_min_ticks\": %llu, "
		       "\"empty_median_ticks\": %.1f, \"per_insn_ticks\": %.4f}\n",
		       (unsigned long long)t->insns, (unsigned long long)t->runs,
		       (unsigned long long)t->block_min, t->block_median,
		       (unsigned long long)t->empty_min, t->empty_median, t->per_insn);
		break;
	default:
		printf("block        %s\n", desc);
		printf("runs         %llu each, block and empty, in %.2f s\n",
		       (unsigned long long)t->runs, t->seconds);
		printf("block        min %llu  median %.1f  ticks\n",
		       (unsigned long long)t->block_min, t->block_median);
		printf("empty        min %llu  median %.1f  ticks (barrier cost)\n",
		       (unsigned long long)t->empty_min, t->empty_median);
		printf("per insn     %.4f ticks = (%llu - %llu) / %llu\n", t->per_insn,
		       (unsigned long long)t->block_min, (unsigned long long)t->empty_min,
		       (unsigned long long)t->insns);
		break;
	}
}

int cmd_time(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		T32_BLOCK_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct t32_block_opts o;
	struct t32_spec s = { 0 };
	struct t32_session ss;
	struct timing t = { 0 };
	uint64_t count, *block = NULL, *empty = NULL;
	char err[512];
	int opt, rc;
	double start;

	t32_block_opts_init(&o);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			printf("usage: %s\n\n%s", time_usage, T32_BLOCK_OPTHELP);
			return t32_close_stdout();
		}
		rc = t32_block_option(opt, optarg, &o, &s);
		if (rc < 0)
			return T32_EXIT_USAGE;
		if (rc > 0)
			return t32_usage(time_usage);
	}
	if (argc - optind < 4)
		return t32_usage(time_usage);
	if (t32_block_parse_head(&s, argv[optind], argv[optind + 1]) ||
	    t32_block_parse_count(argv[optind + 2], &count))
		return T32_EXIT_USAGE;
	if (t32_spec_parse_body(&s, argc - optind - 3, argv + optind + 3, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_USAGE;
	}
	t.insns = t32_spec_insns(&s);
	block = malloc(count * sizeof(uint64_t));
	empty = malloc(count * sizeof(uint64_t));
	if (!block || !empty) {
		t32_error("out of memory '%llu measurements'", (unsigned long long)count);
		rc = T32_EXIT_ERROR;
		goto out;
	}
	rc = t32_session_open(&ss, &s, &o);
	if (rc)
		goto close;
	start = t32_now();
	/* Block and empty interleaved in batches, so both see the same conditions. */
	for (uint64_t done = 0; done < count && !rc;) {
		uint64_t k = count - done < 4096 ? count - done : 4096;

		rc = t32_session_run(&ss, 0, k, block + done);
		if (!rc)
			rc = t32_session_run(&ss, 1, k, empty + done);
		done += k;
	}
	t.seconds = t32_now() - start;
	if (rc)
		goto close;
	t.runs = count;
	min_median(block, count, &t.block_min, &t.block_median);
	min_median(empty, count, &t.empty_min, &t.empty_median);
	t.per_insn = t.insns ? ((double)t.block_min - (double)t.empty_min) / (double)t.insns : 0;
	print_timing(&t, &s, &o, argc + 1, argv - 1);
close:
	t32_session_close(&ss);
out:
	free(block);
	free(empty);
	t32_spec_free(&s);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}
