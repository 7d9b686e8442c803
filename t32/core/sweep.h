/*
 * sweep.h - a sweep as a library call: many blocks over many n, one row per
 * (form, mode, n), measured in this process (each block in its measuring child)
 * and written to a TSV file (numbered rows, one write() each, --resume, a lock,
 * a temporary file renamed in place), to stdout, and handed to the caller one
 * row at a time.  `t32 sweep` reads its options into a request and calls
 * t32_sweep; study, correlate and bench build the request themselves.
 */
#ifndef T32_SWEEP_H
#define T32_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "t32/core/block.h"
#include "t32/core/measure.h"
#include "t32/io/table.h"

/* The three ways to build a row's body from a form. */
enum t32_sweep_mode { T32_SWEEP_RAW, T32_SWEEP_LATENCY, T32_SWEEP_THROUGHPUT, T32_SWEEP_MODES };
#define T32_SWEEP_BIT(m) (1u << (m))
/* "raw", "latency", "throughput", and what each builds */
extern const struct t32_sweep_mode_name {
	const char *name, *summary;
} t32_sweep_modes[T32_SWEEP_MODES];
/* "raw,latency" into the T32_SWEEP_BIT()s of *modes; -1 for an unknown name or none. */
int t32_sweep_parse_modes(const char *arg, unsigned *modes);

/* One row as it was measured, for a sink in memory. */
struct t32_sweep_row {
	size_t row;			/* its number in the sweep */
	const char *form;		/* the form's name, NULL for the command-line spec */
	enum t32_sweep_mode mode;
	uint64_t n;
	unsigned k;			/* throughput copies kept, 0 when not measured */
	const char *status;		/* ok, untrusted, skipped, unsupported, fault, error */
	const struct t32_measurement *m;	/* NULL when not measured */
};

/*
 * What to sweep and where the rows go.  t32_sweep_req_init sets the defaults of
 * `t32 sweep`; the caller fills the rest.  The spec is the caller's: its barrier,
 * store and start registers, and its body when there is no table (the last item
 * repeats n times).
 */
/* The rows written, by status (ok, untrusted, nochain, skipped, ...). */
struct t32_sweep_counts {
	struct {
		char name[32];
		size_t n;
	} s[16];
	size_t kinds, rows, not_ok;
};

struct t32_sweep_req {
	const char *table;		/* TABLE.tbl to sweep, or NULL: the spec */
	const struct t32_spec *spec;
	const uint64_t *ns;		/* the n list */
	size_t nn;
	unsigned modes;			/* T32_SWEEP_BIT()s; 0: latency,throughput for a table,
					   raw for a spec */
	unsigned max_k;			/* throughput: copies tried, 1..max_k */
	unsigned retry;			/* an untrusted measurement taken again up to this
					   many times, the first trusted one kept (--retry) */
	unsigned klist[64];		/* or these copy counts only (nk of them) */
	unsigned nk;
	unsigned shard, shards;		/* rows with row % shards == shard - 1 */
	int whole;			/* latency and throughput as block minus empty over n */
	int allow_mixed;		/* resume a file measured on another CPU */
	struct t32_block_opts bo;
	struct t32_measure_opts mo;	/* mo.rec: record into, or replay from */
	/* the sinks: a file (or stdout), and the caller's function */
	const char *out_path;		/* NULL or "-": stdout; "": no file at all */
	int resume;			/* skip the rows out_path holds */
	int progress;			/* a progress line on stderr (a terminal) */
	int quiet;			/* warnings held back (t32_warn_quiet): the rows carry them */
	int rows_exit;			/* exit T32_EXIT_ROWS when a row written is not ok */
	const char *command;		/* the file's `# command:` line; NULL: this process's */
	int (*row)(void *ctx, const struct t32_sweep_row *r);	/* nonzero stops: an exit code */
	void *ctx;
};

/*
 * Whether a row's reading m, taken again tried times so far, is taken once more
 * (--retry): when it is untrusted because the core clock drifted under it, a
 * spell that passes; work beside it on other CPUs does not pass as soon.
 */
int t32_sweep_again(const struct t32_measurement *m, unsigned tried, unsigned retry);

/* The defaults of `t32 sweep` (precision 0.01, block precision 0.5, budget 1 s, max-k 12). */
void t32_sweep_req_init(struct t32_sweep_req *q);

/*
 * Run the sweep q asks for.  Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops it after the
 * row being measured, the rows written kept; the handlers before the call are
 * restored after it.  An exit code (0, 1, 2 bad request, 130 interrupted, or the
 * row function's), messages printed.
 */
int t32_sweep(const struct t32_sweep_req *q);

/*
 * The request as the command that would run it, `t32 sweep --n ... -o OUT ...`,
 * into buf: the `# command:` line of a sweep a program asked for.
 */
const char *t32_sweep_command(const struct t32_sweep_req *q, char *buf, size_t len);

/* The n list as `--n` takes it, runs of consecutive values as A..B, into buf. */
const char *t32_sweep_nlist_text(const uint64_t *ns, size_t nn, char *buf, size_t len);

#endif
