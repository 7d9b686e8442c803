/*
 * tablecheck.h - `t32 table check`: a swept table read row by row, as its users
 * read it.  Every latency row the sweep let through as `ok` is judged again
 * (t32/core/chainjudge.h): one below a cycle or below its own throughput carried no
 * dependency and is counted as impossible.  With published reference tables
 * (data/ref/), a latency is compared only with the reference whose chain is the
 * row's own chain, the reference's sources named beside it, and where the table's
 * lat= and the reference disagree both are shown and the form is left out of the
 * agreement figure.  With --rows, each row's command to measure it again as it
 * was measured.
 */
#ifndef T32_TABLECHECK_H
#define T32_TABLECHECK_H

#include <stddef.h>
#include <stdio.h>

struct t32_tablecheck_opts {
	const char *sweep;	/* the sweep's TSV */
	const char *table;	/* the table it swept, or NULL (no chain texts) */
	const char **refs;	/* reference tables (data/ref/NAME.tbl) */
	size_t nrefs;
	int rows;		/* print each row's command to run it again */
	int untrusted;		/* judge and compare untrusted rows too (a busy machine) */
	double tolerance;	/* cycles: a latency this close to the reference agrees */
};

/* What the check found, for callers and tests. */
struct t32_tablecheck_result {
	size_t latency_rows, latency_ok, nochain;	/* rows; of them ok; flagged nochain */
	size_t impossible, below_floor, below_tp;	/* ok rows judged impossible */
	size_t compared, disagree, within;		/* like with like, summed over refs */
};

/*
 * Check o->sweep, printing to out.  0 when no ok row is impossible, 7 when some
 * are, 1 when a file cannot be read, 2 when one is not what it should be.
 */
int t32_table_check(const struct t32_tablecheck_opts *o, FILE *out,
		    struct t32_tablecheck_result *res);

#endif
