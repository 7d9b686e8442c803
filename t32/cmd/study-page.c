/*
 * study-page.c - the helpers of `t32 study` (study.h): reading a TSV back,
 * drawing figures and writing index.html.
 */
#include "t32/cmd/study.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "t32/core/measure.h"
#include "t32/io/tsv.h"
#include "t32/util.h"

const char *study_path(const struct study *st, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%.2000s/%.1000s", st->dir, name);
	return buf;
}

int study_has(const struct study *st, const char *name)
{
	char path[PATH_MAX];
	struct stat sb;

	return stat(study_path(st, name, path, sizeof(path)), &sb) == 0 && sb.st_size > 0;
}

void study_plot(struct study *st, const char *script, const char *tsv, const char *base,
		const char *title, const char *extra1, const char *extra2)
{
	static const char *const exts[] = { "svg", "png" };
	char gp[PATH_MAX], in[PATH_MAX], out[PATH_MAX], name[512];

	if (!st->plots)
		return;
	snprintf(gp, sizeof(gp), "%.3000s/%.200s.gp", st->plotdir, script);
	study_path(st, tsv, in, sizeof(in));
	for (int i = 0; i < 2; i++) {
		char *argv[] = { "gnuplot", "-c", gp, in, out, (char *)(title ? title : st->machine),
				 (char *)extra1, (char *)extra2, NULL };
		struct t32_child_output res;

		snprintf(name, sizeof(name), "%.400s.%s", base, exts[i]);
		study_path(st, name, out, sizeof(out));
		if (!extra1)
			argv[6] = NULL;
		else if (!extra2)
			argv[7] = NULL;
		if (t32_run_program(argv, &res) || res.status) {
			t32_error("cannot draw '%s' (%s)", out,
				  res.error[0] ? res.error : res.text ? res.text : "gnuplot failed");
			st->failures++;
		}
		t32_child_output_free(&res);
	}
}

void study_provenance(const struct study *st, FILE *f, const char *recipe, const char *what)
{
	t32_provenance(f, 0, NULL);
	fprintf(f, "# recipe: %s: %s\n", recipe, what);
	fprintf(f, "# tsc: %.4f GHz, step %llu ticks\n", st->env.tsc_ghz,
		(unsigned long long)st->env.q);
	if (st->ratio > 0)
		fprintf(f, "# calibration: %.5f +- %.5f core cycles per tick (chains of add, "
			   "measured as the study began)\n", st->ratio, st->env.ratio_hw);
	else
		fprintf(f, "# calibration: none (cycles columns are empty)\n");
	fprintf(f, "# barrier: %s, store m, cpu %d\n", st->barrier, st->env.pinned);
}

/* Append p to a growing array of pointers. */
static int push(void ***arr, size_t *n, void *p)
{
	void **grown = realloc(*arr, (*n + 1) * sizeof(void *));

	if (!grown)
		return -1;
	*arr = grown;
	grown[(*n)++] = p;
	return 0;
}

int tab_load(struct tab *t, const char *path, int quiet)
{
	struct t32_tsv r;
	int got, rc = 0;
	FILE *f;

	memset(t, 0, sizeof(*t));
	if (quiet) {
		/* a recipe that has not run leaves no file: not an error here */
		if (!(f = fopen(path, "r")))
			return -1;
		if (t32_tsv_from(&r, f, path)) {
			fclose(f);
			return -1;
		}
	} else if (t32_tsv_open(&r, path)) {
		return -1;
	} else {
		f = NULL;
	}
	while (rc == 0 && (got = t32_tsv_next(&r)) > 0) {
		size_t nf;
		char **fields;

		if (r.line[0] == '#') {
			const char *c = r.line + 1 + (r.line[1] == ' ');
			char *copy = strdup(c);

			if (!copy || push((void ***)&t->comments, &t->ncomments, copy))
				rc = -1;
			continue;
		}
		if (!r.line[0])
			continue;
		nf = t32_tsv_split(&r);
		if (!(fields = calloc(nf + 1, sizeof(char *)))) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < nf; i++)
			if (!(fields[i] = strdup(r.fields[i])))
				rc = -1;
		if (!t->head) {
			t->head = fields;
			t->nhead = nf;
		} else if (push((void ***)&t->rows, &t->nrows, fields)) {
			rc = -1;
		}
		if (rc == 0 && t->head != fields)
			/* a short row reads as empty cells */
			for (size_t i = nf; i < t->nhead; i++) {
				char **grown = realloc(t->rows[t->nrows - 1], (i + 2) * sizeof(char *));

				if (!grown || !(grown[i] = strdup(""))) {
					rc = -1;
					break;
				}
				grown[i + 1] = NULL;
				t->rows[t->nrows - 1] = grown;
			}
	}
	if (got < 0)
		rc = -1;
	t32_tsv_close(&r);
	if (f)
		fclose(f);
	if (rc)
		tab_free(t);
	return rc;
}

static void free_fields(char **f)
{
	for (size_t i = 0; f && f[i]; i++)
		free(f[i]);
	free(f);
}

void tab_free(struct tab *t)
{
	t32_free_strings(t->comments, t->ncomments);
	free_fields(t->head);
	for (size_t i = 0; i < t->nrows; i++)
		free_fields(t->rows[i]);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

const char *tab_get(const struct tab *t, size_t r, const char *name)
{
	long c = t->head ? t32_tsv_column(t->head, t->nhead, name) : -1;

	if (c < 0 || r >= t->nrows)
		return "";
	return t->rows[r][c] ? t->rows[r][c] : "";
}

double tab_num(const struct tab *t, size_t r, const char *name)
{
	const char *s = tab_get(t, r, name);
	char *end;
	double v;

	if (!*s)
		return NAN;
	v = strtod(s, &end);
	return *end ? NAN : v;
}

const char *tab_comment(const struct tab *t, const char *key)
{
	size_t l = strlen(key);

	for (size_t i = 0; i < t->ncomments; i++)
		if (strncmp(t->comments[i], key, l) == 0 && t->comments[i][l] == ':')
			return t->comments[i] + l + 1 + (t->comments[i][l + 1] == ' ');
	return "";
}

void html_text(FILE *h, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", h); break;
		case '>': fputs("&gt;", h); break;
		case '&': fputs("&amp;", h); break;
		case '"': fputs("&quot;", h); break;
		default: putc(*s, h);
		}
}

void html_figure(const struct study *st, FILE *h, const char *base, const char *data,
		 const char *caption)
{
	char svg[512], png[512];
	int has_png;

	snprintf(svg, sizeof(svg), "%.400s.svg", base);
	snprintf(png, sizeof(png), "%.400s.png", base);
	has_png = study_has(st, png);
	if (!study_has(st, svg) && !has_png)
		return;
	fprintf(h, "<figure><a href=\"");
	html_text(h, svg);
	fprintf(h, "\"><img src=\"");
	html_text(h, study_has(st, svg) ? svg : png);
	fprintf(h, "\" alt=\"");
	html_text(h, caption);
	fprintf(h, "\"></a><figcaption>");
	html_text(h, caption);
	fprintf(h, " <span class=\"links\">(<a href=\"");
	html_text(h, svg);
	fprintf(h, "\">SVG</a>");
	if (has_png) {
		fprintf(h, ", <a href=\"");
		html_text(h, png);
		fprintf(h, "\">PNG</a>");
	}
	if (data) {
		fprintf(h, ", data <a href=\"");
		html_text(h, data);
		fprintf(h, "\">");
		html_text(h, data);
		fprintf(h, "</a>");
	}
	fprintf(h, ")</span></figcaption></figure>\n");
}

void html_dated(FILE *h, const struct tab *t)
{
	const char *date = tab_comment(t, "date");

	if (*date) {
		fprintf(h, "<p class=\"dated\">Measured ");
		html_text(h, date);
		fprintf(h, ".</p>\n");
	}
}

const char *study_thousands(double n, char *buf, size_t len)
{
	char raw[64];
	size_t l, o = 0;
	int neg = n < 0;

	snprintf(raw, sizeof(raw), "%.0f", fabs(n));
	l = strlen(raw);
	if (neg && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < l && o + 2 < len; i++) {
		buf[o++] = raw[i];
		if ((l - i - 1) % 3 == 0 && i + 1 < l)
			buf[o++] = ',';
	}
	buf[o] = 0;
	return buf;
}

/* A row of the header table: the key as it is, the value escaped. */
static void head_row(FILE *h, const char *key, const char *value)
{
	fprintf(h, "<tr><th>%s</th><td>", key);
	html_text(h, value);
	fprintf(h, "</td></tr>\n");
}

static const char style[] =
	"body{font-family:sans-serif;line-height:1.45;max-width:62em;margin:0 auto;"
	"padding:0 1.2em 2em;color:#222}"
	"h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;font-size:92%;margin:0.6em 0}"
	"td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"table.head th{background:#f4f4f4;white-space:nowrap}"
	"table.head td{overflow-wrap:anywhere}"
	".wide{overflow-x:auto;max-width:100%}"
	"figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}"
	"figcaption{font-size:90%;color:#444}"
	".shows{background:#f6f8fa;border-left:4px solid #3465a4;padding:0.5em 1em}"
	".miss{color:#a40000;font-weight:bold}.met{color:#2e7d32}"
	".dated{font-size:85%;color:#666;margin:0}"
	"code{overflow-wrap:anywhere}"
	"ul.files{columns:2 18em;font-size:90%}"
	/*
	 * On paper: A4 margins, no table split from its header row (the header
	 * repeats on each page), rows, figures and the paragraphs that read them
	 * kept whole, a heading kept with what follows, links without their
	 * decoration, wide tables shrunk to the page rather than cut off.
	 */
	"@page{size:A4;margin:16mm 14mm}"
	"@media print{body{max-width:none;padding:0;font-size:10pt;line-height:1.35}"
	"h1,h2,h3{break-after:avoid;page-break-after:avoid}"
	"h2{margin-top:1.2em}"
	"thead{display:table-header-group}"
	"tr,figure,.shows,table.head{break-inside:avoid;page-break-inside:avoid}"
	"figure img{max-height:100mm;width:auto;border:none}"
	".wide{overflow:visible}.wide table{font-size:80%}"
	"nav,.links{display:none}"
	"a{color:inherit;text-decoration:none}"
	"ul.files{columns:3 12em;font-size:80%}}";

/*
 * The hypervisor by name, from its CPUID vendor signature ("bhyve bhyve ",
 * "KVMKVMKVM"): the signature repeats the name to fill twelve bytes.
 */
static const char *hypervisor_name(const char *sig)
{
	static const struct {
		const char *sig, *name;
	} known[] = {
		{ "KVMKVMKVM", "KVM" }, { "bhyve bhyve", "bhyve" }, { "Microsoft Hv", "Hyper-V" },
		{ "VMwareVMware", "VMware" }, { "XenVMMXenVMM", "Xen" }, { "TCGTCGTCGTCG", "QEMU (TCG)" },
		{ "VBoxVBoxVBox", "VirtualBox" }, { "ACRNACRNACRN", "ACRN" }, { " lrpepyh  vr", "Parallels" },
		{ "QNXQVMBSQG", "QNX" },
	};
	static char own[16];
	size_t l;

	if (!sig[0])
		return "unnamed";
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strncmp(sig, known[i].sig, strlen(known[i].sig)))
			return known[i].name;
	snprintf(own, sizeof(own), "%s", sig);
	for (l = strlen(own); l && own[l - 1] == ' '; l--)
		own[l - 1] = 0;
	return own;
}

/* The CPUs sharing the measuring CPU's core, as a reader says it. */
static const char *siblings_text(const struct t32_env *e, char *buf, size_t len)
{
	char self[16];

	snprintf(self, sizeof(self), "%d", e->pinned);
	if (!e->sibling[0])
		snprintf(buf, len, "whether another CPU shares its core is unknown");
	else if (!strcmp(e->sibling, self))
		snprintf(buf, len, "no other CPU shares its core%s",
			 e->cpu.hypervisor ? " as the guest sees it; the host's may" : "");
	else
		snprintf(buf, len, "CPUs %s share its core (SMT)", e->sibling);
	return buf;
}

void html_head(struct study *st, FILE *h, int argc, char **argv)
{
	const struct t32_env *e = &st->env;
	char buf[8192], text[512], date[64], sib[160];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	fprintf(h, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<title>t32 study: ");
	html_text(h, st->machine);
	fprintf(h, "</title>\n<style>%s</style></head><body>\n", style);
	fprintf(h, "<h1>The t32 coursework study, reproduced on ");
	html_text(h, st->machine);
	fprintf(h, "</h1>\n<p>The experiments of the coursework on instruction timing (t32: "
		   "a block of <i>n</i> instructions between serialising barriers, timed with the "
		   "TSC, the minimum of many runs kept) run again on this machine, with what t32 "
		   "adds: estimates below the TSC's step, core cycles, and where timer interrupts "
		   "land. Each section says what it shows, from the data beside it.</p>\n");
	fprintf(h, "<div class=\"wide\"><table class=\"head\">\n");
	snprintf(buf, sizeof(buf), "%s (%s family %#x model %#x stepping %u)", e->cpu.brand,
		 e->cpu.vendor, e->cpu.family, e->cpu.model, e->cpu.stepping);
	head_row(h, "CPU", buf);
	t32_uarch_choice_text(&e->uarch, e->uarch.data, text, sizeof(text));
	if (e->uarch.how == T32_UARCH_FALLBACK)
		snprintf(buf, sizeof(buf), "%s: the model and correlate use %s's data, the nearest "
			 "core that has them", text, e->uarch.data);
	else if (e->uarch.how == T32_UARCH_UNKNOWN)
		snprintf(buf, sizeof(buf), "%s: no data for this core; the model and correlate "
			 "start from data/uarch/%s.uarch and time the block's instructions here",
			 text, e->uarch.data);
	else
		snprintf(buf, sizeof(buf), "%s: the model and correlate use its own data "
			 "(data/uarch/%s.uarch)", text, e->uarch.data);
	head_row(h, "Micro-architecture", buf);
	if (e->cpu.hypervisor)
		snprintf(buf, sizeof(buf), "a virtual machine (hypervisor %s): cpuid traps, the "
			 "core clock may move, a neighbour may share the core",
			 hypervisor_name(e->cpu.hv_vendor));
	else
		snprintf(buf, sizeof(buf), "bare metal (no hypervisor)");
	head_row(h, "Machine", buf);
	snprintf(buf, sizeof(buf), "%ld online; measured on CPU %d (%s)", e->cpus_online, e->pinned,
		 siblings_text(e, sib, sizeof(sib)));
	head_row(h, "CPUs", buf);
	snprintf(buf, sizeof(buf), "%.4f GHz, %s; readings come in steps of %llu tick%s",
		 e->tsc_ghz, e->invariant_tsc ? "invariant" : "NOT invariant",
		 (unsigned long long)e->q, e->q == 1 ? "" : "s");
	head_row(h, "TSC", buf);
	if (st->ratio > 0)
		snprintf(buf, sizeof(buf), "about %.2f GHz: 1 TSC tick = %.4f \u00b1 %.4f core cycles "
			 "(chains of add, measured as the study began)", e->core_ghz, st->ratio,
			 e->ratio_hw);
	else
		snprintf(buf, sizeof(buf), "not measured (no calibration)");
	head_row(h, "Core clock", buf);
	snprintf(buf, sizeof(buf), "%s (%s)", st->barrier,
		 strcmp(st->barrier, "l") == 0 ? "lfence" : "the letters of the classic form");
	for (int i = 0; i < 5; i++)
		if (e->barrier[i].ok && strcmp(e->barrier[i].letters, st->barrier) == 0 && st->ratio > 0)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "; the empty block costs %.0f cycles here", e->barrier[i].cycles);
	if (e->barrier[3].ok && st->ratio > 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 "; cpuid would cost %.0f cycles%s", e->barrier[3].cycles,
			 e->cpu.hypervisor && e->barrier[3].ticks > 2000 ? " (it traps to the hypervisor)" : "");
	head_row(h, "Barrier", buf);
	snprintf(buf, sizeof(buf), "perf_event paranoid %d; task-clock sampling %s; hardware "
		 "counters %s; IBS %s, PEBS %s", e->paranoid, e->perf_sw ? "yes" : "no",
		 e->perf_hw ? "yes" : "no (none of the figures need them)", e->ibs ? "yes" : "no",
		 e->pebs ? "yes" : "no");
	head_row(h, "Sampling", buf);
	head_row(h, "Date", date);
	snprintf(buf, sizeof(buf), "%s, commit %s", T32_VERSION, t32_commit());
	head_row(h, "t32", buf);
	t32_command_line(buf, sizeof(buf), argc, argv);
	fprintf(h, "<tr><th>Command</th><td><code>");
	html_text(h, buf);
	fprintf(h, "</code> (profile %s)</td></tr>\n", st->p->name);
	fprintf(h, "</table></div>\n");
	if (st->ratio > 0)
		fprintf(h, "<p><b>Units.</b> Every figure and table is in <b>core cycles</b>. The "
			   "coursework counted TSC ticks; here 1 tick = %.4f cycles (the TSC runs at "
			   "%.3f GHz, the core at about %.2f GHz) as this run measured it; a file kept "
			   "from an earlier run was converted with its own ratio, named in its "
			   "<code># calibration:</code> line and in its section. The raw ticks are in "
			   "the TSVs. The machine's facts are in <a href=\"env.json\">env.json</a>.</p>\n",
			st->ratio, e->tsc_ghz, e->core_ghz);
	else
		fprintf(h, "<p><b>Units.</b> The core clock could not be calibrated here: figures "
			   "are in TSC ticks. The machine's facts are in "
			   "<a href=\"env.json\">env.json</a>.</p>\n");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files under dir/sub (one level of subdirectories), as "sub/name", into names. */
static void collect(const struct study *st, const char *sub, char ***names, size_t *n, int depth)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;

	if (sub[0])
		study_path(st, sub, path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s", st->dir);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char rel[PATH_MAX], full[PATH_MAX * 2];
		struct stat sb;

		if (e->d_name[0] == '.')
			continue;	/* ., .., and temporary files being written */
		snprintf(rel, sizeof(rel), "%s%s%s", sub, sub[0] ? "/" : "", e->d_name);
		snprintf(full, sizeof(full), "%s/%s", path, e->d_name);
		if (stat(full, &sb))
			continue;
		if (S_ISDIR(sb.st_mode)) {
			if (depth < 2)
				collect(st, rel, names, n, depth + 1);
			continue;
		}
		char *copy = strdup(rel);

		if (copy && push((void ***)names, n, copy))
			free(copy);
	}
	closedir(d);
}

void html_files(const struct study *st, FILE *h)
{
	char **names = NULL;
	size_t n = 0;

	collect(st, "", &names, &n, 0);
	if (n)
		qsort(names, n, sizeof(char *), by_name);
	fprintf(h, "<h2 id=\"files\">Files</h2>\n<p>Everything in this directory, each file "
		   "regenerated by <code>t32 study</code>: TSVs open with <code>#</code> lines "
		   "naming the tool, command, CPU, core, date, TSC and calibration.</p>\n"
		   "<details><summary>%zu files</summary><ul class=\"files\">\n", n);
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct stat sb;

		fprintf(h, "<li><a href=\"");
		html_text(h, names[i]);
		fprintf(h, "\">");
		html_text(h, names[i]);
		fprintf(h, "</a>");
		if (stat(study_path(st, names[i], path, sizeof(path)), &sb) == 0)
			fprintf(h, " <small>%.1f kB</small>", (double)sb.st_size / 1000);
		fprintf(h, "</li>\n");
		free(names[i]);
	}
	free(names);
	fprintf(h, "</ul></details>\n");
}
