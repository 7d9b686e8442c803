/*
 * fuzz/sweeptsv.c - t32's own TSV read back on any bytes: --resume's scan of a
 * sweep file, --merge of it (to /dev/null) and `t32 fit` of it.
 */
#include "fuzz/fuzzkit.h"
#include "t32/cmd/cmd.h"
#include "t32/io/sweepfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The sweep line the scan is asked to find: that of `--n 1..4 l m nop`. */
static const char sig[] =
	"# sweep: rows=4 of=l m n 'nop' modes=raw barrier=l store=m unit=cycles shards=1 "
	"init=- precision=0.01 block-precision=0.5 budget=1 max-runs=1000000 max-k=12 "
	"warmup=200 dither=1 n=1,2,3,4\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], *files[1] = { path };
	char *fit[] = { "fit", "--format=tsv", path, NULL };
	unsigned char done[4];
	off_t good;
	int fd = fuzz_file(data, size, path, sizeof(path));
	FILE *f;

	if (fd < 0)
		return 0;
	f = fopen(path, "r");
	if (f) {
		t32_sweep_scan(f, path, sig, "", "# cpu: x (AuthenticAMD family 0x19 model 0x11 stepping 1)", 0,
			       NULL, 4, done, &good);
		fclose(f);
	}
	t32_sweep_merge("/dev/null", 1, files, 0);
	fuzz_stdout();
	cmd_fit(3, fit);
	close(fd);
	return 0;
}
