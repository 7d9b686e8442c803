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
	unsigned looks;		/* times t32_share_sample looked */
	unsigned others;	/* looks at the most often seen other task runnable there */
	char who[200];		/* the tasks seen in two looks or more: "pid NAME', 'pid NAME" */
	struct {
		pid_t pid;
		unsigned seen;	/* looks that found it runnable on the CPU */
		char name[64];
	} seen[8];		/* other tasks found runnable, the first eight */
	double steal_share;	/* stolen share of the time since the start (t32_share_end) */
};

/* Start watching `cpu`; a first look for other runnable tasks. */
void t32_share_begin(struct t32_share *s, int cpu);
/* Look again: another task runnable on the CPU (not ours) counts. */
void t32_share_sample(struct t32_share *s);
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
