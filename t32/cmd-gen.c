/*
 * cmd-gen.c - `t32 gen`: print the NASM source t32 would assemble for a spec, with
 * a header naming the spec, so the generated code can be read and reused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "t32/block.h"
#include "t32/cmd.h"

static const char gen_usage[] =
	"t32 gen [--empty] [--loop [--unroll K] [--loop-barrier]] [OPTIONS] BARRIER STORE [N] INSN...";

int cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "empty", no_argument, NULL, 'e' },
		{ "loop", no_argument, NULL, 'l' },
		{ "unroll", required_argument, NULL, 'u' },
		{ "loop-barrier", no_argument, NULL, 'b' },
		T32_BLOCK_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct t32_block_opts o;
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .dither = 1, .unroll = 1 };
	struct t32_spec s = { 0 }, empty;
	struct t32_gen g;
	char err[512];
	int opt, rc, want_empty = 0;

	t32_block_opts_init(&o);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			printf("usage: %s\n\n"
			       "  --empty          the barrier-only twin (what the barrier cost is measured on)\n"
			       "  --loop           the looped shape used for interrupt sampling\n"
			       "  --unroll K       body copies per loop iteration\n"
			       "  --loop-barrier   keep the barriers inside the loop\n%s",
			       gen_usage, T32_BLOCK_OPTHELP);
			return t32_close_stdout();
		case 'e':
			want_empty = 1;
			continue;
		case 'l':
			go.shape = T32_GEN_LOOP;
			continue;
		case 'b':
			go.loop_barrier = 1;
			continue;
		case 'u':
			if (t32_parse_u64(optarg, 1, 1000000, &go.unroll)) {
				t32_error("bad unroll '%s' (1 to 1000000)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		}
		rc = t32_block_option(opt, optarg, &o, &s);
		if (rc < 0)
			return T32_EXIT_USAGE;
		if (rc > 0)
			return t32_usage(gen_usage);
	}
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
	t32_spec_empty(&s, &empty);
	if (t32_generate(want_empty ? &empty : &s, &go, &g)) {
		t32_error("cannot generate the block '%s'", "out of memory");
		return T32_EXIT_ERROR;
	}
	fputs(g.text, stdout);
	t32_gen_free(&g);
	t32_spec_free(&s);
	return t32_close_stdout();
}
