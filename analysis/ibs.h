/*
 * ibs.h - decoding AMD Instruction-Based Sampling op samples.  The kernel's ibs_op
 * PMU hands each sample over as PERF_SAMPLE_RAW: a u32 of IBS capabilities
 * (CPUID 8000_001B EAX) followed by the op MSRs as u64 in this order:
 * IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2, IbsOpData3, IbsDcLinAd, IbsDcPhysAd,
 * then IbsBrTarget when the BRNTRGT capability is set and IbsOpData4 when OPDATA4
 * is.  IBS tags one op, follows it to retirement and reports its own instruction
 * (no skid) with the cycles from tagging, and from completion, to retirement.
 */
#ifndef T32_IBS_H
#define T32_IBS_H

#include <stddef.h>
#include <stdint.h>

/* IBS capability bits (the u32 in front of the raw registers). */
enum {
	T32_IBS_CAPS_AVAIL = 1u << 0,
	T32_IBS_CAPS_FETCHSAM = 1u << 1,
	T32_IBS_CAPS_OPSAM = 1u << 2,
	T32_IBS_CAPS_RDWROPCNT = 1u << 3,
	T32_IBS_CAPS_OPCNT = 1u << 4,
	T32_IBS_CAPS_BRNTRGT = 1u << 5,
	T32_IBS_CAPS_OPCNTEXT = 1u << 6,
	T32_IBS_CAPS_RIPINVALIDCHK = 1u << 7,
	T32_IBS_CAPS_OPBRNFUSE = 1u << 8,
	T32_IBS_CAPS_FETCHCTLEXTD = 1u << 9,
	T32_IBS_CAPS_OPDATA4 = 1u << 10,
};

/* Bits of the IbsOpCtl MSR (C001_1033) a perf config carries. */
#define T32_IBS_OPCTL_CNT_CTL (1ull << 19)	/* count dispatched ops, not cycles */

/* One decoded op sample. */
struct t32_ibs_op {
	uint32_t caps;		/* T32_IBS_CAPS_* */
	/* IbsOpCtl */
	uint64_t max_cnt;	/* sampling period, ops or cycles (MaxCnt << 4, with the extension) */
	uint64_t cur_cnt;	/* IbsOpCurCnt */
	unsigned enabled:1, valid:1, count_ops:1, l3_miss_only:1;
	/* IbsOpRip */
	uint64_t rip;		/* linear address of the tagged op's instruction */
	/* IbsOpData */
	uint16_t comp_to_ret;	/* core cycles from the op's completion to its retirement */
	uint16_t tag_to_ret;	/* core cycles from tagging to retirement */
	unsigned ret:1, brn_taken:1, brn_misp:1, brn_ret:1, rip_invalid:1, brn_fuse:1,
		microcode:1;
	/* IbsOpData2 */
	unsigned data_src:5;	/* northbridge data source (lo 3 bits | hi 2 bits << 3) */
	unsigned rmt_node:1, cache_hit_st:1;
	/* IbsOpData3 */
	unsigned ld_op:1, st_op:1, dc_l1tlb_miss:1, dc_l2tlb_miss:1, dc_miss:1, dc_mis_acc:1,
		dc_locked_op:1, dc_uc_mem_acc:1, dc_wc_mem_acc:1, dc_lin_addr_valid:1,
		dc_phy_addr_valid:1, l2_miss:1, sw_pf:1;
	unsigned op_mem_width;	/* bytes loaded or stored (0: unknown) */
	uint16_t dc_miss_lat;	/* core cycles of a data cache miss */
	uint16_t tlb_refill_lat;	/* core cycles of an L1 TLB refill */
	/* the rest */
	uint64_t dc_lin_addr;	/* IbsDcLinAd, when dc_lin_addr_valid */
	uint64_t dc_phys_addr;	/* IbsDcPhysAd, when dc_phy_addr_valid */
	uint64_t br_target;	/* IbsBrTarget, when present (caps BRNTRGT) */
	int has_br_target;
	uint64_t data4;		/* IbsOpData4, when present (caps OPDATA4) */
	int has_data4;
};

/* Registers of a raw op sample, in the order the kernel writes them. */
enum t32_ibs_reg {
	T32_IBS_OP_CTL, T32_IBS_OP_RIP, T32_IBS_OP_DATA, T32_IBS_OP_DATA2, T32_IBS_OP_DATA3,
	T32_IBS_DC_LIN_AD, T32_IBS_DC_PHYS_AD, T32_IBS_OP_NREGS
};

/*
 * Decode a PERF_SAMPLE_RAW payload of raw_size bytes (caps word and registers;
 * trailing padding allowed).  Returns 0, or -1 when it is too short to hold
 * IbsOpCtl, IbsOpRip and IbsOpData.  Registers that are missing read as 0.
 */
int t32_ibs_decode_op(const unsigned char *raw, size_t raw_size, struct t32_ibs_op *op);

/* Build a raw payload from caps and regs (nregs u64): the tests' synthetic samples. */
size_t t32_ibs_encode_raw(unsigned char *buf, uint32_t caps, const uint64_t *regs, size_t nregs);

#endif
