/*
 * 4001-ring: the perf ring buffer reader on synthetic rings - records in order,
 * a record wrapping around the end of the data area, PERF_RECORD_LOST counted,
 * other records skipped, raw payloads, a malformed record stopping the pass, and
 * every word a sample may carry written and read back in its place.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "t/tap.h"
#include "t32/sample/ring.h"

#define RING 512	/* bytes of data area: small, so records wrap */

static unsigned char ring[RING];

/* Write len bytes at free-running position pos, wrapping like the kernel does. */
static void ring_put(uint64_t pos, const void *src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		ring[(pos + i) & (RING - 1)] = ((const unsigned char *)src)[i];
}

struct seen {
	uint64_t ip[64];
	uint32_t tid[64];
	uint32_t raw_size[64];
	unsigned char raw0[64];
	size_t n;
};

static void collect(const struct t32_ring_sample *s, void *ctx)
{
	struct seen *v = ctx;

	if (v->n < 64) {
		v->ip[v->n] = s->ip;
		v->tid[v->n] = s->tid;
		v->raw_size[v->n] = s->raw_size;
		v->raw0[v->n] = s->raw_size ? s->raw[0] : 0;
		v->n++;
	}
}

static void keep_whole(const struct t32_ring_sample *s, void *ctx)
{
	*(struct t32_ring_sample *)ctx = *s;
}

/* Append a sample record at *pos. */
static void put_sample(uint64_t *pos, uint64_t type, uint64_t ip, uint32_t tid,
		       const unsigned char *raw, uint32_t raw_size)
{
	unsigned char buf[1024];
	struct t32_ring_sample s = { .ip = ip, .pid = 7, .tid = tid, .time = 1000 + ip,
				     .raw = raw, .raw_size = raw_size };
	size_t n = t32_ring_encode_sample(buf, type, &s);

	ring_put(*pos, buf, n);
	*pos += n;
}

/* Append a PERF_RECORD_LOST of `lost` samples at *pos. */
static void put_lost(uint64_t *pos, uint64_t lost)
{
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
	} r = { { PERF_RECORD_LOST, 0, sizeof(r) }, 1, lost };

	ring_put(*pos, &r, sizeof(r));
	*pos += sizeof(r);
}

int main(void)
{
	const uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	struct t32_ring_stats st;
	struct seen v;
	uint64_t start, pos, tail;

	plan(23);

	is_int(32, (long long)t32_ring_sample_size(type, 0), "ip+tid+time sample is 32 bytes");
	is_int(8 + 8 + 16, (long long)t32_ring_sample_size(PERF_SAMPLE_IP | PERF_SAMPLE_RAW, 12),
	       "raw of 12 bytes pads to 16 with its size word");

	/* Start 3 * RING bytes in (positions are free-running) and 20 bytes before the end. */
	start = 3 * RING + RING - 20;
	pos = start;
	put_sample(&pos, type, 0x1000, 11, NULL, 0);	/* wraps: 20 bytes, then 12 */
	put_lost(&pos, 5);
	put_sample(&pos, type, 0x1004, 11, NULL, 0);
	{
		struct perf_event_header comm = { PERF_RECORD_COMM, 0, 16 };
		unsigned char pad[8] = { 0 };

		ring_put(pos, &comm, sizeof(comm));
		ring_put(pos + 8, pad, 8);
		pos += 16;
	}
	put_lost(&pos, 2);
	put_sample(&pos, type, 0x1008, 12, NULL, 0);

	memset(&st, 0, sizeof(st));
	memset(&v, 0, sizeof(v));
	tail = t32_ring_parse(ring, RING, start, pos, type, collect, &v, &st);
	is_int((long long)pos, (long long)tail, "tail reaches head");
	is_int(3, (long long)st.samples, "three samples");
	is_int(3, (long long)v.n, "callback saw three");
	is_int(0x1000, (long long)v.ip[0], "the wrapped record decodes");
	is_int(11, v.tid[0], "its tid decodes");
	is_int(0x1004, (long long)v.ip[1], "second ip");
	is_int(0x1008, (long long)v.ip[2], "third ip");
	is_int(12, v.tid[2], "third tid");
	is_int(7, (long long)st.lost, "lost samples summed over the LOST records");
	is_int(2, (long long)st.lost_records, "two LOST records");
	is_int(1, (long long)st.other, "the COMM record skipped");
	is_int(0, (long long)st.bad, "nothing malformed");

	/* A raw payload that wraps. */
	{
		unsigned char raw[20];
		const uint64_t rtype = PERF_SAMPLE_IP | PERF_SAMPLE_RAW;

		for (int i = 0; i < 20; i++)
			raw[i] = (unsigned char)(0xa0 + i);
		start = 5 * RING - 12;
		pos = start;
		put_sample(&pos, rtype, 0x2000, 0, raw, sizeof(raw));
		memset(&st, 0, sizeof(st));
		memset(&v, 0, sizeof(v));
		tail = t32_ring_parse(ring, RING, start, pos, rtype, collect, &v, &st);
		is_int(1, (long long)v.n, "raw sample read");
		is_int(0x2000, (long long)v.ip[0], "raw sample's ip");
		ok(v.raw_size[0] >= 20 && v.raw_size[0] % 8 == 4, "raw size %u keeps the payload",
		   v.raw_size[0]);
		is_int(0xa0, v.raw0[0], "raw payload's first byte");
	}

	/* A record claiming more than is there stops the pass at its start. */
	{
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 64 };

		start = pos = 0;
		put_sample(&pos, type, 0x3000, 1, NULL, 0);
		ring_put(pos, &h, sizeof(h));
		memset(&st, 0, sizeof(st));
		memset(&v, 0, sizeof(v));
		tail = t32_ring_parse(ring, RING, start, pos + 16, type, collect, &v, &st);
		is_int((long long)pos, (long long)tail, "tail stops before the truncated record");
		is_int(1, (long long)st.bad, "truncated record counted as bad");
		is_int(1, (long long)v.n, "the good record before it was read");
	}

	/* Every word, each with its own value, back in its own field. */
	{
		const uint64_t all = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
				     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
		struct t32_ring_sample w = { .ip = 0x4001, .pid = 17, .tid = 19, .time = 23,
					     .addr = 0x29000, .id = 31, .stream_id = 37,
					     .cpu = 41, .period = 43 }, r;
		unsigned char buf[256];
		size_t n = t32_ring_encode_sample(buf, all, &w);

		start = pos = 0;
		ring_put(pos, buf, n);
		pos += n;
		memset(&st, 0, sizeof(st));
		memset(&r, 0, sizeof(r));
		t32_ring_parse(ring, RING, start, pos, all, keep_whole, &r, &st);
		ok(n == 8 + 9 * 8 && st.samples == 1 && r.ip == w.ip && r.pid == w.pid &&
		   r.tid == w.tid && r.time == w.time && r.addr == w.addr && r.id == w.id &&
		   r.stream_id == w.stream_id && r.cpu == w.cpu && r.period == w.period,
		   "all nine words read back where they were written (%zu bytes, ip %#llx pid %u "
		   "tid %u time %llu addr %#llx id %llu stream %llu cpu %u period %llu)", n,
		   (unsigned long long)r.ip, r.pid, r.tid, (unsigned long long)r.time,
		   (unsigned long long)r.addr, (unsigned long long)r.id,
		   (unsigned long long)r.stream_id, r.cpu, (unsigned long long)r.period);
	}

	/* Empty ring. */
	memset(&st, 0, sizeof(st));
	tail = t32_ring_parse(ring, RING, 100, 100, type, collect, &v, &st);
	is_int(100, (long long)tail, "empty ring: tail unchanged");
	return done_testing();
}
