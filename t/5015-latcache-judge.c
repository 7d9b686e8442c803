/*
 * 5015-latcache-judge: which timings of a form serve as its latency.  A clean
 * timing is kept; one on a core another thread shared, with nothing else
 * wrong, serves this run and is not kept (its interval already holds the
 * sensors' disagreement, and it beats a class's default); the same beside
 * other work on the measuring CPU, or with an interval wider than any latency
 * can use, does not serve, and says why.
 */
#include <string.h>

#include "t/tap.h"
#include "t32/core/latcache.h"

/* A timing of a 3-cycle chain to +-0.02 that met its precision. */
static void timing(struct t32_measurement *m)
{
	memset(m, 0, sizeof(*m));
	m->insns = 40;
	m->twin_insns = 20;
	m->runs = 20000;
	m->rounds = 400;
	m->segments = 20;
	m->seconds = 0.4;
	m->tsc_ghz = 2.1;
	m->block.value = 120;
	m->empty.value = 40;
	m->twin.value = 80;
	m->value = 3.01;
	m->halfwidth = 0.02;
	m->ratio = 1.7;
	m->stopped_precise = 1;
}

int main(void)
{
	struct t32_measurement m;
	char why[256];
	int shared;

	plan(14);

	timing(&m);
	shared = -1;
	why[0] = 0;
	is_int(0, t32_latcache_judge(&m, why, sizeof(why), &shared), "a clean timing serves (%s)",
	       why[0] ? why : "no reason given");
	is_int(0, shared, "and is kept");

	timing(&m);
	m.contended = 1;
	m.contention = 0.0034;
	m.sense_lat[0] = 3;
	m.sense[0] = 1.0;
	m.sense_lat[1] = 2;
	m.sense[1] = 0.9966;
	shared = -1;
	why[0] = 0;
	is_int(0, t32_latcache_judge(&m, why, sizeof(why), &shared),
	       "a shared core and nothing else: it serves (%s)", why[0] ? why : "no reason given");
	is_int(1, shared, "this run only, not kept");

	m.taint = T32_TAINT_SHARED;
	m.contended = 1;
	why[0] = 0;
	is_int(-1, t32_latcache_judge(&m, why, sizeof(why), &shared),
	       "a shared core beside other work on the measuring CPU: it does not serve");
	ok(strstr(why, "timed, not trusted: other work ran") != NULL, "and says why (%s)", why);

	timing(&m);
	m.halfwidth = 0.2;
	why[0] = 0;
	is_int(-1, t32_latcache_judge(&m, why, sizeof(why), &shared),
	       "an interval of +-0.2 cycles does not serve");
	ok(strstr(why, "wider than 0.15") != NULL, "and says why (%s)", why);

	/* a cost off a whole cycle beyond its interval and a tenth is timed again */
	ok(t32_latcache_off_whole(4.4363, 0.0197),
	   "a load chain at 4.44 +- 0.02 (its blocks ran at 4.0 a load) is timed again");
	ok(t32_latcache_off_whole(4.20, 0.10) && t32_latcache_off_whole(3.80, 0.05),
	   "so are 4.20 +- 0.10 and 3.80 +- 0.05");
	ok(!t32_latcache_off_whole(4.04, 0.04) && !t32_latcache_off_whole(3.0017, 0.032) &&
	   !t32_latcache_off_whole(0.9978, 0.0238), "whole cycles within a tenth are not");
	ok(!t32_latcache_off_whole(4.3, 0.35), "nor a cost whose interval reaches the whole cycle");

	/* the latencies line: both remarks in one parenthesis, as its readers match it */
	{
		struct t32_latcache c;
		char text[1024];

		memset(&c, 0, sizeof(c));
		c.measured = 1;
		c.unkept = 1;
		c.retimed = 1;
		t32_latcache_text(&c, text, sizeof(text));
		const char *both = "1 form measured here (1 not kept: timed on a shared CPU or "
				   "core; 1 timed twice, off a whole cycle the first time: the "
				   "lower kept), 0 from";
		const char *alone = "1 form measured here (1 timed twice, off a whole cycle the "
				    "first time: the lower kept), 0 from";

		ok(strncmp(text, both, strlen(both)) == 0,
		   "not kept and timed twice, in one parenthesis: %s", text);
		c.unkept = 0;
		t32_latcache_text(&c, text, sizeof(text));
		ok(strncmp(text, alone, strlen(alone)) == 0, "timed twice alone: %s", text);
	}
	return done_testing();
}
