/*
 * util.h - what every subcommand shares: exit codes, error messages, running other
 * programs by argv, checked output, finding data files, provenance lines.
 */
#ifndef T32_UTIL_H
#define T32_UTIL_H

#include <stddef.h>
#include <stdio.h>

/* Exit codes (README "Exit codes"). */
enum {
	T32_EXIT_OK = 0,
	T32_EXIT_ERROR = 1,
	T32_EXIT_USAGE = 2,
	T32_EXIT_UNAVAILABLE = 3,	/* a facility is unavailable here */
	T32_EXIT_UNSUPPORTED = 4,	/* not supported by this CPU */
	T32_EXIT_UNTRUSTED = 7,		/* measured, but not trustworthy */
	T32_EXIT_INTERRUPTED = 130,	/* Ctrl-C: what was measured is kept */
};

/* `t32: <what>` on stderr; the text (without "t32: ") stays in t32_last_error. */
void t32_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern char t32_last_error[512];
/* One usage line on stderr; returns T32_EXIT_USAGE. */
int t32_usage(const char *line);

double t32_now(void);	/* monotonic seconds */

/* Write len bytes to path (created 0644, replaced). */
int t32_write_file(const char *path, const void *buf, size_t len);

/* Output of a program run by argv: exit status and its stdout+stderr. */
struct t32_child_output {
	int status;		/* exit status, or 128 + signal */
	char *text;		/* NUL-terminated; may be NULL */
	char error[128];	/* why it could not be run */
};
int t32_run_program(char *const argv[], struct t32_child_output *out);
void t32_child_output_free(struct t32_child_output *out);

/* Flush and close stdout; report a write failure (a full disk). Returns 0 or 1. */
int t32_close_stdout(void);

/* The data directory: $T32_DATADIR, ../data beside the binary, or the installed one. */
const char *t32_datadir(void);

/* s as a JSON string, quotes, backslashes and control characters escaped. */
void t32_json_string(FILE *f, const char *s);

/* Output formats shared by the subcommands. */
enum t32_format { T32_FMT_TABLE, T32_FMT_TSV, T32_FMT_JSON };
int t32_parse_format(const char *arg, enum t32_format *out);

/* `# key: value` provenance lines: tool, command line, cpu, date, plus extra. */
extern int t32_main_argc;	/* set by main: the command line provenance names */
extern char **t32_main_argv;
void t32_provenance(FILE *f, int argc, char **argv);

/* The CPU's brand string and vendor/family/model from cpuid. */
struct t32_cpu {
	char vendor[13];
	char brand[49];
	unsigned family, model, stepping;
	int hypervisor;
	char hv_vendor[13];
};
void t32_cpu_identify(struct t32_cpu *c);

#define T32_VERSION "0.1"

/* The value of argv[*i] given as NAME=V or NAME V (then *i moves on), else NULL. */
const char *t32_optval(int argc, char **argv, int *i, const char *name);

#endif
