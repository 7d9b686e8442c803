/*
 * 4004-backends: each sampling backend's probe answers (available, or a reason),
 * and each available backend, started on this thread around a known loop, returns
 * samples that fall inside that loop and counts them consistently.  Backends that
 * are unavailable here are skipped with the probe's reason.
 */
#include <string.h>
#include <time.h>

#include "t/tap.h"
#include "t32/sample/sample.h"

/* A loop of nops with known bounds: t4004_spin(iterations). */
void t4004_spin(uint64_t n);
extern const char t4004_spin_end[];
__asm__(".text\n"
	".globl t4004_spin\n"
	".type t4004_spin, @function\n"
	"t4004_spin:\n"
	"1:\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n"
	"\tdec %rdi\n"
	"\tjnz 1b\n"
	"\tret\n"
	".globl t4004_spin_end\n"
	"t4004_spin_end:\n");

#define CAP 4096

static struct t32_sample samples[CAP];

/* CPU seconds this thread has used. */
static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
	const struct t32_sample_backend *b, *autob;
	char why[512];

	plan(7 + 6 * 3);

	ok(t32_sample_backend_find("perf") && t32_sample_backend_find("signal") &&
	   t32_sample_backend_find("precise"), "the three backends are in the table");
	ok(!t32_sample_backend_find("nosuch"), "an unknown backend is not found");
	ok(t32_sample_clock_find("task-clock") && t32_sample_clock_find("cpu-clock"),
	   "both clocks are in the table");
	ok(!t32_sample_clock_find("wall"), "an unknown clock is not found");
	autob = t32_sample_backend_auto(why, sizeof(why));
	ok(autob != NULL || why[0], "auto choice: %s", autob ? autob->name : why);
	ok(!strcmp(t32_sample_backends[0].name, "precise"), "precise is preferred");
	ok(t32_sample_backend_find("precise")->exact && !t32_sample_backend_find("perf")->exact,
	   "precise names the instruction itself, perf does not");

	for (b = t32_sample_backends; b->name; b++) {
		struct t32_sampler s;
		struct t32_sampler_opts o = { .clock = t32_sample_clock_find("task-clock"),
					      .period_ns = 1000000, .buf = samples,
					      .capacity = CAP };
		size_t inside = 0;
		double t0;

		why[0] = 0;
		if (b->probe(why, sizeof(why))) {
			ok(why[0] != 0, "%s: unavailable with a reason (%s)", b->name, why);
			diag("%s unavailable: %s", b->name, why);
			for (int i = 0; i < 5; i++)
				skip(why);
			continue;
		}
		ok(1, "%s: available", b->name);
		if (!ok(!t32_sampler_start(&s, b, &o, why, sizeof(why)), "%s: starts", b->name)) {
			diag("%s", why);
			for (int i = 0; i < 4; i++)
				skip("did not start");
			continue;
		}
		/* 0.3 s of CPU in chunks, draining between them as t32 sample does. */
		t0 = cpu_seconds();
		while (cpu_seconds() - t0 < 0.3) {
			t4004_spin(1000000);
			t32_sampler_drain(&s);
		}
		/* Paused: 0.1 s of CPU brings nothing (one in flight at most). */
		{
			size_t before;

			t32_sampler_pause(&s, 1);
			t32_sampler_drain(&s);
			before = s.n;
			t0 = cpu_seconds();
			while (cpu_seconds() - t0 < 0.1)
				t4004_spin(1000000);
			t32_sampler_drain(&s);
			ok(s.n <= before + 1, "%s: paused, no samples (%zu before, %zu after)",
			   b->name, before, (size_t)s.n);
			t32_sampler_pause(&s, 0);
		}
		t32_sampler_stop(&s);
		for (size_t i = 0; i < s.n; i++)
			if (samples[i].ip >= (uintptr_t)t4004_spin &&
			    samples[i].ip < (uintptr_t)t4004_spin_end)
				inside++;
		diag("%s: %zu samples (%zu inside the loop), %llu lost, %llu dropped, event %s, "
		     "period %llu %s", b->name, (size_t)s.n, inside, (unsigned long long)s.lost,
		     (unsigned long long)s.dropped, s.event, (unsigned long long)s.period, s.unit);
		/* 300 periods of CPU time; allow for a slow or busy machine. */
		ok(s.n >= 15 && s.n <= 1000, "%s: %zu samples in 0.3 s at 1 ms", b->name,
		   (size_t)s.n);
		ok(s.n && inside * 10 >= s.n * 8, "%s: >= 80%% of samples inside the loop (%zu)",
		   b->name, inside);
		ok(s.interrupts == s.n + s.dropped, "%s: every interrupt kept or counted",
		   b->name);
	}
	return done_testing();
}
