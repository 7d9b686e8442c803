/*
 * wake.c - datapoints, filters and statistics of `t32 wake`, and its raw file
 * read back.  See wake.h.
 */
#include "t32/core/wake.h"

#include <gsl/gsl_cdf.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "t32/spec.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

const char *const t32_wake_method_names[T32_WAKE_NMETHODS] = { "sleep", "spin" };
const char *const t32_wake_method_summaries[T32_WAKE_NMETHODS] = {
	"clock_nanosleep to an absolute deadline; TSC on return - deadline",
	"spin under a POSIX timer signal; TSC in the handler - deadline, and the loop's gap "
	"around it",
};

const struct t32_wake_flag t32_wake_flags[T32_WAKE_NFLAGS] = {
	{ "tsc_back", "a TSC reading went backwards or readings were out of order" },
	{ "negative", "woke before the deadline by more than the conversion error" },
	{ "late", "the timer was armed after its deadline had passed" },
	{ "other_irq", "another interrupt came to the CPU during the event" },
	{ "no_idle", "the CPU never entered an idle state: the wake-up preempted a task "
		     "(kept unless --idle-only)" },
};

const double t32_wake_ps[T32_WAKE_NQ] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };
const char *const t32_wake_pnames[T32_WAKE_NQ] = { "p50", "p90", "p99", "p99.9", "p99.99" };

int t32_wake_conv_from(const struct t32_wake_anchor *a, const struct t32_wake_anchor *b,
		       struct t32_wake_conv *c)
{
	double mid_a, mid_b, dmono = (double)(b->mono_ns - a->mono_ns);

	if (a->tsc_hi < a->tsc_lo || b->tsc_hi < b->tsc_lo || b->tsc_lo <= a->tsc_hi ||
	    dmono <= 0)
		return -1;
	mid_a = (double)a->tsc_lo + (double)(a->tsc_hi - a->tsc_lo) / 2;
	mid_b = (double)b->tsc_lo + (double)(b->tsc_hi - b->tsc_lo) / 2;
	c->ticks_per_ns = (mid_b - mid_a) / dmono;
	/* each anchor's clock reading lies somewhere in its bracket; the clock counts whole ns */
	c->rel_err = ((double)(a->tsc_hi - a->tsc_lo) / 2 + (double)(b->tsc_hi - b->tsc_lo) / 2) /
		     (mid_b - mid_a) + 2 / dmono;
	c->baseline_ns = dmono;
	return c->ticks_per_ns > 0 ? 0 : -1;
}

void t32_wake_point_of(enum t32_wake_method m, const struct t32_wake_event *e,
		       const struct t32_wake_conv *c, struct t32_wake_point *p)
{
	const struct t32_wake_anchor *a = &e->anchor;
	double half = a->tsc_hi >= a->tsc_lo ? (double)(a->tsc_hi - a->tsc_lo) / 2 : 0;
	double mid = (double)a->tsc_lo + half;

	memset(p, 0, sizeof(*p));
	p->deadline = (uint64_t)llround(mid + (double)e->ldist_ns * c->ticks_per_ns);
	p->latency_ticks = (int64_t)(e->wake - p->deadline);
	p->latency_ns = (double)p->latency_ticks / c->ticks_per_ns;
	p->conv_err_ns = half / c->ticks_per_ns + (double)e->ldist_ns * c->rel_err + 1;
	if (e->tsc_back || a->tsc_hi < a->tsc_lo || e->launch < a->tsc_hi || e->wake < e->launch)
		p->flags |= T32_WAKE_TSC_BACK;
	if (m == T32_WAKE_SPIN) {
		/* the handler's reading must lie inside the gap the loop saw around it */
		if (e->gap_end <= e->gap_start || e->wake < e->gap_start || e->wake > e->gap_end)
			p->flags |= T32_WAKE_TSC_BACK;
		else
			p->gap_ticks = (int64_t)(e->gap_end - e->gap_start);
		p->gap_ns = (double)p->gap_ticks / c->ticks_per_ns;
		if (e->other_gaps)
			p->flags |= T32_WAKE_OTHER_IRQ;
	}
	/* the timer's own interrupt is one */
	if (e->irqs > 1)
		p->flags |= T32_WAKE_OTHER_IRQ;
	if (e->launch > p->deadline && !(p->flags & T32_WAKE_TSC_BACK))
		p->flags |= T32_WAKE_LATE;
	if (p->latency_ns < -p->conv_err_ns && !(p->flags & T32_WAKE_TSC_BACK))
		p->flags |= T32_WAKE_NEGATIVE;
	if (m == T32_WAKE_SLEEP && e->nidle) {
		uint64_t entries = 0;

		for (unsigned i = 0; i < e->nidle && i < T32_WAKE_MAX_IDLE; i++)
			entries += e->idle_entries[i];
		if (entries == 0)
			p->flags |= T32_WAKE_NO_IDLE;
	}
}

void t32_wake_status(unsigned flags, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = 0;
	if (!flags) {
		snprintf(buf, len, "ok");
		return;
	}
	for (int i = 0; i < T32_WAKE_NFLAGS; i++)
		if (flags & (1u << i) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 t32_wake_flags[i].name);
}

int t32_wake_parse_status(const char *text, unsigned *flags)
{
	*flags = 0;
	if (strcmp(text, "ok") == 0)
		return 0;
	while (*text) {
		size_t l = strcspn(text, ","), i;

		for (i = 0; i < T32_WAKE_NFLAGS; i++)
			if (strlen(t32_wake_flags[i].name) == l &&
			    strncmp(text, t32_wake_flags[i].name, l) == 0)
				break;
		if (i == T32_WAKE_NFLAGS)
			return -1;
		*flags |= 1u << i;
		text += l;
		if (*text == ',' && *++text == 0)
			return -1;
	}
	return *flags ? 0 : -1;
}

/* P(B <= k) for B ~ Bin(n, p); 0 for k < 0. */
static double binom_cdf(long long k, double p, size_t n)
{
	if (k < 0)
		return 0;
	if ((size_t)k >= n)
		return 1;
	return gsl_cdf_binomial_P((unsigned)k, p, (unsigned)n);
}

void t32_wake_quantile(const double *x, size_t n, double p, double level, struct t32_wake_q *q)
{
	double a = (1 - level) / 2;
	long long lo, hi;

	memset(q, 0, sizeof(*q));
	q->p = p;
	q->value = q->lo = q->hi = NAN;
	if (n == 0 || n > UINT_MAX)
		return;
	q->rank = (size_t)ceil(p * (double)n - 1e-9);
	if (q->rank < 1)
		q->rank = 1;
	if (q->rank > n)
		q->rank = n;
	q->value = x[q->rank - 1];
	/* l - 1: the largest k with P(B <= k) <= a (-1 when even k = 0 is too likely) */
	lo = -1;
	hi = (long long)n;
	while (hi - lo > 1) {
		long long mid = lo + (hi - lo) / 2;

		if (binom_cdf(mid, p, n) <= a)
			lo = mid;
		else
			hi = mid;
	}
	q->rank_lo = (size_t)(lo + 1);
	/* u - 1: the smallest j with P(B > j) <= a (n at most, where it is 0) */
	lo = -1;
	hi = (long long)n;
	while (hi - lo > 1) {
		long long mid = lo + (hi - lo) / 2;

		if (1 - binom_cdf(mid, p, n) <= a)
			hi = mid;
		else
			lo = mid;
	}
	q->rank_hi = (size_t)hi + 1;
	q->lo = q->rank_lo >= 1 ? x[q->rank_lo - 1] : -INFINITY;
	q->hi = q->rank_hi <= n ? x[q->rank_hi - 1] : INFINITY;
	q->coverage = binom_cdf((long long)q->rank_hi - 1, p, n) -
		      binom_cdf((long long)q->rank_lo - 1, p, n);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int t32_wake_stats(double *x, size_t n, double level, struct t32_wake_stats *s)
{
	double sum = 0;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->min = s->max = s->mean = NAN;
	for (int i = 0; i < T32_WAKE_NQ; i++)
		t32_wake_quantile(x, 0, t32_wake_ps[i], level, &s->q[i]);
	if (!n)
		return -1;
	qsort(x, n, sizeof(double), by_value);
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	s->min = x[0];
	s->max = x[n - 1];
	s->mean = sum / (double)n;
	for (int i = 0; i < T32_WAKE_NQ; i++)
		t32_wake_quantile(x, n, t32_wake_ps[i], level, &s->q[i]);
	return 0;
}

int t32_wake_add(struct t32_wake_data *d, double ldist_ns, double latency_ns, double gap_ns,
		 unsigned flags)
{
	int spin = d->method == T32_WAKE_SPIN;

	if (d->n == d->cap) {
		size_t c = d->cap ? d->cap * 2 : 4096;
		double *l = realloc(d->ldist_ns, c * sizeof(double));

		if (l)
			d->ldist_ns = l;
		double *t = realloc(d->latency_ns, c * sizeof(double));

		if (t)
			d->latency_ns = t;
		double *g = spin ? realloc(d->gap_ns, c * sizeof(double)) : NULL;

		if (g)
			d->gap_ns = g;
		unsigned *f = realloc(d->flags, c * sizeof(unsigned));

		if (f)
			d->flags = f;
		if (!l || !t || (spin && !g) || !f)
			return -1;
		d->cap = c;
	}
	d->ldist_ns[d->n] = ldist_ns;
	d->latency_ns[d->n] = latency_ns;
	if (spin)
		d->gap_ns[d->n] = gap_ns;
	d->flags[d->n] = flags;
	d->ok += !(flags & d->filter);
	for (int i = 0; i < T32_WAKE_NFLAGS; i++)
		d->by_flag[i] += !!(flags & (1u << i));
	d->n++;
	return 0;
}

/* The value of `key=` in a `# wake:` line, into buf ("" when absent). */
static void setup_value(const char *setup, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	buf[0] = 0;
	for (const char *p = setup; p && *p; p += strcspn(p, " "), p += strspn(p, " "))
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)strcspn(p + kl + 1, " "), p + kl + 1);
			return;
		}
}

/* A line of a raw file the statistics show as it is. */
static int is_note(const char *line)
{
	static const char *const keys[] = { "# idle: ", "# note: ", "# tsc-run: ", "# idle-run: ",
					     "# shared: ", "# run: " };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strncmp(line, keys[i], strlen(keys[i])) == 0)
			return 1;
	return 0;
}

/* A comment line of a raw file: the setup, the conversion, a note.  0 or an exit code. */
static int load_comment(struct t32_wake_data *d, const char *line, const char *path, size_t lineno)
{
	if (strncmp(line, "# wake: ", 8) == 0 && !d->setup) {
		char m[32];

		d->setup = strdup(line + 8);
		setup_value(d->setup, "idle_only", m, sizeof(m));
		d->filter = T32_WAKE_FILTER | (strcmp(m, "yes") ? 0 : T32_WAKE_NO_IDLE);
		setup_value(d->setup, "method", m, sizeof(m));
		d->method = T32_WAKE_NMETHODS;
		for (int i = 0; i < T32_WAKE_NMETHODS; i++)
			if (strcmp(m, t32_wake_method_names[i]) == 0)
				d->method = (enum t32_wake_method)i;
		if (d->method == T32_WAKE_NMETHODS) {
			t32_error("unknown method '%s' (in %s line %zu)", m, path, lineno);
			return T32_EXIT_USAGE;
		}
	} else if (strncmp(line, "# tsc: ", 7) == 0 && !d->conversion) {
		d->conversion = strdup(line + 7);
	} else if (is_note(line)) {
		size_t had = d->notes ? strlen(d->notes) : 0, l = strlen(line);
		char *n = had + l < 65536 ? realloc(d->notes, had + l + 2) : NULL;

		if (n) {
			memcpy(n + had, line, l);
			memcpy(n + had + l, "\n", 2);
			d->notes = n;
		}
	}
	return 0;
}

int t32_wake_load(const char *path, struct t32_wake_data *d)
{
	struct t32_tsv t;
	int col_ldist = -1, col_lat = -1, col_gap = -1, col_status = -1, header = 0, got, rc = 0;

	memset(d, 0, sizeof(*d));
	d->path = strdup(path);
	if (!d->path || t32_tsv_open(&t, path)) {
		t32_wake_data_free(d);
		return T32_EXIT_ERROR;
	}
	while ((got = t32_tsv_next(&t)) > 0) {
		const char *line = t.line;

		if (line[0] == '#') {
			if ((rc = load_comment(d, line, path, t.lineno)))
				break;
			continue;
		}
		if (!d->setup) {
			t32_error("not a t32 wake result '%s' (no '# wake:' line before line %zu)",
				  path, t.lineno);
			rc = T32_EXIT_USAGE;
			break;
		}
		size_t nf = t32_tsv_split(&t);

		if (!header) {
			for (size_t i = 0; i < nf; i++) {
				if (strcmp(t.fields[i], "ldist_ns") == 0)
					col_ldist = (int)i;
				else if (strcmp(t.fields[i], "latency_ns") == 0)
					col_lat = (int)i;
				else if (strcmp(t.fields[i], "gap_ns") == 0)
					col_gap = (int)i;
				else if (strcmp(t.fields[i], "status") == 0)
					col_status = (int)i;
			}
			if (col_ldist < 0 || col_lat < 0 || col_status < 0 ||
			    (d->method == T32_WAKE_SPIN && col_gap < 0)) {
				t32_error("not a t32 wake result '%s' (line %zu lacks the columns "
					  "ldist_ns, latency_ns, status%s)", path, t.lineno,
					  d->method == T32_WAKE_SPIN ? ", gap_ns" : "");
				rc = T32_EXIT_USAGE;
				break;
			}
			header = 1;
			continue;
		}
		double ldist, lat, gap = 0;
		unsigned flags;
		int maxcol = col_ldist > col_lat ? col_ldist : col_lat;

		if (col_status > maxcol)
			maxcol = col_status;
		if (col_gap > maxcol)
			maxcol = col_gap;
		if (nf <= (size_t)maxcol ||
		    t32_parse_real(t.fields[col_ldist], 0, 1e15, &ldist) ||
		    t32_parse_real(t.fields[col_lat], -1e15, 1e15, &lat) ||
		    (col_gap >= 0 && d->method == T32_WAKE_SPIN &&
		     t32_parse_real(t.fields[col_gap], -1e15, 1e15, &gap)) ||
		    t32_wake_parse_status(t.fields[col_status], &flags)) {
			t32_error("bad row in '%s' (line %zu)", path, t.lineno);
			rc = T32_EXIT_USAGE;
			break;
		}
		if (d->n >= T32_TSV_ROWS_MAX) {
			t32_error("too many rows in '%s' (at most %u)", path, T32_TSV_ROWS_MAX);
			rc = T32_EXIT_USAGE;
			break;
		}
		if (t32_wake_add(d, ldist, lat, gap, flags)) {
			t32_error("out of memory for '%s'", path);
			rc = T32_EXIT_ERROR;
			break;
		}
	}
	if (got < 0 && !rc)
		rc = T32_EXIT_ERROR;
	if (!rc && !header) {
		t32_error("not a t32 wake result '%s' (%s)", path,
			  d->setup ? "no header row" : "no '# wake:' line");
		rc = T32_EXIT_USAGE;
	}
	t32_tsv_close(&t);
	if (rc)
		t32_wake_data_free(d);
	return rc;
}

void t32_wake_data_free(struct t32_wake_data *d)
{
	t32_free_all(d->path, d->setup, d->conversion, d->notes, d->ldist_ns, d->latency_ns,
		     d->gap_ns, d->flags);
	memset(d, 0, sizeof(*d));
}

size_t t32_wake_kept(const struct t32_wake_data *d, const double *col, double **out)
{
	size_t k = 0;

	*out = malloc((d->ok ? d->ok : 1) * sizeof(double));
	if (!*out || !col)
		return 0;
	for (size_t i = 0; i < d->n; i++)
		if (!(d->flags[i] & d->filter))
			(*out)[k++] = col[i];
	return k;
}

/* Median of the kept latencies whose launch distance lies in [lo, hi), with its interval. */
static int median_in(const struct t32_wake_data *d, double lo, double hi, double level,
		     struct t32_wake_q *q, size_t *n)
{
	double *x = malloc((d->n ? d->n : 1) * sizeof(double));
	struct t32_wake_stats s;

	*n = 0;
	if (!x)
		return -1;
	for (size_t i = 0; i < d->n; i++)
		if (!(d->flags[i] & d->filter) && d->ldist_ns[i] >= lo && d->ldist_ns[i] < hi)
			x[(*n)++] = d->latency_ns[i];
	t32_wake_stats(x, *n, level, &s);
	*q = s.q[0];
	free(x);
	return *n ? 0 : -1;
}

/*
 * The launch distances of the kept events against those left out: each set's
 * median with its 95% interval; where the intervals part, leaving events out
 * leaned the kept set to short (or long) waits.  Said on f.
 */
static void left_out_bias(FILE *f, const struct t32_wake_data *d)
{
	double *in = malloc((d->n ? d->n : 1) * sizeof(double));
	double *out = malloc((d->n ? d->n : 1) * sizeof(double));
	struct t32_wake_stats a, b;
	size_t ni = 0, no = 0;

	for (size_t i = 0; in && out && i < d->n; i++) {
		if (d->flags[i] & d->filter)
			out[no++] = d->ldist_ns[i];
		else
			in[ni++] = d->ldist_ns[i];
	}
	if (ni && no && !t32_wake_stats(in, ni, 0.95, &a) && !t32_wake_stats(out, no, 0.95, &b)) {
		if (a.q[0].hi < b.q[0].lo || a.q[0].lo > b.q[0].hi)
			fprintf(f, " The kept events waited %s than those left out (median launch "
				   "distance %.2f ms against %.2f ms, their 95%% intervals apart): a "
				   "longer wait meets another interrupt more often, so the kept set leans "
				   "to %s waits and the figures below describe those.",
				a.q[0].value < b.q[0].value ? "less" : "longer", a.q[0].value / 1e6,
				b.q[0].value / 1e6, a.q[0].value < b.q[0].value ? "short" : "long");
		else
			fprintf(f, " The kept and the left-out events waited alike (median launch "
				   "distance %.2f and %.2f ms, intervals overlapping): leaving them out "
				   "leans the kept set to no wait the data can tell.", a.q[0].value / 1e6,
				b.q[0].value / 1e6);
	}
	free(in);
	free(out);
}

/*
 * The machine's idle states from the `# idle:` line: -1 unknown (no line), 0
 * none, else how many, with the deepest's exit latency in us.
 */
static int idle_states(const struct t32_wake_data *d, unsigned *deepest_us)
{
	const char *l = d->notes ? strstr(d->notes, "# idle: ") : NULL, *p;
	char line[2048];
	int n = 0;

	*deepest_us = 0;
	if (!l)
		return -1;
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
	if (!strncmp(line + 8, "none", 4))
		return 0;
	for (p = line; (p = strstr(p, "(exit latency ")); p++) {
		unsigned v;

		n++;
		if (sscanf(p, "(exit latency %u", &v) == 1 && v > *deepest_us)
			*deepest_us = v;
	}
	return n;
}

/* Latency against launch distance: the shortest third of distances against the longest. */
static void describe_ldist(FILE *f, const struct t32_wake_data *d, const char *us)
{
	double lmin = INFINITY, lmax = -INFINITY;

	for (size_t i = 0; i < d->n; i++)
		if (!(d->flags[i] & d->filter)) {
			lmin = fmin(lmin, d->ldist_ns[i]);
			lmax = fmax(lmax, d->ldist_ns[i]);
		}
	if (lmax > lmin) {
		struct t32_wake_q a, b;
		size_t na, nb;
		double third = (lmax - lmin) / 3;

		if (!median_in(d, lmin, lmin + third, 0.975, &a, &na) &&
		    !median_in(d, lmax - third, lmax + 1, 0.975, &b, &nb)) {
			double dlo = b.lo - a.hi, dhi = b.hi - a.lo;

			fprintf(f, "Launch distances of %.2f to %.2f ms give a median of %.2f %s, "
				   "%.2f to %.2f ms give %.2f %s: ", lmin / 1e6, (lmin + third) / 1e6,
				a.value / 1e3, us, (lmax - third) / 1e6, lmax / 1e6, b.value / 1e3, us);
			if (dlo > 0 || dhi < 0) {
				unsigned deep;
				int ns = idle_states(d, &deep);
				char why[256] = "";

				if (dlo > 0 && d->method == T32_WAKE_SLEEP && ns > 0)
					snprintf(why, sizeof(why), " (this CPU has %d idle state%s, the "
						 "deepest leaving in %u %s: a longer wait can reach a "
						 "deeper one)", ns, ns == 1 ? "" : "s", deep, us);
				else if (dlo > 0 && d->method == T32_WAKE_SLEEP && ns == 0)
					snprintf(why, sizeof(why), " (this machine lists no idle states, "
						 "so its own idle depth is not why: what the host or "
						 "hypervisor does while the CPU waits may be)");
				fprintf(f, "a difference of %.2f %s (95%% interval %.2f to %.2f), so "
					   "latency %s with the time spent waiting%s.",
					(b.value - a.value) / 1e3, us, dlo / 1e3, dhi / 1e3,
					dlo > 0 ? "grows" : "shrinks", why);
			} else {
				fprintf(f, "no difference the intervals can tell (%.2f to %.2f %s), "
					   "so latency does not depend on how long the thread waited.",
					dlo / 1e3, dhi / 1e3, us);
			}
		}
	}
}

void t32_wake_describe(FILE *f, const struct t32_wake_data *d, int html)
{
	const char *us = html ? "&micro;s" : "us";
	const char *what = d->method == T32_WAKE_SPIN ? "interrupt latency (timer signal handler)"
						       : "wake latency (return from the sleep)";
	struct t32_wake_stats s;
	double *x;
	size_t k = t32_wake_kept(d, d->latency_ns, &x);
	const char *sep = "";

	fprintf(f, "Method %s, %s: %zu events, %zu kept", t32_wake_method_names[d->method], what,
		d->n, d->ok);
	if (d->ok < d->n) {
		fprintf(f, "; left out:");
		for (int i = 0; i < T32_WAKE_NFLAGS; i++)
			if (d->by_flag[i] && (d->filter & (1u << i))) {
				fprintf(f, "%s %zu %s (%s)", sep, d->by_flag[i], t32_wake_flags[i].name,
					t32_wake_flags[i].summary);
				sep = ";";
			}
	}
	if (d->ok < d->n && d->n) {
		fprintf(f, " (%.1f%% of the events left out)", 100.0 * (double)(d->n - d->ok) / d->n);
		fprintf(f, ".");
		left_out_bias(f, d);
		fprintf(f, " ");
	} else {
		fprintf(f, ". ");
	}
	if (d->ok * 2 < d->n)
		fprintf(f, "%sMost events were left out, so the figures describe a minority%s: "
			   "--count counts events recorded, not kept, so a larger count keeps more "
			   "of them but not a larger share; a CPU fewer interrupts reach (the "
			   "kernel's irqaffinity=, isolcpus= or nohz_full=) does. ",
			html ? "<b>" : "", html ? "</b>" : "");
	if (d->by_flag[__builtin_ctz(T32_WAKE_NO_IDLE)] && !(d->filter & T32_WAKE_NO_IDLE))
		fprintf(f, "In %zu of them the CPU never went idle (it was running another task, "
			   "which the wake-up preempted); they are kept. ", d->by_flag[__builtin_ctz(T32_WAKE_NO_IDLE)]);
	if (t32_wake_stats(x, k, 0.95, &s)) {
		fprintf(f, "No event was kept, so there is nothing to say about the latency.\n");
		free(x);
		return;
	}
	fprintf(f, "The median is %.2f %s (95%% interval %.2f to %.2f), 99%% of events "
		   "within %.2f %s", s.q[0].value / 1e3, us, s.q[0].lo / 1e3, s.q[0].hi / 1e3,
		s.q[2].value / 1e3, us);
	if (isfinite(s.q[2].hi))
		fprintf(f, " (interval up to %.2f)", s.q[2].hi / 1e3);
	fprintf(f, ", the largest %.2f %s: the tail at p99 is %.1f times the median. ",
		s.max / 1e3, us, s.q[0].value > 0 ? s.q[2].value / s.q[0].value : NAN);
	free(x);
	describe_ldist(f, d, us);
	if (d->method == T32_WAKE_SPIN && d->gap_ns) {
		struct t32_wake_stats g;

		k = t32_wake_kept(d, d->gap_ns, &x);
		if (!t32_wake_stats(x, k, 0.95, &g))
			fprintf(f, " The interrupt took a median of %.2f %s from the spinning thread "
				   "(p99 %.2f %s, the largest %.2f %s): what each sample costs a "
				   "measured program.", g.q[0].value / 1e3, us, g.q[2].value / 1e3, us,
				g.max / 1e3, us);
		free(x);
	}
	fputc('\n', f);
}

void t32_wake_untrusted(const struct t32_wake_data *d, char *why, size_t len)
{
	size_t impossible = 0;

	why[0] = 0;
	for (size_t i = 0; i < d->n; i++)
		impossible += (d->flags[i] & T32_WAKE_IMPOSSIBLE) != 0;
	if (d->n == 0)
		snprintf(why, len, "no event was measured");
	else if (d->ok == 0)
		snprintf(why, len, "every one of %zu events was left out", d->n);
	else if (impossible * 100 > d->n)
		snprintf(why, len, "%zu of %zu events had impossible readings (TSC backwards or a "
			 "wake before the deadline): the clock or its conversion is broken",
			 impossible, d->n);
}

/* A value in ns for tsv (empty when there is none, inf when unbounded) or json (null). */
static void ns_value(FILE *f, double v, enum t32_format fmt)
{
	if (isfinite(v))
		fprintf(f, "%.1f", v);
	else if (fmt == T32_FMT_JSON)
		fputs("null", f);
	else if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", f);
}

/* A quantile's value and bounds, each after a tab (tsv) or its key (json). */
static void q_values(FILE *f, const struct t32_wake_q *q, enum t32_format fmt)
{
	static const char *const key[] = { "value", "lo", "hi" };
	const double v[] = { q->value, q->lo, q->hi };

	for (int j = 0; j < 3; j++) {
		if (fmt == T32_FMT_TSV)
			fputc('\t', f);
		else
			fprintf(f, "%s\"%s\": ", j ? ", " : "", key[j]);
		ns_value(f, v[j], fmt);
	}
}

/* One metric's statistics, in ns, as tsv rows or a json member. */
static void stat_rows(FILE *f, const char *metric, const struct t32_wake_stats *s,
		      enum t32_format fmt, int *first)
{
	const char *const plain[] = { "min", "max", "mean" };
	const double pv[] = { s->min, s->max, s->mean };

	if (fmt == T32_FMT_TSV) {
		fprintf(f, "%s\tcount\t%zu\t\t\t\n", metric, s->n);
		for (int i = 0; i < 3; i++) {
			fprintf(f, "%s\t%s\t", metric, plain[i]);
			ns_value(f, pv[i], fmt);
			fputs("\t\t\t\n", f);
		}
		for (int i = 0; i < T32_WAKE_NQ; i++) {
			fprintf(f, "%s\t%s", metric, t32_wake_pnames[i]);
			q_values(f, &s->q[i], fmt);
			fprintf(f, "\t%.4f\n", s->q[i].coverage);
		}
		return;
	}
	fprintf(f, "%s\"%s\": {\"count\": %zu", *first ? "" : ", ", metric, s->n);
	for (int i = 0; i < 3; i++) {
		fprintf(f, ", \"%s\": ", plain[i]);
		ns_value(f, pv[i], fmt);
	}
	for (int i = 0; i < T32_WAKE_NQ; i++) {
		fprintf(f, ", \"%s\": {", t32_wake_pnames[i]);
		q_values(f, &s->q[i], fmt);
		fprintf(f, ", \"coverage\": %.4f}", s->q[i].coverage);
	}
	fputc('}', f);
	*first = 0;
}

/* A value in us for the table; "-" for an unbounded side. */
static void us(char *buf, size_t len, double ns)
{
	if (isfinite(ns))
		snprintf(buf, len, "%.2f", ns / 1e3);
	else
		snprintf(buf, len, "-");
}

/* The statistics as JSON (s: latency, then the gap when nm is 2). */
static void print_json(FILE *out, const struct t32_wake_data *d, const struct t32_wake_stats *s,
		       int nm, const char *why)
{
	static const char *const names[2] = { "latency_ns", "gap_ns" };
	int first = 1;

	fprintf(out, "{\"method\": \"%s\", \"setup\": ", t32_wake_method_names[d->method]);
	t32_json_string(out, d->setup ? d->setup : "");
	fprintf(out, ", \"tsc\": ");
	t32_json_string(out, d->conversion ? d->conversion : "");
	fprintf(out, ", \"events\": %zu, \"kept\": %zu, \"flagged\": {", d->n, d->ok);
	for (int i = 0, f = 1; i < T32_WAKE_NFLAGS; i++)
		if (d->by_flag[i]) {
			fprintf(out, "%s\"%s\": %zu", f ? "" : ", ", t32_wake_flags[i].name,
			       d->by_flag[i]);
			f = 0;
		}
	fprintf(out, "}, \"untrusted\": ");
	if (why && why[0])	/* the reason, or null when the result can be trusted */
		t32_json_string(out, why);
	else
		fputs("null", out);
	fprintf(out, ", \"unit\": \"ns\", \"level\": 0.95, \"stats\": {");
	for (int m = 0; m < nm; m++)
		stat_rows(out, names[m], &s[m], T32_FMT_JSON, &first);
	fprintf(out, "}}\n");
}

/* A row of the table for a value without an interval (min, max): one column, or nm. */
static void print_extreme(FILE *out, const char *name, double v0, double v1, int nm)
{
	char a[32];

	us(a, sizeof(a), v0);
	fprintf(out, "%-10s %12s %-23s", name, a, "");
	if (nm == 2) {
		us(a, sizeof(a), v1);
		fprintf(out, " %12s", a);
	}
	fprintf(out, "\n");
}

/* The table's statistics rows: count, min, the percentiles with their intervals, max. */
static void print_table_stats(FILE *out, const struct t32_wake_stats *s, int nm)
{
	char a[32], b[32], c[32];

	fprintf(out, "%-10s %12zu %-23s", "count", s[0].n, "");
	if (nm == 2)
		fprintf(out, " %12zu", s[1].n);
	fprintf(out, "\n");
	print_extreme(out, "min", s[0].min, nm == 2 ? s[1].min : NAN, nm);
	for (int i = 0; i < T32_WAKE_NQ; i++) {
		char iv[80];

		fprintf(out, "%-10s", t32_wake_pnames[i]);
		for (int m = 0; m < nm; m++) {
			us(a, sizeof(a), s[m].q[i].value);
			us(b, sizeof(b), s[m].q[i].lo);
			us(c, sizeof(c), s[m].q[i].hi);
			snprintf(iv, sizeof(iv), "%s .. %s", b, c);
			fprintf(out, " %12s %-23s", a, iv);
		}
		fprintf(out, "\n");
	}
	print_extreme(out, "max", s[0].max, nm == 2 ? s[1].max : NAN, nm);
}

void t32_wake_print(FILE *out, const struct t32_wake_data *d, enum t32_format fmt,
		    const char *why)
{
	struct t32_wake_stats s[2];
	const char *names[2] = { "latency_ns", "gap_ns" };
	int nm = d->method == T32_WAKE_SPIN && d->gap_ns ? 2 : 1, first = 1;
	char left[512] = "";

	for (int m = 0; m < nm; m++) {
		double *x;
		size_t k = t32_wake_kept(d, m ? d->gap_ns : d->latency_ns, &x);

		t32_wake_stats(x, k, 0.95, &s[m]);
		free(x);
	}
	for (int i = 0; i < T32_WAKE_NFLAGS; i++)
		if (d->by_flag[i])
			snprintf(left + strlen(left), sizeof(left) - strlen(left), "%s%s %zu%s",
				 left[0] ? ", " : "", t32_wake_flags[i].name, d->by_flag[i],
				 d->filter & (1u << i) ? "" : " (kept)");
	if (fmt == T32_FMT_JSON) {
		print_json(out, d, s, nm, why);
		return;
	}
	if (fmt == T32_FMT_TSV) {
		fprintf(out, "# method: %s\n# setup: %s\n# tsc: %s\n# events: %zu\n# kept: %zu\n"
		       "# flagged: %s\n", t32_wake_method_names[d->method], d->setup ? d->setup : "",
		       d->conversion ? d->conversion : "", d->n, d->ok, left[0] ? left : "none");
		if (d->notes)
			fputs(d->notes, out);
		if (why[0])
			fprintf(out, "# untrusted: %s\n", why);
		fprintf(out, "# intervals: 95%%, distribution-free (binomial order statistics); "
		       "inf where n cannot bound a side\n"
		       "metric\tstatistic\tvalue_ns\tci_lo_ns\tci_hi_ns\tcoverage\n");
		for (int m = 0; m < nm; m++)
			stat_rows(out, names[m], &s[m], fmt, &first);
		return;
	}
	fprintf(out, "method    %s: %s\n", t32_wake_method_names[d->method], t32_wake_method_summaries[d->method]);
	fprintf(out, "setup     %s\ntsc       %s\n", d->setup ? d->setup : "-",
	       d->conversion ? d->conversion : "-");
	for (const char *p = d->notes; p && *p; p += strcspn(p, "\n") + 1) {
		int l = (int)strcspn(p + 2, ":");

		fprintf(out, "%-9.*s %.*s\n", l, p + 2, (int)strcspn(p, "\n") - l - 4, p + l + 4);
	}
	fprintf(out, "events    %zu: %zu kept%s%s\n\n", d->n, d->ok, left[0] ? "; flagged: " : "", left);
	fprintf(out, "%-10s %12s %-23s", "statistic", "latency_us", "95% interval");
	if (nm == 2)
		fprintf(out, " %12s %-23s", "gap_us", "95% interval");
	fprintf(out, "\n");
	print_table_stats(out, s, nm);
	if (why[0])
		fprintf(out, "\nuntrusted: %s\n", why);
}
