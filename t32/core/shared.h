/*
 * shared.h - is the measuring CPU ours alone?  Other runnable tasks on it, or on
 * a CPU that may share its core (an SMT sibling; under a hypervisor, which hides
 * the host's topology, any other CPU), or time the hypervisor stole from it, make
 * a block read long (and a calibration wrong) without any reading showing why.
 * t32 looks between measuring processes and sets aside what ran beside others.
 */
#ifndef T32_SHARED_H
#define T32_SHARED_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

struct t32_share {
	int cpu;		/* the measuring CPU */
	pid_t self;		/* our process: its tasks and children are not others */
	uint64_t steal0;	/* the CPU's steal time at the start, in clock ticks */
	double t0;		/* seconds (t32_now) at the start */
	unsigned looks;		/* times t32_share_sample looked */
	unsigned others;	/* looks at the most often seen other task runnable there */
	char who[200];		/* the tasks seen in two looks or more: "pid NAME', 'pid NAME" */
	struct {
		pid_t pid;
		unsigned seen;	/* looks that found it runnable on the CPU */
		unsigned hits;	/* looks that found it runnable anywhere watched */
		unsigned where;	/* T32_SHARE_* of those looks */
		char name[64];
	} seen[8];		/* other tasks found runnable, the first eight */
	double steal_share;	/* stolen share of the time since the start (t32_share_end) */
	cpu_set_t siblings;	/* CPUs that may share the measuring CPU's core */
	int nsiblings;
};

/* Where a look found another runnable task. */
enum {
	T32_SHARE_CPU = 1 << 0,		/* on the measuring CPU */
	T32_SHARE_SIBLING = 1 << 1,	/* on a CPU that may share its core */
};

/* Start watching `cpu`; a first look for other runnable tasks. */
void t32_share_begin(struct t32_share *s, int cpu);
/* Start watching `cpu`, the looks left to the caller (t32_share_look). */
void t32_share_watch(struct t32_share *s, int cpu);
/* The steal since the start and the names of the tasks seen, without a last look. */
void t32_share_stop(struct t32_share *s);
/* Look again: another task runnable on the CPU (not ours) counts. */
void t32_share_sample(struct t32_share *s);
/*
 * Look now, cheaply when nothing else is runnable anywhere (/proc/stat): the
 * T32_SHARE_* places where another task (not ours, not a kernel thread) is
 * runnable.  Counts as a look of t32_share_sample.
 */
unsigned t32_share_look(struct t32_share *s);
/*
 * The tasks seen most often at the places `where` (T32_SHARE_*), at most three,
 * as "pid NAME', 'pid NAME", into buf.
 */
void t32_share_who(const struct t32_share *s, unsigned where, char *buf, size_t len);
/*
 * A last look and the steal since the start.  Returns 1 when the CPU was shared
 * (one other task runnable there in at least two looks and T32_SHARE_LOOKS of
 * them, or T32_STEAL_SHARE of the time stolen), 0 otherwise.  A task runnable in
 * one look only (a kernel thread's tick of work) is not sharing.
 */
int t32_share_end(struct t32_share *s);
#define T32_STEAL_SHARE 0.01
#define T32_SHARE_LOOKS 0.25

#endif
