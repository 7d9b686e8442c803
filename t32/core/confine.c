/*
 * confine.c - the policy a process that runs a body runs under (see confine.h).
 */
#include "t32/core/confine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

void t32_confine_init(struct t32_confine *c)
{
	memset(c, 0, sizeof(*c));
	c->perf_fd = -1;
	c->timer = -1;
}

int t32_confine_fd(struct t32_confine *c, int fd, enum t32_confine_use use)
{
	int *list = use == T32_CONFINE_READ ? c->rd : use == T32_CONFINE_WRITE ? c->wr : c->hold;
	size_t *n = use == T32_CONFINE_READ ? &c->nrd : use == T32_CONFINE_WRITE ? &c->nwr :
		    &c->nhold;

	if (fd < 0 || *n >= T32_CONFINE_FDS)
		return -1;
	list[(*n)++] = fd;
	return 0;
}

int t32_confine_code(struct t32_confine *c, const void *start, size_t len)
{
	if (c->ncode >= T32_CONFINE_CODE)
		return -1;
	c->code[c->ncode][0] = (uint64_t)(uintptr_t)start;
	c->code[c->ncode][1] = (uint64_t)(uintptr_t)start + len;
	c->ncode++;
	return 0;
}

int t32_confine_window(struct t32_confine *c, const void *start, size_t len)
{
	uint64_t at = (uint64_t)(uintptr_t)start;

	if (!len || len & (len - 1) || len > (2ull << 30) || at % len) {
		errno = EINVAL;
		return -1;
	}
	c->window[0] = at;
	c->window[1] = at + len;
	return 0;
}

/* fd is one c keeps (a pipe, the perf event). */
static int kept(const struct t32_confine *c, int fd)
{
	for (size_t i = 0; i < c->nrd; i++)
		if (c->rd[i] == fd)
			return 1;
	for (size_t i = 0; i < c->nwr; i++)
		if (c->wr[i] == fd)
			return 1;
	for (size_t i = 0; i < c->nhold; i++)
		if (c->hold[i] == fd)
			return 1;
	return fd >= 0 && fd == c->perf_fd;
}

static int by_value(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Close every descriptor above 2 that c does not keep; -1 with errno. */
static int close_others(const struct t32_confine *c)
{
	int keep[3 * T32_CONFINE_FDS + 1];
	size_t n = 0;
	unsigned lo = 3;
	DIR *d;
	struct dirent *e;

	for (size_t i = 0; i < c->nrd; i++)
		keep[n++] = c->rd[i];
	for (size_t i = 0; i < c->nwr; i++)
		keep[n++] = c->wr[i];
	for (size_t i = 0; i < c->nhold; i++)
		keep[n++] = c->hold[i];
	if (c->perf_fd >= 0)
		keep[n++] = c->perf_fd;
	qsort(keep, n, sizeof(keep[0]), by_value);
	/* close_range over the gaps between the kept descriptors, in order */
	for (size_t i = 0; i <= n; i++) {
		unsigned next = i < n ? (unsigned)keep[i] : ~0u;

		if (next < lo)
			continue;
		if (next > lo && syscall(SYS_close_range, lo, i < n ? next - 1 : ~0u, 0)) {
			if (errno != ENOSYS)
				return -1;
			goto older;
		}
		lo = next + 1;
	}
	return 0;
older:
	/* an older kernel: what /proc/self/fd lists */
	d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || fd < 3 || fd == dirfd(d) || kept(c, (int)fd))
			continue;
		close((int)fd);
	}
	closedir(d);
	return 0;
}

/*
 * Wipe the environment: the strings the process started with (the stack area
 * /proc/self/stat names, so a changed environ does not hide them) and those
 * environ points to now.  A body that copies memory out then finds no secret
 * of the environment there.
 */
static void wipe_environment(void)
{
	FILE *f = fopen("/proc/self/stat", "re");
	char buf[4096];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	char *p;

	if (f)
		fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (p) {
		unsigned long long v[52] = { 0 };
		int field = 2;

		/* fields after the command name: 3 (state) onwards; env_start is 50, env_end 51 */
		for (char *tok = strtok(p + 1, " \n"); tok && field < 51; tok = strtok(NULL, " \n"))
			v[++field] = strtoull(tok, NULL, 10);
		if (field == 51 && v[50] && v[51] > v[50] && v[51] - v[50] < (64u << 20))
			memset((void *)(uintptr_t)v[50], 0, (size_t)(v[51] - v[50]));
	}
	for (char **e = environ; e && *e; e++)
		memset(*e, 0, strlen(*e));
}

/* A small builder of classic BPF programs, with room for the longest policy. */
struct prog {
	struct sock_filter f[256];
	unsigned n;
};

static void put(struct prog *p, unsigned short code, unsigned k, unsigned char jt, unsigned char jf)
{
	if (p->n < sizeof(p->f) / sizeof(p->f[0]))
		p->f[p->n] = (struct sock_filter){ code, jt, jf, k };
	p->n++;
}

#define LD(off) put(p, BPF_LD | BPF_W | BPF_ABS, (unsigned)(off), 0, 0)
#define RET(v) put(p, BPF_RET | BPF_K, (v), 0, 0)
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define IP_LO offsetof(struct seccomp_data, instruction_pointer)

/*
 * System call nr allowed when argument `arg`'s low 32 bits (every argument
 * checked is an int in the kernel: a descriptor, a process or timer id) is one
 * of vals[0..nvals); with arg2 >= 0, argument arg2 must also be one of
 * vals2[0..nvals2).  Any other call of nr is refused.  A is nr on entry, and
 * stays nr when the call is another.
 */
static void allow_if(struct prog *p, unsigned nr, int arg, const int *vals, size_t nvals,
		     int arg2, const unsigned *vals2, size_t nvals2)
{
	/* block: ld arg; (jeq v; ret allow | jump to the second check)...; ret trap */
	unsigned second = arg2 >= 0 ? 1 + 2 * (unsigned)nvals2 + 1 : 0;
	unsigned len = 1 + 2 * (unsigned)nvals + 1 + second;

	put(p, BPF_JMP | BPF_JEQ | BPF_K, nr, 0, (unsigned char)len);
	LD(ARG_LO(arg));
	for (size_t i = 0; i < nvals; i++) {
		/* on a match: allow, or go on to the second argument's check */
		unsigned to_second = 2 * (unsigned)(nvals - i - 1) + 1;

		put(p, BPF_JMP | BPF_JEQ | BPF_K, (unsigned)vals[i], 0, 1);
		if (arg2 < 0)
			RET(SECCOMP_RET_ALLOW);
		else
			put(p, BPF_JMP | BPF_JA, to_second, 0, 0);
	}
	RET(SECCOMP_RET_TRAP);
	if (arg2 >= 0) {
		LD(ARG_LO(arg2));
		for (size_t i = 0; i < nvals2; i++) {
			put(p, BPF_JMP | BPF_JEQ | BPF_K, vals2[i], 0, 1);
			RET(SECCOMP_RET_ALLOW);
		}
		RET(SECCOMP_RET_TRAP);
	}
}

/*
 * mprotect of pages inside the window [lo, lo + len) (len a power of two up to
 * 2 GiB, lo a multiple of it, so the window lies in one 4 GiB span and its
 * offsets add without overflow) to read+write or read+exec; any other mprotect
 * is refused.  A is nr on entry, and stays nr when the call is another.
 */
static void allow_window(struct prog *p, uint64_t lo, uint64_t len)
{
	static const unsigned prots[] = { PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC };

	put(p, BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 0, 19);
	/* the address: its high word the window's, its low word within it */
	LD(ARG_LO(0) + 4);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(lo >> 32), 0, 16);
	LD(ARG_LO(0));
	put(p, BPF_ALU | BPF_SUB | BPF_K, (unsigned)lo, 0, 0);
	put(p, BPF_JMP | BPF_JGE | BPF_K, (unsigned)len, 13, 0);
	put(p, BPF_MISC | BPF_TAX, 0, 0, 0);
	/* the length: no more than the window, and its end within it */
	LD(ARG_LO(1) + 4);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 10);
	LD(ARG_LO(1));
	put(p, BPF_JMP | BPF_JGT | BPF_K, (unsigned)len, 8, 0);
	put(p, BPF_ALU | BPF_ADD | BPF_X, 0, 0, 0);
	put(p, BPF_JMP | BPF_JGT | BPF_K, (unsigned)len, 6, 0);
	/* the protection: read+write or read+exec, nothing above */
	LD(ARG_LO(2) + 4);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 4);
	LD(ARG_LO(2));
	put(p, BPF_JMP | BPF_JEQ | BPF_K, prots[0], 1, 0);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, prots[1], 0, 1);
	RET(SECCOMP_RET_ALLOW);
	RET(SECCOMP_RET_TRAP);
}

/* Refuse any system call whose instruction lies in [lo, hi); A is garbage after. */
static void refuse_from(struct prog *p, uint64_t lo, uint64_t hi)
{
	while (lo < hi) {
		/* one 4 GiB window at a time: the high words equal, the low ones compared */
		uint64_t top = (lo | 0xffffffffull) + 1, end = hi < top ? hi : top;

		LD(IP_LO + 4);
		put(p, BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(lo >> 32), 0, 4);
		LD(IP_LO);
		put(p, BPF_JMP | BPF_JGE | BPF_K, (unsigned)lo, 0, 2);
		put(p, BPF_JMP | BPF_JGT | BPF_K, (unsigned)(end - 1), 1, 0);
		RET(SECCOMP_RET_TRAP);
		lo = end;
	}
}

int t32_confine(const struct t32_confine *c)
{
	static const int plain[] = {
		SYS_exit, SYS_exit_group, SYS_rt_sigreturn, SYS_clock_gettime,
	};
	static const unsigned perf_cmds[] = { PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE };
	struct prog prog = { .n = 0 }, *p = &prog;
	struct sock_fprog fprog;
	int null, self = (int)getpid();

	/* descriptors: its own, and /dev/null on 0, 1 and 2 (unless one of them is its own) */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 3; fd++)
		if (!kept(c, fd) && (null < 0 ? close(fd) : dup2(null, fd)) < 0 && null >= 0)
			return -1;
	if (null > 2)
		close(null);
	if (close_others(c))
		return -1;
	wipe_environment();
	if (setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }))
		return -1;

	/* x86-64 system calls only (int 0x80 is refused as well, reported the same) */
	LD(offsetof(struct seccomp_data, arch));
	put(p, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	RET(SECCOMP_RET_TRAP);
	/* nothing from the loaded code, whatever it asks */
	for (size_t i = 0; i < c->ncode; i++)
		refuse_from(p, c->code[i][0], c->code[i][1]);
	if (c->window[1] > c->window[0])
		refuse_from(p, c->window[0], c->window[1]);
	LD(offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		put(p, BPF_JMP | BPF_JEQ | BPF_K, (unsigned)plain[i], 0, 1);
		RET(SECCOMP_RET_ALLOW);
	}
	if (c->nrd)
		allow_if(p, SYS_read, 0, c->rd, c->nrd, -1, NULL, 0);
	if (c->nwr)
		allow_if(p, SYS_write, 0, c->wr, c->nwr, -1, NULL, 0);
	/* the fault handler's death by its own signal: this process only */
	allow_if(p, SYS_tgkill, 0, &self, 1, -1, NULL, 0);
	if (c->perf_fd >= 0)
		allow_if(p, SYS_ioctl, 0, &c->perf_fd, 1, 1, perf_cmds, 2);
	if (c->timer >= 0)
		allow_if(p, SYS_timer_settime, 0, &c->timer, 1, -1, NULL, 0);
	if (c->window[1] > c->window[0])
		allow_window(p, c->window[0], c->window[1] - c->window[0]);
	RET(SECCOMP_RET_TRAP);
	if (p->n > sizeof(p->f) / sizeof(p->f[0])) {
		errno = E2BIG;
		return -1;
	}
	fprog.len = (unsigned short)p->n;
	fprog.filter = p->f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog);
}
