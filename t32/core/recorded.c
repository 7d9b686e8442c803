/*
 * recorded.c - a `t32 correlate -o` folder read back as a block to learn from or
 * predict (see recorded.h).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/model.h"
#include "gen/gen.h"
#include "t32/core/recorded.h"
#include "t32/core/run.h"
#include "t32/spec.h"
#include "t32/io/sweepfile.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

#define REC_MAX_INSNS 4096	/* instructions in a unit, as t32 correlate allows */
#define REC_MAX_K 1000		/* copies in a curve */

/* Machine code of text (';'-separated NASM) decoded into *out; 0, or -1 with err. */
static int rec_decode(const char *text, struct t32_insn **out, size_t *n, char *err,
		      size_t errlen)
{
	struct t32_spec s = { 0 };
	unsigned char *code = NULL;
	size_t len = 0;
	int rc = -1;

	if (t32_spec_set_barrier(&s, "n", err, errlen) || t32_spec_add_item(&s, 1, text)) {
		if (!err[0])
			snprintf(err, errlen, "out of memory");
		goto out;
	}
	s.store = 'm';
	if (t32_assemble_body(&s, &code, &len, err, errlen) ||
	    t32_deps_decode(code, len, out, n, err, errlen))
		goto out;
	rc = 0;
out:
	free(code);
	t32_spec_free(&s);
	return rc;
}

/* The value after "# key: " on a provenance line, or NULL. */
static const char *rec_hash_value(const char *line, const char *key)
{
	size_t l = strlen(key);

	if (strncmp(line, "# ", 2) || strncmp(line + 2, key, l) || strncmp(line + 2 + l, ": ", 2))
		return NULL;
	return line + 4 + l;
}

/* shares.tsv: unit, core, skid, loop copies, counts and latencies (kept as text until decoded). */
static int rec_read_shares(struct t32_recorded *r, double **lat, char ***src, char *err,
			   size_t errlen)
{
	struct t32_tsv t;
	char path[PATH_MAX];
	long ci = -1, cs = -1, cl = -1, cw = -1;
	size_t rows = 0, cap = 0;
	int head = 0, st;

	snprintf(path, sizeof(path), "%.4000s/shares.tsv", r->dir);
	if (t32_tsv_open(&t, path)) {
		snprintf(err, errlen, "cannot read '%s'", path);
		return -1;
	}
	while ((st = t32_tsv_next(&t)) == 1) {
		const char *v;

		if (t.line[0] == '#') {
			if ((v = rec_hash_value(t.line, "unit")) && !r->unit)
				r->unit = strdup(v);
			else if ((v = rec_hash_value(t.line, "core")))
				sscanf(v, "%31s", r->core);
			else if ((v = rec_hash_value(t.line, "cpu")))
				snprintf(r->cpu, sizeof(r->cpu), "%s", v);
			else if ((v = rec_hash_value(t.line, "skid")))
				r->skid = atoi(v) ? 1 : 0;
			else if ((v = rec_hash_value(t.line, "loop_copies")))
				r->loop_copies = strtoul(v, NULL, 10);
			continue;
		}
		if (!t.line[0])
			break;	/* the table ends at the first blank line */
		t32_tsv_split(&t);
		if (!head) {
			ci = t32_tsv_column(t.fields, t.nfields, "index");
			cs = t32_tsv_column(t.fields, t.nfields, "samples");
			cl = t32_tsv_column(t.fields, t.nfields, "latency_cycles");
			cw = t32_tsv_column(t.fields, t.nfields, "latency_source");
			head = 1;
			if (ci < 0 || cs < 0 || cl < 0 || cw < 0) {
				snprintf(err, errlen, "%s: no index, samples, latency_cycles and "
					 "latency_source columns '%s'", path, t.line);
				goto fail;
			}
			continue;
		}
		if ((size_t)ci >= t.nfields || (size_t)cs >= t.nfields || (size_t)cl >= t.nfields ||
		    (size_t)cw >= t.nfields || strtoul(t.fields[ci], NULL, 10) != rows ||
		    rows >= REC_MAX_INSNS) {
			snprintf(err, errlen, "%s:%zu: a row out of place '%s'", path, t.lineno,
				 t.line);
			goto fail;
		}
		if (rows == cap) {
			size_t nc = cap ? 2 * cap : 16;
			uint64_t *c = realloc(r->counts, nc * sizeof(*c));
			double *l = c ? realloc(*lat, nc * sizeof(*l)) : NULL;
			char **s = l ? realloc(*src, nc * sizeof(*s)) : NULL;

			if (c)
				r->counts = c;
			if (l)
				*lat = l;
			if (!s) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			*src = s;
			cap = nc;
		}
		{
			char *end;
			double x;

			r->counts[rows] = strtoull(t.fields[cs], &end, 10);
			x = strtod(t.fields[cl], NULL);
			(*lat)[rows] = x;
			(*src)[rows] = strdup(t.fields[cw]);
			if (*end || !(*src)[rows]) {
				snprintf(err, errlen, "%s:%zu: a bad sample count '%s'", path, t.lineno,
					 t.fields[cs]);
				rows++;
				goto fail;
			}
		}
		rows++;
	}
	t32_tsv_close(&t);
	r->n = rows;
	if (st < 0 || !r->unit || rows == 0) {
		snprintf(err, errlen, "%s: no unit or no instructions '%s'", path,
			 r->unit ? r->unit : "# unit:");
		return -1;
	}
	return 0;
fail:
	t32_tsv_close(&t);
	r->n = rows;
	return -1;
}

/*
 * sweep.tsv beside it, when there is one: which steps k = 0..kmax the sweep
 * trusted (its status column), into r->ok; without the file, or a step, every
 * step counts.  0, or -1 out of memory.
 */
static int rec_read_trust(struct t32_recorded *r)
{
	struct t32_sweep_step *st;
	char path[PATH_MAX], err[256];
	FILE *f;

	snprintf(path, sizeof(path), "%.4000s/sweep.tsv", r->dir);
	if (!(f = fopen(path, "r")))
		return 0;
	st = calloc(r->kmax + 1, sizeof(*st));
	if (!st || !(r->ok = malloc(r->kmax + 1))) {
		free(st);
		fclose(f);
		return -1;
	}
	memset(r->ok, 1, r->kmax + 1);
	if (t32_sweep_read_steps(f, path, st, r->kmax, err, sizeof(err)) == 0)
		for (size_t k = 0; k <= r->kmax; k++)
			r->ok[k] = !st[k].seen || st[k].ok;
	free(st);
	fclose(f);
	return 0;
}

/* curve.tsv: measured cycles and half-widths of k = 0..kmax copies. */
static int rec_read_curve(struct t32_recorded *r, char *err, size_t errlen)
{
	static const char *const names[] = { "copies", "measured", "measured_hw" };
	struct t32_tsv t;
	char path[PATH_MAX];
	long col[3];
	int head = 0, st;
	size_t rows = 0;

	snprintf(path, sizeof(path), "%.4000s/curve.tsv", r->dir);
	if (t32_tsv_open(&t, path)) {
		snprintf(err, errlen, "cannot read '%s'", path);
		return -1;
	}
	r->curve = calloc(REC_MAX_K + 1, sizeof(double));
	r->hw = calloc(REC_MAX_K + 1, sizeof(double));
	if (!r->curve || !r->hw) {
		t32_tsv_close(&t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while ((st = t32_tsv_row(&t, &head, names, col, 3, 3)) == 1) {
		char *end;
		unsigned long k = strtoul(t.fields[col[0]], &end, 10);

		if (*end || k > REC_MAX_K || k != r->kmax + (rows > 0)) {
			snprintf(err, errlen, "%s:%zu: a curve point out of place '%s'", path,
				 t.lineno, t.fields[col[0]]);
			t32_tsv_close(&t);
			return -1;
		}
		r->curve[k] = strtod(t.fields[col[1]], NULL);
		r->hw[k] = strtod(t.fields[col[2]], NULL);
		r->kmax = k;
		rows++;
	}
	t32_tsv_close(&t);
	if (st < 0 || !rows || r->kmax < 2) {
		snprintf(err, errlen, "%s: no copies, measured and measured_hw columns, or fewer "
			 "than 3 points '%zu'", path, rows ? r->kmax + 1 : 0);
		return -1;
	}
	return 0;
}

/* sample.tsv's `# stability:` line, when the sampler wrote one (older files have none). */
static void rec_read_stability(struct t32_recorded *r)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%.4000s/sample.tsv", r->dir);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f) && line[0] == '#') {
		const char *v = rec_hash_value(line, "stability");

		if (v) {
			snprintf(r->stability, sizeof(r->stability), "%.*s", (int)strcspn(v, "\r\n"), v);
			r->unstable = strncmp(v, "unstable", 8) == 0;
		}
	}
	fclose(f);
}

int t32_recorded_read(const char *dir, const struct t32_lattab *shipped,
		      const struct t32_uarch *u, struct t32_recorded *r, char *err,
		      size_t errlen)
{
	double *lat = NULL;
	char **src = NULL, *text = NULL;
	struct t32_model_insn *mi = NULL;
	struct t32_lattab front = { NULL, 0 };
	const char *slash;
	size_t n = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	err[0] = 0;
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	while (strlen(r->dir) > 1 && r->dir[strlen(r->dir) - 1] == '/')
		r->dir[strlen(r->dir) - 1] = 0;
	slash = strrchr(r->dir, '/');
	snprintf(r->name, sizeof(r->name), "%.127s", slash ? slash + 1 : r->dir);
	if (rec_read_shares(r, &lat, &src, err, errlen) || rec_read_curve(r, err, errlen))
		goto out;
	if (rec_read_trust(r)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rec_read_stability(r);
	if (rec_decode(r->unit, &r->insns, &n, err, errlen))
		goto out;
	if (n != r->n) {
		snprintf(err, errlen, "%.3000s: the unit decodes to %zu instructions, the shares "
			 "name %zu '%s'", r->dir, n, r->n, r->unit);
		goto out;
	}
	if (r->loop_copies) {
		size_t l = strlen(r->unit) + 2, cap = l * r->loop_copies + sizeof(T32_GEN_LOOP_TAIL) + 1;

		if (!(text = malloc(cap))) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		text[0] = 0;
		for (size_t k = 0; k < r->loop_copies; k++)
			strcat(strcat(text, r->unit), "; ");
		strcat(text, T32_GEN_LOOP_TAIL);
		if (rec_decode(text, &r->loop, &r->loop_n, err, errlen))
			goto out;
		if (r->loop_n != r->loop_copies * r->n + T32_GEN_LOOP_TAIL_INSNS) {
			free(r->loop);
			r->loop = NULL;
			r->loop_n = r->loop_copies = 0;
		}
	}
	/* the latencies measured there, as a table before the shipped one */
	mi = calloc(r->n, sizeof(*mi));
	front.e = calloc(r->n, sizeof(*front.e));
	if (!mi || !front.e) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	t32_model_prepare(u, shipped, r->insns, r->n, mi);
	for (size_t i = 0; i < r->n; i++) {
		struct t32_lat_entry *e;
		double whole;

		/*
		 * A pure store's is not kept: it came from timing the store's throughput,
		 * which t32 no longer does (159 to 387 cycles in the recordings); the
		 * table's is used, as a run now would.
		 */
		if (strcmp(src[i], "measured") || !(lat[i] >= 0) || lat[i] > T32_SOLVE_MAX ||
		    mi[i].cls == T32_CLASS_STORE)
			continue;
		e = &front.e[front.n++];
		whole = floor(lat[i]);
		snprintf(e->form, sizeof(e->form), "%s", r->insns[i].form);
		e->cls = (int)mi[i].cls;
		e->nlat = 1;
		e->lat[0].cycles = (unsigned)whole;
		e->quarters = (unsigned)lround((lat[i] - whole) * 4) & 3;
		r->measured++;
	}
	if (shipped && shipped->n) {
		r->tab.e = malloc(shipped->n * sizeof(*r->tab.e));
		if (!r->tab.e) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		memcpy(r->tab.e, shipped->e, shipped->n * sizeof(*r->tab.e));
		r->tab.n = shipped->n;
	}
	if (t32_lattab_prepend(&r->tab, &front)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; src && i < r->n; i++)
		free(src[i]);
	t32_free_all(src, lat, text, mi, front.e);
	if (rc)
		t32_recorded_free(r);
	return rc;
}

void t32_recorded_free(struct t32_recorded *r)
{
	t32_free_all(r->unit, r->insns, r->loop, r->counts, r->curve, r->hw, r->ok);
	t32_lattab_free(&r->tab);
	r->unit = NULL;
	r->insns = r->loop = NULL;
	r->counts = NULL;
	r->curve = r->hw = NULL;
	r->ok = NULL;
}

void t32_recorded_probe(const struct t32_recorded *r, struct t32_learn_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->name = r->name;
	p->tab = &r->tab;
	p->insns = r->insns;
	p->n = r->n;
	p->d.counts = r->counts;
	p->d.curve = r->curve;
	p->d.curve_hw = r->hw;
	p->d.curve_ok = r->ok;
	p->d.kmax = r->kmax;
	p->d.skid = r->skid;
	p->d.loop = r->loop;
	p->d.loop_n = r->loop_n;
	p->d.loop_copies = r->loop_copies;
}

static int rec_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

long t32_recorded_list(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	long n = 0, cap = 0;

	*names = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%.3000s/%.200s/shares.tsv", dir, e->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			char **nv = realloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		if (!(v[n] = strdup(e->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), rec_cmp);
	*names = v;
	return n;
}

void t32_recorded_names_free(char **names, long n)
{
	for (long i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
