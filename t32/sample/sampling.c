/*
 * sampling.c - `t32 sample` as a library call (sampling.h): the backend chosen,
 * the block sampled, folded, and its samples checked against each other and
 * against the last run of the same block on this machine (a history kept in the
 * cache directory); the sample TSV.
 */
#include "t32/sample/sampling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "t32/core/block.h"
#include "t32/cpu.h"
#include "t32/core/latcache.h"
#include "t32/util.h"

void t32_sampling_req_init(struct t32_sampling_req *q)
{
	struct t32_block_opts o;

	memset(q, 0, sizeof(*q));
	t32_block_opts_init(&o);
	q->run = o.run;
	q->run.timeout = 0;
	q->period_ns = T32_SAMPLE_PERIOD_NS;
	q->samples = 2000;
	q->seconds = 10.0;
	q->unroll = 1;
}

/*
 * Read a block file into s, keeping what the command line set: its barrier and
 * unroll win over the file's, its --init assignments come after the file's (the
 * last assignment to a register wins).  Returns an exit code; messages printed.
 */
int t32_sampling_load_block(struct t32_sampling_req *a, struct t32_spec *s)
{
	struct t32_spec file = { 0 };
	struct t32_blockfile bf = { 0 };
	char err[512];
	int rc = 0;

	if (t32_spec_set_barrier(&file, s->barrier, err, sizeof(err)) ||
	    t32_spec_set_store(&file, "m", err, sizeof(err)) ||
	    t32_blockfile_load(a->block_file, &file, &bf, err, sizeof(err))) {
		t32_error("%s", err);
		t32_spec_free(&file);
		return bf.unreadable ? T32_EXIT_ERROR : T32_EXIT_USAGE;
	}
	if (!a->barrier_set && bf.has_barrier) {
		memcpy(s->barrier, file.barrier, sizeof(s->barrier));
		a->loop_barrier = strcmp(s->barrier, "n") != 0;
	}
	if (!a->unroll_set && bf.unroll)
		a->unroll = bf.unroll;
	for (size_t i = 0; i < file.nitems && !rc; i++)
		if (t32_spec_add_item(s, file.items[i].reps, file.items[i].text))
			rc = T32_EXIT_ERROR;
	if (file.ninit + s->ninit > T32_MAX_INIT) {
		t32_error("too many register assignments '%s' (at most %d)", a->block_file,
			  T32_MAX_INIT);
		rc = T32_EXIT_USAGE;
	} else {
		memmove(s->init + file.ninit, s->init, s->ninit * sizeof(s->init[0]));
		memcpy(s->init, file.init, file.ninit * sizeof(s->init[0]));
		s->ninit += file.ninit;
	}
	if (rc == T32_EXIT_ERROR)
		t32_error("out of memory '%s'", a->block_file);
	t32_spec_free(&file);
	return rc;
}

/*
 * The body (and --init) in the spec language, without the barrier and store
 * letters t32_spec_format puts first: the loop has no store, and its barrier is
 * shown apart.
 */
void t32_sampling_body_text(const struct t32_spec *s, char *buf, size_t len)
{
	char *p;

	t32_spec_format(s, buf, len);
	p = strchr(buf, ' ');
	p = p ? strchr(p + 1, ' ') : NULL;
	if (p)
		memmove(buf, p + 1, strlen(p + 1) + 1);
}



/*
 * The run's parts (t32_sample_result.parts) over the positions as printed:
 * folded onto the unit when folded, with the loop's overhead as one more.
 */
static void check_within(const struct t32_sample_result *r, size_t ninsn, size_t unit,
			 struct t32_sample_check *ck)
{
	size_t w = unit + 1;
	uint64_t *m;

	if (!r->parts || !unit || !(m = calloc(T32_SAMPLE_PARTS * w, sizeof(uint64_t))))
		return;
	for (size_t p = 0; p < T32_SAMPLE_PARTS; p++) {
		const uint64_t *row = r->parts + p * (ninsn + 1);

		for (size_t i = 0; i < ninsn; i++)
			m[p * w + i % unit] += row[i];
		m[p * w + unit] += row[ninsn];
	}
	ck->have_within = t32_homogeneity(m, T32_SAMPLE_PARTS, w, &ck->within) == 0;
	free(m);
}

#define HISTORY_LINES 500		/* runs the history keeps, newest last */
#define HISTORY_HOURS 24		/* an older run is not compared */
#define HISTORY_POSITIONS 4096	/* a loop's positions (and its overhead) compared, at most */

/*
 * The last run of the same block (the same CPU, body, fold, unroll, backend and
 * period) from the history in the cache directory, compared with this one; then
 * this one written in its place.  A machine that switches between ways of
 * landing interrupts minutes apart shows it here, where one run cannot.
 */
static void check_since(const struct t32_attrib *at, const struct t32_sample_result *r,
			const struct t32_sampling_req *a, const struct t32_spec *s,
			struct t32_sample_check *ck)
{
	char dir[4096], path[4200], key[8192], desc[4096], *text = NULL, *out = NULL;
	struct t32_cpu c;
	size_t len = 0, cap = 0;
	FILE *f, *o;
	time_t now = time(NULL);
	char *lines[HISTORY_LINES + 1];
	size_t nl = 0;

	ck->minutes = -1;
	t32_latcache_dir(NULL, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/samples.tsv", dir);
	t32_cpu_identify(&c);
	t32_sampling_body_text(s, desc, sizeof(desc));
	snprintf(key, sizeof(key), "%s %u %u %u %s|%s|fold %d|unroll %llu|%s|%llu %s", c.vendor,
		 c.family, c.model, c.stepping, c.microcode, desc, a->fold,
		 (unsigned long long)a->unroll, r->backend->name, (unsigned long long)r->period,
		 r->unit);
	for (char *p = key; *p; p++)
		if (*p == '\t' || *p == '\n')
			*p = ' ';
	if ((f = fopen(path, "r"))) {
		ssize_t got;

		while (nl < HISTORY_LINES && (got = getline(&text, &cap, f)) > 0) {
			char *tab = strchr(text, '\t');

			if (text[got - 1] == '\n')
				text[got - 1] = 0;
			if (text[0] == '#' || !tab)
				continue;
			/* KEY \t TIME \t COUNTS: the same block's last run is compared */
			if ((size_t)(tab - text) == strlen(key) && !strncmp(text, key, strlen(key))) {
				char *t2 = strchr(tab + 1, '\t');
				long long then = strtoll(tab + 1, NULL, 10);
				uint64_t m[2 * HISTORY_POSITIONS] = { 0 };
				size_t k = 0, w = at->ninsn + 1;

				/* a loop of more positions is kept, not compared */
				if (w > HISTORY_POSITIONS)
					continue;
				for (char *p = t2 ? t2 + 1 : NULL; p && *p && k < w; k++) {
					m[k] = strtoull(p, &p, 10);
					if (*p == ',')
						p++;
				}
				for (size_t i = 0; i < at->ninsn; i++)
					m[w + i] = at->insn[i].samples;
				m[w + at->ninsn] = at->overhead;
				if (k == w && then <= now && now - then < HISTORY_HOURS * 3600 &&
				    t32_homogeneity(m, 2, w, &ck->since) == 0)
					ck->minutes = (double)(now - then) / 60;
				continue;	/* replaced by this run below */
			}
			if (!(lines[nl] = strdup(text)))
				break;
			nl++;
		}
		fclose(f);
	}
	free(text);
	/* the history again, this run last; the oldest runs go when it is full */
	if ((o = open_memstream(&out, &len))) {
		fprintf(o, "# t32 sample history: the last run of each block on this machine\n");
		for (size_t i = nl >= HISTORY_LINES ? 1 : 0; i < nl; i++)
			fprintf(o, "%s\n", lines[i]);
		fprintf(o, "%s\t%lld\t", key, (long long)now);
		for (size_t i = 0; i < at->ninsn; i++)
			fprintf(o, "%llu,", (unsigned long long)at->insn[i].samples);
		fprintf(o, "%llu\n", (unsigned long long)at->overhead);
		/* the history is a convenience: one that cannot be kept costs nothing */
		if (!fclose(o)) {
			char *slash = strrchr(dir, '/');

			if (slash && slash != dir) {
				*slash = 0;
				mkdir(dir, 0777);
				*slash = '/';
			}
			mkdir(dir, 0777);
			(void)t32_write_file(path, out, len);
		}
	}
	free(out);
	for (size_t i = 0; i < nl; i++)
		free(lines[i]);
}

void t32_sampling_tsv(FILE *f, const struct t32_sampling_req *a, const struct t32_spec *s,
		      const struct t32_sampling *out, const char *command)
{
	const struct t32_attrib *at = &out->r.at;
	const struct t32_sample_result *r = &out->r;
	const struct t32_sample_check *ck = &out->ck;
	size_t unit = out->unit;
	int loop_barrier = a->loop_barrier;
	char desc[4096];

	t32_sampling_body_text(s, desc, sizeof(desc));
	if (command)
		t32_provenance_of(f, command);
	else
		t32_provenance(f, 0, NULL);
	fprintf(f, "# block: %s\n# barrier: %s\n", desc, loop_barrier ? s->barrier : "none");
	if (a->block_file[0])
		fprintf(f, "# block_file: %s\n", a->block_file);
	fprintf(f, "# backend: %s\n# event: %s\n# period: %llu %s\n# skid: %s\n", r->backend->name,
	       r->event, (unsigned long long)r->period, r->unit, r->backend->skid);
	fprintf(f, "# samples: %llu in %.3f s, lost %llu, dropped %llu\n", (unsigned long long)r->samples,
	       r->seconds, (unsigned long long)r->lost,
	       (unsigned long long)r->dropped);
	fprintf(f, "# ns_per_iter_alone: %.4f\n# ns_per_iter_sampled: %.4f\n# unroll: %llu\n",
	       r->ns_alone, r->ns_sampled, (unsigned long long)a->unroll);
	fprintf(f, "# slowdown_percent: %.2f\n",
	       r->ns_alone > 0 ? (r->ns_sampled / r->ns_alone - 1) * 100 : 0.0);
	fprintf(f, "# folded: %s (%zu copies of %zu instructions)\n", at->copies > 1 ? "yes" : "no",
	       at->copies, at->copies > 1 ? unit : at->ninsn);
	fprintf(f, "# body_samples: %llu\n# overhead_samples: %llu\n# image_samples: %llu\n"
	       "# outside_samples: %llu\n", (unsigned long long)at->body,
	       (unsigned long long)at->overhead, (unsigned long long)at->image,
	       (unsigned long long)at->outside);
	if (ck->have_within)
		fprintf(f, "# stability: %s (parts %u, chi2 %.3f, df %u, p %.3g, tvd %.4f, "
		       "beyond_noise %.4f)\n", ck->within.unstable ? "unstable" : "stable",
		       ck->within.parts, ck->within.chi2, ck->within.df, ck->within.p, ck->within.tvd,
		       ck->within.excess);
	if (ck->minutes >= 0)
		fprintf(f, "# since_last: %s (%.1f minutes ago, p %.3g, tvd %.4f, beyond_noise %.4f)\n",
		       ck->since.unstable ? "moved" : "same", ck->minutes, ck->since.p, ck->since.tvd,
		       ck->since.excess);
	fprintf(f, "position\toffset_bytes\tinsn\tsamples\tshare\tshare_lo\tshare_hi\t"
	       "tag_to_ret_cycles\tcomp_to_ret_cycles\n");
	for (size_t i = 0; i < at->ninsn; i++) {
		const struct t32_attr_insn *x = &at->insn[i];
		double lo, hi;

		t32_wilson(x->samples, at->body, 1.96, &lo, &hi);
		fprintf(f, "%zu\t%llu\t%s\t%llu\t%.5f\t%.5f\t%.5f\t", i,
		       (unsigned long long)(x->off - at->body_off), x->text,
		       (unsigned long long)x->samples,
		       at->body ? (double)x->samples / (double)at->body : 0.0, lo, hi);
		if (x->cycles_n)
			fprintf(f, "%.2f\t%.2f\n", (double)x->tag_to_ret / (double)x->cycles_n,
			       (double)x->comp_to_ret / (double)x->cycles_n);
		else
			fprintf(f, "-\t-\n");
	}
}


int t32_sampling_take(const struct t32_sampling_req *q, const struct t32_spec *s,
		      const volatile sig_atomic_t *stop, struct t32_sampling *out)
{
	const struct t32_sample_backend *b = q->backend;
	struct t32_sample_request rq;
	struct t32_attrib folded;
	struct t32_fault f;
	char why[1024];
	int rc;

	memset(out, 0, sizeof(*out));
	out->ck.minutes = -1;
	/* the backend: asked for, or the first available; unavailable is exit 3 */
	if (b && b->probe(why, sizeof(why))) {
		t32_error("sampling backend unavailable here '%s' (%s)", b->name, why);
		return T32_EXIT_UNAVAILABLE;
	}
	if (!b && !(b = t32_sample_backend_auto(why, sizeof(why)))) {
		t32_error("no sampling backend available here '%s' (%s)", "auto", why);
		return T32_EXIT_UNAVAILABLE;
	}
	rq = (struct t32_sample_request){ .backend = b, .clock = q->clock,
					  .period_ns = q->period_ns, .max_samples = q->samples,
					  .seconds = q->seconds, .unroll = q->unroll,
					  .loop_barrier = q->loop_barrier, .run = q->run };
	if (!(rq.run.timeout > 0))
		rq.run.timeout = q->seconds + 30;
	rc = t32_sample_block(s, &rq, &out->r, &f);
	if (rc == 3) {
		t32_error("sampling backend unavailable here '%s' (%s)", b->name, out->r.err);
		return T32_EXIT_UNAVAILABLE;
	}
	if (rc && f.kind != T32_OK)
		return t32_report_fault(&f, s);
	if (rc) {
		t32_error("cannot sample the block '%s'", out->r.err);
		return T32_EXIT_ERROR;
	}
	out->unit = t32_attrib_unit(&out->r.at);
	check_within(&out->r, out->r.at.ninsn,
		     q->fold && out->unit < out->r.at.ninsn ? out->unit : out->r.at.ninsn, &out->ck);
	if (q->fold && out->unit < out->r.at.ninsn) {
		if (t32_attrib_fold(&out->r.at, out->unit, &folded)) {
			t32_error("cannot fold the body '%s'", "out of memory");
			return T32_EXIT_ERROR;
		}
		t32_attrib_free(&out->r.at);
		out->r.at = folded;
	}
	if (out->r.at.body >= T32_SAMPLING_MIN_BODY && !(stop && *stop))
		check_since(&out->r.at, &out->r, q, s, &out->ck);
	return 0;
}

enum t32_sampling_doubt t32_sampling_doubt(const struct t32_sampling *out)
{
	if (out->r.at.body < T32_SAMPLING_MIN_BODY)
		return T32_SAMPLING_FEW;
	if (out->ck.have_within && out->ck.within.unstable)
		return T32_SAMPLING_UNSTABLE;
	return T32_SAMPLING_TRUSTED;
}

void t32_sampling_free(struct t32_sampling *out)
{
	t32_sample_result_free(&out->r);
}
