/*
 * 5008-uarch-cpuid - naming the core from simulated CPUID identities (vendor,
 * family, model), the fallback an unknown CPU or a core without data gets, the
 * line the commands print, and that every data file the table or a fallback
 * can name exists in data/uarch.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/uarch.h"
#include "t/tap.h"

/* One simulated CPU and what the table must call it. */
static const struct {
	const char *vendor;
	unsigned family, model;
	const char *core;	/* the name CPUID gives, "unknown" */
	const char *data;	/* the data file the model reads */
	enum t32_uarch_how how;
	const char *what;
} cpus[] = {
	{ "AuthenticAMD", 0x19, 0x11, "zen4", "zen4", T32_UARCH_DETECTED, "Zen 4 EPYC Genoa" },
	{ "AuthenticAMD", 0x19, 0x61, "zen4", "zen4", T32_UARCH_DETECTED, "Zen 4 Raphael" },
	{ "AuthenticAMD", 0x1a, 0x02, "zen5", "zen5", T32_UARCH_DETECTED, "Zen 5 (the machine here)" },
	{ "AuthenticAMD", 0x1a, 0x44, "zen5", "zen5", T32_UARCH_DETECTED, "Zen 5 Granite Ridge" },
	{ "AuthenticAMD", 0x19, 0x21, "zen3", "zen4", T32_UARCH_FALLBACK, "Zen 3 Vermeer" },
	{ "AuthenticAMD", 0x19, 0x01, "zen3", "zen4", T32_UARCH_FALLBACK, "Zen 3 Milan" },
	{ "AuthenticAMD", 0x17, 0x71, "zen2", "zen4", T32_UARCH_FALLBACK, "Zen 2 Matisse" },
	{ "AuthenticAMD", 0x17, 0x01, "zen", "zen4", T32_UARCH_FALLBACK, "Zen Naples" },
	{ "GenuineIntel", 0x6, 0x55, "skylake", "skylake", T32_UARCH_DETECTED, "Skylake-X" },
	{ "GenuineIntel", 0x6, 0x5e, "skylake", "skylake", T32_UARCH_DETECTED, "Skylake desktop" },
	{ "GenuineIntel", 0x6, 0x9e, "skylake", "skylake", T32_UARCH_DETECTED, "Coffee Lake" },
	{ "GenuineIntel", 0x6, 0xa5, "skylake", "skylake", T32_UARCH_DETECTED, "Comet Lake" },
	{ "GenuineIntel", 0x6, 0x97, "goldencove", "goldencove", T32_UARCH_DETECTED, "Alder Lake" },
	{ "GenuineIntel", 0x6, 0xb7, "goldencove", "goldencove", T32_UARCH_DETECTED, "Raptor Lake" },
	{ "GenuineIntel", 0x6, 0x8f, "goldencove", "goldencove", T32_UARCH_DETECTED, "Sapphire Rapids" },
	{ "GenuineIntel", 0x6, 0x7e, "sunnycove", "goldencove", T32_UARCH_FALLBACK, "Ice Lake" },
	{ "GenuineIntel", 0x6, 0xbe, "unknown", "goldencove", T32_UARCH_FALLBACK, "Alder Lake-N" },
	{ "AuthenticAMD", 0x15, 0x02, "unknown", "zen5", T32_UARCH_FALLBACK, "Bulldozer" },
	{ "AuthenticAMD", 0x19, 0xff, "unknown", "zen5", T32_UARCH_FALLBACK, "a model past the table" },
	{ "CentaurHauls", 0x6, 0x0f, "unknown", "zen5", T32_UARCH_FALLBACK, "another vendor" },
};

/* Does DATADIR/uarch/NAME.uarch load? */
static int loads(const char *dir, const char *name)
{
	struct t32_uarch u;
	char err[512];

	return t32_uarch_load(&u, name, dir, err, sizeof(err)) == 0 && strcmp(u.name, name) == 0;
}

int main(void)
{
	const size_t ncpus = sizeof(cpus) / sizeof(cpus[0]);
	const char *root = getenv("T32_SRC");
	char dir[PATH_MAX], text[512];
	struct t32_uarch_choice c;
	size_t nrows = 0, missing = 0, undocumented = 0;

	plan(2 * (int)ncpus + 9);
	for (size_t i = 0; i < ncpus; i++) {
		const struct t32_uarch_id *r = t32_uarch_identify(cpus[i].vendor, cpus[i].family,
								  cpus[i].model);

		is_string(cpus[i].core, r ? r->name : "unknown", "%s (%s family %#x model %#x)",
			  cpus[i].what, cpus[i].vendor, cpus[i].family, cpus[i].model);
		t32_uarch_choose(NULL, cpus[i].vendor, cpus[i].family, cpus[i].model, &c);
		ok(strcmp(c.data, cpus[i].data) == 0 && c.how == cpus[i].how &&
		   strcmp(c.core, cpus[i].core) == 0, "%s: %s data, %s", cpus[i].what, c.data,
		   t32_uarch_how_name(c.how));
	}

	/* the line model, correlate and env print */
	t32_uarch_choose(NULL, "AuthenticAMD", 0x1a, 0x2, &c);
	t32_uarch_choice_text(&c, c.data, text, sizeof(text));
	is_string("zen5 (detected: AuthenticAMD family 0x1a model 0x2)", text, "detected, with its basis");
	t32_uarch_choose(NULL, "GenuineIntel", 0x6, 0xbe, &c);
	t32_uarch_choice_text(&c, c.data, text, sizeof(text));
	is_string("goldencove (fallback: unknown CPU GenuineIntel family 0x6 model 0xbe)", text,
		  "an unknown CPU: the fallback named");
	t32_uarch_choose(NULL, "AuthenticAMD", 0x19, 0x21, &c);
	t32_uarch_choice_text(&c, c.data, text, sizeof(text));
	is_string("zen4 (fallback: zen3 has no data file; AuthenticAMD family 0x19 model 0x21)", text,
		  "a core without data: the stand-in named");
	t32_uarch_choose("skylake", "AuthenticAMD", 0x1a, 0x2, &c);
	t32_uarch_choice_text(&c, "skylake", text, sizeof(text));
	is_string("skylake (chosen with --uarch)", text, "--uarch wins over CPUID");
	t32_uarch_choose("/tmp/my.uarch", NULL, 0, 0, &c);
	t32_uarch_choice_text(&c, "tiny", text, sizeof(text));
	is_string("tiny (chosen with --uarch /tmp/my.uarch)", text, "--uarch FILE names the file");

	/* no row is shadowed by an earlier one and every row names its data */
	for (const struct t32_uarch_id *r = t32_uarch_ids; r->name; r++) {
		nrows++;
		if (!r->data || !r->parts || !*r->parts || r->model_lo > r->model_hi)
			undocumented++;
		for (unsigned m = r->model_lo; m <= r->model_hi; m++)
			if (t32_uarch_identify(r->vendor, r->family, m) != r)
				undocumented++;
	}
	ok(nrows > 20 && undocumented == 0, "%zu rows, each with its data and chips, none overlapping",
	   nrows);

	/* every data file the table or a fallback names is shipped */
	if (root && *root) {
		snprintf(dir, sizeof(dir), "%s/data", root);
		for (const struct t32_uarch_id *r = t32_uarch_ids; r->name; r++)
			if (!loads(dir, r->data)) {
				diag("%s: data/uarch/%s.uarch does not load", r->name, r->data);
				missing++;
			}
		is_int(0, (long long)missing, "every core's data file loads (its own or its stand-in's)");
		for (size_t i = 0; i < ncpus; i++) {
			t32_uarch_choose(NULL, cpus[i].vendor, cpus[i].family, cpus[i].model, &c);
			if (!loads(dir, c.data))
				missing++;
		}
		is_int(0, (long long)missing, "every fallback for an unknown CPU loads");
		ok(loads(dir, "zen4") && loads(dir, "goldencove"), "zen4.uarch and goldencove.uarch load");
	} else {
		skip("no source tree (T32_SRC) with data/uarch");
		skip("no source tree (T32_SRC) with data/uarch");
		skip("no source tree (T32_SRC) with data/uarch");
	}
	return done_testing();
}
