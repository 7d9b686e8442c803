/*
 * cmd-sweep.c - `t32 sweep`: many blocks over many n, one TSV row per (form, mode,
 * n).  Rows are numbered, written whole with one write() each, and skipped on
 * --resume, so Ctrl-C or a crash loses at most the row being measured; --shard K/N
 * splits the rows across machines and --merge joins the pieces after checking
 * that they belong to one sweep and cover it exactly once.
 */
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

#include "t32/block.h"
#include "t32/cmd.h"
#include "t32/measure.h"
#include "t32/record.h"
#include "t32/sweepfile.h"
#include "t32/table.h"
#include "t32/tsv.h"

static const char sweep_usage[] =
	"t32 sweep [OPTIONS] --n LIST (TABLE.tbl | BARRIER STORE [N] INSN...)\n"
	"       t32 sweep --merge -o OUT FILE...\n"
	"       t32 sweep --replay FILE";

static volatile int interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* The three ways to build a row's body from a form. */
enum mode { MODE_RAW, MODE_LATENCY, MODE_THROUGHPUT, MODE_N };
static const struct {
	const char *name;
	const char *summary;
} modes[MODE_N] = {
	{ "raw", "the body as written, n copies" },
	{ "latency", "a dependent chain: n copies of a form written so its output feeds its input" },
	{ "throughput", "k = 1..12 independent copies over rotating registers, the best k kept" },
};

struct sweep {
	struct t32_table table;		/* when sweeping a table */
	int from_table;
	struct t32_spec spec;		/* barrier, store, init; the body when sweeping a spec */
	uint64_t *ns;
	size_t nn;
	unsigned modes;			/* bit per enum mode */
	unsigned max_k;			/* throughput: copies tried, 1..max_k */
	unsigned klist[64];		/* --k-list: the copies tried instead, or nk = 0 */
	unsigned nk;
	unsigned shard, shards;		/* this is shard `shard` (1-based) of `shards` */
	struct t32_block_opts bo;
	struct t32_measure_opts mo;
	const char *out_path;
	int resume;
	int whole;			/* latency and throughput as block minus empty over n */
	int allow_mixed;		/* --allow-mixed-cpus: merge or resume rows of another CPU */
	char *signature;		/* the `# sweep:` line: what makes two files one sweep */
	char shard_line[64];		/* `# shard: K/N` line, or "" */
	unsigned char *done;		/* rows already in the output (resume) */
	size_t nrows;
};

/* A row to measure: which form, mode and n. */
struct job {
	size_t row;
	const struct t32_form *form;	/* NULL: the command-line spec */
	enum mode mode;
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
	unsigned mlist[MODE_N];

	for (m = 0; m < MODE_N; m++)
		if (w->modes & (1u << m))
			mlist[k++] = (unsigned)m;
	per_form = k * w->nn;
	if (r >= per_form * forms_of(w))
		return -1;
	j->row = r;
	j->form = w->from_table ? &w->table.forms[r / per_form] : NULL;
	j->mode = (enum mode)mlist[(r % per_form) / w->nn];
	j->n = w->ns[r % w->nn];
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
	if (j->mode != MODE_THROUGHPUT)
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
static int format_row(char *buf, size_t len, const struct sweep *w, const struct job *j,
		      unsigned k, const struct t32_measurement *m, const char *status,
		      const char *reason)
{
	char flags[128] = "-", raw[1024], name[1024], expected[32] = "", why[1024], ratio[32] = "-";
	double exp = NAN;

	/* text fields escaped: a tab or newline in them adds no column or row */
	if (j->form) {
		snprintf(raw, sizeof(raw), "%s", j->form->name);
		exp = j->mode == MODE_THROUGHPUT ? j->form->rtp : j->form->lat;
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
				j->row, name, modes[j->mode].name, (unsigned long long)j->n,
				t32_unit_names[w->mo.unit], status, expected, reason);
	/* the row's own calibration; "-" where none ran (unit ticks or ns) */
	if (m->ratio > 0)
		snprintf(ratio, sizeof(ratio), "%.5f", m->ratio);
	t32_measure_flags(m, flags, sizeof(flags));
	return snprintf(buf, len,
			"%zu\t%s\t%s\t%llu\t%u\t%s\t%.4f\t%.4f\t%.4f\t%.3f\t%.4f\t%.4f\t%llu\t%.3f\t%s\t%s\t%s\t%s\t%s\n",
			j->row, name, modes[j->mode].name, (unsigned long long)j->n, k,
			t32_unit_names[w->mo.unit], m->value, m->value - m->halfwidth,
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
	for (unsigned i = 0; i < w->nk; i++)
		if (w->klist[i] == k || (w->klist[i] > kmax && k == top))
			return 1;
	return 0;
}

/* Is k copies one measure_job tries for j (kmax: the copies the form allows)? */
static int k_tried(const struct sweep *w, const struct job *j, unsigned k, unsigned kmax)
{
	if (j->mode == MODE_THROUGHPUT && (j->n < k || j->n % k))
		return 0;
	return !(j->mode == MODE_THROUGHPUT && w->nk && !k_listed(w, j, k, kmax));
}

/*
 * Rows assembled ahead at a time, their blocks in one nasm run or a few: 4 at
 * first, so the first row comes soon, four times as many each time up to 256.
 */
#define AHEAD_ROWS 256

/*
 * Assemble the blocks of the rows from r on (this shard's, not done, up to
 * *ahead of them, which then grows) ahead of measuring them; the row after them.
 */
static size_t assemble_ahead(const struct sweep *w, size_t r, size_t *ahead)
{
	size_t want = *ahead, n = 0, cap = 0, rows = 0;
	struct t32_spec *specs = NULL;
	const struct t32_spec **list = NULL;
	char err[256];
	int fail = 0;

	*ahead = want * 4 < AHEAD_ROWS ? want * 4 : AHEAD_ROWS;
	for (; r < w->nrows && rows < want && !fail; r++) {
		struct job j;
		unsigned kmax;

		if (r % w->shards != w->shard - 1 || w->done[r] || job_of(w, r, &j))
			continue;
		rows++;
		if ((j.mode == MODE_THROUGHPUT && j.form && !j.form->tp) ||
		    (j.mode == MODE_LATENCY && j.form && j.form->nochain))
			continue;
		kmax = j.mode == MODE_THROUGHPUT ? w->max_k : 1;
		if (j.mode == MODE_THROUGHPUT && j.form && kmax > j.form->tp_period)
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
		struct t32_measure_opts mo = w->mo;

		/* latency and throughput rows are marginal costs (their twins), raw rows not */
		mo.slope = !(w->modes & (1u << MODE_RAW)) && !w->whole;
		t32_measure_prepare(list, n, &w->bo, &mo);
	}
	for (size_t i = 0; i < n; i++)
		t32_spec_free(&specs[i]);
	free(specs);
	free(list);
	return r;
}

/* Measure one job; the row line goes into buf.  Returns 0, or an exit code to stop with. */
static int measure_job(struct sweep *w, const struct job *j, char *buf, size_t len)
{
	struct t32_measurement best, m;
	unsigned kmax = j->mode == MODE_THROUGHPUT ? w->max_k : 1, bestk = 0;
	char err[256] = "", reason[512] = "";
	const char *status = "ok";
	int rc = 0;

	if (j->mode == MODE_THROUGHPUT && j->form && !j->form->tp) {
		format_row(buf, len, w, j, 0, NULL, "skipped",
			   "the form has no throughput template (tp=)");
		return 0;
	}
	if (j->mode == MODE_LATENCY && j->form && j->form->nochain) {
		format_row(buf, len, w, j, 0, NULL, "skipped",
			   "the form has no dependency chain (chain=none): throughput only");
		return 0;
	}
	if (j->mode == MODE_THROUGHPUT && j->form && kmax > j->form->tp_period)
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
		struct t32_measure_opts mo = w->mo;

		mo.slope = j->mode != MODE_RAW && !w->whole;
		rc = t32_measure(&s, &w->bo, &mo, &interrupted, &m);
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

/* A table's forms as one hash: a table edited between shards is another sweep. */
static uint64_t table_hash(const struct t32_table *t)
{
	uint64_t h = FNV_START;

	for (size_t i = 0; i < t->n; i++) {
		const struct t32_form *f = &t->forms[i];
		const char *parts[] = { f->name, f->insn, f->init ? f->init : "", f->tp ? f->tp : "" };

		for (size_t k = 0; k < 4; k++)
			h = fnv1a(h, parts[k], strlen(parts[k]) + 1);
		h = fnv1a(h, &f->lat, sizeof(f->lat));
		h = fnv1a(h, &f->rtp, sizeof(f->rtp));
		if (f->nochain)
			h = fnv1a(h, "chain=none", 11);
	}
	return h;
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
		fprintf(f, " forms=%016llx", (unsigned long long)table_hash(&w->table));
	fputs(" modes=", f);
	for (int m = 0; m < MODE_N; m++)
		if (w->modes & (1u << m)) {
			fprintf(f, "%s%s", sep, modes[m].name);
			sep = ",";
		}
	fprintf(f, " barrier=%s store=%c unit=%s estimate=%s shards=%u init=", w->spec.barrier,
		w->spec.store, t32_unit_names[w->mo.unit], w->whole ? "block" : "slope", w->shards);
	for (size_t i = 0; i < w->spec.ninit; i++) {
		char one[96];

		t32_init_format(&w->spec.init[i], one, sizeof(one));
		fprintf(f, "%s%s", i ? "," : "", one);
	}
	if (!w->spec.ninit)
		fputs("-", f);
	fputs(" precision=", f);
	exact_num(f, w->mo.precision);
	fputs(" block-precision=", f);
	exact_num(f, w->mo.block_precision);
	fputs(" budget=", f);
	exact_num(f, w->mo.budget);
	fprintf(f, " max-runs=%llu max-k=%u", (unsigned long long)w->mo.max_runs, w->max_k);
	for (unsigned i = 0; i < w->nk; i++)
		fprintf(f, "%s%u", i ? "," : " k-list=", w->klist[i]);
	fprintf(f, " warmup=%llu dither=%d n=", (unsigned long long)w->bo.warmup, w->bo.dither);
	for (size_t i = 0; i < w->nn; i++)
		fprintf(n, "%s%llu", i ? "," : "", (unsigned long long)w->ns[i]);
	fclose(n);
	if (nlen <= 512)
		fputs(nl, f);
	else
		fprintf(f, "%llu,%llu,...,%llu (%zu values, fnv1a64 %016llx)",
			(unsigned long long)w->ns[0], (unsigned long long)w->ns[1],
			(unsigned long long)w->ns[w->nn - 1], w->nn,
			(unsigned long long)fnv1a(FNV_START, nl, nlen));
	fputc('\n', f);
	free(nl);
	if (fclose(f)) {
		free(buf);
		return -1;
	}
	w->signature = buf;
	if (w->shards > 1)
		snprintf(w->shard_line, sizeof(w->shard_line), "# shard: %u/%u\n", w->shard, w->shards);
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
	rc = t32_sweep_scan(f, path, w->signature, w->shard_line, cpu, w->allow_mixed, &mixed,
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
	const char *path = w->out_path;
	struct stat st;

	memset(k, 0, sizeof(*k));
	k->fd = 1;
	k->oldfd = -1;
	k->path = "stdout";
	if (!path || strcmp(path, "-") == 0)
		return w->resume ? (t32_error("cannot resume '%s' (not a file)", "stdout"),
				    T32_EXIT_USAGE) : 0;
	k->path = w->out_path;
	if (!(k->target = t32_out_target(w->out_path))) {
		t32_error("cannot write '%s' (%s)", w->out_path, strerror(errno));
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
		if (w->resume) {
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

		if (w->resume || tries) {
			/* --resume: the file as it is, locked */
			fd = t32_lock_path(path, w->resume ? O_RDWR : O_RDONLY);
			if (fd == -2)
				return T32_EXIT_ERROR;
			if (fd < 0 && errno == ENOENT) {
				w->resume = 0;	/* nothing there yet: start afresh */
			} else if (fd < 0 && w->resume) {
				t32_error("cannot write '%s' (%s)", k->path, strerror(errno));
				return T32_EXIT_ERROR;
			} else if (w->resume) {
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

/* Parse `K/N` (1 <= K <= N). */
static int parse_shard(const char *arg, unsigned *k, unsigned *n)
{
	char *slash = strchr(arg, '/'), left[32];
	uint64_t a, b;

	if (!slash || (size_t)(slash - arg) >= sizeof(left))
		return -1;
	memcpy(left, arg, (size_t)(slash - arg));
	left[slash - arg] = 0;
	if (t32_parse_u64(left, 1, 100000, &a) || t32_parse_u64(slash + 1, 1, 100000, &b) || a > b)
		return -1;
	*k = (unsigned)a;
	*n = (unsigned)b;
	return 0;
}

static int parse_modes(const char *arg, unsigned *out)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	unsigned m = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (int i = 0; i < MODE_N; i++)
			if (strcmp(tok, modes[i].name) == 0) {
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

/*
 * The command, measuring or replaying (rec).  Its length is its option table and
 * the steps of a sweep in order (table or spec, rows, header, the rows measured).
 */
static int sweep_main(int argc, char **argv, struct t32_rec *rec, const char *format)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "n", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "resume", no_argument, NULL, 'R' },
		{ "shard", required_argument, NULL, 'S' },
		{ "merge", no_argument, NULL, 'M' },
		{ "allow-mixed-cpus", no_argument, NULL, 'A' },
		{ "precision", required_argument, NULL, 'p' },
		{ "block-precision", required_argument, NULL, 'P' },
		{ "budget", required_argument, NULL, 'b' },
		{ "max-runs", required_argument, NULL, 'x' },
		{ "unit", required_argument, NULL, 'u' },
		{ "max-k", required_argument, NULL, 'k' },
		{ "k-list", required_argument, NULL, 'K' },
		{ "barrier", required_argument, NULL, 'B' },
		{ "store", required_argument, NULL, 's' },
		{ "record", required_argument, NULL, 'r' },
		{ "replay", required_argument, NULL, 'y' },
		{ "ignore-busy", no_argument, NULL, 'I' },
		{ "whole", no_argument, NULL, 'W' },
		T32_BLOCK_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct sweep w;
	const char *barrier = "l", *store = "m", *nlist = NULL, *modelist = NULL, *record = NULL;
	int opt, rc = 0, do_merge = 0, allow_mixed = 0, progress;
	struct sink sink = { .fd = 1, .oldfd = -1, .path = "stdout" };
	char err[512], *end, line[8192];
	size_t written = 0, todo_rows = 0, ahead = 0, ahead_rows = 4;
	double start = 0;
	struct sigaction sa = { .sa_handler = on_interrupt };
	uint64_t v;

	memset(&w, 0, sizeof(w));
	t32_block_opts_init(&w.bo);
	w.bo.cmd = "sweep";
	w.bo.formats = T32_FMT_BIT(T32_FMT_TSV);	/* rows for programs: TSV only */
	w.bo.format = T32_FMT_TSV;
	w.bo.warmup = 200;
	t32_measure_opts_init(&w.mo);
	w.mo.precision = 0.01;
	w.mo.block_precision = 0.5;
	w.mo.budget = 1;
	w.mo.max_runs = 1000000;
	w.max_k = 12;
	w.shard = w.shards = 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			printf("usage: %s\n\n"
			       "One TSV row per (form, mode, n); a spec sweeps the repeat count of its last item.\n"
			       "  --n LIST            100,1000  0..100  1..1e5/log:20 (joined by commas)\n"
			       "  --mode M,...        raw, latency, throughput (tables: latency,throughput)\n"
			       "  -o, --output FILE   write rows here (default stdout)\n"
			       "  --resume            skip rows FILE already holds; finish the rest\n"
			       "  --shard K/N         measure only rows with row %% N == K - 1\n"
			       "  --merge -o OUT F... join shards, checking they form one whole sweep\n"
			       "  --allow-mixed-cpus  merge shards, or resume a file, measured on another CPU\n"
			       "  --precision P       stop a row at +-P unit per instruction (default 0.01)\n"
			       "  --block-precision P ... or at +-P unit on the whole block (default 0.5)\n"
			       "  --budget S          seconds per measurement at most (default 1)\n"
			       "  --max-runs N        runs per measurement at most (default 1000000)\n"
			       "  --unit U            cycles, ticks or ns\n"
			       "  --max-k K           throughput copies to try, 1..K (default 12)\n"
			       "  --k-list K,...      try these copy counts only (a count above what the\n"
			       "                      template's registers allow tries the largest they do)\n"
			       "  --barrier B --store S  for tables (default l m)\n"
			       "  --whole             latency and throughput rows as block minus empty over\n"
			       "                      n (fixed cost included), not the marginal cost\n"
			       "  --record FILE       keep every reading behind the rows in FILE\n"
			       "  --replay FILE       recompute a recorded sweep's rows from FILE, offline\n"
			       "  --ignore-busy       count readings taken while other CPUs were busy\n",
			       sweep_usage);
			t32_block_opts_help(stdout, &w.bo);
			return t32_close_stdout();
		case 'n':
			nlist = optarg;
			continue;
		case 'm':
			modelist = optarg;
			continue;
		case 'o':
			w.out_path = optarg;
			continue;
		case 'R':
			w.resume = 1;
			continue;
		case 'S':
			if (parse_shard(optarg, &w.shard, &w.shards)) {
				t32_error("bad shard '%s' (K/N, 1 <= K <= N)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		case 'M':
			do_merge = 1;
			continue;
		case 'A':
			allow_mixed = w.allow_mixed = 1;
			continue;
		case 'p':
		case 'P':
		case 'b': {
			double d = strtod(optarg, &end);

			if (end == optarg || *end || !(d >= 0)) {
				t32_error("bad number '%s'", optarg);
				return T32_EXIT_USAGE;
			}
			if (opt == 'p')
				w.mo.precision = d;
			else if (opt == 'P')
				w.mo.block_precision = d;
			else
				w.mo.budget = d;
			continue;
		}
		case 'x':
			if (t32_parse_u64(optarg, 1, UINT32_MAX, &v)) {
				t32_error("bad run count '%s'", optarg);
				return T32_EXIT_USAGE;
			}
			w.mo.max_runs = v;
			continue;
		case 'u':
			if (t32_parse_unit(optarg, &w.mo.unit)) {
				t32_error("unknown unit '%s' (cycles, ticks, ns)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		case 'k':
			if (t32_parse_u64(optarg, 1, 64, &v)) {
				t32_error("bad max-k '%s' (1 to 64)", optarg);
				return T32_EXIT_USAGE;
			}
			w.max_k = (unsigned)v;
			continue;
		case 'K': {
			char *copy = strdup(optarg), *save = NULL, *tok;

			w.nk = 0;
			for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (w.nk == 64 || t32_parse_u64(tok, 1, 64, &v)) {
					t32_error("bad k list '%s' (counts 1 to 64, comma-separated)", optarg);
					free(copy);
					return T32_EXIT_USAGE;
				}
				w.klist[w.nk++] = (unsigned)v;
			}
			free(copy);
			if (!w.nk) {
				t32_error("bad k list '%s' (counts 1 to 64, comma-separated)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		}
		case 'B':
			barrier = optarg;
			continue;
		case 's':
			store = optarg;
			continue;
		case 'r':
			record = optarg;
			continue;
		case 'y':
			t32_error("--replay takes only --format beside it '%s'", optarg);
			return T32_EXIT_USAGE;
		case 'I':
			w.mo.ignore_busy = 1;
			continue;
		case 'W':
			w.whole = 1;
			continue;
		}
		rc = t32_block_option(opt, optarg, &w.bo, &w.spec);
		if (rc < 0)
			return T32_EXIT_USAGE;
		if (rc > 0)
			return t32_usage(sweep_usage);
	}
	if (format && t32_block_option(0x105, format, &w.bo, &w.spec))
		return T32_EXIT_USAGE;
	if (do_merge) {
		if (!w.out_path || optind >= argc)
			return t32_usage("t32 sweep --merge -o OUT FILE...");
		rc = t32_sweep_merge(w.out_path, argc - optind, argv + optind, allow_mixed);
		return t32_close_stdout() && !rc ? T32_EXIT_ERROR : rc;
	}
	if (optind >= argc || !nlist)
		return t32_usage(sweep_usage);
	if (t32_parse_nlist(nlist, &w.ns, &w.nn, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_USAGE;
	}
	if (w.resume && !w.out_path) {
		t32_error("--resume needs the output file '%s'", "-o FILE");
		rc = T32_EXIT_USAGE;
		goto out;
	}
	/* a table, or a spec: BARRIER STORE [N] INSN... */
	if (argc - optind == 1) {
		if (t32_same_file(w.out_path, argv[optind])) {
			t32_error("the output is the table being swept '%s' (choose another -o)",
				  w.out_path);
			rc = T32_EXIT_USAGE;
			goto out;
		}
		rc = t32_table_load(argv[optind], &w.table, err, sizeof(err));
		if (rc) {
			t32_error("%s", err);
			rc = rc == -2 ? T32_EXIT_USAGE : T32_EXIT_ERROR;	/* not a table: usage */
			goto out;
		}
		w.from_table = 1;
		w.modes = (1u << MODE_LATENCY) | (1u << MODE_THROUGHPUT);
		if (t32_block_parse_head(&w.spec, barrier, store)) {
			rc = T32_EXIT_USAGE;
			goto out;
		}
	} else {
		if (argc - optind < 3) {
			rc = t32_usage(sweep_usage);
			goto out;
		}
		if (t32_block_parse_head(&w.spec, argv[optind], argv[optind + 1])) {
			rc = T32_EXIT_USAGE;
			goto out;
		}
		if (t32_spec_parse_body(&w.spec, argc - optind - 2, argv + optind + 2, err,
					sizeof(err))) {
			t32_error("%s", err);
			rc = T32_EXIT_USAGE;
			goto out;
		}
		w.modes = 1u << MODE_RAW;
	}
	if (modelist && parse_modes(modelist, &w.modes)) {
		t32_error("unknown mode in '%s' (raw, latency, throughput)", modelist);
		rc = T32_EXIT_USAGE;
		goto out;
	}
	if (!w.from_table && (w.modes & ~(1u << MODE_RAW))) {
		t32_error("a spec sweeps in raw mode only '%s'", modelist);
		rc = T32_EXIT_USAGE;
		goto out;
	}
	{
		size_t k = 0;

		for (int m = 0; m < MODE_N; m++)
			k += !!(w.modes & (1u << m));
		/* rows are counted in the files read back: keep them within what those accept */
		if (w.nn > T32_SWEEP_MAX_ROWS || forms_of(&w) * k > T32_SWEEP_MAX_ROWS / w.nn) {
			t32_error("too many rows '%zu forms x %zu modes x %zu n' (at most %u)",
				  forms_of(&w), k, w.nn, T32_SWEEP_MAX_ROWS);
			rc = T32_EXIT_USAGE;
			goto out;
		}
		w.nrows = forms_of(&w) * k * w.nn;
	}
	if (w.bo.run.cpu < 0)
		w.bo.run.cpu = t32_default_cpu();
	{
		char what[4096];

		if (w.from_table)
			snprintf(what, sizeof(what), "%s", argv[optind]);
		else
			spec_name(&w.spec, what, sizeof(what));
		w.done = calloc(w.nrows ? w.nrows : 1, 1);
		if (!w.done || make_signature(&w, what)) {
			t32_error("out of memory for '%zu rows'", w.nrows);
			rc = T32_EXIT_ERROR;
			goto out;
		}
	}
	if (record && !(rec = t32_rec_create(record, argc, argv))) {
		rc = T32_EXIT_ERROR;
		goto out;
	}
	w.mo.rec = rec;
	rc = sink_open(&w, &sink);
	if (rc)
		goto out;
	if (!w.resume) {
		/* the header: provenance, the sweep line, the shard, the columns */
		char *buf = NULL;
		size_t len = 0;
		FILE *h = open_memstream(&buf, &len);

		if (!h) {
			t32_error("out of memory for '%s'", "the header");
			rc = T32_EXIT_ERROR;
			goto out;
		}
		t32_provenance(h, argc + 1, argv - 1);
		if (rec && t32_rec_replaying(rec))
			fprintf(h, "# tsc: %s\n", t32_rec_provenance(rec, "tsc"));
		else
			fprintf(h, "# tsc: %.4f GHz, step %llu ticks\n", t32_machine_tsc_hz() / 1e9,
				(unsigned long long)t32_machine_tsc_step(NULL));
		if (w.mo.unit == T32_UNIT_CYCLES)
			fprintf(h, "# calibration: per row, chains of %llu and %llu 'add eax, 1' run "
				   "beside the block (column cycles_per_tick, core cycles per tick)\n",
				(unsigned long long)w.mo.cal_len, (unsigned long long)w.mo.cal_len / 2);
		else
			fprintf(h, "# calibration: none (the unit is %s%s)\n", t32_unit_names[w.mo.unit],
				w.mo.unit == T32_UNIT_NS ? ": ticks over the TSC's rate" : "");
		fprintf(h, "# barrier: %s, store %c, cpu %d\n", w.spec.barrier, w.spec.store,
			w.bo.run.cpu);
		fputs(w.signature, h);
		fputs(w.shard_line, h);
		fputs(t32_sweep_columns, h);
		fclose(h);
		rc = write_line(sink.fd, buf);
		free(buf);
		if (rc) {
			t32_error("cannot write '%s' (%s)%s", sink.path, strerror(errno),
				  sink.tmp ? ", the file is left as it was" : "");
			rc = T32_EXIT_ERROR;
			goto out;
		}
	}
	sink.started = 1;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	progress = isatty(2);
	{
		/* the rows this run measures, for the time left */
		size_t todo = 0;
		double t0 = t32_now();

		for (size_t r = 0; r < w.nrows; r++)
			todo += r % w.shards == w.shard - 1 && !w.done[r];
		todo_rows = todo;
		start = t0;
	}
	for (size_t r = 0; r < w.nrows; r++) {
		struct job j = { 0 };

		if (r % w.shards != w.shard - 1 || w.done[r])
			continue;
		job_of(&w, r, &j);
		if (r >= ahead)
			ahead = assemble_ahead(&w, r, &ahead_rows);
		if (progress) {
			double el = t32_now() - start;

			fprintf(stderr, "\r\033[K[%zu/%zu] ", written + 1, todo_rows);
			t32_fputs_visible(j.form ? j.form->name : "spec", stderr);
			fprintf(stderr, " %s n=%llu", modes[j.mode].name, (unsigned long long)j.n);
			if (written && el > 1)
				fprintf(stderr, ", about %.0f s left",
					el / written * (double)(todo_rows - written));
		}
		rc = measure_job(&w, &j, line, sizeof(line));
		if (rc)
			break;
		if (write_line(sink.fd, line)) {
			int e = errno;

			if (progress)
				fprintf(stderr, "\r\033[K");
			progress = 0;
			if (sink.tmp)
				t32_error("cannot write '%s' (%s), the file is left as it was", sink.path,
					  strerror(e));
			else if (w.out_path && strcmp(w.out_path, "-"))
				t32_error("cannot write '%s' (%s), %zu rows written: resume with --resume -o %s",
					  sink.path, strerror(e), written, w.out_path);
			else
				t32_error("cannot write '%s' (%s)", sink.path, strerror(e));
			rc = T32_EXIT_ERROR;
			break;
		}
		written++;
	}
	if (progress) {
		fprintf(stderr, "\r\033[K");
		/* one closing line: what was written where */
		if (!rc && w.out_path && strcmp(w.out_path, "-"))
			fprintf(stderr, "t32 sweep: %zu rows written to %s in %.1f s\n", written,
				w.out_path, t32_now() - start);
	}
out:
	/* rows written stay, unless they went to a temporary file that could not be written */
	if (sink_close(&sink, rc == 0, rc == T32_EXIT_INTERRUPTED) && !rc)
		rc = T32_EXIT_ERROR;
	/* and so do the readings behind them */
	if (record && rec && t32_rec_close(rec, rc == 0 || rc == T32_EXIT_INTERRUPTED) && !rc)
		rc = T32_EXIT_ERROR;
	if (rc == T32_EXIT_INTERRUPTED && sink.partial)
		t32_error("interrupted: %zu rows written to '%s', '%s' is left as it was; finish "
			  "them with --resume -o %s", written, sink.partial, w.out_path, sink.partial);
	else if (rc == T32_EXIT_INTERRUPTED)
		t32_error("interrupted: %zu rows written%s%s", written,
			  w.out_path ? ", resume with --resume -o " : "", w.out_path ? w.out_path : "");
	free(sink.partial);
	free(sink.target);
	free(w.signature);
	t32_table_free(&w.table);
	t32_spec_free(&w.spec);
	free(w.ns);
	free(w.done);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	return t32_replay_or_run(argc, argv, sweep_usage, sweep_main);
}
