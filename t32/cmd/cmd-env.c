/*
 * cmd-env.c - `t32 env`: what this machine offers and what it costs (gathered
 * by env.c), as a table for people or JSON.
 */
#include <stdio.h>
#include <string.h>

#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/core/env.h"
#include "t32/core/measure.h"
#include "t32/cmd/options.h"

static const char env_usage[] = "t32 env [--cpu N] [--timeout S] [--format=table|json]";

/* A yes-or-no fact as the table says it. */
static const char *yes(int v)
{
	return v ? "yes" : "no";
}

/* The facts for people, one a line. */
static void print_table(const struct t32_env *v)
{
	char text[512];

	printf("cpu            %s\n", v->cpu.brand);
	printf("               %s family %#x model %#x stepping %u\n", v->cpu.vendor, v->cpu.family,
	       v->cpu.model, v->cpu.stepping);
	if (v->hybrid)
		printf("core type      %s (cpu %d), a hybrid part: P-cores %s, E-cores %s\n",
		       v->cpu.core_text, v->pinned, v->p_cores[0] ? v->p_cores : "none allowed",
		       v->e_cores[0] ? v->e_cores : "none allowed");
	else
		printf("core type      not a hybrid part: every core alike\n");
	t32_uarch_choice_text(&v->uarch, v->uarch.data, text, sizeof(text));
	printf("uarch          %s\n", text);
	printf("hypervisor     %s%s%s\n", yes(v->cpu.hypervisor), v->cpu.hypervisor ? ", " : "",
	       v->cpu.hv_vendor);
	printf("tsc            %.4f GHz, step %llu ticks (%.1f%% of raw differences)%s%s\n",
	       v->tsc_ghz, (unsigned long long)v->q, 100 * v->q_share,
	       v->invariant_tsc ? ", invariant" : ", NOT invariant",
	       v->q > 1 ? " (single runs cannot resolve below one step)" : "");
	printf("core/tsc       %.4f +- %.4f core cycles per tick (core about %.2f GHz; one step = %.1f cycles)\n",
	       v->ratio, v->ratio_hw, v->core_ghz, v->ratio * (double)v->q);
	printf("barriers       empty block, sub-quantum estimate:\n");
	for (int i = 0; i < 5; i++)
		if (v->barrier[i].ok)
			printf("  %-4s         %10.1f ticks  %10.1f cycles\n", v->barrier[i].letters,
			       v->barrier[i].ticks, v->barrier[i].cycles);
	if (v->barrier[3].ok && v->barrier[3].ticks > 2000)
		printf("  warning: cpuid costs %.0f ticks here%s; barrier l is the cheap serialising choice\n",
		       v->barrier[3].ticks, v->cpu.hypervisor ? " (it traps to the hypervisor)" : "");
	printf("pinned cpu     %d (SMT siblings: %s)\n", v->pinned, v->sibling[0] ? v->sibling : "unknown");
	printf("perf_event     paranoid %d; task-clock sampling %s", v->paranoid, yes(v->perf_sw));
	if (!v->perf_sw)
		printf(" (%s)", v->perf_sw_err);
	printf("; hardware cycles %s", yes(v->perf_hw));
	if (!v->perf_hw)
		printf(" (%s)", v->perf_hw_err);
	printf("\n");
	printf("rdpmc          %s\n", yes(v->rdpmc));
	printf("precise        IBS %s, PEBS %s\n", yes(v->ibs), yes(v->pebs));
}


int cmd_env(int argc, char **argv)
{
	struct t32_block_opts o;
	struct t32_block_optset shared;
	struct t32_env v;
	int rc, first;

	t32_block_optset_for(&shared, &o, "env", T32_OPT_CPU | T32_OPT_TIMEOUT | T32_OPT_FORMAT,
			     T32_FMT_BIT(T32_FMT_TABLE) | T32_FMT_BIT(T32_FMT_JSON));
	rc = t32_options_parse("env", env_usage,
			       "What this machine offers and costs: the CPU and its core (on a hybrid "
			       "part, the\npinned CPU's core type and which CPUs are P- and E-cores), "
			       "the TSC (rate, step),\nthe core/TSC ratio, each barrier's cost, the "
			       "pinned CPU, perf_event, rdpmc\nand precise sampling.\n\n", NULL,
			       shared.rows, argc, argv, &first);
	if (rc >= 0)
		return rc;
	optind = first;
	if (optind != argc)
		return t32_usage(env_usage);
	if (o.run.cpu < 0)
		o.run.cpu = t32_default_cpu();
	t32_env_gather(&v, &o);
	if (o.format == T32_FMT_JSON)
		t32_env_json(stdout, &v);
	else
		print_table(&v);
	return t32_close_stdout();
}
