/*
 * 5001-model-charts - the retirement model against the hand-drawn cycle charts of
 * "Where do interrupts happen?" (load-add2, load-add3: W = 4, load latency 5),
 * its load-nop10 retire pattern and its vpmulld / lock add split, plus store
 * forwarding, barrier-wrapped curves and the allocation, retirement and ROB limits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "t/modelkit.h"
#include "t/tap.h"

/* Machine code of the instructions the blog uses. */
static const unsigned char MOV_LOAD[] = { 0x48, 0x8b, 0x00 };		/* mov rax, [rax] */
static const unsigned char NOP[] = { 0x90 };				/* nop */
static const unsigned char ADD0[] = { 0x48, 0x83, 0xc0, 0x00 };		/* add rax, 0 */
static const unsigned char VPMULLD[] = { 0xc4, 0xe2, 0x79, 0x40, 0xc0 };	/* vpmulld xmm0, xmm0, xmm0 */
static const unsigned char LOCK_ADD[] = { 0xf0, 0x48, 0x83, 0x03, 0x01 };	/* lock add qword [rbx], 1 */
static const unsigned char STORE_RAX[] = { 0x48, 0x89, 0x00 };		/* mov [rax], rax */
static const unsigned char STORE_RAX8[] = { 0x48, 0x89, 0x40, 0x08 };	/* mov [rax+8], rax */
static const unsigned char ADD_MEM[] = { 0x48, 0x83, 0x03, 0x01 };	/* add qword [rbx], 1 */

struct piece {
	const unsigned char *code;
	size_t len;
};
#define P(x) { x, sizeof(x) }

/*
 * The blog's machine: 4 allocated and 4 retired a cycle, loads 5 cycles, add 1,
 * and no execution-port limit (ports.CLASS 0): "an instruction always begins
 * executing when it is ready".
 */
static void blog_uarch(struct t32_uarch *u)
{
	kit_uarch(u, "blog", 4, 224, 5);
	u->store_forward_latency = 4;
	u->latency[T32_CLASS_VECTOR] = 10;
	u->latency[T32_CLASS_ATRETIRE] = 18;
}

/* Decode the pieces into a prepared block; returns the count, 0 on failure. */
static size_t block(const struct t32_uarch *u, const struct piece *p, size_t np,
		    struct t32_model_insn **out)
{
	unsigned char code[256];
	size_t len = 0, n = 0;
	struct t32_insn *in;
	char err[256];

	for (size_t i = 0; i < np; i++) {
		memcpy(code + len, p[i].code, p[i].len);
		len += p[i].len;
	}
	if (t32_deps_decode(code, len, &in, &n, err, sizeof(err))) {
		diag("%s", err);
		return 0;
	}
	*out = calloc(n, sizeof(**out));
	t32_model_prepare(u, NULL, in, n, *out);
	free(in);
	return n;
}

/* Steady-state cycles per iteration of the pieces' block; bails where the model fails. */
static double cycles_of(const struct t32_uarch *u, const struct piece *p, size_t np)
{
	struct t32_model_insn *b = NULL;
	struct t32_model_result r;
	size_t n = block(u, p, np, &b);
	double c;

	if (!n || t32_model_steady(u, b, n, 1, &r))
		bail("the model fails on a block of %zu pieces", np);
	c = r.cycles_per_iter;
	t32_model_result_free(&r);
	free(b);
	return c;
}

/* One row of a blog chart: allocated (scheduled), ready, complete, retired, selected. */
struct chart_row {
	long alloc, ready, complete, retire;
	int selected;
};

/* The blog's load-add2 chart (16 rows). */
static const struct chart_row load_add2[] = {
	{ 0, 0, 5, 5, 1 }, { 0, 0, 0, 5, 0 }, { 0, 0, 0, 5, 0 }, { 0, 0, 0, 5, 0 },
	{ 1, 1, 1, 6, 1 }, { 1, 1, 1, 6, 0 }, { 1, 5, 6, 6, 0 }, { 1, 6, 11, 11, 1 },
	{ 2, 2, 2, 11, 0 }, { 2, 2, 2, 11, 0 }, { 2, 2, 2, 11, 0 }, { 2, 2, 2, 12, 1 },
	{ 3, 3, 3, 12, 0 }, { 3, 11, 12, 12, 0 }, { 3, 12, 17, 17, 1 }, { 3, 3, 3, 17, 0 },
};

/* The blog's load-add3 chart (16 rows). */
static const struct chart_row load_add3[] = {
	{ 0, 0, 5, 5, 1 }, { 0, 0, 0, 5, 0 }, { 0, 0, 0, 5, 0 }, { 0, 5, 6, 6, 1 },
	{ 1, 1, 1, 6, 0 }, { 1, 1, 1, 6, 0 }, { 1, 1, 1, 6, 0 }, { 1, 6, 11, 11, 1 },
	{ 2, 2, 2, 11, 0 }, { 2, 2, 2, 11, 0 }, { 2, 11, 12, 12, 1 }, { 2, 2, 2, 12, 0 },
	{ 3, 3, 3, 12, 0 }, { 3, 3, 3, 12, 0 }, { 3, 12, 17, 17, 1 }, { 3, 3, 3, 17, 0 },
};

/* Compare a trace from an empty machine with a chart, row by row (one test per row). */
static void check_chart(const char *name, const struct t32_model_row *rows,
			const struct chart_row *chart, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct t32_model_row *r = &rows[i];
		const struct chart_row *c = &chart[i];

		ok(r->alloc == c->alloc && r->ready == c->ready && r->complete == c->complete &&
		   r->retire == c->retire && (r->weight > 0) == c->selected,
		   "%s row %zu: %ld %ld %ld %ld%s (model %ld %ld %ld %ld%s)", name, i, c->alloc,
		   c->ready, c->complete, c->retire, c->selected ? " selected" : "", r->alloc,
		   r->ready, r->complete, r->retire, r->weight > 0 ? " selected" : "");
	}
}

/* Does a trace from an empty machine match a chart, every row? */
static int chart_matches(const struct t32_model_row *rows, const struct chart_row *chart, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].alloc != chart[i].alloc || rows[i].ready != chart[i].ready ||
		    rows[i].complete != chart[i].complete || rows[i].retire != chart[i].retire ||
		    (rows[i].weight > 0) != chart[i].selected)
			return 0;
	return 1;
}

/* Skylake's execution ports (data/uarch/skylake.uarch), for the blog's machine. */
static const unsigned skylake_ports[T32_NCLASS] = {
	[T32_CLASS_ALU] = 4, [T32_CLASS_LOAD] = 2, [T32_CLASS_STORE] = 1, [T32_CLASS_MUL] = 1,
	[T32_CLASS_DIV] = 1, [T32_CLASS_VECTOR] = 3, [T32_CLASS_BRANCH] = 2,
};

/* Rows obey the widths and the ROB: at most W a cycle, allocated after row i - ROB retires. */
static int limits_hold(const struct t32_uarch *u, const struct t32_model_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t same_alloc = 0, same_retire = 0;

		for (size_t j = 0; j < n; j++) {
			same_alloc += rows[j].alloc == rows[i].alloc;
			same_retire += rows[j].retire == rows[i].retire;
		}
		if (same_alloc > u->alloc_width || same_retire > u->retire_width)
			return 0;
		if (i && (rows[i].retire < rows[i - 1].retire || rows[i].alloc < rows[i - 1].alloc))
			return 0;
		if (rows[i].retire < rows[i].complete || rows[i].ready < rows[i].alloc)
			return 0;
		if (i >= u->rob_size && rows[i].alloc <= rows[i - u->rob_size].retire)
			return 0;
	}
	return 1;
}

/*
 * A block of the blog and what the model predicts for it: its chart from an empty
 * machine, and in the steady state each instruction's weight (the cycles it is
 * the oldest, stalling retirement) and its share of the samples with skid 1 and 0.
 */
struct blog_case {
	const char *name;
	struct piece p[7];
	const struct chart_row *chart;
	double weight[7], share1[7], share0[7];
};

static const struct blog_case blog_cases[] = {
	/* mov rax, [rax]; 5 x nop; add rax, 0: the mov 5 cycles, the fourth nop 1, the add never */
	{ "load-add2", { P(MOV_LOAD), P(NOP), P(NOP), P(NOP), P(NOP), P(NOP), P(ADD0) }, load_add2,
	  { 5, 0, 0, 0, 1, 0, 0 }, { 0, 5.0 / 6, 0, 0, 0, 1.0 / 6, 0 },
	  { 5.0 / 6, 0, 0, 0, 1.0 / 6, 0, 0 } },
	/* mov rax, [rax]; nop; nop; add rax, 0; 3 x nop: the add is selected now, no nop */
	{ "load-add3", { P(MOV_LOAD), P(NOP), P(NOP), P(ADD0), P(NOP), P(NOP), P(NOP) }, load_add3,
	  { 5, 0, 0, 1, 0, 0, 0 }, { 0, 5.0 / 6, 0, 0, 1.0 / 6, 0, 0 },
	  { 5.0 / 6, 0, 0, 1.0 / 6, 0, 0, 0 } },
};
#define NCASES (sizeof(blog_cases) / sizeof(blog_cases[0]))

/* One test: seen[0..n) is want[0..n), each within 1e-9; the two diag'd where not. */
static void is_vector(const double *want, const double *seen, size_t n, const char *name,
		      const char *what)
{
	int same = 1;

	for (size_t i = 0; i < n; i++)
		if (fabs(want[i] - seen[i]) > 1e-9)
			same = 0;
	if (!ok(same, "%s: %s", name, what))
		for (size_t i = 0; i < n; i++)
			diag("%zu: expected %g, seen %g", i, want[i], seen[i]);
}

/* The case's chart (16 tests) and its steady state (6 tests). */
static void check_blog(const struct t32_uarch *u, const struct blog_case *c)
{
	struct t32_model_row rows[3 * 7];
	struct t32_model_insn *b = NULL;
	struct t32_model_result r;

	if (block(u, c->p, 7, &b) != 7)
		bail("cannot decode %s", c->name);
	t32_model_trace(u, b, 7, 3, rows);
	check_chart(c->name, rows, c->chart, 16);

	if (t32_model_steady(u, b, 7, 1, &r))
		bail("the model fails on %s", c->name);
	is_double(6.0, r.cycles_per_iter, 1e-9, "%s: 6 cycles per iteration", c->name);
	is_int(1, (long long)r.period, "%s: the pattern repeats every iteration", c->name);
	ok(limits_hold(u, r.rows, r.nrows), "%s: widths and ROB hold in the steady state", c->name);
	is_vector(c->weight, r.weight, 7, c->name, "each instruction's weight");
	is_vector(c->share1, r.share, 7, c->name, "skid 1: each instruction's share of samples");
	t32_model_result_free(&r);
	if (t32_model_steady(u, b, 7, 0, &r))
		bail("the model fails on %s", c->name);
	is_vector(c->share0, r.share, 7, c->name, "skid 0: each instruction's share of samples");
	t32_model_result_free(&r);
	free(b);
}

int main(void)
{
	struct t32_uarch u;
	struct t32_model_insn *b = NULL;
	struct t32_model_row rows[64 * 11];
	struct t32_model_result r;
	size_t n;

	plan((int)NCASES * (16 + 6) + 7 + 6 + 3 + 4 + (int)NCASES + 1);
	blog_uarch(&u);

	for (size_t k = 0; k < NCASES; k++)
		check_blog(&u, &blog_cases[k]);

	/* load-nop10 with the 4-cycle pointer-chase load: retire cycles 0,0,0,0,1,..,2,2,2 then 4 */
	{
		struct piece p[11] = { P(MOV_LOAD) };
		static const long retire[11] = { 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2 };
		int good = 1;

		for (int i = 1; i < 11; i++)
			p[i] = (struct piece)P(NOP);
		u.load_latency_chase = 4;
		n = block(&u, p, 11, &b);
		if (n != 11)
			bail("cannot decode load-nop10");
		t32_model_steady(&u, b, n, 1, &r);
		is_double(4.0, r.cycles_per_iter, 1e-9, "load-nop10: 4 cycles per iteration (chase fast path)");
		for (size_t i = 0; i < 11; i++)
			if (r.rows[i].retire - r.rows[0].retire != retire[i])
				good = 0;
		ok(good, "load-nop10: retire cycles 0 0 0 0 1 1 1 1 2 2 2 after the mov");
		is_double(2.0, r.weight[0], 1e-9, "load-nop10: mov weight 2");
		ok(r.weight[4] == 1.0 && r.weight[8] == 1.0,
		   "load-nop10: the nops 4 and 8 after the mov are selected");
		is_double(0.5, r.share[1], 1e-9, "load-nop10: half the samples on the nop after the mov");
		t32_model_result_free(&r);
		t32_model_trace(&u, b, n, 64, rows);
		ok(limits_hold(&u, rows, 64 * n), "load-nop10: widths hold from an empty machine");
		u.load_latency_chase = 0;
		t32_model_steady(&u, b, n, 1, &r);
		is_double(5.0, r.cycles_per_iter, 1e-9, "load-nop10: 5 cycles without the fast path");
		t32_model_result_free(&r);
		free(b);
	}

	/* 4 x vpmulld + lock add: the lock add waits to be oldest, 40 cycles */
	{
		struct piece p[] = { P(VPMULLD), P(VPMULLD), P(VPMULLD), P(VPMULLD), P(LOCK_ADD) };

		n = block(&u, p, 5, &b);
		if (n != 5)
			bail("cannot decode the vpmulld block");
		is_int(T32_CLASS_ATRETIRE, b[4].cls, "lock add executes at retire");
		t32_model_steady(&u, b, n, 1, &r);
		is_double(40.0, r.cycles_per_iter, 1e-9, "vpmulld x4 + lock add: 40 cycles");
		is_double(18.0, r.weight[4], 1e-9, "lock add is the oldest for its 18 cycles");
		ok(r.weight[0] == 0.0 && r.weight[1] == 2.0 && r.weight[2] == 10.0 &&
		   r.weight[3] == 10.0, "vpmulld weights 0 2 10 10 (the blog's uneven pattern)");
		t32_model_result_free(&r);
		/* with two vpmulld the chain (20) hides the atomic: 20 cycles, 90% on the lock */
		{
			struct piece q[] = { P(VPMULLD), P(VPMULLD), P(LOCK_ADD) };
			struct t32_model_insn *b2 = NULL;
			size_t n2 = block(&u, q, 3, &b2);

			t32_model_steady(&u, b2, n2, 1, &r);
			is_double(20.0, r.cycles_per_iter, 1e-9, "vpmulld x2 + lock add: still 20 cycles");
			is_double(0.9, r.share[0], 1e-9, "vpmulld x2 + lock add: 90%% of samples after the lock");
			t32_model_result_free(&r);
			free(b2);
		}
		free(b);
	}

	/* store forwarding: a load of the address just stored waits for the store's data */
	{
		struct piece p1[] = { P(STORE_RAX), P(MOV_LOAD) };
		struct piece p2[] = { P(STORE_RAX8), P(MOV_LOAD) };
		struct piece p3[] = { P(ADD_MEM) };

		is_double(4.0, cycles_of(&u, p1, 2), 1e-9,
			  "mov [rax], rax; mov rax, [rax]: the store-forward latency (4) per iteration");
		is_double(5.0, cycles_of(&u, p2, 2), 1e-9,
			  "mov [rax+8], rax; mov rax, [rax]: another address, the load latency (5)");
		is_double(5.0, cycles_of(&u, p3, 1), 1e-9,
			  "add [rbx], 1 chains through memory: 4 + 1");
	}

	/* barrier-wrapped curves: n nops take ceil(n/4) cycles, n dependent adds n + 1 */
	{
		struct piece p1[] = { P(NOP) }, p2[] = { P(ADD0) };
		double cyc[41];
		int good = 1;

		n = block(&u, p1, 1, &b);
		t32_model_curve(&u, b, n, 40, cyc);
		for (int k = 0; k <= 40; k++)
			if (cyc[k] != (double)((k + 3) / 4))
				good = 0;
		ok(good, "curve: k nops retire in ceil(k / 4) cycles");
		free(b);
		n = block(&u, p2, 1, &b);
		t32_model_curve(&u, b, n, 40, cyc);
		good = cyc[0] == 0;
		for (int k = 1; k <= 40; k++)
			if (cyc[k] != (double)(k + 1))
				good = 0;
		ok(good, "curve: k dependent adds take k + 1 cycles (0 for k = 0)");
		free(b);
		/* the load-add2 block: 6 more cycles per copy once the chain dominates */
		n = block(&u, blog_cases[0].p, 7, &b);
		t32_model_curve(&u, b, n, 40, cyc);
		is_double(7.0, cyc[1], 1e-9, "curve: one load-add2 copy retires in cycle 6");
		is_double(6.0, cyc[40] - cyc[39], 1e-9, "curve: each further copy adds 6 cycles");
		free(b);
	}

	/*
	 * The blog draws no port contention; with Skylake's ports the charts
	 * stay as drawn, because none of these blocks has more work for a class
	 * in a cycle than Skylake has units.
	 */
	memcpy(u.ports, skylake_ports, sizeof(u.ports));
	u.load_latency_chase = 0;
	for (size_t k = 0; k < NCASES; k++) {
		n = block(&u, blog_cases[k].p, 7, &b);
		t32_model_trace(&u, b, n, 3, rows);
		ok(chart_matches(rows, blog_cases[k].chart, 16), "%s chart with Skylake's ports",
		   blog_cases[k].name);
		free(b);
	}
	{
		struct piece p4[] = { P(VPMULLD), P(VPMULLD), P(VPMULLD), P(VPMULLD), P(LOCK_ADD) };

		is_double(40.0, cycles_of(&u, p4, 5), 1e-9,
			  "vpmulld x4 + lock add with Skylake's ports: 40 cycles");
	}
	return done_testing();
}
