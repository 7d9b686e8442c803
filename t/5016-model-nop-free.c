/*
 * 5016-model-nop-free - nops that take no retire slot (retire_nop_free): behind a
 * held load they all retire in the load's cycle, so the interrupt that comes while
 * the load waits is the only one the block sees, as a Zen 4 shows for a load and up
 * to 24 nops; with the key at 0 they take slots of the width like any other, and
 * the ninth and seventeenth are selected one and two cycles after the load.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "t/modelkit.h"
#include "t/tap.h"

#define NOPS 20
/* mov rax, [rax]; times 20 nop */
static unsigned char LOAD_NOPS[3 + NOPS] = { 0x48, 0x8b, 0x00 };
/* mov rax, [rax]; times 7 nop; add ecx, 1 */
static const unsigned char LOAD_NOPS_ADD[] = {
	0x48, 0x8b, 0x00, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x83, 0xc1, 0x01,
};
/* mov rax, [rax]; add ecx..r10d, 1 (seven adds); nop; add r11d, 1 */
static const unsigned char LOAD_ADDS_NOP[] = {
	0x48, 0x8b, 0x00, 0x83, 0xc1, 0x01, 0x83, 0xc2, 0x01, 0x83, 0xc6, 0x01,
	0x83, 0xc7, 0x01, 0x41, 0x83, 0xc0, 0x01, 0x41, 0x83, 0xc1, 0x01, 0x41,
	0x83, 0xc2, 0x01, 0x90, 0x41, 0x83, 0xc3, 0x01,
};

/*
 * Instruction k of code's fifth iteration, traced with retire_nop_free at
 * nop_free: the cycles it retires after the load that opens the iteration.
 */
static long after_load(struct t32_uarch *u, const unsigned char *code, size_t len,
		       unsigned nop_free, size_t k)
{
	struct t32_model_insn *b = NULL;
	struct t32_model_row rows[8 * 16];
	size_t n = kit_block(u, code, len, &b);
	long d;

	if (!n || n > 16 || k >= n)
		bail("cannot decode the block");
	u->retire_nop_free = nop_free;
	if (t32_model_trace(u, b, n, 8, rows))
		bail("the model fails");
	d = rows[4 * n + k].retire - rows[4 * n].retire;
	free(b);
	return d;
}

int main(void)
{
	struct t32_uarch u;
	struct t32_model_insn *b = NULL;
	struct t32_model_row rows[(NOPS + 1) * 8];
	struct t32_model_result r;
	unsigned long v = 1;
	size_t n;
	int together = 1;

	plan(14);
	memset(LOAD_NOPS + 3, 0x90, NOPS);
	kit_uarch(&u, "wide", 8, 448, 4);
	u.alloc_width = 32;	/* the front end never the limit here */

	ok(t32_uarch_get(&u, "retire_nop_free", &v) == 0 && v == 0,
	   "retire_nop_free is a key; absent means 0");
	kit_key(&u, "retire_nop_free", 1, 2);

	n = kit_block(&u, LOAD_NOPS, sizeof(LOAD_NOPS), &b);
	if (n != NOPS + 1)
		bail("cannot decode the load and its nops");
	u.retire_nop_free = 0;
	kit_steady(&u, b, n, &r);
	is_double(4.0, r.cycles_per_iter, 1e-9, "nops in slots: the load's 4 cycles an iteration");
	ok(r.share[1] > 0.4 && r.share[9] > 0.2 && r.share[17] > 0.2,
	   "nops in slots: samples after the load and on the 9th and 17th nop (%.2f, %.2f, %.2f)",
	   r.share[1], r.share[9], r.share[17]);
	t32_model_result_free(&r);

	u.retire_nop_free = 1;
	kit_steady(&u, b, n, &r);
	is_double(4.0, r.cycles_per_iter, 1e-9, "free nops: still 4 cycles an iteration");
	is_double(1.0, r.share[1], 1e-9, "free nops: every sample on the nop after the load");
	ok(r.weight[0] == 4 && r.weight[8] == 0 && r.weight[16] == 0,
	   "free nops: the load holds retirement every cycle, no nop any");
	t32_model_result_free(&r);
	t32_model_trace(&u, b, n, 8, rows);
	for (size_t j = 2; j < 8; j++)
		for (size_t k = 1; k <= NOPS; k++)
			together &= rows[j * n + k].retire == rows[j * n].retire;
	ok(together, "trace: every nop retires in its load's cycle, none before it");
	free(b);

	/*
	 * the load and seven adds fill the cycle the load completes in: a free nop
	 * retires in it too and the add after it waits a cycle; a nop in a slot waits
	 */
	ok(after_load(&u, LOAD_ADDS_NOP, sizeof(LOAD_ADDS_NOP), 1, 8) == 0 &&
	   after_load(&u, LOAD_ADDS_NOP, sizeof(LOAD_ADDS_NOP), 1, 9) == 1,
	   "free nop: retires beside the load and seven adds; the add after it waits a cycle");
	ok(after_load(&u, LOAD_ADDS_NOP, sizeof(LOAD_ADDS_NOP), 0, 8) == 1,
	   "nop in a slot: it waits a cycle after the load and seven adds");
	/* seven free nops leave the cycle's slots to the add after them */
	ok(after_load(&u, LOAD_NOPS_ADD, sizeof(LOAD_NOPS_ADD), 1, 8) == 0,
	   "free nops: the add after seven of them retires in the load's cycle");
	ok(after_load(&u, LOAD_NOPS_ADD, sizeof(LOAD_NOPS_ADD), 0, 8) == 1,
	   "nops in slots: the load and seven nops fill it, the add waits a cycle");
	return done_testing();
}
