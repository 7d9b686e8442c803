/*
 * sample-perf.c - the perf backend: a software clock event (task-clock or
 * cpu-clock) on the calling thread, user-space IPs only, its ring buffer read in
 * the process itself.  The measuring thread runs the loop, so nothing reads the
 * ring while it runs: the caller drains between chunks of the loop, and the ring
 * (2^RING_PAGES_LOG2 pages, about 8000 samples) holds several seconds of samples
 * at the default period, so a chunk never fills it; if one does, the kernel's
 * PERF_RECORD_LOST count says how many were lost.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "t32/sample/sample.h"

#define RING_PAGES_LOG2 6	/* 64 data pages = 256 KiB, 32 bytes a sample */

/* The attributes both probe and start use. */
static void clock_attr(struct perf_event_attr *a, const struct t32_sample_clock *c,
		       uint64_t period_ns)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = c->perf_config;
	a->sample_period = period_ns;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->exclude_kernel = 1;	/* perf_event_paranoid 2 allows user space only */
	a->exclude_hv = 1;
	a->disabled = 1;
}

/* Can this process open a software clock event on itself? */
int t32_perf_probe(char *why, size_t len)
{
	struct perf_event_attr a;
	int fd;

	clock_attr(&a, &t32_sample_clocks[0], 1000000);
	fd = t32_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "perf_event_open task-clock: %s", strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

int t32_perf_start(struct t32_sampler *s, char *err, size_t len)
{
	struct perf_event_attr a;

	clock_attr(&a, s->o.clock, s->o.period_ns);
	s->period = s->o.period_ns;
	snprintf(s->unit, sizeof(s->unit), "ns");
	snprintf(s->event, sizeof(s->event), "%s", s->o.clock->name);
	return t32_sampler_open_perf(s, &a, RING_PAGES_LOG2, err, len);
}
