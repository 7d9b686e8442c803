/*
 * run.c - from NASM text to deltas: assemble with nasm (argv, never a shell),
 * load the image W^X, and run it in a forked child pinned to one CPU.  The child
 * reports faults through a shared page before it dies, so the parent can name the
 * instruction and the signal.
 */
#include "t32/core/run.h"

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "t32/core/confine.h"
#include "t32/core/helper.h"
#include "t32/util.h"

#define CHUNK T32_RUNNER_CHUNK	/* deltas one request returns at most */

static void fail_system(struct t32_fault *f, const char *what);

/* A fault that says nothing yet: no failure, no body item, no place in the code. */
static void fault_clear(struct t32_fault *f)
{
	memset(f, 0, sizeof(*f));
	f->item = -1;
	f->rip_off = -1;
}

/* ---- assembling ---- */

/* Read a whole file, by a descriptor open on it, into memory. */
static int slurp_fd(int fd, unsigned char **buf, size_t *len)
{
	struct stat st;
	size_t got = 0;

	*buf = NULL;
	if (fstat(fd, &st) || st.st_size < 0)
		return -1;
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf)
		return -1;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, *buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(*buf);
			*buf = NULL;
			return -1;
		}
		got += (size_t)n;
	}
	(*buf)[got] = 0;
	*len = got;
	return 0;
}

/*
 * A temporary file for nasm, `t32-XXXXXX` in $TMPDIR (else /tmp), unlinked at once:
 * nasm and ld reach it as /dev/fd/N, and nothing is left behind however t32 ends,
 * even by SIGKILL.  The descriptor, or -1 with the reason in f.
 */
static int temp_fd(const char *text, struct t32_fault *f)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	size_t len = text ? strlen(text) : 0;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/t32-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		f->kind = T32_FAIL_SYSTEM;
		snprintf(f->msg, sizeof(f->msg), "cannot make a temporary file in '%.300s' (%s)",
			 dir, strerror(errno));
		return -1;
	}
	unlink(path);
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			f->kind = T32_FAIL_SYSTEM;
			snprintf(f->msg, sizeof(f->msg), "cannot write a temporary file in '%s' (%s)",
				 dir, strerror(n < 0 ? errno : ENOSPC));
			close(fd);
			return -1;
		}
		text += n;
		len -= (size_t)n;
	}
	return fd;
}

/* Close the n temporary files a tool was given (-1: never opened). */
static void close_fds(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * Run nasm or ld on its leash (t32_run_helper).  0 when it exited 0; else -1 with
 * f filled in: what it said, that it was killed at its time limit, or that t32
 * was interrupted.
 */
static int run_tool(char *const argv[], const int *keep, size_t nkeep,
		    struct t32_child_output *res, double seconds, unsigned long long fsize,
		    struct t32_fault *f)
{
	int end = t32_run_helper_bounded(argv, keep, nkeep, res, seconds, fsize);
	/* named as people call it: nasm, not the path it was found at */
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	switch (end) {
	case T32_HELPER_CANNOT:
		f->kind = T32_FAIL_SYSTEM;
		snprintf(f->msg, sizeof(f->msg), "cannot run '%s' (%s)", name, res->error);
		return -1;
	case T32_HELPER_TIMEOUT:
		f->kind = T32_FAIL_ASSEMBLE;
		snprintf(f->msg, sizeof(f->msg), "%s did not finish within %.3g s and was killed; "
			 "--timeout S allows longer", name,
			 seconds > 0 ? seconds : t32_helper_limit());
		return -1;
	case T32_HELPER_INTERRUPTED:
		f->kind = T32_FAIL_INTERRUPTED;
		snprintf(f->msg, sizeof(f->msg), "interrupted while '%s' ran (it was killed)",
			 name);
		return -1;
	}
	return 0;
}

/* Which body item does source line `line` belong to?  -1 if none. */
static long item_of_line(const struct t32_gen *g, unsigned line)
{
	for (size_t i = 0; g && i < g->nitems; i++)
		if (line >= g->item_line[i] && line < g->item_line[i] + g->item_lines[i])
			return (long)i;
	return -1;
}

/* nasm's first error: "file:LINE: error: MESSAGE" -> line and message. */
static void first_nasm_error(const char *out, unsigned *line, char *msg, size_t len)
{
	const char *p = strstr(out, ": error: ");
	const char *end, *num;

	*line = 0;
	snprintf(msg, len, "%s", *out ? out : "no output");
	if (!p)
		p = strstr(out, ": fatal: ");
	if (!p && (p = strstr(out, "critical: ")) && (end = strstr(p + 10, ": "))) {
		/* "critical: FILE:LINE: out of memory!" (nasm at its memory limit) */
		num = end;
		while (num > p && num[-1] >= '0' && num[-1] <= '9')
			num--;
		*line = (unsigned)strtoul(num, NULL, 10);
		snprintf(msg, len, "%s", end + 2);
		goto trim;
	}
	if (!p)
		goto trim;
	/* walk back over the line number */
	num = p;
	while (num > out && num[-1] >= '0' && num[-1] <= '9')
		num--;
	*line = (unsigned)strtoul(num, NULL, 10);
	p = strchr(p + 2, ':') + 2;
	end = strchr(p, '\n');
	snprintf(msg, len, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
trim:
	msg[strcspn(msg, "\n")] = 0;
}

/* Decode and check the blob header nasm produced from our own layout. */
static int parse_header(struct t32_blob *b)
{
	struct t32_blob_header *h = &b->hdr;

	if (b->size < sizeof(*h))
		return -1;
	memcpy(h, b->image, sizeof(*h));
	if (memcmp(h->magic, T32_BLOB_MAGIC, 8) || h->end != b->size || h->data > h->end ||
	    h->data % 4096 || h->entry >= h->data || h->body > h->body_end ||
	    h->body_end > h->data || h->nitems > 1000000 ||
	    sizeof(*h) + (h->nitems + 1) * 8 > h->entry)
		return -1;
	b->item_off = malloc((h->nitems + 1) * sizeof(uint64_t));
	if (!b->item_off)
		return -1;
	memcpy(b->item_off, b->image + sizeof(*h), (h->nitems + 1) * sizeof(uint64_t));
	return 0;
}

static unsigned long nasm_runs;

unsigned long t32_nasm_runs(void)
{
	return nasm_runs;
}

/*
 * nasm by an absolute path, found once: T32_NASM (a name without a '/' looked
 * up on PATH like nasm), else the first executable nasm on PATH; the name as
 * given when none is found (the run then says why).  Found again only when
 * T32_NASM changes.
 */
const char *t32_nasm_path(void)
{
	static char name[1024], path[4096];
	const char *env = getenv("T32_NASM"), *want = env && *env ? env : "nasm";
	const char *dirs = getenv("PATH");

	nasm_runs++;
	if (path[0] && strcmp(name, want) == 0)
		return path;
	snprintf(name, sizeof(name), "%s", want);
	snprintf(path, sizeof(path), "%s", want);
	if (strchr(want, '/'))
		return path;
	for (const char *d = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; *d;) {
		size_t len = strcspn(d, ":");
		char try[4096];

		/* an empty entry is the current directory, as for execvp */
		snprintf(try, sizeof(try), "%.*s/%s", len ? (int)len : 1, len ? d : ".", want);
		if (access(try, X_OK) == 0) {
			snprintf(path, sizeof(path), "%s", try);
			break;
		}
		d += len + (d[len] == ':');
	}
	return path;
}

/*
 * nasm on text, to a flat image in a new temporary fds[1] (the text in fds[0]):
 * a misspelt mnemonic alone is no label; with zeroing_quiet, reserved space left
 * to be filled later (a batch's resb) is not warned of.  seconds is nasm's time
 * limit.  0 when nasm ran (res->status says how it ended), else -1 with f filled in.
 */
static int nasm_run(const char *text, int zeroing_quiet, double seconds, int fds[2],
		    struct t32_child_output *res, struct t32_fault *f)
{
	char asmpath[32], binpath[32];
	char *argv[9];
	int a = 0;

	memset(res, 0, sizeof(*res));
	if ((fds[0] = temp_fd(text, f)) < 0 || (fds[1] = temp_fd(NULL, f)) < 0)
		return -1;
	snprintf(asmpath, sizeof(asmpath), "/dev/fd/%d", fds[0]);
	snprintf(binpath, sizeof(binpath), "/dev/fd/%d", fds[1]);
	argv[a++] = (char *)t32_nasm_path();
	argv[a++] = "-f";
	argv[a++] = "bin";
	argv[a++] = "-w+error=label-orphan";
	if (zeroing_quiet)
		argv[a++] = "-w-zeroing";
	argv[a++] = "-o";
	argv[a++] = binpath;
	argv[a++] = asmpath;
	argv[a] = NULL;
	return run_tool(argv, fds, 2, res, seconds, T32_IMAGE_MAX, f);
}

int t32_assemble(const char *src, const struct t32_gen *g, struct t32_blob *out,
		 struct t32_fault *f)
{
	struct t32_child_output res;
	int fds[2] = { -1, -1 }, rc = -1;
	double seconds = 0;

	memset(out, 0, sizeof(*out));
	fault_clear(f);
	/* a long body is given time in proportion: the limit for each T32_NASM_INSNS */
	if (g)
		seconds = t32_helper_limit() * (1 + (double)g->insns / T32_NASM_INSNS);
	if (nasm_run(src, 0, seconds, fds, &res, f)) {
		if (f->kind == T32_FAIL_ASSEMBLE && g && g->nitems == 1)
			f->item = 0;
		t32_child_output_free(&res);
		goto out;
	}
	if (res.status == 128 + SIGXFSZ) {
		f->kind = T32_FAIL_ASSEMBLE;
		f->item = g && g->nitems == 1 ? 0 : -1;
		snprintf(f->msg, sizeof(f->msg), "the block's code would be larger than %llu MiB",
			 T32_IMAGE_MAX >> 20);
		t32_child_output_free(&res);
		goto out;
	}
	if (res.status != 0) {
		unsigned line;
		char msg[300];

		first_nasm_error(res.text ? res.text : "", &line, msg, sizeof(msg));
		f->kind = T32_FAIL_ASSEMBLE;
		f->item = item_of_line(g, line);
		snprintf(f->msg, sizeof(f->msg), "nasm: %s", msg);
		t32_child_output_free(&res);
		goto out;
	}
	t32_child_output_free(&res);
	if (slurp_fd(fds[1], &out->image, &out->size) || parse_header(out)) {
		f->kind = T32_FAIL_SYSTEM;
		snprintf(f->msg, sizeof(f->msg), "nasm wrote an image t32 cannot load '/dev/fd/%d'",
			 fds[1]);
		t32_blob_free(out);
		goto out;
	}
	rc = 0;
out:
	close_fds(fds, 2);
	return rc;
}

/* The labels src defines at the start of a line (the generator's own: a body's are indented). */
static void batch_labels(FILE *f, const char *src, size_t k)
{
	for (const char *p = src; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t len = 0;

		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
			continue;
		while ((p[len] >= 'A' && p[len] <= 'Z') || (p[len] >= 'a' && p[len] <= 'z') ||
		       (p[len] >= '0' && p[len] <= '9') || p[len] == '_')
			len++;
		if (p[len] == ':')
			fprintf(f, "%%define %.*s t32b%zu_%.*s\n", (int)len, p, k, (int)len, p);
	}
}

/* Lines in text. */
static unsigned count_lines(const char *text)
{
	unsigned n = 0;

	for (; text && *text; text++)
		n += *text == '\n';
	return n;
}

/*
 * The one source of a batch: each block in a section of its own, base[i] the
 * line before block i's, and into *insns the instructions of them all.  NULL
 * when it cannot be built.
 */
static char *batch_source(const char *const *srcs, const struct t32_gen *const *gens, size_t n,
			  unsigned *base, double *insns)
{
	char *text = NULL;
	size_t len = 0, i;
	unsigned line = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		free(text);
		return NULL;
	}
	/*
	 * Each block in a section of its own placed at 0 (vstart), its labels named
	 * apart (%define), its macros forgotten after it: each assembles to the bytes
	 * it would alone, one after the other, each a whole number of pages.
	 */
	for (i = 0; i < n; i++) {
		const char *org = strstr(srcs[i], "\n" T32_GEN_ORG_LINE);
		char *head = NULL;
		size_t hlen = 0;
		FILE *h = open_memstream(&head, &hlen);

		if (!h || !org) {
			if (h)
				fclose(h);
			free(head);
			fclose(m);
			free(text);
			return NULL;
		}
		batch_labels(h, srcs[i], i);
		fclose(h);
		fputs(head, m);
		line += count_lines(head);
		free(head);
		base[i] = line;
		fprintf(m, "%.*s\nsection .t32b%zu align=4096 vstart=0\n", (int)(org - srcs[i]),
			srcs[i], i);
		fputs(org + 1 + strlen(T32_GEN_ORG_LINE), m);
		line += count_lines(srcs[i]);
		for (const char *p = strstr(srcs[i], "\n%macro "); p;
		     p = strstr(p + 1, "\n%macro ")) {
			fprintf(m, "%%unmacro %.*s\n", (int)strcspn(p + 8, "\t;\n"), p + 8);
			line++;
		}
		if (gens && gens[i])
			*insns += (double)gens[i]->insns;
	}
	fclose(m);
	return text;
}

/* nasm's first error in a batch as the fault, and into *bad the block whose lines hold it. */
static void batch_nasm_error(const struct t32_child_output *res, const unsigned *base, size_t n,
			     const struct t32_gen *const *gens, struct t32_fault *f, size_t *bad)
{
	unsigned at;
	char msg[300];
	size_t i;

	first_nasm_error(res->text ? res->text : "", &at, msg, sizeof(msg));
	f->kind = T32_FAIL_ASSEMBLE;
	snprintf(f->msg, sizeof(f->msg), "nasm: %s", msg);
	for (i = n; i-- > 0;)
		if (at > base[i]) {
			*bad = i;
			f->item = item_of_line(gens ? gens[i] : NULL, at - base[i]);
			break;
		}
}

/* nasm's output of a batch cut into the n blocks' images; 0, or -1 with none kept. */
static int batch_split(const unsigned char *bin, size_t binlen, struct t32_blob *out, size_t n,
		       struct t32_fault *f)
{
	size_t off = 0, i;

	/* the blocks one after the other: each header says how long its image is */
	for (i = 0; i < n; i++) {
		struct t32_blob_header h;

		if (binlen - off < sizeof(h))
			break;
		memcpy(&h, bin + off, sizeof(h));
		if (h.end > binlen - off || h.end < sizeof(h) || !(out[i].image = malloc(h.end)))
			break;
		memcpy(out[i].image, bin + off, h.end);
		out[i].size = h.end;
		if (parse_header(&out[i]))
			break;
		off += h.end;
	}
	if (i < n || off != binlen) {
		for (size_t k = 0; k <= i && k < n; k++)
			t32_blob_free(&out[k]);
		f->kind = T32_FAIL_SYSTEM;
		snprintf(f->msg, sizeof(f->msg), "nasm wrote a batch of images t32 cannot load");
		return -1;
	}
	return 0;
}

int t32_assemble_batch(const char *const *srcs, const struct t32_gen *const *gens, size_t n,
		       struct t32_blob *out, struct t32_fault *f, size_t *bad)
{
	char *text = NULL;
	unsigned *base = calloc(n ? n : 1, sizeof(unsigned));
	struct t32_child_output res;
	unsigned char *bin = NULL;
	size_t binlen = 0;
	double insns = 0;
	int fds[2] = { -1, -1 }, rc = -1;

	fault_clear(f);
	*bad = n;
	memset(out, 0, n * sizeof(*out));
	if (!base || !(text = batch_source(srcs, gens, n, base, &insns))) {
		free(base);
		fail_system(f, "cannot batch the blocks");
		return -1;
	}
	/* a body's place (resb) is filled in later */
	if (nasm_run(text, 1, t32_helper_limit() * (1 + insns / T32_NASM_INSNS), fds, &res, f)) {
		t32_child_output_free(&res);
		goto out;
	}
	if (res.status != 0) {
		batch_nasm_error(&res, base, n, gens, f, bad);
		t32_child_output_free(&res);
		goto out;
	}
	t32_child_output_free(&res);
	if (slurp_fd(fds[1], &bin, &binlen)) {
		fail_system(f, "cannot read nasm's output");
		goto out;
	}
	if (batch_split(bin, binlen, out, n, f))
		goto out;
	rc = 0;
out:
	close_fds(fds, 2);
	free(bin);
	free(text);
	free(base);
	return rc;
}

int t32_nasm_listing(const char *src, char **listing, char **diag, struct t32_fault *f)
{
	char asmpath[32], lstpath[32], binpath[32];
	/* never -o /dev/null: nasm removes its output file when the source has errors */
	char *argv[] = { (char *)t32_nasm_path(), "-f", "bin", "-o", binpath,
			 "-l", lstpath, asmpath, NULL };
	struct t32_child_output res;
	int fds[3] = { -1, -1, -1 }, rc = -1;
	size_t len;

	fault_clear(f);
	*listing = *diag = NULL;
	if ((fds[0] = temp_fd(src, f)) < 0 || (fds[1] = temp_fd(NULL, f)) < 0 ||
	    (fds[2] = temp_fd(NULL, f)) < 0)
		goto out;
	snprintf(asmpath, sizeof(asmpath), "/dev/fd/%d", fds[0]);
	snprintf(lstpath, sizeof(lstpath), "/dev/fd/%d", fds[1]);
	snprintf(binpath, sizeof(binpath), "/dev/fd/%d", fds[2]);
	if (run_tool(argv, fds, 3, &res, 0, 0, f)) {
		t32_child_output_free(&res);
		goto out;
	}
	*diag = res.text ? res.text : strdup("");
	res.text = NULL;
	rc = res.status;
	t32_child_output_free(&res);
	if (slurp_fd(fds[1], (unsigned char **)listing, &len)) {
		f->kind = T32_FAIL_SYSTEM;
		snprintf(f->msg, sizeof(f->msg), "cannot read nasm's listing '%s'", lstpath);
		free(*diag);
		*diag = NULL;
		rc = -1;
	}
out:
	close_fds(fds, 3);
	return rc;
}

int t32_assemble_body(const struct t32_spec *s, unsigned char **code, size_t *len, char *err,
		      size_t errlen)
{
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .unroll = 1 };
	struct t32_gen g;
	struct t32_blob b;
	struct t32_fault f;
	int rc;

	*code = NULL;
	*len = 0;
	if (t32_generate(s, &go, &g)) {
		snprintf(err, errlen, "cannot generate the block 'out of memory'");
		return -1;
	}
	rc = t32_assemble(g.text, &g, &b, &f);
	t32_gen_free(&g);
	if (rc) {
		t32_fault_describe(&f, s, err, errlen);
		return -1;
	}
	*len = b.hdr.body_end - b.hdr.body;
	*code = malloc(*len ? *len : 1);
	if (!*code) {
		t32_blob_free(&b);
		snprintf(err, errlen, "out of memory '%zu bytes'", *len);
		return -1;
	}
	memcpy(*code, b.image + b.hdr.body, *len);
	t32_blob_free(&b);
	return 0;
}

int t32_build_elf(const char *src, const struct t32_gen *g, const char *path, struct t32_fault *f)
{
	char asmpath[32], objpath[32];
	char *as[] = { (char *)t32_nasm_path(), "-f", "elf64", "-g",
		       "-w+error=label-orphan", "-o", objpath, asmpath, NULL };
	char *ld[] = { "ld", "-static", "-o", (char *)path, objpath, NULL };
	struct t32_child_output res;
	int fds[2] = { -1, -1 }, rc = -1;

	fault_clear(f);
	if ((fds[0] = temp_fd(src, f)) < 0 || (fds[1] = temp_fd(NULL, f)) < 0)
		goto out;
	snprintf(asmpath, sizeof(asmpath), "/dev/fd/%d", fds[0]);
	snprintf(objpath, sizeof(objpath), "/dev/fd/%d", fds[1]);
	for (int step = 0; step < 2; step++) {
		char *const *argv = step ? ld : as;

		if (run_tool(argv, fds, 2, &res, 0, 0, f)) {
			if (f->kind == T32_FAIL_ASSEMBLE && !step && g && g->nitems == 1)
				f->item = 0;
			t32_child_output_free(&res);
			goto out;
		}
		if (res.status) {
			unsigned line;
			char msg[300];

			first_nasm_error(res.text ? res.text : "", &line, msg, sizeof(msg));
			f->kind = step ? T32_FAIL_SYSTEM : T32_FAIL_ASSEMBLE;
			f->item = step ? -1 : item_of_line(g, line);
			snprintf(f->msg, sizeof(f->msg), "%s: %s", step ? "ld" : "nasm", msg);
			t32_child_output_free(&res);
			goto out;
		}
		t32_child_output_free(&res);
	}
	rc = 0;
out:
	close_fds(fds, 2);
	return rc;
}

void t32_blob_free(struct t32_blob *b)
{
	free(b->image);
	free(b->item_off);
	memset(b, 0, sizeof(*b));
}

/* ---- loading ---- */

static pid_t child_pid, child_tid;	/* the child's own ids, for its death by its signal */

/* Map the image: write it, then make the code read+exec and the state page read+write. */
/*
 * A page count in [0, 64) that differs from process to process: where an image
 * lands in memory shifts what it costs a little (cache sets, predictor aliasing),
 * so each measuring process places its images afresh and a measurement that
 * spans several processes averages over placements.
 */
static size_t random_pages(void)
{
	/* the measuring process's own id, read before it was confined (getpid is refused after) */
	uint64_t x = __builtin_ia32_rdtsc() ^ ((uint64_t)(child_pid ? child_pid : 1) << 32);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)(x % 64);
}

/* Map the image: write it, then make the code read+exec and the state page read+write. */
static void *load_image(const struct t32_blob *b)
{
	size_t slack = 64 * 4096, shift = random_pages() * 4096;
	char *region = mmap(NULL, b->size + slack, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *base;

	if (region == MAP_FAILED)
		return NULL;
	base = region + shift;
	if (shift)
		munmap(region, shift);
	if (slack - shift)
		munmap(base + b->size, slack - shift);
	memcpy(base, b->image, b->size);
	if (mprotect(base, b->hdr.data, PROT_READ | PROT_EXEC)) {
		munmap(base, b->size);
		return NULL;
	}
	return base;
}

void *t32_arena_new(void)
{
	size_t slack = 64 * 4096, shift = random_pages() * 4096;
	char *region = mmap(NULL, T32_ARENA_SIZE + slack, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *a;

	if (region == MAP_FAILED)
		return NULL;
	/* a placement of its own, like the images' */
	a = (uint64_t *)(region + shift);
	if (shift)
		munmap(region, shift);
	if (slack - shift)
		munmap((char *)a + T32_ARENA_SIZE, slack - shift);
#ifdef MADV_POPULATE_WRITE
	/* its pages in one call rather than one fault each (a third of a start-up in a VM) */
	madvise(a, T32_ARENA_SIZE, MADV_POPULATE_WRITE);
#endif
	for (size_t i = 0; i < T32_ARENA_SIZE / 8; i++)
		a[i] = (uint64_t)(uintptr_t)&a[i];
	return a;
}

/* ---- the child ---- */

/* What the child's fault handler leaves for the parent, in shared memory. */
struct shared {
	volatile int signo;
	volatile int code;
	volatile uint64_t addr;
	volatile uint64_t rip;
	volatile uint64_t bases[T32_RUNNER_BLOBS];	/* where each image was loaded in the child */
	volatile uint64_t nbases;
};

/*
 * End a confined child with code: the exit system call itself.  Not _exit, nor
 * anything the compiler knows cannot return: a sanitizer precedes those with
 * calls (sigaltstack) the policy refuses.
 */
static void confined_exit(int code)
{
	long rc;

	__asm__ volatile("syscall" : "=a"(rc) : "a"((long)SYS_exit_group), "D"((long)code)
			 : "rcx", "r11", "memory");
	(void)rc;
}

static struct shared *child_shared;

/*
 * Record where the child died, then die of the same signal: SA_RESETHAND made
 * its action the default again, and a signal to itself is all the confined
 * child may send.
 */
static void fault_handler(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	if (child_shared) {
		child_shared->rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
		/* a refused system call: the rip is past it, the 2-byte syscall itself */
		if (sig == SIGSYS)
			child_shared->rip = (uint64_t)(uintptr_t)si->si_call_addr - 2;
		child_shared->addr = (uint64_t)(uintptr_t)si->si_addr;
		child_shared->code = sig == SIGSYS ? si->si_syscall : si->si_code;
		child_shared->signo = sig;
	}
	syscall(SYS_tgkill, child_pid, child_tid, sig);
	confined_exit(128 + sig);
}

static const int fault_signals[] = { SIGSEGV, SIGILL, SIGFPE, SIGBUS, SIGTRAP, SIGALRM, SIGSYS };

/* In the child: pin, die with the parent, and handle faults on their own stack. */
static int child_setup(int cpu, struct shared *sh)
{
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	cpu_set_t set;

	child_shared = sh;
	child_pid = getpid();
	child_tid = (pid_t)syscall(SYS_gettid);
	/* named apart from t32 itself (ps, top): the process that runs bodies */
	prctl(PR_SET_NAME, "t32-body");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fault_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++)
		sigaction(fault_signals[i], &sa, NULL);
	return 0;
}

/* Privileged mnemonics: #GP in user mode. */
static const char *const privileged[] = {
	"hlt", "cli", "sti", "rdmsr", "wrmsr", "in", "out", "insb", "insw", "insd", "outsb",
	"outsw", "outsd", "lgdt", "lidt", "lldt", "ltr", "lmsw", "invlpg", "invd", "wbinvd",
	"clts", "swapgs", "sysret", "sysexit", "rdpmc", "invpcid", "xsetbv", "wrpkru", NULL
};

/* Disassemble the instruction at image offset off: text into f->insn, 1 if privileged. */
static int describe_insn(const struct t32_blob *b, int64_t off, struct t32_fault *f)
{
	csh h;
	cs_insn *insn;
	size_t n;
	int priv = 0;

	f->insn[0] = 0;
	if (off < 0 || (uint64_t)off >= b->hdr.data)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return 0;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(h, b->image + off, b->hdr.data - (uint64_t)off, (uint64_t)off, 1, &insn);
	if (n == 1) {
		snprintf(f->insn, sizeof(f->insn), "%s%s%s", insn->mnemonic,
			 *insn->op_str ? " " : "", insn->op_str);
		for (int i = 0; privileged[i]; i++)
			if (strcmp(insn->mnemonic, privileged[i]) == 0)
				priv = 1;
		if (cs_insn_group(h, insn, X86_GRP_PRIVILEGE))
			priv = 1;
		if (strcmp(insn->mnemonic, "mov") == 0 &&
		    (strstr(insn->op_str, "cr") || strstr(insn->op_str, "dr")))
			priv = 1;
		cs_free(insn, n);
	}
	cs_close(&h);
	return priv;
}

/* Is the instruction at off one of the deliberate invalid opcodes (ud0, ud1, ud2)? */
static int is_ud(const struct t32_blob *b, int64_t off)
{
	const unsigned char *p = b->image + off;

	if ((uint64_t)off + 2 > b->hdr.data)
		return 0;
	return p[0] == 0x0f && (p[1] == 0x0b || p[1] == 0xb9 || p[1] == 0xff);
}

/*
 * A trap instruction (int3, int1, int N) reports the address after it: step back
 * to it when the bytes before the reported address are one, so the fault names
 * the body's trap and not the harness instruction that follows it.
 */
static int64_t trap_insn(const struct t32_blob *b, int64_t off)
{
	const unsigned char *p = b->image;

	if ((uint64_t)off > b->hdr.data)
		return off;
	if (off >= 1 && (p[off - 1] == 0xcc || p[off - 1] == 0xf1))
		return off - 1;
	if (off >= 2 && p[off - 2] == 0xcd)
		return off - 2;
	return off;
}

/* Turn what the child left into a classified fault. */
static void classify(const struct t32_blob *const *blobs, size_t nblobs, struct shared *sh,
		     int status, int timed_out, double timeout, struct t32_fault *f)
{
	const struct t32_blob *b = NULL;

	fault_clear(f);
	f->signo = sh->signo ? sh->signo : (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	f->code = sh->code;
	f->addr = sh->addr;
	for (size_t i = 0; i < nblobs && i < sh->nbases; i++)
		if (sh->rip >= sh->bases[i] && sh->rip < sh->bases[i] + blobs[i]->hdr.data) {
			b = blobs[i];
			f->rip_off = (int64_t)(sh->rip - sh->bases[i]);
		}
	if (b && f->rip_off >= 0 && f->signo == SIGTRAP)
		f->rip_off = trap_insn(b, f->rip_off);
	if (!b && sh->signo && !timed_out) {
		/* the child is a fork of this process: its code lies where ours does */
		Dl_info di;

		if (dladdr((void *)(uintptr_t)sh->rip, &di) && di.dli_fname) {
			const char *base = strrchr(di.dli_fname, '/');

			f->outside = 1;
			snprintf(f->where, sizeof(f->where), "%s%s%s", di.dli_sname ? di.dli_sname : "",
				 di.dli_sname ? " in " : "", base ? base + 1 : di.dli_fname);
		} else {
			f->outside = 2;
		}
	}
	if (b && f->rip_off >= 0) {
		int priv = describe_insn(b, f->rip_off, f);

		for (uint64_t i = 0; i < b->hdr.nitems; i++)
			if ((uint64_t)f->rip_off >= b->item_off[i] &&
			    (uint64_t)f->rip_off < b->item_off[i + 1])
				f->item = (long)i;
		if (f->signo == SIGSEGV && f->code == SI_KERNEL && priv) {
			f->kind = T32_FAIL_PRIVILEGED;
			return;
		}
		if (f->signo == SIGILL && !is_ud(b, f->rip_off)) {
			f->kind = T32_FAIL_UNSUPPORTED;
			return;
		}
	}
	if (timed_out) {
		f->kind = T32_FAIL_TIMEOUT;
		snprintf(f->msg, sizeof(f->msg), "%g s", timeout);
		return;
	}
	if (f->signo) {
		f->kind = T32_FAIL_SIGNAL;
		return;
	}
	f->kind = T32_FAIL_SYSTEM;
	if (WIFEXITED(status))
		snprintf(f->msg, sizeof(f->msg), "the measuring process exited with status %d",
			 WEXITSTATUS(status));
	else
		snprintf(f->msg, sizeof(f->msg), "the measuring process ended unexpectedly");
}

/*
 * Wait for fd to become readable within timeout seconds.  Returns 1 readable, 0 on
 * time-out.  poll restarts after EINTR with the time left.
 */
static int wait_readable(int fd, double timeout)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	double end = t32_now() + timeout;

	for (;;) {
		double left = end - t32_now();
		int rc;

		if (left <= 0)
			return 0;
		rc = poll(&p, 1, left > 1e6 ? -1 : (int)(left * 1000) + 1);
		if (rc > 0)
			return 1;
		if (rc < 0 && errno != EINTR)
			return 1;
	}
}

/* Stop a child that ran past its time: first ask where it is (SIGALRM), then kill. */
static int reap(pid_t pid, int timed_out)
{
	int status = 0;

	if (timed_out) {
		kill(pid, SIGALRM);
		for (int i = 0; i < 50; i++) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				return status;
			usleep(10000);
		}
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static void fail_system(struct t32_fault *f, const char *what)
{
	fault_clear(f);
	f->kind = T32_FAIL_SYSTEM;
	snprintf(f->msg, sizeof(f->msg), "%s (%s)", what, strerror(errno));
}

/* ---- the persistent runner ---- */

/*
 * A request.  RUN: block `which` count times; or, with per > 0, blocks
 * 0..which-1 in turn, per runs each (after `skip` unrecorded ones), count /
 * (which * per) times.  LOAD: `which` blocks follow, a struct load and then
 * their images; they are placed afresh in the code window, and the arena too.
 * MOVE: the blocks loaded are copied afresh into the window's other half (the
 * reply 0 when they do not fit it), then warmed as WARM does.  WARM: count runs
 * of each loaded block, 3 when a first run took over `per` ticks (child_warm).
 */
enum { OP_RUN, OP_LOAD, OP_MOVE, OP_WARM };
struct request {
	uint64_t op;
	uint64_t which;
	uint64_t count;
	uint64_t per;
	uint64_t skip;
};
struct load {
	uint64_t size[T32_RUNNER_BLOBS];	/* bytes of each image */
};

#define SLACK_PAGES 64	/* pages a placement may shift by (random_pages) */
#define WINDOW_MIN (64ull << 20)	/* the smallest code window */
#define WINDOW_MAX (2ull << 30)	/* the largest (t32_confine_window) */

struct t32_runner {
	pid_t pid;
	int to_child, from_child;
	struct shared *sh;
	uint64_t *out;		/* CHUNK deltas, shared */
	const struct t32_blob *blobs[T32_RUNNER_BLOBS];	/* the blocks loaded now */
	size_t nblobs;
	uint64_t window;	/* bytes of the child's code window */
	unsigned loads;		/* placements so far */
	unsigned piped;		/* ... of them sent through the pipe (the rest moves) */
	struct t32_run_opts opts;
	struct request move;	/* a move sent with the next run (t32_runner_move_later) */
	int moving;		/* ... when set */
};

typedef void (*block_fn)(uint64_t *out, uint64_t count, void *arena);

/* Bytes a load of blobs takes in a window at most: each image and its shift. */
static uint64_t window_need(const struct t32_blob *const *blobs, size_t n)
{
	uint64_t need = SLACK_PAGES * 4096ull;

	for (size_t i = 0; i < n; i++)
		need += ((blobs[i]->size + 4095) & ~4095ull) + SLACK_PAGES * 4096ull;
	return need;
}

/* Read exactly len bytes; 0, or -1 (the pipe closed or failed). */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Write all of buf to the child: a child that died meanwhile is an error
 * (EPIPE), never a SIGPIPE that would end t32.  0 or -1.
 */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	sigset_t pipe_set, old;
	int rc = 0;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = -1;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (rc && errno == EPIPE && !sigismember(&old, SIGPIPE)) {
		struct timespec none = { 0, 0 };

		sigtimedwait(&pipe_set, NULL, &none);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* The child's state: its window, its arena region and what is loaded. */
struct child {
	char *window;
	uint64_t window_len;
	char *arena_region;
	void *arena;
	void *base[T32_RUNNER_BLOBS];
	uint64_t entry[T32_RUNNER_BLOBS];
	uint64_t size[T32_RUNNER_BLOBS];	/* bytes of each image */
	size_t n;
	int half;		/* the half of the window the images start in */
};

/* Block b's entry, to call. */
static block_fn child_fn(const struct child *c, size_t b)
{
	return (block_fn)(void (*)(void))((char *)c->base[b] + c->entry[b]);
}

/* The arena moved to a random page shift of its region and filled again. */
static void child_arena(struct child *c)
{
	uint64_t *a = (uint64_t *)(c->arena_region + random_pages() * 4096);

	for (size_t i = 0; i < T32_ARENA_SIZE / 8; i++)
		a[i] = (uint64_t)(uintptr_t)&a[i];
	c->arena = a;
}

/* Make the image at `at` (len bytes of pages) runnable: its code read+exec; 0 or -1. */
static int child_place(struct child *c, struct shared *sh, size_t i, char *at, uint64_t size)
{
	struct t32_blob_header h;

	memcpy(&h, at, sizeof(h));
	if (h.data > size || h.data % 4096 || h.entry >= h.data ||
	    (h.data && mprotect(at, h.data, PROT_READ | PROT_EXEC)))
		return -1;
	c->base[i] = at;
	c->entry[i] = h.entry;
	c->size[i] = size;
	sh->bases[i] = (uint64_t)(uintptr_t)at;
	return 0;
}

/*
 * The images already loaded, placed afresh in the other half of the window (a
 * copy in the process, not another trip through the pipe: a block of 100,000
 * instructions is half a megabyte); the arena too.  0, or -1 (nothing loaded,
 * or the window's half too small: the parent then loads them again).
 */
static int child_move(struct child *c, struct shared *sh)
{
	const uint64_t half = c->window_len / 2;
	char *at = c->window + (c->half ? 0 : half) + random_pages() * 4096, *end = at;

	if (!c->n)
		return -1;
	for (size_t i = 0; i < c->n; i++)
		end += ((c->size[i] + 4095) & ~4095ull) + SLACK_PAGES * 4096;
	if (end > c->window + (c->half ? half : c->window_len))
		return -1;
	sh->nbases = 0;
	for (size_t i = 0; i < c->n; i++) {
		uint64_t len = (c->size[i] + 4095) & ~4095ull;

		if (mprotect(at, len, PROT_READ | PROT_WRITE))
			return -1;
		memcpy(at, c->base[i], c->size[i]);
		if (child_place(c, sh, i, at, c->size[i]))
			return -1;
		at += len + random_pages() * 4096;
	}
	sh->nbases = c->n;
	c->half = !c->half;
	child_arena(c);
	return 0;
}

/*
 * Place the images that follow q in the window afresh: each at a random page
 * shift after the one before, written while read+write, then its code made
 * read+exec; the arena moved to a random page shift of its region and filled
 * again.  0, or -1 (the process then ends: the pipe holds what it did not read).
 */
static int child_load(struct child *c, struct shared *sh, int in, const struct request *q)
{
	struct load l;
	char *at = c->window + random_pages() * 4096;

	if (q->which > T32_RUNNER_BLOBS || read_all(in, &l, sizeof(l)))
		return -1;
	c->n = 0;
	c->half = 0;
	sh->nbases = 0;
	for (size_t i = 0; i < q->which; i++) {
		uint64_t len = (l.size[i] + 4095) & ~4095ull;

		if (l.size[i] < sizeof(struct t32_blob_header) ||
		    (uint64_t)(at - c->window) + len > c->window_len ||
		    mprotect(at, len, PROT_READ | PROT_WRITE) || read_all(in, at, l.size[i]) ||
		    child_place(c, sh, i, at, l.size[i]))
			return -1;
		at += len + random_pages() * 4096;
	}
	c->n = q->which;
	sh->nbases = q->which;
	child_arena(c);
	return 0;
}

/*
 * Reserve len bytes (a power of two) aligned to len, inaccessible until code is
 * placed there; NULL when it cannot.
 */
static char *reserve_window(uint64_t len)
{
	char *p = mmap(NULL, 2 * len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	uintptr_t start;

	if (p == MAP_FAILED)
		return NULL;
	start = ((uintptr_t)p + len - 1) & ~(uintptr_t)(len - 1);
	if (start > (uintptr_t)p)
		munmap(p, start - (uintptr_t)p);
	if ((uintptr_t)p + 2 * len > start + len)
		munmap((char *)(start + len), (uintptr_t)p + 2 * len - (start + len));
	return (char *)start;
}

/*
 * Warm the blocks at a new placement: one run of each in turn, then runs - 1 more
 * of each, or 2 when a block's first run took over `slow` ticks (such a run
 * fetched all of the block's code that any run can keep).  out: scratch.
 */
static void child_warm(const struct child *c, uint64_t *out, uint64_t runs, uint64_t slow)
{
	uint64_t more = runs ? runs - 1 : 0;

	for (size_t b = 0; runs && b < c->n; b++) {
		child_fn(c, b)(out, 1, c->arena);
		if (out[0] > slow && more > 2)
			more = 2;
	}
	for (size_t b = 0; more && b < c->n; b++)
		child_fn(c, b)(out, more, c->arena);
}

/*
 * The child's loop: reserve the code window and the arena, confine itself,
 * then answer requests (load, move, warm, run) until the pipe closes.
 */
static void runner_child(struct t32_runner *r, int in, int out)
{
	struct child c = { 0 };
	struct request q;
	struct t32_confine conf;

	/* Ctrl-C reaches the whole process group: the parent decides when to stop */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	c.window_len = r->window;
	c.window = reserve_window(c.window_len);
	c.arena_region = mmap(NULL, T32_ARENA_SIZE + SLACK_PAGES * 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!c.window || c.arena_region == MAP_FAILED)
		_exit(120);
#ifdef MADV_POPULATE_WRITE
	/* its pages in one call rather than one fault each */
	madvise(c.arena_region, T32_ARENA_SIZE + SLACK_PAGES * 4096, MADV_POPULATE_WRITE);
#endif
	t32_confine_init(&conf);
	t32_confine_fd(&conf, in, T32_CONFINE_READ);
	t32_confine_fd(&conf, out, T32_CONFINE_WRITE);
	if (t32_confine_window(&conf, c.window, c.window_len) || t32_confine(&conf))
		_exit(125);
	for (;;) {
		ssize_t got = read(in, &q, sizeof(q));
		block_fn fn;
		char ok = 1;

		if (got < 0 && errno == EINTR)
			continue;
		if (got != (ssize_t)sizeof(q))
			break;
		if (q.op == OP_LOAD) {
			if (child_load(&c, r->sh, in, &q))
				confined_exit(126);
			if (write(out, &ok, 1) != 1)
				confined_exit(123);
			continue;
		}
		if (q.op == OP_MOVE || q.op == OP_WARM) {
			/* a move's 0: not moved (the images stay where they were), load them instead */
			ok = q.op == OP_WARM || child_move(&c, r->sh) == 0;
			if (ok && q.count <= CHUNK)
				child_warm(&c, r->out, q.count, q.per);
			if (write(out, &ok, 1) != 1)
				confined_exit(123);
			continue;
		}
		if (q.count > CHUNK || (q.per ? q.which > c.n || q.which == 0 : q.which >= c.n))
			confined_exit(122);
		/* every delta written is checked: a body that moves the harness's counters does not */
		memset(r->out, 0xff, q.count * sizeof(uint64_t));
		if (q.per) {
			uint64_t *o = r->out;

			for (uint64_t done = 0; done + q.which * q.per <= q.count;
			     done += q.which * q.per)
				for (uint64_t b = 0; b < q.which; b++, o += q.per) {
					fn = child_fn(&c, b);
					if (q.skip)
						fn(o, q.skip, c.arena);
					fn(o, q.per, c.arena);
				}
		} else {
			fn = child_fn(&c, q.which);
			fn(r->out, q.count, c.arena);
		}
		for (uint64_t i = 0; i < q.count; i++)
			if (r->out[i] == UINT64_MAX) {
				ok = 2;
				break;
			}
		if (write(out, &ok, 1) != 1)
			confined_exit(123);
	}
	confined_exit(0);
}

/* Start the measuring process with a code window of `window` bytes, nothing loaded. */
static struct t32_runner *runner_open(uint64_t window, const struct t32_run_opts *o,
				      struct t32_fault *f)
{
	struct t32_runner *r = calloc(1, sizeof(*r));
	int down[2] = { -1, -1 }, up[2] = { -1, -1 };
	void *mem;

	if (!r) {
		fail_system(f, "cannot start the measuring process");
		return NULL;
	}
	r->window = window;
	r->opts = *o;
	if (r->opts.cpu < 0)
		r->opts.cpu = t32_default_cpu();
	mem = mmap(NULL, 4096 + CHUNK * sizeof(uint64_t), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC)) {
		fail_system(f, "cannot set up the measuring process");
		goto fail;
	}
	r->sh = mem;
	r->out = (uint64_t *)((char *)mem + 4096);
	fflush(NULL);
	r->pid = fork();
	if (r->pid < 0) {
		fail_system(f, "cannot fork");
		goto fail;
	}
	if (r->pid == 0) {
		close(down[1]);
		close(up[0]);
		if (child_setup(r->opts.cpu, r->sh))
			_exit(124);
		runner_child(r, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	r->to_child = down[1];
	r->from_child = up[0];
	return r;
fail:
	if (mem != MAP_FAILED)
		munmap(mem, 4096 + CHUNK * sizeof(uint64_t));
	for (int i = 0; i < 2; i++) {
		if (down[i] >= 0)
			close(down[i]);
		if (up[i] >= 0)
			close(up[i]);
	}
	free(r);
	return NULL;
}

/* The child is gone or stuck: classify why, and leave the runner unusable. */
static int runner_died(struct t32_runner *r, int timed_out, struct t32_fault *f)
{
	int status = reap(r->pid, timed_out);

	r->pid = -1;
	classify(r->blobs, r->nblobs, r->sh, status, timed_out, r->opts.timeout, f);
	if (f->kind == T32_FAIL_SYSTEM && WIFEXITED(status) && WEXITSTATUS(status) == 124)
		snprintf(f->msg, sizeof(f->msg), "cannot pin to cpu %d", r->opts.cpu);
	if (f->kind == T32_FAIL_SYSTEM && WIFEXITED(status) && WEXITSTATUS(status) == 125)
		snprintf(f->msg, sizeof(f->msg), "cannot confine the measuring process "
			 "(seccomp, or closing its descriptors, failed)");
	if (f->kind == T32_FAIL_SYSTEM && WIFEXITED(status) &&
	    (WEXITSTATUS(status) == 120 || WEXITSTATUS(status) == 126))
		snprintf(f->msg, sizeof(f->msg), "the measuring process could not place the "
			 "blocks' code (%u MiB window)", (unsigned)(r->window >> 20));
	return -1;
}

/*
 * The measuring process's one-byte answer to a request already written (its
 * ok): 0, or runner_died's -1 when it died or did not answer in time.
 */
static int request_answer(struct t32_runner *r, char *ok, struct t32_fault *f)
{
	if (!wait_readable(r->from_child, r->opts.timeout))
		return runner_died(r, 1, f);
	if (read(r->from_child, ok, 1) != 1)
		return runner_died(r, 0, f);
	return 0;
}

/* Write request q alone and read its answer into *ok; as request_answer. */
static int request(struct t32_runner *r, const struct request *q, char *ok, struct t32_fault *f)
{
	if (write_all(r->to_child, q, sizeof(*q)))
		return runner_died(r, 0, f);
	return request_answer(r, ok, f);
}

int t32_runner_load(struct t32_runner *r, const struct t32_blob *const *blobs, size_t nblobs,
		    struct t32_fault *f)
{
	struct request q = { OP_LOAD, nblobs, 0, 0, 0 };
	struct load l;
	char ok;

	fault_clear(f);
	if (nblobs > T32_RUNNER_BLOBS || window_need(blobs, nblobs) > r->window) {
		f->kind = T32_FAIL_SYSTEM;
		snprintf(f->msg, sizeof(f->msg), "the blocks do not fit the measuring process's "
			 "code window (%u MiB)", (unsigned)(r->window >> 20));
		return -1;
	}
	if (r->pid <= 0) {
		f->kind = T32_FAIL_SYSTEM;
		snprintf(f->msg, sizeof(f->msg), "the measuring process is gone");
		return -1;
	}
	memset(&l, 0, sizeof(l));
	r->moving = 0;		/* a load places afresh */
	for (size_t i = 0; i < nblobs; i++) {
		r->blobs[i] = blobs[i];
		l.size[i] = blobs[i]->size;
	}
	r->nblobs = nblobs;
	if (write_all(r->to_child, &q, sizeof(q)) || write_all(r->to_child, &l, sizeof(l)))
		return runner_died(r, 0, f);
	for (size_t i = 0; i < nblobs; i++)
		if (write_all(r->to_child, blobs[i]->image, blobs[i]->size))
			return runner_died(r, 0, f);
	if (request_answer(r, &ok, f))
		return -1;
	r->loads++;
	r->piped++;
	return 0;
}

int t32_runner_move_later(struct t32_runner *r, uint64_t warm, uint64_t slow)
{
	if (r->pid <= 0 || !r->nblobs)
		return 1;
	r->move = (struct request){ OP_MOVE, 0, warm < CHUNK ? warm : CHUNK, slow, 0 };
	r->moving = 1;
	return 0;
}

int t32_runner_warm(struct t32_runner *r, uint64_t warm, uint64_t slow, struct t32_fault *f)
{
	struct request q = { OP_WARM, 0, warm < CHUNK ? warm : CHUNK, slow, 0 };
	char ok;

	fault_clear(f);
	if (r->pid <= 0)
		return -1;
	return request(r, &q, &ok, f);
}

uint64_t t32_runner_base(const struct t32_runner *r, size_t i)
{
	return r && i < r->sh->nbases ? r->sh->bases[i] : 0;
}

int t32_runner_fits(const struct t32_runner *r, const struct t32_blob *const *blobs,
		    size_t nblobs, const struct t32_run_opts *o)
{
	int cpu = o->cpu < 0 ? t32_default_cpu() : o->cpu;

	return r && r->pid > 0 && nblobs <= 8 && window_need(blobs, nblobs) <= r->window &&
	       r->opts.cpu == cpu && r->opts.timeout == o->timeout;
}

unsigned t32_runner_loads(const struct t32_runner *r)
{
	return r ? r->loads : 0;
}

unsigned t32_runner_piped(const struct t32_runner *r)
{
	return r ? r->piped : 0;
}

struct t32_runner *t32_runner_start(const struct t32_blob *const *blobs, size_t nblobs,
				    const struct t32_run_opts *o, struct t32_fault *f)
{
	uint64_t need = window_need(blobs, nblobs), window = WINDOW_MIN;
	struct t32_runner *r;

	if (nblobs > T32_RUNNER_BLOBS || need > WINDOW_MAX) {
		fail_system(f, "cannot start the measuring process");
		if (need > WINDOW_MAX)
			snprintf(f->msg, sizeof(f->msg), "the blocks' code is too large to load "
				 "(%llu MiB)", (unsigned long long)(need >> 20));
		return NULL;
	}
	/* room for blocks twice as large, so a sweep's next blocks fit */
	while (window < 2 * need && window < WINDOW_MAX)
		window *= 2;
	r = runner_open(window, o, f);
	if (r && t32_runner_load(r, blobs, nblobs, f)) {
		t32_runner_stop(r);
		return NULL;
	}
	return r;
}

/* One request to the child and its answer; the deltas land in out.  0 or -1 (f says why). */
static int runner_request(struct t32_runner *r, const struct request *q, uint64_t *out,
			  struct t32_fault *f)
{
	char ok;

	if (r->pid <= 0) {
		f->kind = T32_FAIL_SYSTEM;
		snprintf(f->msg, sizeof(f->msg), "the measuring process is gone");
		return -1;
	}
	if (r->moving) {
		/* the move first, in the same round trip: both written, answered in turn */
		char moved;

		r->moving = 0;
		if (write_all(r->to_child, &r->move, sizeof(r->move)) ||
		    write_all(r->to_child, q, sizeof(*q)))
			return runner_died(r, 0, f);
		if (request_answer(r, &moved, f) || request_answer(r, &ok, f))
			return -1;
		if (!moved) {
			/* the half could not hold them: this run was not at a new place */
			if (t32_runner_load(r, r->blobs, r->nblobs, f) ||
			    t32_runner_warm(r, r->move.count, r->move.per, f))
				return -1;
			return runner_request(r, q, out, f);
		}
		r->loads++;
	} else if (request(r, q, &ok, f)) {
		return -1;
	}
	if (ok != 1) {
		f->kind = T32_FAIL_SYSTEM;
		f->item = -1;
		f->rip_off = -1;
		snprintf(f->msg, sizeof(f->msg), "the body changed the harness's own data: "
			 "fewer deltas came back than runs were asked for");
		return -1;
	}
	memcpy(out, r->out, q->count * sizeof(uint64_t));
	return 0;
}

int t32_runner_timed(struct t32_runner *r, size_t which, uint64_t count, uint64_t *out,
		     struct t32_fault *f)
{
	memset(f, 0, sizeof(*f));
	while (count) {
		struct request q = { OP_RUN, which, count < CHUNK ? count : CHUNK, 0, 0 };

		if (runner_request(r, &q, out, f))
			return -1;
		out += q.count;
		count -= q.count;
	}
	return 0;
}

int t32_runner_interleaved(struct t32_runner *r, size_t nblocks, uint64_t per, uint64_t skip,
			   uint64_t reps, uint64_t *out, struct t32_fault *f)
{
	struct request q = { OP_RUN, nblocks, nblocks * per * reps, per, skip };

	memset(f, 0, sizeof(*f));
	if (nblocks == 0 || nblocks > r->nblobs || per == 0 || q.count > CHUNK ||
	    q.count / nblocks / per != reps) {
		f->kind = T32_FAIL_SYSTEM;
		snprintf(f->msg, sizeof(f->msg), "interleaved request too large");
		return -1;
	}
	return runner_request(r, &q, out, f);
}

void t32_runner_stop(struct t32_runner *r)
{
	if (!r)
		return;
	close(r->to_child);
	close(r->from_child);
	if (r->pid > 0)
		reap(r->pid, 0);
	munmap(r->sh, 4096 + CHUNK * sizeof(uint64_t));
	free(r);
}

/* ---- one call in a child ---- */

/*
 * Wait until the child closes its end of fd (it exits or dies) or timeout
 * seconds pass; what it writes there is read and dropped.  1 closed, 0 time-out.
 */
static int wait_closed(int fd, double timeout)
{
	double end = t32_now() + timeout;

	while (wait_readable(fd, end - t32_now())) {
		char buf[256];
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return 1;
	}
	return 0;
}

int t32_isolated(const struct t32_blob *blob,
		 int (*prepare)(void *code, void *arg, struct t32_confine *c),
		 int (*fn)(void *code, void *arg), void *arg, const struct t32_run_opts *o,
		 struct t32_fault *f)
{
	struct shared *sh;
	int up[2], status, cpu = o->cpu < 0 ? t32_default_cpu() : o->cpu;
	pid_t pid;
	const struct t32_blob *blobs[1] = { blob };

	memset(f, 0, sizeof(*f));
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pipe2(up, O_CLOEXEC)) {
		fail_system(f, "cannot set up the measuring process");
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fail_system(f, "cannot fork");
		return -1;
	}
	if (pid == 0) {
		void *code = NULL;
		struct t32_confine c;
		int rc;

		close(up[0]);
		if (child_setup(cpu, sh))
			_exit(124);
		t32_confine_init(&c);
		/* held, never written: its closing tells the parent the child is done */
		t32_confine_fd(&c, up[1], T32_CONFINE_HOLD);
		if (blob) {
			code = load_image(blob);
			if (!code)
				_exit(121);
			sh->bases[0] = (uint64_t)(uintptr_t)code;
			sh->nbases = 1;
			t32_confine_code(&c, code, blob->hdr.data);
		}
		if (prepare && (rc = prepare(code, arg, &c)))
			_exit(rc & 0xff);
		if (t32_confine(&c))
			_exit(125);
		confined_exit(fn(code, arg) & 0xff);
	}
	close(up[1]);
	{
		int done = wait_closed(up[0], o->timeout);

		status = reap(pid, !done);
		close(up[0]);
		if (done && WIFEXITED(status) && WEXITSTATUS(status) != 124 &&
		    WEXITSTATUS(status) != 125) {
			munmap(sh, 4096);
			return WEXITSTATUS(status);
		}
		classify(blobs, blob ? 1 : 0, sh, status, !done, o->timeout, f);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 124)
			snprintf(f->msg, sizeof(f->msg), "cannot pin to cpu %d", cpu);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 125)
			snprintf(f->msg, sizeof(f->msg), "cannot confine the measuring process "
				 "(seccomp, or closing its descriptors, failed)");
	}
	munmap(sh, 4096);
	return -1;
}

/* ---- messages ---- */

static const char *signal_words(int signo, int code)
{
	switch (signo) {
	case SIGSEGV:
		return code == SI_KERNEL ? "general protection fault" : "invalid memory access";
	case SIGILL:
		return "illegal instruction";
	case SIGFPE:
		return code == FPE_INTDIV ? "integer divide by zero" :
		       code == FPE_INTOVF ? "integer overflow" : "arithmetic exception";
	case SIGBUS:
		return "bus error";
	case SIGTRAP:
		return "a breakpoint or debug trap";
	case SIGALRM:
		return "the time limit";
	case SIGSYS:
		return "a system call, which a block may not make";
	default:
		return "killed";
	}
}

void t32_fault_describe(const struct t32_fault *f, const struct t32_spec *s, char *buf,
			size_t len)
{
	char subject[256], sig[128], at[220] = "", cut[256];

	/* a long item keeps both ends, so the reason after it is never cut away */
	if (f->item >= 0 && s && (size_t)f->item < s->nitems)
		snprintf(subject, sizeof(subject), "%s",
			 t32_shorten(s->items[f->item].text, 200, cut, sizeof(cut)));
	else if (f->insn[0])
		snprintf(subject, sizeof(subject), "%s", f->insn);
	else
		snprintf(subject, sizeof(subject), "%s", "block");
	if (f->signo)
		snprintf(sig, sizeof(sig), "SIG%s: %s",
			 sigabbrev_np(f->signo) ? sigabbrev_np(f->signo) : "?",
			 signal_words(f->signo, f->code));
	else
		snprintf(sig, sizeof(sig), "no signal");
	/* Name the faulting instruction too when the item holds several. */
	if (f->insn[0] && f->item >= 0 && s && (size_t)f->item < s->nitems &&
	    s->items[f->item].stmts > 1)
		snprintf(at, sizeof(at), ", at %s", f->insn);
	switch (f->kind) {
	case T32_FAIL_ASSEMBLE:
		snprintf(buf, len, "cannot assemble '%s' (%s)", subject, f->msg);
		break;
	case T32_FAIL_PRIVILEGED:
		snprintf(buf, len, "privileged instruction '%s' (%s%s)", subject, sig, at);
		break;
	case T32_FAIL_UNSUPPORTED:
		snprintf(buf, len, "not supported by this cpu '%s' (%s%s)", subject, sig, at);
		break;
	case T32_FAIL_TIMEOUT:
		if (f->rip_off >= 0)
			snprintf(buf, len, "block did not finish within %s '%s' (stopped there "
				 "by %s%s)", f->msg, subject, sig, at);
		else
			snprintf(buf, len, "block did not finish within %s '%s' (killed)", f->msg,
				 subject);
		break;
	case T32_FAIL_SIGNAL:
		if (f->item < 0 && (f->rip_off >= 0 || f->outside == 1) && s && s->nitems) {
			/* the harness's own code faulted: the body broke what it relies on */
			char body[160];

			t32_spec_format(s, body, sizeof(body));
			if (f->rip_off >= 0)
				snprintf(buf, len, "the harness faulted after the body '%s' (%s in the "
					 "harness's '%s': the body changed the harness's own data or "
					 "stack)", body, sig, f->insn[0] ? f->insn : "?");
			else
				snprintf(buf, len, "the harness faulted after the body '%s' (%s in "
					 "t32's own code (%s): the body changed the harness's own data, "
					 "stack or CPU state)", body, sig, f->where);
		} else if (f->item < 0 && f->outside == 2 && s && s->nitems) {
			char body[160];

			t32_spec_format(s, body, sizeof(body));
			snprintf(buf, len, "the body left the block '%s' (%s at 0x%llx, where there "
				 "is no code: a jump or a return out of the body, or a return "
				 "address it changed)", body, sig, (unsigned long long)f->addr);
		} else if (f->signo == SIGSEGV && f->code != SI_KERNEL)
			snprintf(buf, len, "instruction faulted '%s' (%s at 0x%llx%s)", subject,
				 sig, (unsigned long long)f->addr, at);
		else
			snprintf(buf, len, "instruction faulted '%s' (%s%s)", subject, sig, at);
		break;
	default:
		snprintf(buf, len, "%s", f->msg[0] ? f->msg : "measurement failed");
		break;
	}
}
