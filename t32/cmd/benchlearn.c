/*
 * benchlearn.c - make bench's `learn`: this machine learned as `t32 learn`
 * learns it (from a fresh cache, timed whole), then every recorded machine
 * learned from its probes (or, without probes, from its blocks, leaving each
 * out in turn) and its blocks predicted, group by group.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/correlate.h"
#include "analysis/learn.h"
#include "analysis/uarch.h"
#include "t32/cmd/cmd.h"
#include "t32/core/block.h"
#include "t32/core/learned.h"
#include "t32/core/probeset.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

/*
 * One block's prediction as a bench figure, the cycles' error beside the
 * measured slope's own 95% half-width; returns 1 when within both targets.
 */
static int learn_bench_block(void (*report)(const char *, const char *, const char *, int),
			     const char *machine, const char *group, const struct t32_uarch *u,
			     const struct t32_learn_probe *p, const char *how)
{
	char what[600], fig[160];
	struct t32_corr_data fast = t32_corr_fast(u, p->n, &p->d);
	double tvd, cpi, slope = t32_corr_curve_slope(&fast), hw = t32_corr_curve_slope_hw(&fast);
	int ok;

	snprintf(what, sizeof(what), "learn %s: %s/%s", machine, group, p->name);
	if (t32_probe_figures(u, p, &tvd, &cpi, NULL, NULL)) {
		report(what, "the model cannot run it", "TVD <= 0.10, err <= 5%", 0);
		return 0;
	}
	ok = t32_corr_meets_target(tvd, cpi);
	/* beside the error, how well the curve itself knows the cycles (its slope's interval) */
	snprintf(fig, sizeof(fig), "TVD %.3f, cpi %+.1f%% (curve +-%.1f%%)%s", tvd, cpi,
		 100 * hw / slope, how);
	report(what, fig, "TVD <= 0.10, err <= 5%", ok);
	return ok;
}

/*
 * The groups of a recorded machine's blocks: the study's, others', ours to
 * decide on, ours held back.
 */
static const struct {
	const char *dir;
	int held;		/* never used to learn or decide */
	const char *target;	/* of the group's share within both targets */
	double share;
} learn_groups[] = {
	{ "study", 0, "9 of 9", 1.0 },
	{ "more", 0, "(figure only)", 0 },
	{ "decide", 0, "(figure only)", 0 },
	{ "held", 1, ">= 80%", 0.8 },
	{ NULL, 0, NULL, 0 },
};

/*
 * Each group's blocks of machine name predicted by the model learned (r), or
 * without probes by the one learned from the others, and how many of each
 * group are within both targets, as bench figures.
 */
static void learn_bench_groups(void (*report)(const char *, const char *, const char *, int),
			       const char *name, const struct t32_uarch *u, struct t32_probe_set *all,
			       const size_t *first, int ng, int have_probes,
			       const struct t32_learn_result *r)
{
	char err[1024], what[512], fig[200];

	for (int g = 0; g < ng; g++) {
		size_t within = 0, count = first[g + 1] - first[g];

		for (size_t i = first[g]; i < first[g + 1]; i++) {
			const struct t32_uarch *pu = &r->u;
			struct t32_learn_result lo;
			const char *how = "";
			int lo_ok = 0;

			/* without probes, a block not held is predicted by the others alone */
			if (!have_probes && !all->pr[i].held) {
				all->pr[i].held = 1;
				lo_ok = t32_probe_set_fit(u, all, &lo, err, sizeof(err)) == 0;
				all->pr[i].held = 0;
				if (!lo_ok)
					continue;
				pu = &lo.u;
				how = ", learned without it";
			}
			within += (size_t)learn_bench_block(report, name, learn_groups[g].dir, pu,
							    &all->pr[i], how);
		}
		if (!count)
			continue;
		snprintf(what, sizeof(what), "learn %s: %s blocks within both", name,
			 learn_groups[g].dir);
		snprintf(fig, sizeof(fig), "%zu of %zu", within, count);
		report(what, fig, learn_groups[g].target,
		       learn_groups[g].share == 0 ||
		       (double)within >= learn_groups[g].share * (double)count - 1e-9);
	}
}

/*
 * One recorded machine (root/name) as bench figures: its blocks read group by
 * group, the model learned from its probes or its blocks, and each block predicted.
 */
static void learn_bench_machine(void (*report)(const char *, const char *, const char *, int),
				const char *root, const char *name, const struct t32_lattab *tab)
{
	char path[PATH_MAX], probes[PATH_MAX], core[32], what[512], fig[200], err[1024];
	struct t32_probe_set all = { 0 }, pset = { 0 };
	size_t first[8], nheld = 0, nfit = 0;
	struct t32_uarch u;
	struct t32_learn_result r;
	int have_probes, ng = 0;
	double t0, took;

	snprintf(path, sizeof(path), "%.3000s/%.200s/study", root, name);
	if (name[0] == '.' || access(path, R_OK))
		return;
	t32_probe_set_core(path, core, sizeof(core));
	if (t32_uarch_load(&u, core[0] ? core : T32_UARCH_GENERIC, t32_datadir(), err,
			   sizeof(err))) {
		snprintf(what, sizeof(what), "learn %s", name);
		report(what, err, "(figure only)", 0);
		return;
	}
	/* every block, group by group; held ones marked */
	for (int g = 0; learn_groups[g].dir; g++) {
		snprintf(path, sizeof(path), "%.3000s/%.200s/%s", root, name, learn_groups[g].dir);
		first[g] = all.n;
		ng = g + 1;
		if (t32_probe_set_read(path, tab, &u, 0, 1, &all) == 0 && learn_groups[g].held)
			t32_probe_set_hold_from(&all, first[g]);
	}
	first[ng] = all.n;
	for (size_t i = 0; i < all.n; i++) {
		nheld += all.pr[i].held;
		nfit += !all.pr[i].held;
	}
	snprintf(probes, sizeof(probes), "%.3000s/%.200s/probes", root, name);
	have_probes = access(probes, R_OK) == 0 &&
		      t32_probe_set_read(probes, tab, &u, 0, 1, &pset) == 0 && pset.n > 0;
	if (all.unstable + all.unreadable + pset.unstable + pset.unreadable) {
		snprintf(what, sizeof(what), "learn %s: left out", name);
		snprintf(fig, sizeof(fig), "%zu blocks whose samples did not stay put, %zu "
			 "unreadable", all.unstable + pset.unstable,
			 all.unreadable + pset.unreadable);
		report(what, fig, "(figure only)", 1);
	}
	t0 = t32_now();
	if (have_probes ? t32_probe_set_fit(&u, &pset, &r, err, sizeof(err)) :
			  t32_probe_set_fit(&u, &all, &r, err, sizeof(err))) {
		snprintf(what, sizeof(what), "learn %s", name);
		report(what, err, "<= 60 s", 0);
		goto next;
	}
	took = t32_now() - t0;
	/* the fit alone: the measuring was done where they were recorded */
	snprintf(what, sizeof(what), "learn %s: time to fit", name);
	snprintf(fig, sizeof(fig), "%.1f s from %zu recorded %s, %zu model runs", took, r.probes,
		 have_probes ? "probes" : "blocks", r.evals);
	report(what, fig, "<= 60 s", took <= 60);
	for (size_t j = 0; j < r.np; j++) {
		char text[256];

		t32_learned_param_text(&r.p[j], text, sizeof(text));
		snprintf(what, sizeof(what), "learn %s: parameter", name);
		report(what, text, "(figure only)", 1);
	}
	learn_bench_groups(report, name, &u, &all, first, ng, have_probes, &r);
	(void)nheld;
	(void)nfit;
next:
	t32_probe_set_free(&all);
	t32_probe_set_free(&pset);
}

/*
 * make bench: every machine recorded in t/data/recorded (a folder with study/
 * and, where they were recorded, probes/): learned from its probes and each
 * block predicted.  A machine without probes is learned from its blocks, each
 * block predicted by the model learned from all the others (leave one out), so
 * no block is predicted by a model that saw it; the held-back blocks never
 * enter any learning.
 */
static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* What a `t32 learn --format=tsv` said of itself. */
struct learn_said {
	long blocks, unstable, doubt, within, predicted;
	double measured, fit;
};

/*
 * Read learn's TSV (text): its `# key: value` lines, and its probe table, each
 * row judged against both targets as correlate judges a block.
 */
static void learn_read_said(const char *text, struct learn_said *f)
{
	struct t32_tsv t;
	long ct = -1, ce = -1;

	*f = (struct learn_said){ -1, 0, 0, 0, -1, NAN, NAN };
	if (t32_tsv_text(&t, text, "t32 learn"))
		return;
	while (t32_tsv_next(&t) == 1) {
		const char *line = t.line;

		if (sscanf(line, "# measured_blocks: %ld", &f->blocks) == 1 ||
		    sscanf(line, "# measured_seconds: %lf", &f->measured) == 1 ||
		    sscanf(line, "# seconds: %lf", &f->fit) == 1 ||
		    sscanf(line, "# left_out_unstable: %ld", &f->unstable) == 1 ||
		    sscanf(line, "# curves_mostly_untrusted: %ld", &f->doubt) == 1 ||
		    line[0] == '#' || !line[0])
			continue;
		t32_tsv_split(&t);
		if (strcmp(t.fields[0], "probe") == 0) {
			ct = t32_tsv_column(t.fields, t.nfields, "tvd");
			ce = t32_tsv_column(t.fields, t.nfields, "cycles_error_percent");
			f->predicted = 0;
		} else if (f->predicted >= 0 && ct >= 0 && ce >= 0 && (size_t)ct < t.nfields &&
			   (size_t)ce < t.nfields) {
			char *e1, *e2;
			double tvd = strtod(t.fields[ct], &e1), cpi = strtod(t.fields[ce], &e2);
			int curve_only = strcmp(t.fields[ct], "-") == 0;	/* a front-end probe */

			f->predicted++;
			f->within += (curve_only || e1 != t.fields[ct]) && e2 != t.fields[ce] &&
				     t32_corr_meets_target(curve_only ? 0 : tvd, cpi);
		}
	}
	t32_tsv_close(&t);
}

/* A `# key: number` line of a command's TSV text (NULL: none), or NaN. */
static double said_number(const char *text, const char *key)
{
	char head[80];
	const char *at;

	snprintf(head, sizeof(head), "\n# %s: ", key);
	at = text ? strstr(text, head) : NULL;
	return at ? strtod(at + strlen(head), NULL) : NAN;
}

/*
 * The study's blocks as the check runs them after a learn: `t32
 * correlate BLOCK` each, with the cache the learn filled (its latencies and the
 * model it kept), read from correlate's TSV and judged against both targets;
 * exit 7 (samples that did not stay put twice) counts as a miss.
 */
static void learn_bench_blocks(const char *cache,
			       void (*report)(const char *, const char *, const char *, int))
{
	char fig[200], want[48], **names;
	size_t n = t32_block_names(&names);
	int within = 0, refused = 0, failed = 0, unlearned = 0;
	double t0 = t32_now();

	if (!n) {
		report("learn here: then the study's blocks", "no blocks in the data folder",
		       "(figure only)", 1);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char *argv[] = { "correlate", "--cache", (char *)cache, "--format=tsv", names[i],
				 NULL };
		char *text = NULL, what[300], row[160];
		int rc = t32_call_captured(cmd_correlate, 5, argv, &text), learned, ok;
		double tvd = said_number(text, "tvd"), cpi = said_number(text, "cycles_error_percent");
		double slope = said_number(text, "cycles_per_iter_measured");
		double hw = said_number(text, "cycles_per_iter_measured_hw");

		/* predicted from the model the learn kept, not fitted to the block */
		learned = text && strstr(text, "\n# model: learned\n");
		free(text);
		unlearned += rc == 0 && !learned;
		refused += rc == T32_EXIT_UNTRUSTED;
		failed += rc != 0 && rc != T32_EXIT_UNTRUSTED;
		ok = rc == 0 && !isnan(tvd) && !isnan(cpi) && t32_corr_meets_target(tvd, cpi);
		within += ok;
		/* each block's row, as a recorded machine's blocks are shown */
		snprintf(what, sizeof(what), "learn here: study/%s", names[i]);
		if (rc == T32_EXIT_UNTRUSTED)
			snprintf(row, sizeof(row), "refused: its samples did not stay put (exit %d)", rc);
		else if (rc != 0 || isnan(tvd) || isnan(cpi))
			snprintf(row, sizeof(row), "failed (exit %d)", rc);
		else
			snprintf(row, sizeof(row), "TVD %.3f, cpi %+.1f%% (curve +-%.1f%%)%s", tvd, cpi,
				 100 * hw / slope, learned ? "" : ", not from the learned model");
		report(what, row, "TVD <= 0.10, err <= 5%", ok && learned);
	}
	t32_block_names_free(names, n);
	snprintf(fig, sizeof(fig), "%d of %zu within both (%d refused unstable, %d failed, %d not "
		 "from the learned model; %.1f s a block)", within, n, refused, failed, unlearned,
		 (t32_now() - t0) / (double)n);
	snprintf(want, sizeof(want), "%zu of %zu", n, n);
	report("learn here: then the study's blocks", fig, want,
	       (size_t)within == n && !unlearned);
}

/*
 * `t32 learn` here as a user runs it, in this process, with a fresh cache in a
 * folder of its own (so the latencies are measured, as on a new machine, and
 * the user's latencies and learned model are left as they were; the sampler's
 * history of each probe's last run is updated, as any run updates it): its
 * whole wall time against the minute learning may take, and what it says (in
 * its TSV) it spent measuring and fitting, doubted and predicts; then the
 * study's blocks correlated with the model it kept in that cache.
 */
static void learn_bench_live(void (*report)(const char *, const char *, const char *, int))
{
	char dir[] = "/tmp/t32-bench-learn-XXXXXX", probes[PATH_MAX], fig[200];
	char *argv[] = { "learn", "--cache", dir, "-o", probes, "--format=tsv", NULL };
	char *text;
	struct learn_said f;
	double t0, took;
	int rc;

	if (!mkdtemp(dir)) {
		report("learn here: a scratch folder", strerror(errno), "(figure only)", 0);
		return;
	}
	snprintf(probes, sizeof(probes), "%s/probes", dir);
	t0 = t32_now();
	rc = t32_call_captured(cmd_learn, 6, argv, &text);
	took = t32_now() - t0;
	if (rc < 0) {
		report("learn here", "out of memory", "(figure only)", 0);
		goto out;
	}
	learn_read_said(text, &f);
	free(text);
	if (rc == T32_EXIT_UNAVAILABLE) {
		report("learn here: time to learn", "no sampling backend here", "(figure only)", 1);
		goto out;
	}
	if (rc) {
		snprintf(fig, sizeof(fig), "t32 learn exited %d (its reason above)", rc);
		report("learn here: time to learn", fig, "<= 60 s", 0);
		goto out;
	}
	snprintf(fig, sizeof(fig), "%.1f s (%ld probes measured in %.1f s, fit %.1f s)", took,
		 f.blocks, f.measured, f.fit);
	report("learn here: time to learn", fig, "<= 60 s", took <= 60 && f.blocks > 0);
	snprintf(fig, sizeof(fig), "%ld left out unstable, %ld with curves mostly untrusted",
		 f.unstable, f.doubt);
	report("learn here: probes doubted", fig, "(figure only)", 1);
	if (f.predicted >= 0) {
		snprintf(fig, sizeof(fig), "%ld of %ld", f.within, f.predicted);
		report("learn here: probes within both targets", fig, "(figure only)", 1);
	}
	learn_bench_blocks(dir, report);
out:
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void t32_bench_learn(void (*report)(const char *what, const char *figure, const char *target,
		     int ok))
{
	char root[PATH_MAX], err[1024];
	struct dirent **mach = NULL;
	struct t32_lattab tab = { NULL, 0 };
	int nm;
	const char *env = getenv("T32_RECORDED_DIR");

	learn_bench_live(report);
	snprintf(root, sizeof(root), "%.4000s", env && *env ? env : "");
	if (!root[0])
		snprintf(root, sizeof(root), "%.4000s/../t/data/recorded", t32_datadir());
	if (t32_shipped_lattab(&tab, err, sizeof(err))) {
		report("learn: the latency table", err, "(figure only)", 0);
		return;
	}
	nm = scandir(root, &mach, NULL, alphasort);
	if (nm < 0) {
		report("learn: recorded machines", "no t/data/recorded folder", "(figure only)", 0);
		t32_lattab_free(&tab);
		return;
	}
	for (int m = 0; m < nm; m++) {
		learn_bench_machine(report, root, mach[m]->d_name, &tab);
		free(mach[m]);
	}
	free(mach);
	t32_lattab_free(&tab);
}
