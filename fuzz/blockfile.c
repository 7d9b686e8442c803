/*
 * fuzz/blockfile.c - the block-file reader (.blk, t32/sample/attrib.c) on any bytes.
 */
#include "fuzz/fuzzkit.h"
#include "t32/sample/attrib.h"
#include "t32/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct t32_spec s;
	struct t32_blockfile bf;
	char path[64], err[1024];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	memset(&s, 0, sizeof(s));
	t32_blockfile_load(path, &s, &bf, err, sizeof(err));
	t32_spec_free(&s);
	close(fd);
	return 0;
}
