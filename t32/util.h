/*
 * util.h - what every subcommand shares: exit codes, error messages, running other
 * programs by argv, checked output, finding data files, provenance lines.
 */
#ifndef T32_UTIL_H
#define T32_UTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

/* Exit codes (doc/formats.md "Exit codes"; t32 --list exit-codes). */
enum {
	T32_EXIT_OK = 0,
	T32_EXIT_ERROR = 1,
	T32_EXIT_USAGE = 2,
	T32_EXIT_UNAVAILABLE = 3,	/* a facility is unavailable here */
	T32_EXIT_UNSUPPORTED = 4,	/* not supported by this CPU */
	T32_EXIT_ROWS = 5,		/* a sweep finished, but not every row is ok */
	T32_EXIT_UNTRUSTED = 7,		/* measured, but not trustworthy */
	T32_EXIT_INTERRUPTED = 130,	/* Ctrl-C: what was measured is kept */
};

/*
 * s, or when it is longer than max bytes its start, " ... " and its end (max
 * bytes in all) in buf (len > max): a long subject cut in a message keeps both
 * ends.
 */
const char *t32_shorten(const char *s, size_t max, char *buf, size_t len);
/*
 * `t32: <what>` on stderr; the text (without "t32: ") stays in t32_last_error,
 * a long one as its start and its end (t32_shorten).
 */
void t32_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern char t32_last_error[512];
/* `t32: warning: <what>` on stderr: the result stands, with a caveat. */
void t32_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * While t32_warn_quiet is set (a command run inside t32 study, whose rows carry
 * the flags), warnings are counted in t32_warn_held, the last kept, not printed.
 */
/*
 * text on f with every line longer than width folded at a blank: an option's
 * line ("  --n LIST   what it does") goes on under its description, a usage
 * line under what follows "usage: ", any other under its own indentation.
 */
void t32_fputs_folded(const char *text, FILE *f, int width);
extern int t32_warn_quiet;
extern unsigned long t32_warn_held;
extern char t32_warn_last[512];
/* One usage line on stderr; returns T32_EXIT_USAGE. */
int t32_usage(const char *line);

double t32_now(void);	/* monotonic seconds */

/* s with white space stripped at both ends, in place; returns the new start. */
char *t32_trim(char *s);

/* s on f with its control bytes escaped (\t, \n, \r, \xHH): safe to show on a terminal. */
void t32_fputs_visible(const char *s, FILE *f);

/*
 * Outputs are written whole or not at all: into a temporary file beside the
 * target (same directory, so the rename is atomic), flushed, synced and renamed
 * into place, so a full disk or a kill never leaves a 0-byte or partial file
 * where a good one was.  Where a rename would lose something (a directory that
 * refuses new files, a file with other hard links or another owner) the new
 * content waits in $TMPDIR and is copied over the file in place.  A symbolic
 * link stays: the file it names is written, created when missing.  "-" is
 * stdout; a path that is not a regular file (/dev/null, a FIFO) is written where
 * it is.  A file a sweep is writing (it holds the file's lock) is refused.
 */
struct t32_out {
	FILE *f;		/* write here */
	char *path;		/* where it goes (a copy: the caller's buffer may change) */
	char *target;		/* the file that is: path, or where its symbolic link leads */
	char *tmp;		/* the temporary file, or NULL when written directly */
	int in_place;		/* tmp is copied over target (t32_tmp_replacing), not renamed */
	int lockfd;		/* the existing file, locked while we replace it, or -1 */
	int locked;		/* the open failed because another t32 holds the lock */
	int replacing;		/* a file was there: synced before the rename */
	int fd;			/* the temporary file's */
	int err;		/* errno of its first failed write, or 0 */
};
/* 0, or -1 after a message (`cannot write 'PATH' (reason)`). */
int t32_out_open(struct t32_out *o, const char *path);
/* Put the output in place: 0, or -1 after a message; the old file is then left as it was. */
int t32_out_commit(struct t32_out *o);
/* Give the output up: the temporary file is removed, the old file left as it was. */
void t32_out_abort(struct t32_out *o);
/*
 * The same as fopen(path, "w") and fclose: the file appears at path, whole, at
 * t32_fclose_out (0, or EOF after a message with the old file left as it was);
 * t32_fabort_out gives it up.  NULL after a message when it cannot be opened.
 */
FILE *t32_fopen_out(const char *path);
int t32_fclose_out(FILE *f);
void t32_fabort_out(FILE *f);
/* Write len bytes to path that way; 0, or -1 with errno and no message. */
int t32_write_file(const char *path, const void *buf, size_t len);

/*
 * The pieces: a temporary file beside path (mode of the file it replaces, or
 * 0666 less the umask), its name in *tmp (malloc'd), removed at exit unless
 * t32_tmp_done(tmp, 1) keeps it; an fd, or -1 with errno.
 */
int t32_tmp_beside(const char *path, char **tmp);
/*
 * Name (a warning each) the temporary files `.NAME.t32-XXXXXX` beside path that
 * no live t32 holds locked: a killed run left them.  They are not removed.
 */
void t32_strays_beside(const char *path);
/* Forget tmp (free it); unlink it too unless keep. */
void t32_tmp_done(char *tmp, int keep);
/* Free the n strings of v, then v (NULL when n is 0 is fine). */
void t32_free_strings(char **v, size_t n);
/*
 * The file an output named path goes to: path, or where its symbolic links lead
 * (a relative link read from its own directory), so that the link stays.
 * malloc'd, or NULL with errno (ELOOP).
 */
char *t32_out_target(const char *path);
/*
 * A temporary file that will replace the existing file path: t32_tmp_beside, or
 * where a rename would lose something (see t32_out) one in $TMPDIR to be copied
 * over path in place (*in_place = 1).  An fd, or -1 with errno.
 */
int t32_tmp_replacing(const char *path, char **tmp, int *in_place);
/* Put tmp (open as fd, written and flushed) in place of path; 0, or -1 with errno. */
int t32_tmp_install(int fd, const char *tmp, const char *path, int in_place);
/*
 * Keep an unfinished tmp, never over another file: `PATH.partial` (or
 * `.partial.N`) beside path, in $TMPDIR when it was to be copied in place.  Its
 * name in *kept (malloc'd); 0, or -1 with errno.
 */
int t32_tmp_keep_partial(const char *tmp, const char *path, int in_place, char **kept);
/*
 * SIGINT, SIGTERM and SIGHUP go to handler; NULL: the default, which removes the
 * temporary files of outputs not yet in place and dies of the signal.  A signal
 * already ignored (nohup) stays ignored.
 */
void t32_on_stop_signals(void (*handler)(int));
/*
 * Set to 1 by SIGINT, SIGTERM or SIGHUP once t32_catch_stop_signals has run
 * (ignored ones too: a background run is stopped, not killed): a command that
 * stops on Ctrl-C, keeping what it measured, polls it (or hands it to the loop
 * that does).
 */
extern volatile sig_atomic_t t32_stop_asked;
void t32_catch_stop_signals(void);
/*
 * Open path with flags and take its lock (flock, exclusive), the file the name
 * holds once locked: an fd, -1 with errno, or -2 after the message that another
 * t32 is writing it.
 */
int t32_lock_path(const char *path, int flags);
/* a and b name one existing file (an output that would overwrite an input). */
int t32_same_file(const char *a, const char *b);

/* Output of a program run by argv: exit status and its stdout+stderr. */
struct t32_child_output {
	int status;		/* exit status, or 128 + signal */
	char *text;		/* NUL-terminated; may be NULL */
	char error[128];	/* why it could not be run */
};
int t32_run_program(char *const argv[], struct t32_child_output *out);
void t32_child_output_free(struct t32_child_output *out);

/*
 * free() each of the pointers given, in order: `t32_free_all(r->a, r->b, r->c)`
 * names what a struct owns in one list rather than a free() a line.
 */
void t32_free_n(void *const *p, size_t n);
#define t32_free_all(...) \
	t32_free_n((void *const[]){ __VA_ARGS__ }, \
		   sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

/* Flush and close stdout; report a write failure (a full disk). Returns 0 or 1. */
int t32_close_stdout(void);
/* Set while a command runs inside another (t32 study): stdout is flushed, not closed. */
extern int t32_keep_stdout;
/*
 * Run the command fn(argc, argv) with its stdout going to memory (flushed, not
 * closed: t32_keep_stdout) and put the text in *text (free it): fn's exit
 * code, or -1 without running it when there is no memory for the text.
 */
int t32_call_captured(int (*fn)(int, char **), int argc, char **argv, char **text);

/* The data directory: $T32_DATADIR, ../data beside the binary, or the installed one. */
const char *t32_datadir(void);
/*
 * This program's own path into buf (len bytes), for starting it again where a
 * fresh process is the point (wake's real-time state, a bench figure timed as a
 * user runs it); 0, or -1 with errno.
 */
int t32_self_path(char *buf, size_t len);

/* The gnuplot scripts: $T32_PLOTDIR, plots/ beside data/ in the tree, or data/plots installed. */
const char *t32_plotdir(void);

/* s as a JSON string, quotes, backslashes and control characters escaped. */
void t32_json_string(FILE *f, const char *s);

/* Output formats shared by the subcommands. */
enum t32_format { T32_FMT_TABLE, T32_FMT_TSV, T32_FMT_JSON };
int t32_parse_format(const char *arg, enum t32_format *out);

/*
 * Provenance (t32/io/provenance.c): `# key: value` lines on top of every TSV t32
 * writes (tool, version and commit, the command line, cpu, micro-architecture,
 * date), and the same as a JSON object for JSON outputs.  The command line is
 * t32_main_argv when set (main sets it; a command run in-process by another sets
 * its own), else argv.
 */
extern int t32_main_argc;
extern char **t32_main_argv;
void t32_provenance(FILE *f, int argc, char **argv);
/* The same, naming `cmd` (a command line as one would type it) as the command. */
void t32_provenance_of(FILE *f, const char *cmd);
/*
 * While a recording is replayed, provenance names the machine and date it was
 * recorded on (these values) and the file (a `# replayed:` line); NULLs end that.
 */
void t32_provenance_recorded(const char *cpu, const char *core, const char *host,
			     const char *date, const char *from);
/* This machine's `# cpu:` provenance line (newline included) into buf. */
void t32_provenance_cpu_line(char *buf, size_t len);
/* `"provenance": {...}` (no comma around it), for a JSON object being written. */
void t32_provenance_json(FILE *f, int argc, char **argv);
/*
 * Open a JSON object with the provenance and then the n string fields kv[i][0]:
 * kv[i][1], and leave it open for the caller's other fields:
 * `{"provenance": {...}, "input": "a.tsv", "x": "n"`.
 */
void t32_json_open(FILE *f, int argc, char **argv, const char *const (*kv)[2], size_t n);
/* The source commit t32 was built from ("unknown" outside a git checkout). */
const char *t32_commit(void);
/* The command line as one shell-readable string into buf. */
void t32_command_line(char *buf, size_t len, int argc, char **argv);
/* argv[0..argc) as one shell-readable string into buf (this process's line not consulted). */
void t32_command_words(char *buf, size_t len, int argc, const char *const *argv);

/*
 * The CPU's brand string, vendor/family/model and core from cpuid (t32/cpu.h):
 * t32_cpu_identify describes the CPU measurements run on (t32_default_cpu),
 * t32_cpu_identify_on CPU cpu.
 */
struct t32_cpu {
	char vendor[13];
	char brand[49];
	unsigned family, model, stepping;
	int hypervisor;
	char hv_vendor[13];
	char microcode[24];	/* /proc/cpuinfo's "microcode" ("0xa101148"), "" if not shown */
	int cpu;		/* the logical CPU described */
	unsigned core_type;	/* T32_CORE_*: 0 on a part that is not hybrid */
	char core_text[32];	/* "P-core", "E-core", ... ("" when not hybrid) */
};
void t32_cpu_identify(struct t32_cpu *c);
void t32_cpu_identify_on(struct t32_cpu *c, int cpu);

#define T32_VERSION "0.1"

/* Edit distance of two short words (insertions, deletions, substitutions); 99 if long. */
size_t t32_edit_distance(const char *a, const char *b);
/*
 * The word of names[0..n) nearest to word (at most max edits away, fewer than
 * the word is long), or NULL: "did you mean ...?".
 */
const char *t32_nearest(const char *word, const char *const *names, size_t n, size_t max);
/*
 * The CPU identity of a `# cpu:` provenance line ("family 0x19 model 0x11
 * stepping 1 microcode 0xa101148") into buf; 0, or -1 when the line holds none.
 * Shards whose identities differ were measured on different CPUs.
 */
int t32_cpu_line_identity(const char *line, char *buf, size_t len);

#endif
