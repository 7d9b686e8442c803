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
#define T32_MAX_NS 10000	/* values in one n list (--n) */

/* One body item: `reps` copies of `text` (NASM lines separated by ';'). */
struct t32_item {
	uint64_t reps;		/* how many times the text repeats */
	char *text;		/* as the user wrote it */
	unsigned stmts;		/* statements in text (';'-separated, non-empty) */
	uint64_t insns;		/* instructions they assemble to: `times N insn` is N */
};

/* Which register file an --init names. */
enum t32_init_kind {
	T32_INIT_GPR,		/* rax..r15: reg indexes t32_gprs[] */
	T32_INIT_VEC,		/* xmm, ymm, zmm 0..31: reg is the number */
	T32_INIT_MASK,		/* k0..k7 */
};

/*
 * A register's start value, overriding the default (an arena pointer for a
 * general register, zero for the others).  A vector register gets value in every
 * 64-bit lane: a double, two copies of a float, or the integer as written.
 */
struct t32_init {
	int reg;		/* see kind */
	uint64_t value;		/* the value, or a vector's 64-bit lane pattern */
	unsigned char kind;	/* enum t32_init_kind */
	unsigned char width;	/* vector bytes: 16 xmm, 32 ymm, 64 zmm */
	char lanes;		/* vector: 'd' doubles, 'f' floats, 'q' integer qwords */
	double number;		/* vector d/f: the number as written */
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
/*
 * A register set twice among s->init[from..ninit) and what came before it:
 * 0, or -1 with "register set twice 'REG' (V1, then V2)" in err.
 */
int t32_spec_init_twice(const struct t32_spec *s, size_t from, char *err, size_t errlen);
/*
 * Parse `REG=VALUE[,REG=VALUE]...`; appends to s->init.  REG is a general register
 * (VALUE decimal, or hex with 0x), xmm/ymm/zmm0-31 (VALUE a number with d for
 * double lanes or f for float lanes, `1.5d`, or an integer for every 64-bit lane)
 * or k0-k7 (an integer).  A register named twice in arg is an error.
 */
int t32_spec_parse_init(struct t32_spec *s, const char *arg, char *err, size_t errlen);
/* One set-up as --init takes it ("rdx=0x0", "xmm1=1.5d"), into buf. */
void t32_init_format(const struct t32_init *in, char *buf, size_t len);
/*
 * Append `reps` copies of text.  -1 for out of memory, or with errno EINVAL for
 * text that t32_insn_check refuses (callers check first, for a better message).
 */
int t32_spec_add_item(struct t32_spec *s, uint64_t reps, const char *text);
/*
 * Instruction text is instructions: a body item (command line, table field, block
 * line) may hold instructions, times, labels and data (db, dw, dd, dq...).  Refused
 * with the offending word (escaped, for a message) and why: control bytes and a
 * trailing backslash always; preprocessor directives (% anywhere), directives
 * (incbin, section, org, bits, [map ...], ...), NASM's __names__ and an align past
 * 4096 unless raw NASM is allowed.  0 if text is fit for a body.
 */
int t32_insn_check(const char *text, char *word, size_t wlen, const char **why);
/* --raw-nasm: allow any NASM text in bodies, for this process (default off). */
void t32_spec_allow_raw_nasm(int on);
int t32_spec_raw_nasm(void);
/* Instructions in the body: sum of reps x insns (the n of (t - bar) / n). */
uint64_t t32_spec_insns(const struct t32_spec *s);
/* Copy of s with an empty body: the barrier-only block. */
void t32_spec_empty(const struct t32_spec *s, struct t32_spec *empty);
/* Human form: `l m 10 'inc eax' 1 'nop'`, written to buf. */
void t32_spec_format(const struct t32_spec *s, char *buf, size_t len);
void t32_spec_free(struct t32_spec *s);
/*
 * Parse a list of n: `100,1000`, `0..100`, `1..1e5/log:20` (20 points spread
 * evenly on a log scale, rounded, duplicates dropped), joined by commas; at most
 * T32_MAX_NS values.  Returns 0 with a malloc'd array, or -1 with a message in err.
 */
int t32_parse_nlist(const char *arg, uint64_t **out, size_t *count, char *err, size_t errlen);
/* Parse a decimal unsigned integer in [lo, hi] (`010` is ten); 0 on success (no atoi). */
int t32_parse_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);
/* Parse a decimal real in [lo, hi] (1.5, 2e-3; never hex, inf or nan); 0 on success. */
int t32_parse_real(const char *text, double lo, double hi, double *out);

#endif
