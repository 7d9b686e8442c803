/*
 * measure.c - rounds of block, empty, twin and calibration runs in fresh measuring
 * processes until the per-instruction cost is known well enough.
 */
#include "t32/core/measure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <gsl/gsl_cdf.h>

#include "t32/core/blobcache.h"
#include "t32/core/record.h"
#include "t32/core/run.h"
#include "t32/core/shared.h"
#include "t32/util.h"

const char *const t32_unit_names[] = { "cycles", "ticks", "ns" };
const char *const t32_estimand_names[] = { "block", "slope" };
const char *const t32_role_names[] = { "block", "empty", "twin", "calibration",
				       "calibration-base", "sensor-mul", "sensor-mul-base",
				       "sensor-vec", "sensor-vec-base" };

uint64_t t32_chain_len(enum t32_role role, uint64_t cal_len)
{
	switch (role) {
	case T32_ROLE_CAL:
		return cal_len;
	case T32_ROLE_CALBASE:
		return cal_len / 2;	/* the adds' half: their difference is cal_len - cal_len / 2 */
	case T32_ROLE_MUL:	/* 3 cycles each on most cores: about as long as the adds */
		return cal_len / 3;
	case T32_ROLE_MULBASE:
		return cal_len / 3 / 2;
	case T32_ROLE_VEC:
		return cal_len / 2;
	case T32_ROLE_VECBASE:
		return cal_len / 2 / 2;
	default:
		return 0;
	}
}

int t32_parse_unit(const char *arg, enum t32_unit *u)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(arg, t32_unit_names[i]) == 0) {
			*u = (enum t32_unit)i;
			return 0;
		}
	return -1;
}

void t32_measure_opts_init(struct t32_measure_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->unit = T32_UNIT_CYCLES;
	o->precision = 0;
	o->budget = 10;
	o->min_runs = 1000;
	o->max_runs = 100000;
	o->batch = 0;
	o->cal_len = 1000;
	o->drift_limit = 0.01;
}

double t32_machine_tsc_hz(void)
{
	static double tsc_hz;	/* the TSC's rate does not change: once per process */

	if (!tsc_hz)
		tsc_hz = t32_tsc_hz(0.02);
	return tsc_hz;
}

double t32_tsc_hz(double seconds)
{
	struct timespec a, b, nap = { 0, (long)(seconds * 1e9) };
	uint64_t ta, tb;

	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	ta = __rdtsc();
	nanosleep(&nap, NULL);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	tb = __rdtsc();
	return (double)(tb - ta) /
	       ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9);
}

/* Student's t for 95% two-sided with df degrees of freedom, from GSL. */
static double t95(unsigned df)
{
	return df == 0 ? INFINITY : gsl_cdf_tdist_Pinv(0.975, df);
}

/* Mean and 95% half-width of the batch means x[0..n). */
static void batch_means(const double *x, unsigned n, double *mean, double *hw)
{
	double s = 0, ss = 0;

	for (unsigned i = 0; i < n; i++)
		s += x[i];
	*mean = n ? s / n : NAN;
	for (unsigned i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*hw = n > 1 ? t95(n - 1) * sqrt(ss / (n - 1) / n) : INFINITY;
}

static double mean_of(const double *x, unsigned from, unsigned to)
{
	double s = 0;

	for (unsigned i = from; i < to; i++)
		s += x[i];
	return to > from ? s / (to - from) : NAN;
}

/* Standard error of the mean of x[from..to). */
static double se_of(const double *x, unsigned from, unsigned to)
{
	double m = mean_of(x, from, to), ss = 0;
	unsigned n = to - from;

	for (unsigned i = from; i < to; i++)
		ss += (x[i] - m) * (x[i] - m);
	return n > 1 ? sqrt(ss / (n - 1) / n) : INFINITY;
}

/* Rounds before the spread of their estimates is trusted for stopping. */
#define T32_MIN_ROUNDS 10
/*
 * Placements.  Each serves a segment of the measurement, then the blocks are
 * placed afresh (src->respawn): new addresses for code and arena, and a core
 * clock that may have moved.  Results move from placement to placement by more
 * than the rounds within one can show, so a result stopped on its precision
 * needs several of them, and its interval comes from their spread too.
 * The pooled value weighs a segment by its rounds, and a mean over segments of
 * growing weight stops narrowing (with each twice the last, sum(w^2) / (sum w)^2
 * tends to 1/3: three segments' worth, however many ran).  So segments come in
 * tiers of one length, each tier twice as long as the last (struct schedule):
 * the mean is then worth 64 to 192 segments, and a long measurement does not
 * spend its time placing blocks.
 */
#define T32_MIN_SEGMENTS 6
#define T32_MAX_SEGMENTS 512

/*
 * How a schedule of placements runs.  Segment k (counting those whose readings
 * count) lasts first x 2^(max(0, k - flat) / per_tier) seconds, max at most,
 * where first is the schedule's, or longer for a slow block (floor_runs).
 */
struct schedule {
	double first, max;	/* seconds: the first segment's length, and the cap */
	unsigned flat;		/* segments of the first length before any doubling */
	unsigned per_tier;	/* segments of one length after those */
	unsigned min_segments;	/* before a result may stop on its precision */
	unsigned cap;		/* placements at most */
	double round;		/* seconds: how long a round (one estimate) runs */
	int room_first;		/* no new placement within two first segments of the budget's
				   end (else within two of the current length) */
	unsigned floor_runs;	/* a segment holds at least this many runs of each block,
				   rounds stretched to match (0: no floor) */
};

static const struct schedule schedules[] = {
	/*
	 * Tiers of 64 of one length, from 2.5 ms: the mean is worth 64 to 192 of
	 * them.  Twelve of 2.5 ms to stop take as long as six of 5 ms did, and their
	 * spread, on 11 degrees of freedom, is less often small by chance (a stop on
	 * a lucky spread is an interval too narrow).  A first segment holds twelve
	 * rounds.
	 */
	[T32_PLACEMENTS_TIERS] = { 0.0025, 0.25, 0, 64, 12, T32_MAX_SEGMENTS, 0.0025 / 12, 0, 0 },
	/* as recordings made before tiers kept them: five of 5 ms, then each twice the last */
	[T32_PLACEMENTS_DOUBLING] = { 0.005, 0.25, 5, 1, T32_MIN_SEGMENTS, 256, 0.0004, 1, 0 },
	/*
	 * The tiers from 1 ms, for measurements in ticks or ns (placements_for):
	 * twelve placements of a cheap block to stop take 12 ms, not 30, and a
	 * segment's spread grows with its shortness, so the interval, from their
	 * spread, stays honest.  On simulated TSCs of steps 21 to 64, a 3-cycle chain
	 * to +-0.02 took a median 13 ms (31 ms from 2.5 ms), its interval holding the
	 * truth in 292 of 300; from 0.5 ms the median was 6 ms but a tenth took over
	 * 80 ms, rounds of 42 us too short to know a coarse step.  A slow block's
	 * segment holds at least 64 runs of each block, so that the warm-up of a new
	 * placement (16 runs a block, 3 of a slow one) costs a quarter of it at most.
	 */
	[T32_PLACEMENTS_SCALED] = { 0.001, 0.25, 0, 64, 12, T32_MAX_SEGMENTS, 0.001 / 12, 0, 64 },
	/*
	 * The same from 0.5 ms, in rounds of 50 us, once rounds came several to a
	 * call: a round of the scaled tiers, a request of its own, had held a dozen
	 * runs of a cheap block beside the request's round trip; batched, one of 50
	 * us holds hundreds.  Simulated (the 3-cycle chains above, t/2104): a median
	 * 7.9 ms to stop (12.8 from 1 ms), a tenth over 28.5 ms (29.0), the interval
	 * holding the truth in 193 of 200 (197).
	 */
	[T32_PLACEMENTS_HALF] = { 0.0005, 0.25, 0, 64, 12, T32_MAX_SEGMENTS, 0.0005 / 10, 0, 64 },
};

/* How long segment k runs, the first `first` seconds long. */
static double segment_seconds(enum t32_placements p, double first, unsigned k)
{
	const struct schedule *r = &schedules[p];
	unsigned past = k > r->flat ? k - r->flat : 0;

	return fmin(fmax(r->max, first), first * ldexp(1, (int)(past / r->per_tier)));
}

/*
 * Time left in the budget below which no new placement starts (the open one
 * runs on to the end).
 */
static double segment_room(enum t32_placements p, double first, unsigned k)
{
	return 2 * (schedules[p].room_first ? first : segment_seconds(p, first, k));
}

/*
 * The schedule a measurement follows: the scaled tiers serve measurements in
 * ticks or ns; one calibrated to cycles keeps the tiers from 2.5 ms, whose
 * rounds are long enough for the calibration and sensor chains to know the
 * core clock (in rounds of 83 us, half of 300 simulated 3-cycle chains to +-0.02
 * on TSCs of steps 21 to 64 never reached it: 489 s of simulated time against 27).
 */
static enum t32_placements placements_for(enum t32_placements p, int calibrated)
{
	const int ticks_tiers = p == T32_PLACEMENTS_SCALED || p == T32_PLACEMENTS_HALF;

	return ticks_tiers && calibrated ? T32_PLACEMENTS_TIERS : p;
}

/* Per-unit factor from ticks: cycles use the calibration ratio, ns the TSC rate. */
static double conversion(enum t32_unit u, double ratio, double tsc_hz)
{
	return u == T32_UNIT_CYCLES ? ratio : u == T32_UNIT_NS ? 1e9 / tsc_hz : 1.0;
}

/* Raw readings of the TSC with a random spin between them, for t32_tsc_step. */
static void tsc_readings(uint64_t *out, size_t n)
{
	uint64_t x = __rdtsc() | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (volatile unsigned spin = (unsigned)(x & 255); spin; spin--)
			;
		out[i] = __rdtsc();
	}
}

uint64_t t32_machine_tsc_step(double *share)
{
	static uint64_t q;
	static double q_share;

	if (!q) {
		enum { READINGS = 20000 };
		uint64_t *r = malloc(READINGS * sizeof(*r));

		/* three tries; a machine whose differences never tell is taken as one tick */
		for (int i = 0; r && i < 3 && !q; i++) {
			tsc_readings(r, READINGS);
			q = t32_tsc_step(r, READINGS, &q_share);
		}
		free(r);
		if (!q) {
			q = 1;
			q_share = 0;
		}
	}
	if (share)
		*share = q_share;
	return q;
}

int t32_measure_twin(const struct t32_spec *spec, struct t32_spec *twin)
{
	*twin = *spec;
	twin->items = NULL;
	twin->nitems = 0;
	errno = 0;
	if (!spec->nitems || spec->items[spec->nitems - 1].reps < 2)
		return -1;
	for (size_t i = 0; i < spec->nitems; i++) {
		const struct t32_item *it = &spec->items[i];

		if (t32_spec_add_item(twin, i + 1 == spec->nitems ? it->reps / 2 : it->reps,
				      it->text)) {
			t32_spec_free(twin);
			errno = ENOMEM;
			return -1;
		}
	}
	return 0;
}

/* The real source: blocks interleaved in a warm measuring process. */
struct real_source {
	struct t32_session ss;
	struct t32_share share;	/* who else ran on the measuring CPU or beside it */
};

static int session_run(void *ctx, size_t nb, const enum t32_role *roles, uint64_t per,
		       uint64_t skip, uint64_t reps, uint64_t rounds, uint64_t *out)
{
	struct real_source *rs = ctx;

	(void)roles;
	return t32_session_interleaved(&rs->ss, nb, per, skip, reps * rounds, out);
}

static int session_respawn(void *ctx)
{
	struct real_source *rs = ctx;

	return t32_session_respawn(&rs->ss);
}

/* Between processes, a look at what else runs costs the measurement nothing. */
static unsigned session_look(void *ctx)
{
	struct real_source *rs = ctx;
	unsigned where = t32_share_look(&rs->share);

	return (where & T32_SHARE_CPU ? T32_TAINT_SHARED : 0) |
	       (where & T32_SHARE_SIBLING ? T32_TAINT_BUSY : 0);
}

/* The steal and the names of the tasks behind a taint. */
static void session_finish(void *ctx, struct t32_measurement *m)
{
	struct real_source *rs = ctx;

	t32_share_stop(&rs->share);
	m->steal_share = rs->share.steal_share;
	t32_share_who(&rs->share, T32_SHARE_CPU, m->who, sizeof(m->who));
	t32_share_who(&rs->share, T32_SHARE_SIBLING, m->who_beside, sizeof(m->who_beside));
}

/* The blocks a measurement of a spec runs, in the order of its roles. */
struct blocks {
	struct t32_spec empty, twin, chain[T32_ROLES];	/* chain[T32_ROLE_CAL .. VECBASE] */
	const struct t32_spec *specs[T32_ROLES];
	size_t nb;
	uint64_t twin_n;
	int have_twin;
};

static void blocks_free(struct blocks *k)
{
	if (k->have_twin)
		t32_spec_free(&k->twin);
	for (int r = T32_ROLE_CAL; r < T32_ROLES; r++)
		t32_spec_free(&k->chain[r]);
}

/* The sensors' texts: the vector chain in its VEX form where there is AVX (no SSE transitions). */
static const char *chain_text(enum t32_role r)
{
	if (r == T32_ROLE_MUL || r == T32_ROLE_MULBASE)
		return "imul rax, rax";
	if (r == T32_ROLE_VEC || r == T32_ROLE_VECBASE)
		return __builtin_cpu_supports("avx") ? "vpor xmm0, xmm0, xmm0" : "por xmm0, xmm0";
	return "add eax, 1";
}

/* The block, its empty block, its twin (or base) and the calibration chains; exit code. */
static int blocks_make(const struct t32_spec *spec, const struct t32_measure_opts *mo,
		       struct blocks *k)
{
	uint64_t insns = t32_spec_insns(spec);
	char err[128];

	memset(k, 0, sizeof(*k));
	if (mo->base) {
		k->twin_n = t32_spec_insns(mo->base);
		if (k->twin_n >= insns) {
			t32_error("the base must have fewer instructions than the block '%llu'",
				  (unsigned long long)k->twin_n);
			return T32_EXIT_USAGE;
		}
	} else if (mo->slope) {
		if (t32_measure_twin(spec, &k->twin) == 0) {
			k->have_twin = 1;
			k->twin_n = t32_spec_insns(&k->twin);
		} else if (errno == ENOMEM) {
			t32_error("out of memory '%s'", "twin");
			return T32_EXIT_ERROR;
		}
	}
	t32_spec_empty(spec, &k->empty);
	/* each base chain is half as long: their difference has no pipeline-fill constant */
	for (int r = T32_ROLE_CAL; r < T32_ROLES; r++) {
		t32_spec_set_barrier(&k->chain[r], "l", err, sizeof(err));
		k->chain[r].store = 'm';
		if (t32_spec_add_item(&k->chain[r], t32_chain_len(r, mo->cal_len), chain_text(r))) {
			blocks_free(k);
			return T32_EXIT_ERROR;
		}
	}
	k->specs[k->nb++] = spec;
	k->specs[k->nb++] = &k->empty;
	if (k->twin_n)
		k->specs[k->nb++] = mo->base ? mo->base : &k->twin;
	if (mo->unit == T32_UNIT_CYCLES)
		for (int r = T32_ROLE_CAL; r < T32_ROLES; r++)
			k->specs[k->nb++] = &k->chain[r];
	return 0;
}

size_t t32_measure_prepare(const struct t32_spec *const *specs, size_t n,
			   const struct t32_block_opts *bo, const struct t32_measure_opts *mo)
{
	struct blocks *k = calloc(n ? n : 1, sizeof(*k));
	const struct t32_spec **all = calloc(n ? n * T32_ROLES : 1, sizeof(*all));
	size_t nall = 0, made = 0, have = 0;

	if (k && all && !(mo->rec && t32_rec_replaying(mo->rec))) {
		for (; made < n; made++) {
			if (blocks_make(specs[made], mo, &k[made]))
				break;
			for (size_t b = 0; b < k[made].nb; b++)
				all[nall++] = k[made].specs[b];
		}
		have = t32_blobs_prepare(all, nall, bo->dither);
		for (size_t i = 0; i < made; i++)
			blocks_free(&k[i]);
	}
	free(k);
	free(all);
	return have;
}

int t32_measure(const struct t32_spec *spec, const struct t32_block_opts *bo,
		const struct t32_measure_opts *mo, volatile int *stop, struct t32_measurement *m)
{
	struct blocks k;
	const struct t32_spec *const *specs = k.specs;
	struct real_source rs;
	struct t32_source src, rec;
	uint64_t insns = t32_spec_insns(spec), twin_n;
	size_t nb;
	int rc, open = 0;

	memset(m, 0, sizeof(*m));
	if ((rc = blocks_make(spec, mo, &k)))
		return rc;
	nb = k.nb;
	twin_n = k.twin_n;
	if (mo->rec && t32_rec_replaying(mo->rec)) {
		/* the readings come from the recording: nothing is assembled or run */
		rc = t32_rec_source(mo->rec, NULL, &src, insns, twin_n, mo);
	} else {
		rc = t32_session_open(&rs.ss, specs, nb, bo);
		open = 1;
		if (!rc) {
			src = (struct t32_source){ session_run, session_respawn, NULL, session_look,
						   session_finish, &rs, t32_machine_tsc_hz(),
						   t32_machine_tsc_step(NULL), T32_PLACEMENTS_HALF, 1,
						   T32_FUTILITY_CONFIRMED, 1, T32_ROUNDS_PLANNED };
			/* the looks are the measurement's own, at each placement's end */
			t32_share_watch(&rs.share,
					bo->run.cpu >= 0 ? bo->run.cpu : t32_default_cpu());
			if (mo->rec && (rc = t32_rec_source(mo->rec, &src, &rec, insns, twin_n, mo)) == 0)
				src = rec;
		}
	}
	if (!rc)
		rc = t32_measure_source(&src, insns, twin_n, mo, stop, m);
	if (mo->rec)
		rc = t32_rec_measure_end(mo->rec, m, rc);
	if (!rc) {
		if (m->flags & T32_EST_STEAL)
			t32_warn("the hypervisor stole %.1f%% of cpu %d while measuring (flag steal): "
				 "the readings it hit were set aside as outliers",
				 100 * m->steal_share, bo->run.cpu >= 0 ? bo->run.cpu : t32_default_cpu());
	}
	if (open)
		t32_session_close(&rs.ss);
	blocks_free(&k);
	return rc;
}

int t32_measure_copies(const char *text, uint64_t reps, uint64_t base_reps,
		       const struct t32_spec *init, double precision, double budget, int quiet,
		       struct t32_measurement *m)
{
	struct t32_spec s = { 0 }, base = { 0 };
	struct t32_block_opts o;
	struct t32_measure_opts mo;
	unsigned char *code = NULL;
	size_t len = 0;
	char err[512], word[64];
	const char *why;
	int rc = -1;

	if (quiet && t32_insn_check(text, word, sizeof(word), &why))
		return -1;
	t32_block_opts_init(&o);
	o.run.cpu = t32_default_cpu();
	t32_measure_opts_init(&mo);
	mo.precision = precision;
	mo.budget = budget;
	mo.max_runs = 50000000;
	t32_spec_set_barrier(&s, "l", err, sizeof(err));
	t32_spec_set_barrier(&base, "l", err, sizeof(err));
	s.store = base.store = 'm';
	for (size_t i = 0; init && i < init->ninit; i++) {
		s.init[s.ninit++] = init->init[i];
		base.init[base.ninit++] = init->init[i];
	}
	if (t32_spec_add_item(&s, reps, text) ||
	    (base_reps && t32_spec_add_item(&base, base_reps, text)))
		goto out;
	/* assembled first when quiet: a form nasm refuses costs no message */
	if (quiet && t32_assemble_body(&s, &code, &len, err, sizeof(err)))
		goto out;
	if (base_reps)
		mo.base = &base;
	mo.slope = 1;
	rc = t32_measure(&s, &o, &mo, NULL, m);
out:
	free(code);
	t32_spec_free(&s);
	t32_spec_free(&base);
	return rc;
}

/*
 * The calibration against its own fastest runs: the two chains' minima differ by
 * `cycles` core cycles to within a TSC step each way, which bounds the ratio
 * whatever disturbed the bulk.  A ratio outside those bounds means the core clock
 * changed or something slowed the chains in most runs: the cycles of this
 * measurement cannot be trusted.  The slack is wide because a clock that wobbles
 * turn by turn (1% here and there in a VM) puts its minima in its fastest turns,
 * a few percent above the mean; what this catches is a calibration tens of
 * percent off (seen in a VM: 1.09 cycles per tick on a core of 1.42).
 */
#define T32_CAL_MIN_SLACK 0.10
static void calibration_check(struct t32_measurement *m, const struct t32_hist *cal,
			      const struct t32_hist *calempty, double cycles)
{
	struct t32_summary a, b;
	double diff, lo, hi;

	if (t32_summarize_hist(cal, &a) || t32_summarize_hist(calempty, &b))
		return;
	diff = (double)a.min - (double)b.min;
	if (!(diff > (double)m->q))
		return;
	lo = (1 - T32_CAL_MIN_SLACK) * cycles / (diff + (double)m->q);
	hi = (1 + T32_CAL_MIN_SLACK) * cycles / (diff - (double)m->q);
	if (m->ratio < lo || m->ratio > hi)
		snprintf(m->untrusted, sizeof(m->untrusted),
			 "the calibration read %.4f core cycles per tick, but its fastest runs say "
			 "%.4f to %.4f: the core clock changed or something slowed the chains",
			 m->ratio, lo / (1 - T32_CAL_MIN_SLACK), hi / (1 + T32_CAL_MIN_SLACK));
}

/* One placement's share of a measurement. */
struct segment {
	unsigned first, last;	/* its rounds [first, last) */
	unsigned taint;		/* T32_TAINT_* the look at its end found */
	int counts;		/* its readings count (clean, or nothing clean at all) */
	struct t32_hist hist[T32_ROLES];	/* its readings per block */
};

/* The state of t32_measure_source: rounds and segments. */
struct loop {
	double *cost;		/* per round: the value, unit per instruction */
	double *whole;		/* per round: (block - empty) / n, unit per instruction */
	double *fixed;		/* per round: the fixed cost, unit */
	double *ratio;		/* per round: cycles per tick (1 uncalibrated) */
	double *sense[T32_SENSORS];	/* per round: a sensor's ticks per instruction over the
					   adds' (NaN without sensors) */
	unsigned n, cap;
	struct segment *seg;	/* T32_MAX_SEGMENTS; seg[nseg - 1] is open */
	unsigned nseg;
};

static int rounds_add(struct loop *l, double cost, double whole, double fixed, double ratio,
		      const double *sense)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 64;
		double **arrays[] = { &l->cost, &l->whole, &l->fixed, &l->ratio, &l->sense[0],
				      &l->sense[1] };

		for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
			double *p = realloc(*arrays[i], cap * sizeof(double));

			if (!p)
				return -1;
			*arrays[i] = p;
		}
		l->cap = cap;
	}
	l->cost[l->n] = cost;
	l->whole[l->n] = whole;
	l->fixed[l->n] = fixed;
	for (int i = 0; i < T32_SENSORS; i++)
		l->sense[i][l->n] = sense[i];
	l->ratio[l->n++] = ratio;
	return 0;
}

static void loop_free(struct loop *l)
{
	for (unsigned s = 0; l->seg && s < l->nseg; s++)
		for (int b = 0; b < T32_ROLES; b++)
			t32_hist_free(&l->seg[s].hist[b]);
	free(l->seg);
	free(l->cost);
	free(l->whole);
	free(l->fixed);
	free(l->ratio);
	for (int i = 0; i < T32_SENSORS; i++)
		free(l->sense[i]);
}

/* Ticks per instruction of a chain and its half, from their estimates; NaN when they cannot tell. */
static double chain_tpi(const double *est, enum t32_role r, uint64_t cal_len)
{
	double d = est[r] - est[r + 1];
	uint64_t k = t32_chain_len(r, cal_len) - t32_chain_len((enum t32_role)(r + 1), cal_len);

	return d > 0 && k ? d / (double)k : NAN;
}

/* A round's sensors: each one's ticks per instruction over the adds'. */
static void sensors_of_round(const double *est, uint64_t cal_len, double sense[T32_SENSORS])
{
	double add = chain_tpi(est, T32_ROLE_CAL, cal_len);

	sense[0] = chain_tpi(est, T32_ROLE_MUL, cal_len) / add;
	sense[1] = chain_tpi(est, T32_ROLE_VEC, cal_len) / add;
}

/* A sensor's whole cycles for its ticks over the adds' q; 0: a chain of no whole number here. */
static long sensor_cycles(double q)
{
	long k = isfinite(q) ? lround(q) : 0;

	return k >= 1 && fabs(q / (double)k - 1) <= 0.25 ? k : 0;
}

/*
 * The sensors' clocks over the adds' (s[i], half-width h[i], for those with
 * lat[i]) together: their mean weighed by their intervals into *mean and its
 * half-width into *hw (0 when none has an interval), and, returned, their span:
 * the largest distance from the adds' clock plus its half-width.
 */
static double sensors_combine(const unsigned *lat, const double *s, const double *h,
			      double *mean, double *hw)
{
	double sw = 0, swx = 0, span = 0;

	for (int i = 0; i < T32_SENSORS; i++) {
		if (!lat[i])
			continue;
		span = fmax(span, fabs(s[i] - 1) + h[i]);
		if (h[i] > 0 && isfinite(h[i])) {
			sw += 1 / (h[i] * h[i]);
			swx += s[i] / (h[i] * h[i]);
		}
	}
	*mean = sw > 0 ? swx / sw : 1;
	*hw = sw > 0 ? 1 / sqrt(sw) : 0;
	return span;
}

/* The mean of x over the rounds of the segments that count, its non-finite values left out. */
static double counted_mean(const struct loop *l, const double *x)
{
	double sum = 0, k = 0;

	for (unsigned s = 0; s < l->nseg; s++)
		if (l->seg[s].counts)
			for (unsigned r = l->seg[s].first; r < l->seg[s].last; r++)
				if (isfinite(x[r])) {
					sum += x[r];
					k++;
				}
	return k ? sum / k : NAN;
}

static double spread_hw(const struct loop *l, const double *x);

/* The results a clock scales: every value in cycles, and its half-width. */
static void scale_cycles(struct t32_measurement *m, double f)
{
	double *scaled[] = { &m->value, &m->halfwidth, &m->whole_value, &m->whole_halfwidth,
			     &m->fixed, &m->fixed_halfwidth, &m->min_value, &m->block_value,
			     &m->empty_value, &m->ratio, &m->ratio_hw };

	for (size_t i = 0; i < sizeof(scaled) / sizeof(scaled[0]); i++)
		*scaled[i] *= f;
}

/*
 * Judge the sensors from the pooled estimates (est, ticks) and the rounds' spread:
 * each sensor's whole cycles and its clock over the adds'.  A shared core only
 * slows a chain, so where the sensors together (weighed by their intervals) say
 * the adds ran slow, the result is put on their clock; either way the interval
 * takes in how well they know it, for that is how well the clock is known.  When
 * one leaves its whole number beyond noise, another thread shared the core: the
 * result is put on the clock of the chain that ran fastest for its cycles and its
 * interval widened twice by how far the chains disagree: once for not knowing
 * which chain's clock is the core's, once for the block's own slowing, which
 * is unknown and as large as the units were seen to differ by, or more (it is
 * untrusted either way).  A core known to be shared only from who ran beside it
 * (no sensor beyond noise) is judged as a quiet one: the sensors' interval and
 * span are still how well the clock is known.
 *
 * How well they know it is not only their combined half-width: sensors that
 * each leave 1 by less than noise but by different amounts (imul 1.0106 +-
 * 0.0088, vector 1.0049 +- 0.0051) put the clock anywhere in their span, the
 * farthest one's distance from 1 and its half-width.  That span is what the
 * stopping rule and the trust judge hold the result to (stop_hw, sensor_span);
 * with span_floor the interval holds it too, so that an interval never claims
 * a clock known better than the result was judged by.
 */
static void sensors_judge(struct t32_measurement *m, const struct loop *l, const double *est,
			  uint64_t cal_len, int span_floor)
{
	double q[T32_SENSORS], top = 1, bottom = 1, mean, hw, span;
	int disagree = 0;

	sensors_of_round(est, cal_len, q);
	for (int i = 0; i < T32_SENSORS; i++) {
		long k = sensor_cycles(q[i]);

		if (!k)
			continue;
		m->sense_lat[i] = (unsigned)k;
		m->sense[i] = (double)k / q[i];
		m->sense_hw[i] = m->sense[i] * spread_hw(l, l->sense[i]) / q[i];
		/* beyond noise: four standard errors (twice the 95% half-width), as for drift */
		if (!(fabs(m->sense[i] - 1) > 2 * m->sense_hw[i]))
			continue;
		m->contended = disagree = 1;
		top = fmax(top, m->sense[i]);
		bottom = fmin(bottom, m->sense[i]);
	}
	span = sensors_combine(m->sense_lat, m->sense, m->sense_hw, &mean, &hw);
	if (disagree) {
		m->contention = top / bottom - 1;
		scale_cycles(m, top);
		m->halfwidth += 2 * fabs(m->value) * m->contention;
		m->whole_halfwidth += 2 * fabs(m->whole_value) * m->contention;
	} else if (hw > 0) {
		scale_cycles(m, fmax(1, mean));
		m->halfwidth = hypot(m->halfwidth, fabs(m->value) * hw);
		m->whole_halfwidth = hypot(m->whole_halfwidth, fabs(m->whole_value) * hw);
		if (span_floor) {
			m->halfwidth = fmax(m->halfwidth, fabs(m->value) * span);
			m->whole_halfwidth = fmax(m->whole_halfwidth, fabs(m->whole_value) * span);
		}
	}
}

/*
 * The half-width the stopping rule judges: the rounds' and placements' spread of
 * the value, and, where sensors ran, how well they know the clock, as the result
 * will be judged (sensors_judge widens the interval by their combined half-width,
 * t32_measure_check wants the clock known to the precision asked: sensor_span),
 * so that a result stops only when it will hold what was asked.
 */
static double stop_hw(const struct loop *l)
{
	double hw = spread_hw(l, l->cost), sv[T32_SENSORS], h[T32_SENSORS], span, mean, shw, c;
	unsigned lat[T32_SENSORS] = { 0 };

	for (int i = 0; i < T32_SENSORS; i++) {
		double q = counted_mean(l, l->sense[i]);

		if (!(q > 0) || !(lat[i] = (unsigned)sensor_cycles(q)))
			continue;
		sv[i] = lat[i] / q;
		h[i] = spread_hw(l, l->sense[i]) / q;
		if (!(h[i] > 0) || !isfinite(h[i]))
			lat[i] = 0;
	}
	span = sensors_combine(lat, sv, h, &mean, &shw);
	c = fabs(counted_mean(l, l->cost));
	if (!(shw > 0) || !isfinite(c))
		return hw;
	return fmax(hypot(hw, c * shw), c * span);
}

/* Segments whose readings count, the open one included when it has enough rounds. */
static unsigned counting(const struct loop *l)
{
	unsigned k = 0;

	for (unsigned s = 0; s < l->nseg; s++)
		k += l->seg[s].counts && l->seg[s].last - l->seg[s].first >= T32_MIN_ROUNDS;
	return k;
}

/*
 * A measurement stops early when its interval, at the pace it has narrowed so
 * far, would need this many times the budget to reach the precision asked: it
 * would end untrusted ("never narrowed") anyway, only later.
 */
#define T32_FUTILE_FACTOR 4

/*
 * The 95% half-width of the mean of x over the rounds that count: the larger of
 * the rounds' spread (batch means) and the spread of the segments' means.  The
 * pooled value weighs a segment by its rounds, and later segments are longer, so
 * the segments' spread counts with those weights: the variance of a weighted mean
 * of k means whose spread is s is s^2 sum(w^2) / (sum w)^2, and Student's t takes
 * k - 1 degrees of freedom (segments too short to say are left out).
 */
static double spread_hw(const struct loop *l, const double *x)
{
	double seg[T32_MAX_SEGMENTS], w[T32_MAX_SEGMENTS], mean, hw_rounds, hw_segs = 0, *kept;
	unsigned nk = 0, ns = 0;

	kept = calloc(l->n ? l->n : 1, sizeof(double));
	if (!kept)
		return INFINITY;
	for (unsigned s = 0; s < l->nseg; s++) {
		const struct segment *g = &l->seg[s];

		if (!g->counts)
			continue;
		for (unsigned r = g->first; r < g->last; r++)
			kept[nk++] = x[r];
		if (g->last - g->first >= T32_MIN_ROUNDS) {
			w[ns] = g->last - g->first;
			seg[ns++] = mean_of(x, g->first, g->last);
		}
	}
	batch_means(kept, nk, &mean, &hw_rounds);
	free(kept);
	if (ns >= 2) {
		double sw = 0, sw2 = 0, ss = 0;

		mean = mean_of(seg, 0, ns);
		for (unsigned i = 0; i < ns; i++) {
			sw += w[i];
			sw2 += w[i] * w[i];
			ss += (seg[i] - mean) * (seg[i] - mean);
		}
		hw_segs = t95(ns - 1) * sqrt(ss / (ns - 1) * sw2) / sw;
	}
	return fmax(hw_rounds, hw_segs);
}

/*
 * Whether the sensors say a thread shared the core in rounds [first, last): a
 * sensor's ticks over the adds' away from its whole number by more than four
 * standard errors of its rounds' mean (no sensors, or too few rounds: no).
 */
static int segment_contended(const struct loop *l, unsigned first, unsigned last)
{
	if (last - first < T32_MIN_ROUNDS)
		return 0;
	for (int i = 0; i < T32_SENSORS; i++) {
		double mean = mean_of(l->sense[i], first, last), se = se_of(l->sense[i], first, last);
		long k = sensor_cycles(mean);

		if (k && isfinite(se) && fabs(mean - (double)k) > 4 * se)
			return 1;
	}
	return 0;
}

/*
 * Close the open segment: look at what ran beside it, and whether its readings
 * count (a second look adds to the first).  ignore: other work on CPUs that may
 * share the measuring CPU's core does not matter here (--ignore-busy); other work
 * on the measuring CPU itself always does.
 */
static void segment_close(const struct t32_source *src, struct loop *l, int ignore)
{
	struct segment *g = &l->seg[l->nseg - 1];

	g->taint |= src->look ? src->look(src->ctx) : 0;
	if (segment_contended(l, g->first, g->last))
		g->taint |= T32_TAINT_CORE;
	if (ignore)
		g->taint &= ~(unsigned)T32_TAINT_BUSY;
	g->counts = !g->taint;
}

/* Open a segment at round `first`; 0, or -1 when there are too many. */
static int segment_open(struct loop *l, unsigned first)
{
	if (l->nseg == T32_MAX_SEGMENTS)
		return -1;
	memset(&l->seg[l->nseg], 0, sizeof(l->seg[0]));
	l->seg[l->nseg].first = l->seg[l->nseg].last = first;
	l->nseg++;
	return 0;
}

/* Which of a segment's values (segment_values). */
enum { SV_COST, SV_WHOLE, SV_FIXED, SV_N };

/*
 * A segment's values from its own readings (v[SV_*]): the value, block minus
 * empty, the fixed cost, in the unit; est[role], its blocks' estimates in ticks.
 * 0, or -1 when its readings cannot tell.
 */
static int segment_values(const struct segment *g, const struct t32_measurement *m,
			  const struct t32_measure_opts *mo, const enum t32_role *roles, size_t nb,
			  double tsc_hz, double v[SV_N], double est[T32_ROLES])
{
	double r = 1, conv;
	uint64_t n = m->insns ? m->insns : 1;

	memset(est, 0, T32_ROLES * sizeof(double));

	for (size_t b = 0; b < nb; b++) {
		struct t32_estimate e;

		if (t32_estimate_hist(&g->hist[roles[b]], m->q, &e))
			return -1;
		est[roles[b]] = e.value;
	}
	if (mo->unit == T32_UNIT_CYCLES)
		r = (double)(mo->cal_len - mo->cal_len / 2) /
		    (est[T32_ROLE_CAL] - est[T32_ROLE_CALBASE]);
	conv = conversion(mo->unit, r, tsc_hz);
	v[SV_WHOLE] = (est[T32_ROLE_BLOCK] - est[T32_ROLE_EMPTY]) / (double)n * conv;
	v[SV_COST] = m->twin_insns ? (est[T32_ROLE_BLOCK] - est[T32_ROLE_TWIN]) /
					     (double)(m->insns - m->twin_insns) * conv
				   : v[SV_WHOLE];
	v[SV_FIXED] = m->twin_insns ? (v[SV_WHOLE] - v[SV_COST]) * (double)n : 0;
	for (int i = 0; i < SV_N; i++)
		if (!isfinite(v[i]))
			return -1;
	return 0;
}

/*
 * The values as the mean of the counting segments' own, each weighed by its
 * rounds (as the interval weighs them), into v[SV_*], and the blocks' estimates
 * in ticks the same way into est[role]: pooling the readings of processes whose
 * blocks were placed differently would mix their levels, and the bulk of that
 * mixture is not the mean (nor would block minus empty of the pooled estimates
 * be the value printed beside them).  0, or -1 when no segment can tell.
 */
static int segments_mean(const struct loop *l, const struct t32_measurement *m,
			 const struct t32_measure_opts *mo, const enum t32_role *roles, size_t nb,
			 double tsc_hz, double v[SV_N], double est[T32_ROLES])
{
	double sum[SV_N] = { 0 }, esum[T32_ROLES] = { 0 }, w = 0, one[SV_N], eone[T32_ROLES];

	for (unsigned s = 0; s < l->nseg; s++) {
		const struct segment *g = &l->seg[s];
		double k = g->last - g->first;

		if (!g->counts || !k || segment_values(g, m, mo, roles, nb, tsc_hz, one, eone))
			continue;
		for (int i = 0; i < SV_N; i++)
			sum[i] += k * one[i];
		for (int r = 0; r < T32_ROLES; r++)
			esum[r] += k * eone[r];
		w += k;
	}
	if (!w)
		return -1;
	for (int i = 0; i < SV_N; i++)
		v[i] = sum[i] / w;
	for (int r = 0; r < T32_ROLES; r++)
		est[r] = esum[r] / w;
	return 0;
}

/*
 * The segments that count pooled by role into pool (all of them when none is
 * clean, their taint kept); those set aside counted in m.  *kept: the rounds
 * pooled.  0, or an exit code.
 */
static int pool_segments(struct t32_measurement *m, const enum t32_role *roles, size_t nb,
			 struct loop *l, struct t32_hist *pool, unsigned *kept)
{
	int clean = 0, rc = 0;

	for (unsigned s = 0; s < l->nseg; s++)
		clean |= l->seg[s].counts;
	for (unsigned s = 0; s < l->nseg; s++) {
		struct segment *g = &l->seg[s];

		if (!clean)
			g->counts = 1;
		if (!g->counts) {
			m->set_aside++;
			continue;
		}
		m->taint |= g->taint;
		m->segments++;
		*kept += g->last - g->first;
		for (size_t b = 0; b < nb; b++)
			if (t32_hist_add_hist(&pool[roles[b]], &g->hist[roles[b]]))
				rc = T32_EXIT_ERROR;
	}
	return rc;
}

/*
 * Drift: a change of the ratio between the first and last thirds of the kept
 * rounds beyond the limit that noise does not explain (4 sigma).  Each round
 * carries its own calibration, so moderate drift is flagged; only drift too
 * large for that to hold makes the result untrusted.  0, or -1 out of memory.
 */
static int judge_drift(struct t32_measurement *m, const struct t32_measure_opts *mo,
		       const struct loop *l, unsigned kept)
{
	unsigned third = kept / 3, k = 0;
	double *r, first, last, drift_se, drift;

	if (!third)
		return 0;
	if (!(r = malloc(kept * sizeof(double))))
		return -1;
	for (unsigned s = 0; s < l->nseg; s++)
		if (l->seg[s].counts)
			for (unsigned i = l->seg[s].first; i < l->seg[s].last; i++)
				r[k++] = l->ratio[i];
	first = mean_of(r, 0, third);
	last = mean_of(r, kept - third, kept);
	drift_se = hypot(se_of(r, 0, third), se_of(r, kept - third, kept));
	free(r);
	m->ratio_first = first;
	m->ratio_last = last;
	drift = fabs(last - first);
	if (drift > mo->drift_limit * m->ratio && drift > 4 * drift_se)
		m->drifted = 1;
	if (m->drifted && drift > 5 * mo->drift_limit * m->ratio)
		snprintf(m->untrusted, sizeof(m->untrusted),
			 "the core clock drifted %.2f%% during the run", 100 * drift / m->ratio);
	return 0;
}

/*
 * Pooled estimates of the segments that count (all of them when none is clean,
 * with their taint kept), the interval from the rounds' and segments' spread,
 * drift, and whether the result can be trusted.
 */
static int finish(struct t32_measurement *m, const struct t32_measure_opts *mo,
		  const enum t32_role *roles, size_t nb, struct loop *l, double tsc_hz,
		  int span_floor)
{
	struct t32_hist pool[T32_ROLES];
	struct t32_estimate est[T32_ROLES];
	struct t32_cost pc;
	double conv;
	uint64_t n = m->insns ? m->insns : 1;
	int calibrated = mo->unit == T32_UNIT_CYCLES, rc = 0;
	unsigned kept = 0;

	memset(pool, 0, sizeof(pool));
	memset(est, 0, sizeof(est));
	rc = pool_segments(m, roles, nb, l, pool, &kept);
	if (rc || !kept)
		goto out;
	for (size_t b = 0; b < nb; b++)
		t32_estimate_hist(&pool[roles[b]], m->q, &est[roles[b]]);
	m->block = est[T32_ROLE_BLOCK];
	m->empty = est[T32_ROLE_EMPTY];
	m->twin = est[T32_ROLE_TWIN];
	t32_summarize_hist(&pool[T32_ROLE_BLOCK], &m->sblock);
	t32_summarize_hist(&pool[T32_ROLE_EMPTY], &m->sempty);
	m->flags = m->block.flags | m->empty.flags | (m->twin_insns ? m->twin.flags : 0);
	if (m->taint & T32_TAINT_SHARED)
		m->flags |= T32_EST_SHARED;
	if (m->taint & T32_TAINT_BUSY)
		m->flags |= T32_EST_BUSY;
	if (m->taint & T32_TAINT_CORE)
		m->contended = 1;
	if (calibrated) {
		const double half = (double)(mo->cal_len - mo->cal_len / 2);

		m->ratio = half / (est[T32_ROLE_CAL].value - est[T32_ROLE_CALBASE].value);
		calibration_check(m, &pool[T32_ROLE_CAL], &pool[T32_ROLE_CALBASE], half);
		m->ratio_hw = spread_hw(l, l->ratio);
	}
	conv = conversion(mo->unit, m->ratio, tsc_hz);

	/* block minus empty, the fixed cost included; the pooled interval is a floor */
	t32_estimate_diff(&m->block, &m->empty, n, &pc);
	m->whole_value = pc.value * conv;
	m->whole_halfwidth = fmax(spread_hw(l, l->whole), t32_halfwidth(pc.value, pc.lo, pc.hi) * conv);
	m->value = m->whole_value;
	m->halfwidth = m->whole_halfwidth;
	m->estimand = T32_EST_WHOLE;
	if (m->twin_insns) {
		/* the marginal cost: what the instructions between twin and block add */
		t32_estimate_diff(&m->block, &m->twin, m->insns - m->twin_insns, &pc);
		m->estimand = T32_EST_SLOPE;
		m->value = pc.value * conv;
		m->halfwidth = fmax(spread_hw(l, l->cost), t32_halfwidth(pc.value, pc.lo, pc.hi) * conv);
		m->fixed = m->whole_value * (double)n - m->value * (double)n;
		m->fixed_halfwidth = spread_hw(l, l->fixed);
	}
	{
		double v[SV_N], ev[T32_ROLES];

		if (segments_mean(l, m, mo, roles, nb, tsc_hz, v, ev) == 0) {
			m->value = v[SV_COST];
			m->whole_value = v[SV_WHOLE];
			m->fixed = v[SV_FIXED];
			m->block.value = ev[T32_ROLE_BLOCK];
			m->empty.value = ev[T32_ROLE_EMPTY];
			m->twin.value = ev[T32_ROLE_TWIN];
		}
	}
	m->min_value = ((double)m->sblock.min - (double)m->sempty.min) / (double)n * conv;
	m->block_value = m->block.value * conv;
	m->empty_value = m->empty.value * conv;
	if (roles[nb - 1] == T32_ROLE_VECBASE) {
		/* the sensors ran: the last roles are theirs */
		double ev[T32_ROLES];

		for (int r = 0; r < T32_ROLES; r++)
			ev[r] = est[r].value;
		sensors_judge(m, l, ev, mo->cal_len, span_floor);
	}

	if (calibrated && judge_drift(m, mo, l, kept))
		rc = T32_EXIT_ERROR;
out:
	for (int b = 0; b < T32_ROLES; b++)
		t32_hist_free(&pool[b]);
	return rc;
}

/*
 * The half-width per instruction that stops a measurement: --precision or
 * --block-precision over n, whichever is reached first (the looser); 0: none.
 */
static double stop_target(const struct t32_measure_opts *mo, uint64_t insns)
{
	double per = mo->precision > 0 ? mo->precision : 0;
	double block = mo->block_precision > 0 ? mo->block_precision / (double)(insns ? insns : 1) : 0;

	return fmax(per, block);
}

/*
 * The seconds an interval of half-width hw after `seconds` would need to narrow
 * to target, at best as one over the square root of the time spent; 0 when it
 * cannot be told or the target is met.
 */
static double needed_seconds(double seconds, double hw, double target)
{
	if (!(target > 0) || !(hw > target) || !isfinite(hw))
		return 0;
	return seconds * (hw / target) * (hw / target);
}

/*
 * How well the sensors know the core clock, relative: the largest of their
 * distances from the adds' clock and their half-widths (0 without sensors).
 * A block is slowed by a shared core as much as a chain is, or more, so a clock
 * known to 1% cannot back a result to 0.1%.
 */
static double sensor_span(const struct t32_measurement *m)
{
	double mean, hw;

	return sensors_combine(m->sense_lat, m->sense, m->sense_hw, &mean, &hw);
}

/* "; stopped at S s: ..." when the measurement stopped early as futile, else "". */
static const char *futile_text(const struct t32_measurement *m,
			       const struct t32_measure_opts *mo, char *buf, size_t len)
{
	if (!(m->futile_seconds > 0))
		return "";
	snprintf(buf, len, "; stopped at %.2f s: at its pace it would have needed about %.0f s, "
		 "more than %d times the budget of %g s", m->seconds, m->futile_seconds,
		 T32_FUTILE_FACTOR, mo->budget);
	return buf;
}

void t32_measure_check(struct t32_measurement *m, const struct t32_measure_opts *mo,
		       int interrupted)
{
	const char *u = t32_unit_names[mo->unit];
	size_t len = sizeof(m->untrusted);
	char fut[200];

	/*
	 * A drift found while the readings were taken beside other work is that
	 * work's doing (the core was shared out, or its clock moved with the
	 * load): the reason names the work first, the drift after it.
	 */
	if (m->untrusted[0] && !(m->taint & (T32_TAINT_SHARED | T32_TAINT_BUSY)))
		return;
	if (m->untrusted[0]) {
		char drift[sizeof(m->untrusted)];

		snprintf(drift, sizeof(drift), "%s", m->untrusted);
		m->untrusted[0] = 0;
		t32_measure_check(m, mo, interrupted);
		if (m->untrusted[0] && strlen(m->untrusted) + strlen(drift) + 8 < len) {
			strcat(m->untrusted, "; and ");
			strcat(m->untrusted, drift);
		}
		else if (!m->untrusted[0])
			snprintf(m->untrusted, len, "%s", drift);
		return;
	}
	if (m->tsc_ghz > 0 && m->block.value / (m->tsc_ghz * 1e9) > m->seconds + 1)
		snprintf(m->untrusted, len,
			 "one run of the block read %.3g s, longer than the whole measurement (%.3g s): "
			 "the body broke the timing", m->block.value / (m->tsc_ghz * 1e9), m->seconds);
	else if (m->taint & (T32_TAINT_SHARED | T32_TAINT_BUSY)) {
		char cpu[256] = "", beside[256] = "";

		if (m->taint & T32_TAINT_SHARED)
			snprintf(cpu, sizeof(cpu), "on the measuring CPU%s%s%s", m->who[0] ? " ('" : "",
				 m->who, m->who[0] ? "')" : "");
		if (m->taint & T32_TAINT_BUSY)
			snprintf(beside, sizeof(beside), "%son a CPU that may share its core%s%s%s",
				 cpu[0] ? " and " : "", m->who_beside[0] ? " ('" : "", m->who_beside,
				 m->who_beside[0] ? "')" : "");
		snprintf(m->untrusted, len,
			 "other work ran %s%s in every measuring process (%u), so no readings could be "
			 "set aside: measure on a quiet machine%s", cpu, beside, m->segments,
			 m->taint & T32_TAINT_SHARED ? ""
						     : ", or with --ignore-busy where the other CPUs "
						       "share no core with it");
	}
	else if (m->contended != 0)
		snprintf(m->untrusted, len,
			 "another thread shared the core%s: the calibration chains of other units "
			 "disagree by %.2f%% (imul against add %.4f +- %.4f, vector against add "
			 "%.4f +- %.4f), and a block on the units it used is slowed by more; "
			 "measure when the machine (or its host) is quiet",
			 m->taint & T32_TAINT_CORE ? " in every measuring process" : "",
			 100 * m->contention, m->sense[0], m->sense_hw[0], m->sense[1],
			 m->sense_hw[1]);
	else if ((mo->precision > 0 || mo->block_precision > 0) &&
		 sensor_span(m) * fabs(m->value) > stop_target(mo, m->insns))
		snprintf(m->untrusted, len,
			 "the sensors know the core clock only to +-%.2f%% (imul against add %.4f "
			 "+- %.4f, vector against add %.4f +- %.4f: a core shared at times), more "
			 "than the +-%.3g %s asked allows", 100 * sensor_span(m), m->sense[0],
			 m->sense_hw[0], m->sense[1], m->sense_hw[1], stop_target(mo, m->insns), u);
	else if (m->block.flags & (T32_EST_FEW | T32_EST_FALLBACK))
		snprintf(m->untrusted, len,
			 "too few of the block's readings in its bulk (%llu of %llu)",
			 (unsigned long long)m->block.window, (unsigned long long)m->block.n);
	else if (m->empty.flags & (T32_EST_FEW | T32_EST_FALLBACK))
		snprintf(m->untrusted, len,
			 "too few of the empty block's readings in its bulk (%llu of %llu)",
			 (unsigned long long)m->empty.window, (unsigned long long)m->empty.n);
	else if (m->twin_insns && m->twin.flags & (T32_EST_FEW | T32_EST_FALLBACK))
		snprintf(m->untrusted, len,
			 "too few of the twin block's readings in its bulk (%llu of %llu)",
			 (unsigned long long)m->twin.window, (unsigned long long)m->twin.n);
	else if (!isfinite(m->value) || !isfinite(m->halfwidth))
		snprintf(m->untrusted, len, "the cost is not a finite number");
	else if (mo->unit == T32_UNIT_CYCLES &&
		 (!(m->ratio > T32_RATIO_MIN) || !(m->ratio < T32_RATIO_MAX)))
		snprintf(m->untrusted, len,
			 "the calibration read %.4g core cycles per tick, outside [%g, %g]",
			 m->ratio, T32_RATIO_MIN, T32_RATIO_MAX);
	else if (m->value + 2 * m->halfwidth < 0)
		snprintf(m->untrusted, len, "a negative cost, %.4g +- %.2g %s per instruction",
			 m->value, m->halfwidth, u);
	else if (m->segments_needed && !m->stopped_precise && !interrupted &&
		 m->halfwidth <= stop_target(mo, m->insns))
		snprintf(m->untrusted, len,
			 "the interval reached +-%.3g %s, but over %u measuring processes that "
			 "count, and trusting it takes %u (%u set aside: other work ran beside them)",
			 m->halfwidth, u, m->segments, m->segments_needed, m->set_aside);
	else if ((mo->precision > 0 || mo->block_precision > 0) && !m->stopped_precise &&
		 !interrupted)
		snprintf(m->untrusted, len,
			 "the interval never narrowed to +-%.3g %s (it is +-%.3g after %llu runs in "
			 "%u measuring processes%s)%s",
			 stop_target(mo, m->insns), u, m->halfwidth, (unsigned long long)m->runs,
			 m->segments, m->set_aside ? ", others set aside: other work ran beside them" : "",
			 futile_text(m, mo, fut, sizeof(fut)));
}

char *t32_measure_flags(const struct t32_measurement *m, char *buf, size_t len)
{
	t32_est_flags_str(m->flags, buf, len);
	if (m->drifted && strcmp(buf, "-") == 0)
		snprintf(buf, len, "drift");
	else if (m->drifted)
		strncat(buf, ",drift", len - strlen(buf) - 1);
	if (m->contended && strcmp(buf, "-") == 0)
		snprintf(buf, len, "contended");
	else if (m->contended)
		strncat(buf, ",contended", len - strlen(buf) - 1);
	return buf;
}

/* Seconds on the source's clock. */
static double source_now(const struct t32_source *src)
{
	return src->now ? src->now(src->ctx) : t32_now();
}

/* Seconds of a probe's call past which its runs dwarf the call's round trip. */
#define T32_PROBE_DWARFS 0.002

/* Microseconds of blocks per turn before switching to the next block. */
#define T32_TURN_SECONDS 5e-6

/*
 * A measurement its budget (or COUNT) ended: the interval it reports, judged
 * once by the stopping rule's terms (enough runs, enough processes that count,
 * the half-width at the target).  No moment to stop is chosen here, so none
 * narrows the interval by chance; and the process that ran to the budget's end
 * had no judgement of its own, so a result that reached the precision there
 * was called one that never did.  need: the processes that must count (0: a
 * source of one process, which needs its rounds).
 */
static void judge_at_end(struct t32_measurement *m, const struct t32_measure_opts *mo,
			 const struct loop *l, unsigned need)
{
	if (m->runs < mo->min_runs || !(m->halfwidth <= stop_target(mo, m->insns)))
		return;
	if (need ? counting(l) < need : l->n < T32_MIN_ROUNDS) {
		m->segments_needed = need;
		return;
	}
	m->stopped_precise = 1;
}

/* The roles a measurement runs each round: block and empty, then twin, calibration, sensors. */
static size_t measure_roles(int twin, int calibrated, int sensors, enum t32_role *roles)
{
	size_t nb = 0;

	roles[nb++] = T32_ROLE_BLOCK;
	roles[nb++] = T32_ROLE_EMPTY;
	if (twin)
		roles[nb++] = T32_ROLE_TWIN;
	if (calibrated) {
		roles[nb++] = T32_ROLE_CAL;
		roles[nb++] = T32_ROLE_CALBASE;
	}
	if (sensors)
		for (int b = T32_ROLE_MUL; b < T32_ROLES; b++)
			roles[nb++] = (enum t32_role)b;
	return nb;
}

/*
 * Size a turn from a first probe (batched: the blocks' own cost, the round trip
 * of a call left out): about T32_TURN_SECONDS of the slowest block
 * (runs of all blocks in turn, so block and calibration see the same clock
 * microseconds apart), and a round of the schedule's length of the block.
 * *per_out runs of each block a turn, *skip_out discarded before them,
 * *reps_out turns a round, *first_out seconds the first segment (the
 * schedule's, stretched for a slow block).  0, or the source's exit code.
 */
static int size_turn(const struct t32_source *src, enum t32_placements p,
		     const struct t32_measure_opts *mo, size_t nb,
		     const enum t32_role *roles, uint64_t *raw, uint64_t *per_out,
		     uint64_t *skip_out, uint64_t *reps_out, double *first_out, double *round_out)
{
	const struct schedule *sc = &schedules[p];
	double t0 = 0, per_run, first;
	uint64_t per, skip, reps;
	int rc;

	/* the first pass is cold: time the second */
	for (int pass = 0; pass < 2; pass++) {
		t0 = source_now(src);
		if ((rc = src->run(src->ctx, nb, roles, 16, 0, 1, 1, raw)))
			return rc;
	}
	per_run = (source_now(src) - t0) / (16.0 * (double)nb);
	if (src->batched && per_run * 16.0 * (double)nb < T32_PROBE_DWARFS) {
		/*
		 * A call to the measuring process costs a round trip of its own (tens of
		 * microseconds, hundreds under a busy hypervisor), which a run of 16
		 * cheap blocks does not dwarf: a call of eight times the runs, less the
		 * first, leaves the blocks' own cost.  Slow blocks (a first call over
		 * T32_PROBE_DWARFS) dwarf it already, and eight times their runs would
		 * cost a row of 100,000 instructions 7 ms.
		 */
		double t1 = per_run * 16.0 * (double)nb, t8, own;

		t0 = source_now(src);
		if ((rc = src->run(src->ctx, nb, roles, 16, 0, 8, 1, raw)))
			return rc;
		t8 = source_now(src) - t0;
		own = (t8 - t1) / (7 * 16.0 * (double)nb);
		if (own > 0 && own < per_run)
			per_run = own;
	}
	per = (uint64_t)(T32_TURN_SECONDS / (per_run > 1e-9 ? per_run : 1e-9));
	per = per < 1 ? 1 : per > 64 ? 64 : per;
	skip = per >= 4 ? 1 : 0;
	first = fmax(sc->first, sc->floor_runs * per_run * (double)nb);
	reps = (uint64_t)(sc->round * (first / sc->first) /
			  (per_run * (double)nb * (double)(per + skip)) + 1);
	if (mo->batch)
		reps = mo->batch / per + 1;
	while (reps * per * nb > T32_RUNNER_CHUNK)
		reps--;
	if (mo->max_runs && per > mo->max_runs)
		per = mo->max_runs;
	if (mo->max_runs && reps * per > mo->max_runs)
		reps = mo->max_runs / per;
	/* a fixed count still spreads over processes, each of enough rounds */
	if (mo->max_runs && reps > 1 &&
	    reps * per * T32_MIN_SEGMENTS * T32_MIN_ROUNDS > mo->max_runs)
		reps = mo->max_runs / (per * T32_MIN_SEGMENTS * T32_MIN_ROUNDS) + 1;
	*per_out = per;
	*skip_out = skip;
	*reps_out = reps;
	*first_out = first;
	*round_out = per_run * (double)nb * (double)(reps * (per + skip));
	return 0;
}

/*
 * Seconds a call of batched rounds runs at most: Ctrl-C is heard between calls,
 * and a call that runs past --timeout is taken for a block that hangs.
 */
#define T32_BATCH_SECONDS 0.05

/* Readings a round holds, of all its blocks. */
#define ROUND_READINGS(nb, per, reps) ((uint64_t)(nb) * (per) * (reps))

/*
 * Rounds the next call runs when rounds are batched: those that take the open
 * segment to its length and its minimum of rounds (the last segment: to the
 * budget's end), the budget permitting, each `round` seconds long; at least one,
 * and no more than a call holds or T32_BATCH_SECONDS runs.  *ends: they take the
 * segment to its length (none was cut off by the caps or the budget).
 */
static uint64_t batch_rounds(enum t32_placements p, double first, const struct loop *l,
			     double in_segment, double left, int last_segment, double round,
			     uint64_t readings, int *ends)
{
	const struct segment *g = &l->seg[l->nseg - 1];
	const unsigned have = g->last - g->first;
	const double to_end = segment_seconds(p, first, counting(l) + (have < T32_MIN_ROUNDS)) -
			      in_segment;
	double want = last_segment ? left : fmin(left, to_end);
	uint64_t k = want > 0 && round > 0 ? (uint64_t)ceil(want / round) : 1, asked;

	if (!last_segment && have + k < T32_MIN_ROUNDS)
		k = T32_MIN_ROUNDS - have;
	asked = k;
	if (k * readings > T32_RUNNER_CHUNK)
		k = T32_RUNNER_CHUNK / readings;
	if (round > 0 && (double)k * round > T32_BATCH_SECONDS)
		k = (uint64_t)(T32_BATCH_SECONDS / round);
	*ends = !last_segment && k >= asked && to_end <= left;
	return k ? k : 1;
}

/*
 * One round's readings (raw: reps turns of per runs of each of the nb roles)
 * into the segment's histograms and the raw file, each role's estimate into
 * est; one is room for a role's readings.  0, or -1 out of memory.
 */
static int round_readings(const struct t32_measurement *m, struct segment *g, size_t nb,
			  const enum t32_role *roles, const uint64_t *raw, uint64_t per,
			  uint64_t reps, uint64_t *one, FILE *rawf, double *est)
{
	for (size_t b = 0; b < nb; b++) {
		struct t32_estimate e;
		uint64_t k = 0;

		for (uint64_t j = 0; j < reps; j++)
			for (uint64_t i = 0; i < per; i++)
				one[k++] = raw[(j * nb + b) * per + i];
		if (t32_hist_add(&g->hist[roles[b]], one, k))
			return -1;
		t32_estimate(one, k, m->q, &e);
		est[roles[b]] = e.value;
		if (rawf)
			for (uint64_t i = 0; i < k; i++)
				fprintf(rawf, "%u\t%s\t%llu\n", m->rounds, t32_role_names[roles[b]],
					(unsigned long long)one[i]);
	}
	return 0;
}

/*
 * The measuring loop.  Its length has a reason: the rounds, the hand-over to fresh
 * processes and the three ways to stop (precision, runs, budget) share their
 * state, and splitting them would pass that state around in pieces.
 */
int t32_measure_source(const struct t32_source *src, uint64_t n, uint64_t twin_n,
		       const struct t32_measure_opts *mo, volatile int *stop,
		       struct t32_measurement *m)
{
	struct loop l = { 0 };
	enum t32_role roles[T32_ROLES];
	uint64_t *raw = NULL, *one = NULL, per, reps, skip, seg_runs = 0, ahead = 0, at = 0;
	double start, seg_t0 = 0, first = 0, futile_since = 0, round_s = 0;
	size_t nb = 0;
	const uint64_t half = mo->cal_len - mo->cal_len / 2;	/* cycles between the chains */
	const uint64_t dn = twin_n ? n - twin_n : n;
	FILE *rawf = NULL;
	struct t32_out rawo;
	int rc = 0, calibrated = mo->unit == T32_UNIT_CYCLES, last_segment = 0, plan_ends = 0;
	const int sensors = calibrated && src->sensors;
	const int wants_precise = mo->precision > 0 || mo->block_precision > 0;
	const enum t32_placements p = placements_for(src->placements, calibrated);

	memset(m, 0, sizeof(*m));
	m->insns = n;
	m->twin_insns = twin_n < n ? twin_n : 0;
	m->tsc_ghz = src->tsc_hz / 1e9;
	m->q = src->q;
	nb = measure_roles(m->twin_insns != 0, calibrated, sensors, roles);
	raw = malloc(T32_RUNNER_CHUNK * sizeof(uint64_t));
	one = malloc(T32_RUNNER_CHUNK / 2 * sizeof(uint64_t));
	l.seg = calloc(T32_MAX_SEGMENTS, sizeof(*l.seg));
	if (!raw || !one || !l.seg || segment_open(&l, 0)) {
		rc = T32_EXIT_ERROR;
		goto out;
	}
	if (mo->raw_path) {
		/* written whole beside the target and renamed: a full disk leaves the old file */
		if (t32_out_open(&rawo, mo->raw_path)) {
			rc = T32_EXIT_ERROR;
			goto out;
		}
		rawf = rawo.f;
		fprintf(rawf, "round\tblock\tticks\n");
	}

	if ((rc = size_turn(src, p, mo, nb, roles, raw, &per, &skip, &reps, &first, &round_s)))
		goto out;
	const int batched = src->batched && src->respawn;

	start = source_now(src);
	for (;;) {
		struct segment *g = &l.seg[l.nseg - 1];
		double est[T32_ROLES] = { 0 }, r = 1, conv, c, w, f, sense[T32_SENSORS] = { NAN, NAN };

		/* batched: the rounds up to the next judgement in one call, then one by one */
		if (!batched) {
			if ((rc = src->run(src->ctx, nb, roles, per, skip, reps, 1, raw)))
				goto out;
			at = 0;
		} else if (ahead) {
			at++;
		} else {
			ahead = batch_rounds(p, first, &l, m->seconds - seg_t0, mo->budget - m->seconds,
					     last_segment, round_s, ROUND_READINGS(nb, per, reps),
					     &plan_ends);
			plan_ends &= src->batched == T32_ROUNDS_PLANNED;
			/* a count of runs ends on it exactly */
			if (mo->max_runs && m->runs + ahead * reps * per > mo->max_runs) {
				ahead = (mo->max_runs - m->runs) / (reps * per);
				plan_ends = 0;
			}
			if (!ahead)
				ahead = 1;
			if ((rc = src->run(src->ctx, nb, roles, per, skip, reps, ahead, raw)))
				goto out;
			m->seconds = source_now(src) - start;
			at = 0;
		}
		if (round_readings(m, g, nb, roles, raw + at * ROUND_READINGS(nb, per, reps), per, reps,
				   one, rawf, est)) {
			rc = T32_EXIT_ERROR;
			goto out;
		}
		if (calibrated)
			r = (double)half / (est[T32_ROLE_CAL] - est[T32_ROLE_CALBASE]);
		if (sensors)
			sensors_of_round(est, mo->cal_len, sense);
		conv = conversion(mo->unit, r, src->tsc_hz);
		w = (est[T32_ROLE_BLOCK] - est[T32_ROLE_EMPTY]) / (double)n * conv;
		c = m->twin_insns ? (est[T32_ROLE_BLOCK] - est[T32_ROLE_TWIN]) / (double)dn * conv : w;
		f = m->twin_insns ? (w - c) * (double)n : 0;
		if (rounds_add(&l, c, w, f, r, sense)) {
			rc = T32_EXIT_ERROR;
			goto out;
		}
		g->last = l.n;
		m->rounds++;
		m->runs += reps * per;
		seg_runs += reps * per;
		if (!batched)
			m->seconds = source_now(src) - start;

		/* the rest of a batch was measured: it is read before anything is judged */
		if (batched && --ahead)
			continue;
		if (stop && *stop)
			break;
		if (mo->max_runs && m->runs >= mo->max_runs)
			break;
		if (m->seconds >= mo->budget)
			break;

		/*
		 * A segment is over: look beside it, stop if the interval is narrow
		 * enough over enough clean placements, else place the blocks afresh.
		 * The interval is judged at segment ends only: judged after every round
		 * it would stop on the moment its spread happened to look small.
		 */
		if (!src->respawn) {
			if (wants_precise && m->runs >= mo->min_runs && l.n >= T32_MIN_ROUNDS) {
				g->counts = 1;
				if (stop_hw(&l) <= stop_target(mo, m->insns)) {
					m->stopped_precise = 1;
					break;
				}
				g->counts = 0;
			}
		} else if (!last_segment && g->last - g->first >= T32_MIN_ROUNDS &&
			   (m->seconds - seg_t0 >=
			    segment_seconds(p, first, counting(&l)) || plan_ends ||
			    (mo->max_runs && seg_runs * T32_MIN_SEGMENTS >= mo->max_runs))) {
			segment_close(src, &l, mo->ignore_busy);
			/* judged once the stopping rule's minimum of placements count */
			if (wants_precise && counting(&l) >= schedules[p].min_segments) {
				const double hw = stop_hw(&l), target = stop_target(mo, m->insns);
				const double need = needed_seconds(m->seconds, hw, target);

				if (g->counts && m->runs >= mo->min_runs && hw <= target) {
					m->stopped_precise = 1;
					break;
				}
				/*
				 * Futile only when it still says so after the time spent
				 * has doubled: a stall of the host early on (a few
				 * segments' runs taking ten times as long) predicts a
				 * pace the measurement then beats.
				 */
				if (!(src->futility && need > T32_FUTILE_FACTOR * mo->budget)) {
					futile_since = 0;
				} else if (!(futile_since > 0) &&
					   src->futility == T32_FUTILITY_CONFIRMED) {
					futile_since = m->seconds;
				} else if (m->seconds >= 2 * futile_since) {
					m->futile_seconds = need;
					break;
				}
			}
			if (m->seconds + segment_room(p, first, counting(&l)) >= mo->budget ||
			    l.nseg == schedules[p].cap || segment_open(&l, l.n)) {
				/* no time for another process: this one goes on to the end */
				last_segment = 1;
			} else {
				seg_runs = 0;
				if ((rc = src->respawn(src->ctx)))
					goto out;
				seg_t0 = m->seconds = source_now(src) - start;
			}
		}

		/* end on max_runs exactly: COUNT means COUNT */
		if (mo->max_runs && m->runs + reps * per > mo->max_runs) {
			uint64_t left = mo->max_runs - m->runs;

			if (left >= per)
				reps = left / per;
			else {
				per = left;
				reps = 1;
			}
		}
	}
	/* the last segment: judged like the others (an empty one is dropped) */
	if (!m->stopped_precise) {
		if (l.seg[l.nseg - 1].last > l.seg[l.nseg - 1].first)
			segment_close(src, &l, mo->ignore_busy);
		else
			l.nseg--;
	}
	if (!src->respawn && m->stopped_precise)
		l.seg[0].counts = 1;
	if (m->rounds && (rc = finish(m, mo, roles, nb, &l, src->tsc_hz, src->span_floor)) == 0) {
		if (src->finish)
			src->finish(src->ctx, m);
		if (m->steal_share >= T32_STEAL_SHARE)
			m->flags |= T32_EST_STEAL;
		if (!m->stopped_precise && wants_precise && !(stop && *stop))
			judge_at_end(m, mo, &l, src->respawn ? schedules[p].min_segments : 0);
		t32_measure_check(m, mo, stop && *stop);
	}
out:
	if (rawf && rc)
		t32_out_abort(&rawo);
	else if (rawf && t32_out_commit(&rawo))
		rc = T32_EXIT_ERROR;
	loop_free(&l);
	free(raw);
	free(one);
	return rc;
}
