/*
 * shared.c - other runnable work and steal time on the measuring CPU, from /proc.
 */
#include "t32/core/shared.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
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
 * A task's state, last CPU, parent, name and (threads not NULL) its process's
 * thread count from /proc/PID/task/TID/stat; 0 when read.  The name is between
 * the first '(' and the last ')'.
 */
static int task_stat_threads(const char *path, char *state, int *cpu, pid_t *ppid, char *comm,
			     size_t len, long *threads)
{
	char buf[1024], *lp, *rp;
	/* open, read, close: a look reads hundreds of these, stdio's buffer costs a call more */
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	lp = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return -1;
	snprintf(comm, len, "%.*s", (int)(rp - lp - 1), lp + 1);
	/* after ") ": state ppid pgrp session tty tpgid flags ... field 39 is the CPU */
	char *p = rp + 2;
	int field = 3;
	*state = *p;
	*ppid = (pid_t)strtol(p + 2, NULL, 10);
	*cpu = -1;
	if (threads)
		*threads = 0;
	for (; *p && field < 39; p++)
		if (*p == ' ' && ++field == 20 && threads)
			*threads = strtol(p + 1, NULL, 10);
	if (field == 39)
		*cpu = (int)strtol(p, NULL, 10);
	return 0;
}

/* The same without the thread count. */
static int task_stat(const char *path, char *state, int *cpu, pid_t *ppid, char *comm, size_t len)
{
	return task_stat_threads(path, state, cpu, ppid, comm, len, NULL);
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

/* Count one look's sighting of process pid (named comm) runnable at `where`. */
static void seen_task(struct t32_share *s, pid_t pid, const char *comm, unsigned where)
{
	size_t n = sizeof(s->seen) / sizeof(s->seen[0]), i;

	for (i = 0; i < n && s->seen[i].where && s->seen[i].pid != pid; i++)
		;
	if (i == n)
		return;
	if (!s->seen[i].where) {
		s->seen[i].pid = pid;
		snprintf(s->seen[i].name, sizeof(s->seen[i].name), "%s", comm);
	}
	s->seen[i].where |= where;
	s->seen[i].hits++;
	/* the measuring CPU's count: what t32_share_end judges */
	if (where & T32_SHARE_CPU && ++s->seen[i].seen > s->others)
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

/* Where a task last on cpu ran: the measuring CPU, one that may share its core, or 0. */
static unsigned place_of(const struct t32_share *s, int cpu)
{
	return cpu == s->cpu ? T32_SHARE_CPU
	       : cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &s->siblings) ? T32_SHARE_SIBLING
									   : 0;
}

/*
 * A task of process pid (parent ppid), in state, last on cpu: counted when it is
 * runnable where we look and neither ours nor a kernel thread (a child of
 * kthreadd, pid 2: they run a softirq or an RCU callback between our looks all
 * the time, not a task sharing the CPU; time they take shows in the block's
 * readings).  Its T32_SHARE_* place, or 0.
 */
static unsigned sharer(struct t32_share *s, pid_t pid, pid_t ppid, char state, int cpu,
		       const char *comm)
{
	unsigned where = place_of(s, cpu);

	if (state != 'R' || !where || pid == 2 || ppid == 2 || descends_from(ppid, s->self))
		return 0;
	seen_task(s, pid, comm, where);
	return where;
}

/*
 * Look once through /proc for runnable tasks that are not ours, on s->cpu or on
 * one of its possible siblings; the T32_SHARE_* places found.
 */
static unsigned walk(struct t32_share *s)
{
	DIR *procs = opendir("/proc");
	struct dirent *d;
	unsigned found = 0;

	if (!procs)
		return 0;
	while ((d = readdir(procs))) {
		char path[600], state, comm[64];
		int cpu;
		long threads;
		unsigned where;
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
		if (task_stat_threads(path, &state, &cpu, &ppid, comm, sizeof(comm), &threads))
			continue;
		/* a process of one thread is its own task: its stat says all */
		if (threads == 1) {
			found |= sharer(s, pid, ppid, state, cpu, comm);
			continue;
		}
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
			where = sharer(s, pid, ppid, state, cpu, comm);
			if (where) {
				found |= where;
				break;
			}
		}
		closedir(tasks);
	}
	closedir(procs);
	return found;
}

/* Runnable tasks on all CPUs now (/proc/stat procs_running), or -1 when unknown. */
static long procs_running(void)
{
	char line[256];
	FILE *f = fopen("/proc/stat", "r");
	long n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "procs_running ", 14) == 0) {
			n = strtol(line + 14, NULL, 10);
			break;
		}
	fclose(f);
	return n;
}

void t32_share_sample(struct t32_share *s)
{
	s->looks++;
	/* only the one looking runs: nothing else to find */
	if (procs_running() != 1)
		walk(s);
}

unsigned t32_share_look(struct t32_share *s)
{
	s->looks++;
	/* only the one looking runs: nothing else to find (the common case, cheap) */
	if (procs_running() == 1)
		return 0;
	return walk(s);
}

void t32_share_who(const struct t32_share *s, unsigned where, char *buf, size_t len)
{
	size_t n = sizeof(s->seen) / sizeof(s->seen[0]), at = 0;
	unsigned char used[sizeof(s->seen) / sizeof(s->seen[0])] = { 0 };

	if (len)
		buf[0] = 0;
	for (int named = 0; named < 3 && at < len; named++) {
		size_t best = n;

		for (size_t i = 0; i < n; i++)
			if (!used[i] && s->seen[i].where & where &&
			    (best == n || s->seen[i].hits > s->seen[best].hits))
				best = i;
		if (best == n)
			break;
		used[best] = 1;
		at += (size_t)snprintf(buf + at, len - at, "%s%d %s", at ? "', '" : "",
				       (int)s->seen[best].pid, s->seen[best].name);
	}
}

/*
 * The CPUs that may share cpu's core: its SMT siblings from sysfs, or, under a
 * hypervisor (whose virtual topology says nothing of the host's cores), every
 * other online CPU.
 */
static void find_siblings(struct t32_share *s)
{
	/* the topology of one process's life: read once per CPU asked about */
	static int known_cpu = -1, known_n;
	static cpu_set_t known;
	struct t32_cpu c;
	char path[128], list[1024];
	FILE *f;

	if (known_cpu == s->cpu) {
		s->siblings = known;
		s->nsiblings = known_n;
		return;
	}
	CPU_ZERO(&s->siblings);
	s->nsiblings = 0;
	t32_cpu_identify_on(&c, s->cpu);
	if (c.hypervisor) {
		snprintf(list, sizeof(list), "0-%d", CPU_SETSIZE - 1);
		f = fopen("/sys/devices/system/cpu/online", "r");
	} else {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", s->cpu);
		f = fopen(path, "r");
		list[0] = 0;
	}
	if (f) {
		if (!fgets(list, sizeof(list), f))
			list[0] = 0;
		fclose(f);
	}
	/* a list of ranges: 0-3,8,10-11 */
	for (char *p = list; *p;) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long i = a; i <= b && i < CPU_SETSIZE; i++)
			if (i >= 0 && i != s->cpu) {
				CPU_SET(i, &s->siblings);
				s->nsiblings++;
			}
		p = *end == ',' ? end + 1 : end;
		if (*p == '\n')
			break;
	}
	known_cpu = s->cpu;
	known = s->siblings;
	known_n = s->nsiblings;
}

void t32_share_watch(struct t32_share *s, int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->self = getpid();
	s->steal0 = steal_of(cpu);
	s->t0 = t32_now();
	find_siblings(s);
}

void t32_share_begin(struct t32_share *s, int cpu)
{
	t32_share_watch(s, cpu);
	t32_share_sample(s);
}

void t32_share_stop(struct t32_share *s)
{
	double elapsed = t32_now() - s->t0;
	long hz = sysconf(_SC_CLK_TCK);

	if (elapsed > 0 && hz > 0)
		s->steal_share = (double)(steal_of(s->cpu) - s->steal0) / (double)hz / elapsed;
	name_sharers(s);
}

int t32_share_end(struct t32_share *s)
{
	t32_share_sample(s);
	t32_share_stop(s);
	return (s->others >= 2 && s->others >= T32_SHARE_LOOKS * s->looks) ||
	       s->steal_share >= T32_STEAL_SHARE;
}
