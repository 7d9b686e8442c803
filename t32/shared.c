/*
 * shared.c - other runnable work and steal time on the measuring CPU, from /proc.
 */
#include "t32/shared.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t32/util.h"

/* The steal time of one CPU from /proc/stat, in clock ticks (0 when unknown). */
static uint64_t steal_of(int cpu)
{
	char name[32], line[512];
	FILE *f = fopen("/proc/stat", "r");
	uint64_t v[8] = { 0 };

	if (!f)
		return 0;
	snprintf(name, sizeof(name), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, name, strlen(name)) == 0) {
			sscanf(line + strlen(name), "%lu %lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1],
			       &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
			break;
		}
	fclose(f);
	return v[7];
}

/*
 * A task's state, last CPU, parent and name from /proc/PID/task/TID/stat; 0 when
 * read.  The name is between the first '(' and the last ')'.
 */
static int task_stat(const char *path, char *state, int *cpu, pid_t *ppid, char *comm, size_t len)
{
	char buf[1024], *open, *close;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open)
		return -1;
	snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	/* after ") ": state ppid pgrp session tty tpgid flags ... field 39 is the CPU */
	char *p = close + 2;
	int field = 3;
	*state = *p;
	*ppid = (pid_t)strtol(p + 2, NULL, 10);
	*cpu = -1;
	for (; *p && field < 39; p++)
		if (*p == ' ')
			field++;
	if (field == 39)
		*cpu = (int)strtol(p, NULL, 10);
	return 0;
}

/*
 * Is pid, whose parent is ppid, one of ours: a child, or a child's child (nasm
 * under a helper, the measuring process)?  Up to four generations are followed.
 */
static int descends_from(pid_t ppid, pid_t self)
{
	for (int depth = 0; depth < 4 && ppid > 1; depth++) {
		char path[64], state, comm[64];
		int cpu;

		if (ppid == self)
			return 1;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)ppid);
		if (task_stat(path, &state, &cpu, &ppid, comm, sizeof(comm)))
			return 0;
	}
	return ppid == self;
}

/* Count one look's sighting of process pid (named comm) runnable on the CPU. */
static void seen_task(struct t32_share *s, pid_t pid, const char *comm)
{
	size_t n = sizeof(s->seen) / sizeof(s->seen[0]), i;

	for (i = 0; i < n && s->seen[i].seen && s->seen[i].pid != pid; i++)
		;
	if (i == n)
		return;
	if (!s->seen[i].seen++) {
		s->seen[i].pid = pid;
		snprintf(s->seen[i].name, sizeof(s->seen[i].name), "%s", comm);
	}
	if (s->seen[i].seen > s->others)
		s->others = s->seen[i].seen;
}

/* s->who: the tasks seen in two looks or more, most often seen first, at most three. */
static void name_sharers(struct t32_share *s)
{
	size_t n = sizeof(s->seen) / sizeof(s->seen[0]), at = 0, named = 0;
	unsigned char used[sizeof(s->seen) / sizeof(s->seen[0])] = { 0 };

	s->who[0] = 0;
	while (named < 3) {
		size_t best = n;

		for (size_t i = 0; i < n; i++)
			if (!used[i] && s->seen[i].seen >= 2 &&
			    (best == n || s->seen[i].seen > s->seen[best].seen))
				best = i;
		if (best == n)
			break;
		used[best] = 1;
		at += (size_t)snprintf(s->who + at, sizeof(s->who) - at, "%s%d %s", named ? "', '" : "",
				       (int)s->seen[best].pid, s->seen[best].name);
		if (at >= sizeof(s->who))
			break;
		named++;
	}
}

/* Look once through /proc for a runnable task on s->cpu that is not ours. */
void t32_share_sample(struct t32_share *s)
{
	DIR *procs = opendir("/proc");
	struct dirent *d;

	s->looks++;
	if (!procs)
		return;
	while ((d = readdir(procs))) {
		char path[600], state, comm[64];
		int cpu;
		pid_t pid, ppid;
		DIR *tasks;
		struct dirent *t;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = (pid_t)strtol(d->d_name, NULL, 10);
		if (pid == s->self)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		/* our own descendants (the measuring process, nasm) are not others */
		if (task_stat(path, &state, &cpu, &ppid, comm, sizeof(comm)))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", d->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((t = readdir(tasks))) {
			if (!isdigit((unsigned char)t->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", d->d_name, t->d_name);
			if (task_stat(path, &state, &cpu, &ppid, comm, sizeof(comm)))
				continue;
			/*
			 * Kernel threads (children of kthreadd, pid 2) run a softirq or an
			 * RCU callback between our looks all the time: not a task sharing
			 * the CPU.  Time they take shows in the block's readings.
			 */
			if (state == 'R' && cpu == s->cpu && pid != 2 && ppid != 2) {
				if (!descends_from(ppid, s->self))
					seen_task(s, pid, comm);
				break;
			}
		}
		closedir(tasks);
	}
	closedir(procs);
}

void t32_share_begin(struct t32_share *s, int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->self = getpid();
	s->steal0 = steal_of(cpu);
	s->t0 = t32_now();
	t32_share_sample(s);
}

int t32_share_end(struct t32_share *s)
{
	double elapsed = t32_now() - s->t0;
	long hz = sysconf(_SC_CLK_TCK);

	t32_share_sample(s);
	if (elapsed > 0 && hz > 0)
		s->steal_share = (double)(steal_of(s->cpu) - s->steal0) / (double)hz / elapsed;
	name_sharers(s);
	return (s->others >= 2 && s->others >= T32_SHARE_LOOKS * s->looks) ||
	       s->steal_share >= T32_STEAL_SHARE;
}
