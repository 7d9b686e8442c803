/*
 * modelkit.c - shared set-up of the retirement-model tests.
 */
#include "t/modelkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t/tap.h"

void kit_uarch(struct t32_uarch *u, const char *name, unsigned width, unsigned rob,
	       unsigned load_latency)
{
	memset(u, 0, sizeof(*u));
	snprintf(u->name, sizeof(u->name), "%s", name);
	u->alloc_width = width;
	u->retire_width = width;
	u->rob_size = rob;
	u->load_latency = load_latency;
	u->load_latency_scaled = load_latency;
	u->move_elim = 1;
	u->zero_idioms = 1;
	for (int c = 0; c < T32_NCLASS; c++)
		u->latency[c] = 1;
	u->latency[T32_CLASS_NOP] = 0;
	u->latency[T32_CLASS_LOAD] = 0;
}

size_t kit_block(const struct t32_uarch *u, const unsigned char *code, size_t len,
		 struct t32_model_insn **out)
{
	struct t32_insn *in;
	size_t n = 0;
	char err[256];

	*out = NULL;
	if (t32_deps_decode(code, len, &in, &n, err, sizeof(err))) {
		diag("%s", err);
		return 0;
	}
	*out = calloc(n, sizeof(**out));
	if (!*out) {
		free(in);
		return 0;
	}
	t32_model_prepare(u, NULL, in, n, *out);
	free(in);
	return n;
}

void kit_key(struct t32_uarch *u, const char *key, unsigned long good, unsigned long bad)
{
	char set[64], err[256] = "";
	unsigned long v = 0;

	snprintf(set, sizeof(set), "%s=%lu", key, good);
	ok(t32_uarch_set(u, set, err, sizeof(err)) == 0, "--set %s (%s)", set, err);
	ok(t32_uarch_get(u, key, &v) == 0 && v == good, "%s reads back %lu", key, good);
	snprintf(set, sizeof(set), "%s=%lu", key, bad);
	ok(t32_uarch_set(u, set, err, sizeof(err)) == -1 && strstr(err, key),
	   "%s is out of range (%s)", set, err);
}

void kit_steady(const struct t32_uarch *u, const struct t32_model_insn *b, size_t n,
		struct t32_model_result *r)
{
	if (t32_model_steady(u, b, n, 1, r))
		bail("the model fails");
}
