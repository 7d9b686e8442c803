/*
 * fuzz/learned.c - the learned model's reader (t32/core/learned.c) on any bytes: its
 * `#` header, then the .uarch body.
 */
#include "fuzz/fuzzkit.h"
#include "t32/core/learned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct t32_uarch u;
	char path[64], err[1024], summary[512], cpu[256];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	memset(&u, 0, sizeof(u));
	t32_learned_load(path, NULL, &u, summary, sizeof(summary), cpu, sizeof(cpu), err,
			 sizeof(err));
	close(fd);
	return 0;
}
