/*
 * sweepfile.h - a sweep's TSV file read back.  Its `# sweep:` line names
 * everything that decides a row's value, so --resume (is this file the sweep
 * being run, which rows does it hold, where does its last whole line end) and
 * --merge (pieces of one sweep, every row exactly once) can refuse what does not
 * belong.
 */
#ifndef T32_SWEEPFILE_H
#define T32_SWEEPFILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define T32_SWEEP_MAX_ROWS (1u << 24)	/* rows in one sweep */
#define T32_SWEEP_FIELDS 19		/* columns of a row */
#define T32_SWEEP_MAX_COMMENTS 4096	/* # lines in one file */

/* The column names, tab-separated, newline included. */
extern const char t32_sweep_columns[];

/*
 * Read the sweep file f (named path) for --resume.  It must hold `signature`
 * (the whole `# sweep:` line, newline included) and `shard` (its `# shard:`
 * line, or "" for an unsharded sweep), and have been measured on the CPU of
 * `cpu` (this machine's `# cpu:` line; NULL: not checked) as --merge checks
 * (t32_cpu_line_identity); with allow_mixed another CPU is let through and
 * *mixed set.  The rows it holds are marked in done[0..nrows); *good is where
 * its whole lines end (a row cut short by a kill lies past it).  0, or -1 after
 * an error message.
 */
int t32_sweep_scan(FILE *f, const char *path, const char *signature, const char *shard,
		   const char *cpu, int allow_mixed, int *mixed, size_t nrows,
		   unsigned char *done, off_t *good);

/*
 * Join the pieces files[0..nfiles) of one sweep into out ("-": stdout), written
 * whole or not at all, rows in order.  Refuses pieces of different sweeps, a
 * row twice, a row missing, out naming a piece, and pieces measured on different
 * CPUs (the `# cpu:` lines' family, model, stepping and microcode) unless
 * allow_mixed.  An exit code, messages printed.
 */
int t32_sweep_merge(const char *out, int nfiles, char **files, int allow_mixed);

/* One step of a step curve, a sweep row of k copies read back. */
struct t32_sweep_step {
	double total;		/* the block's cycles (column total); NAN when it has none */
	double hw;		/* their 95% half-width: per_insn's, times the instructions */
	unsigned char seen;	/* the file has a row for k */
	unsigned char ok;	/* the sweep trusted it (no status column: trusted) */
	char status[16];	/* as written: ok, untrusted, fault, unsupported... */
	char reason[160];	/* why, when not ok */
};

/*
 * The rows of a sweep file (`t32 sweep` output, the repeat count of its last
 * item in column n) for k = 0..kmax copies, into steps[0..kmax], zeroed first: a
 * step without a row stays unseen, a row of another n is passed over.  Whether
 * a missing or a failed step may be let through is the caller's.  0, or -1 when
 * f is not a sweep table or could not be read, with err.
 */
int t32_sweep_read_steps(FILE *f, const char *path, struct t32_sweep_step *steps, size_t kmax,
			 char *err, size_t errlen);

/* The value of KEY in a `# sweep:` line (up to the next key) into buf; 0, or -1 when absent. */
int t32_sweep_sig_value(const char *line, const char *key, char *buf, size_t len);

#endif
