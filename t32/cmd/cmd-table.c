/*
 * cmd-table.c - `t32 table gen`: write an instruction table generated from
 * capstone's mnemonics and NASM (t32/core/tablegen.c) as an ordinary .tbl file.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis/uarch.h"
#include "t32/cmd/cmd.h"
#include "t32/cmd/options.h"
#include "t32/core/tablecheck.h"
#include "t32/core/tablegen.h"
#include "t32/util.h"

static const char table_usage[] =
	"t32 table gen [-o FILE.tbl] [--only MNEMONIC,...] [--uarch NAME]\n"
	"                     [--no-expected] [--excluded FILE]";

static int table_gen(int argc, char **argv)
{
	struct t32_tablegen_opts o = { 0 };
	struct t32_tablegen_stats st;
	const char *path = NULL, *excluded = NULL;
	int rc, quiet = 0;
	const struct t32_option opts[] = {
		T32_OPT_STRING("output", 'o', "FILE", &path, "write the table here (default stdout)"),
		T32_OPT_STRING("only", 0, "M,...", &o.only, "try these mnemonics only (capstone's names)"),
		T32_OPT_STRING("uarch", 0, "NAME", &o.uarch, "published latencies of this core as lat= (default: detected)"),
		T32_OPT_FLAG("no-expected", 0, &o.no_expected, "no lat= values"),
		T32_OPT_STRING("excluded", 0, "FILE", &excluded, "list each form a rule left out, and the rule (TSV)"),
		T32_OPT_FLAG("quiet", 0, &quiet, "no summary on stderr"),
		T32_OPT_END
	};

	rc = t32_options_parse("table gen", table_usage,
			       "Every mnemonic of capstone's x86 list in the operand shapes of its kind,\n"
			       "kept where NASM assembles it and no rule excludes it, as a .tbl file.\n",
			       NULL, opts, argc, argv, &optind);
	if (rc >= 0)
		return rc;
	if (optind != argc)
		return t32_usage(table_usage);
	if (o.uarch) {
		/* lat= for a core t32 has no data for would be another core's, or none */
		struct t32_uarch u;
		char err[512];

		if (t32_uarch_load(&u, o.uarch, t32_datadir(), err, sizeof(err))) {
			t32_error("unknown micro-architecture '%s' (%s)", o.uarch, err);
			return T32_EXIT_USAGE;
		}
	}
	o.progress = !quiet && isatty(2);
	if (excluded && !(o.excluded = t32_fopen_out(excluded)))
		return T32_EXIT_ERROR;
	if (path && strcmp(path, "-"))
		rc = t32_tablegen_file(path, &o, &st);
	else
		rc = t32_tablegen(stdout, &o, &st);
	if (o.excluded && (rc ? (t32_fabort_out(o.excluded), 0) : t32_fclose_out(o.excluded)) && !rc)
		rc = T32_EXIT_ERROR;
	if (!rc && !quiet) {
		fprintf(stderr, "t32 table gen: %zu forms (%zu with a latency chain, %zu throughput only, "
			"%zu without tp=, %zu with lat=%s%s) from %zu mnemonics (%zu known to nasm), "
			"%zu candidates, %zu assembled, %zu duplicate encodings, %zu judged by shape, excluded:",
			st.forms, st.chains, st.throughput_only, st.no_template, st.expected,
			st.core[0] ? " for " : "", st.core, st.mnemonics, st.nasm_knows, st.candidates,
			st.assembled, st.duplicates, st.by_shape);
		for (int r = 0; r < T32_RULE_N; r++)
			fprintf(stderr, " %zu", st.excluded[r]);
		fprintf(stderr, " (control, privileged, stack, segment, state, address, decode); "
			"%u nasm runs, %.1f s\n", st.nasm_runs, st.seconds);
	}
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}

static const char check_usage[] =
	"t32 table check [--ref REF.tbl]... [--rows] [--untrusted]\n"
	"                       [--tolerance C] SWEEP.tsv [TABLE.tbl]";

/* `t32 table check`: a swept table read row by row (t32/core/tablecheck.c). */
static int table_check(int argc, char **argv)
{
	struct t32_tablecheck_opts o = { .tolerance = 0.05 };
	struct t32_tablecheck_result res;
	const char *refs[64];
	int rc;
	const struct t32_option opts[] = {
		T32_OPT_LIST("ref", "REF.tbl", refs, &o.nrefs, 64, "references", "published latencies to compare with (data/ref/CORE.tbl)"),
		T32_OPT_FLAG("rows", 0, &o.rows, "each row's command to measure it again as it was measured"),
		T32_OPT_FLAG("untrusted", 0, &o.untrusted, "judge and compare untrusted rows too (a busy machine)"),
		T32_OPT_REAL("tolerance", "C", &o.tolerance, 0, 1e6, "tolerance", "cycles within which a latency agrees (default 0.05)"),
		T32_OPT_END
	};

	o.refs = refs;
	rc = t32_options_parse("table check", check_usage,
			       "Read a sweep of a table row by row: every ok latency row below a cycle or\n"
			       "below its own throughput is impossible as a latency (exit 7 when there are\n"
			       "any); a reference latency is compared only with the row whose chain is its\n"
			       "chain (the table swept gives the chains: TABLE, else the one the sweep\n"
			       "line names, where it still is).\n",
			       NULL, opts, argc, argv, &optind);
	if (rc >= 0)
		return rc;
	if (argc - optind < 1 || argc - optind > 2)
		return t32_usage(check_usage);
	o.sweep = argv[optind];
	o.table = argc - optind == 2 ? argv[optind + 1] : NULL;
	rc = t32_table_check(&o, stdout, &res);
	if (t32_close_stdout() && (!rc || rc == T32_EXIT_UNTRUSTED))
		rc = T32_EXIT_ERROR;
	return rc;
}

/* Subcommands of `t32 table`: a table, as everywhere. */
static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} table_cmds[] = {
	{ "gen", table_gen, "generate a full instruction table from capstone and NASM" },
	{ "check", table_check, "read a swept table row by row: impossible latencies, like-with-like "
				"comparisons with published ones" },
};

int cmd_table(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: t32 table SUBCOMMAND [OPTIONS]\n\n");
		for (size_t i = 0; i < sizeof(table_cmds) / sizeof(table_cmds[0]); i++)
			fprintf(f, "  %-6s %s\n", table_cmds[i].name, table_cmds[i].summary);
		if (argc < 2)
			return T32_EXIT_USAGE;
		return t32_close_stdout();
	}
	for (size_t i = 0; i < sizeof(table_cmds) / sizeof(table_cmds[0]); i++)
		if (!strcmp(argv[1], table_cmds[i].name))
			return table_cmds[i].fn(argc - 1, argv + 1);
	t32_error("unknown table subcommand '%s' (gen, check)", argv[1]);
	return T32_EXIT_USAGE;
}
