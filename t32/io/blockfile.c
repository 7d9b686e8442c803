/*
 * blockfile.c - block files (see blockfile.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "t32/io/blockfile.h"
#include "t32/util.h"

#define BLOCKFILE_MAX_LINES 100000	/* a block is tens of lines; an endless file stops here */

int t32_blockfile_find(const char *arg, const char *datadir, char *path, size_t len)
{
	char try[4096];
	size_t n = strlen(arg);
	FILE *f;

	struct stat st;

	/*
	 * FILE.blk; or a path (a file that is there, or a name that starts as only a
	 * path does): no instruction holds '/' there, so /dev/null is an empty block
	 * file, not instruction text
	 */
	if ((n > 4 && !strcmp(arg + n - 4, ".blk")) ||
	    (strchr(arg, '/') && (stat(arg, &st) == 0 || arg[0] == '/' || !strncmp(arg, "./", 2) ||
				  !strncmp(arg, "../", 3)))) {
		snprintf(path, len, "%s", arg);
		return 1;
	}
	/* Anything an instruction could be is not a block name. */
	if (!n || strpbrk(arg, " \t,[];/"))
		return 0;
	snprintf(try, sizeof(try), "%s/blocks/%s.blk", datadir, arg);
	f = fopen(try, "r");
	if (!f)
		return 0;
	fclose(f);
	snprintf(path, len, "%s", try);
	return 1;
}

/* One body line: `N TEXT` or `TEXT`, appended to s as an item.  0, or -1 with err. */
static int body_line(struct t32_spec *s, char *l, char *err, size_t len)
{
	char *argv[2], *p = l + strcspn(l, " \t"), *rest = p + strspn(p, " \t");
	uint64_t n;
	int argc = 1;

	argv[0] = l;
	if (*p && *rest) {
		*p = 0;
		if (!t32_parse_u64(l, 0, UINT64_MAX, &n)) {
			argv[1] = rest;
			argc = 2;
		} else {
			*p = ' ';
		}
	}
	return t32_spec_parse_body(s, argc, argv, err, len);
}

int t32_blockfile_load(const char *path, struct t32_spec *s, struct t32_blockfile *bf,
		       char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[4096], what[512];
	unsigned lineno = 0;
	int rc = 0;

	memset(bf, 0, sizeof(*bf));
	if (!f) {
		snprintf(err, len, "cannot read block file '%s' (%s)", path, strerror(errno));
		bf->unreadable = 1;
		return -1;
	}
	/* bytes past fgets' terminator stay 1, so the last 0 is the end of what it read */
	while (!rc && (memset(line, 1, sizeof(line)), fgets(line, sizeof(line), f))) {
		char *l = line;
		size_t got = sizeof(line) - 1;
		uint64_t v;

		while (got && line[got])
			got--;
		lineno++;
		what[0] = 0;
		if (strlen(line) != got) {
			snprintf(what, sizeof(what), "a NUL byte (not a text file)");
		} else if (!strchr(line, '\n') && !feof(f)) {
			snprintf(what, sizeof(what), "line longer than %zu bytes", sizeof(line) - 2);
		} else if (lineno > BLOCKFILE_MAX_LINES) {
			snprintf(what, sizeof(what), "more than %d lines", BLOCKFILE_MAX_LINES);
		} else if (!*(l = t32_trim(line)) || *l == '#') {
			continue;
		} else if (!strncmp(l, "init ", 5)) {
			t32_spec_parse_init(s, t32_trim(l + 5), what, sizeof(what));
		} else if (!strncmp(l, "barrier ", 8)) {
			if (!t32_spec_set_barrier(s, t32_trim(l + 8), what, sizeof(what)))
				bf->has_barrier = 1;
		} else if (!strncmp(l, "unroll ", 7)) {
			if (t32_parse_u64(t32_trim(l + 7), 1, 1000, &v))
				snprintf(what, sizeof(what), "bad unroll '%s' (1 to 1000)", t32_trim(l + 7));
			else
				bf->unroll = v;
		} else {
			body_line(s, l, what, sizeof(what));
		}
		if (what[0]) {
			snprintf(err, len, "%s:%u: %s", path, lineno, what);
			rc = -1;
		}
	}
	if (!rc && ferror(f)) {
		snprintf(err, len, "cannot read block file '%s' (%s)", path, strerror(errno));
		bf->unreadable = 1;
		rc = -1;
	}
	fclose(f);
	if (!rc && !s->nitems) {
		snprintf(err, len, "%s: no instructions in the block", path);
		rc = -1;
	}
	return rc;
}
