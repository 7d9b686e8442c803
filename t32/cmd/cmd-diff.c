/*
 * cmd-diff.c - `t32 diff A B`: what changed from A to B, per statistic, with an
 * interval for the change and whether it is significant.
 *
 *   two wake results (t32 wake -o): count, min, the percentiles and max of the
 *     kept latencies (and spin gaps).  Each percentile's interval is taken at
 *     97.5% from its binomial order statistics, so both hold at once with at
 *     least 95% and the change lies in [B.lo - A.hi, B.hi - A.lo] with 95%,
 *     whatever the distributions: significant when that excludes 0.
 *     -o DIR draws the two histograms and tails overlaid.
 *   two sweeps of one table (or one spec): each row (form, mode, n) in both, the
 *     change of its estimate with the two 95% half-widths combined
 *     (sqrt(a^2 + b^2)): significant when the change is larger.
 *
 * Files of different kinds, sweeps of different tables or units are refused.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "t32/cmd/cmd.h"
#include "t32/cmd/options.h"
#include "t32/spec.h"
#include "t32/io/sweepfile.h"
#include "t32/io/tsv.h"
#include "t32/util.h"
#include "t32/core/wake.h"

static const char diff_usage[] = "t32 diff [--format table|tsv|json] [-o DIR] A B";

enum kind { KIND_NONE, KIND_WAKE, KIND_SWEEP };
static const char *const kind_names[] = { "neither a wake result nor a sweep", "a wake result",
					  "a sweep" };

/* What a file is, from its '#' lines before the first other line; -1 when unreadable. */
static int kind_of(const char *path, enum kind *k, char *sweep_line, size_t len)
{
	struct t32_tsv t;
	int got;

	*k = KIND_NONE;
	if (t32_tsv_open(&t, path))
		return -1;
	while ((got = t32_tsv_next(&t)) > 0 && t.line[0] == '#') {
		if (strncmp(t.line, "# wake: ", 8) == 0)
			*k = KIND_WAKE;
		else if (strncmp(t.line, "# sweep: ", 9) == 0) {
			*k = KIND_SWEEP;
			snprintf(sweep_line, len, "%s", t.line);
		}
	}
	t32_tsv_close(&t);
	return got < 0 ? -1 : 0;
}

/* One statistic of A and B and their change. */
struct change {
	const char *metric, *stat;
	double a, a_lo, a_hi, b, b_lo, b_hi;	/* ns (or the sweep's unit) */
	double d, d_lo, d_hi;			/* B - A and its interval; NAN: none */
	int significant;			/* -1: no interval to tell */
};

/* A number in a tsv field: empty when there is none, inf for an unbounded side. */
static void num(FILE *f, double v)
{
	if (isnan(v))
		return;
	if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", f);
	else
		fprintf(f, "%.4g", v);
}

static void json_num(double v)
{
	if (isfinite(v))
		printf("%.6g", v);
	else
		printf("null");
}

static const char *verdict(int s)
{
	return s > 0 ? "yes" : s == 0 ? "no" : "-";
}

/* The rows as tsv (unit in the column names), json, or a table for people. */
static void print_changes(const struct change *c, size_t n, enum t32_format fmt, const char *unit,
			  const char *key_names)
{
	if (fmt == T32_FMT_TSV) {
		printf("%s\ta_%s\ta_lo_%s\ta_hi_%s\tb_%s\tb_lo_%s\tb_hi_%s\tchange_%s\t"
		       "change_lo_%s\tchange_hi_%s\tchange_percent\tsignificant\n", key_names,
		       unit, unit, unit, unit, unit, unit, unit, unit, unit);
		for (size_t i = 0; i < n; i++) {
			double v[] = { c[i].a, c[i].a_lo, c[i].a_hi, c[i].b, c[i].b_lo, c[i].b_hi,
				       c[i].d, c[i].d_lo, c[i].d_hi,
				       c[i].a != 0 ? 100 * c[i].d / fabs(c[i].a) : NAN };

			t32_tsv_fputs(c[i].metric, stdout);
			putchar('\t');
			t32_tsv_fputs(c[i].stat, stdout);
			for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
				putchar('\t');
				num(stdout, v[k]);
			}
			printf("\t%s\n", verdict(c[i].significant));
		}
		return;
	}
	if (fmt == T32_FMT_JSON) {
		printf("\"unit\": \"%s\", \"changes\": [", unit);
		for (size_t i = 0; i < n; i++) {
			if (c[i].stat[0]) {
				printf("%s{\"what\": ", i ? ", " : "");
				t32_json_string(stdout, c[i].metric);
				printf(", \"statistic\": ");
				t32_json_string(stdout, c[i].stat);
			} else {
				/* a sweep row: its key is form, mode and n joined by tabs */
				const char *k = c[i].metric, *names[] = { "form", "mode", "n" };

				for (int f = 0; f < 3; f++) {
					char *field = strndup(k, strcspn(k, "\t"));

					printf("%s\"%s\": ", f ? ", " : i ? ", {" : "{", names[f]);
					t32_json_string(stdout, field ? field : "");
					free(field);
					k += strcspn(k, "\t");
					k += *k == '\t';
				}
			}
			{
				const char *key[] = { "a", "a_lo", "a_hi", "b", "b_lo", "b_hi",
						      "change", "change_lo", "change_hi" };
				const double val[] = { c[i].a, c[i].a_lo, c[i].a_hi, c[i].b,
							c[i].b_lo, c[i].b_hi, c[i].d, c[i].d_lo,
							c[i].d_hi };

				for (size_t q = 0; q < sizeof(key) / sizeof(key[0]); q++) {
					printf(", \"%s\": ", key[q]);
					json_num(val[q]);
				}
			}
			printf(", \"significant\": %s}", c[i].significant > 0 ? "true" :
			       c[i].significant == 0 ? "false" : "null");
		}
		printf("]");
		return;
	}
	printf("%-28s %10s %10s %10s %-23s %8s  %s\n", "", "A", "B", "change", "95% interval",
	       "change%", "significant");
	for (size_t i = 0; i < n; i++) {
		char what[96], iv[64], pct[16];

		snprintf(what, sizeof(what), "%.60s %s", c[i].metric, c[i].stat);
		if (isnan(c[i].d_lo))
			snprintf(iv, sizeof(iv), "-");
		else
			snprintf(iv, sizeof(iv), "%.4g .. %.4g", c[i].d_lo, c[i].d_hi);
		if (c[i].a != 0 && isfinite(c[i].d))
			snprintf(pct, sizeof(pct), "%+.1f%%", 100 * c[i].d / fabs(c[i].a));
		else
			snprintf(pct, sizeof(pct), "-");
		printf("%-28s %10.4g %10.4g %+10.4g %-23s %8s  %s\n", what, c[i].a, c[i].b, c[i].d, iv,
		       pct, verdict(c[i].significant));
	}
}

/* Add the statistics of one column of two wake results, in us. */
static size_t wake_changes(const struct t32_wake_data *a, const struct t32_wake_data *b,
			   const char *metric, const double *ca, const double *cb,
			   struct change *c)
{
	struct t32_wake_stats sa, sb;
	double *xa, *xb;
	size_t ka = t32_wake_kept(a, ca, &xa), kb = t32_wake_kept(b, cb, &xb), n = 0;

	t32_wake_stats(xa, ka, 0.975, &sa);
	t32_wake_stats(xb, kb, 0.975, &sb);
	free(xa);
	free(xb);
	c[n++] = (struct change){ metric, "count", (double)sa.n, NAN, NAN, (double)sb.n, NAN, NAN,
				  (double)sb.n - (double)sa.n, NAN, NAN, -1 };
	c[n++] = (struct change){ metric, "min", sa.min / 1e3, NAN, NAN, sb.min / 1e3, NAN, NAN,
				  (sb.min - sa.min) / 1e3, NAN, NAN, -1 };
	for (int i = 0; i < T32_WAKE_NQ; i++) {
		const struct t32_wake_q *qa = &sa.q[i], *qb = &sb.q[i];
		struct change *x = &c[n++];

		*x = (struct change){ metric, t32_wake_pnames[i], qa->value / 1e3, qa->lo / 1e3,
				      qa->hi / 1e3, qb->value / 1e3, qb->lo / 1e3, qb->hi / 1e3,
				      (qb->value - qa->value) / 1e3, (qb->lo - qa->hi) / 1e3,
				      (qb->hi - qa->lo) / 1e3, 0 };
		/* an interval open on the side that matters cannot tell */
		if (x->d_lo > 0 || x->d_hi < 0)
			x->significant = 1;
		else if (isnan(x->d_lo) || isnan(x->d_hi))
			x->significant = -1;
	}
	c[n++] = (struct change){ metric, "max", sa.max / 1e3, NAN, NAN, sb.max / 1e3, NAN, NAN,
				  (sb.max - sa.max) / 1e3, NAN, NAN, -1 };
	return n;
}

/* Draw script's figure of a and b into dir/base.svg and .png; 0, or -1 after a message. */
static int draw(const char *dir, const char *script, const char *a, const char *b,
		const char *base, const char *column)
{
	char gp[PATH_MAX], out[PATH_MAX];
	struct t32_cpu cpu;
	static const char *const exts[] = { "svg", "png" };
	int rc = 0;

	t32_cpu_identify(&cpu);
	snprintf(gp, sizeof(gp), "%.3000s/%s.gp", t32_plotdir(), script);
	for (int i = 0; i < 2; i++) {
		char *argv[] = { "gnuplot", "-c", gp, (char *)a, out, cpu.brand, (char *)b,
				 (char *)column, NULL };
		struct t32_child_output res;

		snprintf(out, sizeof(out), "%.3000s/%s.%s", dir, base, exts[i]);
		if (t32_run_program(argv, &res) || res.status) {
			t32_error("cannot draw '%s' (%s)", out, res.error[0] ? res.error :
				  res.text ? res.text : "gnuplot failed");
			rc = -1;
		}
		t32_child_output_free(&res);
	}
	return rc;
}

static int diff_wake(const char *pa, const char *pb, enum t32_format fmt, const char *dir)
{
	struct t32_wake_data a, b;
	struct change c[2 * (T32_WAKE_NQ + 3)];
	size_t n;
	int rc = t32_wake_load(pa, &a);

	if (rc)
		return rc;
	rc = t32_wake_load(pb, &b);
	if (rc) {
		t32_wake_data_free(&a);
		return rc;
	}
	n = wake_changes(&a, &b, "latency_us", a.latency_ns, b.latency_ns, c);
	if (a.gap_ns && b.gap_ns)
		n += wake_changes(&a, &b, "gap_us", a.gap_ns, b.gap_ns, c + n);
	if (fmt == T32_FMT_JSON) {
		printf("{\"kind\": \"wake\", \"a\": ");
		t32_json_string(stdout, pa);
		printf(", \"b\": ");
		t32_json_string(stdout, pb);
		printf(", \"a_method\": \"%s\", \"b_method\": \"%s\", \"a_kept\": %zu, "
		       "\"b_kept\": %zu, \"level\": 0.95, ", t32_wake_method_names[a.method],
		       t32_wake_method_names[b.method], a.ok, b.ok);
	} else {
		const char *p = fmt == T32_FMT_TSV ? "# " : "";

		printf("%sA: %s: %s, %zu of %zu events kept\n", p, pa,
		       t32_wake_method_names[a.method], a.ok, a.n);
		printf("%sB: %s: %s, %zu of %zu events kept\n", p, pb,
		       t32_wake_method_names[b.method], b.ok, b.n);
		if (a.method != b.method)
			printf("%snote: the methods differ: %s times the return from a sleep, %s the "
			       "timer's signal handler\n", p, t32_wake_method_names[T32_WAKE_SLEEP],
			       t32_wake_method_names[T32_WAKE_SPIN]);
		printf("%schange: B - A in us; its interval holds the true change with 95%% "
		       "(each percentile at 97.5%%, distribution-free)\n%s", p,
		       fmt == T32_FMT_TSV ? "" : "\n");
	}
	print_changes(c, n, fmt, "us", "metric\tstatistic");
	if (fmt == T32_FMT_JSON)
		printf("}\n");
	if (dir) {
		if (mkdir(dir, 0755) && errno != EEXIST) {
			t32_error("cannot make '%s' (%s)", dir, strerror(errno));
			rc = T32_EXIT_ERROR;
		} else if (draw(dir, "wake-hist", pa, pb, "hist", "latency_ns") |
			   draw(dir, "wake-cdf", pa, pb, "cdf", "latency_ns")) {
			rc = T32_EXIT_ERROR;
		} else if (a.gap_ns && b.gap_ns &&
			   (draw(dir, "wake-hist", pa, pb, "gap-hist", "gap_ns") |
			    draw(dir, "wake-cdf", pa, pb, "gap-cdf", "gap_ns"))) {
			rc = T32_EXIT_ERROR;
		}
	}
	t32_wake_data_free(&a);
	t32_wake_data_free(&b);
	return rc;
}

/* A sweep's ok rows: key "form\tmode\tn", estimate and its interval. */
struct sweep_row {
	char *key;
	double est, lo, hi;
};
struct sweep {
	char line[4096];	/* its `# sweep:` line */
	struct sweep_row *rows;
	size_t n, skipped;	/* rows kept; rows not ok */
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct sweep_row *)a)->key, ((const struct sweep_row *)b)->key);
}

static void sweep_free(struct sweep *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->rows[i].key);
	free(s->rows);
}

/* Read a sweep's rows with the one TSV reader; an exit code. */
static int sweep_load(const char *path, struct sweep *s)
{
	static const char *const want[] = { "form", "mode", "n", "per_insn", "ci_lo", "ci_hi",
					    "status" };
	int col[7], header = 0, got, rc = 0;
	size_t cap = 0;
	struct t32_tsv t;

	if (t32_tsv_open(&t, path))
		return T32_EXIT_ERROR;
	while ((got = t32_tsv_next(&t)) > 0) {
		size_t nf;

		if (t.line[0] == '#')
			continue;
		nf = t32_tsv_split(&t);
		if (!header) {
			for (int k = 0; k < 7; k++) {
				/* the one column lookup: an older sweep's `estimate` is per_insn */
				col[k] = (int)t32_tsv_column(t.fields, nf, want[k]);
				if (col[k] < 0) {
					t32_error("not a t32 sweep '%s' (no column %s)", path, want[k]);
					rc = T32_EXIT_USAGE;
				}
			}
			if (rc)
				break;
			header = 1;
			continue;
		}
		int maxc = 0;
		double v[3];

		for (int k = 0; k < 7; k++)
			maxc = col[k] > maxc ? col[k] : maxc;
		if (nf <= (size_t)maxc) {
			t32_error("bad row in '%s' (line %zu)", path, t.lineno);
			rc = T32_EXIT_USAGE;
			break;
		}
		if (strcmp(t.fields[col[6]], "ok") != 0) {
			s->skipped++;
			continue;
		}
		for (int k = 0; k < 3; k++)
			if (t32_parse_real(t.fields[col[3 + k]], -1e300, 1e300, &v[k])) {
				t32_error("bad number '%s' (in %s line %zu)", t.fields[col[3 + k]], path,
					  t.lineno);
				rc = T32_EXIT_USAGE;
				break;
			}
		if (rc)
			break;
		if (s->n == cap) {
			struct sweep_row *r = realloc(s->rows, (cap = cap ? cap * 2 : 256) *
						      sizeof(*r));

			if (!r) {
				rc = T32_EXIT_ERROR;
				break;
			}
			s->rows = r;
		}
		if (asprintf(&s->rows[s->n].key, "%s\t%s\t%s", t.fields[col[0]], t.fields[col[1]],
			     t.fields[col[2]]) < 0) {
			rc = T32_EXIT_ERROR;
			break;
		}
		s->rows[s->n].est = v[0];
		s->rows[s->n].lo = v[1];
		s->rows[s->n].hi = v[2];
		s->n++;
	}
	if (got < 0 && !rc)
		rc = T32_EXIT_ERROR;
	t32_tsv_close(&t);
	if (!rc)
		qsort(s->rows, s->n, sizeof(s->rows[0]), by_key);
	return rc;
}

/* What makes two sweeps comparable: one table (its forms) or one spec, and one unit. */
static int sweeps_comparable(const char *pa, const char *la, const char *pb, const char *lb)
{
	char oa[2048], ob[2048], ua[32], ub[32];
	const char *fa, *fb;

	if (t32_sweep_sig_value(la, "of", oa, sizeof(oa)) ||
	    t32_sweep_sig_value(lb, "of", ob, sizeof(ob)) ||
	    t32_sweep_sig_value(la, "unit", ua, sizeof(ua)) ||
	    t32_sweep_sig_value(lb, "unit", ub, sizeof(ub))) {
		t32_error("not a t32 sweep '%s' (its sweep line lacks of= or unit=)", pb);
		return T32_EXIT_USAGE;
	}
	/* a table is named by its forms' hash, wherever the file was */
	fa = strstr(oa, " forms=");
	fb = strstr(ob, " forms=");
	if ((fa || fb) ? !fa || !fb || strcmp(fa, fb) : strcmp(oa, ob) != 0) {
		t32_error("sweeps of different tables '%s' (of=%.200s in %s, %.200s in %s)", pb, oa, pa,
			  ob, pb);
		return T32_EXIT_USAGE;
	}
	if (strcmp(ua, ub)) {
		t32_error("sweeps in different units '%s' (%s in %s, %s in %s)", pb, ua, pa, ub, pb);
		return T32_EXIT_USAGE;
	}
	return 0;
}

static int diff_sweep(const char *pa, const char *la, const char *pb, const char *lb,
		      enum t32_format fmt)
{
	struct sweep a = { 0 }, b = { 0 };
	struct change *c = NULL;
	size_t n = 0, only_a = 0, only_b = 0, sig = 0, up = 0;
	char unit[32];
	int rc = sweeps_comparable(pa, la, pb, lb);

	if (!rc)
		rc = sweep_load(pa, &a);
	if (!rc)
		rc = sweep_load(pb, &b);
	t32_sweep_sig_value(la, "unit", unit, sizeof(unit));
	if (!rc && !(c = calloc(a.n + 1, sizeof(*c))))
		rc = T32_EXIT_ERROR;
	for (size_t i = 0, j = 0; !rc && (i < a.n || j < b.n);) {
		int o = i == a.n ? 1 : j == b.n ? -1 : strcmp(a.rows[i].key, b.rows[j].key);

		if (o < 0) {
			only_a++;
			i++;
			continue;
		}
		if (o > 0) {
			only_b++;
			j++;
			continue;
		}
		const struct sweep_row *ra = &a.rows[i++], *rb = &b.rows[j++];
		double ha = (ra->hi - ra->lo) / 2, hb = (rb->hi - rb->lo) / 2;
		double d = rb->est - ra->est, h = sqrt(ha * ha + hb * hb);
		struct change *x = &c[n++];

		*x = (struct change){ ra->key, "", ra->est, ra->lo, ra->hi, rb->est, rb->lo, rb->hi,
				      d, d - h, d + h, fabs(d) > h };
		sig += x->significant;
		up += x->significant && d > 0;
	}
	if (!rc) {
		char what[64];

		snprintf(what, sizeof(what), "form\tmode\tn\t%s", unit);
		if (fmt == T32_FMT_JSON) {
			printf("{\"kind\": \"sweep\", \"a\": ");
			t32_json_string(stdout, pa);
			printf(", \"b\": ");
			t32_json_string(stdout, pb);
			printf(", \"rows\": %zu, \"significant\": %zu, \"higher\": %zu, "
			       "\"only_a\": %zu, \"only_b\": %zu, \"not_ok\": %zu, ", n, sig, up,
			       only_a, only_b, a.skipped + b.skipped);
		} else {
			const char *p = fmt == T32_FMT_TSV ? "# " : "";

			printf("%sA: %s\n%sB: %s\n%s%zu rows in both: %zu changed significantly "
			       "(%zu up, %zu down); %zu only in A, %zu only in B, %zu not ok\n"
			       "%schange: B - A in %s per instruction; interval: the 95%% half-widths "
			       "combined\n%s", p, pa, p, pb, p, n, sig, up, sig - up, only_a, only_b,
			       a.skipped + b.skipped, p, unit, fmt == T32_FMT_TSV ? "" : "\n");
		}
		/* the key holds form, mode and n separated by tabs: one column each in tsv and json */
		for (size_t i = 0; fmt == T32_FMT_TABLE && i < n; i++)
			for (char *p = (char *)c[i].metric; *p; p++)
				if (*p == '\t')
					*p = ' ';
		if (fmt == T32_FMT_TSV) {
			printf("form\tmode\tn\ta_%s\ta_lo_%s\ta_hi_%s\tb_%s\tb_lo_%s\tb_hi_%s\t"
			       "change_%s\tchange_lo_%s\tchange_hi_%s\tchange_percent\tsignificant\n",
			       unit, unit, unit, unit, unit, unit, unit, unit, unit);
			for (size_t i = 0; i < n; i++) {
				double v[] = { c[i].a, c[i].a_lo, c[i].a_hi, c[i].b, c[i].b_lo,
					       c[i].b_hi, c[i].d, c[i].d_lo, c[i].d_hi,
					       c[i].a != 0 ? 100 * c[i].d / fabs(c[i].a) : NAN };

				/* the key's fields were read unescaped: escape each again */
				char *k = strdup(c[i].metric), *save = NULL;

				for (char *f = strtok_r(k, "\t", &save); f; f = strtok_r(NULL, "\t", &save)) {
					t32_tsv_fputs(f, stdout);
					putchar('\t');
				}
				free(k);
				for (size_t m = 0; m < sizeof(v) / sizeof(v[0]); m++) {
					num(stdout, v[m]);
					putchar('\t');
				}
				printf("%s\n", verdict(c[i].significant));
			}
		} else {
			print_changes(c, n, fmt, unit, what);
		}
		if (fmt == T32_FMT_JSON)
			printf("}\n");
	}
	free(c);
	sweep_free(&a);
	sweep_free(&b);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	enum t32_format fmt = T32_FMT_TABLE;
	enum kind ka, kb;
	char la[4096] = "", lb[4096] = "";
	const char *dir = NULL;
	int rc;
	const struct t32_option opts[] = {
		T32_OPT_FN("format", "F", t32_opt_format, &fmt, "table (default), tsv or json"),
		T32_OPT_STRING("output", 'o', "DIR", &dir, "wake: overlaid histogram and tail figures, DIR/hist.svg,\n" "cdf.svg (and .png)"),
		T32_OPT_END
	};

	rc = t32_options_parse("diff", diff_usage,
			       "What changed from A to B, per statistic, with a 95% interval for the "
			       "change\nand whether it is significant (the interval excludes 0).\n"
			       "  two wake results (t32 wake -o): count, min, p50, p90, p99, p99.9, "
			       "p99.99, max\n"
			       "    of the kept latencies (and spin gaps); distribution-free intervals\n"
			       "  two sweeps of one table or spec: each row's estimate per instruction\n\n",
			       "\nFiles of different kinds, or sweeps of different tables or units, are "
			       "refused (exit 2).\n", opts, argc, argv, &optind);
	if (rc >= 0)
		return rc;
	if (argc - optind != 2)
		return t32_usage(diff_usage);
	if (kind_of(argv[optind], &ka, la, sizeof(la)) ||
	    kind_of(argv[optind + 1], &kb, lb, sizeof(lb)))
		return T32_EXIT_ERROR;
	if (ka == KIND_NONE || kb == KIND_NONE) {
		t32_error("not a t32 wake result or sweep '%s' (no '# wake:' or '# sweep:' line)",
			  argv[optind + (ka != KIND_NONE)]);
		return T32_EXIT_USAGE;
	}
	if (ka != kb) {
		t32_error("files of different kinds '%s' (%s is %s, %s is %s)", argv[optind + 1],
			  argv[optind], kind_names[ka], argv[optind + 1], kind_names[kb]);
		return T32_EXIT_USAGE;
	}
	if (dir && ka != KIND_WAKE) {
		t32_error("figures are drawn for wake results only '%s'", dir);
		return T32_EXIT_USAGE;
	}
	if (ka == KIND_WAKE)
		rc = diff_wake(argv[optind], argv[optind + 1], fmt, dir);
	else
		rc = diff_sweep(argv[optind], la, argv[optind + 1], lb, fmt);
	if (t32_close_stdout() && !rc)
		rc = T32_EXIT_ERROR;
	return rc;
}
