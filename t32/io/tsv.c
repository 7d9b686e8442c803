/*
 * tsv.c - escaping TSV fields and reading TSV files back within bounds.
 */
#include "t32/io/tsv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "t32/util.h"

/* The escape of byte c (the letter after the backslash), or 0 when c stands as it is. */
static char escape_of(char c)
{
	switch (c) {
	case '\t': return 't';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\\': return '\\';
	default: return 0;
	}
}

size_t t32_tsv_escape(char *dst, size_t cap, const char *s)
{
	size_t need = 0;

	for (; *s; s++) {
		char e = escape_of(*s);
		size_t w = e ? 2 : 1;

		if (need + w < cap) {
			if (e) {
				dst[need] = '\\';
				dst[need + 1] = e;
			} else {
				dst[need] = *s;
			}
		} else if (need < cap) {
			cap = need + 1;	/* nothing more fits: stop writing, keep counting */
		}
		need += w;
	}
	if (cap)
		dst[need < cap ? need : cap - 1] = 0;
	return need;
}

void t32_tsv_fputs(const char *s, FILE *f)
{
	for (; *s; s++) {
		char e = escape_of(*s);

		if (e) {
			putc('\\', f);
			putc(e, f);
		} else {
			putc(*s, f);
		}
	}
}

void t32_tsv_unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			char c = s[1] == 't' ? '\t' : s[1] == 'n' ? '\n' : s[1] == 'r' ? '\r' :
				 s[1] == '\\' ? '\\' : 0;

			if (c) {
				*w++ = c;
				s++;
				continue;
			}
		}
		*w++ = *s;
	}
	*w = 0;
}

int t32_tsv_from(struct t32_tsv *t, FILE *f, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->path = strdup(path);
	if (!t->path) {
		t32_error("out of memory reading '%s'", path);
		return -1;
	}
	return 0;
}

int t32_tsv_text(struct t32_tsv *t, const char *text, const char *name)
{
	FILE *f = text && text[0] ? fmemopen((void *)text, strlen(text), "r") : NULL;

	if (!f || t32_tsv_from(t, f, name)) {
		if (f)
			fclose(f);
		return -1;
	}
	t->own = 1;
	return 0;
}

int t32_tsv_open(struct t32_tsv *t, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	struct stat st;

	if (!f) {
		t32_error("cannot read '%s' (%s)", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		t32_error("cannot read '%s' (%s)", path, strerror(EISDIR));
		if (f != stdin)
			fclose(f);
		return -1;
	}
	if (t32_tsv_from(t, f, path)) {
		if (f != stdin)
			fclose(f);
		return -1;
	}
	t->own = f != stdin;
	return 0;
}

int t32_tsv_next(struct t32_tsv *t)
{
	size_t len = 0;
	int c;

	t->nfields = 0;
	t->complete = 0;
	if (!t->f)
		return 0;
	for (;;) {
		c = getc_unlocked(t->f);
		if (c == EOF)
			break;
		if (len + 1 >= T32_TSV_LINE_MAX) {
			t32_error("line %zu of '%s' is longer than %u bytes (not a t32 TSV file?)",
				  t->lineno + 1, t->path, T32_TSV_LINE_MAX);
			return -1;
		}
		if (c == 0) {
			t32_error("a NUL byte in line %zu of '%s' (not a text file?)", t->lineno + 1,
				  t->path);
			return -1;
		}
		if (len + 2 > t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 256;
			char *grown;

			if (cap > T32_TSV_LINE_MAX + 1)
				cap = T32_TSV_LINE_MAX + 1;
			grown = realloc(t->line, cap);
			if (!grown) {
				t32_error("out of memory reading '%s'", t->path);
				return -1;
			}
			t->line = grown;
			t->cap = cap;
		}
		t->line[len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (ferror(t->f)) {
		t32_error("cannot read '%s' (%s)", t->path, strerror(errno ? errno : EIO));
		return -1;
	}
	if (!len)
		return 0;
	t->lineno++;
	t->len = len;
	t->complete = t->line[len - 1] == '\n';
	if (t->complete)
		len--;
	if (len && t->line[len - 1] == '\r')
		len--;
	t->line[len] = 0;
	return 1;
}

size_t t32_tsv_split(struct t32_tsv *t)
{
	size_t n = 0;

	for (char *p = t->line;; n++) {
		char *tab = strchr(p, '\t');

		if (n == t->fcap) {
			size_t cap = t->fcap ? 2 * t->fcap : 32;
			char **grown = realloc(t->fields, cap * sizeof(*grown));

			if (!grown)
				break;	/* the fields so far; a line that long is no t32 row */
			t->fields = grown;
			t->fcap = cap;
		}
		t->fields[n] = p;
		if (tab)
			*tab = 0;
		t32_tsv_unescape(p);
		if (!tab) {
			n++;
			break;
		}
		p = tab + 1;
	}
	t->nfields = n;
	return n;
}

void t32_tsv_close(struct t32_tsv *t)
{
	if (t->own && t->f)
		fclose(t->f);
	free(t->line);
	free(t->fields);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

/*
 * Columns t32 has renamed: a file written before the rename is read by the new
 * name (sweeps said `estimate` where `time` says `per_insn`; one name now).
 */
static const struct {
	const char *name, *old;
} renamed[] = {
	{ "per_insn", "estimate" },
	{ "min_per_insn", "min_est" },
	{ "median_per_insn", "median_est" },
};

long t32_tsv_column(char *const *head, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(head[i], name) == 0)
			return (long)i;
	for (size_t r = 0; r < sizeof(renamed) / sizeof(renamed[0]); r++)
		if (strcmp(name, renamed[r].name) == 0)
			for (size_t i = 0; i < n; i++)
				if (strcmp(head[i], renamed[r].old) == 0)
					return (long)i;
	return -1;
}

int t32_tsv_row(struct t32_tsv *t, int *head, const char *const *names, long *cols, size_t n,
		size_t need)
{
	int st;

	while ((st = t32_tsv_next(t)) == 1) {
		if (t->line[0] == '#' || !t->line[0])
			continue;
		t32_tsv_split(t);
		if (*head) {
			for (size_t i = 0; i < n; i++)
				if (cols[i] >= 0 && (size_t)cols[i] >= t->nfields)
					return -1;
			return 1;
		}
		*head = 1;
		for (size_t i = 0; i < n; i++)
			if ((cols[i] = t32_tsv_column(t->fields, t->nfields, names[i])) < 0 && i < need)
				return -1;
	}
	return st < 0 ? -1 : 0;
}
