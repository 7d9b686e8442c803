/*
 * recorded.h - a block measured on some machine, read back from the folder
 * `t32 correlate -o DIR` wrote: the unit (shares.tsv's `# unit:`), its samples
 * folded onto the unit and the latency each instruction was measured to have
 * there (shares.tsv), the step curve with its half-widths (curve.tsv), and
 * whether the sampler found the samples stable (sample.tsv's `# stability:`).
 * So a machine's probes and blocks can be learned from and predicted on any
 * other machine: the latencies are the recording machine's, not this one's.
 */
#ifndef T32_RECORDED_H
#define T32_RECORDED_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/deps.h"
#include "analysis/learn.h"
#include "analysis/uarch.h"

struct t32_recorded {
	char dir[PATH_MAX];
	char name[128];		/* the folder's last part */
	char *unit;		/* the unit's text, ';'-separated */
	char core[32];		/* the model data it was recorded with ("zen5"), "" unknown */
	char cpu[256];		/* the `# cpu:` line's text */
	struct t32_insn *insns;	/* the unit decoded */
	size_t n;
	struct t32_insn *loop;	/* loop_copies copies of the unit and the loop's tail, or NULL */
	size_t loop_n, loop_copies;
	uint64_t *counts;	/* samples per instruction of the unit */
	double *curve, *hw;	/* cycles of k = 0..kmax copies, 95% half-widths */
	unsigned char *ok;	/* per k, 1 where the sweep trusted it (sweep.tsv's status);
				   NULL without a sweep.tsv: every step */
	size_t kmax;
	int skid;		/* 1: a sample lands after the selected instruction */
	int unstable;		/* the sampler flagged the samples unstable */
	char stability[160];	/* its line, "" when it wrote none */
	size_t measured;	/* instructions whose latency was measured there */
	struct t32_lattab tab;	/* those latencies, before the shipped table */
};

/*
 * Read DIR (a `t32 correlate -o` folder).  shipped: the latency table the
 * classes come from (may be NULL); u: the micro-architecture the classes and
 * loop are prepared for.  0, or -1 with err.
 */
int t32_recorded_read(const char *dir, const struct t32_lattab *shipped,
		      const struct t32_uarch *u, struct t32_recorded *r, char *err,
		      size_t errlen);
void t32_recorded_free(struct t32_recorded *r);

/* The recorded block as a probe of the learner (pointing into r). */
void t32_recorded_probe(const struct t32_recorded *r, struct t32_learn_probe *p);

/*
 * Each subfolder of dir holding a shares.tsv, sorted by name, into *names
 * (malloc'd strings, free with t32_recorded_names_free).  The count, or -1
 * when dir cannot be read.
 */
long t32_recorded_list(const char *dir, char ***names);
void t32_recorded_names_free(char **names, long n);

#endif
