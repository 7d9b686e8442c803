/*
 * tablegen.h - an instruction table generated rather than written: every mnemonic
 * of capstone's x86 list tried in the operand shapes of its kind (r8-r64,
 * immediates, memory, xmm/ymm/zmm, k, mm, x87), kept where NASM assembles it and
 * no safety rule excludes it, with a latency chain and a throughput template
 * chosen by rule from what capstone says the form reads and writes.  The result
 * is an ordinary .tbl (data/README-tables.md).
 */
#ifndef T32_TABLEGEN_H
#define T32_TABLEGEN_H

#include <stddef.h>
#include <stdio.h>

struct t32_tablegen_opts {
	const char *only;	/* comma-separated mnemonics to try, or NULL for all */
	const char *uarch;	/* core whose published latencies become lat=, NULL: detected */
	int no_expected;	/* write no lat= values */
	int progress;		/* say on stderr how far it is */
	FILE *excluded;		/* if not NULL: each form left out by a rule, and why (TSV) */
};

/* Why forms were left out: one rule each, counted. */
enum t32_tablegen_rule {
	T32_RULE_CONTROL,	/* changes control flow */
	T32_RULE_PRIVILEGED,	/* privileged, I/O, or a hypervisor's */
	T32_RULE_STACK,		/* reads or writes the stack pointer */
	T32_RULE_SEGMENT,	/* segment registers, descriptor tables, fs/gs base */
	T32_RULE_STATE,		/* processor state the harness relies on */
	T32_RULE_ADDRESS,	/* an address the form could move out of the arena */
	T32_RULE_DECODE,	/* capstone does not decode what NASM wrote as one instruction */
	T32_RULE_N
};
extern const char *const t32_tablegen_rule_text[T32_RULE_N];

struct t32_tablegen_stats {
	size_t mnemonics;	/* tried (capstone's list, or --only) */
	size_t nasm_knows;	/* of which NASM knows */
	size_t candidates;	/* mnemonic x shape lines given to NASM */
	size_t assembled;	/* lines NASM assembled */
	size_t duplicates;	/* assembled to an encoding already kept */
	size_t excluded[T32_RULE_N];
	size_t by_shape;	/* judged by their shape: capstone could not decode them */
	size_t forms;		/* written */
	size_t chains;		/* with a latency chain */
	size_t throughput_only;	/* chain=none */
	size_t no_template;	/* no tp= (the form writes registers it does not name) */
	size_t expected;	/* with a lat= value */
	unsigned nasm_runs;
	double seconds;
	char core[256];		/* the core whose latencies were used, "" for none */
};

/*
 * Generate the table and write it to out as .tbl text.  0, or an exit code after
 * a message (nasm missing or failing, capstone unavailable, nothing assembled).
 */
int t32_tablegen(FILE *out, const struct t32_tablegen_opts *o, struct t32_tablegen_stats *st);

/*
 * The same written whole to the file path (a temporary file renamed into place,
 * nothing left on failure).  0, or an exit code after a message.
 */
int t32_tablegen_file(const char *path, const struct t32_tablegen_opts *o,
		      struct t32_tablegen_stats *st);

#endif
