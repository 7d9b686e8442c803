/*
 * block.h - the steps every measuring subcommand shares: the common options, the
 * spec from the command line, the block and its empty twin generated, assembled
 * and loaded into one warm runner, and a fault turned into a message and exit code;
 * for model and correlate, the block a command names and the micro-architecture
 * data to model it with.
 */
#ifndef T32_BLOCK_H
#define T32_BLOCK_H

#include <getopt.h>
#include <stdint.h>

#include "analysis/uarch.h"
#include "t32/core/run.h"
#include "t32/spec.h"
#include "t32/util.h"

/* The shared options, as bits: which of them a command takes. */
enum {
	T32_OPT_CPU = 1 << 0,
	T32_OPT_TIMEOUT = 1 << 1,
	T32_OPT_INIT = 1 << 2,
	T32_OPT_DITHER = 1 << 3,
	T32_OPT_WARMUP = 1 << 4,
	T32_OPT_FORMAT = 1 << 5,
	T32_OPT_RAWNASM = 1 << 6,
	T32_OPT_ALL = (1 << 7) - 1,
};
#define T32_FMT_BIT(f) (1u << (f))	/* a format in t32_block_opts.formats */

struct t32_block_opts {
	struct t32_run_opts run;
	int dither;		/* randomise the TSC phase before each run (default on) */
	uint64_t warmup;	/* runs thrown away before measuring */
	enum t32_format format;
	/* what the command takes (t32_block_opts_init: everything; a command narrows it) */
	const char *cmd;	/* its name in messages ("sweep"; "" the classic form) */
	unsigned accept;	/* T32_OPT_* bits */
	unsigned formats;	/* T32_FMT_BIT()s it can write; the first is the default */
};

/* The formats o offers, "table, tsv or json", into buf. */
const char *t32_block_formats_text(const struct t32_block_opts *o, char *buf, size_t len);

void t32_block_opts_init(struct t32_block_opts *o);
/*
 * Handle shared option `opt` (0x100 --cpu, 0x101 --timeout, 0x102 --init, 0x103
 * --no-dither, 0x104 --warmup, 0x105 --format, 0x106 --raw-nasm; the rows of
 * options.h's t32_block_optset): 0 handled, -1 bad value or an option or format
 * the command does not take (message printed), 1 not ours.
 */
int t32_block_option(int opt, const char *arg, struct t32_block_opts *o, struct t32_spec *s);

struct t32_rec;
/*
 * A measuring command that records and replays: with `--replay FILE` (and at most
 * `--format F` beside it) run(recorded argc, argv, the recording, F or NULL), the
 * measurements served from FILE; otherwise run(argc, argv, NULL, NULL).  run's
 * exit code, or usage/error after a message.
 */
int t32_replay_or_run(int argc, char **argv, const char *usage,
		      int (*run)(int argc, char **argv, struct t32_rec *rec, const char *format));

/* BARRIER STORE from argv into s; -1 with the message printed. */
int t32_block_parse_head(struct t32_spec *s, const char *barrier, const char *store);
/* COUNT: 1 to 2^32-1. */
int t32_block_parse_count(const char *arg, uint64_t *count);

/* Specs made ready to run: their blocks loaded in one warm runner. */
#define T32_SESSION_MAX T32_RUNNER_BLOBS
struct t32_session {
	const struct t32_spec *specs[T32_SESSION_MAX];
	struct t32_blob blob[T32_SESSION_MAX];
	size_t n;
	struct t32_runner *runner;
	struct t32_block_opts opts;
};

/*
 * Generate, assemble, start and warm up specs[0..n) (at most T32_SESSION_MAX).
 * Returns an exit code; messages printed.  The specs must outlive the session.
 */
int t32_session_open(struct t32_session *ss, const struct t32_spec *const *specs, size_t n,
		     const struct t32_block_opts *o);
/* A new measuring process for the same blocks (new placement), warmed up; exit code. */
int t32_session_respawn(struct t32_session *ss);
/* Run block `which` count times into out; exit code, message printed on failure. */
int t32_session_run(struct t32_session *ss, size_t which, uint64_t count, uint64_t *out);
/* Blocks 0..nblocks-1 in turn (t32_runner_interleaved); exit code, message printed. */
int t32_session_interleaved(struct t32_session *ss, size_t nblocks, uint64_t per, uint64_t skip,
			    uint64_t reps, uint64_t *out);
void t32_session_close(struct t32_session *ss);

/*
 * The block a command's body arguments give: a single argument naming a block
 * file (FILE.blk, or NAME for DATADIR/blocks/NAME.blk) is read, its path left in
 * path; otherwise the arguments are the body and path is "".  -1 to go on, else
 * the exit code (1 unreadable file, 2 bad block), the message printed.
 */
int t32_block_body(int argc, char **argv, struct t32_spec *s, char *path, size_t len);

/* Print a fault as `t32: ...` and return its exit code. */
int t32_report_fault(const struct t32_fault *f, const struct t32_spec *s);

/*
 * The micro-architecture data model and correlate use: --uarch's (asked, may be
 * NULL), else the one this CPU's CPUID names or its stated fallback.
 */
void t32_block_uarch(const char *asked, struct t32_uarch_choice *c);
/* The choice as a JSON object: {"name", "data", "how", "basis"}. */
void t32_uarch_choice_json(FILE *f, const struct t32_uarch_choice *c);
/*
 * The micro-architecture data name (a name or a file) from datadir into u, with
 * --set's changes applied in order: 0, else the exit code after a message (1:
 * the data cannot be read; 2: a change is not one the data takes).
 */
int t32_block_uarch_load(struct t32_uarch *u, const char *name, const char *datadir,
			 const char *const *sets, size_t nsets);

/* The names of the blocks in data/blocks (without .blk), sorted; their count. */
size_t t32_block_names(char ***names);
void t32_block_names_free(char **names, size_t n);
/*
 * arg, given alone where a block name or instructions go, is neither a block of
 * data/blocks nor an instruction (it does not assemble): 1 after an error that
 * lists the known blocks (and the nearest), else 0.
 */
int t32_block_unknown_name(const char *arg);

#endif
