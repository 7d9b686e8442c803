/*
 * 0002-spec.c - the spec vocabulary: barrier and store letters, repeat counts,
 * ';'-separated instructions, register set-ups and the (t - bar) / n count.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "t/tap.h"
#include "t32/spec.h"
#include "t32/util.h"

int main(void)
{
	struct t32_spec s = { 0 };
	char err[256];
	uint64_t v;
	char *body1[] = { "1", "inc eax", "10", "add ebx, 1" };
	char *body2[] = { "mov rax, [rax]; nop; nop" };
	char *body3[] = { "10" };
	char *body4[] = { "5", " ; " };

	plan(74);
	is_int(0, t32_spec_set_barrier(&s, "mx", err, sizeof(err)), "barrier mx accepted");
	is_string("mx", s.barrier, "barrier letters kept in order");
	is_int(-1, t32_spec_set_barrier(&s, "mq", err, sizeof(err)), "barrier with q refused");
	ok(strstr(err, "'q'") != NULL, "the error names the bad letter: %s", err);
	is_int(-1, t32_spec_set_barrier(&s, "", err, sizeof(err)), "empty barrier refused");
	is_int(-1, t32_spec_set_barrier(&s, "lllllllll", err, sizeof(err)), "too long barrier refused");
	is_int(0, t32_spec_set_store(&s, "r", err, sizeof(err)), "store r accepted");
	is_int(-1, t32_spec_set_store(&s, "mm", err, sizeof(err)), "store mm refused");

	is_int(0, t32_spec_parse_body(&s, 4, body1, err, sizeof(err)), "C1 n C2 parses");
	is_int(2, (long long)s.nitems, "two items");
	is_int(11, (long long)t32_spec_insns(&s), "n = 1 + 10");
	t32_spec_free(&s);
	is_int(0, t32_spec_parse_body(&s, 1, body2, err, sizeof(err)), "a count may be left out");
	is_int(3, (long long)s.items[0].stmts, "';' separates three instructions");
	is_int(3, (long long)t32_spec_insns(&s), "n counts each instruction");
	t32_spec_free(&s);
	{
		/* `times N` counts N instructions: the n a cost is divided by */
		static const struct { const char *text; long long n; } tt[] = {
			{ "times 4 nop", 4 }, { "imul rax, rax; times 14 nop", 15 },
			{ "TIMES 2 times 3 nop", 6 }, { "times 0x10 nop ; nop", 17 },
			{ "here: times 3 nop", 3 }, { " times\t5\tadd eax, 1", 5 },
		};
		char *bad[] = { (char *)"times 2*3 nop" };
		char *huge[] = { (char *)"times 100000 times 100000 nop" };

		for (size_t i = 0; i < sizeof(tt) / sizeof(tt[0]); i++) {
			char *b[] = { (char *)"3", (char *)tt[i].text };

			t32_spec_free(&s);
			ok(t32_spec_parse_body(&s, 2, b, err, sizeof(err)) == 0 &&
			   (long long)t32_spec_insns(&s) == 3 * tt[i].n,
			   "3 x '%s': %lld instructions (%llu)", tt[i].text, 3 * tt[i].n,
			   (unsigned long long)t32_spec_insns(&s));
		}
		t32_spec_free(&s);
		ok(t32_spec_parse_body(&s, 1, bad, err, sizeof(err)) == -1 &&
		   strstr(err, "times takes a plain number"),
		   "a count only nasm can work out is refused (%s)", err);
		t32_spec_free(&s);
		ok(t32_spec_parse_body(&s, 1, huge, err, sizeof(err)) == -1 &&
		   strstr(err, "up to 100000000"), "counts that come to more than a repeat count may are refused");
		t32_spec_allow_raw_nasm(1);
		t32_spec_free(&s);
		ok(t32_spec_parse_body(&s, 1, bad, err, sizeof(err)) == 0 && t32_spec_insns(&s) == 1,
		   "--raw-nasm lets it in, counted as one");
		t32_spec_allow_raw_nasm(0);
	}
	t32_spec_free(&s);
	is_int(-1, t32_spec_parse_body(&s, 1, body3, err, sizeof(err)), "a count with nothing after it");
	t32_spec_free(&s);
	is_int(-1, t32_spec_parse_body(&s, 2, body4, err, sizeof(err)), "an empty instruction");
	t32_spec_free(&s);

	is_int(0, t32_spec_parse_init(&s, "rdx=0, r15=0x10", err, sizeof(err)), "init list parses");
	is_int(2, (long long)s.ninit, "two set-ups");
	is_int(0x10, (long long)s.init[1].value, "hex value");
	is_int(-1, t32_spec_parse_init(&s, "rsp=0", err, sizeof(err)), "rsp cannot be set");
	is_int(-1, t32_spec_parse_init(&s, "rax=banana", err, sizeof(err)), "bad value refused");
	{
		struct t32_spec v = { 0 };
		char one[96];

		is_int(0, t32_spec_parse_init(&v, "xmm1=1.5d, ymm2=-2f, zmm31=0x1d, k7=255", err, sizeof(err)),
		       "vector and mask set-ups parse");
		is_int(4, (long long)v.ninit, "four of them");
		ok(v.init[0].kind == T32_INIT_VEC && v.init[0].reg == 1 && v.init[0].width == 16 &&
		   v.init[0].value == 0x3ff8000000000000ull, "xmm1=1.5d: every double lane 1.5");
		ok(v.init[1].width == 32 && v.init[1].value == 0xc0000000c0000000ull,
		   "ymm2=-2f: both floats of every qword -2");
		ok(v.init[2].width == 64 && v.init[2].reg == 31 && v.init[2].lanes == 'q' &&
		   v.init[2].value == 0x1d, "zmm31=0x1d: an integer (its d is a hex digit)");
		ok(v.init[3].kind == T32_INIT_MASK && v.init[3].reg == 7 && v.init[3].value == 255,
		   "k7=255");
		t32_init_format(&v.init[1], one, sizeof(one));
		is_string("ymm2=-2f", one, "a set-up is written back as --init takes it");
		is_int(-1, t32_spec_parse_init(&v, "xmm32=1d", err, sizeof(err)), "xmm32 refused");
		is_int(-1, t32_spec_parse_init(&v, "k8=1", err, sizeof(err)), "k8 refused");
		is_int(-1, t32_spec_parse_init(&v, "xmm0=1e999d", err, sizeof(err)), "an infinite double refused");
		is_int(-1, t32_spec_parse_init(&v, "xmm0=1e39f", err, sizeof(err)), "a float out of range refused");
		is_int(-1, t32_spec_parse_init(&v, "xmm0=nand", err, sizeof(err)), "nan refused");
		is_int(-1, t32_spec_parse_init(&v, "xmm01=1d", err, sizeof(err)), "xmm01 is no register");
	}

	is_int(-1, t32_parse_u64("-1", 0, 10, &v), "negative numbers refused");
	is_int(-1, t32_parse_u64("11", 0, 10, &v), "out of range refused");
	is_int(-1, t32_parse_u64("0x0a", 0, 10, &v), "counts are decimal: hex refused");
	v = 0;
	is_int(0, t32_parse_u64("010", 0, 100, &v), "a leading zero is accepted");
	is_int(10, (long long)v, "010 is ten, not octal eight");
	is_int(0, t32_parse_u64("08", 0, 100, &v), "08 is accepted");
	is_int(8, (long long)v, "08 is eight");
	{
		uint64_t *ns = NULL;
		size_t nn = 0;

		is_int(0, t32_parse_nlist("010,1e2", &ns, &nn, err, sizeof(err)), "--n 010,1e2 parses");
		ok(nn == 2 && ns[0] == 10 && ns[1] == 100, "--n 010 is n = 10, 1e2 is 100");
		free(ns);
		ns = NULL;
		is_int(-1, t32_parse_nlist("0x10", &ns, &nn, err, sizeof(err)), "--n 0x10 refused");
		free(ns);
		ns = NULL;
		is_int(-1, t32_parse_nlist("0..1000000", &ns, &nn, err, sizeof(err)),
		       "--n 0..1000000 refused");
		ok(strstr(err, "too many n values") && strstr(err, "10000"), "and the cap named: %s", err);
		free(ns);
		ns = NULL;
		is_int(0, t32_parse_nlist("0..9999", &ns, &nn, err, sizeof(err)), "--n 0..9999 parses");
		is_int(10000, (long long)nn, "10000 values");
		free(ns);
		ns = NULL;
		is_int(-1, t32_parse_nlist("0..9999,20000", &ns, &nn, err, sizeof(err)),
		       "one more than 10000 refused");
		free(ns);
		ns = NULL;
		is_int(0, t32_parse_nlist("3,1,3,2,1", &ns, &nn, err, sizeof(err)), "--n 3,1,3,2,1");
		ok(nn == 3 && ns[0] == 3 && ns[1] == 1 && ns[2] == 2,
		   "repeats dropped, each value at its first place");
		free(ns);
		ns = NULL;
		{
			struct timespec t0, t1;
			double secs;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			is_int(0, t32_parse_nlist("1..9000,1..9000,5..8000", &ns, &nn, err, sizeof(err)),
			       "ranges that repeat each other parse");
			clock_gettime(CLOCK_MONOTONIC, &t1);
			secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
			ok(nn == 9000 && secs < 1, "9000 values in %.3f s, not a search per value", secs);
		}
		free(ns);
	}
	{
		double d = 0;

		is_int(0, t32_parse_real("010.5", 0, 100, &d), "a real 010.5 parses");
		is_double(10.5, d, 1e-12, "as decimal 10.5");
		is_int(0, t32_parse_real("2e-3", 0, 1, &d), "2e-3 parses");
		is_int(-1, t32_parse_real("0x1p3", 0, 100, &d), "a hex float is refused");
		is_int(-1, t32_parse_real("inf", 0, 1e300, &d), "inf is refused");
		is_int(-1, t32_parse_real("nan", 0, 1, &d), "nan is refused");
		is_int(-1, t32_parse_real("101", 0, 100, &d), "out of range is refused");
	}
	t32_spec_free(&s);
	s.ninit = 0;
	is_int(0, t32_spec_parse_init(&s, "rcx=010,rdx=0X1f", err, sizeof(err)), "init values: decimal or 0x");
	is_int(10, (long long)s.init[0].value, "init 010 is ten");
	is_int(31, (long long)s.init[1].value, "init 0X1f is hex");
	{
		/* a block file's most lines, item by item: no copy of every item per item */
		struct t32_spec big = { 0 };
		double t0 = t32_now();
		int bad = 0;

		for (int i = 0; i < 100000 && !bad; i++)
			bad = t32_spec_add_item(&big, 1, "nop") != 0;
		ok(!bad && big.nitems == 100000, "100,000 items added");
		ok(t32_now() - t0 < 5, "in %.2f s (the items are not copied at each one, under the "
		   "sanitizers too)", t32_now() - t0);
		t32_spec_free(&big);
	}
	return done_testing();
}
