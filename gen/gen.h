/*
 * gen.h - the code generator: a spec becomes readable NASM source for one block.
 *
 * Two shapes of block share one layout (a header of offsets, the code, then a page
 * of writable state, so code pages stay read+exec):
 *   T32_GEN_TIMED  t32_block(out, count, arena): count times barrier; rdtsc; keep;
 *                  barrier; body; barrier; rdtsc; out[i] = delta
 *   T32_GEN_LOOP   t32_loop(iterations, arena): the body (optionally between
 *                  barriers) in a counted loop, for interrupt sampling
 */
#ifndef T32_GEN_H
#define T32_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "t32/spec.h"

enum t32_gen_shape { T32_GEN_TIMED, T32_GEN_LOOP };

struct t32_gen_opts {
	enum t32_gen_shape shape;
	int dither;		/* random spin before each timed run: phase of the TSC step */
	int loop_barrier;	/* LOOP shape: keep the barriers around the body */
	uint64_t unroll;	/* LOOP shape: body copies per iteration (1 = as written) */
	uint64_t elf_iterations;	/* LOOP shape: > 0 makes a standalone ELF program (nasm -f
					 * elf64) whose _start runs the loop this many times */
	/*
	 * TIMED shape: when set, item i is a place of item_bytes[i] bytes (resb)
	 * rather than its text, to be filled with the item's machine code repeated
	 * (nasm's work then does not grow with the body).
	 */
	const uint64_t *item_bytes;
};

/*
 * The lines that pad a flat binary's code (int3) and its data (zeros) to whole
 * pages: nasm writes the padding a byte at a time, so a batch of blocks pads
 * with zeros at once (alignb) and fills the code's padding afterwards.
 */
#define T32_GEN_CODE_PAD "\talign 4096, db 0xcc\t; state lives on its own writable page\n"
#define T32_GEN_DATA_PAD "\talign 4096, db 0\n"
#define T32_GEN_FAST_PAD "\talignb 4096\n"

/* The line that places a flat binary (bin shapes): a batch of blocks puts a section there. */
#define T32_GEN_ORG_LINE "\torg 0\n"

/* The generated text and where each body item's lines are. */
struct t32_gen {
	char *text;		/* NUL-terminated NASM source */
	size_t len;
	size_t nitems;
	uint64_t insns;		/* instructions of the body, all copies (nasm's work) */
	unsigned *item_line;	/* first source line (1-based) of item i */
	unsigned *item_lines;	/* lines item i occupies */
};

/* Layout of the flat binary's header (all offsets from the start of the binary). */
/*
 * The LOOP shape's own instructions after the body, as a model decodes them: the
 * counter in memory (rip-relative, as `left` is) and the branch back.  Emitted
 * by the LOOP shape with its labels; here with stand-ins of the same shape.
 */
#define T32_GEN_LOOP_TAIL "dec qword [rel $ + 4096]; jnz $"
#define T32_GEN_LOOP_TAIL_INSNS 2

#define T32_BLOB_MAGIC "T32BLK\0\1"
struct t32_blob_header {
	char magic[8];
	uint64_t entry;		/* the function */
	uint64_t data;		/* first writable byte (page aligned) */
	uint64_t end;		/* size of the image */
	uint64_t body;		/* first byte of the body */
	uint64_t body_end;	/* first byte after the body (TIMED: after the last item) */
	uint64_t loop;		/* LOOP shape: loop overhead begins here (== body_end) */
	uint64_t loop_end;	/* LOOP shape: end of loop overhead */
	uint64_t nitems;
	/* followed by nitems + 1 qwords: start of item i in the body, then body_end */
};

int t32_generate(const struct t32_spec *spec, const struct t32_gen_opts *opts,
		 struct t32_gen *out);
void t32_gen_free(struct t32_gen *g);
/*
 * The lines the body holds for an item of text (stmts statements) repeated
 * reps times, as t32_generate writes them; *out malloc'd.  0, or -1.
 */
int t32_gen_item(const char *text, unsigned stmts, uint64_t reps, char **out);

#endif
