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

/* The value of KEY in a `# sweep:` line (up to the next key) into buf; 0, or -1 when absent. */
int t32_sweep_sig_value(const char *line, const char *key, char *buf, size_t len);

#endif
