/*
 * 3020-wake-maths - t32 wake's datapoints on synthetic timestamps (deadline,
 * latency, conversion error, every filter), the distribution-free percentile
 * intervals, the statistics, a raw file read back and the paragraph written
 * from it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t/tap.h"
#include "t32/core/wake.h"

/* A conversion of exactly 2.6 ticks per ns, its error as given. */
static struct t32_wake_conv conv(double rel_err)
{
	struct t32_wake_conv c = { 2.6, rel_err, 1e9 };

	return c;
}

/* A sleep event: anchor [1000, 1010] at some ns, ldist 1 ms, woken `late_ticks` after. */
static struct t32_wake_event sleep_event(int64_t late_ticks)
{
	struct t32_wake_event e = { 0 };

	e.ldist_ns = 1000000;
	e.anchor.tsc_lo = 1000;
	e.anchor.tsc_hi = 1010;
	e.anchor.mono_ns = 5000;
	e.launch = 1100;
	/* deadline = 1005 + 1e6 * 2.6 */
	e.wake = (uint64_t)(2601005 + late_ticks);
	e.irqs = 1;
	e.nidle = 2;
	e.idle_entries[1] = 1;
	return e;
}

/* The flags of event e measured by method m, with the conversion c. */
static unsigned flags_of(enum t32_wake_method m, const struct t32_wake_event *e,
			 const struct t32_wake_conv *c)
{
	struct t32_wake_point p;

	t32_wake_point_of(m, e, c, &p);
	return p.flags;
}

static uint64_t rng_state = 0x243f6a8885a308d3u;
static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Write text to a temporary file; its path (static). */
static const char *temp_file(const char *text)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/t32-3020-XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || !(f = fdopen(fd, "w")))
		bail("cannot make a temporary file");
	fputs(text, f);
	fclose(f);
	return path;
}

int main(void)
{
	struct t32_wake_conv c = conv(1e-7);
	struct t32_wake_event e;
	struct t32_wake_point p;
	char buf[256];
	unsigned flags;

	plan(68);

	/* the conversion from two anchors */
	{
		struct t32_wake_anchor a = { 1000, 1020, 0 }, b = { 2600001000, 2600001040, 1000000000 };
		struct t32_wake_conv k;

		ok(t32_wake_conv_from(&a, &b, &k) == 0, "two anchors a second apart give a rate");
		/* middles 1010 and 2600001020: 2600000010 ticks over 1e9 ns */
		is_double(2.60000001, k.ticks_per_ns, 1e-12, "ticks per ns from the anchors' middles");
		is_double((10 + 20) / 2600000010.0 + 2e-9, k.rel_err, 1e-15,
			  "its error: the half-brackets over the baseline, and 2 ns of clock");
		is_double(1e9, k.baseline_ns, 0, "the baseline");
		ok(t32_wake_conv_from(&b, &a, &k) == -1, "anchors in the wrong order give none");
		b.tsc_hi = b.tsc_lo - 1;
		ok(t32_wake_conv_from(&a, &b, &k) == -1, "a bracket that went backwards gives none");
	}

	/* a plain sleep datapoint */
	e = sleep_event(2600);
	t32_wake_point_of(T32_WAKE_SLEEP, &e, &c, &p);
	is_int(2601005, (long long)p.deadline, "deadline = anchor middle + ldist x rate");
	is_int(2600, p.latency_ticks, "latency in ticks = wake - deadline");
	is_double(1000, p.latency_ns, 1e-9, "latency in ns at 2.6 ticks/ns");
	is_double(5 / 2.6 + 1e6 * 1e-7 + 1, p.conv_err_ns, 1e-9,
		  "conversion error: half the bracket, ldist x rate error, 1 ns");
	is_int(0, p.flags, "an ordinary event carries no flag");
	t32_wake_status(p.flags, buf, sizeof(buf));
	is_string("ok", buf, "its status is ok");

	/* every filter */
	e = sleep_event(-2600);
	is_int(T32_WAKE_NEGATIVE, flags_of(T32_WAKE_SLEEP, &e, &c),
	       "waking 1 us before the deadline is impossible");
	e = sleep_event(-2);
	is_int(0, flags_of(T32_WAKE_SLEEP, &e, &c),
	       "waking within the conversion error before it is not");
	e = sleep_event(100);
	e.launch = 2601006;
	ok(flags_of(T32_WAKE_SLEEP, &e, &c) & T32_WAKE_LATE, "armed after the deadline: late");
	e = sleep_event(100);
	e.wake = 1050;
	is_int(T32_WAKE_TSC_BACK, flags_of(T32_WAKE_SLEEP, &e, &c),
	       "woken before launch: TSC backwards (and nothing else)");
	e = sleep_event(100);
	e.anchor.tsc_hi = 900;
	ok(flags_of(T32_WAKE_SLEEP, &e, &c) & T32_WAKE_TSC_BACK,
	   "an anchor bracket that went backwards");
	e = sleep_event(100);
	e.irqs = 3;
	is_int(T32_WAKE_OTHER_IRQ, flags_of(T32_WAKE_SLEEP, &e, &c),
	       "three interrupts for one timer: other_irq");
	e.irqs = -1;
	is_int(0, flags_of(T32_WAKE_SLEEP, &e, &c), "interrupts not counted: no flag");
	e = sleep_event(100);
	e.idle_entries[1] = 0;
	is_int(T32_WAKE_NO_IDLE, flags_of(T32_WAKE_SLEEP, &e, &c), "no idle entry: no_idle");
	e.nidle = 0;
	is_int(0, flags_of(T32_WAKE_SLEEP, &e, &c), "no idle states known: no flag");
	e = sleep_event(100);
	e.idle_entries[0] = 7;
	is_int(0, flags_of(T32_WAKE_SLEEP, &e, &c),
	       "several idle entries (a polling state) are not a flag");

	/* spin: the gap around the handler */
	e = sleep_event(2600);
	e.gap_start = e.wake - 500;
	e.gap_end = e.wake + 1000;
	e.nidle = 0;
	t32_wake_point_of(T32_WAKE_SPIN, &e, &c, &p);
	is_int(0, p.flags, "a spin event whose handler lies in its gap");
	is_int(1500, p.gap_ticks, "gap in ticks");
	is_double(1500 / 2.6, p.gap_ns, 1e-9, "gap in ns");
	e.other_gaps = 2;
	is_int(T32_WAKE_OTHER_IRQ, flags_of(T32_WAKE_SPIN, &e, &c),
	       "other gaps while waiting: other_irq");
	e.other_gaps = 0;
	e.gap_start = e.wake + 1;
	is_int(T32_WAKE_TSC_BACK, flags_of(T32_WAKE_SPIN, &e, &c),
	       "a handler outside its gap: readings out of order");
	e.gap_start = e.wake - 1000;
	e.gap_end = e.wake - 1;
	is_int(T32_WAKE_TSC_BACK, flags_of(T32_WAKE_SPIN, &e, &c),
	       "a handler after its gap closed: out of order too");
	e = sleep_event(2600);
	e.gap_start = e.wake - 5;
	e.gap_end = e.wake + 5;
	e.tsc_back = 1;
	is_int(T32_WAKE_TSC_BACK, flags_of(T32_WAKE_SPIN, &e, &c),
	       "a loop reading that went backwards");

	/* status text both ways */
	t32_wake_status(T32_WAKE_LATE | T32_WAKE_NO_IDLE, buf, sizeof(buf));
	is_string("late,no_idle", buf, "flags as names");
	ok(t32_wake_parse_status("late,no_idle", &flags) == 0 &&
	   flags == (T32_WAKE_LATE | T32_WAKE_NO_IDLE), "and back");
	ok(t32_wake_parse_status("ok", &flags) == 0 && flags == 0, "ok is no flag");
	ok(t32_wake_parse_status("late,", &flags) == -1, "a trailing comma is refused");
	ok(t32_wake_parse_status("sleepy", &flags) == -1, "an unknown name is refused");
	ok(t32_wake_parse_status("", &flags) == -1, "an empty status is refused");

	/* percentile intervals: the classic n = 100 median interval is x(40) .. x(61) */
	{
		double x[100];
		struct t32_wake_q q;

		for (int i = 0; i < 100; i++)
			x[i] = i + 1;
		t32_wake_quantile(x, 100, 0.5, 0.95, &q);
		is_double(50, q.value, 0, "median of 1..100 is the 50th value");
		is_int(40, (long long)q.rank_lo, "its 95%% interval starts at the 40th");
		is_int(61, (long long)q.rank_hi, "and ends at the 61st");
		ok(q.coverage >= 0.95 && q.coverage < 0.97, "coverage %.4f, at least 95%%", q.coverage);
		t32_wake_quantile(x, 100, 0.99, 0.95, &q);
		is_double(99, q.value, 0, "p99 of 1..100 is the 99th value");
		ok(isinf(q.hi) && q.hi > 0, "100 values cannot bound p99 from above");
		ok(isfinite(q.lo) && q.lo <= 99, "but can from below (%g)", q.lo);
		t32_wake_quantile(x, 100, 0.9999, 0.95, &q);
		is_double(100, q.value, 0, "p99.99 of 100 values is the largest");
		t32_wake_quantile(x, 5, 0.5, 0.95, &q);
		ok(isinf(q.lo) && isinf(q.hi), "5 values cannot bound a median at 95 percent either way");
		t32_wake_quantile(x, 0, 0.5, 0.95, &q);
		ok(isnan(q.value), "no values, no median");
	}
	/* coverage on simulated data: the true median and p90 of uniform(0, 1) */
	{
		int held50 = 0, held90 = 0, trials = 2000;

		for (int t = 0; t < trials; t++) {
			double x[60];
			struct t32_wake_q q;

			for (int i = 0; i < 60; i++)
				x[i] = uniform();
			qsort(x, 60, sizeof(double), cmp);
			t32_wake_quantile(x, 60, 0.5, 0.95, &q);
			held50 += q.lo <= 0.5 && 0.5 <= q.hi;
			t32_wake_quantile(x, 60, 0.9, 0.95, &q);
			held90 += q.lo <= 0.9 && 0.9 <= q.hi;
		}
		ok(held50 >= 0.94 * trials, "median intervals hold the truth in %d of %d", held50,
		   trials);
		ok(held90 >= 0.94 * trials, "p90 intervals hold the truth in %d of %d", held90, trials);
	}

	/* statistics */
	{
		double x[] = { 5, 1, 4, 2, 3 };
		struct t32_wake_stats s;

		ok(t32_wake_stats(x, 5, 0.95, &s) == 0, "statistics of 5 values");
		is_double(1, s.min, 0, "min");
		is_double(5, s.max, 0, "max");
		is_double(3, s.mean, 1e-12, "mean");
		is_double(3, s.q[0].value, 0, "p50");
		ok(t32_wake_stats(x, 0, 0.95, &s) == -1 && s.n == 0, "no values: no statistics");
	}
	/* each percentile is the one its name says: p99.9 of 1..100000 is 99900 */
	{
		enum { N = 100000 };
		double *x = malloc(N * sizeof(double));
		struct t32_wake_stats s;
		int right = 0;

		if (!x)
			bail("out of memory");
		for (int i = 0; i < N; i++)
			x[i] = (double)((i * 7919L) % N + 1);	/* 1..N, shuffled */
		ok(t32_wake_stats(x, N, 0.95, &s) == 0, "statistics of 1..%d", N);
		for (int i = 0; i < T32_WAKE_NQ; i++) {
			double pct = strtod(t32_wake_pnames[i] + 1, NULL);

			if (s.q[i].value == ceil(pct / 100 * N - 1e-9))
				right++;
			else
				diag("%s of 1..%d reads %g", t32_wake_pnames[i], N, s.q[i].value);
		}
		is_int(T32_WAKE_NQ, right, "every percentile is the one its name says");
		free(x);
	}

	/* a raw file read back, and what its paragraph says */
	{
		char *text = NULL, line[160];
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		struct t32_wake_data d;
		const char *path;

		fputs("# tool: t32 0.1\n# wake: method=sleep ldist_ns=100000..4000000 idle_only=no\n"
		      "i\tldist_ns\tlatency_ns\tkept\tstatus\n", m);
		/* latency grows with the launch distance: 10 us + 5 us per ms */
		for (int i = 0; i < 300; i++) {
			double ld = 100000 + i * 13000.0;

			snprintf(line, sizeof(line), "%d\t%.0f\t%.1f\t1\t%s\n", i, ld,
				 10000 + ld / 200 + 300 * uniform(),
				 i % 10 == 0 ? "no_idle" : i % 25 == 1 ? "other_irq" : "ok");
			fputs(line, m);
		}
		fclose(m);
		path = temp_file(text);
		is_int(0, t32_wake_load(path, &d), "a raw file reads back");
		is_int(300, (long long)d.n, "all its events");
		is_int(300 - 12, (long long)d.ok, "no_idle kept, other_irq left out");
		is_int(30, (long long)d.by_flag[4], "no_idle counted");
		free(text);
		text = NULL;
		m = open_memstream(&text, &len);
		t32_wake_describe(m, &d, 0);
		fclose(m);
		ok(strstr(text, "grows with the time spent waiting") != NULL,
		   "the paragraph sees latency grow with the launch distance");
		ok(strstr(text, "288 kept") != NULL, "and says how many events were kept");
		free(text);
		t32_wake_data_free(&d);
		unlink(path);

		path = temp_file("# wake: method=spin idle_only=yes\ni\tldist_ns\tlatency_ns\tgap_ns\t"
				 "status\n0\t1000\t500\t800\tok\n1\t2000\t520\t810\tno_idle\n");
		is_int(0, t32_wake_load(path, &d), "a spin file reads back");
		is_int(1, (long long)d.ok, "idle_only=yes leaves no_idle out");
		ok(d.gap_ns && d.gap_ns[1] == 810, "with its gaps");
		t32_wake_data_free(&d);
		unlink(path);

		path = temp_file("i\tldist_ns\tlatency_ns\tstatus\n0\t1\t2\tok\n");
		is_int(2, t32_wake_load(path, &d), "a file without a '# wake:' line is refused");
		unlink(path);
		path = temp_file("# wake: method=sleep\ni\tldist_ns\tlatency_ns\tstatus\n0\t1\tx\tok\n");
		is_int(2, t32_wake_load(path, &d), "a bad number is refused");
		unlink(path);
		path = temp_file("# wake: method=nap\ni\tldist_ns\tlatency_ns\tstatus\n");
		is_int(2, t32_wake_load(path, &d), "an unknown method is refused");
		unlink(path);
		is_int(1, t32_wake_load("/nonexistent/t32-wake.tsv", &d), "a missing file is an error");
	}
	return done_testing();
}
