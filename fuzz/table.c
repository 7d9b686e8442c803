/*
 * fuzz/table.c - the instruction-table reader (t32/io/table.c) on any bytes: every
 * form found can be expanded for throughput without reading past its buffers.
 */
#include "fuzz/fuzzkit.h"
#include "t32/io/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct t32_table t;
	char path[64], err[512], buf[512];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (t32_table_load(path, &t, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < t.n; i++) {
			for (unsigned long k = 0; k < 3; k++)
				t32_form_tp_expand(&t.forms[i], k, buf, sizeof(buf));
			if (t32_table_find(&t, t.forms[i].name) == NULL)
				abort();
		}
		t32_table_free(&t);
	}
	close(fd);
	return 0;
}
