/*
 * model.c - the retirement model: one pass in program order computes, for each
 * instruction, when it allocates, becomes ready, completes and retires.
 *
 * Rules (the blog's, plus what its TODO list asks for):
 *   alloc     in order, at most alloc_width a cycle, and not before the
 *             instruction rob_size places earlier has retired; a loop of more
 *             instructions than the op cache holds (opcache_ops) is decoded
 *             again each time round, at most decode_width a cycle
 *   ready     alloc, and every input's producer complete; a load's address
 *             registers first, then load latency, then its data inputs
 *   start     the first cycle from ready with a free unit of the class
 *             (ports.CLASS a cycle, 0 = unlimited), claimed in age order, so an
 *             older instruction is never passed over for a younger one; a
 *             memory form's load part takes a load unit from its address, a
 *             read-modify-write's store part a store unit from its result
 *   complete  start + latency
 *   retire    in order, at most retire_width a cycle, not before complete +
 *             the class's retire delay; with retire_group G > 1 the stream is
 *             cut into aligned groups of G (counted from the first instruction)
 *             and a group retires only once all of it could, so its first
 *             instruction is the one an interrupt selects; with
 *             retire_nop_free a nop takes no slot of the width
 * A load of the same address expression as an earlier store (same registers,
 * unchanged since) takes its value store_forward_latency after the store's data.
 * Execute-at-retire instructions start only when the one before them has retired;
 * fences start when everything before them has completed (a store store_drain
 * cycles after: the fence that closes a timed run too) and hold everything
 * after them until they complete; a serialising instruction also keeps later
 * ones from allocating until it retires.
 */
#include "analysis/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX(a, b) ((a) > (b) ? (a) : (b))

const char *const t32_lat_source_names[] = { "class default", "table", "measured here" };

int t32_model_decoded(const struct t32_uarch *u, size_t n)
{
	return u->opcache_ops && n > u->opcache_ops;
}

double t32_model_latency(const struct t32_model_insn *m)
{
	return m->latency + m->quarters / 4.0;
}

void t32_model_find(const struct t32_lattab *tab, const struct t32_insn *in, size_t n,
		    const struct t32_lat_entry **e)
{
	for (size_t i = 0; i < n; i++)
		e[i] = tab ? t32_lattab_find(tab, in[i].form) : NULL;
}

void t32_model_prepare(const struct t32_uarch *u, const struct t32_lattab *tab,
		       const struct t32_insn *in, size_t n, struct t32_model_insn *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct t32_lat_entry *e = tab ? t32_lattab_find(tab, in[i].form) : NULL;

		t32_model_prepare_found(u, &e, &in[i], 1, &out[i]);
	}
}

void t32_model_prepare_found(const struct t32_uarch *u, const struct t32_lat_entry *const *found,
			     const struct t32_insn *in, size_t n, struct t32_model_insn *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct t32_lat_entry *e = found[i];
		unsigned cycles;

		out[i].d = in[i];
		out[i].cls = in[i].cls;
		if (e && e->cls >= 0)
			out[i].cls = (enum t32_class)e->cls;
		/* where locked forms execute early, they are ordinary read-modify-writes */
		if (u->lock_early && out[i].cls == T32_CLASS_ATRETIRE && (in[i].flags & T32_INSN_LOCK))
			out[i].cls = T32_CLASS_ALU;
		out[i].src = T32_LAT_CLASS;
		out[i].quarters = 0;
		if (e && t32_lattab_latency(e, u->name, &cycles) == 0) {
			out[i].latency = cycles;
			out[i].quarters = e->measured ? e->quarters : 0;
			out[i].src = e->measured ? T32_LAT_MEASURED : T32_LAT_TABLE;
		} else {
			out[i].latency = u->latency[out[i].cls];
		}
	}
}

/* A store in flight, for forwarding to a later load of the same address expression. */
struct fwd_store {
	const struct t32_insn *d;	/* the store: its address expression */
	unsigned base_ver, index_ver;	/* writes seen by its address registers so far */
	long data;			/* cycle its data is ready */
};
#define FWD_STORES 32			/* stores remembered, newest first */

/* Writes seen so far by an address register (-1: none, always 0). */
static unsigned reg_version(const unsigned *ver, int res)
{
	return res < 0 ? 0 : ver[res];
}

/* The newest remembered store a load reads from: same expression, same register values. */
static const struct fwd_store *forwarding_store(const struct fwd_store *st, size_t nst,
						size_t next, const struct t32_insn *ld,
						const unsigned *ver)
{
	for (size_t k = 1; k <= nst; k++) {
		const struct fwd_store *f = &st[(next + FWD_STORES - k) % FWD_STORES];
		const struct t32_insn *sd = f->d;

		if (sd->mem_base == ld->mem_base && sd->mem_index == ld->mem_index &&
		    sd->mem_scale == ld->mem_scale && sd->mem_disp == ld->mem_disp &&
		    ld->mem_bytes <= sd->mem_bytes &&
		    f->base_ver == reg_version(ver, ld->mem_base) &&
		    f->index_ver == reg_version(ver, ld->mem_index))
			return f;
	}
	return NULL;
}

/*
 * The execution units of one class taken in each cycle from the allocation
 * point on: a sorted list of the cycles where at least one is taken.  No later
 * instruction starts before the cycle it allocates in, so older cycles drop off.
 */
struct port_book {
	long *cycle;		/* cycles with a unit taken, ascending, no repeats */
	unsigned *used;		/* units taken in that cycle */
	size_t head, len, cap;	/* the live entries are [head, len) */
};

/*
 * Take one of units units (0 = unlimited: nothing is booked) in the first cycle
 * from `from` that has one free; floor is the earliest cycle anyone can still
 * ask for.  Returns that cycle, or -1 when there is no memory.
 */
static long port_take(struct port_book *pb, unsigned units, long from, long floor)
{
	size_t lo, hi;
	long t = from;

	if (!units)
		return from;
	while (pb->head < pb->len && pb->cycle[pb->head] < floor)
		pb->head++;
	if (pb->head == pb->len)
		pb->head = pb->len = 0;
	/* the first live entry at or after from */
	lo = pb->head;
	hi = pb->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pb->cycle[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < pb->len && pb->cycle[lo] == t && pb->used[lo] >= units) {
		lo++;
		t++;
	}
	if (lo < pb->len && pb->cycle[lo] == t) {
		pb->used[lo]++;
		return t;
	}
	if (pb->len == pb->cap && pb->head > 0) {
		/* slide the live entries down over the dead ones */
		memmove(pb->cycle, pb->cycle + pb->head, (pb->len - pb->head) * sizeof(long));
		memmove(pb->used, pb->used + pb->head, (pb->len - pb->head) * sizeof(unsigned));
		pb->len -= pb->head;
		lo -= pb->head;
		pb->head = 0;
	}
	if (pb->len == pb->cap) {
		size_t want = pb->cap ? 2 * pb->cap : 64;
		long *nc = realloc(pb->cycle, want * sizeof(long));
		unsigned *nu;

		if (!nc)
			return -1;
		pb->cycle = nc;
		nu = realloc(pb->used, want * sizeof(unsigned));
		if (!nu)
			return -1;
		pb->used = nu;
		pb->cap = want;
	}
	memmove(pb->cycle + lo + 1, pb->cycle + lo, (pb->len - lo) * sizeof(long));
	memmove(pb->used + lo + 1, pb->used + lo, (pb->len - lo) * sizeof(unsigned));
	pb->cycle[lo] = t;
	pb->used[lo] = 1;
	pb->len++;
	return t;
}

/*
 * When m, completing at c, lets a fence after it pass: a store (a pure one or
 * a read-modify-write's store part, not a locked one) store_drain later.
 */
static long drained(const struct t32_uarch *u, const struct t32_model_insn *m, long c)
{
	if ((m->d.flags & T32_INSN_STORE) && m->cls != T32_CLASS_ATRETIRE)
		return c + (long)u->store_drain;
	return c;
}

/* Is m an integer ALU instruction (not a multiply, a load, a nop) that writes a flag? */
static int writes_flags(const struct t32_model_insn *m)
{
	if (m->cls != T32_CLASS_ALU)
		return 0;
	for (unsigned j = 0; j < m->d.nwrites; j++)
		if (m->d.writes[j] == T32_RES_CF || m->d.writes[j] == T32_RES_OSZAP)
			return 1;
	return 0;
}

/*
 * Does a retire group close after instruction i (of total, copies of the n of
 * b)?  Aligned groups of `group` counted from instruction `phase` before the
 * first; with retire_group_flags, runs of flag writers cut the same way from
 * each run's first (*run counts the run so far), and any other instruction a
 * group of its own.
 */
static int group_closes(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
			size_t i, size_t total, size_t phase, size_t group, size_t *run)
{
	if (i + 1 == total)
		return 1;
	if (!u->retire_group_flags || group <= 1)
		return (i + 1 + phase) % group == 0;
	if (!writes_flags(&b[i % n]) || !writes_flags(&b[(i + 1) % n])) {
		*run = 0;
		return 1;
	}
	++*run;
	return (*run + phase) % group == 0;
}

/* Where retirement stands: its cycle, the slots taken in it, and the serial hold. */
struct retire_state {
	long cycle;		/* the cycle of the last retirement */
	unsigned count;		/* slots taken in that cycle */
	long serial_block;	/* later instructions allocate from this cycle */
};

/*
 * Retire rows[from, to), a group that retires together when all of it could
 * (done), width a cycle; each row's weight is the cycles retirement waited for it.
 */
static void retire_rows(const struct t32_uarch *u, const struct t32_model_insn *b,
			struct t32_model_row *rows, size_t from, size_t to, long done,
			unsigned width, struct retire_state *rt)
{
	for (size_t g = from; g < to; g++) {
		struct t32_model_row *y = &rows[g];
		enum t32_class cls = b[y->insn].cls;
		int free_slot = u->retire_nop_free && cls == T32_CLASS_NOP;
		long r = MAX(done, rt->cycle);

		if (r == rt->cycle && rt->count >= width && !free_slot)
			r++;
		y->weight = r - rt->cycle;
		if (r != rt->cycle) {
			rt->cycle = r;
			rt->count = 0;
		}
		if (!free_slot)
			rt->count++;
		y->retire = r;
		if (cls == T32_CLASS_SERIAL)
			rt->serial_block = r + 1;
	}
}

/*
 * Run total instructions (whole copies of the block) from an empty machine into
 * rows.  0, or -1 when there is no memory for the execution-unit books.  It runs
 * past a hundred lines because one instruction's allocation, inputs, execution,
 * store forwarding and retirement read and move the same dozen running cycles
 * (allocation, retirement, fences, the memory block, the pending retire group):
 * split into steps, each step would take them all by pointer.
 */
static int simulate(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
		    size_t total, size_t phase, int decoded, struct t32_model_row *rows)
{
	struct port_book book[T32_NCLASS];
	int rc = -1;
	long res_time[T32_NRES] = { 0 };	/* cycle each resource's value is available */
	unsigned char res_load[T32_NRES] = { 0 };	/* its producer was a pure load */
	unsigned char res_slow[T32_NRES] = { 0 };	/* its producer was neither a one-cycle ALU op nor a load */
	long alloc_cycle = 0;
	unsigned alloc_count = 0;
	struct retire_state rt = { 0, 0, 0 };
	long fence_done = 0;		/* later instructions start from this cycle */
	long mem_block = 0;		/* later memory accesses start from this cycle */
	long all_complete = 0;		/* latest completion so far */
	unsigned res_ver[T32_NRES] = { 0 };	/* writes seen by each resource */
	struct fwd_store stores[FWD_STORES];
	size_t nstores = 0, next_store = 0;
	unsigned walloc = u->alloc_width ? u->alloc_width : 1;
	unsigned wretire = u->retire_width ? u->retire_width : 1;
	size_t group = t32_uarch_retire_group(u);
	size_t gfirst = 0;		/* first instruction of the pending retire group */
	long group_done = 0;		/* when all of the pending group could retire */
	size_t run = 0;			/* flag writers in a row so far (retire_group_flags) */

	if (decoded && u->decode_width && u->decode_width < walloc)
		walloc = u->decode_width;

	if (u->rob_size && group > u->rob_size)
		group = u->rob_size;
	memset(book, 0, sizeof(book));
	/* k = i % n and j = i / n, kept by counting: a division an instruction costs a fit */
	for (size_t i = 0, k = 0, j = 0; i < total; i++, k = k + 1 == n ? (j++, 0) : k + 1) {
		const struct t32_model_insn *m = &b[k];
		const struct t32_insn *d = &m->d;
		struct t32_model_row *row = &rows[i];
		unsigned lat = m->latency;
		int mem = (d->flags & (T32_INSN_LOAD | T32_INSN_STORE)) != 0;
		int zero = (d->flags & T32_INSN_ZERO_IDIOM) != 0, renamed;
		long a = alloc_cycle, ra, rop, start, c;

		if (m->quarters)	/* copy j of it: one cycle more in q of every 4 */
			lat += (unsigned)(((j + 1) * m->quarters) / 4 - (j * m->quarters) / 4);

		/* allocate */
		if (alloc_count >= walloc)
			a++;
		if (u->rob_size && i >= u->rob_size)
			a = MAX(a, rows[i - u->rob_size].retire + 1);
		a = MAX(a, rt.serial_block);
		if (a != alloc_cycle) {
			alloc_cycle = a;
			alloc_count = 0;
		}
		alloc_count++;

		/* address inputs, and what holds this instruction back */
		ra = MAX(a, fence_done);
		for (unsigned j = 0; j < d->naddrs; j++)
			ra = MAX(ra, res_time[d->addrs[j]]);
		if (mem)
			ra = MAX(ra, mem_block);
		if (m->cls == T32_CLASS_ATRETIRE || m->cls == T32_CLASS_SERIAL)
			ra = MAX(ra, MAX(rt.cycle, group_done));
		if (m->cls == T32_CLASS_FENCE)
			ra = MAX(ra, all_complete);

		/* the load, then the data inputs */
		rop = ra;
		start = -1;		/* the load part's start, when there is one */
		/* an execute-at-retire latency covers its whole locked access */
		if ((d->flags & T32_INSN_LOAD) && m->cls != T32_CLASS_ATRETIRE) {
			const struct fwd_store *f = (d->flags & T32_INSN_MEMKEY) ?
				forwarding_store(stores, nstores, next_store, d, res_ver) : NULL;
			unsigned l = u->load_latency;

			rop = start = port_take(&book[T32_CLASS_LOAD], u->ports[T32_CLASS_LOAD], ra, a);
			if (start < 0)
				goto out;

			if (u->load_latency_chase && (d->flags & T32_INSN_CHASEABLE) &&
			    d->naddrs == 1 && res_load[d->addrs[0]])
				l = u->load_latency_chase;
			else if ((d->flags & T32_INSN_INDEXED) && d->mem_scale > 1)
				l = u->load_latency_scaled;
			if (f)	/* the value comes from the store, not the cache */
				rop = MAX(rop, f->data + (long)u->store_forward_latency);
			else
				rop += l;
		}
		if (zero && !u->zero_idioms) {
			/* not recognised: it reads what it writes, like any other instruction */
			for (unsigned j = 0; j < d->nwrites; j++)
				if (d->writes[j] < T32_RES_CF)
					rop = MAX(rop, res_time[d->writes[j]]);
		}
		for (unsigned j = 0; j < d->nreads; j++)
			rop = MAX(rop, res_time[d->reads[j]]);
		renamed = (zero && u->zero_idioms) || ((d->flags & T32_INSN_MOVE) && u->move_elim);
		if (renamed)
			lat = 0;
		if (start < 0)
			start = rop;
		c = rop;
		/* the operation itself: a unit of its class, unless rename did it */
		if (!renamed && m->cls != T32_CLASS_LOAD && m->cls != T32_CLASS_NOP &&
		    m->cls != T32_CLASS_FENCE && m->cls != T32_CLASS_ATRETIRE &&
		    m->cls != T32_CLASS_SERIAL) {
			c = port_take(&book[m->cls], u->ports[m->cls], rop, a);
			if (c < 0)
				goto out;
			if (!(d->flags & T32_INSN_LOAD))
				start = c;
		}
		c += (long)lat;
		/* a read-modify-write stores its result through a store unit */
		if ((d->flags & T32_INSN_STORE) && m->cls != T32_CLASS_STORE &&
		    m->cls != T32_CLASS_ATRETIRE) {
			long s = port_take(&book[T32_CLASS_STORE], u->ports[T32_CLASS_STORE], c, a);

			if (s < 0)
				goto out;
			c = MAX(c, s);
		}

		if ((d->flags & T32_INSN_STORE) && (d->flags & T32_INSN_MEMKEY)) {
			struct fwd_store *f = &stores[next_store];

			f->d = d;
			f->base_ver = reg_version(res_ver, d->mem_base);
			f->index_ver = reg_version(res_ver, d->mem_index);
			/* a pure store's data is its input; a read-modify-write's its result */
			f->data = m->cls == T32_CLASS_STORE ? start : c;
			next_store = (next_store + 1) % FWD_STORES;
			if (nstores < FWD_STORES)
				nstores++;
		}
		for (unsigned j = 0; j < d->nwrites; j++) {
			res_time[d->writes[j]] = c;
			res_load[d->writes[j]] = m->cls == T32_CLASS_LOAD;
			res_slow[d->writes[j]] = (m->cls != T32_CLASS_ALU && m->cls != T32_CLASS_LOAD) || lat > 1;
			res_ver[d->writes[j]]++;
		}
		all_complete = MAX(all_complete, drained(u, m, c));
		if (m->cls == T32_CLASS_FENCE)
			fence_done = MAX(fence_done, c);
		if (m->cls == T32_CLASS_ATRETIRE)
			mem_block = MAX(mem_block, c);

		/* retire: the whole group at once, when its last member is known */
		{
			long hold = c + (long)u->retire_delay[m->cls];

			if (m->cls == T32_CLASS_STORE && u->store_bypass) {
				/* its data from a one-cycle ALU op or a load: it retires when that is ready */
				int slow = 0;

				for (unsigned j = 0; j < d->nreads; j++)
					slow |= res_slow[d->reads[j]];
				if (!slow)
					hold = rop;
			}
			group_done = MAX(group_done, hold);
		}
		row->complete = c;
		row->insn = k;
		if (group_closes(u, b, n, i, total, phase, group, &run)) {
			retire_rows(u, b, rows, gfirst, i + 1, group_done, wretire, &rt);
			gfirst = i + 1;
			group_done = 0;
		}
		row->iter = j;
		row->alloc = a;
		row->ready = mem ? ra : rop;
		row->start = start;
		row->share = 0;
	}
	rc = 0;
out:
	for (int k = 0; k < T32_NCLASS; k++) {
		free(book[k].cycle);
		free(book[k].used);
	}
	return rc;
}

int t32_model_trace(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
		    size_t iters, struct t32_model_row *rows)
{
	if (!n || !iters)
		return -1;
	return simulate(u, b, n, n * iters, 0, t32_model_decoded(u, n), rows);
}

/* Do the last rows repeat every p iterations?  Sets *shift to the cycles per period. */
static int repeats(const struct t32_model_row *rows, size_t total, size_t n, size_t p,
		   size_t window, long *shift)
{
	size_t step = p * n;
	long d;

	if (window + step > total)
		return 0;
	d = rows[total - 1].retire - rows[total - 1 - step].retire;
	for (size_t i = total - window; i < total; i++) {
		const struct t32_model_row *x = &rows[i], *y = &rows[i - step];

		if (x->retire - y->retire != d || x->alloc - y->alloc != d ||
		    x->ready - y->ready != d || x->start - y->start != d ||
		    x->complete - y->complete != d)
			return 0;
	}
	*shift = d;
	return 1;
}

#define MAX_PERIOD 64			/* iterations */
#define MAX_ROWS ((size_t)1 << 17)	/* instructions simulated, at most (a learn runs thousands) */

/*
 * The result from the rows of the last pavg iterations (of n instructions,
 * ending at total): cycles per iteration, weights and where the samples land
 * (skid instructions on), and the rows of the last p of them (one period, or
 * the chart of a run that found none) with times from the retirement before
 * them.  0, or -1 without memory.
 */
static int steady_result(const struct t32_model_row *rows, size_t total, size_t n, size_t p,
			 size_t pavg, int found, int skid, struct t32_model_result *r)
{
	size_t start = total - p * n, from = total - pavg * n, m = pavg * n;
	long wsum = 0, base = rows[start - 1].retire;
	double *share;

	r->period = p;
	r->periodic = found;
	r->nrows = p * n;
	r->cycles_per_iter = (double)(rows[total - 1].retire - rows[from - 1].retire) / (double)pavg;
	r->rows = calloc(r->nrows, sizeof(*r->rows));
	r->weight = calloc(n, sizeof(double));
	r->share = calloc(n, sizeof(double));
	share = calloc(m, sizeof(double));
	if (!r->rows || !r->weight || !r->share || !share) {
		free(share);
		t32_model_result_free(r);
		return -1;
	}
	for (size_t i = 0; i < m; i++)
		wsum += rows[from + i].weight;
	for (size_t i = 0; i < m && wsum > 0; i++)
		share[(i + (size_t)skid) % m] += (double)rows[from + i].weight / (double)wsum;
	for (size_t i = 0; i < m; i++) {
		r->weight[rows[from + i].insn] += (double)rows[from + i].weight / (double)pavg;
		r->share[rows[from + i].insn] += share[i];
	}
	for (size_t i = 0; i < r->nrows; i++) {
		struct t32_model_row *x = &r->rows[i];

		*x = rows[start + i];
		x->iter = i / n;
		x->alloc -= base;
		x->ready -= base;
		x->start -= base;
		x->complete -= base;
		x->retire -= base;
		x->share = share[m - r->nrows + i];
	}
	free(share);
	return 0;
}

/* The steady state with retire groups counted from instruction `phase` of the block. */
static int steady_phase(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
			int skid, size_t phase, struct t32_model_result *r)
{
	size_t group = t32_uarch_retire_group(u), pad;

	size_t iters, total = 0, p = 0, pavg, pmax = MAX_PERIOD, warm;
	struct t32_model_row *rows = NULL;
	long shift = 0;
	int found = 0;

	memset(r, 0, sizeof(*r));
	if (!n || skid < 0)
		return -1;
	/* warm up past two full ROBs (repeats() then checks a window of two more) */
	warm = 2 * (size_t)u->rob_size / n + 4;
	while (pmax > 1 && n * (warm + 5 * pmax) > MAX_ROWS)
		pmax /= 2;
	/*
	 * Short periods first: most blocks repeat every iteration or few, and a long
	 * block (a whole sampled loop) need not run 5 x 64 iterations to show it.
	 */
	size_t plim = pmax < 4 ? pmax : 4;

	iters = warm + 5 * plim;
	for (;;) {
		struct t32_model_row *nr;

		total = iters * n;
		/*
		 * A few instructions more, so the last retire group closes by itself
		 * and the rows looked at are not cut short (a group that starts off the
		 * block's first instruction would end past the copies).
		 */
		pad = (group - (total + phase) % group) % group;
		nr = realloc(rows, (total + pad) * sizeof(*rows));
		if (!nr) {
			free(rows);
			return -1;
		}
		rows = nr;
		if (simulate(u, b, n, total + pad, phase, t32_model_decoded(u, n), rows)) {
			free(rows);
			return -1;
		}
		for (p = 1; p <= plim && !found; p++) {
			size_t window = MAX(4 * p * n, (size_t)2 * u->rob_size + 2 * n);

			if (repeats(rows, total, n, p, window, &shift))
				found = 1;
		}
		p--;
		if (found)
			break;
		if (plim < pmax) {
			plim = 2 * plim < pmax ? 2 * plim : pmax;
			iters = warm + 5 * plim;
			continue;
		}
		if (2 * total > MAX_ROWS || 2 * total < total)
			break;
		iters *= 2;
	}
	/*
	 * No period of up to pmax iterations (one longer than the ROB's turnover,
	 * or none): the mean over the run's second half, past its slowest settling.
	 */
	pavg = found ? p : iters / 2;
	if (!found)
		p = pmax;
	if (steady_result(rows, total, n, p, pavg, found, skid, r)) {
		free(rows);
		return -1;
	}
	free(rows);
	return 0;
}

int t32_model_steady(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
		     int skid, struct t32_model_result *r)
{
	size_t group = t32_uarch_retire_group(u);

	if (group <= 1 || !u->retire_group_any)
		return steady_phase(u, b, n, skid, 0, r);
	/*
	 * Groups that may start anywhere: the mean over every phase of the grouping
	 * (the chart and the rows are phase 0's).
	 */
	if (steady_phase(u, b, n, skid, 0, r))
		return -1;
	for (size_t ph = 1; ph < group; ph++) {
		struct t32_model_result o;

		if (steady_phase(u, b, n, skid, ph, &o)) {
			t32_model_result_free(r);
			return -1;
		}
		r->cycles_per_iter += o.cycles_per_iter;
		for (size_t i = 0; i < n; i++) {
			r->weight[i] += o.weight[i];
			r->share[i] += o.share[i];
		}
		r->periodic &= o.periodic;
		t32_model_result_free(&o);
	}
	r->cycles_per_iter /= (double)group;
	for (size_t i = 0; i < n; i++) {
		r->weight[i] /= (double)group;
		r->share[i] /= (double)group;
	}
	return 0;
}

void t32_model_result_free(struct t32_model_result *r)
{
	free(r->rows);
	free(r->weight);
	free(r->share);
	memset(r, 0, sizeof(*r));
}

int t32_model_curve(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
		    size_t kmax, double *cycles)
{
	struct t32_model_row *rows;

	cycles[0] = 0;
	if (!n)
		return -1;
	if (!kmax)
		return 0;
	rows = malloc(kmax * n * sizeof(*rows));
	if (!rows)
		return -1;
	/*
	 * A run of k copies is a prefix of a run of kmax copies: one pass gives them
	 * all, and a second, decoded, those too long for the op cache (a run is
	 * timed at its fastest, so it runs from the op cache where it fits).
	 */
	for (int decoded = 0; decoded <= 1; decoded++) {
		long end = 0;	/* the last retirement or store drained so far */

		if (decoded && !t32_model_decoded(u, kmax * n))
			break;
		if (simulate(u, b, n, kmax * n, 0, decoded, rows)) {
			free(rows);
			return -1;
		}
		/* the run closes with a fence: it ends when all has retired and every store drained */
		for (size_t i = 0; i < kmax * n; i++) {
			end = MAX(end, MAX(rows[i].retire, drained(u, &b[rows[i].insn], rows[i].complete)));
			if ((i + 1) % n == 0 && t32_model_decoded(u, i + 1) == decoded)
				cycles[(i + 1) / n] = (double)(end + 1);
		}
	}
	free(rows);
	return 0;
}

/* Copies of one instruction in the loop t32_model_solve_latency runs. */
#define SOLVE_COPIES 8

int t32_model_solve_latency(const struct t32_uarch *u, const struct t32_model_insn *in,
			    double cycles, double halfwidth, unsigned *latency, unsigned *quarters,
			    double *predicted)
{
	struct t32_model_insn b[SOLVE_COPIES];
	double err[4 * T32_SOLVE_MAX + 1], pred[4 * T32_SOLVE_MAX + 1], best_err = INFINITY;
	double prev = -1, within;
	unsigned best = 0, last = 0, step = quarters ? 1 : 4;

	if (!(cycles >= 0) || !isfinite(cycles))
		return -1;
	/* x counts quarters of a cycle */
	for (unsigned x = 0; x <= 4 * T32_SOLVE_MAX; x += step) {
		struct t32_model_result r = { 0 };

		for (size_t k = 0; k < SOLVE_COPIES; k++) {
			b[k] = *in;
			b[k].latency = x / 4;
			b[k].quarters = x % 4;
		}
		if (t32_model_steady(u, b, SOLVE_COPIES, 1, &r))
			return -1;
		pred[x] = r.cycles_per_iter / SOLVE_COPIES;
		t32_model_result_free(&r);
		err[x] = fabs(pred[x] - cycles);
		best_err = fmin(best_err, err[x]);
		last = x;
		/* the cost only grows with the latency: past the measurement, stop */
		if (pred[x] > cycles + 1 && pred[x] >= prev)
			break;
		prev = pred[x];
	}
	if (!(best_err <= fmax(0.5, T32_SOLVE_SLACK * cycles)))
		return -1;
	/*
	 * The least latency the measurement cannot tell from the nearest: a store
	 * timed by its throughput (0.5027 +- 0.0086 cycles) costs 0.5 at every
	 * latency up to where the ROB fills (160 cycles on Zen 4), and the nearest
	 * alone would be there.
	 */
	within = fmax(best_err, isfinite(halfwidth) ? halfwidth : 0) + 1e-9;
	for (best = 0; best < last && !(err[best] <= within); best += step)
		;
	*latency = best / 4;
	if (quarters)
		*quarters = best % 4;
	if (predicted)
		*predicted = pred[best];
	return 0;
}
