/*
 * modelkit.h - what the retirement-model tests share: a machine built in place
 * (so no test needs a data file) and a block decoded from machine code.
 */
#ifndef T32_T_MODELKIT_H
#define T32_T_MODELKIT_H

#include <stddef.h>

#include "analysis/model.h"

/*
 * width allocated and retired a cycle, rob entries, loads of load_latency cycles
 * (scaled index too); moves eliminated, zero idioms recognised; every class 1
 * cycle but nops and pure loads (0); no execution-unit limits; retire groups of 1.
 */
void kit_uarch(struct t32_uarch *u, const char *name, unsigned width, unsigned rob,
	       unsigned load_latency);
/* Decode code into a prepared block (*out malloc'd); the count, 0 on failure (diag'd). */
size_t kit_block(const struct t32_uarch *u, const unsigned char *code, size_t len,
		 struct t32_model_insn **out);

/* The steady state with skid 1 into r; bails out when the model fails. */
void kit_steady(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
		struct t32_model_result *r);

/* Three tests: KEY=good is taken and reads back good, KEY=bad is refused naming KEY. */
void kit_key(struct t32_uarch *u, const char *key, unsigned long good, unsigned long bad);

#endif
