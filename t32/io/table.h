/*
 * table.h - instruction tables (the .tbl files in data/): one instruction form per line, with
 * the NASM text whose repetition is a latency chain, an optional throughput
 * template whose copies rotate over registers, register set-up, and the expected
 * latency and reciprocal throughput with the `# source:` lines they come from.
 * The format is described in data/README-tables.md.
 */
#ifndef T32_TABLE_H
#define T32_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* One instruction form: one non-comment line of a table. */
struct t32_form {
	char *name;		/* unique in its table: letters, digits, - _ . + */
	char *insn;		/* NASM text, ';' between statements; repeated = latency chain */
	char *init;		/* `REG=VALUE[,REG=VALUE]...` for t32_spec_parse_init, or NULL */
	char *tp;		/* throughput template with {r} {e} {w} {b} {x} {y} {z} {k} {m}, or NULL */
	unsigned tp_period;	/* copies before a register comes round again; 0 without tp */
	double lat;		/* expected latency, core cycles; NaN if not given */
	double rtp;		/* expected reciprocal throughput, core cycles; NaN if not given */
	int nochain;		/* chain=none: repeating insn is no dependency chain (no latency
				 * mode); 1 no reason given, 2.. the reason chain=none:WHY names */
	unsigned line;		/* 1-based line in the file */
};

/* A whole table: its forms in file order and its header lines. */
struct t32_table {
	char *path;		/* as given to the loader (for messages) */
	struct t32_form *forms;
	size_t n;
	char **source;		/* text after each `# source:` line, continuation lines joined */
	size_t nsource;
	char **applies;		/* text after each `# applies to:` line, likewise */
	size_t napplies;
	size_t *by_name;	/* form indices sorted by name, for t32_table_find; or NULL */
};

#define T32_TABLE_MAX_BYTES (64u << 20)	/* a table file larger than this is refused */

/*
 * Load a table file.  Returns 0; -1 when the file cannot be read; or -2 when it
 * is not a table (a bad line, no forms at all, binary data, larger than
 * T32_TABLE_MAX_BYTES): err holds a message without the "t32: " prefix, e.g.
 * `bad line 12 in 'data/x.tbl' (unknown key 'lat2')`.  On failure *t is left
 * empty (nothing to free).
 */
int t32_table_load(const char *path, struct t32_table *t, char *err, size_t errlen);
/*
 * Where a table named on the command line is: the name itself when it is a
 * file there or names a directory (a '/'), else NAME or NAME.tbl in t32's data
 * directory (installed or in the tree) when one is there, else the name as
 * given (whose error then names it).  The path, in buf or name itself.
 */
const char *t32_table_locate(const char *name, char *buf, size_t len);

/* The same from text in memory (-2 for a bad table); `path` only names it in messages. */
int t32_table_parse(const char *text, const char *path, struct t32_table *t, char *err,
		    size_t errlen);

void t32_table_free(struct t32_table *t);

/* Why form f (nochain set) has no chain, as a phrase for a skipped row. */
const char *t32_form_nochain_reason(const struct t32_form *f);

/*
 * The table's forms as one number (name, insn, init, tp, lat, rtp, chain of each):
 * a sweep's `# sweep:` line names it (forms=), so a table edited between shards is
 * another sweep, and `t32 table check` knows the table it is given is the one swept.
 */
uint64_t t32_table_hash(const struct t32_table *t);

/* The form called `name`, or NULL. */
const struct t32_form *t32_table_find(const struct t32_table *t, const char *name);

/*
 * Copy k (0, 1, 2...) of a form's throughput template: every placeholder becomes
 * register k (mod tp_period) of its class, skipping registers the template names
 * literally.  Returns 0, or -1 if the form has no template or buf is too small.
 */
int t32_form_tp_expand(const struct t32_form *f, unsigned long k, char *buf, size_t len);

#endif
