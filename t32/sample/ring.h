/*
 * ring.h - reading the records a perf_event ring buffer holds, as a pure function
 * over memory: the data area, its size, and the tail (where the reader is) and head
 * (where the kernel has written up to).  Records that wrap around the end of the
 * data area are copied out whole; PERF_RECORD_LOST records are counted.  The
 * sampler feeds it the live mmap'd ring; the tests feed it synthetic buffers.
 */
#ifndef T32_RING_H
#define T32_RING_H

#include <stddef.h>
#include <stdint.h>

/* The sample_type bits t32_ring_parse understands, in record order. */
#define T32_RING_SAMPLE_TYPES \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

/* One PERF_RECORD_SAMPLE, decoded; fields absent from sample_type are 0. */
struct t32_ring_sample {
	uint64_t ip;		/* user-space instruction pointer */
	uint32_t pid, tid;
	uint64_t time;		/* perf clock, ns */
	uint64_t addr;
	uint64_t id, stream_id;
	uint32_t cpu;
	uint64_t period;	/* events (ns for the clock events) per sample */
	const unsigned char *raw;	/* PERF_SAMPLE_RAW payload, valid during the callback */
	uint32_t raw_size;	/* bytes */
	uint16_t misc;		/* header misc: PERF_RECORD_MISC_USER, _EXACT_IP... */
};

/* What one pass over the ring saw. */
struct t32_ring_stats {
	uint64_t records;	/* records of any type read */
	uint64_t samples;	/* PERF_RECORD_SAMPLE records handed to the callback */
	uint64_t lost;		/* samples the kernel dropped (sum of PERF_RECORD_LOST.lost) */
	uint64_t lost_records;	/* PERF_RECORD_LOST records */
	uint64_t other;		/* records of other types, skipped */
	uint64_t bad;		/* malformed records (size too small or past head): pass ends */
};

typedef void (*t32_ring_fn)(const struct t32_ring_sample *s, void *ctx);

/*
 * Read the records in [tail, head) of a ring whose data area is `data` of `size`
 * bytes (a power of two; positions are free-running byte counters as in
 * perf_event_mmap_page).  Each sample is decoded per sample_type and handed to fn.
 * Adds to *st (which the caller zeroes).  Returns the new tail: head, or the start
 * of a malformed record.
 */
uint64_t t32_ring_parse(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
			uint64_t sample_type, t32_ring_fn fn, void *ctx, struct t32_ring_stats *st);

/* Bytes a PERF_RECORD_SAMPLE has for sample_type (raw payload of raw_size bytes). */
size_t t32_ring_sample_size(uint64_t sample_type, uint32_t raw_size);

/*
 * Encode s as a PERF_RECORD_SAMPLE for sample_type into buf (at least
 * t32_ring_sample_size bytes); returns its size.  The tests build synthetic rings
 * with it; it is the inverse of the decoder.
 */
size_t t32_ring_encode_sample(unsigned char *buf, uint64_t sample_type,
			      const struct t32_ring_sample *s);

#endif
