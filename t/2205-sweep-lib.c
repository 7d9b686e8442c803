/*
 * 2205-sweep-lib: a sweep as a library call.  The n list written back as --n
 * takes it, the modes read, the request written as the command that would run
 * it, and rows handed to the caller's function in order, with no file, a
 * nonzero return stopping the sweep with that code; which readings --retry
 * takes again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t/tap.h"
#include "t32/core/sweep.h"
#include "t32/util.h"

struct seen {
	size_t rows;
	uint64_t n[8];
	size_t row[8];
	int measured, stop_after;
};

static int collect(void *ctx, const struct t32_sweep_row *r)
{
	struct seen *s = ctx;

	if (s->rows < 8) {
		s->n[s->rows] = r->n;
		s->row[s->rows] = r->row;
	}
	s->rows++;
	s->measured += r->m != NULL && (!strcmp(r->status, "ok") || !strcmp(r->status, "untrusted"));
	return s->stop_after && s->rows >= (size_t)s->stop_after ? 42 : 0;
}

int main(void)
{
	char buf[4096], err[256];
	uint64_t a[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }, b[] = { 100, 1000 },
		 c[] = { 1, 2, 5, 6, 7 }, d[] = { 1, 4 };
	unsigned modes = 0;
	struct t32_sweep_req q;
	struct t32_spec s = { 0 };
	char *body[] = { "inc eax" };
	struct seen seen = { 0 };
	int rc;

	plan(19);
	is_string("0..12", t32_sweep_nlist_text(a, 13, buf, sizeof(buf)), "a run of n reads A..B");
	is_string("100,1000", t32_sweep_nlist_text(b, 2, buf, sizeof(buf)), "separate values stay");
	is_string("1,2,5..7", t32_sweep_nlist_text(c, 5, buf, sizeof(buf)),
	       "two in a row stay apart, three make a run");
	ok(t32_sweep_parse_modes("raw,throughput", &modes) == 0 &&
	   modes == (T32_SWEEP_BIT(T32_SWEEP_RAW) | T32_SWEEP_BIT(T32_SWEEP_THROUGHPUT)),
	   "modes read into bits");
	ok(t32_sweep_parse_modes("raw,bogus", &modes) < 0, "an unknown mode is refused");

	if (t32_spec_set_barrier(&s, "l", err, sizeof(err)) ||
	    t32_spec_set_store(&s, "m", err, sizeof(err)) ||
	    t32_spec_parse_body(&s, 1, body, err, sizeof(err)))
		bail("cannot build the spec: %s", err);
	t32_sweep_req_init(&q);
	q.spec = &s;
	q.ns = a;
	q.nn = 13;
	q.mo.budget = 0.25;
	q.out_path = "dir/sweep.tsv";
	is_string("t32 sweep --n 0..12 --budget 0.25 -o dir/sweep.tsv l m 'inc eax'",
	       t32_sweep_command(&q, buf, sizeof(buf)), "the request as the command that runs it");
	q.mo.unit = T32_UNIT_TICKS;
	q.modes = T32_SWEEP_BIT(T32_SWEEP_LATENCY);
	q.table = "data/coursework.tbl";
	q.max_k = 6;
	is_string("t32 sweep --n 0..12 --mode latency --unit ticks --budget 0.25 --max-k 6 "
	       "-o dir/sweep.tsv data/coursework.tbl", t32_sweep_command(&q, buf, sizeof(buf)),
	       "a table's request names the table, its mode and unit");
	q.retry = 2;
	is_string("t32 sweep --n 0..12 --mode latency --unit ticks --budget 0.25 --max-k 6 --retry 2 "
	       "-o dir/sweep.tsv data/coursework.tbl", t32_sweep_command(&q, buf, sizeof(buf)),
	       "and --retry when it asks for one");
	q.retry = 0;
	q.modes = T32_SWEEP_BIT(T32_SWEEP_LATENCY);
	q.table = NULL;
	is_int(T32_EXIT_USAGE, t32_sweep(&q), "a spec swept in latency mode is refused");

	/* which readings are taken again: those the clock drifted under, --retry times */
	{
		struct t32_measurement m = { 0 };

		m.drifted = 1;
		snprintf(m.untrusted, sizeof(m.untrusted), "the core clock drifted 7.00%% during the run");
		ok(t32_sweep_again(&m, 0, 1) && !t32_sweep_again(&m, 1, 1),
		   "a reading the clock drifted under is taken once more with --retry 1, not twice");
		ok(!t32_sweep_again(&m, 0, 0), "and not at all without --retry");
		m.drifted = 0;
		snprintf(m.untrusted, sizeof(m.untrusted), "the readings were taken beside other work");
		ok(!t32_sweep_again(&m, 0, 3), "one untrusted for work beside it is not");
		m.drifted = 1;
		m.untrusted[0] = 0;
		ok(!t32_sweep_again(&m, 0, 3), "nor a trusted one the clock moved under a little");
	}

	/* rows into memory alone: no file, each row to the function in order */
	t32_sweep_req_init(&q);
	q.spec = &s;
	q.ns = d;
	q.nn = 2;
	q.mo.unit = T32_UNIT_TICKS;
	q.mo.precision = 0;
	q.mo.block_precision = 0;
	q.mo.budget = 0.02;
	q.mo.max_runs = 2000;
	q.bo.warmup = 10;
	q.out_path = "";
	q.quiet = 1;
	q.row = collect;
	q.ctx = &seen;
	rc = t32_sweep(&q);
	is_int(0, rc, "the sweep into memory ends well");
	is_int(2, (int)seen.rows, "one row per n");
	ok(seen.n[0] == 1 && seen.n[1] == 4 && seen.row[0] == 0 && seen.row[1] == 1,
	   "rows in order, numbered (n %llu, %llu)", (unsigned long long)seen.n[0],
	   (unsigned long long)seen.n[1]);
	is_int(2, seen.measured, "each row carries its measurement");
	memset(&seen, 0, sizeof(seen));
	seen.stop_after = 1;
	rc = t32_sweep(&q);
	is_int(42, rc, "the function's nonzero return stops the sweep with it");
	is_int(1, (int)seen.rows, "no row after the stop");
	t32_spec_free(&s);
	return done_testing();
}
