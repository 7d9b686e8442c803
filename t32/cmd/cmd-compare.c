/*
 * cmd-compare.c - `t32 compare A.tsv B.tsv ...`: its options into a request for
 * t32_compare (compare.c), which reads the sweeps and writes the comparison.
 */
#include <stdio.h>
#include <unistd.h>

#include "t32/cmd/cmd.h"
#include "t32/core/compare.h"
#include "t32/cmd/options.h"
#include "t32/util.h"

static const char compare_usage[] =
	"t32 compare [-o DIR] [--format F] [--no-hostname] [--differing]\n"
	"                   [--tolerance C] SWEEP.tsv [SWEEP.tsv...]";

int cmd_compare(int argc, char **argv)
{
	struct t32_compare_req q = { .format = T32_FMT_TABLE, .tolerance = 0.05, .argc = argc,
				     .argv = argv };
	int rc, no_hostname = 0;
	const struct t32_option opts[] = {
		T32_OPT_STRING("output", 'o', "DIR", &q.dir, "write DIR/compare.tsv, compare.svg/.png and index.html"),
		T32_OPT_FN("format", "F", t32_opt_format, &q.format, "table (default), tsv or json, to stdout"),
		T32_OPT_FLAG("no-hostname", 0, &no_hostname, "name machines by CPU and core only"),
		T32_OPT_FLAG("differing", 0, &q.only_diff, "only rows that differ (between machines or from the\npublished value)"),
		T32_OPT_REAL("tolerance", "C", &q.tolerance, 0, 1e6, "tolerance", "how far from the published value is within (default 0.05)"),
		T32_OPT_END
	};

	rc = t32_options_parse("compare", compare_usage,
			       "Sweeps of one table from several machines (or days) side by side: a row per\n"
			       "form, mode and n; each machine's estimate and 95% interval; each machine's\n"
			       "difference from the first and whether it is significant; the published value.\n",
			       NULL, opts, argc, argv, &optind);
	if (rc >= 0)
		return rc;
	if (optind >= argc)
		return t32_usage(compare_usage);
	q.hostname = !no_hostname;
	q.paths = argv + optind;
	q.npaths = argc - optind;
	rc = t32_compare(&q);
	if (q.dir && !rc)
		printf("%s/index.html\n", q.dir);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}
