/*
 * fuzz/spec.c - the spec readers (t32/spec.c) on any bytes: the first line as
 * an --n list, the second as --init, the rest one body argument a line.
 */
#include "fuzz/fuzzkit.h"
#include "t32/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *argv[64], err[1024];
	int argc = 0;
	uint64_t *ns = NULL, v;
	size_t nn = 0;
	struct t32_spec s;

	if (!text)
		return 0;
	for (char *p = text, *save = NULL, *line; (line = strtok_r(p, "\n", &save)) && argc < 64;
	     p = NULL)
		argv[argc++] = line;
	memset(&s, 0, sizeof(s));
	if (argc > 0) {
		if (t32_parse_nlist(argv[0], &ns, &nn, err, sizeof(err)) == 0)
			free(ns);
		t32_parse_u64(argv[0], 0, UINT64_MAX, &v);
	}
	if (argc > 1)
		t32_spec_parse_init(&s, argv[1], err, sizeof(err));
	if (argc > 2 && t32_spec_parse_body(&s, argc - 2, argv + 2, err, sizeof(err)) == 0)
		t32_spec_insns(&s);
	t32_spec_free(&s);
	free(text);
	return 0;
}
