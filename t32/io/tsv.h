/*
 * tsv.h - t32's TSV files.  Fields are escaped on the way out (a tab, newline,
 * carriage return or backslash in a field is written `\t`, `\n`, `\r`, `\\`), so
 * an argument holding one cannot add a column or a row, and one bounded reader
 * gives a file back line by line and field by field, unescaped.  A line longer
 * than T32_TSV_LINE_MAX or holding a NUL byte is refused, so a file without
 * newlines or an endless one never grows memory without end.
 */
#ifndef T32_TSV_H
#define T32_TSV_H

#include <stddef.h>
#include <stdio.h>

#define T32_TSV_LINE_MAX (1u << 20)	/* bytes in one line, newline included */
#define T32_TSV_ROWS_MAX (1u << 24)	/* data rows a reader keeps from one file */

/*
 * s escaped into dst (cap bytes, always NUL-terminated when cap > 0, cut short
 * when it does not fit); returns the length the whole escaped text needs, like
 * snprintf.
 */
size_t t32_tsv_escape(char *dst, size_t cap, const char *s);
/* s escaped onto f. */
void t32_tsv_fputs(const char *s, FILE *f);
/* Undo t32_tsv_escape in place; a backslash before any other byte is kept as written. */
void t32_tsv_unescape(char *s);

/* A TSV file being read. */
struct t32_tsv {
	FILE *f;
	int own;		/* f was opened here and is closed by t32_tsv_close */
	char *path;		/* for messages */
	char *line;		/* the current line, NUL-terminated, newline and CR stripped */
	size_t len;		/* bytes the line took in the file, newline included */
	size_t cap;
	size_t lineno;		/* 1-based number of the current line */
	int complete;		/* the line ended with a newline (not cut off at the end) */
	char **fields;		/* after t32_tsv_split: the fields, unescaped */
	size_t nfields, fcap;
};

/* Open path ("-" is stdin) to read; 0, or -1 after an error message. */
int t32_tsv_open(struct t32_tsv *t, const char *path);
/* Read from f, already open, named path in messages; f stays the caller's. */
int t32_tsv_from(struct t32_tsv *t, FILE *f, const char *path);
/*
 * Read text (another command's output, kept in memory), named name in messages;
 * t32_tsv_close lets it go.  -1, without a message, when it is empty or cannot be read.
 */
int t32_tsv_text(struct t32_tsv *t, const char *text, const char *name);
/* The next line: 1, 0 at the end of the file, -1 after an error message. */
int t32_tsv_next(struct t32_tsv *t);
/* Split the current line in place at its tabs, each field unescaped; the field count. */
size_t t32_tsv_split(struct t32_tsv *t);
void t32_tsv_close(struct t32_tsv *t);

/*
 * The index of column `name` among the header's n names, or -1.  A column t32
 * has since renamed is found by its new name too (per_insn finds a sweep's
 * older `estimate`).
 */
long t32_tsv_column(char *const *head, size_t n, const char *name);

/*
 * The next data row of t split into its fields (1), '#' lines and blank ones
 * skipped; the first line met is the header, and each of the n columns names[]
 * is found in it, into cols[] (the first `need` must be there; a later one
 * absent is -1).  *head starts 0.  0 at the end, -1 when a read failed, a
 * column needed is missing or a row is too short for the columns found.
 */
int t32_tsv_row(struct t32_tsv *t, int *head, const char *const *names, long *cols, size_t n,
		size_t need);

#endif
