/*
 * 2112-big-blocks: nasm's leash fits the body.  Its time limit grows with the
 * body's instructions (--timeout's S for every ten million), so the documented
 * 100,000,000 copies assemble; its output is capped at the block's largest
 * code (T32_IMAGE_MAX), so `resb 1<<30` stops at once with that reason.  A slow
 * nasm is a stand-in that sleeps, then runs nasm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "t/tap.h"
#include "t32/core/helper.h"
#include "t32/core/run.h"
#include "t32/spec.h"
#include "t32/util.h"

/* Assemble spec text s with g->insns set to insns; 0 or -1, the fault in f. */
static int assemble(const char *body, uint64_t insns, struct t32_fault *f)
{
	struct t32_spec s = { 0 };
	struct t32_gen_opts go = { .shape = T32_GEN_TIMED, .unroll = 1 };
	struct t32_gen g;
	struct t32_blob b;
	char *argv[] = { (char *)body, NULL };
	char err[256];
	int rc;

	if (t32_spec_set_barrier(&s, "l", err, sizeof(err)) ||
	    t32_spec_set_store(&s, "m", err, sizeof(err)) ||
	    t32_spec_parse_body(&s, 1, argv, err, sizeof(err)) || t32_generate(&s, &go, &g))
		bail("cannot set up '%s': %s", body, err);
	g.insns = insns;
	rc = t32_assemble(g.text, &g, &b, f);
	if (!rc)
		t32_blob_free(&b);
	t32_gen_free(&g);
	t32_spec_free(&s);
	return rc;
}

int main(void)
{
	char dir[] = "/tmp/t32-big.XXXXXX", slow[64], msg[1024];
	struct t32_fault f;
	double t0;
	FILE *w;

	plan(6);
	if (!mkdtemp(dir))
		bail("no temporary directory");
	snprintf(slow, sizeof(slow), "%s/nasm", dir);
	w = fopen(slow, "w");
	if (!w || fprintf(w, "#!/bin/sh\nsleep 1.5\nexec nasm \"$@\"\n") < 0 || fclose(w) ||
	    chmod(slow, 0755))
		bail("cannot write the stand-in nasm");

	/* a nasm that takes 1.5 s, a limit of 1 s */
	setenv("T32_NASM", slow, 1);
	t32_helper_set_limit(1);
	ok(assemble("nop", 0, &f) != 0 && f.kind == T32_FAIL_ASSEMBLE &&
	   strstr(f.msg, "did not finish within 1 s"), "a small body: nasm is held to the limit (%s)",
	   f.msg);
	ok(assemble("nop", 20000000, &f) == 0,
	   "a body of twenty million instructions: nasm gets three times the limit (%s)", f.msg);
	unsetenv("T32_NASM");
	t32_helper_set_limit(10);

	/* more code than a block may hold: nasm stops at the cap, the reason given */
	t0 = t32_now();
	ok(assemble("resb 1<<30", 1, &f) != 0 && f.kind == T32_FAIL_ASSEMBLE,
	   "resb 1<<30 does not assemble");
	t32_fault_describe(&f, NULL, msg, sizeof(msg));
	ok(strstr(msg, "the block's code would be larger than 256 MiB") != NULL, "because: %s", msg);
	ok(t32_now() - t0 < 10, "nasm stopped at the cap, within the limit (%.1f s)", t32_now() - t0);
	ok(assemble("resb 1<<20", 1, &f) == 0, "1 MiB of code assembles (%s)", f.msg);
	unlink(slow);
	rmdir(dir);
	return done_testing();
}
