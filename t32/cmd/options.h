/*
 * options.h - one option table per command.  A command lists its options as
 * rows (name, kind, destination, range, help), including shared sets by
 * reference; t32_options_parse reads the command line with them and
 * t32_options_help prints the help lines from the same rows, so the parser, the
 * help, the man page and the completion (both made from --help) and the error
 * messages cannot drift apart.  Errors take one style:
 *
 *	t32: bad run count '0' (--max-runs takes 1 to 4294967295)
 *	t32: unknown option '--bogus' (t32 sweep --help lists the options)
 */
#ifndef T32_OPTIONS_H
#define T32_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

struct t32_option;
/* A row's own reader: 0, or -1 after a message. */
typedef int (*t32_option_fn)(const struct t32_option *row, const char *arg);

enum t32_option_kind {
	T32_OPTK_END,		/* ends a table */
	T32_OPTK_FLAG,		/* sets *(int *)dest to 1 */
	T32_OPTK_U64,		/* *(uint64_t *)dest, decimal, min..max */
	T32_OPTK_UINT,		/* *(unsigned *)dest, decimal, min..max */
	T32_OPTK_REAL,		/* *(double *)dest, min..max */
	T32_OPTK_STRING,	/* *(const char **)dest = the argument */
	T32_OPTK_FN,		/* fn(row, arg): a value with its own grammar */
	T32_OPTK_LIST,		/* ((const char **)dest)[(*(size_t *)ctx)++] = the argument,
				   at most max of them: a repeatable option */
	T32_OPTK_CHOICE,	/* *(int *)dest = the index of the argument among the
				   max + 1 names of ctx (const char *const *) */
	T32_OPTK_SET,		/* the rows of set (a shared table), in place */
	T32_OPTK_IN_ORDER,	/* no row: options end at the first operand (its body
				   may start with '-'), not anywhere on the line */
};

struct t32_option {
	enum t32_option_kind kind;
	const char *name;	/* the long name without "--" */
	char letter;		/* a short option ('o'), or 0 */
	const char *arg;	/* the value's name in help ("N", "FILE"), NULL for a flag */
	void *dest;
	double min, max;	/* U64, UINT, REAL: the range */
	const char *what;	/* what a bad value is called: "bad <what> 'V'" */
	const char *help;	/* the help text ('\n' continues it on the next line);
				   NULL: not listed, and refused as an option the
				   command does not take */
	t32_option_fn fn;	/* FN */
	void *ctx;		/* FN: its state */
	const struct t32_option *set;	/* SET */
	int takes_arg;		/* FN: it takes a value */
};

#define T32_OPT_FLAG(n, l, d, h) { T32_OPTK_FLAG, n, l, NULL, d, 0, 0, NULL, h, NULL, NULL, NULL, 0 }
#define T32_OPT_U64(n, a, d, lo, hi, w, h) \
	{ T32_OPTK_U64, n, 0, a, d, lo, hi, w, h, NULL, NULL, NULL, 1 }
#define T32_OPT_UINT(n, a, d, lo, hi, w, h) \
	{ T32_OPTK_UINT, n, 0, a, d, lo, hi, w, h, NULL, NULL, NULL, 1 }
#define T32_OPT_REAL(n, a, d, lo, hi, w, h) \
	{ T32_OPTK_REAL, n, 0, a, d, lo, hi, w, h, NULL, NULL, NULL, 1 }
#define T32_OPT_STRING(n, l, a, d, h) { T32_OPTK_STRING, n, l, a, d, 0, 0, NULL, h, NULL, NULL, NULL, 1 }
#define T32_OPT_FN(n, a, f, c, h) { T32_OPTK_FN, n, 0, a, NULL, 0, 0, NULL, h, f, c, NULL, (a) != NULL }
#define T32_OPT_CHOICE(n, a, d, names, count, w, h) \
	{ T32_OPTK_CHOICE, n, 0, a, d, 0, (count) - 1, w, h, NULL, (void *)(names), NULL, 1 }
#define T32_OPT_LIST(n, a, arr, count, cap, w, h) \
	{ T32_OPTK_LIST, n, 0, a, arr, 0, cap, w, h, NULL, count, NULL, 1 }
#define T32_OPT_SET(s) { T32_OPTK_SET, NULL, 0, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, s, 0 }
#define T32_OPT_IN_ORDER { T32_OPTK_IN_ORDER, NULL, 0, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, 0 }
#define T32_OPT_END { T32_OPTK_END, NULL, 0, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, 0 }

/*
 * Read argv's options with the rows of opts (`cmd` names the command in
 * messages, "" for the classic form; `usage` is its usage line).  --help and -h print usage, intro (may
 * be NULL), the help of every listed row and outro (may be NULL) to stdout.
 * Options stop at the first operand or at "--"; *first is the first operand.
 * -1 to go on; else the exit code: 0 after help, 2 after a usage error (one
 * message and the usage line on stderr).
 */
int t32_options_parse(const char *cmd, const char *usage, const char *intro, const char *outro,
		      const struct t32_option *opts, int argc, char **argv, int *first);

/* The help lines of opts' listed rows, names in one column. */
void t32_options_help(FILE *f, const struct t32_option *opts);

/* A --format row's reader: table, tsv or json into *(enum t32_format *)row->ctx. */
int t32_opt_format(const struct t32_option *row, const char *arg);

/* A --unit row's reader: cycles, ticks or ns into *(enum t32_unit *)row->ctx. */
int t32_opt_unit(const struct t32_option *row, const char *arg);

/* The range of a numeric row as its errors and help say it: "1 to 64". */
const char *t32_options_range(const struct t32_option *row, char *buf, size_t len);

/*
 * The options every block command shares (block.h: --cpu, --timeout, --init,
 * --no-dither, --warmup, --format, --raw-nasm) as a set to include with
 * T32_OPT_SET(set.rows): those o->accept leaves out are refused by name.  o and
 * s (may be NULL without --init) are where they go; set them up before.
 */
struct t32_block_opts;
struct t32_spec;
struct t32_block_optset {
	struct t32_option rows[8];
	struct t32_block_opts *o;
	struct t32_spec *s;
	char warmup[96], format[128];	/* their help, with o's defaults */
};
void t32_block_optset_init(struct t32_block_optset *set, struct t32_block_opts *o,
			   struct t32_spec *s);
/*
 * A command that measures but reads no block spec: o's defaults, named cmd,
 * taking the shared options accept (T32_OPT_* bits) and writing the formats
 * (T32_FMT_BIT()s, the first the default; 0: all), and set made from them.
 */
void t32_block_optset_for(struct t32_block_optset *set, struct t32_block_opts *o,
			  const char *cmd, unsigned accept, unsigned formats);
/* The help of the shared option `bit` (T32_OPT_*) as this command says it, if it takes it. */
void t32_block_optset_help(struct t32_block_optset *set, unsigned bit, const char *help);

#endif
