/*
 * chainjudge.c - a latency row judged against the cycle floor and its own
 * throughput row (chainjudge.h).
 */
#include "t32/core/chainjudge.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* What a chain that carried nothing probably was, from its first mnemonic. */
static const struct {
	const char *mn;
	int prefix;
	const char *what;
} kinds[] = {
	{ "mov", 1, "an eliminated move" }, { "vmov", 1, "an eliminated move" },
	{ "lea", 0, "an eliminated move" }, { "xchg", 0, "an exchange done by renaming" },
	{ "xor", 0, "a zero idiom" }, { "sub", 0, "a zero idiom or an operation folded at rename" },
	{ "pxor", 0, "a zero idiom" }, { "xorp", 1, "a zero idiom" }, { "vxorp", 1, "a zero idiom" },
	{ "vpxor", 1, "a zero idiom" }, { "pandn", 0, "a zero idiom" }, { "andnp", 1, "a zero idiom" },
	{ "vandnp", 1, "a zero idiom" }, { "vpandn", 1, "a zero idiom" }, { "psub", 1, "a zero idiom" },
	{ "vpsub", 1, "a zero idiom" }, { "pcmpeq", 1, "a ones idiom" }, { "vpcmpeq", 1, "a ones idiom" },
	{ "pcmpgt", 1, "a zero idiom" }, { "vpcmpgt", 1, "a zero idiom" },
	{ "add", 0, "an operation folded at rename" }, { "inc", 0, "an operation folded at rename" },
	{ "dec", 0, "an operation folded at rename" },
	{ "test", 0, "it writes only flags, which no copy reads" },
	{ "cmp", 0, "it writes only flags, which no copy reads" },
	{ "bt", 0, "it writes only flags, which no copy reads" },
	{ "kortest", 1, "it writes only flags, which no copy reads" },
	{ "ktest", 1, "it writes only flags, which no copy reads" },
	{ "ptest", 0, "it writes only flags, which no copy reads" },
	{ "vptest", 0, "it writes only flags, which no copy reads" },
	{ "cdq", 0, "what it writes no copy reads" }, { "cqo", 0, "what it writes no copy reads" },
	{ "cwd", 0, "what it writes no copy reads" },
};

/* A scalar (ss, sd) form: the chain as written may run through the kept lanes only. */
static int scalar(const char *mn)
{
	size_t n = strlen(mn);

	return n > 3 && (!strcmp(mn + n - 2, "ss") || !strcmp(mn + n - 2, "sd")) &&
	       strncmp(mn, "mov", 3) && strncmp(mn, "vmov", 4);
}

static const char *kind_of(const char *insn)
{
	char mn[32];
	size_t n = 0;

	if (!insn)
		return NULL;
	while (isspace((unsigned char)*insn))
		insn++;
	while (n + 1 < sizeof(mn) && isalnum((unsigned char)insn[n])) {
		mn[n] = (char)tolower((unsigned char)insn[n]);
		n++;
	}
	mn[n] = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].prefix ? strncmp(mn, kinds[i].mn, strlen(kinds[i].mn)) == 0
				    : strcmp(mn, kinds[i].mn) == 0)
			return kinds[i].what;
	if (scalar(mn))
		return "a scalar chained through the lanes it keeps, not the one it computes";
	return NULL;
}

enum t32_chain_verdict t32_chain_judge(const char *insn, int cycles, const struct t32_rate *lat,
				       const struct t32_rate *tp, char *reason, size_t len)
{
	const char *what = kind_of(insn);
	enum t32_chain_verdict v = T32_CHAIN_OK;

	if (len)
		reason[0] = 0;
	if (!lat->have || !isfinite(lat->value))
		return T32_CHAIN_OK;
	if (cycles && lat->hi < T32_CHAIN_FLOOR_CYCLES)
		v = T32_CHAIN_BELOW_FLOOR;
	else if (tp && tp->have && isfinite(tp->value) && lat->hi < tp->lo &&
		 lat->value < tp->value * (1 - T32_CHAIN_TP_MARGIN))
		v = T32_CHAIN_BELOW_TP;
	if (v == T32_CHAIN_OK)
		return v;
	if (v == T32_CHAIN_BELOW_FLOOR)
		snprintf(reason, len, "no dependency carried (%s): %.4f %s per instruction is the "
			 "rate of its instructions, below %.1f cycles, not a latency",
			 what ? what : "no executed instruction on the chain",
			 lat->value, "cycles", T32_CHAIN_FLOOR_CYCLES);
	else
		snprintf(reason, len, "no dependency carried (%s): %.4f per instruction is below the "
			 "form's own throughput %.4f [%.4f, %.4f], and no chain runs faster than "
			 "independent copies of it: the rate of its instructions (or a throughput "
			 "row that is not one), not a latency",
			 what ? what : "no chain through the operation", lat->value, tp->value, tp->lo,
			 tp->hi);
	return v;
}
