/*
 * 2115-assemble-once: blocks assembled ahead are the blocks nasm makes of each
 * alone.  Many specs (one item or several, statements and %rep items, every
 * barrier and store, start registers, dithered or not) are prepared together
 * in two nasm runs, one for their item texts and one for the blocks with their
 * bodies' places, the items' code copied in; each kept image is then compared
 * byte for byte with nasm's own output for that block's whole text.  Code whose
 * bytes depend on where it lies is assembled whole; a form nasm refuses is
 * left out (and refused with its reason when assembled alone), and so is a
 * block with a label (two blocks of a batch could share it); a batch nasm
 * refuses names the block.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "t/tap.h"
#include "t32/core/blobcache.h"
#include "t32/core/run.h"
#include "t32/spec.h"
#include "t32/util.h"

/* A spec from BARRIER STORE and body words ("N" "TEXT" ...), with --init (may be NULL). */
static void make(struct t32_spec *s, const char *barrier, const char *store, const char *init,
		 int argc, char **argv)
{
	char err[256] = "";

	memset(s, 0, sizeof(*s));
	if (t32_spec_set_barrier(s, barrier, err, sizeof(err)) ||
	    t32_spec_set_store(s, store, err, sizeof(err)) ||
	    (init && t32_spec_parse_init(s, init, err, sizeof(err))) ||
	    t32_spec_parse_body(s, argc, argv, err, sizeof(err)))
		bail("cannot make a spec: %s", err);
}

/* nasm's image of s alone; 0, or -1 with the message in msg. */
static int alone(const struct t32_spec *s, int dither, struct t32_blob *b, char *msg, size_t len)
{
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .dither = dither, .unroll = 1 };
	struct t32_gen g;
	struct t32_fault f;
	int rc;

	if (t32_generate(s, &go, &g))
		bail("cannot generate");
	rc = t32_assemble(g.text, &g, b, &f);
	if (rc)
		t32_fault_describe(&f, s, msg, len);
	t32_gen_free(&g);
	return rc;
}

/* The kept blob of s; 0 or -1. */
static int kept_blob(const struct t32_spec *s, int dither, struct t32_blob *b)
{
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .dither = dither, .unroll = 1 };
	struct t32_gen g;
	int rc;

	if (t32_generate(s, &go, &g))
		bail("cannot generate");
	rc = t32_blobs_get(g.text, b);
	t32_gen_free(&g);
	return rc;
}

static int same(const struct t32_blob *a, const struct t32_blob *b)
{
	return a->size == b->size && memcmp(a->image, b->image, a->size) == 0 &&
	       a->hdr.nitems == b->hdr.nitems &&
	       memcmp(a->item_off, b->item_off, (a->hdr.nitems + 1) * sizeof(uint64_t)) == 0;
}

#define NSPECS 12

int main(void)
{
	static char *bodies[NSPECS][6] = {
		{ "1", "inc eax" },
		{ "100", "inc eax" },
		{ "3", "inc eax", "1000", "imul rax, rax" },
		{ "7", "add eax, 1; imul ebx, ebx" },
		{ "50", "mov rax, [rax]" },
		{ "20", "vaddps ymm0, ymm1, ymm2" },
		{ "9", "lock xadd [rsi], eax" },
		{ "64", "db 0x90" },
		{ "5", "nop", "3", "xor ecx, ecx; dec ecx" },
		{ "33", "movq mm1, mm2" },
		{ "12", "pause" },
		{ "2", "divpd xmm0, xmm1" },
	};
	static const int nwords[NSPECS] = { 2, 2, 4, 2, 2, 2, 2, 2, 4, 2, 2, 2 };
	static const char *heads[NSPECS][3] = {
		{ "l", "m", NULL }, { "l", "m", NULL }, { "mx", "r", NULL }, { "n", "x", NULL },
		{ "l", "m", "rbx=5" }, { "m", "m", "ymm1=1.5f" }, { "l", "r", NULL },
		{ "lm", "m", NULL }, { "l", "m", "rcx=0x10" }, { "l", "m", NULL },
		{ "x", "m", NULL }, { "l", "m", "xmm0=1.5d,xmm1=1d" },
	};
	struct t32_spec specs[NSPECS], moved, refused, labelled[2];
	const struct t32_spec *list[NSPECS + 4];
	struct t32_blobs_stats st;
	struct t32_blob a, b;
	unsigned long runs;
	char msg[1024];
	int all_same = 1;
	char *moved_body[] = { "4", "call 0x1000" };
	char *refused_body[] = { "10", "mov eax, rbx" };
	char *label_body[] = { "1", "here: nop", "10", "inc eax" };
	char *label_body2[] = { "1", "here: nop", "20", "inc eax" };

	plan(14);
	if (system("command -v nasm >/dev/null 2>&1") != 0)
		skip_all("no nasm");
	for (int i = 0; i < NSPECS; i++) {
		make(&specs[i], heads[i][0], heads[i][1], heads[i][2], nwords[i], bodies[i]);
		list[i] = &specs[i];
	}

	/* 1-3: twelve blocks in two nasm runs, every one kept and its items' code copied in */
	runs = t32_nasm_runs();
	is_int(NSPECS, (long long)t32_blobs_prepare(list, NSPECS, 1), "all %d blocks kept", NSPECS);
	is_int(2, (long long)(t32_nasm_runs() - runs), "in two nasm runs: the items, the blocks");
	t32_blobs_stats(&st);
	is_int(NSPECS, (long long)st.spliced, "each with its items' code copied into its places");

	/* 4: each is the image nasm makes of its whole text alone */
	for (int i = 0; i < NSPECS; i++) {
		if (kept_blob(&specs[i], 1, &a) || alone(&specs[i], 1, &b, msg, sizeof(msg))) {
			all_same = 0;
			diag("block %d: not kept, or nasm refused it alone", i);
			continue;
		}
		if (!same(&a, &b)) {
			all_same = 0;
			diag("block %d differs from nasm's own image (%zu and %zu bytes)", i,
			     a.size, b.size);
		}
		t32_blob_free(&a);
		t32_blob_free(&b);
	}
	ok(all_same, "every kept image is nasm's own for the whole text, byte for byte");

	/* 5: prepared again: nothing to do, no nasm */
	runs = t32_nasm_runs();
	t32_blobs_prepare(list, NSPECS, 1);
	is_int(0, (long long)(t32_nasm_runs() - runs), "blocks kept already cost no nasm run");

	/* 6-7: undithered, another text: kept apart, and the same as alone */
	t32_blobs_prepare(list, 3, 0);
	ok(kept_blob(&specs[2], 0, &a) == 0 && alone(&specs[2], 0, &b, msg, sizeof(msg)) == 0 &&
	   same(&a, &b), "an undithered block is kept under its own text, nasm's image");
	t32_blob_free(&a);
	t32_blob_free(&b);
	ok(kept_blob(&specs[1], 1, &a) == 0 && kept_blob(&specs[1], 0, &b) == 0 &&
	   !same(&a, &b), "dithered and undithered images differ");
	t32_blob_free(&a);
	t32_blob_free(&b);

	/* 8: code whose bytes depend on where it lies is assembled whole, and right */
	make(&moved, "l", "m", NULL, 2, moved_body);
	list[0] = &moved;
	t32_blobs_stats(&st);
	runs = st.spliced;
	t32_blobs_prepare(list, 1, 1);
	t32_blobs_stats(&st);
	ok(st.spliced == runs && kept_blob(&moved, 1, &a) == 0 &&
	   alone(&moved, 1, &b, msg, sizeof(msg)) == 0 && same(&a, &b),
	   "code relative to where it lies is not copied: assembled whole, nasm's image");
	t32_blob_free(&a);
	t32_blob_free(&b);

	/* 9-10: a form nasm refuses is left out, the others kept; alone it says why */
	make(&refused, "l", "m", NULL, 2, refused_body);
	list[0] = &refused;
	list[1] = &specs[0];
	t32_blobs_clear();
	is_int(1, (long long)t32_blobs_prepare(list, 2, 1), "the block nasm refuses is left out");
	ok(alone(&refused, 1, &b, msg, sizeof(msg)) == -1 && strstr(msg, "cannot assemble") &&
	   strstr(msg, "mov eax, rbx"), "alone, it is refused with its reason: %s", msg);

	/* 11-12: a label (which two blocks of a batch could share): left out, fine alone */
	make(&labelled[0], "l", "m", NULL, 4, label_body);
	make(&labelled[1], "l", "m", NULL, 4, label_body2);
	list[0] = &labelled[0];
	list[1] = &labelled[1];
	list[2] = &specs[1];
	t32_blobs_clear();
	is_int(1, (long long)t32_blobs_prepare(list, 3, 1), "blocks with a label are left out");
	ok(kept_blob(&labelled[0], 1, &a) == -1 &&
	   alone(&labelled[0], 1, &b, msg, sizeof(msg)) == 0, "and assembled alone when asked for");
	t32_blob_free(&b);

	/* 13-14: a batch nasm refuses names the block and its item */
	{
		struct t32_gen g[3];
		const struct t32_gen *gp[3] = { &g[0], &g[1], &g[2] };
		const char *srcs[3];
		struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .dither = 1, .unroll = 1 };
		struct t32_blob out[3];
		struct t32_fault f;
		size_t bad = 99;
		const struct t32_spec *three[3] = { &specs[0], &refused, &specs[2] };
		int rc;

		for (int i = 0; i < 3; i++) {
			if (t32_generate(three[i], &go, &g[i]))
				bail("cannot generate");
			srcs[i] = g[i].text;
		}
		rc = t32_assemble_batch(srcs, gp, 3, out, &f, &bad);
		ok(rc == -1 && bad == 1 && f.kind == T32_FAIL_ASSEMBLE && f.item == 0,
		   "a batch nasm refuses names its block (%zu) and item (%ld)", bad, f.item);
		srcs[1] = g[2].text;
		gp[1] = &g[2];
		rc = t32_assemble_batch(srcs, gp, 2, out, &f, &bad);
		ok(rc == 0 && alone(&specs[2], 1, &b, msg, sizeof(msg)) == 0 && same(&out[1], &b),
		   "without it, the batch is assembled: the second block nasm's own image");
		if (rc == 0) {
			t32_blob_free(&out[0]);
			t32_blob_free(&out[1]);
		}
		t32_blob_free(&b);
		for (int i = 0; i < 3; i++)
			t32_gen_free(&g[i]);
	}

	for (int i = 0; i < NSPECS; i++)
		t32_spec_free(&specs[i]);
	t32_spec_free(&moved);
	t32_spec_free(&refused);
	t32_spec_free(&labelled[0]);
	t32_spec_free(&labelled[1]);
	t32_blobs_clear();
	return done_testing();
}
