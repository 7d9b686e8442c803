/*
 * 5018-model-store-drain - a store drains store_drain cycles after it completes,
 * and only a fence waits for that: the fence that closes a timed run (so a store
 * whose data is there from the start sets a floor under the step curve: one
 * copy of a 3-cycle multiply and such a store costs what two do, as a Zen 4
 * measures), and a fence in the block.  Retirement does not wait for it: the
 * steady state's cycles and shares are those without it.  With store_bypass, a
 * store whose data comes from a one-cycle ALU instruction retires with it (a Zen
 * 4 puts every sample of an add chain's store on the store), and so does one
 * of a load's result, while one of a multiply's result holds as before.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "t/modelkit.h"
#include "t/tap.h"

/* imul rax, rax; mov qword [rbx+8], rcx; nop; nop */
static const unsigned char STORE_HOLD[] = {
	0x48, 0x0f, 0xaf, 0xc0, 0x48, 0x89, 0x4b, 0x08, 0x90, 0x90,
};
/* add rax, rax; mov qword [rbx+8], rax; nop */
static const unsigned char STORE_AFTER_ADD[] = { 0x48, 0x01, 0xc0, 0x48, 0x89, 0x43, 0x08, 0x90 };
/* imul rax, rax; mov qword [rbx+8], rax; nop; nop */
static const unsigned char STORE_LATE_HOLD[] = {
	0x48, 0x0f, 0xaf, 0xc0, 0x48, 0x89, 0x43, 0x08, 0x90, 0x90,
};
/* mov rax, [rax]; mov qword [rbx+8], rax; nop */
static const unsigned char STORE_AFTER_LOAD[] = { 0x48, 0x8b, 0x00, 0x48, 0x89, 0x43, 0x08, 0x90 };
/* mov qword [rbx+8], rcx; mfence */
static const unsigned char STORE_FENCE[] = { 0x48, 0x89, 0x4b, 0x08, 0x0f, 0xae, 0xf0 };

#define KMAX 4

/* The step curve of code (k = 0..KMAX copies) with store_drain at drain. */
static void curve(struct t32_uarch *u, const unsigned char *code, size_t len, unsigned drain,
		  double *cycles)
{
	struct t32_model_insn *b = NULL;
	size_t n = kit_block(u, code, len, &b);

	if (!n)
		bail("cannot decode the block");
	u->store_drain = drain;
	if (t32_model_curve(u, b, n, KMAX, cycles))
		bail("the model fails");
	free(b);
}

/* The steady state of code with store_drain at drain into r. */
static void steady(struct t32_uarch *u, const unsigned char *code, size_t len, unsigned drain,
		   struct t32_model_result *r)
{
	struct t32_model_insn *b = NULL;
	size_t n = kit_block(u, code, len, &b);

	if (!n)
		bail("cannot decode the block");
	u->store_drain = drain;
	kit_steady(u, b, n, r);
	free(b);
}

int main(void)
{
	struct t32_uarch u;
	struct t32_model_result r0, r5;
	double c0[KMAX + 1], c5[KMAX + 1];
	unsigned long v = 1;
	int same = 1;

	plan(16);
	kit_uarch(&u, "wide", 8, 448, 4);
	u.latency[T32_CLASS_MUL] = 3;

	ok(t32_uarch_get(&u, "store_drain", &v) == 0 && v == 0,
	   "store_drain is a key; absent means 0");
	kit_key(&u, "store_drain", 5, 101);

	curve(&u, STORE_HOLD, sizeof(STORE_HOLD), 0, c0);
	curve(&u, STORE_HOLD, sizeof(STORE_HOLD), 5, c5);
	is_double(3.0, c0[2] - c0[1], 1e-9, "without a drain, each copy adds the multiply's 3 cycles");
	is_double(c5[2], c5[1], 1e-9,
		  "with one of 5 cycles, one copy costs what two do: the store drains last (%.0f, %.0f)",
		  c5[1], c5[2]);
	is_double(3.0, c5[4] - c5[3], 1e-9, "and once the chain outlasts it, 3 cycles a copy again");

	steady(&u, STORE_HOLD, sizeof(STORE_HOLD), 0, &r0);
	steady(&u, STORE_HOLD, sizeof(STORE_HOLD), 5, &r5);
	for (size_t i = 0; i < 4; i++)
		same &= r0.share[i] == r5.share[i];
	ok(r0.cycles_per_iter == r5.cycles_per_iter && same,
	   "retirement does not wait for a drain: the same cycles and shares (%.2f on the store)",
	   r5.share[1]);
	t32_model_result_free(&r0);
	t32_model_result_free(&r5);

	steady(&u, STORE_FENCE, sizeof(STORE_FENCE), 0, &r0);
	steady(&u, STORE_FENCE, sizeof(STORE_FENCE), 5, &r5);
	is_double(5.0, r5.cycles_per_iter - r0.cycles_per_iter, 1e-9,
		  "a fence in the block waits for the store to drain: 5 cycles more an iteration");
	t32_model_result_free(&r0);
	t32_model_result_free(&r5);

	/* store_bypass: r0 without it, r5 with it */
	u.latency[T32_CLASS_STORE] = 1;
	u.retire_delay[T32_CLASS_STORE] = 1;
	kit_key(&u, "store_bypass", 1, 2);
	u.store_bypass = 0;
	steady(&u, STORE_AFTER_ADD, sizeof(STORE_AFTER_ADD), 0, &r0);
	u.store_bypass = 1;
	steady(&u, STORE_AFTER_ADD, sizeof(STORE_AFTER_ADD), 0, &r5);
	ok(r0.share[2] > 0.95, "an add chain's store holds retirement without the bypass (%.2f after it)",
	   r0.share[2]);
	ok(r5.share[1] > 0.95 && r5.cycles_per_iter == r0.cycles_per_iter,
	   "with it the add holds and the store retires with it (%.2f on the store), at the same "
	   "cycles", r5.share[1]);
	t32_model_result_free(&r0);
	t32_model_result_free(&r5);
	u.store_bypass = 0;
	steady(&u, STORE_LATE_HOLD, sizeof(STORE_LATE_HOLD), 0, &r0);
	u.store_bypass = 1;
	steady(&u, STORE_LATE_HOLD, sizeof(STORE_LATE_HOLD), 0, &r5);
	ok(r5.share[2] > 0.5 && r5.share[2] == r0.share[2],
	   "a multiply's store holds two of its three cycles either way (%.2f after it)", r5.share[2]);
	t32_model_result_free(&r0);
	t32_model_result_free(&r5);
	u.latency[T32_CLASS_LOAD] = 0;
	u.load_latency = 4;
	u.store_bypass = 0;
	steady(&u, STORE_AFTER_LOAD, sizeof(STORE_AFTER_LOAD), 0, &r0);
	u.store_bypass = 1;
	steady(&u, STORE_AFTER_LOAD, sizeof(STORE_AFTER_LOAD), 0, &r5);
	ok(r0.share[2] > 0.3 && r5.share[1] > 0.95,
	   "a load's store holds without the bypass (%.2f after it), and with it retires with the "
	   "load (%.2f on the store)", r0.share[2], r5.share[1]);
	t32_model_result_free(&r0);
	t32_model_result_free(&r5);
	return done_testing();
}
