/*
 * fuzz/uarch.c - the micro-architecture reader (.uarch, analysis/uarch.c) on
 * any bytes, and --set on its first line.
 */
#include "analysis/uarch.h"
#include "fuzz/fuzzkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct t32_uarch u;
	char path[64], err[1024];
	int fd = fuzz_file(data, size, path, sizeof(path));
	char *text = fuzz_text(data, size);

	if (fd < 0 || !text) {
		if (fd >= 0)
			close(fd);
		free(text);
		return 0;
	}
	memset(&u, 0, sizeof(u));
	if (t32_uarch_load(&u, path, NULL, err, sizeof(err)) == 0) {
		text[strcspn(text, "\n")] = 0;
		t32_uarch_set(&u, text, err, sizeof(err));
	}
	free(text);
	close(fd);
	return 0;
}
