/*
 * 5014-model-group-flags - retire groups of flag-writing ALU instructions only
 * (retire_group_flags): on add-2-1-1 (four adds) the same as aligned pairs; on
 * constant moves (no flags) the same as no groups; with a constant move before
 * add-2-1-1 the pairs start at the first add, where aligned pairs counted from
 * the block's first instruction would pair the move with it; a multiply
 * retires alone.  The rule the Zen 5 recording asks for (data/uarch/zen5.uarch).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "t/modelkit.h"
#include "t/tap.h"

static const unsigned char ADD_2_1_1[] = {	/* add rax, 1; add rax, 2; add rsi, 3; add rdi, 4 */
	0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x02, 0x48, 0x83, 0xc6, 0x03,
	0x48, 0x83, 0xc7, 0x04,
};
static const unsigned char MOV_ADD_2_1_1[] = {	/* mov ecx, 5; then add-2-1-1 */
	0xb9, 0x05, 0x00, 0x00, 0x00,
	0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x02, 0x48, 0x83, 0xc6, 0x03,
	0x48, 0x83, 0xc7, 0x04,
};
static const unsigned char LEAS[] = {		/* lea rax, [rax+1]; lea rax, [rax+2]; lea rsi, [rsi+3]; lea rdi, [rdi+4] */
	0x48, 0x8d, 0x40, 0x01, 0x48, 0x8d, 0x40, 0x02, 0x48, 0x8d, 0x76, 0x03,
	0x48, 0x8d, 0x7f, 0x04,
};
static const unsigned char IMUL_ADDS[] = {	/* imul rax, rax; add rbx, 1; add rcx, 1 */
	0x48, 0x0f, 0xaf, 0xc0, 0x48, 0x83, 0xc3, 0x01, 0x48, 0x83, 0xc1, 0x01,
};

/* Shares (skid 1) of b under u, group g, flags mode f, into out[n]; the cycles an iteration. */
static double shares(struct t32_uarch u, const unsigned char *code, size_t len, unsigned g,
		     unsigned f, double *out, size_t *n)
{
	struct t32_model_insn *b;
	struct t32_model_result r;
	double c;

	u.retire_group = g;
	u.retire_group_flags = f;
	*n = kit_block(&u, code, len, &b);
	if (!*n || t32_model_steady(&u, b, *n, 1, &r))
		bail("the model fails on a test block");
	memcpy(out, r.share, *n * sizeof(double));
	c = r.cycles_per_iter;
	t32_model_result_free(&r);
	free(b);
	return c;
}

static double dist(const double *a, const double *b, size_t n)
{
	double d = 0;

	for (size_t i = 0; i < n; i++)
		d += fabs(a[i] - b[i]);
	return d / 2;
}

int main(void)
{
	struct t32_uarch u;
	double a[8], b[8], c[8];
	size_t n;
	unsigned long v = 9;
	char err[256] = "";

	plan(11);
	kit_uarch(&u, "wide", 8, 448, 4);
	u.latency[T32_CLASS_MUL] = 3;

	ok(t32_uarch_get(&u, "retire_group_flags", &v) == 0 && v == 0,
	   "retire_group_flags is a key, 0 unless set");
	ok(t32_uarch_set(&u, "retire_group_flags=2", err, sizeof(err)) == -1,
	   "it takes 0 or 1 (%s)", err);

	/* four adds: every instruction writes flags, so the same as aligned pairs */
	shares(u, ADD_2_1_1, sizeof(ADD_2_1_1), 2, 0, a, &n);
	shares(u, ADD_2_1_1, sizeof(ADD_2_1_1), 2, 1, b, &n);
	is_double(0, dist(a, b, n), 1e-12, "add-2-1-1: flag-writers' pairs are aligned pairs");
	is_double(1.0, b[1], 1e-9, "every sample on the chain's second add");

	/* the same chains of lea, which write no flags: nothing pairs, as with groups of 1 */
	shares(u, LEAS, sizeof(LEAS), 1, 0, a, &n);
	shares(u, LEAS, sizeof(LEAS), 2, 1, b, &n);
	shares(u, LEAS, sizeof(LEAS), 2, 0, c, &n);
	is_double(0, dist(a, b, n), 1e-12, "lea-2-1-1: no pairs, as with groups of 1");
	ok(dist(a, c, n) > 0.1, "where aligned pairs would differ (%.3f)", dist(a, c, n));

	/* a move first: the pairs start at the first add */
	shares(u, MOV_ADD_2_1_1, sizeof(MOV_ADD_2_1_1), 2, 1, b, &n);
	shares(u, MOV_ADD_2_1_1, sizeof(MOV_ADD_2_1_1), 2, 0, c, &n);
	is_int(5, (long long)n, "the block with a move first decodes to 5");
	is_double(1.0, b[2], 1e-9, "flags: every sample on the chain's second add, as without the move");
	ok(c[2] <= 0.5, "aligned pairs from the move put half or more elsewhere (%.2f on it)", c[2]);

	/* a multiply does not pair with the add after it */
	shares(u, IMUL_ADDS, sizeof(IMUL_ADDS), 1, 0, a, &n);
	shares(u, IMUL_ADDS, sizeof(IMUL_ADDS), 2, 1, b, &n);
	is_double(a[1], b[1], 1e-9, "imul-add-add: the add after the multiply as with groups of 1");
	is_double(3.0, shares(u, IMUL_ADDS, sizeof(IMUL_ADDS), 2, 1, b, &n), 1e-9,
		  "and the multiply chain sets the speed, 3 cycles");
	return done_testing();
}
