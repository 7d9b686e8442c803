/*
 * cmd-gen.c - `t32 gen`: print the NASM source t32 would assemble for a spec, with
 * a header naming the spec, so the generated code can be read and reused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/cmd/options.h"

static const char gen_usage[] =
	"t32 gen [--empty] [--loop [--unroll K] [--loop-barrier]] [-o FILE] [--elf -o FILE [--iterations N]]\n"
	"               [OPTIONS] BARRIER STORE [N] INSN...";

/*
 * The program for perf, linked into a temporary file and put in place
 * (t32_tmp_replacing: renamed, or copied over a file a rename would lose), so a
 * failed link or a full disk leaves what was there.  A symbolic link stays: the
 * file it names is written.  An exit code.
 */
static int write_elf(const struct t32_gen *g, const char *out, const struct t32_spec *s)
{
	struct t32_fault f;
	char *tmp = NULL, *target;
	struct stat st;
	int fd, in_place, rc = T32_EXIT_ERROR;

	if (strcmp(out, "-") == 0 || (stat(out, &st) == 0 && !S_ISREG(st.st_mode))) {
		t32_error("cannot write a program to '%s' (%s)", out,
			  strcmp(out, "-") && S_ISDIR(st.st_mode) ? strerror(EISDIR)
								: "not a regular file");
		return T32_EXIT_ERROR;
	}
	if (!(target = t32_out_target(out))) {
		t32_error("cannot write '%s' (%s)", out, strerror(errno));
		return T32_EXIT_ERROR;
	}
	fd = t32_tmp_replacing(target, &tmp, &in_place);
	if (fd < 0) {
		t32_error("cannot write '%s' (%s)", out, strerror(errno));
		free(target);
		return T32_EXIT_ERROR;
	}
	close(fd);
	if (t32_build_elf(g->text, g, tmp, &f)) {
		t32_tmp_done(tmp, 0);
		free(target);
		return t32_report_fault(&f, s);
	}
	/* ld wrote a file of its own at tmp: opened again to be copied in place */
	fd = in_place ? open(tmp, O_RDONLY | O_CLOEXEC) : -1;
	if ((in_place && fd < 0) || t32_tmp_install(fd, tmp, target, in_place))
		t32_error("cannot write '%s' (%s)", out, strerror(errno));
	else
		rc = 0;
	if (fd >= 0)
		close(fd);
	t32_tmp_done(tmp, rc == 0 && !in_place);
	free(target);
	return rc;
}

/* --loop, and --elf (a looped program): the loop's shape. */
static int opt_shape(const struct t32_option *row, const char *arg)
{
	struct t32_gen_opts *go = row->ctx;

	(void)arg;
	go->shape = T32_GEN_LOOP;
	return 0;
}

/* The options into go, o, s and the rest; -1 to go on, else an exit code. */
static int gen_options(int argc, char **argv, struct t32_gen_opts *go, struct t32_block_opts *o,
		       struct t32_spec *s, int *want_empty, int *elf, const char **out,
		       uint64_t *iterations, int *first)
{
	struct t32_block_optset shared;

	t32_block_opts_init(o);
	o->cmd = "gen";
	/* it prints NASM and runs nothing: no CPU, warm-up or output format */
	o->accept = T32_OPT_TIMEOUT | T32_OPT_INIT | T32_OPT_DITHER | T32_OPT_RAWNASM;
	t32_block_optset_init(&shared, o, s);
	{
		const struct t32_option opts[] = {
			T32_OPT_FLAG("empty", 0, want_empty, "the barrier-only twin (what the barrier cost is measured on)"),
			T32_OPT_FN("loop", NULL, opt_shape, go, "the looped shape used for interrupt sampling"),
			T32_OPT_U64("unroll", "K", &go->unroll, 1, 1000000, "unroll", "body copies per loop iteration"),
			T32_OPT_FLAG("loop-barrier", 0, &go->loop_barrier, "keep the barriers inside the loop"),
			T32_OPT_STRING("output", 'o', "FILE", out, "write the source to FILE instead of stdout"),
			T32_OPT_FLAG("elf", 0, elf, "with -o FILE: write the looped block as a static program with\n" "symbols (t32_loop, body_start, body_end) for perf record/annotate"),
			T32_OPT_U64("iterations", "N", iterations, 1, 4611686018427387904.0, "iteration count", "loop iterations the program runs (default: about 2e9\n" "instructions' worth)"),
			T32_OPT_SET(shared.rows),
			T32_OPT_END
		};

		return t32_options_parse("gen", gen_usage, NULL, NULL, opts, argc, argv, first);
	}
}

int cmd_gen(int argc, char **argv)
{
	struct t32_block_opts o;
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .dither = 1, .unroll = 1 };
	struct t32_spec s = { 0 }, empty;
	struct t32_gen g;
	char err[512];
	int rc, want_empty = 0, elf = 0, first;
	const char *out = NULL;
	uint64_t iterations = 0;

	rc = gen_options(argc, argv, &go, &o, &s, &want_empty, &elf, &out, &iterations, &first);
	if (rc >= 0)
		return rc;
	optind = first;
	if (elf)
		go.shape = T32_GEN_LOOP;
	go.dither = o.dither;
	if (argc - optind < (want_empty ? 2 : 3))
		return t32_usage(gen_usage);
	if (t32_block_parse_head(&s, argv[optind], argv[optind + 1]))
		return T32_EXIT_USAGE;
	if (argc - optind > 2 &&
	    t32_spec_parse_body(&s, argc - optind - 2, argv + optind + 2, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_USAGE;
	}
	if (elf && !out) {
		t32_error("--elf needs an output file '%s'", "-o FILE");
		return T32_EXIT_USAGE;
	}
	if (elf) {
		uint64_t per = t32_spec_insns(&s) * (go.unroll ? go.unroll : 1);

		go.elf_iterations = iterations ? iterations : 2000000000ull / (per ? per : 1) + 1;
	}
	t32_spec_empty(&s, &empty);
	if (t32_generate(want_empty ? &empty : &s, &go, &g)) {
		t32_error("cannot generate the block '%s'", "out of memory");
		return T32_EXIT_ERROR;
	}
	if (elf) {
		rc = write_elf(&g, out, &s);
		t32_gen_free(&g);
		t32_spec_free(&s);
		return t32_close_stdout() && !rc ? T32_EXIT_ERROR : rc;
	}
	rc = 0;
	if (out) {
		/* the source written whole beside the target, then renamed into place */
		struct t32_out o;

		if (t32_out_open(&o, out))
			rc = T32_EXIT_ERROR;
		else if (fputs(g.text, o.f), t32_out_commit(&o))
			rc = T32_EXIT_ERROR;
	} else {
		fputs(g.text, stdout);
	}
	t32_gen_free(&g);
	t32_spec_free(&s);
	return t32_close_stdout() && !rc ? T32_EXIT_ERROR : rc;
}
