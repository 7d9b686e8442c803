/*
 * deps.h - what each instruction of a block reads, writes and is, decoded from its
 * machine code with capstone: the input of the retirement model (model.h).
 *
 * Registers are named by the resource they occupy after renaming: al, ah, ax, eax
 * and rax are all T32_RES_RAX; xmm3, ymm3 and zmm3 are one vector register; the
 * flags are two resources (CF, and OF/SF/ZF/AF/PF), as modern cores rename them.
 * Zero idioms (xor eax, eax) read nothing; register moves are marked so a
 * micro-architecture with move elimination can make them free.
 */
#ifndef T32_DEPS_H
#define T32_DEPS_H

#include <stddef.h>
#include <stdint.h>

/* Resources an instruction can read or write. */
enum {
	T32_RES_RAX = 0,	/* 16 general registers in encoding order: rax rcx rdx rbx */
	T32_RES_RSP = 4,	/* rsp rbp rsi rdi r8 .. r15 */
	T32_RES_V0 = 16,	/* 32 vector registers: xmm/ymm/zmm n */
	T32_RES_K0 = 48,	/* 8 AVX-512 mask registers */
	T32_RES_MM0 = 56,	/* 8 MMX / x87 stack registers */
	T32_RES_CF = 64,	/* carry flag */
	T32_RES_OSZAP = 65,	/* the other arithmetic flags */
	T32_NRES = 66
};

/* What an instruction mostly does: picks its default latency and retirement rule. */
enum t32_class {
	T32_CLASS_NOP,		/* allocates and retires, never executes */
	T32_CLASS_ALU,		/* integer arithmetic, logic, moves, lea */
	T32_CLASS_LOAD,		/* a pure load: mov r, [m], pop */
	T32_CLASS_STORE,	/* a pure store: mov [m], r, push */
	T32_CLASS_MUL,		/* integer multiply */
	T32_CLASS_DIV,		/* integer divide */
	T32_CLASS_VECTOR,	/* SSE/AVX/MMX/x87 */
	T32_CLASS_BRANCH,	/* jumps, calls, returns */
	T32_CLASS_FENCE,	/* lfence, mfence, sfence: wait for earlier work, hold later work */
	T32_CLASS_ATRETIRE,	/* execute at retire: lock prefix, xchg with memory */
	T32_CLASS_SERIAL,	/* serialising (cpuid): at retire, and nothing allocates meanwhile */
	T32_NCLASS
};

struct t32_class_info {
	const char *name;	/* as in data files: "alu", "atretire" */
	const char *summary;
};
extern const struct t32_class_info t32_classes[T32_NCLASS];

/* Flags of struct t32_insn. */
#define T32_INSN_LOAD		0x01u	/* reads memory */
#define T32_INSN_STORE		0x02u	/* writes memory */
#define T32_INSN_ZERO_IDIOM	0x04u	/* result independent of its inputs: reads dropped */
#define T32_INSN_MOVE		0x08u	/* register to register move: eliminable at rename */
#define T32_INSN_LOCK		0x10u	/* locked (prefix, or xchg with memory) */
#define T32_INSN_INDEXED	0x20u	/* memory operand with an index register */
#define T32_INSN_CHASEABLE	0x40u	/* address is [base + 0..2047]: pointer-chase fast path */
#define T32_INSN_MEMKEY		0x80u	/* the mem_* fields name the address (for forwarding) */

#define T32_MAX_REGS 24		/* resources one instruction reads or writes, at most */

/* One decoded instruction and its dependencies. */
struct t32_insn {
	uint64_t offset;		/* bytes from the start of the code */
	unsigned size;			/* bytes */
	char text[200];			/* "mov rax, qword ptr [rax]" (capstone, Intel syntax) */
	char form[64];			/* mnemonic and operand shape: "mov r64, m64" */
	enum t32_class cls;
	unsigned flags;			/* T32_INSN_* */
	unsigned nreads, naddrs, nwrites;
	uint8_t reads[T32_MAX_REGS];	/* data inputs (T32_RES_*) */
	uint8_t addrs[2];		/* address inputs: base, index */
	uint8_t writes[T32_MAX_REGS];	/* outputs */
	int mem_base, mem_index;	/* address registers (T32_RES_*), -1 for none */
	unsigned mem_scale;		/* of the index */
	unsigned mem_bytes;		/* bytes accessed */
	int64_t mem_disp;		/* bytes; rip-relative: offset from the block start */
};

/*
 * Decode len bytes of 64-bit code.  On success *out is a malloc'd array of *n
 * instructions and 0 is returned; on failure -1 with the reason in err (an
 * undecodable byte names its offset).
 */
int t32_deps_decode(const unsigned char *code, size_t len, struct t32_insn **out, size_t *n,
		    char *err, size_t errlen);

/* Name of a resource: "rax", "v3", "k1", "mm0", "cf", "oszap". */
const char *t32_res_name(unsigned res);
/* Does the instruction read (as data or address) / write resource res? */
int t32_insn_reads(const struct t32_insn *in, unsigned res);
int t32_insn_writes(const struct t32_insn *in, unsigned res);
/* Class by name, -1 if unknown. */
int t32_class_parse(const char *name);

#endif
