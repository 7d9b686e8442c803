/*
 * ring.c - decoding perf_event ring buffer records (see ring.h).
 */
#include <linux/perf_event.h>
#include <string.h>

#include "t32/sample/ring.h"

/* Largest record: header.size is 16 bits. */
#define RECORD_MAX 65536

/* Copy len bytes at free-running position pos of the ring into out, wrapping. */
static void ring_copy(const unsigned char *data, uint64_t size, uint64_t pos, void *out,
		      size_t len)
{
	uint64_t off = pos & (size - 1);
	size_t first = size - off < len ? (size_t)(size - off) : len;

	memcpy(out, data + off, first);
	memcpy((unsigned char *)out + first, data, len - first);
}

/* Read a u64 at *p and advance; 0 when the record is too short. */
static int take_u64(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	if (end - *p < 8)
		return -1;
	memcpy(v, *p, 8);
	*p += 8;
	return 0;
}

/* Decode the body of a PERF_RECORD_SAMPLE (after its header); -1 if it is too short. */
static int decode_sample(const unsigned char *p, const unsigned char *end, uint64_t type,
			 struct t32_ring_sample *s)
{
	uint64_t v;

	if ((type & PERF_SAMPLE_IDENTIFIER) && take_u64(&p, end, &s->id))
		return -1;
	if ((type & PERF_SAMPLE_IP) && take_u64(&p, end, &s->ip))
		return -1;
	if (type & PERF_SAMPLE_TID) {
		if (take_u64(&p, end, &v))
			return -1;
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if ((type & PERF_SAMPLE_TIME) && take_u64(&p, end, &s->time))
		return -1;
	if ((type & PERF_SAMPLE_ADDR) && take_u64(&p, end, &s->addr))
		return -1;
	if ((type & PERF_SAMPLE_ID) && take_u64(&p, end, &s->id))
		return -1;
	if ((type & PERF_SAMPLE_STREAM_ID) && take_u64(&p, end, &s->stream_id))
		return -1;
	if (type & PERF_SAMPLE_CPU) {
		if (take_u64(&p, end, &v))
			return -1;
		s->cpu = (uint32_t)v;
	}
	if ((type & PERF_SAMPLE_PERIOD) && take_u64(&p, end, &s->period))
		return -1;
	if (type & PERF_SAMPLE_RAW) {
		uint32_t n;

		if (end - p < 4)
			return -1;
		memcpy(&n, p, 4);
		p += 4;
		if ((uint64_t)(end - p) < n)
			return -1;
		s->raw = p;
		s->raw_size = n;
	}
	return 0;
}

uint64_t t32_ring_parse(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
			uint64_t sample_type, t32_ring_fn fn, void *ctx, struct t32_ring_stats *st)
{
	static _Thread_local unsigned char rec[RECORD_MAX];

	while (tail < head) {
		struct perf_event_header h;
		struct t32_ring_sample s;

		if (head - tail < sizeof(h)) {
			st->bad++;
			break;
		}
		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail || h.size > size) {
			st->bad++;
			break;
		}
		ring_copy(data, size, tail, rec, h.size);
		st->records++;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			memset(&s, 0, sizeof(s));
			s.misc = h.misc;
			if (decode_sample(rec + sizeof(h), rec + h.size, sample_type, &s)) {
				st->bad++;
				break;
			}
			st->samples++;
			if (fn)
				fn(&s, ctx);
			break;
		case PERF_RECORD_LOST: {
			/* struct { header; u64 id; u64 lost; } */
			uint64_t lost;

			if (h.size < sizeof(h) + 16) {
				st->bad++;
				break;
			}
			memcpy(&lost, rec + sizeof(h) + 8, 8);
			st->lost += lost;
			st->lost_records++;
			break;
		}
		default:
			st->other++;
			break;
		}
		tail += h.size;
	}
	return tail;
}

size_t t32_ring_sample_size(uint64_t type, uint32_t raw_size)
{
	static const uint64_t u64_fields[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
		PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
		PERF_SAMPLE_PERIOD,
	};
	size_t n = sizeof(struct perf_event_header);

	for (size_t i = 0; i < sizeof(u64_fields) / sizeof(u64_fields[0]); i++)
		if (type & u64_fields[i])
			n += 8;
	if (type & PERF_SAMPLE_RAW)
		n += (4 + (size_t)raw_size + 7) & ~(size_t)7;
	return n;
}

/* Append a u64 at *p. */
static void put_u64(unsigned char **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

size_t t32_ring_encode_sample(unsigned char *buf, uint64_t type, const struct t32_ring_sample *s)
{
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE,
		.misc = s->misc,
		.size = (uint16_t)t32_ring_sample_size(type, s->raw_size),
	};
	unsigned char *p = buf + sizeof(h);

	memcpy(buf, &h, sizeof(h));
	if (type & PERF_SAMPLE_IDENTIFIER)
		put_u64(&p, s->id);
	if (type & PERF_SAMPLE_IP)
		put_u64(&p, s->ip);
	if (type & PERF_SAMPLE_TID)
		put_u64(&p, (uint64_t)s->tid << 32 | s->pid);
	if (type & PERF_SAMPLE_TIME)
		put_u64(&p, s->time);
	if (type & PERF_SAMPLE_ADDR)
		put_u64(&p, s->addr);
	if (type & PERF_SAMPLE_ID)
		put_u64(&p, s->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		put_u64(&p, s->stream_id);
	if (type & PERF_SAMPLE_CPU)
		put_u64(&p, s->cpu);
	if (type & PERF_SAMPLE_PERIOD)
		put_u64(&p, s->period);
	if (type & PERF_SAMPLE_RAW) {
		size_t padded = ((4 + (size_t)s->raw_size + 7) & ~(size_t)7) - 4;
		uint32_t n = (uint32_t)padded;

		memcpy(p, &n, 4);
		memset(p + 4, 0, padded);
		if (s->raw_size)
			memcpy(p + 4, s->raw, s->raw_size);
		p += 4 + padded;
	}
	return (size_t)(p - buf);
}
