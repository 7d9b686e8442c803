/*
 * 5105-learn-budget - what each probe of `t32 learn` may take of its budget
 * (t32_learn_allowance): the sampling keeps its seconds while the rows of the
 * step curve can have their least; the rows get what is over, up to
 * correlate's own limit, and what a sampling its sample count ends early leaves;
 * a budget spent takes the sampling down to its least;
 * probes that each take all they are given end within the budget.
 */
#include <math.h>

#include "t32/core/probeset.h"
#include "t/tap.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

int main(void)
{
	double s, r, left, took;

	plan(11);
	t32_learn_allowance(100, 12, 17, 2, 2, &s, &r);
	ok(NEAR(s, 2) && NEAR(r, 0.25), "time to spare: 2 s of sampling, rows at 0.25 s (%.3f, %.3f)", s, r);
	t32_learn_allowance(60, 12, 17, 2, 2, &s, &r);
	ok(NEAR(s, 2) && NEAR(r, 2.0 / 17), "5 s a probe: 1 s set up, 2 s sampled, 2 s over 17 rows (%.3f, %.4f)",
	   s, r);
	t32_learn_allowance(45, 12, 17, 2, 2, &s, &r);
	ok(NEAR(s, 1.9) && NEAR(r, 0.05), "3.75 s a probe: the rows at their least, the sampling 1.9 s (%.3f, %.3f)",
	   s, r);
	t32_learn_allowance(45, 12, 17, 1, 1, &s, &r);
	ok(NEAR(s, 1) && NEAR(r, 1.75 / 17), "--seconds 1: sampled 1 s, not raised; the rows get the rest (%.3f, %.4f)",
	   s, r);
	t32_learn_allowance(45, 12, 17, 3, 0.625, &s, &r);
	ok(NEAR(s, 3) && NEAR(r, (2.75 - 0.625) / 17),
	   "2000 samples expected in 0.625 s: the rows get the rest, the sampling keeps 3 s as its limit (%.3f, %.4f)",
	   s, r);
	t32_learn_allowance(28.8, 12, 17, 3, 0.625, &s, &r);
	ok(NEAR(s, 1.4 - 0.85) && NEAR(r, 0.05),
	   "too little even for that: the rows at their least, the sampling what is left (%.3f, %.3f)", s, r);
	t32_learn_allowance(4, 2, 17, 2, 2, &s, &r);
	ok(NEAR(s, 0.5) && NEAR(r, 0.05), "too little: the least of each (%.3f, %.3f)", s, r);
	t32_learn_allowance(4, 2, 17, 0.2, 0.2, &s, &r);
	ok(NEAR(s, 0.2) && NEAR(r, 0.05), "--seconds 0.2 is not raised to the least either (%.3f, %.3f)", s, r);
	t32_learn_allowance(-3, 1, 17, 2, 2, &s, &r);
	ok(NEAR(s, 0.5) && NEAR(r, 0.05), "a budget overspent still measures the rest at the least (%.3f, %.3f)", s,
	   r);
	/* twelve probes that each take all they may (the set-up second included) */
	left = 45;
	took = 0;
	for (size_t p = 12; p > 0; p--) {
		double t;

		t32_learn_allowance(left, p, 17, 2, 2, &s, &r);
		t = 1.0 + s + 17 * r;
		took += t;
		left -= t;
	}
	ok(took <= 45 + 1e-9, "twelve probes that take all they are given end within 45 s (%.2f s)", took);
	is_double(1 + 0.5 + 17 * 0.05, t32_learn_least(17, 2), 1e-9, "the least a probe takes: 2.35 s");
	return done_testing();
}
