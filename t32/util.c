/*
 * util.c - shared helpers for the t32 command.
 */
#include "t32/util.h"

#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char t32_last_error[512];

void t32_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t32_last_error, sizeof(t32_last_error), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "t32: %s\n", t32_last_error);
}

int t32_usage(const char *line)
{
	fprintf(stderr, "usage: %s\n", line);
	return T32_EXIT_USAGE;
}

double t32_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int t32_write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const char *p = buf;

	if (fd < 0)
		return -1;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd);
}

int t32_run_program(char *const argv[], struct t32_child_output *out)
{
	int fds[2];
	pid_t pid;
	size_t cap = 0, len = 0;
	int status;

	memset(out, 0, sizeof(*out));
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(out->error, sizeof(out->error), "%s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(out->error, sizeof(out->error), "%s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		/* a helper program finishes its short job; Ctrl-C is for the parent */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execvp(argv[0], argv);
		/* 127 and a marker the parent recognises */
		dprintf(2, "\001exec: %s", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > cap) {
			char *t = realloc(out->text, cap = cap * 2 + 8192);

			if (!t)
				break;
			out->text = t;
		}
		n = read(fds[0], out->text + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (out->text)
		out->text[len] = 0;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	out->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (out->status == 127 && out->text && out->text[0] == '\001') {
		snprintf(out->error, sizeof(out->error), "%s", out->text + 7);
		return -1;
	}
	return 0;
}

void t32_child_output_free(struct t32_child_output *out)
{
	free(out->text);
	out->text = NULL;
}

int t32_close_stdout(void)
{
	int bad = ferror(stdout);

	if (fflush(stdout))
		bad = 1;
	if (fclose(stdout) && errno != EBADF)
		bad = 1;
	if (bad) {
		t32_error("cannot write the output 'stdout' (%s)", strerror(errno ? errno : EIO));
		return 1;
	}
	return 0;
}

const char *t32_datadir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("T32_DATADIR");
	char exe[PATH_MAX];
	ssize_t n;
	struct stat st;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			/* build/t32 -> ../data */
			snprintf(dir, sizeof(dir), "%.*s/../data", (int)(sizeof(dir) - 9), exe);
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
				return dir;
		}
	}
#ifdef T32_DATADIR
	return T32_DATADIR;
#else
	return "data";
#endif
}

void t32_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	fputc('"', f);
}

int t32_parse_format(const char *arg, enum t32_format *out)
{
	static const struct { const char *name; enum t32_format f; } formats[] = {
		{ "table", T32_FMT_TABLE }, { "tsv", T32_FMT_TSV }, { "json", T32_FMT_JSON },
	};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(arg, formats[i].name) == 0) {
			*out = formats[i].f;
			return 0;
		}
	return -1;
}

void t32_cpu_identify(struct t32_cpu *c)
{
	unsigned a, b, cx, d, max;

	memset(c, 0, sizeof(*c));
	__cpuid(0, max, b, cx, d);
	memcpy(c->vendor, &b, 4);
	memcpy(c->vendor + 4, &d, 4);
	memcpy(c->vendor + 8, &cx, 4);
	__cpuid(1, a, b, cx, d);
	c->stepping = a & 0xf;
	c->family = (a >> 8) & 0xf;
	c->model = (a >> 4) & 0xf;
	if (c->family == 0xf)
		c->family += (a >> 20) & 0xff;
	if (c->family >= 6)
		c->model |= ((a >> 16) & 0xf) << 4;
	c->hypervisor = (cx >> 31) & 1;
	if (c->hypervisor) {
		__cpuid(0x40000000, a, b, cx, d);
		memcpy(c->hv_vendor, &b, 4);
		memcpy(c->hv_vendor + 4, &cx, 4);
		memcpy(c->hv_vendor + 8, &d, 4);
		for (size_t n = strlen(c->hv_vendor); n && c->hv_vendor[n - 1] == ' '; n--)
			c->hv_vendor[n - 1] = 0;
	}
	__cpuid(0x80000000, max, b, cx, d);
	if (max >= 0x80000004) {
		unsigned *w = (unsigned *)c->brand;

		for (unsigned leaf = 0; leaf < 3; leaf++)
			__cpuid(0x80000002 + leaf, w[4 * leaf], w[4 * leaf + 1], w[4 * leaf + 2],
				w[4 * leaf + 3]);
		c->brand[48] = 0;
		/* trim leading and trailing blanks */
		char *p = c->brand;
		while (*p == ' ')
			p++;
		memmove(c->brand, p, strlen(p) + 1);
		for (size_t n = strlen(c->brand); n && c->brand[n - 1] == ' '; n--)
			c->brand[n - 1] = 0;
	}
}

int t32_main_argc;
char **t32_main_argv;

void t32_provenance(FILE *f, int argc, char **argv)
{
	struct t32_cpu c;
	char date[64];
	time_t now = time(NULL);
	struct tm tm;

	t32_cpu_identify(&c);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (t32_main_argv) {
		/* the whole command line, whatever part of it the subcommand was given */
		argc = t32_main_argc;
		argv = t32_main_argv;
	}
	fprintf(f, "# tool: t32 %s\n# command:", T32_VERSION);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (strpbrk(a, " \t'\"$;,[]") || !*a)
			fprintf(f, " '%s'", a);
		else
			fprintf(f, " %s", a);
	}
	fprintf(f, "\n# cpu: %s (%s family %#x model %#x stepping %u)%s%s\n", c.brand, c.vendor,
		c.family, c.model, c.stepping, c.hypervisor ? ", hypervisor " : "",
		c.hypervisor ? c.hv_vendor : "");
	fprintf(f, "# date: %s\n", date);
}

const char *t32_optval(int argc, char **argv, int *i, const char *name)
{
	size_t l = strlen(name);

	if (strncmp(argv[*i], name, l) != 0)
		return NULL;
	if (argv[*i][l] == '=')
		return argv[*i] + l + 1;
	if (argv[*i][l] == 0 && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}
