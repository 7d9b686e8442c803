/*
 * cmd-sample.c - `t32 sample`: where timer interrupts land in a block.  The block
 * is generated in the LOOP shape (the body, unrolled --unroll times, in a counted
 * loop), run in a forked pinned child with a sampler started in that child, and
 * every sampled IP is attributed to the body instruction holding it.  Printed per
 * instruction: offset, disassembly, samples, share of the body's samples with a
 * 95% Wilson interval; the loop overhead apart; the backend, clock, period, and the
 * loop's time per iteration with and without sampling.  --format=tsv gives the
 * same as '#' lines and one row per position; --format=json one object.
 *
 * Block files (data/blocks/NAME.blk; `t32 sample FILE.blk` or `t32 sample NAME`;
 * read by t32_blockfile_load in attrib.c) hold one block in the body language of
 * `t32 time`, one statement per line:
 *
 *	# NAME - what the block shows          '#' starts a comment line
 *	# source: where the block comes from   (a study, a figure)
 *	init REG=VALUE[,REG=VALUE]...          start values, as --init (optional)
 *	barrier LETTERS                        barriers around the body, as --barrier
 *	unroll K                               body copies per iteration, as --unroll
 *	[N] INSN[; INSN]...                    a body item: N copies of the statements
 *
 * Options given on the command line win over the file's.  Registers not named by
 * `init` point into the arena, whose qwords point to themselves, so
 * `mov rax, [rax]` chases its own pointer and `[reg]` operands are safe.
 */
#include <float.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "t32/sample/attrib.h"
#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/core/latcache.h"
#include "t32/cmd/options.h"
#include "t32/sample/sample.h"
#include "t32/sample/sampling.h"

static const char sample_usage[] =
	"t32 sample [OPTIONS] [N] INSN [[N] INSN]... | FILE.blk | BLOCK";





/* The stability lines, for a person. */
static void print_check(const struct t32_sample_check *ck)
{
	if (ck->have_within)
		printf("stable     %s: the run's %u parts %s (chi-square p = %.2g; largest part-to-rest "
		       "TVD %.3f, %.3f beyond sampling noise)\n", ck->within.unstable ? "NO" : "yes",
		       ck->within.parts, ck->within.unstable ? "differ" : "agree", ck->within.p,
		       ck->within.tvd, ck->within.excess);
	if (ck->minutes >= 0)
		printf("since      %s the run of %.0f minutes ago (TVD %.3f, %.3f beyond sampling "
		       "noise, p = %.2g)%s\n", ck->since.unstable ? "MOVED from" : "the same as",
		       ck->minutes, ck->since.tvd, ck->since.excess, ck->since.p,
		       ck->since.unstable ? ": this machine switches between ways interrupts land; "
					    "sample again and compare before fitting" : "");
}

/* Print the result for a person. */
static void print_table(const struct t32_attrib *at, const struct t32_sample_result *r,
			const struct t32_sampling_req *a, const struct t32_spec *s, int loop_barrier,
			size_t unit, const struct t32_sample_check *ck)
{
	const struct t32_sample_backend *b = r->backend;
	char desc[4096];
	uint64_t loop = at->body + at->overhead;
	double z = 1.96;
	int cycles = 0;

	t32_sampling_body_text(s, desc, sizeof(desc));
	printf("block      %s%s%s%s\n", desc, a->block_file[0] ? "  (" : "", a->block_file,
	       a->block_file[0] ? ")" : "");
	if (loop_barrier)
		printf("barrier    %s before and after the body in each iteration\n", s->barrier);
	printf("backend    %s: %s every %llu %s, %llu samples in %.2f s (%.0f per second)",
	       b->name, r->event, (unsigned long long)r->period, r->unit,
	       (unsigned long long)r->samples, r->seconds,
	       r->seconds > 0 ? (double)r->samples / r->seconds : 0.0);
	if (r->lost || r->dropped)
		printf(", %llu lost, %llu dropped", (unsigned long long)r->lost,
		       (unsigned long long)r->dropped);
	if (!strcmp(r->unit, "ns") && r->seconds > 0 &&
	    (double)r->samples / r->seconds < 0.5e9 / (double)r->period)
		printf("\nnote       the timer fired less often than every %llu ns (CPU-time timers "
		       "follow the scheduler tick; a busy CPU gives the thread less time)",
		       (unsigned long long)r->period);
	printf("\nskid       %s\n", b->skid);
	printf("loop       %.2f ns per iteration alone, %.2f ns while sampled (slowdown %+.1f%%); "
	       "%llu iterations sampled, unroll %llu\n", r->ns_alone, r->ns_sampled,
	       r->ns_alone > 0 ? (r->ns_sampled / r->ns_alone - 1) * 100 : 0.0,
	       (unsigned long long)r->iterations, (unsigned long long)a->unroll);
	if (a->fold && at->copies > 1)
		printf("folded     %zu copies of a unit of %zu instruction%s\n", at->copies, unit,
		       unit == 1 ? "" : "s");
	else if (a->fold)
		printf("folded     nothing: the body does not repeat\n");
	print_check(ck);
	printf("\n  %-8s %-34s %8s %7s  %s\n", "offset", "instruction", "samples", "share",
	       "95% interval");
	for (size_t i = 0; i < at->ninsn; i++)
		cycles |= at->insn[i].cycles_n > 0;
	for (size_t i = 0; i < at->ninsn; i++) {
		const struct t32_attr_insn *x = &at->insn[i];
		double lo, hi;

		t32_wilson(x->samples, at->body, z, &lo, &hi);
		printf("  0x%-6llx %-34.34s %8llu %6.1f%%  [%5.1f%%, %5.1f%%]",
		       (unsigned long long)(x->off - at->body_off), x->text,
		       (unsigned long long)x->samples,
		       at->body ? 100.0 * (double)x->samples / (double)at->body : 0.0, 100 * lo,
		       100 * hi);
		if (cycles && x->cycles_n)
			printf("  tag-to-retire %.1f, completion-to-retire %.1f cycles",
			       (double)x->tag_to_ret / (double)x->cycles_n,
			       (double)x->comp_to_ret / (double)x->cycles_n);
		putchar('\n');
	}
	printf("\n  loop overhead  %llu samples (%.1f%% of the loop's %llu)\n",
	       (unsigned long long)at->overhead,
	       loop ? 100.0 * (double)at->overhead / (double)loop : 0.0, (unsigned long long)loop);
	printf("  elsewhere      %llu in the block's set-up, %llu outside the block\n",
	       (unsigned long long)at->image, (unsigned long long)at->outside);
	if (at->inexact)
		printf("  inexact        %llu samples inside an instruction, not at its start\n",
		       (unsigned long long)at->inexact);
}

/* Print the result for a program that reads JSON: the TSV's fields in one object. */
static void print_json(const struct t32_attrib *at, const struct t32_sample_result *r,
		       const struct t32_sampling_req *a, const struct t32_spec *s, int loop_barrier,
		       size_t unit, const struct t32_sample_check *ck)
{
	char desc[4096];
	const char *const head[][2] = { { "block", desc }, { "block_file", a->block_file },
					{ "barrier", loop_barrier ? s->barrier : "none" },
					{ "backend", r->backend->name }, { "event", r->event } };

	t32_sampling_body_text(s, desc, sizeof(desc));
	t32_json_open(stdout, 0, NULL, head, 5);
	printf(", \"period\": %llu, \"period_unit\": ", (unsigned long long)r->period);
	t32_json_string(stdout, r->unit);
	printf(", \"skid\": ");
	t32_json_string(stdout, r->backend->skid);
	printf(", \"samples\": %llu, \"seconds\": %.4f, \"lost\": %llu, \"dropped\": %llu, "
	       "\"ns_per_iter_alone\": %.4f, \"ns_per_iter_sampled\": %.4f, \"unroll\": %llu, "
	       "\"copies_folded\": %zu, \"unit_insns\": %zu, \"body_samples\": %llu, "
	       "\"overhead_samples\": %llu, \"image_samples\": %llu, \"outside_samples\": %llu, "
	       "\"insns\": [", (unsigned long long)r->samples, r->seconds,
	       (unsigned long long)r->lost, (unsigned long long)r->dropped, r->ns_alone,
	       r->ns_sampled, (unsigned long long)a->unroll, at->copies, unit,
	       (unsigned long long)at->body, (unsigned long long)at->overhead,
	       (unsigned long long)at->image, (unsigned long long)at->outside);
	for (size_t i = 0; i < at->ninsn; i++) {
		const struct t32_attr_insn *x = &at->insn[i];
		double lo, hi;

		t32_wilson(x->samples, at->body, 1.96, &lo, &hi);
		printf("%s{\"position\": %zu, \"offset_bytes\": %llu, \"insn\": ", i ? ", " : "",
		       i, (unsigned long long)(x->off - at->body_off));
		t32_json_string(stdout, x->text);
		printf(", \"samples\": %llu, \"share\": %.5f, \"share_lo\": %.5f, "
		       "\"share_hi\": %.5f", (unsigned long long)x->samples,
		       at->body ? (double)x->samples / (double)at->body : 0.0, lo, hi);
		if (x->cycles_n)
			printf(", \"tag_to_ret_cycles\": %.2f, \"comp_to_ret_cycles\": %.2f",
			       (double)x->tag_to_ret / (double)x->cycles_n,
			       (double)x->comp_to_ret / (double)x->cycles_n);
		putchar('}');
	}
	printf("], \"stability\": ");
	if (ck->have_within)
		printf("{\"stable\": %s, \"parts\": %u, \"chi2\": %.3f, \"df\": %u, \"p\": %.3g, "
		       "\"tvd\": %.4f, \"beyond_noise\": %.4f}", ck->within.unstable ? "false" : "true",
		       ck->within.parts, ck->within.chi2, ck->within.df, ck->within.p, ck->within.tvd,
		       ck->within.excess);
	else
		printf("null");
	printf(", \"since_last\": ");
	if (ck->minutes >= 0)
		printf("{\"moved\": %s, \"minutes\": %.1f, \"p\": %.3g, \"tvd\": %.4f, "
		       "\"beyond_noise\": %.4f}", ck->since.unstable ? "true" : "false", ck->minutes,
		       ck->since.p, ck->since.tvd, ck->since.excess);
	else
		printf("null");
	printf("}\n");
}

/* --backend B: auto or a backend's name. */
static int opt_backend(const struct t32_option *row, const char *arg)
{
	const struct t32_sample_backend **b = row->ctx;

	if (!strcmp(arg, "auto")) {
		*b = NULL;
	} else if (!(*b = t32_sample_backend_find(arg))) {
		t32_error("unknown backend '%s' (auto, perf, signal, precise)", arg);
		return -1;
	}
	return 0;
}

/* --clock C */
static int opt_clock(const struct t32_option *row, const char *arg)
{
	const struct t32_sample_clock **c = row->ctx;

	if (!(*c = t32_sample_clock_find(arg))) {
		t32_error("unknown clock '%s' (task-clock, cpu-clock)", arg);
		return -1;
	}
	return 0;
}

/* Where --barrier goes: the spec's letters, and the request's say of them. */
struct sample_barrier {
	struct t32_sampling_req *a;
	struct t32_spec *s;
};

/* --barrier L: letters around the body each iteration (the spec's barrier). */
static int opt_barrier(const struct t32_option *row, const char *arg)
{
	const struct sample_barrier *b = row->ctx;
	struct t32_sampling_req *a = b->a;
	struct t32_spec *s = b->s;
	char err[512];

	if (t32_spec_set_barrier(s, arg, err, sizeof(err))) {
		t32_error("%s", err);
		return -1;
	}
	a->barrier_set = 1;
	a->loop_barrier = strcmp(s->barrier, "n") != 0;
	return 0;
}

/* Parse the command line into a, s, o; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, struct t32_sampling_req *a, struct t32_spec *s,
		      struct t32_block_opts *o, int *loop_barrier)
{
	struct t32_block_optset shared;
	struct sample_barrier bar = { a, s };
	char err[512], intro[512], outro[1024];
	int rc;

	o->accept &= ~(T32_OPT_DITHER | T32_OPT_WARMUP);
	o->run.timeout = -1;	/* not given: --seconds + 30 */
	a->unroll = 0;		/* not given: the block file's, else 1 */
	t32_block_optset_init(&shared, o, s);
	t32_block_optset_help(&shared, T32_OPT_TIMEOUT,
			      "give up after S seconds (default: --seconds + 30)");
	snprintf(intro, sizeof(intro), "Runs the block in a counted loop and samples where "
		 "interrupts land in it.\nBLOCK names data/blocks/BLOCK.blk (see `ls %s/blocks`).\n\n",
		 t32_datadir());
	snprintf(outro, sizeof(outro), "\nThe run's samples are split in time into %d parts and "
		 "tested for\nhomogeneity; the last run of the same block here (within a day, kept "
		 "in the\ncache directory) is compared too, and a move is warned of.\n\n"
		 "Exit 3 when the backend is unavailable here, 7 when too few samples landed\n"
		 "in the body to trust the shares, or when the parts of the run differ\n"
		 "(flag unstable).\n", T32_SAMPLE_PARTS);
	{
		const struct t32_option opts[] = {
			T32_OPT_FN("backend", "B", opt_backend, &a->backend, "auto (default: precise, else perf, else signal), perf, signal,\n" "precise"),
			T32_OPT_FN("clock", "C", opt_clock, &a->clock, "task-clock (default) or cpu-clock"),
			T32_OPT_U64("period", "NS", &a->period_ns, 10000, 10000000000.0, "period", "ns of the clock between samples (default 250000)"),
			/* fewer than T32_SAMPLING_MIN_BODY could never give shares to trust */
			T32_OPT_U64("samples", "N", &a->samples, T32_SAMPLING_MIN_BODY, 10000000, "sample count", "stop after N samples, at least 50 (default 2000)"),
			T32_OPT_REAL("seconds", "S", &a->seconds, DBL_MIN, 3600, "duration", "or after S seconds of sampling (default 10)"),
			T32_OPT_FN("barrier", "L", opt_barrier, &bar, "barrier letters around the body each iteration (default none)"),
			T32_OPT_U64("unroll", "K", &a->unroll, 1, 1000, "unroll", "body copies per loop iteration (default 1)"),
			T32_OPT_FLAG("fold", 0, &a->fold, "fold a body repeated k times into one copy"),
			T32_OPT_SET(shared.rows),
			T32_OPT_END
		};

		rc = t32_options_parse("sample", sample_usage, intro, outro, opts, argc, argv, &optind);
	}
	if (rc >= 0)
		return rc;
	*loop_barrier = a->loop_barrier;
	a->unroll_set = a->unroll != 0;
	if (!a->unroll)
		a->unroll = 1;
	if (optind >= argc)
		return t32_usage(sample_usage);
	if (argc - optind == 1 &&
	    !t32_blockfile_find(argv[optind], t32_datadir(), a->block_file, sizeof(a->block_file)) &&
	    t32_block_unknown_name(argv[optind]))
		return T32_EXIT_USAGE;
	if (argc - optind == 1 && t32_blockfile_find(argv[optind], t32_datadir(), a->block_file,
						     sizeof(a->block_file))) {
		int rc;

		a->loop_barrier = *loop_barrier;
		rc = t32_sampling_load_block(a, s);
		*loop_barrier = a->loop_barrier;

		if (rc)
			return rc;
	} else if (t32_spec_parse_body(s, argc - optind, argv + optind, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_USAGE;
	}
	if (o->run.timeout < 0)
		o->run.timeout = a->seconds + 30;
	return -1;
}

int cmd_sample(int argc, char **argv)
{
	struct t32_sampling_req a;
	struct t32_sampling out;
	struct t32_spec s = { 0 };
	struct t32_block_opts o;
	char err[512];
	int rc, loop_barrier = 0;

	t32_sampling_req_init(&a);
	t32_block_opts_init(&o);
	o.cmd = "sample";
	memset(&out, 0, sizeof(out));
	if (t32_spec_set_barrier(&s, "n", err, sizeof(err)) ||
	    t32_spec_set_store(&s, "m", err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_ERROR;
	}
	rc = parse_args(argc, argv, &a, &s, &o, &loop_barrier);
	if (rc >= 0)
		goto out;
	a.loop_barrier = loop_barrier;
	a.run = o.run;
	/* Ctrl-C: the child stops sampling after its chunk; report what it has */
	t32_catch_stop_signals();
	rc = t32_sampling_take(&a, &s, &t32_stop_asked, &out);
	if (rc)
		goto out;
	if (o.format == T32_FMT_TSV)
		t32_sampling_tsv(stdout, &a, &s, &out, NULL);
	else if (o.format == T32_FMT_JSON)
		print_json(&out.r.at, &out.r, &a, &s, loop_barrier, out.unit, &out.ck);
	else
		print_table(&out.r.at, &out.r, &a, &s, loop_barrier, out.unit, &out.ck);
	rc = t32_close_stdout();
	/* a move since the last run is said whatever this run's own verdict */
	if (!rc && !t32_stop_asked && out.ck.minutes >= 0 && out.ck.since.unstable)
		t32_warn("the samples moved since the run of %.0f minutes ago (TVD %.3f, p = %.2g): "
			 "this machine switches between ways interrupts land", out.ck.minutes,
			 out.ck.since.tvd, out.ck.since.p);
	if (!rc && t32_stop_asked) {
		rc = T32_EXIT_INTERRUPTED;
	} else if (!rc && t32_sampling_doubt(&out) == T32_SAMPLING_FEW) {
		t32_error("too few samples in the body to trust the shares '%llu' (want %d; "
			  "raise --seconds or lower --period)", (unsigned long long)out.r.at.body,
			  T32_SAMPLING_MIN_BODY);
		rc = T32_EXIT_UNTRUSTED;
	} else if (!rc && t32_sampling_doubt(&out) == T32_SAMPLING_UNSTABLE) {
		t32_error("the samples moved during the run '%llu samples' (its %u parts differ: "
			  "chi-square p = %.2g, largest part-to-rest TVD %.3f, %.3f beyond sampling "
			  "noise; flag unstable): the machine changed how interrupts land; sample "
			  "again before fitting", (unsigned long long)out.r.samples,
			  out.ck.within.parts, out.ck.within.p, out.ck.within.tvd, out.ck.within.excess);
		rc = T32_EXIT_UNTRUSTED;
	}
out:
	t32_sampling_free(&out);
	t32_spec_free(&s);
	return rc;
}
