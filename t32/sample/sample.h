/*
 * sample.h - interrupt sampling: where does the measuring thread's instruction
 * pointer sit when a timer (or a precise PMU) interrupts it.  Backends are a table
 * (t32_sample_backends): perf (a software clock event read through its mmap'd
 * ring), signal (a POSIX CPU-time timer delivering SIGPROF to the thread), and
 * precise (AMD IBS op or Intel PEBS, where the machine has one).  A sampler is
 * started and stopped in the thread it samples; samples go into storage the caller
 * provides (MAP_SHARED memory when a forked child samples for its parent).
 */
#ifndef T32_SAMPLE_H
#define T32_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* One interrupted instruction pointer. */
struct t32_sample {
	uint64_t ip;		/* user-space address the sample points at */
	uint16_t tag_to_ret;	/* precise (IBS): core cycles from tagging to retirement, else 0 */
	uint16_t comp_to_ret;	/* precise (IBS): core cycles from completion to retirement */
	uint32_t flags;		/* T32_SAMPLE_* */
};
enum {
	T32_SAMPLE_EXACT = 1u << 0,	/* ip is the instruction itself (no skid) */
	T32_SAMPLE_CYCLES = 1u << 1,	/* tag_to_ret / comp_to_ret are filled in */
};

/* The clocks a timer-driven backend can count, as a table. */
struct t32_sample_clock {
	const char *name;	/* "task-clock", "cpu-clock" */
	uint64_t perf_config;	/* PERF_COUNT_SW_* */
	clockid_t posix;	/* the POSIX clock the signal backend arms */
	const char *summary;
};
extern const struct t32_sample_clock t32_sample_clocks[];	/* ends with name == NULL */
const struct t32_sample_clock *t32_sample_clock_find(const char *name);

/*
 * The clock's default period: 4000 samples a second of the thread's time.  An
 * interrupt costs a KVM guest some 20 us, so the loop runs about 7% slower than
 * alone (2% at 1 ms), while the pipeline it interrupts refills within a
 * microsecond: in a KVM guest ten blocks sampled at 1 ms and at 250 us agreed
 * within the scatter of two runs at one period.
 */
#define T32_SAMPLE_PERIOD_NS 250000

struct t32_sampler_opts {
	const struct t32_sample_clock *clock;	/* NULL: task-clock */
	uint64_t period_ns;	/* ns of the clock between samples (0: T32_SAMPLE_PERIOD_NS) */
	struct t32_sample *buf;	/* where samples go */
	size_t capacity;	/* samples buf holds; more are counted as dropped */
};

/* A running sampler: common state plus what each backend keeps. */
struct t32_sampler {
	const struct t32_sample_backend *backend;
	struct t32_sampler_opts o;
	volatile size_t n;	/* samples in o.buf */
	volatile uint64_t dropped;	/* samples that did not fit in o.buf */
	uint64_t lost;		/* samples the kernel reported lost (ring overflow) */
	volatile uint64_t interrupts;	/* records or signals seen, kept or not */
	uint64_t period;	/* the period in the backend's own unit */
	char unit[16];		/* that unit: "ns", "cycles", "ops" */
	char event[64];		/* what was opened: "task-clock", "ibs_op", "cycles:pp" */
	/* perf ring state (perf, precise) */
	int cpu;		/* -1: the event follows the thread; else CPU-wide on this CPU */
	uint32_t tid;		/* CPU-wide: keep only this thread's samples */
	int fd;
	void *ring;		/* mmap'd control page + data area */
	size_t ring_len;	/* bytes mapped */
	uint64_t sample_type;	/* PERF_SAMPLE_* asked for */
	int raw_ibs;		/* decode PERF_SAMPLE_RAW as an IBS op */
	/* signal state */
	timer_t timer;
	int armed;
};

/* A way of sampling.  probe/start return 0, or -1 with the reason in why/err. */
struct t32_sample_backend {
	const char *name;	/* "perf", "signal", "precise" */
	const char *summary;
	const char *skid;	/* where the sample lands relative to the selected instruction */
	int exact;		/* samples name the instruction itself */
	int (*probe)(char *why, size_t len);
	int (*start)(struct t32_sampler *s, char *err, size_t len);
	void (*drain)(struct t32_sampler *s);	/* move pending samples into o.buf */
	void (*pause)(struct t32_sampler *s, int paused);	/* stop / go on interrupting */
	void (*stop)(struct t32_sampler *s);	/* drains, then releases everything */
};
extern const struct t32_sample_backend t32_sample_backends[];	/* ends with name == NULL */

/* The backend called name, or NULL. */
const struct t32_sample_backend *t32_sample_backend_find(const char *name);
/* The first available of precise, perf, signal; NULL with the reasons in why. */
const struct t32_sample_backend *t32_sample_backend_auto(char *why, size_t len);

/* Start sampling the calling thread.  Returns 0, or -1 with err filled in. */
int t32_sampler_start(struct t32_sampler *s, const struct t32_sample_backend *b,
		      const struct t32_sampler_opts *o, char *err, size_t len);
/* Collect what the kernel holds; call between chunks of the measured loop. */
void t32_sampler_drain(struct t32_sampler *s);
/*
 * Hold interrupts off (paused = 1) or let them go on (0), keeping the sampler:
 * unsampled stretches of the loop interleave with sampled ones to time both alike.
 */
void t32_sampler_pause(struct t32_sampler *s, int paused);
/* Stop, collect the rest, release.  s->n samples remain in o.buf. */
void t32_sampler_stop(struct t32_sampler *s);

/* Store one sample (async-signal-safe: the signal backend calls it from its handler). */
void t32_sampler_record(struct t32_sampler *s, const struct t32_sample *x);

/*
 * Shared by the perf-based backends (sample.c): open attr on the calling thread
 * (or CPU-wide on s->cpu when it is >= 0, keeping the thread's samples), map a ring of 2^pages_log2 data pages, enable it; and read its ring.
 */
struct perf_event_attr;
int t32_sampler_open_perf(struct t32_sampler *s, struct perf_event_attr *attr,
			  unsigned pages_log2, char *err, size_t len);
void t32_sampler_drain_perf(struct t32_sampler *s);
void t32_sampler_pause_perf(struct t32_sampler *s, int paused);
void t32_sampler_close_perf(struct t32_sampler *s);
/* perf_event_open(2): there is no libc wrapper. */
int t32_perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group,
			unsigned long flags);

/* The backends behind the table (sample-perf.c, sample-signal.c, sample-precise.c). */
int t32_perf_probe(char *why, size_t len);
int t32_perf_start(struct t32_sampler *s, char *err, size_t len);
int t32_signal_probe(char *why, size_t len);
int t32_signal_start(struct t32_sampler *s, char *err, size_t len);
void t32_signal_drain(struct t32_sampler *s);
void t32_signal_pause(struct t32_sampler *s, int paused);
void t32_signal_stop(struct t32_sampler *s);
int t32_precise_probe(char *why, size_t len);
int t32_precise_start(struct t32_sampler *s, char *err, size_t len);

#endif
