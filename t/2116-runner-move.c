/*
 * 2116-runner-move: a new placement of the blocks a measuring process holds is
 * a copy inside it (t32_runner_move_later), not another trip through its pipe,
 * made by the next run in one round trip with it: the code lands at a new
 * address, in the other half of the code window each time, not before that run,
 * runs as before, and counts as a placement; a process with nothing loaded has
 * nothing to move.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "t/tap.h"
#include "t32/core/run.h"
#include "t32/spec.h"

/* A timed block of body, assembled into b. */
static void blob_of(const char *body, struct t32_blob *b)
{
	struct t32_spec s = { 0 };
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .unroll = 1 };
	struct t32_gen g;
	struct t32_fault f;
	char *argv[] = { (char *)body, NULL };
	char err[256];

	if (t32_spec_set_barrier(&s, "l", err, sizeof(err)) ||
	    t32_spec_set_store(&s, "m", err, sizeof(err)) ||
	    t32_spec_parse_body(&s, 1, argv, err, sizeof(err)) || t32_generate(&s, &go, &g))
		bail("cannot set up '%s': %s", body, err);
	if (t32_assemble(g.text, &g, b, &f))
		bail("cannot assemble '%s': %s", body, f.msg);
	t32_gen_free(&g);
	t32_spec_free(&s);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median delta of 64 runs of block 0 (the 200 adds) beside block 1 (empty). */
static uint64_t median_adds(struct t32_runner *r)
{
	uint64_t out[128], adds[64];
	struct t32_fault f;

	if (t32_runner_interleaved(r, 2, 16, 1, 4, out, &f))
		bail("cannot run the blocks: %s", f.msg);
	for (int j = 0; j < 4; j++)
		memcpy(adds + 16 * j, out + 32 * j, 16 * sizeof(uint64_t));
	qsort(adds, 64, sizeof(uint64_t), cmp_u64);
	return adds[32];
}

int main(void)
{
	struct t32_blob adds, empty;
	const struct t32_blob *blobs[2] = { &adds, &empty };
	struct t32_run_opts o = { .cpu = -1, .timeout = 10 };
	struct t32_runner *r;
	struct t32_fault f;
	uint64_t base[4], before, after[3];
	int moved = 0;

	plan(13);
	blob_of("times 200 add rax, 1", &adds);
	blob_of("nop", &empty);
	if (!(r = t32_runner_start(blobs, 2, &o, &f)))
		bail("cannot start a measuring process: %s", f.msg);
	base[0] = t32_runner_base(r, 0);
	before = median_adds(r);
	for (int i = 1; i < 4; i++) {
		unsigned piped = t32_runner_piped(r);
		int asked = t32_runner_move_later(r, 16, 1u << 15) == 0;

		after[i - 1] = median_adds(r);
		moved += asked && t32_runner_piped(r) == piped;
		base[i] = t32_runner_base(r, 0);
	}
	is_int(3, moved, "three moves, each done in the process");
	ok(base[0] && base[1] != base[0] && base[2] != base[1] && base[3] != base[2],
	   "the code lands somewhere new each time (%#llx, %#llx, %#llx, %#llx)",
	   (unsigned long long)base[0], (unsigned long long)base[1],
	   (unsigned long long)base[2], (unsigned long long)base[3]);
	/* the window is 64 MiB at least: its halves lie 32 MiB apart, a shift 64 pages at most */
	ok(llabs((long long)(base[1] - base[0])) >= (16ll << 20) &&
	   llabs((long long)(base[2] - base[1])) >= (16ll << 20),
	   "in the other half of the window each time");
	ok(before > 0 && after[0] > 0 && after[2] > 0 && after[0] < 4 * before && before < 4 * after[0],
	   "the moved code runs as before (median %llu ticks, then %llu, %llu, %llu)",
	   (unsigned long long)before, (unsigned long long)after[0], (unsigned long long)after[1],
	   (unsigned long long)after[2]);
	is_int(4, (long long)t32_runner_loads(r), "each move counts as a placement");
	{
		uint64_t at = t32_runner_base(r, 0), still, later, med;

		is_int(0, t32_runner_move_later(r, 16, 1u << 15), "a move for later: asked");
		still = t32_runner_base(r, 0);
		med = median_adds(r);
		later = t32_runner_base(r, 0);
		ok(still == at && later != at && llabs((long long)(later - at)) >= (16ll << 20) &&
		   t32_runner_loads(r) == 5,
		   "made by the next run, not before (%#llx, still %#llx, then %#llx; %u placements)",
		   (unsigned long long)at, (unsigned long long)still, (unsigned long long)later,
		   t32_runner_loads(r));
		ok(med > 0 && med < 4 * before && before < 4 * med,
		   "that run runs the moved code as before (median %llu ticks)",
		   (unsigned long long)med);
		median_adds(r);
		is_int(5, (long long)t32_runner_loads(r), "the run after it moves nothing");
		is_int(1, (long long)t32_runner_piped(r), "only the first load came through the pipe");
	}
	{
		/*
		 * A block the window's other half cannot hold (35 MB, loaded into a
		 * process whose 64 MiB window was sized for small ones): the move sent with a run is
		 * refused, so they are loaded again and the run is asked again.
		 */
		struct t32_blob big;
		const struct t32_blob *bigs[1] = { &big };
		uint64_t out[4];

		/* eleven and a half million nops of three bytes */
		blob_of("times 11500000 nop dword [rax]", &big);
		if (t32_runner_load(r, bigs, 1, &f))
			bail("cannot load a block of 35 MB: %s", f.msg);
		unsigned loads = t32_runner_loads(r), piped = t32_runner_piped(r);
		int rc;
		is_int(0, t32_runner_move_later(r, 2, 1u << 15), "a move of 35 MB for later: asked");
		rc = t32_runner_timed(r, 0, 4, out, &f);
		/* it ran the nops: at 16 a cycle on a core 5 times the TSC, still 140,000 ticks */
		ok(rc == 0 && out[0] > 100000 && t32_runner_loads(r) == loads + 1 &&
		   t32_runner_piped(r) == piped + 1,
		   "the half too small: loaded again through the pipe, and the run runs (%llu "
		   "ticks; %u placements, %u through the pipe)", (unsigned long long)out[0],
		   t32_runner_loads(r), t32_runner_piped(r));
		t32_blob_free(&big);
	}
	t32_runner_stop(r);
	{
		struct t32_runner *none = t32_runner_start(blobs, 0, &o, &f);

		if (!none)
			bail("cannot start an empty measuring process: %s", f.msg);
		is_int(1, t32_runner_move_later(none, 16, 1u << 15), "nothing loaded: nothing to move");
		t32_runner_stop(none);
	}
	t32_blob_free(&adds);
	t32_blob_free(&empty);
	return done_testing();
}
