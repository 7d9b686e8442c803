/*
 * sample-signal.c - the signal backend: a POSIX timer on the thread's CPU-time
 * clock (task-clock) or the monotonic clock (cpu-clock) sends SIGPROF to the
 * measuring thread itself (SIGEV_THREAD_ID); the handler copies the interrupted
 * RIP out of the ucontext into the preallocated sample array.  Needs no perf
 * support at all, so it works where perf_event_open is forbidden.  The kernel
 * checks CPU-time timers on the scheduler tick, so with task-clock this backend
 * takes at most CONFIG_HZ samples a second (250 on the VM t32 was built on)
 * whatever the period; cpu-clock (CLOCK_MONOTONIC) runs on high-resolution timers.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "t32/sample/sample.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define SAMPLE_SIGNAL SIGPROF

/* The sampler the handler writes to; one at a time per process. */
static struct t32_sampler *volatile current;
static struct sigaction previous;

/* SIGPROF: store the interrupted RIP (only async-signal-safe work). */
static void on_signal(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	struct t32_sampler *s = current;
	struct t32_sample x = { 0 };

	(void)sig;
	(void)si;
	if (!s)
		return;
	x.ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	t32_sampler_record(s, &x);
}

/* Create the thread-directed timer on clock; -1 with errno set. */
static int make_timer(clockid_t clock, timer_t *t)
{
	struct sigevent ev;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SAMPLE_SIGNAL;
	ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	return timer_create(clock, &ev, t);
}

/* Can we create a thread-directed CPU-time timer? */
int t32_signal_probe(char *why, size_t len)
{
	timer_t t;

	if (make_timer(CLOCK_THREAD_CPUTIME_ID, &t)) {
		snprintf(why, len, "timer_create: %s", strerror(errno));
		return -1;
	}
	timer_delete(t);
	return 0;
}

/* Arm the timer at the sampler's period (on) or disarm it. */
static int arm(struct t32_sampler *s, int on)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (on) {
		its.it_interval.tv_sec = (time_t)(s->o.period_ns / 1000000000u);
		its.it_interval.tv_nsec = (long)(s->o.period_ns % 1000000000u);
		its.it_value = its.it_interval;
	}
	return timer_settime(s->timer, 0, &its, NULL);
}

int t32_signal_start(struct t32_sampler *s, char *err, size_t len)
{
	struct sigaction sa;

	if (current) {
		snprintf(err, len, "a signal sampler is already running");
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;	/* the alternate stack, if any */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SAMPLE_SIGNAL, &sa, &previous)) {
		snprintf(err, len, "sigaction: %s", strerror(errno));
		return -1;
	}
	if (make_timer(s->o.clock->posix, &s->timer)) {
		snprintf(err, len, "timer_create: %s", strerror(errno));
		sigaction(SAMPLE_SIGNAL, &previous, NULL);
		return -1;
	}
	s->period = s->o.period_ns;
	snprintf(s->unit, sizeof(s->unit), "ns");
	snprintf(s->event, sizeof(s->event), "%s", s->o.clock->name);
	current = s;
	if (arm(s, 1)) {
		snprintf(err, len, "timer_settime: %s", strerror(errno));
		current = NULL;
		timer_delete(s->timer);
		sigaction(SAMPLE_SIGNAL, &previous, NULL);
		return -1;
	}
	s->armed = 1;
	return 0;
}

/* The handler stores samples as they come: nothing is pending. */
void t32_signal_drain(struct t32_sampler *s)
{
	(void)s;
}

void t32_signal_pause(struct t32_sampler *s, int paused)
{
	if (s->armed)
		arm(s, !paused);
}

void t32_signal_stop(struct t32_sampler *s)
{
	sigset_t block, old;

	if (!s->armed)
		return;
	/* Hold the signal while the timer goes, so no handler runs half-way through. */
	sigemptyset(&block);
	sigaddset(&block, SAMPLE_SIGNAL);
	sigprocmask(SIG_BLOCK, &block, &old);
	timer_delete(s->timer);
	current = NULL;
	s->armed = 0;
	/* A signal already pending is discarded by the handler (current is NULL). */
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SAMPLE_SIGNAL, &previous, NULL);
}
