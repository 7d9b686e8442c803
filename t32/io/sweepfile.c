/*
 * sweepfile.c - reading a sweep's TSV back for --resume and --merge.
 */
#include "t32/io/sweepfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "t32/io/tsv.h"
#include "t32/util.h"

const char t32_sweep_columns[] =
	"row\tform\tmode\tn\tk\tunit\tper_insn\tci_lo\tci_hi\ttotal\tmin_per_insn\tmedian_per_insn\t"
	"runs\tseconds\tcycles_per_tick\tflags\tstatus\texpected\treason\n";

/* The keys of a `# sweep:` line, in the order they are written. */
static const char *const sig_keys[] = {
	"rows", "of", "modes", "barrier", "store", "unit", "estimate", "shards", "init", "precision",
	"block-precision", "budget", "max-runs", "max-k", "warmup", "dither", "n",
};
#define NKEYS (sizeof(sig_keys) / sizeof(sig_keys[0]))

/* Where the value of key starts in a sweep line, and its length up to the next key. */
static const char *sig_value(const char *line, const char *key, size_t *len)
{
	char pat[32];
	const char *v, *end = NULL;

	snprintf(pat, sizeof(pat), " %s=", key);
	v = strstr(line, pat);
	if (!v)
		return NULL;
	v += strlen(pat);
	for (size_t i = 0; i < NKEYS; i++) {
		const char *e;

		snprintf(pat, sizeof(pat), " %s=", sig_keys[i]);
		e = strstr(v, pat);
		if (e && (!end || e < end))
			end = e;
	}
	*len = end ? (size_t)(end - v) : strcspn(v, "\r\n");
	return v;
}

int t32_sweep_sig_value(const char *line, const char *key, char *buf, size_t len)
{
	size_t l = 0;
	const char *v = sig_value(line, key, &l);

	if (!v)
		return -1;
	snprintf(buf, len, "%.*s", (int)l, v);
	return 0;
}

/* Say what differs between two sweep lines: `KEY=A there, B here`, or the whole lines. */
static void sig_diff(const char *there, const char *here, char *buf, size_t len)
{
	for (size_t i = 0; i < NKEYS; i++) {
		size_t la = 0, lb = 0;
		const char *a = sig_value(there, sig_keys[i], &la);
		const char *b = sig_value(here, sig_keys[i], &lb);

		if (!a && !b)
			continue;
		if (!a || !b || la != lb || memcmp(a, b, la)) {
			snprintf(buf, len, "%s=%.*s there, %.*s here", sig_keys[i],
				 a ? (int)(la > 80 ? 80 : la) : 4, a ? a : "none",
				 b ? (int)(lb > 80 ? 80 : lb) : 4, b ? b : "none");
			return;
		}
	}
	snprintf(buf, len, "its sweep line differs");
}

/* line (its newline stripped) is ref (a line with its newline). */
static int same_line(const char *line, const char *ref)
{
	size_t n = strcspn(ref, "\n");

	return strlen(line) == n && memcmp(line, ref, n) == 0;
}

/* A row line's number, or -1 when the line is not a whole row of nrows. */
static long long row_number(const char *line, size_t nrows)
{
	char *end;
	unsigned long long r;
	size_t tabs = 0;

	if (line[0] < '0' || line[0] > '9')
		return -1;
	errno = 0;
	r = strtoull(line, &end, 10);
	if (errno || *end != '\t' || r >= nrows)
		return -1;
	for (const char *p = line; *p; p++)
		tabs += *p == '\t';
	return tabs == T32_SWEEP_FIELDS - 1 ? (long long)r : -1;
}

int t32_sweep_scan(FILE *f, const char *path, const char *signature, const char *shard,
		   const char *cpu, int allow_mixed, int *mixed, size_t nrows,
		   unsigned char *done, off_t *good)
{
	struct t32_tsv t;
	int sig_ok = 0, shard_seen = 0, rc = 0, got;
	size_t comments = 0;
	char why[256], here[128], there[128];

	*good = 0;
	if (mixed)
		*mixed = 0;
	if (cpu && t32_cpu_line_identity(cpu, here, sizeof(here)))
		cpu = NULL;
	if (t32_tsv_from(&t, f, path))
		return -1;
	while ((got = t32_tsv_next(&t)) > 0) {
		long long r;

		if (!t.complete)
			break;	/* a row cut short when the run died: dropped */
		if (strncmp(t.line, "# sweep:", 8) == 0) {
			if (!same_line(t.line, signature)) {
				sig_diff(t.line, signature, why, sizeof(why));
				t32_error("the file holds a different sweep '%s' (%s)", path, why);
				rc = -1;
				break;
			}
			sig_ok = 1;
		} else if (strncmp(t.line, "# shard:", 8) == 0) {
			if (!*shard || !same_line(t.line, shard)) {
				t32_error("the file holds another shard '%s' (%s there, %.*s here)", path,
					  t.line + 2, *shard ? (int)strcspn(shard + 2, "\n") : 9,
					  *shard ? shard + 2 : "no shard");
				rc = -1;
				break;
			}
			shard_seen = 1;
		} else if (strncmp(t.line, "row\t", 4) == 0 && !same_line(t.line, t32_sweep_columns)) {
			t32_error("the file has other columns '%s' (written by another version of t32: "
				  "sweep it afresh)", path);
			rc = -1;
			break;
		} else if (cpu && t32_cpu_line_identity(t.line, there, sizeof(there)) == 0 &&
			   strcmp(there, here) && !allow_mixed) {
			/* rows of two CPUs in one file are no one machine's table: as --merge */
			t32_error("'%s' was measured on another CPU (%s there, %s here); "
				  "--allow-mixed-cpus resumes it anyway", path, there, here);
			rc = -1;
			break;
		} else if (t.line[0] == '#' || strncmp(t.line, "row\t", 4) == 0) {
			/* the last CPU the file names is another: this one's rows need a line */
			if (mixed && cpu && t32_cpu_line_identity(t.line, there, sizeof(there)) == 0)
				*mixed = strcmp(there, here) != 0;
			if (++comments > T32_SWEEP_MAX_COMMENTS) {
				t32_error("more than %u comment lines in '%s' (not a t32 sweep?)",
					  T32_SWEEP_MAX_COMMENTS, path);
				rc = -1;
				break;
			}
		} else if (!sig_ok) {
			t32_error("no sweep line before the rows of '%s' (not a t32 sweep output?)",
				  path);
			rc = -1;
			break;
		} else if ((r = row_number(t.line, nrows)) < 0) {
			t32_error("bad row in '%s' (line %zu)", path, t.lineno);
			rc = -1;
			break;
		} else {
			done[r] = 1;
		}
		*good += (off_t)t.len;
	}
	if (got < 0)
		rc = -1;
	t32_tsv_close(&t);
	if (!rc && !sig_ok) {
		t32_error("no sweep line in '%s' (not a t32 sweep output?)", path);
		rc = -1;
	}
	if (!rc && *shard && !shard_seen) {
		t32_error("the file holds another shard '%s' (no shard there, %.*s here)", path,
			  (int)strcspn(shard + 2, "\n"), shard + 2);
		rc = -1;
	}
	return rc;
}

/* The rows count of a sweep line: 0, or -1 when it is missing or out of range. */
static int sig_rows(const char *line, size_t *nrows)
{
	size_t len;
	const char *v = sig_value(line, "rows", &len);
	char *end;
	unsigned long long r;

	if (!v || *v < '0' || *v > '9')
		return -1;
	errno = 0;
	r = strtoull(v, &end, 10);
	if (errno || (size_t)(end - v) != len || r > T32_SWEEP_MAX_ROWS)
		return -1;
	*nrows = (size_t)r;
	return 0;
}

/* What merging keeps while it reads. */
struct merge {
	char **rows;		/* the row lines, newline included, by row number */
	size_t nrows;
	char *sig;		/* the sweep line, newline included */
	char *head;		/* the first piece's other # lines */
	size_t headlen;
	char cpu[128];		/* the first piece's CPU identity (t32_cpu_line_identity) */
	const char *cpu_path;	/* the piece it came from */
	int allow_mixed;	/* merge pieces from different CPUs (--allow-mixed-cpus) */
	char *mixed;		/* `# merged cpu:` lines naming the other CPUs, when allowed */
	size_t mixedlen;
};

/*
 * A piece's `# cpu:` line against the first piece's: a sweep joined from
 * different CPUs (family, model, stepping, microcode) is no one machine's
 * table.  0, or -1 after a message naming both; allowed, the other CPU is kept
 * as a `# merged cpu:` line.
 */
static int merge_cpu(struct merge *m, const char *path, const char *line)
{
	char id[128];

	if (t32_cpu_line_identity(line, id, sizeof(id)))
		return 0;
	if (!m->cpu_path) {
		snprintf(m->cpu, sizeof(m->cpu), "%s", id);
		m->cpu_path = path;
		return 0;
	}
	if (strcmp(id, m->cpu) == 0)
		return 0;
	if (!m->allow_mixed) {
		t32_error("'%s' was measured on another CPU (%s there, %s in '%s'); "
			  "--allow-mixed-cpus merges them anyway", path, id, m->cpu, m->cpu_path);
		return -1;
	}
	{
		size_t need = strlen(path) + strlen(line) + 32;
		char *grown = realloc(m->mixed, m->mixedlen + need);

		if (!grown) {
			t32_error("out of memory reading '%s'", path);
			return -1;
		}
		m->mixed = grown;
		m->mixedlen += (size_t)snprintf(m->mixed + m->mixedlen, need, "# merged cpu: %s: %s\n",
						path, line + 7);
	}
	return 0;
}

/* Read one piece into m; 0, or -1 after an error message. */
static int merge_piece(struct merge *m, const char *path, int first)
{
	struct t32_tsv t;
	int seen_sig = 0, rc = 0, got;
	size_t comments = 0;
	char why[256];

	if (t32_tsv_open(&t, path))
		return -1;
	while (!rc && (got = t32_tsv_next(&t)) > 0) {
		long long r;

		if (!t.complete) {
			t32_error("a row cut short in '%s' (line %zu): resume that piece first", path,
				  t.lineno);
			rc = -1;
		} else if (strncmp(t.line, "# sweep:", 8) == 0) {
			if (seen_sig) {
				t32_error("two sweep lines in '%s' (line %zu)", path, t.lineno);
				rc = -1;
			} else if (!m->sig) {
				if (sig_rows(t.line, &m->nrows)) {
					t32_error("bad row count in the sweep line of '%s' (0 to %u)", path,
						  T32_SWEEP_MAX_ROWS);
					rc = -1;
				} else if (!(m->sig = malloc(t.len + 1)) ||
					   !(m->rows = calloc(m->nrows ? m->nrows : 1, sizeof(char *)))) {
					t32_error("out of memory reading '%s'", path);
					rc = -1;
				} else {
					snprintf(m->sig, t.len + 1, "%s\n", t.line);
				}
			} else if (!same_line(t.line, m->sig)) {
				sig_diff(t.line, m->sig, why, sizeof(why));
				t32_error("'%s' is a piece of another sweep (%s)", path, why);
				rc = -1;
			}
			seen_sig = 1;
		} else if (strncmp(t.line, "row\t", 4) == 0 && !same_line(t.line, t32_sweep_columns)) {
			t32_error("the file has other columns '%s' (written by another version of t32: "
				  "sweep it afresh)", path);
			rc = -1;
		} else if (t.line[0] == '#' || strncmp(t.line, "row\t", 4) == 0) {
			if (strncmp(t.line, "# cpu:", 6) == 0 && merge_cpu(m, path, t.line)) {
				rc = -1;
			} else if (++comments > T32_SWEEP_MAX_COMMENTS) {
				t32_error("more than %u comment lines in '%s' (not a t32 sweep?)",
					  T32_SWEEP_MAX_COMMENTS, path);
				rc = -1;
			} else if (first && t.line[0] == '#' && strncmp(t.line, "# shard:", 8)) {
				char *grown = realloc(m->head, m->headlen + t.len + 1);

				if (!grown) {
					t32_error("out of memory reading '%s'", path);
					rc = -1;
				} else {
					m->head = grown;
					m->headlen += (size_t)sprintf(m->head + m->headlen, "%s\n", t.line);
				}
			}
		} else if (!seen_sig) {
			t32_error("no sweep line before the rows of '%s'", path);
			rc = -1;
		} else if ((r = row_number(t.line, m->nrows)) < 0) {
			t32_error("bad row in '%s' (line %zu)", path, t.lineno);
			rc = -1;
		} else if (m->rows[r]) {
			t32_error("row %lld appears twice (again in '%s')", r, path);
			rc = -1;
		} else if (!(m->rows[r] = malloc(t.len + 1))) {
			t32_error("out of memory reading '%s'", path);
			rc = -1;
		} else {
			snprintf(m->rows[r], t.len + 1, "%s\n", t.line);
		}
	}
	if (!rc && got < 0)
		rc = -1;
	if (!rc && !seen_sig) {
		t32_error("no sweep in '%s' (not a t32 sweep output?)", path);
		rc = -1;
	}
	t32_tsv_close(&t);
	return rc;
}

int t32_sweep_merge(const char *out, int nfiles, char **files, int allow_mixed)
{
	struct merge m = { 0 };
	struct t32_out o;
	size_t missing = 0;
	int rc = 0;

	for (int i = 0; i < nfiles; i++)
		if (t32_same_file(out, files[i])) {
			t32_error("the output is one of the pieces '%s' (choose another -o)", out);
			return T32_EXIT_USAGE;
		}
	m.allow_mixed = allow_mixed;
	for (int i = 0; i < nfiles && !rc; i++)
		if (merge_piece(&m, files[i], i == 0))
			rc = T32_EXIT_ERROR;
	for (size_t r = 0; !rc && r < m.nrows; r++)
		missing += !m.rows[r];
	if (!rc && missing) {
		t32_error("the pieces lack %zu of %zu rows '%s'", missing, m.nrows, files[0]);
		rc = T32_EXIT_ERROR;
	}
	if (!rc && t32_out_open(&o, out) == 0) {
		fputs(m.head ? m.head : "", o.f);
		fputs(m.mixed ? m.mixed : "", o.f);
		fputs(m.sig, o.f);
		fprintf(o.f, "# merged: %d pieces\n", nfiles);
		fputs(t32_sweep_columns, o.f);
		for (size_t r = 0; r < m.nrows; r++)
			fputs(m.rows[r], o.f);
		if (t32_out_commit(&o))
			rc = T32_EXIT_ERROR;
	} else if (!rc) {
		rc = T32_EXIT_ERROR;
	}
	for (size_t r = 0; r < m.nrows && m.rows; r++)
		free(m.rows[r]);
	free(m.rows);
	free(m.sig);
	free(m.head);
	free(m.mixed);
	return rc;
}

int t32_sweep_read_steps(FILE *f, const char *path, struct t32_sweep_step *steps, size_t kmax,
			 char *err, size_t errlen)
{
	static const char *const names[] = { "n", "total", "per_insn", "ci_lo", "ci_hi", "status",
					     "reason" };
	struct t32_tsv t;
	long col[7];
	int head = 0, st;

	memset(steps, 0, (kmax + 1) * sizeof(*steps));
	if (t32_tsv_from(&t, f, path)) {
		snprintf(err, errlen, "cannot read the sweep '%s'", path);
		return -1;
	}
	while ((st = t32_tsv_row(&t, &head, names, col, 7, 5)) == 1) {
		struct t32_sweep_step *s;
		char *end;
		unsigned long long k = strtoull(t.fields[col[0]], &end, 10);
		double tot, est;

		if (*end || k > kmax)
			continue;
		tot = strtod(t.fields[col[1]], &end);
		if (*end || end == t.fields[col[1]])
			tot = NAN;	/* a row that failed has no cycles */
		s = &steps[k];
		est = strtod(t.fields[col[2]], NULL);
		s->total = tot;
		s->hw = (strtod(t.fields[col[4]], NULL) - strtod(t.fields[col[3]], NULL)) / 2 *
			(fabs(est) > 1e-9 ? fabs(tot / est) : 1);
		snprintf(s->status, sizeof(s->status), "%s", col[5] >= 0 ? t.fields[col[5]] : "ok");
		snprintf(s->reason, sizeof(s->reason), "%s", col[6] >= 0 ? t.fields[col[6]] : "");
		s->ok = strcmp(s->status, "ok") == 0;
		s->seen = 1;
	}
	t32_tsv_close(&t);
	if (st < 0) {
		snprintf(err, errlen, "not a sweep table (no n, total, per_insn, ci_lo, ci_hi columns, "
			 "or a row short of them) '%s'", path);
		return -1;
	}
	return 0;
}
