/*
 * spec.h - what to run: a barrier, a store kind, a body of repeated instructions,
 * and the registers' start values.  Parsed from the command line (the study's
 * `BARRIER STORE COUNT [N] INSN [[N] INSN]...` vocabulary) and handed to gen/.
 */
#ifndef T32_SPEC_H
#define T32_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define T32_MAX_BARRIER 8	/* letters in one barrier string */
#define T32_MAX_INIT 32		/* --init assignments in one spec */

/* One body item: `reps` copies of `text` (NASM lines separated by ';'). */
struct t32_item {
	uint64_t reps;		/* how many times the text repeats */
	char *text;		/* as the user wrote it */
	unsigned stmts;		/* instructions in text (';'-separated, non-empty) */
};

/* A register's start value, overriding the default arena pointer. */
struct t32_init {
	int reg;		/* index into t32_gprs[] */
	uint64_t value;
};

struct t32_spec {
	char barrier[T32_MAX_BARRIER + 1];	/* letters run in order: m x l n */
	char store;				/* 'm', 'r' or 'x' */
	struct t32_item *items;
	size_t nitems;
	struct t32_init init[T32_MAX_INIT];
	size_t ninit;
};

/* A barrier letter or store letter and what it emits: the tables behind the vocabulary. */
struct t32_barrier_kind {
	char letter;
	const char *macro;	/* NASM macro name gen/ emits */
	const char *insn;	/* what the macro holds */
	const char *summary;
};
struct t32_store_kind {
	char letter;
	const char *summary;
};
extern const struct t32_barrier_kind t32_barriers[];
extern const struct t32_store_kind t32_stores[];

/* The general-purpose registers a block starts with (rsp excluded), in arena order. */
extern const char *const t32_gprs[];
#define T32_NGPRS 15

int t32_spec_set_barrier(struct t32_spec *s, const char *letters, char *err, size_t errlen);
int t32_spec_set_store(struct t32_spec *s, const char *letter, char *err, size_t errlen);
/* Parse `[N] INSN [[N] INSN]...`; returns 0, or -1 with a message in err. */
int t32_spec_parse_body(struct t32_spec *s, int argc, char **argv, char *err, size_t errlen);
/* Parse `REG=VALUE[,REG=VALUE]...` (VALUE in C notation); appends to s->init. */
int t32_spec_parse_init(struct t32_spec *s, const char *arg, char *err, size_t errlen);
int t32_spec_add_item(struct t32_spec *s, uint64_t reps, const char *text);
/* Instructions in the body: sum of reps x stmts (the n of (t - bar) / n). */
uint64_t t32_spec_insns(const struct t32_spec *s);
/* Copy of s with an empty body: the barrier-only block. */
void t32_spec_empty(const struct t32_spec *s, struct t32_spec *empty);
/* Human form: `l m 10 'inc eax' 1 'nop'`, written to buf. */
void t32_spec_format(const struct t32_spec *s, char *buf, size_t len);
void t32_spec_free(struct t32_spec *s);
/*
 * Parse a list of n: `100,1000`, `0..100`, `1..1e5/log:20` (20 points spread
 * evenly on a log scale, rounded, duplicates dropped), joined by commas.  Returns
 * 0 with a malloc'd array, or -1 with a message in err.
 */
int t32_parse_nlist(const char *arg, uint64_t **out, size_t *count, char *err, size_t errlen);
/* Parse an unsigned integer in [lo, hi]; 0 on success (no atoi). */
int t32_parse_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);

#endif
