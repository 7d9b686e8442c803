/*
 * fuzz/tablecheck.c - `t32 table check`'s readers on any bytes: the bytes as a
 * sweep read row by row, and as a reference table compared with a small sweep of
 * a small table.
 */
#include "fuzz/fuzzkit.h"
#include "t32/core/tablecheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char table[] = "add-r64-r64 | add rax, rbx | lat=1 | tp=add {r}, rbx\n"
			    "mov-r64-r64 | mov rbx, rax; mov rax, rbx | tp=mov {r}, rbx\n";
static const char sweep[] =
	"# sweep: rows=4 of=x forms=0 modes=latency,throughput barrier=l store=m n=840\n"
	"row\tform\tmode\tn\tk\tunit\tper_insn\tci_lo\tci_hi\ttotal\tmin_per_insn\t"
	"median_per_insn\truns\tseconds\tcycles_per_tick\tflags\tstatus\texpected\treason\n"
	"0\tadd-r64-r64\tlatency\t840\t1\tcycles\t1.0\t0.99\t1.01\t840\t1\t1\t10\t0.1\t1.6\t-\tok\t1\t\n"
	"1\tadd-r64-r64\tthroughput\t840\t12\tcycles\t0.25\t0.24\t0.26\t210\t0.25\t0.25\t10\t0.1\t1.6\t-\tok\t\t\n"
	"2\tmov-r64-r64\tlatency\t840\t1\tcycles\t0.2\t0.19\t0.21\t168\t0.2\t0.2\t10\t0.1\t1.6\t-\tok\t\t\n"
	"3\tmov-r64-r64\tthroughput\t840\t12\tcycles\t0.25\t0.24\t0.26\t210\t0.25\t0.25\t10\t0.1\t1.6\t-\tok\t\t\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[64], tpath[64], spath[64], *refs[1] = { in };
	struct t32_tablecheck_opts o = { .tolerance = 0.05, .rows = 1 };
	struct t32_tablecheck_result res;
	FILE *null = fopen("/dev/null", "w");
	int fd = fuzz_file(data, size, in, sizeof(in));
	int tfd = fuzz_file((const uint8_t *)table, sizeof(table) - 1, tpath, sizeof(tpath));
	int sfd = fuzz_file((const uint8_t *)sweep, sizeof(sweep) - 1, spath, sizeof(spath));

	if (fd >= 0 && tfd >= 0 && sfd >= 0 && null) {
		o.sweep = in;
		t32_table_check(&o, null, &res);
		o.sweep = spath;
		o.table = tpath;
		o.refs = refs;
		o.nrefs = 1;
		t32_table_check(&o, null, &res);
	}
	if (null)
		fclose(null);
	if (fd >= 0)
		close(fd);
	if (tfd >= 0)
		close(tfd);
	if (sfd >= 0)
		close(sfd);
	return 0;
}
