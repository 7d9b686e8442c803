/*
 * fuzz/lat.c - the latency-table reader (.lat, analysis/uarch.c) on any bytes,
 * and every entry looked up again.
 */
#include "analysis/uarch.h"
#include "fuzz/fuzzkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct t32_lattab t;
	char path[64], err[1024];
	unsigned cycles;
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	memset(&t, 0, sizeof(t));
	if (t32_lattab_load(&t, path, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < t.n; i++) {
			const struct t32_lat_entry *e = t32_lattab_find(&t, t.e[i].form);

			if (e)
				t32_lattab_latency(e, "zen5", &cycles);
		}
		t32_lattab_free(&t);
	}
	close(fd);
	return 0;
}
