/*
 * helper.c - helper programs on a leash (see helper.h).
 */
#include "t32/core/helper.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double limit = T32_HELPER_SECONDS;

void t32_helper_set_limit(double seconds)
{
	limit = seconds > 0 ? seconds : T32_HELPER_SECONDS;
}

double t32_helper_limit(void)
{
	return limit;
}

/* The signals that stop t32, and so the helper with it. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

static volatile sig_atomic_t caught;	/* the stop signal that came while a helper ran */

static void on_stop(int sig)
{
	caught = sig;
}

/* In the forked child: leash, descriptors, exec.  Never returns. */
static void child(char *const argv[], const int *keep, size_t nkeep, int out_fd, pid_t parent,
		  const sigset_t *mask, unsigned long long fsize)
{
	int null;

	setpgid(0, 0);
	/* killed when t32 dies, even by SIGKILL; t32 may have died already */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	for (size_t i = 0; i < NSTOP; i++)
		signal(stop_signals[i], SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);	/* a file past its cap ends it */
	sigprocmask(SIG_SETMASK, mask, NULL);
	/* a body can ask nasm for a terabyte (times 1<<40 db 0): memory and files are capped */
	setrlimit(RLIMIT_AS, &(struct rlimit){ T32_HELPER_MEMORY, T32_HELPER_MEMORY });
	setrlimit(RLIMIT_FSIZE, &(struct rlimit){ fsize, fsize });
	null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
		_exit(127);
	for (size_t i = 0; i < nkeep; i++)
		fcntl(keep[i], F_SETFD, 0);
	execvp(argv[0], argv);
	/* 127 and a marker the parent recognises */
	dprintf(2, "\001exec: %s", strerror(errno));
	_exit(127);
}

/* Keep what fits of a read into out->text (the rest is read and dropped). */
static void keep_output(struct t32_child_output *out, size_t *len, const char *buf, size_t n)
{
	size_t room = T32_HELPER_OUTPUT - *len;

	if (n > room)
		n = room;
	if (!n)
		return;
	memcpy(out->text + *len, buf, n);
	*len += n;
	out->text[*len] = 0;
}

/* Sleep in ppoll until fd is readable, a signal comes or `seconds` pass. */
static int wait_for(int fd, double seconds, const sigset_t *mask)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec ts;

	if (seconds < 0)
		seconds = 0;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - floor(seconds)) * 1e9);
	return ppoll(fd >= 0 ? &p : NULL, fd >= 0 ? 1 : 0, &ts, mask);
}

int t32_run_helper(char *const argv[], const int *keep, size_t nkeep,
		   struct t32_child_output *out)
{
	return t32_run_helper_bounded(argv, keep, nkeep, out, 0, 0);
}

int t32_run_helper_bounded(char *const argv[], const int *keep, size_t nkeep,
			   struct t32_child_output *out, double seconds, unsigned long long fsize)
{
	struct sigaction old[NSTOP], sa;
	sigset_t block, before;
	int fds[2], status = 0, rc = T32_HELPER_EXITED, eof = 0;
	size_t len = 0;
	double deadline = t32_now() + (seconds > 0 ? seconds : limit);
	pid_t pid, parent = getpid();

	memset(out, 0, sizeof(*out));
	out->text = malloc(T32_HELPER_OUTPUT + 1);
	if (!out->text || pipe2(fds, O_CLOEXEC)) {
		snprintf(out->error, sizeof(out->error), "%s", strerror(errno ? errno : ENOMEM));
		return T32_HELPER_CANNOT;
	}
	out->text[0] = 0;
	/* stop signals wait (blocked) until ppoll, where they end the wait */
	sigemptyset(&block);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&block, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &before);
	caught = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++) {
		sigaction(stop_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		child(argv, keep, nkeep, fds[1], parent, &before, fsize ? fsize : T32_HELPER_MEMORY);
	close(fds[1]);
	if (pid < 0) {
		snprintf(out->error, sizeof(out->error), "%s", strerror(errno));
		rc = T32_HELPER_CANNOT;
		goto restore;
	}
	setpgid(pid, pid);	/* as the child does: whichever runs first */
	for (;;) {
		pid_t w;

		if (caught) {
			rc = T32_HELPER_INTERRUPTED;
			break;
		}
		if (t32_now() >= deadline) {
			rc = T32_HELPER_TIMEOUT;
			break;
		}
		if (eof) {
			/* the output is closed: wait for the exit, still on the leash */
			w = waitpid(pid, &status, WNOHANG);
			if (w == pid)
				break;
			if (w < 0 && errno != EINTR) {
				snprintf(out->error, sizeof(out->error), "%s", strerror(errno));
				rc = T32_HELPER_CANNOT;
				break;
			}
			wait_for(-1, fmin(0.005, deadline - t32_now()), &before);
			continue;
		}
		if (wait_for(fds[0], deadline - t32_now(), &before) > 0) {
			char buf[4096];
			ssize_t n = read(fds[0], buf, sizeof(buf));

			if (n > 0)
				keep_output(out, &len, buf, (size_t)n);
			else if (n == 0 || errno != EINTR)
				eof = 1;
		}
	}
	if (rc != T32_HELPER_EXITED && rc != T32_HELPER_CANNOT) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	if (rc != T32_HELPER_EXITED)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	out->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (rc == T32_HELPER_EXITED && out->status == 127 && out->text[0] == '\001') {
		snprintf(out->error, sizeof(out->error), "%s", out->text + 7);
		rc = T32_HELPER_CANNOT;
	}
restore:
	close(fds[0]);
	for (size_t i = 0; i < NSTOP; i++)
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &old[i], NULL);
	/* the signal goes on to whoever handled it before (a flag, or death) */
	if (caught)
		raise(caught);
	sigprocmask(SIG_SETMASK, &before, NULL);
	return rc;
}
