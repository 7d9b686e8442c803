/*
 * provenance.c - where a result came from, written on top of every file t32
 * writes: the tool, its version and commit, the whole command line, the CPU
 * measured on (with its core type on a hybrid part), its core (the
 * micro-architecture CPUID names, and the data the model uses for it) and the
 * date.  `# core:` is the machine's; a command that models with other
 * data (--uarch) says so in its own `# uarch:` line.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/uarch.h"
#include "t32/util.h"

#ifndef T32_COMMIT
#define T32_COMMIT "unknown"
#endif

int t32_main_argc;
char **t32_main_argv;

const char *t32_commit(void)
{
	return T32_COMMIT[0] ? T32_COMMIT : "unknown";
}

/* Append s to buf (len bytes, at *used), shell-quoted where a shell would need it. */
static void append_word(char *buf, size_t len, size_t *used, const char *s)
{
	int quote = strpbrk(s, " \t'\"$;,[]()&|<>*?`\\!#~{}") || !*s;

	if (*used + 1 >= len)
		return;
	if (*used)
		buf[(*used)++] = ' ';
	if (quote && *used + 1 < len)
		buf[(*used)++] = '\'';
	/* control bytes stay: the writer escapes them (a TSV line, a JSON string) */
	for (const unsigned char *p = (const unsigned char *)s; *p && *used + 5 < len; p++) {
		if (*p == '\'' && quote)
			*used += (size_t)snprintf(buf + *used, len - *used, "'\\''");
		else
			buf[(*used)++] = (char)*p;
	}
	if (quote && *used + 1 < len)
		buf[(*used)++] = '\'';
	buf[*used] = 0;
}

void t32_command_words(char *buf, size_t len, int argc, const char *const *argv)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (int i = 0; i < argc; i++)
		append_word(buf, len, &used, argv[i]);
}

void t32_command_line(char *buf, size_t len, int argc, char **argv)
{
	if (t32_main_argv) {
		/* the whole command line, whatever part of it the subcommand was given */
		argc = t32_main_argc;
		argv = t32_main_argv;
	}
	t32_command_words(buf, len, argc, (const char *const *)argv);
}

/* The facts provenance names: date, cpu line, micro-architecture line. */
struct facts {
	char date[64];
	char cpu[256];
	char uarch[320];
	char host[256];		/* this machine's name, "" when it has none */
};

/* The recorded facts of a replay, or none. */
static struct {
	int on;
	struct facts f;
	char from[4096];
} recorded;

void t32_provenance_recorded(const char *cpu, const char *core, const char *host,
			     const char *date, const char *from)
{
	recorded.on = cpu != NULL;
	if (!recorded.on)
		return;
	snprintf(recorded.f.cpu, sizeof(recorded.f.cpu), "%s", cpu);
	snprintf(recorded.f.uarch, sizeof(recorded.f.uarch), "%s", core);
	snprintf(recorded.f.host, sizeof(recorded.f.host), "%s", host);
	snprintf(recorded.f.date, sizeof(recorded.f.date), "%s", date);
	snprintf(recorded.from, sizeof(recorded.from), "%s", from);
}

static void gather(struct facts *f)
{
	struct t32_cpu c;
	struct t32_uarch_choice ch;
	time_t now = time(NULL);
	struct tm tm;

	if (recorded.on) {
		*f = recorded.f;
		return;
	}
	t32_cpu_identify(&c);
	gmtime_r(&now, &tm);
	strftime(f->date, sizeof(f->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/*
	 * the identity shards are merged by (t32_cpu_line_identity): microcode and,
	 * on a hybrid part, the core type included
	 */
	snprintf(f->cpu, sizeof(f->cpu), "%s (%s family %#x model %#x stepping %u%s%s%s%s)%s%s",
		 c.brand, c.vendor, c.family, c.model, c.stepping, c.microcode[0] ? " microcode " : "",
		 c.microcode, c.core_text[0] ? ", " : "", c.core_text,
		 c.hypervisor ? ", hypervisor " : "", c.hypervisor ? c.hv_vendor : "");
	if (gethostname(f->host, sizeof(f->host) - 1))
		f->host[0] = 0;
	f->host[sizeof(f->host) - 1] = 0;
	t32_uarch_choose(NULL, c.vendor, c.family, c.model, c.core_type, &ch);
	t32_uarch_choice_text(&ch, ch.data, f->uarch, sizeof(f->uarch));
}

void t32_provenance_cpu_line(char *buf, size_t len)
{
	struct facts x;

	gather(&x);
	snprintf(buf, len, "# cpu: %s\n", x.cpu);
}

void t32_provenance(FILE *f, int argc, char **argv)
{
	char cmd[8192];

	t32_command_line(cmd, sizeof(cmd), argc, argv);
	t32_provenance_of(f, cmd);
}

void t32_provenance_of(FILE *f, const char *cmd)
{
	struct facts x;

	gather(&x);
	fprintf(f, "# tool: t32 %s (commit %s)\n# command: ", T32_VERSION, t32_commit());
	t32_fputs_visible(cmd, f);
	fprintf(f, "\n# cpu: %s\n# core: %s\n", x.cpu, x.uarch);
	if (x.host[0]) {
		fputs("# host: ", f);
		t32_fputs_visible(x.host, f);
		putc('\n', f);
	}
	fprintf(f, "# date: %s\n", x.date);
	if (recorded.on) {
		fputs("# replayed: from ", f);
		t32_fputs_visible(recorded.from, f);
		putc('\n', f);
	}
}

void t32_json_open(FILE *f, int argc, char **argv, const char *const (*kv)[2], size_t n)
{
	fprintf(f, "{");
	t32_provenance_json(f, argc, argv);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, ", ");
		t32_json_string(f, kv[i][0]);
		fprintf(f, ": ");
		t32_json_string(f, kv[i][1]);
	}
}

void t32_provenance_json(FILE *f, int argc, char **argv)
{
	struct facts x;
	char cmd[8192];

	gather(&x);
	t32_command_line(cmd, sizeof(cmd), argc, argv);
	fprintf(f, "\"provenance\": {\"tool\": \"t32\", \"version\": ");
	t32_json_string(f, T32_VERSION);
	fprintf(f, ", \"commit\": ");
	t32_json_string(f, t32_commit());
	fprintf(f, ", \"command\": ");
	t32_json_string(f, cmd);
	fprintf(f, ", \"cpu\": ");
	t32_json_string(f, x.cpu);
	fprintf(f, ", \"core\": ");
	t32_json_string(f, x.uarch);
	fprintf(f, ", \"host\": ");
	if (x.host[0])
		t32_json_string(f, x.host);
	else
		fprintf(f, "null");
	fprintf(f, ", \"date\": ");
	t32_json_string(f, x.date);
	if (recorded.on) {
		fprintf(f, ", \"replayed\": ");
		t32_json_string(f, recorded.from);
	}
	fprintf(f, "}");
}
