/*
 * probeset.h - blocks recorded by `t32 correlate -o` (or `t32 learn`), read as
 * probes of the retirement model: the set `t32 learn` learns a machine from,
 * and the recorded machines `make bench` learns and predicts.
 */
#ifndef T32_PROBESET_H
#define T32_PROBESET_H

#include <stddef.h>

#include "analysis/learn.h"
#include "analysis/uarch.h"
#include "t32/core/recorded.h"

/* The probes read from folders of recorded blocks. */
struct t32_probe_set {
	struct t32_recorded *rec;
	struct t32_learn_probe *pr;
	size_t n;
	size_t unstable, unreadable;	/* left out */
};

void t32_probe_set_free(struct t32_probe_set *s);
/* The core the first recorded block of dir names ("zen5"), into core; "" when none. */
void t32_probe_set_core(const char *dir, char *core, size_t len);
/*
 * Read every recorded block under dir (its NAME/ folders) and append it to s;
 * unstable ones are left out unless allow_unstable, unreadable ones left out with
 * a warning (quiet: without).  0, or -1 when dir cannot be read.
 */
int t32_probe_set_read(const char *dir, const struct t32_lattab *shipped,
		       const struct t32_uarch *u, int allow_unstable, int quiet,
		       struct t32_probe_set *s);
/* Mark the probes from index `from` on as held (predicted only). */
void t32_probe_set_hold_from(struct t32_probe_set *s, size_t from);
/* Load the shipped latency table (data/uarch/latency.lat); 0, or -1 with err. */
int t32_shipped_lattab(struct t32_lattab *tab, char *err, size_t errlen);
/*
 * Learn from every probe of s not held: the keys of list (comma-separated,
 * "none" for none), or by default those the probes touch, less the pinned ones
 * (npinned "key=value" texts).  0, or -1 with err.
 */
int t32_probe_set_fit_keys(const struct t32_uarch *u, struct t32_probe_set *s, const char *list,
			   const char *const *pinned, size_t npinned, struct t32_learn_result *r,
			   char *err, size_t errlen);
/* Learn from every probe of s not held, with the default parameters. */
int t32_probe_set_fit(const struct t32_uarch *u, struct t32_probe_set *s,
		      struct t32_learn_result *r, char *err, size_t errlen);
/*
 * The prediction of probe p by u: TVD and cycles error (percent), and the
 * deviance and curve chi-square when dev and chi2 are not NULL; -1 when it
 * cannot run.
 */
int t32_probe_figures(const struct t32_uarch *u, const struct t32_learn_probe *p, double *tvd,
		      double *cpi, double *dev, double *chi2);

/*
 * What one probe of a learn may take when left seconds of its budget remain
 * for probes probes (this one among them) and its step curve has rows rows:
 * its sampling, at most seconds, into *sample, and each row's time limit into
 * *row, the rows getting what the sampling is expected to leave when its
 * sample count ends it after about expect seconds (see probeset.c).
 */
void t32_learn_allowance(double left, size_t probes, size_t rows, double seconds, double expect,
			 double *sample, double *row);
/*
 * May a probe whose curve the sweep mostly did not trust be swept once more,
 * rows rows of at most row seconds, when left seconds remain for probes probes
 * (this one among them), each taking pace seconds?  1 while what is left, less
 * pace for each probe, still holds that sweep; else 0.
 */
int t32_learn_resweep(double left, size_t probes, double pace, size_t rows, double row);
/* The least a probe takes at that (its set-up, the least sampling, each row's least). */
double t32_learn_least(size_t rows, double seconds);

#endif
