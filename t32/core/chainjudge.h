/*
 * chainjudge.h - is a latency row a latency?  A dependency chain through an
 * executed instruction takes at least a cycle per link, and no chain runs faster
 * than independent copies of the same form; a "latency" below either carries no
 * dependency (a zero idiom, a move the renamer eliminates, an operation folded at
 * rename) and is the rate of the chain's instructions, not a latency.  The sweep
 * judges each latency row against its throughput row as it measures them, and
 * `t32 table check` judges a sweep already written, row by row.
 */
#ifndef T32_CHAINJUDGE_H
#define T32_CHAINJUDGE_H

#include <stddef.h>

/*
 * Below this many core cycles per instruction (the whole interval below it), no
 * dependency was carried.
 */
#define T32_CHAIN_FLOOR_CYCLES 0.9
/*
 * A latency below its throughput by more than both intervals and this share of
 * the throughput is below it: two rows of one chain (a form whose copies share a
 * register) differ by their own noise and the core clock between them.
 */
#define T32_CHAIN_TP_MARGIN 0.03

/* One row's reading: the value and its interval. */
struct t32_rate {
	int have;		/* measured and trusted (status ok) */
	double value, lo, hi;	/* per instruction, the row's unit */
};

enum t32_chain_verdict {
	T32_CHAIN_OK,		/* a latency, as far as the rows can tell */
	T32_CHAIN_BELOW_FLOOR,	/* wholly under T32_CHAIN_FLOOR_CYCLES (unit cycles only) */
	T32_CHAIN_BELOW_TP,	/* under its own throughput */
};

/* The status word of a latency row that carried no dependency. */
#define T32_CHAIN_STATUS "nochain"

/*
 * Judge latency reading lat of the chain insn (NULL if unknown; it names what
 * the chain probably is) against throughput tp of the same form and n (tp->have
 * 0: none to judge against).  cycles: the unit is core cycles, so the floor
 * applies.  A verdict other than OK writes into reason why, keeping the measured
 * rate: "no dependency carried (an eliminated move): 0.1347 cycles per
 * instruction is the rate of its instructions, below 0.9 cycles".
 */
enum t32_chain_verdict t32_chain_judge(const char *insn, int cycles, const struct t32_rate *lat,
				       const struct t32_rate *tp, char *reason, size_t len);

#endif
