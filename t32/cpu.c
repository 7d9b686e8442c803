/*
 * cpu.c - the measuring CPU and its core (see cpu.h).
 */
#include "t32/cpu.h"

#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/uarch.h"
#include "t32/util.h"

/* One recorded answer of a CPUID dump. */
struct answer {
	int cpu;		/* logical CPU of its section, -1 before any section */
	unsigned leaf, subleaf;
	int any_subleaf;	/* no [SL nn]: the answer whatever ECX holds */
	unsigned r[4];
};

/* The dump named by $T32_CPUID_FILE, read once. */
static struct {
	int read;		/* 1: looked at the environment (and the file) */
	char *path;		/* NULL: no dump, CPUID runs on the hardware */
	struct answer *a;
	size_t n;
	int first_cpu;		/* the first section's CPU */
	int sections;		/* how many sections the dump has */
} dump;

static int selected = -1;

void t32_cpuid_reset(void)
{
	free(dump.path);
	free(dump.a);
	memset(&dump, 0, sizeof(dump));
}

/* Read the dump, or die: a test that names a file it cannot read must not pass. */
static void dump_read(void)
{
	const char *path = getenv("T32_CPUID_FILE");
	char line[512];
	FILE *f;
	int cpu = -1;
	size_t cap = 0;

	dump.read = 1;
	if (!path || !*path)
		return;
	f = fopen(path, "re");
	if (!f) {
		t32_error("cannot read the CPUID answers '%s' (%s)", path, strerror(errno));
		exit(T32_EXIT_ERROR);
	}
	dump.path = strdup(path);
	dump.first_cpu = -1;
	while (fgets(line, sizeof(line), f)) {
		struct answer x;
		const char *sl;
		int n;

		if (sscanf(line, "------[ CPUID Registers / Logical CPU #%d ]", &n) == 1 && n >= 0) {
			cpu = n;
			if (!dump.sections++)
				dump.first_cpu = n;
			continue;
		}
		if (sscanf(line, "CPUID %8x: %8x-%8x-%8x-%8x", &x.leaf, &x.r[0], &x.r[1], &x.r[2],
			   &x.r[3]) != 5)
			continue;
		x.cpu = cpu;
		x.subleaf = 0;
		x.any_subleaf = 1;
		if ((sl = strstr(line, "[SL ")) && sscanf(sl, "[SL %x]", &x.subleaf) == 1)
			x.any_subleaf = 0;
		if (dump.n == cap) {
			struct answer *a = realloc(dump.a, (cap = cap ? 2 * cap : 256) * sizeof(*a));

			if (!a) {
				t32_error("out of memory reading the CPUID answers '%s'", path);
				exit(T32_EXIT_ERROR);
			}
			dump.a = a;
		}
		dump.a[dump.n++] = x;
	}
	fclose(f);
	if (!dump.n) {
		t32_error("no CPUID answers in '%s' (lines like 'CPUID 00000001: "
			  "000906A4-00400800-7FFAFBBF-BFEBFBFF')", path);
		exit(T32_EXIT_ERROR);
	}
}

/* The dump's answer for cpu (-1: the first section's), 0, or -1 when cpu has no section. */
static int dump_answer(int cpu, unsigned leaf, unsigned subleaf, unsigned r[4])
{
	const struct answer *any = NULL;
	int have_cpu = 0;

	if (cpu < 0 || dump.sections <= 1)
		cpu = dump.sections ? dump.first_cpu : -1;
	for (size_t i = 0; i < dump.n; i++) {
		const struct answer *x = &dump.a[i];

		if (x->cpu != cpu)
			continue;
		have_cpu = 1;
		if (x->leaf != leaf)
			continue;
		if (!x->any_subleaf && x->subleaf == subleaf) {
			memcpy(r, x->r, sizeof(x->r));
			return 0;
		}
		if (x->any_subleaf && !any)
			any = x;
	}
	if (!have_cpu)
		return -1;
	if (any)
		memcpy(r, any->r, sizeof(any->r));
	else
		memset(r, 0, 4 * sizeof(unsigned));
	return 0;
}

int t32_cpuid(int cpu, unsigned leaf, unsigned subleaf, unsigned r[4])
{
	cpu_set_t old, one;
	int rc = 0;

	if (!dump.read)
		dump_read();
	if (dump.path)
		return dump_answer(cpu, leaf, subleaf, r);
	if (cpu < 0) {
		__cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
		return 0;
	}
	/* on that CPU: move this thread there for the one instruction, then back */
	if (cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(old), &old))
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -1;
	__cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
	if (sched_setaffinity(0, sizeof(old), &old))
		rc = -1;
	return rc;
}

int t32_cpu_hybrid(void)
{
	unsigned r[4];

	if (t32_cpuid(-1, 0, 0, r) || r[0] < 7 || t32_cpuid(-1, 7, 0, r))
		return 0;
	return (r[3] >> 15) & 1;
}

unsigned t32_cpu_core_type(int cpu)
{
	unsigned r[4];

	if (!t32_cpu_hybrid())
		return T32_CORE_NONE;
	if (t32_cpuid(-1, 0, 0, r) || r[0] < 0x1a || t32_cpuid(cpu, 0x1a, 0, r) || !(r[0] >> 24))
		return T32_CORE_UNKNOWN;
	return r[0] >> 24;
}

int t32_cpu_pick(const cpu_set_t *allowed)
{
	int last = -1;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, allowed))
			last = c;
	if (last < 0 || !t32_cpu_hybrid())
		return last;
	for (int c = last; c >= 0; c--)
		if (CPU_ISSET(c, allowed) && t32_cpu_core_type(c) == T32_CORE_CORE)
			return c;
	return last;
}

void t32_cpu_select(int cpu)
{
	selected = cpu;
}

int t32_default_cpu(void)
{
	cpu_set_t set;
	int c;

	if (selected >= 0)
		return selected;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	c = t32_cpu_pick(&set);
	return c < 0 ? 0 : c;
}

/* Append CPU range lo..hi to the list in buf ("0-3,8"). */
static void append_range(char *buf, size_t len, int lo, int hi)
{
	size_t at = strlen(buf);

	if (lo < 0 || at + 1 >= len)
		return;
	if (lo == hi)
		snprintf(buf + at, len - at, "%s%d", at ? "," : "", lo);
	else
		snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", lo, hi);
}

int t32_cpu_type_lists(char *p, char *e, size_t len)
{
	cpu_set_t set;
	char *list[2] = { p, e };
	int lo[2] = { -1, -1 }, hi[2] = { -1, -1 };

	p[0] = e[0] = 0;
	if (!t32_cpu_hybrid())
		return -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		unsigned type = CPU_ISSET(c, &set) ? t32_cpu_core_type(c) : T32_CORE_NONE;

		for (int k = 0; k < 2; k++) {
			int in = type == (k ? T32_CORE_ATOM : T32_CORE_CORE);

			if (in && hi[k] == c - 1 && lo[k] >= 0) {
				hi[k] = c;
			} else if (in) {
				append_range(list[k], len, lo[k], hi[k]);
				lo[k] = hi[k] = c;
			}
		}
	}
	for (int k = 0; k < 2; k++)
		append_range(list[k], len, lo[k], hi[k]);
	return 0;
}
