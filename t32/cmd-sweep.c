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
#include <sys/stat.h>
#include <unistd.h>

#include "t32/block.h"
#include "t32/cmd.h"
#include "t32/measure.h"
#include "t32/table.h"

static const char sweep_usage[] =
	"t32 sweep [OPTIONS] --n LIST (TABLE.tbl | BARRIER STORE [N] INSN...)\n"
	"       t32 sweep --merge -o OUT FILE...";

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
	unsigned shard, shards;		/* this is shard `shard` (1-based) of `shards` */
	struct t32_block_opts bo;
	struct t32_measure_opts mo;
	const char *out_path;
	int resume;
	char signature[1024];		/* what makes two files one sweep */
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

static const char *const columns =
	"row\tform\tmode\tn\tk\tunit\testimate\tci_lo\tci_hi\ttotal\tmin_est\tmedian_est\truns\t"
	"seconds\tflags\tstatus\texpected\treason\n";

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
		char unit[4096] = "", copy[512];

		for (unsigned c = 0; c < k; c++) {
			if (t32_form_tp_expand(j->form, c, copy, sizeof(copy)))
				return -1;
			if (c)
				strncat(unit, "; ", sizeof(unit) - strlen(unit) - 1);
			strncat(unit, copy, sizeof(unit) - strlen(unit) - 1);
		}
		return t32_spec_add_item(s, j->n / k, unit);
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
	char flags[64] = "-", name[256], expected[32] = "";
	double exp = NAN;

	if (j->form) {
		snprintf(name, sizeof(name), "%s", j->form->name);
		exp = j->mode == MODE_THROUGHPUT ? j->form->rtp : j->form->lat;
	} else {
		spec_name(&w->spec, name, sizeof(name));
	}
	if (!isnan(exp))
		snprintf(expected, sizeof(expected), "%g", exp);
	if (!m)
		return snprintf(buf, len, "%zu\t%s\t%s\t%llu\t\t%s\t\t\t\t\t\t\t\t\t\t%s\t%s\t%s\n",
				j->row, name, modes[j->mode].name, (unsigned long long)j->n,
				t32_unit_names[w->mo.unit], status, expected, reason);
	t32_est_flags_str(m->flags, flags, sizeof(flags));
	if (m->drifted)
		strncat(flags, strcmp(flags, "-") ? ",drift" : "", sizeof(flags) - strlen(flags) - 1);
	return snprintf(buf, len,
			"%zu\t%s\t%s\t%llu\t%u\t%s\t%.4f\t%.4f\t%.4f\t%.3f\t%.4f\t%.4f\t%llu\t%.3f\t%s\t%s\t%s\t%s\n",
			j->row, name, modes[j->mode].name, (unsigned long long)j->n, k,
			t32_unit_names[w->mo.unit], m->value, m->value - m->halfwidth,
			m->value + m->halfwidth, m->block_value - m->empty_value, m->min_value,
			m->insns ? (m->sblock.median - m->sempty.median) / (double)m->insns *
					   (m->block_value / (m->block.value ? m->block.value : 1))
				 : 0.0,
			(unsigned long long)m->runs, m->seconds, flags, status, expected, reason);
}

/* Write a whole line with one write(); a short write is an error (full disk). */
static int write_line(int fd, const char *line)
{
	size_t len = strlen(line);
	ssize_t n;

	do
		n = write(fd, line, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

/* Measure one job; the row line goes into buf.  Returns 0, or an exit code to stop with. */
static int measure_job(struct sweep *w, const struct job *j, char *buf, size_t len)
{
	struct t32_measurement best, m;
	unsigned kmax = j->mode == MODE_THROUGHPUT ? w->max_k : 1, bestk = 0;
	char err[256], reason[512] = "";
	const char *status = "ok";
	int rc = 0;

	if (j->mode == MODE_THROUGHPUT && j->form && !j->form->tp) {
		format_row(buf, len, w, j, 0, NULL, "skipped",
			   "the form has no throughput template (tp=)");
		return 0;
	}
	if (j->mode == MODE_THROUGHPUT && j->form && kmax > j->form->tp_period)
		kmax = j->form->tp_period;
	for (unsigned k = 1; k <= kmax && !interrupted; k++) {
		struct t32_spec s;

		if (j->mode == MODE_THROUGHPUT && (j->n < k || j->n % k))
			continue;
		if (job_spec(w, j, k, &s, err, sizeof(err))) {
			t32_spec_free(&s);
			snprintf(reason, sizeof(reason), "%s", err[0] ? err : "cannot build the block");
			status = "error";
			break;
		}
		rc = t32_measure(&s, &w->bo, &w->mo, &interrupted, &m);
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

/* The line naming the sweep: same signature, same rows. */
static void make_signature(struct sweep *w, const char *what)
{
	size_t used;
	char ml[64] = "";

	for (int m = 0; m < MODE_N; m++)
		if (w->modes & (1u << m)) {
			if (ml[0])
				strcat(ml, ",");
			strcat(ml, modes[m].name);
		}
	used = (size_t)snprintf(w->signature, sizeof(w->signature),
				"# sweep: rows=%zu of=%s modes=%s barrier=%s store=%c unit=%s n=",
				w->nrows, what, ml, w->spec.barrier, w->spec.store,
				t32_unit_names[w->mo.unit]);
	for (size_t i = 0; i < w->nn && used < sizeof(w->signature) - 32; i++)
		used += (size_t)snprintf(w->signature + used, sizeof(w->signature) - used, "%s%llu",
					 i ? "," : "", (unsigned long long)w->ns[i]);
	if (used >= sizeof(w->signature) - 32)
		snprintf(w->signature + sizeof(w->signature) - 32, 32, "...");
	strncat(w->signature, "\n", sizeof(w->signature) - strlen(w->signature) - 1);
}

/*
 * Read an existing output for --resume: check it is this sweep, note its rows,
 * and cut a last line that has no newline (a row half-written when the run died).
 */
static int load_resume(struct sweep *w, const char *path)
{
	FILE *f = fopen(path, "r+");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	off_t good = 0;
	int sig_ok = 0;

	if (!f)
		return errno == ENOENT ? 1 : -1;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *end;
		unsigned long long r;

		if (line[n - 1] != '\n')
			break;
		good += n;
		if (strncmp(line, "# sweep:", 8) == 0) {
			if (strcmp(line, w->signature) != 0) {
				t32_error("the file holds a different sweep '%s'", path);
				free(line);
				fclose(f);
				return -2;
			}
			sig_ok = 1;
			continue;
		}
		if (line[0] == '#' || strncmp(line, "row\t", 4) == 0)
			continue;
		r = strtoull(line, &end, 10);
		if (end != line && *end == '\t' && r < w->nrows)
			w->done[r] = 1;
	}
	free(line);
	fclose(f);
	if (!sig_ok) {
		t32_error("no sweep line in '%s' (not a t32 sweep output?)", path);
		return -2;
	}
	if (truncate(path, good))
		return -1;
	return 0;
}

/* The merge: files of one sweep, every row exactly once, rows in order. */
static int merge(const char *out, int nfiles, char **files)
{
	char **rows = NULL, *line = NULL, *sig = NULL, *head = NULL;
	size_t nrows = 0, cap = 0, missing = 0;
	FILE *o;
	int rc = 0;

	for (int i = 0; i < nfiles && !rc; i++) {
		FILE *f = fopen(files[i], "r");
		int seen_sig = 0;
		ssize_t n;

		if (!f) {
			t32_error("cannot read '%s' (%s)", files[i], strerror(errno));
			rc = T32_EXIT_ERROR;
			break;
		}
		while ((n = getline(&line, &cap, f)) > 0) {
			char *end;
			unsigned long long r;

			if (strncmp(line, "# sweep:", 8) == 0) {
				unsigned long long total = 0;

				seen_sig = 1;
				if (!sig) {
					sig = strdup(line);
					sscanf(line, "# sweep: rows=%llu", &total);
					nrows = (size_t)total;
					rows = calloc(nrows ? nrows : 1, sizeof(char *));
				} else if (strcmp(sig, line) != 0) {
					t32_error("'%s' is a piece of another sweep", files[i]);
					rc = T32_EXIT_ERROR;
					break;
				}
				continue;
			}
			if (line[0] == '#') {
				if (i == 0 && !head)
					head = strdup("");
				if (i == 0 && strncmp(line, "# shard:", 8) != 0) {
					size_t hl = strlen(head);
					char *t = realloc(head, hl + (size_t)n + 1);

					if (t) {
						head = t;
						memcpy(head + hl, line, (size_t)n + 1);
					}
				}
				continue;
			}
			if (strncmp(line, "row\t", 4) == 0)
				continue;
			if (!seen_sig || !rows) {
				t32_error("no sweep line before the rows of '%s'", files[i]);
				rc = T32_EXIT_ERROR;
				break;
			}
			r = strtoull(line, &end, 10);
			if (end == line || *end != '\t' || r >= nrows || line[n - 1] != '\n') {
				t32_error("bad row in '%s' '%.40s'", files[i], line);
				rc = T32_EXIT_ERROR;
				break;
			}
			if (rows[r]) {
				t32_error("row %llu appears twice (again in '%s')", r, files[i]);
				rc = T32_EXIT_ERROR;
				break;
			}
			rows[r] = strdup(line);
		}
		fclose(f);
	}
	free(line);
	for (size_t r = 0; !rc && r < nrows; r++)
		missing += !rows[r];
	if (!rc && missing) {
		t32_error("the pieces lack %zu of %zu rows '%s'", missing, nrows, files[0]);
		rc = T32_EXIT_ERROR;
	}
	if (!rc && !sig) {
		t32_error("no sweep in '%s'", files[0]);
		rc = T32_EXIT_ERROR;
	}
	if (!rc) {
		o = strcmp(out, "-") ? fopen(out, "w") : stdout;
		if (!o) {
			t32_error("cannot write '%s' (%s)", out, strerror(errno));
			rc = T32_EXIT_ERROR;
		} else {
			fputs(head ? head : "", o);
			fputs(sig, o);
			fprintf(o, "# merged: %d pieces\n", nfiles);
			fputs(columns, o);
			for (size_t r = 0; r < nrows; r++)
				fputs(rows[r], o);
			if (o != stdout && fclose(o)) {
				t32_error("cannot write '%s' (%s)", out, strerror(errno));
				rc = T32_EXIT_ERROR;
			}
		}
	}
	for (size_t r = 0; r < nrows && rows; r++)
		free(rows[r]);
	free(rows);
	free(sig);
	free(head);
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

int cmd_sweep(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "n", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "resume", no_argument, NULL, 'R' },
		{ "shard", required_argument, NULL, 'S' },
		{ "merge", no_argument, NULL, 'M' },
		{ "precision", required_argument, NULL, 'p' },
		{ "block-precision", required_argument, NULL, 'P' },
		{ "budget", required_argument, NULL, 'b' },
		{ "max-runs", required_argument, NULL, 'x' },
		{ "unit", required_argument, NULL, 'u' },
		{ "max-k", required_argument, NULL, 'k' },
		{ "barrier", required_argument, NULL, 'B' },
		{ "store", required_argument, NULL, 's' },
		T32_BLOCK_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct sweep w;
	const char *barrier = "l", *store = "m", *nlist = NULL, *modelist = NULL;
	int opt, rc = 0, do_merge = 0, fd = 1, progress;
	char err[512], *end, line[8192];
	size_t written = 0, failed = 0;
	struct sigaction sa = { .sa_handler = on_interrupt };
	uint64_t v;

	memset(&w, 0, sizeof(w));
	t32_block_opts_init(&w.bo);
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
			       "  --precision P       stop a row at +-P unit per instruction (default 0.01)\n"
			       "  --block-precision P ... or at +-P unit on the whole block (default 0.5)\n"
			       "  --budget S          seconds per measurement at most (default 1)\n"
			       "  --max-runs N        runs per measurement at most (default 1000000)\n"
			       "  --unit U            cycles, ticks or ns\n"
			       "  --max-k K           throughput copies to try, 1..K (default 12)\n"
			       "  --barrier B --store S  for tables (default l m)\n%s",
			       sweep_usage, T32_BLOCK_OPTHELP);
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
		case 'B':
			barrier = optarg;
			continue;
		case 's':
			store = optarg;
			continue;
		}
		rc = t32_block_option(opt, optarg, &w.bo, &w.spec);
		if (rc < 0)
			return T32_EXIT_USAGE;
		if (rc > 0)
			return t32_usage(sweep_usage);
	}
	if (do_merge) {
		if (!w.out_path || optind >= argc)
			return t32_usage("t32 sweep --merge -o OUT FILE...");
		rc = merge(w.out_path, argc - optind, argv + optind);
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
		return T32_EXIT_USAGE;
	}
	/* a table, or a spec: BARRIER STORE [N] INSN... */
	if (argc - optind == 1) {
		if (t32_table_load(argv[optind], &w.table, err, sizeof(err))) {
			t32_error("%s", err);
			return T32_EXIT_ERROR;
		}
		w.from_table = 1;
		w.modes = (1u << MODE_LATENCY) | (1u << MODE_THROUGHPUT);
		if (t32_block_parse_head(&w.spec, barrier, store))
			return T32_EXIT_USAGE;
	} else {
		if (argc - optind < 3)
			return t32_usage(sweep_usage);
		if (t32_block_parse_head(&w.spec, argv[optind], argv[optind + 1]))
			return T32_EXIT_USAGE;
		if (t32_spec_parse_body(&w.spec, argc - optind - 2, argv + optind + 2, err,
					sizeof(err))) {
			t32_error("%s", err);
			return T32_EXIT_USAGE;
		}
		w.modes = 1u << MODE_RAW;
	}
	if (modelist && parse_modes(modelist, &w.modes)) {
		t32_error("unknown mode in '%s' (raw, latency, throughput)", modelist);
		return T32_EXIT_USAGE;
	}
	if (!w.from_table && (w.modes & ~(1u << MODE_RAW))) {
		t32_error("a spec sweeps in raw mode only '%s'", modelist);
		return T32_EXIT_USAGE;
	}
	{
		size_t k = 0;

		for (int m = 0; m < MODE_N; m++)
			k += !!(w.modes & (1u << m));
		w.nrows = forms_of(&w) * k * w.nn;
	}
	if (w.bo.run.cpu < 0)
		w.bo.run.cpu = t32_default_cpu();
	{
		char what[512];

		if (w.from_table)
			snprintf(what, sizeof(what), "%s", argv[optind]);
		else
			spec_name(&w.spec, what, sizeof(what));
		make_signature(&w, what);
	}
	w.done = calloc(w.nrows ? w.nrows : 1, 1);
	if (!w.done)
		return T32_EXIT_ERROR;
	if (w.resume) {
		int r = load_resume(&w, w.out_path);

		if (r == -2)
			return T32_EXIT_ERROR;
		if (r < 0) {
			t32_error("cannot read '%s' (%s)", w.out_path, strerror(errno));
			return T32_EXIT_ERROR;
		}
		if (r == 1)
			w.resume = 0;	/* nothing there yet: start afresh */
	}
	if (w.out_path) {
		fd = open(w.out_path, O_WRONLY | O_CREAT | O_APPEND | (w.resume ? 0 : O_TRUNC) | O_CLOEXEC,
			  0644);
		if (fd < 0) {
			t32_error("cannot write '%s' (%s)", w.out_path, strerror(errno));
			return T32_EXIT_ERROR;
		}
	}
	if (!w.resume) {
		/* the header: provenance, the sweep line, the shard, the columns */
		char *buf = NULL;
		size_t len = 0;
		FILE *h = open_memstream(&buf, &len);

		t32_provenance(h, argc + 1, argv - 1);
		fprintf(h, "# barrier: %s, store %c, cpu %d\n", w.spec.barrier, w.spec.store,
			w.bo.run.cpu);
		fputs(w.signature, h);
		if (w.shards > 1)
			fprintf(h, "# shard: %u/%u\n", w.shard, w.shards);
		fputs(columns, h);
		fclose(h);
		rc = write_line(fd, buf);
		free(buf);
		if (rc) {
			t32_error("cannot write '%s' (%s)", w.out_path ? w.out_path : "stdout",
				  strerror(errno));
			return T32_EXIT_ERROR;
		}
	}

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	progress = isatty(2);
	for (size_t r = 0; r < w.nrows; r++) {
		struct job j = { 0 };

		if (r % w.shards != w.shard - 1 || w.done[r])
			continue;
		job_of(&w, r, &j);
		if (progress)
			fprintf(stderr, "\r\033[K[%zu/%zu] %s %s n=%llu", r + 1, w.nrows,
				j.form ? j.form->name : "spec", modes[j.mode].name,
				(unsigned long long)j.n);
		rc = measure_job(&w, &j, line, sizeof(line));
		if (rc)
			break;
		if (write_line(fd, line)) {
			t32_error("cannot write '%s' (%s)", w.out_path ? w.out_path : "stdout",
				  strerror(errno));
			rc = T32_EXIT_ERROR;
			break;
		}
		written++;
		failed += strstr(line, "\tok\t") == NULL;
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
	if (rc == T32_EXIT_INTERRUPTED)
		t32_error("interrupted: %zu rows written%s%s", written,
			  w.out_path ? ", resume with --resume -o " : "", w.out_path ? w.out_path : "");
	if (fd != 1 && close(fd) && !rc) {
		t32_error("cannot write '%s' (%s)", w.out_path, strerror(errno));
		rc = T32_EXIT_ERROR;
	}
	t32_table_free(&w.table);
	t32_spec_free(&w.spec);
	free(w.ns);
	free(w.done);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}
