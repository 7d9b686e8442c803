/*
 * probeset.c - recorded blocks read as probes of the retirement model, learned
 * from and predicted (see probeset.h).
 */
#include "t32/core/probeset.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/correlate.h"
#include "t32/util.h"

void t32_probe_set_free(struct t32_probe_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		t32_recorded_free(&s->rec[i]);
	free(s->rec);
	free(s->pr);
	memset(s, 0, sizeof(*s));
}

/* The core the first recorded block of dir names ("zen5"), into core; "" when none. */
void t32_probe_set_core(const char *dir, char *core, size_t len)
{
	char **names, path[PATH_MAX], line[512];
	long n = t32_recorded_list(dir, &names);
	FILE *f;

	core[0] = 0;
	if (n > 0) {
		snprintf(path, sizeof(path), "%.3000s/%.200s/shares.tsv", dir, names[0]);
		if ((f = fopen(path, "r"))) {
			while (fgets(line, sizeof(line), f) && line[0] == '#')
				if (strncmp(line, "# core: ", 8) == 0) {
					sscanf(line + 8, "%31s", core);
					break;
				}
			fclose(f);
		}
	}
	t32_recorded_names_free(names, n > 0 ? n : 0);
	(void)len;
}

/*
 * Read every recorded block under dir (its NAME/ folders) and append it to s;
 * unstable ones are left out unless allow_unstable, unreadable ones left out with
 * a warning (quiet: without).  0, or -1 when dir cannot be read.
 */
int t32_probe_set_read(const char *dir, const struct t32_lattab *shipped,
		       const struct t32_uarch *u, int allow_unstable, int quiet,
		       struct t32_probe_set *s)
{
	char **names, path[PATH_MAX], err[1024];
	long n = t32_recorded_list(dir, &names);
	size_t before = s->n;

	if (n < 0)
		return -1;
	for (long i = 0; i < n; i++) {
		struct t32_recorded r;

		snprintf(path, sizeof(path), "%.3000s/%.200s", dir, names[i]);
		if (t32_recorded_read(path, shipped, u, &r, err, sizeof(err))) {
			if (!quiet)
				t32_warn("left out: %s", err);
			s->unreadable++;
			continue;
		}
		if (r.unstable && !allow_unstable) {
			if (!quiet)
				t32_warn("left out, its samples did not stay put '%s' (%s)", path,
					 r.stability);
			s->unstable++;
			t32_recorded_free(&r);
			continue;
		}
		{
			struct t32_recorded *nr = realloc(s->rec, (s->n + 1) * sizeof(*nr));
			struct t32_learn_probe *np = nr ? realloc(s->pr, (s->n + 1) * sizeof(*np)) : NULL;

			if (nr)
				s->rec = nr;
			if (!np) {
				t32_recorded_free(&r);
				break;
			}
			s->pr = np;
		}
		s->rec[s->n] = r;
		s->n++;
	}
	/* the probes point into rec, which moved as it grew: set them now, held kept */
	for (size_t i = 0; i < s->n; i++) {
		int h = i < before ? s->pr[i].held : 0;

		t32_recorded_probe(&s->rec[i], &s->pr[i]);
		s->pr[i].held = h;
	}
	t32_recorded_names_free(names, n);
	return 0;
}

/* Mark the probes from index `from` on as held (predicted only). */
void t32_probe_set_hold_from(struct t32_probe_set *s, size_t from)
{
	for (size_t i = from; i < s->n; i++)
		s->pr[i].held = 1;
}

/* Load the shipped latency table; 0, or -1 with err. */
int t32_shipped_lattab(struct t32_lattab *tab, char *err, size_t errlen)
{
	char path[PATH_MAX];

	tab->e = NULL;
	tab->n = 0;
	snprintf(path, sizeof(path), "%.4000s/uarch/latency.lat", t32_datadir());
	if (access(path, F_OK) == 0 && t32_lattab_load(tab, path, err, errlen))
		return -1;
	return 0;
}

/*
 * Learn from every probe of s not held: the keys of list (comma-separated,
 * "none" for none), or by default those the probes touch, less the pinned ones
 * (npinned "key=value" texts).
 */
int t32_probe_set_fit_keys(const struct t32_uarch *u, struct t32_probe_set *s, const char *list,
			   const char *const *pinned, size_t npinned, struct t32_learn_result *r,
			   char *err, size_t errlen)
{
	char keys[T32_LEARN_MAX_PARAMS][48];
	const char *params[T32_LEARN_MAX_PARAMS];
	size_t nk = 0, m = 0;

	if (list && strcmp(list, "none") != 0) {
		while (*list && nk < T32_LEARN_MAX_PARAMS) {
			size_t l = strcspn(list, ",");

			snprintf(keys[nk++], 48, "%.*s", (int)(l < 47 ? l : 47), list);
			list += l + (list[l] == ',');
		}
		if (*list) {
			snprintf(err, errlen, "more than %d keys to learn at once", T32_LEARN_MAX_PARAMS);
			return -1;
		}
	} else if (!list) {
		nk = t32_learn_default_params(u, s->pr, s->n, keys, T32_LEARN_MAX_PARAMS);
	}
	for (size_t j = 0; j < nk; j++) {
		size_t l = strlen(keys[j]), p;

		for (p = 0; p < npinned; p++)
			if (strncmp(pinned[p], keys[j], l) == 0 && pinned[p][l] == '=')
				break;
		if (p == npinned)
			params[m++] = keys[j];
	}
	return t32_learn_fit(u, s->pr, s->n, params, m, NULL, r, err, errlen);
}

/* Learn from every probe of s not held, with the default parameters. */
int t32_probe_set_fit(const struct t32_uarch *u, struct t32_probe_set *s,
		      struct t32_learn_result *r, char *err, size_t errlen)
{
	return t32_probe_set_fit_keys(u, s, NULL, NULL, 0, r, err, errlen);
}

/* The prediction of probe i by u: TVD and cycles error (percent); -1 when it cannot run. */
int t32_probe_figures(const struct t32_uarch *u, const struct t32_learn_probe *p, double *tvd,
		      double *cpi, double *dev, double *chi2)
{
	struct t32_corr_result r;
	char err[256];
	struct t32_corr_data fast = t32_corr_fast(u, p->n, &p->d);
	double slope;

	if (t32_learn_predict(u, p, &r, err, sizeof(err)))
		return -1;
	slope = t32_corr_curve_slope(&fast);
	*tvd = r.samples ? r.gof.tvd : NAN;
	if (dev)
		*dev = r.deviance;
	if (chi2)
		*chi2 = r.curve_chi2;
	*cpi = slope > 0 ? 100 * (r.cycles_per_iter - slope) / slope : NAN;
	t32_corr_result_free(&r);
	return 0;
}

/*
 * What a probe may take when `left` seconds of the budget remain for `probes`
 * probes: its equal share, of which LEARN_SETUP goes to what is not timed by
 * row or by sampling (its latencies, a measuring process), the sampling gets
 * its --seconds and the rows of the step curve what the sampling is expected
 * to leave (LEARN_ROW_MIN to LEARN_ROW_MAX each): its --seconds, or less when
 * its sample count ends it sooner (expect); a share too small for that takes
 * the sampling down, to LEARN_SAMPLE_MIN.  On a quiet machine rows end long
 * before their limit, and what they and the sampling leave goes to the probes
 * after; a sampling that runs past its expected time takes from them.
 */
#define LEARN_SETUP 1.0		/* seconds */
#define LEARN_ROW_MIN 0.05
#define LEARN_ROW_MAX 0.25	/* t32 correlate's own */
#define LEARN_SAMPLE_MIN 0.5
void t32_learn_allowance(double left, size_t probes, size_t rows, double seconds, double expect,
			 double *sample, double *row)
{
	double share = left / (double)(probes ? probes : 1) - LEARN_SETUP;
	double r = (share - fmin(seconds, expect)) / (double)(rows ? rows : 1);

	*sample = seconds;
	if (r < LEARN_ROW_MIN) {
		r = LEARN_ROW_MIN;
		*sample = share - r * (double)rows;	/* below what was expected, since r was */
		/* at least half a second, or --seconds when that asked for less */
		if (*sample < fmin(seconds, LEARN_SAMPLE_MIN))
			*sample = fmin(seconds, LEARN_SAMPLE_MIN);
	}
	*row = r > LEARN_ROW_MAX ? LEARN_ROW_MAX : r;
}

int t32_learn_resweep(double left, size_t probes, double pace, size_t rows, double row)
{
	return left - pace * (double)(probes ? probes : 1) >= row * (double)rows;
}

double t32_learn_least(size_t rows, double seconds)
{
	return LEARN_SETUP + fmin(seconds, LEARN_SAMPLE_MIN) + LEARN_ROW_MIN * (double)rows;
}
