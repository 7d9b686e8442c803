/*
 * 5009-model-measured - what the model learns from the machine: a latency solved
 * from a chain's measured cost (a register chain, a load chase, a form the model
 * cannot reproduce, a store whose cost is its throughput at any latency); a locked add that executes early against one that executes
 * at retire (the Zen 4 experiment: four vpmulld and a lock add); a sampled loop
 * folded onto its unit; a fit that may not buy shares with the wrong speed; a
 * predicted curve never below zero.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/correlate.h"
#include "analysis/uarch.h"
#include "t/modelkit.h"
#include "t/tap.h"

static const unsigned char IMUL[] = { 0x48, 0x0f, 0xaf, 0xc0 };		/* imul rax, rax */
static const unsigned char CHASE[] = { 0x48, 0x8b, 0x00 };		/* mov rax, [rax] */
/* vpmulld xmm0, xmm0, xmm0 four times, then lock add qword [rbx], 1 */
static const unsigned char VPM4_LOCK[] = {
	0xc4, 0xe2, 0x79, 0x40, 0xc0, 0xc4, 0xe2, 0x79, 0x40, 0xc0,
	0xc4, 0xe2, 0x79, 0x40, 0xc0, 0xc4, 0xe2, 0x79, 0x40, 0xc0,
	0xf0, 0x48, 0x83, 0x03, 0x01,
};
/* vpmulld xmm0, xmm0, xmm0 twice, then lock add qword [rbx], 1 */
static const unsigned char VPM2_LOCK[] = {
	0xc4, 0xe2, 0x79, 0x40, 0xc0, 0xc4, 0xe2, 0x79, 0x40, 0xc0,
	0xf0, 0x48, 0x83, 0x03, 0x01,
};
/* add eax, 1; add ebx, 2; add edi, 3; add edx, 4: four independent adds */
static const unsigned char ADDS[] = {
	0x83, 0xc0, 0x01, 0x83, 0xc3, 0x02, 0x83, 0xc7, 0x03, 0x83, 0xc2, 0x04,
};
/* add rax, 1; add rax, 2; add rsi, 3; add rdi, 4: the study's add-2-1-1 */
static const unsigned char ADD2_1_1[] = {
	0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x02, 0x48, 0x83, 0xc6, 0x03, 0x48, 0x83, 0xc7, 0x04,
};
/* imul rax, rax; mov [rbx], rcx; nop; nop: a store that holds retirement far longer than the chain */
static const unsigned char IMUL_STORE_NOPS[] = { 0x48, 0x0f, 0xaf, 0xc0, 0x48, 0x89, 0x0b, 0x90, 0x90 };
/* mov qword [rbx + 0x10], rcx: a pure store */
static const unsigned char STORE[] = { 0x48, 0x89, 0x4b, 0x10 };
/* the sampled loop's counter and branch: dec qword [rel $+4096]; jnz $ */
static const unsigned char TAIL[] = { 0x48, 0xff, 0x0d, 0xf9, 0x0f, 0x00, 0x00, 0x75, 0xfe };

/* A 4-wide machine with 2 ALUs and 3-cycle vector multiplies, a lock add of 6 cycles. */
static void machine(struct t32_uarch *u)
{
	kit_uarch(u, "test", 4, 128, 4);
	u->latency[T32_CLASS_VECTOR] = 3;
	u->latency[T32_CLASS_ATRETIRE] = 6;
	u->ports[T32_CLASS_ALU] = 2;
}

/* The 95% half-width of a measured cost here: the latency cache's (Zen 4's store, 0.0086). */
#define SOLVE_HW 0.0086

/*
 * Solve the latency of instruction i of code from a measured cost per copy
 * (+- SOLVE_HW), in whole cycles (q NULL) or quarters.
 */
static int solve_at(const struct t32_uarch *u, const unsigned char *code, size_t len, size_t i,
		    double cycles, unsigned *lat, unsigned *q)
{
	struct t32_model_insn *b;
	int rc;

	if (kit_block(u, code, len, &b) <= i)
		bail("cannot decode a test form");
	rc = t32_model_solve_latency(u, &b[i], cycles, SOLVE_HW, lat, q, NULL);
	free(b);
	return rc;
}
#define solve(u, code, len, cycles, lat) solve_at(u, code, len, 0, cycles, lat, NULL)

/* Share of the samples on instruction i of the block (skid 1) in the model's steady state. */
static double share_of(const struct t32_uarch *u, const unsigned char *code, size_t len, size_t i,
		       double *cycles)
{
	struct t32_model_insn *b;
	struct t32_model_result r;
	size_t n = kit_block(u, code, len, &b);
	double s;

	if (!n || t32_model_steady(u, b, n, 1, &r))
		bail("the model does not run on a test block");
	s = r.share[i];
	*cycles = r.cycles_per_iter;
	t32_model_result_free(&r);
	free(b);
	return s;
}

int main(void)
{
	struct t32_uarch u;
	unsigned lat = 99, q = 99;
	double cyc;

	plan(34);
	machine(&u);

	/* latencies solved from measured chains */
	ok(solve(&u, IMUL, sizeof(IMUL), 2.97, &lat) == 0 && lat == 3,
	   "a register chain of 2.97 cycles a copy: latency 3");
	ok(solve(&u, CHASE, sizeof(CHASE), 4.02, &lat) == 0 && lat == 0,
	   "a load chase of 4.02 on 4-cycle loads: 0 beyond the load");
	ok(solve(&u, CHASE, sizeof(CHASE), 6.1, &lat) == 0 && lat == 2,
	   "a chase of 6.1 cycles: 2 beyond the load");
	ok(solve(&u, CHASE, sizeof(CHASE), 2.0, &lat) != 0,
	   "a chase of 2 cycles on 4-cycle loads: the model cannot reproduce it, no latency");

	/*
	 * A store timed after a nop (Zen 4: 0.5027 cycles a copy, two stores a
	 * cycle) costs its throughput whatever its latency: the least latency, not
	 * one of hundreds of cycles that rounding made a hair nearer (153.25 on
	 * Zen 4, 387.25 on the Xeon, before).
	 */
	{
		struct t32_uarch su;
		double pred = NAN;

		machine(&su);
		su.ports[T32_CLASS_STORE] = 2;
		int rc = solve_at(&su, STORE, sizeof(STORE), 0, 0.5027, &lat, &q);

		ok(rc == 0 && lat == 0 && q == 0,
		   "a store timed at 0.5027 cycles, its throughput: latency 0 (got %u + %u/4)", lat, q);
		rc = solve_at(&su, STORE, sizeof(STORE), 0, 0.4973, &lat, &q);
		ok(rc == 0 && lat == 0 && q == 0, "and at 0.4973: 0 (got %u + %u/4)", lat, q);
		{
			struct t32_model_insn *b;

			if (kit_block(&su, STORE, sizeof(STORE), &b) < 1)
				bail("cannot decode a store");
			ok(t32_model_solve_latency(&su, &b[0], 0.5027, SOLVE_HW, &lat, &q, &pred) == 0 &&
			   fabs(pred - 0.5) < 1e-9, "the cost predicted there is the throughput (%g)", pred);
			free(b);
		}
		/* the shipped Zen 4 and Skylake data, whose loops put the hair there */
		for (int m = 0; m < 2; m++) {
			static const char *const name[] = { "zen4", "skylake" };
			static const double timed[] = { 0.5027, 1.0031 };
			const char *root = getenv("T32_SRC");
			char path[4096], err[512];

			snprintf(path, sizeof(path), "%s/data/uarch/%s.uarch", root && *root ? root : ".",
				 name[m]);
			if (t32_uarch_load(&su, path, NULL, err, sizeof(err))) {
				skip("no data/uarch file here (T32_SRC)");
				continue;
			}
			rc = solve_at(&su, STORE, sizeof(STORE), 0, timed[m], &lat, &q);
			ok(rc == 0 && lat == 0 && q == 0, "%s: a store timed at %g cycles: latency 0 "
			   "(got %u + %u/4)", name[m], timed[m], lat, q);
		}
	}

	/* quarters of a cycle: a cost between whole cycles is run as a mix of them */
	ok(solve_at(&u, IMUL, sizeof(IMUL), 0, 2.97, &lat, &q) == 0 && lat == 3 && q == 0,
	   "2.97 cycles in quarters: still 3 (got %u + %u/4)", lat, q);
	ok(solve_at(&u, IMUL, sizeof(IMUL), 0, 2.52, &lat, &q) == 0 && lat == 2 && q == 2,
	   "a chain of 2.52 cycles a copy: 2.5 (got %u + %u/4)", lat, q);
	{
		struct t32_model_insn *b;
		struct t32_model_result r;
		size_t n = kit_block(&u, IMUL, sizeof(IMUL), &b);

		b[0].latency = 2;
		b[0].quarters = 2;
		if (!n || t32_model_steady(&u, b, n, 1, &r))
			bail("the model does not run a chain of 2.5");
		is_double(2.5, r.cycles_per_iter, 1e-9, "and the model runs it at 2.5 (2, 3, 2, 3...)");
		is_int(2, (long long)r.period, "repeating every 2 copies");
		t32_model_result_free(&r);
		free(b);
	}

	/*
	 * Two vpmulld and a lock add that executes early: a lock add of 7.5 cycles a
	 * copy (Zen 4, timed after a nop) outlasts the 6-cycle chain, so the loop
	 * runs at the lock's pace and it holds retirement: the samples land on the
	 * vpmulld after it.  Whole cycles could only say 7 or 8.
	 */
	u.lock_early = 1;
	ok(solve_at(&u, VPM2_LOCK, sizeof(VPM2_LOCK), 2, 7.5, &lat, &q) == 0,
	   "a lock add of 7.5 cycles a copy is solved");
	{
		struct t32_model_insn *b;
		struct t32_model_result r;
		size_t n = kit_block(&u, VPM2_LOCK, sizeof(VPM2_LOCK), &b);

		b[2].latency = lat;
		b[2].quarters = q;
		if (!n || t32_model_steady(&u, b, n, 1, &r))
			bail("the model does not run vpmulld2-lock");
		is_double(7.5, r.cycles_per_iter, 1e-9, "vpmulld, vpmulld, lock add: 7.5 cycles an iteration");
		ok(r.share[0] > 0.9, "the lock add holds retirement: %.1f%% on the next vpmulld",
		   100 * r.share[0]);
		t32_model_result_free(&r);
		free(b);
	}
	u.lock_early = 0;

	/* four vpmulld and a lock add: where the lock add executes decides the samples */
	u.lock_early = 0;
	ok(share_of(&u, VPM4_LOCK, sizeof(VPM4_LOCK), 0, &cyc) > 0.2,
	   "executed at retire, the lock add is selected: samples on the next vpmulld");
	u.lock_early = 1;
	ok(share_of(&u, VPM4_LOCK, sizeof(VPM4_LOCK), 0, &cyc) < 1e-9,
	   "executed early, it never holds retirement: no sample on the next vpmulld");
	is_double(0.25, share_of(&u, VPM4_LOCK, sizeof(VPM4_LOCK), 4, &cyc), 1e-9,
		  "and the vpmulld chain shares the samples evenly (a quarter on the lock add)");
	is_double(12, cyc, 1e-9, "12 cycles an iteration: the chain's, not the lock's");
	u.lock_early = 0;

	/*
	 * add-2-1-1 in pairs that retire together: counted from the block's first
	 * instruction, every sample lands on the chain's second add; pairs that
	 * may start at either instruction (Zen 4) split them 25/50/25.
	 */
	{
		struct t32_uarch p;

		kit_uarch(&p, "pairs", 8, 128, 4);
		p.retire_group = 2;
		is_double(1.0, share_of(&p, ADD2_1_1, sizeof(ADD2_1_1), 1, &cyc), 1e-9,
			  "aligned pairs: every sample on add rax, 2 (after the pair's head)");
		p.retire_group_any = 1;
		ok(fabs(share_of(&p, ADD2_1_1, sizeof(ADD2_1_1), 0, &cyc) - 0.25) < 1e-9 &&
		   fabs(share_of(&p, ADD2_1_1, sizeof(ADD2_1_1), 1, &cyc) - 0.5) < 1e-9 &&
		   fabs(share_of(&p, ADD2_1_1, sizeof(ADD2_1_1), 2, &cyc) - 0.25) < 1e-9,
		   "pairs of either phase: 25/50/25 on the first three adds");
		is_double(2, cyc, 1e-9, "and 2 cycles an iteration in every phase");
	}

	/* a sampled loop of 3 copies and its counter, folded onto the unit */
	{
		unsigned char loop[3 * sizeof(ADDS) + sizeof(TAIL)];
		struct t32_insn *unit, *lp;
		size_t n, ln;
		char err[256];
		uint64_t counts[4] = { 250, 250, 250, 250 };
		double curve[5], hw[5] = { 0.5, 0.5, 0.5, 0.5, 0.5 };
		const char *params[] = { "latency.alu" };
		struct t32_corr_result r;
		struct t32_corr_opts o;
		double sum = 0;

		for (int k = 0; k < 3; k++)
			memcpy(loop + k * sizeof(ADDS), ADDS, sizeof(ADDS));
		memcpy(loop + 3 * sizeof(ADDS), TAIL, sizeof(TAIL));
		if (t32_deps_decode(ADDS, sizeof(ADDS), &unit, &n, err, sizeof(err)) ||
		    t32_deps_decode(loop, sizeof(loop), &lp, &ln, err, sizeof(err)))
			bail("cannot decode the loop: %s", err);
		is_int(14, (long long)ln, "the loop: 3 copies of 4 adds, its counter and branch");
		/* the curve of k copies at 2 cycles a copy (2 ALUs), from k = 0 */
		for (int k = 0; k <= 4; k++)
			curve[k] = 2.0 * k;
		struct t32_corr_data d = { counts, curve, hw, 4, 1, lp, ln, 3, NULL, NULL, NULL, NULL };

		t32_corr_opts_init(&o);
		ok(t32_corr_fit(&u, NULL, unit, n, &d, params, 1, &o, &r, err, sizeof(err)) == 0,
		   "a fit on the folded loop runs (%s)", err);
		for (size_t i = 0; i < n; i++)
			sum += r.pred_share[i];
		is_double(1, sum, 1e-9, "folded shares sum to 1 without the loop's counter");
		ok(r.admissible && fabs(r.cycles_per_iter - 2) < 0.1,
		   "the fit keeps the measured speed: %.2f cycles a copy", r.cycles_per_iter);
		t32_corr_result_free(&r);

		/*
		 * The loop is looked up in the latency table as the unit is: with the
		 * adds at 3 cycles (their class says 1), the folded shares a fit finds
		 * by itself are those from the entries handed in, and not the class's.
		 */
		{
			char path[] = "/tmp/t32-5009-XXXXXX";
			int fd = mkstemp(path);
			static const char text[] = "# source: test\nadd r64, i | alu | 3\n";
			unsigned char loop2[3 * sizeof(ADD2_1_1) + sizeof(TAIL)];
			struct t32_insn *unit2, *lp2;
			size_t n2, ln2;
			struct t32_lattab tab = { NULL, 0 };
			const struct t32_lat_entry *found[3 * 4 + 2 + 4];
			struct t32_corr_result own, given, none;
			double tvd_same = 1, tvd_class = 0;

			if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1))
				bail("cannot write a latency table to %s", path);
			close(fd);
			if (t32_lattab_load(&tab, path, err, sizeof(err)))
				bail("cannot read the table: %s", err);
			unlink(path);
			for (int k = 0; k < 3; k++)
				memcpy(loop2 + k * sizeof(ADD2_1_1), ADD2_1_1, sizeof(ADD2_1_1));
			memcpy(loop2 + 3 * sizeof(ADD2_1_1), TAIL, sizeof(TAIL));
			if (t32_deps_decode(ADD2_1_1, sizeof(ADD2_1_1), &unit2, &n2, err, sizeof(err)) ||
			    t32_deps_decode(loop2, sizeof(loop2), &lp2, &ln2, err, sizeof(err)) ||
			    n2 + ln2 > sizeof(found) / sizeof(found[0]))
				bail("cannot decode the add-2-1-1 loop: %s", err);
			struct t32_corr_data d2 = { counts, NULL, NULL, 0, 1, lp2, ln2, 3,
						    NULL, NULL, NULL, NULL };

			ok(t32_corr_fit(&u, &tab, unit2, n2, &d2, NULL, 0, &o, &own, err, sizeof(err)) == 0 &&
			   t32_corr_fit(&u, NULL, unit2, n2, &d2, NULL, 0, &o, &none, err, sizeof(err)) == 0,
			   "add-2-1-1 folded from its loop, with the table and without (%s)", err);
			t32_model_find(&tab, unit2, n2, found);
			t32_model_find(&tab, lp2, ln2, found + n2);
			d2.found = found;
			d2.loop_found = found + n2;
			ok(t32_corr_fit(&u, NULL, unit2, n2, &d2, NULL, 0, &o, &given, err, sizeof(err)) == 0,
			   "and from the table's entries handed in (%s)", err);
			tvd_same = t32_tvd(own.pred_share, given.pred_share, n2);
			tvd_class = t32_tvd(own.pred_share, none.pred_share, n2);
			ok(tvd_same < 1e-12 && tvd_class > 0.1,
			   "the loop's adds at the table's 3 cycles: as handed in (TVD %.3g), not the class's 1 (TVD %.3f)",
			   tvd_same, tvd_class);
			t32_corr_result_free(&own);
			t32_corr_result_free(&given);
			t32_corr_result_free(&none);
			t32_lattab_free(&tab);
			free(unit2);
			free(lp2);
		}

		/* a curve far below any model: no admissible fit, and no negative prediction */
		for (int k = 0; k <= 4; k++)
			curve[k] = 0.2 * k - 3 * (k > 0);
		ok(t32_corr_fit(&u, NULL, unit, n, &d, params, 1, &o, &r, err, sizeof(err)) == 0 &&
		   !r.admissible, "no latency reaches 0.2 cycles a copy: not admissible");
		{
			int neg = 0;

			for (int k = 0; k <= 4; k++)
				neg |= r.pred_curve[k] < 0;
			ok(!neg, "the offset never takes the predicted curve below 0");
		}
		t32_corr_result_free(&r);

		/*
		 * A trap for a descent one parameter at a time: shares the model gives
		 * with pairs of either phase retiring together and the loop's branch
		 * holding 2 cycles more.  From single retirement and no delay, neither
		 * change alone lowers the misfit much; both together fit exactly.
		 */
		{
			struct t32_uarch w;
			const char *two[] = { "retire_group", "retire_delay.branch" };
			uint64_t syn[4];
			double sc[5];

			kit_uarch(&w, "wide", 8, 256, 4);
			w.ports[T32_CLASS_ALU] = 4;
			w.retire_group_any = 1;
			w.retire_group = 2;
			w.retire_delay[T32_CLASS_BRANCH] = 2;
			if (t32_corr_fit(&w, NULL, unit, n, &d, NULL, 0, &o, &r, err, sizeof(err)))
				bail("the model does not run the trap: %s", err);
			for (size_t i = 0; i < n; i++)
				syn[i] = (uint64_t)llround(4000 * r.pred_share[i]);
			for (int k = 0; k <= 4; k++)
				sc[k] = r.pred_curve[k];
			t32_corr_result_free(&r);
			d.counts = syn;
			d.curve = sc;
			w.retire_group = 1;
			w.retire_delay[T32_CLASS_BRANCH] = 0;
			if (t32_corr_fit(&w, NULL, unit, n, &d, two, 2, &o, &r, err, sizeof(err)))
				bail("the trap does not fit: %s", err);
			ok(r.p[0].value == 2 && r.p[1].value == 2,
			   "the fit finds group and delay together (group %lu, delay %lu, TVD %.3f)",
			   r.p[0].value, r.p[1].value, r.gof.tvd);
			t32_corr_result_free(&r);
		}
		free(unit);
		free(lp);
	}
	{
		/*
		 * A store measured at 387.25 cycles behind a 3-cycle chain, a 512-entry
		 * ROB: the model finds no period of up to 64 iterations, and its
		 * result is the mean over its run's second half, which a longer
		 * trace's second half gives too, within the 1% the slow settling of
		 * such a run leaves (not one window of 64 iterations: 0.5 cycles).
		 */
		struct t32_uarch w;
		struct t32_model_insn *b;
		struct t32_model_result r;
		struct t32_model_row *rows;
		size_t n, iters = 40000, half;
		double cpi, share[4] = { 0 }, tvd = 0;
		long wsum = 0;

		kit_uarch(&w, "deep", 8, 512, 4);
		n = kit_block(&w, IMUL_STORE_NOPS, sizeof(IMUL_STORE_NOPS), &b);
		if (n != 4)
			bail("cannot decode the store block");
		b[1].latency = 387;
		b[1].quarters = 1;
		rows = calloc(iters * n, sizeof(*rows));
		if (!rows || t32_model_trace(&w, b, n, iters, rows) || t32_model_steady(&w, b, n, 1, &r))
			bail("the model does not run the store block");
		half = iters / 2 * n;
		cpi = (double)(rows[iters * n - 1].retire - rows[half - 1].retire) / (double)(iters / 2);
		for (size_t i = half; i < iters * n; i++)
			wsum += rows[i].weight;
		for (size_t i = half; i < iters * n; i++)
			share[(rows[i].insn + 1) % n] += (double)rows[i].weight / (double)wsum;
		for (size_t i = 0; i < n; i++)
			tvd += fabs(share[i] - r.share[i]) / 2;
		ok(!r.periodic && fabs(r.cycles_per_iter - cpi) < 0.01 * cpi && tvd < 0.01,
		   "no period: the long run's mean (%.3f cycles an iteration against %.3f, TVD %.4f)",
		   r.cycles_per_iter, cpi, tvd);
		t32_model_result_free(&r);
		free(rows);
		free(b);
	}
	return done_testing();
}
