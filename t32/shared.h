/*
 * shared.h - is the measuring CPU ours alone?  Other runnable tasks on it, or time
 * the hypervisor stole from it, make a block read long (and a calibration wrong)
 * without any reading showing why; t32 looks, and flags the result `shared`.
 */
#ifndef T32_SHARED_H
#define T32_SHARED_H

#include <stdint.h>
#include <sys/types.h>

struct t32_share {
	int cpu;		/* the measuring CPU */
	pid_t self;		/* our process: its tasks and children are not others */
	uint64_t steal0;	/* the CPU's steal time at the start, in clock ticks */
	double t0;		/* seconds (t32_now) at the start */
	unsigned others;	/* samples that found another task runnable there */
	char who[80];		/* the first such task: "pid NAME" */
	double steal_share;	/* stolen share of the time since the start (t32_share_end) */
};

/* Start watching `cpu`; a first look for other runnable tasks. */
void t32_share_begin(struct t32_share *s, int cpu);
/* Look again: another task runnable on the CPU (not ours) counts. */
void t32_share_sample(struct t32_share *s);
/*
 * A last look and the steal since the start.  Returns 1 when the CPU was shared
 * (another task seen, or T32_STEAL_SHARE of the time stolen), 0 otherwise.
 */
int t32_share_end(struct t32_share *s);
#define T32_STEAL_SHARE 0.01

#endif
