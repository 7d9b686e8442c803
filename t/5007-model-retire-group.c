/*
 * 5007-model-retire-group - instructions that retire in aligned groups
 * (retire_group): a group retires when all of it can, so the interrupt selects
 * its first instruction.  On a chain of two adds beside two free ones this moves
 * the predicted samples from the add after the chain to the chain's middle, as
 * measured on a Zen 5; a group of 1 is the model of the blog, unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "t/modelkit.h"
#include "t/tap.h"

static const unsigned char ADD_2_1_1[] = {	/* add rax, 1; add rax, 2; add rsi, 3; add rdi, 4 */
	0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x02, 0x48, 0x83, 0xc6, 0x03,
	0x48, 0x83, 0xc7, 0x04,
};
static const unsigned char SHIFTED[] = {	/* add rsi, 3; add rax, 1; add rax, 2; add rdi, 4 */
	0x48, 0x83, 0xc6, 0x03, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x02,
	0x48, 0x83, 0xc7, 0x04,
};
static const unsigned char ODD[] = {		/* add rax, 1; add rax, 2; add rsi, 3 */
	0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x02, 0x48, 0x83, 0xc6, 0x03,
};
static const unsigned char LOCKED[] = {		/* add rsi, 1; lock add [rbx], rax; add rdi, 1 */
	0x48, 0x83, 0xc6, 0x01, 0xf0, 0x48, 0x01, 0x03, 0x48, 0x83, 0xc7, 0x01,
};

/* An 8-wide machine like Zen 5; lock add 20 cycles. */
static void wide_uarch(struct t32_uarch *u)
{
	kit_uarch(u, "wide", 8, 448, 4);
	u->latency[T32_CLASS_ATRETIRE] = 20;
}

int main(void)
{
	struct t32_uarch u;
	struct t32_model_insn *b = NULL;
	struct t32_model_row rows[32 * 4];
	struct t32_model_result r;
	unsigned long v = 0;
	size_t n;
	int groups_ok = 1;

	plan(19);
	wide_uarch(&u);

	/* the key */
	ok(t32_uarch_get(&u, "retire_group", &v) == 0 && v == 0,
	   "retire_group is a key; absent (0) means 1");
	kit_key(&u, "retire_group", 2, 0);
	is_int(2, u.retire_group, "the key is the field retire_group");

	/* add-2-1-1: the chain through rax takes 2 cycles an iteration either way */
	n = kit_block(&u, ADD_2_1_1, sizeof(ADD_2_1_1), &b);
	if (n != 4)
		bail("cannot decode add-2-1-1");
	u.retire_group = 1;
	kit_steady(&u, b, n, &r);
	is_double(2.0, r.cycles_per_iter, 1e-9, "group 1: 2 cycles an iteration");
	ok(r.share[1] == 0.5 && r.share[2] == 0.5, "group 1: samples half on the chain's end, half after it");
	t32_model_result_free(&r);
	u.retire_group = 2;
	kit_steady(&u, b, n, &r);
	is_double(2.0, r.cycles_per_iter, 1e-9, "group 2: still 2 cycles an iteration");
	is_double(1.0, r.share[1], 1e-9, "group 2: every sample on the chain's second add");
	ok(r.weight[0] == 2 && r.weight[1] == 0 && r.weight[2] == 0 && r.weight[3] == 0,
	   "group 2: the pair's first add holds retirement both cycles");
	t32_model_result_free(&r);
	t32_model_trace(&u, b, n, 32, rows);
	for (size_t i = 0; i + 1 < 32 * n; i += 2)
		groups_ok &= rows[i].retire == rows[i + 1].retire &&
			rows[i].retire >= rows[i].complete && rows[i + 1].retire >= rows[i + 1].complete;
	ok(groups_ok, "trace: each pair retires in one cycle, neither before it completes");
	free(b);

	/* the same adds shifted by one: the pairs now split the chain */
	n = kit_block(&u, SHIFTED, sizeof(SHIFTED), &b);
	u.retire_group = 1;
	kit_steady(&u, b, n, &r);
	ok(r.share[2] == 0.5 && r.share[3] == 0.5, "shifted, group 1: samples on idx 2 and 3");
	t32_model_result_free(&r);
	u.retire_group = 2;
	kit_steady(&u, b, n, &r);
	ok(r.share[1] == 0.5 && r.share[3] == 0.5, "shifted, group 2: samples on idx 1 and 3");
	t32_model_result_free(&r);
	free(b);

	/* three instructions, pairs: the alignment alternates, two iterations repeat */
	n = kit_block(&u, ODD, sizeof(ODD), &b);
	kit_steady(&u, b, n, &r);
	is_int(2, r.period, "an odd block in pairs repeats every two iterations");
	is_double(2.0, r.cycles_per_iter, 1e-9, "and keeps its 2 cycles an iteration");
	is_double(0.5, r.share[1], 1e-9, "half the samples on the chain's second add");
	ok(r.share[0] > 0.2 && r.share[2] > 0.2, "a quarter each on the others (%.3f, %.3f)",
	   r.share[0], r.share[2]);
	t32_model_result_free(&r);
	free(b);

	/* an execute-at-retire instruction inside a group waits for the one before */
	n = kit_block(&u, LOCKED, sizeof(LOCKED), &b);
	u.retire_group = 2;
	t32_model_trace(&u, b, n, 4, rows);
	ok(rows[1].start >= rows[0].complete && rows[1].complete - rows[1].start >= 20,
	   "lock add starts after the add before it in its group, then takes 20 cycles");
	kit_steady(&u, b, n, &r);
	ok(r.cycles_per_iter >= 20, "and the block takes at least 20 cycles an iteration (%.2f)",
	   r.cycles_per_iter);
	t32_model_result_free(&r);
	free(b);
	return done_testing();
}
