/*
 * sweep.c - a sweep as a library call (sweep.h): the rows of a request
 * enumerated (forms outermost, then modes, then n), each measured and written
 * whole with one write(), so Ctrl-C or a crash loses at most the row being
 * measured; the `# sweep:` line naming everything that decides a row's value, so
 * --resume refuses a file of another sweep; the output opened, locked, and put
 * in place when the sweep is done.
 */
#include "t32/core/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t32/core/chainjudge.h"
#include "t32/core/record.h"
#include "t32/io/sweepfile.h"
#include "t32/io/tsv.h"

static volatile int interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

const struct t32_sweep_mode_name t32_sweep_modes[T32_SWEEP_MODES] = {
	{ "raw", "the body as written, n copies" },
	{ "latency", "a dependent chain: n copies of a form written so its output feeds its input" },
	{ "throughput", "k = 1..12 independent copies over rotating registers, the best k kept" },
};

struct sweep {
	struct t32_table table;		/* when sweeping a table */
	int from_table;
	struct t32_spec spec;		/* barrier, store, init; the body when sweeping a spec */
	/*
	 * the request as run: its modes (0 given: the default), its cpu (-1: the
	 * default), resume (off when the file is not there yet)
	 */
	struct t32_sweep_req q;
	char *signature;		/* the `# sweep:` line: what makes two files one sweep */
	char shard_line[64];		/* `# shard: K/N` line, or "" */
	unsigned char *done;		/* rows already in the output (resume) */
	size_t nrows;
	struct t32_sweep_row last;	/* the row format_row wrote last, for the caller's sink */
	struct t32_measurement last_m;
	struct t32_rate rate;		/* the reading of the row measure_job last finished */
	struct t32_sweep_counts counts;	/* the rows written, by status */
	/*
	 * throughput rows measured ahead of their turn, beside their latency rows
	 * (slot row % nn: at most a form's n list waits at a time), or line NULL
	 */
	struct ahead {
		size_t row;
		char *line;
		struct t32_sweep_row r;
		struct t32_measurement m;
	} *ahead;
};

/* A row to measure: which form, mode and n. */
struct job {
	size_t row;
	const struct t32_form *form;	/* NULL: the command-line spec */
	enum t32_sweep_mode mode;
	uint64_t n;
};

static size_t forms_of(const struct sweep *w)
{
	return w->from_table ? w->table.n : 1;
}

/* Enumerate row r: forms outermost, then modes, then n. */
static int job_of(const struct sweep *w, size_t r, struct job *j)
{
	size_t per_form = 0, m, k = 0;
	unsigned mlist[T32_SWEEP_MODES];

	for (m = 0; m < T32_SWEEP_MODES; m++)
		if (w->q.modes & (1u << m))
			mlist[k++] = (unsigned)m;
	per_form = k * w->q.nn;
	if (r >= per_form * forms_of(w))
		return -1;
	j->row = r;
	j->form = w->from_table ? &w->table.forms[r / per_form] : NULL;
	j->mode = (enum t32_sweep_mode)mlist[(r % per_form) / w->q.nn];
	j->n = w->q.ns[r % w->q.nn];
	return 0;
}

/* Build the spec of a job with k throughput copies (k ignored in other modes). */
static int job_spec(const struct sweep *w, const struct job *j, unsigned k, struct t32_spec *s,
		    char *err, size_t errlen)
{
	*s = w->spec;
	s->items = NULL;
	s->nitems = 0;
	if (!j->form) {
		/* a spec: the last item repeats n times */
		for (size_t i = 0; i < w->spec.nitems; i++)
			if (t32_spec_add_item(s, i + 1 == w->spec.nitems ? j->n : w->spec.items[i].reps,
					      w->spec.items[i].text))
				return -1;
		return 0;
	}
	if (j->form->init && t32_spec_parse_init(s, j->form->init, err, errlen))
		return -1;
	if (j->mode != T32_SWEEP_THROUGHPUT)
		return t32_spec_add_item(s, j->n, j->form->insn);
	{
		/* k copies, whole: a placeholder ({r}, 3 bytes) becomes at most 5 (zmm31) */
		size_t one = 2 * strlen(j->form->tp) + 16, used = 0;
		char *unit = malloc(k * (one + 2) + 1);
		int rc;

		if (!unit) {
			snprintf(err, errlen, "out of memory for '%u copies'", k);
			return -1;
		}
		for (unsigned c = 0; c < k; c++) {
			if (c) {
				memcpy(unit + used, "; ", 2);
				used += 2;
			}
			if (t32_form_tp_expand(j->form, c, unit + used, one + 1)) {
				snprintf(err, errlen, "cannot expand the throughput template '%.200s'",
					 j->form->tp);
				free(unit);
				return -1;
			}
			used += strlen(unit + used);
		}
		rc = t32_spec_add_item(s, j->n / k, unit);
		free(unit);
		return rc;
	}
}

/* A spec's name in rows: its last item, the one that repeats n times, says `n`. */
static void spec_name(const struct t32_spec *s, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s %c", s->barrier, s->store);

	for (size_t i = 0; i < s->nitems && used < len; i++) {
		if (i + 1 == s->nitems)
			used += (size_t)snprintf(buf + used, len - used, " n '%s'", s->items[i].text);
		else
			used += (size_t)snprintf(buf + used, len - used, " %llu '%s'",
						 (unsigned long long)s->items[i].reps, s->items[i].text);
	}
}

/* One finished row as a line. */
static int format_row(char *buf, size_t len, struct sweep *w, const struct job *j,
		      unsigned k, const struct t32_measurement *m, const char *status,
		      const char *reason)
{
	w->last = (struct t32_sweep_row){ j->row, j->form ? j->form->name : NULL, j->mode, j->n,
					  m ? k : 0, status, NULL };
	if (m) {
		w->last_m = *m;
		w->last.m = &w->last_m;
	}

	char flags[128] = "-", raw[1024], name[1024], expected[32] = "", why[1024], ratio[32] = "-";
	double exp = NAN;

	/* text fields escaped: a tab or newline in them adds no column or row */
	if (j->form) {
		snprintf(raw, sizeof(raw), "%s", j->form->name);
		exp = j->mode == T32_SWEEP_THROUGHPUT ? j->form->rtp : j->form->lat;
	} else {
		spec_name(&w->spec, raw, sizeof(raw));
	}
	t32_tsv_escape(name, sizeof(name), raw);
	t32_tsv_escape(why, sizeof(why), reason);
	reason = why;
	if (!isnan(exp))
		snprintf(expected, sizeof(expected), "%g", exp);
	if (!m)
		return snprintf(buf, len, "%zu\t%s\t%s\t%llu\t\t%s\t\t\t\t\t\t\t\t\t\t\t%s\t%s\t%s\n",
				j->row, name, t32_sweep_modes[j->mode].name, (unsigned long long)j->n,
				t32_unit_names[w->q.mo.unit], status, expected, reason);
	/* the row's own calibration; "-" where none ran (unit ticks or ns) */
	if (m->ratio > 0)
		snprintf(ratio, sizeof(ratio), "%.5f", m->ratio);
	t32_measure_flags(m, flags, sizeof(flags));
	return snprintf(buf, len,
			"%zu\t%s\t%s\t%llu\t%u\t%s\t%.4f\t%.4f\t%.4f\t%.3f\t%.4f\t%.4f\t%llu\t%.3f\t%s\t%s\t%s\t%s\t%s\n",
			j->row, name, t32_sweep_modes[j->mode].name, (unsigned long long)j->n, k,
			t32_unit_names[w->q.mo.unit], m->value, m->value - m->halfwidth,
			m->value + m->halfwidth, m->block_value - m->empty_value, m->min_value,
			m->insns ? (m->sblock.median - m->sempty.median) / (double)m->insns *
					   (m->block_value / (m->block.value ? m->block.value : 1))
				 : 0.0,
			(unsigned long long)m->runs, m->seconds, ratio, flags, status, expected, reason);
}

/*
 * Write a whole line with one write(), so a kill between rows leaves whole rows.
 * A short write (a full disk) is carried on, so errno says why, and on failure
 * the file is cut back to where the line began: it holds whole rows only.
 */
static int write_line(int fd, const char *line)
{
	size_t len = strlen(line), done = 0;
	off_t start = lseek(fd, 0, SEEK_END);

	while (done < len) {
		ssize_t n = write(fd, line + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			/* errno of the write is what the user needs, not the cut's */
			int cut = done && start >= 0 ? ftruncate(fd, start) : 0;

			(void)cut;
			errno = e;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * With --k-list, is k one of the copies to try?  A listed count above what the
 * template's registers allow (kmax) tries the largest count that divides n.
 */
static int k_listed(const struct sweep *w, const struct job *j, unsigned k, unsigned kmax)
{
	unsigned top = 0;

	for (unsigned c = kmax; c >= 1 && !top; c--)
		if (j->n >= c && j->n % c == 0)
			top = c;
	for (unsigned i = 0; i < w->q.nk; i++)
		if (w->q.klist[i] == k || (w->q.klist[i] > kmax && k == top))
			return 1;
	return 0;
}

/* Is k copies one measure_job tries for j (kmax: the copies the form allows)? */
static int k_tried(const struct sweep *w, const struct job *j, unsigned k, unsigned kmax)
{
	if (j->mode == T32_SWEEP_THROUGHPUT && (j->n < k || j->n % k))
		return 0;
	return !(j->mode == T32_SWEEP_THROUGHPUT && w->q.nk && !k_listed(w, j, k, kmax));
}

/*
 * Rows assembled ahead at a time, their blocks in one nasm run or a few: 4 at
 * first, so the first row comes soon, four times as many each time up to 256.
 */
#define ASSEMBLE_ROWS 256

/*
 * Assemble the blocks of the rows from r on (this shard's, not done, up to
 * *rows of them, which then grows) before they are measured; the row after them.
 */
static size_t assemble_next(const struct sweep *w, size_t r, size_t *rows)
{
	size_t want = *rows, n = 0, cap = 0, seen = 0;
	struct t32_spec *specs = NULL;
	const struct t32_spec **list = NULL;
	char err[256];
	int fail = 0;

	*rows = want * 4 < ASSEMBLE_ROWS ? want * 4 : ASSEMBLE_ROWS;
	for (; r < w->nrows && seen < want && !fail; r++) {
		struct job j;
		unsigned kmax;

		if (r % w->q.shards != w->q.shard - 1 || w->done[r] || job_of(w, r, &j))
			continue;
		seen++;
		if ((j.mode == T32_SWEEP_THROUGHPUT && j.form && !j.form->tp) ||
		    (j.mode == T32_SWEEP_LATENCY && j.form && j.form->nochain))
			continue;
		kmax = j.mode == T32_SWEEP_THROUGHPUT ? w->q.max_k : 1;
		if (j.mode == T32_SWEEP_THROUGHPUT && j.form && kmax > j.form->tp_period)
			kmax = j.form->tp_period;
		for (unsigned k = 1; k <= kmax; k++) {
			if (!k_tried(w, &j, k, kmax))
				continue;
			if (n == cap) {
				struct t32_spec *more = realloc(specs, (cap = cap ? 2 * cap : 64) *
									sizeof(*specs));

				if (!more) {
					fail = 1;
					break;
				}
				specs = more;
			}
			if (job_spec(w, &j, k, &specs[n], err, sizeof(err))) {
				t32_spec_free(&specs[n]);
				continue;
			}
			n++;
		}
	}
	/* the rows are measured whether or not their blocks could be made ready here */
	list = calloc(n ? n : 1, sizeof(*list));
	for (size_t i = 0; list && i < n; i++)
		list[i] = &specs[i];
	if (n && list) {
		struct t32_measure_opts mo = w->q.mo;

		/* latency and throughput rows are marginal costs (their twins), raw rows not */
		mo.slope = !(w->q.modes & T32_SWEEP_BIT(T32_SWEEP_RAW)) && !w->q.whole;
		t32_measure_prepare(list, n, &w->q.bo, &mo);
	}
	for (size_t i = 0; i < n; i++)
		t32_spec_free(&specs[i]);
	free(specs);
	free(list);
	return r;
}

static int measure_job(struct sweep *w, const struct job *j, char *buf, size_t len);

/*
 * The throughput row of latency job j's form and n, measured now when this run
 * measures it at all (in this shard, not yet in the file), so the latency row can
 * be judged against it; its line waits in w->ahead until its turn.  *tp is its
 * reading (have 0 when there is none).  0, or an exit code to stop with.
 */
static int measure_ahead(struct sweep *w, const struct job *j, struct t32_rate *tp)
{
	size_t r = j->row + w->q.nn;
	struct ahead *a;
	struct job t;
	char line[8192];
	int rc;

	if (!(w->q.modes & T32_SWEEP_BIT(T32_SWEEP_THROUGHPUT)) || !w->ahead || r >= w->nrows ||
	    r % w->q.shards != w->q.shard - 1 || w->done[r] || w->ahead[r % w->q.nn].line ||
	    job_of(w, r, &t) || t.mode != T32_SWEEP_THROUGHPUT || t.form != j->form)
		return 0;
	w->rate.have = 0;
	rc = measure_job(w, &t, line, sizeof(line));
	if (rc)
		return rc;
	*tp = w->rate;
	a = &w->ahead[r % w->q.nn];
	a->row = r;
	a->r = w->last;
	a->m = w->last_m;
	a->line = strdup(line);
	return a->line ? 0 : T32_EXIT_ERROR;
}

/* Row r when it was measured ahead of its turn: its line into buf, w->last its row. */
static int take_ahead(struct sweep *w, size_t r, char *buf, size_t len)
{
	struct ahead *a = w->ahead ? &w->ahead[r % w->q.nn] : NULL;

	if (!a || !a->line || a->row != r)
		return 0;
	snprintf(buf, len, "%s", a->line);
	free(a->line);
	a->line = NULL;
	w->last = a->r;
	w->last_m = a->m;
	if (w->last.m)
		w->last.m = &w->last_m;
	return 1;
}

int t32_sweep_again(const struct t32_measurement *m, unsigned tried, unsigned retry)
{
	return m->untrusted[0] && m->drifted && tried < retry;
}

/* Measure one job; the row line goes into buf.  Returns 0, or an exit code to stop with. */
static int measure_job(struct sweep *w, const struct job *j, char *buf, size_t len)
{
	struct t32_measurement best, m;
	unsigned kmax = j->mode == T32_SWEEP_THROUGHPUT ? w->q.max_k : 1, bestk = 0;
	char err[256] = "", reason[512] = "";
	const char *status = "ok";
	int rc = 0;

	if (j->mode == T32_SWEEP_THROUGHPUT && j->form && !j->form->tp) {
		format_row(buf, len, w, j, 0, NULL, "skipped",
			   "the form has no throughput template (tp=)");
		return 0;
	}
	if (j->mode == T32_SWEEP_LATENCY && j->form && j->form->nochain) {
		char why[256];

		if (j->form->nochain > 1)
			snprintf(why, sizeof(why), "the form has no dependency chain (chain=none: %s): "
				 "throughput only", t32_form_nochain_reason(j->form));
		else
			snprintf(why, sizeof(why), "the form has no dependency chain (chain=none): "
				 "throughput only");
		format_row(buf, len, w, j, 0, NULL, "skipped", why);
		return 0;
	}
	if (j->mode == T32_SWEEP_THROUGHPUT && j->form && kmax > j->form->tp_period)
		kmax = j->form->tp_period;
	for (unsigned k = 1; k <= kmax && !interrupted; k++) {
		struct t32_spec s;

		if (!k_tried(w, j, k, kmax))
			continue;
		if (job_spec(w, j, k, &s, err, sizeof(err))) {
			t32_spec_free(&s);
			snprintf(reason, sizeof(reason), "%s", err[0] ? err : "cannot build the block");
			status = "error";
			break;
		}
		/* latency and throughput rows are marginal costs; raw rows the study's quantity */
		struct t32_measure_opts mo = w->q.mo;

		mo.slope = j->mode != T32_SWEEP_RAW && !w->q.whole;
		rc = t32_measure(&s, &w->q.bo, &mo, &interrupted, &m);
		/* the first trusted reading of up to --retry more stands, else the first */
		for (unsigned t = 0; !rc && t32_sweep_again(&m, t, w->q.retry) && !interrupted; t++) {
			struct t32_measurement again;

			if (t32_measure(&s, &w->q.bo, &mo, &interrupted, &again))
				break;
			if (!again.untrusted[0])
				m = again;
		}
		t32_spec_free(&s);
		if (rc) {
			snprintf(reason, sizeof(reason), "%s", t32_last_error);
			status = rc == T32_EXIT_UNSUPPORTED ? "unsupported" : "fault";
			break;
		}
		if (!bestk || m.value < best.value) {
			best = m;
			bestk = k;
		}
	}
	if (interrupted)
		return T32_EXIT_INTERRUPTED;
	if (rc || !bestk) {
		if (!reason[0])
			snprintf(reason, sizeof(reason), "no k in 1..%u divides n", kmax);
		format_row(buf, len, w, j, 0, NULL, rc || strcmp(status, "ok") ? status : "skipped",
			   reason);
		return 0;
	}
	if (best.untrusted[0])
		status = "untrusted";
	w->rate = (struct t32_rate){ !strcmp(status, "ok"), best.value, best.value - best.halfwidth,
				     best.value + best.halfwidth };
	if (j->mode == T32_SWEEP_LATENCY && j->form && w->rate.have) {
		/* a latency below a cycle or its own throughput carried no dependency */
		struct t32_rate lat = w->rate, tp = { 0 };

		rc = measure_ahead(w, j, &tp);
		if (rc)
			return rc;
		if (t32_chain_judge(j->form->insn, w->q.mo.unit == T32_UNIT_CYCLES, &lat, &tp,
				    reason, sizeof(reason)) != T32_CHAIN_OK) {
			format_row(buf, len, w, j, bestk, &best, T32_CHAIN_STATUS, reason);
			return 0;
		}
	}
	format_row(buf, len, w, j, bestk, &best, status, best.untrusted);
	return 0;
}

/* FNV-1a, 64 bits: a short name for a long text in the sweep line. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}
#define FNV_START 0xcbf29ce484222325ull

/* d as the shortest text that reads back as the same number. */
static void exact_num(FILE *f, double d)
{
	char buf[40];

	for (int p = 6; p <= 17; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, f);
}

/* Text (escaped) in the sweep line: whole, or its start and a hash when long or odd. */
static void sig_text(FILE *f, const char *text)
{
	size_t len = strlen(text);
	char *esc = malloc(2 * len + 1);
	int odd = 0;

	if (esc) {
		t32_tsv_escape(esc, 2 * len + 1, text);
		for (char *p = esc; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				*p = '?';
				odd = 1;
			}
	}
	if (esc && !odd && strlen(esc) <= 1024)
		fputs(esc, f);
	else
		fprintf(f, "%.200s... (%zu bytes, fnv1a64 %016llx)", esc ? esc : "", len,
			(unsigned long long)fnv1a(FNV_START, text, len));
	free(esc);
}

/*
 * The line naming the sweep: everything that decides a row's value, so that
 * --resume and --merge refuse a piece of another sweep.  The CPU is left out:
 * shards run on several machines.  A long n list is named by its ends, count and
 * hash.
 */
static int make_signature(struct sweep *w, const char *what)
{
	char *buf = NULL, *nl = NULL;
	size_t len = 0, nlen = 0;
	FILE *f = open_memstream(&buf, &len), *n = open_memstream(&nl, &nlen);
	const char *sep = "";

	if (!f || !n) {
		if (f)
			fclose(f);
		if (n)
			fclose(n);
		free(buf);
		free(nl);
		return -1;
	}
	fprintf(f, "# sweep: rows=%zu of=", w->nrows);
	sig_text(f, what);
	if (w->from_table)
		fprintf(f, " forms=%016llx", (unsigned long long)t32_table_hash(&w->table));
	fputs(" modes=", f);
	for (int m = 0; m < T32_SWEEP_MODES; m++)
		if (w->q.modes & (1u << m)) {
			fprintf(f, "%s%s", sep, t32_sweep_modes[m].name);
			sep = ",";
		}
	fprintf(f, " barrier=%s store=%c unit=%s estimate=%s shards=%u init=", w->spec.barrier,
		w->spec.store, t32_unit_names[w->q.mo.unit], w->q.whole ? "block" : "slope",
		w->q.shards);
	for (size_t i = 0; i < w->spec.ninit; i++) {
		char one[96];

		t32_init_format(&w->spec.init[i], one, sizeof(one));
		fprintf(f, "%s%s", i ? "," : "", one);
	}
	if (!w->spec.ninit)
		fputs("-", f);
	fputs(" precision=", f);
	exact_num(f, w->q.mo.precision);
	fputs(" block-precision=", f);
	exact_num(f, w->q.mo.block_precision);
	fputs(" budget=", f);
	exact_num(f, w->q.mo.budget);
	fprintf(f, " max-runs=%llu max-k=%u", (unsigned long long)w->q.mo.max_runs, w->q.max_k);
	for (unsigned i = 0; i < w->q.nk; i++)
		fprintf(f, "%s%u", i ? "," : " k-list=", w->q.klist[i]);
	fprintf(f, " warmup=%llu dither=%d n=", (unsigned long long)w->q.bo.warmup, w->q.bo.dither);
	for (size_t i = 0; i < w->q.nn; i++)
		fprintf(n, "%s%llu", i ? "," : "", (unsigned long long)w->q.ns[i]);
	fclose(n);
	if (nlen <= 512)
		fputs(nl, f);
	else
		fprintf(f, "%llu,%llu,...,%llu (%zu values, fnv1a64 %016llx)",
			(unsigned long long)w->q.ns[0], (unsigned long long)w->q.ns[1],
			(unsigned long long)w->q.ns[w->q.nn - 1], w->q.nn,
			(unsigned long long)fnv1a(FNV_START, nl, nlen));
	fputc('\n', f);
	free(nl);
	if (fclose(f)) {
		free(buf);
		return -1;
	}
	w->signature = buf;
	if (w->q.shards > 1)
		snprintf(w->shard_line, sizeof(w->shard_line), "# shard: %u/%u\n", w->q.shard,
			 w->q.shards);
	return 0;
}

/* Where the rows go: stdout, a file appended to, or a temporary file beside it. */
struct sink {
	int fd;			/* rows are appended here */
	char *target;		/* the file written: the output, or where its symbolic link leads */
	char *tmp;		/* put in place of the output when the sweep ends, or NULL */
	int in_place;		/* tmp is copied over the output, not renamed (t32_tmp_replacing) */
	char *partial;		/* an interrupted sweep's rows, kept beside the old file */
	int oldfd;		/* the file being replaced, locked meanwhile, or -1 */
	int created;		/* the output did not exist before this run */
	int started;		/* it holds a sweep's header: a sweep to resume */
	const char *path;	/* for messages: the output, or "stdout" */
};

/*
 * Read the output for --resume (its lock held, as fd): check it is this sweep,
 * note its rows, and cut a last line that has no newline (a row half-written
 * when the run died).  0, or -1 after a message.
 */
static int load_resume(struct sweep *w, int fd, const char *path)
{
	int dupfd = dup(fd);
	FILE *f = dupfd < 0 ? NULL : fdopen(dupfd, "r");
	off_t good = 0;
	char cpu[320];
	int rc, mixed = 0;

	if (!f) {
		if (dupfd >= 0)
			close(dupfd);
		t32_error("cannot read '%s' (%s)", path, strerror(errno));
		return -1;
	}
	t32_provenance_cpu_line(cpu, sizeof(cpu));
	rc = t32_sweep_scan(f, path, w->signature, w->shard_line, cpu, w->q.allow_mixed, &mixed,
			    w->nrows, w->done, &good);
	fclose(f);
	/* rows from this CPU follow: the file says so, and --merge sees it */
	if (!rc && mixed && pwrite(fd, cpu, strlen(cpu), good) == (ssize_t)strlen(cpu))
		good += (off_t)strlen(cpu);
	if (!rc && ftruncate(fd, good)) {
		t32_error("cannot write '%s' (%s)", path, strerror(errno));
		rc = -1;
	}
	if (!rc && lseek(fd, 0, SEEK_END) < 0) {
		t32_error("cannot write '%s' (%s)", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

/*
 * Open where the rows go.  A new file is written where it is, so a kill leaves
 * its rows for --resume; --resume appends to the file it finds; an existing file
 * without --resume is never truncated: the new sweep goes to a temporary file
 * (t32_tmp_replacing) put in its place when the sweep is done, kept as
 * FILE.partial when it is interrupted, and removed if it cannot be written.  A
 * symbolic link stays: the file it names is written.  Each file is locked
 * (flock) so a second t32 writing it is refused.  0, or an exit code after a
 * message.
 */
static int sink_open(struct sweep *w, struct sink *k)
{
	const char *path = w->q.out_path;
	struct stat st;

	memset(k, 0, sizeof(*k));
	k->fd = 1;
	k->oldfd = -1;
	k->path = "stdout";
	if (!path || strcmp(path, "-") == 0)
		return w->q.resume ? (t32_error("cannot resume '%s' (not a file)", "stdout"),
				    T32_EXIT_USAGE) : 0;
	k->path = w->q.out_path;
	if (!(k->target = t32_out_target(w->q.out_path))) {
		t32_error("cannot write '%s' (%s)", w->q.out_path, strerror(errno));
		return T32_EXIT_ERROR;
	}
	path = k->target;
	t32_strays_beside(path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		t32_error("cannot write '%s' (%s)", path, strerror(EISDIR));
		return T32_EXIT_ERROR;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a FIFO is written where it is */
		if (w->q.resume) {
			t32_error("cannot resume '%s' (not a regular file)", path);
			return T32_EXIT_ERROR;
		}
		k->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
		if (k->fd < 0) {
			t32_error("cannot write '%s' (%s)", path, strerror(errno));
			return T32_EXIT_ERROR;
		}
		return 0;
	}
	for (int tries = 0; tries < 10; tries++) {
		int fd;

		if (w->q.resume || tries) {
			/* --resume: the file as it is, locked */
			fd = t32_lock_path(path, w->q.resume ? O_RDWR : O_RDONLY);
			if (fd == -2)
				return T32_EXIT_ERROR;
			if (fd < 0 && errno == ENOENT) {
				w->q.resume = 0;	/* nothing there yet: start afresh */
			} else if (fd < 0 && w->q.resume) {
				t32_error("cannot write '%s' (%s)", k->path, strerror(errno));
				return T32_EXIT_ERROR;
			} else if (w->q.resume) {
				k->fd = fd;
				if (load_resume(w, fd, k->path))
					return T32_EXIT_ERROR;
				if (fcntl(fd, F_SETFL, O_APPEND) < 0) {
					t32_error("cannot write '%s' (%s)", k->path, strerror(errno));
					return T32_EXIT_ERROR;
				}
				return 0;
			} else {
				/* there, and not to resume: replaced when the sweep is done */
				k->oldfd = fd;	/* -1 when unreadable: then it is not locked */
				fd = t32_tmp_replacing(path, &k->tmp, &k->in_place);
				if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
					t32_error("cannot write '%s' (cannot create a file beside it: %s)",
						  k->path, strerror(errno));
					return T32_EXIT_ERROR;
				}
				k->fd = fd;
				return 0;
			}
		}
		/* not there: created, written in place, locked */
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOCTTY, 0666);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0 && strcmp(path, k->path)) {
			t32_error("cannot write '%s' (it links to '%s': %s)", k->path, path,
				  strerror(errno));
			return T32_EXIT_ERROR;
		}
		if (fd < 0) {
			t32_error("cannot write '%s' (%s)", k->path, strerror(errno));
			return T32_EXIT_ERROR;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			close(fd);
			t32_error("another t32 is writing '%s' (the file is locked)", k->path);
			return T32_EXIT_ERROR;
		}
		k->fd = fd;
		k->created = 1;
		return 0;
	}
	t32_error("cannot write '%s' (%s)", k->path, "another program keeps replacing it");
	return T32_EXIT_ERROR;
}

/*
 * Close the output.  done: the sweep is whole, a temporary file is put in place
 * (renamed, or copied over the file); interrupted: the rows written stay, and a
 * temporary file is kept beside the old file as FILE.partial (k->partial), the
 * old file left as it was; otherwise a temporary file is removed and the old
 * file left as it was, and a file this run created without a header is
 * removed.  0, or -1 after a message.
 */
static int sink_close(struct sink *k, int done, int interrupted)
{
	int rc = 0, ok = done || interrupted;

	if (k->fd != 1) {
		if (k->tmp && done && !k->in_place && fsync(k->fd) && errno != EINVAL) {
			t32_error("cannot write '%s' (%s), the file is left as it was", k->path,
				  strerror(errno));
			done = ok = 0;
			rc = -1;
		}
		if (k->tmp && done && k->in_place && t32_tmp_install(k->fd, k->tmp, k->target, 1)) {
			t32_error("cannot write '%s' in place (%s)", k->path, strerror(errno));
			done = ok = 0;
			rc = -1;
		}
		if (close(k->fd) && ok) {
			t32_error("cannot write '%s' (%s)", k->path, strerror(errno));
			rc = -1;
		}
	}
	if (k->tmp) {
		if (done && !k->in_place && rename(k->tmp, k->target)) {
			t32_error("cannot write '%s' (%s), the file is left as it was", k->path,
				  strerror(errno));
			done = 0;
			rc = -1;
		}
		if (!done && interrupted &&
		    t32_tmp_keep_partial(k->tmp, k->target, k->in_place, &k->partial))
			t32_error("cannot keep the interrupted sweep beside '%s' (%s)", k->path,
				  strerror(errno));
		t32_tmp_done(k->tmp, (done && !k->in_place) || k->partial);
	} else if (!ok && k->created && !k->started) {
		unlink(k->target);
	}
	if (k->oldfd >= 0)
		close(k->oldfd);
	k->tmp = NULL;
	k->fd = 1;
	k->oldfd = -1;
	return rc;
}

int t32_sweep_parse_modes(const char *arg, unsigned *out)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	unsigned m = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (int i = 0; i < T32_SWEEP_MODES; i++)
			if (strcmp(tok, t32_sweep_modes[i].name) == 0) {
				m |= 1u << i;
				found = 1;
			}
		if (!found) {
			free(copy);
			return -1;
		}
	}
	free(copy);
	*out = m;
	return m ? 0 : -1;
}
void t32_sweep_req_init(struct t32_sweep_req *q)
{
	memset(q, 0, sizeof(*q));
	t32_block_opts_init(&q->bo);
	q->bo.cmd = "sweep";
	q->bo.formats = T32_FMT_BIT(T32_FMT_TSV);	/* rows for programs: TSV only */
	q->bo.format = T32_FMT_TSV;
	q->bo.warmup = 200;
	t32_measure_opts_init(&q->mo);
	q->mo.precision = 0.01;
	q->mo.block_precision = 0.5;
	q->mo.budget = 1;
	q->mo.max_runs = 1000000;
	q->max_k = 12;
	q->shard = q->shards = 1;
}

const char *t32_sweep_nlist_text(const uint64_t *ns, size_t nn, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < nn && used < len; i++) {
		size_t j = i;

		while (j + 1 < nn && ns[j + 1] == ns[j] + 1)
			j++;
		if (j >= i + 2) {
			used += (size_t)snprintf(buf + used, len - used, "%s%llu..%llu", i ? "," : "",
						 (unsigned long long)ns[i], (unsigned long long)ns[j]);
			i = j;
		} else {
			used += (size_t)snprintf(buf + used, len - used, "%s%llu", i ? "," : "",
						 (unsigned long long)ns[i]);
		}
	}
	return buf;
}

const char *t32_sweep_command(const struct t32_sweep_req *q, char *buf, size_t len)
{
	char nl[512], num[5][40], modes[64] = "", init[1024] = "", item[32][24];
	const char *w[160];
	size_t n = 0;
	const struct t32_spec *s = q->spec;

	w[n++] = t32_main_argv && t32_main_argc ? t32_main_argv[0] : "t32";
	w[n++] = "sweep";
	w[n++] = "--n";
	w[n++] = t32_sweep_nlist_text(q->ns, q->nn, nl, sizeof(nl));
	for (int m = 0; m < T32_SWEEP_MODES; m++)
		if (q->modes & T32_SWEEP_BIT(m))
			snprintf(modes + strlen(modes), sizeof(modes) - strlen(modes), "%s%s",
				 modes[0] ? "," : "", t32_sweep_modes[m].name);
	if (modes[0]) {
		w[n++] = "--mode";
		w[n++] = modes;
	}
	if (q->mo.unit != T32_UNIT_CYCLES) {
		w[n++] = "--unit";
		w[n++] = t32_unit_names[q->mo.unit];
	}
	snprintf(num[0], sizeof(num[0]), "%g", q->mo.precision);
	snprintf(num[1], sizeof(num[1]), "%g", q->mo.block_precision);
	snprintf(num[2], sizeof(num[2]), "%g", q->mo.budget);
	snprintf(num[3], sizeof(num[3]), "%u", q->max_k);
	snprintf(num[4], sizeof(num[4]), "%u", q->retry);
	if (q->mo.precision != 0.01) {
		w[n++] = "--precision";
		w[n++] = num[0];
	}
	if (q->mo.block_precision != 0.5) {
		w[n++] = "--block-precision";
		w[n++] = num[1];
	}
	if (q->mo.budget != 1) {
		w[n++] = "--budget";
		w[n++] = num[2];
	}
	if (q->max_k != 12) {
		w[n++] = "--max-k";
		w[n++] = num[3];
	}
	if (q->retry) {
		w[n++] = "--retry";
		w[n++] = num[4];
	}
	if (q->bo.run.cpu >= 0) {
		snprintf(item[0], sizeof(item[0]), "%d", q->bo.run.cpu);
		w[n++] = "--cpu";
		w[n++] = item[0];
	}
	for (size_t i = 0; i < s->ninit; i++) {
		char one[96];

		t32_init_format(&s->init[i], one, sizeof(one));
		snprintf(init + strlen(init), sizeof(init) - strlen(init), "%s%s", i ? "," : "", one);
	}
	if (init[0]) {
		w[n++] = "--init";
		w[n++] = init;
	}
	if (t32_spec_raw_nasm())
		w[n++] = "--raw-nasm";
	if (q->out_path && q->out_path[0]) {
		w[n++] = "-o";
		w[n++] = q->out_path;
	}
	if (q->table) {
		if (strcmp(s->barrier, "l") || s->store != 'm') {
			snprintf(item[1], sizeof(item[1]), "%c", s->store);
			w[n++] = "--barrier";
			w[n++] = s->barrier;
			w[n++] = "--store";
			w[n++] = item[1];
		}
		w[n++] = q->table;
	} else {
		snprintf(item[1], sizeof(item[1]), "%c", s->store);
		w[n++] = s->barrier;
		w[n++] = item[1];
		for (size_t i = 0; i < s->nitems && n + 3 < sizeof(w) / sizeof(w[0]); i++) {
			if (s->items[i].reps != 1 && i + 1 < s->nitems && i + 2 < 32) {
				snprintf(item[i + 2], sizeof(item[i + 2]), "%llu",
					 (unsigned long long)s->items[i].reps);
				w[n++] = item[i + 2];
			}
			w[n++] = s->items[i].text;
		}
	}
	t32_command_words(buf, len, (int)n, w);
	return buf;
}

/* The request into w: the table loaded, the modes and rows checked; an exit code. */
static int sweep_setup(const struct t32_sweep_req *q, struct sweep *w)
{
	char err[512];
	size_t k = 0;
	int rc;

	w->spec = *q->spec;
	w->q = *q;
	if (!q->nn || !q->shard || q->shard > q->shards) {
		t32_error("an empty sweep '%zu n, shard %u/%u'", q->nn, q->shard, q->shards);
		return T32_EXIT_USAGE;
	}
	if (w->q.resume && !w->q.out_path) {
		t32_error("--resume needs the output file '%s'", "-o FILE");
		return T32_EXIT_USAGE;
	}
	if (q->table) {
		if (t32_same_file(w->q.out_path, q->table)) {
			t32_error("the output is the table being swept '%s' (choose another -o)",
				  w->q.out_path);
			return T32_EXIT_USAGE;
		}
		rc = t32_table_load(q->table, &w->table, err, sizeof(err));
		if (rc) {
			t32_error("%s", err);
			return rc == -2 ? T32_EXIT_USAGE : T32_EXIT_ERROR;	/* not a table: usage */
		}
		w->from_table = 1;
		if (!w->q.modes)
			w->q.modes = T32_SWEEP_BIT(T32_SWEEP_LATENCY) |
				     T32_SWEEP_BIT(T32_SWEEP_THROUGHPUT);
	} else if (!w->q.modes) {
		w->q.modes = T32_SWEEP_BIT(T32_SWEEP_RAW);
	}
	if (!w->from_table && (w->q.modes & ~T32_SWEEP_BIT(T32_SWEEP_RAW))) {
		char names[64] = "";

		for (int m = 0; m < T32_SWEEP_MODES; m++)
			if (w->q.modes & T32_SWEEP_BIT(m))
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 names[0] ? "," : "", t32_sweep_modes[m].name);
		t32_error("a spec sweeps in raw mode only '%s'", names);
		return T32_EXIT_USAGE;
	}
	for (int m = 0; m < T32_SWEEP_MODES; m++)
		k += !!(w->q.modes & T32_SWEEP_BIT(m));
	/* rows are counted in the files read back: keep them within what those accept */
	if (w->q.nn > T32_SWEEP_MAX_ROWS || forms_of(w) * k > T32_SWEEP_MAX_ROWS / w->q.nn) {
		t32_error("too many rows '%zu forms x %zu modes x %zu n' (at most %u)", forms_of(w), k,
			  w->q.nn, T32_SWEEP_MAX_ROWS);
		return T32_EXIT_USAGE;
	}
	w->nrows = forms_of(w) * k * w->q.nn;
	if (w->q.bo.run.cpu < 0)
		w->q.bo.run.cpu = t32_default_cpu();
	{
		char what[4096];

		if (w->from_table)
			snprintf(what, sizeof(what), "%s", q->table);
		else
			spec_name(&w->spec, what, sizeof(what));
		w->done = calloc(w->nrows ? w->nrows : 1, 1);
		w->ahead = w->from_table ? calloc(w->q.nn ? w->q.nn : 1, sizeof(*w->ahead)) : NULL;
		if (!w->done || (w->from_table && !w->ahead) || make_signature(w, what)) {
			t32_error("out of memory for '%zu rows'", w->nrows);
			return T32_EXIT_ERROR;
		}
	}
	return 0;
}

/* The header: provenance, the sweep line, the shard, the columns; an exit code. */
static int write_header(const struct t32_sweep_req *q, struct sweep *w, const struct sink *sink)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *h = open_memstream(&buf, &len);
	int rc;

	if (!h) {
		t32_error("out of memory for '%s'", "the header");
		return T32_EXIT_ERROR;
	}
	if (q->command)
		t32_provenance_of(h, q->command);
	else
		t32_provenance(h, 0, NULL);
	if (w->q.mo.rec && t32_rec_replaying(w->q.mo.rec))
		fprintf(h, "# tsc: %s\n", t32_rec_provenance(w->q.mo.rec, "tsc"));
	else
		fprintf(h, "# tsc: %.4f GHz, step %llu ticks\n", t32_machine_tsc_hz() / 1e9,
			(unsigned long long)t32_machine_tsc_step(NULL));
	if (w->q.mo.unit == T32_UNIT_CYCLES)
		fprintf(h, "# calibration: per row, chains of %llu and %llu 'add eax, 1' run "
			   "beside the block (column cycles_per_tick, core cycles per tick)\n",
			(unsigned long long)w->q.mo.cal_len,
			(unsigned long long)w->q.mo.cal_len / 2);
	else
		fprintf(h, "# calibration: none (the unit is %s%s)\n", t32_unit_names[w->q.mo.unit],
			w->q.mo.unit == T32_UNIT_NS ? ": ticks over the TSC's rate" : "");
	fprintf(h, "# barrier: %s, store %c, cpu %d\n", w->spec.barrier, w->spec.store,
		w->q.bo.run.cpu);
	fputs(w->signature, h);
	fputs(w->shard_line, h);
	fputs(t32_sweep_columns, h);
	fclose(h);
	rc = write_line(sink->fd, buf);
	free(buf);
	if (rc) {
		t32_error("cannot write '%s' (%s)%s", sink->path, strerror(errno),
			  sink->tmp ? ", the file is left as it was" : "");
		return T32_EXIT_ERROR;
	}
	return 0;
}

/* A row could not be written: say why, and how to finish the sweep. */
static void write_failed(const struct sweep *w, const struct sink *sink, size_t written)
{
	int e = errno;

	if (sink->tmp)
		t32_error("cannot write '%s' (%s), the file is left as it was", sink->path,
			  strerror(e));
	else if (w->q.out_path && strcmp(w->q.out_path, "-"))
		t32_error("cannot write '%s' (%s), %zu rows written: resume with --resume -o %s",
			  sink->path, strerror(e), written, w->q.out_path);
	else
		t32_error("cannot write '%s' (%s)", sink->path, strerror(e));
}

/* A row's status counted: whatever statuses the rows carry, ok or not. */
static void count_status(struct t32_sweep_counts *c, const char *status)
{
	c->rows++;
	if (strcmp(status, "ok"))
		c->not_ok++;
	for (size_t k = 0; k < c->kinds; k++)
		if (!strcmp(c->s[k].name, status)) {
			c->s[k].n++;
			return;
		}
	if (c->kinds < sizeof(c->s) / sizeof(c->s[0])) {
		snprintf(c->s[c->kinds].name, sizeof(c->s[0].name), "%s", status);
		c->s[c->kinds++].n = 1;
	}
}

/* "80 ok, 10 untrusted, 6 skipped" into buf. */
static const char *status_text(const struct t32_sweep_counts *c, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t k = 0; k < c->kinds; k++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%zu %s", k ? ", " : "", c->s[k].n,
			 c->s[k].name);
	return buf;
}

/* The rows of this shard not yet written, measured in order; an exit code. */
static int sweep_rows(const struct t32_sweep_req *q, struct sweep *w, const struct sink *sink,
		      size_t *written)
{
	char line[8192];
	size_t todo = 0, assembled = 0, next_rows = 4;
	double start = t32_now();
	int rc = 0, progress = q->progress && isatty(2);

	for (size_t r = 0; r < w->nrows; r++)
		todo += r % w->q.shards == w->q.shard - 1 && !w->done[r];
	for (size_t r = 0; r < w->nrows; r++) {
		struct job j = { 0 };

		if (r % w->q.shards != w->q.shard - 1 || w->done[r])
			continue;
		job_of(w, r, &j);
		/* the blocks of this row and the next ones, assembled together */
		if (r >= assembled)
			assembled = assemble_next(w, r, &next_rows);
		if (progress) {
			double el = t32_now() - start;

			fprintf(stderr, "\r\033[K[%zu/%zu] ", *written + 1, todo);
			t32_fputs_visible(j.form ? j.form->name : "spec", stderr);
			fprintf(stderr, " %s n=%llu", t32_sweep_modes[j.mode].name,
				(unsigned long long)j.n);
			if (*written && el > 1)
				fprintf(stderr, ", about %.0f s left",
					el / (double)*written * (double)(todo - *written));
		}
		/* a throughput row may have been measured ahead, beside its latency row */
		if (!take_ahead(w, r, line, sizeof(line)) &&
		    (rc = measure_job(w, &j, line, sizeof(line))))
			break;
		if (sink->fd >= 0 && write_line(sink->fd, line)) {
			if (progress)
				fprintf(stderr, "\r\033[K");
			progress = 0;
			write_failed(w, sink, *written);
			rc = T32_EXIT_ERROR;
			break;
		}
		(*written)++;
		count_status(&w->counts, w->last.status);
		if (q->row && (rc = q->row(q->ctx, &w->last)))
			break;
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
	/*
	 * One closing line, what was written where and the rows by status: on a
	 * terminal, and wherever rows are not ok (the exit code says so too).
	 */
	if (!rc && (progress || (w->counts.not_ok && !q->quiet))) {
		char st[512];
		int to = w->q.out_path && w->q.out_path[0] && strcmp(w->q.out_path, "-");

		fprintf(stderr, "t32 sweep: %zu row%s written%s%s in %.1f s: %s%s\n", *written,
			*written == 1 ? "" : "s", to ? " to " : "", to ? w->q.out_path : "",
			t32_now() - start, *written ? status_text(&w->counts, st, sizeof(st)) : "none",
			w->counts.not_ok && q->rows_exit
				? " (exit 5; t32 help flags says what each status means)" : "");
	}
	return rc;
}

int t32_sweep(const struct t32_sweep_req *q)
{
	struct sweep w;
	struct sink sink = { .fd = 1, .oldfd = -1, .path = "stdout" };
	struct sigaction sa = { .sa_handler = on_interrupt }, old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	size_t written = 0;
	int rc, quiet;

	memset(&w, 0, sizeof(w));
	interrupted = 0;
	rc = sweep_setup(q, &w);
	if (!rc && w.q.out_path && !w.q.out_path[0])
		sink.fd = -1;	/* the rows go to the caller alone */
	else if (!rc)
		rc = sink_open(&w, &sink);
	if (!rc && !w.q.resume && sink.fd >= 0)
		rc = write_header(q, &w, &sink);
	if (rc)
		goto out;
	sink.started = 1;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	quiet = t32_warn_quiet;
	t32_warn_quiet |= q->quiet;
	rc = sweep_rows(q, &w, &sink, &written);
	t32_warn_quiet = quiet;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
out:
	/* rows written stay, unless they went to a temporary file that could not be written */
	if (sink.fd >= 0 && sink_close(&sink, rc == 0, rc == T32_EXIT_INTERRUPTED) && !rc)
		rc = T32_EXIT_ERROR;
	if (rc == T32_EXIT_INTERRUPTED && sink.partial)
		t32_error("interrupted: %zu rows written to '%s', '%s' is left as it was; finish "
			  "them with --resume -o %s", written, sink.partial, w.q.out_path,
			  sink.partial);
	else if (rc == T32_EXIT_INTERRUPTED)
		t32_error("interrupted: %zu rows written%s%s", written,
			  w.q.out_path ? ", resume with --resume -o " : "",
			  w.q.out_path ? w.q.out_path : "");
	free(sink.partial);
	free(sink.target);
	free(w.signature);
	t32_table_free(&w.table);
	free(w.done);
	for (size_t r = 0; w.ahead && r < w.q.nn; r++)
		free(w.ahead[r].line);
	free(w.ahead);
	/* written whole, but not every row is a measurement to use: a batch script can tell */
	if (!rc && w.counts.not_ok && q->rows_exit)
		rc = T32_EXIT_ROWS;
	return rc;
}
