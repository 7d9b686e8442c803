/*
 * learned.h - the retirement model `t32 learn` fitted for one machine, kept
 * per CPU and microcode beside the latency cache (model-CPU.uarch, CPU as
 * t32_latcache_cpu names it).  The file is a .uarch file (every key, so
 * t32_uarch_load reads it as any other), opened by `#` lines that give its
 * provenance (tool, commit, CPU, date, the data it started from, the probes it
 * was learned from) and each learned parameter with its interval, or
 * "undetermined" with the range that fits as well.
 */
#ifndef T32_LEARNED_H
#define T32_LEARNED_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/learn.h"
#include "analysis/uarch.h"

/* The learned model's file of this CPU in the cache dir (see t32_latcache_dir); "" if none. */
void t32_learned_path(const char *dir, char *buf, size_t len);

/* One learned parameter as the file states it: "retire_width = 8 [8, 8]", "... undetermined". */
void t32_learned_param_text(const struct t32_corr_param *p, char *buf, size_t len);

/*
 * Write r to path, whole (temp file and rename).  cpu: the machine it describes
 * (its `# cpu:` text); from: the data file learning started from; source: where
 * the probes came from (a folder); probes: their names, np of them.  0, or -1
 * after an error message.
 */
int t32_learned_write(const char *path, const struct t32_learn_result *r, const char *cpu,
		      const char *from, const char *source, const char *const *probes, size_t np);

/*
 * Read a learned model: u gets the parameters, summary (may be NULL) a line for
 * people ("learned from 12 probes on 2026-11-27, CPU"), cpu (may be NULL) the
 * `# cpu:` text.  0, 1 when the file does not exist, -1 with err when it is not
 * a learned model or not readable.
 */
int t32_learned_load(const char *path, const char *datadir, struct t32_uarch *u, char *summary,
		     size_t slen, char *cpu, size_t clen, char *err, size_t errlen);

#endif
