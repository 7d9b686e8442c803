/*
 * sample.c - the sampling backends' table and what they share: storing samples,
 * opening a perf event with its ring buffer, and draining that ring (see sample.h).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analysis/ibs.h"
#include "t32/sample/ring.h"
#include "t32/sample/sample.h"

const struct t32_sample_backend t32_sample_backends[] = {
	{ "precise", "AMD IBS op or Intel PEBS: the sampled op's own address",
	  "precise: the sample is the instruction itself", 1,
	  t32_precise_probe, t32_precise_start, t32_sampler_drain_perf, t32_sampler_pause_perf,
	  t32_sampler_close_perf },
	{ "perf", "perf_event software clock, ring buffer read in-process",
	  "timer interrupt: the sample lands on the instruction after the one that held retirement up",
	  0, t32_perf_probe, t32_perf_start, t32_sampler_drain_perf, t32_sampler_pause_perf,
	  t32_sampler_close_perf },
	{ "signal", "POSIX timer on the thread's clock, SIGPROF handler reads RIP",
	  "timer interrupt: the sample lands on the instruction after the one that held retirement up",
	  0, t32_signal_probe, t32_signal_start, t32_signal_drain, t32_signal_pause,
	  t32_signal_stop },
	{ NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL },
};

const struct t32_sample_clock t32_sample_clocks[] = {
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK, CLOCK_THREAD_CPUTIME_ID,
	  "CPU time of the measuring thread" },
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK, CLOCK_MONOTONIC,
	  "wall-clock time while the thread runs (perf), wall-clock time (signal)" },
	{ NULL, 0, 0, NULL },
};

const struct t32_sample_clock *t32_sample_clock_find(const char *name)
{
	for (const struct t32_sample_clock *c = t32_sample_clocks; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

const struct t32_sample_backend *t32_sample_backend_find(const char *name)
{
	for (const struct t32_sample_backend *b = t32_sample_backends; b->name; b++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

/* Table order is preference order: the first that probes well wins. */
const struct t32_sample_backend *t32_sample_backend_auto(char *why, size_t len)
{
	size_t used = 0;

	if (len)
		why[0] = 0;
	for (const struct t32_sample_backend *b = t32_sample_backends; b->name; b++) {
		char reason[256];

		if (!b->probe(reason, sizeof(reason)))
			return b;
		if (used < len) {
			int k = snprintf(why + used, len - used, "%s%s: %s", used ? "; " : "",
					 b->name, reason);
			used += k > 0 ? (size_t)k : 0;
		}
	}
	return NULL;
}

int t32_sampler_start(struct t32_sampler *s, const struct t32_sample_backend *b,
		      const struct t32_sampler_opts *o, char *err, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->backend = b;
	s->o = *o;
	if (!s->o.clock)
		s->o.clock = &t32_sample_clocks[0];
	if (!s->o.period_ns)
		s->o.period_ns = T32_SAMPLE_PERIOD_NS;
	s->fd = -1;
	s->cpu = -1;
	return b->start(s, err, len);
}

void t32_sampler_drain(struct t32_sampler *s)
{
	if (s->backend && s->backend->drain)
		s->backend->drain(s);
}

void t32_sampler_pause(struct t32_sampler *s, int paused)
{
	if (s->backend && s->backend->pause)
		s->backend->pause(s, paused);
}

void t32_sampler_stop(struct t32_sampler *s)
{
	if (s->backend)
		s->backend->stop(s);
	s->backend = NULL;
}

void t32_sampler_record(struct t32_sampler *s, const struct t32_sample *x)
{
	size_t n = s->n;

	s->interrupts++;
	if (n < s->o.capacity) {
		s->o.buf[n] = *x;
		s->n = n + 1;
	} else {
		s->dropped++;
	}
}

int t32_perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group,
			unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

int t32_sampler_open_perf(struct t32_sampler *s, struct perf_event_attr *attr,
			  unsigned pages_log2, char *err, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);

	attr->size = sizeof(*attr);
	attr->disabled = 1;
	if (s->cpu >= 0) {
		attr->sample_type |= PERF_SAMPLE_TID;
		s->tid = (uint32_t)syscall(SYS_gettid);
	}
	s->sample_type = attr->sample_type;
	s->fd = t32_perf_event_open(attr, s->cpu >= 0 ? -1 : 0, s->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (s->fd < 0) {
		snprintf(err, len, "perf_event_open: %s", strerror(errno));
		return -1;
	}
	s->ring_len = (size_t)page * ((1u << pages_log2) + 1);
	s->ring = mmap(NULL, s->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->ring == MAP_FAILED) {
		snprintf(err, len, "cannot map the perf ring buffer: %s", strerror(errno));
		s->ring = NULL;
		close(s->fd);
		s->fd = -1;
		return -1;
	}
	if (ioctl(s->fd, PERF_EVENT_IOC_RESET, 0) || ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0)) {
		snprintf(err, len, "cannot enable the perf event: %s", strerror(errno));
		t32_sampler_close_perf(s);
		return -1;
	}
	return 0;
}

/* One ring record into a stored sample; IBS raw records give the op's own address. */
static void keep_record(const struct t32_ring_sample *r, void *ctx)
{
	struct t32_sampler *s = ctx;
	struct t32_sample x = { .ip = r->ip };

	if (s->tid && r->tid != s->tid)
		return;	/* CPU-wide event: another thread's sample */
	if (r->misc & PERF_RECORD_MISC_EXACT_IP)
		x.flags |= T32_SAMPLE_EXACT;
	if (s->raw_ibs && r->raw) {
		struct t32_ibs_op op;

		if (!t32_ibs_decode_op(r->raw, r->raw_size, &op) && !op.rip_invalid) {
			x.ip = op.rip;
			x.tag_to_ret = op.tag_to_ret;
			x.comp_to_ret = op.comp_to_ret;
			x.flags |= T32_SAMPLE_EXACT | T32_SAMPLE_CYCLES;
		}
	}
	t32_sampler_record(s, &x);
}

void t32_sampler_drain_perf(struct t32_sampler *s)
{
	struct perf_event_mmap_page *pg = s->ring;
	struct t32_ring_stats st = { 0 };
	uint64_t head, tail;

	if (!pg)
		return;
	/* The kernel publishes data before data_head: acquire pairs with its release. */
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	t32_ring_parse((const unsigned char *)s->ring + pg->data_offset, pg->data_size, tail, head,
		       s->sample_type, keep_record, s, &st);
	s->lost += st.lost;
	/*
	 * Everything was read (a malformed record is skipped with the rest, not read
	 * again) before the kernel may overwrite it: release.
	 */
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

void t32_sampler_pause_perf(struct t32_sampler *s, int paused)
{
	if (s->fd >= 0)
		ioctl(s->fd, paused ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0);
}

void t32_sampler_close_perf(struct t32_sampler *s)
{
	if (s->fd >= 0)
		ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	t32_sampler_drain_perf(s);
	if (s->ring)
		munmap(s->ring, s->ring_len);
	s->ring = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
