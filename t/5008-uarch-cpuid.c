/*
 * 5008-uarch-cpuid - naming the core from simulated CPUID identities (vendor,
 * family, model and, on a hybrid part, the core type of leaf 0x1A), the data a
 * core without its own file gets (a stated stand-in, or generic and latencies
 * measured in place), the line the commands print, and that every data file the
 * table can name exists in data/uarch.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/uarch.h"
#include "t/tap.h"

#define P T32_CORE_CORE
#define E T32_CORE_ATOM
#define UNK T32_CORE_UNKNOWN

/* One simulated CPU and what the table must call it. */
static const struct {
	const char *vendor;
	unsigned family, model, type;
	const char *core;	/* the name CPUID gives, "unknown" */
	const char *data;	/* the data file the model reads */
	enum t32_uarch_how how;
	const char *what;
} cpus[] = {
	{ "AuthenticAMD", 0x19, 0x11, 0, "zen4", "zen4", T32_UARCH_DETECTED, "Zen 4 EPYC Genoa (the machine here)" },
	{ "AuthenticAMD", 0x19, 0x61, 0, "zen4", "zen4", T32_UARCH_DETECTED, "Zen 4 Raphael" },
	{ "AuthenticAMD", 0x1a, 0x02, 0, "zen5", "zen5", T32_UARCH_DETECTED, "Zen 5 Turin" },
	{ "AuthenticAMD", 0x1a, 0x44, 0, "zen5", "zen5", T32_UARCH_DETECTED, "Zen 5 Granite Ridge" },
	{ "AuthenticAMD", 0x19, 0x21, 0, "zen3", "zen4", T32_UARCH_FALLBACK, "Zen 3 Vermeer" },
	{ "AuthenticAMD", 0x19, 0x01, 0, "zen3", "zen4", T32_UARCH_FALLBACK, "Zen 3 Milan" },
	{ "AuthenticAMD", 0x17, 0x71, 0, "zen2", "zen4", T32_UARCH_FALLBACK, "Zen 2 Matisse" },
	{ "AuthenticAMD", 0x17, 0x01, 0, "zen", "zen4", T32_UARCH_FALLBACK, "Zen Naples" },
	{ "GenuineIntel", 0x6, 0x55, 0, "skylake", "skylake", T32_UARCH_DETECTED, "Skylake-X" },
	{ "GenuineIntel", 0x6, 0x5e, 0, "skylake", "skylake", T32_UARCH_DETECTED, "Skylake desktop" },
	{ "GenuineIntel", 0x6, 0x9e, 0, "skylake", "skylake", T32_UARCH_DETECTED, "Coffee Lake" },
	{ "GenuineIntel", 0x6, 0xa5, 0, "skylake", "skylake", T32_UARCH_DETECTED, "Comet Lake" },
	{ "GenuineIntel", 0x6, 0x97, P, "goldencove", "goldencove", T32_UARCH_DETECTED, "Alder Lake-S P-core" },
	{ "GenuineIntel", 0x6, 0x97, E, "gracemont", "gracemont", T32_UARCH_DETECTED, "Alder Lake-S E-core" },
	{ "GenuineIntel", 0x6, 0x9a, P, "goldencove", "goldencove", T32_UARCH_DETECTED, "Alder Lake-P P-core" },
	{ "GenuineIntel", 0x6, 0x9a, E, "gracemont", "gracemont", T32_UARCH_DETECTED, "Alder Lake-P E-core" },
	{ "GenuineIntel", 0x6, 0x97, 0, "unknown", "generic", T32_UARCH_UNKNOWN, "Alder Lake-S, hybrid flag hidden (a VM)" },
	{ "GenuineIntel", 0x6, 0x97, UNK, "unknown", "generic", T32_UARCH_UNKNOWN, "Alder Lake-S, core not asked" },
	{ "GenuineIntel", 0x6, 0xb7, P, "goldencove", "goldencove", T32_UARCH_DETECTED, "Raptor Lake P-core (Raptor Cove)" },
	{ "GenuineIntel", 0x6, 0xb7, E, "gracemont", "gracemont", T32_UARCH_DETECTED, "Raptor Lake E-core" },
	{ "GenuineIntel", 0x6, 0xd7, 0, "goldencove", "goldencove", T32_UARCH_DETECTED, "Bartlett Lake" },
	{ "GenuineIntel", 0x6, 0xd7, P, "goldencove", "goldencove", T32_UARCH_DETECTED, "Bartlett Lake, hybrid flag set" },
	{ "GenuineIntel", 0x6, 0xbe, 0, "gracemont", "gracemont", T32_UARCH_DETECTED, "Alder Lake-N" },
	{ "GenuineIntel", 0x6, 0xaf, 0, "crestmont", "gracemont", T32_UARCH_FALLBACK, "Sierra Forest" },
	{ "GenuineIntel", 0x6, 0xaa, P, "redwoodcove", "goldencove", T32_UARCH_FALLBACK, "Meteor Lake P-core" },
	{ "GenuineIntel", 0x6, 0xaa, E, "crestmont", "gracemont", T32_UARCH_FALLBACK, "Meteor Lake E-core" },
	{ "GenuineIntel", 0x6, 0xc6, P, "lioncove", "generic", T32_UARCH_UNKNOWN, "Arrow Lake P-core" },
	{ "GenuineIntel", 0x6, 0xc6, E, "skymont", "generic", T32_UARCH_UNKNOWN, "Arrow Lake E-core" },
	{ "GenuineIntel", 0x6, 0xbd, P, "lioncove", "generic", T32_UARCH_UNKNOWN, "Lunar Lake P-core" },
	{ "GenuineIntel", 0x6, 0x8f, 0, "goldencove", "goldencove", T32_UARCH_DETECTED, "Sapphire Rapids" },
	{ "GenuineIntel", 0x6, 0x7e, 0, "sunnycove", "generic", T32_UARCH_UNKNOWN, "Ice Lake" },
	{ "GenuineIntel", 0x6, 0x8c, 0, "willowcove", "generic", T32_UARCH_UNKNOWN, "Tiger Lake" },
	{ "GenuineIntel", 0x6, 0x66, 0, "palmcove", "skylake", T32_UARCH_FALLBACK, "Cannon Lake" },
	{ "GenuineIntel", 0x6, 0x3c, 0, "unknown", "generic", T32_UARCH_UNKNOWN, "Haswell (before the table)" },
	{ "AuthenticAMD", 0x15, 0x02, 0, "unknown", "generic", T32_UARCH_UNKNOWN, "Bulldozer" },
	{ "AuthenticAMD", 0x19, 0xff, 0, "unknown", "generic", T32_UARCH_UNKNOWN, "a model past the table" },
	{ "CentaurHauls", 0x6, 0x0f, 0, "unknown", "generic", T32_UARCH_UNKNOWN, "another vendor" },
};

/* Does DATADIR/uarch/NAME.uarch load? */
static int loads(const char *dir, const char *name)
{
	struct t32_uarch u;
	char err[512];

	return t32_uarch_load(&u, name, dir, err, sizeof(err)) == 0 && strcmp(u.name, name) == 0;
}

/* The line for a choice, with the data it loads. */
static const char *line(const char *asked, const char *vendor, unsigned family, unsigned model,
			unsigned type, const char *loaded)
{
	static char text[512];
	struct t32_uarch_choice c;

	t32_uarch_choose(asked, vendor, family, model, type, &c);
	t32_uarch_choice_text(&c, loaded ? loaded : c.data, text, sizeof(text));
	return text;
}

int main(void)
{
	const size_t ncpus = sizeof(cpus) / sizeof(cpus[0]);
	const char *root = getenv("T32_SRC");
	char dir[PATH_MAX], text[64];
	struct t32_uarch_choice c;
	size_t nrows = 0, missing = 0, undocumented = 0, hybrid_models = 0, paired = 0;

	plan(2 * (int)ncpus + 17);
	for (size_t i = 0; i < ncpus; i++) {
		const struct t32_uarch_id *r = t32_uarch_identify(cpus[i].vendor, cpus[i].family,
								  cpus[i].model, cpus[i].type);

		is_string(cpus[i].core, r ? r->name : "unknown", "%s (%s family %#x model %#x type %#x)",
			  cpus[i].what, cpus[i].vendor, cpus[i].family, cpus[i].model, cpus[i].type);
		t32_uarch_choose(NULL, cpus[i].vendor, cpus[i].family, cpus[i].model, cpus[i].type, &c);
		ok(strcmp(c.data, cpus[i].data) == 0 && c.how == cpus[i].how &&
		   strcmp(c.core, cpus[i].core) == 0, "%s: %s data, %s", cpus[i].what, c.data,
		   t32_uarch_how_name(c.how));
	}

	/* the line model, correlate, env and provenance print */
	is_string("zen5 (detected: AuthenticAMD family 0x1a model 0x2)",
		  line(NULL, "AuthenticAMD", 0x1a, 0x2, 0, NULL), "detected, with its basis");
	is_string("goldencove (detected: GenuineIntel family 0x6 model 0x97, P-core)",
		  line(NULL, "GenuineIntel", 0x6, 0x97, P, NULL), "a hybrid part's core type named");
	is_string("gracemont (detected: GenuineIntel family 0x6 model 0x97, E-core)",
		  line(NULL, "GenuineIntel", 0x6, 0x97, E, NULL), "its E-core named, with its own data");
	is_string("generic (unknown: unknown CPU GenuineIntel family 0x6 model 0xfe; latencies are "
		  "measured here)", line(NULL, "GenuineIntel", 0x6, 0xfe, 0, NULL),
		  "an unknown CPU: said so, nothing borrowed");
	is_string("generic (unknown: no data for lioncove; GenuineIntel family 0x6 model 0xc6, "
		  "P-core; latencies are measured here)",
		  line(NULL, "GenuineIntel", 0x6, 0xc6, P, NULL), "a known core without data: said so");
	is_string("gracemont (fallback: crestmont has no data file; GenuineIntel family 0x6 model 0xaf)",
		  line(NULL, "GenuineIntel", 0x6, 0xaf, 0, NULL), "a stated stand-in");
	is_string("zen4 (fallback: zen3 has no data file; AuthenticAMD family 0x19 model 0x21)",
		  line(NULL, "AuthenticAMD", 0x19, 0x21, 0, NULL), "a core without data: the stand-in named");
	is_string("skylake (chosen with --uarch)", line("skylake", "AuthenticAMD", 0x1a, 0x2, 0,
							 "skylake"), "--uarch wins over CPUID");
	is_string("tiny (chosen with --uarch /tmp/my.uarch)", line("/tmp/my.uarch", NULL, 0, 0, 0,
								    "tiny"), "--uarch FILE names the file");
	t32_core_type_text(0x30, text, sizeof(text));
	ok(strcmp(text, "core type 0x30") == 0 && t32_core_type_parse("(x, core type 0x30)") == 0x30 &&
	   t32_core_type_parse("(GenuineIntel family 0x6 model 0x97, E-core)") == E &&
	   t32_core_type_parse("(AuthenticAMD family 0x19 model 0x11)") == 0,
	   "a core type's words read back (%s)", text);

	/*
	 * No row is shadowed by an earlier one, every row names its chips, a row
	 * for a core type has its partner type on the same models, and every row
	 * without data names a core (not "unknown").
	 */
	for (const struct t32_uarch_id *r = t32_uarch_ids; r->name; r++) {
		nrows++;
		if (!r->parts || !*r->parts || r->model_lo > r->model_hi || !strcmp(r->name, "unknown"))
			undocumented++;
		for (unsigned m = r->model_lo; m <= r->model_hi; m++)
			if (t32_uarch_identify(r->vendor, r->family, m, r->core_type ? r->core_type : 0) !=
			    r)
				undocumented++;
		if (r->core_type == P) {
			hybrid_models++;
			paired += t32_uarch_identify(r->vendor, r->family, r->model_lo, E) != NULL &&
				  t32_uarch_identify(r->vendor, r->family, r->model_lo, 0) == NULL;
		}
	}
	ok(nrows > 40 && undocumented == 0, "%zu rows, each with its chips, none overlapping", nrows);
	ok(hybrid_models >= 10 && paired == hybrid_models,
	   "%zu hybrid models, each with a P-core and an E-core row and no row for any core",
	   hybrid_models);

	/* every data file the table names is shipped, and generic for those without */
	if (root && *root) {
		snprintf(dir, sizeof(dir), "%s/data", root);
		for (const struct t32_uarch_id *r = t32_uarch_ids; r->name; r++)
			if (!loads(dir, r->data ? r->data : T32_UARCH_GENERIC)) {
				diag("%s: data/uarch/%s.uarch does not load", r->name, r->data);
				missing++;
			}
		is_int(0, (long long)missing, "every core's data file loads (its own or its stand-in's)");
		for (size_t i = 0; i < ncpus; i++) {
			t32_uarch_choose(NULL, cpus[i].vendor, cpus[i].family, cpus[i].model,
					 cpus[i].type, &c);
			if (!loads(dir, c.data))
				missing++;
		}
		is_int(0, (long long)missing, "every choice for an unknown CPU loads");
		ok(loads(dir, "goldencove") && loads(dir, "gracemont") && loads(dir, "skylake") &&
		   loads(dir, "generic"), "goldencove, gracemont, skylake and generic load");
		{
			struct t32_uarch g, e;
			char err[256];

			ok(!t32_uarch_load(&g, "goldencove", dir, err, sizeof(err)) &&
			   !t32_uarch_load(&e, "gracemont", dir, err, sizeof(err)) &&
			   g.load_latency == 5 && e.load_latency == 3 && g.rob_size > e.rob_size &&
			   g.latency[T32_CLASS_FENCE] == 12 && e.latency[T32_CLASS_FENCE] == 26,
			   "a P-core and an E-core differ where the measured data do (load 5/3, "
			   "lfence 12/26)");
		}
		{
			struct t32_lattab tab = { NULL, 0 };
			const struct t32_lat_entry *x;
			unsigned gc = 0, gm = 0, p = 0;
			char path[PATH_MAX + 32], err[256];

			snprintf(path, sizeof(path), "%s/uarch/latency.lat", dir);
			ok(!t32_lattab_load(&tab, path, err, sizeof(err)) &&
			   (x = t32_lattab_find(&tab, "div r64")) &&
			   !t32_lattab_latency(x, "goldencove", &gc) && !t32_lattab_latency(x, "gracemont", &gm) &&
			   gc == 18 && gm == 11 &&
			   (x = t32_lattab_find(&tab, "add r64, i")) &&
			   !t32_lattab_latency(x, "goldencove", &gc) && gc == 0 &&
			   (x = t32_lattab_find(&tab, "pause")) && !t32_lattab_latency(x, "goldencove", &p) &&
			   p == 160, "latency.lat: div r64 18/11 (the rax path), add r64, i at rename, "
			   "pause 160 on Golden Cove");
			t32_lattab_free(&tab);
		}
	} else {
		for (int k = 0; k < 5; k++)
			skip("no source tree (T32_SRC) with data/uarch");
	}
	return done_testing();
}
