/*
 * 3005-descend - the integer coordinate descent the per-block fit and the
 * learn share: a value leaves its start only for a significant drop; a joint
 * optimum no single move reaches is found by descending again from the start
 * of the parameter the first moves left, and taken only when clearly better.
 */
#include <math.h>
#include <string.h>

#include "analysis/descend.h"
#include "t/tap.h"

/*
 * A valley of two parameters a, b in 0..8, started at (8, 0): with b at 0 the
 * best a is 5 (80 against 100), with a at 5 the best b is 3 (70), and there no
 * single move helps; (8, 6) holds `deep`, reached only with a held at 8.
 */
static double valley(void *ctx, const unsigned long *v)
{
	double deep = *(const double *)ctx;

	if (v[0] == 5 && v[1] == 0)
		return 80;
	if (v[0] == 5 && v[1] == 3)
		return 70;
	if (v[0] == 8 && v[1] == 6)
		return deep;
	return 100;
}

int main(void)
{
	struct t32_corr_param p[2];
	double deep = 50, f;
	struct t32_descent d = { p, 2, 10, valley, &deep };
	const unsigned long start[2] = { 8, 0 };
	unsigned long v[2];

	plan(7);
	memset(p, 0, sizeof(p));
	for (int j = 0; j < 2; j++) {
		p[j].lo = 0;
		p[j].hi = 8;
	}
	strcpy(p[0].key, "retire_width");
	strcpy(p[1].key, "retire_delay.alu");

	memcpy(v, start, sizeof(v));
	f = t32_descend(&d, v, -1);
	ok(v[0] == 5 && v[1] == 3 && f == 70, "the descent stops in the valley at (5, 3): %lu, %lu, %g",
	   v[0], v[1], f);
	f = t32_descend_start_again(&d, v, f, start);
	ok(v[0] == 8 && v[1] == 6 && f == 50,
	   "descending again with a held at its start finds (8, 6): %lu, %lu, %g", v[0], v[1], f);
	f = t32_descend_start_again(&d, v, f, start);
	ok(v[0] == 8 && v[1] == 6 && f == 50, "and from there, again, nothing moves");

	deep = 68;	/* better than 70, but by less than the significance */
	memcpy(v, start, sizeof(v));
	f = t32_descend(&d, v, -1);
	f = t32_descend_start_again(&d, v, f, start);
	ok(v[0] == 5 && v[1] == 3 && f == 70,
	   "a start not clearly better (68 against 70) is not taken: %lu, %lu, %g", v[0], v[1], f);

	/* a drop below the significance does not move a value from its start */
	deep = 50;
	{
		unsigned long w[2] = { 5, 3 };

		f = t32_descend(&d, w, -1);
		ok(w[0] == 5 && w[1] == 3, "started in the valley, the descent stays there");
		f = t32_descend_start_again(&d, w, f, w);
		ok(w[0] == 5 && w[1] == 3 && f == 70, "and nothing left its start to be tried again");
	}
	ok(t32_descend_better(1, INFINITY) && !t32_descend_better(INFINITY, 1),
	   "a finite objective beats one the model cannot run");
	return done_testing();
}
