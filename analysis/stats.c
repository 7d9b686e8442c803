/*
 * stats.c - summaries, quantum, sub-quantum estimate, intervals, stopping rule.
 * See stats.h for the model behind the estimate.
 */
#include "analysis/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

const struct t32_flag_name t32_est_flags[] = {
	{ T32_EST_NOQUANT, "noquant", "the TSC advances by single ticks: the two lowest ticks give the value" },
	{ T32_EST_FEW, "few", "few samples in the two lowest levels" },
	{ T32_EST_LEVELS, "levels", "the duration varies by more than a TSC step: the mean of the bulk" },
	{ T32_EST_FALLBACK, "fallback", "too few samples for a proportion: the value is the minimum" },
	{ T32_EST_SHARED, "shared", "another task ran on the measuring CPU in every measuring process, so its readings could not be set aside" },
	{ T32_EST_BUSY, "busy", "another task ran on a CPU that may share the measuring CPU's core (an SMT sibling; under a hypervisor, any CPU) in every measuring process" },
	{ T32_EST_STEAL, "steal", "the hypervisor stole time from the measuring CPU: the readings it hit were set aside as outliers (information only)" },
	{ 0, NULL, NULL },
};

/*
 * Sort a[0..n) in place, tmp as scratch of the same size: LSD radix sort on bytes,
 * skipping the bytes all keys share, so small deltas cost one or two passes.
 */
static void radix_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
	size_t count[256];
	uint64_t *src = a, *dst = tmp;

	for (unsigned shift = 0; shift < 64; shift += 8) {
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xff]++;
		if (count[(src[0] >> shift) & 0xff] == n)
			continue;
		size_t pos = 0;
		for (int b = 0; b < 256; b++) {
			size_t c = count[b];
			count[b] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Make room for want levels in h. */
static int hist_reserve(struct t32_hist *h, size_t want)
{
	if (want <= h->cap)
		return 0;
	size_t cap = h->cap ? h->cap : 16;
	while (cap < want)
		cap *= 2;
	struct t32_level *lv = realloc(h->lv, cap * sizeof(*lv));
	if (!lv)
		return -1;
	h->lv = lv;
	h->cap = cap;
	return 0;
}

/* Merge nb distinct ascending levels b into h. */
static int hist_merge(struct t32_hist *h, const struct t32_level *b, size_t nb)
{
	struct t32_level *m = malloc((h->nlv + nb) * sizeof(*m));
	uint64_t added = 0;

	if (!m)
		return -1;
	size_t i = 0, j = 0, k = 0;
	while (i < h->nlv || j < nb) {
		if (j == nb || (i < h->nlv && h->lv[i].ticks < b[j].ticks))
			m[k++] = h->lv[i++];
		else if (i == h->nlv || b[j].ticks < h->lv[i].ticks) {
			added += b[j].count;
			m[k++] = b[j++];
		} else {
			added += b[j].count;
			m[k] = h->lv[i++];
			m[k++].count += b[j++].count;
		}
	}
	if (hist_reserve(h, k) < 0) {
		free(m);
		return -1;
	}
	memcpy(h->lv, m, k * sizeof(*m));
	free(m);
	h->nlv = k;
	h->n += added;
	return 0;
}

/*
 * Add a batch: sort a copy, count its distinct values, merge them into the
 * levels already there.  Batches from a sampling loop can be added one by one.
 */
int t32_hist_add(struct t32_hist *h, const uint64_t *ticks, size_t n)
{
	if (n == 0)
		return 0;
	uint64_t *a = malloc(2 * n * sizeof(*a));
	if (!a)
		return -1;
	memcpy(a, ticks, n * sizeof(*a));
	radix_sort(a, a + n, n);

	/* Distinct values of the batch with their counts. */
	size_t nb = 0;
	struct t32_level *b = malloc(n * sizeof(*b));
	if (!b) {
		free(a);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (nb && b[nb - 1].ticks == a[i])
			b[nb - 1].count++;
		else
			b[nb++] = (struct t32_level){ a[i], 1 };
	}
	free(a);
	int r = hist_merge(h, b, nb);
	free(b);
	return r;
}

int t32_hist_add_hist(struct t32_hist *h, const struct t32_hist *from)
{
	return from->nlv ? hist_merge(h, from->lv, from->nlv) : 0;
}

/* Release the levels; h is empty again and may be reused. */
void t32_hist_free(struct t32_hist *h)
{
	free(h->lv);
	memset(h, 0, sizeof(*h));
}

/* The value at 0-based rank r of the sorted samples. */
static uint64_t hist_at(const struct t32_hist *h, uint64_t r)
{
	uint64_t seen = 0;

	for (size_t i = 0; i < h->nlv; i++) {
		seen += h->lv[i].count;
		if (r < seen)
			return h->lv[i].ticks;
	}
	return h->lv[h->nlv - 1].ticks;
}

/* One level's distance from the median, for the MAD. */
struct dev {
	double d;		/* ticks */
	uint64_t count;
};

/* Order deviations ascending, for the MAD. */
static int dev_cmp(const void *a, const void *b)
{
	double x = ((const struct dev *)a)->d, y = ((const struct dev *)b)->d;

	return (x > y) - (x < y);
}

/* Summary from the levels: ranks are walked, never expanded into samples. */
int t32_summarize_hist(const struct t32_hist *h, struct t32_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (h->n == 0)
		return -1;
	uint64_t n = h->n;
	s->n = n;
	s->min = h->lv[0].ticks;
	s->max = h->lv[h->nlv - 1].ticks;
	if (n % 2)
		s->median = hist_at(h, n / 2);
	else
		s->median = ((double)hist_at(h, n / 2 - 1) + (double)hist_at(h, n / 2)) / 2;

	/* Mean, and the mean of ranks [t, n - t) for the 10% trimmed mean. */
	uint64_t t = n / 10, seen = 0;
	long double sum = 0, tsum = 0;
	for (size_t i = 0; i < h->nlv; i++) {
		uint64_t c = h->lv[i].count, from = seen, to = seen + c;
		long double v = h->lv[i].ticks;
		sum += v * c;
		if (from < t)
			from = t;
		if (to > n - t)
			to = n - t;
		if (to > from)
			tsum += v * (to - from);
		seen += c;
	}
	s->mean = (double)(sum / n);
	s->trimmed = (double)(tsum / (n - 2 * t));

	struct dev *d = malloc(h->nlv * sizeof(*d));
	if (!d)
		return -1;
	for (size_t i = 0; i < h->nlv; i++)
		d[i] = (struct dev){ fabs((double)h->lv[i].ticks - s->median), h->lv[i].count };
	qsort(d, h->nlv, sizeof(*d), dev_cmp);
	/* Median of the deviations: same rank rule as the median itself. */
	double lo = NAN, hi = NAN;
	uint64_t rlo = (n - 1) / 2, rhi = n / 2;
	seen = 0;
	for (size_t i = 0; i < h->nlv; i++) {
		seen += d[i].count;
		if (isnan(lo) && rlo < seen)
			lo = d[i].d;
		if (rhi < seen) {
			hi = d[i].d;
			break;
		}
	}
	free(d);
	s->mad = (lo + hi) / 2;
	return 0;
}

/* Summary of an array, through a histogram of a copy. */
int t32_summarize(const uint64_t *ticks, size_t n, struct t32_summary *s)
{
	struct t32_hist h = { 0 };

	if (n == 0 || t32_hist_add(&h, ticks, n) < 0) {
		memset(s, 0, sizeof(*s));
		t32_hist_free(&h);
		return -1;
	}
	int r = t32_summarize_hist(&h, s);
	t32_hist_free(&h);
	return r;
}

/* Greatest common divisor; gcd(0, b) = b starts a running gcd. */
static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Distance of two tick counts without unsigned wrap-around. */
static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Samples on the lattice base + k q. */
static uint64_t on_lattice(const struct t32_hist *h, uint64_t base, uint64_t q)
{
	uint64_t k = 0;

	for (size_t i = 0; i < h->nlv; i++)
		if (absdiff(h->lv[i].ticks, base) % q == 0)
			k += h->lv[i].count;
	return k;
}

/* Levels by count, most frequent first (ties: lower value first). */
static int by_count(const void *a, const void *b)
{
	const struct t32_level *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->ticks > y->ticks) - (x->ticks < y->ticks);
}

/* The TSC step from a histogram (rules in stats.h). */
uint64_t t32_quantum_hist(const struct t32_hist *h, uint64_t *offset, double *share)
{
	uint64_t q = 0, base;
	struct t32_level *order;

	if (offset)
		*offset = 0;
	if (share)
		*share = h->n ? 1 : 0;
	if (h->nlv == 0)
		return 1;
	order = malloc(h->nlv * sizeof(*order));
	if (!order)
		return 1;
	memcpy(order, h->lv, h->nlv * sizeof(*order));
	qsort(order, h->nlv, sizeof(*order), by_count);
	base = order[0].ticks;

	/*
	 * From the most frequent values down: a value seen once never changes q; a
	 * value that would lower q does so only while q explains too few samples.
	 */
	for (size_t i = 1; i < h->nlv; i++) {
		const struct t32_level *l = &order[i];
		if (l->count < 2)
			break;
		uint64_t g = gcd(q, absdiff(l->ticks, base));
		if (g == q)
			continue;
		if (q && on_lattice(h, base, q) >= T32_QUANTUM_SHARE * h->n)
			continue;
		q = g;
	}
	free(order);
	if (q < 2 || on_lattice(h, base, q) < T32_QUANTUM_SHARE * h->n) {
		if (offset)
			*offset = 0;
		return 1;
	}
	if (offset)
		*offset = base % q;
	if (share)
		*share = (double)on_lattice(h, base, q) / h->n;
	return q;
}

/* The TSC step from an array, through a histogram of a copy. */
uint64_t t32_quantum(const uint64_t *ticks, size_t n, uint64_t *offset, double *share)
{
	struct t32_hist h = { 0 };
	uint64_t q = 1;

	if (t32_hist_add(&h, ticks, n) == 0)
		q = t32_quantum_hist(&h, offset, share);
	else {
		if (offset)
			*offset = 0;
		if (share)
			*share = 0;
	}
	t32_hist_free(&h);
	return q;
}

/* Share of the differences d[0..n) that are multiples of q. */
static double multiples(const uint64_t *d, size_t n, uint64_t q)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += d[i] % q == 0;
	return n ? (double)k / n : 0;
}

/* The step from raw readings (see stats.h). */
uint64_t t32_tsc_step(const uint64_t *readings, size_t n, double *share)
{
	struct t32_hist h = { 0 };
	uint64_t *d, best = 1, mode = 0, modecount = 0;
	size_t nd = 0;

	if (share)
		*share = 0;
	if (n < 101 || !(d = malloc((n - 1) * sizeof(*d))))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (readings[i] > readings[i - 1] && readings[i] - readings[i - 1] < (1u << 30))
			d[nd++] = readings[i] - readings[i - 1];
	if (nd < 100 || t32_hist_add(&h, d, nd)) {
		free(d);
		t32_hist_free(&h);
		return 0;
	}
	for (size_t i = 0; i < h.nlv; i++)
		if (h.lv[i].count > modecount) {
			modecount = h.lv[i].count;
			mode = h.lv[i].ticks;
		}
	if (h.nlv < 4) {
		free(d);
		t32_hist_free(&h);
		return 0;
	}
	t32_hist_free(&h);
	/* Divisors of the most frequent difference, the largest that explains enough. */
	for (uint64_t a = 1; a * a <= mode; a++) {
		if (mode % a)
			continue;
		uint64_t pair[2] = { a, mode / a };
		for (int j = 0; j < 2; j++)
			if (pair[j] > best && multiples(d, nd, pair[j]) >= T32_QUANTUM_SHARE)
				best = pair[j];
	}
	if (share)
		*share = best > 1 ? multiples(d, nd, best) : 1;
	free(d);
	return best;
}

/* Count at exactly v, 0 if not seen. */
static uint64_t hist_count(const struct t32_hist *h, uint64_t v)
{
	size_t lo = 0, hi = h->nlv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->lv[mid].ticks < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nlv && h->lv[lo].ticks == v ? h->lv[lo].count : 0;
}

/*
 * The estimate of stats.h, with its flags, from a histogram: the mean of the
 * lattice levels in the bulk window, which with two levels is the two-level
 * estimate L + q k1 / (k0 + k1).
 */
int t32_estimate_hist(const struct t32_hist *h, uint64_t q, struct t32_estimate *e)
{
	uint64_t offset = 0;

	memset(e, 0, sizeof(*e));
	if (h->n == 0)
		return -1;
	e->n = h->n;
	if (q == 0)
		q = t32_quantum_hist(h, &offset, NULL);
	else if (q > 1) {
		/* The lattice is the one holding the most frequent value. */
		size_t best = 0;
		for (size_t i = 1; i < h->nlv; i++)
			if (h->lv[i].count > h->lv[best].count)
				best = i;
		offset = h->lv[best].ticks % q;
	}
	e->q = q;
	if (q == 1)
		e->flags |= T32_EST_NOQUANT;

	/*
	 * The window: the most frequent lattice level M and one level either side
	 * (a two-level reading is always among them), widened while the next level
	 * out holds at least T32_EST_BULK of M's samples (a duration that itself
	 * varies by more than a step: a wobbling core clock, a block of variable
	 * timing).  Outside it lie the outliers: interrupts above, glitches below.
	 */
	size_t mode = SIZE_MAX;
	for (size_t i = 0; i < h->nlv; i++)
		if (h->lv[i].ticks % q == offset &&
		    (mode == SIZE_MAX || h->lv[i].count > h->lv[mode].count))
			mode = i;
	uint64_t m = h->lv[mode].ticks, lo = m >= q ? m - q : m, top = m + q;
	double bulk = T32_EST_BULK * (double)h->lv[mode].count;
	while (lo >= q && hist_count(h, lo - q) >= bulk)
		lo -= q;
	while (top + q > top && hist_count(h, top + q) >= bulk)
		top += q;
	while (lo < m && !hist_count(h, lo))
		lo += q;
	while (top > m && !hist_count(h, top))
		top -= q;
	if (top == lo)
		top = lo + q;	/* one level: the pair is it and the empty one above */
	for (size_t i = 0; i < h->nlv && h->lv[i].ticks < lo; i++)
		if (h->lv[i].ticks % q == offset)
			e->below += h->lv[i].count;
	e->bottom = lo;
	e->top = top;
	e->k0 = hist_count(h, lo);
	e->k1 = hist_count(h, lo + q);
	e->k2 = hist_count(h, lo + 2 * q);

	long double sum = 0, sum2 = 0;
	for (uint64_t v = lo; v <= top; v += q) {
		uint64_t c = hist_count(h, v);
		long double x = (long double)(v - lo);
		e->window += c;
		sum += x * c;
		sum2 += x * x * c;
	}

	uint64_t pair = e->k0 + e->k1;
	if (e->window < T32_EST_MIN_PAIR || e->window < T32_EST_MIN_SHARE * e->n)
		e->flags |= T32_EST_FEW;
	if (top > e->bottom + q || pair < T32_EST_LEVELS_SHARE * e->n)
		e->flags |= T32_EST_LEVELS;
	if (e->window < T32_EST_MIN_RATIO) {
		e->flags |= T32_EST_FALLBACK;
		e->value = e->bottom;
		e->lo = e->bottom;
		e->hi = (double)e->bottom + q;
		return 0;
	}

	double z = t32_z(0.95);
	if (top == e->bottom + q) {
		/*
		 * Two levels: Wilson on the share above, both ways (one level may be the
		 * upper of a pair whose lower level never showed).
		 */
		double plo, phi;
		t32_wilson(e->k1, pair, z, &plo, &phi);
		e->value = e->bottom + (double)q * e->k1 / pair;
		e->lo = e->bottom + q * plo;
		e->hi = e->bottom + q * phi;
		if (e->k1 == 0)
			e->lo = e->bottom - q * phi;
		return 0;
	}
	double mean = (double)(sum / e->window);
	double var = (double)(sum2 / e->window) - mean * mean;
	double half = z * sqrt(fmax(var, 0) / e->window) + (double)q / e->window;
	e->value = e->bottom + mean;
	e->lo = e->value - half;
	e->hi = e->value + half;
	return 0;
}

/* The estimate from an array, through a histogram of a copy. */
int t32_estimate(const uint64_t *ticks, size_t n, uint64_t q, struct t32_estimate *e)
{
	struct t32_hist h = { 0 };

	if (n == 0 || t32_hist_add(&h, ticks, n) < 0) {
		memset(e, 0, sizeof(*e));
		t32_hist_free(&h);
		return -1;
	}
	int r = t32_estimate_hist(&h, q, e);
	t32_hist_free(&h);
	return r;
}

/* Per-instruction cost from two estimates, independent errors combined. */
int t32_estimate_diff(const struct t32_estimate *block, const struct t32_estimate *empty,
		      uint64_t n, struct t32_cost *c)
{
	memset(c, 0, sizeof(*c));
	if (n == 0)
		return -1;
	double v = block->value - empty->value;
	/* Low side: the block low, the empty high; and the other way round. */
	double dlo = hypot(block->value - block->lo, empty->hi - empty->value);
	double dhi = hypot(block->hi - block->value, empty->value - empty->lo);
	c->value = v / n;
	c->lo = (v - dlo) / n;
	c->hi = (v + dhi) / n;
	c->flags = block->flags | empty->flags;
	return 0;
}

/* Names of the set flags from the table, so output never spells them twice. */
char *t32_est_flags_str(unsigned flags, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (const struct t32_flag_name *f = t32_est_flags; f->name; f++) {
		if (!(flags & f->bit))
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", used ? "," : "", f->name);
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = '\0';	/* whole names only */
			break;
		}
		used += w;
	}
	if (used == 0)
		snprintf(buf, len, "-");
	return buf;
}

/* Normal quantile for a two-sided level, from GSL. */
double t32_z(double confidence)
{
	return gsl_cdf_ugaussian_Pinv(0.5 + confidence / 2);
}

/* Wilson score interval; exact 0 and 1 at the ends, where rounding would stray. */
void t32_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
	if (n == 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	double p = (double)k / n, z2 = z * z;
	double den = 1 + z2 / n;
	double mid = (p + z2 / (2.0 * n)) / den;
	double half = z * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / den;
	*lo = k == 0 ? 0 : fmax(0, mid - half);
	*hi = k == n ? 1 : fmin(1, mid + half);
}

/* The larger side: Wilson intervals are not symmetric. */
double t32_halfwidth(double value, double lo, double hi)
{
	return fmax(value - lo, hi - value);
}

/* min_n first, then precision, then the max_n limit. */
enum t32_stop t32_stop_check(const struct t32_stop_rule *r, double halfwidth, uint64_t n)
{
	if (n < r->min_n)
		return r->max_n && n >= r->max_n ? T32_STOP_LIMIT : T32_GO_ON;
	if (r->target > 0 && isfinite(halfwidth) && halfwidth <= r->target)
		return T32_STOP_PRECISE;
	if (r->max_n && n >= r->max_n)
		return T32_STOP_LIMIT;
	return T32_GO_ON;
}

/* How many samples to have before the next check (see stats.h). */
uint64_t t32_stop_next(const struct t32_stop_rule *r, double halfwidth, uint64_t n)
{
	double want;

	if (n == 0)
		want = r->min_n ? r->min_n : 1;
	else if (r->target > 0 && isfinite(halfwidth) && halfwidth > 0)
		want = 1.1 * n * (halfwidth / r->target) * (halfwidth / r->target);
	else
		want = 2.0 * n;
	if (want < r->min_n)
		want = r->min_n;
	if (want <= n)
		want = n + 1;
	if (r->max_n && want > r->max_n)
		want = r->max_n;
	if (want > 1e18)
		want = 1e18;
	return (uint64_t)ceil(want);
}

int t32_homogeneity(const uint64_t *counts, size_t parts, size_t cats, struct t32_homog *h)
{
	double *col = calloc(cats + 1, sizeof(double)), *row = calloc(parts, sizeof(double));
	unsigned char *merged = calloc(cats + 1, 1);
	double total = 0, chi2 = 0;
	size_t used_parts = 0, kept = 0, nmerged = 0;
	int rc = -1;

	memset(h, 0, sizeof(*h));
	if (!col || !row || !merged)
		goto out;
	for (size_t p = 0; p < parts; p++)
		for (size_t c = 0; c < cats; c++) {
			col[c] += (double)counts[p * cats + c];
			row[p] += (double)counts[p * cats + c];
		}
	for (size_t p = 0; p < parts; p++) {
		total += row[p];
		used_parts += row[p] > 0;
	}
	if (used_parts < 2)
		goto out;
	/* categories too thin to test alone go together */
	for (size_t c = 0; c < cats; c++) {
		merged[c] = col[c] / (double)used_parts < T32_HOMOG_MIN_EXPECTED;
		nmerged += merged[c];
		kept += !merged[c];
	}
	for (size_t p = 0; p < parts; p++) {
		double other = 0, other_col = 0, tvd = 0, noise = 0, rest = total - row[p];

		if (!row[p])
			continue;
		for (size_t c = 0; c <= cats; c++) {
			double o, cs, e, in_rest;

			if (c < cats && merged[c]) {
				other += (double)counts[p * cats + c];
				other_col += col[c];
				continue;
			}
			o = c < cats ? (double)counts[p * cats + c] : other;
			cs = c < cats ? col[c] : other_col;
			if (cs <= 0)
				continue;
			e = cs * row[p] / total;
			chi2 += (o - e) * (o - e) / e;
			in_rest = cs - o;
			if (rest > 0) {
				double q = cs / total;

				tvd += fabs(o / row[p] - in_rest / rest);
				/* E|part - rest| for this share when both draw from q */
				noise += sqrt(2 / M_PI * q * (1 - q) * (1 / row[p] + 1 / rest));
			}
		}
		if (tvd / 2 > h->tvd)
			h->tvd = tvd / 2;
		if ((tvd - noise) / 2 > h->excess)
			h->excess = (tvd - noise) / 2;
	}
	h->cats = (unsigned)(kept + (nmerged > 0));
	h->parts = (unsigned)used_parts;
	h->chi2 = chi2;
	h->df = (unsigned)((h->parts - 1) * (h->cats > 1 ? h->cats - 1 : 0));
	h->p = h->df ? gsl_cdf_chisq_Q(chi2, h->df) : 1;
	h->unstable = h->p < T32_HOMOG_P && h->excess > T32_HOMOG_TVD;
	rc = 0;
out:
	free(col);
	free(row);
	free(merged);
	return rc;
}
