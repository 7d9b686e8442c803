/*
 * fuzz/confine.c - the confinement policy (t32/core/confine.c) against any system
 * call with any arguments, made from t32's own code as a body that jumped there
 * would make it: a forked child is confined with its two pipes, makes the call,
 * and whatever the policy does not allow must end it by SIGSYS.  What the
 * policy allows (reading and writing its own pipes, exit, sigreturn, the clock,
 * a signal to itself, and with a code window, turning pages within it read+write
 * or read+exec) may do what it does.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "fuzz/fuzzkit.h"
#include "t32/core/confine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WINDOW (1ul << 20)

/* A code window: WINDOW bytes aligned to their size, inaccessible; 0 when none. */
static unsigned long window_of(void)
{
	static unsigned long w;
	char *p;

	if (!w && (p = mmap(NULL, 2 * WINDOW, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) !=
			  MAP_FAILED)
		w = ((unsigned long)(uintptr_t)p + WINDOW - 1) & ~(WINDOW - 1);
	return w;
}

/*
 * Does the policy let this call through (made from outside the loaded code)?
 * win: the child's code window, or 0.
 */
static int allowed(unsigned long nr, const unsigned long *a, int rd, int wr, pid_t self,
		   unsigned long win)
{
	switch (nr) {
	case SYS_mprotect:
		return win && a[0] >= win && a[0] < win + WINDOW && a[1] <= WINDOW &&
		       a[0] + a[1] <= win + WINDOW &&
		       (a[2] == (PROT_READ | PROT_WRITE) || a[2] == (PROT_READ | PROT_EXEC));
	case SYS_exit:
	case SYS_exit_group:
	case SYS_rt_sigreturn:
	case SYS_clock_gettime:
		return 1;
	case SYS_read:
		return (unsigned)a[0] == (unsigned)rd;
	case SYS_write:
		return (unsigned)a[0] == (unsigned)wr;
	case SYS_tgkill:
		return (unsigned)a[0] == (unsigned)self;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long nr, a[6] = { 0 }, win = 0;
	int in[2], out[2], status;
	pid_t pid;

	if (size < 3)
		return 0;
	/*
	 * the number: mostly the real ones (0..511), 0..65535 when the third byte's
	 * bit 4 says so, with the x32 bit when its bit 0 does
	 */
	nr = ((unsigned long)data[0] | (unsigned long)data[1] << 8) % (data[2] & 16 ? 65536 : 512);
	if (data[2] & 1)
		nr |= 0x40000000ul;
	for (size_t i = 0; i < 6 && 3 + 8 * i < size; i++)
		memcpy(&a[i], data + 3 + 8 * i, size - 3 - 8 * i < 8 ? size - 3 - 8 * i : 8);
	/* an argument that should hit the pipes often enough: the third byte's bits */
	if (pipe2(in, O_CLOEXEC | O_NONBLOCK) || pipe2(out, O_CLOEXEC | O_NONBLOCK))
		abort();
	if (data[2] & 2)
		a[0] = (unsigned long)in[0];
	if (data[2] & 4)
		a[0] = (unsigned long)out[1];
	/* with a code window (bit 5), mprotect near it (bit 6) often enough */
	if (data[2] & 32)
		win = window_of();
	if (win && data[2] & 64) {
		nr = SYS_mprotect;
		a[0] = win - WINDOW / 2 + ((a[0] % (2 * WINDOW)) & ~4095ul);
		a[1] %= 2 * WINDOW;
		a[2] = a[2] & 1 ? PROT_READ | PROT_WRITE : a[2] & 2 ? PROT_READ | PROT_EXEC : a[2];
	}
	if (write(in[1], "x", 1) != 1)
		abort();
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		struct t32_confine c;

		t32_confine_init(&c);
		t32_confine_fd(&c, in[0], T32_CONFINE_READ);
		t32_confine_fd(&c, out[1], T32_CONFINE_WRITE);
		if (win && t32_confine_window(&c, (void *)(uintptr_t)win, WINDOW))
			_exit(100);
		if (data[2] & 8)
			a[0] = (unsigned long)getpid();
		if (t32_confine(&c))
			_exit(100);
		syscall((long)nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		/* the exit system call itself: a sanitizer's _exit makes calls the policy refuses */
		syscall(SYS_exit_group, 0);
		_exit(0);
	}
	if (data[2] & 8)
		a[0] = (unsigned long)pid;	/* as the child set it */
	while (waitpid(pid, &status, WUNTRACED) < 0)
		;
	if (WIFSTOPPED(status)) {
		/* a signal to itself may stop it: the policy allows that */
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		status = 0;
	}
	close(in[0]);
	close(in[1]);
	close(out[0]);
	close(out[1]);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 100)
		abort();	/* the confinement itself failed */
	if (!allowed(nr, a, in[0], out[1], pid, win) &&
	    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS))
		abort();	/* a call the policy refuses went through */
	return 0;
}
