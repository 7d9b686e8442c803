/*
 * 3005-descend - the integer coordinate descent the per-block fit and the
 * learn share: a value leaves its start only for a significant drop; a joint
 * optimum no single move reaches is found by descending again from the start
 * of the parameter the first moves left, and that start is kept unless it is
 * clearly worse than the least objective seen.
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

/*
 * Two parameters in 0..1 from (0, 0): the descent reaches (1, 1) at 80; a back
 * at its start gives (0, 1) at 83, not clearly worse; b back at its start then
 * gives (1, 0) at 86, clearly worse than the 80 seen though not than the 83.
 */
static double creep(void *ctx, const unsigned long *v)
{
	(void)ctx;
	if (v[0] == 1 && v[1] == 1)
		return 80;
	if (v[0] == 0 && v[1] == 1)
		return 83;
	if (v[0] == 1 && v[1] == 0)
		return 86;
	return 100;
}

/* valley at many points, counting the calls and the largest batch */
static size_t many_calls, many_most;

static void valley_many(void *ctx, const unsigned long *vs, size_t count, double *out)
{
	many_calls++;
	if (count > many_most)
		many_most = count;
	for (size_t k = 0; k < count; k++)
		out[k] = valley(ctx, &vs[2 * k]);
}

/* A bowl over a in 0..99 (wider than one batch), lowest at a = 77. */
static double bowl(void *ctx, const unsigned long *v)
{
	(void)ctx;
	return ((double)v[0] - 77) * ((double)v[0] - 77) + (double)v[1];
}

static void bowl_many(void *ctx, const unsigned long *vs, size_t count, double *out)
{
	many_calls++;
	for (size_t k = 0; k < count; k++)
		out[k] = bowl(ctx, &vs[2 * k]);
}

int main(void)
{
	struct t32_corr_param p[2];
	double deep = 50, f;
	struct t32_descent d = { p, 2, 10, valley, &deep, NULL };
	const unsigned long start[2] = { 8, 0 };
	unsigned long v[2];

	plan(14);
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

	/*
	 * a value goes back to its start unless that is clearly worse: two delays
	 * that move together can fit alike at 0 and at 2, and only the start says
	 * which to keep
	 */
	deep = 73;	/* worse than 70, but by less than the significance */
	memcpy(v, start, sizeof(v));
	f = t32_descend(&d, v, -1);
	f = t32_descend_start_again(&d, v, f, start);
	ok(v[0] == 8 && v[1] == 6 && f == 73,
	   "a start not clearly worse (73 against 70) is taken: %lu, %lu, %g", v[0], v[1], f);
	deep = 75;	/* worse by more than the significance */
	memcpy(v, start, sizeof(v));
	f = t32_descend(&d, v, -1);
	f = t32_descend_start_again(&d, v, f, start);
	ok(v[0] == 5 && v[1] == 3 && f == 70,
	   "a start clearly worse (75 against 70) is not: %lu, %lu, %g", v[0], v[1], f);

	{
		struct t32_corr_param q[2];
		struct t32_descent dc = { q, 2, 10, creep, NULL, NULL };
		const unsigned long zero[2] = { 0, 0 };
		unsigned long w[2] = { 0, 0 };

		memset(q, 0, sizeof(q));
		q[0].hi = q[1].hi = 1;
		f = t32_descend(&dc, w, -1);
		f = t32_descend_start_again(&dc, w, f, zero);
		ok(w[0] == 0 && w[1] == 1 && f == 83,
		   "starts taken back are judged against the least objective seen, not the last "
		   "taken: (0, 1) at 83 kept, (1, 0) at 86 refused: %lu, %lu, %g", w[0], w[1], f);
	}

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

	/* asked at many points at once, the descent goes where it went one point at a time */
	{
		struct t32_descent dm = d;
		unsigned long w[2];

		dm.many = valley_many;
		memcpy(w, start, sizeof(w));
		f = t32_descend(&dm, w, -1);
		f = t32_descend_start_again(&dm, w, f, start);
		ok(w[0] == 8 && w[1] == 6 && f == 50 && many_calls > 0 && many_most == 8,
		   "with many points at once: (8, 6) at 50 as before, a parameter's 8 other values a call (%lu, %lu, %g, %zu calls, %zu at most)",
		   w[0], w[1], f, many_calls, many_most);
	}
	{
		struct t32_corr_param q[2];
		struct t32_descent one = { q, 2, 10, bowl, NULL, NULL }, all = one;
		unsigned long a[2] = { 3, 5 }, b[2] = { 3, 5 };
		double pa[100], pb[100], fa, fb;
		int same = 1;

		memset(q, 0, sizeof(q));
		q[0].hi = 99;
		q[1].hi = 9;
		all.many = bowl_many;
		many_calls = 0;
		fa = t32_descend(&one, a, -1);
		fb = t32_descend(&all, b, -1);
		ok(a[0] == 77 && b[0] == 77 && a[1] == 0 && b[1] == 0 && fa == fb && fa == 0,
		   "a range wider than a batch: both find a = 77 (%lu, %lu)", a[0], b[0]);
		ok(many_calls >= 4, "and the wide range went in several batches (%zu calls)", many_calls);
		t32_descend_profile(&one, a, 0, 0, 99, pa);
		t32_descend_profile(&all, a, 0, 0, 99, pb);
		for (int x = 0; x < 100; x++)
			same &= pa[x] == pb[x] && pa[x] == (x - 77.0) * (x - 77.0);
		ok(same, "the profile over 0..99 is the bowl, one at a time or many");
		t32_descend_profile(&all, a, 1, 2, 4, pb);
		ok(pb[0] == 2 && pb[1] == 3 && pb[2] == 4, "a profile over part of a range: %g %g %g",
		   pb[0], pb[1], pb[2]);
	}
	return done_testing();
}
