/*
 * cmd-table.c - `t32 table gen`: write an instruction table generated from
 * capstone's mnemonics and NASM (t32/tablegen.c) as an ordinary .tbl file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis/uarch.h"
#include "t32/cmd.h"
#include "t32/tablecheck.h"
#include "t32/tablegen.h"
#include "t32/util.h"

static const char table_usage[] =
	"t32 table gen [-o FILE.tbl] [--only MNEMONIC,...] [--uarch NAME] [--no-expected]\n"
	"              [--excluded FILE]";

static int table_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "only", required_argument, NULL, 'O' },
		{ "uarch", required_argument, NULL, 'u' },
		{ "no-expected", no_argument, NULL, 'E' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "excluded", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 }
	};
	struct t32_tablegen_opts o = { 0 };
	struct t32_tablegen_stats st;
	struct t32_out out;
	const char *path = NULL;
	int opt, rc, quiet = 0;
	const char *excluded = NULL;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			printf("usage: %s\n\n"
			       "Every mnemonic of capstone's x86 list in the operand shapes of its kind,\n"
			       "kept where NASM assembles it and no rule excludes it, as a .tbl file.\n"
			       "  -o, --output FILE   write the table here (default stdout)\n"
			       "  --only M,...        try these mnemonics only (capstone's names)\n"
			       "  --uarch NAME        published latencies of this core as lat= (default: detected)\n"
			       "  --no-expected       no lat= values\n"
			       "  --excluded FILE     list each form a rule left out, and the rule (TSV)\n"
			       "  --quiet             no summary on stderr\n",
			       table_usage);
			return t32_close_stdout();
		case 'o':
			path = optarg;
			continue;
		case 'O':
			o.only = optarg;
			continue;
		case 'u':
			o.uarch = optarg;
			continue;
		case 'E':
			o.no_expected = 1;
			continue;
		case 'q':
			quiet = 1;
			continue;
		case 'x':
			excluded = optarg;
			continue;
		default:
			return t32_usage(table_usage);
		}
	}
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
	if (path && strcmp(path, "-")) {
		if (t32_out_open(&out, path))
			return T32_EXIT_ERROR;
		rc = t32_tablegen(out.f, &o, &st);
		if (rc)
			t32_out_abort(&out);
		else if (t32_out_commit(&out))
			rc = T32_EXIT_ERROR;
	} else {
		rc = t32_tablegen(stdout, &o, &st);
	}
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
	"t32 table check [--ref REF.tbl]... [--rows] [--untrusted] [--tolerance C] SWEEP.tsv\n"
	"                [TABLE.tbl]";

/* `t32 table check`: a swept table read row by row (t32/tablecheck.c). */
static int table_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "ref", required_argument, NULL, 'r' },
		{ "rows", no_argument, NULL, 'R' },
		{ "untrusted", no_argument, NULL, 'U' },
		{ "tolerance", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	struct t32_tablecheck_opts o = { .tolerance = 0.05 };
	struct t32_tablecheck_result res;
	char *refs[64];
	int opt, rc;

	o.refs = refs;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			printf("usage: %s\n\n"
			       "Read a sweep of a table row by row: every ok latency row below a cycle or\n"
			       "below its own throughput is impossible as a latency (exit 7 when there are\n"
			       "any); a reference latency is compared only with the row whose chain is its\n"
			       "chain (the table swept gives the chains: TABLE, else the one the sweep\n"
			       "line names, where it still is).\n"
			       "  --ref REF.tbl     published latencies to compare with (data/ref/CORE.tbl)\n"
			       "  --rows            each row's command to measure it again as it was measured\n"
			       "  --untrusted       judge and compare untrusted rows too (a busy machine)\n"
			       "  --tolerance C     cycles within which a latency agrees (default 0.05)\n",
			       check_usage);
			return t32_close_stdout();
		case 'r':
			if (o.nrefs == sizeof(refs) / sizeof(refs[0])) {
				t32_error("too many references '%s' (at most 64)", optarg);
				return T32_EXIT_USAGE;
			}
			refs[o.nrefs++] = optarg;
			continue;
		case 'R':
			o.rows = 1;
			continue;
		case 'U':
			o.untrusted = 1;
			continue;
		case 't': {
			char *end;

			errno = 0;
			o.tolerance = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o.tolerance >= 0 && o.tolerance < 1e6)) {
				t32_error("bad tolerance '%s' (cycles, 0 or more)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		}
		default:
			return t32_usage(check_usage);
		}
	}
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
