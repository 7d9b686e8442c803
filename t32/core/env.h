/*
 * env.h - what this machine offers and costs (`t32 env`, and the head of the
 * report): the CPU and its core, the TSC, the core/TSC ratio, each barrier's
 * cost, the pinned CPU, perf_event, rdpmc and precise sampling.
 */
#ifndef T32_ENV_H
#define T32_ENV_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/uarch.h"
#include "t32/core/block.h"

struct t32_barrier_cost {
	const char *letters;
	double ticks;		/* sub-quantum estimate of the empty block */
	double cycles;
	int ok;
};

struct t32_env {
	struct t32_cpu cpu;		/* the pinned CPU's, its core type included */
	int hybrid;			/* 1: a hybrid part (CPUID leaf 7 EDX bit 15) */
	char p_cores[128], e_cores[128];	/* the allowed CPUs of each type ("0-15"), hybrid only */
	long cpus_online;
	struct t32_uarch_choice uarch;	/* the core CPUID names, the data model and correlate use */
	int invariant_tsc;
	double tsc_ghz;
	uint64_t q;		/* ticks: the TSC's step, from raw readings */
	double q_share;		/* share of the readings' differences it explains */
	double ratio, ratio_hw;	/* core cycles per tick and its 95% half-width; 0: not measured */
	double core_ghz;
	struct t32_barrier_cost barrier[5];	/* n, l, m, x, mx */
	int pinned;
	char sibling[64];
	int paranoid;
	int perf_sw;		/* task-clock sampling opens */
	char perf_sw_err[64];
	int perf_hw;		/* hardware cycles count */
	char perf_hw_err[64];
	int rdpmc;
	int ibs;		/* AMD IBS op PMU present */
	int pebs;		/* precise cycles opened */
};

/* Probe and measure (a few seconds, most of it the cpuid barriers). */
void t32_env_gather(struct t32_env *v, const struct t32_block_opts *bo);
/* The facts as one JSON object with provenance; null where a quantity was not measured. */
void t32_env_json(FILE *f, const struct t32_env *v);

struct perf_event_attr;
/*
 * a: a perf event of type and config on user space only (what perf_event_paranoid
 * 2 allows), opened disabled; the rest zero.
 */
void t32_perf_attr_user(struct perf_event_attr *a, uint32_t type, uint64_t config);

#endif
