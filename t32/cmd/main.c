/*
 * main.c - the t32 command: a table from subcommand names to cmd_NAME(), and the
 * study's classic form (`t32 BARRIER STORE COUNT [N] INSN...`) when the first word
 * is not a subcommand.
 */
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/cmd/flags.h"
#include "t32/cmd/options.h"
#include "t32/io/sweepfile.h"
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
	{ "table", cmd_table, "generate a full instruction table (table gen), read a swept one row by row (table check)" },
	{ "compare", cmd_compare, "sweeps of one table from several machines side by side" },
	{ "fit", cmd_fit, "fit lines and steps to a sweep" },
	{ "sample", cmd_sample, "where timer interrupts land in a block" },
	{ "correlate", cmd_correlate, "sweep, sample and model one block, fitted together" },
	{ "learn", cmd_learn, "learn this machine's retirement model once, from probe blocks" },
	{ "model", cmd_model, "retirement model: cycle chart and predicted samples" },
	{ "study", cmd_study, "the coursework's experiments, written to a report directory" },
	{ "bench", cmd_bench, "the measured claims beside their targets (make bench)" },
	{ "wake", cmd_wake, "wake and interrupt latency from user space, with the TSC (wult's method)" },
	{ "diff", cmd_diff, "compare two wake results, or two sweeps of one table" },
	{ "env", cmd_env, "what this machine offers and costs: TSC, clock ratio, barriers, PMU" },
	{ NULL, NULL, NULL }
};

/* The exit codes: help, --list exit-codes and the man page say them from here. */
static const struct {
	int code;
	const char *meaning;
} exit_codes[] = {
	{ T32_EXIT_OK, "ok" },
	{ T32_EXIT_ERROR, "error: the block did not assemble, faulted, timed out, or a system call failed" },
	{ T32_EXIT_USAGE, "usage: a bad option, word, number or file format" },
	{ T32_EXIT_UNAVAILABLE, "a facility is unavailable here (perf_event, precise sampling)" },
	{ T32_EXIT_UNSUPPORTED, "not supported by this CPU (the instruction raised #UD)" },
	{ T32_EXIT_ROWS, "sweep: every row was written, but not every row is ok (untrusted, "
			 "skipped, fault, unsupported: the closing line counts them by status; "
			 "t32 help flags says what each means)" },
	{ T32_EXIT_UNTRUSTED, "measured, but the result is not trustworthy (the reason is printed; "
			      "the classic form: a delta longer than the run); bench: a target was "
			      "missed" },
	{ T32_EXIT_INTERRUPTED, "interrupted (Ctrl-C, SIGTERM, SIGHUP); what was measured before "
				"is kept" },
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * `t32 --list WHAT`: names for programs (shell completion, the man page), one a
 * line: commands (name, a tab, summary), blocks, tables, sweep-columns (the
 * header of a sweep's rows), exit-codes (code, a tab, meaning).
 */
static int list(const char *what)
{
	if (strcmp(what, "commands") == 0) {
		for (const struct command *c = commands; c->name; c++)
			printf("%s\t%s\n", c->name, c->summary);
	} else if (strcmp(what, "blocks") == 0) {
		char **names;
		size_t n = t32_block_names(&names);

		for (size_t i = 0; i < n; i++)
			printf("%s\n", names[i]);
		t32_block_names_free(names, n);
	} else if (strcmp(what, "tables") == 0) {
		DIR *d = opendir(t32_datadir());
		struct dirent *e;
		char *names[256];
		size_t n = 0;

		while (d && (e = readdir(d)) && n < 256) {
			size_t l = strlen(e->d_name);

			if (l > 4 && strcmp(e->d_name + l - 4, ".tbl") == 0 &&
			    (names[n] = strdup(e->d_name)))
				n++;
		}
		if (d)
			closedir(d);
		qsort(names, n, sizeof(char *), by_name);
		for (size_t i = 0; i < n; i++) {
			printf("%s/%s\n", t32_datadir(), names[i]);
			free(names[i]);
		}
	} else if (strcmp(what, "sweep-columns") == 0) {
		fputs(t32_sweep_columns, stdout);
	} else if (strcmp(what, "flags") == 0) {
		t32_flags_list(stdout);
	} else if (strcmp(what, "exit-codes") == 0) {
		for (size_t i = 0; i < sizeof(exit_codes) / sizeof(exit_codes[0]); i++)
			printf("%d\t%s\n", exit_codes[i].code, exit_codes[i].meaning);
	} else {
		t32_error("unknown list '%s' (commands, blocks, tables, sweep-columns, flags, exit-codes)",
			  what);
		return T32_EXIT_USAGE;
	}
	return t32_close_stdout();
}

static void help_text(FILE *f);

/* The help, folded to 79 columns. */
static void help(FILE *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		help_text(f);
		return;
	}
	help_text(m);
	fclose(m);
	t32_fputs_folded(text, f, 79);
	free(text);
}

static void help_text(FILE *f)
{
	struct t32_block_opts o;
	struct t32_block_optset set;

	fprintf(f, "usage: t32 [OPTIONS] BARRIER STORE COUNT [N] INSN [[N] INSN]...\n"
		   "       t32 COMMAND [ARGS]...\n\n"
		   "The classic form prints COUNT raw TSC deltas, one a line.\n"
		   "  BARRIER  letters run in order: m mfence, x cpuid, l lfence, n none (mx = mfence, cpuid)\n"
		   "  STORE    where the first reading waits: m memory, r stack, x MMX register\n"
		   "  COUNT    measurements, 1 to 4294967295\n"
		   "  [N] INSN NASM text repeated N times; ';' separates instructions\n\n"
		   "Options of the classic form:\n");
	t32_classic_opts(&set, &o, NULL);
	t32_options_help(f, set.rows);
	fprintf(f, "\nCommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\n`t32 help COMMAND` or `t32 COMMAND --help` tells more; `t32 help flags` what\n"
		   "each flag and status of a result means; `man t32` tells all.\n\n"
		   "Exit codes:\n");
	for (size_t i = 0; i < sizeof(exit_codes) / sizeof(exit_codes[0]); i++)
		fprintf(f, "  %-4d %s\n", exit_codes[i].code, exit_codes[i].meaning);
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
		size_t d = t32_edit_distance(word, c->name);

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

/*
 * A command's help (t32 help COMMAND, t32 COMMAND --help), folded to 79
 * columns whichever way the command prints it: its stdout goes to memory for
 * the call (kept open: t32_keep_stdout), then out folded.
 */
static int help_folded(int (*fn)(int, char **), int argc, char **argv)
{
	char *text;
	int rc = t32_call_captured(fn, argc, argv, &text);

	if (rc < 0)
		return fn(argc, argv);
	t32_fputs_folded(text ? text : "", stdout, 79);
	free(text);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}

int main(int argc, char **argv)
{
	t32_main_argc = argc;
	t32_main_argv = argv;
	/*
	 * The model's simulations allocate and free rows of up to tens of MiB
	 * thousands of times a fit: kept in the heap rather than mapped afresh each
	 * time (and faulted in again page by page), which halves what learning costs.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	/* killed by a stop signal a command does not handle: its temporary files go first */
	t32_on_stop_signals(NULL);
	if (argc < 2) {
		help(stderr);
		return T32_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 && argc == 3) {
		/* t32 help COMMAND: the command's own --help */
		char *sub[] = { argv[2], "--help", NULL };

		if (strcmp(argv[2], "flags") == 0) {
			t32_flags_help(stdout);
			return t32_close_stdout();
		}
		for (const struct command *c = commands; c->name; c++)
			if (strcmp(argv[2], c->name) == 0)
				return help_folded(c->fn, 2, sub);
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
		printf("t32 %s (commit %s)\n", T32_VERSION, t32_commit());
		return t32_close_stdout();
	}
	if (strcmp(argv[1], "--list") == 0) {
		if (argc != 3)
			return t32_usage("t32 --list commands|blocks|tables|sweep-columns|flags|exit-codes");
		return list(argv[2]);
	}
	for (const struct command *c = commands; c->name; c++)
		if (strcmp(argv[1], c->name) == 0)
			/* t32 COMMAND --help, t32 table gen --help */
			return argc <= 4 && (!strcmp(argv[argc - 1], "--help") ||
					     !strcmp(argv[argc - 1], "-h"))
				? help_folded(c->fn, argc - 1, argv + 1) : c->fn(argc - 1, argv + 1);
	if (unknown_command(argv[1]))
		return T32_EXIT_USAGE;
	return cmd_classic(argc, argv);
}
