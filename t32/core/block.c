/*
 * block.c - shared set-up of the measuring subcommands.
 */
#include "t32/core/block.h"
#include "t32/core/record.h"

#include <dirent.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "t32/io/blockfile.h"
#include "t32/core/blobcache.h"
#include "t32/core/helper.h"

void t32_block_opts_init(struct t32_block_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->run.cpu = -1;
	o->run.timeout = 10;
	o->dither = 1;
	o->warmup = 1000;
	o->format = T32_FMT_TABLE;
	o->cmd = "";
	o->accept = T32_OPT_ALL;
	o->formats = T32_FMT_BIT(T32_FMT_TABLE) | T32_FMT_BIT(T32_FMT_TSV) | T32_FMT_BIT(T32_FMT_JSON);
}

/* The shared options: their codes, bits and names (their help: options.c's set). */
static const struct {
	int code;
	unsigned bit;
	const char *name;
} shared_opts[] = {
	{ 0x100, T32_OPT_CPU, "--cpu" },
	{ 0x101, T32_OPT_TIMEOUT, "--timeout" },
	{ 0x102, T32_OPT_INIT, "--init" },
	{ 0x103, T32_OPT_DITHER, "--no-dither" },
	{ 0x104, T32_OPT_WARMUP, "--warmup" },
	{ 0x105, T32_OPT_FORMAT, "--format" },
	{ 0x106, T32_OPT_RAWNASM, "--raw-nasm" },
};
static const char *const format_names[] = { "table", "tsv", "json" };

const char *t32_block_formats_text(const struct t32_block_opts *o, char *buf, size_t len)
{
	size_t n = 0, k = 0;

	buf[0] = 0;
	for (int f = 0; f < 3; f++)
		n += !!(o->formats & T32_FMT_BIT(f));
	for (int f = 0; f < 3; f++)
		if (o->formats & T32_FMT_BIT(f)) {
			k++;
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
				 k == 1 ? "" : k == n ? " or " : ", ", format_names[f]);
		}
	return buf;
}

int t32_block_option(int opt, const char *arg, struct t32_block_opts *o, struct t32_spec *s)
{
	uint64_t v;
	char err[256], formats[64];

	for (size_t i = 0; i < sizeof(shared_opts) / sizeof(shared_opts[0]); i++)
		if (opt == shared_opts[i].code && !(o->accept & shared_opts[i].bit)) {
			t32_error("%s does not take '%s' (t32%s%s --help lists what it takes)",
				  o->cmd[0] ? o->cmd : "the classic form", shared_opts[i].name,
				  o->cmd[0] ? " " : "", o->cmd);
			return -1;
		}
	switch (opt) {
	case 0x100:
		if (t32_parse_u64(arg, 0, 4095, &v)) {
			t32_error("bad cpu number '%s'", arg);
			return -1;
		}
		o->run.cpu = (int)v;
		t32_cpu_select(o->run.cpu);
		return 0;
	case 0x101: {
		double t;

		if (t32_parse_real(arg, DBL_MIN, 86400, &t)) {
			t32_error("bad time limit '%s' (seconds, up to 86400)", arg);
			return -1;
		}
		o->run.timeout = t;
		t32_helper_set_limit(t);
		return 0;
	}
	case 0x102: {
		size_t before = s->ninit;

		/* --init for a register an earlier --init set: which value was meant? */
		if (t32_spec_parse_init(s, arg, err, sizeof(err)) ||
		    t32_spec_init_twice(s, before, err, sizeof(err))) {
			t32_error("%s", err);
			return -1;
		}
		return 0;
	}
	case 0x103:
		o->dither = 0;
		return 0;
	case 0x104:
		if (t32_parse_u64(arg, 0, UINT64_C(100000000), &v)) {
			t32_error("bad warm-up count '%s'", arg);
			return -1;
		}
		o->warmup = v;
		return 0;
	case 0x105: {
		enum t32_format f;

		if (t32_parse_format(arg, &f)) {
			t32_error("unknown format '%s' (%s)", arg,
				  t32_block_formats_text(o, formats, sizeof(formats)));
			return -1;
		}
		if (!(o->formats & T32_FMT_BIT(f))) {
			t32_error("%s cannot write format '%s' (%s only)",
				  o->cmd[0] ? o->cmd : "the classic form", arg,
				  t32_block_formats_text(o, formats, sizeof(formats)));
			return -1;
		}
		o->format = f;
		return 0;
	}
	case 0x106:
		t32_spec_allow_raw_nasm(1);
		return 0;
	}
	return 1;
}

int t32_block_parse_head(struct t32_spec *s, const char *barrier, const char *store)
{
	char err[256];

	if (t32_spec_set_barrier(s, barrier, err, sizeof(err)) ||
	    t32_spec_set_store(s, store, err, sizeof(err))) {
		t32_error("%s", err);
		return -1;
	}
	return 0;
}

int t32_block_parse_count(const char *arg, uint64_t *count)
{
	if (t32_parse_u64(arg, 1, UINT32_MAX, count)) {
		t32_error("bad count '%s' (1 to 4294967295 measurements)", arg);
		return -1;
	}
	return 0;
}

int t32_report_fault(const struct t32_fault *f, const struct t32_spec *s)
{
	char msg[1024];

	t32_fault_describe(f, s, msg, sizeof(msg));
	t32_error("%s", msg);
	if (f->kind == T32_FAIL_INTERRUPTED)
		return T32_EXIT_INTERRUPTED;
	return f->kind == T32_FAIL_UNSUPPORTED ? T32_EXIT_UNSUPPORTED : T32_EXIT_ERROR;
}

/* Generate and assemble one spec into a blob; exit code. */
static int build(const struct t32_spec *s, const struct t32_block_opts *o, struct t32_blob *b)
{
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .dither = o->dither, .unroll = 1 };
	struct t32_gen g;
	struct t32_fault f;
	int rc;

	if (t32_generate(s, &go, &g)) {
		t32_error("cannot generate the block '%s'", "out of memory");
		return T32_EXIT_ERROR;
	}
	/* assembled already (a sweep's empty and calibration blocks, its blocks ahead) */
	if (!t32_one_by_one() && t32_blobs_get(g.text, b) == 0) {
		t32_gen_free(&g);
		return 0;
	}
	rc = t32_assemble(g.text, &g, b, &f);
	if (!rc && !t32_one_by_one())
		t32_blobs_put(g.text, b);
	t32_gen_free(&g);
	return rc ? t32_report_fault(&f, s) : 0;
}

int t32_replay_or_run(int argc, char **argv, const char *usage,
		      int (*run)(int argc, char **argv, struct t32_rec *rec, const char *format))
{
	const char *path = NULL, *format = NULL;
	struct t32_rec *rec;
	char **rargv;
	int rargc, rc;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char **slot = strncmp(argv[i], "--replay", 8) == 0   ? &path
				    : strncmp(argv[i], "--format", 8) == 0 ? &format
									   : NULL;
		const char *arg = slot ? argv[i] + 8 : NULL;

		if (!slot)
			continue;
		if (*arg == '=')
			arg++;
		else if (!*arg && i + 1 < argc)
			arg = argv[++i];
		else
			continue;
		*slot = arg;
	}
	if (!path)
		return run(argc, argv, NULL, NULL);
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "--replay", 8) != 0 && strncmp(argv[i], "--format", 8) != 0 &&
		    argv[i] != path && argv[i] != format) {
			t32_error("--replay takes only --format beside it '%s'", argv[i]);
			return t32_usage(usage);
		}
	if (!(rec = t32_rec_open(path, &rargc, &rargv)))
		return T32_EXIT_ERROR;
	if (rargc < 1 || strcmp(rargv[0], argv[0]) != 0) {
		t32_error("the recording is of another command '%s' (%s, not %s)", path,
			  rargc ? rargv[0] : "none", argv[0]);
		t32_rec_close(rec, 0);
		return T32_EXIT_USAGE;
	}
	rc = run(rargc, rargv, rec, format);
	{
		/* a replay that ended as a measurement does is checked for readings left over */
		int done = !rc || rc == T32_EXIT_UNTRUSTED || rc == T32_EXIT_ROWS;
		int crc = t32_rec_close(rec, done);

		if (crc && done)
			rc = crc;
	}
	return rc;
}

static int start_runner(struct t32_session *ss, double seconds, double warm, int placed);

int t32_session_open(struct t32_session *ss, const struct t32_spec *const *specs, size_t n,
		     const struct t32_block_opts *o)
{
	int rc = 0;

	memset(ss, 0, sizeof(*ss));
	ss->opts = *o;
	if (n > T32_SESSION_MAX)
		n = T32_SESSION_MAX;
	for (size_t i = 0; i < n; i++) {
		ss->specs[i] = specs[i];
		rc = build(specs[i], o, &ss->blob[i]);
		ss->n = i + 1;
		if (rc)
			return rc;
	}
	return start_runner(ss, 0.02, 0.002, 0);
}

/* A first run over this many ticks (10 to 30 us at any TSC rate) marks a slow block. */
#define SLOW_RUN_TICKS (1u << 15)

/* o->warmup runs of each block, or about `seconds` of them if that is less. */
static int warm_up(struct t32_session *ss, double seconds)
{
	const struct t32_block_opts *o = &ss->opts;
	uint64_t *scratch;
	int rc = 0;

	if (!o->warmup)
		return 0;
	scratch = malloc(o->warmup * sizeof(uint64_t));
	if (!scratch) {
		t32_error("out of memory '%s'", "warm-up");
		return T32_EXIT_ERROR;
	}
	for (size_t i = 0; i < ss->n && !rc; i++) {
		uint64_t runs = o->warmup < 16 ? o->warmup : 16;
		double t0 = t32_now(), per;

		rc = t32_session_run(ss, i, runs, scratch);
		per = (t32_now() - t0) / (double)runs;
		if (!rc && o->warmup > runs) {
			uint64_t more = per > 0 ? (uint64_t)(seconds / per) : o->warmup;

			if (more > o->warmup - runs)
				more = o->warmup - runs;
			if (more)
				rc = t32_session_run(ss, i, more, scratch);
		}
	}
	free(scratch);
	return rc;
}

/*
 * The measuring process between sessions: a session takes it when its blocks
 * fit, and gives it back when it closes, so a sweep's rows run in one process
 * (another is started when one dies: a faulting block ends it).
 */
static struct t32_runner *idle_runner;

static void stop_idle_runner(void)
{
	t32_runner_stop(idle_runner);
	idle_runner = NULL;
}

/*
 * The session's blocks placed afresh in its measuring process (the idle one,
 * or a new one when none fits or it died), warmed up for `seconds` a block,
 * `warm` seconds when the process was warm already; placed: they have run
 * there before, so they move and warm with the next run (t32_runner_move_later).
 */
static int start_runner(struct t32_session *ss, double seconds, double warm, int placed)
{
	const struct t32_blob *blobs[T32_SESSION_MAX];
	const uint64_t placed_warmup = ss->opts.warmup < 16 ? ss->opts.warmup : 16;
	struct t32_fault f;

	for (size_t i = 0; i < ss->n; i++)
		blobs[i] = &ss->blob[i];
	if (t32_one_by_one()) {
		/* each placement in a process of its own */
		t32_runner_stop(ss->runner);
		ss->runner = NULL;
	}
	if (!ss->runner && !t32_one_by_one() &&
	    t32_runner_fits(idle_runner, blobs, ss->n, &ss->opts.run)) {
		ss->runner = idle_runner;
		idle_runner = NULL;
	}
	/*
	 * A new placement of the session's own blocks moves and warms them, sent
	 * with the next run (a round trip of its own cost a placement of a cheap
	 * block about a tenth of its time in a VM).
	 */
	if (placed && !t32_one_by_one() && ss->runner &&
	    t32_runner_fits(ss->runner, blobs, ss->n, &ss->opts.run) &&
	    t32_runner_move_later(ss->runner, placed_warmup, SLOW_RUN_TICKS) == 0)
		return 0;
	if (t32_runner_fits(ss->runner, blobs, ss->n, &ss->opts.run) &&
	    t32_runner_load(ss->runner, blobs, ss->n, &f) == 0) {
		/* blocks that have run before warm in one request; new ones each alone */
		if (!placed)
			return warm_up(ss, warm);
		if (t32_runner_warm(ss->runner, placed_warmup, SLOW_RUN_TICKS, &f))
			return t32_report_fault(&f, ss->specs[0]);
		return 0;
	}
	/* none, too small, or gone: a new process */
	t32_runner_stop(ss->runner);
	ss->runner = t32_runner_start(blobs, ss->n, &ss->opts.run, &f);
	if (!ss->runner)
		return t32_report_fault(&f, ss->specs[0]);
	return warm_up(ss, seconds);
}

/*
 * The caches and clock are warm already: new places need less.  In the same
 * process, a new place needs its pages touched and its code fetched, which a few
 * runs do (16 a block, 3 of a slow one: t32_runner_warm); a slow first run left
 * over lies above the bulk the estimate takes.  A new process gets 2 ms a block.
 */
int t32_session_respawn(struct t32_session *ss)
{
	return start_runner(ss, 0.002, 0, 1);
}

int t32_session_run(struct t32_session *ss, size_t which, uint64_t count, uint64_t *out)
{
	struct t32_fault f;

	if (t32_runner_timed(ss->runner, which, count, out, &f))
		return t32_report_fault(&f, ss->specs[which]);
	return 0;
}

int t32_session_interleaved(struct t32_session *ss, size_t nblocks, uint64_t per, uint64_t skip,
			    uint64_t reps, uint64_t *out)
{
	struct t32_fault f;

	if (t32_runner_interleaved(ss->runner, nblocks, per, skip, reps, out, &f))
		return t32_report_fault(&f, ss->specs[0]);
	return 0;
}

void t32_session_close(struct t32_session *ss)
{
	/* a process still alive serves the next session */
	if (!t32_one_by_one() && t32_runner_fits(ss->runner, NULL, 0, &ss->opts.run)) {
		static int registered;

		t32_runner_stop(idle_runner);
		idle_runner = ss->runner;
		/* ended and waited for when t32 exits, its time counted as t32's */
		if (!registered && atexit(stop_idle_runner) == 0)
			registered = 1;
	} else {
		t32_runner_stop(ss->runner);
	}
	ss->runner = NULL;
	for (size_t i = 0; i < ss->n; i++)
		t32_blob_free(&ss->blob[i]);
	ss->n = 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t t32_block_names(char ***names)
{
	char dir[4096];
	DIR *d;
	struct dirent *e;
	size_t n = 0, cap = 0;

	*names = NULL;
	snprintf(dir, sizeof(dir), "%s/blocks", t32_datadir());
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char **grown;

		if (l <= 4 || strcmp(e->d_name + l - 4, ".blk"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			if (!(grown = realloc(*names, cap * sizeof(char *))))
				break;
			*names = grown;
		}
		if (!((*names)[n] = strndup(e->d_name, l - 4)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(*names, n, sizeof(char *), by_name);
	return n;
}

void t32_block_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int t32_block_unknown_name(const char *arg)
{
	struct t32_spec s = { 0 };
	unsigned char *code = NULL;
	size_t len = 0, n;
	char err[512], known[2048] = "", **names;
	const char *near;
	int assembles;

	/* a name is one word; anything with an operand or a separator is instruction text */
	if (!*arg || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
			     strlen(arg))
		return 0;
	assembles = t32_spec_add_item(&s, 1, arg) == 0 &&
		    t32_assemble_body(&s, &code, &len, err, sizeof(err)) == 0;
	free(code);
	t32_spec_free(&s);
	if (assembles)
		return 0;
	n = t32_block_names(&names);
	for (size_t i = 0; i < n; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", i ? ", " : "",
			 names[i]);
	near = t32_nearest(arg, (const char *const *)names, n, 3);
	if (near)
		t32_error("unknown block '%s' (did you mean %s? known: %s; or give instructions)", arg,
			  near, n ? known : "none");
	else
		t32_error("unknown block '%s' (known: %s; or give instructions)", arg, n ? known : "none");
	t32_block_names_free(names, n);
	return 1;
}

int t32_block_body(int argc, char **argv, struct t32_spec *s, char *path, size_t len)
{
	char err[1024];

	if (argc == 1 && !t32_blockfile_find(argv[0], t32_datadir(), path, len) &&
	    t32_block_unknown_name(argv[0]))
		return T32_EXIT_USAGE;
	if (argc == 1 && t32_blockfile_find(argv[0], t32_datadir(), path, len)) {
		struct t32_blockfile bf;

		if (t32_blockfile_load(path, s, &bf, err, sizeof(err))) {
			t32_error("%s", err);
			return bf.unreadable ? T32_EXIT_ERROR : T32_EXIT_USAGE;
		}
		return -1;
	}
	path[0] = 0;
	if (t32_spec_parse_body(s, argc, argv, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_USAGE;
	}
	return -1;
}

void t32_block_uarch(const char *asked, struct t32_uarch_choice *c)
{
	struct t32_cpu cpu;

	t32_cpu_identify(&cpu);
	t32_uarch_choose(asked, cpu.vendor, cpu.family, cpu.model, cpu.core_type, c);
}

int t32_block_uarch_load(struct t32_uarch *u, const char *name, const char *datadir,
			 const char *const *sets, size_t nsets)
{
	char err[1024];

	if (t32_uarch_load(u, name, datadir, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_ERROR;
	}
	for (size_t k = 0; k < nsets; k++)
		if (t32_uarch_set(u, sets[k], err, sizeof(err))) {
			t32_error("%s", err);
			return T32_EXIT_USAGE;
		}
	return 0;
}

void t32_uarch_choice_json(FILE *f, const struct t32_uarch_choice *c)
{
	fprintf(f, "{\"name\": ");
	t32_json_string(f, c->how == T32_UARCH_ASKED ? c->data : c->core);
	fprintf(f, ", \"data\": ");
	t32_json_string(f, c->data);
	fprintf(f, ", \"how\": \"%s\", \"basis\": ", t32_uarch_how_name(c->how));
	t32_json_string(f, c->how == T32_UARCH_ASKED ? "--uarch" : c->cpu);
	fprintf(f, "}");
}
