/*
 * cmd-time.c - `t32 time`: one block against its empty twin and a calibration
 * chain, in core cycles (or ticks, ns) per instruction with a 95% interval, for a
 * person (table) or a program (tsv, json).
 */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t32/block.h"
#include "t32/cmd.h"
#include "t32/measure.h"

static const char time_usage[] =
	"t32 time [OPTIONS] BARRIER STORE COUNT|auto [N] INSN [[N] INSN]...";

static volatile int interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* v for JSON: a number, or null when it is not finite (JSON has no inf or nan). */
static const char *json_num(double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%.4f", v);
	else
		snprintf(buf, len, "null");
	return buf;
}

static void print_result(const struct t32_measurement *m, const struct t32_spec *s,
			 const struct t32_block_opts *o, const struct t32_measure_opts *mo,
			 int argc, char **argv)
{
	const char *u = t32_unit_names[mo->unit];
	char desc[4096], flags[64], ratio[32] = "-", jv[32], jlo[32], jhi[32];

	t32_spec_format(s, desc, sizeof(desc));
	t32_est_flags_str(m->flags, flags, sizeof(flags));
	if (m->drifted && strcmp(flags, "-") == 0)
		snprintf(flags, sizeof(flags), "drift");
	else if (m->drifted)
		strncat(flags, ",drift", sizeof(flags) - strlen(flags) - 1);
	switch (o->format) {
	case T32_FMT_TSV:
		/* "-" where no calibration ran (--unit ticks) */
		if (m->ratio > 0)
			snprintf(ratio, sizeof(ratio), "%.5f", m->ratio);
		t32_provenance(stdout, argc, argv);
		printf("# tsc: %.4f GHz, step %llu ticks\n", m->tsc_ghz, (unsigned long long)m->q);
		if (m->ratio > 0)
			printf("# calibration: %.5f +- %.5f core cycles per tick (chains of %llu and half as many add)\n",
			       m->ratio, m->ratio_hw, (unsigned long long)mo->cal_len);
		else
			printf("# calibration: none (the unit is ticks)\n");
		printf("# barrier: %s, store %c, cpu %d\n", s->barrier, s->store, o->run.cpu);
		printf("spec\tn\tunit\tper_insn\tci_lo\tci_hi\tmin_per_insn\truns\trounds\tseconds\t"
		       "block_est_ticks\tblock_min_ticks\tblock_median_ticks\tblock_mad_ticks\t"
		       "block_trimmed_ticks\tempty_est_ticks\tempty_min_ticks\tempty_median_ticks\t"
		       "tsc_step_ticks\tcycles_per_tick\tflags\n");
		printf("%s\t%llu\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%llu\t%u\t%.3f\t%.3f\t%llu\t%.1f\t%.1f\t"
		       "%.2f\t%.3f\t%llu\t%.1f\t%llu\t%s\t%s\n",
		       desc, (unsigned long long)m->insns, u, m->value, m->value - m->halfwidth,
		       m->value + m->halfwidth, m->min_value, (unsigned long long)m->runs,
		       m->rounds, m->seconds, m->block.value, (unsigned long long)m->sblock.min,
		       m->sblock.median, m->sblock.mad, m->sblock.trimmed, m->empty.value,
		       (unsigned long long)m->sempty.min, m->sempty.median,
		       (unsigned long long)m->q, ratio, flags);
		break;
	case T32_FMT_JSON:
		printf("{");
		t32_provenance_json(stdout, 0, NULL);
		printf(", \"spec\": ");
		t32_json_string(stdout, desc);
		printf(", \"n\": %llu, \"unit\": \"%s\", \"per_insn\": %s, \"ci\": [%s, %s], "
		       "\"min_per_insn\": %.4f, \"runs\": %llu, \"rounds\": %u, \"seconds\": %.3f, "
		       "\"block\": {\"est_ticks\": %.3f, \"min_ticks\": %llu, \"median_ticks\": %.1f, "
		       "\"mad_ticks\": %.1f, \"trimmed_ticks\": %.2f}, "
		       "\"empty\": {\"est_ticks\": %.3f, \"min_ticks\": %llu, \"median_ticks\": %.1f}, "
		       "\"tsc_ghz\": %.4f, \"tsc_step_ticks\": %llu, \"cycles_per_tick\": ",
		       (unsigned long long)m->insns, u, json_num(m->value, jv, sizeof(jv)),
		       json_num(m->value - m->halfwidth, jlo, sizeof(jlo)),
		       json_num(m->value + m->halfwidth, jhi, sizeof(jhi)), m->min_value,
		       (unsigned long long)m->runs,
		       m->rounds, m->seconds, m->block.value, (unsigned long long)m->sblock.min,
		       m->sblock.median, m->sblock.mad, m->sblock.trimmed, m->empty.value,
		       (unsigned long long)m->sempty.min, m->sempty.median, m->tsc_ghz,
		       (unsigned long long)m->q);
		/* no calibration ran (--unit ticks): the ratio does not exist */
		if (m->ratio > 0)
			printf("%.5f, \"cycles_per_tick_halfwidth\": %.5f", m->ratio, m->ratio_hw);
		else
			printf("null, \"cycles_per_tick_halfwidth\": null");
		printf(", \"flags\": \"%s\", \"untrusted\": ", flags);
		t32_json_string(stdout, m->untrusted);
		printf("}\n");
		break;
	default:
		printf("block        %s\n", desc);
		if (m->insns)
			printf("per insn     %.4f +- %.4f %s  (95%%; the study's (min - min) / n: %.3f)\n",
			       m->value, m->halfwidth, u, m->min_value);
		printf("runs         %llu of each block in %u rounds, %.2f s%s\n",
		       (unsigned long long)m->runs, m->rounds, m->seconds,
		       m->stopped_precise ? " (precision reached)" : "");
		printf("block        %.2f ticks  (min %llu, median %.1f, MAD %.1f, trimmed mean %.1f)\n",
		       m->block.value, (unsigned long long)m->sblock.min, m->sblock.median,
		       m->sblock.mad, m->sblock.trimmed);
		printf("empty        %.2f ticks  (min %llu, median %.1f: the barrier cost)\n",
		       m->empty.value, (unsigned long long)m->sempty.min, m->sempty.median);
		printf("clock        TSC %.4f GHz, step %llu ticks", m->tsc_ghz,
		       (unsigned long long)m->q);
		if (m->ratio > 0)
			printf("; %.4f +- %.4f core cycles per tick", m->ratio, m->ratio_hw);
		printf("\nflags        %s\n", flags);
		break;
	}
}

int cmd_time(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "precision", required_argument, NULL, 'p' },
		{ "budget", required_argument, NULL, 'b' },
		{ "unit", required_argument, NULL, 'u' },
		{ "raw", required_argument, NULL, 'r' },
		{ "base", required_argument, NULL, 'B' },
		T32_BLOCK_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct t32_block_opts o;
	struct t32_measure_opts mo;
	struct t32_measurement m;
	struct t32_spec s = { 0 };
	struct sigaction sa = { .sa_handler = on_interrupt };
	char err[512];
	int opt, rc, budget_set = 0, use_base = 0;
	uint64_t count, base_n = 0;
	struct t32_spec base = { 0 };

	t32_block_opts_init(&o);
	o.cmd = "time";
	t32_measure_opts_init(&mo);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			printf("usage: %s\n\n"
			       "COUNT is the runs of each block; with --precision, the most. `auto`\n"
			       "runs until +-0.01 per instruction (or --precision) within --budget.\n\n"
			       "  --precision P    stop once the 95%% interval is within +-P unit per insn\n"
			       "  --budget S       measure for S seconds at most (default 10; auto: 2)\n"
			       "  --unit U         cycles (default, calibrated), ticks or ns\n"
			       "  --raw FILE       write every delta to FILE (tsv)\n"
			       "  --base N         compare with the same block whose last item repeats\n"
			       "                   N times, instead of the empty block (n+1 against n)\n",
			       time_usage);
			t32_block_opts_help(stdout, &o);
			return t32_close_stdout();
		case 'p':
			if (t32_parse_real(optarg, DBL_MIN, 1e9, &mo.precision)) {
				t32_error("bad precision '%s' (a positive number)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		case 'b':
			if (t32_parse_real(optarg, DBL_MIN, 1e6, &mo.budget)) {
				t32_error("bad budget '%s' (seconds, up to 1000000)", optarg);
				return T32_EXIT_USAGE;
			}
			budget_set = 1;
			continue;
		case 'u':
			if (t32_parse_unit(optarg, &mo.unit)) {
				t32_error("unknown unit '%s' (cycles, ticks, ns)", optarg);
				return T32_EXIT_USAGE;
			}
			continue;
		case 'r':
			mo.raw_path = optarg;
			continue;
		case 'B':
			if (t32_parse_u64(optarg, 0, UINT64_C(100000000), &base_n)) {
				t32_error("bad base repeat count '%s'", optarg);
				return T32_EXIT_USAGE;
			}
			use_base = 1;
			continue;
		}
		rc = t32_block_option(opt, optarg, &o, &s);
		if (rc < 0)
			return T32_EXIT_USAGE;
		if (rc > 0)
			return t32_usage(time_usage);
	}
	if (argc - optind < 4)
		return t32_usage(time_usage);
	if (t32_block_parse_head(&s, argv[optind], argv[optind + 1]))
		return T32_EXIT_USAGE;
	if (strcmp(argv[optind + 2], "auto") == 0) {
		count = 10000000;
		if (mo.precision <= 0)
			mo.precision = 0.01;
		if (!budget_set)
			mo.budget = 2;
	} else if (t32_block_parse_count(argv[optind + 2], &count)) {
		return T32_EXIT_USAGE;
	}
	mo.max_runs = count;
	mo.min_runs = count < 1000 ? count : 1000;
	if (t32_spec_parse_body(&s, argc - optind - 3, argv + optind + 3, err, sizeof(err))) {
		t32_error("%s", err);
		return T32_EXIT_USAGE;
	}
	if (use_base) {
		/* the same spec, its last item repeated base_n times */
		base = s;
		base.items = NULL;
		base.nitems = 0;
		for (size_t i = 0; i < s.nitems; i++)
			if (t32_spec_add_item(&base, i + 1 == s.nitems ? base_n : s.items[i].reps,
					      s.items[i].text)) {
				t32_error("out of memory '%s'", "base");
				return T32_EXIT_ERROR;
			}
		if (t32_spec_insns(&base) >= t32_spec_insns(&s)) {
			t32_error("the base must have fewer instructions than the block '%llu'",
				  (unsigned long long)base_n);
			return T32_EXIT_USAGE;
		}
		mo.base = &base;
	}
	if (o.run.cpu < 0)
		o.run.cpu = t32_default_cpu();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	rc = t32_measure(&s, &o, &mo, &interrupted, &m);
	if (!rc && m.rounds) {
		print_result(&m, &s, &o, &mo, argc + 1, argv - 1);
		if (interrupted) {
			rc = T32_EXIT_INTERRUPTED;
		} else if (m.untrusted[0]) {
			char desc[4096];

			t32_spec_format(&s, desc, sizeof(desc));
			t32_error("result not trustworthy '%s' (%s)", desc, m.untrusted);
			rc = T32_EXIT_UNTRUSTED;
		}
	}
	t32_spec_free(&s);
	t32_spec_free(&base);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}
