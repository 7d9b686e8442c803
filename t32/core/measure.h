/*
 * measure.h - one block measured to a precision: the block, its empty block, its
 * twin (the same block with its last item half as long) and a calibration chain of
 * 1-cycle adds run round by round in a warm measuring process, the deltas pooled
 * into histograms for the sub-quantum estimate.  The value is the marginal cost,
 * (block - twin) over the instructions between them, so the pipeline's fill and
 * drain cancel; block minus empty stays beside it.  The interval comes from the
 * spread of per-round estimates and of fresh placements of the code and arena
 * (so placement and clock drift widen it honestly); readings taken while other work ran where it can
 * disturb them are set aside; runs are added until the interval is narrow enough
 * or the time budget is spent.
 */
#ifndef T32_MEASURE_H
#define T32_MEASURE_H

#include <stdint.h>

#include "analysis/stats.h"
#include "t32/core/block.h"

#define T32_SENSORS 2	/* chains beside the adds: the multiplier and a vector unit */

enum t32_unit { T32_UNIT_CYCLES, T32_UNIT_TICKS, T32_UNIT_NS };
extern const char *const t32_unit_names[];	/* "cycles", "ticks", "ns" */
int t32_parse_unit(const char *arg, enum t32_unit *u);

struct t32_rec;

struct t32_measure_opts {
	enum t32_unit unit;
	double precision;	/* wanted 95% half-width, unit per instruction; <= 0: run max_runs */
	double block_precision;	/* or this half-width on the whole block, unit; <= 0: none */
	double budget;		/* seconds of measuring at most */
	uint64_t min_runs;	/* per block */
	uint64_t max_runs;	/* per block */
	uint64_t batch;		/* runs per block per round */
	uint64_t cal_len;	/* adds in the calibration chain */
	double drift_limit;	/* relative change of the clock ratio that makes a result untrustworthy */
	const char *raw_path;	/* write every delta here (tsv), or NULL */
	/*
	 * The marginal cost: time the block against its twin, the same block with its
	 * last item repeated half as often (or against base, when set), so the fixed
	 * cost of filling and draining the pipeline cancels.  0: block minus empty
	 * over n, the study's quantity (sweep's raw mode, the classic form).
	 */
	int slope;
	const struct t32_spec *base;	/* the twin, given: compare with this block */
	int ignore_busy;	/* readings taken while other work ran count as clean */
	struct t32_rec *rec;	/* record every reading here, or replay them from here */
};
void t32_measure_opts_init(struct t32_measure_opts *o);

/* What per_insn estimates. */
enum t32_estimand {
	T32_EST_WHOLE,		/* (block - empty) / n: the fixed cost included */
	T32_EST_SLOPE,		/* (block - twin) / (n - twin_n): the marginal cost */
};
extern const char *const t32_estimand_names[];	/* "block", "slope" */

/* Why readings of a measuring process were set aside (t32_source.look). */
enum {
	T32_TAINT_SHARED = 1 << 0,	/* another task was runnable on the measuring CPU */
	T32_TAINT_BUSY = 1 << 1,	/* ... on a CPU that may share its core */
	T32_TAINT_CORE = 1 << 2,	/* the sensors left their whole numbers: a thread the
					   guest cannot see shared the core */
};

/* What a measurement found.  Ticks are TSC ticks; "unit" is opts.unit. */
struct t32_measurement {
	uint64_t insns;		/* n of the block */
	uint64_t twin_insns;	/* instructions of the twin (slope), 0 without one */
	enum t32_estimand estimand;	/* what value estimates */
	uint64_t runs;		/* per block */
	unsigned rounds;
	unsigned segments;	/* measuring processes whose readings count */
	unsigned set_aside;	/* processes whose readings were set aside (tainted) */
	unsigned taint;		/* T32_TAINT_* seen in the readings that count */
	char who[200];		/* the tasks seen on the measuring CPU, for messages */
	char who_beside[200];	/* ... on a CPU that may share its core */
	double seconds;		/* wall time measuring */
	uint64_t q;		/* ticks: the TSC step seen */
	struct t32_estimate block, empty, twin;	/* sub-quantum estimates, ticks */
	struct t32_summary sblock, sempty;	/* min, median, MAD, trimmed mean, ticks */
	double ratio;		/* core cycles per tick (calibration), 0 if not calibrated */
	double ratio_hw;	/* its 95% half-width */
	double ratio_first, ratio_last;	/* from the first and last third of the rounds */
	double tsc_ghz;		/* TSC frequency */
	double steal_share;	/* of the measuring time, stolen by the hypervisor */
	double value;		/* per instruction, unit: what estimand says */
	double halfwidth;	/* 95%, unit per instruction */
	double whole_value;	/* (block - empty) / n, unit per instruction */
	double whole_halfwidth;	/* its 95% half-width */
	double fixed;		/* unit: block - empty - n * value, the cost that does not grow
				   with n (slope only; 0 otherwise) */
	double fixed_halfwidth;
	double min_value;	/* the study's (min - min) / n, unit per instruction */
	double block_value, empty_value;	/* whole blocks, unit */
	unsigned flags;		/* T32_EST_* of the estimates */
	int stopped_precise;	/* the interval reached the precision target */
	unsigned segments_needed;	/* > 0: it did, over fewer processes that count than this */
	double futile_seconds;	/* > 0: stopped early, its interval would have needed this long */
	int drifted;		/* the clock ratio moved more than drift_limit (compensated) */
	/*
	 * The sensors (cycles, when run): each one's whole cycles per instruction
	 * (0: it behaved as no chain), its clock over the adds' (1 alone on the core;
	 * above 1, the adds were slowed more) with a 95% half-width; contended: they
	 * disagree beyond that, the value is taken on the fastest chain's clock and
	 * its interval widened by the disagreement.
	 */
	unsigned sense_lat[T32_SENSORS];
	double sense[T32_SENSORS], sense_hw[T32_SENSORS];
	int contended;
	double contention;	/* relative: the fastest chain's clock over the slowest's, - 1 */
	char untrusted[768];	/* why the result is not trustworthy, or "" */
};

/*
 * Measure spec against its empty twin, its half twin (opts.slope) and the
 * calibration chain (unit cycles).  Returns an exit code; messages printed.  On
 * Ctrl-C (the caller sets *stop) it finishes the round and reports what it has.
 */
int t32_measure(const struct t32_spec *spec, const struct t32_block_opts *bo,
		const struct t32_measure_opts *mo, volatile int *stop, struct t32_measurement *m);

/*
 * Assemble ahead every block the measurements of specs[0..n) will run (each
 * block, its empty block, its twin or base, the calibration chains), in one
 * nasm run or a few (t32_blobs_prepare); nothing when replaying.  Measuring
 * them later finds them assembled.  Returns how many blocks are ready.
 */
size_t t32_measure_prepare(const struct t32_spec *const *specs, size_t n,
			   const struct t32_block_opts *bo, const struct t32_measure_opts *mo);

/*
 * The twin of spec for the slope: the same block, its last item repeated half as
 * often (rounded down).  0, or -1 when there is none (the last item runs once),
 * or out of memory (errno ENOMEM).
 */
int t32_measure_twin(const struct t32_spec *spec, struct t32_spec *twin);

/*
 * The cost of copies of one text: reps copies between lfences (store m) against
 * base_reps copies (0: half as many), so the pipeline's fill cancels, on the
 * default CPU, with the start registers of init (may be NULL), to precision
 * (cycles per instruction) within budget seconds.  quiet: a text that is not
 * instructions or that nasm refuses returns -1 without a message.  Otherwise
 * t32_measure's exit code.
 */
int t32_measure_copies(const char *text, uint64_t reps, uint64_t base_reps,
		       const struct t32_spec *init, double precision, double budget, int quiet,
		       struct t32_measurement *m);

/* The blocks of a measurement; a source holds those in use in this order. */
enum t32_role { T32_ROLE_BLOCK, T32_ROLE_EMPTY, T32_ROLE_TWIN, T32_ROLE_CAL, T32_ROLE_CALBASE,
		T32_ROLE_MUL, T32_ROLE_MULBASE, T32_ROLE_VEC, T32_ROLE_VECBASE, T32_ROLES };
extern const char *const t32_role_names[];	/* "block", "empty", "twin", "calibration", ... */

/*
 * The sensors: two more chains beside the adds, of other units (the multiplier,
 * `imul rax, rax`, and the vector ALU, `vpor xmm0, xmm0, xmm0` or `por` without
 * AVX), each timed against its half as the adds are.  Alone on a core, each runs
 * a whole number of cycles per instruction, so its time over the adds' is a whole
 * number.  A thread the guest cannot see (a sibling on the same core, the host's)
 * slows the chains whose units it uses, and only slows them: when the ratios leave
 * their whole numbers, the chain that ran fastest for its cycles is the truer
 * clock, and how far they disagree is how much the core was shared.
 * t32_chain_len: the instructions of a calibration or sensor chain (role CAL to
 * VECBASE) for adds of cal_len.
 */
uint64_t t32_chain_len(enum t32_role role, uint64_t cal_len);

/* When a measurement that cannot reach its precision in its budget stops. */
enum t32_futility {
	T32_FUTILITY_OFF,	/* never: it runs its budget out */
	T32_FUTILITY_AT_ONCE,	/* at the first judgement that says so */
	T32_FUTILITY_CONFIRMED,	/* when it still says so after the time spent has doubled */
};

/*
 * How the measuring loop times its placements (segments): in tiers of one length
 * from 0.5 ms (longer for a slow block) in ticks or ns and from 2.5 ms in cycles
 * (half: what t32 does), and as recordings made before kept them: the same from
 * 1 ms (scaled), tiers from 2.5 ms, or doubling from 5 ms after the first six (a
 * replay must ask for what the recording holds).
 */
enum t32_placements {
	T32_PLACEMENTS_TIERS = 0, T32_PLACEMENTS_DOUBLING, T32_PLACEMENTS_SCALED,
	T32_PLACEMENTS_HALF	/* scaled from 0.5 ms (what t32 does, its rounds batched) */
};

/* How a source's calls hold rounds (t32_source.batched). */
enum t32_rounds {
	T32_ROUNDS_SINGLE,	/* one round a call, sized with the call's cost in (the
				   recordings made before rounds were batched) */
	T32_ROUNDS_BATCHED,	/* a call runs the rounds up to the next judgement, sized
				   by the blocks' own cost; a placement ends on the wall
				   clock, so one a little short of its length ran one round
				   more in a call of its own */
	T32_ROUNDS_PLANNED,	/* as BATCHED, and a placement ends once the rounds sized
				   to take it to its length have run */
};

/*
 * Where deltas come from: the warm measuring process, a simulated machine, or a
 * recording.  run() runs the source's blocks 0..nb-1 (their roles in roles[]) in
 * turn, per runs each after skip unrecorded ones, reps times a round for `rounds`
 * rounds, into out laid out [round][rep][block][run] (a recording keeps each
 * round's deltas apart); the calibration chains are cal_len and cal_len / 2 `add eax,
 * 1`.  respawn() (may be NULL) places the blocks afresh: new addresses.  look()
 * (may be NULL) says what ran beside the measuring process since the last look
 * (T32_TAINT_* bits).  finish() (may be NULL) adds what the source knows at the
 * end (steal_share, who) before the result is judged.  Budgets and segments are
 * timed on now(), so a simulation keeps its own time.  run and respawn return an
 * exit code, the message printed.
 */
struct t32_source {
	int (*run)(void *ctx, size_t nb, const enum t32_role *roles, uint64_t per, uint64_t skip,
		   uint64_t reps, uint64_t rounds, uint64_t *out);
	int (*respawn)(void *ctx);
	double (*now)(void *ctx);	/* seconds on the source's clock; NULL: the wall clock */
	unsigned (*look)(void *ctx);
	void (*finish)(void *ctx, struct t32_measurement *m);
	void *ctx;
	double tsc_hz;		/* the TSC's rate */
	uint64_t q;		/* ticks: the TSC's step (t32_machine_tsc_step) */
	enum t32_placements placements;	/* how segments are timed: a replay follows its recording's */
	int sensors;		/* the source runs the sensor chains beside the adds (cycles) */
	enum t32_futility futility; /* a measurement whose interval cannot reach the precision
				   within its budget stops early: T32_FUTILITY_* (recordings
				   replay with the rule they were made with) */
	int span_floor;		/* the interval holds at least how far the sensors may put
				   the clock (recordings made before replay without it) */
	enum t32_rounds batched; /* how calls hold rounds: T32_ROUNDS_* (recordings
				   replay with the rule they were made with) */
};

/*
 * The measuring loop of t32_measure on any source of deltas; the block holds n
 * instructions, its twin twin_n (0: no twin; the value is then block minus empty).
 */
int t32_measure_source(const struct t32_source *src, uint64_t n, uint64_t twin_n,
		       const struct t32_measure_opts *mo, volatile int *stop,
		       struct t32_measurement *m);

/*
 * Say in m->untrusted why a result cannot be trusted, if it cannot: not finite,
 * an impossible calibration, too few readings in a bulk, a cost below zero by more
 * than its interval, an interval that never reached the precision asked for,
 * readings taken beside other work that could not be set aside.
 */
void t32_measure_check(struct t32_measurement *m, const struct t32_measure_opts *mo,
		       int interrupted);
/* The flags of m (the estimates' and drift), comma-separated, or "-"; returns buf. */
char *t32_measure_flags(const struct t32_measurement *m, char *buf, size_t len);

#define T32_RATIO_MIN 0.05	/* core cycles per tick outside this are not a clock */
#define T32_RATIO_MAX 20.0

/*
 * The machine's TSC step in ticks, found once per process from raw readings
 * (t32_tsc_step; 1 when they never tell).  *share (may be NULL): how much of the
 * readings' differences it explains.
 */
uint64_t t32_machine_tsc_step(double *share);

/* TSC frequency in Hz, measured against CLOCK_MONOTONIC_RAW over about `seconds`. */
double t32_tsc_hz(double seconds);
/* The same, measured once per process (over 20 ms) and kept. */
double t32_machine_tsc_hz(void);

#endif
