/*
 * 5006-model-ports - execution-unit limits in the retirement model: eight
 * independent adds on six ALUs take 8/6 cycles an iteration (one without a
 * limit: the old answer), loads and stores wait for their units, renamed moves
 * take none, units go oldest first, and ports.CLASS is set like any other key.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "t/modelkit.h"
#include "t/tap.h"

/* Machine code of the instructions used here. */
static const unsigned char INDEP_ADD[] = {	/* add eax, 1; add ebx, 2; ... add r11d, 8 */
	0x83, 0xc0, 0x01, 0x83, 0xc3, 0x02, 0x83, 0xc7, 0x03, 0x83, 0xc2, 0x04,
	0x41, 0x83, 0xc0, 0x05, 0x41, 0x83, 0xc1, 0x06, 0x41, 0x83, 0xc2, 0x07,
	0x41, 0x83, 0xc3, 0x08,
};
static const unsigned char TWO_LOADS[] = {	/* mov rax, [rbx]; mov rcx, [rbx] */
	0x48, 0x8b, 0x03, 0x48, 0x8b, 0x0b,
};
static const unsigned char TWO_STORES[] = {	/* mov [rbx], rax; mov [rbx+8], rcx */
	0x48, 0x89, 0x03, 0x48, 0x89, 0x4b, 0x08,
};
static const unsigned char MOVES[] = {		/* 4 x mov rax, rbx */
	0x48, 0x89, 0xd8, 0x48, 0x89, 0xd8, 0x48, 0x89, 0xd8, 0x48, 0x89, 0xd8,
};
static const unsigned char MIXED[] = {		/* imul rax, rax; add rax, 1; add rsi, 3; add rdi, 4;
						   add rbx, rax; add rcx, 1 */
	0x48, 0x0f, 0xaf, 0xc0, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc6, 0x03,
	0x48, 0x83, 0xc7, 0x04, 0x48, 0x01, 0xc3, 0x48, 0x83, 0xc1, 0x01,
};

/* An 8-wide machine like Zen 5 with no execution-unit limits; imul 3 cycles. */
static void wide_uarch(struct t32_uarch *u)
{
	kit_uarch(u, "wide", 8, 448, 4);
	u->load_latency_scaled = 5;
	u->latency[T32_CLASS_MUL] = 3;
}

/* Steady-state cycles per iteration, or -1 when the model fails. */
static double cpi(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n)
{
	struct t32_model_result r;
	double c;

	if (t32_model_steady(u, b, n, 1, &r))
		return -1;
	c = r.cycles_per_iter;
	t32_model_result_free(&r);
	return c;
}

/*
 * Over a trace: no cycle starts more instructions of a limited class than it
 * has units, none starts before it is ready or completes before start +
 * latency, and none waits while a younger one of its class takes a unit in a
 * cycle it could have used (oldest first).
 */
static int units_hold(const struct t32_uarch *u, const struct t32_model_insn *b,
		      const struct t32_model_row *rows, size_t nrows)
{
	for (size_t i = 0; i < nrows; i++) {
		const struct t32_model_row *x = &rows[i];
		enum t32_class c = b[x->insn].cls;
		unsigned units = u->ports[c];
		size_t same = 0;

		if (x->start < x->ready || x->complete < x->start + (long)b[x->insn].latency)
			return 0;
		if (!units)
			continue;
		for (size_t j = 0; j < nrows; j++)
			same += b[rows[j].insn].cls == c && rows[j].start == x->start;
		if (same > units)
			return 0;
		for (size_t j = i + 1; j < nrows; j++)
			if (b[rows[j].insn].cls == c && rows[j].start >= x->ready &&
			    rows[j].start < x->start)
				return 0;
	}
	return 1;
}

int main(void)
{
	struct t32_uarch u;
	struct t32_model_insn *b = NULL;
	struct t32_model_row rows[64 * 8];
	struct t32_model_result r;
	char err[256] = "";
	double cyc[17];
	size_t n;

	plan(21);
	wide_uarch(&u);

	/* the table behind --set: ports.CLASS keys, 0 allowed, range checked */
	kit_key(&u, "ports.alu", 4, 65);
	ok(t32_uarch_set_value(&u, "ports.nop", 1) == -1, "a nop takes no unit: no ports.nop key");
	ok(t32_uarch_set_value(&u, "ports.load", 0) == 0 && t32_uarch_set_value(&u, "ports.store", 0) == 0 &&
	   t32_uarch_set_value(&u, "ports.mul", 0) == 0 && t32_uarch_set_value(&u, "ports.vector", 0) == 0 &&
	   t32_uarch_set_value(&u, "ports.branch", 0) == 0 && t32_uarch_set_value(&u, "ports.div", 0) == 0,
	   "ports.load, store, mul, vector, branch and div are keys");

	/* eight independent adds */
	n = kit_block(&u, INDEP_ADD, sizeof(INDEP_ADD), &b);
	if (n != 8)
		bail("cannot decode the eight adds");
	u.ports[T32_CLASS_ALU] = 0;
	is_double(1.0, cpi(&u, b, n), 1e-9, "unlimited units: 1 cycle per iteration (allocation bound)");
	t32_uarch_set_value(&u, "ports.alu", 6);
	is_double(8.0 / 6.0, cpi(&u, b, n), 1e-9, "ports.alu = 6: 8/6 cycles per iteration");
	ok(t32_uarch_set(&u, "ports.alu=4", err, sizeof(err)) == 0 && cpi(&u, b, n) == 2.0,
	   "--set ports.alu=4: 2 cycles per iteration");
	t32_uarch_set_value(&u, "ports.alu", 6);
	if (t32_model_steady(&u, b, n, 1, &r))
		bail("the model fails on the eight adds");
	ok(r.weight[0] > 0 && r.weight[6] > 0 && r.weight[4] > 0 && r.weight[2] > 0 &&
	   r.weight[1] + r.weight[3] + r.weight[5] + r.weight[7] == 0,
	   "six a cycle, oldest first: the adds at 0, 6, 4, 2 head the retire groups");
	is_double(0.25, r.share[1], 1e-9, "skid 1: a quarter of the samples on the add after the first");
	t32_model_result_free(&r);
	t32_model_trace(&u, b, n, 64, rows);
	ok(units_hold(&u, b, rows, 64 * n), "from an empty machine: at most 6 start a cycle, oldest first");
	t32_model_curve(&u, b, n, 16, cyc);
	/* 128 adds, six a cycle from cycle 0: the last starts in cycle 21, retires in 22 */
	is_double(23.0, cyc[16], 1e-9, "curve: 16 copies between barriers take 23 cycles (17 unlimited)");
	free(b);

	/* loads and stores wait for their units */
	wide_uarch(&u);
	n = kit_block(&u, TWO_LOADS, sizeof(TWO_LOADS), &b);
	is_double(0.25, cpi(&u, b, n), 1e-9, "two independent loads, unlimited: allocation bound");
	u.ports[T32_CLASS_LOAD] = 1;
	is_double(2.0, cpi(&u, b, n), 1e-9, "two independent loads, ports.load = 1: 2 cycles");
	free(b);
	n = kit_block(&u, TWO_STORES, sizeof(TWO_STORES), &b);
	is_double(0.25, cpi(&u, b, n), 1e-9, "two stores, unlimited: allocation bound");
	u.ports[T32_CLASS_STORE] = 1;
	is_double(2.0, cpi(&u, b, n), 1e-9, "two stores, ports.store = 1: 2 cycles");
	free(b);

	/* moves eliminated at rename take no unit */
	wide_uarch(&u);
	u.ports[T32_CLASS_ALU] = 1;
	n = kit_block(&u, MOVES, sizeof(MOVES), &b);
	is_double(0.5, cpi(&u, b, n), 1e-9, "renamed moves with ports.alu = 1: still allocation bound");
	u.move_elim = 0;
	is_double(4.0, cpi(&u, b, n), 1e-9, "the same moves executed: one a cycle");
	free(b);

	/* a mixed block: classes count apart, oldest first within each */
	wide_uarch(&u);
	n = kit_block(&u, MIXED, sizeof(MIXED), &b);
	if (n != 6)
		bail("cannot decode the mixed block");
	is_double(4.0, cpi(&u, b, n), 1e-9, "imul + add chain through rax: 4 cycles, unlimited");
	u.ports[T32_CLASS_ALU] = 1;
	u.ports[T32_CLASS_MUL] = 1;
	is_double(5.0, cpi(&u, b, n), 1e-9, "one ALU for five adds: 5 cycles");
	t32_model_trace(&u, b, n, 64, rows);
	ok(units_hold(&u, b, rows, 64 * n), "mixed block: units and age order hold");
	free(b);
	return done_testing();
}
