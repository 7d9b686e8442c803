/*
 * cmd-classic.c - the study's form: `t32 BARRIER STORE COUNT [N] INSN...` prints
 * COUNT raw deltas (TSC ticks), one a line, as the original tool did.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t32/core/block.h"
#include "t32/cmd/cmd.h"
#include "t32/cmd/options.h"
#include "t32/core/measure.h"

static const char classic_usage[] =
	"t32 [OPTIONS] BARRIER STORE COUNT [N] INSN [[N] INSN]...";

/* Deltas that cannot be: how many, and the longest, in seconds. */
struct impossible {
	uint64_t n;
	double worst;
};

/*
 * Count the deltas of one request that read longer than the request took (a
 * second of slack): a body that moved the first reading, or the stack it was
 * kept on, makes them (`pop rax` with STORE r).  The TSC's rate is measured
 * only when a delta is long enough to need it.
 */
static void impossible_count(const uint64_t *d, uint64_t n, double seconds,
			     struct impossible *bad)
{
	uint64_t max = 0;
	double hz;

	for (uint64_t i = 0; i < n; i++)
		if (d[i] > max)
			max = d[i];
	/* no TSC ticks slower than 100 MHz: below this, nothing to check */
	if ((double)max <= (seconds + 1) * 1e8)
		return;
	hz = t32_machine_tsc_hz();
	if (!(hz > 0))
		return;
	for (uint64_t i = 0; i < n; i++)
		if ((double)d[i] / hz > seconds + 1) {
			bad->n++;
			if ((double)d[i] / hz > bad->worst)
				bad->worst = (double)d[i] / hz;
		}
}

void t32_classic_opts(struct t32_block_optset *set, struct t32_block_opts *o, struct t32_spec *s)
{
	t32_block_opts_init(o);
	o->accept = T32_OPT_ALL & ~T32_OPT_FORMAT;	/* it prints deltas, one a line */
	t32_block_optset_init(set, o, s);
}

int cmd_classic(int argc, char **argv)
{
	struct t32_block_opts o;
	struct t32_block_optset set;
	struct t32_spec s = { 0 };
	struct t32_session ss;
	uint64_t count, *buf;
	struct impossible bad = { 0, 0 };
	char err[512];
	int rc, first;
	const struct t32_option opts[] = { T32_OPT_IN_ORDER, T32_OPT_SET(set.rows), T32_OPT_END };

	t32_classic_opts(&set, &o, &s);
	rc = t32_options_parse("", classic_usage, NULL, NULL, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	optind = first;
	if (argc - optind < 4)
		return t32_usage(classic_usage);
	if (t32_block_parse_head(&s, argv[optind], argv[optind + 1]) ||
	    t32_block_parse_count(argv[optind + 2], &count))
		return T32_EXIT_USAGE;
	if (t32_spec_parse_body(&s, argc - optind - 3, argv + optind + 3, err, sizeof(err))) {
		t32_error("%s", err);
		t32_spec_free(&s);	/* the items read before the bad one */
		return T32_EXIT_USAGE;
	}
	{
		const struct t32_spec *specs[1] = { &s };

		rc = t32_session_open(&ss, specs, 1, &o);
	}
	if (rc)
		goto out;
	buf = malloc((1u << 16) * sizeof(uint64_t));
	if (!buf) {
		rc = T32_EXIT_ERROR;
		goto out;
	}
	t32_catch_stop_signals();
	while (count && !t32_stop_asked) {
		uint64_t k = count < (1u << 16) ? count : (1u << 16);
		double t0 = t32_now();

		rc = t32_session_run(&ss, 0, k, buf);
		if (rc)
			break;
		impossible_count(buf, k, t32_now() - t0, &bad);
		for (uint64_t i = 0; i < k; i++)
			printf("%llu\n", (unsigned long long)buf[i]);
		if (ferror(stdout))
			break;
		count -= k;
	}
	free(buf);
	if (!rc && t32_stop_asked)
		rc = T32_EXIT_INTERRUPTED;
	if (!rc && bad.n) {
		char desc[256];

		t32_spec_format(&s, desc, sizeof(desc));
		t32_error("impossible deltas '%s' (%llu run%s read longer than the whole "
			  "measurement, up to %.3g s: the body broke the timing)", desc,
			  (unsigned long long)bad.n, bad.n == 1 ? "" : "s", bad.worst);
		rc = T32_EXIT_UNTRUSTED;
	}
out:
	t32_session_close(&ss);
	t32_spec_free(&s);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}
