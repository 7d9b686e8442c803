/*
 * 5003-uarch - micro-architecture files (good, bad line, missing key, execution
 * ports optional), --set, the latency table (matching and errors) and the
 * lookup of a name.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/uarch.h"
#include "t/tap.h"

/* Write text to a fresh temporary file; its path into path. */
static int write_tmp(char *path, size_t len, const char *text)
{
	const char *tmp = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(path, len, "%s/t32-5003-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A complete small .uarch text with one line replaced by `line` at the end. */
static const char base_uarch[] =
	"# source: a test\n"
	"name = tiny\n"
	"alloc_width = 4\nretire_width = 4\nrob_size = 224\n"
	"load_latency = 5\nload_latency_scaled = 5\nload_latency_chase = 4\nstore_forward_latency = 4\n"
	"move_elim = 1\nzero_idioms = 1\n"
	"latency.nop = 0\nlatency.alu = 1\nlatency.load = 0\nlatency.store = 1\n"
	"latency.mul = 3\nlatency.div = 26\nlatency.vector = 1\nlatency.branch = 1\n"
	"latency.fence = 4\nlatency.atretire = 18\nlatency.serial = 100\n";

/* Load base then extra, written to a temporary file, into *u: 0, -1, or -2 unwritten. */
static int load_text(struct t32_uarch *u, const char *base, const char *extra, char *err,
		     size_t errlen)
{
	char path[PATH_MAX], text[2048];
	int rc;

	snprintf(text, sizeof(text), "%s%s", base, extra);
	if (write_tmp(path, sizeof(path), text)) {
		snprintf(err, errlen, "cannot write a temporary file");
		return -2;
	}
	rc = t32_uarch_load(u, path, NULL, err, errlen);
	unlink(path);
	return rc;
}

int main(void)
{
	struct t32_uarch u;
	char err[512] = "", path[PATH_MAX], src[PATH_MAX], dir[PATH_MAX];
	const char *root = getenv("T32_SRC");
	unsigned long v;
	struct t32_lattab tab;
	const struct t32_lat_entry *e;
	unsigned cyc;
	int have_src;

	plan(39);
	snprintf(src, sizeof(src), "%s/data/uarch/skylake.uarch", root && *root ? root : ".");
	have_src = access(src, R_OK) == 0;

	/* the shipped files */
	if (have_src) {
		ok(t32_uarch_load(&u, src, NULL, err, sizeof(err)) == 0, "skylake.uarch loads (%s)", err);
		ok(u.alloc_width == 4 && u.retire_width == 4 && u.rob_size == 224,
		   "skylake: 4 wide, 224-entry ROB");
		ok(u.load_latency == 5 && u.load_latency_chase == 4, "skylake: load 5, chase 4");
		ok(u.ports[T32_CLASS_ALU] == 4 && u.ports[T32_CLASS_LOAD] == 2 &&
		   u.ports[T32_CLASS_STORE] == 1, "skylake: 4 ALU ports, 2 load, 1 store");
		snprintf(src, sizeof(src), "%s/data/uarch/zen5.uarch", root && *root ? root : ".");
		ok(t32_uarch_load(&u, src, NULL, err, sizeof(err)) == 0, "zen5.uarch loads (%s)", err);
		ok(u.alloc_width == 8 && u.retire_width == 8 && u.rob_size == 448 &&
		   u.load_latency == 4, "zen5: 8 wide, 448-entry ROB, load 4");
		ok(u.ports[T32_CLASS_ALU] == 6 && u.ports[T32_CLASS_LOAD] == 4 &&
		   u.ports[T32_CLASS_STORE] == 2, "zen5: 6 ALUs, 4 load pipes, 2 store");
	} else {
		for (int i = 0; i < 7; i++)
			skip("no source tree (T32_SRC) with data/uarch");
	}

	/* a good file and a name lookup through T32_DATADIR */
	ok(write_tmp(path, sizeof(path), base_uarch) == 0, "write a .uarch file");
	ok(t32_uarch_load(&u, path, NULL, err, sizeof(err)) == 0, "good file loads (%s)", err);
	is_string("tiny", u.name, "name");
	is_int(18, u.latency[T32_CLASS_ATRETIRE], "latency.atretire");
	ok(u.ports[T32_CLASS_ALU] == 0 && u.ports[T32_CLASS_LOAD] == 0,
	   "no ports.CLASS lines: every class unlimited");
	unlink(path);
	ok(load_text(&u, base_uarch, "ports.alu = 3\n", err, sizeof(err)) == 0 &&
	   u.ports[T32_CLASS_ALU] == 3 && u.ports[T32_CLASS_MUL] == 0,
	   "ports.alu = 3 read, the other classes unlimited (%s)", err);

	/* a bad line names its line */
	ok(load_text(&u, base_uarch, "bogus_key = 3\n", err, sizeof(err)) == -1 &&
	   strstr(err, ":23: unknown key 'bogus_key'"), "unknown key on line 23 (%s)", err);
	ok(load_text(&u, base_uarch, "rob_size = lots\n", err, sizeof(err)) == -1 &&
	   strstr(err, ":23: bad value for rob_size"), "bad number on line 23 (%s)", err);
	ok(load_text(&u, base_uarch, "just words\n", err, sizeof(err)) == -1 &&
	   strstr(err, ":23: expected key = value"), "a line without '=' (%s)", err);
	ok(load_text(&u, "name = x\nalloc_width = 4\n", "", err, sizeof(err)) == -1 &&
	   strstr(err, "missing key 'retire_width'"), "a missing key is named (%s)", err);
	ok(t32_uarch_load(&u, "/nonexistent/x.uarch", NULL, err, sizeof(err)) == -1 &&
	   strstr(err, "cannot open"), "a missing file (%s)", err);

	/* --set and the parameter interface a fit uses */
	t32_uarch_set(&u, "name=tiny", err, sizeof(err));
	ok(t32_uarch_set(&u, "retire_width=2", err, sizeof(err)) == 0 && u.retire_width == 2,
	   "--set retire_width=2");
	ok(t32_uarch_set(&u, " latency.vector = 10 ", err, sizeof(err)) == 0 &&
	   u.latency[T32_CLASS_VECTOR] == 10, "--set with blanks, a class latency");
	ok(t32_uarch_set(&u, "alloc_width=0", err, sizeof(err)) == -1 && strstr(err, "alloc_width"),
	   "--set out of range (%s)", err);
	ok(t32_uarch_set(&u, "nokey", err, sizeof(err)) == -1, "--set without '='");
	ok(t32_uarch_set_value(&u, "rob_size", 32) == 0 && t32_uarch_get(&u, "rob_size", &v) == 0 &&
	   v == 32, "set_value / get by key");
	ok(t32_uarch_set_value(&u, "no_such", 1) == -1, "set_value on an unknown key fails");

	/* latency table: exact form beats a kind, a kind beats a bare mnemonic */
	write_tmp(path, sizeof(path),
		  "# source: test\n"
		  "imul                | mul | 9\n"
		  "imul r, r           | mul | 4\n"
		  "imul r64, r64       | mul | 3 zen5=5\n"
		  "lock add            | atretire | 18\n"
		  "vpmulld v, v, v     | - | skylake=10 zen5=3\n");
	ok(t32_lattab_load(&tab, path, err, sizeof(err)) == 0 && tab.n == 5, "latency table loads (%s)", err);
	e = t32_lattab_find(&tab, "imul r64, r64");
	ok(e && t32_lattab_latency(e, "skylake", &cyc) == 0 && cyc == 3 &&
	   t32_lattab_latency(e, "zen5", &cyc) == 0 && cyc == 5, "exact form; NAME=N wins");
	e = t32_lattab_find(&tab, "imul r32, r32");
	ok(e && t32_lattab_latency(e, "zen5", &cyc) == 0 && cyc == 4, "r matches r32");
	e = t32_lattab_find(&tab, "imul r64, r64, i");
	ok(e && t32_lattab_latency(e, "zen5", &cyc) == 0 && cyc == 9, "bare mnemonic matches the rest");
	e = t32_lattab_find(&tab, "lock add m64, i");
	ok(e && e->cls == T32_CLASS_ATRETIRE, "a two-word mnemonic");
	e = t32_lattab_find(&tab, " \timul  r64,r64");
	ok(e && t32_lattab_latency(e, "zen5", &cyc) == 0 && cyc == 5,
	   "blanks before the mnemonic and between the words");
	ok(!t32_lattab_find(&tab, "imulx r64, r64") && !t32_lattab_find(&tab, "lock r64"),
	   "a mnemonic that only starts like an entry's, or only shares its first word, is none");
	e = t32_lattab_find(&tab, "vpmulld ymm, ymm, ymm");
	ok(e && e->cls == -1 && t32_lattab_latency(e, "other", &cyc) == -1,
	   "'-' keeps the class; no latency for an unnamed micro-architecture");
	t32_lattab_free(&tab);
	unlink(path);
	write_tmp(path, sizeof(path), "# source: test\nadd r, r | alu | 1\nadd r, i | sideways | 1\n");
	ok(t32_lattab_load(&tab, path, err, sizeof(err)) == -1 && strstr(err, ":3: unknown class 'sideways'"),
	   "a bad table line names its line (%s)", err);
	unlink(path);

	/*
	 * Normalising blanks lengthens a form ("m,m" becomes "m, m"): a 44-character
	 * form that grows past the 63 the entry holds is refused, not written past
	 * its end (run under -fsanitize=address,undefined to see the difference).
	 */
	write_tmp(path, sizeof(path), "# source: test\n"
		  "m,m,m,m,m,m,m,m,m,m,m,m,m,m,m,m,m,m,m,m,ab c | alu | 1\n");
	ok(t32_lattab_load(&tab, path, err, sizeof(err)) == -1 && strstr(err, ":2: bad form"),
	   "a form too long once normalised is refused (%s)", err);
	unlink(path);
	write_tmp(path, sizeof(path), "# source: test\nimul   r64,r64 | mul | 3\n");
	ok(t32_lattab_load(&tab, path, err, sizeof(err)) == 0 && tab.n == 1 &&
	   strcmp(tab.e[0].form, "imul r64, r64") == 0, "blanks normalised: 'imul r64, r64' (%s)",
	   tab.n ? tab.e[0].form : err);
	t32_lattab_free(&tab);
	unlink(path);

	/* names are looked up in the data directory given */
	if (have_src) {
		snprintf(dir, sizeof(dir), "%s/data", root && *root ? root : ".");
		ok(t32_uarch_load(&u, "zen5", dir, err, sizeof(err)) == 0 && strcmp(u.name, "zen5") == 0,
		   "a name is found as DATADIR/uarch/NAME.uarch (%s)", err);
	} else {
		skip("no source tree (T32_SRC) with data/uarch");
	}
	ok(t32_uarch_load(&u, "zen5", NULL, err, sizeof(err)) == -1 && strstr(err, "'zen5'"),
	   "a name without a data directory is an error (%s)", err);
	ok(t32_uarch_load(&u, "../zen5", "/", err, sizeof(err)) == -1, "a path-like name is a path");
	ok(t32_uarch_load(&u, "zen 5", "/", err, sizeof(err)) == -1 && strstr(err, "bad micro-architecture name"),
	   "a name with a blank is refused (%s)", err);
	return done_testing();
}
