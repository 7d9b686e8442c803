/*
 * 5010-cpuid-dumps - the measuring CPU's identity and core from CPUID answers
 * given in a dump (T32_CPUID_FILE): published InstLatX64 dumps of hybrid parts
 * (i9-12900K, the same with its E-cores disabled, i3-1220P, i9-13900K) and of
 * parts that are not (i7-1165G7, Ryzen 5 7600X), then a dump written here for
 * every row of the CPUID table, P-core and E-core: vendor, family, model, core
 * type, the data chosen, and the CPU measured on by default (a P-core on a
 * hybrid part, whatever its number).
 */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/uarch.h"
#include "t/tap.h"
#include "t32/cpu.h"
#include "t32/util.h"

/* A published dump and what it must give. */
static const struct {
	const char *file;
	int cpus[8], ncpus;	/* the dump's sections */
	int pick;		/* the default CPU among them */
	int probe;		/* a CPU to describe */
	const char *vendor, *brand;
	unsigned family, model, stepping, type;
	const char *data;	/* the data chosen for the probed CPU */
} dumps[] = {
	{ "alderlake-i9-12900K.txt", { 0, 1, 2, 15, 16, 17 }, 6, 15, 16, "GenuineIntel",
	  "12th Gen Intel(R) Core(TM) i9-12900K", 0x6, 0x97, 2, T32_CORE_ATOM, "gracemont" },
	{ "alderlake-i9-12900K.txt", { 0, 1, 2, 15, 16, 17 }, 6, 15, 2, "GenuineIntel",
	  "12th Gen Intel(R) Core(TM) i9-12900K", 0x6, 0x97, 2, T32_CORE_CORE, "goldencove" },
	{ "alderlake-i9-12900K-pcores.txt", { 0, 1, 2 }, 3, 2, 1, "GenuineIntel",
	  "12th Gen Intel(R) Core(TM) i9-12900K", 0x6, 0x97, 2, T32_CORE_CORE, "goldencove" },
	{ "alderlakep-i3-1220P.txt", { 0, 1, 2, 3, 5, 6, 7 }, 7, 3, 6, "GenuineIntel",
	  "12th Gen Intel(R) Core(TM) i3-1220P", 0x6, 0x9a, 4, T32_CORE_ATOM, "gracemont" },
	{ "raptorlake-i9-13900K.txt", { 0, 1, 2, 16, 17, 18 }, 6, 2, 18, "GenuineIntel",
	  "13th Gen Intel(R) Core(TM) i9-13900K", 0x6, 0xb7, 1, T32_CORE_ATOM, "gracemont" },
	{ "raptorlake-i9-13900K.txt", { 0, 1, 2, 16, 17, 18 }, 6, 2, 0, "GenuineIntel",
	  "13th Gen Intel(R) Core(TM) i9-13900K", 0x6, 0xb7, 1, T32_CORE_CORE, "goldencove" },
	{ "tigerlake-i7-1165G7.txt", { 0, 1, 2, 3 }, 4, 3, 0, "GenuineIntel",
	  "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz", 0x6, 0x8c, 1, T32_CORE_NONE, "generic" },
	{ "emeraldrapids-xeon-kvm.txt", { 0, 1 }, 2, 1, 0, "GenuineIntel",
	  "Intel(R) Xeon(R) Processor", 0x6, 0xcf, 2, T32_CORE_NONE, "goldencove" },
	{ "raphael-ryzen5-7600X.txt", { 0, 1, 2 }, 3, 2, 1, "AuthenticAMD",
	  "AMD Ryzen 5 7600X 6-Core Processor", 0x19, 0x61, 2, T32_CORE_NONE, "zen4" },
	{ "turin-oxide-bhyve.txt", { 0, 1 }, 2, 1, 0, "AuthenticAMD",
	  "Oxide Virtual Turin-like Processor", 0x1a, 0x2, 1, T32_CORE_NONE, "zen5" },
};

static char tmpdir[PATH_MAX];

/* Answer CPUID from path from now on. */
static void use_dump(const char *path)
{
	setenv("T32_CPUID_FILE", path, 1);
	t32_cpuid_reset();
}

/* A CPU set of the n CPUs in cpus. */
static void set_of(cpu_set_t *s, const int *cpus, int n)
{
	CPU_ZERO(s);
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], s);
}

/* CPUID leaf 0's registers for a vendor string: ebx, edx, ecx hold its 12 bytes. */
static void vendor_regs(const char *v, unsigned r[4])
{
	memcpy(&r[1], v, 4);
	memcpy(&r[3], v + 4, 4);
	memcpy(&r[2], v + 8, 4);
}

/* Leaf 1 EAX for a family and model, extended fields as the SDM encodes them. */
static unsigned signature(unsigned family, unsigned model)
{
	unsigned base = family >= 0xf ? 0xf : family;

	return ((family >= 0xf ? family - 0xf : 0) << 20) | ((model >> 4) << 16) | (base << 8) |
	       ((model & 0xf) << 4) | 1;
}

/*
 * Write a two-CPU dump for a vendor, family and model: on a hybrid part CPU 0 a
 * P-core and CPU 1 an E-core (leaf 7 EDX bit 15 set, leaf 0x1A per CPU), else
 * both alike (bit 15 clear, leaf 0x1A zero).  0, or -1.
 */
static int write_dump(const char *path, const char *vendor, unsigned family, unsigned model,
		      int hybrid)
{
	FILE *f = fopen(path, "w");
	unsigned v[4] = { 0x20, 0, 0, 0 };

	if (!f)
		return -1;
	vendor_regs(vendor, v);
	fprintf(f, "# written by t/5010-cpuid-dumps: %s family %#x model %#x%s\n", vendor, family,
		model, hybrid ? ", hybrid" : "");
	for (int cpu = 0; cpu < 2; cpu++) {
		unsigned type = hybrid ? (cpu ? T32_CORE_ATOM : T32_CORE_CORE) : 0;

		fprintf(f, "------[ CPUID Registers / Logical CPU #%d ]------\n\n", cpu);
		fprintf(f, "CPUID 00000000: %08X-%08X-%08X-%08X\n", v[0], v[1], v[2], v[3]);
		fprintf(f, "CPUID 00000001: %08X-%08X-7FFAFBFF-BFEBFBFF\n", signature(family, model),
			cpu << 24);
		fprintf(f, "CPUID 00000007: 00000000-00000000-00000000-%08X [SL 00]\n",
			hybrid ? 0x8000u : 0u);
		fprintf(f, "CPUID 0000001A: %08X-00000000-00000000-00000000\n",
			type ? (type << 24) | 1 : 0);
		fprintf(f, "CPUID 80000000: 80000008-00000000-00000000-00000000\n\n");
	}
	return fclose(f) ? -1 : 0;
}

int main(void)
{
	const char *root = getenv("T32_SRC");
	char path[PATH_MAX + 64], file[PATH_MAX + 64];
	struct t32_cpu c;
	struct t32_uarch_choice ch;
	cpu_set_t set;
	unsigned r[4];
	size_t rows = 0, bad = 0, hybrids = 0;
	const char *tmp = getenv("TMPDIR");

	if (!root || !*root)
		skip_all("no source tree (T32_SRC) with t/cpuid");
	snprintf(tmpdir, sizeof(tmpdir), "%s/t32-5010-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpdir))
		bail("cannot make a temporary directory");
	plan(5 * (int)(sizeof(dumps) / sizeof(dumps[0])) + 9);

	for (size_t i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++) {
		snprintf(path, sizeof(path), "%s/t/cpuid/%s", root, dumps[i].file);
		use_dump(path);
		t32_cpu_identify_on(&c, dumps[i].probe);
		ok(strcmp(c.vendor, dumps[i].vendor) == 0 && c.family == dumps[i].family &&
		   c.model == dumps[i].model && c.stepping == dumps[i].stepping,
		   "%s: %s family %#x model %#x stepping %u", dumps[i].file, c.vendor, c.family,
		   c.model, c.stepping);
		is_string(dumps[i].brand, c.brand, "%s: the brand string", dumps[i].file);
		is_int(dumps[i].type, c.core_type, "%s: cpu %d is %s", dumps[i].file, dumps[i].probe,
		       c.core_text[0] ? c.core_text : "not hybrid");
		t32_uarch_choose(NULL, c.vendor, c.family, c.model, c.core_type, &ch);
		is_string(dumps[i].data, ch.data, "%s: cpu %d gets %s data (%s)", dumps[i].file,
			  dumps[i].probe, ch.data, t32_uarch_how_name(ch.how));
		set_of(&set, dumps[i].cpus, dumps[i].ncpus);
		is_int(dumps[i].pick, t32_cpu_pick(&set), "%s: measured on cpu %d by default",
		       dumps[i].file, dumps[i].pick);
	}

	/* the i9-12900K: E-cores only allowed, one P-core allowed, a CPU not in the dump */
	snprintf(path, sizeof(path), "%s/t/cpuid/alderlake-i9-12900K.txt", root);
	use_dump(path);
	set_of(&set, (const int[]){ 16, 17 }, 2);
	is_int(17, t32_cpu_pick(&set), "only E-cores allowed: the last of them");
	set_of(&set, (const int[]){ 0, 16, 17 }, 3);
	is_int(0, t32_cpu_pick(&set), "the one P-core allowed, though not the last CPU");
	ok(t32_cpuid(40, 1, 0, r) == -1 && t32_cpu_core_type(40) == T32_CORE_UNKNOWN,
	   "a CPU the dump does not hold cannot be asked: its core is unknown");
	ok(t32_cpuid(0, 7, 1, r) == 0 && r[0] == 0x00400810 && t32_cpuid(0, 7, 0, r) == 0 &&
	   r[3] == 0xFC1CC410 && t32_cpuid(0, 0xd, 0, r) == 0 && !r[0] && !r[1] && !r[2] && !r[3],
	   "subleaves apart ([SL nn]), a leaf the dump lacks reads as zeros");
	t32_cpu_select(16);
	t32_cpu_identify(&c);
	ok(t32_default_cpu() == 16 && c.cpu == 16 && c.core_type == T32_CORE_ATOM,
	   "--cpu 16 (t32_cpu_select): measured there and described as its E-core");
	t32_cpu_select(-1);

	/* a dump of one section answers for every CPU */
	snprintf(file, sizeof(file), "%s/one.txt", tmpdir);
	{
		FILE *f = fopen(file, "w");

		ok(f && fprintf(f, "CPUID 00000000: 00000016-756E6547-6C65746E-49656E69\n"
				   "CPUID 00000001: 000906EA-00100800-7FFAFBBF-BFEBFBFF\n") > 0 &&
		   fclose(f) == 0, "a dump without sections written");
	}
	use_dump(file);
	t32_cpu_identify_on(&c, 7);
	ok(strcmp(c.vendor, "GenuineIntel") == 0 && c.model == 0x9e && c.core_type == 0 &&
	   t32_cpuid(123, 1, 0, r) == 0 && r[0] == 0x000906EA,
	   "a dump without sections answers for any CPU (Coffee Lake, model %#x)", c.model);

	/* every row of the table, through a dump, P-core and E-core */
	for (const struct t32_uarch_id *row = t32_uarch_ids; row->name; row++) {
		unsigned models[2] = { row->model_lo, row->model_hi };

		for (int k = 0; k < 2; k++) {
			int cpu = row->core_type == T32_CORE_ATOM;
			int expect = row->core_type ? 0 : 1;

			snprintf(file, sizeof(file), "%s/row.txt", tmpdir);
			if (write_dump(file, row->vendor, row->family, models[k], row->core_type != 0)) {
				bad++;
				continue;
			}
			use_dump(file);
			t32_cpu_identify_on(&c, cpu);
			t32_uarch_choose(NULL, c.vendor, c.family, c.model, c.core_type, &ch);
			set_of(&set, (const int[]){ 0, 1 }, 2);
			if (strcmp(ch.core, row->name) ||
			    strcmp(ch.data, row->data ? row->data : T32_UARCH_GENERIC) ||
			    (ch.how == T32_UARCH_UNKNOWN) != !row->data || t32_cpu_pick(&set) != expect) {
				diag("%s family %#x model %#x type %#x: %s/%s, default cpu %d", row->vendor,
				     row->family, models[k], row->core_type, ch.core, ch.data,
				     t32_cpu_pick(&set));
				bad++;
			}
			rows++;
			hybrids += row->core_type != 0;
		}
	}
	is_int(0, (long long)bad, "%zu models of the table (%zu on hybrid parts) named from a dump, "
	       "each with its data, a P-core measured by default", rows, hybrids);
	ok(rows > 80 && hybrids > 20, "every row, P-core and E-core, AMD and Intel");

	unlink(file);
	snprintf(file, sizeof(file), "%s/one.txt", tmpdir);
	unlink(file);
	rmdir(tmpdir);
	unsetenv("T32_CPUID_FILE");
	t32_cpuid_reset();
	return done_testing();
}
