/*
 * 4003-attrib: attribution of samples to a known block - three copies of the
 * study's load-nop10 unit (mov rax, [rax] then ten nops) followed by a loop
 * counter and branch, laid out as the generator lays out a LOOP block.  Checks the
 * disassembly, IPs mapped to instructions, overhead / image / outside counted
 * apart, the repeated unit found, and folding.  Then block files: a file's
 * lines into a spec, errors with their line, names found in a data directory, and
 * the study's blocks in data/blocks all readable ($T32_SRC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t/tap.h"
#include "t32/sample/attrib.h"

#define BODY 64		/* image offset of the body */
#define UNIT 13		/* bytes of one unit: 3 + 10 */

static unsigned char image[4096];

/* Lay out header fields, body, loop overhead (dec rcx; jnz body) and ret. */
static void build(struct t32_blob *b, uint64_t *items, int copies)
{
	static const unsigned char unit[UNIT] = { 0x48, 0x8b, 0x00, 0x90, 0x90, 0x90, 0x90,
						  0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	size_t p = BODY;

	memset(image, 0xcc, sizeof(image));
	for (int c = 0; c < copies; c++, p += UNIT)
		memcpy(image + p, unit, UNIT);
	memset(b, 0, sizeof(*b));
	b->hdr.body = BODY;
	b->hdr.body_end = p;
	image[p++] = 0x48, image[p++] = 0xff, image[p++] = 0xc9;	/* dec rcx */
	image[p] = 0x75, image[p + 1] = (unsigned char)(BODY - (p + 2)), p += 2;	/* jnz */
	image[p] = 0xc3;	/* ret */
	b->image = image;
	b->size = sizeof(image);
	b->hdr.loop = BODY;
	b->hdr.loop_end = p;
	b->hdr.data = sizeof(image);
	b->hdr.end = sizeof(image);
	b->hdr.nitems = 1;
	items[0] = BODY;
	items[1] = b->hdr.body_end;
	b->item_off = items;
}

/* Write text to a fresh temporary .blk file; its path in path. */
static void temp_block(const char *text, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/t32-4003-XXXXXX.blk");
	fd = mkstemps(path, 4);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		bail("cannot write a temporary block file");
	close(fd);
}

/* Block files: parsing, errors, finding, and the study's blocks. */
static void block_files(void)
{
	static const char *const study[] = { "indep-mov", "indep-add", "add-2-1-1", "load-nop10",
					     "load-add2", "load-add3", "vpmulld2-lock",
					     "vpmulld4-lock", "branches" };
	const char *src = getenv("T32_SRC");
	struct t32_blockfile bf;
	struct t32_spec s;
	char path[64], err[512], found[4096];

	temp_block("# a test block\n# source: none\n\ninit rdx=0, rsi=8\nbarrier l\nunroll 3\n"
		   "10 mov rax, [rax]; times 10 nop\n  add rbx, 1  \n", path, sizeof(path));
	memset(&s, 0, sizeof(s));
	is_int(0, t32_blockfile_load(path, &s, &bf, err, sizeof(err)), "block file loads");
	is_int(2, (long long)s.nitems, "two body items");
	ok(s.nitems == 2 && s.items[0].reps == 10 &&
	   !strcmp(s.items[0].text, "mov rax, [rax]; times 10 nop"), "the first: 10 copies");
	ok(s.nitems == 2 && s.items[1].reps == 1 && !strcmp(s.items[1].text, "add rbx, 1"),
	   "the second: once, blanks trimmed");
	is_int(2, (long long)s.ninit, "two start values");
	ok(bf.has_barrier && !strcmp(s.barrier, "l"), "the barrier line");
	is_int(3, (long long)bf.unroll, "the unroll line");
	t32_spec_free(&s);
	unlink(path);

	temp_block("# bad\n1 nop\nunroll many\n", path, sizeof(path));
	memset(&s, 0, sizeof(s));
	is_int(-1, t32_blockfile_load(path, &s, &bf, err, sizeof(err)), "a bad line fails");
	ok(strstr(err, ":3: bad unroll 'many'") != NULL, "with its line number: %s", err);
	t32_spec_free(&s);
	unlink(path);
	memset(&s, 0, sizeof(s));
	is_int(-1, t32_blockfile_load("/nonexistent/x.blk", &s, &bf, err, sizeof(err)),
	       "a missing file fails");
	ok(bf.unreadable, "as unreadable");

	ok(t32_blockfile_find("some/where.blk", "/nonexistent", found, sizeof(found)) &&
	   !strcmp(found, "some/where.blk"), "FILE.blk is a block file");
	ok(!t32_blockfile_find("nop", "/nonexistent", found, sizeof(found)),
	   "an instruction is not a block");
	ok(!t32_blockfile_find("mov rax, [rax]", "/nonexistent", found, sizeof(found)),
	   "an instruction with operands is not a block");

	if (!src) {
		skip("T32_SRC not set: the study's blocks are not checked");
		return;
	}
	{
		char dir[4096];
		int good = 0;

		snprintf(dir, sizeof(dir), "%s/data", src);
		for (size_t i = 0; i < sizeof(study) / sizeof(study[0]); i++) {
			memset(&s, 0, sizeof(s));
			if (t32_blockfile_find(study[i], dir, found, sizeof(found)) &&
			    !t32_blockfile_load(found, &s, &bf, err, sizeof(err)) && s.nitems)
				good++;
			else
				diag("%s: %s", study[i], err);
			t32_spec_free(&s);
		}
		is_int(9, good, "the study's nine blocks are found by name and load");
	}
}

/* n samples at image offset off, loaded at base. */
static void add_at(struct t32_attrib *a, uint64_t base, int64_t off, int n)
{
	struct t32_sample s = { .ip = base + (uint64_t)off };

	for (int i = 0; i < n; i++)
		t32_attrib_add(a, base, &s, 1);
}

int main(void)
{
	const uint64_t base = 0x7f1234560000ull;
	struct t32_blob b;
	struct t32_attrib a, f;
	uint64_t items[2];
	char err[128];

	plan(27 + 15);

	build(&b, items, 3);
	if (!ok(!t32_attrib_init(&a, &b, err, sizeof(err)), "three units disassemble"))
		bail("%s", err);
	is_int(33, (long long)a.ninsn, "33 instructions");
	is_string("mov rax, qword ptr [rax]", a.insn[0].text, "the load");
	is_string("nop", a.insn[1].text, "a nop");
	is_int(BODY + UNIT, (long long)a.insn[11].off, "second copy's load offset");
	is_int(0, a.insn[32].item, "instructions carry their item");
	is_int(11, (long long)t32_attrib_unit(&a), "the repeated unit is 11 instructions");
	is_int(-1, t32_attrib_find(&a, BODY - 1), "before the body: no instruction");
	is_int(0, t32_attrib_find(&a, BODY + 2), "inside the load: the load");

	add_at(&a, base, BODY + 3, 5);			/* first nop after the load, copy 1 */
	add_at(&a, base, BODY + UNIT + 3, 3);		/* same, copy 2 */
	add_at(&a, base, BODY + 2 * UNIT + 7, 2);	/* fifth nop, copy 3 */
	add_at(&a, base, BODY + 1, 1);			/* inside the load: not a boundary */
	add_at(&a, base, (int64_t)b.hdr.body_end, 4);	/* dec rcx: loop overhead */
	add_at(&a, base, (int64_t)b.hdr.loop_end, 1);	/* ret: elsewhere in the image */
	add_at(&a, base, -16, 1);			/* below the image */
	add_at(&a, base, 8192, 1);			/* above the image */
	is_int(18, (long long)a.total, "all samples counted");
	is_int(11, (long long)a.body, "11 in the body");
	is_int(4, (long long)a.overhead, "4 in the loop overhead");
	is_int(1, (long long)a.image, "1 elsewhere in the image");
	is_int(2, (long long)a.outside, "2 outside the image");
	is_int(1, (long long)a.inexact, "1 not on an instruction boundary");
	is_int(5, (long long)a.insn[1].samples, "copy 1 nop 1");
	is_int(3, (long long)a.insn[12].samples, "copy 2 nop 1");
	is_int(2, (long long)a.insn[27].samples, "copy 3 nop 5");

	if (!ok(!t32_attrib_fold(&a, 11, &f), "fold by the unit"))
		bail("fold failed");
	is_int(11, (long long)f.ninsn, "folded to 11 positions");
	is_int(3, (long long)f.copies, "three copies summed");
	is_int(8, (long long)f.insn[1].samples, "nop 1 over the copies");
	is_int(2, (long long)f.insn[5].samples, "nop 5 over the copies");
	is_int(BODY, (long long)f.insn[0].off, "folded offsets are the first copy's");
	t32_attrib_free(&f);
	is_int(-1, t32_attrib_fold(&a, 7, &f), "7 does not divide 33: no fold");
	t32_attrib_free(&a);

	/* A single unit does not repeat: its unit is the whole body. */
	build(&b, items, 1);
	t32_attrib_init(&a, &b, err, sizeof(err));
	is_int(11, (long long)t32_attrib_unit(&a), "one copy: the whole body");
	t32_attrib_free(&a);

	/* Two copies whose second starts with another instruction (nop dword [rax]): no repeat. */
	build(&b, items, 2);
	memcpy(image + BODY + UNIT, "\x0f\x1f\x00", 3);
	ok(!t32_attrib_init(&a, &b, err, sizeof(err)) && t32_attrib_unit(&a) == 22,
	   "copies that differ in one instruction: the unit is the whole body (%zu)",
	   t32_attrib_unit(&a));
	t32_attrib_free(&a);

	block_files();
	return done_testing();
}
