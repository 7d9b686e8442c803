/*
 * 8004-report-says - every "What this shows" of t32 study's page is computed
 * from the files beside it: each section is written from data that bear out its
 * usual conclusion and again from data that contradict it, and the sentence
 * must change with them (a chain below one cycle, a rate short of the model's
 * ALUs or held back by the copies tried, a cost that depends on n, jumps that
 * fall or spike, a combination whose intervals part, a constant in the block,
 * a machine without idle states, most events left out and leaning to short
 * waits).
 */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t/tap.h"
#include "t32/cmd/study.h"

static char dir[64];

/* Write dir/name from a printf format. */
static void put(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(const char *name, const char *fmt, ...)
{
	char path[256];
	FILE *f;
	va_list ap;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		bail("cannot write %s", path);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f))
		bail("cannot write %s", path);
}

/* Open dir/name for writing rows by hand. */
static FILE *open_put(const char *name)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		bail("cannot write %s", path);
	return f;
}

/* The section of recipe name, as the page has it (malloc'd). */
static char *section(struct study *st, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		bail("open_memstream");
	if (study_section(st, name, m) != 1)
		bail("no %s section from %s", name, dir);
	fclose(m);
	return text;
}

static int has(const char *text, const char *what)
{
	return strstr(text, what) != NULL;
}

/* scatter.tsv: 1000 readings of 100,000 inc eax in cycles, min the fastest, drift the
   share the last half lies above the first. */
static void scatter(double min, double drift, double dip)
{
	FILE *f = open_put("scatter.tsv");

	fprintf(f, "# tool: t32\ni\tticks\tcycles\n");
	for (int i = 0; i < 1000; i++) {
		double c = min * (1 + 0.002 * (i % 7)) * (i >= 500 ? 1 + drift : 1) *
			   (i >= 400 && i < 600 ? 1 - dip : 1);

		fprintf(f, "%d\t%.0f\t%.0f\n", i, c, c);
	}
	fclose(f);
}

/* A row summary() adds after the nop when set. */
static const char *summary_extra;

/* table-summary.tsv: 20 one-cycle forms, throughput tp at best k, and a nop. */
static void summary(double tp, int k, int maxk, int alus)
{
	FILE *f = open_put("table-summary.tsv");

	fprintf(f, "# model: test\n# unit: cycles per instruction\n# max_k: %d\n", maxk);
	if (alus)
		fprintf(f, "# alus: %d (ports.alu of the model's test data)\n", alus);
	fprintf(f, "form\tlatency\tlatency_model\tthroughput\tthroughput_k\tthroughput_model\t"
		   "manual_rtp\n");
	for (int i = 0; i < 20; i++)
		fprintf(f, "add-%d\t1.0000\t1\t%.4f\t%d\t\t\n", i, tp, k);
	fprintf(f, "nop\t0.2500\t\t0.2500\t1\t\t\n");
	if (summary_extra)
		fprintf(f, "%s\n", summary_extra);
	fclose(f);
}

/* table.tsv: nop's chain at n = 1000 and 10000, the second `second` per instruction. */
static void chains(double second)
{
	put("table.tsv", "row\tform\tmode\tn\tk\tunit\tper_insn\tci_lo\tci_hi\tstatus\n"
	    "0\tnop\tlatency\t1000\t1\tcycles\t0.2500\t0.2400\t0.2600\tok\n"
	    "1\tnop\tlatency\t10000\t1\tcycles\t%.4f\t%.4f\t%.4f\tok\n",
	    second, second - 0.01, second + 0.01);
}

/* steps-inc.tsv: the line n + 2 and a minimum-based curve in whole TSC steps of sc
   cycles; the jumps listed in steps-inc.steps.tsv; spike: a point one step up. */
static void steps(double sc, const double *jx, const double *jh, size_t nj, int spike,
		  double slope)
{
	FILE *f = open_put("steps-inc.tsv"), *g;

	fprintf(f, "# fit: cycles = 2.000 + %.4f n (robust; se 0.100, 0.0010)\n"
		   "n\tcycles\tcycles_lo\tcycles_hi\tmin_cycles\tfit\tstep\n", slope);
	for (int n = 1; n <= 100; n++) {
		double m = 0;

		for (size_t k = 0; k < nj; k++)
			m += n >= jx[k] ? jh[k] : 0;
		if (n == spike)
			m += sc;
		fprintf(f, "%d\t%d\t%d\t%d\t%.3f\t%d\t0\n", n, n + 2, n + 1, n + 3, m, n + 2);
	}
	fclose(f);
	g = open_put("steps-inc.steps.tsv");
	fprintf(g, "n\tn_before\theight\n");
	for (size_t k = 0; k < nj; k++)
		fprintf(g, "%.0f\t%.0f\t%.3f\n", jx[k], jx[k] - 1, jh[k]);
	fclose(g);
}

/* combos.tsv: n C2 alone costs c + n; C1 n C2 the same plus add at n = 3. */
static void combos(double c, double add)
{
	static const int ns[] = { 0, 1, 2, 3, 10, 100 };
	FILE *f = open_put("combos.tsv");

	fprintf(f, "n\tc1_n_c2\tc1_n_c2_lo\tc1_n_c2_hi\tn_c2\tn_c2_lo\tn_c2_hi\tc1_adds\n");
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		int n = ns[i];
		double a = n ? c + n : 0, b = (n ? c + n : 1) + (n == 3 ? add : 0);

		fprintf(f, "%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", n, b, b - 0.3, b + 0.3, a,
			n ? a - 0.3 : 0, n ? a + 0.3 : 0, b - a);
	}
	fclose(f);
}

/* wake-sleep.tsv: 400 events, latency growing with the launch distance; idle: the # idle:
   line; leftout: the share of events, the longest waits first, flagged other_irq. */
static void wake(const char *idle, double leftout)
{
	FILE *f = open_put("wake-sleep.tsv");

	fprintf(f, "# wake: method=sleep idle_only=no\n# idle: %s\n"
		   "i\tldist_ns\tlatency_ns\tkept\tstatus\n", idle);
	for (int i = 0; i < 400; i++) {
		double ldist = 20000 + i * 10000.0, lat = 5000 + ldist / 1000 + (i * 37 % 11) * 10;
		int out = leftout > 0 ? i >= 400 * (1 - leftout) : i % 10 == 0;

		fprintf(f, "%d\t%.0f\t%.1f\t%d\t%s\n", i, ldist, lat, !out, out ? "other_irq" : "ok");
	}
	fclose(f);
}

int main(void)
{
	struct study st;
	char *s;

	plan(38);
	snprintf(dir, sizeof(dir), "%s/t32-8004-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		bail("mkdtemp");
	memset(&st, 0, sizeof(st));
	st.dir = dir;
	st.barrier = "l";
	st.ratio = 1.6;
	st.env.q = 21;

	/* scatter: one cycle an increment, or below it; a bulk that stays, or moves */
	scatter(100200, 0, 0);
	s = section(&st, "scatter");
	ok(has(s, "one a cycle, as a chain of dependent increments must run"),
	   "scatter: 1.002 cycles an increment is one a cycle");
	ok(has(s, "The bulk stayed put"), "scatter: a steady run stays put");
	free(s);
	scatter(97680, 0.016, 0);
	s = section(&st, "scatter");
	ok(has(s, "below one a cycle, which a chain of dependent increments cannot run") &&
	   !has(s, "as a chain of dependent increments must run"),
	   "scatter: 0.9768 cycles an increment is flagged as impossible, not explained");
	ok(has(s, "(1.6000 cycles a tick"), "scatter: the ratio the file was converted with");
	free(s);
	scatter(97680, 0.016, 0);
	{
		/* the same readings converted by an earlier run: the page says that run's ratio */
		char path[256], *text = NULL;
		size_t len = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/scatter.tsv", dir);
		if (!(f = fopen(path, "r")) || getdelim(&text, &len, 0, f) < 0)
			bail("cannot read %s", path);
		fclose(f);
		put("scatter.tsv", "# calibration: 1.45000 +- 0.00100 core cycles per tick (chains "
		    "of add, measured as the study began)\n%s", text);
		free(text);
	}
	s = section(&st, "scatter");
	ok(has(s, "(1.4500 cycles a tick"), "scatter: an older file's own ratio, not this run's");
	ok(has(s, "Over the run the bulk moved") && has(s, "1.6% apart"),
	   "scatter: a bulk 1.6%% higher in the second half is said to have moved");
	free(s);
	scatter(100200, 0, 0.04);
	s = section(&st, "scatter");
	ok(has(s, "Over the run the bulk moved"),
	   "scatter: a bulk that dips in the middle of the run and comes back has moved");
	free(s);
	scatter(100200, 0, -0.07);
	s = section(&st, "scatter");
	ok(has(s, "0 (0.0%) lie more than 5% above the bulk where it stood"),
	   "scatter: a stretch of the run 7%% higher is the bulk moving, not interrupts");
	free(s);

	/* table: the rate against the model's ALUs and the copies tried */
	summary(0.25, 3, 6, 4);
	chains(0.25);
	s = section(&st, "table");
	ok(has(s, "as many instructions a cycle as the core has ALUs in the model's data (4)"),
	   "table: 4 a cycle on a core of 4 ALUs");
	ok(has(s, "fewer copies than the most tried (6)"), "table: k = 3 of 6 did not limit");
	ok(!has(s, "different <i>n</i>"), "table: a cost the same at every n is not remarked");
	ok(!has(s, "Neither one a copy"), "table: no form beside the chains and the cheap ones");
	free(s);
	summary_extra = "mov-ax-0\t3.2000\t1.0000\t3.0000\t3\t0.2000\t";
	summary(0.25, 3, 6, 4);
	s = section(&st, "table");
	ok(has(s, "Neither one a copy nor well under it, in <code>mov-ax-0</code> 3.20 (the model "
		  "1.00) cycles a copy.") && !has(s, "(<code>add-0</code>, <code>mov-ax-0"),
	   "table: a form of three cycles a copy is named with its value and the model's");
	summary_extra = NULL;
	free(s);
	summary(0.25, 6, 6, 6);
	chains(0.5);
	s = section(&st, "table");
	ok(has(s, "fewer instructions a cycle than the core has ALUs in the model's data (6)") &&
	   !has(s, "as many instructions a cycle as"), "table: 4 a cycle on a core of 6 ALUs is short of them");
	ok(has(s, "fastest with 6 copies, the most tried") && has(s, "lower bound"),
	   "table: every form best at the largest k: the copies limited the rate");
	ok(has(s, "<code>nop</code> (0.250 [0.240, 0.260] at n = 1,000, 0.500 [0.490, 0.510] at "
		  "n = 10,000)"), "table: a nop that doubles between n = 1,000 and 10,000 is named");
	free(s);
	summary(0.20, 3, 6, 4);
	s = section(&st, "table");
	ok(has(s, "more instructions a cycle than the core has ALUs in the model's data (4)"),
	   "table: 5 a cycle on a core of 4 ALUs is more than it has");
	free(s);

	/* steps: a staircase of one TSC step (21 ticks x 1.6 = 33.6 cycles), or not one */
	{
		const double sx[] = { 30, 64, 98 }, sh[] = { 33.6, 33.6, 33.6 };
		const double bx[] = { 9, 13, 27, 51, 89 }, bh[] = { 36.2, -36.2, 35.3, 32.7, 39.7 };

		steps(33.6, sx, sh, 3, 0, 1.0);
		s = section(&st, "steps");
		ok(has(s, "A staircase: every jump rises by 33.6 to 33.6 cycles"),
		   "steps: three rises of one TSC step, evenly apart, are a staircase");
		ok(!has(s, "Not a staircase") && !has(s, "Spikes") && !has(s, "Its interval lies"),
		   "steps: ... and nothing else (a slope of 1.000 +- 0.002 holds one cycle)");
		free(s);
		steps(33.6, bx, bh, 5, 64, 0.97);
		s = section(&st, "steps");
		ok(has(s, "<b>Not a staircase</b>") && !has(s, "A staircase:"),
		   "steps: the coursework's jumps with a fall are not a staircase");
		ok(has(s, "13 (&minus;36.2)") && has(s, "1 of the 5 jumps fall (n = 13)"),
		   "steps: the fall at n = 13 is named with its absolute height");
		ok(has(s, "9 (+36.2)") && has(s, "89 (+39.7)"), "steps: each jump with its own height");
		ok(has(s, "apart, not evenly"), "steps: uneven distances are said");
		ok(has(s, "Spikes") && has(s, "n = 9&ndash;12, 64."),
		   "steps: the spike at n = 64 and the raised run 9-12 are named");
		if (!has(s, "n = 9&ndash;12, 64."))
			diag("%s", s);
		ok(!has(s, "21.6"), "steps: no mean of signed heights");
		ok(has(s, "Its interval lies below one cycle, which a chain of dependent one-cycle "
			  "instructions cannot run"), "steps: a slope of 0.970 +- 0.002 is flagged");
		free(s);
	}

	/* combos: no difference, or one at n = 3; the block's constant said */
	combos(3, 0);
	s = section(&st, "combos");
	ok(has(s, "C1 adds nothing these intervals can tell"), "combos: overlapping intervals at "
	   "every n: nothing added");
	ok(has(s, "about 3.00 +1.00 n cycles") && has(s, "a constant of 3.0 cycles"),
	   "combos: n C2 alone is a line with a constant of 3 cycles");
	free(s);
	combos(3, 0.75);
	s = section(&st, "combos");
	ok(has(s, "at n = 3 C1 adds 0.75") && !has(s, "at every n"),
	   "combos: disjoint intervals at n = 3 are a difference");
	free(s);
	combos(0, 0);
	put("combos.tsv", "n\tc1_n_c2\tc1_n_c2_lo\tc1_n_c2_hi\tn_c2\tn_c2_lo\tn_c2_hi\tc1_adds\n"
	    "0\t-2.000\t-2.800\t-1.200\t0\t0\t0\t-2\n1\t2\t1.7\t2.3\t2\t1.7\t2.3\t0\n"
	    "2\t3\t2.7\t3.3\t3\t2.7\t3.3\t0\n");
	s = section(&st, "combos");
	ok(has(s, "costs less than the barrier alone"), "combos: a block below its barrier is flagged");
	free(s);

	/* wake: the machine's idle states, and what leaving events out did */
	wake("driver intel_idle, governor menu; idle0_entries = POLL (exit latency 0 us), "
	     "idle1_entries = C6 (exit latency 170 us)", 0);
	s = section(&st, "wake");
	ok(has(s, "this CPU has 2 idle states, the deepest leaving in 170"),
	   "wake: a growth on a machine with idle states names them");
	ok(has(s, "waited alike") && !has(s, "Most events were left out"),
	   "wake: a tenth left out evenly biases nothing");
	free(s);
	wake("none (no /sys/devices/system/cpu/cpu1/cpuidle): entries not counted", 0.6);
	s = section(&st, "wake");
	ok(has(s, "lists no idle states") && !has(s, "deeper"),
	   "wake: no idle states: no deeper idle state is claimed");
	ok(has(s, "(60.0% of the events left out)") && has(s, "leans to short waits"),
	   "wake: the left-out share and its lean to short waits are said");
	ok(has(s, "Most events were left out"), "wake: most events left out is said");
	free(s);

	/* the page's head: the machine said as a reader needs it, and a layout for paper */
	{
		static struct profile quick = { .name = "quick" };
		char *argv[] = { "t32", "study", NULL }, *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);

		if (!m)
			bail("open_memstream");
		st.p = &quick;
		st.env.cpu.hypervisor = 1;
		snprintf(st.env.cpu.hv_vendor, sizeof(st.env.cpu.hv_vendor), "bhyve bhyve ");
		st.env.pinned = 1;
		snprintf(st.env.sibling, sizeof(st.env.sibling), "1");
		html_head(&st, m, 2, argv);
		fclose(m);
		ok(has(text, "(hypervisor bhyve)") && !has(text, "bhyve bhyve"),
		   "head: the hypervisor by name, not its signature");
		ok(has(text, "no other CPU shares its core") && !has(text, "SMT siblings: 1"),
		   "head: a CPU alone on its core is said so");
		ok(has(text, "@media print") && has(text, "thead{display:table-header-group}") &&
		   has(text, "figure,.shows"), "head: a print layout keeps headers, figures and "
		   "their paragraphs whole");
		free(text);
	}
	{
		DIR *d = opendir(dir);
		struct dirent *e;
		char path[512];

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
				unlink(path);
			}
		if (d)
			closedir(d);
		rmdir(dir);
	}
	return done_testing();
}
