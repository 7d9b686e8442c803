/*
 * ibs.c - AMD IBS op sample decoding (see ibs.h).  Bit positions follow the AMD
 * Processor Programming Reference for families 17h-1Ah (IbsOpCtl C001_1033,
 * IbsOpRip C001_1034, IbsOpData C001_1035, IbsOpData2 C001_1036, IbsOpData3
 * C001_1037, IbsDcLinAd C001_1038, IbsDcPhysAd C001_1039, IbsBrTarget C001_103B,
 * IbsOpData4 C001_103D).
 */
#include <string.h>

#include "analysis/ibs.h"

/* Bits lo..hi (inclusive) of v. */
static uint64_t bits(uint64_t v, unsigned lo, unsigned hi)
{
	unsigned n = hi - lo + 1;

	return n >= 64 ? v >> lo : (v >> lo) & ((1ull << n) - 1);
}

int t32_ibs_decode_op(const unsigned char *raw, size_t raw_size, struct t32_ibs_op *op)
{
	uint64_t r[T32_IBS_OP_NREGS + 2] = { 0 };
	size_t nregs, extra;

	memset(op, 0, sizeof(*op));
	if (raw_size < 4 + 3 * 8)
		return -1;
	memcpy(&op->caps, raw, 4);
	nregs = (raw_size - 4) / 8;
	if (nregs > T32_IBS_OP_NREGS + 2)
		nregs = T32_IBS_OP_NREGS + 2;
	memcpy(r, raw + 4, nregs * 8);

	/* IbsOpCtl: MaxCnt[19:4] in 15:0, MaxCnt[26:20] in 26:20, CurCnt in 58:32. */
	op->max_cnt = bits(r[T32_IBS_OP_CTL], 0, 15) << 4;
	if (op->caps & T32_IBS_CAPS_OPCNTEXT)
		op->max_cnt |= bits(r[T32_IBS_OP_CTL], 20, 26) << 20;
	op->l3_miss_only = bits(r[T32_IBS_OP_CTL], 16, 16);
	op->enabled = bits(r[T32_IBS_OP_CTL], 17, 17);
	op->valid = bits(r[T32_IBS_OP_CTL], 18, 18);
	op->count_ops = bits(r[T32_IBS_OP_CTL], 19, 19);
	op->cur_cnt = bits(r[T32_IBS_OP_CTL], 32, 58);

	op->rip = r[T32_IBS_OP_RIP];

	/* IbsOpData */
	op->comp_to_ret = (uint16_t)bits(r[T32_IBS_OP_DATA], 0, 15);
	op->tag_to_ret = (uint16_t)bits(r[T32_IBS_OP_DATA], 16, 31);
	op->ret = bits(r[T32_IBS_OP_DATA], 34, 34);
	op->brn_taken = bits(r[T32_IBS_OP_DATA], 35, 35);
	op->brn_misp = bits(r[T32_IBS_OP_DATA], 36, 36);
	op->brn_ret = bits(r[T32_IBS_OP_DATA], 37, 37);
	op->rip_invalid = bits(r[T32_IBS_OP_DATA], 38, 38);
	op->brn_fuse = bits(r[T32_IBS_OP_DATA], 39, 39);
	op->microcode = bits(r[T32_IBS_OP_DATA], 40, 40);

	/* IbsOpData2: data source lo 2:0, remote node 4, cache hit state 5, hi 7:6. */
	op->data_src = (unsigned)(bits(r[T32_IBS_OP_DATA2], 0, 2) |
				  bits(r[T32_IBS_OP_DATA2], 6, 7) << 3);
	op->rmt_node = bits(r[T32_IBS_OP_DATA2], 4, 4);
	op->cache_hit_st = bits(r[T32_IBS_OP_DATA2], 5, 5);

	/* IbsOpData3 */
	{
		uint64_t d = r[T32_IBS_OP_DATA3];

		op->ld_op = bits(d, 0, 0);
		op->st_op = bits(d, 1, 1);
		op->dc_l1tlb_miss = bits(d, 2, 2);
		op->dc_l2tlb_miss = bits(d, 3, 3);
		op->dc_miss = bits(d, 7, 7);
		op->dc_mis_acc = bits(d, 8, 8);
		op->dc_wc_mem_acc = bits(d, 13, 13);
		op->dc_uc_mem_acc = bits(d, 14, 14);
		op->dc_locked_op = bits(d, 15, 15);
		op->dc_lin_addr_valid = bits(d, 17, 17);
		op->dc_phy_addr_valid = bits(d, 18, 18);
		op->l2_miss = bits(d, 20, 20);
		op->sw_pf = bits(d, 21, 21);
		op->op_mem_width = bits(d, 22, 25) ? 1u << (bits(d, 22, 25) - 1) : 0;
		op->dc_miss_lat = (uint16_t)bits(d, 32, 47);
		op->tlb_refill_lat = (uint16_t)bits(d, 48, 63);
	}
	op->dc_lin_addr = r[T32_IBS_DC_LIN_AD];
	op->dc_phys_addr = bits(r[T32_IBS_DC_PHYS_AD], 0, 51);

	/* The optional registers follow in a fixed order when their capability is set. */
	extra = T32_IBS_OP_NREGS;
	if ((op->caps & T32_IBS_CAPS_BRNTRGT) && nregs > extra) {
		op->br_target = r[extra++];
		op->has_br_target = 1;
	}
	if ((op->caps & T32_IBS_CAPS_OPDATA4) && nregs > extra) {
		op->data4 = r[extra++];
		op->has_data4 = 1;
	}
	return 0;
}

size_t t32_ibs_encode_raw(unsigned char *buf, uint32_t caps, const uint64_t *regs, size_t nregs)
{
	memcpy(buf, &caps, 4);
	if (nregs)
		memcpy(buf + 4, regs, nregs * 8);
	return 4 + nregs * 8;
}
