/*
 * benchwake.c - make bench's figures for `t32 wake`: its sleep method beside
 * cyclictest (rt-tests), and the spin method's gap.  t32 wake runs here as a
 * child on purpose: its real-time scheduling, locked memory and PM QoS request
 * belong to a process of their own, as cyclictest's do.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t32/cmd/cmd.h"
#include "t32/cpu.h"
#include "t32/util.h"
#include "t32/core/wake.h"

typedef void (*report_fn)(const char *what, const char *figure, const char *target, int ok);

enum { ROUNDS = 10, LOOPS = 300, SKIP = 10 };

/* Latencies of both tools over the rounds: all of cyclictest's, all of t32's, t32's kept. */
struct pair {
	double *ct, *tt, *kept, rate;
	size_t nct, cct, ntt, ctt, nkept, ckept;
};

/* Append v to a growing array; 0, or -1 when out of memory. */
static int push(double **a, size_t *n, size_t *cap, double v)
{
	if (*n == *cap) {
		size_t c = *cap * 2 + 1024;
		double *t = realloc(*a, c * sizeof(double));

		if (!t)
			return -1;
		*a = t;
		*cap = c;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/*
 * Latencies (ns) from cyclictest -v -N output ("thread: loop: value" lines), the
 * first `skip` of each run left out as t32 leaves its warm-up out; how many it added.
 */
static size_t cyclictest_values(const char *text, size_t skip, double **out, size_t *n,
				size_t *cap)
{
	size_t seen = 0, before = *n;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long thread, loop, v;

		if (sscanf(p, " %llu: %llu: %llu", &thread, &loop, &v) != 3 || seen++ < skip)
			continue;
		if (push(out, n, cap, (double)v))
			break;
	}
	return *n - before;
}

/* The median and p99 (ns) of x[0..n), sorted in place. */
static void median_p99(double *x, size_t n, struct t32_wake_q *m, struct t32_wake_q *p99)
{
	struct t32_wake_stats s;

	t32_wake_stats(x, n, 0.95, &s);
	*m = s.q[0];
	*p99 = s.q[2];
}

/*
 * One round: cyclictest, then t32 wake with the same CPU, interval and priority,
 * their latencies added to pr.  0, or -1 with why.
 */
static int wake_round(const char *self, char *cpu, const char *path, struct pair *pr, char *why,
		      size_t wlen)
{
	char loops[16], count[16], skip[16];
	/* cyclictest's loops hold its first SKIP, which are left out; t32 counts after its warm-up */
	char *cargv[] = { "cyclictest", "-q", "-N", "-v", "-m", "-t", "1", "-a", cpu, "-i",
			  "1000", "-d", "0", "-l", loops, "-p", "80", "--policy=fifo", NULL };
	char *targv[] = { (char *)self, "wake", "--method", "sleep", "--cpu", cpu, "--ldist", "1ms",
			  "--count", count, "--warmup", skip, "--pm-qos", "0",
			  "--policy", "fifo", "--priority", "80",
			  "--format", "tsv", "-o", (char *)path, NULL };
	struct t32_child_output res;
	struct t32_wake_data d;
	int failed = 0;

	snprintf(loops, sizeof(loops), "%d", LOOPS + SKIP);
	snprintf(count, sizeof(count), "%d", LOOPS);
	snprintf(skip, sizeof(skip), "%d", SKIP);
	if (t32_run_program(cargv, &res) || res.status) {
		snprintf(why, wlen, "cyclictest %s: %.100s", res.error[0] ? "missing" : "failed",
			 res.error[0] ? "apt-get install rt-tests" : res.text ? res.text : "?");
		for (char *p = why; *p; p++)
			*p = *p == '\n' ? ' ' : *p;
		failed = 1;
	} else if (!cyclictest_values(res.text, SKIP, &pr->ct, &pr->nct, &pr->cct)) {
		snprintf(why, wlen, "cyclictest printed no latencies");
		failed = 1;
	}
	t32_child_output_free(&res);
	if (failed)
		return -1;
	if (t32_run_program(targv, &res) || (res.status && res.status != T32_EXIT_UNTRUSTED) ||
	    t32_wake_load(path, &d)) {
		snprintf(why, wlen, "t32 wake failed: %.100s", res.text ? res.text : "?");
		t32_child_output_free(&res);
		return -1;
	}
	t32_child_output_free(&res);
	if (d.conversion)
		sscanf(d.conversion, "%lf", &pr->rate);
	for (size_t i = 0; i < d.n; i++)
		if (push(&pr->tt, &pr->ntt, &pr->ctt, d.latency_ns[i]) ||
		    (!(d.flags[i] & d.filter) && push(&pr->kept, &pr->nkept, &pr->ckept, d.latency_ns[i])))
			break;
	t32_wake_data_free(&d);
	return 0;
}

/* The figures of the rounds: medians side by side, p99s, the kept events, the resolution. */
static void report_pair(report_fn report, const char *what, struct pair *pr)
{
	struct t32_wake_q tm, tp, cm, cp, km, kp;
	double limit;
	char fig[128];

	median_p99(pr->ct, pr->nct, &cm, &cp);
	median_p99(pr->tt, pr->ntt, &tm, &tp);
	median_p99(pr->kept, pr->nkept, &km, &kp);
	limit = fmax(0.1 * cm.value, 2000);
	printf("#   1 ms interval, SCHED_FIFO 80, PM QoS 0 us, %d rounds of %d each, "
	       "alternating; cyclictest %zu, t32 %zu events (%zu kept)\n", ROUNDS, LOOPS, pr->nct,
	       pr->ntt, pr->nkept);
	snprintf(fig, sizeof(fig), "t32 %.2f us, cyclictest %.2f us", tm.value / 1e3, cm.value / 1e3);
	report(what, fig, "within 10% or 2 us", fabs(tm.value - cm.value) <= limit);
	snprintf(fig, sizeof(fig), "t32 %.2f us, cyclictest %.2f us", tp.value / 1e3, cp.value / 1e3);
	report("wake: p99, t32 sleep vs cyclictest", fig, "(figure only)", 1);
	snprintf(fig, sizeof(fig), "median %.2f us, p99 %.2f us", km.value / 1e3, kp.value / 1e3);
	report("wake: t32 kept events only (filters on)", fig, "(figure only)", 1);
	snprintf(fig, sizeof(fig), "t32 %.3f ns (TSC %.3f GHz); cyclictest 1 ns",
		 pr->rate > 0 ? 1 / pr->rate : NAN, pr->rate);
	report("wake: resolution of a reading", fig, "(figure only)", pr->rate > 0);
}

/* The spin method: the interrupt's cost to a running thread. */
static void bench_spin(report_fn report, const char *self, char *cpu, const char *path)
{
	char *argv[] = { (char *)self, "wake", "--method", "spin", "--cpu", cpu, "--ldist", "200us,1ms",
			 "--count", "1000", "--format", "tsv", "-o", (char *)path, NULL };
	struct t32_child_output res;
	struct t32_wake_data d;

	if (t32_run_program(argv, &res) || (res.status && res.status != T32_EXIT_UNTRUSTED) ||
	    t32_wake_load(path, &d)) {
		report("wake: spin, interrupt latency and its gap", "t32 wake failed", "-", 0);
	} else {
		struct t32_wake_q lm, lp, gm, gp;
		double *x;
		size_t k = t32_wake_kept(&d, d.latency_ns, &x);
		char fig[128];

		median_p99(x, k, &lm, &lp);
		free(x);
		k = t32_wake_kept(&d, d.gap_ns, &x);
		median_p99(x, k, &gm, &gp);
		free(x);
		snprintf(fig, sizeof(fig), "latency %.2f us, gap %.2f us (median of %zu)",
			 lm.value / 1e3, gm.value / 1e3, k);
		report("wake: spin, interrupt latency and its gap", fig, "(figure only)", k > 0);
		t32_wake_data_free(&d);
	}
	t32_child_output_free(&res);
	unlink(path);
}

/*
 * make bench: t32 wake's sleep method beside cyclictest (rt-tests) on the same CPU,
 * the same 1 ms interval and priority, in alternating rounds so both see the same
 * neighbours; their medians within 10% or 2 us, whichever is larger.  Every t32
 * event counts here (cyclictest filters none); the kept ones are shown apart.  And
 * the spin method's gap: what an interrupt costs a running thread.
 */
void t32_bench_wake(report_fn report)
{
	char self[PATH_MAX], cpu[16], what[96], why[160] = "";
	char path[] = "/tmp/t32-bench-wake-XXXXXX";
	struct pair pr = { 0 };
	int fd = mkstemp(path), failed = 0;

	if (t32_self_path(self, sizeof(self)) || fd < 0) {
		report("wake: t32 against cyclictest", "cannot set up (/proc/self/exe, /tmp)", "-", 0);
		if (fd >= 0)
			unlink(path);
		return;
	}
	close(fd);
	snprintf(cpu, sizeof(cpu), "%d", t32_default_cpu());
	for (int r = 0; r < ROUNDS && !failed; r++)
		failed = wake_round(self, cpu, path, &pr, why, sizeof(why)) != 0;
	unlink(path);
	snprintf(what, sizeof(what), "wake: median, t32 sleep vs cyclictest (cpu %s)", cpu);
	if (failed || !pr.nct || !pr.ntt)
		report(what, why[0] ? why : "no latencies", "within 10% or 2 us", 0);
	else
		report_pair(report, what, &pr);
	free(pr.ct);
	free(pr.tt);
	free(pr.kept);
	bench_spin(report, self, cpu, path);
}
