/*
 * ring.c - decoding perf_event ring buffer records (see ring.h).
 */
#include <linux/perf_event.h>
#include <stddef.h>
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

/*
 * The 8-byte words of a sample record, in the order perf writes those whose bit
 * is in sample_type; at: where the word goes in struct t32_ring_sample (TID and
 * CPU are split in two, and go by hand).
 */
#define AT(field) offsetof(struct t32_ring_sample, field)
static const struct {
	uint64_t bit;
	size_t at;
} sample_words[] = {
	{ PERF_SAMPLE_IDENTIFIER, AT(id) },
	{ PERF_SAMPLE_IP, AT(ip) },
	{ PERF_SAMPLE_TID, 0 },
	{ PERF_SAMPLE_TIME, AT(time) },
	{ PERF_SAMPLE_ADDR, AT(addr) },
	{ PERF_SAMPLE_ID, AT(id) },
	{ PERF_SAMPLE_STREAM_ID, AT(stream_id) },
	{ PERF_SAMPLE_CPU, 0 },
	{ PERF_SAMPLE_PERIOD, AT(period) },
};
#undef AT
#define NWORDS (sizeof(sample_words) / sizeof(sample_words[0]))

/* Word i of sample_words as s holds it. */
static uint64_t sample_word(const struct t32_ring_sample *s, size_t i)
{
	uint64_t v;

	if (sample_words[i].bit == PERF_SAMPLE_TID)
		return (uint64_t)s->tid << 32 | s->pid;
	if (sample_words[i].bit == PERF_SAMPLE_CPU)
		return s->cpu;
	memcpy(&v, (const unsigned char *)s + sample_words[i].at, sizeof(v));
	return v;
}

/* Decode the body of a PERF_RECORD_SAMPLE (after its header); -1 if it is too short. */
static int decode_sample(const unsigned char *p, const unsigned char *end, uint64_t type,
			 struct t32_ring_sample *s)
{
	for (size_t i = 0; i < NWORDS; i++) {
		uint64_t bit = sample_words[i].bit, v;

		if (!(type & bit))
			continue;
		if (take_u64(&p, end, &v))
			return -1;
		if (bit == PERF_SAMPLE_TID) {
			s->pid = (uint32_t)v;
			s->tid = (uint32_t)(v >> 32);
		} else if (bit == PERF_SAMPLE_CPU) {
			s->cpu = (uint32_t)v;	/* the upper half is reserved */
		} else {
			memcpy((unsigned char *)s + sample_words[i].at, &v, sizeof(v));
		}
	}
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
	size_t n = sizeof(struct perf_event_header);

	for (size_t i = 0; i < NWORDS; i++)
		if (type & sample_words[i].bit)
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
	for (size_t i = 0; i < NWORDS; i++)
		if (type & sample_words[i].bit)
			put_u64(&p, sample_word(s, i));
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
