/*
 * wake.h - wake and interrupt latency from user space, wult's delayed-timer method
 * with the TSC: the maths that turns one event's raw readings into a datapoint
 * (deadline in TSC ticks, latency, conversion error, the flags that filter it),
 * the statistics of many datapoints (percentiles with distribution-free
 * intervals), and the raw TSV file read back.  `t32 wake` measures, `t32 diff`
 * compares, `t32 study wake` reports; all of them call this module.
 */
#ifndef T32_WAKE_H
#define T32_WAKE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "t32/util.h"

/* What is timed. */
enum t32_wake_method {
	T32_WAKE_SLEEP,		/* sleep to an absolute deadline; latency = TSC at wake - deadline */
	T32_WAKE_SPIN,		/* spin under a timer signal; latency = TSC in the handler - deadline */
	T32_WAKE_NMETHODS
};
extern const char *const t32_wake_method_names[T32_WAKE_NMETHODS];
extern const char *const t32_wake_method_summaries[T32_WAKE_NMETHODS];

/*
 * Why a datapoint is left out of the statistics (wult's filters, in user space).
 * TSC_BACK and NEGATIVE are impossible readings: many of them make the whole
 * result untrustworthy.  The others are disturbances, counted and filtered.
 */
enum {
	T32_WAKE_TSC_BACK = 1u << 0,	/* a TSC reading went backwards (or readings out of order) */
	T32_WAKE_NEGATIVE = 1u << 1,	/* woke before the deadline by more than the conversion error */
	T32_WAKE_LATE = 1u << 2,	/* the timer was armed after its deadline had passed */
	T32_WAKE_OTHER_IRQ = 1u << 3,	/* another interrupt came to the CPU during the event */
	T32_WAKE_NO_IDLE = 1u << 4,	/* sleep: the CPU never entered an idle state (it was busy) */
	T32_WAKE_NFLAGS = 5
};
#define T32_WAKE_IMPOSSIBLE (T32_WAKE_TSC_BACK | T32_WAKE_NEGATIVE)
/*
 * The flags that leave an event out: all but NO_IDLE, which is counted and kept
 * (the wake-up then preempted a task instead of ending an idle state); with
 * --idle-only, wult's choice, it leaves the event out too.
 */
#define T32_WAKE_FILTER ((1u << T32_WAKE_NFLAGS) - 1 - T32_WAKE_NO_IDLE)
extern const struct t32_wake_flag {
	const char *name;	/* in the raw file's status column */
	const char *summary;
} t32_wake_flags[T32_WAKE_NFLAGS];

#define T32_WAKE_MAX_IDLE 16	/* idle states counted per event */

/* CLOCK_MONOTONIC read between two TSC readings. */
struct t32_wake_anchor {
	uint64_t tsc_lo, tsc_hi;	/* TSC ticks just before and just after */
	int64_t mono_ns;		/* CLOCK_MONOTONIC, ns */
};

/* CLOCK_MONOTONIC nanoseconds to TSC ticks, from two anchors a baseline apart. */
struct t32_wake_conv {
	double ticks_per_ns;	/* TSC ticks per ns of CLOCK_MONOTONIC */
	double rel_err;		/* its relative error: the anchors' half-brackets over the baseline */
	double baseline_ns;	/* how far apart the anchors were */
};
/* 0, or -1 when the anchors cannot give a rate (out of order, too close). */
int t32_wake_conv_from(const struct t32_wake_anchor *a, const struct t32_wake_anchor *b,
		       struct t32_wake_conv *c);

/* One event's raw readings, as the measuring loop takes them. */
struct t32_wake_event {
	uint64_t ldist_ns;		/* launch distance: the deadline is anchor + this */
	struct t32_wake_anchor anchor;	/* taken just before the deadline was set */
	uint64_t launch;		/* TSC ticks just before the timer was armed */
	uint64_t wake;			/* TSC ticks: sleep, on return; spin, in the handler */
	uint64_t gap_start, gap_end;	/* spin: the loop's readings around the handler (0: none) */
	unsigned other_gaps;		/* spin: other gaps above the threshold while waiting */
	int64_t irqs;			/* interrupts the CPU took during the event, -1 unknown */
	unsigned tsc_back;		/* the loop's readings that went backwards */
	unsigned nidle;			/* idle states counted (0: unknown here) */
	uint64_t idle_entries[T32_WAKE_MAX_IDLE];	/* entries into each during the event */
};

/* The datapoint: what the raw readings mean. */
struct t32_wake_point {
	uint64_t deadline;		/* TSC ticks: the anchor's middle + ldist converted */
	int64_t latency_ticks;		/* wake - deadline */
	double latency_ns;
	double conv_err_ns;		/* how far off the deadline may be: half the anchor's
					 * bracket, the rate's error over ldist, 1 ns of clock */
	int64_t gap_ticks;		/* spin: gap_end - gap_start, the time the interrupt took */
	double gap_ns;
	unsigned flags;			/* T32_WAKE_*; 0 is ok */
};
void t32_wake_point_of(enum t32_wake_method m, const struct t32_wake_event *e,
		       const struct t32_wake_conv *c, struct t32_wake_point *p);

/* "ok", or the names of the flags joined by commas, into buf. */
void t32_wake_status(unsigned flags, char *buf, size_t len);
/* Back from the text: 0, or -1 for a name that is not a flag. */
int t32_wake_parse_status(const char *text, unsigned *flags);

/*
 * A quantile with a distribution-free interval.  The estimate is the order
 * statistic x_(r), r = ceil(p n), a value that was seen.  The interval is
 * [x_(l), x_(u)] with l, u from the binomial distribution of how many values
 * fall below the true quantile, Bin(n, p): the largest l with P(B <= l-1) <=
 * (1-level)/2 and the smallest u with P(B >= u) <= (1-level)/2, so it holds the
 * true quantile with at least `level` whatever the distribution.  A side n is
 * too small to bound is -INFINITY / +INFINITY (rank 0 / n + 1).
 */
struct t32_wake_q {
	double p;		/* 0.5, 0.99 ... */
	double value, lo, hi;
	size_t rank, rank_lo, rank_hi;	/* 1-based order statistics */
	double coverage;	/* the interval's exact binomial coverage */
};
void t32_wake_quantile(const double *sorted, size_t n, double p, double level,
		       struct t32_wake_q *q);

#define T32_WAKE_NQ 5
extern const double t32_wake_ps[T32_WAKE_NQ];	/* 0.5, 0.9, 0.99, 0.999, 0.9999 */
extern const char *const t32_wake_pnames[T32_WAKE_NQ];	/* "p50" ... "p99.99" */

struct t32_wake_stats {
	size_t n;
	double min, max, mean;
	struct t32_wake_q q[T32_WAKE_NQ];
};
/* Statistics of x[0..n) (sorted in place) with intervals at level; 0, or -1 when n is 0. */
int t32_wake_stats(double *x, size_t n, double level, struct t32_wake_stats *s);

/* A raw file read back (t32 wake -o FILE). */
struct t32_wake_data {
	char *path;
	enum t32_wake_method method;
	char *setup;		/* the `# wake:` line without its "# wake: " */
	char *conversion;	/* the `# tsc:` line's text, or NULL */
	char *notes;		/* its `# idle:`, `# note:`, `# tsc-run:`, `# idle-run:`,
				 * `# shared:` and `# run:` lines, each with its newline */
	size_t n;		/* events */
	double *ldist_ns, *latency_ns, *gap_ns;	/* gap_ns: spin only, else NULL */
	unsigned *flags;
	unsigned filter;	/* flags that leave an event out (T32_WAKE_FILTER, + NO_IDLE) */
	size_t by_flag[T32_WAKE_NFLAGS];	/* events carrying each flag */
	size_t ok;		/* events kept: none of the filter's flags */
	size_t cap;		/* room in the arrays */
};
/* Add one datapoint (gap_ns only kept for spin); 0, or -1 when out of memory. */
int t32_wake_add(struct t32_wake_data *d, double ldist_ns, double latency_ns, double gap_ns,
		 unsigned flags);
/*
 * Read path; an exit code (0; 1 unreadable; 2 not a wake file or a bad row),
 * messages printed.
 */
int t32_wake_load(const char *path, struct t32_wake_data *d);
void t32_wake_data_free(struct t32_wake_data *d);
/* The kept values of one column (latency_ns or gap_ns) into a malloc'd array; its length. */
size_t t32_wake_kept(const struct t32_wake_data *d, const double *col, double **out);

/*
 * Why the whole result cannot be trusted, into why ("" when it can): no event,
 * none kept, or more than 1% with impossible readings.
 */
void t32_wake_untrusted(const struct t32_wake_data *d, char *why, size_t len);
/*
 * The statistics of d on out: a table for people (us), or tsv / json (ns), each
 * percentile with its 95% interval; why says the result is not trustworthy.
 */
void t32_wake_print(FILE *out, const struct t32_wake_data *d, enum t32_format fmt,
		    const char *why);

/*
 * What a result shows, in a few sentences written from its data (the report's
 * paragraph): events kept and why others were left out, the median and tail with
 * intervals, and whether latency grows with the launch distance.  html: escape
 * for a page.
 */
void t32_wake_describe(FILE *f, const struct t32_wake_data *d, int html);

#endif
