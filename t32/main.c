/*
 * main.c - the t32 command: a table from subcommand names to cmd_NAME(), and the
 * study's classic form (`t32 BARRIER STORE COUNT [N] INSN...`) when the first word
 * is not a subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "t32/cmd.h"
#include "t32/util.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "time", cmd_time, "one block in core cycles per instruction, below the TSC's step" },
	{ "gen", cmd_gen, "print the NASM that would run, or write it as a program for perf" },
	{ "sweep", cmd_sweep, "many blocks over many n: tsv rows, resumable, shardable" },
	{ "table", cmd_table, "generate a full instruction table (table gen) from capstone and NASM" },
	{ "compare", cmd_compare, "sweeps of one table from several machines side by side" },
	{ "fit", cmd_fit, "fit lines and steps to a sweep" },
	{ "sample", cmd_sample, "where timer interrupts land in a block" },
	{ "correlate", cmd_correlate, "sweep, sample and model one block, fitted together" },
	{ "model", cmd_model, "retirement model: cycle chart and predicted samples" },
	{ "study", cmd_study, "the coursework's experiments, written to a report directory" },
	{ "bench", cmd_bench, "the measured claims beside their targets (make bench)" },
	{ "env", cmd_env, "what this machine offers and costs: TSC, clock ratio, barriers, PMU" },
	{ NULL, NULL, NULL }
};

static void help(FILE *f)
{
	fprintf(f, "usage: t32 [OPTIONS] BARRIER STORE COUNT [N] INSN [[N] INSN]...\n"
		   "       t32 COMMAND [ARGS]...\n\n"
		   "The classic form prints COUNT raw TSC deltas, one a line.\n"
		   "  BARRIER  letters run in order: m mfence, x cpuid, l lfence, n none (mx = mfence, cpuid)\n"
		   "  STORE    where the first reading waits: m memory, r stack, x MMX register\n"
		   "  COUNT    measurements, 1 to 4294967295\n"
		   "  [N] INSN NASM text repeated N times; ';' separates instructions\n\n"
		   "Commands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\n`t32 help COMMAND` or `t32 COMMAND --help` tells more.  Exit codes: 0 ok, 1 error, 2 usage,\n"
		   "3 facility unavailable, 4 not supported by this CPU, 7 result not trustworthy.\n");
}

/* Edit distance of two short words (insertions, deletions, substitutions). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/*
 * A word that cannot be the classic form's BARRIER (letters other than m x l n)
 * is a mistyped command: name it, and the nearest command.
 */
static int unknown_command(const char *word)
{
	const struct command *near = NULL;
	size_t best = 3;

	/* an option (`t32 --cpu 3 l m ...`) is the classic form's, not a command */
	if (!*word || *word == '-' || strspn(word, "abcdefghijklmnopqrstuvwxyz-") != strlen(word) ||
	    strspn(word, "mxln") == strlen(word))
		return 0;
	for (const struct command *c = commands; c->name; c++) {
		size_t d = distance(word, c->name);

		if (d < best) {
			best = d;
			near = c;
		}
	}
	if (near) {
		t32_error("unknown command '%s' (did you mean %s?)", word, near->name);
		return 1;
	}
	/*
	 * Far from every command and mostly barrier letters ("lq", "mxz"): a
	 * mistyped BARRIER, which the classic form names letter by letter.
	 */
	size_t barrier_letters = 0;

	for (const char *p = word; *p; p++)
		barrier_letters += strchr("mxln", *p) != NULL;
	if (2 * barrier_letters >= strlen(word))
		return 0;
	t32_error("unknown command '%s' (t32 --help lists them)", word);
	return 1;
}

int main(int argc, char **argv)
{
	t32_main_argc = argc;
	t32_main_argv = argv;
	if (argc < 2) {
		help(stderr);
		return T32_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 && argc == 3) {
		/* t32 help COMMAND: the command's own --help */
		char *sub[] = { argv[2], "--help", NULL };

		for (const struct command *c = commands; c->name; c++)
			if (strcmp(argv[2], c->name) == 0)
				return c->fn(2, sub);
		if (!unknown_command(argv[2]))
			t32_error("unknown command '%s' (t32 --help lists them)", argv[2]);
		return T32_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		help(stdout);
		return t32_close_stdout();
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("t32 %s\n", T32_VERSION);
		return t32_close_stdout();
	}
	for (const struct command *c = commands; c->name; c++)
		if (strcmp(argv[1], c->name) == 0)
			return c->fn(argc - 1, argv + 1);
	if (unknown_command(argv[1]))
		return T32_EXIT_USAGE;
	return cmd_classic(argc, argv);
}
