/*
 * 4002-ibs: the IBS op sample decoder on synthetic raw records: the
 * registers' fields at their documented bits, the optional registers
 * following the capability bits, and a record too short to decode.  Then the
 * precise backend's path from a perf ring of raw IBS records to samples, over a
 * fake mmap'd ring: the op's own address and cycles kept, a record with an
 * invalid RIP falling back to the interrupted IP.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ibs.h"
#include "t/tap.h"
#include "t32/sample/ring.h"
#include "t32/sample/sample.h"

/* Drain a fake ring holding two IBS op records through the sampler's perf path. */
static void ring_of_ibs(void)
{
	const uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	unsigned char *mem = aligned_alloc(4096, 2 * 4096), raw[4 + 7 * 8];
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)mem;
	struct t32_sample out[4];
	struct t32_sampler s;
	uint64_t regs[7] = { 0 }, pos = 0;
	struct t32_ring_sample r = { .pid = 1, .tid = 1, .raw = raw };

	memset(mem, 0, 2 * 4096);
	pg->data_offset = 4096;
	pg->data_size = 4096;
	regs[T32_IBS_OP_CTL] = 1ull << 17 | 1ull << 18;
	regs[T32_IBS_OP_RIP] = 0x401003;
	regs[T32_IBS_OP_DATA] = 2ull | 9ull << 16;
	r.ip = 0x401010;	/* where the interrupt landed, later than the op */
	r.raw_size = (uint32_t)t32_ibs_encode_raw(raw, T32_IBS_CAPS_AVAIL, regs, 7);
	pos += t32_ring_encode_sample(mem + 4096 + pos, type, &r);
	regs[T32_IBS_OP_DATA] = 1ull << 38;	/* RIP invalid */
	t32_ibs_encode_raw(raw, T32_IBS_CAPS_AVAIL, regs, 7);
	r.ip = 0x401020;
	pos += t32_ring_encode_sample(mem + 4096 + pos, type, &r);
	pg->data_head = pos;

	memset(&s, 0, sizeof(s));
	s.fd = -1;
	s.ring = mem;
	s.sample_type = type;
	s.raw_ibs = 1;
	s.o.buf = out;
	s.o.capacity = 4;
	t32_sampler_drain_perf(&s);
	is_int(2, (long long)s.n, "ring of IBS records: two samples");
	is_int(0x401003, (long long)out[0].ip, "the op's own address, not the interrupted IP");
	ok(out[0].tag_to_ret == 9 && out[0].comp_to_ret == 2, "its cycles kept");
	ok((out[0].flags & (T32_SAMPLE_EXACT | T32_SAMPLE_CYCLES)) ==
	   (T32_SAMPLE_EXACT | T32_SAMPLE_CYCLES), "marked exact, with cycles");
	ok(out[1].ip == 0x401020 && !(out[1].flags & T32_SAMPLE_CYCLES),
	   "invalid RIP: the interrupted IP, no cycles");
	is_int((long long)pos, (long long)pg->data_tail, "data_tail released up to data_head");
	s.ring = NULL;
	free(mem);
}

int main(void)
{
	unsigned char raw[4 + 9 * 8 + 4];
	uint64_t regs[9] = { 0 };
	struct t32_ibs_op op;
	size_t n;

	plan(36);

	/* IbsOpCtl: MaxCnt 0x1234 (period 0x12340), ext 0x05, en, val, cnt_ctl, CurCnt 77. */
	regs[T32_IBS_OP_CTL] = 0x1234ull | 1ull << 17 | 1ull << 18 | 1ull << 19 |
			       0x05ull << 20 | 77ull << 32;
	regs[T32_IBS_OP_RIP] = 0x7f0000401005ull;
	/* IbsOpData: comp-to-ret 3, tag-to-ret 41, return, taken, mispredicted, branch. */
	regs[T32_IBS_OP_DATA] = 3ull | 41ull << 16 | 1ull << 34 | 1ull << 35 | 1ull << 36 |
				1ull << 37;
	regs[T32_IBS_OP_DATA2] = 0x2ull | 1ull << 4 | 1ull << 5 | 0x1ull << 6;
	/* IbsOpData3: load, dc miss, locked, lin addr valid, width 8 bytes (4), lat 200. */
	regs[T32_IBS_OP_DATA3] = 1ull | 1ull << 7 | 1ull << 15 | 1ull << 17 | 4ull << 22 |
				 200ull << 32 | 9ull << 48;
	regs[T32_IBS_DC_LIN_AD] = 0x7ffd0000a000ull;
	regs[T32_IBS_DC_PHYS_AD] = 0x123456000ull;
	regs[7] = 0x401020;	/* IbsBrTarget */
	regs[8] = 0xabcd;	/* IbsOpData4 */

	n = t32_ibs_encode_raw(raw, T32_IBS_CAPS_AVAIL | T32_IBS_CAPS_OPSAM | T32_IBS_CAPS_OPCNTEXT |
				    T32_IBS_CAPS_BRNTRGT | T32_IBS_CAPS_OPDATA4, regs, 9);
	memset(raw + n, 0, 4);	/* padding as the kernel leaves it */
	is_int(0, t32_ibs_decode_op(raw, n + 4, &op), "full record decodes");
	is_int(0x12340 | 0x05 << 20, (long long)op.max_cnt, "max count with its extension");
	is_int(77, (long long)op.cur_cnt, "current count");
	ok(op.enabled && op.valid && op.count_ops, "enabled, valid, counting ops");
	is_int(0, op.l3_miss_only, "not L3-miss-only");
	is_int(0x7f0000401005ll, (long long)op.rip, "IbsOpRip");
	is_int(3, op.comp_to_ret, "completion-to-retire cycles");
	is_int(41, op.tag_to_ret, "tag-to-retire cycles");
	ok(op.ret && op.brn_taken && op.brn_misp && op.brn_ret, "branch flags");
	is_int(0, op.rip_invalid, "rip valid");
	is_int(0, op.brn_fuse, "not fused");
	is_int(2 | 1 << 3, op.data_src, "data source lo and hi bits");
	ok(op.rmt_node && op.cache_hit_st, "remote node, cache hit state");
	ok(op.ld_op && !op.st_op, "a load, not a store");
	ok(op.dc_miss && op.dc_locked_op, "dc miss, locked");
	is_int(1, op.dc_lin_addr_valid, "linear address valid");
	is_int(0, op.dc_phy_addr_valid, "physical address not valid");
	is_int(8, op.op_mem_width, "8-byte access");
	is_int(200, op.dc_miss_lat, "dc miss latency");
	is_int(9, op.tlb_refill_lat, "tlb refill latency");
	is_int(0x7ffd0000a000ll, (long long)op.dc_lin_addr, "IbsDcLinAd");
	ok(op.has_br_target && op.br_target == 0x401020, "IbsBrTarget after the seven");
	ok(op.has_data4 && op.data4 == 0xabcd, "IbsOpData4 after IbsBrTarget");

	/* Without OPCNTEXT the extension bits do not count; without BRNTRGT, OpData4 is 8th. */
	regs[T32_IBS_OP_DATA] = 1ull << 38 | 0xffffull << 16;
	regs[7] = 0x5555;
	n = t32_ibs_encode_raw(raw, T32_IBS_CAPS_AVAIL | T32_IBS_CAPS_OPDATA4, regs, 8);
	is_int(0, t32_ibs_decode_op(raw, n, &op), "record without branch target decodes");
	is_int(0x12340, (long long)op.max_cnt, "no extension without OPCNTEXT");
	is_int(1, op.rip_invalid, "rip invalid flag");
	is_int(0xffff, op.tag_to_ret, "tag-to-retire saturates at 16 bits");
	ok(!op.has_br_target && op.has_data4 && op.data4 == 0x5555, "OpData4 in 8th place");

	/* Only the three registers perf reads without PERF_SAMPLE_RAW's full set. */
	n = t32_ibs_encode_raw(raw, 0, regs, 3);
	is_int(0, t32_ibs_decode_op(raw, n, &op), "three registers are enough");
	n = t32_ibs_encode_raw(raw, 0, regs, 2);
	is_int(-1, t32_ibs_decode_op(raw, n, &op), "two registers are too few");

	ring_of_ibs();
	return done_testing();
}
