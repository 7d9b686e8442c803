/*
 * latcache.h - the latencies of a block's instruction forms measured on this
 * machine with t32's own timing, before the model uses them: each form as a
 * dependent chain of itself (or back to back, for fences, atomics, stores and
 * serialising forms that have no register chain), timed 40 against 20 copies.
 * What was measured is kept per CPU (vendor, family, model, stepping, microcode
 * and, on a hybrid part, core type) in a cache directory and reused; the
 * model's latency is solved from it with the model itself
 * (t32_model_solve_latency), so load latencies and retirement rules are
 * counted once.  Forms that cannot be measured keep the shipped table
 * or the class default, and every instruction says which it got.
 */
#ifndef T32_LATCACHE_H
#define T32_LATCACHE_H

#include <limits.h>
#include <stddef.h>

#include "analysis/deps.h"
#include "analysis/uarch.h"
#include "t32/core/measure.h"
#include "t32/spec.h"

/* What t32_latcache_fill did. */
struct t32_latcache {
	char path[PATH_MAX];	/* the cache file of this CPU, "" when there is no cache */
	size_t measured;	/* forms measured in this run */
	size_t unkept;		/* of those measured, timed on a shared CPU or core: not kept */
	size_t retimed;		/* of those measured, timed twice: off a whole cycle the first time */
	size_t reused;		/* forms found in the cache */
	size_t unmeasurable;	/* forms left to the table (no chain, or the model cannot fit) */
	char why[320];		/* why the first of them was, "" when none was */
	double seconds;		/* spent measuring */
};

/*
 * The cache directory: dir when given, else $T32_CACHE_DIR, else
 * $XDG_CACHE_HOME/t32, else $HOME/.cache/t32.  "" when none can be named.
 */
void t32_latcache_dir(const char *dir, char *buf, size_t len);

/*
 * Latencies for the forms of in[0..n): from the cache in dir (see
 * t32_latcache_dir), measured here for the forms it lacks (the cache is then
 * rewritten, whole), solved for micro-architecture u with the classes the shipped
 * table gives (tab may be NULL).  The result goes to *out as a latency table of
 * measured entries (t32_lattab_prepend puts it before the shipped one).
 * init: start values of registers the block needs (a spec, may be NULL).
 * 0, or -1 with err (nothing usable: the caller goes on with the table alone).
 */
int t32_latcache_fill(const struct t32_uarch *u, const struct t32_lattab *tab,
		      const struct t32_insn *in, size_t n, const struct t32_spec *init,
		      const char *dir, struct t32_lattab *out, struct t32_latcache *info,
		      char *err, size_t errlen);

/*
 * Whether a timing of a form can serve as its latency (judged without the
 * precision target it was taken with): 0, with *shared set when it serves this
 * run only and is not kept (timed on a CPU another task used, or on a core
 * another thread shared and nothing else wrong); -1 with why into why[0..wl).
 */
int t32_latcache_judge(struct t32_measurement *m, char *why, size_t wl, int *shared);

/*
 * Is a cost (cycles a copy, hw its interval's half-width) off a whole cycle by
 * more than its interval and a tenth of a cycle?  Such a timing is taken once
 * more and the lower kept: a latency is mostly whole, and another thread on
 * the core only ever slows a chain (a Zen 4 guest's load chain read 4.44 +-
 * 0.02 beside a busy neighbour, where its blocks ran at 4.0 a load).
 */
int t32_latcache_off_whole(double cycles, double hw);

/*
 * This CPU's name in the cache, VENDOR-FAMILY-MODEL-STEPPING[-CORE][-MICROCODE]
 * in hex ("AuthenticAMD-1a-2-1-0xb002116"), CORE on a hybrid part only, into
 * key; its description ("AuthenticAMD family 0x1a model 0x2 stepping 1
 * microcode 0xb002116 (BRAND)") into cpu_text.  Every file kept per CPU
 * (latencies, the learned model) is named by it.
 */
void t32_latcache_cpu(char *key, size_t len, char *cpu_text, size_t cl);

/* One line for people: "3 forms measured here, 2 from the cache FILE (0.8 s)". */
void t32_latcache_text(const struct t32_latcache *c, char *buf, size_t len);

#endif
