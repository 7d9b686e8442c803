/*
 * 5017-model-frontend - a loop longer than the op cache holds (opcache_ops) is
 * decoded each time round, at most decode_width instructions a cycle: a run of
 * zero idioms (no execution unit, no input) then goes at the decoders' rate, not
 * the allocation width, as a Zen 4 runs 7000 or more `xor eax, eax` at 4 a cycle
 * and 6000 at 6.  A step curve's copies switch to the decoders where their run
 * outgrows the op cache.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "t/modelkit.h"
#include "t/tap.h"

#define XORS 30
/* times 30 xor eax, eax */
static unsigned char XOR_RUN[2 * XORS];

/* The cycles an iteration of the run of XORS repeated `copies` times as one loop. */
static double loop_cycles(const struct t32_uarch *u, size_t copies)
{
	unsigned char *code = malloc(sizeof(XOR_RUN) * copies);
	struct t32_model_insn *b = NULL;
	struct t32_model_result r;
	size_t n;
	double c;

	if (!code)
		bail("out of memory");
	for (size_t k = 0; k < copies; k++)
		memcpy(code + k * sizeof(XOR_RUN), XOR_RUN, sizeof(XOR_RUN));
	n = kit_block(u, code, sizeof(XOR_RUN) * copies, &b);
	if (n != XORS * copies)
		bail("cannot decode the run");
	kit_steady(u, b, n, &r);
	c = r.cycles_per_iter;
	t32_model_result_free(&r);
	free(b);
	free(code);
	return c;
}

int main(void)
{
	struct t32_uarch u;
	struct t32_model_insn *b = NULL;
	double curve[9];
	size_t n;

	plan(14);
	for (size_t k = 0; k < XORS; k++) {
		XOR_RUN[2 * k] = 0x31;
		XOR_RUN[2 * k + 1] = 0xc0;
	}
	kit_uarch(&u, "front", 6, 512, 4);
	u.retire_width = 8;
	u.opcache_ops = 100;
	u.decode_width = 4;

	ok(!t32_model_decoded(&u, 100) && t32_model_decoded(&u, 101),
	   "a loop of 100 runs from an op cache of 100, one of 101 is decoded");
	is_double(5.0, loop_cycles(&u, 1), 1e-9, "30 zero idioms in the op cache: 6 a cycle, 5 cycles");
	is_double(15.0, loop_cycles(&u, 3), 1e-9, "90 of them: still 6 a cycle");
	is_double(30.0, loop_cycles(&u, 4), 1e-9, "120, more than it holds: 4 a cycle, 30 cycles");
	u.decode_width = 0;
	is_double(20.0, loop_cycles(&u, 4), 1e-9, "decode_width 0: the allocation width limits alone");
	u.decode_width = 8;
	is_double(20.0, loop_cycles(&u, 4), 1e-9, "decoders wider than allocation: no change");
	u.decode_width = 4;
	u.opcache_ops = 0;
	ok(!t32_model_decoded(&u, 100000) && fabs(loop_cycles(&u, 4) - 20.0) < 1e-9,
	   "opcache_ops 0: every loop from the op cache");
	u.opcache_ops = 100;

	/* the step curve: 3 copies (90) fit, the 4th and on are decoded */
	n = kit_block(&u, XOR_RUN, sizeof(XOR_RUN), &b);
	if (n != XORS || t32_model_curve(&u, b, n, 8, curve))
		bail("the curve fails");
	ok(fabs(curve[3] - curve[2] - 5) < 1.01 && fabs(curve[2] - curve[1] - 5) < 1.01,
	   "curve: copies 1..3 at 5 cycles a copy (%g, %g, %g)", curve[1], curve[2], curve[3]);
	ok(fabs(curve[8] - curve[7] - 7.5) < 1.01 && fabs(curve[5] - curve[4] - 7.5) < 1.01,
	   "curve: from 4 copies on, 7.5 cycles a copy (%g, %g, %g, %g)", curve[4], curve[5],
	   curve[7], curve[8]);
	ok(curve[4] > 4 * 7.5 - 1 && curve[4] < 4 * 7.5 + 2,
	   "4 copies decoded as a whole: %g cycles, not 3 x 5 + 7.5", curve[4]);
	free(b);

	kit_key(&u, "opcache_ops", 6912, 1000001);
	{
		char err[256];

		ok(t32_uarch_set(&u, "decode_width=65", err, sizeof(err)) == -1 &&
		   strstr(err, "decode_width"), "decode_width above 64 is refused (%s)", err);
	}
	return done_testing();
}
