/*
 * 5013-model-kinds - instructions the retirement model treats apart: an lfence
 * waits for every earlier instruction to complete and holds every later one
 * until it has; a serialising instruction (cpuid) executes at retirement and
 * nothing allocates until it has retired; a zero idiom takes no unit; a load
 * with a scaled index takes its own latency; and a class's retire delay holds
 * its instructions past their completion.
 */
#include <stdlib.h>

#include "analysis/model.h"
#include "t/modelkit.h"
#include "t/tap.h"

static const unsigned char LOAD[] = {		/* mov rax, [rbx] */
	0x48, 0x8b, 0x03,
};
static const unsigned char LOAD_FENCE[] = {	/* mov rax, [rbx]; lfence */
	0x48, 0x8b, 0x03, 0x0f, 0xae, 0xe8,
};
static const unsigned char FENCE_LOAD_ADD[] = {	/* lfence; mov rax, [rbx]; add rcx, rax */
	0x0f, 0xae, 0xe8, 0x48, 0x8b, 0x03, 0x48, 0x01, 0xc1,
};
static const unsigned char ADDS_CPUID[] = {	/* add rcx, 1; add rdx, 1; cpuid */
	0x48, 0x83, 0xc1, 0x01, 0x48, 0x83, 0xc2, 0x01, 0x0f, 0xa2,
};
static const unsigned char CHASE_INDEX1[] = {	/* mov rax, [rax + rcx] */
	0x48, 0x8b, 0x04, 0x08,
};
static const unsigned char CHASE_INDEX2[] = {	/* mov rax, [rax + rcx*2] */
	0x48, 0x8b, 0x04, 0x48,
};
static const unsigned char ZEROS[] = {		/* 4 x xor eax, eax */
	0x31, 0xc0, 0x31, 0xc0, 0x31, 0xc0, 0x31, 0xc0,
};

/* Steady-state cycles per iteration of code, or -1 when it cannot be modelled. */
static double cpi(const struct t32_uarch *u, const unsigned char *code, size_t len, size_t want)
{
	struct t32_model_insn *b = NULL;
	struct t32_model_result r;
	size_t n = kit_block(u, code, len, &b);
	double c = -1;

	if (n == want && t32_model_steady(u, b, n, 1, &r) == 0) {
		c = r.cycles_per_iter;
		t32_model_result_free(&r);
	}
	free(b);
	return c;
}

int main(void)
{
	struct t32_uarch u;
	struct t32_model_insn *b = NULL;
	struct t32_model_row rows[3 * 4];
	size_t n;
	int held = 1;

	plan(11);
	/* 4 wide, loads of 5 cycles, every other class 1 cycle, unlimited units */
	kit_uarch(&u, "kinds", 4, 224, 5);
	is_double(0.25, cpi(&u, LOAD, sizeof(LOAD), 1), 1e-9,
		  "independent loads overlap: allocation bound");
	is_double(6.0, cpi(&u, LOAD_FENCE, sizeof(LOAD_FENCE), 2), 1e-9,
		  "a load then an lfence: the fence waits for the load, the next load for the fence");
	/* the add completes a cycle after the load: the next fence waits for it too */
	is_double(7.0, cpi(&u, FENCE_LOAD_ADD, sizeof(FENCE_LOAD_ADD), 3), 1e-9,
		  "lfence; load; add: the fence waits for the add, the last to complete");

	/* cpuid: executes once the adds before it retire, and holds the next adds back */
	n = kit_block(&u, ADDS_CPUID, sizeof(ADDS_CPUID), &b);
	if (n != 3 || t32_model_trace(&u, b, n, 4, rows))
		bail("cannot model add; add; cpuid");
	for (size_t i = 2; i + 1 < 3 * 4; i += 3)
		held &= rows[i].start >= rows[i - 1].retire && rows[i + 1].alloc > rows[i].retire;
	ok(held, "cpuid starts when the adds before it have retired; the next add allocates after "
	   "cpuid retires (add at %ld, cpuid retires at %ld)", rows[3].alloc, rows[2].retire);
	is_double(3.0, cpi(&u, ADDS_CPUID, sizeof(ADDS_CPUID), 3), 1e-9,
		  "add; add; cpuid: allocate, complete, retire, then cpuid: 3 cycles an iteration");
	free(b);

	/* zero idioms: renamed, no unit; with them off, one ALU does them one a cycle */
	kit_uarch(&u, "kinds", 4, 224, 5);
	u.ports[T32_CLASS_ALU] = 1;
	is_double(1.0, cpi(&u, ZEROS, sizeof(ZEROS), 4), 1e-9,
		  "four xor eax, eax on one ALU: renamed, allocation bound");
	u.zero_idioms = 0;
	is_double(4.0, cpi(&u, ZEROS, sizeof(ZEROS), 4), 1e-9,
		  "not recognised: each takes the ALU and waits for the one before");

	/* a chain of loads through an index: scaled by 2, load_latency_scaled */
	kit_uarch(&u, "kinds", 4, 224, 5);
	u.load_latency_scaled = 7;
	is_double(5.0, cpi(&u, CHASE_INDEX1, sizeof(CHASE_INDEX1), 1), 1e-9,
		  "mov rax, [rax + rcx]: the load latency, 5 cycles");
	is_double(7.0, cpi(&u, CHASE_INDEX2, sizeof(CHASE_INDEX2), 1), 1e-9,
		  "mov rax, [rax + rcx*2]: the scaled-index latency, 7 cycles");

	/* a load's retire delay: it retires that long after its value is there */
	kit_uarch(&u, "kinds", 4, 224, 5);
	u.retire_delay[T32_CLASS_LOAD] = 3;
	n = kit_block(&u, LOAD, sizeof(LOAD), &b);
	if (n != 1 || t32_model_trace(&u, b, n, 4, rows))
		bail("cannot model a load");
	is_int(3, rows[0].retire - rows[0].complete, "retire_delay.load = 3: retired 3 cycles after "
	       "completing");
	u.retire_delay[T32_CLASS_LOAD] = 0;
	t32_model_trace(&u, b, n, 4, rows);
	is_int(0, rows[0].retire - rows[0].complete, "without it, retired as it completes");
	free(b);
	return done_testing();
}
