/*
 * uarch.h - the parameters of a micro-architecture that the retirement model
 * needs (widths, ROB, load latency, per-class latencies, retire delays and
 * execution ports), read from data/uarch/NAME.uarch, the per-form latency table
 * data/uarch/latency.lat, and which of them this CPU is (from its CPUID identity).
 *
 * Every parameter has a key; t32_uarch_set() and t32_uarch_set_value() change
 * one by name, so a command line (--set key=value) and a fit vary the same thing.
 */
#ifndef T32_UARCH_H
#define T32_UARCH_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/deps.h"

struct t32_uarch {
	char name[32];				/* "skylake" */
	unsigned alloc_width;			/* instructions allocated per cycle */
	unsigned retire_width;			/* instructions retired per cycle */
	unsigned retire_group;			/* instructions that retire together (aligned groups) */
	unsigned rob_size;			/* instructions allocated and not yet retired, at most */
	unsigned load_latency;			/* cycles, L1 hit, [base + index + disp] */
	unsigned load_latency_scaled;		/* cycles, L1 hit, index register scaled by 2, 4 or 8 */
	unsigned load_latency_chase;		/* cycles, [base + 0..2047] with base from a load; 0 = no fast path */
	unsigned store_forward_latency;		/* cycles from store data to a load of the same address */
	unsigned move_elim;			/* 1: register moves cost no execution (latency 0) */
	unsigned zero_idioms;			/* 1: zero idioms break dependencies and execute at rename */
	unsigned retire_group_any;		/* 1: retire groups start at any instruction (the model
						   averages over the G phases); 0: counted from the
						   block's first */
	unsigned retire_group_flags;		/* 1: only instructions that write flags retire in
						   groups, a run of them cut into groups of
						   retire_group from its first (shifted by the
						   phase); every other instruction alone */
	unsigned retire_nop_free;		/* 1: a nop takes no retire slot: it retires in
						   the cycle of the one before it (the Zen 4's
						   loads followed by up to 24 nops) */
	unsigned sample_stray;			/* percent of the interrupt samples that land on
						   any instruction of the unit alike (a sampler
						   whose skid varies), not where the model says */
	unsigned opcache_ops;			/* instructions of a loop the op cache holds: a
						   longer loop is decoded each time round; 0
						   (absent): every loop runs from it */
	unsigned decode_width;			/* instructions the decoders deliver a cycle
						   (0, absent: as many as alloc_width) */
	unsigned store_drain;			/* cycles from a store's completion until a fence
						   after it (and the end of a timed run, which
						   closes with one) may pass it; 0 (absent): none */
	unsigned store_bypass;			/* 1: a store whose data comes from a one-cycle
						   integer ALU instruction or a load retires
						   with it (neither its latency nor its retire
						   delay holds retirement) */
	unsigned lock_early;			/* 1: a locked read-modify-write executes when ready, as a
						   load-operate-store chained through memory; 0 (or
						   absent): it executes at retire */
	unsigned latency[T32_NCLASS];		/* cycles, execution latency of a class without a table entry */
	unsigned retire_delay[T32_NCLASS];	/* cycles from completion to the earliest retirement */
	unsigned ports[T32_NCLASS];		/* instructions of a class starting per cycle, 0 = unlimited */
};

/* One settable parameter: the table behind the file format and --set. */
/* Instructions per retire group: 0 in the struct (absent from the file) means 1. */
static inline unsigned t32_uarch_retire_group(const struct t32_uarch *u)
{
	return u->retire_group ? u->retire_group : 1;
}

struct t32_uarch_key {
	const char *key;	/* "rob_size", "latency.alu" */
	size_t offset;		/* of the unsigned field in struct t32_uarch */
	unsigned min, max;
	int required;		/* must appear in a .uarch file */
	const char *summary;
};
extern const struct t32_uarch_key *t32_uarch_keys;	/* ends with key == NULL */
/* The row of key, or NULL for none. */
const struct t32_uarch_key *t32_uarch_key_find(const char *key);

/*
 * Read a .uarch file: `key = value` lines, '#' comments.  A name or a path: a
 * name without '/' is looked up as DATADIR/uarch/NAME.uarch (datadir may be NULL
 * when only paths are used).  Errors come back as "FILE:LINE: what 'subject'".
 * 0 on success, -1 on error.
 */
int t32_uarch_load(struct t32_uarch *u, const char *name_or_path, const char *datadir,
		   char *err, size_t errlen);
/* Parse an open file (path used in messages only). */
int t32_uarch_parse(struct t32_uarch *u, FILE *f, const char *path, char *err, size_t errlen);
/* Apply "key=value" (the --set form). */
int t32_uarch_set(struct t32_uarch *u, const char *assignment, char *err, size_t errlen);
/* Set / get one parameter by key; -1 for an unknown key or a value out of range. */
int t32_uarch_set_value(struct t32_uarch *u, const char *key, unsigned long value);
int t32_uarch_get(const struct t32_uarch *u, const char *key, unsigned long *value);

/* One line of data/uarch/latency.lat: an instruction form, its class, its latencies. */
struct t32_lat_uarch {
	char name[32];		/* micro-architecture, "" for every one */
	unsigned cycles;	/* execution latency, after the load for memory forms */
};
struct t32_lat_entry {
	char form[64];		/* "imul r64, r64", "add r, r", "lock add m, i", "cpuid" */
	int cls;		/* enum t32_class, or -1 to keep the decoder's */
	size_t nlat;
	struct t32_lat_uarch lat[8];
	int measured;		/* 1: measured on this machine (t32_lattab_prepend of a cache) */
	unsigned quarters;	/* measured: quarters of a cycle beyond lat[0].cycles (0..3) */
};
struct t32_lattab {
	struct t32_lat_entry *e;
	size_t n;
};

/* Read a latency table; errors as "FILE:LINE: what 'subject'". */
int t32_lattab_load(struct t32_lattab *t, const char *path, char *err, size_t errlen);
void t32_lattab_free(struct t32_lattab *t);
/*
 * Put every entry of front before those of t, marked measured (they then win
 * over the shipped entries of the same form).  0, or -1 when out of memory.
 */
int t32_lattab_prepend(struct t32_lattab *t, const struct t32_lattab *front);
/*
 * The entry that best matches a form ("mov r64, m64"): operands match exactly,
 * or by kind ("r" any general register, "m" any memory, "i" immediate, "v" any
 * vector register); an entry with no operands matches any operands.  The most
 * exact entry wins, then the earliest.  NULL if none.
 */
const struct t32_lat_entry *t32_lattab_find(const struct t32_lattab *t, const char *form);
/* Latency of an entry for a micro-architecture; -1 if the entry gives none for it. */
int t32_lattab_latency(const struct t32_lat_entry *e, const char *uarch, unsigned *cycles);

/*
 * The type of a core of a hybrid part, CPUID leaf 0x1A EAX[31:24] run on it
 * (valid when leaf 7 EDX bit 15, the hybrid flag, is set): Intel calls 0x40
 * "Core" (a P-core) and 0x20 "Atom" (an E-core).  0: not a hybrid part (every
 * core alike); T32_CORE_UNKNOWN: a hybrid part whose core could not be asked.
 */
#define T32_CORE_NONE 0x00
#define T32_CORE_ATOM 0x20
#define T32_CORE_CORE 0x40
#define T32_CORE_UNKNOWN 0x100
/* "P-core", "E-core", "core type unknown", "core type 0x30"; "" for T32_CORE_NONE. */
void t32_core_type_text(unsigned type, char *buf, size_t len);
/* The core type a text names ("..., E-core)"), T32_CORE_NONE when it names none. */
unsigned t32_core_type_parse(const char *text);

/*
 * Naming the core from CPUID: one row per vendor, family, model range and core
 * type, as Linux's arch/x86 tables give them.  `data` is the file the model
 * reads for the core, data/uarch/DATA.uarch: its own where there is one, a
 * stated stand-in where a source says the core is the same machine, NULL where
 * there is neither (the model then starts from generic.uarch and relies on
 * latencies measured in place).
 */
struct t32_uarch_id {
	const char *vendor;		/* CPUID leaf 0: "AuthenticAMD", "GenuineIntel" */
	unsigned family;		/* base family plus extended family */
	unsigned model_lo, model_hi;	/* model with extended model, inclusive */
	unsigned core_type;		/* T32_CORE_CORE or _ATOM on a hybrid part, 0 any */
	const char *name;		/* the core: "zen4", "goldencove" */
	const char *data;		/* the .uarch file used for it, NULL: none */
	const char *parts;		/* the chips, for people */
};
extern const struct t32_uarch_id *t32_uarch_ids;	/* ends with name == NULL */

/* The data file of a core no row gives data for, and of an unknown CPU. */
#define T32_UARCH_GENERIC "generic"

/*
 * The row that names this vendor, family, model and core type (0 on a part
 * that is not hybrid); NULL for an unknown CPU.  A row for a core type matches
 * that type only; a row for any type (0) matches every core of the model.
 */
const struct t32_uarch_id *t32_uarch_identify(const char *vendor, unsigned family,
					      unsigned model, unsigned core_type);

/*
 * The micro-architecture data a command uses, and why.  --uarch wins; else the
 * core CPUID names, with its data file; a core whose row names a stand-in gets
 * it, stated; a core without data and an unknown CPU get generic.uarch, said so,
 * and their latencies are to be measured in place (t32 model --measure, t32
 * correlate by default) rather than borrowed from another core's table.
 */
enum t32_uarch_how { T32_UARCH_ASKED, T32_UARCH_DETECTED, T32_UARCH_FALLBACK, T32_UARCH_UNKNOWN };
struct t32_uarch_choice {
	char data[256];		/* to load: a name in data/uarch/ or a path (--uarch FILE) */
	char core[32];		/* the core CPUID names, "unknown"; "" when asked */
	enum t32_uarch_how how;
	char cpu[96];		/* "AuthenticAMD family 0x19 model 0x11", ", P-core" on a hybrid
				   part; "" when asked */
};
void t32_uarch_choose(const char *asked, const char *vendor, unsigned family, unsigned model,
		      unsigned core_type, struct t32_uarch_choice *c);
/* How, as one word for programs: "asked" (--uarch), "detected", "fallback", "unknown". */
const char *t32_uarch_how_name(enum t32_uarch_how how);
/*
 * The choice in one line, after the name of the data loaded (`loaded`, the
 * file's name = key): "zen5 (detected: AuthenticAMD family 0x1a model 0x2)",
 * "goldencove (detected: GenuineIntel family 0x6 model 0x97, P-core)",
 * "zen4 (fallback: zen3 has no data file; AuthenticAMD family 0x19 model 0x21)",
 * "generic (unknown: no data for lioncove; GenuineIntel family 0x6 model 0xc6,
 * P-core; latencies are measured here)", "generic (unknown: unknown CPU
 * GenuineIntel family 0x6 model 0xfe; latencies are measured here)",
 * "skylake (chosen with --uarch)".
 */
void t32_uarch_choice_text(const struct t32_uarch_choice *c, const char *loaded, char *buf,
			   size_t len);

#endif
