/*
 * cmd-wake.c - `t32 wake`: wake and interrupt latency from user space, with the
 * TSC (wult's delayed-timer method without its kernel driver).  Each event arms a
 * timer at a random launch distance past an anchor (CLOCK_MONOTONIC read between
 * two TSC readings) and waits for it:
 *
 *   sleep  clock_nanosleep to the absolute deadline; the TSC read on return,
 *          minus the deadline converted to TSC, is the wake latency;
 *   spin   spin reading the TSC while a POSIX timer aimed at this thread fires;
 *          the TSC read in its signal handler minus the deadline is the interrupt
 *          latency user space sees, and the gap in the spin loop around the
 *          handler is the time the interrupt took from the thread.
 *
 * The conversion from CLOCK_MONOTONIC to TSC ticks is calibrated over a baseline
 * before the run and checked against the whole run after it.  Every event is one
 * raw row (-o FILE), written as it comes and put in place atomically at the end
 * or on Ctrl-C; the maths, filters and statistics are in wake.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "t32/cmd/cmd.h"
#include "t32/core/run.h"
#include "t32/cmd/options.h"
#include "t32/core/shared.h"
#include "t32/spec.h"
#include "t32/util.h"
#include "t32/core/wake.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static const char wake_usage[] =
	"t32 wake [--method sleep|spin] [--count N] [--duration S]\n"
	"                [--ldist MIN[,MAX]] [OPTIONS]\n"
	"       t32 wake --input FILE [--format F]";

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* The spin method's timer signal: the TSC in the handler, and that it ran. */
static volatile sig_atomic_t fired;
static volatile uint64_t handler_tsc;

static void on_timer(int sig)
{
	(void)sig;
	handler_tsc = __rdtsc();
	fired = 1;
}

/* The TSC, not reordered with the code around it. */
static inline uint64_t tsc(void)
{
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}

enum distribution { DIST_UNIFORM, DIST_LOG };
static const char *const dist_names[] = { "uniform", "log" };

enum policy { POL_FIFO, POL_RR, POL_OTHER };
static const char *const policy_names[] = { "fifo", "rr", "other" };
static const struct {
	const char *name;
	int policy;
	const char *api;
} policies[] = {
	{ "fifo", SCHED_FIFO, "SCHED_FIFO" },
	{ "rr", SCHED_RR, "SCHED_RR" },
	{ "other", SCHED_OTHER, "SCHED_OTHER" },
};

/* What the run was asked for, and what it got. */
struct wake {
	enum t32_wake_method method;
	uint64_t count;			/* events to record, 0: no limit */
	double duration_s;		/* seconds of recording at most, 0: no limit */
	uint64_t ldist_min_ns, ldist_max_ns;
	enum distribution dist;
	uint64_t seed, rng;
	uint64_t warmup;		/* events run first and not recorded */
	int cpu;
	enum policy policy;		/* asked */
	int priority;
	enum policy got_policy;		/* in effect */
	uint64_t slack_ns;
	int mlock, mlocked;
	int idle_only;			/* leave out events where the CPU never idled (wult) */
	long pm_qos_us;			/* -1: off */
	int pm_qos_fd;
	double gap_ns;			/* spin: a loop gap above this is an interrupt */
	double calibrate_s;
	const char *out_path, *input;
	enum t32_format format;
	char notes[4][256];		/* what could not be had, for the provenance */
	unsigned nnotes;
	/* idle states of the CPU */
	unsigned nidle;
	int idle_fd[T32_WAKE_MAX_IDLE];
	char idle_name[T32_WAKE_MAX_IDLE][48];
	unsigned idle_latency_us[T32_WAKE_MAX_IDLE];
	uint64_t idle_usage0[T32_WAKE_MAX_IDLE], idle_time0_us[T32_WAKE_MAX_IDLE];
	char idle_driver[64], idle_governor[64];
	/* interrupts taken by the CPU: /proc/interrupts, its column */
	int irq_fd, irq_col;
	char *irq_buf;
	size_t irq_cap;
	/* the run */
	timer_t timer;
	uint64_t gap_ticks;
	struct t32_wake_conv conv, run_conv;
	struct t32_wake_anchor first, last;
	double tsc_ns_per_tick;
};

/* A launch distance, ns: `4ms`, `250us`, `800ns`, `0.5s`; a bare number is microseconds. */
static int parse_time_ns(const char *text, uint64_t *ns)
{
	static const struct { const char *suffix; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e3 },
	};
	size_t l = strspn(text, "0123456789.eE+");
	char num[64];
	double v;

	if (l == 0 || l >= sizeof(num))
		return -1;
	/* an exponent's e is a digit here, but `1e` alone is not a number */
	snprintf(num, sizeof(num), "%.*s", (int)l, text);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(text + l, units[i].suffix) == 0) {
			if (t32_parse_real(num, 0, 10e9 / units[i].ns, &v))
				return -1;
			*ns = (uint64_t)llround(v * units[i].ns);
			return 0;
		}
	return -1;
}

/* splitmix64: the launch distances, reproducible from --seed. */
static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t next_ldist(struct wake *w)
{
	double u = (double)(next_random(&w->rng) >> 11) / 9007199254740992.0;	/* [0, 1) */
	double lo = (double)w->ldist_min_ns, hi = (double)w->ldist_max_ns;

	if (w->ldist_max_ns == w->ldist_min_ns)
		return w->ldist_min_ns;
	if (w->dist == DIST_LOG)
		return (uint64_t)llround(exp(log(lo) + u * (log(hi) - log(lo))));
	return (uint64_t)llround(lo + u * (hi - lo));
}

static void note(struct wake *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A degradation: warned now, and kept for the provenance. */
static void note(struct wake *w, const char *fmt, ...)
{
	va_list ap;
	char msg[256];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t32_warn("%s", msg);
	if (w->nnotes < sizeof(w->notes) / sizeof(w->notes[0]))
		snprintf(w->notes[w->nnotes++], sizeof(w->notes[0]), "%s", msg);
}

/* A small sysfs file's first line into buf; 0, or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* A number from an open sysfs file, read again from its start; UINT64_MAX when it cannot. */
static uint64_t read_counter(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	uint64_t v;

	if (n <= 0)
		return UINT64_MAX;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return t32_parse_u64(buf, 0, UINT64_MAX, &v) ? UINT64_MAX : v;
}

/* The idle states the CPU offers, from /sys/devices/system/cpu/cpuN/cpuidle. */
static void idle_open(struct wake *w)
{
	char path[256], buf[64];

	read_line("/sys/devices/system/cpu/cpuidle/current_driver", w->idle_driver,
		  sizeof(w->idle_driver));
	if (read_line("/sys/devices/system/cpu/cpuidle/current_governor_ro", w->idle_governor,
		      sizeof(w->idle_governor)))
		read_line("/sys/devices/system/cpu/cpuidle/current_governor", w->idle_governor,
			  sizeof(w->idle_governor));
	for (unsigned k = 0; k < T32_WAKE_MAX_IDLE; k++) {
		uint64_t v;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%u/usage",
			 w->cpu, k);
		w->idle_fd[k] = open(path, O_RDONLY | O_CLOEXEC);
		if (w->idle_fd[k] < 0)
			break;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%u/name",
			 w->cpu, k);
		if (read_line(path, w->idle_name[k], sizeof(w->idle_name[k])))
			snprintf(w->idle_name[k], sizeof(w->idle_name[k]), "state%u", k);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%u/latency",
			 w->cpu, k);
		w->idle_latency_us[k] = read_line(path, buf, sizeof(buf)) ||
					t32_parse_u64(buf, 0, UINT_MAX, &v) ? 0 : (unsigned)v;
		w->nidle = k + 1;
	}
}

/* Entries into each idle state and the time spent there (us), now. */
static void idle_read(const struct wake *w, uint64_t *usage, uint64_t *time_us)
{
	for (unsigned k = 0; k < w->nidle; k++) {
		usage[k] = read_counter(w->idle_fd[k]);
		if (time_us) {
			char path[256], buf[32];
			uint64_t v;

			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cpuidle/state%u/time", w->cpu, k);
			time_us[k] = read_line(path, buf, sizeof(buf)) ||
				     t32_parse_u64(buf, 0, UINT64_MAX, &v) ? 0 : v;
		}
	}
}

/*
 * Open /proc/interrupts and find the CPU's column in its header; a note and
 * irq_fd = -1 when it cannot be had (other_irq then comes from the spin loop only).
 */
static void irq_open(struct wake *w)
{
	char head[8192], name[32], *p;
	ssize_t n;
	int col = 0;

	w->irq_col = -1;
	w->irq_fd = open("/proc/interrupts", O_RDONLY | O_CLOEXEC);
	if (w->irq_fd < 0 || (n = pread(w->irq_fd, head, sizeof(head) - 1, 0)) <= 0) {
		note(w, "interrupts not counted ('/proc/interrupts': %s): other_irq from the spin "
			"loop's gaps only", strerror(errno));
		if (w->irq_fd >= 0)
			close(w->irq_fd);
		w->irq_fd = -1;
		return;
	}
	head[n] = 0;
	head[strcspn(head, "\n")] = 0;
	snprintf(name, sizeof(name), "CPU%d", w->cpu);
	for (p = strtok(head, " "); p; p = strtok(NULL, " "), col++)
		if (strcmp(p, name) == 0)
			w->irq_col = col;
	if (w->irq_col < 0) {
		note(w, "interrupts not counted (no column %s in '/proc/interrupts')", name);
		close(w->irq_fd);
		w->irq_fd = -1;
	}
}

/* Interrupts the CPU has taken so far (its column of /proc/interrupts summed), or -1. */
static int64_t irq_count(struct wake *w)
{
	size_t len = 0;
	int64_t sum = 0;
	ssize_t n;

	if (w->irq_fd < 0)
		return -1;
	if (lseek(w->irq_fd, 0, SEEK_SET) < 0)
		return -1;
	do {
		if (len + 4096 + 1 > w->irq_cap) {
			char *b = realloc(w->irq_buf, w->irq_cap = w->irq_cap * 2 + 65536);

			if (!b)
				return -1;
			w->irq_buf = b;
		}
		n = read(w->irq_fd, w->irq_buf + len, w->irq_cap - len - 1);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0);
	w->irq_buf[len] = 0;
	/* after the header, each line: "NAME:" then one count per CPU, then a description */
	for (char *line = strchr(w->irq_buf, '\n'); line && *++line; line = strchr(line, '\n')) {
		char *p = strchr(line, ':'), *end;
		int col = 0;

		if (!p || p > strchr(line, '\n'))
			continue;
		for (p++; col <= w->irq_col; col++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (col == w->irq_col)
				sum += (int64_t)v;
			p = end;
		}
	}
	return sum;
}

/* CLOCK_MONOTONIC between two TSC readings, the narrowest of `tries`. */
static void anchor(struct t32_wake_anchor *a, struct timespec *ts, int tries)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < tries; i++) {
		struct timespec t;
		uint64_t lo = tsc(), hi;

		clock_gettime(CLOCK_MONOTONIC, &t);
		hi = tsc();
		if (hi >= lo && hi - lo < best) {
			best = hi - lo;
			a->tsc_lo = lo;
			a->tsc_hi = hi;
			a->mono_ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
			if (ts)
				*ts = t;
		}
	}
	if (best == UINT64_MAX) {
		/* every try went backwards: keep the last, the datapoint will say so */
		struct timespec t;

		a->tsc_lo = tsc();
		clock_gettime(CLOCK_MONOTONIC, &t);
		a->tsc_hi = tsc();
		a->mono_ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
		if (ts)
			*ts = t;
	}
}

static struct timespec ts_add(struct timespec t, uint64_t ns)
{
	t.tv_sec += (time_t)(ns / 1000000000);
	t.tv_nsec += (long)(ns % 1000000000);
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

/*
 * An event's end: the interrupts since irq0, and the idle states entered since
 * the counts in before.
 */
static void event_close(struct wake *w, struct t32_wake_event *e, int64_t irq0,
			const uint64_t *before)
{
	uint64_t after[T32_WAKE_MAX_IDLE];
	int64_t irq1;

	idle_read(w, after, NULL);
	irq1 = irq_count(w);
	e->irqs = irq0 >= 0 && irq1 >= 0 ? irq1 - irq0 : -1;
	e->nidle = w->nidle;
	for (unsigned k = 0; k < w->nidle; k++)
		e->idle_entries[k] = after[k] - before[k];
}

/* One sleep event: 0, or 1 when a signal cut it short (discarded). */
static int event_sleep(struct wake *w, struct t32_wake_event *e)
{
	uint64_t before[T32_WAKE_MAX_IDLE];
	struct timespec now, deadline;
	int r;

	int64_t irq0 = irq_count(w);

	idle_read(w, before, NULL);
	anchor(&e->anchor, &now, 3);
	deadline = ts_add(now, e->ldist_ns);
	e->launch = tsc();
	r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL);
	e->wake = tsc();
	event_close(w, e, irq0, before);
	return r != 0;
}

/* One spin event: 0, or 1 when a signal cut it short (discarded). */
static int event_spin(struct wake *w, struct t32_wake_event *e)
{
	uint64_t before[T32_WAKE_MAX_IDLE];
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	struct timespec now;
	uint64_t prev, first, end, gs = 0, ge = 0, h;
	unsigned big = 0, back = 0;
	int64_t irq0 = irq_count(w);

	idle_read(w, before, NULL);
	fired = 0;
	anchor(&e->anchor, &now, 3);
	its.it_value = ts_add(now, e->ldist_ns);
	e->launch = tsc();
	if (timer_settime(w->timer, TIMER_ABSTIME, &its, NULL))
		return -1;
	first = prev = __rdtsc();
	while (!fired && !interrupted) {
		uint64_t t = __rdtsc();

		if (t < prev)
			back++;
		else if (t - prev > w->gap_ticks) {
			big++;
			gs = prev;
			ge = t;
		}
		prev = t;
	}
	end = __rdtsc();
	if (!fired) {
		struct itimerspec off = { { 0, 0 }, { 0, 0 } };

		timer_settime(w->timer, 0, &off, NULL);
		return 1;
	}
	h = handler_tsc;
	/* the gap that holds the handler: the last one, the one after the loop, or before it */
	if (prev < h && h <= end) {
		e->gap_start = prev;
		e->gap_end = end;
	} else if (big && gs < h && h <= ge) {
		e->gap_start = gs;
		e->gap_end = ge;
		big--;
	} else if (e->launch < h && h <= first) {
		e->gap_start = e->launch;
		e->gap_end = first;
	}
	e->wake = h;
	e->other_gaps = big;
	e->tsc_back = back;
	event_close(w, e, irq0, before);
	return 0;
}

static const struct method {
	const char *name;
	int (*event)(struct wake *w, struct t32_wake_event *e);
} methods[T32_WAKE_NMETHODS] = {
	{ "sleep", event_sleep },
	{ "spin", event_spin },
};

/*
 * Pin, scheduling policy, timer slack, mlockall, PM QoS: each as asked where
 * permitted, else a warning and a note.  An exit code (2: a CPU we may not use).
 */
static int setup(struct wake *w)
{
	cpu_set_t set;
	struct sched_param sp = { .sched_priority = w->priority };

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		t32_error("cannot run on cpu '%d' (%s)", w->cpu, strerror(errno));
		return T32_EXIT_USAGE;
	}
	w->got_policy = w->policy;
	if (sched_setscheduler(0, policies[w->policy].policy, &sp)) {
		note(w, "%s priority %d refused (%s): running SCHED_OTHER, so other tasks can "
			"delay wake-ups", policies[w->policy].api, w->priority, strerror(errno));
		w->got_policy = POL_OTHER;
		sp.sched_priority = 0;
		sched_setscheduler(0, SCHED_OTHER, &sp);
	}
	if (prctl(PR_SET_TIMERSLACK, (unsigned long)w->slack_ns, 0, 0, 0))
		note(w, "timer slack %llu ns refused (%s)", (unsigned long long)w->slack_ns,
		     strerror(errno));
	if (w->mlock) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE))
			note(w, "mlockall refused (%s): a page fault can add to a latency",
			     strerror(errno));
		else
			w->mlocked = 1;
	}
	w->pm_qos_fd = -1;
	if (w->pm_qos_us >= 0) {
		int32_t v = (int32_t)w->pm_qos_us;

		w->pm_qos_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
		if (w->pm_qos_fd < 0 || write(w->pm_qos_fd, &v, sizeof(v)) != sizeof(v)) {
			note(w, "PM QoS request of %ld us refused ('/dev/cpu_dma_latency': %s): "
				"idle states as the governor chooses", w->pm_qos_us, strerror(errno));
			if (w->pm_qos_fd >= 0)
				close(w->pm_qos_fd);
			w->pm_qos_fd = -1;
		}
	}
	if (w->method == T32_WAKE_SPIN) {
		struct sigevent ev;
		struct sigaction sa = { .sa_handler = on_timer };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGRTMIN, &sa, NULL);
		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = SIGRTMIN;
		ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
		if (timer_create(CLOCK_MONOTONIC, &ev, &w->timer)) {
			t32_error("cannot create a timer 'CLOCK_MONOTONIC' (%s)", strerror(errno));
			return T32_EXIT_UNAVAILABLE;
		}
	}
	return 0;
}

/* The TSC against CLOCK_MONOTONIC over calibrate_s; an exit code. */
static int calibrate(struct wake *w)
{
	struct timespec nap = { (time_t)w->calibrate_s,
				(long)((w->calibrate_s - floor(w->calibrate_s)) * 1e9) };
	struct t32_wake_anchor b;

	anchor(&w->first, NULL, 50);
	nanosleep(&nap, NULL);
	anchor(&b, NULL, 50);
	if (t32_wake_conv_from(&w->first, &b, &w->conv)) {
		t32_error("cannot calibrate the TSC against 'CLOCK_MONOTONIC' (%s)",
			  "readings out of order: the TSC went backwards or stood still");
		return T32_EXIT_UNTRUSTED;
	}
	w->gap_ticks = (uint64_t)(w->gap_ns * w->conv.ticks_per_ns);
	return 0;
}

/* The `# wake:` line (without "# wake: "): what was asked and what is in effect. */
static void setup_line(const struct wake *w, char *buf, size_t len)
{
	char pm[32];

	if (w->pm_qos_us < 0)
		snprintf(pm, sizeof(pm), "off");
	else if (w->pm_qos_fd < 0)
		snprintf(pm, sizeof(pm), "refused");
	else
		snprintf(pm, sizeof(pm), "%ld", w->pm_qos_us);
	snprintf(buf, len, "method=%s ldist_ns=%llu..%llu distribution=%s seed=%llu warmup=%llu "
		 "cpu=%d policy=%s priority=%d slack_ns=%llu mlock=%s pm_qos_us=%s gap_ns=%.0f "
		 "idle_only=%s",
		 t32_wake_method_names[w->method], (unsigned long long)w->ldist_min_ns,
		 (unsigned long long)w->ldist_max_ns, dist_names[w->dist],
		 (unsigned long long)w->seed, (unsigned long long)w->warmup, w->cpu,
		 policies[w->got_policy].name, w->got_policy == POL_OTHER ? 0 : w->priority,
		 (unsigned long long)w->slack_ns, w->mlocked ? "yes" : "no", pm, w->gap_ns,
		 w->idle_only ? "yes" : "no");
}

/* The `# tsc:` line: the conversion and its error. */
static void tsc_line(const struct wake *w, char *buf, size_t len)
{
	snprintf(buf, len, "%.6f ticks/ns against CLOCK_MONOTONIC over a %.3f s baseline "
		 "(+-%.3f ppm); per event error = half the anchor's bracket + ldist x %.2g + 1 ns "
		 "(conv_err_ns)", w->conv.ticks_per_ns, w->conv.baseline_ns / 1e9,
		 w->conv.rel_err * 1e6, w->conv.rel_err);
}

/* The idle states and what could not be had, as `#` lines. */
static void write_notes(const struct wake *w, FILE *f)
{
	if (w->nidle) {
		fprintf(f, "# idle: driver %s, governor %s;", w->idle_driver[0] ? w->idle_driver : "?",
			w->idle_governor[0] ? w->idle_governor : "?");
		for (unsigned k = 0; k < w->nidle; k++) {
			fprintf(f, "%s idle%u_entries = ", k ? "," : "", k);
			t32_fputs_visible(w->idle_name[k], f);
			fprintf(f, " (exit latency %u us)", w->idle_latency_us[k]);
		}
		fputc('\n', f);
	} else {
		fprintf(f, "# idle: none (no /sys/devices/system/cpu/cpu%d/cpuidle): entries not "
			   "counted\n", w->cpu);
	}
	for (unsigned i = 0; i < w->nnotes; i++)
		fprintf(f, "# note: %s\n", w->notes[i]);
}

/* Header: provenance, setup, conversion, idle states, notes, the column names. */
static void write_header(const struct wake *w, FILE *f, int argc, char **argv)
{
	char line[1024];

	t32_provenance(f, argc, argv);
	setup_line(w, line, sizeof(line));
	fprintf(f, "# wake: %s\n", line);
	tsc_line(w, line, sizeof(line));
	fprintf(f, "# tsc: %s\n", line);
	write_notes(w, f);
	fprintf(f, "i\tldist_ns\tdeadline_ticks\tlaunch_ticks\t%s\tlatency_ticks\tlatency_ns\t"
		   "conv_err_ns\tirqs", w->method == T32_WAKE_SPIN ? "handler_ticks" : "wake_ticks");
	if (w->method == T32_WAKE_SPIN)
		fprintf(f, "\tgap_start_ticks\tgap_ticks\tgap_ns\tother_gaps");
	for (unsigned k = 0; k < w->nidle; k++)
		fprintf(f, "\tidle%u_entries", k);
	fprintf(f, "\tkept\tstatus\n");
}

static void write_row(const struct wake *w, FILE *f, uint64_t i, const struct t32_wake_event *e,
		      const struct t32_wake_point *p, unsigned filter)
{
	char status[128];

	t32_wake_status(p->flags, status, sizeof(status));
	fprintf(f, "%llu\t%llu\t%llu\t%llu\t%llu\t%lld\t%.1f\t%.1f\t", (unsigned long long)i,
		(unsigned long long)e->ldist_ns, (unsigned long long)p->deadline,
		(unsigned long long)e->launch, (unsigned long long)e->wake,
		(long long)p->latency_ticks, p->latency_ns, p->conv_err_ns);
	if (e->irqs >= 0)
		fprintf(f, "%lld", (long long)e->irqs);
	else
		fputc('-', f);
	if (w->method == T32_WAKE_SPIN)
		fprintf(f, "\t%llu\t%lld\t%.1f\t%u", (unsigned long long)e->gap_start,
			(long long)p->gap_ticks, p->gap_ns, e->other_gaps);
	for (unsigned k = 0; k < w->nidle; k++)
		fprintf(f, "\t%llu", (unsigned long long)e->idle_entries[k]);
	fprintf(f, "\t%d\t%s\n", !(p->flags & filter), status);
}

/* The statistics of a raw file already written. */
static int stats_of_file(const char *path, enum t32_format fmt)
{
	struct t32_wake_data d;
	char why[256];
	int rc = t32_wake_load(path, &d);

	if (rc)
		return rc;
	t32_wake_untrusted(&d, why, sizeof(why));
	t32_wake_print(stdout, &d, fmt, why);
	t32_wake_data_free(&d);
	if (t32_close_stdout())
		return T32_EXIT_ERROR;
	if (why[0]) {
		t32_error("result not trustworthy '%s' (%s)", path, why);
		return T32_EXIT_UNTRUSTED;
	}
	return 0;
}

/* --ldist MIN[,MAX] */
static int opt_ldist(const struct t32_option *row, const char *arg)
{
	struct wake *w = row->ctx;
	char lo[64];
	const char *comma = strchr(arg, ',');

	snprintf(lo, sizeof(lo), "%.*s", comma ? (int)(comma - arg) : 63, arg);
	if (parse_time_ns(lo, &w->ldist_min_ns) || parse_time_ns(comma ? comma + 1 : lo, &w->ldist_max_ns) ||
	    w->ldist_max_ns < w->ldist_min_ns || w->ldist_max_ns == 0 || w->ldist_max_ns > 10000000000ull) {
		t32_error("bad launch distance '%s' (MIN[,MAX] with ns, us, ms or s; "
			  "0 < MAX <= 10 s, MIN <= MAX)", arg);
		return -1;
	}
	return 0;
}

/* --pm-qos US|off */
static int opt_pm_qos(const struct t32_option *row, const char *arg)
{
	struct wake *w = row->ctx;
	uint64_t v;

	if (!strcmp(arg, "off")) {
		w->pm_qos_us = -1;
		return 0;
	}
	if (t32_parse_u64(arg, 0, 2000000000, &v)) {
		t32_error("bad PM QoS latency '%s' (--pm-qos takes us, or off)", arg);
		return -1;
	}
	w->pm_qos_us = (long)v;
	return 0;
}

/* Parse the options into w (its table); an exit code, or -1 to go on. */
static int parse_options(struct wake *w, int argc, char **argv, int *count_set, int *dur_set)
{
	unsigned cpu = UINT_MAX, priority = (unsigned)w->priority;
	int no_mlock = 0, rc;
	char outro[2048];
	size_t l;
	const struct t32_option opts[] = {
		T32_OPT_CHOICE("method", "M", &w->method, t32_wake_method_names, T32_WAKE_NMETHODS, "method", "sleep (default): TSC on return from clock_nanosleep\n" "- deadline; spin: TSC in a timer signal's handler\n- deadline while the thread spins, and the gap the\n" "interrupt left in the spin loop"),
		T32_OPT_U64("count", "N", &w->count, 1, 1e9, "count", "record N events"),
		T32_OPT_REAL("duration", "S", &w->duration_s, 0.001, 1e7, "duration", "record for S seconds at most (default 10 unless --count)"),
		T32_OPT_FN("ldist", "MIN[,MAX]", opt_ldist, w, "launch distance range (default 20us,4ms; bare: us)"),
		T32_OPT_CHOICE("distribution", "D", &w->dist, dist_names, 2, "distribution", "uniform (default) or log over the range"),
		T32_OPT_U64("seed", "N", &w->seed, 0, 1.8446744073709552e19, "seed", "seed of the launch distances (default random, recorded)"),
		T32_OPT_U64("warmup", "N", &w->warmup, 0, 1e6, "warmup", "events run first and not recorded (default 10)"),
		T32_OPT_UINT("cpu", "N", &cpu, 0, CPU_SETSIZE - 1, "cpu", "CPU to run on (default: the last allowed, a P-core on a\nhybrid part)"),
		T32_OPT_CHOICE("policy", "P", &w->policy, policy_names, 3, "policy", "fifo (default), rr or other; SCHED_OTHER where refused"),
		T32_OPT_UINT("priority", "N", &priority, 1, 99, "priority", "1..99 for fifo and rr (default 80)"),
		T32_OPT_U64("slack", "NS", &w->slack_ns, 1, 1e9, "timer slack", "timer slack in ns (default 1)"),
		T32_OPT_FLAG("no-mlock", 0, &no_mlock, "do not lock memory (default: mlockall, warned if refused)"),
		T32_OPT_FN("pm-qos", "US|off", opt_pm_qos, w, "hold a /dev/cpu_dma_latency request of US (default off)"),
		T32_OPT_FLAG("idle-only", 0, &w->idle_only, "sleep: leave out events where the CPU never idled (wult)"),
		T32_OPT_REAL("gap", "NS", &w->gap_ns, 10, 1e9, "gap", "spin: a loop gap above NS is an interrupt (default 1000)"),
		T32_OPT_REAL("calibrate", "S", &w->calibrate_s, 0.01, 100, "calibration baseline", "baseline of the TSC to CLOCK_MONOTONIC conversion\n(default 0.3)"),
		T32_OPT_STRING("output", 'o', "FILE", &w->out_path, "raw datapoints, one row per event (written as they come)"),
		T32_OPT_STRING("input", 0, "FILE", &w->input, "statistics of a raw file instead of measuring"),
		T32_OPT_FN("format", "F", t32_opt_format, &w->format, "table (default), tsv or json"),
		T32_OPT_END
	};

	l = (size_t)snprintf(outro, sizeof(outro), "\nEvents are left out of the statistics, and counted, when: ");
	for (int i = 0; i < T32_WAKE_NFLAGS && l < sizeof(outro); i++)
		l += (size_t)snprintf(outro + l, sizeof(outro) - l, "%s%s (%s)", i ? "; " : "",
				      t32_wake_flags[i].name, t32_wake_flags[i].summary);
	if (l < sizeof(outro))
		snprintf(outro + l, sizeof(outro) - l, ".\nPercentiles have 95%% distribution-free intervals.  "
			 "Exit 7 when no event was kept or more than 1%% had impossible readings; 130 on "
			 "Ctrl-C, what was measured kept.\n");
	rc = t32_options_parse("wake", wake_usage,
			       "Wake and interrupt latency from user space, timed with the TSC (wult's method).\n"
			       "Each event arms a timer a random launch distance ahead and waits for it.\n",
			       outro, opts, argc, argv, &optind);
	if (rc >= 0)
		return rc;
	*count_set = w->count != 0;
	*dur_set = w->duration_s != 0;
	w->mlock = !no_mlock;
	w->priority = (int)priority;
	if (cpu != UINT_MAX) {
		w->cpu = (int)cpu;
		t32_cpu_select(w->cpu);
	}
	if (optind < argc) {
		t32_error("unexpected argument '%s'", argv[optind]);
		return t32_usage(wake_usage);
	}
	if (w->dist == DIST_LOG && w->ldist_min_ns == 0) {
		t32_error("a log distribution needs a launch distance above 0 '%llu'",
			  (unsigned long long)w->ldist_min_ns);
		return T32_EXIT_USAGE;
	}
	return -1;
}

/* v as a raw row holds it (%.1f), so the statistics of a run and of its file agree. */
static double as_written(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.1f", v);
	return strtod(buf, NULL);
}

/* Record events until the count, the duration or a signal; 0 or an exit code. */
static int record(struct wake *w, struct t32_wake_data *d, FILE *out, struct t32_share *share,
		  double t0, uint64_t *recorded, double *max_err)
{
	double next_look = t0 + 1, next_progress = 0;
	int progress = isatty(2), rc = 0;

	while (!interrupted && (!w->count || *recorded < w->count) &&
	       (!w->duration_s || t32_now() - t0 < w->duration_s)) {
		struct t32_wake_event e = { .ldist_ns = next_ldist(w) };
		struct t32_wake_point p;
		int r = methods[w->method].event(w, &e);

		if (r < 0) {
			t32_error("cannot arm the timer 'CLOCK_MONOTONIC' (%s)", strerror(errno));
			rc = T32_EXIT_ERROR;
			break;
		}
		if (r)
			continue;	/* cut short by a signal: not an event */
		w->last = e.anchor;
		t32_wake_point_of(w->method, &e, &w->conv, &p);
		*max_err = fmax(*max_err, p.conv_err_ns);
		if (out) {
			write_row(w, out, *recorded, &e, &p, d->filter);
			fflush(out);
		}
		if (t32_wake_add(d, (double)e.ldist_ns, as_written(p.latency_ns),
				 as_written(p.gap_ns), p.flags)) {
			t32_error("out of memory for '%llu events'", (unsigned long long)*recorded);
			rc = T32_EXIT_ERROR;
			break;
		}
		(*recorded)++;
		double now = t32_now();

		if (now >= next_look) {
			t32_share_sample(share);
			next_look = now + 1;
		}
		if (progress && now >= next_progress) {
			fprintf(stderr, "\r\033[K[%llu events, %zu kept, %.1f s] last %.2f us",
				(unsigned long long)*recorded, d->ok, now - t0, p.latency_ns / 1e3);
			next_progress = now + 0.25;
		}
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
	return rc;
}

/*
 * After the run: its idle usage, the conversion over the whole run and the
 * sharing, as provenance lines in extra; why the result is untrusted, if it is.
 */
static void run_lines(struct wake *w, struct t32_share *share, uint64_t recorded, double max_err,
		      double t0, char *extra, size_t elen, char *why, size_t wlen)
{
	uint64_t usage1[T32_WAKE_MAX_IDLE], time1[T32_WAKE_MAX_IDLE];
	size_t used = 0;
	double drift_ppm = 0;

	idle_read(w, usage1, time1);

	if (recorded && !t32_wake_conv_from(&w->first, &w->last, &w->run_conv)) {
		drift_ppm = (w->run_conv.ticks_per_ns / w->conv.ticks_per_ns - 1) * 1e6;
		used += (size_t)snprintf(extra + used, elen - used,
			"# tsc-run: %.6f ticks/ns over the whole run (%.1f s), %+.3f ppm from the "
			"calibration; conv_err_ns at most %.1f\n", w->run_conv.ticks_per_ns,
			w->run_conv.baseline_ns / 1e9, drift_ppm, max_err);
		if (fabs(drift_ppm) * 1e-6 * (double)w->ldist_max_ns > 1000)
			snprintf(why, wlen, "the TSC's rate against CLOCK_MONOTONIC moved "
				 "%.1f ppm during the run: %.0f ns at the longest launch distance",
				 drift_ppm, fabs(drift_ppm) * 1e-6 * (double)w->ldist_max_ns);
	}
	if (w->nidle) {
		used += (size_t)snprintf(extra + used, elen - used,
					 "# idle-run: during the run");
		for (unsigned k = 0; k < w->nidle && used < elen; k++)
			used += (size_t)snprintf(extra + used, elen - used,
				"%s %s +%llu entries +%.3f s", k ? "," : "", w->idle_name[k],
				(unsigned long long)(usage1[k] - w->idle_usage0[k]),
				(double)(time1[k] - w->idle_time0_us[k]) / 1e6);
		used += (size_t)snprintf(extra + used, elen - used, "\n");
	}
	if (t32_share_end(share) && used < elen) {
		if (share->others >= 2)
			t32_warn("cpu %d was shared with another task '%s' during the run: "
				 "latencies may include its time", w->cpu, share->who);
		else
			t32_warn("the hypervisor stole %.1f%% of cpu %d during the run",
				 100 * share->steal_share, w->cpu);
		used += (size_t)snprintf(extra + used, elen - used,
			"# shared: cpu %d (%s, steal %.1f%%)\n", w->cpu,
			share->others >= 2 ? share->who : "-", 100 * share->steal_share);
	}
	if (used < elen)
		snprintf(extra + used, elen - used, "# run: %llu events in %.1f s%s\n",
			 (unsigned long long)recorded, t32_now() - t0,
			 interrupted ? ", interrupted" : "");
}

/* Most events left out: the statistics describe the few kept, and say what helps. */
static void warn_left_out(const struct t32_wake_data *d)
{
	int top = 0;

	if (!d->n || !d->ok || d->ok * 2 >= d->n)
		return;
	for (int i = 1; i < T32_WAKE_NFLAGS; i++)
		if ((d->filter & (1u << i)) && d->by_flag[i] > d->by_flag[top])
			top = i;
	t32_warn("%zu of %zu events were left out (%zu %s): the statistics describe the %zu "
		 "kept; --count counts events recorded, not kept; a CPU fewer interrupts "
		 "reach (irqaffinity=, isolcpus=, nohz_full=) keeps a larger share",
		 d->n - d->ok, d->n, d->by_flag[top], t32_wake_flags[top].name, d->ok);
}

/* Measure; an exit code. */
static int measure(struct wake *w, int argc, char **argv)
{
	struct t32_out out = { 0 };
	struct t32_wake_data d = { 0 };
	struct t32_share share;
	struct sigaction sa = { .sa_handler = on_interrupt };
	uint64_t recorded = 0;
	int rc;
	double t0, max_err = 0;
	char why[512] = "", extra[1024] = "", line[1024];

	if (w->out_path && t32_out_open(&out, w->out_path))
		return T32_EXIT_ERROR;
	rc = setup(w);
	if (!rc) {
		idle_open(w);
		irq_open(w);
		rc = calibrate(w);
	}
	if (rc) {
		if (w->out_path)
			t32_out_abort(&out);
		return rc;
	}
	if (w->out_path)
		write_header(w, out.f, argc, argv);
	setup_line(w, line, sizeof(line));
	d.setup = strdup(line);
	tsc_line(w, line, sizeof(line));
	d.conversion = strdup(line);
	d.method = w->method;
	d.filter = T32_WAKE_FILTER | (w->idle_only ? T32_WAKE_NO_IDLE : 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	w->rng = w->seed;
	for (uint64_t i = 0; i < w->warmup && !interrupted; i++) {
		struct t32_wake_event e = { .ldist_ns = next_ldist(w) };

		methods[w->method].event(w, &e);
	}
	idle_read(w, w->idle_usage0, w->idle_time0_us);
	t32_share_begin(&share, w->cpu);
	t0 = t32_now();
	rc = record(w, &d, w->out_path ? out.f : NULL, &share, t0, &recorded, &max_err);
	run_lines(w, &share, recorded, max_err, t0, extra, sizeof(extra), why, sizeof(why));
	if (!why[0])
		t32_wake_untrusted(&d, why, sizeof(why));
	warn_left_out(&d);
	if (w->out_path) {
		fputs(extra, out.f);
		if (why[0])
			fprintf(out.f, "# untrusted: %s\n", why);
		if (t32_out_commit(&out) && !rc)
			rc = T32_EXIT_ERROR;
	}
	if (w->pm_qos_fd >= 0)
		close(w->pm_qos_fd);
	if (w->irq_fd >= 0)
		close(w->irq_fd);
	free(w->irq_buf);
	if (!rc || interrupted) {
		size_t len = 0;
		FILE *m = open_memstream(&d.notes, &len);

		if (m) {
			write_notes(w, m);
			fputs(extra, m);
			fclose(m);
		}
		t32_wake_print(stdout, &d, w->format, why);
		if (t32_close_stdout() && !rc)
			rc = T32_EXIT_ERROR;
	}
	t32_wake_data_free(&d);
	if (interrupted && (!rc || rc == T32_EXIT_UNTRUSTED)) {
		t32_error("interrupted: %llu events kept%s%s", (unsigned long long)recorded,
			  w->out_path ? " in " : "", w->out_path ? w->out_path : "");
		return T32_EXIT_INTERRUPTED;
	}
	if (!rc && why[0]) {
		t32_error("result not trustworthy '%s' (%s)", t32_wake_method_names[w->method], why);
		rc = T32_EXIT_UNTRUSTED;
	}
	return rc;
}

int cmd_wake(int argc, char **argv)
{
	struct wake w = {
		.method = T32_WAKE_SLEEP, .ldist_min_ns = 20000, .ldist_max_ns = 4000000,
		.warmup = 10, .policy = POL_FIFO, .priority = 80, .slack_ns = 1, .mlock = 1,
		.pm_qos_us = -1, .gap_ns = 1000, .calibrate_s = 0.3, .format = T32_FMT_TABLE,
	};
	int count_set = 0, dur_set = 0, rc;

	w.cpu = t32_default_cpu();
	if (getrandom(&w.seed, sizeof(w.seed), 0) != sizeof(w.seed))
		w.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
	rc = parse_options(&w, argc, argv, &count_set, &dur_set);
	if (rc >= 0)
		return rc;
	if (w.input)
		return stats_of_file(w.input, w.format);
	if (!count_set && !dur_set)
		w.duration_s = 10;
	if (w.out_path && strcmp(w.out_path, "-") == 0) {
		t32_error("the raw rows need a file '%s' (stdout is for the statistics)", "-o -");
		return T32_EXIT_USAGE;
	}
	return measure(&w, argc, argv);
}
