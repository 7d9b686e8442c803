/*
 * 1101-table.c - instruction tables: the .tbl parser (good lines, bad lines with
 * their line numbers, comments and header lines), throughput templates, and the
 * shipped data/coursework.tbl and data/common.tbl (they parse, and every form and
 * template assembles with nasm when nasm is here).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t/tap.h"
#include "t32/io/table.h"

/* Parse text and return the error message ("" when it parsed). */
static const char *parse_error(const char *text)
{
	static char err[512];
	struct t32_table t;

	err[0] = 0;
	if (t32_table_parse(text, "mem.tbl", &t, err, sizeof(err)) == 0) {
		t32_table_free(&t);
		err[0] = 0;
	} else if (!err[0]) {
		strcpy(err, "(failed without a message)");
	}
	return err;
}

/* The repository root: $T32_SRC, or "." when run by hand from the root. */
static const char *src_dir(void)
{
	const char *s = getenv("T32_SRC");

	return s && *s ? s : ".";
}

/* Is nasm on PATH? */
static int have_nasm(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		execlp("nasm", "nasm", "-v", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Write each statement of text (';'-separated) on its own line. */
static void put_statements(FILE *f, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, ";");

		fprintf(f, "\t%.*s\n", (int)n, p);
		p += n;
		if (*p)
			p++;
	}
}

/*
 * Assemble every form of a table, and the first copies of its throughput
 * template, as one BITS 64 file with nasm -f bin.  Returns nasm's exit status
 * (0 = all assembled), or -1 when the test itself could not run nasm.
 */
static int assemble_table(const struct t32_table *t)
{
	char src[] = "/tmp/t32-1101-XXXXXX";
	char out[sizeof(src) + 4];
	int fd = mkstemp(src), status = -1;
	FILE *f;
	pid_t pid;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(src);
		return -1;
	}
	fprintf(f, "BITS 64\ndefault rel\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct t32_form *fm = &t->forms[i];

		fprintf(f, "; %s (line %u)\n", fm->name, fm->line);
		put_statements(f, fm->insn);
		for (unsigned long k = 0; fm->tp && k < fm->tp_period + 1; k++) {
			char buf[256];

			if (t32_form_tp_expand(fm, k, buf, sizeof(buf)) == 0)
				put_statements(f, buf);
		}
	}
	if (fclose(f)) {
		unlink(src);
		return -1;
	}
	snprintf(out, sizeof(out), "%s.bin", src);
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0)
			dup2(devnull, 2);
		execlp("nasm", "nasm", "-f", "bin", "-o", out, src, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		status = WEXITSTATUS(status);
	else
		status = -1;
	unlink(src);
	unlink(out);
	return status;
}

static const char good[] =
	"# a table for the test\n"
	"# Source: somebody's tables, page 7\n"
	"#   and the page after\n"
	"# applies to: a test CPU\n"
	"\n"
	"   \t\n"
	"imul64 | imul rax, rax | tp=imul {r}, {r} | lat=3 rtp=1\n"
	"div64\t|\tdiv rcx\t|\tinit=rdx=0,rcx=7   # trailing comment\n"
	"nop|nop\r\n"
	"chain | mov [rax], rax ; mov rax, [rax] | lat=4.5\n"
	"load | add rax, [rbx] | tp=add {r}, [rbx]\n"
	"vec | vfmadd231ps ymm0, ymm1, ymm2 | rtp=0.5 | tp=vfmadd231ps {y}, {y}, ymm3";

/* The good table: every field lands where it should. */
static void test_good(void)
{
	struct t32_table t;
	char err[512] = "";
	const struct t32_form *f;

	ok(t32_table_parse(good, "mem.tbl", &t, err, sizeof(err)) == 0, "good table parses %s", err);
	is_int(6, (long long)t.n, "six forms; blank and comment lines skipped");
	is_int(1, (long long)t.nsource, "one source line (its key in any case)");
	is_string("somebody's tables, page 7 and the page after", t.nsource ? t.source[0] : "",
		  "source text, continuation joined");
	is_int(1, (long long)t.napplies, "one applies-to line");
	is_string("a test CPU", t.napplies ? t.applies[0] : "", "applies-to text");
	if (t.n < 6) {
		t32_table_free(&t);
		return;
	}
	f = &t.forms[0];
	is_string("imul64", f->name, "name");
	is_string("imul rax, rax", f->insn, "instruction");
	is_string("imul {r}, {r}", f->tp ? f->tp : "", "tp template");
	ok(f->init == NULL, "no init");
	is_double(3, f->lat, 0, "lat");
	is_double(1, f->rtp, 0, "rtp");
	is_int(7, f->line, "line number counts comments and blanks");
	is_int(15, f->tp_period, "{r} rotates over 15 registers");

	f = &t.forms[1];
	is_string("div rcx", f->insn, "tab-separated fields are trimmed");
	is_string("rdx=0,rcx=7", f->init ? f->init : "", "init kept as written");
	ok(isnan(f->lat) && isnan(f->rtp), "absent lat and rtp are NaN");
	ok(f->tp == NULL && f->tp_period == 0, "no tp, period 0");

	f = &t.forms[2];
	is_string("nop", f->insn, "no spaces around '|', CRLF line end");
	is_int(9, f->line, "line 9");

	f = &t.forms[3];
	is_string("mov [rax], rax ; mov rax, [rax]", f->insn, "';' between statements is kept");
	is_double(4.5, f->lat, 1e-12, "fractional lat");

	f = &t.forms[5];
	is_double(0.5, f->rtp, 1e-12, "rtp in a field before tp=");
	is_int(15, f->tp_period, "literal ymm3 is left out of the rotation");
	ok(t32_table_find(&t, "load") == &t.forms[4], "find by name");
	ok(t32_table_find(&t, "nothing") == NULL, "find: unknown name is NULL");
	t32_table_free(&t);
	ok(t.n == 0 && t.forms == NULL, "free leaves the table empty");
}

/* Throughput templates: rotation, registers named literally, errors. */
static void test_templates(void)
{
	struct t32_table t;
	char err[512] = "", buf[64];
	const struct t32_form *f;

	if (t32_table_parse(good, "mem.tbl", &t, err, sizeof(err))) {
		ok(0, "template table parses %s", err);
		return;
	}
	f = t32_table_find(&t, "imul64");
	ok(f && t32_form_tp_expand(f, 0, buf, sizeof(buf)) == 0, "expand copy 0");
	is_string("imul rax, rax", buf, "copy 0 uses the first register");
	ok(f && t32_form_tp_expand(f, 7, buf, sizeof(buf)) == 0, "expand copy 7");
	is_string("imul r8, r8", buf, "copy 7 is r8 (rsp is never used)");
	ok(f && t32_form_tp_expand(f, 15, buf, sizeof(buf)) == 0, "expand copy 15");
	is_string("imul rax, rax", buf, "the rotation wraps after tp_period copies");

	f = t32_table_find(&t, "load");
	is_int(14, f ? f->tp_period : 0, "[rbx] keeps rbx out of the rotation");
	ok(f && t32_form_tp_expand(f, 1, buf, sizeof(buf)) == 0, "expand load copy 1");
	is_string("add rcx, [rbx]", buf, "rbx is skipped");

	f = t32_table_find(&t, "vec");
	ok(f && t32_form_tp_expand(f, 3, buf, sizeof(buf)) == 0, "expand vec copy 3");
	is_string("vfmadd231ps ymm4, ymm4, ymm3", buf, "ymm3 is skipped");

	f = t32_table_find(&t, "imul64");
	is_int(-1, f ? t32_form_tp_expand(f, 0, buf, 8) : 0, "too small a buffer is an error");
	f = t32_table_find(&t, "div64");
	is_int(-1, f ? t32_form_tp_expand(f, 0, buf, sizeof(buf)) : 0, "no template is an error");
	t32_table_free(&t);
}

/* The AVX-512, mask and MMX placeholders, and chain=none. */
static void test_generated_keys(void)
{
	static const char text[] =
		"# source: t\n# applies to: t\n"
		"vz | vaddps zmm0, zmm0, zmm1 | tp=vaddps {z}, zmm1, zmm2\n"
		"km | kandw k1, k1, k2 | tp=kandw {k}, k2, k3\n"
		"mx | paddb mm1, mm2 | tp=paddb {m}, mm2\n"
		"cmp | cmp rax, rbx | chain=none | tp=cmp rax, rbx\n";
	struct t32_table t;
	char err[512] = "", buf[64];
	const struct t32_form *f;

	if (t32_table_parse(text, "gen.tbl", &t, err, sizeof(err))) {
		ok(0, "placeholders {z} {k} {m} and chain=none parse: %s", err);
		for (int i = 0; i < 8; i++)
			ok(0, "skipped after the parse failed");
		return;
	}
	ok(1, "placeholders {z} {k} {m} and chain=none parse");
	f = t32_table_find(&t, "vz");
	is_int(14, f ? f->tp_period : 0, "{z}: zmm1 and zmm2 named, 14 left");
	ok(f && t32_form_tp_expand(f, 1, buf, sizeof(buf)) == 0 &&
	   strcmp(buf, "vaddps zmm3, zmm1, zmm2") == 0, "{z} copy 1 skips zmm1 and zmm2 (%s)", buf);
	f = t32_table_find(&t, "km");
	is_int(5, f ? f->tp_period : 0, "{k}: k1..k7, k2 and k3 named, 5 left (k0 never)");
	ok(f && t32_form_tp_expand(f, 1, buf, sizeof(buf)) == 0 &&
	   strcmp(buf, "kandw k4, k2, k3") == 0, "{k} copy 1 is k4 (%s)", buf);
	f = t32_table_find(&t, "mx");
	ok(f && t32_form_tp_expand(f, 0, buf, sizeof(buf)) == 0 && strcmp(buf, "paddb mm1, mm2") == 0,
	   "{m} copy 0 is mm1: mm0 is STORE x's (%s)", buf);
	f = t32_table_find(&t, "cmp");
	ok(f && f->nochain, "chain=none is kept");
	f = t32_table_find(&t, "vz");
	ok(f && !f->nochain, "a form without it has a chain");
	t32_table_free(&t);
	ok(t32_table_parse("a | nop | chain=some\n", "bad.tbl", &t, err, sizeof(err)) == -2 &&
	   strstr(err, "bad chain 'some'"), "chain= takes none only (%s)", err);
	if (t32_table_parse("t | test eax, 5 | chain=none:flags | tp=test {e}, 5\n", "why.tbl", &t, err,
			    sizeof(err)) == 0) {
		f = t32_table_find(&t, "t");
		ok(f && f->nochain > 1 && strstr(t32_form_nochain_reason(f), "writes only flags"),
		   "chain=none:flags gives its reason (%s)", f ? t32_form_nochain_reason(f) : "-");
		t32_table_free(&t);
	} else {
		ok(0, "chain=none:flags parses: %s", err);
	}
	ok(t32_table_parse("a | nop | chain=none:why\n", "bad.tbl", &t, err, sizeof(err)) == -2 &&
	   strstr(err, "bad chain 'none:why'"), "chain=none: takes a known reason only (%s)", err);
}

/* Bad lines: each error names the file and the line. */
static void test_bad(void)
{
	static const struct {
		const char *text;
		const char *error;
	} bad[] = {
		{ "# c\n\nx | nop | lat2=3\n", "bad line 3 in 'mem.tbl' (unknown key 'lat2')" },
		{ "x | nop\ny\n", "bad line 2 in 'mem.tbl' (no instruction (name | insn | key=value...))" },
		{ "x |  | lat=1\n", "bad line 1 in 'mem.tbl' (no instruction (name | insn | key=value...))" },
		{ "a b | nop\n", "bad line 1 in 'mem.tbl' (bad form name 'a b' (letters, digits, - _ . +))" },
		{ "x | nop | lat=fast\n", "bad line 1 in 'mem.tbl' (bad latency 'fast' (cycles, 0 to 1e+06))" },
		{ "x | nop | lat=-1\n", "bad line 1 in 'mem.tbl' (bad latency '-1' (cycles, 0 to 1e+06))" },
		{ "x | nop | rtp=inf\n", "bad line 1 in 'mem.tbl' (bad reciprocal throughput 'inf' (cycles, 0 to 1e+06))" },
		{ "x | nop | rtp=1x\n", "bad line 1 in 'mem.tbl' (bad reciprocal throughput '1x' (cycles, 0 to 1e+06))" },
		{ "x | nop | lat=1 lat=2\n", "bad line 1 in 'mem.tbl' (key 'lat' given twice)" },
		{ "x | nop | lat=1 | lat=2\n", "bad line 1 in 'mem.tbl' (key 'lat' given twice)" },
		{ "x | nop | fast\n", "bad line 1 in 'mem.tbl' (expected key=value, not 'fast')" },
		{ "x | nop | lat=1 |\n", "bad line 1 in 'mem.tbl' (empty field 4)" },
		{ "x | nop\nx | nop\n", "bad line 2 in 'mem.tbl' (form 'x' already defined on line 1)" },
		{ "x | div rcx | init=rsp=0\n", "bad line 1 in 'mem.tbl' (unknown register 'rsp' (rax..r15 but rsp, xmm/ymm/zmm0-31, k0-7))" },
		{ "x | div rcx | init=rdx\n", "bad line 1 in 'mem.tbl' (bad register set-up 'rdx' (REG=VALUE))" },
		{ "x | div rcx | init=rdx=zero\n", "bad line 1 in 'mem.tbl' (bad value for rdx 'zero')" },
		{ "x | add rax, 1 | tp=add {q}, 1\n", "bad line 1 in 'mem.tbl' (unknown placeholder '{q}' (one of {r} {e} {w} {b} {x} {y} {z} {k} {m}))" },
		{ "x | add rax, 1 | tp=add {r, 1\n", "bad line 1 in 'mem.tbl' (bad placeholder '{r, ' (one of {r} {e} {w} {b} {x} {y} {z} {k} {m}))" },
		{ "x | add rax, 1 | tp=add r}, 1\n", "bad line 1 in 'mem.tbl' ('}' without '{' in tp template)" },
		{ "x | add {r}, 1\n", "bad line 1 in 'mem.tbl' (placeholder in instruction 'add {r}, 1' (they belong in tp=))" },
		{ "x | add rax, 1 | tp=add {r}, 1 lat=1\n", "bad line 1 in 'mem.tbl' (tp= takes the rest of its field; put 'lat=' in a field of its own)" },
		{ "x | add rax, 1 | tp=\n", "bad line 1 in 'mem.tbl' (empty tp template)" },
		{ "x | paddd xmm0, xmm1 | tp=paddd {x}, xmm0 ; xmm1 ; xmm2 ; xmm3 ; xmm4 ; xmm5 ; xmm6 ; xmm7 ; xmm8 ; xmm9 ; xmm10 ; xmm11 ; xmm12 ; xmm13 ; xmm14 ; xmm15\n",
		  "bad line 1 in 'mem.tbl' (tp template leaves no xmm register for '{x}')" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_string(bad[i].error, parse_error(bad[i].text), "error for %.*s", 
			  (int)strcspn(bad[i].text, "\n"), bad[i].text);
	is_string("empty table 'mem.tbl' (no forms, only comments or blank lines)", parse_error(""),
		  "an empty table is an error naming it");
	is_string("empty table 'mem.tbl' (no forms, only comments or blank lines)",
		  parse_error("# only comments\n\n#\n"), "comments only is an error too");
}

/* File loading: a missing file and a binary file say so. */
static void test_files(void)
{
	struct t32_table t;
	char err[512] = "", path[] = "/tmp/t32-1101-bin-XXXXXX";
	int fd;

	is_int(-1, t32_table_load("/nonexistent/x.tbl", &t, err, sizeof(err)), "missing file fails");
	is_string("cannot open table '/nonexistent/x.tbl' (No such file or directory)", err,
		  "missing file message");
	fd = mkstemp(path);
	ok(fd >= 0 && write(fd, "x | nop\n\0\1\2", 11) == 11, "binary file written");
	if (fd >= 0)
		close(fd);
	is_int(-2, t32_table_load(path, &t, err, sizeof(err)), "binary file fails as not a table");
	ok(strncmp(err, "not a text file '", 17) == 0, "binary file message: %s", err);
	unlink(path);
}

/* One test: data/NAME.tbl of the source tree loads into *t; -1 when it does not. */
static int load_shipped(const char *name, struct t32_table *t)
{
	char path[4096], err[512] = "";

	snprintf(path, sizeof(path), "%s/data/%s.tbl", src_dir(), name);
	if (t32_table_load(path, t, err, sizeof(err))) {
		ok(0, "data/%s.tbl parses (%s)", name, err);
		return -1;
	}
	ok(1, "data/%s.tbl parses", name);
	return 0;
}

/* One test: every form and template of the table called what assembles (a skip without nasm). */
static void assembles(const struct t32_table *t, int nasm, const char *what)
{
	if (nasm)
		is_int(0, assemble_table(t), "every %s form and template assembles", what);
	else
		skip("nasm is not installed");
}

/* The 24 forms of the study, in the order of its results table. */
static void test_coursework(int nasm)
{
	static const char *const names[24] = {
		"add-ax-1", "add-bx-1", "add-eax-1", "add-ebx-1", "dec-ax", "dec-bx", "dec-eax",
		"dec-ebx", "inc-ax", "inc-bx", "inc-eax", "inc-ebx", "mov-ax-0", "mov-bx-0",
		"mov-eax-0", "mov-ebx-0", "nop", "sub-ax-1", "sub-bx-1", "sub-eax-1", "sub-ebx-1",
		"xor-ax-ax", "xor-bx-bx", "xor-eax-eax",
	};
	struct t32_table t;
	int same = 1;

	if (load_shipped("coursework", &t))
		return;
	is_int(24, (long long)t.n, "24 forms");
	for (size_t i = 0; i < 24 && i < t.n; i++)
		if (strcmp(names[i], t.forms[i].name)) {
			diag("form %zu is '%s', expected '%s'", i, t.forms[i].name, names[i]);
			same = 0;
		}
	ok(same && t.n == 24, "the study's forms in its order");
	ok(t.nsource >= 1 && t.napplies >= 1, "has source and applies-to lines");
	is_string("inc eax", t32_table_find(&t, "inc-eax") ? t32_table_find(&t, "inc-eax")->insn : "",
		  "inc-eax is the study's mnemonic 43");
	assembles(&t, nasm, "coursework");
	t32_table_free(&t);
}

/* The common table: parses, names its sources, every form assembles. */
static void test_common(int nasm)
{
	struct t32_table t;
	size_t with_values = 0, with_tp = 0;

	if (load_shipped("common", &t))
		return;
	ok(t.n >= 50, "about 60 forms (%zu)", t.n);
	ok(t.nsource >= 1 && t.napplies >= 1, "has source and applies-to lines");
	for (size_t i = 0; i < t.n; i++) {
		with_values += !isnan(t.forms[i].lat) || !isnan(t.forms[i].rtp);
		with_tp += t.forms[i].tp != NULL;
	}
	ok(with_values > 0 && with_values < t.n, "expected values on some forms only (%zu)",
	   with_values);
	ok(with_tp > t.n / 2, "most forms have a throughput template (%zu)", with_tp);
	ok(t32_table_find(&t, "div-r64") && t32_table_find(&t, "div-r64")->init,
	   "div-r64 sets up its registers");
	assembles(&t, nasm, "common");
	t32_table_free(&t);
}

/* The assembly check can fail: a form nasm refuses is caught. */
static void test_assemble_check(int nasm)
{
	struct t32_table t;
	char err[512] = "";

	if (!nasm) {
		skip("nasm is not installed");
		return;
	}
	if (t32_table_parse("bad | addps xmm0, rax\n", "mem.tbl", &t, err, sizeof(err))) {
		ok(0, "table with a bad operand list parses (%s)", err);
		return;
	}
	ok(assemble_table(&t) > 0, "a form nasm refuses fails the assembly check");
	t32_table_free(&t);
}

/* Seconds of this process's CPU time. */
static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Big and endless inputs: 40k forms parse in linear time, /dev/zero stops at once. */
static void test_bounds(void)
{
	struct t32_table t;
	char err[512] = "", name[32];
	size_t n = 40000, len = 0;
	char *text = malloc(n * 24 + 64);
	double secs, quarter;

	if (!text)
		bail("out of memory");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "form-%zu | nop\n", i);
	/*
	 * A quarter of them first: linear parsing takes four times as long for all,
	 * quadratic sixteen.  CPU time, so that a loaded machine (or a sanitizer's
	 * build) changes both alike.
	 */
	{
		char keep;
		size_t cut = len / 4;

		while (cut > 0 && text[cut - 1] != '\n')
			cut--;
		keep = text[cut];
		text[cut] = 0;
		quarter = cpu_now();
		is_int(0, t32_table_parse(text, "quarter.tbl", &t, err, sizeof(err)),
		       "a quarter of them parse %s", err);
		quarter = cpu_now() - quarter;
		t32_table_free(&t);
		text[cut] = keep;
	}
	secs = cpu_now();
	is_int(0, t32_table_parse(text, "big.tbl", &t, err, sizeof(err)), "40000 forms parse %s", err);
	secs = cpu_now() - secs;
	ok(secs < 8 * quarter + 0.01, "in %.3f s against %.3f s for a quarter: not quadratically",
	   secs, quarter);
	snprintf(name, sizeof(name), "form-%zu", n - 1);
	ok(t32_table_find(&t, name) == &t.forms[n - 1], "the last one is found by name");
	ok(t32_table_find(&t, "form-0") == &t.forms[0], "and the first");
	ok(t32_table_find(&t, "form-x") == NULL, "an unknown name is not");
	t32_table_free(&t);
	sprintf(text + len, "form-7 | nop\n");
	is_int(-2, t32_table_parse(text, "big.tbl", &t, err, sizeof(err)), "a name given twice fails");
	is_string("bad line 40001 in 'big.tbl' (form 'form-7' already defined on line 8)", err,
		  "naming both lines");
	free(text);

	is_int(-2, t32_table_load("/dev/zero", &t, err, sizeof(err)), "/dev/zero is refused at once");
	is_string("not a text file '/dev/zero'", err, "as not a text file");

	/*
	 * an endless `# source:` continuation and endless `# source:` lines stay
	 * bounded: a quarter of each first, then all (CPU time, as above)
	 */
	text = malloc(200000 * 24 + 10000 * 16 + 64);
	if (!text)
		bail("out of memory");
	for (size_t k = 0; k < 2; k++) {
		const size_t part = k ? 1 : 4;

		len = (size_t)sprintf(text, "# source: a\n");
		for (size_t i = 0; i < 200000 / part; i++)
			len += (size_t)sprintf(text + len, "#  continued text\n");
		for (size_t i = 0; i < 10000 / part; i++)
			len += (size_t)sprintf(text + len, "# source: more\n");
		sprintf(text + len, "x | nop\n");
		secs = cpu_now();
		is_int(0, t32_table_parse(text, "src.tbl", &t, err, sizeof(err)),
		       "%zu continuations parse", 200000 / part);
		secs = cpu_now() - secs;
		if (part == 4) {
			quarter = secs;
			t32_table_free(&t);
		}
	}
	ok(secs < 8 * quarter + 0.01, "in %.3f s against %.3f s for a quarter: not quadratically",
	   secs, quarter);
	ok(t.nsource == 4096 && strlen(t.source[0]) <= 65536,
	   "the header is kept within bounds (%zu source lines, %zu bytes)", t.nsource,
	   t.nsource ? strlen(t.source[0]) : 0);
	t32_table_free(&t);
	free(text);
}

int main(void)
{
	int nasm = have_nasm();

	plan(109);
	test_bounds();
	test_good();
	test_templates();
	test_generated_keys();
	test_bad();
	test_files();
	test_assemble_check(nasm);
	test_coursework(nasm);
	test_common(nasm);
	return done_testing();
}
