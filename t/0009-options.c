/*
 * 0009-options: one option table.  Rows read their values in range, a value
 * out of range or an unknown option is a usage error (2), operands follow the
 * options, --help prints every listed row, and a shared option a command leaves
 * out (or any row without help) is refused by name; a choice row stores the
 * index of its word and refuses others; a list row keeps each value given, up
 * to its cap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t/tap.h"
#include "t32/core/block.h"
#include "t32/cmd/options.h"
#include "t32/util.h"

static uint64_t runs;
static double budget;
static int flag;
static const char *out;
static int pick;

static int parse(int argc, char **argv, const struct t32_option *opts, int *first)
{
	runs = 7;
	budget = 1;
	flag = 0;
	out = NULL;
	pick = 0;
	return t32_options_parse("demo", "t32 demo [OPTIONS] ARG", NULL, NULL, opts, argc, argv,
				 first);
}

int main(void)
{
	struct t32_block_opts bo;
	struct t32_block_optset set;
	char range[64];
	int first = 0, rc;
	static const char *const policies[] = { "fifo", "rr", "other" };
	const char *sets[3] = { NULL, NULL, NULL };
	size_t nsets = 0;

	t32_block_opts_init(&bo);
	bo.cmd = "demo";
	bo.accept &= ~T32_OPT_CPU;
	t32_block_optset_init(&set, &bo, NULL);
	{
		const struct t32_option opts[] = {
			T32_OPT_U64("max-runs", "N", &runs, 1, 100, "run count", "runs at most"),
			T32_OPT_REAL("budget", "S", &budget, 0, 60, "budget", "seconds"),
			T32_OPT_FLAG("whole", 0, &flag, "whole blocks"),
			T32_OPT_STRING("output", 'o', "FILE", &out, "write here"),
			T32_OPT_FLAG("hidden", 0, &flag, NULL),
			T32_OPT_LIST("set", "K=V", sets, &nsets, 2, "changes", "change one thing"),
			T32_OPT_CHOICE("policy", "P", &pick, policies, 3, "policy", "fifo, rr or other"),
			T32_OPT_SET(set.rows),
			T32_OPT_END
		};
		char *a1[] = { "demo", "--max-runs", "100", "--budget=2.5", "--whole", "-o", "x.tsv",
			       "arg", "--warmup", "3", NULL };
		char *a2[] = { "demo", "--max-runs", "0", "arg", NULL };
		char *a3[] = { "demo", "--max-runs", "101", "arg", NULL };
		char *a4[] = { "demo", "--bogus", "arg", NULL };
		char *a5[] = { "demo", "--cpu", "1", "arg", NULL };
		char *a6[] = { "demo", "--budget", "inf", "arg", NULL };
		char *a7[] = { "demo", "--hidden", "arg", NULL };
		char *a8[] = { "demo", "--policy", "other", "arg", NULL };
		char *a9[] = { "demo", "--policy", "batch", "arg", NULL };
		char *a10[] = { "demo", "--policy", "fifo", "arg", NULL };
		char *a11[] = { "demo", "--set", "a=1", "--set", "b=2", "arg", NULL };
		char *a12[] = { "demo", "--set", "a=1", "--set", "b=2", "--set", "c=3", "arg", NULL };

		plan(25);
		rc = parse(10, a1, opts, &first);
		is_int(-1, rc, "a good command line goes on");
		ok(runs == 100 && budget == 2.5 && flag == 1 && out && !strcmp(out, "x.tsv"),
		   "each row's value where it points (runs %llu, budget %g)",
		   (unsigned long long)runs, budget);
		is_int(3, (int)bo.warmup, "a shared option read through its set");
		ok(first < 10 && !strcmp(a1[first], "arg"), "the operand follows the options");
		is_int(2, parse(4, a2, opts, &first), "below the range: usage error");
		is_int(7, (int)runs, "and the value is left as it was");
		is_int(2, parse(4, a3, opts, &first), "above the range: usage error");
		is_int(2, parse(3, a4, opts, &first), "an unknown option: usage error");
		is_int(2, parse(4, a5, opts, &first), "a shared option left out is refused");
		is_int(2, parse(4, a6, opts, &first), "inf is no number");
		is_int(2, parse(3, a7, opts, &first), "a row without help is refused by name");
		is_int(0, flag, "and not taken");
		is_int(-1, parse(4, a8, opts, &first), "a choice's word goes on");
		is_int(2, pick, "and stores its index (other is the third)");
		is_int(2, parse(4, a9, opts, &first), "a word not among the choices: usage error");
		rc = parse(4, a10, opts, &first);
		ok(rc == -1 && pick == 0, "the first word is index 0 (rc %d, index %d)", rc, pick);
		rc = parse(6, a11, opts, &first);
		ok(rc == -1 && nsets == 2 && sets[0] && !strcmp(sets[0], "a=1") && sets[1] &&
		   !strcmp(sets[1], "b=2"), "a list keeps each value in order (%zu)", nsets);
		nsets = 0;
		is_int(2, parse(8, a12, opts, &first), "one value over the cap: usage error");
		ok(nsets == 2 && !sets[2], "and nothing written past it (%zu)", nsets);
		is_string("1 to 100", t32_options_range(&opts[0], range, sizeof(range)),
			  "a range as errors say it");
		{
			char *buf = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);

			t32_options_help(f, opts);
			fclose(f);
			ok(buf && strstr(buf, "  --max-runs N") && strstr(buf, "  -o, --output FILE"),
			   "help names each row, the letter first");
			ok(buf && strstr(buf, "--warmup N") && !strstr(buf, "--cpu"),
			   "the set's rows listed, the one left out not");
			ok(buf && strstr(buf, "  --whole             whole blocks\n") != NULL,
			   "help text in one column");
			free(buf);
		}
		{
			/* folded to 40 columns: a list's continuation under its text, prose not */
			char *buf = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);

			t32_fputs_folded("  learn     each machine learned from its probes\n"
					 "  Prose runs on.  And on past the fortieth column\n", f, 40);
			fclose(f);
			ok(buf && strstr(buf, "from\n            its probes\n") != NULL,
			   "a name list's description folds under itself");
			ok(buf && strstr(buf, "past the\n  fortieth column") != NULL,
			   "an indented sentence folds to its indentation");
			free(buf);
		}
	}
	return done_testing();
}
