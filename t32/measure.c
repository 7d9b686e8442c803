/*
 * measure.c - rounds of block, empty, calibration and calibration-empty runs until
 * the per-instruction cost is known well enough.
 */
#include "t32/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

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

/* Student's t for 95% two-sided with df degrees of freedom (table, then 1.96). */
static double t95(unsigned df)
{
	static const double t[] = { 12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23,
				    2.20, 2.18, 2.16, 2.14, 2.13, 2.12, 2.11, 2.10, 2.09, 2.09 };

	if (df == 0)
		return INFINITY;
	if (df <= 20)
		return t[df - 1];
	return df <= 40 ? 2.04 : df <= 120 ? 2.00 : 1.96;
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
 * arena) takes over, and segments needed before their spread counts: where the
 * code lands shifts small differences by a tenth of a cycle from process to
 * process, more than the rounds within one process can show.
 */
#define T32_SEGMENT_SECONDS 0.25
#define T32_MIN_SEGMENTS 4

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

int t32_measure(const struct t32_spec *spec, const struct t32_block_opts *bo,
		const struct t32_measure_opts *mo, volatile int *stop, struct t32_measurement *m)
{
	struct t32_spec empty, cal = { 0 }, calempty;
	const struct t32_spec *specs[B_N];
	struct t32_session ss;
	struct t32_hist hist[B_N];
	uint64_t *raw = NULL, batch, maxbatch = 16384;
	double *cost = NULL, *ratio = NULL, start, seg_t0 = 0, seg[256];
	unsigned seg_first = 0, nseg = 0;
	unsigned cap = 0, nb = B_N;
	FILE *rawf = NULL;
	int rc;
	char err[128];

	memset(m, 0, sizeof(*m));
	memset(hist, 0, sizeof(hist));
	m->insns = t32_spec_insns(spec);
	if (mo->base) {
		uint64_t b = t32_spec_insns(mo->base);

		m->insns = m->insns > b ? m->insns - b : 0;
	}
	{
		/* the TSC's rate does not change: measure it once per process */
		static double tsc_hz;

		if (!tsc_hz)
			tsc_hz = t32_tsc_hz(0.02);
		m->tsc_ghz = tsc_hz / 1e9;
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
	if (t32_spec_add_item(&calempty, mo->cal_len / 2, "add eax, 1"))
		return T32_EXIT_ERROR;
	specs[B_BLOCK] = spec;
	specs[B_EMPTY] = mo->base ? mo->base : &empty;
	specs[B_CAL] = &cal;
	specs[B_CALEMPTY] = &calempty;
	if (mo->unit != T32_UNIT_CYCLES)
		nb = 2;
	rc = t32_session_open(&ss, specs, nb, bo);
	if (rc)
		goto out;
	raw = malloc(maxbatch * sizeof(uint64_t));
	if (!raw) {
		rc = T32_EXIT_ERROR;
		goto out;
	}
	if (mo->raw_path) {
		rawf = fopen(mo->raw_path, "w");
		if (!rawf) {
			t32_error("cannot write raw deltas '%s'", mo->raw_path);
			rc = T32_EXIT_ERROR;
			goto out;
		}
		fprintf(rawf, "round\tblock\tticks\n");
	}

	/* Size a round from a first probe: about 0.4 ms per block, within [64, 16384]. */
	{
		double t0 = t32_now();

		rc = t32_session_run(&ss, B_BLOCK, 64, raw);
		if (rc)
			goto out;
		double per = (t32_now() - t0) / 64;

		batch = mo->batch ? mo->batch : (uint64_t)(0.0004 / (per > 1e-9 ? per : 1e-9));
		if (batch < 64)
			batch = 64;
		if (batch > maxbatch)
			batch = maxbatch;
		if (mo->max_runs && batch > mo->max_runs)
			batch = mo->max_runs;
	}

	/*
	 * Warm up until two ratio readings agree within 0.2% (at most 40 tries), once a
	 * process: the clock stays up while a sweep goes from row to row.
	 */
	static int clock_warm;

	if (nb == B_N && !clock_warm) {
		double last = 0;

		clock_warm = 1;

		for (int i = 0; i < 40; i++) {
			struct t32_estimate a, b;
			double r;

			if ((rc = t32_session_run(&ss, B_CAL, 256, raw)) ||
			    t32_estimate(raw, 256, 0, &a) ||
			    (rc = t32_session_run(&ss, B_CALEMPTY, 256, raw)) ||
			    t32_estimate(raw, 256, 0, &b))
				goto out;
			r = (double)(mo->cal_len - mo->cal_len / 2) / (a.value - b.value);
			if (last > 0 && fabs(r - last) < 0.002 * r)
				break;
			last = r;
		}
	}

	start = t32_now();
	for (;;) {
		double est[B_N], c, r = 1;

		for (unsigned b = 0; b < nb; b++) {
			struct t32_estimate e;
			/* the ratio needs far less precision than the block: a quarter of the runs */
			uint64_t k = b >= B_CAL && batch >= 256 ? batch / 4 : batch;

			/*
			 * The first runs after switching blocks are disturbed (code and
			 * predictors of the other block): run a few unrecorded first.
			 */
			rc = t32_session_run(&ss, b, k / 8 + 8, raw);
			if (!rc)
				rc = t32_session_run(&ss, b, k, raw);
			if (rc)
				goto out;
			if (t32_hist_add(&hist[b], raw, k)) {
				rc = T32_EXIT_ERROR;
				goto out;
			}
			if (!m->q)
				m->q = t32_quantum(raw, batch, NULL, NULL);
			t32_estimate(raw, k, m->q, &e);
			est[b] = e.value;
			if (rawf)
				for (uint64_t i = 0; i < k; i++)
					fprintf(rawf, "%u\t%s\t%llu\n", m->rounds, block_names[b],
						(unsigned long long)raw[i]);
		}
		if (m->rounds == cap) {
			cap = cap ? cap * 2 : 64;
			cost = realloc(cost, cap * sizeof(double));
			ratio = realloc(ratio, cap * sizeof(double));
			if (!cost || !ratio) {
				rc = T32_EXIT_ERROR;
				goto out;
			}
		}
		if (nb == B_N)
			r = (double)(mo->cal_len - mo->cal_len / 2) / (est[B_CAL] - est[B_CALEMPTY]);
		c = (est[B_BLOCK] - est[B_EMPTY]) / (double)(m->insns ? m->insns : 1);
		ratio[m->rounds] = r;
		cost[m->rounds] = c * conversion(mo->unit, r, m->tsc_ghz * 1e9);
		m->rounds++;
		m->runs += batch;
		m->seconds = t32_now() - start;

		/* a segment is over: note its mean, hand over to a fresh process */
		if (m->seconds - seg_t0 >= T32_SEGMENT_SECONDS && m->seconds + 0.1 < mo->budget &&
		    m->rounds - seg_first >= T32_MIN_ROUNDS && nseg < 255 && !(stop && *stop)) {
			seg[nseg++] = mean_of(cost, seg_first, m->rounds);
			seg_first = m->rounds;
			rc = t32_session_respawn(&ss);
			if (rc)
				goto out;
			seg_t0 = m->seconds = t32_now() - start;
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

			batch_means(cost, m->rounds, &mean, &hw);
			hw = fmax(hw, segment_hw(seg, nseg, cost, seg_first, m->rounds));
			if ((mo->precision > 0 && hw <= mo->precision) ||
			    (mo->block_precision > 0 &&
			     hw * (double)(m->insns ? m->insns : 1) <= mo->block_precision)) {
				m->stopped_precise = 1;
				break;
			}
		}
		if (mo->max_runs && m->runs + batch > mo->max_runs)
			batch = mo->max_runs - m->runs;
	}

	/* Pooled estimates; the interval from the rounds' spread. */
	{
		struct t32_cost pc;
		double mean, hw, conv, ratio_mean, ratio_hw, drift_se = INFINITY, drift;
		unsigned third = m->rounds / 3;

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
			batch_means(ratio, m->rounds, &ratio_mean, &ratio_hw);
			m->ratio_hw = ratio_hw;
			if (third) {
				m->ratio_first = mean_of(ratio, 0, third);
				m->ratio_last = mean_of(ratio, m->rounds - third, m->rounds);
				drift_se = hypot(se_of(ratio, 0, third),
						 se_of(ratio, m->rounds - third, m->rounds));
			}
		}
		conv = conversion(mo->unit, m->ratio, m->tsc_ghz * 1e9);
		t32_estimate_diff(&m->block, &m->empty, m->insns ? m->insns : 1, &pc);
		m->value = pc.value * conv;
		batch_means(cost, m->rounds, &mean, &hw);
		hw = fmax(hw, segment_hw(seg, nseg, cost, seg_first, m->rounds));
		m->segments = nseg + (m->rounds > seg_first);
		/* the pooled Wilson interval is a floor: the rounds may agree by chance */
		m->halfwidth = fmax(hw, t32_halfwidth(pc.value, pc.lo, pc.hi) * conv);
		m->min_value = ((double)m->sblock.min - (double)m->sempty.min) /
			       (double)(m->insns ? m->insns : 1) * conv;
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
				 "the core clock drifted %.2f%% during the run",
				 100 * drift / m->ratio);
		if (!m->untrusted[0] && (mo->precision > 0 || mo->block_precision > 0) &&
		    !m->stopped_precise && !(stop && *stop))
			snprintf(m->untrusted, sizeof(m->untrusted),
				 "the interval never narrowed to +-%g %s (it is +-%.3g after %llu runs)",
				 mo->precision > 0 ? mo->precision : mo->block_precision,
				 t32_unit_names[mo->unit], m->halfwidth,
				 (unsigned long long)m->runs);
	}
out:
	if (rawf && fclose(rawf) && !rc) {
		t32_error("cannot write raw deltas '%s'", mo->raw_path);
		rc = T32_EXIT_ERROR;
	}
	t32_session_close(&ss);
	for (int b = 0; b < B_N; b++)
		t32_hist_free(&hist[b]);
	t32_spec_free(&cal);
	t32_spec_free(&calempty);
	free(raw);
	free(cost);
	free(ratio);
	return rc;
}
