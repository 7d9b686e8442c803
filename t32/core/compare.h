/*
 * compare.h - sweeps of one table from several machines (or one machine on
 * several days) side by side, as a call: `t32 compare` and the study's all-forms
 * recipe make a request and call t32_compare.
 */
#ifndef T32_COMPARE_H
#define T32_COMPARE_H

#include "t32/util.h"

struct t32_compare_req {
	char **paths;		/* the sweep files, the first is m1 */
	int npaths;		/* at most 32 */
	const char *dir;	/* write DIR/compare.tsv, the heat map and index.html; NULL: stdout */
	enum t32_format format;	/* without dir: table, tsv or json to stdout */
	int only_diff;		/* only the rows that differ */
	int hostname;		/* name machines by their host too */
	double tolerance;	/* cycles: "within" the published value */
	int argc;		/* the command line, for the provenance */
	char **argv;
};

/* Read the sweeps and write the comparison: 0, or an exit code after a message. */
int t32_compare(const struct t32_compare_req *q);

#endif
