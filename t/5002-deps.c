/*
 * 5002-deps - dependency extraction from machine code: partial registers, flags,
 * memory operands, zero idioms, moves, classes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/deps.h"
#include "t/tap.h"

/* One instruction's bytes and what the decoder must find. */
struct want {
	const char *what;
	unsigned char code[8];
	size_t len;
	enum t32_class cls;
	const char *reads;	/* data inputs, space separated, any order */
	const char *addrs;	/* address inputs */
	const char *writes;	/* outputs */
	unsigned flags;		/* T32_INSN_* that must be set */
	unsigned noflags;	/* T32_INSN_* that must be clear */
};

#define L T32_INSN_LOAD
#define S T32_INSN_STORE
#define Z T32_INSN_ZERO_IDIOM
#define M T32_INSN_MOVE
#define K T32_INSN_LOCK
#define X T32_INSN_INDEXED
#define C T32_INSN_CHASEABLE

static const struct want wants[] = {
	{ "mov rax, [rax]", { 0x48, 0x8b, 0x00 }, 3, T32_CLASS_LOAD, "", "rax", "rax", L | C, S | X },
	{ "nop", { 0x90 }, 1, T32_CLASS_NOP, "", "", "", 0, L | S },
	{ "nop dword [rax]", { 0x0f, 0x1f, 0x00 }, 3, T32_CLASS_NOP, "", "", "", 0, L },
	{ "add rax, 0", { 0x48, 0x83, 0xc0, 0x00 }, 4, T32_CLASS_ALU, "rax", "", "rax cf oszap", 0, L },
	{ "mov al, 1", { 0xb0, 0x01 }, 2, T32_CLASS_ALU, "rax", "", "rax", 0, 0 },
	{ "mov ah, 2", { 0xb4, 0x02 }, 2, T32_CLASS_ALU, "rax", "", "rax", 0, 0 },
	{ "mov ax, 3", { 0x66, 0xb8, 0x03, 0x00 }, 4, T32_CLASS_ALU, "rax", "", "rax", 0, 0 },
	{ "mov eax, 4", { 0xb8, 0x04, 0x00, 0x00, 0x00 }, 5, T32_CLASS_ALU, "", "", "rax", 0, 0 },
	{ "add al, bl", { 0x00, 0xd8 }, 2, T32_CLASS_ALU, "rax rbx", "", "rax cf oszap", 0, 0 },
	{ "xor eax, eax", { 0x31, 0xc0 }, 2, T32_CLASS_ALU, "", "", "rax cf oszap", Z, 0 },
	{ "sub r9d, r9d", { 0x45, 0x29, 0xc9 }, 3, T32_CLASS_ALU, "", "", "r9 cf oszap", Z, 0 },
	{ "xor al, al", { 0x30, 0xc0 }, 2, T32_CLASS_ALU, "rax", "", "rax cf oszap", 0, Z },
	{ "pxor xmm1, xmm1", { 0x66, 0x0f, 0xef, 0xc9 }, 4, T32_CLASS_VECTOR, "", "", "v1", Z, 0 },
	{ "vpxor ymm3, ymm3, ymm3", { 0xc5, 0xe5, 0xef, 0xdb }, 4, T32_CLASS_VECTOR, "", "", "v3", Z, 0 },
	{ "vpmulld xmm0, xmm0, xmm0", { 0xc4, 0xe2, 0x79, 0x40, 0xc0 }, 5, T32_CLASS_VECTOR, "v0", "", "v0", 0, Z },
	{ "mov rdx, [rbx+rcx*8+16]", { 0x48, 0x8b, 0x54, 0xcb, 0x10 }, 5, T32_CLASS_LOAD, "", "rbx rcx", "rdx", L | X, C },
	{ "mov [rsi+8], rdi", { 0x48, 0x89, 0x7e, 0x08 }, 4, T32_CLASS_STORE, "rdi", "rsi", "", S, L },
	{ "add [rbx], rax", { 0x48, 0x01, 0x03 }, 3, T32_CLASS_ALU, "rax", "rbx", "cf oszap", L | S, 0 },
	{ "lea rax, [rbx+rcx]", { 0x48, 0x8d, 0x04, 0x0b }, 4, T32_CLASS_ALU, "rbx rcx", "", "rax", 0, L | S },
	{ "cmp rax, rbx", { 0x48, 0x39, 0xd8 }, 3, T32_CLASS_ALU, "rax rbx", "", "cf oszap", 0, 0 },
	{ "jne $", { 0x75, 0xfe }, 2, T32_CLASS_BRANCH, "oszap", "", "", 0, 0 },
	{ "inc rax (keeps CF)", { 0x48, 0xff, 0xc0 }, 3, T32_CLASS_ALU, "rax", "", "rax oszap", 0, 0 },
	{ "adc rdx, rcx (reads CF)", { 0x48, 0x11, 0xca }, 3, T32_CLASS_ALU, "rdx rcx cf oszap", "", "rdx cf oszap", 0, 0 },
	{ "setc al", { 0x0f, 0x92, 0xc0 }, 3, T32_CLASS_ALU, "cf rax", "", "rax", 0, 0 },
	{ "mov rax, rbx", { 0x48, 0x89, 0xd8 }, 3, T32_CLASS_ALU, "rbx", "", "rax", M, 0 },
	{ "movzx eax, bl", { 0x0f, 0xb6, 0xc3 }, 3, T32_CLASS_ALU, "rbx", "", "rax", 0, M },
	{ "movaps xmm1, xmm2", { 0x0f, 0x28, 0xca }, 3, T32_CLASS_VECTOR, "v2", "", "v1", M, 0 },
	{ "imul rax, rbx", { 0x48, 0x0f, 0xaf, 0xc3 }, 4, T32_CLASS_MUL, "rax rbx", "", "rax cf oszap", 0, 0 },
	{ "div rcx", { 0x48, 0xf7, 0xf1 }, 3, T32_CLASS_DIV, "rax rdx rcx", "", "rax rdx cf oszap", 0, 0 },
	{ "lock add qword [rbx], 1", { 0xf0, 0x48, 0x83, 0x03, 0x01 }, 5, T32_CLASS_ATRETIRE, "", "rbx", "cf oszap", K | L | S, 0 },
	{ "xchg [rbx], rax", { 0x48, 0x87, 0x03 }, 3, T32_CLASS_ATRETIRE, "rax", "rbx", "rax", K, 0 },
	{ "lfence", { 0x0f, 0xae, 0xe8 }, 3, T32_CLASS_FENCE, "", "", "", 0, 0 },
	{ "cpuid", { 0x0f, 0xa2 }, 2, T32_CLASS_SERIAL, "rax rcx", "", "rax rbx rcx rdx", 0, 0 },
	{ "push rax (stack engine: no rsp)", { 0x50 }, 1, T32_CLASS_STORE, "rax", "", "", S, 0 },
	{ "pop rbx", { 0x5b }, 1, T32_CLASS_LOAD, "", "", "rbx", L, 0 },
	{ "xor ax, ax (merges into rax)", { 0x66, 0x31, 0xc0 }, 3, T32_CLASS_ALU, "rax", "", "rax cf oszap", 0, Z },
	{ "mov ax, bx (merges into rax)", { 0x66, 0x89, 0xd8 }, 3, T32_CLASS_ALU, "rax rbx", "", "rax", 0, M },
};

/* Does the resource set equal the space-separated names? */
static int same_set(const uint8_t *set, unsigned n, const char *names)
{
	char buf[128], *tok, *save = NULL;
	unsigned count = 0;

	strcpy(buf, names);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		int found = 0;

		for (unsigned i = 0; i < n; i++)
			if (strcmp(t32_res_name(set[i]), tok) == 0)
				found = 1;
		if (!found)
			return 0;
		count++;
	}
	return count == n;
}

/* The set as text, for a diagnostic. */
static const char *show(const uint8_t *set, unsigned n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
					 t32_res_name(set[i]));
	return buf;
}

int main(void)
{
	size_t nw = sizeof(wants) / sizeof(wants[0]);
	unsigned char all[512];
	size_t len = 0, n;
	struct t32_insn *in;
	char err[256], b1[128], b2[128], b3[128];

	plan((int)(nw * 3) + 5);
	for (size_t i = 0; i < nw; i++) {
		memcpy(all + len, wants[i].code, wants[i].len);
		len += wants[i].len;
	}
	if (t32_deps_decode(all, len, &in, &n, err, sizeof(err)))
		bail("decode: %s", err);
	if (n != nw)
		bail("decoded %zu instructions, wanted %zu", n, nw);
	for (size_t i = 0; i < nw; i++) {
		const struct want *w = &wants[i];

		is_string(t32_classes[w->cls].name, t32_classes[in[i].cls].name, "%s: class", w->what);
		ok(same_set(in[i].reads, in[i].nreads, w->reads) &&
		   same_set(in[i].addrs, in[i].naddrs, w->addrs) &&
		   same_set(in[i].writes, in[i].nwrites, w->writes),
		   "%s: reads [%s] addr [%s] writes [%s] (seen [%s] [%s] [%s])", w->what, w->reads,
		   w->addrs, w->writes, show(in[i].reads, in[i].nreads, b1, sizeof(b1)),
		   show(in[i].addrs, in[i].naddrs, b2, sizeof(b2)),
		   show(in[i].writes, in[i].nwrites, b3, sizeof(b3)));
		ok((in[i].flags & w->flags) == w->flags && !(in[i].flags & w->noflags),
		   "%s: flags %#x set, %#x clear (seen %#x)", w->what, w->flags, w->noflags,
		   in[i].flags);
	}
	ok(in[15].mem_base == 3 /* rbx */ && in[15].mem_index == 1 /* rcx */ && in[15].mem_scale == 8 &&
	   in[15].mem_disp == 16 && in[15].mem_bytes == 8 && (in[15].flags & T32_INSN_MEMKEY),
	   "the address expression of [rbx+rcx*8+16] is kept for forwarding");
	is_string("mov r64, m64", in[0].form, "form of mov rax, [rax]");
	is_string("lock add m64, i", in[29].form, "form of lock add keeps the prefix");
	ok(t32_insn_reads(&in[0], T32_RES_RAX) && t32_insn_writes(&in[0], T32_RES_RAX),
	   "t32_insn_reads/writes see the address register and the output");
	free(in);
	{
		static const unsigned char bad[] = { 0x90, 0x0f, 0x0b, 0x06 };	/* nop; ud2; (push es) */

		ok(t32_deps_decode(bad, sizeof(bad), &in, &n, err, sizeof(err)) == -1 &&
		   strstr(err, "offset 3"), "an invalid byte is an error naming its offset (%s)", err);
	}
	return done_testing();
}
