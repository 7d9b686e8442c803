/*
 * deps.c - dependencies and classes of x86-64 instructions, from capstone 4.
 *
 * Registers come from cs_regs_access() (explicit operands and implicit registers),
 * memory operands from the detail's operand list.  The tables below hold the
 * families capstone does not tell apart by itself: moves, zero idioms, classes.
 */
#include "analysis/deps.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct t32_class_info t32_classes[T32_NCLASS] = {
	[T32_CLASS_NOP] = { "nop", "allocates and retires, never executes" },
	[T32_CLASS_ALU] = { "alu", "integer arithmetic, logic, moves" },
	[T32_CLASS_LOAD] = { "load", "pure load: the result is the loaded value" },
	[T32_CLASS_STORE] = { "store", "pure store" },
	[T32_CLASS_MUL] = { "mul", "integer multiply" },
	[T32_CLASS_DIV] = { "div", "integer divide" },
	[T32_CLASS_VECTOR] = { "vector", "SSE, AVX, MMX and x87" },
	[T32_CLASS_BRANCH] = { "branch", "jumps, calls and returns" },
	[T32_CLASS_FENCE] = { "fence", "waits for earlier instructions, holds later ones" },
	[T32_CLASS_ATRETIRE] = { "atretire", "executes when it is the oldest unretired (lock)" },
	[T32_CLASS_SERIAL] = { "serial", "executes at retire; nothing allocates until it retires" },
};

static const char *const res_names[T32_NRES] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7",
	"v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
	"v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
	"v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31",
	"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7",
	"mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7",
	"cf", "oszap",
};

/* Every name of a general register: which resource, how many bytes. */
static const struct gpr_name {
	x86_reg reg;
	uint8_t res;
	uint8_t bytes;
} gpr_names[] = {
	{ X86_REG_AL, 0, 1 }, { X86_REG_AH, 0, 1 }, { X86_REG_AX, 0, 2 }, { X86_REG_EAX, 0, 4 }, { X86_REG_RAX, 0, 8 },
	{ X86_REG_CL, 1, 1 }, { X86_REG_CH, 1, 1 }, { X86_REG_CX, 1, 2 }, { X86_REG_ECX, 1, 4 }, { X86_REG_RCX, 1, 8 },
	{ X86_REG_DL, 2, 1 }, { X86_REG_DH, 2, 1 }, { X86_REG_DX, 2, 2 }, { X86_REG_EDX, 2, 4 }, { X86_REG_RDX, 2, 8 },
	{ X86_REG_BL, 3, 1 }, { X86_REG_BH, 3, 1 }, { X86_REG_BX, 3, 2 }, { X86_REG_EBX, 3, 4 }, { X86_REG_RBX, 3, 8 },
	{ X86_REG_SPL, 4, 1 }, { X86_REG_SP, 4, 2 }, { X86_REG_ESP, 4, 4 }, { X86_REG_RSP, 4, 8 },
	{ X86_REG_BPL, 5, 1 }, { X86_REG_BP, 5, 2 }, { X86_REG_EBP, 5, 4 }, { X86_REG_RBP, 5, 8 },
	{ X86_REG_SIL, 6, 1 }, { X86_REG_SI, 6, 2 }, { X86_REG_ESI, 6, 4 }, { X86_REG_RSI, 6, 8 },
	{ X86_REG_DIL, 7, 1 }, { X86_REG_DI, 7, 2 }, { X86_REG_EDI, 7, 4 }, { X86_REG_RDI, 7, 8 },
	{ X86_REG_R8B, 8, 1 }, { X86_REG_R8W, 8, 2 }, { X86_REG_R8D, 8, 4 }, { X86_REG_R8, 8, 8 },
	{ X86_REG_R9B, 9, 1 }, { X86_REG_R9W, 9, 2 }, { X86_REG_R9D, 9, 4 }, { X86_REG_R9, 9, 8 },
	{ X86_REG_R10B, 10, 1 }, { X86_REG_R10W, 10, 2 }, { X86_REG_R10D, 10, 4 }, { X86_REG_R10, 10, 8 },
	{ X86_REG_R11B, 11, 1 }, { X86_REG_R11W, 11, 2 }, { X86_REG_R11D, 11, 4 }, { X86_REG_R11, 11, 8 },
	{ X86_REG_R12B, 12, 1 }, { X86_REG_R12W, 12, 2 }, { X86_REG_R12D, 12, 4 }, { X86_REG_R12, 12, 8 },
	{ X86_REG_R13B, 13, 1 }, { X86_REG_R13W, 13, 2 }, { X86_REG_R13D, 13, 4 }, { X86_REG_R13, 13, 8 },
	{ X86_REG_R14B, 14, 1 }, { X86_REG_R14W, 14, 2 }, { X86_REG_R14D, 14, 4 }, { X86_REG_R14, 14, 8 },
	{ X86_REG_R15B, 15, 1 }, { X86_REG_R15W, 15, 2 }, { X86_REG_R15D, 15, 4 }, { X86_REG_R15, 15, 8 },
};

/* Register ranges that map onto one resource block: vector, mask, MMX/x87. */
static const struct reg_range {
	x86_reg first;
	unsigned count;
	uint8_t res;
	const char *shape;	/* operand shape in forms */
} reg_ranges[] = {
	{ X86_REG_XMM0, 32, T32_RES_V0, "xmm" },
	{ X86_REG_YMM0, 32, T32_RES_V0, "ymm" },
	{ X86_REG_ZMM0, 32, T32_RES_V0, "zmm" },
	{ X86_REG_K0, 8, T32_RES_K0, "k" },
	{ X86_REG_MM0, 8, T32_RES_MM0, "mm" },
	{ X86_REG_ST0, 8, T32_RES_MM0, "st" },
	{ X86_REG_FP0, 8, T32_RES_MM0, "st" },
};

/* Pure data moves: with memory they are loads or stores, between registers moves. */
static const unsigned move_ids[] = {
	X86_INS_MOV, X86_INS_MOVABS, X86_INS_MOVZX, X86_INS_MOVSX, X86_INS_MOVSXD,
	X86_INS_MOVD, X86_INS_MOVQ, X86_INS_MOVAPS, X86_INS_MOVAPD, X86_INS_MOVUPS,
	X86_INS_MOVUPD, X86_INS_MOVDQA, X86_INS_MOVDQU, X86_INS_MOVSS, X86_INS_MOVSD,
	X86_INS_LDDQU, X86_INS_MOVNTI, X86_INS_VMOVAPS, X86_INS_VMOVAPD, X86_INS_VMOVUPS,
	X86_INS_VMOVUPD, X86_INS_VMOVDQA, X86_INS_VMOVDQU, X86_INS_VMOVDQA32,
	X86_INS_VMOVDQA64, X86_INS_VMOVDQU8, X86_INS_VMOVDQU16, X86_INS_VMOVDQU32,
	X86_INS_VMOVDQU64, X86_INS_VMOVD, X86_INS_VMOVQ, X86_INS_VMOVSS, X86_INS_VMOVSD,
};

/* Moves a rename stage can eliminate: same-width full registers (32/64-bit or vector). */
static const unsigned elim_ids[] = {
	X86_INS_MOV, X86_INS_MOVAPS, X86_INS_MOVAPD, X86_INS_MOVUPS, X86_INS_MOVUPD,
	X86_INS_MOVDQA, X86_INS_MOVDQU, X86_INS_VMOVAPS, X86_INS_VMOVAPD, X86_INS_VMOVUPS,
	X86_INS_VMOVUPD, X86_INS_VMOVDQA, X86_INS_VMOVDQU, X86_INS_VMOVDQA32,
	X86_INS_VMOVDQA64, X86_INS_VMOVDQU32, X86_INS_VMOVDQU64,
};

/* Zero idioms: with both sources the same register the result is 0 whatever it held. */
static const unsigned zero_ids[] = {
	X86_INS_XOR, X86_INS_SUB, X86_INS_PXOR, X86_INS_VPXOR, X86_INS_VPXORD,
	X86_INS_VPXORQ, X86_INS_XORPS, X86_INS_XORPD, X86_INS_VXORPS, X86_INS_VXORPD,
	X86_INS_PSUBB, X86_INS_PSUBW, X86_INS_PSUBD, X86_INS_PSUBQ, X86_INS_VPSUBB,
	X86_INS_VPSUBW, X86_INS_VPSUBD, X86_INS_VPSUBQ, X86_INS_PCMPGTB, X86_INS_PCMPGTW,
	X86_INS_PCMPGTD, X86_INS_PCMPGTQ,
};

/* Instruction ids with a fixed class, checked before the general rules. */
static const struct id_class {
	unsigned id;
	enum t32_class cls;
} id_classes[] = {
	{ X86_INS_NOP, T32_CLASS_NOP }, { X86_INS_FNOP, T32_CLASS_NOP },
	{ X86_INS_ENDBR64, T32_CLASS_NOP },
	{ X86_INS_CPUID, T32_CLASS_SERIAL }, { X86_INS_IRETQ, T32_CLASS_SERIAL },
	{ X86_INS_WRMSR, T32_CLASS_SERIAL }, { X86_INS_XSETBV, T32_CLASS_SERIAL },
	{ X86_INS_WBINVD, T32_CLASS_SERIAL },
	{ X86_INS_LFENCE, T32_CLASS_FENCE }, { X86_INS_MFENCE, T32_CLASS_FENCE },
	{ X86_INS_SFENCE, T32_CLASS_FENCE },
	{ X86_INS_DIV, T32_CLASS_DIV }, { X86_INS_IDIV, T32_CLASS_DIV },
	{ X86_INS_MUL, T32_CLASS_MUL }, { X86_INS_IMUL, T32_CLASS_MUL },
	{ X86_INS_MULX, T32_CLASS_MUL }, { X86_INS_PAUSE, T32_CLASS_ALU },
	{ X86_INS_PUSH, T32_CLASS_STORE }, { X86_INS_POP, T32_CLASS_LOAD },
};

/* Instructions whose rsp update the stack engine absorbs: no dependency through rsp. */
static const unsigned stack_ids[] = {
	X86_INS_PUSH, X86_INS_POP, X86_INS_CALL, X86_INS_RET,
};

/* Capstone groups that make an instruction a vector one. */
static const unsigned vector_groups[] = {
	X86_GRP_SSE1, X86_GRP_SSE2, X86_GRP_SSE3, X86_GRP_SSE41, X86_GRP_SSE42,
	X86_GRP_SSE4A, X86_GRP_SSSE3, X86_GRP_AVX, X86_GRP_AVX2, X86_GRP_AVX512,
	X86_GRP_FMA, X86_GRP_FMA4, X86_GRP_MMX, X86_GRP_F16C, X86_GRP_AES,
	X86_GRP_PCLMUL, X86_GRP_SHA, X86_GRP_XOP, X86_GRP_3DNOW,
};

/* Flag bits, per renamed group: written, and read. */
#define CF_WRITE (X86_EFLAGS_MODIFY_CF | X86_EFLAGS_RESET_CF | X86_EFLAGS_SET_CF | \
		  X86_EFLAGS_UNDEFINED_CF | X86_EFLAGS_PRIOR_CF)
#define OSZAP_WRITE (X86_EFLAGS_MODIFY_OF | X86_EFLAGS_MODIFY_SF | X86_EFLAGS_MODIFY_ZF | \
		     X86_EFLAGS_MODIFY_AF | X86_EFLAGS_MODIFY_PF | X86_EFLAGS_RESET_OF | \
		     X86_EFLAGS_RESET_SF | X86_EFLAGS_RESET_AF | X86_EFLAGS_RESET_PF | \
		     X86_EFLAGS_RESET_ZF | X86_EFLAGS_SET_OF | X86_EFLAGS_SET_SF | \
		     X86_EFLAGS_SET_ZF | X86_EFLAGS_SET_AF | X86_EFLAGS_SET_PF | \
		     X86_EFLAGS_UNDEFINED_OF | X86_EFLAGS_UNDEFINED_SF | \
		     X86_EFLAGS_UNDEFINED_ZF | X86_EFLAGS_UNDEFINED_PF | \
		     X86_EFLAGS_UNDEFINED_AF | X86_EFLAGS_PRIOR_OF | X86_EFLAGS_PRIOR_SF | \
		     X86_EFLAGS_PRIOR_ZF | X86_EFLAGS_PRIOR_AF | X86_EFLAGS_PRIOR_PF)
#define CF_READ X86_EFLAGS_TEST_CF
#define OSZAP_READ (X86_EFLAGS_TEST_OF | X86_EFLAGS_TEST_SF | X86_EFLAGS_TEST_ZF | \
		    X86_EFLAGS_TEST_PF | X86_EFLAGS_TEST_AF)

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Is id in the list? */
static int in_list(const unsigned *list, size_t n, unsigned id)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == id)
			return 1;
	return 0;
}

/* Resource of a capstone register and its width in bytes; -1 for ones not tracked. */
static int reg_res(x86_reg reg, unsigned *bytes, const char **shape)
{
	for (size_t i = 0; i < NELEM(gpr_names); i++)
		if (gpr_names[i].reg == reg) {
			*bytes = gpr_names[i].bytes;
			*shape = NULL;
			return gpr_names[i].res;
		}
	for (size_t i = 0; i < NELEM(reg_ranges); i++)
		if (reg >= reg_ranges[i].first && reg < reg_ranges[i].first + reg_ranges[i].count) {
			*bytes = 0;
			*shape = reg_ranges[i].shape;
			return reg_ranges[i].res + (reg - reg_ranges[i].first);
		}
	return -1;
}

/* Add res to a set of resources unless it is there already. */
static void add_res(uint8_t *set, unsigned *n, unsigned res)
{
	for (unsigned i = 0; i < *n; i++)
		if (set[i] == res)
			return;
	if (*n < T32_MAX_REGS)
		set[(*n)++] = (uint8_t)res;
}

/*
 * Add the flag groups an EFLAGS access touches: those named in f (the CF bit
 * cf, the OSZAP bits oszap), or both when capstone names none.
 */
static void add_flags(uint8_t *set, unsigned *n, uint64_t f, uint64_t cf, uint64_t oszap)
{
	f &= cf | oszap;
	if (!f || (f & cf))
		add_res(set, n, T32_RES_CF);
	if (!f || (f & oszap))
		add_res(set, n, T32_RES_OSZAP);
}

/* Remove res from a set. */
static void drop_res(uint8_t *set, unsigned *n, unsigned res)
{
	for (unsigned i = 0; i < *n; i++)
		if (set[i] == res) {
			set[i] = set[--*n];
			return;
		}
}

const char *t32_res_name(unsigned res)
{
	return res < T32_NRES ? res_names[res] : "?";
}

/* Is res one of the n resources at list? */
static int res_in(const uint8_t *list, unsigned n, unsigned res)
{
	for (unsigned i = 0; i < n; i++)
		if (list[i] == res)
			return 1;
	return 0;
}

int t32_insn_reads(const struct t32_insn *in, unsigned res)
{
	return res_in(in->reads, in->nreads, res) || res_in(in->addrs, in->naddrs, res);
}

int t32_insn_writes(const struct t32_insn *in, unsigned res)
{
	return res_in(in->writes, in->nwrites, res);
}

int t32_class_parse(const char *name)
{
	for (int c = 0; c < T32_NCLASS; c++)
		if (strcmp(name, t32_classes[c].name) == 0)
			return c;
	return -1;
}

/* The operand shape of the form: "r64", "m64", "xmm", "i". */
static void operand_shape(const cs_x86_op *op, char *buf, size_t len)
{
	unsigned bytes;
	const char *shape;

	switch (op->type) {
	case X86_OP_REG:
		if (reg_res(op->reg, &bytes, &shape) < 0)
			snprintf(buf, len, "sreg");
		else if (shape)
			snprintf(buf, len, "%s", shape);
		else
			snprintf(buf, len, "r%u", bytes * 8);
		break;
	case X86_OP_MEM:
		if (op->size)
			snprintf(buf, len, "m%u", op->size * 8u);
		else
			snprintf(buf, len, "m");
		break;
	case X86_OP_IMM:
		snprintf(buf, len, "i");
		break;
	default:
		snprintf(buf, len, "?");
	}
}

/* Is the instruction a zero idiom: its last two operands the same register? */
static int zero_idiom(const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *a, *b;
	unsigned bytes;
	const char *shape;

	if (!in_list(zero_ids, NELEM(zero_ids), ci->id) || x->op_count < 2)
		return 0;
	a = &x->operands[x->op_count - 2];
	b = &x->operands[x->op_count - 1];
	if (a->type != X86_OP_REG || b->type != X86_OP_REG || a->reg != b->reg)
		return 0;
	/* 8- and 16-bit forms merge into the full register: not dependency-breaking */
	if (reg_res(a->reg, &bytes, &shape) < 0 || (!shape && bytes < 4))
		return 0;
	return 1;
}

/* Is the instruction an eliminable register-to-register move? */
static int eliminable_move(const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	unsigned b0, b1;
	const char *s0, *s1;

	if (!in_list(elim_ids, NELEM(elim_ids), ci->id) || x->op_count != 2)
		return 0;
	if (x->operands[0].type != X86_OP_REG || x->operands[1].type != X86_OP_REG)
		return 0;
	if (reg_res(x->operands[0].reg, &b0, &s0) < 0 || reg_res(x->operands[1].reg, &b1, &s1) < 0)
		return 0;
	if (!s0 && !s1)
		return b0 == b1 && b0 >= 4;
	return s0 && s1 && strcmp(s0, s1) == 0 && (s0[0] == 'x' || s0[0] == 'y' || s0[0] == 'z');
}

/*
 * A memory operand: the first one's address (base, index, scale, displacement)
 * as the key of what it touches, whether it loads or stores, and its address
 * registers.
 */
static void describe_mem(const cs_insn *ci, const cs_x86_op *op, int first, int is_lea,
			 struct t32_insn *in)
{
	unsigned bytes;
	const char *shape;
	int r;

	if (first && !is_lea) {
		int b = op->mem.base == X86_REG_INVALID ? -1 :
			reg_res(op->mem.base, &bytes, &shape);
		int ix = op->mem.index == X86_REG_INVALID ? -1 :
			 reg_res(op->mem.index, &bytes, &shape);

		in->mem_base = b;
		in->mem_index = ix;
		in->mem_scale = (unsigned)op->mem.scale;
		in->mem_bytes = op->size;
		in->mem_disp = op->mem.disp;
		if (op->mem.base == X86_REG_RIP)
			in->mem_disp += (int64_t)(ci->address + ci->size);
		if ((b >= 0 || op->mem.base == X86_REG_INVALID ||
		     op->mem.base == X86_REG_RIP) &&
		    (ix >= 0 || op->mem.index == X86_REG_INVALID) &&
		    op->mem.segment == X86_REG_INVALID)
			in->flags |= T32_INSN_MEMKEY;
	}
	if (!is_lea && ci->id != X86_INS_NOP) {
		if ((op->access & CS_AC_READ) || !(op->access & CS_AC_WRITE))
			in->flags |= T32_INSN_LOAD;
		if (op->access & CS_AC_WRITE)
			in->flags |= T32_INSN_STORE;
	}
	if (op->mem.base != X86_REG_INVALID &&
	    (r = reg_res(op->mem.base, &bytes, &shape)) >= 0) {
		if (in->naddrs < 2)
			in->addrs[in->naddrs++] = (uint8_t)r;
		if (op->mem.index == X86_REG_INVALID && op->mem.disp >= 0 &&
		    op->mem.disp < 2048)
			in->flags |= T32_INSN_CHASEABLE;
	}
	if (op->mem.index != X86_REG_INVALID &&
	    (r = reg_res(op->mem.index, &bytes, &shape)) >= 0) {
		in->flags |= T32_INSN_INDEXED;
		if (in->naddrs < 2)
			in->addrs[in->naddrs++] = (uint8_t)r;
	}
}

/*
 * The instruction's class: fixed ids first, then lock, branch, memory moves,
 * vector, alu; a nop touches nothing, and only a memory access has an address.
 */
static void classify(const cs_insn *ci, int vector, int mem_move, struct t32_insn *in)
{
	const cs_x86 *x = &ci->detail->x86;

	in->cls = T32_CLASS_ALU;
	for (unsigned g = 0; g < ci->detail->groups_count; g++)
		if (in_list(vector_groups, NELEM(vector_groups), ci->detail->groups[g]))
			vector = 1;
	if (vector)
		in->cls = T32_CLASS_VECTOR;
	if (mem_move)
		in->cls = (in->flags & T32_INSN_STORE) ? T32_CLASS_STORE : T32_CLASS_LOAD;
	for (unsigned g = 0; g < ci->detail->groups_count; g++) {
		uint8_t grp = ci->detail->groups[g];

		if (grp == X86_GRP_JUMP || grp == X86_GRP_CALL || grp == X86_GRP_RET ||
		    grp == X86_GRP_BRANCH_RELATIVE)
			in->cls = T32_CLASS_BRANCH;
	}
	for (size_t i = 0; i < NELEM(id_classes); i++)
		if (id_classes[i].id == ci->id)
			in->cls = id_classes[i].cls;
	if (x->prefix[0] == X86_PREFIX_LOCK ||
	    (ci->id == X86_INS_XCHG && (in->flags & (T32_INSN_LOAD | T32_INSN_STORE)))) {
		in->flags |= T32_INSN_LOCK;
		in->cls = T32_CLASS_ATRETIRE;
	}
	if (in->cls == T32_CLASS_NOP) {
		in->nreads = in->naddrs = in->nwrites = 0;
		in->flags &= ~(T32_INSN_LOAD | T32_INSN_STORE | T32_INSN_CHASEABLE |
			       T32_INSN_INDEXED | T32_INSN_MEMKEY);
	}
	if (!(in->flags & (T32_INSN_LOAD | T32_INSN_STORE)))
		in->flags &= ~(T32_INSN_CHASEABLE | T32_INSN_INDEXED | T32_INSN_MEMKEY);
}

/* push/pop/call/ret: the stack engine tracks rsp (unless it is named), and memory is touched. */
static void describe_stack(const cs_insn *ci, struct t32_insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	unsigned bytes;
	const char *shape;
	int explicit_rsp = 0;

	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG &&
		    reg_res(x->operands[i].reg, &bytes, &shape) == T32_RES_RSP)
			explicit_rsp = 1;
	if (!explicit_rsp) {
		drop_res(in->reads, &in->nreads, T32_RES_RSP);
		drop_res(in->writes, &in->nwrites, T32_RES_RSP);
	}
	if (ci->id == X86_INS_PUSH || ci->id == X86_INS_CALL)
		in->flags |= T32_INSN_STORE;
	else
		in->flags |= T32_INSN_LOAD;
}

/* Its text as written, and its form: the mnemonic and each operand's shape. */
static void describe_text(const cs_insn *ci, struct t32_insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	size_t used;

	snprintf(in->text, sizeof(in->text), "%s%s%s", ci->mnemonic, ci->op_str[0] ? " " : "",
		 ci->op_str);
	used = (size_t)snprintf(in->form, sizeof(in->form), "%s", ci->mnemonic);
	for (unsigned i = 0; i < x->op_count && used < sizeof(in->form); i++) {
		char shp[16];

		operand_shape(&x->operands[i], shp, sizeof(shp));
		used += (size_t)snprintf(in->form + used, sizeof(in->form) - used, "%s%s",
					 i ? ", " : " ", shp);
	}
}

/*
 * The resource of reg, from capstone's list of the registers in reads (write 0) or
 * writes (1); -1 for one that is none, and for EFLAGS, whose flags this adds to
 * in's reads or writes as x reads or writes them.
 */
static int listed_res(x86_reg reg, const cs_x86 *x, int write, struct t32_insn *in,
		      unsigned *bytes, const char **shape)
{
	if (reg != X86_REG_EFLAGS)
		return reg_res(reg, bytes, shape);
	if (write)
		add_flags(in->writes, &in->nwrites, x->eflags, CF_WRITE, OSZAP_WRITE);
	else
		add_flags(in->reads, &in->nreads, x->eflags, CF_READ, OSZAP_READ);
	return -1;
}

/* Fill in one instruction from capstone's decoding. */
static void describe(csh h, const cs_insn *ci, struct t32_insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	cs_regs rr, rw;
	uint8_t nrr = 0, nrw = 0;
	int explicit_read[T32_NRES] = { 0 }, addr_only[T32_NRES] = { 0 };
	int is_move = in_list(move_ids, NELEM(move_ids), ci->id);
	int is_lea = ci->id == X86_INS_LEA;
	int vector = 0, mem_ops = 0;
	unsigned bytes;
	const char *shape;

	memset(in, 0, sizeof(*in));
	in->mem_base = in->mem_index = -1;
	in->offset = ci->address;
	in->size = ci->size;
	describe_text(ci, in);

	/* operands: memory accesses, address registers, explicit reads */
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		int r;

		if (op->type == X86_OP_REG) {
			r = reg_res(op->reg, &bytes, &shape);
			if (r >= 0 && (op->access & CS_AC_READ))
				explicit_read[r] = 1;
			if (r >= 0 && shape)
				vector = 1;
		} else if (op->type == X86_OP_MEM) {
			mem_ops++;
			describe_mem(ci, op, mem_ops == 1, is_lea, in);
		}
	}
	for (unsigned i = 0; i < in->naddrs; i++)
		addr_only[in->addrs[i]] = 1;
	for (unsigned i = 0; i < ci->detail->regs_read_count; i++) {
		int r = reg_res(ci->detail->regs_read[i], &bytes, &shape);

		if (r >= 0)
			explicit_read[r] = 1;
	}
	for (int r = 0; r < T32_NRES; r++)
		if (explicit_read[r])
			addr_only[r] = 0;

	/* registers, explicit and implicit */
	if (cs_regs_access(h, ci, rr, &nrr, rw, &nrw) != CS_ERR_OK)
		nrr = nrw = 0;
	for (unsigned i = 0; i < nrr; i++) {
		int r = listed_res(rr[i], x, 0, in, &bytes, &shape);

		if (r < 0)
			continue;
		vector |= shape != NULL;
		if (is_lea || !addr_only[r])
			add_res(in->reads, &in->nreads, (unsigned)r);
	}
	for (unsigned i = 0; i < nrw; i++) {
		int r = listed_res(rw[i], x, 1, in, &bytes, &shape);

		if (r < 0)
			continue;
		vector |= shape != NULL;
		add_res(in->writes, &in->nwrites, (unsigned)r);
		/* an 8- or 16-bit write merges into the full register: it reads it too */
		if (!shape && bytes < 4)
			add_res(in->reads, &in->nreads, (unsigned)r);
	}
	if (is_lea)
		in->naddrs = 0;

	if (in_list(stack_ids, NELEM(stack_ids), ci->id))
		describe_stack(ci, in);

	if (zero_idiom(ci)) {
		in->flags |= T32_INSN_ZERO_IDIOM;
		in->nreads = 0;
	}
	if (eliminable_move(ci))
		in->flags |= T32_INSN_MOVE;

	classify(ci, vector, is_move && mem_ops, in);
}

int t32_deps_decode(const unsigned char *code, size_t len, struct t32_insn **out, size_t *n,
		    char *err, size_t errlen)
{
	csh h;
	cs_insn *ci = NULL;
	size_t count = 0, done = 0;
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = 0;
	struct t32_insn *v = NULL;

	*out = NULL;
	*n = 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		snprintf(err, errlen, "cannot open the disassembler 'capstone'");
		return -1;
	}
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	ci = cs_malloc(h);
	if (!ci) {
		cs_close(&h);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (left > 0) {
		if (!cs_disasm_iter(h, &p, &left, &addr, ci)) {
			snprintf(err, errlen, "cannot decode the byte at offset %llu '%02x'",
				 (unsigned long long)addr, *p);
			free(v);
			cs_free(ci, 1);
			cs_close(&h);
			return -1;
		}
		if (done == count) {
			size_t want = count ? 2 * count : 16;
			struct t32_insn *nv = realloc(v, want * sizeof(*nv));

			if (!nv) {
				free(v);
				cs_free(ci, 1);
				cs_close(&h);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			v = nv;
			count = want;
		}
		describe(h, ci, &v[done++]);
	}
	cs_free(ci, 1);
	cs_close(&h);
	*out = v;
	*n = done;
	return 0;
}
