/*
 * 2101-clock.c - the clock on the machine the tests run on: the TSC step seen in
 * real deltas, the TSC frequency, the calibration ratio within a broad band, and the
 * stopping rule of the measuring engine.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "t/tap.h"
#include "t32/core/measure.h"

/* A chain of reps x insn behind barrier l, measured with the given stopping rule. */
static int measure(const char *insn, uint64_t reps, double precision, double budget,
		   struct t32_measurement *m)
{
	struct t32_spec s = { 0 };
	struct t32_block_opts o;
	struct t32_measure_opts mo;
	char err[64];
	int rc;

	t32_block_opts_init(&o);
	t32_measure_opts_init(&mo);
	mo.precision = precision;
	mo.budget = budget;
	mo.max_runs = 20000000;
	t32_spec_set_barrier(&s, "l", err, sizeof(err));
	s.store = 'm';
	t32_spec_add_item(&s, reps, insn);
	rc = t32_measure(&s, &o, &mo, NULL, m);
	t32_spec_free(&s);
	return rc;
}

int main(void)
{
	struct t32_spec s = { 0 };
	struct t32_block_opts o;
	struct t32_session ss;
	const struct t32_spec *specs[1] = { &s };
	uint64_t *d = malloc(20000 * sizeof(uint64_t)), q, off, bad = 0;
	struct t32_measurement add, imul, tight;
	double share, hz;
	char err[64];

	plan(12);
	t32_block_opts_init(&o);
	t32_spec_set_barrier(&s, "l", err, sizeof(err));
	s.store = 'm';
	if (!d || t32_session_open(&ss, specs, 1, &o) || t32_session_run(&ss, 0, 20000, d))
		bail("cannot run the empty block");
	t32_session_close(&ss);
	q = t32_quantum(d, 20000, &off, &share);
	diag("TSC step seen in real deltas: %llu ticks (offset %llu, %.4f of samples)",
	     (unsigned long long)q, (unsigned long long)off, share);
	ok(q >= 1 && q <= 1000, "the TSC step is between 1 and 1000 ticks");
	ok(share >= 0.99, "the step explains at least 99%% of real deltas");
	for (int i = 0; i < 20000; i++)
		bad += d[i] % q != off % q;
	ok(bad <= 200, "real deltas sit on the lattice offset + k * step (%llu off it)",
	   (unsigned long long)bad);

	hz = t32_tsc_hz(0.02);
	diag("TSC frequency %.4f GHz", hz / 1e9);
	ok(hz > 0.3e9 && hz < 10e9, "the TSC runs between 0.3 and 10 GHz");

	if (measure("add eax, 1", 1000, 0.02, 5, &add))
		bail("cannot measure an add chain");
	diag("add: %.4f +- %.4f cycles, ratio %.4f cycles per tick, %llu runs, %.2f s", add.value,
	     add.halfwidth, add.ratio, (unsigned long long)add.runs, add.seconds);
	ok(add.ratio > 0.2 && add.ratio < 10, "calibration: 0.2 to 10 core cycles per tick");
	ok(add.ratio_hw < 0.05 * add.ratio, "calibration: known within 5%%");
	/*
	 * A dependent add costs one cycle on every x86-64 core.  The tool's own
	 * interval bounds the noise; what it cannot see is a constant the empty
	 * block does not cancel: a chain takes a few cycles beyond its length to
	 * fill the pipeline.  That fill is a small part of what the barriers
	 * themselves cost, so a quarter of the empty block over n is allowed and
	 * no more: a result that forgot to subtract the empty block is a whole
	 * empty block over n off.
	 */
	diag("empty block %.1f cycles: allowed %.4f beyond the interval", add.empty_value,
	     0.25 * add.empty_value / 1000);
	ok(add.empty_value > 0 && fabs(add.value - 1) <= add.halfwidth + 0.25 * add.empty_value / 1000,
	   "a dependent add chain costs 1 cycle per add (%.4f +- %.4f)", add.value, add.halfwidth);
	/* on a machine busy beside every measuring process, no clean process is left to stop on */
	if (add.taint && add.untrusted[0])
		skip("other work ran beside every measuring process");
	else if (add.contended || strstr(add.untrusted, "the sensors know the core clock")) {
		/* a thread the guest cannot see shared the core: the interval may not narrow */
		diag("%s", add.untrusted);
		skip("the core was shared with a thread the guest cannot see");
	}
	else if (!add.stopped_precise && (add.set_aside || add.steal_share >= 0.01)) {
		/* a CPU shared now and then: the interval may not narrow, and says so */
		diag("%u processes set aside, %.1f%% stolen: %s", add.set_aside,
		     100 * add.steal_share, add.untrusted);
		skip("other work or the hypervisor took the CPU now and then");
	} else {
		ok(add.stopped_precise && add.halfwidth <= 0.02,
		   "the engine stopped because the interval reached the target");
	}

	if (measure("imul rax, rax", 1000, 0.05, 5, &imul))
		bail("cannot measure an imul chain");
	ok(imul.value > add.value + 1, "a dependent imul costs more than a dependent add");

	if (measure("add eax, 1", 1000, 1e-9, 0.3, &tight))
		bail("cannot measure with an impossible target");
	ok(!tight.stopped_precise && tight.seconds < 1.5, "an impossible target stops at the budget");
	ok(tight.untrusted[0] != 0, "and the result says why it is not trustworthy: %s",
	   tight.untrusted);
	ok(add.runs < add.rounds * 20000ull, "runs are counted per block");
	free(d);
	return done_testing();
}
