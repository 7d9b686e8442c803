/*
 * model.h - the retirement model of "Where do interrupts happen?": instructions
 * allocate in order (alloc_width a cycle, bounded by the ROB), execute when their
 * inputs are ready and a unit of their class is free (ports.CLASS a cycle, oldest
 * first), and retire in order (retire_width a cycle, not before they
 * complete).  An interrupt selects the oldest unretired instruction, so the
 * instructions where the retire cycle advances are the selected ones, weighted by
 * the size of the advance; the sample lands on the next instruction (skid 1) or
 * on the selected one itself (skid 0, precise sampling).
 *
 * Everything here is a pure function of the block and a struct t32_uarch, so a
 * fit can vary the parameters (t32_uarch_set_value) and run the model again.
 */
#ifndef T32_MODEL_H
#define T32_MODEL_H

#include <stddef.h>

#include "analysis/deps.h"
#include "analysis/uarch.h"

/* Where an instruction's latency came from. */
enum t32_lat_source {
	T32_LAT_CLASS,		/* the class default of the .uarch file */
	T32_LAT_TABLE,		/* the shipped table, data/uarch/latency.lat (or --lat FILE) */
	T32_LAT_MEASURED,	/* measured on this machine (t32 model --measure, correlate) */
};
extern const char *const t32_lat_source_names[];	/* "class default", "table", "measured here" */

/* One instruction as the model runs it. */
struct t32_model_insn {
	struct t32_insn d;	/* dependencies, flags, decoded class */
	enum t32_class cls;	/* class after the latency table */
	unsigned latency;	/* cycles of execution, after the load for memory forms */
	unsigned quarters;	/* and quarters of a cycle more (0..3), measured forms only */
	enum t32_lat_source src;	/* where the latency came from */
};

/*
 * The latency of m in cycles, quarters included.  A latency of a fraction of a
 * cycle more than whole ones is run as whole cycles mixed in proportion: copy j
 * (iteration j of the block) takes one cycle more when floor((j + 1) q / 4)
 * exceeds floor(j q / 4), so 7.5 runs 7, 8, 7, 8...
 */
double t32_model_latency(const struct t32_model_insn *m);

/*
 * Does a loop of n instructions miss the op cache (more than u->opcache_ops;
 * never where that is 0), so that it is decoded each time round?
 */
int t32_model_decoded(const struct t32_uarch *u, size_t n);

/*
 * Give each decoded instruction its class and latency: the latency table entry
 * for the form (and u->name) if there is one (an entry measured on this machine
 * first), else the class default of u.  tab may be NULL.  out has n entries.
 */
void t32_model_prepare(const struct t32_uarch *u, const struct t32_lattab *tab,
		       const struct t32_insn *in, size_t n, struct t32_model_insn *out);
/*
 * The same in two steps, for callers that prepare one block under many u (a
 * fit runs the model thousands of times, and the table lookup is the dear part):
 * t32_model_find looks each instruction up in tab once (e has n entries, NULL
 * where none matches or tab is NULL), t32_model_prepare_found prepares from them.
 */
void t32_model_find(const struct t32_lattab *tab, const struct t32_insn *in, size_t n,
		    const struct t32_lat_entry **e);
void t32_model_prepare_found(const struct t32_uarch *u, const struct t32_lat_entry *const *found,
			     const struct t32_insn *in, size_t n, struct t32_model_insn *out);

/* One instruction in one iteration: the row of a cycle chart. */
struct t32_model_row {
	size_t insn;		/* index in the block */
	size_t iter;		/* iteration the row belongs to */
	long alloc;		/* cycle it is allocated (enters the ROB and scheduler) */
	long ready;		/* cycle its inputs are ready (a memory form: its address) */
	long start;		/* cycle it starts executing: ready, later if its class's units are taken */
	long complete;		/* cycle its result is available */
	long retire;		/* cycle it retires */
	long weight;		/* cycles the retire cycle advanced here (> 0: selected) */
	double share;		/* fraction of samples landing on this row (steady state) */
};

/*
 * Run iters back-to-back copies of the block from an empty machine (all
 * registers ready at cycle 0).  rows gets iters * n rows; weight of the first
 * row counts from cycle 0.  Returns 0, or -1 for a bad argument (n == 0) or no
 * memory.
 */
int t32_model_trace(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
		    size_t iters, struct t32_model_row *rows);

/* The steady state of the block run as a loop. */
struct t32_model_result {
	double cycles_per_iter;	/* cycles, one iteration in the steady state */
	size_t period;		/* iterations after which the pattern repeats */
	int periodic;		/* 0: no period found, figures are a window average */
	size_t nrows;		/* period * n */
	struct t32_model_row *rows;	/* one period; cycles from the retirement just before it */
	double *weight;		/* per instruction: cycles per iteration it is the oldest unretired */
	double *share;		/* per instruction: fraction of samples landing on it */
};

/* Steady state with the given skid (0 or 1).  0, or -1 (bad argument, no memory). */
int t32_model_steady(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
		     int skid, struct t32_model_result *r);
void t32_model_result_free(struct t32_model_result *r);

/*
 * The latency of instruction `in` that makes the model run a loop of copies of
 * it at `cycles` per instruction (a chain measured on the machine: its own
 * back-to-back cost, +- halfwidth), so load latencies, forwarding and retirement
 * rules are the model's own.  The least latency 0..T32_SOLVE_MAX in quarters of a
 * cycle whose cost is as near the measurement as the nearest's, or within its
 * halfwidth, goes to *latency (whole cycles) and *quarters (0..3; quarters may be
 * NULL, then whole cycles only), the model's cycles per instruction there to
 * *predicted.  0, or -1 when no latency comes within T32_SOLVE_SLACK of the
 * measurement (the model cannot reproduce it) or on a bad argument.
 */
int t32_model_solve_latency(const struct t32_uarch *u, const struct t32_model_insn *in,
			    double cycles, double halfwidth, unsigned *latency, unsigned *quarters,
			    double *predicted);
#define T32_SOLVE_MAX 400
#define T32_SOLVE_SLACK 0.25	/* relative, and at least half a cycle */

/*
 * Cycles of a barrier-wrapped block of k copies, k = 0..kmax, each started on an
 * empty machine: cycles[k] = the retire cycle of the last instruction + 1
 * (0 for k = 0), to lay over a measured step curve.  cycles has kmax + 1 slots.
 */
int t32_model_curve(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
		    size_t kmax, double *cycles);

#endif
