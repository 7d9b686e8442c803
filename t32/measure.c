/*
 * measure.c - rounds of block, empty, calibration and calibration-empty runs until
 * the per-instruction cost is known well enough.
 */
#include "t32/measure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <gsl/gsl_cdf.h>

#include "t32/run.h"
#include "t32/shared.h"
#include "t32/util.h"

const char *const t32_unit_names[] = { "cycles", "ticks", "ns" };

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
 * Seconds a measuring process serves before a fresh one (new placement of code and
 * arena, and a core clock that may have moved) takes over, and segments needed
 * before their spread counts: results move by a few tenths of a percent from
 * process to process, more than the rounds within one process can show.  A target
 * finer than T32_PLACEMENT_SHARE of the whole block waits for T32_MIN_SEGMENTS processes,
 * the first ones short.
 */
#define T32_SEGMENT_SECONDS 0.25
#define T32_FIRST_SEGMENT_SECONDS 0.015
#define T32_MIN_SEGMENTS 4
#define T32_PLACEMENT_SHARE 0.003

/*
 * 95% half-width from the spread of the segments' means (the open segment counts
 * when it has enough rounds); 0 while there are too few segments to say.
 */
static double segment_hw(double *seg, unsigned nseg, const double *cost, unsigned first,
			 unsigned rounds)
{
	double mean, hw;
	unsigned n = nseg;

	if (rounds - first >= T32_MIN_ROUNDS && n < 256)
		seg[n++] = mean_of(cost, first, rounds);
	if (n < T32_MIN_SEGMENTS)
		return 0;
	batch_means(seg, n, &mean, &hw);
	return hw;
}

enum { B_BLOCK, B_EMPTY, B_CAL, B_CALEMPTY, B_N };

static const char *const block_names[B_N] = { "block", "empty", "calibration", "calibration-base" };

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

/* The real source: blocks interleaved in the warm measuring process. */
struct real_source {
	struct t32_session ss;
	struct t32_share share;	/* who else ran on the measuring CPU */
};

static int session_run(void *ctx, size_t nb, uint64_t per, uint64_t skip, uint64_t reps,
		       uint64_t *out)
{
	struct real_source *rs = ctx;

	return t32_session_interleaved(&rs->ss, nb, per, skip, reps, out);
}

/* A fresh process; a look at the CPU between processes costs the measurement nothing. */
static int session_respawn(void *ctx)
{
	struct real_source *rs = ctx;

	t32_share_sample(&rs->share);
	return t32_session_respawn(&rs->ss);
}

int t32_measure(const struct t32_spec *spec, const struct t32_block_opts *bo,
		const struct t32_measure_opts *mo, volatile int *stop, struct t32_measurement *m)
{
	struct t32_spec empty, cal = { 0 }, calempty;
	const struct t32_spec *specs[B_N];
	struct real_source rs;
	struct t32_source src;
	uint64_t insns = t32_spec_insns(spec);
	char err[128];
	int rc;

	memset(m, 0, sizeof(*m));
	if (mo->base) {
		uint64_t b = t32_spec_insns(mo->base);

		insns = insns > b ? insns - b : 0;
	}
	t32_spec_empty(spec, &empty);
	t32_spec_set_barrier(&cal, "l", err, sizeof(err));
	cal.store = 'm';
	if (t32_spec_add_item(&cal, mo->cal_len, "add eax, 1"))
		return T32_EXIT_ERROR;
	/* the base chain is half as long: their difference has no pipeline-fill constant */
	calempty = cal;
	calempty.items = NULL;
	calempty.nitems = 0;
	if (t32_spec_add_item(&calempty, mo->cal_len / 2, "add eax, 1")) {
		t32_spec_free(&cal);
		return T32_EXIT_ERROR;
	}
	specs[B_BLOCK] = spec;
	specs[B_EMPTY] = mo->base ? mo->base : &empty;
	specs[B_CAL] = &cal;
	specs[B_CALEMPTY] = &calempty;
	rc = t32_session_open(&rs.ss, specs, mo->unit == T32_UNIT_CYCLES ? B_N : 2, bo);
	if (!rc) {
		src = (struct t32_source){ session_run, session_respawn, NULL, &rs, t32_machine_tsc_hz(),
					   t32_machine_tsc_step(NULL) };
		t32_share_begin(&rs.share, bo->run.cpu >= 0 ? bo->run.cpu : t32_default_cpu());
		rc = t32_measure_source(&src, insns, mo, stop, m);
		if (!rc && t32_share_end(&rs.share)) {
			m->flags |= T32_EST_SHARED;
			if (rs.share.others >= 2)
				t32_warn("cpu %d was shared with '%s' while measuring: "
					 "results may be off (flag shared)", rs.share.cpu, rs.share.who);
			else
				t32_warn("the hypervisor stole %.1f%% of cpu %d while measuring: "
					 "results may be off (flag shared)",
					 100 * rs.share.steal_share, rs.share.cpu);
		}
	}
	t32_session_close(&rs.ss);
	t32_spec_free(&cal);
	t32_spec_free(&calempty);
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
	rc = t32_measure(&s, &o, &mo, NULL, m);
out:
	free(code);
	t32_spec_free(&s);
	t32_spec_free(&base);
	return rc;
}

/* Rounds' worth of state for t32_measure_source. */
struct rounds {
	double *cost, *ratio;	/* per round: unit per instruction; cycles per tick */
	unsigned n, cap;
};

static int rounds_add(struct rounds *r, double cost, double ratio)
{
	if (r->n == r->cap) {
		unsigned cap = r->cap ? r->cap * 2 : 64;
		double *c = realloc(r->cost, cap * sizeof(double));

		if (c)
			r->cost = c;
		double *q = c ? realloc(r->ratio, cap * sizeof(double)) : NULL;

		if (!q)
			return -1;
		r->ratio = q;
		r->cap = cap;
	}
	r->cost[r->n] = cost;
	r->ratio[r->n++] = ratio;
	return 0;
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

/*
 * Pooled estimates, the interval from the rounds' and segments' spread, drift,
 * and whether the result can be trusted.
 */
static void finish(struct t32_measurement *m, const struct t32_measure_opts *mo,
		   const struct t32_hist *hist, unsigned nb, const struct rounds *rd,
		   double *seg, unsigned nseg, unsigned seg_first, volatile int *stop)
{
	struct t32_cost pc;
	double mean, hw, conv, ratio_mean, drift_se = INFINITY, drift;
	unsigned third = m->rounds / 3;
	uint64_t n = m->insns ? m->insns : 1;

	if (m->rounds == 0)
		return;
	t32_estimate_hist(&hist[B_BLOCK], m->q, &m->block);
	t32_estimate_hist(&hist[B_EMPTY], m->q, &m->empty);
	t32_summarize_hist(&hist[B_BLOCK], &m->sblock);
	t32_summarize_hist(&hist[B_EMPTY], &m->sempty);
	m->flags = m->block.flags | m->empty.flags;
	if (nb == B_N) {
		struct t32_estimate a, b;

		t32_estimate_hist(&hist[B_CAL], m->q, &a);
		t32_estimate_hist(&hist[B_CALEMPTY], m->q, &b);
		m->ratio = (double)(mo->cal_len - mo->cal_len / 2) / (a.value - b.value);
		calibration_check(m, &hist[B_CAL], &hist[B_CALEMPTY],
				  (double)(mo->cal_len - mo->cal_len / 2));
		batch_means(rd->ratio, m->rounds, &ratio_mean, &m->ratio_hw);
		if (third) {
			m->ratio_first = mean_of(rd->ratio, 0, third);
			m->ratio_last = mean_of(rd->ratio, m->rounds - third, m->rounds);
			drift_se = hypot(se_of(rd->ratio, 0, third),
					 se_of(rd->ratio, m->rounds - third, m->rounds));
		}
	}
	conv = conversion(mo->unit, m->ratio, m->tsc_ghz * 1e9);
	t32_estimate_diff(&m->block, &m->empty, n, &pc);
	m->value = pc.value * conv;
	batch_means(rd->cost, m->rounds, &mean, &hw);
	hw = fmax(hw, segment_hw(seg, nseg, rd->cost, seg_first, m->rounds));
	m->segments = nseg + (m->rounds > seg_first);
	/* the pooled interval is a floor: the rounds may agree by chance */
	m->halfwidth = fmax(hw, t32_halfwidth(pc.value, pc.lo, pc.hi) * conv);
	/*
	 * Fewer processes than it takes to see placement: the interval cannot be
	 * narrower than what placement may move (the stopping rule allowed this only
	 * where that is within the target).
	 */
	if (m->segments < T32_MIN_SEGMENTS)
		m->halfwidth = fmax(m->halfwidth,
				    T32_PLACEMENT_SHARE * fabs(m->block.value * conv) / (double)n);
	m->min_value = ((double)m->sblock.min - (double)m->sempty.min) / (double)n * conv;
	m->block_value = m->block.value * conv;
	m->empty_value = m->empty.value * conv;
	/*
	 * Drift: a change of the ratio beyond the limit that noise does not explain
	 * (4 sigma).  Each round carries its own calibration, so moderate drift is
	 * flagged; only drift too large for that to hold makes the result untrusted.
	 */
	drift = third ? fabs(m->ratio_last - m->ratio_first) : 0;
	if (drift > mo->drift_limit * m->ratio && drift > 4 * drift_se)
		m->drifted = 1;
	if (m->drifted && drift > 5 * mo->drift_limit * m->ratio)
		snprintf(m->untrusted, sizeof(m->untrusted),
			 "the core clock drifted %.2f%% during the run", 100 * drift / m->ratio);
	t32_measure_check(m, mo, stop && *stop);
}

void t32_measure_check(struct t32_measurement *m, const struct t32_measure_opts *mo,
		       int interrupted)
{
	const char *u = t32_unit_names[mo->unit];
	size_t len = sizeof(m->untrusted);

	if (m->untrusted[0])
		return;
	if (m->tsc_ghz > 0 && m->block.value / (m->tsc_ghz * 1e9) > m->seconds + 1)
		snprintf(m->untrusted, len,
			 "one run of the block read %.3g s, longer than the whole measurement (%.3g s): "
			 "the body broke the timing", m->block.value / (m->tsc_ghz * 1e9), m->seconds);
	else if (m->block.flags & (T32_EST_FEW | T32_EST_FALLBACK))
		snprintf(m->untrusted, len,
			 "too few of the block's readings in its bulk (%llu of %llu)",
			 (unsigned long long)m->block.window, (unsigned long long)m->block.n);
	else if (m->empty.flags & (T32_EST_FEW | T32_EST_FALLBACK))
		snprintf(m->untrusted, len,
			 "too few of the empty block's readings in its bulk (%llu of %llu)",
			 (unsigned long long)m->empty.window, (unsigned long long)m->empty.n);
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
	else if ((mo->precision > 0 || mo->block_precision > 0) && !m->stopped_precise &&
		 !interrupted)
		snprintf(m->untrusted, len,
			 "the interval never narrowed to +-%.3g %s (it is +-%.3g after %llu runs)",
			 stop_target(mo, m->insns), u, m->halfwidth, (unsigned long long)m->runs);
}

/* Seconds on the source's clock. */
static double source_now(const struct t32_source *src)
{
	return src->now ? src->now(src->ctx) : t32_now();
}

/* Microseconds of blocks per turn before switching to the next block. */
#define T32_TURN_SECONDS 5e-6

int t32_measure_source(const struct t32_source *src, uint64_t insns,
		       const struct t32_measure_opts *mo, volatile int *stop,
		       struct t32_measurement *m)
{
	struct t32_hist hist[B_N];
	struct rounds rd = { 0 };
	uint64_t *raw = NULL, *one = NULL, per, reps, skip;
	double start, seg_t0 = 0, seg[256], est_block_unit = 0;
	unsigned seg_first = 0, nseg = 0, nb = mo->unit == T32_UNIT_CYCLES ? B_N : 2;
	const uint64_t half = mo->cal_len - mo->cal_len / 2;	/* cycles between the chains */
	FILE *rawf = NULL;
	struct t32_out rawo;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	memset(hist, 0, sizeof(hist));
	m->insns = insns;
	m->tsc_ghz = src->tsc_hz / 1e9;
	m->q = src->q;
	raw = malloc(T32_RUNNER_CHUNK * sizeof(uint64_t));
	one = malloc(T32_RUNNER_CHUNK / B_N * sizeof(uint64_t));
	if (!raw || !one) {
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

	/*
	 * Size a turn from a first probe: about T32_TURN_SECONDS of the slowest block
	 * (runs of all blocks in turn, so block and calibration see the same clock
	 * microseconds apart), and a round of about 0.4 ms of the block.
	 */
	{
		double t0 = 0;

		/* the first pass is cold: time the second */
		for (int pass = 0; pass < 2; pass++) {
			t0 = source_now(src);
			if ((rc = src->run(src->ctx, nb, 16, 0, 1, raw)))
				goto out;
		}
		double per_run = (source_now(src) - t0) / (16.0 * nb);

		per = (uint64_t)(T32_TURN_SECONDS / (per_run > 1e-9 ? per_run : 1e-9));
		per = per < 1 ? 1 : per > 64 ? 64 : per;
		skip = per >= 4 ? 1 : 0;
		reps = (uint64_t)(0.0004 / (per_run * nb * (double)(per + skip)) + 1);
		if (mo->batch)
			reps = mo->batch / per + 1;
		while (reps * per * nb > T32_RUNNER_CHUNK)
			reps--;
		if (mo->max_runs && per > mo->max_runs)
			per = mo->max_runs;
		if (mo->max_runs && reps * per > mo->max_runs)
			reps = mo->max_runs / per;
	}

	start = source_now(src);
	for (;;) {
		double est[B_N], c, r = 1;

		if ((rc = src->run(src->ctx, nb, per, skip, reps, raw)))
			goto out;
		for (unsigned b = 0; b < nb; b++) {
			struct t32_estimate e;
			uint64_t k = 0;

			for (uint64_t j = 0; j < reps; j++)
				for (uint64_t i = 0; i < per; i++)
					one[k++] = raw[(j * nb + b) * per + i];
			if (t32_hist_add(&hist[b], one, k)) {
				rc = T32_EXIT_ERROR;
				goto out;
			}
			t32_estimate(one, k, m->q, &e);
			est[b] = e.value;
			if (rawf)
				for (uint64_t i = 0; i < k; i++)
					fprintf(rawf, "%u\t%s\t%llu\n", m->rounds, block_names[b],
						(unsigned long long)one[i]);
		}
		if (nb == B_N)
			r = (double)half / (est[B_CAL] - est[B_CALEMPTY]);
		est_block_unit = est[B_BLOCK] * conversion(mo->unit, r, src->tsc_hz);
		c = (est[B_BLOCK] - est[B_EMPTY]) / (double)(m->insns ? m->insns : 1);
		if (rounds_add(&rd, c * conversion(mo->unit, r, src->tsc_hz), r)) {
			rc = T32_EXIT_ERROR;
			goto out;
		}
		m->rounds++;
		m->runs += reps * per;
		m->seconds = source_now(src) - start;

		/* a segment is over: note its mean, hand over to a fresh process */
		if (src->respawn &&
		    m->seconds - seg_t0 >= (nseg + 1 < T32_MIN_SEGMENTS ? T32_FIRST_SEGMENT_SECONDS :
					    T32_SEGMENT_SECONDS) &&
		    m->seconds + 0.1 < mo->budget && m->rounds - seg_first >= T32_MIN_ROUNDS &&
		    nseg < 255 && !(stop && *stop)) {
			seg[nseg++] = mean_of(rd.cost, seg_first, m->rounds);
			seg_first = m->rounds;
			if ((rc = src->respawn(src->ctx)))
				goto out;
			seg_t0 = m->seconds = source_now(src) - start;
		}

		if (stop && *stop)
			break;
		if (mo->max_runs && m->runs >= mo->max_runs)
			break;
		if (m->seconds >= mo->budget)
			break;
		if ((mo->precision > 0 || mo->block_precision > 0) && m->rounds >= T32_MIN_ROUNDS &&
		    m->runs >= mo->min_runs) {
			double mean, hw;

			double target = stop_target(mo, m->insns);
			unsigned segs = nseg + (m->rounds - seg_first >= T32_MIN_ROUNDS);

			batch_means(rd.cost, m->rounds, &mean, &hw);
			hw = fmax(hw, segment_hw(seg, nseg, rd.cost, seg_first, m->rounds));
			/* placement moves the whole block: compare on the block's scale */
			double block = fabs(est_block_unit);

			if (hw <= target && (!src->respawn || segs >= T32_MIN_SEGMENTS ||
					     target * (double)(m->insns ? m->insns : 1) >=
						     T32_PLACEMENT_SHARE * block)) {
				m->stopped_precise = 1;
				break;
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
	finish(m, mo, hist, nb, &rd, seg, nseg, seg_first, stop);
out:
	if (rawf && rc)
		t32_out_abort(&rawo);
	else if (rawf && t32_out_commit(&rawo))
		rc = T32_EXIT_ERROR;
	for (int b = 0; b < B_N; b++)
		t32_hist_free(&hist[b]);
	free(raw);
	free(one);
	free(rd.cost);
	free(rd.ratio);
	return rc;
}
