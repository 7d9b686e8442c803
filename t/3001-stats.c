/*
 * 3001-stats - summaries of TSC deltas and the delta histogram.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "t/tap.h"

/* A small deterministic generator, so the test needs nothing but itself. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

int main(void)
{
	struct t32_summary s;
	struct t32_hist h = { 0 };

	plan(41);

	uint64_t odd[] = { 50, 10, 30, 20, 1000, 40, 30 };
	uint64_t keep[7];
	memcpy(keep, odd, sizeof(odd));
	ok(t32_summarize(odd, 7, &s) == 0, "summary of 7 values");
	ok(memcmp(keep, odd, sizeof(odd)) == 0, "the caller's array is left as it was");
	is_int(7, s.n, "n");
	is_int(10, s.min, "min");
	is_int(1000, s.max, "max");
	is_double(30, s.median, 0, "median of an odd count is the middle value");
	/* |x - 30| = 20 20 0 10 970 10 0 -> 0 0 10 10 20 20 970 */
	is_double(10, s.mad, 0, "mad");
	is_double(1180.0 / 7, s.mean, 1e-9, "mean");
	/* 10% of 7 trims nothing */
	is_double(1180.0 / 7, s.trimmed, 1e-9, "trimmed mean of 7 trims nothing");

	uint64_t even[20];
	for (int i = 0; i < 20; i++)
		even[i] = 100 + i;
	even[19] = 100000;
	ok(t32_summarize(even, 20, &s) == 0, "summary of 20 values");
	is_double(109.5, s.median, 0, "median of an even count is the mean of the middle two");
	is_double(5, s.mad, 0, "mad of an even count");
	/* drop 2 at each end: 102..117 */
	is_double(109.5, s.trimmed, 1e-9, "trimmed mean drops 10%% at each end");
	ok(s.mean > 5000, "the plain mean feels the outlier (%.1f)", s.mean);

	ok(t32_summarize(even, 0, &s) == -1, "no samples is an error");

	/* A million deltas on a few levels: the shape of a real run. */
	size_t n = 1000000;
	uint64_t *big = malloc(n * sizeof(*big));
	if (!big)
		bail("out of memory");
	uint64_t cnt[4] = { 0 };
	long double sum = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng() % 100;
		int lv = r < 60 ? 0 : r < 90 ? 1 : r < 99 ? 2 : 3;
		big[i] = 147 + 21 * lv;
		cnt[lv]++;
		sum += big[i];
	}
	ok(t32_summarize(big, n, &s) == 0, "summary of 1e6 deltas");
	is_double(147, s.median, 0, "median of 1e6 deltas");
	is_int(147, s.min, "min of 1e6 deltas");
	is_int(210, s.max, "max of 1e6 deltas");
	is_double((double)(sum / n), s.mean, 1e-6, "mean of 1e6 deltas");

	/* The histogram grown in batches equals the one made at once. */
	for (size_t i = 0; i < n; i += 100000)
		if (t32_hist_add(&h, big + i, 100000) < 0)
			bail("out of memory");
	is_int(n, h.n, "batches add up to all samples");
	is_int(4, h.nlv, "four distinct levels");
	ok(h.lv[0].ticks == 147 && h.lv[0].count == cnt[0] && h.lv[3].ticks == 210 &&
	   h.lv[3].count == cnt[3], "levels and counts match");
	struct t32_summary s2;
	ok(t32_summarize_hist(&h, &s2) == 0 && s2.median == s.median && s2.mad == s.mad &&
	   s2.trimmed == s.trimmed, "summary of the histogram equals the summary of the array");
	t32_hist_free(&h);
	free(big);

	/* Values far apart (the radix sort's high bytes). */
	uint64_t wide[] = { 1ull << 40, 3, 1ull << 63, 2, 3 };
	ok(t32_summarize(wide, 5, &s) == 0 && s.min == 2 && s.max == 1ull << 63 &&
	   s.median == 3, "values spanning 64 bits sort");

	char buf[64];
	is_string("-", t32_est_flags_str(0, buf, sizeof(buf)), "no flags print as -");
	is_string("few,levels", t32_est_flags_str(T32_EST_FEW | T32_EST_LEVELS, buf, sizeof(buf)),
		  "flags print by name");
	is_string("noquant,fallback",
		  t32_est_flags_str(T32_EST_NOQUANT | T32_EST_FALLBACK, buf, sizeof(buf)),
		  "every flag has a name");
	is_string("few", t32_est_flags_str(T32_EST_FEW | T32_EST_LEVELS, buf, 6),
		  "a short buffer keeps whole names");
	/*
	 * Homogeneity of a run's parts.  Draws from one distribution: stable.  The
	 * same run switching halfway between the two regimes seen on a VM (75/25 on
	 * two positions, and spread over eleven): unstable.  A difference of 0.01 in
	 * TVD, significant with a million samples, is too small to matter: stable.
	 * A part 0.045 away from the rest, significant with 4000 samples a part, whose
	 * TVD sampling noise lifts past T32_HOMOG_TVD: stable, as what is beyond the
	 * noise is judged.  Twenty samples a part, one of them 16/4 where the rest
	 * are 10/10: far past the floor, and not significant: stable.
	 */
	{
		enum { P = 4, C = 11 };
		static const double spread[C] = { .02, .26, .05, .05, .05, .05, .05, .05, .05, .21, .16 };
		static const double sharp[C] = { 0, .75, 0, 0, 0, 0, 0, 0, 0, .25, 0 };
		uint64_t m[P * C];
		struct t32_homog h;
		uint64_t x = 88172645463325252ull;

		/* multinomial draws by inversion, a fixed xorshift for repeatability */
		static const double shifted[C] = { .02, .26, .005, .095, .05, .05, .05, .05, .05, .21, .16 };

		for (int regime = 0; regime < 4; regime++) {
			memset(m, 0, sizeof(m));
			for (int p = 0; p < P; p++)
				for (int k = 0; k < (regime == 3 ? 4000 : 400); k++) {
					const double *d = regime == 1 && p >= 2 ? sharp
						: regime == 3 && p == P - 1 ? shifted : spread;
					double u, acc = 0;
					int c = 0;

					x ^= x << 13;
					x ^= x >> 7;
					x ^= x << 17;
					u = (double)(x >> 11) / 9007199254740992.0;
					while (c < C - 1 && (acc += d[c]) < u)
						c++;
					m[p * C + c]++;
				}
			if (regime == 2) {
				/* a million samples a part, the last part shifted by 0.01 */
				for (int c = 0; c < C; c++)
					for (int p = 0; p < P; p++)
						m[p * C + c] = (uint64_t)(1e6 * spread[c]);
				m[(P - 1) * C + 1] += 10000;
				m[(P - 1) * C + 2] -= 10000;
			}
			is_int(0, t32_homogeneity(m, P, C, &h), "homogeneity computed (regime %d)", regime);
			diag("regime %d: chi2 %.1f df %u p %.3g tvd %.3f beyond noise %.3f", regime, h.chi2,
			     h.df, h.p, h.tvd, h.excess);
			if (regime == 0) {
				ok(!h.unstable && h.p > T32_HOMOG_P, "one distribution in every part: stable");
				ok(h.tvd > 0.05 && h.excess < 0.03,
				   "400 samples a part: a TVD of sampling noise, little beyond it");
			} else if (regime == 1)
				ok(h.unstable && h.tvd > 0.2 && h.excess > 0.15,
				   "a switch between regimes halfway: unstable");
			else if (regime == 2)
				ok(!h.unstable && h.p < T32_HOMOG_P && h.tvd < T32_HOMOG_TVD,
				   "a tiny shift that a million samples show: significant, not unstable");
			else
				ok(!h.unstable && h.p < T32_HOMOG_P && h.tvd > T32_HOMOG_TVD &&
				   h.excess > 0.02 && h.excess < T32_HOMOG_TVD,
				   "a shift of 0.045 that noise lifts past the floor: significant, not unstable");
		}
		{
			const uint64_t few[] = { 10, 10, 10, 10, 10, 10, 16, 4 };

			is_int(0, t32_homogeneity(few, 4, 2, &h), "homogeneity of twenty samples a part");
			ok(!h.unstable && h.p > T32_HOMOG_P && h.excess > 0.15,
			   "one part of twenty far from the rest, not significant: stable (p %.3g)", h.p);
		}
		memset(m, 0, sizeof(m));
		m[1] = 100;
		is_int(-1, t32_homogeneity(m, P, C, &h), "one part with samples: nothing to compare");
	}
	return done_testing();
}
