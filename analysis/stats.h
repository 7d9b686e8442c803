/*
 * stats.h - statistics of TSC deltas: summaries, the TSC's step (quantum), the
 * sub-quantum estimate of a block's duration, confidence intervals and the
 * stopping rule that adaptive sampling uses.
 *
 * Deltas are uint64_t TSC ticks.  They are small integers with few distinct
 * values, so everything works on a histogram of distinct values (struct t32_hist),
 * which a sampling loop can also grow batch by batch without keeping the samples.
 *
 * The sub-quantum estimator.  A TSC that advances in steps of q ticks (21 on the
 * VMs t32 was built on, 1 on bare metal) reads a block of true duration D ticks,
 * started at a uniformly random phase of the TSC's step, as
 *
 *	L      with probability 1 - f
 *	L + q  with probability f,	L = c + q * floor(D / q),  f = frac(D / q)
 *
 * where c is an offset all readings share (c = L mod q, the residue of the most
 * frequent value).  Hence c + D = L + q * f, and f is estimated by k1 / (k0 + k1),
 * the counts of the two lowest populated levels (c cancels in block - empty).
 * More generally the mean of the quantised readings is c + the mean of D for any
 * spread of D, when the phase is uniform; the estimate is the mean of the lattice
 * levels in the bulk window L .. top, which is the two-level estimate above when
 * the window holds two levels.
 * Assumptions, and what happens when they fail:
 *  - the start phase is uniform over the step and independent of D: true when the
 *    loop around the block is not itself locked to the TSC's step;
 *  - noise e >= 0 adds to D.  Rare large noise (interrupts, misses) lands above the
 *    window and is ignored, so a clean majority plus rare outliers gives an
 *    unbiased estimate.  Noise smaller than q moves samples from L to L + q: the
 *    readings then reveal the mean of D + e, biased up by about the mean of that
 *    noise (no reading can tell it from a longer block), and D lies between L (the
 *    plain minimum, a lower bound) and the estimate;
 *  - a duration that itself varies by more than a step (a core clock that wobbles
 *    under a hypervisor, a block of variable timing) fills levels above L + q: the
 *    window grows while the next level holds T32_EST_BULK of the mode's samples,
 *    the estimate is the mean duration, and T32_EST_LEVELS says so;
 *  - readings not on the lattice c + k q (a TSC step, a migration) are ignored,
 *    and so are isolated levels below the bottom (nothing one step above them,
 *    under 1% of the samples: a reordered or glitched reading).
 * q is a property of the machine (t32_tsc_step finds it from raw readings): a
 * block whose duration is a whole number of steps shows one level only, and
 * guessing q from such deltas would give nonsense.
 * Without a step (q == 1, bare metal) the same holds one tick at a time: the
 * dithered start phase makes a block of 153.4 ticks read 153 or 154, 40% of them
 * 154; the flag noquant only says the step is a single tick.
 */
#ifndef T32_STATS_H
#define T32_STATS_H

#include <stddef.h>
#include <stdint.h>

/* One distinct delta and how often it was seen. */
struct t32_level {
	uint64_t ticks;		/* TSC ticks */
	uint64_t count;		/* samples with this value */
};

/* A histogram of deltas: distinct values ascending.  Zero-initialise before use. */
struct t32_hist {
	struct t32_level *lv;	/* nlv levels, ascending ticks */
	size_t nlv;
	size_t cap;		/* allocated levels */
	uint64_t n;		/* samples in all levels */
};

/* Add n deltas to h (h may be empty).  Returns 0, or -1 when out of memory. */
int t32_hist_add(struct t32_hist *h, const uint64_t *ticks, size_t n);
/* Add every sample of from to h.  Returns 0, or -1 when out of memory. */
int t32_hist_add_hist(struct t32_hist *h, const struct t32_hist *from);
void t32_hist_free(struct t32_hist *h);

/* Location and spread of a set of deltas. */
struct t32_summary {
	uint64_t n;		/* samples */
	uint64_t min, max;	/* ticks */
	double median;		/* ticks (mean of the two middle values when n is even) */
	double mad;		/* ticks: median absolute deviation from the median, unscaled */
	double trimmed;		/* ticks: mean of what is left without 10% at each end */
	double mean;		/* ticks */
};

/* Summarise ticks[0..n); the array is left as it was.  Returns 0, -1 if n == 0 or no memory. */
int t32_summarize(const uint64_t *ticks, size_t n, struct t32_summary *s);
int t32_summarize_hist(const struct t32_hist *h, struct t32_summary *s);

/*
 * The TSC's step seen in the deltas: the gcd of the differences between distinct
 * values, built from the most frequent values down.  A value seen once never
 * breaks the gcd; a value seen more often lowers it only while the current step
 * explains less than 99% of the samples.  Returns the step in ticks (1 when no
 * step > 1 explains >= 99% of the samples, or when fewer than two values were
 * seen more than once).  *offset (may be NULL) gets the residue c of the lattice
 * c + k q holding the most frequent value; *share (may be NULL) the fraction of
 * samples on that lattice.
 */
uint64_t t32_quantum(const uint64_t *ticks, size_t n, uint64_t *offset, double *share);
uint64_t t32_quantum_hist(const struct t32_hist *h, uint64_t *offset, double *share);
#define T32_QUANTUM_SHARE 0.99	/* share of samples a step must explain */

/*
 * The TSC's step from raw readings taken one after another with a random spin
 * between them (not from a block's deltas): the largest q whose multiples hold
 * T32_QUANTUM_SHARE of the differences, looked for among the divisors of the most
 * frequent difference.  *share (may be NULL) gets the share q explains.  Returns
 * 0 when the differences are too few or too alike to tell (fewer than 100, or
 * fewer than 4 distinct values: spin longer), else q >= 1; 1 means the TSC really
 * moves by single ticks (*share then tells how regular that is).
 */
uint64_t t32_tsc_step(const uint64_t *readings, size_t n, double *share);

/* Flags of an estimate: why it deserves less trust. */
enum {
	T32_EST_NOQUANT = 1 << 0,	/* q == 1: the TSC steps by single ticks (information only) */
	T32_EST_FEW = 1 << 1,		/* the window holds < 30 samples or < 5% of them */
	T32_EST_LEVELS = 1 << 2,	/* the duration varies by more than q: the mean of the bulk */
	T32_EST_FALLBACK = 1 << 3,	/* too few samples for a proportion: the value is the minimum */
	T32_EST_SHARED = 1 << 4,	/* the measuring CPU was shared (set by the measuring loop) */
	T32_EST_BUSY = 1 << 5,		/* a CPU that may share its core was busy (measuring loop) */
	T32_EST_STEAL = 1 << 6,		/* the hypervisor stole time (information only) */
};
#define T32_EST_MIN_PAIR 30		/* FEW below this many samples in the window */
#define T32_EST_MIN_SHARE 0.05		/* ... or below this share of the samples */
#define T32_EST_LEVELS_SHARE 0.9	/* LEVELS when the bottom two hold less than this share */
#define T32_EST_MIN_RATIO 10		/* FALLBACK below this many samples in the window */
#define T32_EST_ISOLATED 0.01		/* a lone bottom level under this share is set aside */
#define T32_EST_BULK 0.02		/* a level beside the window with this share of the most
					   frequent level's samples still belongs to the bulk */

/* The flags' names, for output such as "few,levels"; ends with { 0, NULL, NULL }. */
struct t32_flag_name {
	unsigned bit;
	const char *name;
	const char *summary;
};
extern const struct t32_flag_name t32_est_flags[];
/* Write the names of the bits set in flags, comma-separated, or "-" for none; returns buf. */
char *t32_est_flags_str(unsigned flags, char *buf, size_t len);

/* A block's duration estimated below the TSC's step. */
struct t32_estimate {
	double value;		/* ticks */
	double lo, hi;		/* ticks: 95% interval (Wilson on k1 / (k0 + k1), scaled by q, with
				   two levels; the mean's normal interval with more) */
	uint64_t q;		/* ticks: the TSC step used */
	uint64_t bottom;	/* ticks: L, the lowest populated level of the lattice */
	uint64_t k0, k1, k2;	/* samples at L, L + q, L + 2q */
	uint64_t below;		/* samples on isolated lattice levels below L, set aside */
	uint64_t top;		/* ticks: the highest level of the bulk window (>= L + q) */
	uint64_t window;	/* samples in the window L .. top */
	uint64_t n;		/* samples in all */
	unsigned flags;		/* T32_EST_* */
};

/*
 * Estimate the duration behind ticks[0..n) (see the top of this file).  q is the
 * TSC step in ticks, or 0 to detect it from these deltas with t32_quantum (a
 * block whose duration is a whole number of steps shows one level only: pass the
 * machine's q when it is known).  Returns 0, or -1 when n == 0 or out of memory.
 */
int t32_estimate(const uint64_t *ticks, size_t n, uint64_t q, struct t32_estimate *e);
int t32_estimate_hist(const struct t32_hist *h, uint64_t q, struct t32_estimate *e);

/* The cost of n instructions: (block - empty) / n with the two intervals combined. */
struct t32_cost {
	double value;		/* ticks per instruction */
	double lo, hi;		/* ticks per instruction, 95% interval */
	unsigned flags;		/* T32_EST_* of either estimate */
};

/*
 * (block - empty) / n.  The half-widths on each side add in quadrature (the two
 * estimates are independent), so the interval stays a 95% one.  Returns 0, or -1
 * when n == 0.
 */
int t32_estimate_diff(const struct t32_estimate *block, const struct t32_estimate *empty,
		      uint64_t n, struct t32_cost *c);

/* z for a two-sided confidence level (0.95 -> 1.96). */
double t32_z(double confidence);

/*
 * Wilson score interval for a share k / n at normal quantile z (1.96 for 95%):
 * stays inside [0, 1] and behaves at k = 0 and k = n, unlike the normal one.
 * n == 0 gives [0, 1].
 */
void t32_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi);

/* Half-width of an interval around value: the larger side. */
double t32_halfwidth(double value, double lo, double hi);

/*
 * Is a distribution over categories the same in every part of a run?  counts is
 * parts x cats (row-major).  Categories whose pooled count would give fewer than
 * T32_HOMOG_MIN_EXPECTED per part are merged into one.  The chi-square test of
 * homogeneity gives p; tvd is the largest total variation distance between a
 * part and the rest pooled, and excess the largest by which a part's exceeds
 * what sampling alone gives it (the TVD expected between two draws of the pooled
 * shares at the part's and the rest's sizes: with a thousand samples a part over
 * a dozen positions, about 0.05).  unstable when p < T32_HOMOG_P and excess
 * exceeds T32_HOMOG_TVD (a difference too small to matter to a model judged at a
 * TVD of 0.10 is not called unstable, however many samples show it).
 */
struct t32_homog {
	double chi2, p, tvd, excess;
	unsigned df, parts, cats;	/* cats after merging */
	int unstable;
};
#define T32_HOMOG_MIN_EXPECTED 5.0
#define T32_HOMOG_P 0.001
#define T32_HOMOG_TVD 0.05
/* 0, or -1 when there are fewer than two parts with samples or out of memory. */
int t32_homogeneity(const uint64_t *counts, size_t parts, size_t cats, struct t32_homog *h);

/* When adaptive sampling may stop. */
struct t32_stop_rule {
	double target;		/* wanted half-width, in the unit of the estimate; <= 0: none */
	uint64_t min_n;		/* never stop before this many samples */
	uint64_t max_n;		/* always stop at this many; 0: no limit */
};
enum t32_stop {
	T32_GO_ON = 0,		/* take more samples */
	T32_STOP_PRECISE,	/* the half-width reached the target */
	T32_STOP_LIMIT,		/* max_n reached without the target */
};
/* Decide from the current half-width (NaN or inf: not known yet) after n samples. */
enum t32_stop t32_stop_check(const struct t32_stop_rule *r, double halfwidth, uint64_t n);
/*
 * Samples to have in all before asking again: half-widths shrink as 1 / sqrt(n),
 * so n * (halfwidth / target)^2 with 10% to spare, at least 2n when that is not
 * known, at most max_n.
 */
uint64_t t32_stop_next(const struct t32_stop_rule *r, double halfwidth, uint64_t n);

#endif
