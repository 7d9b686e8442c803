/*
 * sample-precise.c - the precise backend: a PMU that reports the sampled op's own
 * instruction instead of wherever the interrupt lands.  Two kinds, tried in order:
 * AMD IBS op sampling (the ibs_op PMU, dispatched-op mode, raw registers decoded by
 * analysis/ibs.c for IbsOpRip and the tag-to-retire and completion-to-retire
 * cycles) and Intel PEBS (cycles with precise_ip).  Virtual machines usually
 * expose neither; then the probe says so and `t32 sample` exits 3.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "t32/sample/sample.h"

#define RING_PAGES_LOG2 7	/* IBS records carry ~80 bytes of registers */
#define IBS_OP_TYPE "/sys/bus/event_source/devices/ibs_op/type"
#define IBS_CNT_CTL (1ull << 19)	/* IbsOpCtl: count dispatched ops */
#define IBS_MAX_PERIOD 0xffff0ull	/* MaxCnt without the extension bits */
#define OPS_PER_NS 3		/* to turn a period in ns into ops or cycles, roughly */

struct precise_kind {
	const char *name;
	int (*attr)(struct perf_event_attr *a, uint64_t period_ns, int precise, char *why,
		    size_t len);
	int raw_ibs;		/* decode PERF_SAMPLE_RAW as IBS op registers */
	const char *unit;	/* of the period */
};

/* The ibs_op PMU's dynamic type number, or -1 with the reason. */
static int ibs_type(char *why, size_t len)
{
	FILE *f = fopen(IBS_OP_TYPE, "r");
	int type = -1;

	if (!f) {
		snprintf(why, len, "no AMD IBS op PMU (%s: %s)", IBS_OP_TYPE, strerror(errno));
		return -1;
	}
	if (fscanf(f, "%d", &type) != 1 || type < 0) {
		snprintf(why, len, "cannot read '%s'", IBS_OP_TYPE);
		type = -1;
	}
	fclose(f);
	return type;
}

/* IBS op, dispatched-op mode, the raw registers with every sample. */
static int ibs_attr(struct perf_event_attr *a, uint64_t period_ns, int precise, char *why,
		    size_t len)
{
	int type = ibs_type(why, len);
	uint64_t period = period_ns * OPS_PER_NS;

	(void)precise;
	if (type < 0)
		return -1;
	memset(a, 0, sizeof(*a));
	a->type = (uint32_t)type;
	a->config = IBS_CNT_CTL;
	a->sample_period = period > IBS_MAX_PERIOD ? IBS_MAX_PERIOD : period < 0x100 ? 0x100 : period;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	a->exclude_kernel = 1;
	return 0;
}

/* Core cycles with precise_ip (PEBS on Intel). */
static int pebs_attr(struct perf_event_attr *a, uint64_t period_ns, int precise, char *why,
		     size_t len)
{
	(void)why;
	(void)len;
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_CPU_CYCLES;
	a->sample_period = period_ns * OPS_PER_NS;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->precise_ip = (unsigned)precise;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	return 0;
}

static const struct precise_kind kinds[] = {
	{ "ibs_op", ibs_attr, 1, "ops" },
	{ "cycles", pebs_attr, 0, "cycles" },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Append a reason to why, "; " between reasons, truncating safely. */
static void add_reason(char *why, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(why, len);
	va_list ap;

	if (used + 3 >= len)
		return;
	if (used) {
		memcpy(why + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + used, len - used, fmt, ap);
	va_end(ap);
}

/* One way of opening an event: on the thread, or CPU-wide with the kernel's samples kept. */
struct attempt {
	int cpu_wide;		/* pid -1 on the CPU we run on; samples filtered by tid */
	int exclude_kernel;
};

/*
 * IBS: on the thread with user samples only; on the thread with kernel samples
 * too (IBS cannot exclude them on kernels without its software filter); CPU-wide
 * on our pinned CPU (kernels whose IBS cannot follow a task).  The last two need
 * perf_event_paranoid <= 1 and 0.  PEBS: on the thread, user samples only.
 */
static const struct attempt ibs_attempts[] = { { 0, 1 }, { 0, 0 }, { 1, 0 } };
static const struct attempt pebs_attempts[] = { { 0, 1 } };

/* Try the attempts for one attribute set; the fd or -1 (errno of the first failure). */
static int try_open(struct perf_event_attr *a, const struct attempt *at, size_t n, int *cpu)
{
	int first = 0;

	for (size_t i = 0; i < n; i++) {
		int c = at[i].cpu_wide ? sched_getcpu() : -1;
		int fd;

		if (at[i].cpu_wide && c < 0)
			continue;
		a->exclude_kernel = (unsigned)at[i].exclude_kernel;
		fd = t32_perf_event_open(a, at[i].cpu_wide ? -1 : 0, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			*cpu = c;
			return fd;
		}
		if (!first)
			first = errno;
	}
	errno = first;
	return -1;
}

/*
 * Open the first kind that works: IBS (see ibs_attempts) or PEBS (the most
 * precise level first).  Fills a and *cpu (-1: follows the thread), returns the
 * kind's index and the fd, or -1 with the reasons.
 */
static int open_precise(uint64_t period_ns, struct perf_event_attr *a, int *fd, int *cpu,
			char *why, size_t len)
{
	if (len)
		why[0] = 0;
	for (size_t k = 0; k < NKINDS; k++) {
		for (int level = 3; level >= 1; level--) {
			char reason[160] = "";

			if (kinds[k].attr(a, period_ns, level, reason, sizeof(reason))) {
				add_reason(why, len, "%s", reason);
				break;
			}
			a->size = sizeof(*a);
			a->disabled = 1;
			if (kinds[k].raw_ibs)
				*fd = try_open(a, ibs_attempts,
					       sizeof(ibs_attempts) / sizeof(ibs_attempts[0]), cpu);
			else
				*fd = try_open(a, pebs_attempts,
					       sizeof(pebs_attempts) / sizeof(pebs_attempts[0]), cpu);
			if (*fd >= 0)
				return (int)k;
			if (level == 1 || kinds[k].raw_ibs) {
				add_reason(why, len, "%s: %s", kinds[k].name,
					   errno == ENOENT || errno == EOPNOTSUPP ?
					   "no hardware PMU with precise sampling" : strerror(errno));
				break;
			}
		}
	}
	return -1;
}

int t32_precise_probe(char *why, size_t len)
{
	struct perf_event_attr a;
	int fd, cpu;

	if (open_precise(1000000, &a, &fd, &cpu, why, len) < 0)
		return -1;
	close(fd);
	return 0;
}

int t32_precise_start(struct t32_sampler *s, char *err, size_t len)
{
	struct perf_event_attr a;
	int fd, cpu, k = open_precise(s->o.period_ns, &a, &fd, &cpu, err, len);

	if (k < 0)
		return -1;
	close(fd);	/* opened again below, the same way, with its ring */
	s->cpu = cpu;
	s->raw_ibs = kinds[k].raw_ibs;
	s->period = a.sample_period;
	snprintf(s->unit, sizeof(s->unit), "%s", kinds[k].unit);
	snprintf(s->event, sizeof(s->event), "%s%s", kinds[k].name,
		 kinds[k].raw_ibs ? "" : a.precise_ip >= 3 ? ":ppp" : a.precise_ip == 2 ? ":pp" : ":p");
	return t32_sampler_open_perf(s, &a, RING_PAGES_LOG2, err, len);
}
