/*
 * attrib.c - interrupt samples to body instructions, and the sampled run of a
 * block that produces them (see attrib.h).
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "gen/gen.h"
#include "t32/sample/attrib.h"
#include "t32/core/confine.h"
#include "t32/util.h"

int t32_attrib_init(struct t32_attrib *a, const struct t32_blob *blob, char *err, size_t len)
{
	const struct t32_blob_header *h = &blob->hdr;
	csh cs;
	cs_insn *ci = NULL;
	size_t n;

	memset(a, 0, sizeof(*a));
	a->copies = 1;
	a->body_off = h->body;
	a->body_end = h->body_end;
	a->loop_off = h->loop;
	a->loop_end = h->loop_end;
	a->image_end = h->data ? h->data : blob->size;
	if (h->body > h->body_end || h->body_end > blob->size || h->loop_end > blob->size) {
		snprintf(err, len, "block header offsets out of range");
		return -1;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		snprintf(err, len, "capstone cannot start");
		return -1;
	}
	n = cs_disasm(cs, blob->image + h->body, h->body_end - h->body, h->body, 0, &ci);
	a->insn = calloc(n ? n : 1, sizeof(*a->insn));
	if (!a->insn) {
		cs_free(ci, n);
		cs_close(&cs);
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct t32_attr_insn *x = &a->insn[i];

		x->off = ci[i].address;
		x->size = (uint8_t)ci[i].size;
		memcpy(x->bytes, ci[i].bytes, ci[i].size > 16 ? 16 : ci[i].size);
		snprintf(x->text, sizeof(x->text), "%s%s%s", ci[i].mnemonic,
			 ci[i].op_str[0] ? " " : "", ci[i].op_str);
		x->item = -1;
		if (blob->item_off)
			for (uint64_t k = 0; k < h->nitems; k++)
				if (x->off >= blob->item_off[k] && x->off < blob->item_off[k + 1])
					x->item = (long)k;
	}
	a->ninsn = n;
	cs_free(ci, n);
	cs_close(&cs);
	if (n == 0 || a->insn[n - 1].off + a->insn[n - 1].size != h->body_end) {
		snprintf(err, len, "cannot disassemble the whole body");
		t32_attrib_free(a);
		return -1;
	}
	return 0;
}

long t32_attrib_find(const struct t32_attrib *a, uint64_t off)
{
	size_t lo = 0, hi = a->ninsn;

	/* Last instruction starting at or before off. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->insn[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || off >= a->insn[lo - 1].off + a->insn[lo - 1].size)
		return -1;
	return (long)(lo - 1);
}

/* Where image offset off lies: a body instruction's index, or one of these. */
enum { AT_OVERHEAD = -1, AT_IMAGE = -2 };
static long classify(const struct t32_attrib *a, uint64_t off)
{
	/* The loop overhead: from the loop's top (or the body's end) to its end, less the body. */
	uint64_t over_lo = a->loop_off < a->body_end ? a->loop_off : a->body_end;
	long k = t32_attrib_find(a, off);

	if (k >= 0)
		return k;
	return off >= over_lo && off < a->loop_end ? AT_OVERHEAD : AT_IMAGE;
}

void t32_attrib_add(struct t32_attrib *a, uint64_t code_base, const struct t32_sample *s,
		    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t off = s[i].ip - code_base;
		long k;

		a->total++;
		if (s[i].ip < code_base || off >= a->image_end) {
			a->outside++;
			continue;
		}
		k = classify(a, off);
		if (k == AT_OVERHEAD) {
			a->overhead++;
			continue;
		}
		if (k == AT_IMAGE) {
			a->image++;
			continue;
		}
		a->body++;
		a->insn[k].samples++;
		if (a->insn[k].off != off)
			a->inexact++;
		if (s[i].flags & T32_SAMPLE_CYCLES) {
			a->insn[k].cycles_n++;
			a->insn[k].tag_to_ret += s[i].tag_to_ret;
			a->insn[k].comp_to_ret += s[i].comp_to_ret;
		}
	}
}

void t32_attrib_parts(const struct t32_attrib *a, uint64_t code_base, const struct t32_sample *s,
		      size_t n, size_t parts, uint64_t *counts)
{
	size_t w = a->ninsn + 1;

	memset(counts, 0, parts * w * sizeof(*counts));
	for (size_t i = 0; i < n && parts; i++) {
		uint64_t off = s[i].ip - code_base, *row = counts + i * parts / n * w;
		long k;

		if (s[i].ip < code_base || off >= a->image_end)
			continue;
		k = classify(a, off);
		if (k >= 0)
			row[k]++;
		else if (k == AT_OVERHEAD)
			row[a->ninsn]++;
	}
}

/* Do instructions i and j have the same encoding? */
static int same_insn(const struct t32_attr_insn *x, const struct t32_attr_insn *y)
{
	return x->size == y->size && !memcmp(x->bytes, y->bytes, x->size > 16 ? 16 : x->size);
}

size_t t32_attrib_unit(const struct t32_attrib *a)
{
	for (size_t p = 1; p < a->ninsn; p++) {
		size_t i;

		if (a->ninsn % p)
			continue;
		for (i = p; i < a->ninsn; i++)
			if (!same_insn(&a->insn[i], &a->insn[i - p]))
				break;
		if (i == a->ninsn)
			return p;
	}
	return a->ninsn;
}

int t32_attrib_fold(const struct t32_attrib *a, size_t unit, struct t32_attrib *out)
{
	if (!unit || a->ninsn % unit)
		return -1;
	*out = *a;
	out->insn = calloc(unit, sizeof(*out->insn));
	if (!out->insn)
		return -1;
	out->ninsn = unit;
	out->copies = a->copies * (a->ninsn / unit);
	for (size_t j = 0; j < unit; j++)
		out->insn[j] = a->insn[j];
	for (size_t i = unit; i < a->ninsn; i++) {
		struct t32_attr_insn *x = &out->insn[i % unit];

		x->samples += a->insn[i].samples;
		x->cycles_n += a->insn[i].cycles_n;
		x->tag_to_ret += a->insn[i].tag_to_ret;
		x->comp_to_ret += a->insn[i].comp_to_ret;
	}
	return 0;
}

void t32_attrib_free(struct t32_attrib *a)
{
	free(a->insn);
	a->insn = NULL;
	a->ninsn = 0;
}


/* ---- the sampled run ---- */

#define CHUNK_SECONDS 0.01	/* the loop runs in chunks this long; the ring drains between */
#define BASE_EVERY 4		/* one chunk in this many runs with the sampler paused */
#define MAX_CHUNKS 65536

/* The child's orders and results, in MAP_SHARED memory. */
struct sample_job {
	const struct t32_sample_backend *backend;
	struct t32_sampler_opts so;
	uint64_t entry;		/* image offset of t32_loop */
	uint64_t max_samples;
	double seconds;
	/* results */
	uint64_t code_base;
	uint64_t n, lost, dropped, period;
	char unit[16], event[64];
	uint64_t sampled_iters;
	double sampled_seconds;	/* wall seconds of the sampled chunks (paused ones excluded) */
	char err[512];
	size_t nchunks, nbase;	/* chunks run sampled, and paused */
	double chunk_ns[MAX_CHUNKS];	/* scratch: ns per iteration of each sampled chunk */
	double base_chunk_ns[MAX_CHUNKS];	/* ... of each chunk run with the sampler paused */
};

typedef void (*loop_fn)(uint64_t iterations, void *arena);

/* Monotonic nanoseconds. */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Run one chunk of the loop; ns per iteration. */
static double run_chunk(loop_fn fn, uint64_t iters, void *arena)
{
	double t0 = now_ns();

	fn(iters, arena);
	return (now_ns() - t0) / (double)iters;
}

/* qsort order for doubles, ascending. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[0..n), reordering v. */
static double median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Ctrl-C in the sampling child: finish the chunk, then stop and report. */
static volatile sig_atomic_t sample_stop;

static void on_sample_stop(int sig)
{
	(void)sig;
	sample_stop = 1;
}

/* The sampling child's sampler and arena (started before it is confined). */
static struct t32_sampler child_sampler;
static void *child_arena;

/*
 * In the child, before it is confined: the arena, the sampler started and paused
 * (the chunk sizing runs unsampled), and what its pausing needs let through.
 * The backend's event and unit are reported here, before any body runs.
 * Returns 0, 3 when the sampler would not start, 1 on other errors (message in
 * job->err).
 */
static int sample_prepare(void *code, void *arg, struct t32_confine *c)
{
	struct sample_job *job = arg;
	struct t32_sampler *s = &child_sampler;
	struct sigaction sa = { .sa_handler = on_sample_stop };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	job->code_base = (uint64_t)(uintptr_t)code;
	child_arena = t32_arena_new();
	if (!child_arena) {
		snprintf(job->err, sizeof(job->err), "cannot map the arena");
		return 1;
	}
	if (t32_sampler_start(s, job->backend, &job->so, job->err, sizeof(job->err)))
		return 3;
	t32_sampler_pause(s, 1);
	job->period = s->period;
	snprintf(job->unit, sizeof(job->unit), "%.*s", (int)sizeof(job->unit) - 1, s->unit);
	snprintf(job->event, sizeof(job->event), "%.*s", (int)sizeof(job->event) - 1, s->event);
	c->perf_fd = s->fd;
	c->timer = s->armed ? (int)(intptr_t)s->timer : -1;
	return 0;
}

/*
 * In the confined child: size a chunk, then run chunks of the loop with the
 * sampler on, draining it between chunks, until enough samples or time; every
 * BASE_EVERY-th chunk runs with the sampler paused, so the times with and
 * without sampling are taken alike (a busy machine slows both).  The sampler is
 * paused and drained at the end, not released: the process ends.  0.
 */
static int sample_child(void *code, void *arg)
{
	struct sample_job *job = arg;
	loop_fn fn = (loop_fn)(void (*)(void))((char *)code + job->entry);
	struct t32_sampler *s = &child_sampler;
	double t0, wall = 0;
	size_t nchunks = 0, nbase = 0, round = 0;
	uint64_t iters = 1;

	/* Chunk size: double until a chunk takes CHUNK_SECONDS. */
	while (iters < (UINT64_C(1) << 40) && run_chunk(fn, iters, child_arena) * (double)iters <
	       CHUNK_SECONDS * 1e9)
		iters *= 2;

	t32_sampler_pause(s, 0);
	t0 = now_ns();
	while (s->n < job->max_samples && now_ns() - t0 < job->seconds * 1e9 &&
	       nchunks < MAX_CHUNKS && nbase < MAX_CHUNKS && !sample_stop) {
		if (++round % BASE_EVERY == 0 || nbase < 2) {
			t32_sampler_pause(s, 1);
			job->base_chunk_ns[nbase++] = run_chunk(fn, iters, child_arena);
			t32_sampler_pause(s, 0);
			continue;
		}
		job->chunk_ns[nchunks] = run_chunk(fn, iters, child_arena);
		wall += job->chunk_ns[nchunks++] * (double)iters;
		t32_sampler_drain(s);
	}
	t32_sampler_pause(s, 1);
	t32_sampler_drain(s);

	job->n = s->n;
	job->lost = s->lost;
	job->dropped = s->dropped;
	job->sampled_iters = iters * nchunks;
	job->sampled_seconds = wall * 1e-9;
	job->nchunks = nchunks;
	job->nbase = nbase;
	return 0;
}

/*
 * What the sampling child left is checked before it is used: the body ran in
 * that process and may have written over any of it.  A count out of range or a
 * figure that is no number is refused; text is cut to its array and its
 * control bytes replaced.  0, or -1 with the reason in err.
 */
static int sample_job_check(struct sample_job *job, size_t cap, char *err, size_t len)
{
	char *texts[] = { job->unit, job->event, job->err };
	size_t sizes[] = { sizeof(job->unit), sizeof(job->event), sizeof(job->err) };

	for (size_t i = 0; i < 3; i++) {
		texts[i][sizes[i] - 1] = 0;
		for (char *p = texts[i]; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	if (job->n > cap || job->nchunks > MAX_CHUNKS || job->nbase > MAX_CHUNKS ||
	    !(job->sampled_seconds >= 0 && job->sampled_seconds < 1e9)) {
		snprintf(err, len, "the sampling process returned impossible figures (the body "
			 "changed the harness's own data)");
		return -1;
	}
	for (size_t i = 0; i < job->nchunks; i++)
		if (!(job->chunk_ns[i] >= 0 && job->chunk_ns[i] < 1e18))
			job->chunk_ns[i] = 0;
	for (size_t i = 0; i < job->nbase; i++)
		if (!(job->base_chunk_ns[i] >= 0 && job->base_chunk_ns[i] < 1e18))
			job->base_chunk_ns[i] = 0;
	return 0;
}

int t32_sample_block(const struct t32_spec *s, const struct t32_sample_request *rq,
		     struct t32_sample_result *out, struct t32_fault *f)
{
	struct t32_gen_opts go = { .shape = T32_GEN_LOOP, .loop_barrier = rq->loop_barrier,
				   .unroll = rq->unroll ? rq->unroll : 1 };
	struct t32_gen g;
	struct t32_blob blob;
	struct sample_job *job;
	struct t32_sample *buf;
	size_t cap;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(f, 0, sizeof(*f));
	out->backend = rq->backend;
	if (t32_generate(s, &go, &g)) {
		snprintf(out->err, sizeof(out->err), "cannot generate the block (out of memory)");
		return 1;
	}
	rc = t32_assemble(g.text, &g, &blob, f);
	t32_gen_free(&g);
	if (rc)
		return 1;
	if (t32_attrib_init(&out->at, &blob, out->err, sizeof(out->err))) {
		t32_blob_free(&blob);
		return 1;
	}

	/* Results come back through shared memory: the job and the sample array. */
	cap = rq->max_samples + 2 * (size_t)(CHUNK_SECONDS * 1e9 / (double)rq->period_ns) + 4096;
	job = mmap(NULL, sizeof(*job), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	buf = mmap(NULL, cap * sizeof(*buf), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		   -1, 0);
	if (job == MAP_FAILED || buf == MAP_FAILED) {
		snprintf(out->err, sizeof(out->err), "cannot map shared memory for the samples");
		rc = 1;
		goto out;
	}
	job->backend = rq->backend;
	job->so = (struct t32_sampler_opts){ .clock = rq->clock, .period_ns = rq->period_ns,
					     .buf = buf, .capacity = cap };
	job->entry = blob.hdr.entry;
	job->max_samples = rq->max_samples;
	job->seconds = rq->seconds;

	rc = t32_isolated(&blob, sample_prepare, sample_child, job, &rq->run, f);
	if (rc < 0) {
		rc = 1;
		goto out;
	}
	if (sample_job_check(job, cap, out->err, sizeof(out->err))) {
		rc = T32_EXIT_UNTRUSTED;
		goto out;
	}
	if (rc) {
		snprintf(out->err, sizeof(out->err), "%s", job->err[0] ? job->err : "sampling failed");
		rc = rc == 3 ? 3 : 1;
		goto out;
	}
	t32_attrib_add(&out->at, job->code_base, buf, job->n);
	out->parts = calloc(T32_SAMPLE_PARTS * (out->at.ninsn + 1), sizeof(uint64_t));
	if (out->parts)
		t32_attrib_parts(&out->at, job->code_base, buf, job->n, T32_SAMPLE_PARTS, out->parts);
	snprintf(out->event, sizeof(out->event), "%s", job->event);
	snprintf(out->unit, sizeof(out->unit), "%s", job->unit);
	out->period = job->period;
	out->samples = job->n;
	out->lost = job->lost;
	out->dropped = job->dropped;
	out->seconds = job->sampled_seconds;
	out->iterations = job->sampled_iters;
	out->ns_alone = median(job->base_chunk_ns, job->nbase);
	out->ns_sampled = median(job->chunk_ns, job->nchunks);
out:
	if (job != MAP_FAILED)
		munmap(job, sizeof(*job));
	if (buf != MAP_FAILED)
		munmap(buf, cap * sizeof(*buf));
	t32_blob_free(&blob);
	return rc;
}

void t32_sample_result_free(struct t32_sample_result *r)
{
	free(r->parts);
	r->parts = NULL;
	t32_attrib_free(&r->at);
}
