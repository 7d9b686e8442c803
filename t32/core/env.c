/*
 * env.c - what this machine offers and costs (env.h): the CPU and the
 * micro-architecture its CPUID names (on a hybrid part: the type of the pinned
 * CPU's core, and which CPUs are P- and E-cores), the TSC (frequency, step),
 * the core/TSC ratio, each barrier's cost, the pinned CPU and its SMT sibling,
 * perf_event, rdpmc and precise sampling; gathered for `t32 env` and the head of
 * the study's report, and written as JSON.
 */
#include "t32/core/env.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include "t32/core/block.h"
#include "t32/core/measure.h"

static long perf_open(struct perf_event_attr *a)
{
	return syscall(SYS_perf_event_open, a, 0, -1, -1, 0);
}

void t32_perf_attr_user(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* Can this process open a perf event of this type and config? 1 yes, 0 no (err says why). */
static int probe_perf(uint32_t type, uint64_t config, int precise, char *err, size_t len)
{
	struct perf_event_attr a;
	long fd;

	t32_perf_attr_user(&a, type, config);
	if (precise) {
		a.precise_ip = 2;
		a.sample_period = 100003;
		a.sample_type = PERF_SAMPLE_IP;
	}
	fd = perf_open(&a);
	if (fd < 0) {
		snprintf(err, len, "%s", strerror(errno));
		return 0;
	}
	close((int)fd);
	return 1;
}

static int try_rdpmc(void *code, void *arg)
{
	(void)code;
	(void)arg;
	return (int)(__rdpmc(0) & 0);
}

static int read_int_file(const char *path, int *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Measure the empty block of a barrier kind, in ticks. */
static int barrier_cost(const char *letters, uint64_t runs, const struct t32_block_opts *bo,
			struct t32_barrier_cost *c, double ratio)
{
	struct t32_spec s = { 0 };
	struct t32_session ss;
	const struct t32_spec *specs[1] = { &s };
	uint64_t *d = malloc(runs * sizeof(uint64_t));
	struct t32_estimate e;
	char err[128];
	int rc;

	c->letters = letters;
	if (!d)
		return -1;
	t32_spec_set_barrier(&s, letters, err, sizeof(err));
	s.store = 'm';
	rc = t32_session_open(&ss, specs, 1, bo);
	if (!rc)
		rc = t32_session_run(&ss, 0, runs, d);
	t32_session_close(&ss);
	if (!rc && !t32_estimate(d, runs, t32_machine_tsc_step(NULL), &e)) {
		c->ticks = e.value;
		c->cycles = e.value * ratio;
		c->ok = 1;
	}
	free(d);
	return rc;
}

void t32_env_gather(struct t32_env *v, const struct t32_block_opts *bo)
{
	unsigned r[4];
	char path[128];
	FILE *f;
	struct t32_run_opts ro = bo->run;
	struct t32_fault fault;
	struct stat st;
	static const char *const kinds[] = { "n", "l", "m", "x", "mx" };

	memset(v, 0, sizeof(*v));
	t32_cpu_identify_on(&v->cpu, bo->run.cpu);
	v->hybrid = t32_cpu_type_lists(v->p_cores, v->e_cores, sizeof(v->p_cores)) == 0;
	v->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	t32_uarch_choose(NULL, v->cpu.vendor, v->cpu.family, v->cpu.model, v->cpu.core_type,
			 &v->uarch);
	t32_cpuid(-1, 0x80000000, 0, r);
	if (r[0] >= 0x80000007) {
		t32_cpuid(-1, 0x80000007, 0, r);
		v->invariant_tsc = (r[3] >> 8) & 1;
	}
	v->pinned = bo->run.cpu;
	v->q = t32_machine_tsc_step(&v->q_share);

	/* the clock: calibration chain through the measuring engine */
	{
		struct t32_spec s = { 0 };
		struct t32_measure_opts mo;
		struct t32_measurement m;
		char err[64];

		t32_spec_set_barrier(&s, "l", err, sizeof(err));
		s.store = 'm';
		t32_spec_add_item(&s, 1000, "add eax, 1");
		t32_measure_opts_init(&mo);
		mo.precision = 0.002;
		mo.budget = 1;
		mo.max_runs = 2000000;
		if (t32_measure(&s, bo, &mo, NULL, &m) == 0) {
			v->tsc_ghz = m.tsc_ghz;
			v->ratio = m.ratio;
			v->ratio_hw = m.ratio_hw;
			v->core_ghz = m.ratio * m.tsc_ghz;
		}
		t32_spec_free(&s);
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		barrier_cost(kinds[i], strchr(kinds[i], 'x') ? 2000 : 50000, bo, &v->barrier[i],
			     v->ratio);

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 v->pinned);
	f = fopen(path, "r");
	if (f) {
		if (fgets(v->sibling, sizeof(v->sibling), f))
			v->sibling[strcspn(v->sibling, "\n")] = 0;
		fclose(f);
	}
	if (read_int_file("/proc/sys/kernel/perf_event_paranoid", &v->paranoid))
		v->paranoid = -100;
	v->perf_sw = probe_perf(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, v->perf_sw_err,
				sizeof(v->perf_sw_err));
	v->perf_hw = probe_perf(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, v->perf_hw_err,
				sizeof(v->perf_hw_err));
	ro.timeout = 2;
	v->rdpmc = t32_isolated(NULL, NULL, try_rdpmc, NULL, &ro, &fault) == 0;
	v->ibs = stat("/sys/bus/event_source/devices/ibs_op", &st) == 0;
	{
		char err[64];

		v->pebs = strcmp(v->cpu.vendor, "GenuineIntel") == 0 && v->perf_hw &&
			  probe_perf(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, err, sizeof(err));
	}
}

/* A number, or null where the quantity was not measured. */
static void json_num(FILE *f, const char *fmt, double v, int have)
{
	if (have && isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("null", f);
}

void t32_env_json(FILE *f, const struct t32_env *v)
{
	int cal = v->ratio > 0;

	fprintf(f, "{");
	t32_provenance_json(f, 0, NULL);
	fprintf(f, ",\n \"cpu\": {\"brand\": ");
	t32_json_string(f, v->cpu.brand);
	fprintf(f, ", \"vendor\": ");
	t32_json_string(f, v->cpu.vendor);
	fprintf(f, ", \"family\": %u, \"model\": %u, \"stepping\": %u, \"hypervisor\": %s, "
		   "\"hypervisor_vendor\": ", v->cpu.family, v->cpu.model, v->cpu.stepping,
		v->cpu.hypervisor ? "true" : "false");
	if (v->cpu.hypervisor)
		t32_json_string(f, v->cpu.hv_vendor);
	else
		fputs("null", f);
	fprintf(f, ", \"online\": %ld, \"hybrid\": %s, \"core_type\": ", v->cpus_online,
		v->hybrid ? "true" : "false");
	if (v->hybrid)
		t32_json_string(f, v->cpu.core_text);
	else
		fputs("null", f);
	fprintf(f, ", \"p_cores\": ");
	if (v->hybrid)
		t32_json_string(f, v->p_cores);
	else
		fputs("null", f);
	fprintf(f, ", \"e_cores\": ");
	if (v->hybrid)
		t32_json_string(f, v->e_cores);
	else
		fputs("null", f);
	fprintf(f, "},\n \"uarch\": ");
	t32_uarch_choice_json(f, &v->uarch);
	fprintf(f, ",\n \"tsc\": {\"ghz\": %.5f, \"step_ticks\": %llu, \"step_share\": %.4f, "
		   "\"invariant\": %s},\n", v->tsc_ghz, (unsigned long long)v->q, v->q_share,
		v->invariant_tsc ? "true" : "false");
	/* the calibration: core cycles per tick from chains of adds, its 95% half-width */
	fprintf(f, " \"cycles_per_tick\": ");
	json_num(f, "%.5f", v->ratio, cal);
	fprintf(f, ", \"cycles_per_tick_halfwidth\": ");
	json_num(f, "%.5f", v->ratio_hw, cal);
	fprintf(f, ", \"core_ghz\": ");
	json_num(f, "%.4f", v->core_ghz, cal);
	fprintf(f, ",\n \"barriers\": {");
	for (int i = 0, first = 1; i < 5; i++)
		if (v->barrier[i].ok) {
			fprintf(f, "%s\"%s\": {\"ticks\": %.2f, \"cycles\": ", first ? "" : ", ",
				v->barrier[i].letters, v->barrier[i].ticks);
			json_num(f, "%.2f", v->barrier[i].cycles, cal);
			fprintf(f, "}");
			first = 0;
		}
	fprintf(f, "},\n \"cpuid_traps\": %s,\n",
		v->barrier[3].ok && v->barrier[3].ticks > 2000 && v->cpu.hypervisor ? "true" : "false");
	fprintf(f, " \"pinned_cpu\": %d, \"smt_siblings\": ", v->pinned);
	t32_json_string(f, v->sibling);
	fprintf(f, ",\n \"perf_event\": {\"paranoid\": %d, \"task_clock\": %s, \"hw_cycles\": %s},\n",
		v->paranoid, v->perf_sw ? "true" : "false", v->perf_hw ? "true" : "false");
	fprintf(f, " \"rdpmc\": %s, \"ibs\": %s, \"pebs\": %s}\n", v->rdpmc ? "true" : "false",
		v->ibs ? "true" : "false", v->pebs ? "true" : "false");
}
