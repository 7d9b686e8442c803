/*
 * options.c - one option table per command (options.h): the parser, the help
 * and the errors made from the same rows.
 */
#include "t32/cmd/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "t32/core/block.h"
#include "t32/core/measure.h"
#include "t32/spec.h"
#include "t32/util.h"

#define MAX_ROWS 96
#define HELP_COLUMN 22	/* where the help text starts */

/*
 * opts with its sets spliced in, into rows; their count (-1: too many).
 * *in_order is set when a table holds T32_OPT_IN_ORDER.
 */
static int flatten(const struct t32_option *opts, const struct t32_option **rows, int n,
		   int *in_order)
{
	for (; opts->kind != T32_OPTK_END; opts++) {
		if (opts->kind == T32_OPTK_IN_ORDER) {
			*in_order = 1;
			continue;
		}
		if (opts->kind == T32_OPTK_SET) {
			n = flatten(opts->set, rows, n, in_order);
			if (n < 0)
				return -1;
			continue;
		}
		if (n == MAX_ROWS)
			return -1;
		rows[n++] = opts;
	}
	return n;
}

const char *t32_options_range(const struct t32_option *row, char *buf, size_t len)
{
	if (row->min > 0 && row->min < 1e-300 && row->max >= 1e300)
		snprintf(buf, len, "more than 0");
	else if (row->min > 0 && row->min < 1e-300)
		snprintf(buf, len, "more than 0, up to %.15g", row->max);
	else if (row->max >= 1.8e19 && row->max < 1e300)	/* UINT64_MAX, written whole */
		snprintf(buf, len, "%.15g to 18446744073709551615", row->min);
	else if (row->max >= 1e300)
		snprintf(buf, len, "%.15g or more", row->min);
	else
		snprintf(buf, len, "%.15g to %.15g", row->min, row->max);
	return buf;
}

/* A CHOICE row: the argument's index among the names; 0, or -1 after a message. */
static int choose(const struct t32_option *row, const char *arg)
{
	const char *const *names = row->ctx;
	char list[256] = "";
	size_t l = 0;

	for (int k = 0; k <= (int)row->max; k++)
		if (!strcmp(arg, names[k])) {
			*(int *)row->dest = k;
			return 0;
		}
	for (int k = 0; k <= (int)row->max && l < sizeof(list); k++)
		l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s", k ? ", " : "", names[k]);
	t32_error("unknown %s '%s' (%s)", row->what, arg, list);
	return -1;
}

/* One value into its row's destination; 0, or -1 after a message. */
static int take(const struct t32_option *row, const char *arg)
{
	char range[96];
	uint64_t v;
	double d;

	switch (row->kind) {
	case T32_OPTK_FLAG:
		*(int *)row->dest = 1;
		return 0;
	case T32_OPTK_STRING:
		*(const char **)row->dest = arg;
		return 0;
	case T32_OPTK_FN:
		return row->fn(row, arg);
	case T32_OPTK_CHOICE:
		return choose(row, arg);
	case T32_OPTK_LIST:
		if (*(size_t *)row->ctx >= (size_t)row->max) {
			t32_error("too many %s '%s' (--%s takes at most %.0f)", row->what, arg, row->name,
				  row->max);
			return -1;
		}
		((const char **)row->dest)[(*(size_t *)row->ctx)++] = arg;
		return 0;
	case T32_OPTK_U64:
	case T32_OPTK_UINT:
		if (t32_parse_u64(arg, (uint64_t)row->min,
				  row->max >= 1.8e19 ? UINT64_MAX : (uint64_t)row->max, &v))
			break;
		if (row->kind == T32_OPTK_U64)
			*(uint64_t *)row->dest = v;
		else
			*(unsigned *)row->dest = (unsigned)v;
		return 0;
	case T32_OPTK_REAL:
		if (t32_parse_real(arg, row->min, row->max, &d))
			break;
		*(double *)row->dest = d;
		return 0;
	default:
		return 0;
	}
	t32_error("bad %s '%s' (--%s takes %s)", row->what ? row->what : "value", arg, row->name,
		  t32_options_range(row, range, sizeof(range)));
	return -1;
}

/* A usage error: the message, then the usage line; exit 2. */
static int misuse(const char *usage, const char *fmt, const char *subject, const char *cmd)
{
	t32_error(fmt, subject, cmd, cmd[0] ? " " : "");
	return t32_usage(usage);
}

int t32_options_parse(const char *cmd, const char *usage, const char *intro, const char *outro,
		      const struct t32_option *opts, int argc, char **argv, int *first)
{
	const struct t32_option *rows[MAX_ROWS];
	struct option longopts[MAX_ROWS + 2];
	char shorts[2 * MAX_ROWS + 4] = ":h";
	int in_order = 0, n = flatten(opts, rows, 0, &in_order), opt, idx;

	if (in_order)
		memcpy(shorts, "+:h", 4);

	if (n < 0) {
		t32_error("too many options '%s'", cmd);
		return T32_EXIT_ERROR;
	}
	for (int i = 0; i < n; i++) {
		longopts[i] = (struct option){ rows[i]->name,
					       rows[i]->kind == T32_OPTK_FLAG ||
					       (rows[i]->kind == T32_OPTK_FN && !rows[i]->takes_arg)
						       ? no_argument : required_argument, NULL, 0x1000 + i };
		if (rows[i]->letter) {
			size_t l = strlen(shorts);

			shorts[l] = rows[i]->letter;
			shorts[l + 1] = longopts[i].has_arg ? ':' : 0;
			shorts[l + 2] = 0;
		}
	}
	longopts[n] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n + 1] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, longopts, &idx)) != -1) {
		const struct t32_option *row = NULL;

		if (opt == 'h') {
			/* written whole, then folded to 79 columns for a terminal's width */
			char *text = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&text, &len);

			if (!m)
				return T32_EXIT_ERROR;
			fprintf(m, "usage: %s\n\n%s", usage, intro ? intro : "");
			t32_options_help(m, opts);
			fputs(outro ? outro : "", m);
			fclose(m);
			t32_fputs_folded(text, stdout, 79);
			free(text);
			return t32_close_stdout();
		}
		if (opt == ':')
			return misuse(usage, "option '%s' needs a value (t32 %s%s--help)",
				      argv[optind - 1], cmd);
		if (opt == '?')
			return misuse(usage, "unknown option '%s' (t32 %s%s--help lists the options)",
				      argv[optind - 1], cmd);
		if (opt >= 0x1000)
			row = rows[opt - 0x1000];
		for (int i = 0; i < n && !row; i++)
			if (rows[i]->letter == opt)
				row = rows[i];
		if (!row->help) {
			t32_error("%s does not take '--%s' (t32 %s%s--help lists what it takes)",
				  cmd[0] ? cmd : "the classic form", row->name, cmd, cmd[0] ? " " : "");
			return T32_EXIT_USAGE;
		}
		if (take(row, optarg))
			return T32_EXIT_USAGE;
	}
	*first = optind;
	return -1;
}

void t32_options_help(FILE *f, const struct t32_option *opts)
{
	const struct t32_option *rows[MAX_ROWS];
	int in_order = 0, n = flatten(opts, rows, 0, &in_order);

	for (int i = 0; i < n; i++) {
		const struct t32_option *r = rows[i];
		char head[96];
		const char *h = r->help;
		int used;

		if (!h)
			continue;
		if (r->letter)
			used = snprintf(head, sizeof(head), "  -%c, --%s%s%s", r->letter, r->name,
					r->arg ? " " : "", r->arg ? r->arg : "");
		else
			used = snprintf(head, sizeof(head), "  --%s%s%s", r->name, r->arg ? " " : "",
					r->arg ? r->arg : "");
		fputs(head, f);
		/* the help needs two blanks before it, where the folding finds it */
		if (used > HELP_COLUMN - 2) {
			fputc('\n', f);
			used = 0;
		}
		/*
		 * one paragraph: the table's line breaks are where its source wraps,
		 * and t32_fputs_folded wraps it again under the help column
		 */
		fprintf(f, "%*s", HELP_COLUMN - used, "");
		for (; *h; h++)
			fputc(*h == '\n' ? ' ' : *h, f);
		fputc('\n', f);
	}
}

int t32_opt_format(const struct t32_option *row, const char *arg)
{
	if (t32_parse_format(arg, row->ctx)) {
		t32_error("unknown format '%s' (table, tsv or json)", arg);
		return -1;
	}
	return 0;
}

int t32_opt_unit(const struct t32_option *row, const char *arg)
{
	if (t32_parse_unit(arg, row->ctx)) {
		t32_error("unknown unit '%s' (cycles, ticks, ns)", arg);
		return -1;
	}
	return 0;
}

/* A shared option: handled by t32_block_option, its code from the row's place. */
static int block_row(const struct t32_option *row, const char *arg)
{
	struct t32_block_optset *set = row->ctx;

	return t32_block_option(0x100 + (int)(row - set->rows), arg, set->o, set->s) ? -1 : 0;
}

void t32_block_optset_init(struct t32_block_optset *set, struct t32_block_opts *o,
			   struct t32_spec *s)
{
	static const struct {
		const char *name, *arg, *help;
	} shared[7] = {
		{ "cpu", "N", "pin the measuring process to CPU N (default: the last\n"
			      "allowed, a P-core on a hybrid part)" },
		{ "timeout", "S", "give up on a block after S seconds (default 10); nasm gets\n"
				  "S and S more per ten million instructions" },
		{ "init", "R=V,...", "start register R with V instead of an arena pointer" },
		{ "no-dither", NULL, "do not randomise the TSC phase before each run" },
		{ "warmup", "N", NULL },
		{ "format", "F", NULL },
		{ "raw-nasm", NULL, "let instructions hold any NASM text (%include, incbin, section...)" },
	};
	static const char *const names[] = { "table", "tsv", "json" };
	char formats[64];

	set->o = o;
	set->s = s;
	snprintf(set->warmup, sizeof(set->warmup), "runs to throw away first (default %llu)",
		 (unsigned long long)o->warmup);
	t32_block_formats_text(o, formats, sizeof(formats));
	if (o->formats & (o->formats - 1))
		snprintf(set->format, sizeof(set->format), "%s (default %s)", formats,
			 names[o->format]);
	else
		snprintf(set->format, sizeof(set->format), "%s, the only one", formats);
	for (int i = 0; i < 7; i++) {
		const char *help = i == 4 ? set->warmup : i == 5 ? set->format : shared[i].help;

		set->rows[i] = (struct t32_option)T32_OPT_FN(shared[i].name, shared[i].arg, block_row,
							     set, o->accept & (1u << i) ? help : NULL);
	}
	set->rows[7] = (struct t32_option)T32_OPT_END;
}

void t32_block_optset_for(struct t32_block_optset *set, struct t32_block_opts *o,
			  const char *cmd, unsigned accept, unsigned formats)
{
	t32_block_opts_init(o);
	o->cmd = cmd;
	o->accept = accept;
	if (formats)
		o->formats = formats;
	t32_block_optset_init(set, o, NULL);
}

void t32_block_optset_help(struct t32_block_optset *set, unsigned bit, const char *help)
{
	for (int i = 0; i < 7; i++)
		if (bit == 1u << i && set->rows[i].help)
			set->rows[i].help = help;
}
