/*
 * cmd-time.c - `t32 time`: one block against its half twin, its empty block and a
 * calibration chain, in core cycles (or ticks, ns) per instruction with a 95%
 * interval, for a person (table) or a program (tsv, json); every reading can be
 * recorded and the result recomputed from the recording.
 */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/core/measure.h"
#include "t32/cmd/options.h"
#include "t32/core/record.h"

static const char time_usage[] =
	"t32 time [OPTIONS] BARRIER STORE COUNT|auto [N] INSN [[N] INSN]...\n"
	"       t32 time --replay FILE [--format F]";

/* A JSON object's numbers: null where a value is not finite, and why, kept for the end. */
struct json_nums {
	char why[512];
	size_t used;
};

/* v as a JSON number, or null (JSON has no inf or nan) with `field: reason` noted. */
static const char *json_num(struct json_nums *j, const char *field, const char *reason, double v,
			    char *buf, size_t len)
{
	if (isfinite(v)) {
		snprintf(buf, len, "%.4f", v);
		return buf;
	}
	if (j->used < sizeof(j->why))
		j->used += (size_t)snprintf(j->why + j->used, sizeof(j->why) - j->used, "%s\"%s\": \"%s\"",
					    j->used ? ", " : "", field, reason);
	snprintf(buf, len, "null");
	return buf;
}

/* What the value estimates, for people: "the marginal cost: 500 against 250 copies". */
static void estimand_text(const struct t32_measurement *m, char *buf, size_t len)
{
	if (m->estimand == T32_EST_SLOPE)
		snprintf(buf, len, "the marginal cost: %llu instructions against %llu",
			 (unsigned long long)m->insns, (unsigned long long)m->twin_insns);
	else
		snprintf(buf, len, "block minus empty over n: fixed cost included");
}

static void print_tsv(const struct t32_measurement *m, const char *desc, const char *flags,
		      const struct t32_spec *s, const struct t32_block_opts *o,
		      const struct t32_measure_opts *mo, int argc, char **argv)
{
	char ratio[32] = "-";

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
	printf("spec\tn\tunit\tper_insn\tci_lo\tci_hi\testimate\ttwin_n\twhole_per_insn\t"
	       "whole_ci_lo\twhole_ci_hi\tfixed\tfixed_ci_lo\tfixed_ci_hi\tmin_per_insn\truns\t"
	       "rounds\tprocesses\tset_aside\tseconds\t"
	       "block_est_ticks\tblock_min_ticks\tblock_median_ticks\tblock_mad_ticks\t"
	       "block_trimmed_ticks\tempty_est_ticks\tempty_min_ticks\tempty_median_ticks\t"
	       "twin_est_ticks\ttsc_step_ticks\tcycles_per_tick\tflags\n");
	printf("%s\t%llu\t%s\t%.4f\t%.4f\t%.4f\t%s\t%llu\t%.4f\t%.4f\t%.4f\t%.3f\t%.3f\t%.3f\t%.4f\t"
	       "%llu\t%u\t%u\t%u\t%.3f\t%.3f\t%llu\t%.1f\t%.1f\t%.2f\t%.3f\t%llu\t%.1f\t%.3f\t%llu\t%s\t%s\n",
	       desc, (unsigned long long)m->insns, t32_unit_names[mo->unit], m->value,
	       m->value - m->halfwidth, m->value + m->halfwidth, t32_estimand_names[m->estimand],
	       (unsigned long long)m->twin_insns, m->whole_value, m->whole_value - m->whole_halfwidth,
	       m->whole_value + m->whole_halfwidth, m->fixed, m->fixed - m->fixed_halfwidth,
	       m->fixed + m->fixed_halfwidth, m->min_value, (unsigned long long)m->runs, m->rounds,
	       m->segments, m->set_aside, m->seconds, m->block.value,
	       (unsigned long long)m->sblock.min, m->sblock.median, m->sblock.mad, m->sblock.trimmed,
	       m->empty.value, (unsigned long long)m->sempty.min, m->sempty.median,
	       m->twin_insns ? m->twin.value : NAN, (unsigned long long)m->q, ratio, flags);
}

static void print_json(const struct t32_measurement *m, const char *desc, const char *flags,
		       const struct t32_measure_opts *mo)
{
	struct json_nums j = { "", 0 };
	char b[16][32];
	const char *one = "one round only: no spread to tell it from";

	printf("{");
	t32_provenance_json(stdout, 0, NULL);
	printf(", \"spec\": ");
	t32_json_string(stdout, desc);
	printf(", \"n\": %llu, \"unit\": \"%s\", \"per_insn\": %s, \"ci\": [%s, %s], "
	       "\"estimate\": \"%s\", \"twin_n\": %llu, \"whole_per_insn\": %s, \"whole_ci\": [%s, %s], "
	       "\"fixed\": %s, \"fixed_ci\": [%s, %s], \"min_per_insn\": %s, ",
	       (unsigned long long)m->insns, t32_unit_names[mo->unit],
	       json_num(&j, "per_insn", "not a finite number", m->value, b[0], 32),
	       json_num(&j, "ci", one, m->value - m->halfwidth, b[1], 32),
	       json_num(&j, "ci", one, m->value + m->halfwidth, b[2], 32),
	       t32_estimand_names[m->estimand], (unsigned long long)m->twin_insns,
	       json_num(&j, "whole_per_insn", "not a finite number", m->whole_value, b[3], 32),
	       json_num(&j, "whole_ci", one, m->whole_value - m->whole_halfwidth, b[4], 32),
	       json_num(&j, "whole_ci", one, m->whole_value + m->whole_halfwidth, b[5], 32),
	       json_num(&j, "fixed", "not a finite number", m->fixed, b[6], 32),
	       json_num(&j, "fixed_ci", one, m->fixed - m->fixed_halfwidth, b[7], 32),
	       json_num(&j, "fixed_ci", one, m->fixed + m->fixed_halfwidth, b[8], 32),
	       json_num(&j, "min_per_insn", "not a finite number", m->min_value, b[9], 32));
	printf("\"runs\": %llu, \"rounds\": %u, \"processes\": %u, \"set_aside\": %u, \"seconds\": %.3f, "
	       "\"block\": {\"est_ticks\": %.3f, \"min_ticks\": %llu, \"median_ticks\": %.1f, "
	       "\"mad_ticks\": %.1f, \"trimmed_ticks\": %.2f}, "
	       "\"empty\": {\"est_ticks\": %.3f, \"min_ticks\": %llu, \"median_ticks\": %.1f}, ",
	       (unsigned long long)m->runs, m->rounds, m->segments, m->set_aside, m->seconds,
	       m->block.value, (unsigned long long)m->sblock.min, m->sblock.median, m->sblock.mad,
	       m->sblock.trimmed, m->empty.value, (unsigned long long)m->sempty.min, m->sempty.median);
	if (m->twin_insns)
		printf("\"twin\": {\"est_ticks\": %.3f, \"n\": %llu}, ", m->twin.value,
		       (unsigned long long)m->twin_insns);
	else
		printf("\"twin\": null, ");
	printf("\"tsc_ghz\": %.4f, \"tsc_step_ticks\": %llu, \"steal_share\": %.4f, ", m->tsc_ghz,
	       (unsigned long long)m->q, m->steal_share);
	/* no calibration ran (--unit ticks): the ratio does not exist */
	if (m->ratio > 0)
		printf("\"cycles_per_tick\": %s, \"cycles_per_tick_halfwidth\": %s",
		       json_num(&j, "cycles_per_tick", "not a finite number", m->ratio, b[10], 32),
		       json_num(&j, "cycles_per_tick_halfwidth", one, m->ratio_hw, b[11], 32));
	else
		printf("\"cycles_per_tick\": null, \"cycles_per_tick_halfwidth\": null");
	/* the sensors: their whole cycles and clock over the adds' (null where none ran) */
	printf(", \"sensors\": ");
	if (m->sense_lat[0] || m->sense_lat[1]) {
		static const char *const name[T32_SENSORS] = { "imul", "vector" };

		printf("{");
		for (int i = 0; i < T32_SENSORS; i++) {
			printf("%s\"%s\": ", i ? ", " : "", name[i]);
			if (m->sense_lat[i])
				printf("{\"cycles\": %u, \"clock_over_adds\": %.5f, \"halfwidth\": %.5f}",
				       m->sense_lat[i], m->sense[i], m->sense_hw[i]);
			else
				printf("null");
		}
		printf(", \"contention\": %.5f}", m->contention);
	} else
		printf("null");
	printf(", \"flags\": \"%s\", \"untrusted\": ", flags);
	if (m->untrusted[0])
		t32_json_string(stdout, m->untrusted);
	else
		printf("null");
	if (m->ratio <= 0 && j.used < sizeof(j.why))
		j.used += (size_t)snprintf(j.why + j.used, sizeof(j.why) - j.used,
					   "%s\"cycles_per_tick\": \"the unit is %s: no calibration ran\"",
					   j.used ? ", " : "", t32_unit_names[mo->unit]);
	printf(", \"null_because\": {%s}}\n", j.why);
}

static void print_table(const struct t32_measurement *m, const char *desc, const char *flags,
			const struct t32_measure_opts *mo)
{
	const char *u = t32_unit_names[mo->unit];
	char what[160];

	estimand_text(m, what, sizeof(what));
	printf("block        %s\n", desc);
	if (m->insns)
		printf("per insn     %.4f +- %.4f %s  (95%%; %s)\n", m->value, m->halfwidth, u, what);
	if (m->insns && m->estimand == T32_EST_SLOPE)
		printf("whole block  %.4f +- %.4f %s per insn over the empty block, %.2f +- %.2f %s of it "
		       "fixed (fill and drain)\n", m->whole_value, m->whole_halfwidth, u, m->fixed,
		       m->fixed_halfwidth, u);
	if (m->insns)
		printf("the study's  (min - min) / n: %.3f %s\n", m->min_value, u);
	printf("runs         %llu of each block in %u rounds, %u measuring processes%s, %.2f s%s\n",
	       (unsigned long long)m->runs, m->rounds, m->segments,
	       m->set_aside ? " (more set aside: other work ran beside them)" : "", m->seconds,
	       m->stopped_precise ? " (precision reached)" : "");
	printf("block        %.2f ticks  (min %llu, median %.1f, MAD %.1f, trimmed mean %.1f)\n",
	       m->block.value, (unsigned long long)m->sblock.min, m->sblock.median, m->sblock.mad,
	       m->sblock.trimmed);
	if (m->twin_insns)
		printf("twin         %.2f ticks  (%llu instructions)\n", m->twin.value,
		       (unsigned long long)m->twin_insns);
	printf("empty        %.2f ticks  (min %llu, median %.1f: the barrier cost)\n",
	       m->empty.value, (unsigned long long)m->sempty.min, m->sempty.median);
	printf("clock        TSC %.4f GHz, step %llu ticks", m->tsc_ghz, (unsigned long long)m->q);
	if (m->ratio > 0)
		printf("; %.4f +- %.4f core cycles per tick", m->ratio, m->ratio_hw);
	if (m->sense_lat[0] && m->sense_lat[1])
		printf("\nsensors      imul %u cycles, clock %.4f +- %.4f of the adds'; vector %u, "
		       "%.4f +- %.4f%s", m->sense_lat[0], m->sense[0], m->sense_hw[0], m->sense_lat[1],
		       m->sense[1], m->sense_hw[1], m->contended ? " (the core was shared)" : "");
	printf("\nflags        %s\n", flags);
}

static void print_result(const struct t32_measurement *m, const struct t32_spec *s,
			 const struct t32_block_opts *o, const struct t32_measure_opts *mo,
			 int argc, char **argv)
{
	char desc[4096], flags[128];

	t32_spec_format(s, desc, sizeof(desc));
	t32_measure_flags(m, flags, sizeof(flags));
	switch (o->format) {
	case T32_FMT_TSV:
		print_tsv(m, desc, flags, s, o, mo, argc, argv);
		break;
	case T32_FMT_JSON:
		print_json(m, desc, flags, mo);
		break;
	default:
		print_table(m, desc, flags, mo);
		break;
	}
}

/* --replay FILE beside other options (t32_replay_or_run takes it alone). */
static int opt_replay(const struct t32_option *row, const char *arg)
{
	(void)row;
	t32_error("--replay takes only --format beside it '%s'", arg);
	return -1;
}

/* What time's own options set beyond the measure options. */
struct time_args {
	double budget;		/* < 0: not given */
	uint64_t base_n;	/* UINT64_MAX: no --base */
	int whole;
	const char *record;
	int optind;
};

/* The options into o, s, mo and a; -1 to go on, else an exit code. */
static int time_options(int argc, char **argv, struct t32_block_opts *o, struct t32_spec *s,
			struct t32_measure_opts *mo, struct time_args *a)
{
	struct t32_block_optset shared;

	t32_block_optset_init(&shared, o, s);
	{
		const struct t32_option opts[] = {
			T32_OPT_IN_ORDER,
			T32_OPT_REAL("precision", "P", &mo->precision, DBL_MIN, 1e9, "precision", "stop once the 95% interval is within +-P unit per insn"),
			T32_OPT_REAL("budget", "S", &a->budget, DBL_MIN, 1e6, "budget", "measure for S seconds at most (default 10; auto: 2)"),
			T32_OPT_FN("unit", "U", t32_opt_unit, &mo->unit, "cycles (default, calibrated), ticks or ns"),
			T32_OPT_STRING("raw", 0, "FILE", &mo->raw_path, "write every delta to FILE (tsv)"),
			T32_OPT_U64("base", "N", &a->base_n, 0, 100000000, "base repeat count", "compare with the same block whose last item repeats\n" "N times, instead of the half twin (n+1 against n)"),
			T32_OPT_FLAG("whole", 0, &a->whole, "the value is block minus empty over n (the study's\n" "quantity, fixed cost included), with no twin"),
			T32_OPT_STRING("record", 0, "FILE", &a->record, "keep every reading the result comes from in FILE"),
			T32_OPT_FN("replay", "FILE", opt_replay, NULL, "recompute a recorded result from FILE, offline"),
			T32_OPT_FLAG("ignore-busy", 0, &mo->ignore_busy, "count readings taken while other CPUs were busy (for\n" "machines whose other CPUs share no core with it)"),
			T32_OPT_SET(shared.rows),
			T32_OPT_END
		};

		return t32_options_parse("time", time_usage,
					 "COUNT is the runs of each block; with --precision, the most. `auto`\n"
					 "runs until +-0.01 per instruction (or --precision) within --budget.\n"
					 "The cost per instruction is the marginal cost: the block against its\n"
					 "twin, whose last item repeats half as often, so the pipeline's fill and\n"
					 "drain cancel; block minus empty over n stays beside it (`whole`).\n\n",
					 NULL, opts, argc, argv, &a->optind);
	}
}

/*
 * The command, measuring or replaying (rec, with format the replay's own --format
 * or NULL): its options, the block from the command line, the measurement, the
 * result printed.
 */
static int time_main(int argc, char **argv, struct t32_rec *rec, const char *format)
{
	struct t32_block_opts o;
	struct t32_measure_opts mo;
	struct t32_measurement m;
	struct t32_spec s = { 0 };
	struct time_args a = { .budget = -1, .base_n = UINT64_MAX };
	char err[512];
	const char *record;
	int rc, budget_set, use_base;
	uint64_t count, base_n;
	struct t32_spec base = { 0 };

	t32_block_opts_init(&o);
	o.cmd = "time";
	t32_measure_opts_init(&mo);
	rc = time_options(argc, argv, &o, &s, &mo, &a);
	if (rc >= 0)
		return rc;
	optind = a.optind;
	mo.slope = !a.whole;
	budget_set = a.budget > 0;
	if (budget_set)
		mo.budget = a.budget;
	use_base = a.base_n != UINT64_MAX;
	base_n = a.base_n;
	record = a.record;
	if (argc - optind < 4)
		return t32_usage(time_usage);
	if (format && t32_block_option(0x105, format, &o, &s))
		return T32_EXIT_USAGE;
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
	if (record && !(rec = t32_rec_create(record, argc, argv)))
		return T32_EXIT_ERROR;
	mo.rec = rec;
	t32_catch_stop_signals();
	rc = t32_measure(&s, &o, &mo, &t32_stop_asked, &m);
	if (!rc && m.rounds) {
		print_result(&m, &s, &o, &mo, argc + 1, argv - 1);
		if (t32_stop_asked) {
			rc = T32_EXIT_INTERRUPTED;
		} else if (m.untrusted[0]) {
			char desc[4096];

			t32_spec_format(&s, desc, sizeof(desc));
			t32_error("result not trustworthy '%s' (%s)", desc, m.untrusted);
			rc = T32_EXIT_UNTRUSTED;
		}
	}
	/* a recording keeps what was measured, even when the result is not trusted */
	if (record) {
		int wrc = t32_rec_close(rec, !rc || rc == T32_EXIT_UNTRUSTED || rc == T32_EXIT_INTERRUPTED);

		if (wrc && !rc)
			rc = wrc;
	}
	t32_spec_free(&s);
	t32_spec_free(&base);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}

int cmd_time(int argc, char **argv)
{
	return t32_replay_or_run(argc, argv, time_usage, time_main);
}
