/*
 * gen.c - spec to NASM.  The text is meant to be read (`t32 gen` prints it), so
 * every family of instructions is a macro named after its letter, and the body is
 * the user's own lines inside %rep blocks.
 */
#include "gen/gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * Where register k points: the middle of the arena, a page and a cache line apart
 * per register, so independent [reg] accesses do not all fall in one cache set.
 */
#define ARENA_MID (1u << 19)
#define ARENA_STEP (4096u + 64u)
#define T32_ARENA_QWORDS ((1u << 20) / 8)	/* T32_ARENA_SIZE of run.h, in qwords */

struct emitter {
	FILE *f;
	unsigned line;		/* lines written so far */
};

/* Write formatted text and count the lines it ends. */
__attribute__((format(printf, 2, 3)))
static void emit(struct emitter *e, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		char *big = malloc((size_t)n + 1);

		if (!big)
			return;
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		fputs(big, e->f);
		for (char *p = big; *p; p++)
			e->line += *p == '\n';
		free(big);
		return;
	}
	fputs(buf, e->f);
	for (char *p = buf; *p; p++)
		e->line += *p == '\n';
}

static int barrier_has(const struct t32_spec *s, char letter)
{
	return strchr(s->barrier, letter) != NULL;
}

/* The macro library: one macro per barrier letter and per store kind. */
static void emit_macros(struct emitter *e, const struct t32_spec *s)
{
	emit(e, "; one macro per barrier letter\n");
	for (const struct t32_barrier_kind *b = t32_barriers; b->letter; b++) {
		emit(e, "%%macro %s 0\t\t; %s\n", b->macro, b->summary);
		if (*b->insn)
			emit(e, "\t%s\n", b->insn);
		emit(e, "%%endmacro\n");
	}
	emit(e, "\n; the spec's barrier: '%s', run in order\n%%macro BARRIER 0\n", s->barrier);
	for (const char *p = s->barrier; *p; p++)
		for (const struct t32_barrier_kind *b = t32_barriers; b->letter; b++)
			if (b->letter == *p)
				emit(e, "\t%s\n", b->macro);
	emit(e, "%%endmacro\n\n");

	emit(e, "; one pair of macros per store kind: KEEP the first reading, DELTA into rax\n");
	emit(e, "%%macro KEEP_M 0\t\t; memory\n\tmov [rel t0], eax\n\tmov [rel t0 + 4], edx\n%%endmacro\n");
	emit(e, "%%macro DELTA_M 0\n\tshl rdx, 32\n\tor rax, rdx\n\tsub rax, [rel t0]\n%%endmacro\n");
	emit(e, "%%macro KEEP_R 0\t\t; stack\n\tpush rdx\n\tpush rax\n%%endmacro\n");
	emit(e, "%%macro DELTA_R 0\n\tshl rdx, 32\n\tor rax, rdx\n\tpop rcx\n\tpop rsi\n"
		"\tshl rsi, 32\n\tor rcx, rsi\n\tsub rax, rcx\n%%endmacro\n");
	emit(e, "%%macro KEEP_X 0\t\t; MMX register mm0\n\tshl rdx, 32\n\tor rax, rdx\n"
		"\tmovq mm0, rax\n%%endmacro\n");
	emit(e, "%%macro DELTA_X 0\n\tshl rdx, 32\n\tor rax, rdx\n\tmovq rcx, mm0\n"
		"\tsub rax, rcx\n%%endmacro\n\n");

	emit(e, "; after every run, what C code relies on: the direction flag clear, no x87\n"
		"; exception pending, an empty x87 stack, the x87 control word and MXCSR as\n"
		"; they were on entry (the empty block does the same, so the cost cancels)\n"
		"%%macro RESTORE_STATE 0\n\tcld\n\tfnstsw ax\n\ttest al, 0xff\n\tjz %%%%exceptions_clear\n"
		"\tfnclex\n%%%%exceptions_clear:\n\temms\n"
		"\tfnstcw [rel fcw_now]\n\tmov ax, [rel fcw_now]\n\tcmp ax, [rel fcw_saved]\n"
		"\tje %%%%fcw_same\n\tfldcw [rel fcw_saved]\n%%%%fcw_same:\n"
		"\tstmxcsr [rel mxcsr_now]\n\tmov eax, [rel mxcsr_now]\n\txor eax, [rel mxcsr_saved]\n"
		"\ttest eax, 0xffc0\t; its controls (bits 0-5 are sticky status flags)\n"
		"\tjz %%%%mxcsr_same\n\tldmxcsr [rel mxcsr_saved]\n%%%%mxcsr_same:\n%%endmacro\n\n");

	emit(e, "; registers from the start table (rsp excluded), then the vector and mask\n"
		"; registers --init sets\n%%macro LOAD_REGS 0\n");
	for (int r = 0; r < T32_NGPRS; r++)
		emit(e, "\tmov %s, [rel regs + %d]\n", t32_gprs[r], 8 * r);
	for (size_t i = 0; i < s->ninit; i++) {
		const struct t32_init *in = &s->init[i];

		/* the move of the register's own width: SSE for xmm0-15, VEX ymm, EVEX above */
		if (in->kind == T32_INIT_MASK)
			emit(e, "\tkmovq k%d, [rel vinit_%zu]\n", in->reg, i);
		else if (in->kind == T32_INIT_VEC && in->width == 64)
			emit(e, "\tvmovdqu64 zmm%d, [rel vinit_%zu]\n", in->reg, i);
		else if (in->kind == T32_INIT_VEC && (in->width == 32 || in->reg >= 16))
			emit(e, "\t%s %cmm%d, [rel vinit_%zu]\n", in->reg >= 16 ? "vmovdqu64" : "vmovdqu",
			     in->width == 32 ? 'y' : 'x', in->reg, i);
		else if (in->kind == T32_INIT_VEC)
			emit(e, "\tmovdqu xmm%d, [rel vinit_%zu]\n", in->reg, i);
	}
	emit(e, "%%endmacro\n\n");
}

/*
 * The entry point: its C prototype (args) as a comment, its label, then save the
 * callee-saved registers and fill the start table from the arena pointer.
 */
static void emit_prologue(struct emitter *e, const struct t32_spec *s, const char *entry,
			  const char *args, const char *arena_reg)
{
	emit(e, "; %s(%s)\n%s:\n", entry, args, entry);
	emit(e, "\tpush rbx\n\tpush rbp\n\tpush r12\n\tpush r13\n\tpush r14\n\tpush r15\n");
	emit(e, "\tmov [rel saved_rsp], rsp\n");
	emit(e, "\tstmxcsr [rel mxcsr_saved]\t; the caller's controls, put back after each run\n"
		"\tfnstcw [rel fcw_saved]\n");
	emit(e, "\t; start values: a pointer into the arena for each register, unless set\n");
	for (int r = 0; r < T32_NGPRS; r++) {
		int set = -1;

		for (size_t i = 0; i < s->ninit; i++)
			if (s->init[i].kind == T32_INIT_GPR && s->init[i].reg == r)
				set = (int)i;
		if (set >= 0)
			emit(e, "\tmov rax, %#llx\t\t; %s (--init)\n",
			     (unsigned long long)s->init[set].value, t32_gprs[r]);
		else
			emit(e, "\tlea rax, [%s + %#x]\t; %s\n", arena_reg,
			     ARENA_MID + ARENA_STEP * (unsigned)r, t32_gprs[r]);
		emit(e, "\tmov [rel regs + %d], rax\n", 8 * r);
	}
	emit(e, "\tpxor xmm0, xmm0\n");
	for (int x = 1; x < 16; x++)
		emit(e, "\tpxor xmm%d, xmm%d\n", x, x);
}

static void emit_epilogue(struct emitter *e, const struct t32_spec *s)
{
	emit(e, "\tmov rsp, [rel saved_rsp]\n");
	if (s->store == 'x')
		emit(e, "\temms\n");
	emit(e, "\tpop r15\n\tpop r14\n\tpop r13\n\tpop r12\n\tpop rbp\n\tpop rbx\n\tret\n");
}

/*
 * Can `times N` stand before stmt?  Not before a label (`x:`, `x: nop`) nor
 * `align`: nasm refuses both there.  Nor before a `times` of its own: nasm
 * takes `times 500 times 4 nop` without a word and assembles four nops, not
 * two thousand.  Such an item is a %rep block.
 */
static int times_takes(const char *stmt)
{
	size_t word = strcspn(stmt, " \t:");

	if (stmt[word] == ':')
		return 0;
	return !(word == 5 && (strncasecmp(stmt, "align", 5) == 0 ||
			       strncasecmp(stmt, "times", 5) == 0));
}

/*
 * One item's text as nasm reads it, reps times: an item of one instruction
 * becomes `times N insn` (nasm assembles it faster than %rep), an item of
 * several a %rep block, one statement a line.  item_line/item_lines (may be
 * NULL) get where the item's own lines are.
 */
static void emit_item(struct emitter *e, const char *text, unsigned stmts, uint64_t reps,
		      unsigned *item_line, unsigned *item_lines)
{
	char *copy = strdup(text), *save = NULL, *stmt;
	int single = stmts == 1 && times_takes(text + strspn(text, " \t;"));

	if (!single)
		emit(e, "%%rep %llu\n", (unsigned long long)reps);
	if (item_line)
		*item_line = e->line + 1;
	for (stmt = copy ? strtok_r(copy, ";", &save) : NULL; stmt;
	     stmt = strtok_r(NULL, ";", &save)) {
		while (*stmt == ' ' || *stmt == '\t')
			stmt++;
		if (!*stmt)
			continue;
		if (single)
			emit(e, "\ttimes %llu %s\n", (unsigned long long)reps, stmt);
		else
			emit(e, "\t%s\n", stmt);
	}
	if (item_lines)
		*item_lines = e->line + 1 - *item_line;
	if (!single)
		emit(e, "%%endrep\n");
	free(copy);
}

/*
 * The body: each item after its label (record), or, with o->item_bytes, a
 * place of that many bytes for the item's code (t32_gen_opts).
 */
static void emit_body(struct emitter *e, const struct t32_spec *s, const struct t32_gen_opts *o,
		      struct t32_gen *g, int record)
{
	for (size_t i = 0; i < s->nitems; i++) {
		const struct t32_item *it = &s->items[i];

		if (record)
			emit(e, "item_%zu:\n", i);
		if (o && o->item_bytes) {
			if (record)
				g->item_line[i] = e->line + 1;
			emit(e, "\tresb %llu\n", (unsigned long long)o->item_bytes[i]);
			if (record)
				g->item_lines[i] = 1;
			continue;
		}
		emit_item(e, it->text, it->stmts, it->reps, record ? &g->item_line[i] : NULL,
			  record ? &g->item_lines[i] : NULL);
	}
}

int t32_gen_item(const char *text, unsigned stmts, uint64_t reps, char **out)
{
	struct emitter e = { 0 };
	size_t len;

	*out = NULL;
	e.f = open_memstream(out, &len);
	if (!e.f)
		return -1;
	emit_item(&e, text, stmts, reps, NULL, NULL);
	if (fclose(e.f)) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static void emit_header(struct emitter *e, const struct t32_spec *s, const char *entry,
			int loop)
{
	emit(e, "header:\n\tdb 'T32BLK', 0, 1\n");
	emit(e, "\tdq %s, data_start, image_end, body_start, body_end\n", entry);
	emit(e, "\tdq %s, %s\n", loop ? "loop_top" : "body_end", loop ? "loop_end" : "body_end");
	emit(e, "\tdq %zu\n", s->nitems);
	for (size_t i = 0; i < s->nitems; i++)
		emit(e, "\tdq item_%zu\n", i);
	emit(e, "\tdq body_end\n\talign 64, db 0xcc\n\n");
}

/* A standalone program: fill the arena with self-pointers, run the loop, exit. */
static void emit_start(struct emitter *e, uint64_t iterations)
{
	emit(e, "\n; the program: arena qwords point to themselves, then the loop, then exit(0)\n"
		"_start:\n\tlea rdi, [rel arena]\n\tmov rcx, %u\nfill_arena:\n"
		"\tmov [rdi], rdi\n\tadd rdi, 8\n\tdec rcx\n\tjnz fill_arena\n", T32_ARENA_QWORDS);
	emit(e, "\tmov rdi, %llu\n\tlea rsi, [rel arena]\n\tcall t32_loop\n"
		"\tmov eax, 60\n\txor edi, edi\n\tsyscall\n",
		(unsigned long long)iterations);
}

/* The start values of vector and mask registers, a whole zmm's worth each. */
static void emit_vinit(struct emitter *e, const struct t32_spec *s)
{
	for (size_t i = 0; i < s->ninit; i++)
		if (s->init[i].kind != T32_INIT_GPR)
			emit(e, "\talign 64\nvinit_%zu:\ttimes 8 dq %#llx\n", i,
			     (unsigned long long)s->init[i].value);
}

static void emit_data(struct emitter *e, const struct t32_spec *s, int elf)
{
	if (elf) {
		emit(e, "\nsection .data\n\talign 4096\ndata_start:\n");
		emit(e, "saved_rsp:\tdq 0\nout_ptr:\tdq 0\nleft:\t\tdq 0\nt0:\t\tdq 0\n");
		emit(e, "rng:\t\tdq 0x9e3779b97f4a7c15\n");
		emit(e, "regs:\t\ttimes %d dq 0\n", T32_NGPRS);
		emit(e, "mxcsr_saved:\tdd 0\nmxcsr_now:\tdd 0\nfcw_saved:\tdw 0\nfcw_now:\tdw 0\n");
		emit_vinit(e, s);
		emit(e, "\nsection .bss\n\talign 4096\narena:\tresq %u\n", T32_ARENA_QWORDS);
		return;
	}
	emit(e, "\n" T32_GEN_CODE_PAD "data_start:\n");
	emit(e, "saved_rsp:\tdq 0\nout_ptr:\tdq 0\nleft:\t\tdq 0\nt0:\t\tdq 0\n");
	emit(e, "rng:\t\tdq 0x9e3779b97f4a7c15\n");
	emit(e, "regs:\t\ttimes %d dq 0\n", T32_NGPRS);
	emit(e, "mxcsr_saved:\tdd 0\nmxcsr_now:\tdd 0\nfcw_saved:\tdw 0\nfcw_now:\tdw 0\n");
	emit_vinit(e, s);
	emit(e, T32_GEN_DATA_PAD "image_end:\n");
}

static void emit_timed(struct emitter *e, const struct t32_spec *s, const struct t32_gen_opts *o,
		       struct t32_gen *g)
{
	char store = s->store ? s->store : 'm';

	emit_header(e, s, "t32_block", 0);
	emit_prologue(e, s, "t32_block", "uint64_t *out /* rdi */, uint64_t count /* rsi */, "
		      "void *arena /* rdx */", "rdx");
	emit(e, "\tmov [rel out_ptr], rdi\n\tmov [rel left], rsi\n\ttest rsi, rsi\n\tjz run_done\n");
	emit(e, "\talign 64\nrun_next:\n");
	if (o->dither) {
		/*
		 * Spin for the sum of four uniform counts in [0, 128): wrapped onto the TSC's
		 * step, a sum of uniforms is flat to a part in 10^4 (its Fourier coefficient
		 * falls as sinc^4), where one uniform count would favour some phases.
		 */
		emit(e, "\t; dither: spin a random while so each run starts at a random TSC phase\n");
		emit(e, "\tmov rax, [rel rng]\n\tmov rcx, rax\n\tshl rcx, 13\n\txor rax, rcx\n"
			"\tmov rcx, rax\n\tshr rcx, 7\n\txor rax, rcx\n\tmov rcx, rax\n"
			"\tshl rcx, 17\n\txor rax, rcx\n\tmov [rel rng], rax\n"
			"\tmov ecx, eax\n\tand ecx, 127\n"
			"\tmov edx, eax\n\tshr edx, 8\n\tand edx, 127\n\tadd ecx, edx\n"
			"\tmov edx, eax\n\tshr edx, 16\n\tand edx, 127\n\tadd ecx, edx\n"
			"\tshr eax, 24\n\tand eax, 127\n\tadd ecx, eax\n\tinc ecx\n"
			"dither_spin:\n\tdec ecx\n\tjnz dither_spin\n");
	}
	emit(e, "\tLOAD_REGS\n\tBARRIER\n\trdtsc\n\tKEEP_%c\n", store - 32);
	emit(e, "\tmov rax, [rel regs + 0]\n\tmov rdx, [rel regs + 24]\n");
	emit(e, "\tcmp rsp, rsp\t\t; flags as after comparing equal values\n\tBARRIER\n");
	if (barrier_has(s, 'x'))
		emit(e, "\t; cpuid wrote rax, rbx, rcx, rdx: load them again\n"
			"\tmov rax, [rel regs + 0]\n\tmov rbx, [rel regs + 8]\n"
			"\tmov rcx, [rel regs + 16]\n\tmov rdx, [rel regs + 24]\n");
	emit(e, "body_start:\n");
	emit_body(e, s, o, g, 1);
	emit(e, "body_end:\n\tBARRIER\n\trdtsc\n\tDELTA_%c\n", store - 32);
	emit(e, "\tmov rsp, [rel saved_rsp]\n\tmov rcx, [rel out_ptr]\n\tmov [rcx], rax\n"
		"\tadd rcx, 8\n\tmov [rel out_ptr], rcx\n\tRESTORE_STATE\n"
		"\tdec qword [rel left]\n\tjnz run_next\n");
	emit(e, "run_done:\n");
	emit_epilogue(e, s);
}

static void emit_loop(struct emitter *e, const struct t32_spec *s, const struct t32_gen_opts *o,
		      struct t32_gen *g)
{
	uint64_t unroll = o->unroll ? o->unroll : 1;

	if (!o->elf_iterations)
		emit_header(e, s, "t32_loop", 1);
	emit_prologue(e, s, "t32_loop", "uint64_t iterations /* rdi */, void *arena /* rsi */",
		      "rsi");
	emit(e, "\tmov [rel left], rdi\n\ttest rdi, rdi\n\tjz run_done\n\tLOAD_REGS\n");
	emit(e, "\talign 64\nloop_top:\n");
	if (o->loop_barrier)
		emit(e, "\tBARRIER\n");
	emit(e, "body_start:\n");
	/* The first copy carries the item labels; the others repeat it. */
	emit_body(e, s, NULL, g, 1);
	if (unroll > 1) {
		emit(e, "%%rep %llu\n", (unsigned long long)(unroll - 1));
		emit_body(e, s, NULL, g, 0);
		emit(e, "%%endrep\n");
	}
	emit(e, "body_end:\n");
	if (o->loop_barrier)
		emit(e, "\tBARRIER\n");
	emit(e, "\tdec qword [rel left]\n\tjnz loop_top\nloop_end:\n");
	emit(e, "\tRESTORE_STATE\nrun_done:\n");
	emit_epilogue(e, s);
	if (o->elf_iterations)
		emit_start(e, o->elf_iterations);
}

int t32_generate(const struct t32_spec *s, const struct t32_gen_opts *o, struct t32_gen *g)
{
	struct emitter e = { 0 };
	char desc[4096];

	memset(g, 0, sizeof(*g));
	g->nitems = s->nitems;
	g->insns = t32_spec_insns(s) * (o->shape == T32_GEN_LOOP && o->unroll ? o->unroll : 1);
	g->item_line = calloc(s->nitems + 1, sizeof(unsigned));
	g->item_lines = calloc(s->nitems + 1, sizeof(unsigned));
	e.f = open_memstream(&g->text, &g->len);
	if (!e.f || !g->item_line || !g->item_lines) {
		t32_gen_free(g);
		return -1;
	}
	t32_spec_format(s, desc, sizeof(desc));
	emit(&e, "; t32 block: %s\n", desc);
	emit(&e, "; shape: %s%s, %llu instructions in the body\n",
	     o->shape == T32_GEN_TIMED ? "timed (barrier; rdtsc; body; barrier; rdtsc)" : "loop",
	     o->shape == T32_GEN_TIMED && o->dither ? ", dithered" : "",
	     (unsigned long long)t32_spec_insns(s));
	emit(&e, "; registers start pointing into a private arena whose qwords point to\n"
		 "; themselves; xmm0-15 are zero; --init values override (vector and mask\n"
		 "; registers are loaded again before every run)\n\n");
	if (o->shape == T32_GEN_LOOP && o->elf_iterations)
		emit(&e, "BITS 64\ndefault rel\nsection .text\nglobal _start\nglobal t32_loop\n"
			 "global body_start\nglobal body_end\nglobal loop_top\n\n");
	else
		emit(&e, "BITS 64\ndefault rel\n" T32_GEN_ORG_LINE "\n");
	emit_macros(&e, s);
	if (o->shape == T32_GEN_TIMED)
		emit_timed(&e, s, o, g);
	else
		emit_loop(&e, s, o, g);
	emit_data(&e, s, o->shape == T32_GEN_LOOP && o->elf_iterations);
	if (fclose(e.f)) {
		t32_gen_free(g);
		return -1;
	}
	return 0;
}

void t32_gen_free(struct t32_gen *g)
{
	free(g->text);
	free(g->item_line);
	free(g->item_lines);
	memset(g, 0, sizeof(*g));
}
