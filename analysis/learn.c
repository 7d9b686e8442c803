/*
 * learn.c - one parameter set fitted to many probes at once (see learn.h).  Each
 * model run is t32_corr_fit with nothing left to fit: the prediction of one
 * probe, its deviance, curve chi-square and speed; the joint objective adds them
 * up over the probes.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/learn.h"
#include "analysis/descend.h"
#include "t32/util.h"

_Static_assert(T32_LEARN_MAX_PARAMS <= T32_DESCEND_MAX_PARAMS, "the descent holds every learned parameter");

#define LEARN_MAX_PASSES 6	/* coordinate-descent passes */
#define LEARN_ROUNDS 4		/* one unweighted round, then up to three weighted */
#define LEARN_REWEIGH 2.0	/* a weight that moved by more than this factor: weigh again */
/*
 * The cycles per iteration a probe runs at count as one more measurement: the
 * model's relative error from the curve's slope, in sds of the slope's own
 * half-width and a floor of LEARN_CPI_SD (the core clock of a VM moves a few
 * percent between processes, and a probe's curve and samples come from two).
 */
#define LEARN_CPI_SD 0.02
/*
 * ... and counts at most this many sds squared: a probe whose speed the model
 * misses by more (a block recorded at another clock, or in another regime, than
 * the rest) is an outlier, and one outlier may not pull every other probe off
 * its speed (a capped square: robust, as the bisquare of the line fits).
 */
#define LEARN_CPI_CAP 5.0
#define LEARN_MEMO_SLOTS 65536	/* a power of 2 */
#define LEARN_THREADS_MAX 8	/* probes run side by side on up to this many cpus */
#define LEARN_DELAY_MAX 8	/* retire delays and store_drain scanned over 0..this (cycles) */
#define LEARN_WIDTH_MAX 12	/* widths and ports scanned over 1..this */
#define LEARN_STRAY_MAX 20	/* percent of stray samples scanned over 0..this */
#define LEARN_GROUP_MAX 2	/* retire groups scanned over 1..this (pairs are what cores have shown) */
/*
 * The op cache is learned in steps of this many instructions, over 0..the max
 * steps (a probe's step curve tells its size no finer than one copy, hundreds),
 * and only where a probe's step curve runs more than LEARN_FRONT_RUN
 * instructions: shorter loops never leave it.
 */
#define LEARN_OPCACHE_STEP 256
#define LEARN_OPCACHE_MAX 48
#define LEARN_FRONT_RUN 2048

/* The parts of one probe's objective at one set of values. */
struct learn_part {
	double deviance, chi2, penalty;
};

/*
 * One probe's parts at the values of the parameters that touch it: a retire
 * delay of a class touches only the probes holding the class, so scanning it
 * runs those alone, and a descent that comes back to values runs nothing.
 */
struct learn_memo {
	int used;
	int ok;				/* the model ran the probe */
	size_t probe;
	unsigned long v[T32_LEARN_MAX_PARAMS];	/* values, 0 where the parameter does not touch it */
	struct learn_part part;
};

struct learn_ctx {
	const struct t32_uarch *u0;
	const struct t32_learn_probe *pr;
	size_t npr;
	struct t32_corr_opts o;		/* balance off: the weights are the learner's */
	size_t np;
	struct t32_corr_param *p;
	double *w_share, *w_curve;	/* per probe */
	double *slope;			/* per probe: the curve's slope (cycles a copy), NAN without */
	double *slope_sd;		/* per probe: its relative sd (LEARN_CPI_SD at least) */
	size_t *cells;			/* per probe: cells with samples */
	struct learn_memo *memo;
	struct learn_part *parts;	/* npr parts of the last learn_parts */
	unsigned char *touches;		/* npr x np: parameter j changes probe i's model */
	double *min_dev, *min_chi2;	/* per probe: the least of each term any run gave */
	const struct t32_lat_entry **found;	/* per probe at found_at[i]: its unit's entries, then its loop's */
	size_t *found_at;
	struct learn_job *jobs;		/* npr: the runs one point needs */
	size_t evals;
	size_t threads;			/* cpus this process may run on, 1..LEARN_THREADS_MAX */
	unsigned long scale[T32_LEARN_MAX_PARAMS];	/* a parameter's value is its v times this */
};

/*
 * The measured slope of a probe's curve (t32_corr_curve_slope; NAN without
 * one), and into *rsd its relative sd: the larger of the points' half-widths
 * carried through a line over the points k = 1..kmax that count, the points'
 * scatter about the line, and LEARN_CPI_SD.
 */
static double learn_slope(const struct t32_corr_data *d, double *rsd)
{
	double b = t32_corr_curve_slope(d), m = 0, sk = 0, skk = 0, sxx, var = 0;
	double hw = t32_corr_curve_slope_hw(d);

	*rsd = LEARN_CPI_SD;
	if (isnan(b))
		return NAN;
	/* the count, sum of k and of k^2 over the points of the line */
	for (size_t k = 1; k <= d->kmax; k++)
		if (t32_corr_point_counts(d->curve_ok, d->kmax, k)) {
			m++;
			sk += (double)k;
			skk += (double)k * (double)k;
		}
	sxx = skk - sk * sk / m;
	for (size_t k = 1; d->curve_hw && sxx > 0 && k <= d->kmax; k++) {
		double w = ((double)k - sk / m) / sxx, sd = d->curve_hw[k] / 1.96;

		if (t32_corr_point_counts(d->curve_ok, d->kmax, k))
			var += w * w * sd * sd;
	}
	if (b > 0 && sqrt(var) / b > *rsd)
		*rsd = sqrt(var) / b;
	if (b > 0 && isfinite(hw) && hw / 1.96 / b > *rsd)
		*rsd = hw / 1.96 / b;
	return b;
}

/* A front-end probe: its step curve runs past any loop that never leaves the op cache. */
int t32_learn_front(const struct t32_learn_probe *p)
{
	return p->d.curve && p->d.kmax * p->n > LEARN_FRONT_RUN;
}

/* u0 with the values v; -1 when one is not allowed. */
static int learn_uarch(const struct learn_ctx *c, const unsigned long *v, struct t32_uarch *u)
{
	*u = *c->u0;
	for (size_t j = 0; j < c->np; j++)
		if (t32_uarch_set_value(u, c->p[j].key, v[j] * c->scale[j]))
			return -1;
	return 0;
}

/*
 * One probe's parts under u; -1 when the model cannot run it.  It reads c and
 * writes only out, so probes run side by side (learn_note keeps the least terms).
 */
static int learn_probe_part(const struct learn_ctx *c, const struct t32_uarch *u, size_t i,
			    struct learn_part *out)
{
	const struct t32_learn_probe *p = &c->pr[i];
	struct t32_corr_data d = p->d;
	struct t32_corr_result r;
	char err[256];

	d.slope = &c->slope[i];	/* the curve's slope, and the table's entries, found once a probe */
	d.found = c->found + c->found_at[i];
	d.loop_found = d.found + p->n;
	if (t32_corr_fit(u, p->tab, p->insns, p->n, &d, NULL, 0, &c->o, &r, err, sizeof(err)))
		return -1;
	out->deviance = r.deviance;
	out->chi2 = r.curve_chi2;
	out->penalty = 0;
	if (isfinite(c->slope[i]) && c->slope[i] > 0) {
		double e = (r.cycles_per_iter - c->slope[i]) / c->slope[i];

		out->penalty = e * e / (c->slope_sd[i] * c->slope_sd[i]);
		if (out->penalty > LEARN_CPI_CAP * LEARN_CPI_CAP)
			out->penalty = LEARN_CPI_CAP * LEARN_CPI_CAP;
	}
	t32_corr_result_free(&r);
	return 0;
}

/* The memo slot of probe i at v (holding it, or empty for it); NULL when full. */
static struct learn_memo *learn_slot(const struct learn_ctx *c, size_t i, const unsigned long *v,
				     unsigned long *key)
{
	uint64_t h = 1469598103934665603ull ^ i;

	for (size_t j = 0; j < c->np; j++) {
		key[j] = c->touches[i * c->np + j] ? v[j] : 0;
		h = (h ^ key[j]) * 1099511628211ull;
	}
	for (size_t k = 0; k < LEARN_MEMO_SLOTS; k++) {
		struct learn_memo *m = &c->memo[(h + k) & (LEARN_MEMO_SLOTS - 1)];

		if (!m->used || (m->probe == i && memcmp(m->v, key, c->np * sizeof(*key)) == 0))
			return m;
	}
	return NULL;
}

/* Probe i ran, giving part (NULL: the model could not): the least of each of its terms so far. */
static void learn_note(struct learn_ctx *c, size_t i, const struct learn_part *part)
{
	c->evals++;
	if (!part)
		return;
	if (part->deviance < c->min_dev[i])
		c->min_dev[i] = part->deviance;
	if (part->chi2 < c->min_chi2[i])
		c->min_chi2[i] = part->chi2;
}

/* A probe to run at one of many points: its values, where its parts go. */
struct learn_job {
	const struct t32_uarch *u;
	size_t probe;
	struct learn_memo *slot;	/* the memo slot it fills, or NULL (a full memo) */
	struct learn_part part;
	int ok;
};

/* One thread's share of the jobs: every step-th from first. */
struct learn_work {
	const struct learn_ctx *c;
	struct learn_job *job;
	size_t njob, first, step;
};

static void *learn_work_run(void *arg)
{
	struct learn_work *w = arg;

	for (size_t k = w->first; k < w->njob; k += w->step) {
		struct learn_job *j = &w->job[k];

		j->ok = learn_probe_part(w->c, j->u, j->probe, &j->part) == 0;
	}
	return NULL;
}

/* Run the jobs side by side on up to c->threads cpus. */
static void learn_run(struct learn_ctx *c, struct learn_job *job, size_t njob)
{
	struct learn_work w[LEARN_THREADS_MAX];
	pthread_t t[LEARN_THREADS_MAX];
	int started[LEARN_THREADS_MAX] = { 0 };
	size_t nt = c->threads < njob ? c->threads : njob;

	if (!nt)
		return;
	for (size_t k = 0; k < nt; k++)
		w[k] = (struct learn_work){ c, job, njob, k, nt };
	for (size_t k = 1; k < nt; k++)
		started[k] = pthread_create(&t[k], NULL, learn_work_run, &w[k]) == 0;
	learn_work_run(&w[0]);
	for (size_t k = 1; k < nt; k++) {
		if (started[k])
			pthread_join(t[k], NULL);
		else	/* no thread for it: its share runs here */
			learn_work_run(&w[k]);
	}
}

/*
 * Probe i at v in the memo: 1 when it ran there before (its slot in *slot),
 * else 0 with the slot (NULL: the memo is full) claimed for the run that is to
 * fill it, so a later point that shares it finds it.
 */
static int learn_recall(struct learn_ctx *c, size_t i, const unsigned long *v,
			struct learn_memo **slot)
{
	unsigned long key[T32_LEARN_MAX_PARAMS];
	struct learn_memo *m = learn_slot(c, i, v, key);

	*slot = m;
	if (m && m->used)
		return 1;
	if (m) {
		m->used = 1;
		m->probe = i;
		memcpy(m->v, key, c->np * sizeof(*key));
	}
	return 0;
}

/* Run the jobs side by side, then note each run and fill its slot. */
static void learn_record(struct learn_ctx *c, struct learn_job *job, size_t njob)
{
	learn_run(c, job, njob);
	for (size_t k = 0; k < njob; k++) {
		learn_note(c, job[k].probe, job[k].ok ? &job[k].part : NULL);
		if (job[k].slot) {
			job[k].slot->ok = job[k].ok;
			job[k].slot->part = job[k].part;
		}
	}
}

/* The parts of every probe at v (from the memo where they ran before); NULL if v cannot run. */
static const struct learn_part *learn_parts(struct learn_ctx *c, const unsigned long *v)
{
	struct t32_uarch u;
	size_t njob = 0;
	int ok = 1;

	if (learn_uarch(c, v, &u))
		return NULL;
	for (size_t i = 0; i < c->npr; i++) {
		struct learn_memo *m;

		if (c->pr[i].held) {	/* held: no part in the objective */
			memset(&c->parts[i], 0, sizeof(c->parts[i]));
		} else if (learn_recall(c, i, v, &m)) {
			ok &= m->ok;
			c->parts[i] = m->part;
		} else {
			c->jobs[njob++] = (struct learn_job){ &u, i, m, { 0, 0, 0 }, 0 };
		}
	}
	learn_record(c, c->jobs, njob);
	for (size_t k = 0; k < njob; k++) {
		c->parts[c->jobs[k].probe] = c->jobs[k].part;
		ok &= c->jobs[k].ok;
	}
	return ok ? c->parts : NULL;
}

/* The joint objective from the parts of the probes with the current weights. */
static double learn_sum(const struct learn_ctx *c, const struct learn_part *part)
{
	double f = 0;

	for (size_t i = 0; i < c->npr; i++)
		f += c->w_share[i] * part[i].deviance + c->w_curve[i] * part[i].chi2 + part[i].penalty;
	return f;
}

static double learn_eval(struct learn_ctx *c, const unsigned long *v)
{
	const struct learn_part *part = learn_parts(c, v);

	return part ? learn_sum(c, part) : INFINITY;
}

static double learn_objective(void *c, const unsigned long *v)
{
	return learn_eval(c, v);
}

/*
 * The objective at count points at once: every probe a point needs run and
 * the memo does not hold is a job, the jobs of all the points run side by
 * side, and then each point is summed from the memo as learn_eval would.  A
 * probe two points share (one a parameter that does not touch it tells apart)
 * runs once: the first claims its memo slot.
 */
static void learn_objective_many(void *ctx, const unsigned long *vs, size_t count, double *out)
{
	struct learn_ctx *c = ctx;
	struct t32_uarch *u = calloc(count, sizeof(*u));
	struct learn_job *job = calloc(count * c->npr, sizeof(*job));
	size_t njob = 0;

	if (!u || !job) {	/* one at a time, then */
		for (size_t k = 0; k < count; k++)
			out[k] = learn_eval(c, &vs[k * c->np]);
		t32_free_all(u, job);
		return;
	}
	for (size_t k = 0; k < count; k++) {
		out[k] = 0;
		if (learn_uarch(c, &vs[k * c->np], &u[k])) {
			out[k] = INFINITY;
			continue;
		}
		for (size_t i = 0; i < c->npr; i++) {
			struct learn_memo *m;

			if (!c->pr[i].held && !learn_recall(c, i, &vs[k * c->np], &m))
				job[njob++] = (struct learn_job){ &u[k], i, m, { 0, 0, 0 }, 0 };
		}
	}
	learn_record(c, job, njob);
	/* every slot now holds its run, but where the memo was full: those points one by one */
	for (size_t k = 0; k < count; k++)
		if (isfinite(out[k]))
			out[k] = learn_eval(c, &vs[k * c->np]);
	t32_free_all(u, job);
}

/*
 * Which parameters touch which probe: a retire delay of a class, or
 * lock_early, only the probes (their loops as sampled included) holding an
 * instruction of the class; everything else every probe.
 */
static int learn_touches(struct learn_ctx *c)
{
	for (size_t i = 0; i < c->npr; i++) {
		const struct t32_learn_probe *p = &c->pr[i];
		const struct t32_insn *in = p->d.loop ? p->d.loop : p->insns;
		size_t n = p->d.loop ? p->d.loop_n : p->n;
		struct t32_model_insn *b = calloc(n ? n : 1, sizeof(*b));
		int present[T32_NCLASS] = { 0 };

		if (!b)
			return -1;
		t32_model_prepare(c->u0, p->tab, in, n, b);
		for (size_t k = 0; k < n; k++)
			present[b[k].cls] = 1;
		free(b);
		for (size_t j = 0; j < c->np; j++) {
			const char *key = c->p[j].key;
			int t = 1;

			if (strncmp(key, "retire_delay.", 13) == 0 || strncmp(key, "ports.", 6) == 0) {
				const char *cls = strchr(key, '.') + 1;

				t = 0;
				for (int k = 0; k < T32_NCLASS; k++)
					if (strcmp(cls, t32_classes[k].name) == 0)
						t = present[k];
			} else if (strcmp(key, "lock_early") == 0) {
				t = present[T32_CLASS_ATRETIRE];
			}
			c->touches[i * c->np + j] = (unsigned char)t;
		}
	}
	return 0;
}

/* Range and start of parameter j; -1 with err for an unknown key. */
static int learn_param_init(void *ctx, size_t j, const char *key, char *err, size_t errlen)
{
	struct learn_ctx *c = ctx;
	struct t32_corr_param *p = &c->p[j];
	const struct t32_uarch_key *k = t32_uarch_key_find(key);
	unsigned long start;

	if (!k || t32_uarch_get(c->u0, key, &start)) {
		snprintf(err, errlen, "unknown parameter '%s'", key);
		return -1;
	}
	snprintf(p->key, sizeof(p->key), "%s", key);
	p->lo = k->min;
	p->hi = k->max;
	c->scale[j] = 1;
	if (strcmp(key, "opcache_ops") == 0) {
		/* in steps: v runs over 0..LEARN_OPCACHE_MAX, the value is v steps */
		c->scale[j] = LEARN_OPCACHE_STEP;
		start = (start + LEARN_OPCACHE_STEP / 2) / LEARN_OPCACHE_STEP;
		p->lo = 0;
		p->hi = start > LEARN_OPCACHE_MAX ? start : LEARN_OPCACHE_MAX;
		p->start = start;
		return 0;
	}
	if (strstr(key, "width")) {
		p->lo = 1;
		p->hi = start > LEARN_WIDTH_MAX ? start : LEARN_WIDTH_MAX;
	} else if (strcmp(key, "retire_group") == 0) {
		p->lo = 1;
		p->hi = start > LEARN_GROUP_MAX ? start : LEARN_GROUP_MAX;
	} else if (strncmp(key, "retire_delay.", 13) == 0 || strcmp(key, "store_drain") == 0) {
		p->hi = start > LEARN_DELAY_MAX ? start : LEARN_DELAY_MAX;
	} else if (strcmp(key, "sample_stray") == 0) {
		p->hi = start > LEARN_STRAY_MAX ? start : LEARN_STRAY_MAX;
	} else if (strncmp(key, "ports.", 6) == 0) {
		p->lo = 1;
		p->hi = start > LEARN_WIDTH_MAX ? start : LEARN_WIDTH_MAX;
	}
	if (p->hi > k->max)
		p->hi = k->max;
	if (start < p->lo)
		start = p->lo;
	p->start = start;
	return 0;
}

/* Interval of parameter p from its profile f[x - lo] (as correlate.c reads one). */
static void learn_interval(struct t32_corr_param *p, const double *f, double s)
{
	size_t m = p->hi - p->lo + 1, b = p->value - p->lo;
	double f0 = f[b], tie = T32_DESCEND_TIE * (1 + fabs(f0));
	int left = b == 0 || f[b - 1] - f0 > tie, right = b + 1 >= m || f[b + 1] - f0 > tie;
	int rises = (b > 0 && f[b - 1] - f0 > tie) || (b + 1 < m && f[b + 1] - f0 > tie);

	p->est = (double)p->value;
	p->sd = INFINITY;
	p->determined = left && right && rises;
	if (p->determined && b > 0 && b + 1 < m) {
		double a = (f[b - 1] + f[b + 1] - 2 * f0) / 2, g = (f[b + 1] - f[b - 1]) / 2;
		double shift = a > 0 ? -g / (2 * a) : 0;

		p->est += shift > 0.5 ? 0.5 : shift < -0.5 ? -0.5 : shift;
		p->sd = a > 0 ? s / sqrt(a) : INFINITY;
	} else if (p->determined) {
		double a = b > 0 ? f[b - 1] - f0 : f[b + 1] - f0;

		p->sd = s / sqrt(a);
	}
	t32_corr_ci(p, f, s);
}

/* The default fit's keys of retirement in groups, asked of every block. */
static const char *const group_keys[] = {
	"retire_width", "retire_group", "retire_group_any", "retire_group_flags",
	"retire_nop_free",
};

/*
 * And, after the classes' delays, of the front end: how many of a class start a
 * cycle (the ALUs: every loop's counter is one), the share of samples the sampler
 * spreads evenly, and how many allocate a cycle (the front end's delivery).
 */
static const char *const front_keys[] = { "ports.alu", "sample_stray", "alloc_width" };

/*
 * every default key fits: the groups', a delay a class but the nop's and the
 * serialising one's, lock_early, ports.mul, store_drain, store_bypass, the op
 * cache's two, the front's
 */
_Static_assert(sizeof(group_keys) / sizeof(group_keys[0]) + (T32_NCLASS - 2) + 6 +
	       sizeof(front_keys) / sizeof(front_keys[0]) <= T32_LEARN_MAX_PARAMS,
	       "the default keys fit the learned parameters");

size_t t32_learn_default_params(const struct t32_uarch *u, const struct t32_learn_probe *pr,
				size_t npr, char keys[][48], size_t max)
{
	int present[T32_NCLASS] = { 0 };
	size_t m = 0;

	present[T32_CLASS_BRANCH] = 1;
	for (size_t i = 0; i < npr; i++) {
		struct t32_model_insn *b = calloc(pr[i].n ? pr[i].n : 1, sizeof(*b));

		if (!b)
			continue;
		t32_model_prepare(u, pr[i].tab, pr[i].insns, pr[i].n, b);
		for (size_t k = 0; k < pr[i].n; k++)
			present[b[k].cls] = 1;
		free(b);
	}
	for (size_t k = 0; k < sizeof(group_keys) / sizeof(group_keys[0]) && m < max; k++)
		snprintf(keys[m++], 48, "%s", group_keys[k]);
	/*
	 * before the delays: a store of an add's result that does not hold is
	 * otherwise first explained by every ALU op holding longer than it
	 */
	if (present[T32_CLASS_STORE] && m < max)
		snprintf(keys[m++], 48, "store_bypass");
	for (int c = 0; c < T32_NCLASS && m < max; c++)
		if (present[c] && c != T32_CLASS_NOP && c != T32_CLASS_SERIAL)
			snprintf(keys[m++], 48, "retire_delay.%s", t32_classes[c].name);
	if (present[T32_CLASS_ATRETIRE] && m < max)
		snprintf(keys[m++], 48, "lock_early");
	if (present[T32_CLASS_MUL] && m < max)
		snprintf(keys[m++], 48, "ports.mul");
	if (present[T32_CLASS_STORE] && m < max)
		snprintf(keys[m++], 48, "store_drain");
	for (size_t i = 0; i < npr; i++)
		if (t32_learn_front(&pr[i])) {
			/* a probe long enough to outgrow the op cache: its size and the decoders */
			if (m < max)
				snprintf(keys[m++], 48, "opcache_ops");
			if (m < max)
				snprintf(keys[m++], 48, "decode_width");
			break;
		}
	for (size_t k = 0; k < sizeof(front_keys) / sizeof(front_keys[0]) && m < max; k++)
		snprintf(keys[m++], 48, "%s", front_keys[k]);
	return m;
}

/* The cpus this process may run on, 1..LEARN_THREADS_MAX. */
static size_t learn_threads(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > LEARN_THREADS_MAX ? LEARN_THREADS_MAX : (size_t)n;
}

/* The context's per-probe arrays, its memo and its probe-by-parameter table. */
static int learn_alloc(struct learn_ctx *c, char *err, size_t errlen)
{
	size_t npr = c->npr, nk = c->np, nfound = 0;

	c->w_share = calloc(npr, sizeof(double));
	c->w_curve = calloc(npr, sizeof(double));
	c->slope = calloc(npr, sizeof(double));
	c->slope_sd = calloc(npr, sizeof(double));
	c->min_dev = calloc(npr, sizeof(double));
	c->min_chi2 = calloc(npr, sizeof(double));
	c->cells = calloc(npr, sizeof(size_t));
	c->memo = calloc(LEARN_MEMO_SLOTS, sizeof(*c->memo));
	c->parts = calloc(npr, sizeof(*c->parts));
	c->touches = calloc(npr * (nk ? nk : 1), 1);
	c->found_at = calloc(npr, sizeof(size_t));
	for (size_t i = 0; c->found_at && i < npr; i++) {
		c->found_at[i] = nfound;
		nfound += c->pr[i].n + (c->pr[i].d.loop ? c->pr[i].d.loop_n : 0);
	}
	c->found = calloc(nfound ? nfound : 1, sizeof(*c->found));
	c->jobs = calloc(npr, sizeof(*c->jobs));
	if (!c->w_share || !c->w_curve || !c->slope || !c->slope_sd || !c->min_dev ||
	    !c->min_chi2 || !c->cells || !c->memo || !c->parts || !c->touches || !c->found_at ||
	    !c->found || !c->jobs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * Each probe's starting weights, curve slope and cells with samples; returns
 * the degrees of freedom of the probes not held out.
 */
static size_t learn_probes_init(struct learn_ctx *c)
{
	const struct t32_learn_probe *pr = c->pr;
	size_t dof = 0;

	for (size_t i = 0; i < c->npr; i++) {
		c->w_share[i] = c->w_curve[i] = 1;
		if (t32_learn_front(&pr[i]))
			c->w_share[i] = 0;
		c->min_dev[i] = c->min_chi2[i] = INFINITY;
		{
			struct t32_corr_data fast = t32_corr_fast(c->u0, pr[i].n, &pr[i].d);

			c->slope[i] = learn_slope(&fast, &c->slope_sd[i]);
		}
		t32_model_find(pr[i].tab, pr[i].insns, pr[i].n, c->found + c->found_at[i]);
		if (pr[i].d.loop)
			t32_model_find(pr[i].tab, pr[i].d.loop, pr[i].d.loop_n,
				       c->found + c->found_at[i] + pr[i].n);
		for (size_t k = 0; pr[i].d.counts && k < pr[i].n; k++)
			c->cells[i] += pr[i].d.counts[k] > 0;
		if (!pr[i].held)
			dof += (c->cells[i] > 1 && !t32_learn_front(&pr[i]) ? c->cells[i] - 1 : 0) +
			       (pr[i].d.curve ? pr[i].d.kmax : 0);
	}
	return dof;
}

/* Each parameter named once, its range set and its start put in v[]. */
static int learn_params_init(struct learn_ctx *c, struct t32_learn_result *r,
			     const char *const *keys, size_t nk, unsigned long *v,
			     char *err, size_t errlen)
{
	r->np = nk;
	return t32_corr_params_init(keys, nk, r->p, v, learn_param_init, c, err, errlen);
}

/* Probe i's weights: its terms over the least misfit per degree of freedom any value so far gave it. */
static void learn_probe_weights(const struct learn_ctx *c, size_t i, double *ws, double *wc)
{
	double ds = c->cells[i] > 1 ? (double)(c->cells[i] - 1) : 1;
	double dc = c->pr[i].d.curve ? (double)c->pr[i].d.kmax : 1;

	*ws = t32_learn_front(&c->pr[i]) ? 0 : c->min_dev[i] / ds > 1 ? ds / c->min_dev[i] : 1;
	*wc = c->min_chi2[i] / dc > 1 ? dc / c->min_chi2[i] : 1;
}

/* Is a outside b's range by more than a factor of LEARN_REWEIGH either way? */
static int learn_moved(double a, double b)
{
	return a > LEARN_REWEIGH * b || a * LEARN_REWEIGH < b;
}

/*
 * Each probe's weights set (first) or set again when one moved by more than a
 * factor of LEARN_REWEIGH; returns whether they were set.
 */
static int learn_weigh(struct learn_ctx *c, int first)
{
	int moved = first;
	double ws, wc;

	for (size_t i = 0; i < c->npr && !moved; i++) {
		if (c->pr[i].held)
			continue;
		learn_probe_weights(c, i, &ws, &wc);
		moved = learn_moved(ws, c->w_share[i]) || learn_moved(wc, c->w_curve[i]);
	}
	if (!moved)
		return 0;
	for (size_t i = 0; i < c->npr; i++)
		if (!c->pr[i].held)
			learn_probe_weights(c, i, &c->w_share[i], &c->w_curve[i]);
	return 1;
}

/*
 * The descent from v[] in rounds, its best values into best_v[] and its
 * objective into *best.  Each weighted round also descends again from each
 * other retire group and from each starting value a parameter left: on the Zen 5
 * recording, whose store latency had come from the store's throughput and was
 * then left to the table, the descent stopped at retire_width 5, where the width
 * held at its documented 8 while the rest moved scored lower.
 */
static int learn_search(struct learn_ctx *c, const unsigned long *v, unsigned long *best_v,
			double *best, const char *const *keys, char *err, size_t errlen)
{
	size_t nk = c->np;

	/*
	 * The first round (one pass over every parameter's range) with every term as
	 * it is; the next with each probe's two terms divided by the least misfit per
	 * degree of freedom any value so far gave that probe: the scatter the probe
	 * keeps whatever the model (a sampling regime, a clock that moved), so a probe
	 * no model shapes exactly does not drown the others, and a probe the starting
	 * values fit badly but some value fits well keeps its say.  One pass can miss
	 * the values that fit a probe (a Zen 4's load-nop20 met them only in the
	 * second round, and weighed as a probe nothing fits, its nops were learned to
	 * take slots): when a weighted round found a probe a fit much better than the
	 * weights knew, or much worse, they are set again and the round run again.
	 */
	for (int round = 0; round < LEARN_ROUNDS; round++) {
		/* the first round only sets the weights: one pass will do */
		struct t32_descent d = { c->p, c->np, round ? LEARN_MAX_PASSES : 1,
					  learn_objective, c, learn_objective_many };

		memcpy(best_v, v, nk * sizeof(*v));
		*best = t32_descend(&d, best_v, -1);
		if (round) {
			*best = t32_descend_group_starts(&d, best_v, *best);
			*best = t32_descend_start_again(&d, best_v, *best, v);
		}
		if (!isfinite(*best)) {
			snprintf(err, errlen, "the model cannot run the probes with any value tried '%s'",
				 nk ? keys[0] : "(none)");
			return -1;
		}
		if (round + 1 == LEARN_ROUNDS || !learn_weigh(c, round == 0))
			break;
	}
	return 0;
}

/*
 * The scale of the misfit over dof degrees of freedom and each parameter's
 * interval from its profile of the objective around the best values.
 */
static int learn_intervals(struct learn_ctx *c, struct t32_learn_result *r,
			   const unsigned long *best_v, double best, size_t dof,
			   char *err, size_t errlen)
{
	const struct t32_learn_probe *pr = c->pr;
	const struct learn_part *part;
	size_t npr = c->npr, nk = c->np;
	double *prof;
	struct t32_descent d = { c->p, nk, 1, learn_objective, c, learn_objective_many };

	dof = dof > nk ? dof - nk : 1;
	{
		double pen = 0, misfit;

		part = learn_parts(c, best_v);
		for (size_t i = 0; part && i < npr; i++)
			if (!pr[i].held)
				pen += part[i].penalty;
		misfit = (best - pen) / (double)dof;
		r->scale = sqrt(misfit > 1 ? misfit : 1);
	}
	prof = t32_corr_profile_buf(r->p, nk, err, errlen);
	if (!prof)
		return -1;
	for (size_t j = 0; j < nk; j++) {
		struct t32_corr_param *p = &r->p[j];

		t32_descend_profile(&d, best_v, j, p->lo, p->hi, prof);
		learn_interval(p, prof, r->scale);
	}
	free(prof);
	return 0;
}

int t32_learn_fit(const struct t32_uarch *u0, const struct t32_learn_probe *pr, size_t npr,
		  const char *const *keys, size_t nk, const struct t32_corr_opts *o,
		  struct t32_learn_result *r, char *err, size_t errlen)
{
	struct learn_ctx c;
	unsigned long v[T32_LEARN_MAX_PARAMS] = { 0 }, best_v[T32_LEARN_MAX_PARAMS] = { 0 };
	double best = INFINITY;
	size_t dof = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	memset(&c, 0, sizeof(c));
	if (nk > T32_LEARN_MAX_PARAMS) {
		snprintf(err, errlen, "too many parameters to learn '%zu'", nk);
		return -1;
	}
	for (size_t i = 0; i < npr; i++)
		r->probes += !pr[i].held;
	if (r->probes == 0) {
		snprintf(err, errlen, "no probe to learn from '%zu held'", npr);
		return -1;
	}
	if (o)
		c.o = *o;
	else
		t32_corr_opts_init(&c.o);
	c.o.balance = 0;
	c.u0 = u0;
	c.pr = pr;
	c.npr = npr;
	c.np = nk;
	c.p = r->p;
	c.threads = learn_threads();
	if (learn_alloc(&c, err, errlen))
		goto out;
	dof = learn_probes_init(&c);
	if (learn_params_init(&c, r, keys, nk, v, err, errlen))
		goto out;
	if (learn_touches(&c)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (learn_search(&c, v, best_v, &best, keys, err, errlen))
		goto out;
	for (size_t j = 0; j < nk; j++)
		r->p[j].value = best_v[j];
	if (learn_intervals(&c, r, best_v, best, dof, err, errlen))
		goto out;
	r->objective = best;
	if (learn_uarch(&c, best_v, &r->u)) {
		snprintf(err, errlen, "the learned values do not fit the micro-architecture '%s'",
			 u0->name);
		goto out;
	}
	r->evals = c.evals;
	for (size_t j = 0; j < nk; j++) {	/* in the parameters' own units */
		struct t32_corr_param *p = &r->p[j];
		unsigned long m = c.scale[j];

		p->lo *= m;
		p->hi *= m;
		p->start *= m;
		p->value *= m;
		p->ci_lo *= m;
		p->ci_hi *= m;
		p->est *= (double)m;
		p->sd *= (double)m;
	}
	rc = 0;
out:
	free(c.memo);
	free(c.parts);
	free(c.touches);
	free(c.w_share);
	free(c.w_curve);
	free(c.slope);
	free(c.slope_sd);
	free(c.min_dev);
	free(c.min_chi2);
	free(c.cells);
	free(c.found);
	free(c.found_at);
	free(c.jobs);
	return rc;
}

int t32_learn_predict(const struct t32_uarch *u, const struct t32_learn_probe *p,
		      struct t32_corr_result *r, char *err, size_t errlen)
{
	struct t32_corr_opts o;

	t32_corr_opts_init(&o);
	return t32_corr_fit(u, p->tab, p->insns, p->n, &p->d, NULL, 0, &o, r, err, errlen);
}

double t32_learn_gain_p(double dev_pred, double dev_fit, double dispersion, unsigned df)
{
	double drop = dev_pred - dev_fit;

	if (!(drop > 0))
		return 1;
	if (!(dispersion >= 1))
		dispersion = 1;
	return gsl_cdf_chisq_Q(drop / dispersion, df ? df : 1);
}
