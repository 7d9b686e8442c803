/*
 * 2108-confine: the policy every process that runs a body runs under, tried as
 * a body that has found its way into the harness's own code would try it (a
 * system call made from outside the loaded code): its own pipes and the
 * sampler it was given work, everything else raises SIGSYS and does not
 * happen; a system call from the loaded code is refused even where the same
 * call from the harness is allowed; pages of its code window turn read+write
 * or read+exec, never both, never inaccessible, and nothing outside it does;
 * the process keeps no other descriptor, its 0, 1 and 2 are /dev/null, its
 * environment is wiped, it writes no core and cannot gain privileges.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t/tap.h"
#include "t32/core/confine.h"
#include "t32/core/env.h"
#include "t32/sample/sample.h"

static char dir[64];		/* a scratch directory nothing may appear in */
static int from_parent[2], to_parent[2], other_fd = -1;
static pid_t parent;

/* What the child was given before it was confined. */
struct given {
	int perf_fd;
	timer_t timer;
	int has_timer;
	long (*stub)(long nr, long a, long b, long c);	/* `syscall; ret` in a page of its own */
	char *window;		/* its code window (WINDOW bytes): the stub's copy first */
};

#define WINDOW (1u << 20)

/* One attempt, made after confinement; its raw result is ignored (the end tells). */
typedef void (*attempt_fn)(const struct given *g);

static void a_write_own(const struct given *g)
{
	(void)g;
	syscall(SYS_write, to_parent[1], "w", 1);
}

static void a_read_own(const struct given *g)
{
	char c;

	(void)g;
	syscall(SYS_read, from_parent[0], &c, 1);
}

static void a_write_stdout(const struct given *g)
{
	(void)g;
	syscall(SYS_write, 1, "FORGED\n", 7);
}

static void a_write_inherited(const struct given *g)
{
	(void)g;
	syscall(SYS_write, other_fd, "FORGED\n", 7);
}

static void a_read_stdin(const struct given *g)
{
	char c;

	(void)g;
	syscall(SYS_read, 0, &c, 1);
}

static void a_open_create(const struct given *g)
{
	char path[128];

	(void)g;
	snprintf(path, sizeof(path), "%s/created", dir);
	syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
}

static void a_creat(const struct given *g)
{
	char path[128];

	(void)g;
	snprintf(path, sizeof(path), "%s/creat", dir);
	syscall(SYS_creat, path, 0644);
}

static void a_mkdir(const struct given *g)
{
	char path[128];

	(void)g;
	snprintf(path, sizeof(path), "%s/made", dir);
	syscall(SYS_mkdir, path, 0755);
}

static void a_socket(const struct given *g)
{
	(void)g;
	syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
}

static void a_kill_parent(const struct given *g)
{
	(void)g;
	syscall(SYS_kill, parent, 0);
}

static void a_tgkill_parent(const struct given *g)
{
	(void)g;
	syscall(SYS_tgkill, parent, parent, 0);
}

static pid_t self_pid;

static void a_tgkill_self(const struct given *g)
{
	(void)g;
	syscall(SYS_tgkill, self_pid, self_pid, 0);
}

static void a_ptrace(const struct given *g)
{
	(void)g;
	syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0);
}

static void a_mmap(const struct given *g)
{
	(void)g;
	syscall(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		-1, 0);
}

static void a_mprotect(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->stub & ~4095L, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
}

static void a_window_rw(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->window + 8192, 4096, PROT_READ | PROT_WRITE);
}

static void a_window_rx(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->window + 8192, 8192, PROT_READ | PROT_EXEC);
}

static void a_window_last(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->window + WINDOW - 4096, 4096, PROT_READ | PROT_WRITE);
}

static void a_window_rwx(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->window + 8192, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
}

static void a_window_none(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->window + 8192, 4096, PROT_NONE);
}

static void a_window_past(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->window + WINDOW, 4096, PROT_READ | PROT_WRITE);
}

static void a_window_before(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->window - 4096, 4096, PROT_READ | PROT_WRITE);
}

static void a_window_across(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->window + WINDOW - 4096, 8192, PROT_READ | PROT_WRITE);
}

static void a_window_huge(const struct given *g)
{
	syscall(SYS_mprotect, (long)g->window, (1L << 32) + 4096, PROT_READ | PROT_WRITE);
}

static void a_window_stub(const struct given *g)
{
	mprotect(g->stub, 4096, PROT_READ | PROT_WRITE);
}

static void a_from_window(const struct given *g)
{
	typedef long (*stub_fn)(long, long, long, long);
	stub_fn in_window = (stub_fn)(void *)g->window;

	in_window(SYS_write, to_parent[1], (long)"w", 1);
}

static void a_execve(const struct given *g)
{
	char *argv[] = { "/bin/true", NULL };

	(void)g;
	syscall(SYS_execve, "/bin/true", argv, argv + 1);
}

static void a_fork(const struct given *g)
{
	(void)g;
	syscall(SYS_fork);
}

static void a_prctl_tsc(const struct given *g)
{
	(void)g;
	syscall(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
}

static void a_clock(const struct given *g)
{
	struct timespec ts;

	(void)g;
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
}

static void a_ioctl_enable(const struct given *g)
{
	syscall(SYS_ioctl, g->perf_fd, PERF_EVENT_IOC_ENABLE, 0);
}

static void a_ioctl_reset(const struct given *g)
{
	syscall(SYS_ioctl, g->perf_fd, PERF_EVENT_IOC_RESET, 0);
}

static void a_ioctl_pipe(const struct given *g)
{
	int n;

	(void)g;
	syscall(SYS_ioctl, from_parent[0], FIONREAD, &n);
}

static void a_timer_own(const struct given *g)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	syscall(SYS_timer_settime, (long)(intptr_t)g->timer, 0, &its, NULL);
}

static void a_timer_other(const struct given *g)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	syscall(SYS_timer_settime, (long)(intptr_t)g->timer + 1, 0, &its, NULL);
}

static void a_from_code(const struct given *g)
{
	g->stub(SYS_write, to_parent[1], (long)"w", 1);
}

static void a_int80(const struct given *g)
{
	long ret = 20;	/* getpid in the i386 table */

	(void)g;
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
}

enum { ALLOWED, REFUSED };
enum { NEEDS_NOTHING, NEEDS_PERF, NEEDS_TIMER, IN_CODE, NEEDS_WINDOW };

static const struct {
	const char *name;
	attempt_fn fn;
	int expect;
	int needs;
} attempts[] = {
	{ "write to its own answer pipe", a_write_own, ALLOWED, NEEDS_NOTHING },
	{ "read its own request pipe", a_read_own, ALLOWED, NEEDS_NOTHING },
	{ "write to stdout", a_write_stdout, REFUSED, NEEDS_NOTHING },
	{ "write to a descriptor it inherited", a_write_inherited, REFUSED, NEEDS_NOTHING },
	{ "read stdin", a_read_stdin, REFUSED, NEEDS_NOTHING },
	{ "create a file", a_open_create, REFUSED, NEEDS_NOTHING },
	{ "create a file with creat", a_creat, REFUSED, NEEDS_NOTHING },
	{ "make a directory", a_mkdir, REFUSED, NEEDS_NOTHING },
	{ "open a socket", a_socket, REFUSED, NEEDS_NOTHING },
	{ "kill(parent, 0)", a_kill_parent, REFUSED, NEEDS_NOTHING },
	{ "tgkill the parent", a_tgkill_parent, REFUSED, NEEDS_NOTHING },
	{ "tgkill itself with signal 0", a_tgkill_self, ALLOWED, NEEDS_NOTHING },
	{ "ptrace(TRACEME)", a_ptrace, REFUSED, NEEDS_NOTHING },
	{ "mmap executable memory", a_mmap, REFUSED, NEEDS_NOTHING },
	{ "mprotect code writable", a_mprotect, REFUSED, NEEDS_NOTHING },
	{ "execve", a_execve, REFUSED, NEEDS_NOTHING },
	{ "fork", a_fork, REFUSED, NEEDS_NOTHING },
	{ "prctl(PR_SET_TSC) to trap rdtsc", a_prctl_tsc, REFUSED, NEEDS_NOTHING },
	{ "read the clock", a_clock, ALLOWED, NEEDS_NOTHING },
	{ "ioctl on a pipe", a_ioctl_pipe, REFUSED, NEEDS_NOTHING },
	{ "i386 system call (int 0x80)", a_int80, REFUSED, NEEDS_NOTHING },
	{ "write to its own pipe from the loaded code", a_from_code, REFUSED, IN_CODE },
	{ "the same write from code it was not given as loaded", a_from_code, ALLOWED,
	  NEEDS_NOTHING },
	{ "enable its own perf event", a_ioctl_enable, ALLOWED, NEEDS_PERF },
	{ "reset its own perf event (not a switch)", a_ioctl_reset, REFUSED, NEEDS_PERF },
	{ "arm its own timer", a_timer_own, ALLOWED, NEEDS_TIMER },
	{ "arm another timer", a_timer_other, REFUSED, NEEDS_TIMER },
	{ "turn pages of its code window read+write", a_window_rw, ALLOWED, NEEDS_WINDOW },
	{ "turn pages of its code window read+exec", a_window_rx, ALLOWED, NEEDS_WINDOW },
	{ "turn its window's last page read+write", a_window_last, ALLOWED, NEEDS_WINDOW },
	{ "turn a window page writable and executable", a_window_rwx, REFUSED, NEEDS_WINDOW },
	{ "turn a window page inaccessible", a_window_none, REFUSED, NEEDS_WINDOW },
	{ "mprotect the page past its window", a_window_past, REFUSED, NEEDS_WINDOW },
	{ "mprotect the page before its window", a_window_before, REFUSED, NEEDS_WINDOW },
	{ "mprotect a range running past its window", a_window_across, REFUSED, NEEDS_WINDOW },
	{ "mprotect 4 GiB and more from its window", a_window_huge, REFUSED, NEEDS_WINDOW },
	{ "mprotect code outside its window writable", a_window_stub, REFUSED, NEEDS_WINDOW },
	{ "write to its own pipe from code in its window", a_from_window, REFUSED, NEEDS_WINDOW },
};
#define NATTEMPTS (sizeof(attempts) / sizeof(attempts[0]))

/* A page holding: mov rax, rdi; mov rdi, rsi; mov rsi, rdx; mov rdx, rcx; syscall; ret */
static void *make_stub(void)
{
	static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48, 0x89,
					      0xd6, 0x48, 0x89, 0xca, 0x0f, 0x05, 0xc3 };
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, code, sizeof(code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return NULL;
	return p;
}

/* A perf event on this thread, for the sampler's switch; -1 where perf is closed. */
static int open_perf(void)
{
	struct perf_event_attr a;

	t32_perf_attr_user(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	return t32_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* In the child: be given what the attempt needs, be confined, try.  Never returns. */
static void child(size_t i, void *stub)
{
	struct given g = { .perf_fd = -1, .stub = (long (*)(long, long, long, long))stub };
	struct t32_confine c;

	self_pid = getpid();
	t32_confine_init(&c);
	t32_confine_fd(&c, from_parent[0], T32_CONFINE_READ);
	t32_confine_fd(&c, to_parent[1], T32_CONFINE_WRITE);
	if (attempts[i].needs == NEEDS_PERF) {
		g.perf_fd = open_perf();
		c.perf_fd = g.perf_fd;
	}
	if (attempts[i].needs == NEEDS_TIMER) {
		struct sigevent ev;

		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_NONE;
		if (timer_create(CLOCK_MONOTONIC, &ev, &g.timer) == 0)
			c.timer = (int)(intptr_t)g.timer;
	}
	if (attempts[i].needs == IN_CODE)
		t32_confine_code(&c, stub, 4096);
	if (attempts[i].needs == NEEDS_WINDOW) {
		/* a window aligned to its size, the stub copied into its first page */
		char *p = mmap(NULL, 2 * WINDOW, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(100);
		g.window = (char *)(((uintptr_t)p + WINDOW - 1) & ~(uintptr_t)(WINDOW - 1));
		if (mprotect(g.window, 4096, PROT_READ | PROT_WRITE))
			_exit(100);
		memcpy(g.window, stub, 64);
		if (mprotect(g.window, 4096, PROT_READ | PROT_EXEC) ||
		    t32_confine_window(&c, g.window, WINDOW))
			_exit(100);
	}
	if (t32_confine(&c))
		_exit(100);
	attempts[i].fn(&g);
	/* the exit system call itself: a sanitizer's _exit makes calls the policy refuses */
	syscall(SYS_exit_group, 0);
	_exit(0);
}

/* Run attempt i in a child: 0 it ended normally, the signal that ended it, or -1. */
static int attempt(size_t i, void *stub)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		child(i, stub);
	/* a byte for the reading attempt (the others leave it unread) */
	if (write(from_parent[1], "r", 1) != 1)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 0 ? 0 : -1;
	return WTERMSIG(status);
}

/* Empty the pipes between attempts. */
static void drain(void)
{
	char buf[64];

	fcntl(from_parent[0], F_SETFL, O_NONBLOCK);
	fcntl(to_parent[0], F_SETFL, O_NONBLOCK);
	while (read(from_parent[0], buf, sizeof(buf)) > 0)
		;
	while (read(to_parent[0], buf, sizeof(buf)) > 0)
		;
	fcntl(from_parent[0], F_SETFL, 0);
	fcntl(to_parent[0], F_SETFL, 0);
}

/* The confined process as others see it: /proc/PID while it waits on its pipe. */
static void inspect(void)
{
	char path[128], line[256], link[256];
	int status, fds_ok = 1, nfds = 0, seccomp = -1, nnp = -1, core_zero = 0;
	size_t secret = 0;
	pid_t pid;
	FILE *f;
	DIR *d;
	struct dirent *e;

	setenv("T32_TEST_SECRET", "hunter2-in-the-environment", 1);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct t32_confine c;
		char ch;

		t32_confine_init(&c);
		t32_confine_fd(&c, from_parent[0], T32_CONFINE_READ);
		t32_confine_fd(&c, to_parent[1], T32_CONFINE_WRITE);
		if (t32_confine(&c))
			_exit(100);
		if (syscall(SYS_write, to_parent[1], "c", 1) != 1 ||
		    syscall(SYS_read, from_parent[0], &ch, 1) != 1)
			syscall(SYS_exit_group, 101);
		syscall(SYS_exit_group, 0);
		_exit(0);
	}
	{
		char ch;

		if (pid < 0 || read(to_parent[0], &ch, 1) != 1)
			bail("the confined child did not start");
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "Seccomp: %d", &seccomp);
			sscanf(line, "NoNewPrivs: %d", &nnp);
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "Max core file size", 18) == 0)
				core_zero = strstr(line, " 0 ") != NULL;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path))) {
		while ((e = readdir(d))) {
			char fdpath[sizeof(path) + sizeof(e->d_name) + 2];
			ssize_t n;
			int fd = atoi(e->d_name);

			if (e->d_name[0] == '.')
				continue;
			nfds++;
			snprintf(fdpath, sizeof(fdpath), "%s/%s", path, e->d_name);
			n = readlink(fdpath, link, sizeof(link) - 1);
			link[n > 0 ? n : 0] = 0;
			if (fd <= 2 ? strcmp(link, "/dev/null") != 0 :
				      (fd != from_parent[0] && fd != to_parent[1]) ||
					      strncmp(link, "pipe:", 5) != 0) {
				fds_ok = 0;
				diag("descriptor %d -> %s", fd, link);
			}
		}
		closedir(d);
	}
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if ((f = fopen(path, "r"))) {
		int ch;

		while ((ch = fgetc(f)) != EOF)
			secret += ch != 0;
		fclose(f);
	}
	is_int(2, seccomp, "the confined process is under a seccomp filter (Seccomp: 2)");
	is_int(1, nnp, "and cannot gain privileges (NoNewPrivs: 1)");
	ok(fds_ok && nfds == 5, "it keeps 0, 1, 2 on /dev/null and its two pipes, nothing else "
	   "(%d descriptors)", nfds);
	is_int(0, (long long)secret, "its environment is wiped (no byte of it left)");
	ok(core_zero, "it writes no core file (core size limit 0)");
	if (write(from_parent[1], "x", 1) != 1)
		bail("cannot write to the confined child");
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "and it still reads and writes its own pipes");
	unsetenv("T32_TEST_SECRET");
}

int main(void)
{
	char tmpl[] = "/tmp/t32-confine.XXXXXX", path[128];
	void *stub = make_stub();
	int perf_ok, timer_ok;
	struct stat st;

	plan((int)NATTEMPTS + 6 + 3 + 1);
	if (!stub || !mkdtemp(tmpl) || pipe(from_parent) || pipe(to_parent))
		bail("cannot set the test up");
	snprintf(dir, sizeof(dir), "%s", tmpl);
	parent = getpid();
	snprintf(path, sizeof(path), "%s/inherited", dir);
	other_fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (other_fd < 0)
		bail("cannot open a file to inherit");
	{
		int fd = open_perf();

		perf_ok = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	{
		timer_t t;
		struct sigevent ev;

		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_NONE;
		timer_ok = timer_create(CLOCK_MONOTONIC, &ev, &t) == 0;
		if (timer_ok)
			timer_delete(t);
	}
	for (size_t i = 0; i < NATTEMPTS; i++) {
		int end;

		if ((attempts[i].needs == NEEDS_PERF && !perf_ok) ||
		    (attempts[i].needs == NEEDS_TIMER && !timer_ok)) {
			skip(attempts[i].needs == NEEDS_PERF ? "perf_event_open is not allowed here" :
							       "timer_create fails here");
			continue;
		}
		end = attempt(i, stub);
		if (attempts[i].expect == ALLOWED)
			ok(end == 0, "allowed: %s (ended by %d)", attempts[i].name, end);
		else if (attempts[i].fn == a_int80)
			ok(end == SIGSYS || end == SIGSEGV, "refused: %s (ended by %d)",
			   attempts[i].name, end);
		else
			ok(end == SIGSYS, "refused with SIGSYS: %s (ended by %d)", attempts[i].name,
			   end);
		drain();
	}
	snprintf(path, sizeof(path), "%s/created", dir);
	ok(stat(path, &st) != 0, "the file it tried to create is not there");
	snprintf(path, sizeof(path), "%s/made", dir);
	ok(stat(path, &st) != 0, "nor the directory");
	snprintf(path, sizeof(path), "%s/inherited", dir);
	ok(stat(path, &st) == 0 && st.st_size == 0, "the inherited file was not written");
	inspect();
	{
		struct t32_confine c;

		t32_confine_init(&c);
		ok(t32_confine_window(&c, (char *)stub + 4096, 3 * 4096) == -1 &&
		   t32_confine_window(&c, (char *)(uintptr_t)(1u << 20) + 4096, 1u << 20) == -1 &&
		   t32_confine_window(&c, (char *)(uintptr_t)(1u << 20), 1u << 20) == 0,
		   "a code window is a power of two, aligned to its size");
	}
	unlink(path);
	rmdir(dir);
	return done_testing();
}
