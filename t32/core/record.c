/*
 * record.c - recordings of the measuring loop's readings, written and replayed
 * (see record.h).
 */
#include "t32/core/record.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t32/io/tsv.h"
#include "t32/util.h"

#define REC_MAGIC "# t32 recording 1"
#define REC_MAX_PROV 16

struct t32_rec {
	int replay;
	char *path;
	/* recording */
	struct t32_out out;
	struct t32_source real;
	/* replaying */
	struct t32_tsv tsv;
	int argc;
	char **argv;
	char *prov_name[REC_MAX_PROV], *prov_value[REC_MAX_PROV];
	int nprov;
	int diverged;		/* a call the recording does not hold was made */
	uint64_t *vals;		/* scratch: one block's deltas */
	size_t nvals;
};

int t32_rec_replaying(const struct t32_rec *r)
{
	return r->replay;
}

const char *t32_rec_path(const struct t32_rec *r)
{
	return r->path;
}

const char *t32_rec_provenance(const struct t32_rec *r, const char *name)
{
	for (int i = 0; i < r->nprov; i++)
		if (strcmp(r->prov_name[i], name) == 0)
			return r->prov_value[i];
	return "";
}

/* Is arg an option whose value is the next argument and that a replay must not repeat? */
static int dropped(const char *arg, int *takes_value)
{
	static const char *const with_value[] = { "--record", "-o", "--output", "--replay" };
	static const char *const alone[] = { "--resume" };

	*takes_value = 0;
	for (size_t i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++) {
		size_t n = strlen(with_value[i]);

		if (strcmp(arg, with_value[i]) == 0) {
			*takes_value = 1;
			return 1;
		}
		if (strncmp(arg, with_value[i], n) == 0 && (arg[n] == '=' || (n == 2 && arg[n])))
			return 1;
	}
	for (size_t i = 0; i < sizeof(alone) / sizeof(alone[0]); i++)
		if (strcmp(arg, alone[i]) == 0)
			return 1;
	return 0;
}

struct t32_rec *t32_rec_create(const char *path, int argc, char **argv)
{
	struct t32_rec *r = calloc(1, sizeof(*r));
	FILE *f;

	if (!r || !(r->path = strdup(path))) {
		free(r);
		t32_error("out of memory '%s'", "recording");
		return NULL;
	}
	if (t32_out_open(&r->out, path)) {
		free(r->path);
		free(r);
		return NULL;
	}
	f = r->out.f;
	fprintf(f, "%s: every reading behind a result; `t32 %s --replay FILE` recomputes it\n",
		REC_MAGIC, argc ? argv[0] : "time");
	t32_provenance(f, argc, argv);
	fprintf(f, "# tsc: %.4f GHz, step %llu ticks\n", t32_machine_tsc_hz() / 1e9,
		(unsigned long long)t32_machine_tsc_step(NULL));
	/*
	 * a recording without this line kept the doubling placements; "tiers", those
	 * from 2.5 ms; "scaled", from 1 ms in ticks
	 */
	fputs("# placements: half\n", f);
	/* nor this one the sensor chains: their blocks are not in its runs */
	fputs("# sensors: mul,vec\n", f);
	/*
	 * nor this one the early stop of a measurement that cannot reach its
	 * precision; "on", that stop at the first judgement that said so
	 */
	fputs("# futility: confirmed\n", f);
	/* nor this one an interval that holds how far the sensors may put the clock */
	fputs("# interval: span\n", f);
	/*
	 * nor this one rounds run several to a call, sized by the blocks' own cost;
	 * "batched", those with a placement that ends on the wall clock
	 */
	fputs("# rounds: planned\n", f);
	fputs("argv", f);
	/* options that write files or record again stay out: a replay writes where it is told */
	for (int i = 0; i < argc; i++) {
		int skip_next;

		if (i > 0 && i < argc && argv[i][0] == '-' && dropped(argv[i], &skip_next)) {
			i += skip_next;
			continue;
		}
		if (strcmp(argv[i], "--") == 0) {
			for (; i < argc; i++) {
				putc('\t', f);
				t32_tsv_fputs(argv[i], f);
			}
			break;
		}
		putc('\t', f);
		t32_tsv_fputs(argv[i], f);
	}
	putc('\n', f);
	return r;
}

/* A double written exactly (C99 hexadecimal floating point). */
static void put_exact(FILE *f, double d)
{
	fprintf(f, "%a", d);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Room for n deltas in r->vals; 0, or -1 when out of memory. */
static int vals_reserve(struct t32_rec *r, size_t n)
{
	if (n <= r->nvals)
		return 0;
	uint64_t *v = realloc(r->vals, n * sizeof(*v));

	if (!v)
		return -1;
	r->vals = v;
	r->nvals = n;
	return 0;
}

/* The message of a failed call, on its own line. */
static void put_error(FILE *f)
{
	fputs("err\t", f);
	t32_tsv_fputs(t32_last_error, f);
	putc('\n', f);
}

/* --- recording: the real source's calls, written down ---------------------- */

static int rec_run(void *ctx, size_t nb, const enum t32_role *roles, uint64_t per, uint64_t skip,
		   uint64_t reps, uint64_t rounds, uint64_t *out)
{
	struct t32_rec *r = ctx;
	FILE *f = r->out.f;
	int rc = r->real.run(r->real.ctx, nb, roles, per, skip, reps, rounds, out);

	/* a call of several rounds says how many; each round's deltas on lines of their own */
	fprintf(f, "run\t%zu\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%d", nb, per, skip, reps, rc);
	if (rounds != 1)
		fprintf(f, "\t%" PRIu64, rounds);
	putc('\n', f);
	if (rc) {
		put_error(f);
		return rc;
	}
	if (vals_reserve(r, (size_t)(reps * per))) {
		t32_error("out of memory '%s'", "recording");
		return T32_EXIT_ERROR;
	}
	for (size_t b = 0; b < nb * rounds; b++) {
		const uint64_t *o = out + b / nb * nb * per * reps;
		size_t k = 0;

		for (uint64_t j = 0; j < reps; j++)
			for (uint64_t i = 0; i < per; i++)
				r->vals[k++] = o[(j * nb + b % nb) * per + i];
		qsort(r->vals, k, sizeof(uint64_t), cmp_u64);
		fprintf(f, "d\t%zu\t", b % nb);
		for (size_t i = 0; i < k;) {
			size_t j = i;

			while (j < k && r->vals[j] == r->vals[i])
				j++;
			fprintf(f, "%s%" PRIu64 ":%zu", i ? "," : "", r->vals[i], j - i);
			i = j;
		}
		putc('\n', f);
	}
	return 0;
}

static int rec_respawn(void *ctx)
{
	struct t32_rec *r = ctx;
	int rc = r->real.respawn(r->real.ctx);

	fprintf(r->out.f, "respawn\t%d\n", rc);
	if (rc)
		put_error(r->out.f);
	return rc;
}

static double rec_now(void *ctx)
{
	struct t32_rec *r = ctx;
	double t = r->real.now ? r->real.now(r->real.ctx) : t32_now();

	fputs("now\t", r->out.f);
	put_exact(r->out.f, t);
	putc('\n', r->out.f);
	return t;
}

static unsigned rec_look(void *ctx)
{
	struct t32_rec *r = ctx;
	unsigned bits = r->real.look ? r->real.look(r->real.ctx) : 0;

	fprintf(r->out.f, "look\t%u\n", bits);
	return bits;
}

static void rec_finish(void *ctx, struct t32_measurement *m)
{
	struct t32_rec *r = ctx;

	if (r->real.finish)
		r->real.finish(r->real.ctx, m);
	fputs("finish\t", r->out.f);
	put_exact(r->out.f, m->steal_share);
	putc('\t', r->out.f);
	t32_tsv_fputs(m->who, r->out.f);
	putc('\t', r->out.f);
	t32_tsv_fputs(m->who_beside, r->out.f);
	putc('\n', r->out.f);
}

/* --- replaying: the same calls answered from the file ---------------------- */

/*
 * The next line, which must be of `kind` with at least nf fields; NULL after a
 * message (the replay and the recording part here).
 */
static char **expect(struct t32_rec *r, const char *kind, size_t nf, const char *asked)
{
	size_t n;

	if (r->diverged)
		return NULL;
	if (t32_tsv_next(&r->tsv) != 1) {
		t32_error("the recording ends where the measurement asks for more '%s' (%s)", r->path,
			  asked);
		r->diverged = 1;
		return NULL;
	}
	n = t32_tsv_split(&r->tsv);
	if (n < nf || strcmp(r->tsv.fields[0], kind) != 0) {
		t32_error("the recording does not match this measurement at line %zu '%s' "
			  "(recorded '%s', asked %s: another version's measuring loop?)",
			  r->tsv.lineno, r->path, n ? r->tsv.fields[0] : "", asked);
		r->diverged = 1;
		return NULL;
	}
	return r->tsv.fields;
}

/* An unsigned field; -1 after a message when it is not one. */
static int field_u64(struct t32_rec *r, const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		t32_error("a bad number in the recording at line %zu '%s' (%s)", r->tsv.lineno,
			  r->path, s);
		r->diverged = 1;
		return -1;
	}
	return 0;
}

/* A recorded failure: its message shown again, its exit code returned. */
static int replay_failure(struct t32_rec *r, int rc)
{
	char **fl = expect(r, "err", 2, "a failure's message");

	t32_error("%s", fl ? fl[1] : "a recorded failure without its message");
	return rc;
}

/* A recorded exit code; -1 after a message. */
static int field_rc(struct t32_rec *r, const char *s, int *rc)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < 0 || v > 255) {
		t32_error("a bad exit code in the recording at line %zu '%s' (%s)", r->tsv.lineno,
			  r->path, s);
		r->diverged = 1;
		return -1;
	}
	*rc = (int)v;
	return 0;
}

static int rep_run(void *ctx, size_t nb, const enum t32_role *roles, uint64_t per, uint64_t skip,
		   uint64_t reps, uint64_t rounds, uint64_t *out)
{
	struct t32_rec *r = ctx;
	char asked[160], **fl;
	uint64_t v[5] = { 0, 0, 0, 0, 1 };
	int rc;

	(void)roles;
	snprintf(asked, sizeof(asked), "run %zu blocks, %" PRIu64 " runs after %" PRIu64 ", %" PRIu64
		 " times, %" PRIu64 " rounds", nb, per, skip, reps, rounds);
	if (!(fl = expect(r, "run", 6, asked)))
		return T32_EXIT_ERROR;
	for (int i = 0; i < 4; i++)
		if (field_u64(r, fl[i + 1], &v[i]))
			return T32_EXIT_ERROR;
	if (field_rc(r, fl[5], &rc) || (r->tsv.nfields > 6 && field_u64(r, fl[6], &v[4])))
		return T32_EXIT_ERROR;
	if (v[0] != nb || v[1] != per || v[2] != skip || v[3] != reps || v[4] != rounds) {
		t32_error("the recording does not match this measurement at line %zu '%s' (recorded "
			  "run %" PRIu64 " blocks, %" PRIu64 " runs after %" PRIu64 ", %" PRIu64
			  " times, %" PRIu64 " rounds; asked %s)", r->tsv.lineno, r->path, v[0], v[1],
			  v[2], v[3], v[4], asked);
		r->diverged = 1;
		return T32_EXIT_ERROR;
	}
	if (rc)
		return replay_failure(r, rc);
	if (vals_reserve(r, (size_t)(reps * per))) {
		t32_error("out of memory '%s'", "replay");
		return T32_EXIT_ERROR;
	}
	for (size_t bb = 0; bb < nb * rounds; bb++) {
		const size_t b = bb % nb;
		uint64_t k = 0, block, *o = out + bb / nb * nb * per * reps;
		char *p, *next;

		if (!(fl = expect(r, "d", 3, "a block's deltas")) || field_u64(r, fl[1], &block))
			return T32_EXIT_ERROR;
		if (block != b) {
			t32_error("the recording's deltas are out of order at line %zu '%s'",
				  r->tsv.lineno, r->path);
			r->diverged = 1;
			return T32_EXIT_ERROR;
		}
		/* value:count,value:count... back into reps * per deltas */
		for (p = fl[2]; *p; p = next) {
			char *colon = strchr(p, ':'), *comma = strchr(p, ',');
			uint64_t value, count;

			next = comma ? comma + 1 : p + strlen(p);
			if (comma)
				*comma = 0;
			if (!colon) {
				field_u64(r, "", &value);
				return T32_EXIT_ERROR;
			}
			*colon = 0;
			if (field_u64(r, p, &value) || field_u64(r, colon + 1, &count))
				return T32_EXIT_ERROR;
			if (count > reps * per - k) {
				t32_error("more deltas than runs in the recording at line %zu '%s'",
					  r->tsv.lineno, r->path);
				r->diverged = 1;
				return T32_EXIT_ERROR;
			}
			while (count--)
				r->vals[k++] = value;
		}
		if (k != reps * per) {
			t32_error("fewer deltas than runs in the recording at line %zu '%s'",
				  r->tsv.lineno, r->path);
			r->diverged = 1;
			return T32_EXIT_ERROR;
		}
		for (uint64_t j = 0, i = 0; j < reps; j++)
			for (uint64_t x = 0; x < per; x++)
				o[(j * nb + b) * per + x] = r->vals[i++];
	}
	return 0;
}

/* A provenance word's value: words[i].value for the word name, else none. */
struct rec_word {
	const char *word;
	int value;
};

static int word_value(const char *name, const struct rec_word *words, size_t n, int none)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, words[i].word) == 0)
			return words[i].value;
	return none;
}

/* The placements a recording's "# placements:" line names (none: doubling). */
static enum t32_placements placements_of(const char *name)
{
	static const struct rec_word words[] = {
		{ "scaled", T32_PLACEMENTS_SCALED }, { "tiers", T32_PLACEMENTS_TIERS },
		{ "half", T32_PLACEMENTS_HALF },
	};

	return (enum t32_placements)word_value(name, words, sizeof(words) / sizeof(words[0]),
					       T32_PLACEMENTS_DOUBLING);
}

/* The futility rule a recording's "# futility:" line names (none: off). */
static enum t32_futility futility_of(const char *name)
{
	static const struct rec_word words[] = {
		{ "confirmed", T32_FUTILITY_CONFIRMED }, { "on", T32_FUTILITY_AT_ONCE },
	};

	return (enum t32_futility)word_value(name, words, sizeof(words) / sizeof(words[0]),
					     T32_FUTILITY_OFF);
}

/* How a recording's calls held rounds, its "# rounds:" line (none: one a call). */
static enum t32_rounds rounds_of(const char *name)
{
	static const struct rec_word words[] = {
		{ "planned", T32_ROUNDS_PLANNED }, { "batched", T32_ROUNDS_BATCHED },
	};

	return (enum t32_rounds)word_value(name, words, sizeof(words) / sizeof(words[0]),
					   T32_ROUNDS_SINGLE);
}

static int rep_respawn(void *ctx)
{
	struct t32_rec *r = ctx;
	char **fl = expect(r, "respawn", 2, "a fresh measuring process");
	int rc;

	if (!fl || field_rc(r, fl[1], &rc))
		return T32_EXIT_ERROR;
	return rc ? replay_failure(r, rc) : 0;
}

static double rep_now(void *ctx)
{
	struct t32_rec *r = ctx;
	char **fl = expect(r, "now", 2, "the clock");

	/* a replay that parted from its recording has no time left: the loop ends */
	return fl ? strtod(fl[1], NULL) : INFINITY;
}

static unsigned rep_look(void *ctx)
{
	struct t32_rec *r = ctx;
	char **fl = expect(r, "look", 2, "a look beside the measuring process");
	uint64_t bits = 0;

	if (fl)
		field_u64(r, fl[1], &bits);
	return (unsigned)bits;
}

static void rep_finish(void *ctx, struct t32_measurement *m)
{
	struct t32_rec *r = ctx;
	char **fl = expect(r, "finish", 4, "what the source knew at the end");

	if (!fl)
		return;
	m->steal_share = strtod(fl[1], NULL);
	snprintf(m->who, sizeof(m->who), "%s", fl[2]);
	snprintf(m->who_beside, sizeof(m->who_beside), "%s", fl[3]);
}

int t32_rec_source(struct t32_rec *r, const struct t32_source *real, struct t32_source *out,
		   uint64_t n, uint64_t twin_n, const struct t32_measure_opts *mo)
{
	if (!r->replay) {
		FILE *f = r->out.f;

		r->real = *real;
		*out = (struct t32_source){ rec_run, real->respawn ? rec_respawn : NULL, rec_now,
					    rec_look, rec_finish, r, real->tsc_hz, real->q,
					    real->placements, real->sensors, real->futility,
					    real->span_floor, real->batched };
		fprintf(f, "measure\t%" PRIu64 "\t%" PRIu64 "\t%s\t%" PRIu64 "\t", n, twin_n,
			t32_unit_names[mo->unit], real->q);
		put_exact(f, real->tsc_hz);
		putc('\n', f);
		return 0;
	}

	char **fl = expect(r, "measure", 6, "a measurement");
	uint64_t rn, rt, q;
	char asked[96];

	if (!fl || field_u64(r, fl[1], &rn) || field_u64(r, fl[2], &rt) || field_u64(r, fl[4], &q))
		return T32_EXIT_ERROR;
	snprintf(asked, sizeof(asked), "n = %" PRIu64 " against %" PRIu64 ", in %s", n, twin_n,
		 t32_unit_names[mo->unit]);
	if (rn != n || rt != twin_n || strcmp(fl[3], t32_unit_names[mo->unit]) != 0) {
		t32_error("the recording does not match this measurement at line %zu '%s' (recorded "
			  "n = %" PRIu64 " against %" PRIu64 ", in %s; asked %s)", r->tsv.lineno,
			  r->path, rn, rt, fl[3], asked);
		r->diverged = 1;
		return T32_EXIT_ERROR;
	}
	*out = (struct t32_source){ rep_run, rep_respawn, rep_now, rep_look, rep_finish, r,
				    strtod(fl[5], NULL), q ? q : 1,
				    placements_of(t32_rec_provenance(r, "placements")),
				    strcmp(t32_rec_provenance(r, "sensors"), "mul,vec") == 0,
				    futility_of(t32_rec_provenance(r, "futility")),
				    strcmp(t32_rec_provenance(r, "interval"), "span") == 0,
				    rounds_of(t32_rec_provenance(r, "rounds")) };
	return 0;
}

int t32_rec_measure_end(struct t32_rec *r, const struct t32_measurement *m, int rc)
{
	(void)m;
	if (!r->replay) {
		fprintf(r->out.f, "end\t%d\n", rc);
		return rc;
	}
	/* a measurement that failed early may have left calls unmade: find its end */
	while (!r->diverged && t32_tsv_next(&r->tsv) == 1) {
		t32_tsv_split(&r->tsv);
		if (strcmp(r->tsv.fields[0], "end") == 0)
			return rc;
	}
	return rc ? rc : T32_EXIT_ERROR;
}

/* Keep a copy of s; NULL when out of memory. */
static char *keep(const char *s)
{
	return strdup(s);
}

struct t32_rec *t32_rec_open(const char *path, int *argc, char ***argv)
{
	struct t32_rec *r = calloc(1, sizeof(*r));
	int magic = 0;

	if (!r || !(r->path = strdup(path))) {
		free(r);
		t32_error("out of memory '%s'", "replay");
		return NULL;
	}
	r->replay = 1;
	if (t32_tsv_open(&r->tsv, path)) {
		free(r->path);
		free(r);
		return NULL;
	}
	/* the provenance lines, then the command line */
	while (t32_tsv_next(&r->tsv) == 1) {
		char *line = r->tsv.line;

		if (r->tsv.lineno == 1) {
			magic = strncmp(line, REC_MAGIC, strlen(REC_MAGIC)) == 0;
			if (!magic)
				break;
			continue;
		}
		if (line[0] == '#') {
			char *colon = strchr(line, ':');

			if (colon && line[1] == ' ' && r->nprov < REC_MAX_PROV) {
				*colon = 0;
				r->prov_name[r->nprov] = keep(line + 2);
				r->prov_value[r->nprov] = keep(colon[1] == ' ' ? colon + 2 : colon + 1);
				if (r->prov_name[r->nprov] && r->prov_value[r->nprov])
					r->nprov++;
			}
			continue;
		}
		size_t n = t32_tsv_split(&r->tsv);

		if (n < 2 || strcmp(r->tsv.fields[0], "argv") != 0)
			break;
		/* a slot before argv[0], as main's argv has "t32" there */
		r->argv = calloc(n + 2, sizeof(char *));
		if (!r->argv || !(r->argv[0] = keep("t32")))
			break;
		r->argc = 1;
		for (size_t i = 1; i < n; i++)
			if (!(r->argv[r->argc++] = keep(r->tsv.fields[i])))
				break;
		*argc = r->argc - 1;
		*argv = r->argv + 1;
		t32_provenance_recorded(t32_rec_provenance(r, "cpu"), t32_rec_provenance(r, "core"),
					t32_rec_provenance(r, "host"), t32_rec_provenance(r, "date"),
					r->path);
		return r;
	}
	t32_error("not a t32 recording '%s' (%s)", path,
		  magic ? "no command line after its provenance" : "it does not start with '" REC_MAGIC "'");
	t32_rec_close(r, 0);
	return NULL;
}

int t32_rec_close(struct t32_rec *r, int keep_it)
{
	int rc = 0;

	if (!r)
		return 0;
	if (!r->replay) {
		if (!keep_it)
			t32_out_abort(&r->out);
		else if (t32_out_commit(&r->out))
			rc = T32_EXIT_ERROR;
	} else {
		if (keep_it && !r->diverged && t32_tsv_next(&r->tsv) == 1) {
			t32_error("the recording holds more than this replay used '%s' (line %zu on)",
				  r->path, r->tsv.lineno);
			rc = T32_EXIT_ERROR;
		}
		t32_tsv_close(&r->tsv);
	}
	for (int i = 0; r->argv && i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
	if (r->replay)
		t32_provenance_recorded(NULL, NULL, NULL, NULL, NULL);
	for (int i = 0; i < r->nprov; i++) {
		free(r->prov_name[i]);
		free(r->prov_value[i]);
	}
	free(r->vals);
	free(r->path);
	free(r);
	return rc;
}
