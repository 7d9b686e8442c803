/*
 * tablegen.c - `t32 table gen`: capstone's mnemonics x operand shapes, NASM as
 * the judge of what exists (many forms per nasm run, its listing read back line
 * by line), capstone again to say what each form reads and writes, and a few
 * written-down rules for what a timed block must never run and how to make a
 * chain and independent copies.
 */
#include "t32/core/tablegen.h"

#include <capstone/capstone.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/uarch.h"
#include "t32/core/block.h"
#include "t32/core/run.h"
#include "t32/spec.h"
#include "t32/util.h"

const char *const t32_tablegen_rule_text[T32_RULE_N] = {
	"changes control flow (jumps, calls, returns, loops, traps, transactions)",
	"privileged, I/O or a hypervisor's (faults in user mode, or leaves the guest)",
	"reads or writes the stack pointer (push, pop, enter, leave...): the block owns rsp",
	"touches segment registers, descriptor tables or the fs/gs base",
	"changes state the harness relies on (MXCSR, x87 control, direction flag, "
	"xsave state, shadow stack, waits, cpuid's trip to the hypervisor)",
	"could address memory outside the block's arena (a bit offset in a register)",
	"does not decode as one instruction in capstone",
};

/* ---- operand kinds and shapes ---- */

enum kind {
	K_R8, K_R16, K_R32, K_R64,
	K_M8, K_M16, K_M32, K_M64, K_M80, K_M128, K_M256, K_M512, K_M, K_MX,
	K_I8, K_I16, K_I32, K_I64,
	K_XMM, K_YMM, K_ZMM, K_K, K_MM, K_ST0, K_ST, K_CL,
	K_N
};

/* file: g general, v vector, k mask, m MMX, s x87, M memory, I immediate, c cl */
static const struct kind_info {
	const char *name;	/* in form names: add-r64-i8 */
	const char *lat;	/* in latency.lat forms: add r64, i */
	char file;
	const char *text;	/* memory, immediate and fixed operands as written */
	char ph;		/* throughput placeholder of a register kind */
} kinds[K_N] = {
	[K_R8] = { "r8", "r8", 'g', NULL, 'b' },
	[K_R16] = { "r16", "r16", 'g', NULL, 'w' },
	[K_R32] = { "r32", "r32", 'g', NULL, 'e' },
	[K_R64] = { "r64", "r64", 'g', NULL, 'r' },
	[K_M8] = { "m8", "m8", 'M', "byte", 0 },
	[K_M16] = { "m16", "m16", 'M', "word", 0 },
	[K_M32] = { "m32", "m32", 'M', "dword", 0 },
	[K_M64] = { "m64", "m64", 'M', "qword", 0 },
	[K_M80] = { "m80", "m80", 'M', "tword", 0 },
	[K_M128] = { "m128", "m128", 'M', "oword", 0 },
	[K_M256] = { "m256", "m256", 'M', "yword", 0 },
	[K_M512] = { "m512", "m512", 'M', "zword", 0 },
	[K_M] = { "m", "m", 'M', "", 0 },
	[K_MX] = { "mbis", "m", 'M', "", 0 },	/* base + index*scale + displacement */
	[K_I8] = { "i8", "i", 'I', "5", 0 },
	[K_I16] = { "i16", "i", 'I', "0x1234", 0 },
	[K_I32] = { "i32", "i", 'I', "0x12345678", 0 },
	[K_I64] = { "i64", "i", 'I', "0x123456789abcdef", 0 },
	[K_XMM] = { "xmm", "xmm", 'v', NULL, 'x' },
	[K_YMM] = { "ymm", "ymm", 'v', NULL, 'y' },
	[K_ZMM] = { "zmm", "zmm", 'v', NULL, 'z' },
	[K_K] = { "k", "k", 'k', NULL, 'k' },
	[K_MM] = { "mm", "mm", 'm', NULL, 'm' },
	[K_ST0] = { "st0", "st", 's', "st0", 0 },
	[K_ST] = { "st", "st", 's', "st1", 0 },
	[K_CL] = { "cl", "r8", 'c', "cl", 0 },
};

/*
 * General-purpose registers by number, in table.c's rotation order; rsp is no
 * operand of any form.  Operand i of a shape uses register i of its file (rax,
 * rbx, rcx, rdx; xmm0..3; k1..4; mm1..4); memory is always [rsi], which no
 * operand names, so no form writes its own base.
 */
#define NGPR 15
static const char *const gpr_names[4][NGPR] = {
	{ "al", "bl", "cl", "dl", "sil", "dil", "bpl", "r8b", "r9b", "r10b", "r11b", "r12b",
	  "r13b", "r14b", "r15b" },
	{ "ax", "bx", "cx", "dx", "si", "di", "bp", "r8w", "r9w", "r10w", "r11w", "r12w",
	  "r13w", "r14w", "r15w" },
	{ "eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "r8d", "r9d", "r10d", "r11d",
	  "r12d", "r13d", "r14d", "r15d" },
	{ "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12",
	  "r13", "r14", "r15" },
};
#define GPR_RCX 2
#define GPR_RSI 4
#define MAX_OPS 4

struct shape {
	unsigned char n;
	unsigned char k[MAX_OPS];
};

/* Shapes by the kind of mnemonic: legacy, x87 (f...), mask (k...), VEX/EVEX (v...). */
enum family { FAM_LEGACY, FAM_X87, FAM_MASK, FAM_VEX, FAM_N };

struct shapes {
	struct shape *s;
	size_t n, cap;
};

static int add_shape(struct shapes *ss, int n, int a, int b, int c, int d)
{
	struct shape sh = { (unsigned char)n, { (unsigned char)a, (unsigned char)b,
						 (unsigned char)c, (unsigned char)d } };

	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? 2 * ss->cap : 256;
		struct shape *grown = realloc(ss->s, cap * sizeof(*grown));

		if (!grown)
			return -1;
		ss->s = grown;
		ss->cap = cap;
	}
	ss->s[ss->n++] = sh;
	return 0;
}
#define S0() add_shape(ss, 0, 0, 0, 0, 0)
#define S1(a) add_shape(ss, 1, a, 0, 0, 0)
#define S2(a, b) add_shape(ss, 2, a, b, 0, 0)
#define S3(a, b, c) add_shape(ss, 3, a, b, c, 0)
#define S4(a, b, c, d) add_shape(ss, 4, a, b, c, d)

static const int gprs[] = { K_R8, K_R16, K_R32, K_R64 };
static const int gmems[] = { K_M8, K_M16, K_M32, K_M64 };
static const int mems[] = { K_M8, K_M16, K_M32, K_M64, K_M128, K_M256, K_M512 };
static const int vecs[] = { K_XMM, K_YMM, K_ZMM };
static const int vmems[] = { K_M128, K_M256, K_M512 };
#define N(a) (sizeof(a) / sizeof(a[0]))

/* The widest immediate an operation of width w takes. */
static int imm_of(int w)
{
	return w == K_R8 ? K_I8 : w == K_R16 ? K_I16 : K_I32;
}

/* Legacy shapes: general registers, memory, immediates, SSE and MMX. */
static int legacy_shapes(struct shapes *ss)
{
	int rc = S0();

	for (size_t i = 0; i < N(gprs); i++) {
		int r = gprs[i], m = gmems[i], im = imm_of(r);

		rc |= S1(r) | S1(m);
		rc |= S2(r, r) | S2(r, m) | S2(m, r) | S2(r, K_I8) | S2(r, im) | S2(m, K_I8) | S2(m, im);
		rc |= S2(r, K_CL) | S2(m, K_CL);
		rc |= S3(r, r, r) | S3(r, r, m) | S3(r, m, r) | S3(r, r, K_I8) | S3(r, r, im);
		rc |= S3(r, m, K_I8) | S3(r, m, im) | S3(m, r, K_I8) | S3(m, r, K_CL) | S3(r, r, K_CL);
		for (size_t j = 0; j < N(gprs); j++)
			if (j != i)
				rc |= S2(r, gprs[j]) | S2(r, gmems[j]);
		rc |= S2(r, K_M) | S2(r, K_MX) | S2(r, K_XMM) | S2(K_XMM, r) | S2(r, K_MM) | S2(K_MM, r);
		rc |= S3(r, K_XMM, K_I8) | S3(K_XMM, r, K_I8) | S3(r, K_MM, K_I8) | S3(K_MM, r, K_I8);
	}
	rc |= S2(K_R64, K_I64) | S1(K_M) | S1(K_M128) | S1(K_I8) | S1(K_I16);
	for (size_t i = 0; i < N(mems); i++)
		rc |= S2(K_XMM, mems[i]) | S2(mems[i], K_XMM) | S3(K_XMM, mems[i], K_I8) |
		      S3(mems[i], K_XMM, K_I8);
	rc |= S2(K_XMM, K_XMM) | S2(K_XMM, K_I8) | S3(K_XMM, K_XMM, K_I8) | S2(K_M, K_XMM);
	rc |= S2(K_XMM, K_MM) | S2(K_MM, K_XMM) | S2(K_MM, K_MM) | S2(K_MM, K_M64) |
	      S2(K_M64, K_MM) | S2(K_MM, K_I8) | S3(K_MM, K_MM, K_I8) | S3(K_MM, K_M64, K_I8);
	rc |= S1(K_XMM) | S1(K_MM);
	return rc ? -1 : 0;
}

/* x87: stack registers and memory of every size. */
static int x87_shapes(struct shapes *ss)
{
	int rc = S0() | S1(K_ST) | S2(K_ST0, K_ST) | S2(K_ST, K_ST0);

	rc |= S1(K_M16) | S1(K_M32) | S1(K_M64) | S1(K_M80) | S1(K_M) | S1(K_R16);
	return rc ? -1 : 0;
}

/* AVX-512 mask registers. */
static int mask_shapes(struct shapes *ss)
{
	int rc = S1(K_K) | S2(K_K, K_K) | S3(K_K, K_K, K_K) | S3(K_K, K_K, K_I8);

	for (size_t i = 0; i < N(gprs); i++)
		rc |= S2(K_K, gprs[i]) | S2(gprs[i], K_K) | S2(K_K, gmems[i]) | S2(gmems[i], K_K);
	return rc ? -1 : 0;
}

/* VEX and EVEX: xmm, ymm, zmm in every mix a form may take, memory of every size. */
static int vex_shapes(struct shapes *ss)
{
	int rc = S0();

	for (size_t i = 0; i < N(vecs); i++) {
		int v = vecs[i], vm = vmems[i];

		rc |= S1(v) | S2(v, v) | S3(v, v, v) | S4(v, v, v, v);
		rc |= S3(v, v, K_I8) | S3(v, vm, K_I8) | S4(v, v, v, K_I8) | S4(v, v, vm, K_I8);
		rc |= S4(v, v, vm, v) | S4(v, v, v, vm) | S3(v, v, K_XMM) | S3(v, v, K_M128);
		rc |= S2(K_K, v) | S2(v, K_K) | S3(K_K, v, v) | S3(K_K, v, K_I8) | S4(K_K, v, v, K_I8);
		rc |= S2(K_R32, v) | S2(K_R64, v) | S2(v, K_R32) | S2(v, K_R64);
		for (size_t m = 0; m < N(mems); m++)
			rc |= S2(v, mems[m]) | S2(mems[m], v) | S3(v, v, mems[m]) |
			      S3(v, mems[m], K_I8) | S4(v, v, mems[m], K_I8) | S3(K_K, v, mems[m]) |
			      S4(K_K, v, mems[m], K_I8) | S3(K_K, mems[m], K_I8) |
			      S3(mems[m], v, K_I8);
		for (size_t j = 0; j < N(vecs); j++)
			if (j != i)
				rc |= S2(v, vecs[j]) | S3(v, vecs[j], K_I8) | S3(v, v, vecs[j]) |
				      S4(v, v, vecs[j], K_I8);
	}
	rc |= S3(K_XMM, K_XMM, K_R32) | S3(K_XMM, K_XMM, K_R64) | S4(K_XMM, K_XMM, K_R32, K_I8) |
	      S4(K_XMM, K_XMM, K_R64, K_I8) | S3(K_R32, K_XMM, K_I8) | S3(K_R64, K_XMM, K_I8);
	rc |= S1(K_M32) | S1(K_M);
	for (size_t i = 0; i < N(gprs); i++) {
		int r = gprs[i];

		/* BMI forms carry a v: andn and the like are VEX-encoded general-purpose forms */
		rc |= S3(r, r, r) | S3(r, r, gmems[i]) | S3(r, gmems[i], r);
	}
	return rc ? -1 : 0;
}

static int family_of(const char *mn)
{
	if (mn[0] == 'f' && strcmp(mn, "femms") != 0)
		return FAM_X87;
	if (mn[0] == 'k')
		return FAM_MASK;
	if (mn[0] == 'v')
		return FAM_VEX;
	return FAM_LEGACY;
}

/* ---- rules ---- */

/* Mnemonics a rule excludes by name (capstone's groups and registers catch the rest). */
static const struct {
	enum t32_tablegen_rule rule;
	const char *words;
} named_rules[] = {
	{ T32_RULE_CONTROL,
	  "xbegin xend xabort loop* j* call ret* ud* int* syscall sysenter sysexit* "
	  "sysret* iret* uiret" },
	{ T32_RULE_PRIVILEGED,
	  "hlt cli sti rdmsr wrmsr in out ins* outs* lgdt lidt lldt ltr lmsw invlpg* invd "
	  "wbinvd wbnoinvd clts rdpmc invpcid invept invvpid xsetbv sgdt sidt sldt str "
	  "smsw clac stac clgi stgi skinit vmcall vmclear vmfunc vmlaunch vmload vmmcall "
	  "vmptrld vmptrst vmread vmresume vmrun vmsave vmwrite vmxoff vmxon getsec rsm "
	  "encl* pconfig loadiwkey enqcmd* hreset rmpadjust pvalidate psmash rmpupdate" },
	{ T32_RULE_SEGMENT,
	  "swapgs lar lsl verr verw arpl lds les lfs lgs lss rdfsbase rdgsbase wrfsbase "
	  "wrgsbase" },
	{ T32_RULE_STATE,
	  "std ldmxcsr vldmxcsr fldcw fldenv frstor fnsave fsave fnstenv fstenv fninit "
	  "finit fxrstor* fxsave* xrstor* xsave* cpuid monitor* mwait* umonitor umwait "
	  "tpause xsusldtrk xresldtrk clui stui senduipi testui ptwrite incssp* rdssp* "
	  "saveprevssp rstorssp wrss* wruss* setssbsy clrssbsy wrpkru xstore* xcrypt* "
	  "xsha* montmul ldtilecfg sttilecfg tilerelease" },
};

/*
 * Is mn one of words (mnemonics separated by spaces)?  A word ending in '*'
 * stands for every mnemonic it begins: ktest* for ktestb, ktestw...
 */
static int in_words(const char *mn, const char *words)
{
	size_t len = strlen(mn);

	for (const char *w = words + strspn(words, " "); *w; w += strspn(w, " ")) {
		size_t n = strcspn(w, " ");
		int prefix = w[n - 1] == '*';
		size_t m = n - (size_t)prefix;

		if ((prefix ? len >= m : len == m) && strncmp(mn, w, m) == 0)
			return 1;
		w += n;
	}
	return 0;
}

static int named_rule(const char *mn)
{
	for (size_t i = 0; i < N(named_rules); i++)
		if (in_words(mn, named_rules[i].words))
			return (int)named_rules[i].rule;
	return -1;
}

/* ---- registers as capstone names them ---- */

struct reg {
	char file;	/* g v k m s f(lags); S stack, P ip, G segment, C control; 0 ignored */
	int num;
};

static struct reg canon(const char *name)
{
	struct reg r = { 0, 0 };
	static const char *const high[] = { "ah", "bh", "ch", "dh" };

	if (!name)
		return r;
	for (int w = 0; w < 4; w++)
		for (int i = 0; i < NGPR; i++)
			if (strcmp(name, gpr_names[w][i]) == 0)
				return (struct reg){ 'g', i };
	for (int i = 0; i < 4; i++)
		if (strcmp(name, high[i]) == 0)
			return (struct reg){ 'g', i };
	if (!strcmp(name, "rsp") || !strcmp(name, "esp") || !strcmp(name, "sp") ||
	    !strcmp(name, "spl"))
		return (struct reg){ 'S', 0 };
	if (!strcmp(name, "rip") || !strcmp(name, "eip") || !strcmp(name, "ip"))
		return (struct reg){ 'P', 0 };
	if (!strcmp(name, "rflags") || !strcmp(name, "eflags") || !strcmp(name, "flags"))
		return (struct reg){ 'f', 0 };
	if (strlen(name) == 2 && name[1] == 's' && strchr("cdefgs", name[0]))
		return (struct reg){ 'G', 0 };
	if ((name[0] == 'c' || name[0] == 'd') && name[1] == 'r' && isdigit((unsigned char)name[2]))
		return (struct reg){ 'C', 0 };
	if ((!strncmp(name, "xmm", 3) || !strncmp(name, "ymm", 3) || !strncmp(name, "zmm", 3)) &&
	    isdigit((unsigned char)name[3]))
		return (struct reg){ 'v', atoi(name + 3) };
	if (name[0] == 'k' && isdigit((unsigned char)name[1]))
		return (struct reg){ 'k', atoi(name + 1) };
	if (name[0] == 'm' && name[1] == 'm' && isdigit((unsigned char)name[2]))
		return (struct reg){ 'm', atoi(name + 2) };
	if (name[0] == 's' && name[1] == 't')
		return (struct reg){ 's', 0 };
	return r;	/* fpsw, mxcsr and the like: no chain runs through them here */
}

/* ---- rendering a form's text ---- */

struct cand {
	unsigned mn;		/* index into the mnemonic list */
	struct shape sh;
	int regs[MAX_OPS];	/* register number of each register operand */
	int lea_chain;		/* lea: 1 + the register that is the memory base; 0: rsi */
	unsigned char bytes[16];
	unsigned char nbytes;
	int ok;			/* assembled */
	char text[160];
};

/* Operand i of c as NASM text; ph, if not 0, writes that placeholder instead. */
static void operand_text(const struct cand *c, int i, const char *mn, char ph, char *buf,
			 size_t len)
{
	int k = c->sh.k[i];
	const struct kind_info *ki = &kinds[k];
	int r = c->regs[i];
	const char *base = gpr_names[3][GPR_RSI];
	char basebuf[8];

	switch (ki->file) {
	case 'g':
		if (ph)
			snprintf(buf, len, "{%c}", ph);
		else
			snprintf(buf, len, "%s", gpr_names[k - K_R8][r]);
		return;
	case 'v':
		if (ph)
			snprintf(buf, len, "{%c}", ph);
		else
			snprintf(buf, len, "%s%d", k == K_XMM ? "xmm" : k == K_YMM ? "ymm" : "zmm", r);
		return;
	case 'k':
	case 'm':
		if (ph)
			snprintf(buf, len, "{%c}", ph);
		else
			snprintf(buf, len, "%s%d", ki->file == 'k' ? "k" : "mm", r);
		return;
	case 'M':
		if (ph)
			base = "{r}";
		else if (c->lea_chain)
			base = gpr_names[3][c->lea_chain - 1];
		snprintf(basebuf, sizeof(basebuf), "%s", base);
		/*
		 * [rsi]: 256-byte aligned, so aligned vector forms and cmpxchg16b run;
		 * a divisor reads [rsi+8], whose low byte is not zero
		 */
		if (k == K_MX)
			snprintf(buf, len, "[%s+rbx*4+8]", basebuf);
		else
			snprintf(buf, len, "%s%s[%s%s]", ki->text, *ki->text ? " " : "", basebuf,
				 !strcmp(mn, "div") || !strcmp(mn, "idiv") ? "+8" : "");
		return;
	default:
		snprintf(buf, len, "%s", ki->text);
		return;
	}
}

/* The whole instruction; ph_op (or -1) is the operand written as a placeholder. */
static void render(const struct cand *c, const char *mn, int ph_op, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s", mn);

	for (int i = 0; i < c->sh.n && used < len; i++) {
		char op[64];
		char ph = 0;

		if (i == ph_op)
			ph = kinds[c->sh.k[i]].file == 'M' ? 'r' : kinds[c->sh.k[i]].ph;
		operand_text(c, i, mn, ph, op, sizeof(op));
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : " ", op);
	}
}

/* Default registers: operand i takes register i of its file (rsi never). */
static void default_regs(struct cand *c, const char *mn)
{
	int next[128] = { 0 };

	next['k'] = next['m'] = 1;
	for (int i = 0; i < c->sh.n; i++) {
		char f = kinds[c->sh.k[i]].file;

		c->regs[i] = next[(unsigned char)f]++;
		if (f == 'g' && c->regs[i] >= GPR_RSI)
			c->regs[i]++;
	}
	/* a divisor in rcx: rdx:rax is the dividend, rcx=7 (init) */
	if ((!strcmp(mn, "div") || !strcmp(mn, "idiv")) && c->sh.n == 1 &&
	    kinds[c->sh.k[0]].file == 'g')
		c->regs[0] = GPR_RCX;
}

/* ---- nasm in batches ---- */

/*
 * Assemble c[0..n) in one nasm run (BITS 64, one instruction a line) and read
 * each line's bytes or error from the listing.  A first-pass error stops nasm
 * before the listing: the lines it names are marked and the rest tried again.
 * 0, or -1 with a message printed.
 */
static int assemble_batch(struct cand *c, size_t n, unsigned *runs)
{
	char *src = NULL, *lst = NULL, *diag = NULL;
	size_t len = 0;
	unsigned char *skip = calloc(n ? n : 1, 1);
	int rc = -1;

	if (!skip) {
		t32_error("out of memory for '%zu forms'", n);
		return -1;
	}
	for (int tries = 0; tries < 8; tries++) {
		FILE *f = open_memstream(&src, &len);
		struct t32_fault flt;
		int st, listed = 0;

		if (!f)
			break;
		fputs("BITS 64\n", f);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s\n", skip[i] ? "" : c[i].text);
		fclose(f);
		st = t32_nasm_listing(src, &lst, &diag, &flt);
		(*runs)++;
		free(src);
		src = NULL;
		if (st < 0) {
			t32_error("cannot assemble the candidate forms (%s)", flt.msg);
			break;
		}
		for (char *p = lst, *end = lst ? lst + strlen(lst) : NULL; p && p < end;) {
			/* memchr, not strchr: a checked strchr scans to the end of the listing */
			char *eol = memchr(p, '\n', (size_t)(end - p));
			unsigned long line;
			char *q;

			if (eol)
				*eol = 0;
			line = strtoul(p, &q, 10);
			listed = 1;
			if (line >= 2 && line - 2 < n) {
				struct cand *x = &c[line - 2];

				while (*q == ' ')
					q++;
				if (strncmp(q, "******", 6) == 0) {
					if (strstr(q, "error:"))
						x->ok = -1;
				} else if (isxdigit((unsigned char)q[0]) && strlen(q) > 9 && q[8] == ' ') {
					q += 9;
					while (isxdigit((unsigned char)q[0]) && isxdigit((unsigned char)q[1]) &&
					       x->nbytes < sizeof(x->bytes)) {
						unsigned v;

						sscanf(q, "%2x", &v);
						x->bytes[x->nbytes++] = (unsigned char)v;
						q += 2;
					}
				}
			}
			p = eol ? eol + 1 : end;
		}
		if (listed || st == 0) {
			for (size_t i = 0; i < n; i++)
				c[i].ok = !skip[i] && c[i].ok == 0 && c[i].nbytes > 0;
			rc = 0;
			break;
		}
		/* stopped in the first pass: drop the lines it names and go again */
		{
			int dropped = 0;

			for (char *p = diag; p && (p = strstr(p, ": error: ")); p += 9) {
				char *num = p;

				while (num > diag && isdigit((unsigned char)num[-1]))
					num--;
				unsigned long line = strtoul(num, NULL, 10);

				if (line >= 2 && line - 2 < n && !skip[line - 2]) {
					skip[line - 2] = 1;
					dropped = 1;
				}
			}
			if (!dropped) {
				t32_error("cannot assemble the candidate forms (nasm gave no listing: %.200s)",
					  diag ? diag : "no message");
				break;
			}
			free(lst);
			free(diag);
			lst = diag = NULL;
		}
	}
	free(lst);
	free(diag);
	free(skip);
	return rc;
}

/*
 * x87 arithmetic reads and writes its destination: st0 (a memory or unary form)
 * or the stack register it names first.
 */
static int x87_chains(const struct cand *c, const char *mn)
{
	static const char *const arith[] = { "fadd", "fsub", "fsubr", "fmul", "fdiv", "fdivr",
					     "fiadd", "fisub", "fisubr", "fimul", "fidiv",
					     "fidivr", NULL };
	static const char *const unary[] = { "fabs", "fchs", "fsqrt", "frndint", "fsin", "fcos",
					     "f2xm1", "fscale", "fprem", "fprem1", NULL };

	if (mn[0] != 'f')
		return 0;
	for (int i = 0; arith[i]; i++)
		if (!strcmp(mn, arith[i]))
			return c->sh.n >= 1;
	for (int i = 0; unary[i]; i++)
		if (!strcmp(mn, unary[i]))
			return c->sh.n == 0;
	return 0;
}

/* ---- one assembled form judged ---- */

struct regset {
	struct reg r[64];
	int n;
};

static int regset_has(const struct regset *s, char file, int num)
{
	for (int i = 0; i < s->n; i++)
		if (s->r[i].file == file && (file == 'f' || file == 's' || s->r[i].num == num))
			return 1;
	return 0;
}

/* What the tables say of one kept form. */
struct form_out {
	char name[96];
	char insn[160];
	char lat_text[160];	/* latency chain text when it differs from insn, else "" */
	int nochain;
	int lat_via_op0;	/* the chain runs through operand 0 (or a register it names) */
	int template_op;	/* operand written as a placeholder, -1 literal, -2 no tp */
	int why;		/* with nochain: WHY_..., the reason chain=none:WORD gives */
	char init[48];
	int all_regs;		/* no memory operand */
};

/* ---- chains by rule ---- */

/*
 * What capstone's account of reads and writes cannot tell: forms whose chain,
 * built from that account, would carry no dependency through the operation.
 */
enum chain_rule {
	CR_PLAIN,	/* the chain from reads and writes stands */
	CR_FLAGS,	/* writes only flags: no chain */
	CR_UNREAD,	/* writes a register it does not read (cdq: edx from eax): no chain */
	CR_MOVE,	/* a copy: into itself it moves nothing, so two registers alternate */
	CR_MERGE,	/* scalar: one lane computed from the last source, the rest kept */
	CR_IDIOM,	/* with one register in every source, a zero or ones idiom */
};

/* The reasons chain=none:WORD gives (t32/io/table.c says them in full). */
enum { WHY_UNREAD_ASIS, WHY_FLAGS, WHY_MERGE, WHY_CONSTANT, WHY_UNREAD };
static const char *const why_words[] = { NULL, "flags", "merge", "constant", "unread" };

/*
 * The mnemonics whose chain a rule decides, first rule first (see in_words).
 * capstone 4 has test of an immediate write its operand: it writes flags only.
 */
static const struct {
	enum chain_rule rule;
	const char *words;
} chain_rules[] = {
	{ CR_FLAGS,
	  "test cmp bt ptest vptest vtestps vtestpd ktest* kortest* comis* ucomis* "
	  "vcomis* vucomis*" },
	{ CR_UNREAD,
	  "cwd cdq cqo" },
	{ CR_MOVE,
	  "mov movapd movaps movdqa movdqu movupd movups movq movss movsd vmovapd vmovaps "
	  "vmovdq* vmovupd vmovups vmovq vmovss vmovsd lea" },
	{ CR_MERGE,
	  "sqrtss sqrtsd rcpss rsqrtss roundss roundsd cvtss2sd cvtsd2ss cvtsi2ss "
	  "cvtsi2sd cvtpi2ps movlps movlpd movhps movhpd pinsr* vpinsr* vsqrtss vsqrtsd "
	  "vrcpss vrsqrtss vroundss vroundsd vcvtss2sd vcvtsd2ss vcvtsi2ss vcvtsi2sd "
	  "vcvtusi2ss vcvtusi2sd vmovlps vmovlpd vmovhps vmovhpd vrcp14ss vrcp14sd "
	  "vrsqrt14ss vrsqrt14sd vrcp28ss vrcp28sd vrsqrt28ss vrsqrt28sd vgetexpss "
	  "vgetexpsd vgetmantss vgetmantsd vrndscaless vrndscalesd vreducess vreducesd" },
	{ CR_IDIOM,
	  "xor sub pxor xorps xorpd vxorps vxorpd vpxor* pandn andnps andnpd vandnps "
	  "vandnpd vpandn* psub* vpsub* pcmpeq* pcmpgt* vpcmpeq* vpcmpgt* kxor* kxnor*" },
};

static enum chain_rule chain_rule_of(const char *mn)
{
	for (size_t i = 0; i < N(chain_rules); i++)
		if (in_words(mn, chain_rules[i].words))
			return chain_rules[i].rule;
	return CR_PLAIN;
}

/* The last operand that is no immediate (the source a scalar operation computes from), or -1. */
static int last_source(const struct cand *c)
{
	for (int i = c->sh.n - 1; i >= 1; i--)
		if (kinds[c->sh.k[i]].file != 'I')
			return i;
	return -1;
}

/* A register of file f other than r (never rsi): r's neighbour. */
static int other_reg(char f, int r)
{
	int o = r + 1;

	if (f == 'g' && o == GPR_RSI)
		o++;
	if ((f == 'k' || f == 'm') && o > 7)
		o = 1;
	return o;
}

static void no_chain(struct form_out *o, int why)
{
	o->lat_text[0] = 0;
	o->nochain = 1;
	o->why = why;
	o->lat_via_op0 = 0;
}

/*
 * Two registers alternating: `mov rbx, rax; mov rax, rbx` (each copy of the
 * text is two moves, and the cost divides by both), so a copy's result is the
 * next one's input through the operation itself, never a register into itself.
 * s is the source operand (a register of op 0's file, or lea's address).
 */
static void alternate(const struct cand *c, const char *mn, int s, struct form_out *o)
{
	char f0 = kinds[c->sh.k[0]].file;
	int r0 = c->regs[0], r1 = c->regs[s] != r0 && kinds[c->sh.k[s]].file == f0
					  ? c->regs[s] : other_reg(f0, r0);
	struct cand a = *c, b = *c;
	size_t used;

	for (int i = 1; i < c->sh.n; i++)
		if (kinds[c->sh.k[i]].file == f0)
			b.regs[i] = i == s ? r1 : r0;
	if (kinds[c->sh.k[s]].file == 'M')
		b.lea_chain = r1 + 1;
	for (int i = 0; i < c->sh.n; i++)
		if (kinds[c->sh.k[i]].file == f0)
			a.regs[i] = b.regs[i] == r0 ? r1 : r0;
	a.lea_chain = b.lea_chain ? r0 + 1 : 0;
	render(&a, mn, -1, o->lat_text, sizeof(o->lat_text));
	used = strlen(o->lat_text);
	snprintf(o->lat_text + used, sizeof(o->lat_text) - used, "; ");
	used += 2;
	render(&b, mn, -1, o->lat_text + used, sizeof(o->lat_text) - used);
	o->nochain = 0;
	o->lat_via_op0 = 1;
}

/*
 * The chain decided from reads and writes (o), checked against chain_rules:
 * flag-only writers and unread results have none; a copy becomes two registers
 * alternating (lea of a base alone is a copy, lea of a constant has no chain);
 * a scalar operation chains through the lane it computes (its last source made
 * the destination, `vsqrtss xmm0, xmm0, xmm0`) or, computing from memory or
 * another register file, has none: the destination's other lanes would make a
 * chain of merges.  An idiom keeps the chain it has; judge_by_shape never gives
 * it one register in every source.  Sets *need when the text must be assembled.
 */
static void chain_by_rule(const struct cand *c, const char *mn, struct form_out *o, int *need)
{
	enum chain_rule r = chain_rule_of(mn);
	char f0 = c->sh.n ? kinds[c->sh.k[0]].file : 0;
	int s = last_source(c);
	char fs = s > 0 ? kinds[c->sh.k[s]].file : 0;

	switch (r) {
	case CR_FLAGS:
		no_chain(o, WHY_FLAGS);
		return;
	case CR_UNREAD:
		no_chain(o, WHY_UNREAD);
		return;
	case CR_MOVE:
		if (!strchr("gvkm", f0 ? f0 : 'I') || c->sh.n < 2)
			return;
		if (!strcmp(mn, "lea")) {
			if (s < 1) {
				no_chain(o, WHY_CONSTANT);	/* lea eax, 5 */
			} else if (c->sh.k[s] != K_MX) {
				alternate(c, mn, s, o);
				*need = 1;
			}
			return;
		}
		if (s < 1 || fs != f0)
			return;		/* a constant, a load, a store, another file: decided already */
		alternate(c, mn, s, o);
		*need = 1;
		return;
	case CR_MERGE:
		if (!strchr("vg", f0 ? f0 : 'I') || s < 1)
			return;
		if (fs != f0) {
			no_chain(o, WHY_MERGE);
			return;
		}
		{
			struct cand l = *c;

			for (int i = 1; i < c->sh.n; i++)
				if (kinds[c->sh.k[i]].file == f0)
					l.regs[i] = c->regs[0];
			render(&l, mn, -1, o->lat_text, sizeof(o->lat_text));
			o->nochain = 0;
			o->lat_via_op0 = 1;
			*need = 1;
		}
		return;
	default:
		return;
	}
}

/* What a decoded form reads and writes, as the chain and template rules need it. */
struct access {
	struct regset R, W;	/* registers read, written */
	int mem_rw, mem_w;	/* a memory operand read and written; written */
	int op0_written, op0_read;
};

/* The rule that excludes insn by its groups, names or registers, or -1. */
static int excluded_by(csh h, const cs_insn *insn, const struct cand *c, const char *mn,
		       struct access *a)
{
	cs_regs rr, ww;
	uint8_t nr = 0, nw = 0;
	int grp_rule = -1;

	for (int g = 0; g < insn->detail->groups_count; g++)
		switch (insn->detail->groups[g]) {
		case X86_GRP_JUMP:
		case X86_GRP_CALL:
		case X86_GRP_RET:
		case X86_GRP_INT:
		case X86_GRP_IRET:
		case X86_GRP_BRANCH_RELATIVE:
			grp_rule = T32_RULE_CONTROL;
			break;
		case X86_GRP_PRIVILEGE:
		case X86_GRP_VM:
			if (grp_rule < 0)
				grp_rule = T32_RULE_PRIVILEGED;
			break;
		}
	if (grp_rule >= 0)
		return grp_rule;
	if (named_rule(mn) >= 0)
		return named_rule(mn);
	if (cs_regs_access(h, insn, rr, &nr, ww, &nw) != CS_ERR_OK)
		return T32_RULE_DECODE;
	for (int i = 0; i < nr && a->R.n < 64; i++)
		a->R.r[a->R.n++] = canon(cs_reg_name(h, rr[i]));
	for (int i = 0; i < nw && a->W.n < 64; i++)
		a->W.r[a->W.n++] = canon(cs_reg_name(h, ww[i]));
	for (int i = 0; i < a->R.n + a->W.n; i++) {
		char f = i < a->R.n ? a->R.r[i].file : a->W.r[i - a->R.n].file;

		if (f == 'S')
			return T32_RULE_STACK;
		if (f == 'G')
			return T32_RULE_SEGMENT;
		if (f == 'C')
			return T32_RULE_PRIVILEGED;
	}
	/* the arena base must stay a pointer */
	if (regset_has(&a->W, 'g', GPR_RSI) && c->sh.n && kinds[c->sh.k[c->sh.n - 1]].file == 'M')
		return T32_RULE_ADDRESS;
	if ((!strncmp(mn, "bt", 2) && strlen(mn) <= 3) && c->sh.n == 2 &&
	    kinds[c->sh.k[0]].file == 'M' && kinds[c->sh.k[1]].file == 'g')
		return T32_RULE_ADDRESS;
	return -1;
}

/* Memory and operand 0: read, written, both. */
static void operand_access(const cs_insn *insn, const struct cand *c, const char *mn,
			   struct access *a)
{
	const cs_x86 *x = &insn->detail->x86;

	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && strcmp(mn, "lea") && strcmp(mn, "nop") &&
		    strncmp(mn, "prefetch", 8) && strncmp(mn, "clflush", 7) && strcmp(mn, "clwb") &&
		    strcmp(mn, "cldemote")) {
			if ((x->operands[i].access & CS_AC_WRITE) && (x->operands[i].access & CS_AC_READ))
				a->mem_rw = 1;
			if (x->operands[i].access & CS_AC_WRITE)
				a->mem_w = 1;
		}
	if (c->sh.n) {
		char f0 = kinds[c->sh.k[0]].file;

		if (f0 == 'g' || f0 == 'v' || f0 == 'k' || f0 == 'm') {
			a->op0_written = regset_has(&a->W, f0, c->regs[0]);
			a->op0_read = regset_has(&a->R, f0, c->regs[0]);
		} else if (f0 == 'M') {
			a->op0_written = a->mem_w;
			a->op0_read = a->mem_rw;
		}
	}
}

/*
 * The chain from reads and writes: as written when something written is read
 * (flags capstone says are tested and written, x87 arithmetic, a register, memory
 * read and written); else the first source of op 0's file made op 0, lea through
 * its base, mov r64, m64 as a pointer chase; else none.  Then chain_by_rule.
 */
static void chain_from(const cs_insn *insn, const struct cand *c, const char *mn,
		       const struct access *a, struct form_out *o, int *need_lat_asm)
{
	const cs_x86 *x = &insn->detail->x86;
	int through = a->mem_rw;
	const uint64_t tests = X86_EFLAGS_TEST_OF | X86_EFLAGS_TEST_SF | X86_EFLAGS_TEST_ZF |
			       X86_EFLAGS_TEST_PF | X86_EFLAGS_TEST_CF | X86_EFLAGS_TEST_AF;
	const uint64_t writes = 0x3full | X86_EFLAGS_RESET_OF | X86_EFLAGS_RESET_CF |
				X86_EFLAGS_RESET_SF | X86_EFLAGS_RESET_AF | X86_EFLAGS_RESET_PF |
				X86_EFLAGS_RESET_ZF | X86_EFLAGS_SET_CF | X86_EFLAGS_SET_OF |
				X86_EFLAGS_SET_SF | X86_EFLAGS_SET_ZF | X86_EFLAGS_SET_AF |
				(0x3full << 40);

	/* the flags: capstone says which an instruction tests and which it writes */
	if ((x->eflags & tests) && (x->eflags & writes))
		through = 1;
	/* x87: capstone 4 names no stack registers; the arithmetic reads its destination */
	if (x87_chains(c, mn))
		through = 1;
	for (int i = 0; i < a->W.n && !through; i++)
		if (a->W.r[i].file && strchr("gvkmsf", a->W.r[i].file) &&
		    regset_has(&a->R, a->W.r[i].file, a->W.r[i].num))
			through = 1;
	o->lat_text[0] = 0;
	o->nochain = 0;
	o->why = WHY_UNREAD_ASIS;
	o->lat_via_op0 = a->op0_written && a->op0_read;
	if (!through && a->op0_written && !a->op0_read && kinds[c->sh.k[0]].file != 'M') {
		char f0 = kinds[c->sh.k[0]].file;
		struct cand l = *c;
		int j = -1;

		for (int i = 1; i < c->sh.n && j < 0; i++)
			if (kinds[c->sh.k[i]].file == f0 && regset_has(&a->R, f0, c->regs[i]))
				j = i;
		if (j > 0) {
			l.regs[j] = c->regs[0];
			render(&l, mn, -1, o->lat_text, sizeof(o->lat_text));
		} else if (!strcmp(mn, "lea")) {
			l.lea_chain = c->regs[0] + 1;
			render(&l, mn, -1, o->lat_text, sizeof(o->lat_text));
		} else if (!strcmp(mn, "mov") && c->sh.n == 2 && c->sh.k[0] == K_R64 &&
			   c->sh.k[1] == K_M64) {
			snprintf(o->lat_text, sizeof(o->lat_text), "mov rax, qword [rax]");
		}
		if (o->lat_text[0]) {
			*need_lat_asm = 1;
			o->lat_via_op0 = 1;
		} else {
			o->nochain = 1;
		}
	} else if (!through) {
		o->nochain = 1;
	}
	chain_by_rule(c, mn, o, need_lat_asm);
}

/* The throughput template: which operand rotates (-1 none, -2 no template). */
static int template_from(const struct cand *c, const struct access *a)
{
	for (int i = 0; i < a->W.n; i++) {
		const struct reg *r = &a->W.r[i];
		int named = 0;

		if (!r->file || r->file == 'f' || r->file == 's')
			continue;
		for (int k = 0; k < c->sh.n; k++)
			if (kinds[c->sh.k[k]].file == r->file && c->regs[k] == r->num)
				named = 1;
		if (!named)
			return -2;	/* it writes a register it does not name */
	}
	if (c->sh.n && a->op0_written && kinds[c->sh.k[0]].file != 'M' && kinds[c->sh.k[0]].ph)
		return 0;
	if (c->sh.n && a->mem_rw && kinds[c->sh.k[0]].file == 'M')
		return 0;
	return -1;
}

/* Register set-up the form needs to run (division, xgetbv), into o->init. */
static void init_of(const struct cand *c, const char *mn, struct form_out *o)
{
	o->init[0] = 0;
	if ((!strcmp(mn, "div") || !strcmp(mn, "idiv")) && c->sh.n == 1 &&
	    kinds[c->sh.k[0]].file == 'g') {
		/*
		 * divisor 1 and the width's largest positive dividend: the quotient is
		 * the dividend and the remainder 0, so every division of the chain
		 * divides the same full-width number (a zero dividend is the divider's
		 * shortest case)
		 */
		static const char *const top[] = { "0x7f", "0x7fff", "0x7fffffff", "0x7fffffffffffffff" };

		snprintf(o->init, sizeof(o->init), "rax=%s,rdx=0,rcx=1", top[c->sh.k[0] - K_R8]);
	} else if (!strcmp(mn, "div") || !strcmp(mn, "idiv")) {
		/* a pointer as divisor: a zero dividend stays zero, and never overflows */
		snprintf(o->init, sizeof(o->init), "rax=0,rdx=0");
	} else if (!strcmp(mn, "xgetbv") || !strcmp(mn, "rdpkru")) {
		snprintf(o->init, sizeof(o->init), "rcx=0");
	}
}

/*
 * Judge form c (assembled, its bytes decoded as insn): -1 kept, else the rule
 * that excludes it.  Fills o with the chain and template decisions.
 */
static int judge(csh h, const cs_insn *insn, struct cand *c, const char *mn, struct form_out *o,
		 int *need_lat_asm)
{
	struct access a;
	int rule;

	memset(&a, 0, sizeof(a));
	rule = excluded_by(h, insn, c, mn, &a);
	if (rule >= 0)
		return rule;
	o->all_regs = 1;
	for (int i = 0; i < c->sh.n; i++)
		if (kinds[c->sh.k[i]].file == 'M')
			o->all_regs = 0;
	operand_access(insn, c, mn, &a);
	chain_from(insn, c, mn, &a, o, need_lat_asm);
	o->template_op = template_from(c, &a);
	init_of(c, mn, o);
	return -1;
}

/*
 * A VEX/EVEX or mask form capstone cannot decode: operand 0, a register, is
 * taken as the destination and the rest as sources (so a destination that is
 * also read, as in vpermt2d, still chains); a memory operand 0 is a store.  A
 * two-register form of a mnemonic that also assembled with three registers of
 * its kind (shorthand) is NASM's spelling of the three-operand form whose first
 * source is the destination (`vxorps zmm0, zmm1` is `vxorps zmm0, zmm0, zmm1`):
 * it chains as written, never as `vxorps zmm0, zmm0`, an idiom.
 */
static int judge_by_shape(struct cand *c, const char *mn, int shorthand, struct form_out *o,
			  int *need_lat_asm)
{
	char f0 = c->sh.n ? kinds[c->sh.k[0]].file : 0;

	memset(o, 0, sizeof(*o));
	o->all_regs = 1;
	for (int i = 0; i < c->sh.n; i++)
		if (kinds[c->sh.k[i]].file == 'M')
			o->all_regs = 0;
	o->template_op = -1;
	o->nochain = 1;
	if ((f0 == 'v' || f0 == 'k') && shorthand && c->sh.n == 2 && kinds[c->sh.k[1]].file == f0) {
		o->template_op = 0;
		o->nochain = 0;
		o->lat_via_op0 = 1;
	} else if (f0 == 'g' || f0 == 'v' || f0 == 'k' || f0 == 'm') {
		struct cand l = *c;

		o->template_op = 0;
		for (int i = 1; i < c->sh.n; i++)
			if (kinds[c->sh.k[i]].file == f0) {
				l.regs[i] = c->regs[0];
				render(&l, mn, -1, o->lat_text, sizeof(o->lat_text));
				*need_lat_asm = 1;
				o->nochain = 0;
				o->lat_via_op0 = 1;
				break;
			}
	}
	chain_by_rule(c, mn, o, need_lat_asm);
	return -1;
}

/* ---- the whole table ---- */

struct mnem {
	char name[32];
	int family;
	unsigned nds;		/* bit k: assembled with three registers of kind k (v, v, v) */
};

/* The name of form c: mnemonic and operand kinds joined by '-'. */
static void form_name(const struct cand *c, const char *mn, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s", mn);

	for (int i = 0; i < c->sh.n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "-%s", kinds[c->sh.k[i]].name);
}

/* "add r64, i" as data/uarch/latency.lat names forms. */
static void lat_form(const struct cand *c, const char *mn, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s", mn);

	for (int i = 0; i < c->sh.n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : " ",
					 kinds[c->sh.k[i]].lat);
}

/* A dedup key: what the encoding is, immediates aside. */
static void enc_key(const cs_insn *insn, char *buf, size_t len)
{
	const cs_x86 *x = &insn->detail->x86;
	size_t used = (size_t)snprintf(buf, len, "%s|%u|%02x%02x%02x%02x|%02x%02x%02x%02x|%02x|%02x|%u",
				       insn->mnemonic, insn->size, x->prefix[0], x->prefix[1],
				       x->prefix[2], x->prefix[3], x->opcode[0], x->opcode[1],
				       x->opcode[2], x->opcode[3], x->rex, x->modrm, x->addr_size);

	for (int i = 0; i < x->op_count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "|%d:%u:%d", x->operands[i].type,
					 x->operands[i].size,
					 x->operands[i].type == X86_OP_REG ? (int)x->operands[i].reg : 0);
}

/* Is key in the sorted-as-we-go set?  Adds it if not; 1 if it was there. */
struct keyset {
	char **k;
	size_t n, cap;
};

static int keyset_add(struct keyset *s, const char *key)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->k[mid], key);

		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		char **g = realloc(s->k, cap * sizeof(*g));

		if (!g)
			return -1;
		s->k = g;
		s->cap = cap;
	}
	memmove(s->k + lo + 1, s->k + lo, (s->n - lo) * sizeof(*s->k));
	s->k[lo] = strdup(key);
	if (!s->k[lo])
		return -1;
	s->n++;
	return 0;
}

static void keyset_free(struct keyset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->k[i]);
	free(s->k);
}

/* Is mn in the comma-separated list? */
static int in_list(const char *list, const char *mn)
{
	size_t n = strlen(mn);

	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t l = comma ? (size_t)(comma - p) : strlen(p);

		if (l == n && strncmp(p, mn, n) == 0)
			return 1;
		p = comma ? comma + 1 : p + l;
	}
	return 0;
}

/* NASM's version line, for the provenance. */
static void nasm_version(char *buf, size_t len)
{
	const char *nasm = getenv("T32_NASM");
	char *argv[] = { (char *)(nasm && *nasm ? nasm : "nasm"), "-v", NULL };
	struct t32_child_output res;

	snprintf(buf, len, "nasm");
	if (t32_run_program(argv, &res) == 0 && res.status == 0 && res.text) {
		res.text[strcspn(res.text, "\n")] = 0;
		snprintf(buf, len, "%s", res.text);
	}
	t32_child_output_free(&res);
}

#define BATCH_LINES 40000

/* One generation's state, handed from part to part. */
struct gen {
	const struct t32_tablegen_opts *o;
	struct t32_tablegen_stats *st;
	csh h;
	struct mnem *mn;		/* mnemonics tried */
	size_t nmn;
	struct shapes fam[FAM_N];	/* operand shapes per family */
	struct cand *c;			/* candidates: mnemonic x shape */
	size_t nc;
	struct keyset seen;		/* encodings kept */
	struct form_out *fo;		/* per candidate, what the table says of it */
	int *verdict;			/* per candidate: -1 kept, -2 duplicate, -3 not assembled, or a rule */
	size_t need_lat;		/* kept forms whose chain text must be assembled */
	struct t32_lattab lat;
	int have_lat;
	char choice_text[256];
};

/* capstone's mnemonics (or --only's), those the instruction check lets through. */
static int list_mnemonics(struct gen *g)
{
	g->mn = calloc(X86_INS_ENDING, sizeof(*g->mn));
	if (!g->mn) {
		t32_error("out of memory for '%s'", "mnemonics");
		return T32_EXIT_ERROR;
	}
	for (unsigned id = 1; id < X86_INS_ENDING; id++) {
		const char *name = cs_insn_name(g->h, id);
		const char *why;
		char word[64];

		if (!name || strlen(name) >= sizeof(g->mn[0].name) ||
		    (g->o->only && !in_list(g->o->only, name)))
			continue;
		if (t32_insn_check(name, word, sizeof(word), &why))
			continue;
		snprintf(g->mn[g->nmn].name, sizeof(g->mn[g->nmn].name), "%s", name);
		g->mn[g->nmn].family = family_of(name);
		g->nmn++;
	}
	g->st->mnemonics = g->nmn;
	if (!g->nmn) {
		t32_error("no mnemonic to try '%s' (capstone's names, comma-separated)",
			  g->o->only ? g->o->only : "");
		return T32_EXIT_USAGE;
	}
	return 0;
}

/* Keep the mnemonics NASM knows: one assembles or draws an error, an unknown one is a label. */
static int probe_nasm(struct gen *g)
{
	char *src = NULL, *lst = NULL, *diag = NULL;
	size_t len = 0, k = 0;
	FILE *f = open_memstream(&src, &len);
	struct t32_fault flt;
	unsigned char *known = calloc(g->nmn, 1);

	if (!f || !known) {
		if (f)
			fclose(f);
		free(src);
		free(known);
		t32_error("out of memory for '%s'", "mnemonics");
		return T32_EXIT_ERROR;
	}
	fputs("BITS 64\n", f);
	for (size_t i = 0; i < g->nmn; i++)
		fprintf(f, "%s\n", g->mn[i].name);
	fclose(f);
	if (t32_nasm_listing(src, &lst, &diag, &flt) < 0) {
		free(src);
		free(known);
		t32_error("cannot run nasm '%s' (%s)", "nasm", flt.msg);
		return T32_EXIT_ERROR;
	}
	g->st->nasm_runs++;
	free(src);
	for (char *p = lst, *end = lst ? lst + strlen(lst) : NULL; p && p < end;) {
		char *eol = memchr(p, '\n', (size_t)(end - p)), *q;
		unsigned long line;

		if (eol)
			*eol = 0;
		line = strtoul(p, &q, 10);
		while (*q == ' ')
			q++;
		if (line >= 2 && line - 2 < g->nmn &&
		    ((strncmp(q, "******", 6) == 0 && strstr(q, "error:")) ||
		     (isxdigit((unsigned char)*q) && strlen(q) > 9 && isxdigit((unsigned char)q[9]))))
			known[line - 2] = 1;
		p = eol ? eol + 1 : end;
	}
	free(lst);
	free(diag);
	for (size_t i = 0; i < g->nmn; i++)
		if (known[i])
			g->mn[k++] = g->mn[i];
	free(known);
	g->nmn = k;
	g->st->nasm_knows = k;
	return 0;
}

/*
 * Every mnemonic in every shape of its family, assembled a batch at a time; and
 * which mnemonics assembled with three registers of one vector or mask kind
 * (judge_by_shape reads a two-register form of those as NASM's shorthand).
 */
static int make_candidates(struct gen *g)
{
	size_t cap = 0;

	for (size_t m = 0; m < g->nmn; m++) {
		const struct shapes *ss = &g->fam[g->mn[m].family];

		for (size_t s = 0; s < ss->n; s++) {
			struct cand *x;
			const char *why;
			char word[64];
			int mx = 0;

			if (g->nc == cap) {
				size_t ncap = cap ? 2 * cap : 65536;
				struct cand *grown = realloc(g->c, ncap * sizeof(*grown));

				if (!grown) {
					t32_error("out of memory for '%zu candidates'", ncap);
					return T32_EXIT_ERROR;
				}
				g->c = grown;
				cap = ncap;
			}
			x = &g->c[g->nc];
			memset(x, 0, sizeof(*x));
			x->mn = (unsigned)m;
			x->sh = ss->s[s];
			/* base + index: only lea, which computes the address without using it */
			for (int i = 0; i < x->sh.n; i++)
				mx |= x->sh.k[i] == K_MX;
			if (mx && strcmp(g->mn[m].name, "lea"))
				continue;
			default_regs(x, g->mn[m].name);
			render(x, g->mn[m].name, -1, x->text, sizeof(x->text));
			if (t32_insn_check(x->text, word, sizeof(word), &why))
				continue;
			g->nc++;
		}
	}
	g->st->candidates = g->nc;
	for (size_t from = 0; from < g->nc; from += BATCH_LINES) {
		size_t n = g->nc - from < BATCH_LINES ? g->nc - from : BATCH_LINES;

		if (g->o->progress)
			fprintf(stderr, "\r\033[Kt32 table gen: assembling %zu/%zu candidate forms",
				from + n, g->nc);
		if (assemble_batch(g->c + from, n, &g->st->nasm_runs))
			return T32_EXIT_ERROR;
	}
	if (g->o->progress)
		fputs("\r\033[K", stderr);
	for (size_t i = 0; i < g->nc; i++) {
		const struct cand *x = &g->c[i];
		char f = x->sh.n == 3 ? kinds[x->sh.k[0]].file : 0;

		if (x->ok == 1 && (f == 'v' || f == 'k') && x->sh.k[1] == x->sh.k[0] &&
		    x->sh.k[2] == x->sh.k[0])
			g->mn[x->mn].nds |= 1u << x->sh.k[0];
	}
	return 0;
}

/* A form left out by rule r: counted, and listed with --excluded. */
static void exclude(struct gen *g, size_t i, int r)
{
	g->verdict[i] = r;
	g->st->excluded[r]++;
	if (g->o->excluded)
		fprintf(g->o->excluded, "%s\t%s\n", g->c[i].text, t32_tablegen_rule_text[r]);
}

/* Candidate i (assembled): decoded, deduplicated and judged; its verdict set. */
static void judge_one(struct gen *g, size_t i)
{
	struct cand *x = &g->c[i];
	const char *name = g->mn[x->mn].name;
	int family = g->mn[x->mn].family, need = 0;
	cs_insn *insn;
	size_t got;
	char key[512];

	if (named_rule(name) >= 0) {
		exclude(g, i, named_rule(name));
		return;
	}
	got = cs_disasm(g->h, x->bytes, x->nbytes, 0, 1, &insn);
	if ((got != 1 || insn->size != x->nbytes) && family != FAM_LEGACY && family != FAM_X87) {
		/* capstone 4 lacks some AVX-512 forms: judged by their shape */
		if (got)
			cs_free(insn, got);
		snprintf(key, sizeof(key), "raw|");
		for (int b = 0; b < x->nbytes; b++)
			snprintf(key + 4 + 2 * b, 3, "%02x", x->bytes[b]);
		if (keyset_add(&g->seen, key)) {
			g->verdict[i] = -2;
			g->st->duplicates++;
			return;
		}
		g->verdict[i] = judge_by_shape(x, name, !!(g->mn[x->mn].nds & (1u << x->sh.k[0])),
					       &g->fo[i], &need);
		g->st->by_shape++;
		g->need_lat += need;
		return;
	}
	if (got != 1 || insn->size != x->nbytes) {
		if (got)
			cs_free(insn, got);
		exclude(g, i, T32_RULE_DECODE);
		return;
	}
	enc_key(insn, key, sizeof(key));
	if (keyset_add(&g->seen, key)) {
		cs_free(insn, got);
		g->verdict[i] = -2;	/* duplicate */
		g->st->duplicates++;
		return;
	}
	g->verdict[i] = judge(g->h, insn, x, name, &g->fo[i], &need);
	cs_free(insn, got);
	if (g->verdict[i] >= 0) {
		exclude(g, i, g->verdict[i]);
		return;
	}
	g->need_lat += need;
}

/* Every assembled candidate judged. */
static int judge_all(struct gen *g)
{
	g->fo = calloc(g->nc ? g->nc : 1, sizeof(*g->fo));
	g->verdict = calloc(g->nc ? g->nc : 1, sizeof(*g->verdict));
	if (!g->fo || !g->verdict) {
		t32_error("out of memory for '%zu candidates'", g->nc);
		return T32_EXIT_ERROR;
	}
	for (size_t i = 0; i < g->nc; i++) {
		g->verdict[i] = -3;	/* not assembled */
		if (g->c[i].ok != 1)
			continue;
		g->st->assembled++;
		judge_one(g, i);
	}
	return 0;
}

/* Chain texts that differ from the form: assembled too, else the form has no chain. */
static int assemble_chains(struct gen *g)
{
	struct cand *lc = calloc(g->need_lat ? g->need_lat : 1, sizeof(*lc));
	size_t nl = 0;

	if (!lc) {
		t32_error("out of memory for '%zu chains'", g->need_lat);
		return T32_EXIT_ERROR;
	}
	for (size_t i = 0; i < g->nc && nl < g->need_lat; i++)
		if (g->verdict[i] == -1 && g->fo[i].lat_text[0])
			snprintf(lc[nl++].text, sizeof(lc[0].text), "%s", g->fo[i].lat_text);
	for (size_t from = 0; from < nl; from += BATCH_LINES) {
		size_t n = nl - from < BATCH_LINES ? nl - from : BATCH_LINES;

		if (assemble_batch(lc + from, n, &g->st->nasm_runs)) {
			free(lc);
			return T32_EXIT_ERROR;
		}
	}
	nl = 0;
	for (size_t i = 0; i < g->nc; i++)
		if (g->verdict[i] == -1 && g->fo[i].lat_text[0] && lc[nl++].ok != 1) {
			g->fo[i].lat_text[0] = 0;
			g->fo[i].nochain = 1;
			g->fo[i].why = WHY_UNREAD_ASIS;
			g->fo[i].lat_via_op0 = 0;
		}
	free(lc);
	return 0;
}

/* Published latencies of the core, for lat= (none with --no-expected). */
static void load_expected(struct gen *g)
{
	struct t32_uarch_choice ch;
	char path[4096], err[512];
	struct t32_tablegen_stats *st = g->st;

	if (g->o->no_expected)
		return;
	t32_block_uarch(g->o->uarch, &ch);
	snprintf(st->core, sizeof(st->core), "%s", ch.core[0] ? ch.core : ch.data);
	if (strchr(st->core, '/'))
		snprintf(st->core, sizeof(st->core), "%s", g->o->uarch);
	t32_uarch_choice_text(&ch, st->core, g->choice_text, sizeof(g->choice_text));
	snprintf(path, sizeof(path), "%s/uarch/latency.lat", t32_datadir());
	if (t32_lattab_load(&g->lat, path, err, sizeof(err)) == 0)
		g->have_lat = 1;
	else
		t32_warn("no published latencies, no lat= values (%s)", err);
}

/* The table's header: provenance, sources, the rules with their counts. */
static void write_header(const struct gen *g, FILE *out)
{
	const struct t32_tablegen_stats *st = g->st;
	struct t32_cpu cpu;
	char date[32], nasmv[128];
	time_t now = time(NULL);
	struct tm tm;

	nasm_version(nasmv, sizeof(nasmv));
	t32_cpu_identify(&cpu);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	fprintf(out, "# Generated by t32 %s table gen on %s: every mnemonic of capstone %d.%d's x86\n"
		"# list (%zu, of which %s knows %zu) tried in the operand shapes of its kind,\n"
		"# kept where NASM assembles it, one form per encoding.\n",
		T32_VERSION, date, CS_API_MAJOR, CS_API_MINOR, st->mnemonics, nasmv, st->nasm_knows);
	fprintf(out, "# source: instruction forms: capstone %d.%d instruction list, assembled by %s\n",
		CS_API_MAJOR, CS_API_MINOR, nasmv);
	if (g->have_lat)
		fprintf(out, "# source: lat= values: data/uarch/latency.lat for %s, register forms\n"
			"#   only (its sources are named there); no rtp= values\n", g->choice_text);
	fprintf(out, "# applies to: the forms: any x86-64 CPU (a form this CPU lacks sweeps as\n"
		"#   unsupported); generated on %s (%s family %#x model %#x stepping %u)",
		cpu.brand, cpu.vendor, cpu.family, cpu.model, cpu.stepping);
	if (g->have_lat)
		fprintf(out, "; lat= values: %s", st->core);
	fputs("\n#\n# Rules (doc/sweeps.md, \"The full table\"): a form is left out when it\n", out);
	for (int r = 0; r < T32_RULE_N; r++)
		fprintf(out, "#   %s (%zu left out)\n", t32_tablegen_rule_text[r], st->excluded[r]);
	fputs("# Memory operands are [rsi] (a divisor [rsi+8]); operand i takes register i of its\n"
	      "# file (rax rbx rcx rdx, xmm0.., k1.., mm1..), never rsi or rsp.  Latency: the form\n"
	      "# as written when something it writes is something it reads; else its first\n"
	      "# source of the destination's register file made the destination (popcnt rax, rax);\n"
	      "# lea through its base, mov r64, m64 as a pointer chase; a copy as two registers\n"
	      "# alternating (mov rbx, rax; mov rax, rbx); a scalar operation through the lane it\n"
	      "# computes (vsqrtss xmm0, xmm0, xmm0); else chain=none, with the reason: flags (it\n"
	      "# writes only flags), merge (a scalar from memory or another register file: only the\n"
	      "# destination's other lanes would chain), constant, unread (throughput only).\n"
	      "# Throughput: the destination rotates ({r} {x} {k}...), a read-modify-write memory\n"
	      "# operand rotates its base; a form that writes registers it does not name has no\n"
	      "# tp= (its copies could not be independent).\n\n", out);
}

/* The forms kept, one a line. */
static void write_forms(struct gen *g, FILE *out)
{
	struct t32_tablegen_stats *st = g->st;

	for (size_t i = 0; i < g->nc; i++) {
		struct form_out *f = &g->fo[i];
		const char *mname = g->mn[g->c[i].mn].name;
		char extras[128] = "", tp[200] = "", lf[96];
		size_t used = 0;

		if (g->verdict[i] != -1)
			continue;
		form_name(&g->c[i], mname, f->name, sizeof(f->name));
		/* the chain is the form's own text, or the text built for it: the sweep repeats insn */
		snprintf(f->insn, sizeof(f->insn), "%s", f->lat_text[0] ? f->lat_text : g->c[i].text);
		if (f->init[0])
			used += (size_t)snprintf(extras + used, sizeof(extras) - used, " init=%s", f->init);
		if (f->nochain) {
			used += (size_t)snprintf(extras + used, sizeof(extras) - used, " chain=none%s%s",
						 why_words[f->why] ? ":" : "",
						 why_words[f->why] ? why_words[f->why] : "");
			st->throughput_only++;
		} else {
			st->chains++;
		}
		if (g->have_lat && !f->nochain && f->all_regs) {
			const struct t32_lat_entry *e;
			unsigned cyc;

			lat_form(&g->c[i], mname, lf, sizeof(lf));
			e = t32_lattab_find(&g->lat, lf);
			/* a bare-mnemonic entry (any operands) says nothing of this shape */
			if (e && strchr(e->form, ' ') && t32_lattab_latency(e, st->core, &cyc) == 0) {
				used += (size_t)snprintf(extras + used, sizeof(extras) - used, " lat=%u", cyc);
				st->expected++;
			}
		}
		if (f->template_op == -2)
			st->no_template++;
		else
			render(&g->c[i], mname, f->template_op, tp, sizeof(tp));
		fprintf(out, "%-28s | %-40s%s%s%s%s\n", f->name, f->insn, used ? " |" : "",
			used ? extras : "", tp[0] ? " | tp=" : "", tp);
		st->forms++;
	}
}

int t32_tablegen(FILE *out, const struct t32_tablegen_opts *o, struct t32_tablegen_stats *st)
{
	struct gen g = { .o = o, .st = st };
	int rc = T32_EXIT_ERROR;
	double t0 = t32_now();

	memset(st, 0, sizeof(*st));
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &g.h) != CS_ERR_OK) {
		t32_error("cannot open '%s' (capstone)", "x86-64 disassembler");
		return T32_EXIT_ERROR;
	}
	cs_option(g.h, CS_OPT_DETAIL, CS_OPT_ON);
	if (legacy_shapes(&g.fam[FAM_LEGACY]) || x87_shapes(&g.fam[FAM_X87]) ||
	    mask_shapes(&g.fam[FAM_MASK]) || vex_shapes(&g.fam[FAM_VEX])) {
		t32_error("out of memory for '%s'", "shapes");
		goto out;
	}
	if ((rc = list_mnemonics(&g)) || (rc = probe_nasm(&g)) || (rc = make_candidates(&g)) ||
	    (rc = judge_all(&g)) || (rc = assemble_chains(&g)))
		goto out;
	load_expected(&g);
	write_header(&g, out);
	write_forms(&g, out);
	st->seconds = t32_now() - t0;
	rc = st->forms ? 0 : T32_EXIT_USAGE;
	if (!st->forms)
		t32_error("no form assembled '%s'", o->only ? o->only : "(all)");
out:
	for (int f = 0; f < FAM_N; f++)
		free(g.fam[f].s);
	free(g.mn);
	free(g.c);
	free(g.fo);
	free(g.verdict);
	keyset_free(&g.seen);
	if (g.have_lat)
		t32_lattab_free(&g.lat);
	cs_close(&g.h);
	return rc;
}

int t32_tablegen_file(const char *path, const struct t32_tablegen_opts *o,
		      struct t32_tablegen_stats *st)
{
	struct t32_out out;
	int rc;

	if (t32_out_open(&out, path))
		return T32_EXIT_ERROR;
	rc = t32_tablegen(out.f, o, st);
	if (rc)
		t32_out_abort(&out);
	else if (t32_out_commit(&out))
		rc = T32_EXIT_ERROR;
	return rc;
}
